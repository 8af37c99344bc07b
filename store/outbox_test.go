package store_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/store"
)

// dropV5 turns a current PostgreSQL store's tables into version 4's (the
// connect sessions, the copies' last synchronization and the outbox
// removed); with dropV4 after it, into version 3's.
var dropV5 = append(append(dropV9("postgres"), dropV8...), []string{
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

// DeliveredAll marks a batch's successes at once: each delivery its owner
// still holds is delivered with its status (one another deliverer claimed
// since is left to it), the next of each marked chain becomes claimable,
// and the endpoint's failures and back-off are forgotten, so that its
// chains are claimed again. More deliveries than one statement marks are
// marked too.
func TestDeliveredAllMarksABatch(t *testing.T) {
	eachBackend(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		for i := range 2 {
			for _, c := range []string{"c1", "c2", "c3", "c4"} {
				ev := &store.Event{ID: fmt.Sprintf("ev_%s_%d", c, i), Type: "sync.completed", Tenant: "app", Connector: c, Body: []byte(`{}`), Endpoints: []string{"ep_a"}}
				if err := st.AddEvent(ctx, ev); err != nil {
					t.Fatal(err)
				}
			}
		}
		claim := func(owner, ep string) []store.Delivery {
			t.Helper()
			dls, err := st.ClaimDeliveries(ctx, owner, time.Minute, 100, []string{ep})
			if err != nil {
				t.Fatal(err)
			}
			return dls
		}
		first := claim("one", "ep_a")
		if len(first) != 4 {
			t.Fatalf("claimed %d deliveries, want the 4 chains' heads", len(first))
		}
		// c3's head goes to another deliverer; c4's fails, and the
		// endpoint backs off for an hour.
		if err := st.Unclaim(ctx, "one", first[2]); err != nil {
			t.Fatal(err)
		}
		if got := claim("two", "ep_a"); len(got) != 1 || got[0].Event.ID != "ev_c3_0" {
			t.Fatalf("second claim: %+v, want ev_c3_0", got)
		}
		if _, err := st.DeliveryFailed(ctx, first[3], "one", store.Attempt{Status: 503, Message: "down", Retry: time.Hour, RetryFor: 24 * time.Hour,
			EndpointBackoff: func(int) time.Duration { return time.Hour }}); err != nil {
			t.Fatal(err)
		}
		if got := claim("three", "ep_a"); len(got) != 0 {
			t.Fatalf("claimed %d deliveries of an endpoint backing off", len(got))
		}

		if err := st.DeliveredAll(ctx, "one", store.Success{Delivery: first[0], Status: 200}, store.Success{Delivery: first[1], Status: 204},
			store.Success{Delivery: first[2], Status: 204}); err != nil {
			t.Fatal(err)
		}
		for id, want := range map[string]store.DeliveryRecord{
			"ev_c1_0": {State: store.DeliveryDelivered, Attempts: 1, LastStatus: 200},
			"ev_c2_0": {State: store.DeliveryDelivered, Attempts: 1, LastStatus: 204},
			"ev_c3_0": {State: store.DeliveryPending}, // two's now
		} {
			rec, err := st.EventByID(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			got := rec.Deliveries[0]
			if got.State != want.State || got.Attempts != want.Attempts || got.LastStatus != want.LastStatus {
				t.Errorf("%s: %+v, want %+v", id, got, want)
			}
		}
		eps, err := st.Endpoints(ctx, "ep_a")
		if err != nil {
			t.Fatal(err)
		}
		if e := eps[0]; e.Failures != 0 || e.LastStatus != 204 || e.LastError != "" || !e.RetryAt.IsZero() || e.SucceededAt.IsZero() || e.Delivered != 2 {
			t.Errorf("endpoint after the batch: %+v", e)
		}
		// c1's and c2's next (c3's head is two's, c4's waits an hour).
		got := claim("three", "ep_a")
		if len(got) != 2 || got[0].Event.ID != "ev_c1_1" || got[1].Event.ID != "ev_c2_1" {
			t.Fatalf("claimed %+v, want ev_c1_1 and ev_c2_1", got)
		}

		// 70 chains' heads, past one statement's 16 marks and 64 events
		// read.
		for i := range 70 {
			c := fmt.Sprintf("b%02d", i)
			ev := &store.Event{ID: "ev_b_" + c, Type: "sync.completed", Tenant: "app", Connector: c, Body: []byte(`{}`), Endpoints: []string{"ep_b"}}
			if err := st.AddEvent(ctx, ev); err != nil {
				t.Fatal(err)
			}
		}
		batch := claim("four", "ep_b")
		var ok []store.Success
		for _, dl := range batch {
			if dl.Event.ID != "ev_b_"+dl.Event.Connector || string(dl.Event.Body) != `{}` || dl.Event.Type != "sync.completed" {
				t.Errorf("delivery %d: event %+v", dl.ID, dl.Event)
			}
			ok = append(ok, store.Success{Delivery: dl, Status: 204})
		}
		if err := st.DeliveredAll(ctx, "four", ok...); err != nil {
			t.Fatal(err)
		}
		eps, err = st.Endpoints(ctx, "ep_b")
		if err != nil {
			t.Fatal(err)
		}
		if len(batch) != 70 || eps[0].Delivered != 70 || eps[0].Pending != 0 {
			t.Errorf("a batch of %d: endpoint %+v, want 70 delivered", len(batch), eps[0])
		}
	})
}

// DeliveredAndClaim marks a round's successes and claims in one
// transaction: the claim gives the marked chains' next at once (the
// claim sees the marks), not the next of a chain whose head is still
// held; a refused call marks nothing.
func TestDeliveredAndClaimSeesItsMarks(t *testing.T) {
	eachBackend(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		for i := range 2 {
			for _, c := range []string{"c1", "c2", "c3"} {
				ev := &store.Event{ID: fmt.Sprintf("ev_%s_%d", c, i), Type: "sync.completed", Tenant: "app", Connector: c, Body: []byte(`{}`), Endpoints: []string{"ep_a"}}
				if err := st.AddEvent(ctx, ev); err != nil {
					t.Fatal(err)
				}
			}
		}
		heads, err := st.DeliveredAndClaim(ctx, "one", nil, time.Minute, 10, []string{"ep_a"})
		if err != nil || len(heads) != 3 {
			t.Fatalf("first claim: %d deliveries, %v; want the 3 chains' heads", len(heads), err)
		}
		done := []store.Success{{Delivery: heads[0], Status: 204}, {Delivery: heads[1], Status: 200}}
		if _, err := st.DeliveredAndClaim(ctx, "one", done, 0, 10, []string{"ep_a"}); err == nil {
			t.Fatal("a claim without a duration was accepted")
		}
		if rec, _ := st.EventByID(ctx, "ev_c1_0"); rec.Deliveries[0].State != store.DeliveryPending {
			t.Fatalf("a refused call marked ev_c1_0 %s", rec.Deliveries[0].State)
		}
		next, err := st.DeliveredAndClaim(ctx, "one", done, time.Minute, 10, []string{"ep_a"})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, dl := range next {
			got = append(got, dl.Event.ID)
		}
		if !slices.Equal(got, []string{"ev_c1_1", "ev_c2_1"}) {
			t.Fatalf("claimed %q with the marks, want ev_c1_1 and ev_c2_1 (c3's head is held)", got)
		}
		for id, want := range map[string]int{"ev_c1_0": 204, "ev_c2_0": 200} {
			rec, err := st.EventByID(ctx, id)
			if err != nil || rec.Deliveries[0].State != store.DeliveryDelivered || rec.Deliveries[0].LastStatus != want {
				t.Errorf("%s: %+v, %v; want delivered with %d", id, rec, err, want)
			}
		}
		eps, err := st.Endpoints(ctx, "ep_a")
		if err != nil || eps[0].Delivered != 2 || eps[0].Pending != 4 || eps[0].LastStatus != 200 {
			t.Errorf("endpoint: %+v, %v", eps, err)
		}
	})
}

// BenchmarkClaimDeliveriesBacklog claims 64 deliveries (and gives them
// back) from a PostgreSQL outbox with a backlog: connectors (2,000, or
// TRIBUTARY_BENCH_CONNECTORS) with two pending events each for each of ten
// endpoints, one endpoint backing off. A fleet's service claims this way
// about once a second a process, the claims taking turns.
func BenchmarkClaimDeliveriesBacklog(b *testing.B) {
	ctx := context.Background()
	n := 2000
	if s := os.Getenv("TRIBUTARY_BENCH_CONNECTORS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			b.Fatalf("TRIBUTARY_BENCH_CONNECTORS=%q: a positive number", s)
		}
	}
	st, err := store.OpenPostgres(ctx, pgtest.DSN(b))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	var eps []string
	for e := range 10 {
		eps = append(eps, fmt.Sprintf("ep_%d", e))
	}
	for c := range n {
		for i := range 2 {
			ev := &store.Event{ID: fmt.Sprintf("ev_%d_%d", c, i), Type: "sync.completed", Tenant: "app", Connector: fmt.Sprintf("c%05d", c), Body: []byte(`{}`), Endpoints: eps}
			if err := st.AddEvent(ctx, ev); err != nil {
				b.Fatal(err)
			}
		}
	}
	// ep_0 fails and backs off: its backlog waits.
	down, err := st.ClaimDeliveries(ctx, "setup", time.Minute, 1, eps[:1])
	if err != nil || len(down) != 1 {
		b.Fatalf("claim of ep_0: %v, %v", down, err)
	}
	if _, err := st.DeliveryFailed(ctx, down[0], "setup", store.Attempt{Status: 503, Message: "down", Retry: time.Hour, RetryFor: 24 * time.Hour,
		EndpointBackoff: func(int) time.Duration { return time.Hour }}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		dls, err := st.ClaimDeliveries(ctx, "bench", time.Minute, 64, eps)
		if err != nil || len(dls) != 64 {
			b.Fatalf("claimed %d: %v", len(dls), err)
		}
		for _, dl := range dls {
			if dl.Endpoint == "ep_0" {
				b.Fatalf("claimed %s of the endpoint that backs off", dl.Event.ID)
			}
		}
		if err := st.Unclaim(ctx, "bench", dls...); err != nil {
			b.Fatal(err)
		}
	}
}
