package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFleet runs a small fleet (CI's longer steps; TRIBUTARY_FLEET=1): 200
// connectors, two processes on one PostgreSQL, a minute of changes, one
// process SIGKILLed half-way. Every copy is synchronized, none is left
// stale for long after the first round, no two processes talk to one
// vendor account at once and no connector has two copies claimed at once,
// the killed process's copies are synchronized again, and every change
// the fakes made reaches its copy and a webhook event (Zendesk's exports
// leave out the last minute: the drain waits up to 150 s). Latency is low
// (20 ms) and each process runs serve's default syncs at once, so that
// the first round of 1,400 copies fits in the step's time: this tests the
// fleet, not its speed.
func TestFleet(t *testing.T) {
	if os.Getenv("TRIBUTARY_FLEET") == "" {
		t.Skip("a fleet of processes for minutes: TRIBUTARY_FLEET=1 (a CI step) runs it")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build cmd/tributary with")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	cfg := config{connectors: 200, procs: 2, tenants: 4, duration: 40 * time.Second, syncEvery: 15 * time.Second,
		sample: 3 * time.Second, root: root, records: 20, large: 3, largeN: 300, latency: 20 * time.Millisecond,
		mutateEvery: 30 * time.Second, drain: 150 * time.Second, settle: 2 * time.Minute, kill: true, killAt: 20 * time.Second,
		createWorkers: 16, log: &log}
	rep, err := run(t.Context(), cfg, nil)
	t.Log(log.String())
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	rep.markdown(&table)
	t.Log("\n" + table.String())

	if rep.Created != cfg.connectors || rep.Copies < cfg.connectors {
		t.Errorf("%d connectors created, %d copies; want %d connectors and a copy or more each", rep.Created, rep.Copies, cfg.connectors)
	}
	if rep.FirstRoundSeconds < 0 || rep.NeverSynchronized > 0 {
		t.Errorf("%d copies never synchronized: %v", rep.NeverSynchronized, rep.Unsynchronized)
	}
	if len(rep.Failing) > 0 {
		t.Errorf("copies failing at the end: %v", rep.Failing)
	}
	// Once every copy has been synchronized, none waits more than the
	// interval, a round's worth of waiting its turn (one copy of a
	// connector at a time, Zendesk's exports at 10 a minute) and the
	// lapse of a killed process's claims (a minute), on a fleet that
	// runs saturated (a round of its 1,400 copies takes about 70 s): 120
	// s. A copy passed over grows past it before the run ends.
	if bound := 120.0; rep.StalenessAfter.N == 0 || rep.StalenessAfter.Max > bound {
		t.Errorf("staleness after the first round: %+v; want at most %.0f s", rep.StalenessAfter, bound)
	}
	if rep.Overlaps > 0 || rep.DoubleClaimSamples > 0 {
		t.Errorf("two processes at one vendor account at once: %d requests; samples with two copies of a connector claimed: %d",
			rep.Overlaps, rep.DoubleClaimSamples)
	}
	if k := rep.Kill; k == nil || k.Held == 0 || k.NotResynced > 0 {
		t.Errorf("the kill: %+v; want a process killed holding copies, each synchronized again", k)
	}
	if rep.Mutations == 0 || rep.MutationErrors > 0 || rep.Reached != rep.Mutations-rep.MutationsNoCopy {
		t.Errorf("%d changes (%d failed, %d of entities without a copy): %d reached their copy", rep.Mutations, rep.MutationErrors, rep.MutationsNoCopy, rep.Reached)
	}
	if len(rep.Lost) > 0 || len(rep.Pending) > 0 || len(rep.Unhooked) > 0 || rep.Hooked != rep.Reached-rep.NeverHeld {
		t.Errorf("changes lost: %v; not in their copy after the drain: %v; in their copy without a webhook event: %v", rep.Lost, rep.Pending, rep.Unhooked)
	}
	for _, k := range rep.Kinds {
		if k.Unmarked > 0 || k.Requests == 0 {
			t.Errorf("%s: %d requests, %d without an account marker", k.Kind, k.Requests, k.Unmarked)
		}
	}
}
