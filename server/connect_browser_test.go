package server_test

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/tributary-dev/tributary/internal/browsertest"
)

// In a real browser, as an end user: the application's backend makes a
// session, the user opens its link, picks Zendesk (typing the subdomain,
// by keyboard only) or HubSpot (no input, no PKCE, by mouse), approves at
// the vendor's consent page, and lands on the application's return URL
// with the new connector's id; that connector then lists and searches
// the vendor's records. No page logs an error. With
// TRIBUTARY_SCREENSHOTS=dir, the connect page is saved at 360 px wide and
// at desktop width.
func TestConnectInBrowser(t *testing.T) {
	cs := startConnect(t, sqliteStore(t), "", "", nil, nil)
	b := browsertest.New(t, 2*time.Minute)
	tok := cs.token(t, clientA, "")

	// The page of every kind, on a phone and on a desktop.
	everyKind, _ := cs.session(t, nil)
	viewports(t, b, os.Getenv("TRIBUTARY_SCREENSHOTS"), everyKind)

	// Zendesk, keyboard only.
	connectURL, _ := cs.session(t, map[string]any{"allowed_kinds": []string{"zendesk-support"}})
	if err := chromedp.Do(b.Ctx, chromedp.Navigate(connectURL), chromedp.WaitVisible(chromedp.CSS("h1"))); err != nil {
		t.Fatal(err)
	}
	focused := func(want string) {
		t.Helper()
		id, err := chromedp.Run(b.Ctx, chromedp.Evaluate[string](`document.activeElement.id`))
		if err != nil || id != want {
			t.Fatalf("the focus is on %q (%v), want %q", id, err, want)
		}
		outline, err := chromedp.Run(b.Ctx, chromedp.Evaluate[string](`getComputedStyle(document.activeElement).outlineStyle`))
		if err != nil || outline == "none" {
			t.Errorf("the focused %s shows no outline (%q, %v)", want, outline, err)
		}
	}
	if err := chromedp.Do(b.Ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
		t.Fatal(err)
	}
	focused("k0-subdomain")
	label, err := chromedp.Run(b.Ctx, chromedp.Evaluate[string](`document.activeElement.labels[0].textContent`))
	if err != nil || !strings.HasPrefix(label, "Zendesk subdomain") {
		t.Errorf("the subdomain field's label is %q (%v)", label, err)
	}
	if err := chromedp.Do(b.Ctx, chromedp.KeyEvent("acme"), chromedp.KeyEvent(kb.Tab)); err != nil {
		t.Fatal(err)
	}
	focused("connect-k0")
	// Enter submits; the fake's consent page comes next, answered by
	// keyboard too (its first button is Approve).
	if err := chromedp.Do(b.Ctx, chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS(`button[value="approve"]`)),
		chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatal(err)
	}
	zdID := landed(t, b, cs)
	a := cs.execute(t, tok, zdID, map[string]any{"entity": "tickets", "action": "list", "params": map[string]any{"per_page": 5}})
	recs, _ := a.json["result"].([]any)
	if a.status != 200 || len(recs) != 5 {
		t.Fatalf("list on the connector made in the browser: %d %s", a.status, a.body)
	}
	first, _ := recs[0].(map[string]any)
	a = cs.execute(t, tok, zdID, map[string]any{"entity": "tickets", "action": "search",
		"params": map[string]any{"query": map[string]any{"filter": map[string]any{"eq": map[string]any{"id": first["id"]}}}}})
	res, _ := a.json["result"].(map[string]any)
	if hits, _ := res["hits"].([]any); a.status != 200 || len(hits) != 1 {
		t.Fatalf("search on the connector made in the browser: %d %s", a.status, a.body)
	}
	if rows := cs.connectors(t); len(rows) != 1 || rows[0].ID != zdID || rows[0].ExternalUserID != "user-1" {
		t.Fatalf("connectors: %v", rows)
	}

	// HubSpot (no PKCE), with the mouse, from the page that offers both.
	if err := chromedp.Do(b.Ctx, chromedp.Navigate(everyKind), chromedp.Click(chromedp.CSS(`button[id^="connect-"]`)),
		chromedp.WaitVisible(chromedp.CSS(`button[value="approve"]`))); err != nil {
		t.Fatal(err)
	}
	consent, err := chromedp.Run(b.Ctx, chromedp.Location())
	if err != nil || !strings.HasPrefix(consent, cs.hs.URL) || strings.Contains(consent, "code_challenge") {
		t.Fatalf("the HubSpot consent page: %q %v", consent, err)
	}
	if err := chromedp.Do(b.Ctx, chromedp.Click(chromedp.CSS(`button[value="approve"]`))); err != nil {
		t.Fatal(err)
	}
	hsID := landed(t, b, cs)
	if a := cs.execute(t, tok, hsID, map[string]any{"entity": "companies", "action": "list"}); a.status != 200 {
		t.Fatalf("list on the HubSpot connector: %d %s", a.status, a.body)
	}
	a = cs.execute(t, tok, hsID, map[string]any{"entity": "companies", "action": "search", "params": map[string]any{"query": map[string]any{}}})
	res, _ = a.json["result"].(map[string]any)
	if hits, _ := res["hits"].([]any); a.status != 200 || len(hits) == 0 {
		t.Fatalf("search on the HubSpot connector: %d %s", a.status, a.body)
	}
	if p := b.Problems(); len(p) != 0 {
		t.Errorf("the pages logged errors: %q", p)
	}
}

// landed waits for the browser to reach the return URL and returns the
// connector id it carries.
func landed(t *testing.T, b *browsertest.Browser, cs *connectService) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		loc, err := chromedp.Run(b.Ctx, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(loc, cs.returnTo+"?") {
			u, _ := url.Parse(loc)
			id := u.Query().Get("connector_id")
			if !strings.HasPrefix(id, "conn_") {
				t.Fatalf("the return URL %q has no connector_id", loc)
			}
			return id
		}
		time.Sleep(50 * time.Millisecond)
	}
	loc, _ := chromedp.Run(b.Ctx, chromedp.Location())
	body, _ := chromedp.Run(b.Ctx, chromedp.Text(chromedp.CSS("body")))
	t.Fatalf("the browser never reached the return URL; it is at %s: %s", loc, body)
	return ""
}

// viewports shows the connect page at 360 px wide and at desktop width,
// checking it needs no sideways scrolling, and saves each in dir when dir
// is set; then it restores the window.
func viewports(t *testing.T, b *browsertest.Browser, dir, connectURL string) {
	t.Helper()
	for _, v := range []struct {
		name string
		w, h int64
	}{{"connect-page-360.png", 360, 740}, {"connect-page-desktop.png", 1000, 640}} {
		if err := chromedp.Do(b.Ctx, chromedp.EmulateViewport(v.w, v.h), chromedp.Navigate(connectURL), chromedp.WaitVisible(chromedp.CSS("h1"))); err != nil {
			t.Fatal(err)
		}
		width, err := chromedp.Run(b.Ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth`))
		if err != nil || width > float64(v.w) {
			t.Errorf("%s: the page is %v px wide (%v)", v.name, width, err)
		}
		if dir == "" {
			continue
		}
		// A PNG (browsertest's Screenshot writes a JPEG at quality 90).
		png, err := chromedp.Run(b.Ctx, chromedp.FullScreenshot(100))
		if err == nil {
			err = os.MkdirAll(dir, 0o755)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, v.name), png, 0o644)
		}
		if err != nil {
			t.Error(err)
		}
	}
	if err := chromedp.Do(b.Ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(connectURL), chromedp.WaitVisible(chromedp.CSS("h1"))); err != nil {
		t.Fatal(err)
	}
}
