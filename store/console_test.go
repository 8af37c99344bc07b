package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/tributary-dev/tributary/store"
)

// ConnectorPage pages through the connectors in creation order with
// their copies summed up, filtered by tenant, external user and failing
// copies; Tenants lists the tenants; SealedKeys counts the connectors by
// key; ConnectorEvents and Deliveries read the outbox newest first.
func TestConsoleReads(t *testing.T) {
	backends(t, func(t *testing.T, open func() *store.Store) {
		ctx := context.Background()
		st := open()
		if ts, err := st.Tenants(ctx); err != nil || len(ts) != 0 {
			t.Fatalf("Tenants of an empty store = %q, %v; want none", ts, err)
		}
		var ids []string
		for i := range 7 {
			c := store.Connector{ID: fmt.Sprintf("c%d", i), Tenant: []string{"t-a", "t-b"}[i%2], ExternalUserID: fmt.Sprintf("u%d", i%3), Kind: "zendesk-support",
				Sealed: []byte{byte('a' + i%2)}}
			if _, err := st.CreateConnector(ctx, c); err != nil {
				t.Fatal(err)
			}
			if err := st.Register(ctx, c.ID, "tickets", "users"); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, c.ID)
		}
		if _, err := st.RecordFailure(ctx, "c3", "users", store.FailureTransient, "boom", nil); err != nil {
			t.Fatal(err)
		}
		page := func(q store.ConnectorQuery) []store.ConnectorSummary {
			t.Helper()
			out, err := st.ConnectorSummaries(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		idsOf := func(cs []store.ConnectorSummary) []string {
			var out []string
			for _, c := range cs {
				out = append(out, c.ID)
			}
			return out
		}
		first := page(store.ConnectorQuery{Limit: 3})
		if got := idsOf(first); !slices.Equal(got, ids[:3]) {
			t.Fatalf("first page %v", got)
		}
		if c := first[0]; c.Copies != 2 || c.Failing != 0 || !c.LastSynced.IsZero() || c.Tenant != "t-a" || string(c.Sealed) != "a" {
			t.Errorf("first connector summed up as %+v", c)
		}
		if got := idsOf(page(store.ConnectorQuery{Limit: 3, After: first[2].Seq})); !slices.Equal(got, ids[3:6]) {
			t.Errorf("second page %v", got)
		}
		if got := idsOf(page(store.ConnectorQuery{Tenant: "t-b"})); !slices.Equal(got, []string{"c1", "c3", "c5"}) {
			t.Errorf("tenant t-b: %v", got)
		}
		if got := idsOf(page(store.ConnectorQuery{Tenant: "t-a", ExternalUserID: "u0"})); !slices.Equal(got, []string{"c0", "c6"}) {
			t.Errorf("tenant t-a, user u0: %v", got)
		}
		failing := page(store.ConnectorQuery{Health: store.Failing})
		if got := idsOf(failing); !slices.Equal(got, []string{"c3"}) || failing[0].Failing != 1 {
			t.Errorf("failing: %+v", failing)
		}
		if got := page(store.ConnectorQuery{Tenant: "nobody"}); len(got) != 0 {
			t.Errorf("an unknown tenant: %v", got)
		}
		if ts, err := st.Tenants(ctx); err != nil || !slices.Equal(ts, []string{"t-a", "t-b"}) {
			t.Errorf("tenants %v (%v)", ts, err)
		}
		keys, err := st.SealedKeys(ctx, func(b []byte) string { return string(b) })
		if err != nil || keys["a"] != 4 || keys["b"] != 3 {
			t.Errorf("sealed keys %v (%v)", keys, err)
		}
		for i := range 3 {
			ev := &store.Event{ID: fmt.Sprintf("ev%d", i), Type: "sync.completed", Tenant: "t-a", Connector: "c0", Body: []byte(`{}`), Endpoints: []string{"ep"}}
			if err := st.AddEvent(ctx, ev); err != nil {
				t.Fatal(err)
			}
		}
		evs, err := st.ConnectorEvents(ctx, "c0", "sync.completed", 2)
		if err != nil || len(evs) != 2 || evs[0].ID != "ev2" || evs[1].ID != "ev1" {
			t.Errorf("events %+v (%v)", evs, err)
		}
		dls, err := st.Deliveries(ctx, "ep", store.DeliveryPending, 0)
		if err != nil || len(dls) != 3 || dls[0].EventID != "ev2" || dls[0].EventType != "sync.completed" || dls[0].Connector != "c0" {
			t.Errorf("deliveries %+v (%v)", dls, err)
		}
		if dls, err := st.Deliveries(ctx, "ep", store.DeliveryFailed, 0); err != nil || len(dls) != 0 {
			t.Errorf("failed deliveries %+v (%v)", dls, err)
		}
	})
}
