package replica_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/store"
)

// replayFeed applies the changes of a copy after cursor onto m, a page
// of limit at a time, and returns the cursor reached.
func replayFeed(t *testing.T, r *replica.Replica, entity string, cursor int64, limit int, m map[string]string) int64 {
	t.Helper()
	return replayStore(t, r.Store(), r.Connector().Type(), entity, cursor, limit, m)
}

// replayStore is replayFeed on a store's copy of connector's entity.
func replayStore(t *testing.T, st *store.Store, connector, entity string, cursor int64, limit int, m map[string]string) int64 {
	t.Helper()
	ctx := context.Background()
	for {
		page, err := st.Changes(ctx, connector, entity, cursor, limit)
		if err != nil {
			t.Fatalf("%s: changes after %d: %v", entity, cursor, err)
		}
		for _, c := range page.Changes {
			if c.Seq != cursor+1 {
				t.Fatalf("%s: change %d follows %d", entity, c.Seq, cursor)
			}
			cursor = c.Seq
			switch _, held := m[c.ID]; {
			case c.Op == store.OpDelete && held, c.Op == store.OpInsert && !held, c.Op == store.OpUpdate && held && m[c.ID] != string(c.Data):
			default:
				t.Fatalf("%s: change %d (%s of %s) does not follow from the changes before it", entity, c.Seq, c.Op, c.ID)
			}
			if c.Op == store.OpDelete {
				delete(m, c.ID)
			} else {
				m[c.ID] = string(c.Data)
			}
		}
		if !page.More {
			return cursor
		}
	}
}

// feedAgrees checks that replaying a copy's feed from cursor 0 onto an
// empty map gives the copy's live records, byte for byte.
func feedAgrees(t *testing.T, what string, r *replica.Replica, entity string) {
	t.Helper()
	storeFeedAgrees(t, what, r.Store(), r.Connector().Type(), entity)
}

// storeFeedAgrees is feedAgrees on a store's copy.
func storeFeedAgrees(t *testing.T, what string, st *store.Store, connector, entity string) {
	t.Helper()
	got := map[string]string{}
	replayStore(t, st, connector, entity, 0, 337, got)
	want, _ := contents(t, st, connector, entity)
	sameRecords(t, what+" "+entity, got, want)
}

func sameRecords(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: the feed replays to %d records, the copy has %d", what, len(got), len(want))
	}
	for id, raw := range want {
		if got[id] != raw {
			t.Fatalf("%s: record %s replays to %q, the copy has %q", what, id, got[id], raw)
		}
	}
}

// After random creates, updates and deletes at every kind's fake and
// incremental syncs, then a full one, replaying each copy's feed from
// cursor 0 onto an empty map reproduces the copy, and a reader that
// followed the feed sync after sync holds the copy too. Every kind on
// SQLite, and pgCases' on PostgreSQL (every kind under TRIBUTARY_LONG=1).
func TestFeedReplaysEveryKind(t *testing.T) {
	t.Parallel()
	for _, b := range []struct {
		name  string
		db    func(t *testing.T) string
		cases []kindCase
	}{
		{"sqlite", func(t *testing.T) string { return t.TempDir() + "/feed.db" }, kindCases()},
		{"postgres", func(t *testing.T) string { return pgtest.DSN(t) }, pgCases()},
	} {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			for i, kc := range b.cases {
				t.Run(kc.kind, func(t *testing.T) {
					t.Parallel()
					feedOfKind(t, kc, b.db(t), uint64(i))
				})
			}
		})
	}
}

// feedOfKind is TestFeedReplaysEveryKind for kc, on its own database.
func feedOfKind(t *testing.T, kc kindCase, db string, seed uint64) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(29, seed))
	fake, url := kc.start()
	defer fake.Close()
	conn := openKind(t, kc, url)
	var opts []replica.Option
	if kc.params != nil {
		for e, p := range kc.params(t, conn) {
			opts = append(opts, replica.WithParams(e, p))
		}
	}
	r, err := replica.Open(ctx, conn, backendOf(db), opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	followers, cursors := map[string]map[string]string{}, map[string]int64{}
	for _, e := range kc.entities {
		followers[e] = map[string]string{}
	}
	gone := map[string]map[string]bool{}
	for round := range 4 {
		if round > 0 {
			mutate(t, rng, fake, kc.entities, gone)
		}
		if _, err := r.Sync(ctx, kc.entities...); err != nil {
			t.Fatalf("%s round %d: %v", kc.kind, round, err)
		}
		for _, e := range kc.entities {
			feedAgrees(t, kc.kind, r, e)
			cursors[e] = replayFeed(t, r, e, cursors[e], 1+rng.IntN(40), followers[e])
			want, _ := contents(t, r.Store(), kc.kind, e)
			sameRecords(t, kc.kind+" follower "+e, followers[e], want)
		}
	}
	// A full walk (reconciling) of every copy: its changes are the
	// difference against the copy it replaces.
	mutate(t, rng, fake, kc.entities, gone)
	full, err := replica.Open(ctx, conn, backendOf(db), append(opts, replica.WithReconcile(1))...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := full.Sync(ctx, kc.entities...); err != nil {
		t.Fatalf("%s full: %v", kc.kind, err)
	}
	for _, e := range kc.entities {
		feedAgrees(t, kc.kind+" after a full walk", full, e)
		cursors[e] = replayFeed(t, full, e, cursors[e], 1+rng.IntN(40), followers[e])
		want, _ := contents(t, full.Store(), kc.kind, e)
		sameRecords(t, kc.kind+" follower after a full walk "+e, followers[e], want)
	}
	full.Close()
}

// A replica's feed honours the store's retention: a cursor behind it
// fails with store.ErrCursorExpired; a replica in memory has no feed.
func TestFeedRetentionReplica(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	kc := kindCaseOf("zendesk-support") // its tickets
	fake, url := kc.start()
	defer fake.Close()
	conn := openKind(t, kc, url)
	st, err := store.OpenSQLite(ctx, t.TempDir()+"/r.db")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	st.SetRetention(store.Retention{MaxChanges: 3})
	r, err := replica.Open(ctx, conn, replica.Store(st))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Sync(ctx, "tickets"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Changes(ctx, "tickets", 0, 10); !errors.Is(err, store.ErrCursorExpired) {
		t.Fatalf("cursor 0 behind the retention: %v", err)
	}
	cur, err := r.ChangeCursor(ctx, "tickets")
	if err != nil || cur < 4 {
		t.Fatalf("the cursor: %d %v", cur, err)
	}
	if page, err := r.Changes(ctx, "tickets", cur-3, 10); err != nil || len(page.Changes) != 3 {
		t.Fatalf("the last three changes: %+v %v", page, err)
	}
	if _, err := replica.New(conn).Changes(ctx, "tickets", 0, 10); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("a replica in memory: %v", err)
	}
}
