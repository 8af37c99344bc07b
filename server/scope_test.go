package server_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/salesforce"
	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
	"github.com/tributary-dev/tributary/server"
)

// A Salesforce connector created through the contract registers the copies
// of its five searchable objects, whose lists need a SOQL query: the sync
// workers fill them with the catalogue's copy scope, and search answers
// from them on any searchable field.
func TestSalesforceCopiesAreRegisteredAndSynced(t *testing.T) {
	t.Parallel()
	sf := salesforcetest.New()
	defer sf.Close()
	st := sqliteStore(t)
	s := start(t, st, nil, func(c *server.Config) {
		c.SyncEvery = time.Hour
		c.ConnectorOptions = map[string][]tributary.Option{salesforce.Type: {tributary.WithBaseURL(sf.URL)}}
	})
	tok := s.token(t, clientA, "")
	id := s.createSalesforce(t, tok)
	want := []string{"accounts", "contacts", "leads", "opportunities", "tasks"}
	ctx := context.Background()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		copies, err := st.Copies(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var registered, synced []string
		for _, c := range copies {
			if c.Connector == id {
				registered = append(registered, c.Entity)
				if !c.SyncedAt.IsZero() {
					synced = append(synced, c.Entity)
				}
			}
		}
		if diff := cmp.Diff(want, registered); diff != "" {
			t.Fatalf("copies registered at creation (-want +got):\n%s", diff)
		}
		if slices.Equal(synced, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the workers synchronized %v of %v", synced, want)
		}
	}
	for _, entity := range want {
		n, err := st.Count(ctx, id, entity)
		if err != nil || n != int64(len(sf.IDs(entity))) {
			t.Errorf("%s: the copy holds %d records (%v), the fake %d", entity, n, err, len(sf.IDs(entity)))
		}
	}
	sf.ResetRequests()
	a := s.execute(t, tok, id, map[string]any{"entity": "contacts", "action": "search",
		"params": map[string]any{"query": map[string]any{"filter": map[string]any{"eq": map[string]any{"MailingCountry": "Germany"}}}, "limit": 1000}})
	res, _ := a.json["result"].(map[string]any)
	hits, _ := res["hits"].([]any)
	if a.status != 200 || len(hits) == 0 {
		t.Fatalf("search: %d %.300s", a.status, a.body)
	}
	for _, h := range hits {
		if d, _ := h.(map[string]any)["data"].(map[string]any); d["MailingCountry"] != "Germany" {
			t.Fatalf("hit %v", h)
		}
	}
	if n := len(sf.Requests()); n != 0 {
		t.Errorf("search asked the source %d times; the copy is in the store", n)
	}
}
