package googledrive_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/benchmark"
	"github.com/tributary-dev/tributary/kinds/googledrive"
	"github.com/tributary-dev/tributary/kinds/googledrive/googledrivetest"
)

// benchFiles is the number of files walked per iteration, 100 a page
// with every field.
const benchFiles = 10_000

func benchServer(tb testing.TB, files int) *googledrivetest.Server {
	srv := googledrivetest.New(googledrivetest.WithFiles(files), googledrivetest.WithDrives(0, 0))
	// Pages are rendered once and replayed, so the fake costs next to
	// nothing and what is measured is the clients.
	srv.SetResponseCache(true)
	tb.Cleanup(srv.Close)
	return srv
}

func benchClient(tb testing.TB, srv *googledrivetest.Server) *googledrive.Client {
	c, err := googledrive.New(googledrive.Credentials{AccessToken: googledrivetest.DefaultAccessToken}, tributary.WithBaseURL(srv.URL), tributary.WithoutPacing())
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// walkTyped lists every file through the typed handle.
func walkTyped(tb testing.TB, c *googledrive.Client) int {
	return benchmark.Count(tb, c.Files().All(context.Background(), googledrive.FileParams{}))
}

// walkNetHTTP is the baseline: a plain net/http + encoding/json loop over
// the pages the library asks for (GET /files?fields=*, then pageToken
// until no nextPageToken), with the same headers, into the same struct.
func walkNetHTTP(tb testing.TB, hc *http.Client, base string) int {
	n := 0
	q := url.Values{"fields": {"*"}}
	for {
		req, _ := http.NewRequest(http.MethodGet, base+"/files?"+q.Encode(), nil)
		req.Header.Set("Authorization", "Bearer "+googledrivetest.DefaultAccessToken)
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		var page struct {
			Files         []googledrive.File `json:"files"`
			NextPageToken string             `json:"nextPageToken"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			tb.Fatal(resp.Status, err)
		}
		n += len(page.Files)
		if page.NextPageToken == "" {
			return n
		}
		q.Set("pageToken", page.NextPageToken)
	}
}

// BenchmarkListFilesTyped walks 10,000 files into googledrive.File.
func BenchmarkListFilesTyped(b *testing.B) {
	c := benchClient(b, benchServer(b, benchFiles))
	benchmark.Walk(b, benchFiles, func() int { return walkTyped(b, c) })
}

// BenchmarkListFilesGeneric walks 10,000 files as raw Records.
func BenchmarkListFilesGeneric(b *testing.B) {
	c := benchClient(b, benchServer(b, benchFiles))
	benchmark.Walk(b, benchFiles, func() int {
		return benchmark.Count(b, tributary.All(context.Background(), c, "files", nil))
	})
}

// BenchmarkListFilesNetHTTP walks the same 10,000 files with walkNetHTTP.
func BenchmarkListFilesNetHTTP(b *testing.B) {
	srv := benchServer(b, benchFiles)
	hc := benchmark.Client(b)
	benchmark.Walk(b, benchFiles, func() int { return walkNetHTTP(b, hc, srv.URL) })
}

// The baseline is a fair one: it sends what the typed listing sends (paths,
// queries, headers but User-Agent) and counts the same records.
func TestNetHTTPBaselineMatchesTyped(t *testing.T) {
	const files = 250
	srv := benchServer(t, files)
	c := benchClient(t, srv)
	benchmark.Baseline(t, srv, files, func() int { return walkTyped(t, c) }, func(hc *http.Client) int { return walkNetHTTP(t, hc, srv.URL) })
}
