package replica_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/salesforce"
	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/search"
)

// salesforceObjects are Salesforce's searchable entities: their lists need
// a SOQL query, which their copy scope supplies.
var salesforceObjects = []string{"accounts", "contacts", "leads", "opportunities", "tasks"}

func openSalesforce(t *testing.T, srv *salesforcetest.Server) tributary.Connector {
	t.Helper()
	c, err := kinds.Open(salesforce.Type, map[string]any{"client_id": salesforcetest.DefaultClientID,
		"client_secret": salesforcetest.DefaultClientSecret, "refresh_token": salesforcetest.DefaultRefreshToken},
		tributary.WithBaseURL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Syncable takes the entities whose list needs params when their copy
// scope supplies them.
func TestSyncableTakesScopedEntities(t *testing.T) {
	t.Parallel()
	if diff := cmp.Diff(salesforceObjects, replica.Syncable(salesforce.Catalogue())); diff != "" {
		t.Errorf("Syncable(salesforce) (-want +got):\n%s", diff)
	}
}

// A durable copy of Salesforce's objects without any params from the
// caller: the first sync walks every record with the copy scope's query,
// search finds them by any searchable field, and the next sync reads the
// change feed from the checkpoint.
func TestSyncWithTheCopyScope(t *testing.T) {
	t.Parallel()
	srv := salesforcetest.New()
	defer srv.Close()
	ctx := context.Background()
	r, err := replica.Open(ctx, openSalesforce(t, srv), replica.SQLite(t.TempDir()+"/x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rep, err := r.Sync(ctx, salesforceObjects...)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Entities) != len(salesforceObjects) {
		t.Fatalf("report of %d entities, want %d", len(rep.Entities), len(salesforceObjects))
	}
	for i, entity := range salesforceObjects {
		er := rep.Entities[i]
		if n := int64(len(srv.IDs(entity))); er.Entity != entity || er.Mode != replica.Full || er.Inserted != n || n == 0 {
			t.Errorf("%s: %+v, want a full walk inserting %d records", entity, er, n)
		}
		res, err := r.Search(ctx, entity, search.Request{Limit: 1000})
		if err != nil {
			t.Fatalf("search %s: %v", entity, err)
		}
		if got, want := len(res.Hits), len(srv.IDs(entity)); got != want {
			t.Errorf("search %s: %d hits, want %d", entity, got, want)
		}
	}
	// A field no hand-written query of the tests selects is in the copy.
	res, err := r.Search(ctx, "accounts", search.Request{Query: search.Query{Filter: search.Eq("BillingCountry", "Canada").Ptr()}, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || len(res.Hits) == len(srv.IDs("accounts")) {
		t.Errorf("accounts billed in Canada: %d hits of %d", len(res.Hits), len(srv.IDs("accounts")))
	}

	srv.Clock().Advance(time.Hour)
	if err := srv.Update("opportunities", srv.IDs("opportunities")[3]); err != nil {
		t.Fatal(err)
	}
	rep, err = r.Sync(ctx, salesforceObjects...)
	if err != nil {
		t.Fatal(err)
	}
	for i, entity := range salesforceObjects {
		er := rep.Entities[i]
		if er.Mode != replica.Incremental || er.Reason != "" || er.Inserted != 0 || er.Deleted != 0 {
			t.Errorf("second sync of %s: %+v, want an incremental one", entity, er)
		}
		want := int64(0)
		if entity == "opportunities" {
			want = 1
		}
		if er.Updated != want {
			t.Errorf("second sync of %s: %d updated, want %d", entity, er.Updated, want)
		}
	}
}

// An in-memory replica walks the copy scope too.
func TestMemorySyncWithTheCopyScope(t *testing.T) {
	t.Parallel()
	srv := salesforcetest.New(salesforcetest.WithLeads(450))
	defer srv.Close()
	r := replica.New(openSalesforce(t, srv))
	if _, err := r.Sync(context.Background(), "leads"); err != nil {
		t.Fatal(err)
	}
	if r.Len("leads") != 450 {
		t.Errorf("%d leads in the copy, want 450", r.Len("leads"))
	}
}
