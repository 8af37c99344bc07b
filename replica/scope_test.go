package replica_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/salesforce"
	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
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

// A copy of a child entity read with the caller's params (a ticket's
// comments with ticket_id) carries the parent's param on its records, as
// the copy read one part per parent record does: a search on ticket_id
// finds them, in a durable copy and in memory, whatever form the param
// was given in.
func TestExplicitParamsStampTheParent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fake := zendesktest.New(zendesktest.WithTickets(5))
	defer fake.Close()
	conn, err := kinds.Open("zendesk-support", crashCreds, append([]tributary.Option{tributary.WithBaseURL(fake.URL)}, zendeskOpts...)...)
	if err != nil {
		t.Fatal(err)
	}
	id := fake.IDs("tickets")[2]
	page, err := conn.List(ctx, "ticket_comments", tributary.Params{"ticket_id": id})
	if err != nil || len(page.Records) == 0 {
		t.Fatalf("ticket %s's comments: %v, %v", id, page, err)
	}
	n, _ := strconv.ParseInt(id, 10, 64)
	for name, given := range map[string]any{"int64": n, "string": id} {
		params := replica.WithParams("ticket_comments", tributary.Params{"ticket_id": given})
		durable, err := replica.Open(ctx, conn, replica.SQLite(t.TempDir()+"/c.db"), params)
		if err != nil {
			t.Fatal(err)
		}
		defer durable.Close()
		for where, r := range map[string]*replica.Replica{"durable": durable, "memory": replica.New(conn, params)} {
			if _, err := r.Sync(ctx, "ticket_comments"); err != nil {
				t.Fatal(err)
			}
			if got := searchCount(t, r, "ticket_comments", "ticket_id", id); got != len(page.Records) {
				t.Errorf("%s, ticket_id given as %s: a search on ticket_id %s finds %d comments, want %d", where, name, id, got, len(page.Records))
			}
			res, err := r.Search(ctx, "ticket_comments", search.Request{Query: search.Query{Filter: search.Gte("ticket_id", n).Ptr()}, Limit: 100})
			if err != nil || len(res.Hits) != len(page.Records) {
				t.Errorf("%s, ticket_id given as %s: ticket_id >= %d finds %v (%v), want %d comments", where, name, n, res, err, len(page.Records))
			}
		}
	}
}
