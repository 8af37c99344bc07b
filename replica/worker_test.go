package replica_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakes"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/store"
)

// The worker tests keep the copies of two connectors, each under a name
// that is not its kind's, in one store.
var workerKinds = map[string]string{"zd-a": "zendesk-support", "hs-b": "hubspot"}

func workerNames() []string {
	names := make([]string, 0, len(workerKinds))
	for n := range workerKinds {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func workerCase(name string) kindCase { return kindCaseOf(workerKinds[name]) }

// openWorkerConn opens the connector name at url.
func openWorkerConn(name, url string, extra ...tributary.Option) (tributary.Connector, error) {
	kc := workerCase(name)
	opts := append([]tributary.Option{tributary.WithBaseURL(url), tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond})}, kc.opts...)
	return kinds.Open(kc.kind, kc.creds, append(opts, extra...)...)
}

// workerOpener opens the connectors at urls (by name), counting opens.
func workerOpener(urls map[string]string, opens *atomic.Int64, extra ...tributary.Option) replica.Opener {
	return func(_ context.Context, name string) (tributary.Connector, error) {
		url, ok := urls[name]
		if !ok {
			return nil, fmt.Errorf("no connector %q", name)
		}
		if opens != nil {
			opens.Add(1)
		}
		return openWorkerConn(name, url, extra...)
	}
}

// workerReplicaOptions are the options of each connector's copies.
func workerReplicaOptions(t *testing.T) func(string) []replica.Option {
	return func(name string) []replica.Option { return kindOptions(t, workerCase(name), nil) }
}

// span is one sync of a copy, as the worker reported it.
type span struct {
	owner      string
	start, end time.Time
	err        error
}

// syncLog collects the syncs the workers report and finds two syncs of
// one copy that overlap in time.
type syncLog struct {
	mu    sync.Mutex
	runs  map[[2]string][]span
	clash []string
}

func newSyncLog() *syncLog { return &syncLog{runs: map[[2]string][]span{}} }

func (l *syncLog) add(connector, entity string, s span) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := [2]string{connector, entity}
	for _, o := range l.runs[k] {
		if s.start.Before(o.end) && o.start.Before(s.end) {
			l.clash = append(l.clash, fmt.Sprintf("%s %s: %s synced %s–%s while %s synced %s–%s", connector, entity,
				s.owner, s.start.Format("15:04:05.000"), s.end.Format("15:04:05.000"), o.owner, o.start.Format("15:04:05.000"), o.end.Format("15:04:05.000")))
		}
	}
	l.runs[k] = append(l.runs[k], s)
}

// report is a WithReport callback for worker owner.
func (l *syncLog) report(owner string) func(string, replica.EntityReport, error) {
	return func(connector string, rep replica.EntityReport, err error) {
		// The sync's own span: the report comes after the claim's
		// release, when another worker may have claimed the copy.
		l.add(connector, rep.Entity, span{owner: owner, start: rep.Started, end: rep.Started.Add(rep.Took), err: err})
	}
}

// syncedSince reports whether every copy of names had a successful sync
// that began after t.
func (l *syncLog) syncedSince(t time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, name := range workerNames() {
		for _, e := range workerCase(name).entities {
			if !slices.ContainsFunc(l.runs[[2]string{name, e}], func(s span) bool { return s.err == nil && s.start.After(t) }) {
				return false
			}
		}
	}
	return true
}

func (l *syncLog) check(t *testing.T) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.clash {
		t.Errorf("two syncs of one copy at once: %s", c)
	}
}

// registerWorkerCopies registers every copy of the worker tests.
func registerWorkerCopies(t *testing.T, st *store.Store) int {
	t.Helper()
	n := 0
	for _, name := range workerNames() {
		es := workerCase(name).entities
		if err := st.Register(context.Background(), name, es...); err != nil {
			t.Fatal(err)
		}
		n += len(es)
	}
	return n
}

// checkWorkerCopies checks that every copy in st equals a fresh full walk
// of its fake, holds each record once, and keeps no record deleted at
// the source live.
func checkWorkerCopies(t *testing.T, st *store.Store, urls map[string]string, gone map[string]map[string]map[string]bool) {
	t.Helper()
	for _, name := range workerNames() {
		checkCopies(t, st, urls[name], name, workerCase(name).entities, gone[name])
	}
}

// checkCopies checks the copies of connector name's entities.
func checkCopies(t *testing.T, st *store.Store, url, name string, entities []string, gone map[string]map[string]bool) {
	t.Helper()
	ctx := context.Background()
	kc := workerCase(name)
	conn, err := openWorkerConn(name, url)
	if err != nil {
		t.Fatal(err)
	}
	opts := append(kindOptions(t, kc, conn), replica.WithName(name))
	fresh, err := replica.Open(ctx, conn, replica.SQLite(t.TempDir()+"/fresh.db"), append(opts, replica.WithoutFeeds())...)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if _, err := fresh.Sync(ctx, entities...); err != nil {
		t.Fatal(err)
	}
	r, err := replica.Open(ctx, conn, replica.Store(st), opts...)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entities {
		sameCopies(t, name, e, r, fresh, gone[e])
		live, _ := contents(t, st, name, e)
		if n, err := st.Count(ctx, name, e); err != nil || n != int64(len(live)) {
			t.Errorf("%s %s: %d live rows for %d distinct records (%v)", name, e, n, len(live), err)
		}
	}
}

// startWorkerFakes starts the fakes of the worker tests and returns them
// and their URLs by connector name.
func startWorkerFakes(t *testing.T) (map[string]mutableFake, map[string]string) {
	fakes, urls := map[string]mutableFake{}, map[string]string{}
	for _, name := range workerNames() {
		f, url := workerCase(name).start()
		t.Cleanup(f.Close)
		fakes[name], urls[name] = f, url
	}
	return fakes, urls
}

func mutateWorkerFakes(t *testing.T, rng *rand.Rand, fakes map[string]mutableFake, gone map[string]map[string]map[string]bool) {
	t.Helper()
	for _, name := range workerNames() {
		if gone[name] == nil {
			gone[name] = map[string]map[string]bool{}
		}
		mutate(t, rng, fakes[name], workerCase(name).entities, gone[name])
	}
}

// Three workers in one process share the copies of two connectors: a
// round of RunOnce syncs every copy exactly once; after changes at the
// sources, Run keeps them current; every copy equals a fresh walk, and no
// copy is ever synced by two workers at once.
func TestWorkersShareCopies(t *testing.T) {
	// Not in parallel: its leases and backoffs are on the real clock.
	for _, bname := range []string{"sqlite", "postgres"} {
		t.Run(bname, func(t *testing.T) {
			ctx := context.Background()
			var st *store.Store
			var err error
			if bname == "sqlite" {
				st, err = store.OpenSQLite(ctx, t.TempDir()+"/copies.db")
			} else {
				st, err = store.OpenPostgres(ctx, pgtest.DSN(t))
			}
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			testWorkersShareCopies(t, st)
		})
	}
}

func testWorkersShareCopies(t *testing.T, st *store.Store) {
	ctx := context.Background()
	fakes, urls := startWorkerFakes(t)
	copies := registerWorkerCopies(t, st)
	log := newSyncLog()
	var opens atomic.Int64
	workers := func(every time.Duration) []*replica.Worker {
		var ws []*replica.Worker
		for i := range 3 {
			owner := fmt.Sprintf("w%d", i)
			ws = append(ws, replica.NewWorker(st, workerOpener(urls, &opens), replica.WithOwner(owner), replica.WithEvery(every),
				replica.WithPoll(20*time.Millisecond), replica.WithReplicaOptionsFor(workerReplicaOptions(t)), replica.WithReport(log.report(owner))))
		}
		return ws
	}

	// A round: every copy synced once, each by one worker.
	var wg sync.WaitGroup
	counts := make([]int, 3)
	for i, w := range workers(time.Hour) {
		wg.Go(func() {
			n, err := w.RunOnce(ctx)
			if err != nil {
				t.Errorf("worker %d: %v", i, err)
			}
			counts[i] = n
		})
	}
	wg.Wait()
	if total := counts[0] + counts[1] + counts[2]; total != copies {
		t.Fatalf("the workers ran %v syncs, %d in all, for %d copies", counts, total, copies)
	}
	log.check(t)
	gone := map[string]map[string]map[string]bool{}
	checkWorkerCopies(t, st, urls, gone)
	// Nothing is due within the hour.
	if n, err := workers(time.Hour)[0].RunOnce(ctx); n != 0 || err != nil {
		t.Fatalf("a second round within the hour ran %d syncs: %v", n, err)
	}

	// Changes at the sources; workers that sync every copy as soon as it
	// was synced (WithEvery 0) keep them current until stopped.
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2 {
		mutateWorkerFakes(t, rng, fakes, gone)
		changed := time.Now()
		rctx, stop := context.WithCancel(ctx)
		for i, w := range workers(0) {
			wg.Go(func() {
				if err := w.Run(rctx); err != nil {
					t.Errorf("worker %d: %v", i, err)
				}
			})
		}
		deadline := time.Now().Add(time.Minute)
		for !log.syncedSince(changed) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		stop()
		wg.Wait()
		if !log.syncedSince(changed) {
			t.Fatal("the workers did not sync every copy within a minute")
		}
	}
	log.check(t)
	checkWorkerCopies(t, st, urls, gone)
	for _, runs := range log.runs {
		for _, s := range runs {
			if s.err != nil && !errors.Is(s.err, context.Canceled) {
				t.Errorf("a sync failed: %v", s.err)
			}
		}
	}
	t.Logf("%d syncs in all, %d connectors opened", func() (n int) {
		for _, r := range log.runs {
			n += len(r)
		}
		return n
	}(), opens.Load())
}

// gate holds the first response that arrives after it is armed until it
// is opened: a worker that stalls between reading a page and writing it.
type gate struct {
	base    http.RoundTripper
	armed   atomic.Bool
	held    chan struct{} // closed when a response is held
	release chan struct{}
	once    sync.Once
}

func newGate() *gate {
	return &gate{base: http.DefaultTransport, held: make(chan struct{}), release: make(chan struct{})}
}

func (g *gate) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := g.base.RoundTrip(req)
	if err == nil && g.armed.CompareAndSwap(true, false) {
		g.once.Do(func() { close(g.held) })
		<-g.release
	}
	return resp, err
}

// A worker whose claim lapses while it stalls (here: between reading a
// page of changes and writing it, its renewals stalled too) loses the
// copy to another worker, and the page it read before the other worker's
// sync is not written over that sync: SyncClaimed ends with ErrLeaseLost.
func TestLostLeaseWritesNothing(t *testing.T) {
	// Not in parallel: its leases and backoffs are on the real clock.
	for _, bname := range []string{"sqlite", "postgres"} {
		t.Run(bname, func(t *testing.T) {
			ctx := context.Background()
			var st *store.Store
			var err error
			if bname == "sqlite" {
				st, err = store.OpenSQLite(ctx, t.TempDir()+"/copies.db")
			} else {
				st, err = store.OpenPostgres(ctx, pgtest.DSN(t))
			}
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			testLostLease(t, st)
		})
	}
}

func testLostLease(t *testing.T, st *store.Store) {
	ctx := context.Background()
	const name, entity = "zd-a", "tickets"
	fakes, urls := startWorkerFakes(t)
	fake := fakes[name]
	g := newGate()
	connA, err := openWorkerConn(name, urls[name], tributary.WithHTTPClient(&http.Client{Transport: g}))
	if err != nil {
		t.Fatal(err)
	}
	connB, err := openWorkerConn(name, urls[name])
	if err != nil {
		t.Fatal(err)
	}
	opts := append(workerReplicaOptions(t)(name), replica.WithName(name))
	ra, err := replica.Open(ctx, connA, replica.Store(st), opts...)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := replica.Open(ctx, connB, replica.Store(st), opts...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rb.Sync(ctx, entity); err != nil {
		t.Fatal(err)
	}

	// A ticket changes; worker a reads the change and stalls.
	id := fake.IDs(entity)[0]
	fake.Clock().Advance(10 * time.Minute)
	if err := fake.Update(entity, id); err != nil {
		t.Fatal(err)
	}
	fake.Clock().Advance(2 * time.Minute)
	const ttl = 300 * time.Millisecond
	ca, err := st.Claim(ctx, name, entity, "a", ttl)
	if err != nil {
		t.Fatal(err)
	}
	g.armed.Store(true)
	type result struct {
		rep replica.EntityReport
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := replica.SyncClaimedRenewing(ctx, ra, ca, ttl, time.Hour)
		done <- result{rep, err}
	}()
	select {
	case <-g.held:
	case <-time.After(30 * time.Second):
		t.Fatal("worker a read nothing")
	}
	stale, _ := contents(t, st, name, entity)

	// Its claim lapses; worker b takes the copy over, after the ticket
	// changed again, and syncs it.
	time.Sleep(ttl + 100*time.Millisecond)
	cb, err := st.Claim(ctx, name, entity, "b", time.Minute)
	if err != nil {
		t.Fatalf("taking the lapsed claim over: %v", err)
	}
	fake.Clock().Advance(10 * time.Minute)
	if err := fake.Update(entity, id); err != nil {
		t.Fatal(err)
	}
	fake.Clock().Advance(2 * time.Minute)
	repB, err := rb.SyncClaimed(ctx, cb)
	if err != nil {
		t.Fatalf("worker b: %v", err)
	}
	newer, _ := contents(t, st, name, entity)
	if newer[id] == stale[id] {
		t.Fatalf("worker b's sync did not change ticket %s (report %+v)", id, repB)
	}

	// Worker a wakes up with its page: it writes nothing.
	close(g.release)
	res := <-done
	if !errors.Is(res.err, store.ErrLeaseLost) {
		t.Fatalf("worker a after losing its claim: %v (report %+v)", res.err, res.rep)
	}
	after, _ := contents(t, st, name, entity)
	if after[id] != newer[id] || len(after) != len(newer) {
		t.Errorf("worker a overwrote ticket %s:\nb wrote %s\nnow    %s", id, newer[id], after[id])
	}
	if err := cb.Release(ctx); err != nil {
		t.Fatal(err)
	}
	checkCopies(t, st, urls[name], name, []string{entity}, nil)

	// The renewer keeps a claim while a sync outlasts its TTL: nobody
	// takes it over meanwhile.
	cc, err := st.Claim(ctx, name, entity, "c", ttl)
	if err != nil {
		t.Fatal(err)
	}
	g2 := newGate()
	connC, _ := openWorkerConn(name, urls[name], tributary.WithHTTPClient(&http.Client{Transport: g2}))
	rc, err := replica.Open(ctx, connC, replica.Store(st), opts...)
	if err != nil {
		t.Fatal(err)
	}
	g2.armed.Store(true)
	go func() {
		rep, err := rc.SyncClaimed(ctx, cc)
		done <- result{rep, err}
	}()
	<-g2.held
	time.Sleep(3 * ttl)
	if _, err := st.Claim(ctx, name, entity, "d", ttl); !errors.Is(err, store.ErrLeaseHeld) {
		t.Errorf("a claim renewed in the background was taken: %v", err)
	}
	close(g2.release)
	if res := <-done; res.err != nil {
		t.Errorf("a sync under a renewed claim: %v", res.err)
	}

	// A claim for another connector, or an in-memory replica.
	if _, err := rc.SyncClaimed(ctx, cb); err != nil && !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("a released claim of the right copy: %v", err)
	}
	other, err := st.Claim(ctx, "hs-b", "contacts", "e", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rc.SyncClaimed(ctx, other); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("a claim of another connector: %v", err)
	}
	if _, err := replica.New(connB, replica.WithName("hs-b")).SyncClaimed(ctx, other); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("an in-memory replica: %v", err)
	}
}

// The process test: three worker processes (this test binary, run
// again) share one store and the fakes the parent serves; the parent
// kills one with SIGKILL while it syncs, changes the sources, and waits
// until the survivors have synced every copy since, the killed worker's
// included once its claim lapsed.

const (
	workerEnvDB, workerEnvURLs = "TRIBUTARY_REPLICA_WORKER_DB", "TRIBUTARY_REPLICA_WORKER_URLS"
	workerEnvID, workerEnvStop = "TRIBUTARY_REPLICA_WORKER_ID", "TRIBUTARY_REPLICA_WORKER_STOP"
	workerTTL                  = time.Second
)

// slowTransport delays every request: syncs long enough to be killed in.
type slowTransport struct{ d time.Duration }

func (s slowTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	time.Sleep(s.d)
	return http.DefaultTransport.RoundTrip(req)
}

// TestReplicaWorkerChild is one worker process: it runs a Worker until
// the stop file appears, printing "progress C E T" after every page it
// writes and "synced C E START END ok|error" after every sync.
func TestReplicaWorkerChild(t *testing.T) {
	db := os.Getenv(workerEnvDB)
	if db == "" {
		t.Skip("run by TestKilledWorker")
	}
	urls := map[string]string{}
	for _, kv := range strings.Split(os.Getenv(workerEnvURLs), ";") {
		k, v, _ := strings.Cut(kv, "=")
		urls[k] = v
	}
	id, stopFile := os.Getenv(workerEnvID), os.Getenv(workerEnvStop)
	ctx, stop := context.WithCancel(context.Background())
	st, err := openStore(ctx, db)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	var out sync.Mutex
	say := func(format string, a ...any) {
		out.Lock()
		defer out.Unlock()
		fmt.Printf(format+"\n", a...)
	}
	optsFor := func(name string) []replica.Option {
		opts := append(kindOptions(t, workerCase(name), nil), replica.WithBatch(100),
			replica.WithProgress(func(p replica.Progress) { say("progress %s %s %d", name, p.Entity, time.Now().UnixNano()) }))
		if workerKinds[name] == "zendesk-support" {
			opts = append(opts, replica.WithParams("tickets", crashParams))
		}
		return opts
	}
	w := replica.NewWorker(st, workerOpener(urls, nil, tributary.WithHTTPClient(&http.Client{Transport: slowTransport{20 * time.Millisecond}})),
		replica.WithOwner(id), replica.WithLeaseTTL(workerTTL), replica.WithEvery(300*time.Millisecond), replica.WithPoll(50*time.Millisecond),
		replica.WithReplicaOptionsFor(optsFor),
		replica.WithReport(func(connector string, rep replica.EntityReport, err error) {
			res := "ok"
			if err != nil {
				res = "error " + strings.ReplaceAll(err.Error(), "\n", " ")
			}
			// The sync's own span: the report comes after the claim's
			// release, when another worker may have claimed the copy.
			say("synced %s %s %d %d %s", connector, rep.Entity, rep.Started.UnixNano(), rep.Started.Add(rep.Took).UnixNano(), res)
		}))
	go func() {
		for {
			if _, err := os.Stat(stopFile); err == nil {
				stop()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	if err := w.Run(ctx); err != nil {
		say("error %v", err)
		os.Exit(4)
	}
	os.Exit(0)
}

func TestKilledWorker(t *testing.T) {
	// Not in parallel: its leases and backoffs are on the real clock.
	killWorker(t, t.TempDir()+"/copies.db")
}

func TestKilledWorkerPostgres(t *testing.T) {
	// Not in parallel: its leases and backoffs are on the real clock.
	killWorker(t, pgtest.DSN(t))
}

func killWorker(t *testing.T, db string) {
	if testing.Short() {
		t.Skip("runs worker processes")
	}
	ctx := context.Background()
	st, err := openStore(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fakes, urls := startWorkerFakes(t)
	registerWorkerCopies(t, st)
	var pairs []string
	for _, name := range workerNames() {
		pairs = append(pairs, name+"="+urls[name])
	}
	stopFile := filepath.Join(t.TempDir(), "stop")

	type event struct {
		worker int
		f      []string
		line   string
	}
	events := make(chan event, 10000)
	var cmds []*exec.Cmd
	var readers sync.WaitGroup
	for i := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestReplicaWorkerChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), workerEnvDB+"="+db, workerEnvURLs+"="+strings.Join(pairs, ";"),
			workerEnvID+"="+fmt.Sprintf("worker-%d", i), workerEnvStop+"="+stopFile)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		readers.Go(func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				if f := strings.Fields(sc.Text()); len(f) > 0 && (f[0] == "progress" || f[0] == "synced" || f[0] == "error") {
					events <- event{i, f, sc.Text()}
				}
			}
		})
	}
	defer func() {
		for _, c := range cmds {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}()

	log := newSyncLog()
	unix := func(s string) time.Time { n, _ := strconv.ParseInt(s, 10, 64); return time.Unix(0, n) }
	var (
		synced            int
		killed            bool
		killedAt, changed time.Time
		victim            [2]string
		victimFrom        time.Time
		gone              = map[string]map[string]map[string]bool{}
		rng               = rand.New(rand.NewPCG(5, 6))
	)
	handle := func(ev event) {
		switch ev.f[0] {
		case "error":
			t.Fatalf("worker %d: %s", ev.worker, ev.line)
		case "synced":
			if len(ev.f) < 6 {
				t.Fatalf("worker %d: %s", ev.worker, ev.line)
			}
			var err error
			if ev.f[5] != "ok" {
				err = errors.New(strings.Join(ev.f[5:], " "))
				if !strings.Contains(ev.line, "context canceled") {
					t.Errorf("worker %d: %s", ev.worker, ev.line)
				}
			}
			log.add(ev.f[1], ev.f[2], span{owner: fmt.Sprint("worker-", ev.worker), start: unix(ev.f[3]), end: unix(ev.f[4]), err: err})
			synced++
		case "progress":
			if !killed && ev.worker == 0 && synced >= 2 {
				// Kill worker 0 in the middle of this sync.
				_ = cmds[0].Process.Signal(syscall.SIGKILL)
				killed, killedAt = true, time.Now()
				victim, victimFrom = [2]string{ev.f[1], ev.f[2]}, unix(ev.f[3])
				// The progress line may have been the sync's last: it can
				// end, and its claim be released, before the kill lands.
				if c, err := st.Claim(ctx, victim[0], victim[1], "probe", time.Minute); err == nil {
					t.Logf("worker 0's sync of %v ended before the kill landed", victim)
					_ = c.Release(ctx)
				} else if !errors.Is(err, store.ErrLeaseHeld) {
					t.Fatalf("probing the killed worker's claim on %v: %v", victim, err)
				}
				// The killed worker's last sync ran until it was killed.
				log.add(victim[0], victim[1], span{owner: "worker-0 (killed)", start: victimFrom, end: killedAt})
				mutateWorkerFakes(t, rng, fakes, gone)
				changed = time.Now()
			}
		}
	}
	deadline := time.After(time.Minute)
	for !killed || !log.syncedSince(changed) {
		select {
		case ev := <-events:
			handle(ev)
		case <-deadline:
			t.Fatalf("the workers did not sync every copy within a minute (killed: %v)", killed)
		}
	}
	if err := os.WriteFile(stopFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for i, c := range cmds[1:] {
		if err := c.Wait(); err != nil {
			t.Errorf("worker %d: %v", i+1, err)
		}
	}
	_ = cmds[0].Wait()
	cmds = nil
	readers.Wait()
	close(events)
	for ev := range events {
		handle(ev)
	}
	log.check(t)

	// The victim's copy was taken over once its claim lapsed.
	var takeover time.Time
	for _, s := range log.runs[victim] {
		if s.owner != "worker-0" && s.owner != "worker-0 (killed)" && s.start.After(killedAt) && (takeover.IsZero() || s.start.Before(takeover)) {
			takeover = s.start
		}
	}
	if takeover.IsZero() {
		t.Fatalf("%v, held by the killed worker, was not synced again", victim)
	}
	checkWorkerCopies(t, st, urls, gone)
	t.Logf("worker 0 killed while syncing %s %s; taken over %s later (TTL %s); %d syncs in all",
		victim[0], victim[1], takeover.Sub(killedAt).Round(time.Millisecond), workerTTL, synced)
}

// A copy whose connector does not open (a transient failure: the error
// matches none of the library's config or auth sentinels) is reported,
// and tried again only after a back-off that doubles, recorded in the
// store, by any worker; the other copies are synced meanwhile. RunOnce
// returns the failure with its count.
func TestWorkerBacksOffAFailingCopy(t *testing.T) {
	// Not in parallel: its leases and backoffs are on the real clock.
	ctx := context.Background()
	st, err := store.OpenSQLite(ctx, t.TempDir()+"/copies.db")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, urls := startWorkerFakes(t)
	if err := st.Register(ctx, "zd-a", "groups"); err != nil {
		t.Fatal(err)
	}
	if err := st.Register(ctx, "broken", "things"); err != nil {
		t.Fatal(err)
	}
	errBroken := errors.New("no such account")
	open := workerOpener(urls, nil)
	opener := func(ctx context.Context, name string) (tributary.Connector, error) {
		if name == "broken" {
			return nil, errBroken
		}
		return open(ctx, name)
	}
	var mu sync.Mutex
	reports := map[string][]error{}
	report := func(connector string, rep replica.EntityReport, err error) {
		mu.Lock()
		defer mu.Unlock()
		reports[connector] = append(reports[connector], err)
	}
	w := replica.NewWorker(st, opener, replica.WithOwner("a"), replica.WithEvery(time.Hour), replica.WithPoll(300*time.Millisecond),
		replica.WithReplicaOptionsFor(workerReplicaOptions(t)), replica.WithReport(report))
	n, err := w.RunOnce(ctx)
	if n != 2 || !errors.Is(err, errBroken) || !strings.Contains(err.Error(), "broken things") {
		t.Fatalf("RunOnce: %d syncs, %v", n, err)
	}
	// Its back-off is in the store: another worker does not retry it at
	// once, and the claim was released.
	if f, err := st.CopyFailure(ctx, "broken", "things"); err != nil || f == nil || f.Class != store.FailureTransient || f.RetryAt.Sub(f.FailedAt) != 300*time.Millisecond {
		t.Fatalf("the recorded failure: %+v %v", f, err)
	}
	if cs, err := st.Copies(ctx); err != nil || cs[0].Owner != "" {
		t.Fatalf("the failed copy's claim is kept: %+v %v", cs, err)
	}
	other := replica.NewWorker(st, opener, replica.WithOwner("b"), replica.WithEvery(time.Hour), replica.WithReport(report))
	if n, err := other.RunOnce(ctx); n != 0 || err != nil {
		t.Fatalf("another worker retried the failed copy at once: %d syncs, %v", n, err)
	}

	// A worker runs for a while: once the first back-off is over, the
	// broken copy is tried again a few times, with a back-off that
	// doubles (20, 40, 80, 160, 320 ms), not in a loop.
	const poll = 20 * time.Millisecond
	w = replica.NewWorker(st, opener, replica.WithOwner("c"), replica.WithEvery(time.Hour), replica.WithPoll(poll), replica.WithReport(report))
	rctx, stop := context.WithTimeout(ctx, time.Second)
	defer stop()
	if err := w.Run(rctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	tries := len(reports["broken"]) - 1
	if tries < 3 || tries > 8 {
		t.Errorf("the broken copy was tried %d times in a second with a back-off from %s", tries, poll)
	}
	for _, err := range reports["broken"] {
		if !errors.Is(err, errBroken) {
			t.Errorf("reported: %v", err)
		}
	}
	if len(reports["zd-a"]) != 1 || reports["zd-a"][0] != nil {
		t.Errorf("the working copy's reports: %v", reports["zd-a"])
	}
	t.Logf("the broken copy was tried %d times", tries)
}

// Forget makes the next claim open the connector again.
func TestWorkerForgetReopens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.OpenSQLite(ctx, t.TempDir()+"/copies.db")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, urls := startWorkerFakes(t)
	if err := st.Register(ctx, "zd-a", "groups", "organizations"); err != nil {
		t.Fatal(err)
	}
	var opens atomic.Int64
	w := replica.NewWorker(st, workerOpener(urls, &opens), replica.WithEvery(0), replica.WithReplicaOptionsFor(workerReplicaOptions(t)))
	if n, err := w.RunOnce(ctx); n != 2 || err != nil || opens.Load() != 1 {
		t.Fatalf("%d syncs, %d opens: %v", n, opens.Load(), err)
	}
	w.Forget("zd-a")
	if n, err := w.RunOnce(ctx); n != 2 || err != nil || opens.Load() != 2 {
		t.Fatalf("after Forget: %d syncs, %d opens: %v", n, opens.Load(), err)
	}
	if !strings.HasPrefix(w.Owner(), func() string { h, _ := os.Hostname(); return h }()+"-") {
		t.Errorf("default owner %q", w.Owner())
	}
}

// A worker waiting out a long idle poll looks for due copies as soon as
// Wake is called: a copy registered while it waits is synchronized at
// once, not an hour later; and Wake never blocks, however often called.
func TestWorkerWake(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := store.OpenSQLite(ctx, t.TempDir()+"/copies.db")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, urls := startWorkerFakes(t)
	var opens atomic.Int64
	w := replica.NewWorker(st, workerOpener(urls, &opens), replica.WithEvery(time.Hour), replica.WithPoll(time.Hour),
		replica.WithReplicaOptionsFor(workerReplicaOptions(t)))
	for range 3 {
		w.Wake() // before Run: remembered once, never blocking
	}
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	defer func() { cancel(); <-done }()
	time.Sleep(50 * time.Millisecond) // Run finds nothing due and waits its hour
	if err := st.Register(ctx, "zd-a", "groups"); err != nil {
		t.Fatal(err)
	}
	w.Wake()
	deadline := time.Now().Add(20 * time.Second)
	for opens.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the copy registered during the idle wait was not synchronized after Wake")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// inFlight counts the requests in flight, in all and per connector, and
// the most of each it saw; each request is held d.
type inFlight struct {
	d        time.Duration
	mu       sync.Mutex
	all, max int
	per      map[string]int
	perMax   int
}

func (f *inFlight) transport(name string) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		f.mu.Lock()
		f.all++
		f.per[name]++
		f.max = max(f.max, f.all)
		f.perMax = max(f.perMax, f.per[name])
		f.mu.Unlock()
		defer func() {
			f.mu.Lock()
			f.all--
			f.per[name]--
			f.mu.Unlock()
		}()
		time.Sleep(f.d)
		return http.DefaultTransport.RoundTrip(req)
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// WithConcurrency(n): one Run keeps n syncs in flight while that many
// connectors have copies due, never more, and never two of one connector.
func TestWorkerConcurrency(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := store.OpenSQLite(ctx, t.TempDir()+"/copies.db")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	kc := workerCase("zd-a")
	fake, url := kc.start()
	defer fake.Close()
	const n, connectors = 3, 7
	flight := &inFlight{d: 100 * time.Millisecond, per: map[string]int{}}
	open := func(_ context.Context, name string) (tributary.Connector, error) {
		return openWorkerConn("zd-a", url, tributary.WithHTTPClient(&http.Client{Transport: flight.transport(name)}))
	}
	for i := range connectors {
		if err := st.Register(ctx, fmt.Sprintf("c%d", i), "groups", "organizations"); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range runSyncs(t, st, open, "zd-a", n, 2*connectors) {
		if !strings.HasSuffix(r, ":<nil>") {
			t.Fatalf("a sync failed: %s", r)
		}
	}
	flight.mu.Lock()
	defer flight.mu.Unlock()
	if flight.max != n || flight.perMax != 1 {
		t.Fatalf("at most %d requests in flight, %d of one connector; want %d (WithConcurrency) and 1", flight.max, flight.perMax, n)
	}
}

// A sync that a vendor's rate limit makes wait (here a 429 asking for 2 s)
// gives its place to another connector's copy while it waits, and then
// finishes: a Run of one sync at a time synchronizes the three other
// connectors meanwhile, where it used to wait with them.
func TestThrottledSyncGivesUpItsPlace(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := store.OpenSQLite(ctx, t.TempDir()+"/copies.db")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	kc := workerCase("hs-b")
	healthy, url := kc.start()
	defer healthy.Close()
	k, _ := fakes.Of(kc.kind)
	throttled := k.Start(0)
	defer throttled.Close()
	throttled.SetFaults(fakeserver.Faults{RateLimitFirst: 1, RetryAfter: 2 * time.Second})
	urls := map[string]string{"a-throttled": throttled.BaseURL(), "b": url, "c": url, "d": url}
	open := func(_ context.Context, name string) (tributary.Connector, error) {
		return openWorkerConn("hs-b", urls[name], tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 3, MaxRateLimitWait: time.Minute}))
	}
	for name := range urls {
		if err := st.Register(ctx, name, "companies"); err != nil {
			t.Fatal(err)
		}
	}
	order := runSyncs(t, st, open, "hs-b", 1, len(urls))
	if want := []string{"b:<nil>", "c:<nil>", "d:<nil>", "a-throttled:<nil>"}; !slices.Equal(order, want) {
		t.Fatalf("syncs ended in the order %v, want %v: the throttled one (claimed first) waits without its place", order, want)
	}
}

// runSyncs runs a Worker of st, conc syncs at once, over the connectors
// open opens (each with the options of the worker case name), until syncs
// copies were synchronized, and returns each sync as "connector:error",
// in the order they ended.
func runSyncs(t *testing.T, st *store.Store, open replica.Opener, name string, conc, syncs int) []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var order []string
	var synced sync.WaitGroup
	synced.Add(syncs)
	w := replica.NewWorker(st, open, replica.WithConcurrency(conc), replica.WithEvery(time.Hour), replica.WithPoll(time.Hour),
		replica.WithReplicaOptionsFor(func(string) []replica.Option { return workerReplicaOptions(t)(name) }),
		replica.WithReport(func(c string, _ replica.EntityReport, err error) {
			mu.Lock()
			order = append(order, fmt.Sprintf("%s:%v", c, err))
			mu.Unlock()
			synced.Done()
		}))
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	synced.Wait()
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	return slices.Clone(order)
}
