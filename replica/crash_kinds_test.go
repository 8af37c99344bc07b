package replica_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/replica"
)

// The same kill test for every kind: the child syncs one kind's entities
// (all its fakes run in the parent, which changes their records between
// kills), trials going round the kinds. Every copy lives in one store,
// under its kind's name.

const crashEnvKind = "TRIBUTARY_CRASH_KIND"

// TestSyncCrashKindChild is the child: it syncs one kind until killed.
func TestSyncCrashKindChild(t *testing.T) {
	kind, url, db := os.Getenv(crashEnvKind), os.Getenv(crashEnvURL), os.Getenv(crashEnvDB)
	if kind == "" {
		t.Skip("the child of TestKilledSyncEveryKind")
	}
	i := slices.IndexFunc(kindCases(), func(kc kindCase) bool { return kc.kind == kind })
	if i < 0 {
		os.Exit(3)
	}
	kc := kindCases()[i]
	conn := openKind(t, kc, url)
	r, err := replica.Open(context.Background(), conn, backendOf(db), kindOptions(t, kc, conn)...)
	if err != nil {
		os.Exit(4)
	}
	for {
		if _, err := r.Sync(context.Background(), kc.entities...); err != nil {
			os.Exit(5)
		}
	}
}

// kindOptions are the replica options of a kind's case: its params.
func kindOptions(t *testing.T, kc kindCase, conn tributary.Connector) []replica.Option {
	opts := []replica.Option{replica.WithReconcile(time.Nanosecond)}
	if kc.params != nil {
		for e, p := range kc.params(t, conn) {
			opts = append(opts, replica.WithParams(e, p))
		}
	}
	return opts
}

func TestKilledSyncEveryKind(t *testing.T) {
	t.Parallel()
	killEveryKind(t, t.TempDir()+"/kinds.db", pgCases(), crashTrials(len(pgCases())))
}

func TestKilledSyncEveryKindPostgres(t *testing.T) {
	t.Parallel()
	killEveryKind(t, pgtest.DSN(t), pgCases(), crashTrials(3))
}

func killEveryKind(t *testing.T, db string, cases []kindCase, trials int) {
	ctx := context.Background()
	type running struct {
		kc    kindCase
		fake  mutableFake
		url   string
		gone  map[string]map[string]bool
		since map[string]time.Time // by entity: the checkpoint seen last
	}
	var all []*running
	for _, kc := range cases {
		fake, url := kc.start()
		defer fake.Close()
		all = append(all, &running{kc: kc, fake: fake, url: url, gone: map[string]map[string]bool{}, since: map[string]time.Time{}})
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range trials {
		k := all[trial%len(all)]
		mutate(t, rng, k.fake, k.kc.entities, k.gone)
		cmd := exec.Command(os.Args[0], "-test.run=^TestSyncCrashKindChild$")
		cmd.Env = append(os.Environ(), crashEnvKind+"="+k.kc.kind, crashEnvURL+"="+k.url, crashEnvDB+"="+db)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(20+rng.IntN(300)) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		err := cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("trial %d (%s): the child ended on its own: %v", trial, k.kc.kind, err)
		}
		st, err := openStore(ctx, db)
		if err != nil {
			t.Fatalf("trial %d (%s): the store does not open after a kill: %v", trial, k.kc.kind, err)
		}
		for _, e := range k.kc.entities {
			raw, err := st.Checkpoint(ctx, k.kc.kind, e)
			if err == nil {
				// The copy's change feed and the copy agree, whatever
				// the kill interrupted.
				storeFeedAgrees(t, fmt.Sprintf("trial %d: %s", trial, k.kc.kind), st, k.kc.kind, e)
			}
			if err != nil || raw == nil {
				continue // no copy yet, or one walked without a feed
			}
			var s struct {
				Feed *tributary.Checkpoint `json:"feed"`
			}
			if err := json.Unmarshal(raw, &s); err != nil {
				t.Fatalf("trial %d: %s %s checkpoint %s: %v", trial, k.kc.kind, e, raw, err)
			}
			if s.Feed == nil {
				continue
			}
			if s.Feed.Since.Before(k.since[e]) {
				t.Fatalf("trial %d: %s %s: the checkpoint moved backwards, from %s to %s", trial, k.kc.kind, e, k.since[e], s.Feed.Since)
			}
			k.since[e] = s.Feed.Since
		}
		st.Close()
	}
	// Then a sync of every kind runs to the end, and each copy is its
	// source's (the kinds at once: most of it waits on the store).
	t.Run("converge", func(t *testing.T) {
		for _, k := range all {
			t.Run(k.kc.kind, func(t *testing.T) {
				t.Parallel()
				conn := openKind(t, k.kc, k.url)
				opts := kindOptions(t, k.kc, conn)
				r, err := replica.Open(ctx, conn, backendOf(db), opts...)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := r.Sync(ctx, k.kc.entities...); err != nil {
					t.Fatalf("%s: %v", k.kc.kind, err)
				}
				fresh, err := replica.Open(ctx, conn, replica.SQLite(t.TempDir()+"/"+k.kc.kind+".db"), append(opts, replica.WithoutFeeds())...)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := fresh.Sync(ctx, k.kc.entities...); err != nil {
					t.Fatal(err)
				}
				for _, e := range k.kc.entities {
					sameCopies(t, k.kc.kind, e, r, fresh, k.gone[e])
					feedAgrees(t, "after the kills: "+k.kc.kind, r, e)
				}
				r.Close()
				fresh.Close()
			})
		}
	})
	t.Logf("%d kills over %d kinds", trials, len(all))
}

// mutate makes random creates, updates and deletes at the fake, later
// on its clock, and remembers what it deleted.
func mutate(t *testing.T, rng *rand.Rand, fake mutableFake, entities []string, gone map[string]map[string]bool) {
	t.Helper()
	fake.Clock().Advance(10 * time.Minute)
	mutable := fake.MutableEntities()
	for _, e := range entities {
		if !slices.Contains(mutable, e) {
			continue
		}
		if gone[e] == nil {
			gone[e] = map[string]bool{}
		}
		for range 2 {
			if _, err := fake.Create(e); err != nil {
				t.Fatalf("create %s: %v", e, err)
			}
		}
		ids := fake.IDs(e)
		for range 3 {
			if len(ids) > 0 {
				if err := fake.Update(e, ids[rng.IntN(len(ids))]); err != nil {
					t.Fatalf("update %s: %v", e, err)
				}
			}
		}
		// Zendesk has no way to delete a comment: deleting tickets
		// removes theirs.
		if len(ids) > 2 && e != "ticket_comments" {
			id := ids[rng.IntN(len(ids))]
			if err := fake.Delete(e, id); err != nil {
				t.Fatalf("delete %s %s: %v", e, id, err)
			}
			gone[e][id] = true
		}
	}
	// Past the feeds' minimum age (Zendesk's minute).
	fake.Clock().Advance(2 * time.Minute)
}

// sameCopies checks that a copy equals a fresh full walk: the same live
// records byte for byte, and none of those deleted at the source live.
func sameCopies(t *testing.T, connector, entity string, r, fresh *replica.Replica, gone map[string]bool) {
	t.Helper()
	got, _ := contents(t, r.Store(), connector, entity)
	want, _ := contents(t, fresh.Store(), connector, entity)
	if len(want) == 0 {
		t.Fatalf("%s %s: the fresh copy is empty", connector, entity)
	}
	for id, raw := range want {
		if got[id] != raw {
			t.Errorf("%s %s %s: copy\n%s\nfresh walk\n%s", connector, entity, id, got[id], raw)
			break
		}
	}
	for id := range got {
		if _, ok := want[id]; !ok {
			t.Errorf("%s %s %s: in the copy, not at the source (deleted there: %v)", connector, entity, id, gone[id])
			break
		}
	}
	for id := range gone {
		if _, ok := got[id]; ok {
			t.Errorf("%s %s %s: deleted at the source, live in the copy", connector, entity, id)
		}
	}
}
