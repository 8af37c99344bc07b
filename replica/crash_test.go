package replica_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/store"
)

// The crash test runs incremental syncs of Zendesk's tickets in a child
// process (this test binary, re-executed) against a fake in the parent,
// whose tickets the parent changes between kills, and kills the child
// with SIGKILL at a random moment, again and again. After every kill the
// store opens and its checkpoint has not moved backwards; at the end a
// sync completes and the copy equals a fresh full walk.

const crashEnvURL, crashEnvDB = "TRIBUTARY_CRASH_ZENDESK_URL", "TRIBUTARY_CRASH_DB"

var crashCreds = map[string]any{"subdomain": zendesktest.DefaultSubdomain, "email": zendesktest.DefaultEmail, "api_token": zendesktest.DefaultAPIToken}

// zendeskOpts: the fake limits its exports only when told to, so the
// connector does not pace them here (TestExportsKeepToTheirRateLimit does).
var zendeskOpts = []tributary.Option{zendesk.WithExportRateLimit(0, 0), zendesk.WithAPIRateLimit(0, 0)}

// crashParams pages the export 100 tickets at a time, so that a sync
// writes many pages.
var crashParams = tributary.Params{"per_page": 100}

// TestSyncCrashChild is the child: it syncs until it is killed.
func TestSyncCrashChild(t *testing.T) {
	url, db := os.Getenv(crashEnvURL), os.Getenv(crashEnvDB)
	if url == "" {
		t.Skip("the child of TestKilledIncrementalSync")
	}
	ctx := context.Background()
	conn, err := kinds.Open("zendesk-support", crashCreds, append([]tributary.Option{tributary.WithBaseURL(url)}, zendeskOpts...)...)
	if err != nil {
		os.Exit(3)
	}
	r, err := replica.Open(ctx, conn, backendOf(db), replica.WithParams("tickets", crashParams), replica.WithBatch(100))
	if err != nil {
		os.Exit(4)
	}
	for {
		if _, err := r.Sync(ctx, "tickets"); err != nil {
			os.Exit(5)
		}
	}
}

// backendOf is the store at target: a postgres:// DSN or a SQLite file.
func backendOf(target string) replica.Backend {
	if strings.HasPrefix(target, "postgres://") {
		return replica.Postgres(target)
	}
	return replica.SQLite(target)
}

func openStore(ctx context.Context, target string) (*store.Store, error) {
	if strings.HasPrefix(target, "postgres://") {
		return store.OpenPostgres(ctx, target)
	}
	return store.OpenSQLite(ctx, target)
}

// crashTrials is the number of kills of a kill test: def in the README's
// test command (a few, so that a change that breaks one is caught
// locally), TRIBUTARY_CRASH_TRIALS in CI's step of the sync at length
// (.ci/run: tens to a hundred of each).
func crashTrials(def int) int {
	if s := os.Getenv("TRIBUTARY_CRASH_TRIALS"); s != "" {
		n, _ := strconv.Atoi(s)
		return n
	}
	return def
}

func TestKilledIncrementalSync(t *testing.T) {
	t.Parallel()
	killIncrementalSync(t, t.TempDir()+"/tickets.db", crashTrials(3))
}

func TestKilledIncrementalSyncPostgres(t *testing.T) {
	t.Parallel()
	killIncrementalSync(t, pgtest.DSN(t), crashTrials(2))
}

func killIncrementalSync(t *testing.T, db string, trials int) {
	fake := zendesktest.New(zendesktest.WithTickets(3000))
	defer fake.Close()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	var last time.Time
	midPass, noCopy := 0, 0
	checkpoint := func(trial int) {
		t.Helper()
		st, err := openStore(ctx, db)
		if err != nil {
			t.Fatalf("trial %d: the store does not open after a kill: %v", trial, err)
		}
		defer st.Close()
		raw, err := st.Checkpoint(ctx, "zendesk-support", "tickets")
		if err == nil {
			storeFeedAgrees(t, "trial "+strconv.Itoa(trial), st, "zendesk-support", "tickets")
		}
		if err != nil || raw == nil {
			noCopy++ // no copy yet: the first full walk was killed
			return
		}
		var s struct {
			Feed *tributary.Checkpoint `json:"feed"`
		}
		if err := json.Unmarshal(raw, &s); err != nil || s.Feed == nil {
			t.Fatalf("trial %d: checkpoint %s: %v", trial, raw, err)
		}
		if s.Feed.Since.Before(last) {
			t.Fatalf("trial %d: the checkpoint moved backwards, from %s to %s", trial, last, s.Feed.Since)
		}
		last = s.Feed.Since
		if s.Feed.Next != nil {
			midPass++ // killed between two pages of a pass: resumes there
		}
	}
	for trial := range trials {
		// Changes at the source between runs: new, changed and deleted
		// tickets.
		fake.Clock().Advance(5 * time.Minute)
		for range 3 {
			if _, err := fake.Create("tickets"); err != nil {
				t.Fatal(err)
			}
		}
		ids := fake.IDs("tickets")
		for range 20 {
			if err := fake.Update("tickets", ids[rng.IntN(len(ids))]); err != nil {
				t.Fatal(err)
			}
		}
		if err := fake.Delete("tickets", ids[rng.IntN(len(ids))]); err != nil {
			t.Fatal(err)
		}
		fake.Clock().Advance(2 * time.Minute)

		cmd := exec.Command(os.Args[0], "-test.run=^TestSyncCrashChild$")
		cmd.Env = append(os.Environ(), crashEnvURL+"="+fake.URL, crashEnvDB+"="+db)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(20+rng.IntN(400)) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		err := cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("trial %d: the child ended on its own: %v", trial, err)
		}
		checkpoint(trial)
	}

	t.Logf("%d kills: %d before the first copy, %d between two pages of an incremental pass", trials, noCopy, midPass)

	// Then a sync runs to the end, and the copy is the source's.
	conn := openKind(t, kindCase{kind: "zendesk-support", creds: crashCreds, opts: zendeskOpts}, fake.URL)
	r, err := replica.Open(ctx, conn, backendOf(db), replica.WithParams("tickets", crashParams))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Sync(ctx, "tickets"); err != nil {
		t.Fatal(err)
	}
	checkpoint(trials)
	fresh, err := replica.Open(ctx, conn, replica.SQLite(t.TempDir()+"/fresh.db"), replica.WithoutFeeds())
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if _, err := fresh.Sync(ctx, "tickets"); err != nil {
		t.Fatal(err)
	}
	feedAgrees(t, "after the kills", r, "tickets")
	got, _ := contents(t, r.Store(), "zendesk-support", "tickets")
	want, _ := contents(t, fresh.Store(), "zendesk-support", "tickets")
	if len(got) != len(want) {
		t.Errorf("%d tickets in the copy, %d at the source", len(got), len(want))
	}
	for id, raw := range want {
		if got[id] != raw {
			t.Errorf("ticket %s differs:\ncopy  %s\nsource %s", id, got[id], raw)
			break
		}
	}
}
