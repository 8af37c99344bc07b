package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// A signed file URL (FileURLExpires) is read again before every request
// for the bytes: a download cut three times resumes from a fresh URL each
// time, where the one read first has expired. The URL's path names the
// block's type ("{type}").
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
		Routes: map[tributary.Action][]engine.Route{tributary.ActionDownload: {{Path: "/blocks/{block_id}", FileURL: []string{"{type}", "file", "url"}, FileURLExpires: true}}},
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
