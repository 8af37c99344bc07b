package store_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/store"
)

// One connector, one sync at a time: while a copy of a connector is
// claimed, no other copy of it is (by ClaimNext or Claim), other
// connectors' copies are, and a lapsed claim is not revived once another
// copy of its connector has been claimed.
func TestOneClaimPerConnector(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, open func() *store.Store) {
		ctx := context.Background()
		st := open()
		if err := st.Register(ctx, "a", "e1", "e2", "e3"); err != nil {
			t.Fatal(err)
		}
		if err := st.Register(ctx, "b", "e1"); err != nil {
			t.Fatal(err)
		}
		a1, err := st.Claim(ctx, "a", "e1", "w1", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Claim(ctx, "a", "e2", "w2", time.Minute); !errors.Is(err, store.ErrLeaseHeld) {
			t.Fatalf("a claim of another copy of a claimed connector: %v", err)
		}
		b1, err := st.ClaimNext(ctx, "w2", time.Minute, 0)
		if err != nil || b1 == nil || b1.Connector != "b" {
			t.Fatalf("ClaimNext with a's copy claimed: %+v %v, want b's copy", b1, err)
		}
		if c, err := st.ClaimNext(ctx, "w3", time.Minute, 0); c != nil || err != nil {
			t.Fatalf("ClaimNext with both connectors busy: %+v %v", c, err)
		}
		// a1 renewed while live keeps the connector; released, it frees it.
		if err := a1.Renew(ctx, time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := a1.Release(ctx); err != nil {
			t.Fatal(err)
		}
		a2, err := st.ClaimNext(ctx, "w3", time.Minute, 0)
		if err != nil || a2 == nil || a2.Connector != "a" {
			t.Fatalf("ClaimNext once a's claim was released: %+v %v", a2, err)
		}
		// a2 lapses; another copy of a is claimed; a2 cannot come back.
		if err := a2.Renew(ctx, time.Millisecond); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
		other := "e1"
		if a2.Entity == other {
			other = "e2"
		}
		a3, err := st.Claim(ctx, "a", other, "w4", time.Minute)
		if err != nil {
			t.Fatalf("a claim once the connector's only claim lapsed: %v", err)
		}
		if err := a2.Renew(ctx, time.Minute); !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("reviving a lapsed claim while another copy of its connector is claimed: %v", err)
		}
		// A lapsed claim no one replaced is renewed, as before.
		if err := b1.Renew(ctx, time.Millisecond); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
		if err := b1.Renew(ctx, time.Minute); err != nil {
			t.Fatalf("renewing a lapsed claim no one replaced: %v", err)
		}
		_ = a3.Release(ctx)
		_ = b1.Release(ctx)
	})
}

// Many workers, on several connection pools (as several processes would
// be), claim and release copies as fast as they can: never two copies of
// one connector at once, and copies of different connectors do go at
// once.
func TestClaimsSerializeConnectorsUnderRace(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, open func() *store.Store) {
		ctx := context.Background()
		const connectors, entities, pools, perPool = 3, 5, 4, 4
		stores := []*store.Store{open()}
		for len(stores) < pools {
			stores = append(stores, open())
		}
		for c := range connectors {
			var names []string
			for e := range entities {
				names = append(names, fmt.Sprintf("e%d", e))
			}
			if err := stores[0].Register(ctx, fmt.Sprintf("c%d", c), names...); err != nil {
				t.Fatal(err)
			}
		}
		var (
			mu         sync.Mutex
			held       = map[string]string{} // connector → owner
			claims     int
			overlaps   []string
			mostAtOnce int
		)
		// The workers go on for at least two seconds and until they have
		// raced enough to prove something (50 claims, two connectors held
		// at once), bounded by a minute: a loaded machine under -race gets
		// through far fewer claims a second than an idle one.
		start := time.Now()
		enough := func() bool {
			mu.Lock()
			defer mu.Unlock()
			since := time.Since(start)
			return since > time.Minute || since > 2*time.Second && claims >= 50 && mostAtOnce >= 2
		}
		var wg sync.WaitGroup
		for p, st := range stores {
			for w := range perPool {
				owner := fmt.Sprintf("p%d-w%d", p, w)
				wg.Go(func() {
					for i := 0; !enough(); i++ {
						var c *store.Claim
						var err error
						if i%5 == 4 { // now and then an explicit claim
							c, err = st.Claim(ctx, fmt.Sprintf("c%d", i%connectors), fmt.Sprintf("e%d", i%entities), owner, time.Minute)
							if errors.Is(err, store.ErrLeaseHeld) {
								c, err = nil, nil
							}
						} else {
							c, err = st.ClaimNext(ctx, owner, time.Minute, 0)
						}
						if err != nil {
							t.Errorf("%s: %v", owner, err)
							return
						}
						if c == nil {
							time.Sleep(time.Millisecond)
							continue
						}
						mu.Lock()
						if h, ok := held[c.Connector]; ok {
							overlaps = append(overlaps, fmt.Sprintf("%s: %s and %s", c.Connector, h, owner))
						}
						held[c.Connector] = owner
						claims++
						mostAtOnce = max(mostAtOnce, len(held))
						mu.Unlock()
						time.Sleep(2 * time.Millisecond)
						mu.Lock()
						delete(held, c.Connector)
						mu.Unlock()
						if err := c.Release(ctx); err != nil {
							t.Errorf("%s: %v", owner, err)
							return
						}
					}
				})
			}
		}
		wg.Wait()
		t.Logf("%d claims by %d workers; at most %d connectors at once", claims, pools*perPool, mostAtOnce)
		if len(overlaps) > 0 {
			t.Fatalf("%d times two copies of one connector were claimed at once, first %s", len(overlaps), overlaps[0])
		}
		if claims < 50 || mostAtOnce < 2 {
			t.Errorf("%d claims, at most %d connectors at once: the test did not race", claims, mostAtOnce)
		}
	})
}

// ClaimDue claims up to n due copies in one transaction, each of a
// different connector, most overdue first, passing over connectors that
// have a copy claimed; and it finds them by the due index, not a scan.
func TestClaimDue(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, open func() *store.Store) {
		ctx := context.Background()
		st := open()
		for _, c := range []string{"a", "b", "c", "d"} {
			if err := st.Register(ctx, c, "e1", "e2"); err != nil {
				t.Fatal(err)
			}
		}
		held, err := st.Claim(ctx, "b", "e2", "other", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := st.ClaimDue(ctx, "w", time.Minute, 0, 2)
		if err != nil {
			t.Fatal(err)
		}
		got := claimKeys(cs)
		if want := []string{"a/e1", "c/e1"}; !slices.Equal(got, want) {
			t.Fatalf("ClaimDue(2) = %v, want %v (b has a copy claimed; one copy a connector)", got, want)
		}
		// Synchronized copies come after every copy never synchronized,
		// the longest ago first.
		syncedAt(t, st, cs[0]) // a/e1 synchronized now
		for _, c := range cs {
			_ = c.Release(ctx)
		}
		_ = held.Release(ctx)
		cs, err = st.ClaimDue(ctx, "w", time.Minute, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := claimKeys(cs), []string{"a/e2", "b/e1", "c/e1", "d/e1"}; !slices.Equal(got, want) {
			t.Fatalf("ClaimDue(10) = %v, want %v", got, want)
		}
		for _, c := range cs {
			_ = c.Release(ctx)
		}
		// Fresh: a copy synchronized within fresh is not due.
		cs, err = st.ClaimDue(ctx, "w", time.Minute, time.Hour, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			if c.Connector == "a" && c.Entity == "e1" {
				t.Fatalf("ClaimDue gave a copy synchronized within fresh: %v", claimKeys(cs))
			}
			_ = c.Release(ctx)
		}
		if _, err := st.ClaimDue(ctx, "w", time.Minute, 0, 0); !errors.Is(err, store.ErrInvalid) {
			t.Fatalf("ClaimDue(0): %v", err)
		}
		plan, err := store.ExplainDue(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan, "tributary_entities_due") || !strings.Contains(plan, "Index Cond: (COALESCE(synced_at") && !strings.Contains(plan, "tributary_entities_due (<expr><?)") {
			t.Fatalf("the search for due copies is not bounded by the due index:\n%s", plan)
		}
		t.Logf("plan:\n%s", plan)
	})
}

func claimKeys(cs []*store.Claim) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Connector+"/"+c.Entity)
	}
	return out
}

// syncedAt records a full synchronization of c's copy, under c.
func syncedAt(t *testing.T, st *store.Store, c *store.Claim) {
	t.Helper()
	ctx := context.Background()
	l, err := st.BeginFull(ctx, store.Spec{Connector: c.Connector, Entity: c.Entity, Schema: workerSchema, IDField: "id"}, store.Fenced(c))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// CopiesFreshness counts the copies by staleness in one statement: never
// synchronized, due, overdue, failing, and the histogram's buckets.
func TestCopiesFreshness(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, open func() *store.Store) {
		ctx := context.Background()
		st := open()
		if err := st.Register(ctx, "a", "never", "now", "old", "older"); err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		for e, ago := range map[string]time.Duration{"now": 0, "old": 90 * time.Minute, "older": 3 * time.Hour} {
			if err := store.SetSyncedAt(ctx, st, "a", e, now.Add(-ago).UnixMilli()); err != nil {
				t.Fatal(err)
			}
		}
		c, err := st.Claim(ctx, "a", "older", "w", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.RecordFailure(ctx, store.FailureTransient, "boom", func(int) time.Duration { return time.Minute }); err != nil {
			t.Fatal(err)
		}
		f, err := st.CopiesFreshness(ctx, time.Hour, []time.Duration{time.Minute, 2 * time.Hour, 4 * time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		want := store.Freshness{Copies: 4, Never: 1, Failing: 1, Due: 2, Overdue: 1, Buckets: []int64{1, 2, 3}}
		got := *f
		got.SumSeconds = 0
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("CopiesFreshness = %+v, want %+v", got, want)
		}
		if s := f.SumSeconds; s < 4.5*3600-60 || s > 4.5*3600+60 {
			t.Fatalf("staleness summed: %v s, want about 4.5 h", s)
		}
	})
}

// Fairness: a tenant of 5,000 connectors does not starve one of 5 whose
// connectors came last (and sort last): claims serve the copies by
// staleness, so every copy is claimed once before any is claimed twice,
// round after round, however the copies are shared among tenants.
func TestClaimsServeEveryCopyOnceARound(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.OpenSQLite(ctx, t.TempDir()+"/fair.db")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var big, small []string
	for i := range 5000 {
		big = append(big, fmt.Sprintf("big-%04d", i))
	}
	for i := range 5 {
		small = append(small, fmt.Sprintf("zz-small-%d", i))
	}
	if err := store.RegisterMany(ctx, st, "e", append(big, small...)); err != nil {
		t.Fatal(err)
	}
	total := len(big) + len(small)
	var seq []string // the copies in the order claimed
	for len(seq) < 2*total {
		// 35 a batch: 5,005 copies are 143 batches, so that no batch holds
		// the end of a round and the start of the next (copies synced in
		// one batch are equally stale, and go by name).
		cs, err := st.ClaimDue(ctx, "w", time.Minute, 0, 35)
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) != 35 {
			t.Fatalf("%d copies claimed after %d claims, want 35", len(cs), len(seq))
		}
		for _, c := range cs {
			seq = append(seq, c.Connector)
		}
		if err := store.SyncedNow(ctx, st, cs); err != nil {
			t.Fatal(err)
		}
	}
	for round := range 2 {
		once := map[string]bool{}
		for _, c := range seq[round*total : (round+1)*total] {
			if once[c] {
				first := slices.Index(seq[round*total:], c)
				t.Fatalf("round %d: %s claimed twice (claims %d and %d of the round, round 0 at %d) before every copy was claimed once", round, c, first, slices.Index(seq[round*total+first+1:], c)+first+1, slices.Index(seq, c))
			}
			once[c] = true
		}
	}
}
