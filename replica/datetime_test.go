package replica_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/tributary-dev/tributary"
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

// A copy made when created_at was typed string is walked again in full by
// the first sync with the date-time catalogue, once, and its searches then
// refuse a date that is not RFC 3339 and compare real ones.
func TestCopyWithStringDatesIsWalkedAgain(t *testing.T) {
	srv := zendesktest.New(zendesktest.WithTickets(40))
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	path := t.TempDir() + "/copy.db"
	yesterday := tributary.Params{"query": map[string]any{"filter": map[string]any{"gt": map[string]any{"created_at": "yesterday"}}}}
	since2000 := tributary.Params{"query": map[string]any{"filter": map[string]any{"gte": map[string]any{"created_at": "2000-01-01"}}}, "limit": 1000}

	old, err := replica.Open(ctx, stringDates{c, c.(tributary.Changer)}, replica.SQLite(path))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Sync(ctx, "tickets"); err != nil {
		t.Fatal(err)
	}
	if _, err := tributary.Execute(ctx, old.Connector(), tributary.Request{Entity: "tickets", Action: tributary.ActionSearch, Params: yesterday}); err != nil {
		t.Fatalf("a string created_at takes any string: %v", err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}

	r, err := replica.Open(ctx, c, replica.SQLite(path))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rep, err := r.Sync(ctx, "tickets")
	if err != nil {
		t.Fatal(err)
	}
	if e := rep.Entities[0]; e.Mode != replica.Full || e.Reason != "the catalogue's searchable fields changed" || e.Deleted != 0 {
		t.Errorf("first sync with date-times: %+v", e)
	}
	if r.Len("tickets") != 40 {
		t.Errorf("%d tickets after the walk", r.Len("tickets"))
	}
	_, err = tributary.Execute(ctx, r.Connector(), tributary.Request{Entity: "tickets", Action: tributary.ActionSearch, Params: yesterday})
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) || te.Param != "created_at" {
		t.Errorf("gt yesterday: %v", err)
	}
	out, err := tributary.Execute(ctx, r.Connector(), tributary.Request{Entity: "tickets", Action: tributary.ActionSearch, Params: since2000})
	if err != nil || len(out.Search.Hits) != 40 {
		t.Errorf("gte 2000-01-01: %v", err)
	}
	rep, err = r.Sync(ctx, "tickets")
	if err != nil || rep.Entities[0].Mode != replica.Incremental {
		t.Errorf("the next sync: %+v %v", rep, err)
	}
}
