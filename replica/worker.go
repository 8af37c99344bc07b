package replica

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/transport"
	"github.com/tributary-dev/tributary/store"
)

// minRenewTTL is how long SyncClaimed renews a claim for when the claim
// had (by this machine's clock) no time left when the sync began.
const minRenewTTL = time.Second

// SyncClaimed brings the copy that c claims (c.Entity) up to date, as Sync
// does (incrementally when it can), with every write fenced by c
// (store.Fenced): once another worker has taken the copy over, nothing
// more is written and SyncClaimed returns an error matching
// store.ErrLeaseLost. While it runs, the claim is renewed in the
// background every third of the time it had left when SyncClaimed began,
// for that time (a Worker renews for its lease TTL instead); a renewal
// that finds the claim lost stops the sync at once. The replica must be
// durable (Open) and its name (WithName) must be c.Connector. The load
// options opts apply to the sync's writes besides the fence (store.WithEvent:
// an event written with its last transaction).
func (r *Replica) SyncClaimed(ctx context.Context, c *store.Claim, opts ...store.LoadOption) (EntityReport, error) {
	if c == nil {
		return EntityReport{}, fmt.Errorf("replica: SyncClaimed without a claim: %w", store.ErrInvalid)
	}
	ttl := time.Until(c.Expires)
	if ttl < minRenewTTL {
		ttl = minRenewTTL
	}
	return r.syncClaimed(ctx, c, ttl, ttl/3, opts...)
}

// syncClaimed is SyncClaimed renewing c for ttl every renewEvery, with
// the load options extra besides the fence.
func (r *Replica) syncClaimed(ctx context.Context, c *store.Claim, ttl, renewEvery time.Duration, extra ...store.LoadOption) (EntityReport, error) {
	if c == nil {
		return EntityReport{}, fmt.Errorf("replica: SyncClaimed without a claim: %w", store.ErrInvalid)
	}
	rep := EntityReport{Entity: c.Entity, Mode: Full}
	if r.st == nil {
		return rep, fmt.Errorf("replica: %s %s: a claimed sync needs a durable replica (replica.Open with a store): %w", c.Connector, c.Entity, store.ErrInvalid)
	}
	if c.Connector != r.name {
		return rep, fmt.Errorf("replica: the claim is for connector %q, but this replica keeps its copies as %q (WithName): %w", c.Connector, r.name, store.ErrInvalid)
	}
	sctx, stopSync := context.WithCancelCause(ctx)
	defer stopSync(nil)
	rctx, stopRenew := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(renewEvery)
		defer tick.Stop()
		for {
			select {
			case <-rctx.Done():
				return
			case <-tick.C:
				// Another error (the database unreachable for a moment) is
				// tried again at the next tick; the fence keeps the copy
				// safe should the claim lapse meanwhile.
				if err := c.Renew(rctx, ttl); errors.Is(err, store.ErrLeaseLost) {
					stopSync(err)
					return
				}
			}
		}
	})
	// The renewer runs while this waits for another sync of the replica
	// (another entity of the connector) to end.
	r.syncMu.Lock()
	rep, err := r.syncOne(sctx, c.Entity, false, append([]store.LoadOption{store.Fenced(c)}, extra...))
	r.syncMu.Unlock()
	stopRenew()
	wg.Wait()
	if cause := context.Cause(sctx); err != nil && errors.Is(cause, store.ErrLeaseLost) && !errors.Is(err, store.ErrLeaseLost) {
		err = fmt.Errorf("%w (the sync stopped: %w)", cause, err)
	}
	return rep, err
}

// Opener returns the connector whose copies are named connector (its id
// in the store).
type Opener func(ctx context.Context, connector string) (tributary.Connector, error)

// Worker keeps every copy registered in a store current: it claims the
// entity whose copy is the most overdue, syncs it under the claim,
// releases it and goes on. Several workers (in one process or many, on
// one database) share the work; a dead worker's claims expire and are
// taken over.
//
// The worker syncs what is registered in the store and nothing else:
// registering is the caller's job, st.Register(ctx, connector,
// entities...), where connector is the name the Opener knows the
// connector by (and the name the copies are kept under). A copy
// synchronized by a Replica outside any worker is registered too.
//
// A Run keeps up to WithConcurrency's number of syncs in flight (one by
// default), each of a different connector, sharing the worker's open
// connectors; RunOnce runs one at a time. It is safe for concurrent use.
//
// One vendor account, one rate budget: the store never lets two workers,
// in one process or many, claim copies of one connector at once
// (store.ClaimNext), so a connector's syncs run one after the other and
// its pacer (kinds' With…RateLimit) is the only one spending the vendor's
// budget at any time; more workers sync more connectors at once, not one
// connector faster. A worker that finishes a copy claims the connector's
// next due copy at once, so the connector rarely changes process while
// it has copies due. server's TestServeBudget measures it: two serve
// processes on one PostgreSQL store, one Zendesk account whose fake
// enforces 40 requests per 2-second window, 12 copies (ticket_comments
// one request per ticket of 300): 0 throttled answers, 94-95% of the
// budget used over the busy windows. Where the connector does change
// process, the new process's pacer starts without the old one's history:
// within one window both together may send up to 5% more than the limit
// (each pacer's rate is 95% of it, its burst the other 5%, and both
// bursts may fall in that window), which the vendor's 429 and
// Retry-After, honoured by the retrying transport, absorb.
type Worker struct {
	st       *store.Store
	open     Opener
	owner    string
	every    time.Duration
	conc     int
	ttl      time.Duration
	poll     time.Duration
	log      *slog.Logger
	ropts    []Option
	roptsFor func(connector string) []Option
	report   func(connector string, rep EntityReport, err error)
	lopts    func(connector, entity string) []store.LoadOption
	fopts    func(connector, entity string, err error) []store.EventOption

	mu       sync.Mutex
	replicas map[string]*Replica // by connector

	wake chan struct{} // Wake's signal to an idle Run: look again now
}

type copyKey struct{ connector, entity string }

// WorkerOption configures a Worker.
type WorkerOption func(*Worker)

// WithOwner names the worker in the claims it takes (default: the host
// name, the process id and a random suffix). Every worker needs its own.
func WithOwner(owner string) WorkerOption {
	return func(w *Worker) {
		if owner != "" {
			w.owner = owner
		}
	}
}

// WithEvery sets how often a copy is synchronized: a copy synchronized
// less than d ago is not due (default 5 minutes).
func WithEvery(d time.Duration) WorkerOption { return func(w *Worker) { w.every = max(d, 0) } }

// WithConcurrency sets how many copies one Run synchronizes at once, at
// most (default 1). A sync mostly waits for its vendor, so a process
// keeps many in flight; Run claims what it has room for in one
// transaction (store.ClaimDue) and claims again as each sync ends, so the
// syncs in flight follow the work that is due, up to n. Each is of a
// different connector (one sync per vendor account at a time, across
// every worker and process); n bounds the memory (about one page of
// records a sync) and the store connections the syncs wait for.
func WithConcurrency(n int) WorkerOption { return func(w *Worker) { w.conc = max(n, 1) } }

// WithLeaseTTL sets how long a claim lasts unless renewed (default one
// minute): how long a dead worker's copy waits before another takes it
// over. The claim is renewed every third of it while the sync runs.
func WithLeaseTTL(d time.Duration) WorkerOption {
	return func(w *Worker) {
		if d > 0 {
			w.ttl = d
		}
	}
}

// WithPoll sets how long an idle worker waits before it looks for a due
// copy again (default: the smaller of WithEvery's duration and 5
// seconds). It is also the first back-off of a copy whose sync failed
// transiently, which doubles with every consecutive failure up to
// WithEvery's duration (Run).
func WithPoll(d time.Duration) WorkerOption {
	return func(w *Worker) {
		if d > 0 {
			w.poll = d
		}
	}
}

// WithWorkerLogger makes the worker log failures and take-overs to l
// (default: nowhere).
func WithWorkerLogger(l *slog.Logger) WorkerOption {
	return func(w *Worker) {
		if l != nil {
			w.log = l
		}
	}
}

// WithReplicaOptions passes opts to replica.Open for every connector
// (WithName is the worker's: the connector's name in the store).
func WithReplicaOptions(opts ...Option) WorkerOption {
	return func(w *Worker) { w.ropts = append(w.ropts, opts...) }
}

// WithReplicaOptionsFor passes f(connector) to replica.Open for that
// connector, after WithReplicaOptions' (for example the params of
// GitHub's issues, which name a repository).
func WithReplicaOptionsFor(f func(connector string) []Option) WorkerOption {
	return func(w *Worker) { w.roptsFor = f }
}

// WithReport calls f after each claimed sync, from the worker's
// goroutine, with what it did or why it failed (the service counts
// metrics from it); a sync stopped because Run's context ended is
// reported with the error it ended with. f must not block for long.
func WithReport(f func(connector string, rep EntityReport, err error)) WorkerOption {
	return func(w *Worker) { w.report = f }
}

// WithLoadOptions adds f(connector, entity) to the load options of each
// claimed sync (after store.Fenced): store.WithEvent, to write an event in
// the sync's last transaction.
func WithLoadOptions(f func(connector, entity string) []store.LoadOption) WorkerOption {
	return func(w *Worker) { w.lopts = f }
}

// WithFailureEvents adds f(connector, entity, err) to the recording of a
// claimed sync's failure (store.RecordFailure), which writes the events it
// emits (store.Emit) in the failure's transaction.
func WithFailureEvents(f func(connector, entity string, err error) []store.EventOption) WorkerOption {
	return func(w *Worker) { w.fopts = f }
}

// NewWorker returns a worker that keeps the copies registered in st
// current, opening their connectors with open.
func NewWorker(st *store.Store, open Opener, opts ...WorkerOption) *Worker {
	w := &Worker{st: st, open: open, every: 5 * time.Minute, ttl: time.Minute, conc: 1,
		replicas: map[string]*Replica{}, wake: make(chan struct{}, 1)}
	for _, o := range opts {
		o(w)
	}
	if w.owner == "" {
		w.owner = defaultOwner()
	}
	if w.poll == 0 {
		w.poll = min(w.every, 5*time.Second)
		if w.poll <= 0 {
			w.poll = 100 * time.Millisecond
		}
	}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	return w
}

func defaultOwner() string {
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	return host + "-" + strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b[:])
}

// Owner returns the name the worker claims copies under.
func (w *Worker) Owner() string { return w.owner }

// Run syncs due copies, up to WithConcurrency's number at once, until ctx
// ends, then returns nil once each sync in flight has written its current
// page (its copy's claim is released then, for another worker to go on). A copy whose connector does not
// open or whose sync fails is logged and reported, its failure recorded
// in the store (store.RecordFailure, classified by FailureClass: `tributary
// store stats` and Copies show it) and its claim released; the next
// success clears it (store.ClearFailure). No worker, of this process or
// another, claims the copy again (ClaimNext) before: after a
// configuration or authorization failure, the connector's
// store.ResetFailures (its configuration or credentials changed); after
// another, a back-off of WithPoll's duration, doubling with every
// consecutive failure (counted by the store, across restarts and
// processes) up to WithEvery's (or WithPoll's, if longer). Errors of the
// store itself are logged and tried again after WithPoll's duration.
func (w *Worker) Run(ctx context.Context) error {
	if err := w.check(); err != nil {
		return err
	}
	// active counts the syncs in flight that are not waiting for a
	// vendor's rate limit: one that waits a second or more gives its place
	// to another copy until its wait ends (transport.WaitNotifier), so
	// that a throttled account holds no place other accounts could use.
	var active atomic.Int64
	changed := make(chan struct{}, 1)
	signal := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	sctx := transport.WithWaitNotifier(ctx, func(waiting bool) {
		if waiting {
			active.Add(-1)
		} else {
			active.Add(1)
		}
		signal()
	})
	var wg sync.WaitGroup
	defer wg.Wait()
	for ctx.Err() == nil {
		free := w.conc - int(active.Load())
		claimed := 0
		if free > 0 {
			cs, err := w.claimDue(ctx, free)
			if ctx.Err() != nil {
				for _, c := range cs {
					w.release(ctx, c)
				}
				break
			}
			if err != nil {
				w.log.Error("replica worker: looking for a due copy", "owner", w.owner, "err", err)
			}
			for _, c := range cs {
				active.Add(1)
				wg.Go(func() {
					_ = w.handle(sctx, c)
					active.Add(-1)
					signal()
				})
			}
			claimed = len(cs)
			if claimed == free {
				continue // full, or more may be due: look again at once
			}
		}
		// Full, or nothing (more) due: wait for a sync to end or to wait,
		// the poll, a wake.
		var t *time.Timer
		var tick <-chan time.Time
		if int(active.Load()) < w.conc {
			t = time.NewTimer(w.poll)
			tick = t.C
		}
		select {
		case <-ctx.Done():
		case <-changed:
		case <-tick:
		case <-w.wake:
		}
		if t != nil {
			t.Stop()
		}
	}
	return nil
}

// Wake makes an idle Run look for a due copy now rather than at the end
// of its WithPoll wait: a service calls it when it has made copies due
// (a connector's failures reset by new credentials, say), so that they
// resume at once. A Run busy with a copy looks again when it is done;
// Wake never blocks, and wakes one waiting Run once however often it is
// called before that Run looks.
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// RunOnce claims and syncs due copies until none is left (each at most
// once), and returns how many syncs it ran, failed ones included, with
// the failures joined (each names its copy; the others were synchronized
// all the same). A copy another worker holds is left to it.
func (w *Worker) RunOnce(ctx context.Context) (int, error) {
	if err := w.check(); err != nil {
		return 0, err
	}
	done := map[copyKey]bool{}
	var errs []error
	n := 0
	for ctx.Err() == nil {
		c, err := w.claimNext(ctx)
		if c != nil && ctx.Err() != nil {
			w.release(ctx, c)
			break
		}
		if err != nil {
			return n, errors.Join(append(errs, fmt.Errorf("replica worker: looking for a due copy: %w", err))...)
		}
		if c == nil {
			break
		}
		k := copyKey{c.Connector, c.Entity}
		if done[k] {
			// Due again already (WithEvery shorter than a round): the
			// round is over.
			w.release(ctx, c)
			break
		}
		done[k] = true
		n++
		if err := w.handle(ctx, c); err != nil {
			errs = append(errs, fmt.Errorf("replica worker: %s %s: %w", c.Connector, c.Entity, err))
		}
	}
	return n, errors.Join(errs...)
}

func (w *Worker) check() error {
	if w.st == nil || w.open == nil {
		return fmt.Errorf("replica worker: a worker needs a store and an opener: %w", store.ErrInvalid)
	}
	return nil
}

// handle syncs the copy c claims and releases the claim, recording in the
// store how it went.
func (w *Worker) handle(ctx context.Context, c *store.Claim) error {
	rep := EntityReport{Entity: c.Entity, Mode: Full, Started: time.Now()}
	r, err := w.replica(ctx, c.Connector)
	if err == nil {
		var extra []store.LoadOption
		if w.lopts != nil {
			extra = w.lopts(c.Connector, c.Entity)
		}
		rep, err = r.syncClaimed(ctx, c, w.ttl, w.ttl/3, extra...)
	}
	switch {
	case err == nil:
		if c.Failing { // else there is nothing to clear: spare the statement
			actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			if cerr := w.st.ClearFailure(actx, c.Connector, c.Entity); cerr != nil {
				w.log.Warn("replica worker: clearing a copy's failure", "owner", w.owner, "connector", c.Connector, "entity", c.Entity, "err", cerr)
			}
			cancel()
		}
		w.release(ctx, c)
	case errors.Is(err, store.ErrLeaseLost):
		// Another worker has the copy now; nothing to release.
		w.log.Warn("replica worker: claim lost, another worker took the copy over", "owner", w.owner, "connector", c.Connector, "entity", c.Entity, "err", err)
	case ctx.Err() != nil:
		// Stopping: let another worker take the copy over at once. What
		// failed failed because of the stop (PostgreSQL's driver answers a
		// cancelled statement with a dead connection): say so.
		if !errors.Is(err, ctx.Err()) {
			err = fmt.Errorf("%w: %w", ctx.Err(), err)
		}
		w.release(ctx, c)
	default:
		w.forget(c.Connector, r)
		w.failed(ctx, c, err)
	}
	if w.report != nil {
		w.report(c.Connector, rep, err)
	}
	return err
}

// failed records the failure err of the copy c claims in the store, with
// its class and back-off, and releases the claim. Should the store fail to
// record it, the claim is kept, unrenewed, for the first back-off instead,
// so that the copy is not tried again at once.
func (w *Worker) failed(ctx context.Context, c *store.Claim, err error) {
	class := FailureClass(err)
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	var eopts []store.EventOption
	if w.fopts != nil {
		eopts = w.fopts(c.Connector, c.Entity, err)
	}
	f, rerr := c.RecordFailure(actx, class, err.Error(), w.backoff, eopts...)
	if errors.Is(rerr, store.ErrLeaseLost) {
		// Another worker has the copy, or the connector's credentials or
		// configuration changed meanwhile (its failure no longer applies).
		w.log.Warn("replica worker: sync failed after its claim was lost or revoked; the failure is not recorded", "owner", w.owner,
			"connector", c.Connector, "entity", c.Entity, "class", string(class), "err", err)
		return
	}
	if rerr != nil {
		wait := w.backoff(1)
		w.log.Error("replica worker: sync failed, and recording the failure failed", "owner", w.owner, "connector", c.Connector, "entity", c.Entity,
			"class", string(class), "retry_in", wait, "err", err, "record_err", rerr)
		if rerr := c.Renew(actx, wait); rerr != nil && !errors.Is(rerr, store.ErrLeaseLost) {
			_ = c.Release(actx)
		}
		return
	}
	attrs := []any{"owner", w.owner, "connector", c.Connector, "entity", c.Entity, "class", string(f.Class), "failures", f.Failures}
	if f.Class.Permanent() {
		attrs = append(attrs, "retry", "when the connector's configuration or credentials change")
	} else {
		attrs = append(attrs, "retry_at", f.RetryAt)
	}
	w.log.Error("replica worker: sync failed", append(attrs, "err", err)...)
	w.release(ctx, c)
}

// FailureClass classifies a synchronization's error, matched with
// errors.Is against the library's sentinels: store.FailureConfig for a
// configuration the copy cannot be read with (tributary.ErrInvalidParams,
// which an invalid replication_config is too, ErrUnknownEntity,
// ErrUnsupportedAction, ErrUnknownKind, and store.ErrNotFound from an
// Opener that knows no such connector any more); store.FailureAuth for credentials
// the source refuses (ErrUnauthorized, which a failed token refresh is
// too, ErrForbidden, ErrInvalidCredentials); store.FailureTransient for
// anything else (the network, the source's failures, its rate limit, a
// record not found, the store), which may succeed when tried again.
func FailureClass(err error) store.FailureClass {
	switch {
	case errors.Is(err, tributary.ErrUnauthorized), errors.Is(err, tributary.ErrForbidden), errors.Is(err, tributary.ErrInvalidCredentials):
		return store.FailureAuth
	case errors.Is(err, tributary.ErrInvalidParams), errors.Is(err, tributary.ErrUnknownEntity),
		errors.Is(err, tributary.ErrUnsupportedAction), errors.Is(err, tributary.ErrUnknownKind),
		errors.Is(err, store.ErrNotFound): // the Opener knows no such connector (deleted)
		return store.FailureConfig
	}
	return store.FailureTransient
}

// backoff is how long a copy that failed n times in a row waits.
func (w *Worker) backoff(n int) time.Duration {
	limit := max(w.every, w.poll)
	d := w.poll
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}

// release gives c up, even when ctx has ended.
// claimNext claims the most overdue copy, if any; claimDue up to n of
// them. Not under ctx: a claim committed as ctx ends would otherwise be
// unknown to this worker and block the copy until it lapses (the caller
// releases a claim it got while stopping).
func (w *Worker) claimNext(ctx context.Context) (*store.Claim, error) {
	cs, err := w.claimDue(ctx, 1)
	if len(cs) == 0 {
		return nil, err
	}
	return cs[0], err
}

func (w *Worker) claimDue(ctx context.Context, n int) ([]*store.Claim, error) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	return w.st.ClaimDue(cctx, w.owner, w.ttl, w.every, n)
}

func (w *Worker) release(ctx context.Context, c *store.Claim) {
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := c.Release(actx); err != nil {
		w.log.Warn("replica worker: releasing a claim (it lapses by itself)", "owner", w.owner, "connector", c.Connector, "entity", c.Entity, "err", err)
	}
}

// replica returns the worker's replica of connector, opening it the
// first time.
func (w *Worker) replica(ctx context.Context, connector string) (*Replica, error) {
	w.mu.Lock()
	r := w.replicas[connector]
	w.mu.Unlock()
	if r != nil {
		return r, nil
	}
	conn, err := w.open(ctx, connector)
	if err != nil {
		return nil, fmt.Errorf("opening connector %q: %w", connector, err)
	}
	if conn == nil {
		return nil, fmt.Errorf("opening connector %q: the opener returned no connector: %w", connector, store.ErrInvalid)
	}
	opts := append([]Option(nil), w.ropts...)
	if w.roptsFor != nil {
		opts = append(opts, w.roptsFor(connector)...)
	}
	r, err = Open(ctx, conn, Store(w.st), append(opts, WithName(connector))...)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if had := w.replicas[connector]; had != nil {
		return had, nil
	}
	w.replicas[connector] = r
	return r, nil
}

// Forget drops what the worker keeps of connector (its connector and
// replica, opened on the first claim): the next claim of its copies opens
// it again, for example after its credentials changed. A sync in progress
// finishes with the old one.
func (w *Worker) Forget(connector string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.replicas, connector)
}

// forget drops the cached replica r of connector (after a failure: the
// connector is opened again next time).
func (w *Worker) forget(connector string, r *Replica) {
	if r == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.replicas[connector] == r {
		delete(w.replicas, connector)
	}
}
