package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/kinds/github/githubtest"
)

var githubEnv = map[string]string{"TRIBUTARY_GITHUB_TOKEN": githubtest.DefaultToken}

// fileArgs downloads the fake's data/large.bin (1.5 MiB).
func fileArgs(extra ...string) []string {
	return append([]string{"download", "github", "file_content", "-p", "owner=" + githubtest.Owner, "-p", "repo=" + githubtest.Repo, "-p", "path=data/large.bin"}, extra...)
}

func TestDownload(t *testing.T) {
	dir := t.TempDir()
	// To stdout, and to a file: the same bytes.
	whole := cli(t, fileArgs("--sandbox")...)
	whole.want(t, 0)
	if len(whole.stdout) != githubtest.DefaultFileSize || whole.stderr != "" {
		t.Fatalf("download to stdout: %d bytes, stderr %q", len(whole.stdout), whole.stderr)
	}
	out := filepath.Join(dir, "large.bin")
	cli(t, fileArgs("--sandbox", "-o", out)...).want(t, 0)
	got, _ := os.ReadFile(out)
	if !bytes.Equal(got, []byte(whole.stdout)) {
		t.Fatalf("download -o: %d bytes differ from stdout's", len(got))
	}
	if _, err := os.Stat(stateFile(out)); !os.IsNotExist(err) {
		t.Errorf("%s left behind after a complete download", stateFile(out))
	}

	// --range, and the same range as a parameter.
	part := filepath.Join(dir, "part.bin")
	cli(t, fileArgs("--sandbox", "--range", "bytes=1000-2999", "-o", part)...).want(t, 0)
	got, _ = os.ReadFile(part)
	if !bytes.Equal(got, []byte(whole.stdout[1000:3000])) {
		t.Errorf("--range bytes=1000-2999: %d bytes, not the file's", len(got))
	}
	r := cli(t, fileArgs("--sandbox", "-p", "range_header=bytes=-100")...)
	r.want(t, 0)
	if r.stdout != whole.stdout[len(whole.stdout)-100:] {
		t.Errorf("range_header bytes=-100: %d bytes, not the file's last 100", len(r.stdout))
	}
	cli(t, fileArgs("--sandbox", "--range", "lines=1-2")...).want(t, exitUsage)
	cli(t, fileArgs("--sandbox", "--resume")...).want(t, exitUsage)

	// A release asset: GitHub's 302 to the object store.
	asset := filepath.Join(dir, "asset.tar.gz")
	cli(t, "download", "github", "release_assets", "--sandbox", "-p", "owner=octo", "-p", "repo=hello", "-p", "asset_id=40000028", "-o", asset).want(t, 0)
	if fi, err := os.Stat(asset); err != nil || fi.Size() == 0 {
		t.Errorf("release asset: %v", err)
	}

	// Progress on a terminal: bytes, and a summary line.
	r = invocation{isTerminal: true}.run(t, fileArgs("--sandbox", "-o", out)...)
	r.want(t, 0)
	if !strings.HasSuffix(r.stderr, out+": 1.5 MiB in "+r.stderr[strings.LastIndex(r.stderr, " ")+1:]) {
		t.Errorf("download progress: %q", r.stderr)
	}
	// Never a file's bytes onto a terminal.
	tty := &app{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{},
		getenv: func(string) (string, bool) { return "", false }, isTerminal: func(io.Writer) bool { return true }}
	if code := tty.run(context.Background(), fileArgs("--sandbox")); code != exitUsage {
		t.Errorf("download to a terminal: exit %d", code)
	}

	// --resume of a complete file gets one byte back and succeeds.
	r = cli(t, fileArgs("--sandbox", "-o", out, "--resume")...)
	r.want(t, 0)
	got, _ = os.ReadFile(out)
	if !bytes.Equal(got, []byte(whole.stdout)) {
		t.Errorf("--resume of a complete file changed it")
	}
	// A file that is not a prefix of the server's is refused.
	if err := os.WriteFile(out, []byte(strings.Repeat("x", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	r = cli(t, fileArgs("--sandbox", "-o", out, "--resume")...)
	r.want(t, exitOther)
	if !strings.Contains(r.stderr, "is not the start of this file") {
		t.Errorf("stderr = %q", r.stderr)
	}
}

// TestDownloadInterruptedAndResumed stops a download half way (as Ctrl-C
// does), then continues it with --resume: the file is whole, each byte
// once. A file that changed on the server in between is refused.
func TestDownloadInterruptedAndResumed(t *testing.T) {
	gh := githubtest.New()
	defer gh.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cut atomic.Bool
	proxy := stallingProxy(t, gh.URL, func() bool { return !cut.Swap(true) })
	defer proxy.Close()

	dir := t.TempDir()
	out := filepath.Join(dir, "large.bin")
	// Ctrl-C once the first bytes are in the file (the proxy holds back the
	// rest until then).
	go func() {
		defer cancel()
		for ctx.Err() == nil {
			if fi, err := os.Stat(out); err == nil && fi.Size() > 0 {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	r := invocation{ctx: ctx, env: githubEnv}.run(t, fileArgs("--base-url", proxy.URL, "-o", out)...)
	r.want(t, exitInterrupted)
	if !strings.Contains(r.stderr, "run the same command with --resume") {
		t.Errorf("stderr = %q", r.stderr)
	}
	partial, _ := os.ReadFile(out)
	if len(partial) >= githubtest.DefaultFileSize {
		t.Fatalf("interrupted download wrote %d bytes", len(partial))
	}
	var st resumeState
	b, err := os.ReadFile(stateFile(out))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &st); err != nil || st.Validator == "" {
		t.Fatalf("resume state %s: %v", b, err)
	}

	// A changed validator is refused and leaves the file alone.
	changed := st
	changed.Validator = `"another-version"`
	if err := writeFileAtomic(stateFile(out), changed); err != nil {
		t.Fatal(err)
	}
	r = invocation{env: githubEnv}.run(t, fileArgs("--base-url", proxy.URL, "-o", out, "--resume")...)
	r.want(t, exitOther)
	if !strings.Contains(r.stderr, "the file changed on the server") {
		t.Errorf("stderr = %q", r.stderr)
	}
	if err := writeFileAtomic(stateFile(out), st); err != nil {
		t.Fatal(err)
	}

	r = invocation{env: githubEnv}.run(t, fileArgs("--base-url", proxy.URL, "-o", out, "--resume")...)
	r.want(t, 0)
	got, _ := os.ReadFile(out)
	want := invocation{env: githubEnv}.run(t, fileArgs("--base-url", gh.URL)...).stdout
	if len(want) != githubtest.DefaultFileSize || !bytes.Equal(got, []byte(want)) {
		t.Fatalf("resumed file: %d bytes, want the %d of the file", len(got), len(want))
	}
	if _, err := os.Stat(stateFile(out)); !os.IsNotExist(err) {
		t.Errorf("%s left behind", stateFile(out))
	}
}

// stallingProxy forwards to target. When stall says so for a request
// without a Range header, it sends the first 100 KiB of the response and
// holds the connection until the client goes.
func stallingProxy(t *testing.T, target string, stall func() bool) *httptest.Server {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Range") == "" && strings.HasSuffix(r.URL.Path, "/large.bin") && stall() {
			w = &stallingWriter{ResponseWriter: w, left: 100 << 10, stop: func() { <-r.Context().Done() }}
		}
		rp.ServeHTTP(w, r)
	}))
}

type stallingWriter struct {
	http.ResponseWriter
	left int
	stop func()
}

func (s *stallingWriter) Write(b []byte) (int, error) {
	if s.left <= 0 {
		return 0, http.ErrAbortHandler
	}
	if len(b) > s.left {
		b = b[:s.left]
	}
	n, err := s.ResponseWriter.Write(b)
	s.left -= n
	if s.left <= 0 {
		s.ResponseWriter.(http.Flusher).Flush()
		s.stop()
	}
	return n, err
}

func (s *stallingWriter) Flush() { s.ResponseWriter.(http.Flusher).Flush() }
