package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/store"
)

// storeStats is the --json output of store stats.
type storeStats struct {
	Backend       string `json:"backend"`
	Location      string `json:"location"`
	SizeBytes     int64  `json:"size_bytes"`
	SchemaVersion int    `json:"schema_version"`
	Entities      []struct {
		Connector string     `json:"connector"`
		Entity    string     `json:"entity"`
		Records   int64      `json:"records"`
		Deleted   int64      `json:"deleted"`
		SyncedAt  *time.Time `json:"synced_at"`
		Syncing   bool       `json:"syncing"`
		Fields    int        `json:"fields"`
		Failure   *struct {
			Class    string     `json:"class"`
			Message  string     `json:"message"`
			Failures int        `json:"failures"`
			FailedAt time.Time  `json:"failed_at"`
			RetryAt  *time.Time `json:"retry_at"`
		} `json:"failure"`
	} `json:"entities"`
}

// stats runs store stats --json with args and decodes it.
func stats(t *testing.T, in invocation, args ...string) storeStats {
	t.Helper()
	r := in.run(t, append([]string{"store", "stats", "--json"}, args...)...)
	r.want(t, 0)
	var s storeStats
	decode(t, r.stdout, &s)
	return s
}

// copyOf returns the stats of one copy, failing the test without it.
func (s storeStats) copyOf(t *testing.T, connector, entity string) (records int64, syncedAt *time.Time, syncing bool) {
	t.Helper()
	for _, e := range s.Entities {
		if e.Connector == connector && e.Entity == entity {
			return e.Records, e.SyncedAt, e.Syncing
		}
	}
	t.Fatalf("store stats has no copy of %s/%s: %+v", connector, entity, s.Entities)
	return 0, nil, false
}

// hitIDs runs a search and returns the ids of its hits, one per line.
func hitIDs(t *testing.T, in invocation, args ...string) []string {
	t.Helper()
	r := in.run(t, append([]string{"search"}, append(args, "--all", "--fields", "id")...)...)
	r.want(t, 0)
	var ids []string
	for _, h := range lines(t, r.stdout) {
		ids = append(ids, h["id"].(string))
	}
	return ids
}

// TestSyncSearchStats synchronizes sandbox entities into a SQLite file, then
// reads them back with search --store and store stats: the counts agree with
// each other, with the sync's summary and with the source.
func TestSyncSearchStats(t *testing.T) {
	db := filepath.Join(t.TempDir(), "tributary.db")
	r := cli(t, "sync", "zendesk-support", "tickets", "users", "--sandbox", "--store", db)
	r.want(t, 0)
	if r.stderr != "" {
		t.Errorf("stderr is not a terminal, yet: %q", r.stderr)
	}
	summary := regexp.MustCompile(`(?m)^copy +mode +inserted +updated +unchanged +deleted +pages +requests +retries +throttled +took +records/s *\nzendesk-support/tickets +full +250 +0 +0 +0 +\d+ +\d+ +0 +0 +\S+ +\S+ *\nzendesk-support/users +full +50 +0 +0 +0 +\d+ +\d+ +0 +0 +\S+ +\S+ *\n$`)
	if !summary.MatchString(r.stdout) {
		t.Errorf("summary lines:\n%s", r.stdout)
	}

	s := stats(t, invocation{}, "--store", db)
	abs, _ := filepath.Abs(db)
	if s.Backend != "sqlite" || s.Location != abs || s.SchemaVersion != store.SchemaVersion || s.SizeBytes <= 0 || len(s.Entities) != 2 {
		t.Errorf("store stats: %+v", s)
	}
	for _, c := range []struct {
		entity string
		n      int64
	}{{"tickets", zendesktest.DefaultTickets}, {"users", 50}} {
		n, synced, syncing := s.copyOf(t, "zendesk-support", c.entity)
		if n != c.n || synced == nil || time.Since(*synced) > time.Minute || syncing {
			t.Errorf("%s: %d records, synced %v, syncing %v; want %d, just now, no", c.entity, n, synced, syncing, c.n)
		}
	}

	// Every hit of the store, and a filter: the same ids as a search of an
	// in-memory replica of the same source.
	all := hitIDs(t, invocation{}, "zendesk-support", "tickets", "--store", db)
	if len(all) != zendesktest.DefaultTickets {
		t.Errorf("search --store --all: %d hits, store stats says %d", len(all), zendesktest.DefaultTickets)
	}
	q := `{"filter": {"and": [{"eq": {"status": "open"}}, {"keyword": {"subject": "refund"}}]}, "sort": [{"created_at": "desc"}]}`
	fromStore := hitIDs(t, invocation{}, "zendesk-support", "tickets", "--store", db, "--query", q)
	inMemory := hitIDs(t, invocation{}, "zendesk-support", "tickets", "--sandbox", "--sync", "--query", q)
	if len(fromStore) == 0 || !slices.Equal(fromStore, inMemory) {
		t.Errorf("store: %v\nreplica: %v", fromStore, inMemory)
	}

	// One page: the same output as today's search, with the store's cursor.
	r = cli(t, "search", "zendesk-support", "tickets", "--store", db, "--query", q, "--limit", "2", "--fields", "id,subject")
	r.want(t, 0)
	var page struct {
		Hits []struct {
			ID   string         `json:"id"`
			Data map[string]any `json:"data"`
		} `json:"hits"`
		NextCursor *string `json:"next_cursor"`
	}
	decode(t, r.stdout, &page)
	if len(page.Hits) != 2 || page.Hits[0].ID != fromStore[0] || len(page.Hits[0].Data) != 2 || page.NextCursor == nil {
		t.Fatalf("one page: %s", r.stdout)
	}
	r = cli(t, "search", "zendesk-support", "tickets", "--store", db, "--query", q, "--limit", "2", "--cursor", *page.NextCursor, "--fields", "id")
	r.want(t, 0)
	if !strings.Contains(r.stdout, `"id": "`+fromStore[2]+`"`) {
		t.Errorf("the next page does not start with the third hit %s: %s", fromStore[2], r.stdout)
	}

	// $TRIBUTARY_STORE stands for --store.
	env := invocation{env: map[string]string{envStore: db}}
	if got := stats(t, env); len(got.Entities) != 2 {
		t.Errorf("store stats from $%s: %+v", envStore, got)
	}
	if got := hitIDs(t, env, "zendesk-support", "users"); len(got) != 50 {
		t.Errorf("search from $%s: %d hits", envStore, len(got))
	}

	// The table.
	r = cli(t, "store", "stats", "--store", db)
	r.want(t, 0)
	for _, want := range []string{"backend:         sqlite\n", "location:        " + abs + "\n", "schema version:  " + strconv.Itoa(store.SchemaVersion) + "\n",
		"CONNECTOR        ENTITY   RECORDS  DELETED  LAST SYNC             SYNCING  FAILING\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, r.stdout)
		}
	}
	if !regexp.MustCompile(`(?m)^zendesk-support  tickets  250      0        \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ  no       no$`).MatchString(r.stdout) {
		t.Errorf("table has no row for tickets:\n%s", r.stdout)
	}

	// A copy whose sync failed (as a worker records it) shows its failure.
	ctx := context.Background()
	st, err := store.OpenSQLite(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.RecordFailure(ctx, "zendesk-support", "users", store.FailureAuth, "zendesk-support users list: unauthorized: Couldn't authenticate you", nil)
	if err == nil {
		_, err = st.RecordFailure(ctx, "zendesk-support", "tickets", store.FailureTransient, "zendesk-support tickets list: server error: 503", func(int) time.Duration { return time.Hour })
	}
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	r = cli(t, "store", "stats", "--store", db)
	r.want(t, 0)
	for _, want := range []string{
		"  auth, 1 in a row, retry when the connector's configuration or credentials change\n",
		"zendesk-support users failed at ",
		": zendesk-support users list: unauthorized: Couldn't authenticate you\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, r.stdout)
		}
	}
	if !regexp.MustCompile(`  transient, 1 in a row, retry at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n`).MatchString(r.stdout) {
		t.Errorf("table lacks the transient failure:\n%s", r.stdout)
	}
	s = stats(t, invocation{}, "--store", db)
	for _, e := range s.Entities {
		f := e.Failure
		switch {
		case f == nil:
			t.Errorf("%s: no failure in --json", e.Entity)
		case e.Entity == "users" && (f.Class != "auth" || f.Failures != 1 || f.RetryAt != nil || !strings.Contains(f.Message, "unauthorized")):
			t.Errorf("users: %+v", *f)
		case e.Entity == "tickets" && (f.Class != "transient" || f.RetryAt == nil || f.RetryAt.Sub(f.FailedAt) != time.Hour):
			t.Errorf("tickets: %+v", *f)
		}
	}
}

// TestSyncDefaultEntities synchronizes every searchable entity that needs
// no list params when none is named, and under --name.
func TestSyncDefaultEntities(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	r := cli(t, "sync", "mailchimp", "--sandbox", "--store", db, "--name", "acme")
	r.want(t, 0)
	es, _ := kinds.Catalogue("mailchimp")
	want := replica.Syncable(es)
	if len(want) == 0 || !slices.Contains(want, "email_activity") { // read per sent campaign, by its scope
		t.Fatalf("replica.Syncable(mailchimp) = %v", want)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n")[1:] {
		got = append(got, strings.Fields(l)[0])
	}
	var wantNames []string
	for _, e := range want {
		wantNames = append(wantNames, "acme/"+e)
	}
	if !slices.Equal(got, wantNames) {
		t.Errorf("synchronized %v, want %v", got, wantNames)
	}
	if n, _, _ := stats(t, invocation{}, "--store", db).copyOf(t, "acme", "campaigns"); n != 25 {
		t.Errorf("acme/campaigns: %d records, want 25", n)
	}
	if ids := hitIDs(t, invocation{}, "mailchimp", "campaigns", "--store", db, "--name", "acme"); len(ids) != 25 {
		t.Errorf("search --name acme: %d hits", len(ids))
	}
	// Under the type's name there is no copy: the message says how to make one.
	r = cli(t, "search", "mailchimp", "campaigns", "--store", db)
	r.want(t, exitUsage)
	if want := "tributary: mailchimp campaigns.search: no copy: " + db + " has none yet: run 'tributary sync mailchimp campaigns --sandbox --store " + db + "' (your account: --credentials FILE in place of --sandbox) first\n"; r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
}

// TestSyncSalesforceCopyScope: Salesforce's objects need a SOQL query to
// be listed; without entities and params, sync copies the five searchable
// ones with their copy scope, every searchable field included, so a search
// of the store filters on any of them; a second sync reads only changes.
func TestSyncSalesforceCopyScope(t *testing.T) {
	db := filepath.Join(t.TempDir(), "sf.db")
	r := cli(t, "sync", "salesforce", "--sandbox", "--store", db)
	r.want(t, 0)
	copies := func(stdout, mode string) {
		t.Helper()
		var got, want []string
		for _, l := range strings.Split(strings.TrimSpace(stdout), "\n")[1:] {
			f := strings.Fields(l)
			got = append(got, f[0]+" "+f[1])
		}
		for _, e := range []string{"accounts", "contacts", "leads", "opportunities", "tasks"} {
			want = append(want, "salesforce/"+e+" "+mode)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("synchronized (-want +got):\n%s\nstdout:\n%s", diff, stdout)
		}
	}
	copies(r.stdout, "full")
	// Each command starts a sandbox with the same records: the second
	// sync reads the change feed from the copies' checkpoints.
	r = cli(t, "sync", "salesforce", "--sandbox", "--store", db)
	r.want(t, 0)
	copies(r.stdout, "incremental")
	if n, _, _ := stats(t, invocation{}, "--store", db).copyOf(t, "salesforce", "accounts"); n != 1000 {
		t.Errorf("salesforce/accounts: %d records, want the sandbox's 1000", n)
	}
	r = cli(t, "search", "salesforce", "accounts", "--store", db, "--all", "--fields", "Id")
	r.want(t, 0)
	if hits := lines(t, r.stdout); len(hits) != 1000 {
		t.Errorf("search --store --all: %d hits, want 1000", len(hits))
	}
	// Fields only the copy scope selects are searchable in the store.
	for _, c := range []struct{ entity, field, value string }{
		{"accounts", "BillingCountry", "Canada"}, {"contacts", "MailingCountry", "Germany"}, {"leads", "Country", "Australia"},
	} {
		r = cli(t, "search", "salesforce", c.entity, "--store", db, "--all", "--fields", "Id,"+c.field,
			"--query", `{"filter": {"eq": {"`+c.field+`": "`+c.value+`"}}}`)
		r.want(t, 0)
		hits := lines(t, r.stdout)
		if len(hits) == 0 {
			t.Errorf("%s with %s %s: no hits", c.entity, c.field, c.value)
		}
		for _, h := range hits {
			if d, _ := h["data"].(map[string]any); d[c.field] != c.value {
				t.Fatalf("%s hit %v, want %s %s", c.entity, h, c.field, c.value)
			}
		}
	}
}

// TestSyncParams: params apply to the entities named, and params that
// leave out what the list needs are refused before anything is read (no
// params at all: the entity's copy scope, every repository).
func TestSyncParams(t *testing.T) {
	db := filepath.Join(t.TempDir(), "gh.db")
	r := cli(t, "sync", "github", "issues", "labels", "issues", "--sandbox", "-p", "owner=octo", "-p", "repo=hello", "--store", db)
	r.want(t, 0)
	if !strings.Contains(r.stdout, "\ngithub/issues ") || !strings.Contains(r.stdout, "\ngithub/labels ") || strings.Count(r.stdout, "\n") != 3 {
		t.Errorf("stdout: %s", r.stdout)
	}
	r = cli(t, "sync", "github", "issues", "--sandbox", "-p", "repo=hello", "--store", filepath.Join(t.TempDir(), "x.db"))
	r.want(t, exitUsage)
	if !strings.Contains(r.stderr, `github issues.list: invalid params: parameter "owner": is required`) {
		t.Errorf("stderr: %q", r.stderr)
	}
}

func TestSyncStoreErrors(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	missing := filepath.Join(dir, "missing.db")
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"sync", "zendesk-support", "tickts", "--sandbox", "--store", "s.db"}, exitUsage,
			`zendesk-support tickts: unknown entity: zendesk-support has no entity "tickts"; did you mean "tickets"?`},
		{[]string{"sync", "zendesk-support", "views", "--sandbox", "--store", "s.db"}, exitUsage, "zendesk-support views: no copy: only searchable entities have copies, and views is not one"},
		{[]string{"sync", "zendesk-support", "--sandbox"}, exitUsage, "sync needs --store FILE (SQLite) or --store postgres://… (or $TRIBUTARY_STORE)"},
		{[]string{"sync", "zendesk-support", "--sandbox", "-p", "per_page=5", "--store", "s.db"}, exitUsage, "-p and --params need the entities named"},
		{[]string{"sync", "zendesk-support", "--hosted", "https://api.example.com", "--store", "s.db"}, exitUsage, "sync reads the source in direct mode"},
		{[]string{"sync", "zendesk-support", "--sandbox", "--store", "mysql://root:hunter2@db/x"}, exitUsage, "a mysql:// URL is not a store"},
		{[]string{"sync", "zendesk-support", "--sandbox", "--store", dir}, exitUsage, "is a directory"},
		{[]string{"sync", "zendesk-support", "--sandbox", "--store", "postgres://bob:hunter2@[::1/x"}, exitUsage, "--store postgres://…: store: open: invalid store argument"},
		{[]string{"sync", "zendesk-support", "tickets", "--sandbox", "--store", "postgres://bob:hunter2@127.0.0.1:1/x?connect_timeout=5"}, exitOther,
			"--store postgres://bob:REDACTED@127.0.0.1:1/x?connect_timeout=5: store: open: store unavailable"},
		{[]string{"store", "stats", "--store", "postgres://bob@127.0.0.1:1/x?password=hunter2&connect_timeout=5"}, exitOther,
			"--store postgres://bob@127.0.0.1:1/x?connect_timeout=5&password=REDACTED: store: open: store unavailable"},
		{[]string{"search", "zendesk-support", "tickets", "--store", missing}, exitUsage, "--store " + missing + ": no such file: 'tributary sync zendesk-support --sandbox --store " + missing + "' (your account: --credentials FILE in place of --sandbox) creates the store"},
		{[]string{"store", "stats", "--store", missing}, exitUsage, "no such file"},
		{[]string{"store", "stats"}, exitUsage, "stats needs --store"},
		{[]string{"store"}, exitUsage, "store needs a command: stats"},
		{[]string{"search", "zendesk-support", "tickets", "--store", "s.db", "--sync", "--sandbox"}, exitUsage, "does not go with --sync"},
		{[]string{"search", "zendesk-support", "tickets", "--store", "s.db", "--sandbox"}, exitUsage, "drop --sandbox"},
		{[]string{"search", "zendesk-support", "tickets", "--sandbox", "--sync", "--name", "x"}, exitUsage, "--name names the copies of a store"},
	} {
		r := cli(t, c.args...)
		r.want(t, c.code)
		if !strings.Contains(r.stderr, c.msg) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%v: stderr %q, want one line with %q", c.args, r.stderr, c.msg)
		}
		if strings.Contains(r.stderr, "hunter2") {
			t.Errorf("%v: the password is in the message: %q", c.args, r.stderr)
		}
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("reading a missing store created it: %v", err)
	}
	// --json-errors, too, keeps the password out.
	r := cli(t, "store", "stats", "--store", "postgres://bob:hunter2@127.0.0.1:1/x?connect_timeout=5", "--json-errors")
	r.want(t, exitOther)
	if strings.Contains(r.stderr, "hunter2") || !strings.Contains(r.stderr, `"exit_code":1`) {
		t.Errorf("--json-errors: %q", r.stderr)
	}

	// A search of a store with a query the catalogue refuses: the same
	// error as today's search.
	db := filepath.Join(dir, "s2.db")
	cli(t, "sync", "zendesk-support", "groups", "--sandbox", "--store", db).want(t, 0)
	r = cli(t, "search", "zendesk-support", "groups", "--store", db, "--query", `{"filter": {"eq": {"nope": 1}}}`)
	r.want(t, exitUsage)
	if !strings.Contains(r.stderr, `zendesk-support groups.search: invalid params: parameter "nope"`) {
		t.Errorf("stderr %q", r.stderr)
	}
}

// TestSyncInterrupted cancels a sync (as Ctrl-C does) after its first
// page: the exit code says interrupted, the message says what the store
// kept, and the store still holds the previous copy, searchable.
func TestSyncInterrupted(t *testing.T) {
	zd := zendesktest.New()
	defer zd.Close()
	target, _ := url.Parse(zd.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var requests atomic.Int64
	var cancel atomic.Pointer[context.CancelFunc]
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) > 1 {
			if f := cancel.Load(); f != nil {
				(*f)()
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()
	env := map[string]string{
		"TRIBUTARY_ZENDESK_SUPPORT_SUBDOMAIN": "acme",
		"TRIBUTARY_ZENDESK_SUPPORT_EMAIL":     zendesktest.DefaultEmail,
		"TRIBUTARY_ZENDESK_SUPPORT_API_TOKEN": zendesktest.DefaultAPIToken,
	}
	db := filepath.Join(t.TempDir(), "z.db")
	args := []string{"sync", "zendesk-support", "tickets", "--base-url", front.URL, "--store", db}

	interrupt := func(extra ...string) result {
		t.Helper()
		ctx, stop := context.WithCancel(context.Background())
		defer stop()
		cancel.Store(&stop)
		defer cancel.Store(nil)
		requests.Store(0)
		r := invocation{env: env, ctx: ctx}.run(t, append(append(args, "-p", "per_page=10"), extra...)...)
		r.want(t, exitInterrupted)
		return r
	}

	// Interrupted before the entity had a copy.
	r := interrupt()
	if want := "tributary: interrupted: zendesk-support/tickets not synchronized to the end (it had no copy yet)\n"; r.stderr != want || r.stdout != "" {
		t.Errorf("stderr %q, want %q; stdout %q", r.stderr, want, r.stdout)
	}
	if s := stats(t, invocation{}, "--store", db); len(s.Entities) > 1 || len(s.Entities) == 1 && (s.Entities[0].Records != 0 || s.Entities[0].SyncedAt != nil || s.Entities[0].Syncing) {
		t.Errorf("after an interrupted first sync: %+v", s.Entities)
	}

	// A whole copy, then an interrupted full sync over it.
	invocation{env: env}.run(t, args...).want(t, 0)
	_, before, _ := stats(t, invocation{}, "--store", db).copyOf(t, "zendesk-support", "tickets")
	r = interrupt("--full")
	want := "tributary: interrupted: zendesk-support/tickets not synchronized to the end (the store keeps its copy as the last page written left it, 250 records, last completed " + before.Format(time.RFC3339) + ")\n"
	if r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
	n, after, syncing := stats(t, invocation{}, "--store", db).copyOf(t, "zendesk-support", "tickets")
	if n != zendesktest.DefaultTickets || !after.Equal(*before) || syncing {
		t.Errorf("after the interrupted sync: %d records, synced %v (before %v), syncing %v", n, after, before, syncing)
	}
	if ids := hitIDs(t, invocation{}, "zendesk-support", "tickets", "--store", db); len(ids) != zendesktest.DefaultTickets {
		t.Errorf("search after the interrupted sync: %d hits", len(ids))
	}
}

// TestSyncProgress shows records and pages on a terminal, and the summary
// line when done; the results on stdout are unchanged.
func TestSyncProgress(t *testing.T) {
	db := filepath.Join(t.TempDir(), "p.db")
	r := invocation{isTerminal: true}.run(t, "sync", "zendesk-support", "tickets", "--sandbox", "--store", db)
	r.want(t, 0)
	if !regexp.MustCompile(`syncing tickets: 250 records, \d+ pages? in \S+\n$`).MatchString(r.stderr) {
		t.Errorf("progress: %q", r.stderr)
	}
	if !regexp.MustCompile(`\nzendesk-support/tickets +full +250 `).MatchString(r.stdout) {
		t.Errorf("stdout: %q", r.stdout)
	}
}

// TestMeterETA: with a total, the description shows the count out of it
// and the time left at the rate so far; the summary line does not.
func TestMeterETA(t *testing.T) {
	m := &meter{what: "syncing tickets", unit: "records", counted: true, start: time.Now().Add(-10 * time.Second), n: 250, pages: 3}
	m.setTotal(1000)
	if got, want := m.description(false), "syncing tickets: 250 of 1000 records, 3 pages, ETA 30s"; got != want {
		t.Errorf("description %q, want %q", got, want)
	}
	if got, want := m.description(true), "syncing tickets: 250 records, 3 pages"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	m.setTotal(0)
	if got, want := m.description(false), "syncing tickets: 250 records, 3 pages"; got != want {
		t.Errorf("without a total %q, want %q", got, want)
	}
}

// TestSyncPostgres synchronizes into PostgreSQL and reads the copy back; the
// location shown has no password.
func TestSyncPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	cli(t, "sync", "zendesk-support", "groups", "tickets", "--sandbox", "--store", dsn).want(t, 0)
	s := stats(t, invocation{}, "--store", dsn)
	if n, _, _ := s.copyOf(t, "zendesk-support", "tickets"); s.Backend != "postgres" || !strings.HasPrefix(s.Location, "postgres://") || n != zendesktest.DefaultTickets {
		t.Errorf("stats: %+v", s)
	}
	q := `{"filter": {"eq": {"status": "open"}}, "sort": [{"created_at": "desc"}]}`
	fromPG := hitIDs(t, invocation{}, "zendesk-support", "tickets", "--store", dsn, "--query", q)
	inMemory := hitIDs(t, invocation{}, "zendesk-support", "tickets", "--sandbox", "--sync", "--query", q)
	if len(fromPG) == 0 || !slices.Equal(fromPG, inMemory) {
		t.Errorf("postgres: %v\nreplica: %v", fromPG, inMemory)
	}
}

// TestSyncEvery: --every syncs again and again, incrementally after the
// first round, each round under a line with its start time, until
// interrupted; an interrupt exits 130 whether it comes between rounds or
// during one.
func TestSyncEvery(t *testing.T) {
	db := filepath.Join(t.TempDir(), "every.db")
	// Ctrl-C once the third round has begun (or after a minute, a hang
	// guard): during a round or between two, exit 130 either way.
	ctx, cancel := context.WithCancel(context.Background())
	defer time.AfterFunc(time.Minute, cancel).Stop()
	out := &watchBuffer{cancel: cancel, after: "round 3 at "}
	start := time.Now().UTC().Truncate(time.Second)
	r := invocation{ctx: ctx, stdout: out}.run(t, "sync", "zendesk-support", "tickets", "groups", "--sandbox", "--store", db, "--every", "300ms")
	r.stdout = out.String()
	if r.code != exitInterrupted || !strings.HasPrefix(r.stderr, "tributary: interrupted: ") {
		t.Fatalf("exit %d, want %d (interrupted): %s", r.code, exitInterrupted, r.stderr)
	}
	rounds := strings.Count(r.stdout, "copy ")
	if rounds < 2 {
		t.Fatalf("%d rounds before the third began at --every 300ms:\n%s", rounds, r.stdout)
	}
	stamps := regexp.MustCompile(`(?m)^round (\d+) at (\S+)$`).FindAllStringSubmatch(r.stdout, -1)
	if len(stamps) < rounds {
		t.Fatalf("%d round lines for %d rounds:\n%s", len(stamps), rounds, r.stdout)
	}
	for i, m := range stamps {
		at, err := time.Parse(time.RFC3339, m[2])
		if m[1] != strconv.Itoa(i+1) || err != nil || at.Before(start) || at.After(time.Now()) {
			t.Errorf("round line %q: want round %d at an RFC 3339 time of this run (%v)", m[0], i+1, err)
		}
	}
	first := regexp.MustCompile(`(?m)^zendesk-support/tickets +full +250 `)
	later := regexp.MustCompile(`(?m)^zendesk-support/tickets +incremental +0 +0 +\d+ +0 `)
	if n := len(later.FindAllString(r.stdout, -1)); !first.MatchString(r.stdout) || n < 1 || n < rounds-2 {
		t.Errorf("want one full round, then incremental ones with nothing new:\n%s", r.stdout)
	}
	if !regexp.MustCompile(`(?m)^zendesk-support/groups +full `).MatchString(r.stdout) {
		t.Errorf("groups (no feed) are walked in full every round:\n%s", r.stdout)
	}
}

// watchBuffer is a syncBuffer that calls cancel once after is written.
type watchBuffer struct {
	syncBuffer
	cancel func()
	after  string
	once   sync.Once
}

func (w *watchBuffer) Write(p []byte) (int, error) {
	n, err := w.syncBuffer.Write(p)
	if strings.Contains(w.String(), w.after) {
		w.once.Do(w.cancel)
	}
	return n, err
}

// TestSyncNeverDeletesWhatItDidNotRead: the reported data loss, through the
// command. Comments of one ticket, then of another into the same copy: the
// second is refused (exit 2, the way out named) and the first ticket's
// comments are all still in the store; under --name it is a copy of its own.
func TestSyncNeverDeletesWhatItDidNotRead(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	r := cli(t, "sync", "zendesk-support", "ticket_comments", "-p", "ticket_id=35436", "--sandbox", "--store", db)
	r.want(t, 0)
	before, _, _ := stats(t, invocation{}, "--store", db).copyOf(t, "zendesk-support", "ticket_comments")
	if before == 0 {
		t.Fatalf("ticket 35436 has no comments in the sandbox:\n%s", r.stdout)
	}
	r = cli(t, "sync", "zendesk-support", "ticket_comments", "-p", "ticket_id=35437", "--sandbox", "--store", db)
	if r.code != 2 || !strings.Contains(r.stderr, `"ticket_id":35436`) || !strings.Contains(r.stderr, "--name") {
		t.Errorf("a sync of another ticket into the copy: exit %d\n%s", r.code, r.stderr)
	}
	if after, _, _ := stats(t, invocation{}, "--store", db).copyOf(t, "zendesk-support", "ticket_comments"); after != before {
		t.Errorf("the copy holds %d records after the refused sync, want %d", after, before)
	}
	cli(t, "sync", "zendesk-support", "ticket_comments", "-p", "ticket_id=35437", "--name", "t35437", "--sandbox", "--store", db).want(t, 0)
}

// TestSyncReplicationConfigIsChecked: --replication-config is checked
// against the kind's declared keys before anything is read: an unknown key
// is named with the nearest declared one; a kind that takes none says so.
func TestSyncReplicationConfigIsChecked(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	for _, c := range []struct {
		kind, config, want string
	}{
		{"intercom", `{"start_dat": "2024-01-01T00:00:00Z"}`, `did you mean "start_date"`},
		{"intercom", `{"start_date": "yesterday"}`, "start_date"},
		{"intercom", `[1]`, "not a JSON object"},
		{"zendesk-support", `{"start_date": "2024-01-01T00:00:00Z"}`, "takes no replication_config"},
	} {
		r := cli(t, "sync", c.kind, "--sandbox", "--store", db, "--replication-config", c.config)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s %s: exit %d, want 2 with %q\n%s", c.kind, c.config, r.code, c.want, r.stderr)
		}
	}
	if _, err := os.Stat(db); err == nil {
		t.Errorf("a refused config created the store")
	}
}

// TestSyncEveryCtrlC: a real process, interrupted by SIGINT (Ctrl-C)
// between two rounds of --every, exits 130 and says so.
func TestSyncEveryCtrlC(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT on Windows")
	}
	db := filepath.Join(t.TempDir(), "every.db")
	cmd := exec.Command(binary, "sync", "zendesk-support", "groups", "--sandbox", "--store", db, "--every", "1h")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The first round's table is printed: the command now waits an hour.
	sc := bufio.NewScanner(out)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if strings.HasPrefix(sc.Text(), "zendesk-support/groups ") {
			break
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, out)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
		t.Fatalf("after Ctrl-C: %v, want exit %d\nstdout: %q\nstderr: %s", err, exitInterrupted, lines, stderr.String())
	}
	if want := "tributary: interrupted: --every stopped after 1 round; every copy is whole, as the last round left it\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "round 1 at ") {
		t.Errorf("stdout starts %q, want the round's line first", lines)
	}
}

// sync --sandbox --sandbox-changes: the fake changes the entities synced
// while --every runs, each change said on stderr, and the copy's change
// feed gets the updates and deletes; the flag is refused without
// --sandbox, with a bad rate, or when the fake changes none of the
// entities, saying which it changes.
func TestSyncSandboxChanges(t *testing.T) {
	db := filepath.Join(t.TempDir(), "feed.db")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	live := &syncBuffer{}
	done := make(chan result, 1)
	go func() {
		done <- invocation{ctx: ctx, stderr: live}.run(t, "sync", "hubspot", "contacts", "--sandbox", "--sandbox-changes", "50/s", "--every", "100ms", "--store", db)
	}()
	ops := map[string]bool{}
	for deadline := time.Now().Add(30 * time.Second); !ops["update"] || !ops["delete"]; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("no update and delete in the feed in 30 s (%v):\n%s", ops, (<-done).stderr)
		}
		if r := cli(t, "changes", "hubspot", "contacts", "--store", db); r.code == 0 {
			for _, l := range lines(t, r.stdout) {
				ops[l["op"].(string)] = true
			}
		}
	}
	cancel()
	r := <-done
	if r.code != exitInterrupted {
		t.Errorf("exit %d", r.code)
	}
	if !regexp.MustCompile(`(?m)^tributary sync: --sandbox-changes: hubspot contacts \d+ updated$`).MatchString(r.stderr) ||
		!regexp.MustCompile(`(?m)^tributary sync: --sandbox-changes: hubspot contacts \d+ deleted$`).MatchString(r.stderr) {
		t.Errorf("stderr does not say the changes:\n%s", r.stderr)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sync", "hubspot", "contacts", "--store", db, "--sandbox-changes", "10/min"}, "--sandbox-changes changes the records of the sandbox's fakes: give --sandbox"},
		{[]string{"sync", "hubspot", "contacts", "--sandbox", "--store", db, "--sandbox-changes", "10/day"}, `--sandbox-changes: "10/day": a rate of changes is "<count>/<unit>"`},
		{[]string{"sync", "zendesk-support", "brands", "tags", "--sandbox", "--store", db, "--sandbox-changes", "10/min"},
			"--sandbox-changes: the sandbox's zendesk-support fake changes none of brands, tags; it changes tickets, users, organizations, groups, ticket_comments"},
	} {
		if r := cli(t, c.args...); r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%q: exit %d, %s", c.args, r.code, r.stderr)
		}
	}
}
