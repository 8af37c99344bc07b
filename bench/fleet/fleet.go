package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/server"
	"github.com/tributary-dev/tributary/webhook"
)

// config is what a fleet run is made of (the command's flags).
type config struct {
	connectors, procs, tenants  int
	duration, syncEvery, sample time.Duration
	syncWorkers                 int
	pool                        int // pool_max_conns of each process's store (0: poolShare)
	postgres, bin, root         string
	records, large, largeN      int
	latency                     time.Duration
	mutateEvery, drain          time.Duration
	settle                      time.Duration // how long after a change a sync must see it before it counts as lost
	kill                        bool
	killAt                      time.Duration
	createWorkers               int
	log                         io.Writer // progress lines; nil: none
}

// fleet is a running fleet.
type fleet struct {
	cfg     config
	dir     string
	db      *pgxpool.Pool
	fronts  []*front
	byKind  map[string]*front
	hooks   *receiver
	procs   []*proc
	admin   string
	conns   []string // connector id by account, "" until created
	connsMu sync.RWMutex
	mut     *mutator
}

func (f *fleet) logf(format string, args ...any) {
	if f.cfg.log != nil {
		fmt.Fprintf(f.cfg.log, "fleet: "+format+"\n", args...)
	}
}

// validate names the first setting that cannot make a fleet.
func (c config) validate() error {
	switch {
	case c.connectors < 1 || c.connectors >= 1_000_000:
		return fmt.Errorf("-c %d: from 1 to 999,999 connectors", c.connectors)
	case c.procs < 1:
		return fmt.Errorf("-procs %d: at least one process", c.procs)
	case c.tenants < 1:
		return fmt.Errorf("-tenants %d: at least one tenant", c.tenants)
	case c.duration <= 0 || c.sample <= 0:
		return errors.New("-d and -sample must be positive")
	case c.syncWorkers < 0:
		return fmt.Errorf("-sync-workers %d: not negative (0: serve's default)", c.syncWorkers)
	case c.pool < 0 || c.pool > 1000:
		return fmt.Errorf("-pool %d: from 0 (%d shared by the processes) to 1,000", c.pool, poolShare)
	case c.records < 1 || c.largeN < 1 || c.large < 0:
		return errors.New("-records and -large-records must be positive, -large not negative")
	case c.latency < 0 || c.mutateEvery < 0 || c.drain < 0:
		return errors.New("-latency, -change-every and -drain must not be negative")
	}
	return nil
}

// poolShare is the PostgreSQL connections the processes share unless
// -pool says otherwise: on this 2-core machine, 64 (16 a process, the
// store's default, four processes) left the database's CPU to a queue
// of backends, the console's list waiting in it (p95 289 ms at 1,000
// connectors), where 16 in all did more syncs (docs/scale.md).
const poolShare = 16

// poolSize is each process's pool_max_conns.
func (c config) poolSize() int {
	if c.pool > 0 {
		return c.pool
	}
	return max(2, poolShare/c.procs)
}

// run starts the fleet, runs it for cfg.duration, and measures it. It
// gives the report to emit, if set, before it stops the fleet: removing
// the database's files after a large run takes minutes.
func run(ctx context.Context, cfg config, emit func(*report) error) (_ *report, err error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	f := &fleet{cfg: cfg, byKind: map[string]*front{}, conns: make([]string, cfg.connectors),
		mut: &mutator{made: map[int]int{}}}
	f.mut.rng = rand.New(rand.NewPCG(1, 2))
	if f.dir, err = os.MkdirTemp("", "bench-fleet-"); err != nil {
		return nil, err
	}
	defer os.RemoveAll(f.dir)
	var cleanups []func()
	defer func() {
		f.logf("stopping the fleet and removing its files")
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}()

	dsn := cfg.postgres
	if dsn == "" {
		var stop func() error
		if dsn, stop, err = pgtest.Start(); err != nil {
			return nil, fmt.Errorf("starting PostgreSQL: %w", err)
		}
		cleanups = append(cleanups, func() { _ = stop() })
	}
	// The bench's own pool is small: it shares the database's connections
	// with the processes it measures.
	pool, err := pgxpool.New(ctx, withParam(dsn, "pool_max_conns", 2))
	if err != nil {
		return nil, err
	}
	f.db = pool
	cleanups = append(cleanups, pool.Close)

	bin := cfg.bin
	if bin == "" {
		f.logf("building cmd/tributary")
		if bin, err = build(ctx, cfg.root, f.dir); err != nil {
			return nil, err
		}
	}
	lat := logNormal(cfg.latency, 0.45, 100, 4, 7)
	// The large accounts are spread over the connectors and the kinds:
	// the j-th is the first of kind j mod 7 from connector j*stride on.
	large := map[int]bool{}
	if stride := cfg.connectors / max(cfg.large, 1); cfg.large > 0 && stride > 0 {
		nk := len(specs())
		for j := range cfg.large {
			i := j*stride + ((j%nk)-(j*stride)%nk+nk)%nk
			if i < cfg.connectors {
				large[i] = true
			}
		}
	}
	sizeOf := func(i int) int {
		if large[i] {
			return cfg.largeN
		}
		return cfg.records
	}
	for _, sp := range specs() {
		fr, err := newFront(sp, cfg.procs, lat, sizeOf)
		if err != nil {
			return nil, err
		}
		f.fronts = append(f.fronts, fr)
		f.byKind[sp.kind] = fr
		cleanups = append(cleanups, fr.close)
	}
	stopTrim := every(ctx, 10*time.Second, func() {
		for _, fr := range f.fronts {
			fr.trimLogs()
		}
	})
	cleanups = append(cleanups, stopTrim)
	if f.hooks, err = newReceiver(); err != nil {
		return nil, err
	}
	cleanups = append(cleanups, f.hooks.close)

	env, clients, err := f.env()
	if err != nil {
		return nil, err
	}
	for p := range cfg.procs {
		args := []string{"--store", withParam(dsn, "pool_max_conns", cfg.poolSize()), "--sync-every", cfg.syncEvery.String()}
		if cfg.syncWorkers > 0 {
			args = append(args, "--sync-workers", strconv.Itoa(cfg.syncWorkers))
		}
		for _, fr := range f.fronts {
			args = append(args, "--vendor-url", fr.spec.kind+"="+fr.urls[p])
		}
		pr, err := startProc(ctx, bin, f.dir, p, args, env)
		if err != nil {
			return nil, err
		}
		f.procs = append(f.procs, pr)
		cleanups = append(cleanups, pr.stop)
	}
	f.logf("%d processes listening; PostgreSQL at %s", len(f.procs), redactDSN(dsn))

	rep := &report{Config: cfg.describe()}
	start := time.Now()
	t0, err := totals(ctx, f.db)
	if err != nil {
		return nil, err
	}
	for _, p := range f.procs {
		if p.cpu0, err = cpuTime(p.cmd.Process.Pid); err != nil {
			return nil, err
		}
	}

	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	mutCtx, stopMut := context.WithCancel(runCtx)
	defer stopMut()
	var wg sync.WaitGroup
	// The mutation stream starts with the connectors: each account's
	// changes begin once its connector exists.
	wg.Go(func() {
		f.mut.run(mutCtx, cfg.connectors, cfg.mutateEvery, func(i int) (string, *front) {
			f.connsMu.RLock()
			defer f.connsMu.RUnlock()
			return f.conns[i], f.fronts[i%len(f.fronts)]
		})
	})
	var samples []*sample
	var sampleErr error
	var smu sync.Mutex
	wg.Go(func() {
		tick := time.NewTicker(cfg.sample)
		defer tick.Stop()
		for {
			s, err := take(runCtx, f.db)
			smu.Lock()
			if err != nil && runCtx.Err() == nil {
				sampleErr = err
			} else if err == nil {
				samples = append(samples, s)
			}
			smu.Unlock()
			select {
			case <-runCtx.Done():
				return
			case <-tick.C:
			}
		}
	})
	var act activity
	wg.Go(func() { act.watch(runCtx, f.db, time.Second) })
	var consoleLat []time.Duration
	var consoleErr atomic.Value
	wg.Go(func() {
		lat, err := f.watchConsole(runCtx)
		consoleLat = lat
		if err != nil {
			consoleErr.Store(err)
		}
	})

	created, createTime, err := f.create(runCtx, clients)
	if err != nil {
		stopRun()
		wg.Wait()
		return nil, err
	}
	rep.Created, rep.CreateSeconds = created, createTime.Seconds()
	f.logf("%d connectors created in %v", created, createTime.Round(time.Millisecond))

	var kill killReport
	if cfg.kill && len(f.procs) > 1 {
		victim := f.procs[len(f.procs)-1]
		if waitCtx(runCtx, time.Until(start.Add(cfg.killAt))) {
			kill, err = f.killOne(runCtx, victim, start.Add(cfg.duration*9/10))
			if err != nil {
				stopRun()
				wg.Wait()
				return nil, err
			}
			f.logf("killed serve %d (pid %d) holding %d copies", kill.Process, kill.pid, len(kill.held))
		}
	}
	waitCtx(runCtx, time.Until(start.Add(cfg.duration)))
	end := time.Now()
	// Stop the changes, then give the fleet the drain to catch up, while
	// the sampling and the console go on.
	stopMut()
	mutations, mutErrs := f.mut.snapshot()
	rep.MutationErrors = mutErrs
	f.logf("ran %v; %d changes made; draining up to %v", end.Sub(start).Round(time.Second), len(mutations), cfg.drain)
	var check *mutationCheck
	for deadline := time.Now().Add(cfg.drain); ; {
		if check, err = f.checkMutations(runCtx, mutations); err != nil {
			stopRun()
			wg.Wait()
			return nil, err
		}
		if check.complete() || !time.Now().Before(deadline) {
			break
		}
		if !waitCtx(runCtx, min(5*time.Second, time.Until(deadline))) {
			break
		}
	}
	drained := time.Now()
	stopRun()
	wg.Wait()
	if sampleErr != nil {
		return nil, fmt.Errorf("sampling the copies: %w", sampleErr)
	}
	if e, ok := consoleErr.Load().(error); ok {
		return nil, fmt.Errorf("the console: %w", e)
	}
	if s, err := take(ctx, f.db); err == nil {
		samples = append(samples, s)
	}
	t1, err := totals(ctx, f.db)
	if err != nil {
		return nil, err
	}
	for _, p := range f.procs {
		if p.killed {
			continue
		}
		cpu, err := cpuTime(p.cmd.Process.Pid)
		if err != nil {
			return nil, err
		}
		p.cpu = cpu - p.cpu0
		if p.syncs, err = completedSyncs(ctx, p); err != nil {
			return nil, fmt.Errorf("serve %d's metrics: %w", p.n, err)
		}
	}
	syncs, err := syncsBetween(ctx, f.db, start, drained)
	if err != nil {
		return nil, err
	}
	rep.fill(f, samples, start, end, drained, t0, t1, syncs, consoleLat, kill, check)
	rep.PGBusyWith = act.top(8)
	if emit != nil {
		if err := emit(rep); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// withParam is the URL dsn with the query parameter name=n added, or dsn
// when n is 0.
func withParam(dsn, name string, n int) string {
	switch {
	case n == 0:
		return dsn
	case strings.Contains(dsn, "?"):
		return dsn + "&" + name + "=" + strconv.Itoa(n)
	}
	return dsn + "?" + name + "=" + strconv.Itoa(n)
}

// redactDSN drops a DSN's password for the log.
func redactDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(a DSN)"
	}
	return u.Redacted()
}

// env is the processes' environment: keys, clients (each with the
// receiver as its webhook endpoint, sync.completed only when records
// changed), the console's password; and the clients' ids and secrets.
func (f *fleet) env() ([]string, []server.Client, error) {
	keys, err := server.GenerateKey("fleet")
	if err != nil {
		return nil, nil, err
	}
	var yaml strings.Builder
	yaml.WriteString("clients:\n")
	var clients []server.Client
	for t := range f.cfg.tenants {
		secret, err := webhook.NewSecret()
		if err != nil {
			return nil, nil, err
		}
		c := server.Client{ID: fmt.Sprintf("tenant-%02d", t), Secret: fmt.Sprintf("fleet-client-secret-%04d-0123456789", t)}
		clients = append(clients, c)
		fmt.Fprintf(&yaml, "  - id: %s\n    secret: %q\n    webhooks:\n      - url: %s\n        secret: %q\n        changes_only: true\n",
			c.ID, c.Secret, f.hooks.url, secret)
	}
	f.admin = "fleet-operator-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	return []string{"TRIBUTARY_SERVE_KEYS=" + keys, "TRIBUTARY_SERVE_CLIENTS=" + yaml.String(), "TRIBUTARY_ADMIN_PASSWORD=" + f.admin}, clients, nil
}

// create creates the connectors through the service's API, spread over
// the kinds, the tenants, their users (three connectors each) and the
// processes (as a load balancer would).
func (f *fleet) create(ctx context.Context, clients []server.Client) (int, time.Duration, error) {
	began := time.Now()
	jobs := make(chan int)
	var (
		mu      sync.Mutex
		firstEr error
		n       int
		hc      = map[string]*hosted.Client{}
	)
	clientFor := func(i int) (*hosted.Client, error) {
		user := i / 3
		c := clients[user%len(clients)]
		base := f.procs[i%len(f.procs)].url
		key := c.ID + "/" + strconv.Itoa(user) + "@" + base
		mu.Lock()
		defer mu.Unlock()
		if h := hc[key]; h != nil {
			return h, nil
		}
		h, err := hosted.New(hosted.Config{BaseURL: base, ClientID: c.ID, ClientSecret: c.Secret, ExternalUserID: "user-" + strconv.Itoa(user)},
			tributary.WithTimeouts(tributary.Timeouts{ResponseHeader: 2 * time.Minute}))
		if err != nil {
			return nil, err
		}
		hc[key] = h
		return h, nil
	}
	var wg sync.WaitGroup
	for range max(f.cfg.createWorkers, 1) {
		wg.Go(func() {
			for i := range jobs {
				fr := f.fronts[i%len(f.fronts)]
				h, err := clientFor(i)
				var id string
				if err == nil {
					id, err = h.CreateConnector(ctx, hosted.CreateRequest{ConnectorType: fr.spec.kind, Name: fmt.Sprintf("fleet %d", i),
						Credentials: fr.spec.credentials(i), ReplicationConfig: fr.spec.replication})
				}
				mu.Lock()
				if err != nil && firstEr == nil {
					firstEr = fmt.Errorf("creating connector %d (%s): %w", i, fr.spec.kind, err)
				}
				if err == nil {
					n++
				}
				mu.Unlock()
				if err == nil {
					f.connsMu.Lock()
					f.conns[i] = id
					f.connsMu.Unlock()
				}
			}
		})
	}
	for i := range f.cfg.connectors {
		mu.Lock()
		failed := firstEr != nil
		mu.Unlock()
		if failed || ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return n, time.Since(began), firstEr
}

// killReport is what the kill did.
type killReport struct {
	Process int       `json:"process"`
	At      time.Time `json:"at"`
	pid     int
	held    []copyKey
}

// waitForClaims waits until p holds a claim (a sync under way), so that
// the kill has copies to take over, or until deadline, when the kill goes
// ahead anyway (a fleet idle between rounds holds none). False when ctx
// ended.
func (f *fleet) waitForClaims(ctx context.Context, p *proc, deadline time.Time) bool {
	for time.Now().Before(deadline) {
		var n int
		err := f.db.QueryRow(ctx, "SELECT count(*) FROM tributary_entities WHERE lease_owner LIKE $1 AND lease_expires >= "+nowMS,
			ownedBy(p.cmd.Process.Pid)).Scan(&n)
		if err == nil && n > 0 {
			return true
		}
		if !waitCtx(ctx, 200*time.Millisecond) {
			return false
		}
	}
	return ctx.Err() == nil
}

// ownedBy is the LIKE pattern of the claims of the process pid (a serve
// process's workers claim as host:pid:random/n).
func ownedBy(pid int) string { return "%:" + strconv.Itoa(pid) + ":%" }

// killOne SIGKILLs p as soon as it holds a claim (waitForClaims, until
// deadline), having read its syncs just before (its /metrics, which can
// take seconds on a loaded machine: read first, so that its claims are not
// over by the kill) and its CPU time at the kill, and notes the copies it
// held (its live claims) at that moment.
func (f *fleet) killOne(ctx context.Context, p *proc, deadline time.Time) (killReport, error) {
	k := killReport{Process: p.n, pid: p.cmd.Process.Pid}
	syncs, err := completedSyncs(ctx, p)
	if err != nil {
		return k, fmt.Errorf("serve %d's metrics before the kill: %w", p.n, err)
	}
	if !f.waitForClaims(ctx, p, deadline) {
		return k, ctx.Err()
	}
	cpu, err := cpuTime(k.pid)
	if err != nil {
		return k, err
	}
	p.kill()
	k.At = time.Now()
	p.syncs, p.cpu = syncs, cpu-p.cpu0
	rows, err := f.db.Query(ctx, "SELECT connector, entity FROM tributary_entities WHERE lease_owner LIKE $1 AND lease_expires >= "+nowMS,
		ownedBy(k.pid))
	if err != nil {
		return k, err
	}
	defer rows.Close()
	for rows.Next() {
		var c copyKey
		if err := rows.Scan(&c.connector, &c.entity); err != nil {
			return k, err
		}
		k.held = append(k.held, c)
	}
	return k, rows.Err()
}

// watchConsole signs in to the first process's console and reads its
// connector list every two seconds until ctx ends: the latencies.
func (f *fleet) watchConsole(ctx context.Context) ([]time.Duration, error) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	base := f.procs[0].url
	if err := login(ctx, c, base, f.admin); err != nil {
		return nil, err
	}
	var out []time.Duration
	for {
		if !waitCtx(ctx, 2*time.Second) {
			return out, nil
		}
		t := time.Now()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/console/connectors", nil)
		res, err := c.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return out, nil
			}
			return out, err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return out, fmt.Errorf("GET /console/connectors: %s", res.Status)
		}
		out = append(out, time.Since(t))
	}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// login signs c in to the console at base.
func login(ctx context.Context, c *http.Client, base, password string) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/console/login", nil)
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := csrfField.FindSubmatch(page)
	if m == nil {
		return errors.New("no csrf field on the console's sign-in page")
	}
	form := url.Values{"password": {password}, "csrf": {string(m[1])}, "next": {"/console/connectors"}}
	req, _ = http.NewRequestWithContext(ctx, http.MethodPost, base+"/console/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err = c.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.HasSuffix(res.Request.URL.Path, "/console/connectors") {
		return fmt.Errorf("signing in to the console: %s at %s", res.Status, res.Request.URL.Path)
	}
	return nil
}

// every runs fn every d until ctx ends or the returned stop is called.
func every(ctx context.Context, d time.Duration, fn func()) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for waitCtx(ctx, d) {
			fn()
		}
	}()
	return func() { cancel(); <-done }
}
