package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// A two-step download whose file URL expires (Asana's download_url lives
// about two minutes) reads the record again when it resumes: every URL
// it was given serves one cut, then the source refuses it as S3 refuses
// an expired signature, so the download completes only if each resume
// asks for a fresh URL.
func TestDownloadResumeRereadsFileURL(t *testing.T) {
	content := []byte("0123456789abcdefghijklmnopqrstuvwxyz")
	var mu sync.Mutex
	version, reads := 0, 0
	used := map[string]bool{}
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch r.URL.Path {
		case "/things/1":
			reads++
			version++
			fmt.Fprintf(w, `{"thing":{"file_url":%q}}`, fmt.Sprintf("%s/file?sig=%d", srv.URL, version))
		case "/file":
			sig := r.URL.Query().Get("sig")
			if used[sig] {
				http.Error(w, "<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>", http.StatusForbidden)
				return
			}
			used[sig] = true
			fakeserver.ServeFile(w, r, fakeserver.File{Name: "f.txt", ContentType: "text/plain", Content: content, ETag: `"v1"`, CutEvery: 10})
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	c := open(t, srv.Client().Transport, tributary.WithBaseURL(srv.URL))
	s, err := c.Download(context.Background(), "things", tributary.Params{"id": 1})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(s)
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(content) {
		t.Errorf("got %q", got)
	}
	if reads != 4 { // 36 bytes cut every 10: the first read and three resumes
		t.Errorf("the record was read %d times, want 4 (once, then once per resume)", reads)
	}
}

// A file URL found through the record's own type (a "{type}" step:
// Notion's pdf.file.url) is read again on every resume too: a download
// cut twice resumes from a fresh URL each time, where the one read first
// has expired.
func TestSignedFileURLReadAgainOnResume(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 3000)
	var signed atomic.Int32
	mux := http.NewServeMux()
	var srv *httptest.Server
	mux.HandleFunc("GET /blocks/{id}", func(w http.ResponseWriter, r *http.Request) {
		n := signed.Add(1)
		fmt.Fprintf(w, `{"id":%q,"type":"pdf","pdf":{"file":{"url":"%s/s3/f.pdf?sig=%d"}}}`, r.PathValue("id"), srv.URL, n)
	})
	mux.HandleFunc("GET /s3/f.pdf", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("sig") != strconv.Itoa(int(signed.Load())) {
			http.Error(w, "Request has expired", http.StatusForbidden)
			return
		}
		fakeserver.ServeFile(w, r, fakeserver.File{Name: "f.pdf", ETag: `"v1"`, ModTime: time.Unix(1700000000, 0), Content: data, CutEvery: 10_000})
	})
	srv = httptest.NewServer(mux)
	defer srv.Close()
	k := engine.Kind{Type: "signed", Entities: []engine.Entity{{
		Entity: tributary.Entity{Name: "files", Actions: []tributary.Action{tributary.ActionDownload},
			Params: map[tributary.Action][]tributary.Param{tributary.ActionDownload: {{Name: "block_id", Type: tributary.TypeString, Required: true}}}},
		Routes: map[tributary.Action][]engine.Route{tributary.ActionDownload: {{Path: "/blocks/{block_id}", FileURL: []string{"{type}", "file", "url"}}}},
	}}}
	c, err := engine.Open(engine.Setup{Kind: &k, Options: tributary.NewOptions(tributary.WithBaseURL(srv.URL),
		tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 0}))})
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Download(context.Background(), "files", tributary.Params{"block_id": "b1"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := io.ReadAll(s)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read %d of %d bytes: %v", len(got), len(data), err)
	}
	if n := signed.Load(); n != 3 {
		t.Errorf("the block was read %d times, want 3 (the first request and two resumes)", n)
	}
}
