package browsertest_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tributary-dev/tributary/internal/browsertest"
)

// TestBrowserFillsAFormAndSeesErrors loads a loopback page in the real
// browser, submits its form by keyboard, and sees the page's console error.
func TestBrowserFillsAFormAndSeesErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/done" {
			fmt.Fprintf(w, `<!doctype html><title>done</title><p id="got">%s</p><script>console.error("seen")</script>`, r.URL.Query().Get("name"))
			return
		}
		fmt.Fprint(w, `<!doctype html><title>form</title><form action="/done"><label>Name <input id="name" name="name"></label><button>Go</button></form>`)
	}))
	defer srv.Close()
	b := browsertest.New(t, 30*time.Second)
	err := chromedp.Do(b.Ctx,
		chromedp.Navigate(srv.URL),
		chromedp.SendKeys(chromedp.ID("name"), "ada\r"),
		chromedp.WaitVisible(chromedp.ID("got")),
	)
	if err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(b.Ctx, chromedp.Text(chromedp.ID("got")))
	if err != nil {
		t.Fatal(err)
	}
	if got != "ada" {
		t.Errorf("the submitted page says %q, want ada", got)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(b.Problems()) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if p := b.Problems(); len(p) != 1 || !strings.Contains(p[0], "seen") {
		t.Errorf("problems = %q, want the page's one console error", p)
	}
	p, err := b.Screenshot(t.TempDir(), "done.png")
	if err != nil {
		t.Fatal(err)
	}
	if png, err := os.ReadFile(p); err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("the screenshot is not a PNG file (%v)", err)
	}
}
