package store_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
)

// Three worker processes share one PostgreSQL store and keep six copies
// current, each claiming one copy at a time. One worker is killed with
// SIGKILL in the middle of a synchronization: its claim expires, another
// worker takes the copy over, and in the end every copy is whole. A load
// commits only under the copy's current claim, so no claim commits twice,
// and the live copy is the load of the copy's latest committed claim.

const workerEntities = 6

var workerSchema = search.Schema{"id": search.TypeInteger, "gen": search.TypeInteger}

func workerRecords(token int64) [][]byte {
	out := make([][]byte, 0, 800)
	for i := range 800 {
		out = append(out, fmt.Appendf(nil, `{"id":%d,"gen":%d}`, i, token))
	}
	return out
}

// TestWorkerChild is one worker: it claims, synchronizes and releases
// copies until the stop file exists, printing "claimed E T" and
// "committed E T" lines.
func TestWorkerChild(t *testing.T) {
	dsn := os.Getenv("TRIBUTARY_WORKER_DSN")
	if dsn == "" {
		t.Skip("run by TestWorkersShareTheSync")
	}
	owner, stop := os.Getenv("TRIBUTARY_WORKER_ID"), os.Getenv("TRIBUTARY_WORKER_STOP")
	ctx := context.Background()
	st, err := store.OpenPostgres(ctx, dsn)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	const ttl = 2 * time.Second
	for {
		if _, err := os.Stat(stop); err == nil {
			os.Exit(0)
		}
		c, err := st.ClaimNext(ctx, owner, ttl, 0)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(4)
		}
		if c == nil {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		fmt.Println("claimed", c.Entity, c.Token)
		// Renew while loading; a lost claim ends the load.
		renewCtx, stopRenew := context.WithCancel(ctx)
		var wg sync.WaitGroup
		wg.Go(func() {
			tick := time.NewTicker(ttl / 4)
			defer tick.Stop()
			for {
				select {
				case <-renewCtx.Done():
					return
				case <-tick.C:
					if c.Renew(renewCtx, ttl) != nil {
						return
					}
				}
			}
		})
		err = func() error {
			l, err := st.BeginFull(ctx, store.Spec{Connector: "w", Entity: c.Entity, Schema: workerSchema, IDField: "id"}, store.Fenced(c))
			if err != nil {
				return err
			}
			recs := workerRecords(c.Token)
			for i := 0; i < len(recs); i += 100 {
				if err := l.Write(ctx, recs[i:i+100], nil); err != nil {
					l.Abort(ctx)
					return err
				}
			}
			return l.Commit(ctx)
		}()
		stopRenew()
		wg.Wait()
		switch {
		case err == nil:
			fmt.Println("committed", c.Entity, c.Token)
		case isLeaseLost(err):
			fmt.Println("lost", c.Entity, c.Token)
		default:
			fmt.Println("error", err)
			os.Exit(5)
		}
		c.Release(ctx)
	}
}

func TestWorkersShareTheSync(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs worker processes")
	}
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	st, err := store.OpenPostgres(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var names []string
	for i := range workerEntities {
		names = append(names, "e"+strconv.Itoa(i))
	}
	if err := st.Register(ctx, "w", names...); err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	stop := filepath.Join(t.TempDir(), "stop")

	type event struct {
		worker       int
		kind, entity string
		token        int64
	}
	events := make(chan event, 1000)
	var cmds []*exec.Cmd
	var readers sync.WaitGroup
	for w := range 3 {
		cmd := exec.Command(exe, "-test.run=^TestWorkerChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "TRIBUTARY_WORKER_DSN="+dsn, "TRIBUTARY_WORKER_ID=worker-"+strconv.Itoa(w), "TRIBUTARY_WORKER_STOP="+stop)
		cmd.Stderr = os.Stderr
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		readers.Go(func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				if len(f) == 3 && (f[0] == "claimed" || f[0] == "committed" || f[0] == "lost") {
					tok, _ := strconv.ParseInt(f[2], 10, 64)
					events <- event{w, f[0], f[1], tok}
				} else if len(f) > 0 && f[0] == "error" {
					events <- event{w, "error", sc.Text(), 0}
				}
			}
			io.Copy(io.Discard, out)
		})
	}
	defer func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
	}()

	committed := map[string][]int64{} // per entity, in commit order
	seen := map[[2]any]bool{}
	killed := false
	var victim string         // the entity worker 0 held when killed
	after := map[string]int{} // commits after the kill, by the others
	deadline := time.After(3 * time.Minute)
	for {
		var ev event
		select {
		case ev = <-events:
		case <-deadline:
			t.Fatalf("the workers did not finish: commits %v, after the kill %v", committed, after)
		}
		switch ev.kind {
		case "error":
			t.Fatalf("worker %d: %s", ev.worker, ev.entity)
		case "claimed":
			if !killed && ev.worker == 0 && len(committed) >= 2 {
				// Kill worker 0 in the middle of this synchronization.
				cmds[0].Process.Signal(syscall.SIGKILL)
				killed, victim = true, ev.entity
			}
		case "committed":
			k := [2]any{ev.entity, ev.token}
			if seen[k] {
				t.Fatalf("claim %d of %s committed twice", ev.token, ev.entity)
			}
			seen[k] = true
			committed[ev.entity] = append(committed[ev.entity], ev.token)
			if killed && ev.worker != 0 {
				after[ev.entity]++
			}
		}
		done := killed
		for _, n := range names {
			done = done && after[n] >= 2
		}
		if done {
			break
		}
	}
	os.WriteFile(stop, nil, 0o644)
	for _, c := range cmds[1:] {
		if err := c.Wait(); err != nil {
			t.Errorf("a surviving worker: %v", err)
		}
	}
	cmds[0].Wait()
	cmds = nil
	readers.Wait()
	close(events)
	for ev := range events { // what the workers did before they saw the stop
		switch ev.kind {
		case "error":
			t.Fatalf("worker %d: %s", ev.worker, ev.entity)
		case "committed":
			if k := [2]any{ev.entity, ev.token}; seen[k] {
				t.Fatalf("claim %d of %s committed twice", ev.token, ev.entity)
			} else {
				seen[k] = true
			}
			committed[ev.entity] = append(committed[ev.entity], ev.token)
		}
	}

	// The victim's copy was taken over, and every copy is one whole load.
	if after[victim] < 2 {
		t.Errorf("%s, held by the killed worker, was synchronized %d times after the kill", victim, after[victim])
	}
	for _, n := range names {
		res, err := st.Search(ctx, "w", n, search.Request{Limit: 1000})
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		gens := map[string]int{}
		for _, h := range res.Hits {
			var rec struct{ Gen int64 }
			jsonUnmarshal(h.Data, &rec)
			gens[strconv.FormatInt(rec.Gen, 10)]++
		}
		last := slices.Max(committed[n]) // the claims of a copy commit in order
		if len(res.Hits) != 800 || len(gens) != 1 || gens[strconv.FormatInt(last, 10)] != 800 {
			t.Errorf("%s: %d records of generations %v, want 800 of claim %d", n, len(res.Hits), gens, last)
		}
	}
	t.Logf("worker 0 killed while synchronizing %s; commits per copy %v", victim, committed)
}

func isLeaseLost(err error) bool { return errors.Is(err, store.ErrLeaseLost) }
