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
	"github.com/tributary-dev/tributary/internal/keyring"
	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/server"
	"github.com/tributary-dev/tributary/store"
)

// An operator drives every console page in a real browser, on a phone
// (390 px wide), by keyboard where it counts: signs in, finds the failing
// connector, opens it and its copy's failure and sync history (a line per
// entity), syncs the copy now and sees it complete, picks the connector in
// the search playground and runs a search whose hits show the field
// searched, replays a failed webhook delivery, reads the keys' status and
// follows it to the connector whose credentials do not open, and why.
// Each page is seen at 1280 px and at 390 px: no page logs an error, and
// no table is clipped or overflows the screen (every cell's box lies
// within it); on the phone, each row shows its status and actions before
// its other cells.
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
	// A connector whose credentials were sealed under a key the service
	// does not hold.
	locked := "conn_locked0123456789"
	k9, err := keyring.Parse(newKeys(t, "k9"))
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := k9.Seal([]byte(`{"credentials":{}}`), []byte(locked))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.st.CreateConnector(ctx, store.Connector{ID: locked, Tenant: clientB.ID, ExternalUserID: "cyd", Kind: "zendesk-support", Sealed: sealed}); err != nil {
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
	// look checks the page at 1280 px and at 390 px wide (where it stays
	// for the next steps): no error logged, nothing wider than the screen,
	// no table clipped by its scrolling box, and on the phone each card
	// shows its status and actions first; and keeps a screenshot of each.
	look := func(name string) {
		t.Helper()
		for _, width := range []int64{1280, 390} {
			if err := chromedp.Do(b.Ctx, chromedp.EmulateViewport(width, 900)); err != nil {
				t.Fatal(err)
			}
			problems, err := chromedp.Run(b.Ctx, chromedp.Evaluate[[]string](layoutProblems))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range problems {
				t.Errorf("%s at %d px: %s", name, width, p)
			}
			for _, dir := range shots {
				if _, err := b.Screenshot(dir, fmt.Sprintf("%s-%d.png", name, width)); err != nil {
					t.Error(err)
				}
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
	do("open the console", chromedp.EmulateViewport(390, 900), chromedp.Navigate(s.url+"/console/connectors"), chromedp.WaitVisible(chromedp.ID("password")))
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
	// A line per entity, named in the legend, each through that entity's
	// synchronizations only.
	plotted, err := chromedp.Run(b.Ctx, chromedp.Evaluate[map[string]int](
		`Object.fromEntries([...document.querySelectorAll("#records-plot g.series")].map(g => [g.dataset.entity, g.querySelectorAll("circle").length]))`))
	if err != nil {
		t.Fatal(err)
	}
	history, err := chromedp.Run(b.Ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#history tbody tr td:nth-child(2)")].map(td => td.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	perEntity := map[string]int{}
	for _, e := range history {
		perEntity[e]++
	}
	if fmt.Sprint(plotted) != fmt.Sprint(perEntity) {
		t.Errorf("the records plot draws %v (entity: points), the history lists %v", plotted, perEntity)
	}
	if legend := text("#records-plot .legend"); len(perEntity) == 0 || !strings.Contains(legend, history[0]) {
		t.Errorf("the records plot's legend says %q", legend)
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
	// Pick the connector, then its copy, in the playground.
	do("open the search", chromedp.Navigate(s.url+"/console/search"), chromedp.WaitVisible(chromedp.ID("connector")))
	picker, err := chromedp.Run(b.Ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#connector option")].map(o => o.value + " " + o.textContent)`))
	if err != nil || len(picker) != 4 || !strings.HasPrefix(picker[0], " Choose") {
		t.Errorf("the connector picker offers %q (%v), want a prompt and the three connectors", picker, err)
	}
	if !slices.ContainsFunc(picker, func(o string) bool {
		return strings.HasPrefix(o, failing+" ") && strings.Contains(o, "zendesk-support") && strings.Contains(o, "ada")
	}) {
		t.Errorf("the connector picker does not offer %s with its kind and user: %q", failing, picker)
	}
	look("search-pick")
	do("pick the connector", chromedp.SetValue(chromedp.ID("connector"), failing), chromedp.Click(chromedp.ID("choose")), chromedp.WaitVisible(chromedp.ID("entity")))
	do("pick the copy", chromedp.SetValue(chromedp.ID("entity"), "tickets"), chromedp.Click(chromedp.ID("choose")), chromedp.WaitVisible(chromedp.ID("f0")))
	// Each condition is a group named by its number, its fields labelled.
	labels, err := chromedp.Run(b.Ctx, chromedp.Evaluate[[]string](
		`["f0", "op0", "v0", "f1"].map(id => document.getElementById(id).closest("fieldset").querySelector("legend").textContent + ": " + document.getElementById(id).labels[0].textContent)`))
	if want := []string{"Condition 1: Field", "Condition 1: Operator", "Condition 1: Value", "Condition 2: Field"}; err != nil || !slices.Equal(labels, want) {
		t.Errorf("the playground's fields are labelled %q (%v), want %q", labels, err, want)
	}
	do("search", chromedp.SetValue(chromedp.ID("f0"), "status"), chromedp.SetValue(chromedp.ID("op0"), "eq"),
		chromedp.SendKeys(chromedp.ID("v0"), "open"), chromedp.Click(chromedp.ID("run")), chromedp.WaitVisible(chromedp.ID("summary")))
	if got := text("#summary"); !strings.HasPrefix(got, fmt.Sprintf("%d hits", len(res.Hits))) || len(res.Hits) == 0 {
		t.Errorf("the search says %q, the store finds %d", got, len(res.Hits))
	}
	if got := text(`#hits tbody th`); got != res.Hits[0].ID {
		t.Errorf("the first hit reads %q, want %s", got, res.Hits[0].ID)
	}
	// The hits show the field searched, a column of its own.
	columns, err := chromedp.Run(b.Ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#hits thead th")].map(th => th.textContent)`))
	if want := []string{"Id", "Score", "status", "Record"}; err != nil || !slices.Equal(columns, want) {
		t.Errorf("the hits' columns are %q (%v), want %q", columns, err, want)
	}
	values, err := chromedp.Run(b.Ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#hits tbody td.field")].map(td => td.textContent)`))
	if err != nil || len(values) != len(res.Hits) || slices.ContainsFunc(values, func(v string) bool { return v != "open" }) {
		t.Errorf("the hits' status column reads %q (%v), want %d times open", values, err, len(res.Hits))
	}
	look("search")

	// Replay a failed delivery.
	do("open the webhooks", chromedp.Navigate(s.url+"/console/webhooks"), chromedp.WaitVisible(chromedp.CSS(`.endpoint`)))
	if got := text(`.endpoint .changes-only`); got != "after every sync" {
		t.Errorf("the endpoint's sync.completed says %q", got)
	}
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
	if got := text("#unreadable"); !strings.HasPrefix(got, "1 of 3 connectors' credentials do not open with this service's keys") {
		t.Errorf("the keys page says %q", got)
	}
	if got := text("#rotation"); got != "Every connector whose credentials open is sealed under the primary key." {
		t.Errorf("the keys page says %q", got)
	}
	if got := text(`#keys tbody`); !strings.Contains(got, "k9") || !strings.Contains(got, "not in this service's keys") {
		t.Errorf("the keys table says %q", got)
	}
	look("keys")
	do("the locked connectors", chromedp.Click(chromedp.CSS(`#unreadable a`)), chromedp.WaitVisible(chromedp.CSS(`#connectors tbody tr`)))
	if got := text(`#connectors tbody`); !strings.Contains(got, locked) || !strings.Contains(got, "credentials unreadable") || strings.Contains(got, failing) {
		t.Errorf("the credentials unreadable filter lists %q", got)
	}
	do("open the locked connector", chromedp.Click(chromedp.CSS(`#connectors tbody a`)), chromedp.WaitVisible(chromedp.ID("status-reason")))
	if got := text("#status-reason"); got != `the credentials are sealed under key "k9", which is not in this service's keys` {
		t.Errorf("the locked connector's page says %q", got)
	}
	look("connector-unreadable")

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

// layoutProblems is a script that lists what does not fit the screen: a
// page wider than it, a table its scrolling box clips, a cell whose box
// goes past either edge, a control past its card's; and, on a phone (narrower than 640 px), a table
// row (a card) whose status or actions come after another of its cells.
const layoutProblems = `(() => {
	const out = [], w = innerWidth;
	const name = e => e.tagName.toLowerCase() + " " + JSON.stringify(e.textContent.trim().replace(/\s+/g, " ").slice(0, 40));
	if (document.documentElement.scrollWidth > w) out.push("the page is " + document.documentElement.scrollWidth + " px wide");
	for (const s of document.querySelectorAll(".scroll")) {
		if (s.scrollWidth > s.clientWidth + 1) out.push((s.getAttribute("aria-label") || "a table") + " is clipped: " + s.scrollWidth + " px in " + s.clientWidth);
	}
	for (const c of document.querySelectorAll("th, td")) {
		const r = c.getBoundingClientRect();
		if (r.width > 0 && (r.left < -0.5 || r.right > w + 0.5)) out.push(name(c) + " spans " + Math.round(r.left) + " to " + Math.round(r.right) + " px");
	}
	for (const c of document.querySelectorAll("main input, main select, main button")) {
		const box = c.closest(".card, main").getBoundingClientRect(), r = c.getBoundingClientRect();
		if (r.width > 0 && (r.left < box.left - 0.5 || r.right > box.right + 0.5)) out.push(name(c) + " (" + (c.id || c.name) + ") spans " + Math.round(r.left) + " to " + Math.round(r.right) + " px, past its box's " + Math.round(box.left) + " to " + Math.round(box.right));
	}
	if (w < 640) {
		for (const tr of document.querySelectorAll("table.cards tbody tr")) {
			const first = [...tr.querySelectorAll(":scope > .status-cell, :scope > td.actions")];
			if (first.length === 0) continue;
			const end = Math.max(...first.map(c => c.getBoundingClientRect().bottom));
			for (const c of tr.querySelectorAll(":scope > td:not(.status-cell):not(.actions)")) {
				if (c.getBoundingClientRect().top < end - 0.5) out.push(name(c) + " comes before the status and actions of its row");
			}
		}
	}
	return out;
})()`
