package sandbox_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/sandbox"
)

func TestParseRate(t *testing.T) {
	for in, want := range map[string]time.Duration{"10/min": 6 * time.Second, "2/s": 500 * time.Millisecond, " 1 / h ": time.Hour,
		"120/minute": 500 * time.Millisecond, "0/min": 0} {
		if got, err := sandbox.ParseRate(in); err != nil || got != want {
			t.Errorf("%q: %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "10", "10/day", "-1/min", "1.5/s", "1001/s", "ten/min"} {
		if _, err := sandbox.ParseRate(in); !errors.Is(err, sandbox.ErrRate) {
			t.Errorf("%q: %v, want ErrRate", in, err)
		}
	}
}

// The same seed makes the same changes in the same order: each entity in
// turn, four changes each (update, insert, update, delete), each at a
// later time on the fake's clock; Entities limits them.
func TestChangesAreDeterministic(t *testing.T) {
	run := func(seed uint64) []sandbox.Change {
		sb := sandbox.New(sandbox.WithChanges(sandbox.Changes{Seed: seed, Entities: map[string][]string{"hubspot": {"contacts", "deals", "nope"}}}))
		defer sb.Close()
		var out []sandbox.Change
		for range 10 {
			c, err := sb.Change("hubspot")
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, c)
		}
		return out
	}
	a, b, other := run(1), run(1), run(2)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("change %d: %v, then %v with the same seed", i, a[i], b[i])
		}
	}
	if slices.Equal(a, other) {
		t.Error("another seed made the same changes")
	}
	wantOps := []string{"update", "insert", "update", "delete", "update", "insert", "update", "delete", "update", "insert"}
	wantEnts := []string{"contacts", "contacts", "contacts", "contacts", "deals", "deals", "deals", "deals", "contacts", "contacts"}
	for i, c := range a {
		if c.Kind != "hubspot" || c.Op != wantOps[i] || c.Entity != wantEnts[i] || c.ID == "" || i > 0 && !c.At.After(a[i-1].At) {
			t.Errorf("change %d: %+v, want %s of %s, later than the one before", i, c, wantOps[i], wantEnts[i])
		}
	}
	sb := sandbox.New(sandbox.WithChanges(sandbox.Changes{Entities: map[string][]string{"hubspot": {"owners"}}}))
	defer sb.Close()
	if _, err := sb.Change("hubspot"); !errors.Is(err, sandbox.ErrNoChanges) {
		t.Errorf("an entity the fake does not change: %v", err)
	}
}

// The changes are what an incremental sync reads, deletions included, and
// what the copy's change feed then reports, for a kind whose feed reports
// deletions (HubSpot: archived; Salesforce: queryAll).
func TestChangesReachTheChangeFeed(t *testing.T) {
	for kind, entity := range map[string]string{"hubspot": "contacts", "salesforce": "accounts"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			sb := sandbox.New(sandbox.WithChanges(sandbox.Changes{Entities: map[string][]string{kind: {entity}}}))
			defer sb.Close()
			conn, err := sb.Open(kind)
			if err != nil {
				t.Fatal(err)
			}
			r, err := replica.Open(ctx, conn, replica.SQLite(filepath.Join(t.TempDir(), "copy.db")))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if _, err := r.Sync(ctx, entity); err != nil {
				t.Fatal(err)
			}
			cursor, err := r.ChangeCursor(ctx, entity)
			if err != nil {
				t.Fatal(err)
			}
			var made []sandbox.Change
			for range 4 {
				c, err := sb.Change(kind)
				if err != nil {
					t.Fatal(err)
				}
				made = append(made, c)
			}
			rep, err := r.Sync(ctx, entity)
			if err != nil {
				t.Fatal(err)
			}
			if m := rep.Entities[0].Mode; m != replica.Incremental {
				t.Errorf("the second sync was %s", m)
			}
			page, err := r.Changes(ctx, entity, cursor, 100)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, c := range page.Changes {
				got[c.ID] = string(c.Op)
			}
			// The last change of a record is the one the feed keeps.
			want := map[string]string{}
			for _, c := range made {
				want[c.ID] = c.Op
			}
			if len(got) != len(want) {
				t.Errorf("the feed after the sync: %v; the sandbox made %+v", got, made)
			}
			for id, op := range want {
				if got[id] != op {
					t.Errorf("%s %s: the feed says %q, the sandbox made a %s (%+v)", entity, id, got[id], op, made)
				}
			}
		})
	}
}

// With Every, the running fakes change on their own, and Log hears each
// change; Close stops them.
func TestChangesOnASchedule(t *testing.T) {
	var mu sync.Mutex
	var heard []sandbox.Change
	sb := sandbox.New(sandbox.WithChanges(sandbox.Changes{Every: 5 * time.Millisecond, Log: func(c sandbox.Change) {
		mu.Lock()
		heard = append(heard, c)
		mu.Unlock()
	}}))
	if _, err := sb.Open("zendesk-support"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		mu.Lock()
		n := len(heard)
		mu.Unlock()
		if n >= 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d changes in 10 s", n)
		}
	}
	sb.Close()
	mu.Lock()
	defer mu.Unlock()
	if heard[0].Kind != "zendesk-support" || heard[0].Op != "update" || heard[1].Op != "insert" || heard[3].Op != "delete" {
		t.Errorf("heard %+v", heard[:4])
	}
}
