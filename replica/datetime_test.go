package replica_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/replica"
)

// stringDates is a connector whose catalogue types its date-time fields as
// strings, as catalogues did before the date-time type; it reads changes
// as the connector does.
type stringDates struct {
	tributary.Connector
	tributary.Changer
}

func (c stringDates) Entities() []tributary.Entity {
	es := slices.Clone(c.Connector.Entities())
	for i := range es {
		fs := slices.Clone(es[i].Searchable)
		for j := range fs {
			if fs[j].Type == tributary.TypeDateTime {
				fs[j].Type = tributary.TypeString
			}
		}
		es[i].Searchable = fs
	}
	return es
}

// A copy made when its date-time fields were typed string is walked again
// in full by the first sync with the date-time catalogue, once, and its
// searches then refuse a date that is not RFC 3339 and compare real ones:
// Zendesk's created_at (RFC 3339) and Salesforce's CreatedDate (+0000,
// which the old copy's order keys held as plain strings).
func TestCopyWithStringDatesIsWalkedAgain(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		kind, entity, field string
		open                func(t *testing.T) (tributary.Connector, func())
	}{
		{"zendesk-support", "tickets", "created_at", func(t *testing.T) (tributary.Connector, func()) {
			srv := zendesktest.New(zendesktest.WithTickets(40))
			return open(t, srv), srv.Close
		}},
		{"salesforce", "accounts", "CreatedDate", func(t *testing.T) (tributary.Connector, func()) {
			srv := salesforcetest.New(salesforcetest.WithAccounts(40))
			conn, err := kinds.Open("salesforce", map[string]any{"client_id": salesforcetest.DefaultClientID, "client_secret": salesforcetest.DefaultClientSecret,
				"refresh_token": salesforcetest.DefaultRefreshToken}, tributary.WithBaseURL(srv.URL))
			if err != nil {
				t.Fatal(err)
			}
			return conn, srv.Close
		}},
	} {
		t.Run(c.kind, func(t *testing.T) {
			conn, stop := c.open(t)
			defer stop()
			walkedAgain(t, conn, c.entity, c.field)
		})
	}
}

func walkedAgain(t *testing.T, c tributary.Connector, entity, field string) {
	ctx := context.Background()
	path := t.TempDir() + "/copy.db"
	search := func(r *replica.Replica, filter map[string]any) (*tributary.Result, error) {
		return tributary.Execute(ctx, r.Connector(), tributary.Request{Entity: entity, Action: tributary.ActionSearch,
			Params: tributary.Params{"query": map[string]any{"filter": filter}, "limit": 1000}})
	}
	yesterday := map[string]any{"gt": map[string]any{field: "yesterday"}}
	since2000 := map[string]any{"gte": map[string]any{field: "2000-01-01"}}

	old, err := replica.Open(ctx, stringDates{c, c.(tributary.Changer)}, replica.SQLite(path))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Sync(ctx, entity); err != nil {
		t.Fatal(err)
	}
	n := old.Len(entity)
	if _, err := search(old, yesterday); err != nil {
		t.Fatalf("a string %s takes any string: %v", field, err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}

	r, err := replica.Open(ctx, c, replica.SQLite(path))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rep, err := r.Sync(ctx, entity)
	if err != nil {
		t.Fatal(err)
	}
	if e := rep.Entities[0]; e.Mode != replica.Full || e.Reason != "the catalogue's searchable fields changed" || e.Deleted != 0 {
		t.Errorf("first sync with date-times: %+v", e)
	}
	if r.Len(entity) != n || n == 0 {
		t.Errorf("%d records after the walk, %d before", r.Len(entity), n)
	}
	_, err = search(r, yesterday)
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) || te.Param != field {
		t.Errorf("gt yesterday: %v", err)
	}
	out, err := search(r, since2000)
	if err != nil || len(out.Search.Hits) != n {
		t.Errorf("gte 2000-01-01: %v", err)
	}
	var first map[string]any
	if err := json.Unmarshal(out.Search.Hits[0].Data, &first); err != nil {
		t.Fatal(err)
	}
	at, _ := first[field].(string)
	if out, err := search(r, map[string]any{"eq": map[string]any{field: at}}); err != nil || len(out.Search.Hits) == 0 {
		t.Errorf("eq %s: %v", at, err)
	}
	rep, err = r.Sync(ctx, entity)
	if err != nil || rep.Entities[0].Mode != replica.Incremental {
		t.Errorf("the next sync: %+v %v", rep, err)
	}
}
