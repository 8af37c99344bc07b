package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/tributary-dev/tributary/internal/browsertest"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/server"
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

	// Without Config.AppName, the page names no application.
	intro, err := chromedp.Run(b.Ctx, chromedp.Text(chromedp.ID("intro")))
	if err != nil || !strings.HasPrefix(intro, "The application that sent you here asks to read data from one of your accounts.") {
		t.Errorf("without an app name the introduction says %q (%v)", intro, err)
	}

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

// The connect page says, for each vendor, what its consent page will ask
// the person to allow (each kind's scopes, and what the ones that also
// write allow: GitHub's repo, Salesforce's api), or what the consent
// grants when the vendor takes no scopes; and it names the application
// that sent the person (Config.AppName). At 390 px and at 1280 px wide,
// every kind's card fits the screen's width.
func TestConnectPageSaysWhatIsAsked(t *testing.T) {
	apps := map[string]server.OAuthApp{}
	for _, kind := range kinds.Types() {
		apps[kind] = server.OAuthApp{ClientID: "id-" + kind, ClientSecret: "secret-" + kind}
	}
	s := start(t, sqliteStore(t), nil, func(c *server.Config) {
		c.OAuthApps, c.PublicURL, c.AppName = apps, "http://127.0.0.1:1", "Acme CRM"
	})
	a := s.do(t, "POST", "/v1/connect/sessions", s.token(t, clientA, ""), map[string]any{
		"external_user_id": "user-1", "return_url": "https://app.example.com/back", "allowed_kinds": kinds.Types()})
	token, _ := a.json["token"].(string)
	if a.status != http.StatusCreated || token == "" {
		t.Fatalf("connect session: %d %s", a.status, a.body)
	}
	page := s.url + "/connect/" + token
	b := browsertest.New(t, time.Minute)
	dir := os.Getenv("TRIBUTARY_SCREENSHOTS")
	for _, width := range []int64{390, 1280} {
		if err := chromedp.Do(b.Ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS("h1"))); err != nil {
			t.Fatal(err)
		}
		outside, err := chromedp.Run(b.Ctx, chromedp.Evaluate[[]string](
			`[...document.querySelectorAll(".kind, .kind *")].filter(e => e.getBoundingClientRect().right > innerWidth + 0.5).map(e => e.tagName + " " + e.textContent.slice(0, 40))`))
		if err != nil || len(outside) > 0 {
			t.Errorf("at %d px, elements end beyond the screen's right edge: %q (%v)", width, outside, err)
		}
		if dir != "" {
			png, err := chromedp.Run(b.Ctx, chromedp.FullScreenshot(100))
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, fmt.Sprintf("connect-page-every-kind-%d.png", width)), png, 0o644)
			}
			if err != nil {
				t.Error(err)
			}
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(b.Ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		return strings.Join(strings.Fields(s), " ")
	}
	if got := text("h1"); got != "Connect an account to Acme CRM" {
		t.Errorf("the heading is %q", got)
	}
	// It promised "read-only access", which GitHub's and Salesforce's
	// scopes are not.
	if got := text("#intro"); !strings.HasPrefix(got, "Acme CRM asks to read data from one of your accounts.") ||
		!strings.HasSuffix(got, "come back to Acme CRM.") || strings.Contains(got, "read-only") {
		t.Errorf("the introduction says %q", got)
	}
	card := func(kind string) string {
		t.Helper()
		s, err := chromedp.Run(b.Ctx, chromedp.Evaluate[string](
			`document.querySelector('input[name="kind"][value="`+kind+`"]').closest(".kind").innerText`))
		if err != nil {
			t.Fatalf("%s's card: %v", kind, err)
		}
		return strings.Join(strings.Fields(s), " ")
	}
	for kind, want := range map[string][]string{
		"github": {"GitHub will ask you to allow repo, read:org, read:user.",
			"repo also allows changing your repositories' code, issues and pull requests, public and private"},
		"salesforce": {"Salesforce will ask you to allow api, refresh_token.",
			"api also allows creating, changing and deleting records"},
		"zendesk-support": {"Zendesk Support will ask you to allow read."},
		"mailchimp":       {"Mailchimp asks for no particular permission: you give access to the whole account"},
		"intercom":        {"Intercom asks for the permissions the application chose in its settings at Intercom"},
	} {
		got := card(kind)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s's card says %q\nwant it to say %q", kind, got, w)
			}
		}
	}
	// Every scope of every kind is named, as the vendor will ask for it.
	for _, kind := range kinds.Types() {
		app, _ := kinds.OAuthApp(kind)
		got := card(kind)
		for _, sc := range app.Scopes {
			if !strings.Contains(got, sc) {
				t.Errorf("%s's card does not name the scope %q: %q", kind, sc, got)
			}
		}
	}
	if p := b.Problems(); len(p) != 0 {
		t.Errorf("the page logged errors: %q", p)
	}
}
