//go:build !race

// Run without the race detector (CI runs it in a step of its own): it
// measures requests and pacing over thousands of records.

package replica_test

import (
	"context"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/replica"
)

// TestIncrementalCost: after 1% of the records change, an incremental
// sync sends at most 2% of the requests of a full walk (counted by the
// connector, and by the fake).
func TestIncrementalCost(t *testing.T) {
	if testing.Short() {
		t.Skip("20,000 tickets")
	}
	ctx := context.Background()
	fake := zendesktest.New(zendesktest.WithTickets(20000), zendesktest.WithUsers(10000))
	defer fake.Close()
	kc := kindCase{kind: "zendesk-support", creds: crashCreds, opts: zendeskOpts}
	entities := []string{"tickets", "users"}

	full, err := replica.Open(ctx, openKind(t, kc, fake.URL), replica.SQLite(t.TempDir()+"/full.db"), replica.WithoutFeeds())
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	walk, err := full.Sync(ctx, entities...)
	if err != nil {
		t.Fatal(err)
	}
	r, err := replica.Open(ctx, openKind(t, kc, fake.URL), replica.SQLite(t.TempDir()+"/copy.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Sync(ctx, entities...); err != nil {
		t.Fatal(err)
	}
	fake.Clock().Advance(10 * time.Minute)
	for _, e := range entities {
		ids := fake.IDs(e)
		for i := 0; i < len(ids); i += 100 { // 1%
			if err := fake.Update(e, ids[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	fake.Clock().Advance(2 * time.Minute)
	fake.ResetRequests()
	inc, err := r.Sync(ctx, entities...)
	if err != nil {
		t.Fatal(err)
	}
	if got := int64(len(fake.Requests())); got != inc.Entities[0].Usage.Requests+inc.Entities[1].Usage.Requests {
		t.Errorf("the fake received %d requests, the report counts %+v", got, inc.Entities)
	}
	for i, e := range inc.Entities {
		w := walk.Entities[i]
		t.Logf("%s: full walk %d requests; incremental (%s) %d requests, %d updated, %d unchanged", e.Entity, w.Usage.Requests, e.Mode, e.Usage.Requests, e.Updated, e.Unchanged)
		if e.Mode != replica.Incremental || e.Updated < w.Inserted/100 {
			t.Errorf("%s: %s, %d updated, want incremental with at least %d", e.Entity, e.Mode, e.Updated, w.Inserted/100)
		}
		if float64(e.Usage.Requests) > 0.02*float64(w.Usage.Requests) {
			t.Errorf("%s: %d requests, more than 2%% of the full walk's %d", e.Entity, e.Usage.Requests, w.Usage.Requests)
		}
	}
}
