package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/tributary-dev/tributary/internal/browsertest"
	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/server"
	"github.com/tributary-dev/tributary/store"
)

// An operator drives every console page in a real browser, at 360 px
// wide, by keyboard where it counts: signs in, finds the failing
// connector, opens it and its copy's failure and sync history, syncs the
// copy now and sees it complete, runs a search, replays a failed webhook
// delivery and reads the keys' status; no page logs an error or overflows
// the screen's width.
func TestConsoleInTheBrowser(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "serve.db")
	// A first process creates the connectors and records a failure; a
	// second one, with the background sync and a webhook endpoint that
	// always fails, synchronizes the other copies (their history) and
	// gives up on their events' deliveries.
	first := start(t, openSQLiteAt(t, path), nil, withConsole)
	failing := first.create(t, first.token(t, clientA, ""), "ada")
	first.create(t, first.token(t, clientB, ""), "bob")
	if _, err := first.st.RecordFailure(ctx, failing, "tickets", store.FailureConfig, "the vendor answered 404: no such account", nil); err != nil {
		t.Fatal(err)
	}
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }))
	defer down.Close()
	a := clientA
	a.Webhooks = []server.Webhook{{URL: down.URL + "/hooks", Secret: hookSecret, Events: []string{"sync.*"}}}
	st := openSQLiteAt(t, path)
	s := start(t, st, first.zd, func(c *server.Config) {
		withConsole(c)
		c.Keys = first.keys
		c.Clients = []server.Client{a, clientB}
		c.SyncEvery = time.Hour
		c.Delivery = server.DeliveryConfig{RetryFor: 100 * time.Millisecond, Backoff: 10 * time.Millisecond, Poll: 20 * time.Millisecond}
	})
	// The store claims one copy of a connector at a time: wait for the
	// background sync to be done with the failing connector's other
	// copies, so that "sync now" gets the tickets copy's claim.
	waitUntil(t, "the background sync's history and a failed delivery", func() bool {
		evs, err := st.ConnectorEvents(ctx, failing, "sync.completed", 10)
		eps, err2 := st.Endpoints(ctx)
		copies, err3 := st.ConnectorCopies(ctx, failing)
		if err != nil || err2 != nil || err3 != nil || len(evs) < 2 || len(eps) != 1 || eps[0].Failed < 1 {
			return false
		}
		for _, c := range copies {
			if c.Owner != "" || c.Entity != "tickets" && c.SyncedAt.IsZero() {
				return false
			}
		}
		return true
	})

	b := browsertest.New(t, 2*time.Minute)
	shots := []string{t.TempDir()}
	if d := os.Getenv("TRIBUTARY_SCREENSHOTS"); d != "" {
		shots = append(shots, d)
	}
	// look checks the page: no error logged, no horizontal overflow at
	// 360 px; and keeps a screenshot.
	look := func(name string) {
		t.Helper()
		width, err := chromedp.Run(b.Ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
		if err != nil {
			t.Fatal(err)
		}
		if width > 360 {
			t.Errorf("%s: the page is %d px wide at 360 px", name, width)
		}
		for _, dir := range shots {
			if _, err := b.Screenshot(dir, name+".png"); err != nil {
				t.Error(err)
			}
		}
		if p := b.Problems(); len(p) > 0 {
			t.Errorf("%s: the browser logged %q", name, p)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(b.Ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		return s
	}
	do := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(b.Ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}

	// Sign in, by keyboard: the skip link comes first.
	do("open the console", chromedp.EmulateViewport(360, 780), chromedp.Navigate(s.url+"/console/connectors"), chromedp.WaitVisible(chromedp.ID("password")))
	look("login")
	do("sign in", chromedp.SendKeys(chromedp.ID("password"), adminPassword+"\r"), chromedp.WaitVisible(chromedp.ID("connectors")))
	do("tab", chromedp.KeyEvent(kb.Tab))
	if got, _ := chromedp.Run(b.Ctx, chromedp.Evaluate[string](`document.activeElement.className`)); got != "skip" {
		t.Errorf("the first Tab focuses %q, want the skip link", got)
	}
	do("skip", chromedp.KeyEvent(kb.Enter))
	if got, _ := chromedp.Run(b.Ctx, chromedp.Evaluate[string](`document.activeElement.id`)); got != "main" {
		t.Errorf("the skip link moves the focus to %q, want main", got)
	}
	look("connectors")

	// Find the failing connector.
	do("filter", chromedp.SetValue(chromedp.ID("status"), "failing"), chromedp.Click(chromedp.ID("filter")))
	waitUntil(t, "the filtered page", func() bool {
		loc, err := chromedp.Run(b.Ctx, chromedp.Location())
		return err == nil && strings.Contains(loc, "status=failing")
	})
	do("the filtered page", chromedp.WaitVisible(chromedp.CSS(`#connectors tbody tr`)))
	statuses, err := chromedp.Run(b.Ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#connectors tbody .status")].map(e => e.textContent)`))
	if err != nil || !slices.Equal(statuses, []string{"failing"}) {
		t.Fatalf("the failing filter lists connectors of status %q (%v)", statuses, err)
	}
	if got := text(`#connectors tbody tr:has(a[href="/console/connectors/` + failing + `"])`); !strings.Contains(got, "failing") {
		t.Fatalf("the failing connector's row says %q", got)
	}
	look("connectors-failing")

	// Open it: the copy's failure, the history and its plot.
	do("open the connector", chromedp.Click(chromedp.CSS(`#connectors tbody a[href="/console/connectors/`+failing+`"]`)), chromedp.WaitVisible(chromedp.ID("copies")))
	if got := text(`#copy-tickets`); !strings.Contains(got, "config") || !strings.Contains(got, "no such account") || !strings.Contains(got, "after a change") {
		t.Errorf("the tickets copy's row says %q", got)
	}
	if n, err := chromedp.Run(b.Ctx, chromedp.Evaluate[int](`document.querySelectorAll("#records-plot svg circle").length`)); err != nil || n < 2 {
		t.Errorf("the history plot has %d points (%v)", n, err)
	}
	look("connector")

	// Sync it now and see it complete.
	do("sync now", chromedp.Click(chromedp.CSS(`#copy-tickets button`)), chromedp.WaitVisible(chromedp.ID("notice")))
	if got := text("#notice"); got != "Synchronized tickets." {
		t.Errorf("after sync now the page says %q", got)
	}
	want := fmt.Sprint(s.zd.Total("tickets"))
	if got := text(`#copy-tickets td.num`); got != want {
		t.Errorf("the tickets copy holds %q records, want %s", got, want)
	}
	if got := text(`#copy-tickets`); strings.Contains(got, "no such account") {
		t.Errorf("the failure is still shown after a successful sync: %q", got)
	}
	if got := text("#status"); got != "healthy" {
		t.Errorf("the connector is %q after its copy synced", got)
	}
	look("connector-synced")

	// Search the copy.
	res, err := st.Search(ctx, failing, "tickets", search.Request{Query: search.Query{Filter: search.Eq("status", "open").Ptr()}, Limit: 25})
	if err != nil {
		t.Fatal(err)
	}
	do("open the search", chromedp.Click(chromedp.CSS(`#copy-tickets a`)), chromedp.WaitVisible(chromedp.ID("f0")))
	do("search", chromedp.SetValue(chromedp.ID("f0"), "status"), chromedp.SetValue(chromedp.ID("op0"), "eq"),
		chromedp.SendKeys(chromedp.ID("v0"), "open"), chromedp.Click(chromedp.ID("run")), chromedp.WaitVisible(chromedp.ID("summary")))
	if got := text("#summary"); !strings.HasPrefix(got, fmt.Sprintf("%d hits", len(res.Hits))) || len(res.Hits) == 0 {
		t.Errorf("the search says %q, the store finds %d", got, len(res.Hits))
	}
	if got := text(`#hits tbody th`); got != res.Hits[0].ID {
		t.Errorf("the first hit reads %q, want %s", got, res.Hits[0].ID)
	}
	look("search")

	// Replay a failed delivery.
	do("open the webhooks", chromedp.Navigate(s.url+"/console/webhooks"), chromedp.WaitVisible(chromedp.CSS(`.endpoint`)))
	look("webhooks")
	eps, err := st.Endpoints(ctx)
	if err != nil {
		t.Fatal(err)
	}
	before := eps[0].Pending + eps[0].Delivered + eps[0].Failed
	do("replay", chromedp.Click(chromedp.CSS(`.endpoint form button`)), chromedp.WaitVisible(chromedp.ID("notice")))
	if got := text("#notice"); got != "Queued 1 deliveries again." {
		t.Errorf("after a replay the page says %q", got)
	}
	if eps, err = st.Endpoints(ctx); err != nil || eps[0].Pending+eps[0].Delivered+eps[0].Failed != before+1 {
		t.Errorf("the endpoint has %+v (%v) after a replay, want one delivery more than %d", eps, err, before)
	}
	look("webhooks-replayed")

	// The keys.
	do("open the keys", chromedp.Navigate(s.url+"/console/keys"), chromedp.WaitVisible(chromedp.ID("keys")))
	if got := text("#rotation"); got != "All 2 connectors are sealed under the primary key." {
		t.Errorf("the keys page says %q", got)
	}
	look("keys")

	// Sign out.
	do("sign out", chromedp.Click(chromedp.CSS(`.logout button`)), chromedp.WaitVisible(chromedp.ID("password")))
	do("back", chromedp.Navigate(s.url+"/console/keys"), chromedp.WaitVisible(chromedp.ID("password")))
}

// waitUntil polls cond for a minute.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
