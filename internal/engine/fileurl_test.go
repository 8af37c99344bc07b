package engine_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/tributary-dev/tributary"
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
