// Package browsertest starts a real headless Chromium (Debian's chromium
// package) for tests that drive pages with chromedp: the service's connect
// page, the CLI's consent flow, the operator's console.
//
// A test that calls New is skipped when no Chromium is installed, unless
// TRIBUTARY_REQUIRE_CHROMIUM is set (CI sets it), which fails it instead:
// a browser test never passes by not running in CI.
//
// Each Browser has its own empty profile directory, and Chromium is started
// with the flags that keep it off the network it does not need (no
// background networking, component updates, sync or QUIC), so that only the
// test's loopback pages are fetched.
package browsertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// envRequire makes a missing Chromium a failure instead of a skip.
const envRequire = "TRIBUTARY_REQUIRE_CHROMIUM"

// candidates are the executables tried, in order, after $CHROMIUM.
var candidates = []string{"chromium", "chromium-browser", "google-chrome", "/usr/bin/chromium"}

// Path returns the Chromium executable: $CHROMIUM when set, else the first
// of the usual names found on $PATH.
func Path() (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p, nil
	}
	for _, c := range candidates {
		if p, err := exec.LookPath(c); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium found (install Debian's chromium package, or set $CHROMIUM)")
}

// Browser is one running headless Chromium and what its pages logged.
type Browser struct {
	// Ctx is the chromedp context of the browser's first tab; pass it to
	// chromedp.Run. It ends with the test.
	Ctx context.Context

	mu       sync.Mutex
	problems []string // console errors and uncaught exceptions
}

// New starts a headless Chromium for t and closes it when t ends. The
// browser's tab has a deadline of timeout (a minute when 0), so a page that
// never loads fails the test instead of hanging it.
func New(t testing.TB, timeout time.Duration) *Browser {
	t.Helper()
	path, err := Path()
	if err != nil {
		if os.Getenv(envRequire) != "" {
			t.Fatalf("browsertest: %v; %s is set, so this test may not skip", err, envRequire)
		}
		t.Skipf("browsertest: %v", err)
	}
	if timeout <= 0 {
		timeout = time.Minute
	}
	opts := append([]chromedp.ExecAllocatorOption{},
		chromedp.ExecPath(path),
		chromedp.UserDataDir(filepath.Join(t.TempDir(), "profile")),
		chromedp.Headless,
		chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox refuses to start
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	b := &Browser{}
	ctx, cancelCtx := chromedp.NewContext(actx, chromedp.WithLogf(func(string, ...any) {}))
	ctx, cancelTimeout := context.WithTimeout(ctx, timeout)
	// Start the browser now, so that a broken installation fails here.
	if err := chromedp.Do(ctx); err != nil {
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
		t.Fatalf("browsertest: starting %s: %v", path, err)
	}
	messages := chromedp.Console(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				b.note(fmt.Sprintf("%s %s:%d: %s", m.Type, m.URL, m.Line+1, m))
			}
		}
	}()
	t.Cleanup(func() {
		cancelTimeout()
		cancelCtx() // closes the browser
		cancelAlloc()
		<-done
	})
	b.Ctx = ctx
	return b
}

func (b *Browser) note(s string) {
	b.mu.Lock()
	b.problems = append(b.problems, s)
	b.mu.Unlock()
}

// Problems returns the console errors and uncaught exceptions the pages
// have logged so far.
func (b *Browser) Problems() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.problems...)
}

// Screenshot writes a full-page PNG of the current page to dir/name (dir
// made if missing) and returns its path.
func (b *Browser) Screenshot(dir, name string) (string, error) {
	png, err := chromedp.Run(b.Ctx, chromedp.FullScreenshot(100)) // 100: PNG; below it, JPEG
	if err != nil {
		return "", fmt.Errorf("browsertest: screenshot: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, name)
	return p, os.WriteFile(p, png, 0o644)
}
