package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
)

// The crash test runs full synchronizations in a child process (this test
// binary, re-executed) and kills it with SIGKILL at a random moment, again
// and again. After every kill the store must open, and its live copy, if
// it has one, must be one whole generation of the data: every record of
// one load and nothing of another. A synchronization run afterwards must
// complete.

var crashSchema = search.Schema{"id": search.TypeInteger, "gen": search.TypeInteger, "subject": search.TypeString}

const crashRecords = 3000

func crashGen(g int) [][]byte {
	out := make([][]byte, 0, crashRecords+g%7)
	for i := range crashRecords + g%7 {
		out = append(out, fmt.Appendf(nil, `{"id":%d,"gen":%d,"subject":"record %d of generation %d, password reset"}`, i, g, i, g))
	}
	return out
}

func crashSpec() store.Spec {
	return store.Spec{Connector: "crash", Entity: "things", Schema: crashSchema, IDField: "id"}
}

func loadGen(ctx context.Context, st *store.Store, g int) error {
	l, err := st.BeginFull(ctx, crashSpec())
	if err != nil {
		return err
	}
	recs := crashGen(g)
	for i := 0; i < len(recs); i += 100 {
		if err := l.Write(ctx, recs[i:min(i+100, len(recs))], []byte(strconv.Itoa(i))); err != nil {
			return err
		}
	}
	return l.Commit(ctx)
}

// TestCrashChild is the child: it loads generation after generation until
// it is killed.
func TestCrashChild(t *testing.T) {
	target := os.Getenv("TRIBUTARY_CRASH_STORE")
	if target == "" {
		t.Skip("run by TestKilledSyncLeavesTheCopyIntact")
	}
	ctx := context.Background()
	st, err := openTarget(ctx, target)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	first, _ := strconv.Atoi(os.Getenv("TRIBUTARY_CRASH_GEN"))
	for g := first; ; g++ {
		if err := loadGen(ctx, st, g); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(4)
		}
	}
}

func openTarget(ctx context.Context, target string) (*store.Store, error) {
	if len(target) > 11 && target[:11] == "postgres://" {
		return store.OpenPostgres(ctx, target)
	}
	return store.OpenSQLite(ctx, target)
}

// checkWhole checks that the live copy, if any, is one whole generation.
func checkWhole(t *testing.T, st *store.Store, trial int) (gen int, ok bool) {
	t.Helper()
	ctx := context.Background()
	req := search.Request{Limit: 1000, Query: search.Query{Sort: []search.SortItem{search.Asc("id")}}}
	gens := map[int]int{}
	n := 0
	for {
		res, err := st.Search(ctx, "crash", "things", req)
		if err != nil {
			if trial >= 0 && isNotSynced(err) {
				return 0, false
			}
			t.Fatalf("trial %d: search after the kill: %v", trial, err)
		}
		for _, h := range res.Hits {
			var rec struct{ ID, Gen int }
			if err := jsonUnmarshal(h.Data, &rec); err != nil {
				t.Fatal(err)
			}
			if rec.ID != n {
				t.Fatalf("trial %d: record %d where %d was expected: the copy has a hole or a duplicate", trial, rec.ID, n)
			}
			gens[rec.Gen]++
			n++
		}
		if res.NextCursor == nil {
			break
		}
		req.Cursor = *res.NextCursor
	}
	if len(gens) != 1 {
		t.Fatalf("trial %d: the live copy mixes generations: %v", trial, gens)
	}
	for g, c := range gens {
		if want := crashRecords + g%7; c != want {
			t.Fatalf("trial %d: generation %d has %d records, want %d", trial, g, c, want)
		}
		return g, true
	}
	return 0, false
}

func TestKilledSyncLeavesTheCopyIntact(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("kills child processes")
	}
	trials := 5
	if s := os.Getenv("TRIBUTARY_CRASH_TRIALS"); s != "" {
		trials, _ = strconv.Atoi(s)
	}
	target := t.TempDir() + "/crash.db"
	runCrashTrials(t, target, trials)
}

func runCrashTrials(t *testing.T, target string, trials int) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	ctx := context.Background()
	lastGen := 0
	for trial := range trials {
		cmd := exec.Command(exe, "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "TRIBUTARY_CRASH_STORE="+target, "TRIBUTARY_CRASH_GEN="+strconv.Itoa(lastGen+1))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Anywhere from the open to the middle of a later load.
		time.Sleep(time.Duration(50+r.IntN(1500)) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		err := cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("trial %d: the child ended before the kill: %v", trial, err)
		}
		st, err := openTarget(ctx, target)
		if err != nil {
			t.Fatalf("trial %d: the store does not open after the kill: %v", trial, err)
		}
		g, ok := checkWhole(t, st, trial)
		if ok {
			checkFeed(t, st, trial)
			if g < lastGen {
				t.Fatalf("trial %d: the live copy went back from generation %d to %d", trial, lastGen, g)
			}
			lastGen = g
		}
		st.Close()
	}
	// A synchronization after all that completes, and is what is live.
	st, err := openTarget(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := loadGen(ctx, st, lastGen+100); err != nil {
		t.Fatalf("a synchronization after the kills: %v", err)
	}
	if g, _ := checkWhole(t, st, -1); g != lastGen+100 {
		t.Fatalf("live generation %d after the last load, want %d", g, lastGen+100)
	}
	checkFeed(t, st, -1)
	stats, err := st.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(stats.Entities) != 1 || stats.Entities[0].Syncing {
		t.Errorf("stats after a completed load: %+v", stats.Entities)
	}
	t.Logf("%d kills; the live copy was last generation %d", trials, lastGen)
}

// checkFeed checks that the copy's feed, replayed from its start, is the
// live copy, byte for byte: whatever instant of a load, or of its swap,
// the kill came at, each change reads the bytes it was written with
// (those a change refers to in the copy's rows as well as those it
// carries).
func checkFeed(t *testing.T, st *store.Store, trial int) {
	t.Helper()
	replayed := map[string]string{}
	replay(t, st, "crash", "things", 0, store.MaxChangesPage, replayed)
	sameCopy(t, fmt.Sprintf("trial %d: the feed replayed", trial), replayed, liveCopy(t, st, "crash", "things"))
}

func isNotSynced(err error) bool { return errors.Is(err, store.ErrNotSynced) }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func TestKilledSyncLeavesTheCopyIntactPostgres(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("kills child processes")
	}
	trials := 3
	if s := os.Getenv("TRIBUTARY_CRASH_TRIALS"); s != "" {
		trials, _ = strconv.Atoi(s)
	}
	runCrashTrials(t, pgtest.DSN(t), trials)
}

func reqAll() search.Request { return search.Request{Limit: 10} }
