package salesforce_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/salesforce"
	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
)

// scoped returns entity's catalogue row, failing the test when it has no
// copy scope.
func scoped(t *testing.T, entity string) tributary.Entity {
	t.Helper()
	e, ok := tributary.FindEntity(salesforce.Catalogue(), entity)
	if !ok || e.Scope == nil || e.Scope.Params == nil || e.Scope.Doc == "" {
		t.Fatalf("%s: no copy scope in the catalogue", entity)
	}
	return e
}

// The copy scope of every searchable entity is a query the fake's SOQL
// runs: a walk with it reads every live record of the object, each with
// every searchable field, Id and SystemModstamp among them. The fake holds
// what the sandbox's does (1,000 accounts: five pages of the wide query).
func TestScopeWalksEveryRecordWithEverySearchableField(t *testing.T) {
	srv := salesforcetest.New(salesforcetest.WithAccounts(1000))
	defer srv.Close()
	c := open(t, srv)
	var withScope []string
	for _, e := range salesforce.Catalogue() {
		if e.Scope != nil {
			withScope = append(withScope, e.Name)
		}
	}
	if diff := cmp.Diff([]string{"accounts", "contacts", "leads", "opportunities", "tasks"}, withScope); diff != "" {
		t.Errorf("entities with a copy scope (-want +got):\n%s", diff)
	}
	for _, fe := range feedEntities {
		t.Run(fe.entity, func(t *testing.T) {
			e := scoped(t, fe.entity)
			q, _ := e.Scope.Params()["q"].(string)
			if !strings.HasPrefix(q, "SELECT Id, ") || !strings.HasSuffix(q, ", SystemModstamp FROM "+fe.object) {
				t.Errorf("q = %q, want SELECT Id, ..., SystemModstamp FROM %s", q, fe.object)
			}
			if got := e.CopyParams(nil); !cmp.Equal(got, e.Scope.Params()) {
				t.Errorf("CopyParams(nil) = %v, want the scope's %v", got, e.Scope.Params())
			}
			var got []string
			for r, err := range tributary.All(context.Background(), c, fe.entity, e.Scope.Params()) {
				if err != nil {
					t.Fatalf("walk with %q: %v", q, err)
				}
				id, _ := r.StringAt("Id")
				got = append(got, id)
				for _, f := range e.Searchable {
					if _, ok := r.Lookup(f.Name); !ok {
						t.Fatalf("record %s has no searchable field %s: %s", id, f.Name, r.Raw())
					}
				}
			}
			if diff := cmp.Diff(sorted(srv.IDs(fe.entity)), sorted(got)); diff != "" || len(got) == 0 {
				t.Errorf("walk read %d records; ids (-fake +walk):\n%s", len(got), diff)
			}
		})
	}
}

// The change feed reads the scope's query: Check passes, a first pass
// reads every record, and a pass from its checkpoint after an update reads
// the updated record (besides the overlap the feed reads again by design).
func TestScopeIsReadByTheFeed(t *testing.T) {
	srv := feedServer(30)
	defer srv.Close()
	c := open(t, srv)
	for _, fe := range feedEntities {
		t.Run(fe.entity, func(t *testing.T) {
			e := scoped(t, fe.entity)
			base := e.Scope.Params()
			if param, reason := e.Feed.Check(base); param != "" {
				t.Fatalf("the feed refuses the scope's query: %s: %s", param, reason)
			}
			first := pass(t, c, fe.entity, base, tributary.Checkpoint{})
			var all []string
			for _, ch := range first {
				all = append(all, ids(t, ch.Records)...)
			}
			if diff := cmp.Diff(sorted(srv.IDs(fe.entity)), sorted(all)); diff != "" {
				t.Fatalf("first pass (-fake +feed):\n%s", diff)
			}
			cp := first[len(first)-1].Checkpoint
			overlap := overlapIDs(t, first, cp)

			srv.Clock().Advance(time.Hour)
			id := srv.IDs(fe.entity)[7]
			if slices.Contains(overlap, id) {
				t.Fatalf("record %s is in the overlap: pick another", id)
			}
			if err := srv.Update(fe.entity, id); err != nil {
				t.Fatal(err)
			}
			var recs []string
			var updated tributary.Record
			for _, ch := range pass(t, c, fe.entity, base, cp) {
				recs = append(recs, ids(t, ch.Records)...)
				for _, r := range ch.Records {
					if s, _ := r.StringAt("Id"); s == id {
						updated = r
					}
				}
			}
			if diff := cmp.Diff(sorted(append([]string{id}, overlap...)), sorted(recs)); diff != "" {
				t.Errorf("second pass (-want +got):\n%s", diff)
			}
			if v, _ := updated.StringAt(fe.field); !strings.Contains(v, "updated") {
				t.Errorf("updated record's %s = %q, want the rewritten value", fe.field, v)
			}
		})
	}
}
