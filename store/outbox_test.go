package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/store"
)

// dropV5 turns a current PostgreSQL store's tables into version 4's (the
// connect sessions, the copies' last synchronization and the outbox
// removed); with dropV4 after it, into version 3's.
var dropV5 = append(slices.Clone(dropV8), []string{
	dropV7Index,
	dropV7,
	dropV6,
	"DROP TABLE tributary_events",
	"DROP TABLE tributary_deliveries",
	"DROP TABLE tributary_webhook_endpoints",
}...)

// A claim gives out the head of each chain (an endpoint's and a
// connector's oldest pending delivery) and nothing behind it: not the
// next of a chain whose head another claim holds, the next of one whose
// head was delivered or given up, and an endpoint's chains apart from
// another's.
func TestClaimDeliveriesGivesChainHeads(t *testing.T) {
	eachBackend(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		// ev_<connector>_<i>: five events of each connector, c3's to
		// ep_a only.
		for i := range 5 {
			for _, c := range []string{"c1", "c2", "c3"} {
				eps := []string{"ep_a", "ep_b"}
				if c == "c3" {
					eps = eps[:1]
				}
				ev := &store.Event{ID: fmt.Sprintf("ev_%s_%d", c, i), Type: "sync.completed", Tenant: "app", Connector: c, Body: []byte(`{}`), Endpoints: eps}
				if err := st.AddEvent(ctx, ev); err != nil {
					t.Fatal(err)
				}
			}
		}
		claim := func(owner string, eps ...string) []store.Delivery {
			t.Helper()
			dls, err := st.ClaimDeliveries(ctx, owner, time.Minute, 100, eps)
			if err != nil {
				t.Fatal(err)
			}
			return dls
		}
		names := func(dls []store.Delivery) []string {
			var out []string
			for _, dl := range dls {
				out = append(out, dl.Endpoint+"/"+dl.Event.ID)
			}
			return out
		}
		want := func(got []store.Delivery, want ...string) {
			t.Helper()
			if g := names(got); !slices.Equal(g, want) {
				t.Fatalf("claimed %q, want %q", g, want)
			}
		}

		first := claim("one", "ep_a")
		want(first, "ep_a/ev_c1_0", "ep_a/ev_c2_0", "ep_a/ev_c3_0")
		want(claim("two", "ep_a")) // every chain's head is held
		if err := st.Delivered(ctx, first[0], "one", 204); err != nil {
			t.Fatal(err)
		}
		if state, err := st.DeliveryFailed(ctx, first[1], "one", store.Attempt{Status: 500, Message: "no", RetryFor: time.Nanosecond}); err != nil || state != store.DeliveryFailed {
			t.Fatalf("DeliveryFailed = %q, %v; want failed", state, err)
		}
		// c1's next (its head delivered), c2's next (its head given up);
		// c3's head is still held. ep_b's chains are its own.
		want(claim("two", "ep_a", "ep_b"), "ep_b/ev_c1_0", "ep_b/ev_c2_0", "ep_a/ev_c1_1", "ep_a/ev_c2_1")
		if err := st.Unclaim(ctx, "one", first[2]); err != nil {
			t.Fatal(err)
		}
		want(claim("three", "ep_a", "ep_b"), "ep_a/ev_c3_0")
	})
}
