package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/store"
)

// Claims on one copy: exclusive while current, taken over once expired,
// and a load made under a lost claim neither writes nor commits.
func TestClaimsFenceLoads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.OpenSQLite(ctx, t.TempDir()+"/lease.db")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	spec := crashSpec()
	a, err := st.Claim(ctx, spec.Connector, spec.Entity, "a", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Claim(ctx, spec.Connector, spec.Entity, "b", time.Minute); !errors.Is(err, store.ErrLeaseHeld) {
		t.Fatalf("a second claim while the first holds: %v", err)
	}
	if c, err := st.ClaimNext(ctx, "b", time.Minute, 0); c != nil || err != nil {
		t.Fatalf("ClaimNext with every copy held: %v %v", c, err)
	}
	l, err := st.BeginFull(ctx, spec, store.Fenced(a))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Write(ctx, crashGen(1)[:10], nil); err != nil {
		t.Fatal(err)
	}
	// a's claim lapses (it stops renewing) and b takes the copy over.
	if err := a.Renew(ctx, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	b, err := st.ClaimNext(ctx, "b", time.Minute, 0)
	if err != nil || b == nil || b.Entity != spec.Entity || b.Token <= a.Token {
		t.Fatalf("takeover: %+v %v", b, err)
	}
	if err := l.Write(ctx, crashGen(1)[10:20], nil); !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("a write under the lost claim: %v", err)
	}
	if err := l.Commit(ctx); !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("a commit under the lost claim: %v", err)
	}
	if err := a.Renew(ctx, time.Minute); !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("renewing the lost claim: %v", err)
	}
	if _, err := st.Search(ctx, spec.Connector, spec.Entity, reqAll()); !errors.Is(err, store.ErrNotSynced) {
		t.Fatalf("the lost load became visible: %v", err)
	}
	// b's load commits.
	lb, err := st.BeginFull(ctx, spec, store.Fenced(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := lb.Write(ctx, crashGen(2), nil); err != nil {
		t.Fatal(err)
	}
	if err := lb.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if g, ok := checkWhole(t, st, -1); !ok || g != 2 {
		t.Fatalf("live generation %d", g)
	}
	if err := b.Release(ctx); err != nil {
		t.Fatal(err)
	}
	// Released and just synchronized: not due within an hour, due now.
	if c, err := st.ClaimNext(ctx, "c", time.Minute, time.Hour); c != nil || err != nil {
		t.Fatalf("a fresh copy claimed: %+v %v", c, err)
	}
	if c, err := st.ClaimNext(ctx, "c", time.Minute, 0); c == nil || err != nil {
		t.Fatalf("a released copy not claimed: %v", err)
	}
	if _, err := st.Claim(ctx, "", "x", "c", time.Minute); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("a claim without a connector: %v", err)
	}
}

// Copies reports registration, claims and synchronization without reading
// any copy.
func TestCopies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.OpenSQLite(ctx, t.TempDir()+"/copies.db")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Register(ctx, "c1", "tickets", "users"); err != nil {
		t.Fatal(err)
	}
	c, err := st.Claim(ctx, "c1", "users", "w1", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.Copies(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Entity != "tickets" || got[0].Owner != "" || !got[0].SyncedAt.IsZero() ||
		got[1].Entity != "users" || got[1].Owner != "w1" || got[1].Expires.Before(time.Now()) {
		t.Fatalf("Copies: %+v", got)
	}
	if err := c.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.Copies(ctx); got[1].Owner != "" {
		t.Errorf("after Release: %+v", got[1])
	}
}

// New credentials revoke the claims on the connector's copies: the load
// in flight can neither write nor commit, its failure is not recorded
// (it failed with the old credentials, and the update reset the copy's
// failures), and the copy is claimed again at once.
func TestUpdateConnectorRevokesClaims(t *testing.T) {
	t.Parallel()
	backends(t, func(t *testing.T, open func() *store.Store) {
		ctx := context.Background()
		st := open()
		spec := crashSpec()
		if _, err := st.CreateConnector(ctx, store.Connector{ID: spec.Connector, Tenant: "t", Kind: "zendesk-support", Sealed: []byte("old")}); err != nil {
			t.Fatal(err)
		}
		a, err := st.Claim(ctx, spec.Connector, spec.Entity, "a", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		l, err := st.BeginFull(ctx, spec, store.Fenced(a))
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Write(ctx, crashGen(1)[:10], nil); err != nil {
			t.Fatal(err)
		}
		// A rename changes nothing a sync reads: the claim stands.
		name := "renamed"
		if _, _, err := st.UpdateConnector(ctx, spec.Connector, store.ConnectorChange{Name: &name}); err != nil {
			t.Fatal(err)
		}
		if err := a.Renew(ctx, time.Minute); err != nil {
			t.Fatalf("the claim after a rename: %v", err)
		}
		if _, _, err := st.UpdateConnector(ctx, spec.Connector, store.ConnectorChange{Sealed: []byte("new")}); err != nil {
			t.Fatal(err)
		}
		if err := l.Write(ctx, crashGen(1)[10:20], nil); !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("a write under the revoked claim: %v", err)
		}
		if err := l.Commit(ctx); !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("a commit under the revoked claim: %v", err)
		}
		if _, err := a.RecordFailure(ctx, store.FailureAuth, "the vendor answered 401", nil); !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("recording the failure under the revoked claim: %v", err)
		}
		if f, err := st.CopyFailure(ctx, spec.Connector, spec.Entity); err != nil || f != nil {
			t.Fatalf("the copy's failure: %+v %v", f, err)
		}
		b, err := st.ClaimNext(ctx, "b", time.Minute, 0)
		if err != nil || b == nil || b.Entity != spec.Entity || b.Token <= a.Token {
			t.Fatalf("the copy is not claimed again at once: %+v %v", b, err)
		}
		// Under a current claim the failure is recorded.
		if f, err := b.RecordFailure(ctx, store.FailureTransient, "the vendor answered 503", nil); err != nil || f.Class != store.FailureTransient {
			t.Fatalf("recording under the current claim: %+v %v", f, err)
		}
	})
}
