package replica_test

import (
	"context"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakes"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/github/githubtest"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
)

// mutableFake is a running fake whose records a test changes.
type mutableFake interface {
	fakeserver.Mutable
	Close()
	// Transport reaches the fake in-process (fakeserver.Server.Transport).
	Transport() http.RoundTripper
}

// kindCase is one kind's fake and the entities its copy keeps.
type kindCase struct {
	kind     string
	start    func() (mutableFake, string)
	creds    map[string]any
	opts     []tributary.Option
	entities []string
	params   func(t *testing.T, c tributary.Connector) map[string]tributary.Params
}

// kindCases are every kind's (internal/fakes.Suite: every kind, or a few
// under the race detector): its fake with its default data, its
// credentials, no pacing (the fakes do not enforce the vendors' limits),
// and every searchable entity, except where caseOverrides says otherwise.
// A new kind is covered without a line here.
func kindCases() []kindCase {
	var out []kindCase
	for _, k := range fakes.Suite() {
		out = append(out, caseOf(k))
	}
	return out
}

// pgCases are the kinds whose walks the suites repeat on PostgreSQL, and
// the kinds the kill trials of every kind kill (TestKilledSyncEveryKind):
// every kind under TRIBUTARY_LONG=1 or TRIBUTARY_CRASH_TRIALS (CI's
// steps: .ci/run kills each kind ten times), internal/fakes.Sample's four
// otherwise (the store's own tests cover PostgreSQL against SQLite; the
// kinds differ in the replica, which the SQLite runs of the other suites
// walk for every kind).
func pgCases() []kindCase {
	if os.Getenv("TRIBUTARY_LONG") != "" || os.Getenv("TRIBUTARY_CRASH_TRIALS") != "" {
		return kindCases()
	}
	var out []kindCase
	for _, k := range fakes.Sample() {
		out = append(out, caseOf(k))
	}
	return out
}

// caseOf is the case of k.
func caseOf(k fakeserver.Kind) kindCase {
	kc := kindCase{kind: k.Type, creds: k.Credentials, opts: []tributary.Option{tributary.WithoutPacing()},
		start: func() (mutableFake, string) { f := k.Start(0); return f, f.BaseURL() }}
	entities, err := kinds.Catalogue(k.Type)
	if err != nil {
		panic(err)
	}
	for _, e := range entities {
		if slices.Contains(e.Actions, tributary.ActionSearch) {
			kc.entities = append(kc.entities, e.Name)
		}
	}
	if o, ok := caseOverrides[k.Type]; ok {
		o(&kc)
	}
	return kc
}

// kindCaseOf returns the case of kind, whether or not the suite walks it.
func kindCaseOf(kind string) kindCase {
	k, ok := fakes.Of(kind)
	if !ok {
		panic("no case of " + kind)
	}
	return caseOf(k)
}

// caseOverrides narrow the seven first kinds' cases to the entities (and
// fakes) these suites were written for, which keeps their cost: each says
// why.
var caseOverrides = map[string]func(*kindCase){
	"zendesk-support": func(kc *kindCase) {
		kc.entities = []string{"tickets", "users", "organizations", "groups", "ticket_comments"}
		kc.params = func(*testing.T, tributary.Connector) map[string]tributary.Params {
			// Zendesk lists deleted groups unless asked not to.
			return map[string]tributary.Params{"groups": {"exclude_deleted": true}}
		}
	},
	"hubspot":    func(kc *kindCase) { kc.entities = []string{"contacts", "companies", "deals", "tickets"} },
	"intercom":   func(kc *kindCase) { kc.entities = []string{"contacts", "conversations", "companies"} },
	"salesforce": func(kc *kindCase) { kc.entities = []string{"accounts", "contacts", "leads", "opportunities", "tasks"} },
	"gong":       func(kc *kindCase) { kc.entities = []string{"calls", "users", "calls_extensive"} },
	// One repository: the fake's mutations are of its first repository,
	// but a created issue shows in all of them.
	"github": func(kc *kindCase) {
		kc.start = func() (mutableFake, string) { s := githubtest.New(githubtest.WithRepos(1)); return s, s.URL }
		kc.entities = []string{"issues", "labels", "comments"}
	},
	// Mailchimp: the feed (list_members) is of an entity the catalogue
	// does not search, so no copy keeps it; lists and campaigns have no
	// feed and are walked in full, deletions found by difference.
	"mailchimp": func(kc *kindCase) { kc.entities = []string{"lists", "campaigns", "email_activity"} },
}

// contents reads every record of a copy: live ones by id with their
// bytes, and the ids of deletions.
func contents(t *testing.T, st *store.Store, connector, entity string) (live map[string]string, deleted map[string]bool) {
	t.Helper()
	ctx := context.Background()
	live, deleted = map[string]string{}, map[string]bool{}
	for _, withDeleted := range []bool{false, true} {
		cursor := ""
		for {
			res, err := st.SearchWith(ctx, connector, entity, search.Request{Limit: 1000, Cursor: cursor}, store.SearchOptions{Deleted: withDeleted})
			if err != nil {
				t.Fatalf("%s: %v", entity, err)
			}
			for _, h := range res.Hits {
				if !withDeleted {
					live[h.ID] = string(h.Data)
				} else if _, ok := live[h.ID]; !ok {
					deleted[h.ID] = true
				}
			}
			if res.NextCursor == nil || *res.NextCursor == "" {
				break
			}
			cursor = *res.NextCursor
		}
	}
	return live, deleted
}

func openKind(t *testing.T, kc kindCase, url string) tributary.Connector {
	t.Helper()
	opts := append([]tributary.Option{tributary.WithBaseURL(url), tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond})}, kc.opts...)
	c, err := kinds.Open(kc.kind, kc.creds, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestConvergence: random creates, updates and deletes over rounds, with
// an incremental sync after each; then the copy equals a fresh full walk
// of the source, record for record and byte for byte, and every record
// deleted at the source is a deletion in the copy. Every kind on SQLite,
// and pgCases' on PostgreSQL (every kind under TRIBUTARY_LONG=1).
func TestConvergence(t *testing.T) {
	t.Parallel()
	backends := map[string]func(t *testing.T) replica.Backend{
		"sqlite":   func(t *testing.T) replica.Backend { return replica.SQLite(t.TempDir() + "/copy.db") },
		"postgres": func(t *testing.T) replica.Backend { return replica.Postgres(pgtest.DSN(t)) },
	}
	for bname, cases := range map[string][]kindCase{"sqlite": kindCases(), "postgres": pgCases()} {
		for _, kc := range cases {
			t.Run(kc.kind+"/"+bname, func(t *testing.T) {
				t.Parallel()
				testConvergence(t, kc, backends[bname](t), bname)
			})
		}
	}
}

func testConvergence(t *testing.T, kc kindCase, backend replica.Backend, bname string) {
	ctx := context.Background()
	fake, url := kc.start()
	defer fake.Close()
	conn := openKind(t, kc, url)
	var params map[string]tributary.Params
	if kc.params != nil {
		params = kc.params(t, conn)
	}
	// Entities whose feed reports no deletions and whose source gives no
	// count (GitHub's issues, whose embedded labels also change without
	// their updated_at) are walked in full on every sync here; by default
	// once a day.
	opts := []replica.Option{replica.WithReconcile(time.Nanosecond)}
	for e, p := range params {
		opts = append(opts, replica.WithParams(e, p))
	}
	r, err := replica.Open(ctx, conn, backend, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Sync(ctx, kc.entities...); err != nil {
		t.Fatalf("first sync: %v", err)
	}
	rng := rand.New(rand.NewPCG(uint64(len(kc.kind)), 7))
	gone := map[string]map[string]bool{} // entity → ids deleted at the source
	for round := range 4 {
		mutate(t, rng, fake, kc.entities, gone)
		time.Sleep(10 * time.Millisecond)
		rep, err := r.Sync(ctx, kc.entities...)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		for _, er := range rep.Entities {
			e, _ := tributary.FindEntity(conn.Entities(), er.Entity)
			fed := e.Feed != nil
			if e.Scope != nil && e.Scope.Parent != nil {
				// Children follow their parent's feed, if it has one.
				pe, _ := tributary.FindEntity(conn.Entities(), e.Scope.Parent.Entity)
				fed = pe.Feed != nil
			}
			if fed && er.Mode != replica.Incremental && er.Reason == "" {
				t.Errorf("round %d: %s synchronized %s without a reason, though it has a feed", round, er.Entity, er.Mode)
			}
			if er.Usage.Throttled != 0 {
				t.Errorf("round %d: %s throttled %d times", round, er.Entity, er.Usage.Throttled)
			}
		}
	}

	// A fresh copy, walked in full, to compare with.
	fresh, err := replica.Open(ctx, conn, replica.SQLite(t.TempDir()+"/fresh.db"), append(opts, replica.WithoutFeeds())...)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if _, err := fresh.Sync(ctx, kc.entities...); err != nil {
		t.Fatal(err)
	}
	for _, e := range kc.entities {
		sameCopies(t, kc.kind, e, r, fresh, gone[e])
		got, deleted := contents(t, r.Store(), kc.kind, e)
		for id := range gone[e] {
			if !deleted[id] {
				t.Logf("%s %s: deleted at the source, no deletion kept (created and deleted between two syncs)", e, id)
			}
		}
		t.Logf("%s %s: %d live, %d deletions kept, %d deleted at the source", bname, e, len(got), len(deleted), len(gone[e]))
	}
}
