//go:build !race

// Without the race detector (its step in CI skips it): tens of thousands
// of records.
//
// What an incremental sync costs: requests, counted by the connector and
// checked against the fake's own count. Each case runs in a
// testing/synctest bubble with the fake reached in-process, so the
// connectors' pacing (HubSpot's search, Intercom's budget) waits on the
// bubble's clock and takes no real time.

package replica_test

import (
	"context"
	"net/http"
	"os"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakes"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/asana/asanatest"
	"github.com/tributary-dev/tributary/kinds/github/githubtest"
	"github.com/tributary-dev/tributary/kinds/gong/gongtest"
	"github.com/tributary-dev/tributary/kinds/hubspot/hubspottest"
	"github.com/tributary-dev/tributary/kinds/intercom/intercomtest"
	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/replica"
)

// costCases are large fakes, one per kind with a change feed, and the
// entity measured.
func costCases() []costCase {
	byKind := map[string]kindCase{}
	for _, kc := range kindCases() {
		byKind[kc.kind] = kc
	}
	with := func(kind, entity string, big func() (mutableFake, string)) costCase {
		kc := byKind[kind]
		kc.entities = []string{entity}
		return costCase{kc, big}
	}
	out := []costCase{
		with("zendesk-support", "tickets", func() (mutableFake, string) { s := zendesktest.New(zendesktest.WithTickets(20000)); return s, s.URL }),
		// A fan-out: a ticket's comments are read again when the
		// tickets' export shows the ticket changed.
		with("zendesk-support", "ticket_comments", func() (mutableFake, string) { s := zendesktest.New(zendesktest.WithTickets(5000)); return s, s.URL }),
		with("zendesk-support", "users", func() (mutableFake, string) { s := zendesktest.New(zendesktest.WithUsers(10000)); return s, s.URL }),
		with("hubspot", "contacts", func() (mutableFake, string) { s := hubspottest.New(hubspottest.WithContacts(20000)); return s, s.URL }),
		with("salesforce", "accounts", func() (mutableFake, string) {
			s := salesforcetest.New(salesforcetest.WithAccounts(40000))
			return s, s.URL
		}),
		// Intercom's search reads from the day before the checkpoint (it
		// matches dates by calendar day) and its count is one more
		// request: a larger account, so that 1% is more than a page.
		with("intercom", "contacts", func() (mutableFake, string) { s := intercomtest.New(intercomtest.WithContacts(40000)); return s, s.URL }),
		// Gong's feed reads the last 7 days again (its lookback: calls
		// change after they happen), about 170 calls of this fake.
		with("gong", "calls", func() (mutableFake, string) { s := gongtest.New(gongtest.WithCalls(40000)); return s, s.URL }),
		with("github", "issues", func() (mutableFake, string) { s := githubtest.New(githubtest.WithIssues(20000)); return s, s.URL }),
		// Asana's Main is projects, which has no feed: its tasks, 10,000
		// in one project (a part per project, each with its events).
		with("asana", "tasks", func() (mutableFake, string) {
			s := asanatest.New(asanatest.WithProjects(1), asanatest.WithTasks(10000))
			return s, s.URL
		}),
	}
	// Every other kind (internal/fakes): its main entity, when it has a
	// change feed, at 10,000 records, or 100 of the fake's pages when they
	// are larger than 100 (a full walk of 50 requests at least, or no
	// incremental pass, a request at least, is within 2% of it).
	for _, k := range fakes.Suite() {
		if slices.ContainsFunc(out, func(c costCase) bool { return c.kind == k.Type }) {
			continue
		}
		entities, _ := kinds.Catalogue(k.Type)
		if e, ok := tributary.FindEntity(entities, k.Main); !ok || e.Feed == nil {
			continue
		}
		out = append(out, with(k.Type, k.Main, func() (mutableFake, string) { f := k.Start(max(10_000, 100*k.PageSize)); return f, f.BaseURL() }))
	}
	return out
}

// costFloor is the fewest requests a correct incremental pass of a case
// sends, where that is more than 2% of its full walk. Asana's: an event
// names a task by its gid alone, and its events follow one project, so a
// pass lists the projects (its parts: a project new or deleted), reads a
// page of each project's events and lists the changed tasks again by
// modified_since: 3 of a full walk's 101 at 10,000 tasks in one project.
var costFloor = map[string]int64{"asana/tasks": 3}

// costCase is a kind's case with a large fake.
type costCase = struct {
	kindCase
	big func() (mutableFake, string)
}

// TestIncrementalCost: after 1% of the records change, an incremental
// sync sends at most 2% of the requests of a full walk, for an entity with
// a change feed of every kind that has one (counted by the connector, and
// checked against the fake's own count).
//
// The README's test command runs one case, Zendesk's tickets (20,000);
// the others need 10,000 to 40,000 records each for 2% of a full walk to
// exceed what an incremental pass costs anyway (Gong's 40,000 calls alone
// took 24 s of the suite's time, the fan-out of comments 11), and run with
// TRIBUTARY_LONG=1 (CI's step of the store at length). The fan-out's cost
// is also TestChildrenFollowTheirParentsFeed's (one request per changed
// ticket), Gong's lookback kinds/gong's feed tests'.
//
//	TRIBUTARY_LONG=1 go test -run '^TestIncrementalCost$' -v ./replica/
func TestIncrementalCost(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("tens of thousands of records")
	}
	short := map[string]bool{"zendesk-support/tickets": true}
	for _, c := range costCases() {
		t.Run(c.kind+"/"+c.entities[0], func(t *testing.T) {
			if !short[c.kind+"/"+c.entities[0]] && os.Getenv("TRIBUTARY_LONG") == "" {
				t.Skip("tens of thousands of records: TRIBUTARY_LONG=1 runs it (CI does)")
			}
			t.Parallel()
			fake, url := c.big()
			defer fake.Close()
			realNow := time.Now()
			synctest.Test(t, func(t *testing.T) {
				time.Sleep(time.Until(realNow)) // the bubble's clock starts in 2000
				testIncrementalCost(t, c.kindCase, fake, url)
			})
		})
	}
}

func testIncrementalCost(t *testing.T, kc kindCase, fake mutableFake, url string) {
	ctx := context.Background()
	kc.opts = append(append([]tributary.Option(nil), kc.opts...),
		tributary.WithHTTPClient(&http.Client{Transport: fake.Transport()}))
	conn := openKind(t, kc, url)
	var params map[string]tributary.Params
	if kc.params != nil {
		params = kc.params(t, conn)
	}
	opts := []replica.Option{}
	for e, p := range params {
		opts = append(opts, replica.WithParams(e, p))
	}
	full, err := replica.Open(ctx, conn, replica.SQLite(t.TempDir()+"/full.db"), append(opts, replica.WithoutFeeds())...)
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	walk, err := full.Sync(ctx, kc.entities...)
	if err != nil {
		t.Fatal(err)
	}
	r, err := replica.Open(ctx, conn, replica.SQLite(t.TempDir()+"/copy.db"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Sync(ctx, kc.entities...); err != nil {
		t.Fatal(err)
	}
	fake.Clock().Advance(10 * time.Minute)
	ids := fake.IDs(kc.entities[0])
	if kc.entities[0] == "ticket_comments" {
		// 1% of the parents change, each with a new child: a comment
		// added to 1% of the tickets (Create goes round the tickets).
		ids = fake.IDs("tickets")
	}
	for i := 0; i < len(ids); i += 100 { // 1%
		var err error
		if kc.kind == "gong" || kc.entities[0] == "ticket_comments" {
			// Gong's calls have no modification time: what its
			// feed sees are new calls, and changes within the
			// lookback.
			_, err = fake.Create(kc.entities[0])
		} else {
			err = fake.Update(kc.entities[0], ids[i])
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	fake.Clock().Advance(2 * time.Minute)
	core, logged := fake.(interface{ Core() *fakeserver.Server })
	if logged {
		core.Core().ResetRequests()
	}
	inc, err := r.Sync(ctx, kc.entities...)
	if err != nil {
		t.Fatal(err)
	}
	e, w := inc.Entities[0], walk.Entities[0]
	t.Logf("%s: full walk %d requests for %d records; incremental (%s) %d requests (%.1f%%): %d inserted, %d updated, %d unchanged", e.Entity, w.Usage.Requests, w.Inserted, e.Mode,
		e.Usage.Requests, 100*float64(e.Usage.Requests)/float64(w.Usage.Requests), e.Inserted, e.Updated, e.Unchanged)
	if e.Mode != replica.Incremental || e.Updated+e.Inserted < int64(len(ids)/100) {
		t.Errorf("%s, %d updated, want incremental with at least %d (%s)", e.Mode, e.Updated, len(ids)/100, e.Reason)
	}
	if float64(e.Usage.Requests) > max(0.02*float64(w.Usage.Requests), float64(costFloor[kc.kind+"/"+kc.entities[0]])) {
		t.Errorf("%d requests, more than 2%% of the full walk's %d (or the case's floor, %d)", e.Usage.Requests, w.Usage.Requests, costFloor[kc.kind+"/"+kc.entities[0]])
		if logged {
			for _, q := range core.Core().Requests() {
				t.Logf("sent %s %s?%s", q.Method, q.Path, q.Query.Encode())
			}
		}
	}
}
