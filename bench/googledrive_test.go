package bench

import (
	"context"
	"net/http"
	"testing"

	"google.golang.org/api/drive/v3"
	"google.golang.org/api/option"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/benchmark"
	"github.com/tributary-dev/tributary/kinds/googledrive"
	"github.com/tributary-dev/tributary/kinds/googledrive/googledrivetest"
)

// benchDriveFiles is the number of Drive files walked per iteration, 100
// a page with every field (Drive's most when the fields ask for
// permissions).
const benchDriveFiles = 10_000

func driveServer(b *testing.B) *googledrivetest.Server {
	srv := googledrivetest.New(googledrivetest.WithFiles(benchDriveFiles), googledrivetest.WithDrives(0, 0))
	srv.SetResponseCache(true)
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkDriveFilesGoogleAPI lists the files with Google's own client,
// google.golang.org/api/drive/v3 v0.312.0 (files.list with fields=* and
// pageToken, into *drive.File), against the same fake.
func BenchmarkDriveFilesGoogleAPI(b *testing.B) {
	srv := driveServer(b)
	ctx := context.Background()
	hc := benchmark.Client(b)
	hc.Transport = bearer{hc.Transport}
	svc, err := drive.NewService(ctx, option.WithEndpoint(srv.URL+"/"), option.WithHTTPClient(hc))
	if err != nil {
		b.Fatal(err)
	}
	benchmark.Walk(b, benchDriveFiles, func() int {
		n := 0
		err := svc.Files.List().Fields("*").Context(ctx).Pages(ctx, func(page *drive.FileList) error {
			n += len(page.Files)
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		return n
	})
}

// bearer sends the fake's access token, as an oauth2 transport would.
type bearer struct{ next http.RoundTripper }

func (t bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+googledrivetest.DefaultAccessToken)
	return t.next.RoundTrip(r)
}

func driveClient(b *testing.B, srv *googledrivetest.Server) *googledrive.Client {
	c, err := googledrive.New(googledrive.Credentials{AccessToken: googledrivetest.DefaultAccessToken}, tributary.WithBaseURL(srv.URL), tributary.WithoutPacing())
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkDriveFilesTributaryTyped lists the same files into
// googledrive.File with Tributary's typed handle.
func BenchmarkDriveFilesTributaryTyped(b *testing.B) {
	c := driveClient(b, driveServer(b))
	benchmark.Walk(b, benchDriveFiles, func() int {
		return benchmark.Count(b, c.Files().All(context.Background(), googledrive.FileParams{}))
	})
}

// BenchmarkDriveFilesTributaryGeneric lists the same files as raw
// tributary.Records.
func BenchmarkDriveFilesTributaryGeneric(b *testing.B) {
	c := driveClient(b, driveServer(b))
	benchmark.Walk(b, benchDriveFiles, func() int {
		return benchmark.Count(b, tributary.All(context.Background(), c, "files", nil))
	})
}
