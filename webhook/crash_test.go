package webhook_test

import (
	"context"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/store"
	"github.com/tributary-dev/tributary/webhook"
)

// The crash test delivers events from a child process (this test binary,
// re-executed) to a receiver in the parent, and kills the child with
// SIGKILL at a random moment, again and again, while the parent commits
// more events. In the end every committed event has been received at
// least once, each connector's in order, and a receiver that dedupes by
// webhook-id sees each exactly once.

const crashEnvURL, crashEnvDB = "TRIBUTARY_HOOKS_CRASH_URL", "TRIBUTARY_HOOKS_CRASH_DB"

// crashTrials is the number of kills: def, or TRIBUTARY_CRASH_TRIALS (CI
// runs 100).
func crashTrials(def int) int {
	if s := os.Getenv("TRIBUTARY_CRASH_TRIALS"); s != "" {
		n, _ := strconv.Atoi(s)
		return n
	}
	return def
}

// TestDeliverCrashChild is the child: it delivers until it is killed.
func TestDeliverCrashChild(t *testing.T) {
	url, db := os.Getenv(crashEnvURL), os.Getenv(crashEnvDB)
	if url == "" {
		t.Skip("the child of TestKilledDeliverer")
	}
	st := openStore(t, db)
	d := newDeliverer(t, st, []webhook.Endpoint{{Tenant: "app", URL: url, Secret: secret}}, func(c *webhook.DelivererConfig) {
		c.Batch, c.ClaimTTL = 4, crashClaimTTL
	})
	_ = d.Run(context.Background())
}

// crashClaimTTL is the children's claims' lifetime: a killed child's
// deliveries go to the next one after it.
const crashClaimTTL = time.Second

func TestKilledDeliverer(t *testing.T) {
	killDeliverer(t, t.TempDir()+"/crash.db", crashTrials(4))
}

func TestKilledDelivererPostgres(t *testing.T) {
	killDeliverer(t, pgtest.DSN(t), crashTrials(4))
}

func killDeliverer(t *testing.T, db string, trials int) {
	st := openStore(t, db)
	rng := rand.New(rand.NewPCG(3, 4))
	rc := newReceiver(t, func(r *http.Request) int {
		time.Sleep(time.Millisecond) // an answer takes a moment: kills land mid-request too
		return http.StatusOK
	})
	ep := webhook.Endpoint{Tenant: "app", URL: rc.URL, Secret: secret}
	conns := []string{"conn_a", "conn_b", "conn_c"}
	var ids []string
	seq := 0
	for trial := range trials {
		// Events committed before and while the child runs.
		for range 3 {
			for _, c := range conns {
				ids = append(ids, addEvent(t, st, ep, c, seq))
			}
			seq++
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestDeliverCrashChild$")
		cmd.Env = append(os.Environ(), crashEnvURL+"="+rc.URL, crashEnvDB+"="+db)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(30+rng.IntN(250)) * time.Millisecond)
		for _, c := range conns {
			ids = append(ids, addEvent(t, st, ep, c, seq))
		}
		seq++
		time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		err := cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("trial %d: the child ended on its own: %v", trial, err)
		}
	}
	before := len(dedupe(rc.received()))
	// Then a deliverer runs until everything is delivered (the killed
	// children's claims lapse first).
	d := newDeliverer(t, st, []webhook.Endpoint{ep}, func(c *webhook.DelivererConfig) { c.ClaimTTL = crashClaimTTL })
	if !runUntil(t, d, 90*time.Second, func() bool { return len(dedupe(rc.received())) == len(ids) }) {
		t.Fatalf("%d of %d committed events received", len(dedupe(rc.received())), len(ids))
	}
	got := rc.received()
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	for _, g := range got {
		if !want[g.id] {
			t.Fatalf("received %s, an event never committed", g.id)
		}
	}
	checkOrder(t, got, conns)
	t.Logf("%d kills, %d events: %d received before the last run, %d requests in all (%d duplicates, deduped by webhook-id)",
		trials, len(ids), before, len(got), len(got)-len(ids))
}

// addEvent commits one event of connector c, data.seq seq, to ep.
func addEvent(t *testing.T, st *store.Store, ep webhook.Endpoint, c string, seq int) string {
	t.Helper()
	ev, err := webhook.NewEvent(webhook.SyncCompleted, ep.Tenant, c, time.Now(), map[string]any{"connector_id": c, "seq": seq}, []webhook.Endpoint{ep})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddEvent(context.Background(), ev); err != nil {
		t.Fatal(err)
	}
	return ev.ID
}
