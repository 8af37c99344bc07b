package googledrive_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/googledrive"
	"github.com/tributary-dev/tributary/kinds/googledrive/googledrivetest"
)

// Every Google-native type exports to each of its formats (files.export
// with mimeType), whole: the bytes start as the format does and the
// stream says the type; a range is refused before any request, saying
// why; a binary file does not export and a Google Doc does not download,
// each error naming what to use instead.
func TestExports(t *testing.T) {
	s := googledrivetest.New(googledrivetest.WithFiles(7), googledrivetest.WithDrives(0, 0))
	defer s.Close()
	c := open(t, s)
	ctx := context.Background()
	starts := map[string]string{"application/pdf": "%PDF-", "text/csv": "name,version", "text/plain": "\ufeff",
		"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   "PK\x03\x04",
		"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         "PK\x03\x04",
		"application/vnd.openxmlformats-officedocument.presentationml.presentation": "PK\x03\x04"}
	cases := map[string][]string{ // file number → formats
		googledrivetest.FileID(1): {"application/pdf", "text/plain", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
		googledrivetest.FileID(2): {"application/pdf", "text/csv", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
		googledrivetest.FileID(3): {"application/pdf", "text/plain", "application/vnd.openxmlformats-officedocument.presentationml.presentation"},
	}
	for id, formats := range cases {
		for _, mime := range formats {
			st, err := c.Download(ctx, "file_exports", tributary.Params{"fileId": id, "mimeType": mime})
			if err != nil {
				t.Fatalf("%s to %s: %v", id, mime, err)
			}
			b, err := io.ReadAll(st)
			st.Close()
			if err != nil || !bytes.HasPrefix(b, []byte(starts[mime])) || st.ContentType != mime {
				t.Errorf("%s to %s: %q (%s), %v", id, mime, b, st.ContentType, err)
			}
		}
	}
	s.ResetRequests()
	_, err := c.Download(ctx, "file_exports", tributary.Params{"fileId": googledrivetest.FileID(1), "mimeType": "application/pdf", "range_header": "bytes=0-99"})
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) || te.Param != "range_header" || !strings.Contains(te.Message, "no byte range") || len(s.Requests()) != 0 {
		t.Errorf("a range of an export: %v", err)
	}
	_, err = c.Download(ctx, "files", tributary.Params{"fileId": googledrivetest.FileID(1)})
	if !errors.As(err, &te) || te.Code != "fileNotDownloadable" || !strings.Contains(te.Message, "file_exports") {
		t.Errorf("alt=media of a Google Doc: %v", err)
	}
	_, err = c.Download(ctx, "file_exports", tributary.Params{"fileId": googledrivetest.FileID(4), "mimeType": "application/pdf"})
	if !errors.As(err, &te) || te.Code != "fileNotExportable" || !strings.Contains(te.Message, "files' download") {
		t.Errorf("export of a PDF: %v", err)
	}
	got := requests(s)
	if len(got) != 2 || got[0] != "GET /files/"+googledrivetest.FileID(1)+"?alt=media" || got[1] != "GET /files/"+googledrivetest.FileID(4)+"/export?mimeType=application%2Fpdf" {
		t.Errorf("requests %q", got)
	}
}

// A binary file's bytes (alt=media) over a connection the fake cuts: each
// cut resumed with Range and If-Range from the byte reached, the bytes
// those of the file. With TRIBUTARY_LONG=1 the file is 1 GiB cut every
// 128 MiB, and the download's speed is compared with a plain io.Copy of
// the same file, uncut, in three rounds alternating which goes first, the
// best of each compared (the ratio is checked under
// TRIBUTARY_STRICT_TIMING=1, alone on the machine).
func TestDownloadResumes(t *testing.T) {
	size, cut, rounds := 8<<20, 1<<20, 1
	long := os.Getenv("TRIBUTARY_LONG") != ""
	if long {
		size, cut, rounds = 1<<30, 128<<20, 3
	}
	s := googledrivetest.New(googledrivetest.WithFiles(7), googledrivetest.WithDrives(0, 0), googledrivetest.WithFileSize(size), googledrivetest.WithFileCutEvery(cut))
	defer s.Close()
	id := googledrivetest.FileID(4)
	whole := googledrivetest.New(googledrivetest.WithFiles(7), googledrivetest.WithDrives(0, 0), googledrivetest.WithFileSize(size))
	defer whole.Close()
	var want []byte
	plain := func() time.Duration { // io.Copy of the same bytes, uncut
		req, _ := http.NewRequest(http.MethodGet, whole.URL+"/files/"+id+"?alt=media", nil)
		req.Header.Set("Authorization", "Bearer "+googledrivetest.DefaultAccessToken)
		start := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		h := sha256.New()
		if n, err := io.Copy(h, resp.Body); err != nil || n != int64(size) {
			t.Fatalf("plain copy: %d bytes, %v", n, err)
		}
		want = h.Sum(nil)
		return time.Since(start)
	}
	c, err := googledrive.New(googledrive.Credentials{AccessToken: googledrivetest.DefaultAccessToken}, tributary.WithBaseURL(s.URL),
		tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	var ranges []string
	ours := func() time.Duration {
		s.ResetRequests()
		start := time.Now()
		st, err := c.Download(context.Background(), "files", tributary.Params{"fileId": id})
		if err != nil {
			t.Fatal(err)
		}
		got := sha256.New()
		n, err := io.Copy(got, st)
		st.Close()
		took := time.Since(start)
		if err != nil || n != int64(size) || !bytes.Equal(got.Sum(nil), want) || st.Size != int64(size) {
			t.Fatalf("%d bytes (size %d), %v; sha256 equal: %v", n, st.Size, err, bytes.Equal(got.Sum(nil), want))
		}
		ranges = nil
		for _, r := range s.Requests() {
			if rg := r.Header.Get("Range"); rg != "" {
				ranges = append(ranges, rg)
				if r.Header.Get("If-Range") == "" || r.Query.Get("alt") != "media" {
					t.Errorf("resume %s: If-Range %q, query %v", rg, r.Header.Get("If-Range"), r.Query)
				}
			}
		}
		if len(ranges) != size/cut-1 || ranges[0] != fmt.Sprintf("bytes=%d-%d", cut, size-1) {
			t.Errorf("resumes %q", ranges)
		}
		return took
	}
	plainTook, took := plain(), ours()
	for r := 1; r < rounds; r++ {
		if r%2 == 1 {
			took = min(took, ours())
			plainTook = min(plainTook, plain())
		} else {
			plainTook = min(plainTook, plain())
			took = min(took, ours())
		}
	}
	ratio := plainTook.Seconds() / took.Seconds()
	t.Logf("%d MiB cut every %d MiB: %d resumes, best of %d %v (%.0f MB/s); plain io.Copy uncut %v (%.0f MB/s): %.2f× its speed",
		size>>20, cut>>20, len(ranges), rounds, took.Round(time.Millisecond), float64(size)/took.Seconds()/1e6, plainTook.Round(time.Millisecond), float64(size)/plainTook.Seconds()/1e6, ratio)
	if long && os.Getenv("TRIBUTARY_STRICT_TIMING") != "" && ratio < 0.9 {
		t.Errorf("the download ran at %.2f× io.Copy's speed, want at least 0.9×", ratio)
	}
}
