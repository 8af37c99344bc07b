package download_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary/download"
	"github.com/tributary-dev/tributary/internal/fakeserver"
)

func TestParseRange(t *testing.T) {
	good := map[string]download.Range{
		"bytes=0-4":    {Start: 0, End: 4},
		"bytes=100-":   {Start: 100, End: -1},
		"bytes=-500":   {Start: -1, End: -1, Suffix: 500},
		" bytes=7-7 ":  {Start: 7, End: 7},
		"bytes=0-0":    {Start: 0, End: 0},
		"bytes=10-999": {Start: 10, End: 999},
	}
	for in, want := range good {
		got, err := download.ParseRange(in)
		if err != nil {
			t.Errorf("ParseRange(%q): %v", in, err)
			continue
		}
		if got != want {
			t.Errorf("ParseRange(%q) = %+v, want %+v", in, got, want)
		}
		if again, _ := download.ParseRange(got.String()); again != got {
			t.Errorf("round trip of %q: %q", in, got.String())
		}
	}
	for _, in := range []string{"", "bytes", "bytes=", "bytes=-", "bytes=5-2", "bytes=a-b", "bytes=0-1,3-4", "items=0-1", "bytes=-0", "bytes=+1-2", "bytes=1-2-3", "bytes=99999999999999999999-"} {
		if _, err := download.ParseRange(in); !errors.Is(err, download.ErrInvalidRange) {
			t.Errorf("ParseRange(%q) err = %v, want ErrInvalidRange", in, err)
		}
	}
}

func content(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

// fetcher returns a Fetch against url and counts requests.
func fetcher(url string, n *atomic.Int32, ranges *[]string) download.Fetch {
	return func(ctx context.Context, h http.Header) (*http.Response, error) {
		n.Add(1)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		for k, v := range h {
			req.Header[k] = v
		}
		if ranges != nil {
			*ranges = append(*ranges, h.Get("Range"))
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode >= 300 {
			resp.Body.Close()
			return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
		}
		return resp, nil
	}
}

func TestResumeAfterCutsDeliversEveryByteOnce(t *testing.T) {
	data := content(1<<20 + 12345)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fakeserver.ServeFile(w, r, fakeserver.File{Name: "f.bin", ETag: `"v1"`, ModTime: time.Unix(1700000000, 0), Content: data, CutEvery: 100_000})
	}))
	defer srv.Close()
	var n atomic.Int32
	var ranges []string
	s, err := download.Open(context.Background(), fetcher(srv.URL, &n, &ranges), nil, download.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	h := sha256.New()
	got, err := io.Copy(h, s)
	if err != nil {
		t.Fatalf("after %d bytes: %v", got, err)
	}
	if want := sha256.Sum256(data); !bytes.Equal(h.Sum(nil), want[:]) || got != int64(len(data)) {
		t.Fatalf("got %d bytes with a different SHA-256", got)
	}
	if n.Load() < 10 {
		t.Errorf("only %d requests: the cuts were not exercised", n.Load())
	}
	if ranges[1] != "bytes=100000-1060920" {
		t.Errorf("first resume asked %q", ranges[1])
	}
}

func TestRangedDownload(t *testing.T) {
	data := content(1000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fakeserver.ServeFile(w, r, fakeserver.File{Name: "f.bin", ContentType: "application/octet-stream", ETag: `"v1"`, Content: data})
	}))
	defer srv.Close()
	for _, tc := range []struct {
		rng         string
		first, last int64
	}{{"bytes=10-19", 10, 19}, {"bytes=990-", 990, 999}, {"bytes=-5", 995, 999}} {
		r, _ := download.ParseRange(tc.rng)
		var n atomic.Int32
		s, err := download.Open(context.Background(), fetcher(srv.URL, &n, nil), &r, download.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(s)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data[tc.first:tc.last+1]) {
			t.Errorf("%s: wrong bytes", tc.rng)
		}
		if d := cmp.Diff(&download.Served{First: tc.first, Last: tc.last, Size: 1000}, s.Range); d != "" {
			t.Errorf("%s: served (-want +got):\n%s", tc.rng, d)
		}
		if s.Size != 1000 || s.ContentType != "application/octet-stream" {
			t.Errorf("%s: size %d type %q", tc.rng, s.Size, s.ContentType)
		}
	}
}

// A server that ignores Range answers 200 with the whole file: the stream
// must still deliver exactly the asked range.
func TestRangeIgnoredByServer(t *testing.T) {
	data := content(500)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "500")
		w.Write(data)
	}))
	defer srv.Close()
	for _, tc := range []struct {
		rng         string
		first, last int
	}{{"bytes=100-109", 100, 109}, {"bytes=-3", 497, 499}, {"bytes=450-", 450, 499}} {
		r, _ := download.ParseRange(tc.rng)
		var n atomic.Int32
		s, err := download.Open(context.Background(), fetcher(srv.URL, &n, nil), &r, download.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(s)
		s.Close()
		if err != nil || !bytes.Equal(got, data[tc.first:tc.last+1]) {
			t.Errorf("%s: got %d bytes, err %v", tc.rng, len(got), err)
		}
	}
}

// When the file changes between attempts, the resume must fail loudly
// instead of splicing two versions.
func TestResumeRefusesChangedFile(t *testing.T) {
	var version atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := version.Add(1)
		data := bytes.Repeat([]byte{byte(v)}, 10000)
		fakeserver.ServeFile(w, r, fakeserver.File{Name: "f", ETag: fmt.Sprintf(`"v%d"`, v), Content: data, CutEvery: 4000})
	}))
	defer srv.Close()
	var n atomic.Int32
	s, err := download.Open(context.Background(), fetcher(srv.URL, &n, nil), nil, download.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := io.ReadAll(s)
	if !errors.Is(err, download.ErrChanged) {
		t.Fatalf("err = %v after %d bytes, want ErrChanged", err, len(got))
	}
	for _, b := range got {
		if b != 1 {
			t.Fatal("bytes of the second version were delivered")
		}
	}
}

func TestChunks(t *testing.T) {
	data := content(10_000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fakeserver.ServeFile(w, r, fakeserver.File{Name: "f", ETag: `"x"`, Content: data})
	}))
	defer srv.Close()
	var n atomic.Int32
	s, err := download.Open(context.Background(), fetcher(srv.URL, &n, nil), nil, download.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []byte
	chunks := 0
	for c, err := range download.Chunks(s, 4096) {
		if err != nil {
			t.Fatal(err)
		}
		if len(c) > 4096 {
			t.Fatalf("chunk of %d bytes", len(c))
		}
		chunks++
		got = append(got, c...)
	}
	if !bytes.Equal(got, data) || chunks != 3 {
		t.Errorf("%d chunks, %d bytes", chunks, len(got))
	}
}

// openCancellable opens a download of f from a fake, with a context the
// test cancels; n counts the requests made.
func openCancellable(t *testing.T, f fakeserver.File) (s *download.Stream, cancel context.CancelFunc, n *atomic.Int32) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fakeserver.ServeFile(w, r, f)
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	n = new(atomic.Int32)
	s, err := download.Open(ctx, fetcher(srv.URL, n, nil), nil, download.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, cancel, n
}

func TestCancelStopsResume(t *testing.T) {
	s, cancel, n := openCancellable(t, fakeserver.File{Name: "f", ETag: `"x"`, Content: content(100_000), CutEvery: 1000})
	buf := make([]byte, 500)
	if _, err := io.ReadFull(s, buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	before := n.Load()
	start := time.Now()
	_, err := io.ReadAll(s)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// No resume after the cancel (the file is cut every 1,000 bytes, so a
	// resume that ignored it would make 99 more requests). The time is a
	// guard against a hang only: a loaded machine may be slow.
	if after := n.Load(); after != before {
		t.Errorf("%d requests after the cancel", after-before)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("cancel took %v", time.Since(start))
	}
}

// TestCancelEndsReads cancels a download whose whole file has already
// arrived: the next Read fails with context.Canceled, and no byte more is
// delivered.
func TestCancelEndsReads(t *testing.T) {
	s, cancel, _ := openCancellable(t, fakeserver.File{Name: "f", ETag: `"x"`, Content: content(1 << 20)})
	if _, err := io.ReadFull(s, make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // the rest reaches the socket
	cancel()
	rest, err := io.ReadAll(s)
	if !errors.Is(err, context.Canceled) || len(rest) != 0 {
		t.Fatalf("after the cancel: %d bytes, %v; want none, and context.Canceled", len(rest), err)
	}
}
