package main

// Webhook delivery: the outbox's events sent by the service's deliverer to
// a local receiver, against plain HTTP POST loops of the same bodies to
// the same receiver.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/jackc/pgx/v5"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tributary-dev/tributary/store"
	"github.com/tributary-dev/tributary/webhook"
)

// hookConnectors is how many connectors the events are spread over. The
// deliverer sends a connector's events to an endpoint one at a time, in
// order, so its requests in flight are at most the connectors' number and
// at most its batch (webhook.DefaultBatch, which tributary serve keeps):
// as many connectors as the batch let it fill every batch.
const hookConnectors = webhook.DefaultBatch

// hookLatencyEvents bounds the events of the latency phase, committed one
// at a time on an idle deliverer.
const hookLatencyEvents = 500

// hookResult is what the webhook phase measured on one backend.
type hookResult struct {
	backend     string
	events      int
	connectors  int
	concurrency int           // the deliverer's requests in flight at most
	slow        time.Duration // how long the receiver held one request in 16
	bodyBytes   int64
	deliver     phase // the deliverer draining the outbox's backlog
	seq, par    phase // plain POST loops: one, and concurrency in parallel
	dups        int   // requests for an event id received before
	missing     int   // event ids never received
	// Latency from an event's commit (AddEvent's return) to the
	// receiver's reading of its request, an event at a time on an idle
	// deliverer; against one plain POST's, from the call to the same
	// point.
	latN                   int
	lat50, lat99           time.Duration
	postLat50, postLat99   time.Duration
	hookLatency, postLatDs []time.Duration
}

// receiver is the webhook endpoint: it reads each request's body, answers
// 204 and counts the requests by webhook-id (the plain loops send none).
type receiver struct {
	mu    sync.Mutex
	seen  map[string]int
	plain int64
	// arrived, when set, gets the id of each request as it is read.
	arrived chan string
	// slow, when set, is how long one request in 16 is held before its
	// answer: a receiver whose answers vary.
	slow time.Duration
	n    atomic.Int64
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	if rc.slow > 0 && rc.n.Add(1)%16 == 0 {
		time.Sleep(rc.slow)
	}
	id := r.Header.Get("webhook-id")
	rc.mu.Lock()
	if id == "" {
		rc.plain++
	} else {
		rc.seen[id]++
	}
	ch := rc.arrived
	rc.mu.Unlock()
	if ch != nil && id != "" {
		select {
		case ch <- id:
		default:
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

// webhooks measures delivery of n events on the store st opened (named
// backend): the events are written into its outbox first, the plain loops
// send their bodies, then the deliverer drains the outbox; last, events
// are committed one at a time for the latency.
// With slow, the receiver holds one request in 16 that long. With
// profile, it writes a CPU profile of the deliverer's drain there.
func webhooks(ctx context.Context, backend string, st *store.Store, n int, slow time.Duration, profile string, settle func(context.Context) error) (hookResult, error) {
	res := hookResult{backend: backend, events: n, connectors: hookConnectors, concurrency: min(hookConnectors, webhook.DefaultBatch), slow: slow}
	rc := &receiver{seen: map[string]int{}, slow: slow}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	secret, err := webhook.NewSecret()
	if err != nil {
		return res, err
	}
	// One endpoint of one API client, as tributary serve makes it from
	// its configuration (server.endpointsOf).
	ep := webhook.Endpoint{Tenant: "bench", URL: srv.URL + "/hook", Secret: secret}
	if err := ep.Check(); err != nil {
		return res, err
	}
	eps := []webhook.Endpoint{ep}
	newEvent := func(i int) (*store.Event, error) {
		c := fmt.Sprintf("conn_%02d", i%hookConnectors)
		// A sync.completed event, the data tributary serve writes.
		return webhook.NewEvent(webhook.SyncCompleted, ep.Tenant, c, time.Now(), map[string]any{"connector_id": c, "entity": "tickets",
			"mode": "incremental", "inserted": i % 7, "updated": i % 13, "deleted": 0, "cursor": int64(i)}, eps)
	}

	// The backlog: n events, each in its own transaction (Store.AddEvent,
	// the outbox's write that Emit and WithEvent make in their causes'
	// transactions).
	bodies := make([][]byte, n)
	for i := range n {
		ev, err := newEvent(i)
		if err != nil {
			return res, err
		}
		if err := st.AddEvent(ctx, ev); err != nil {
			return res, err
		}
		bodies[i] = ev.Body
		res.bodyBytes += int64(len(ev.Body))
	}

	// The database at rest before the clocks start (PostgreSQL: after a
	// million-record sync in the same database, its checkpoint and
	// autovacuum would otherwise run during the deliverer's phase only:
	// 197 deliveries/s rather than 6,000).
	if settle != nil {
		if err := settle(ctx); err != nil {
			return res, err
		}
	}

	// The plain loops, over the same bodies to the same receiver.
	if res.seq, err = postLoops(ctx, srv.URL+"/hook", bodies, 1, &res.postLatDs); err != nil {
		return res, err
	}
	if res.par, err = postLoops(ctx, srv.URL+"/hook", bodies, res.concurrency, nil); err != nil {
		return res, err
	}
	rc.mu.Lock()
	plain := rc.plain
	rc.mu.Unlock()
	if plain != 2*int64(n) {
		return res, fmt.Errorf("webhooks: the receiver got %d plain requests, not %d", plain, 2*n)
	}

	// The deliverer, configured as tributary serve configures it
	// (server.New): the defaults but its owner and observer.
	var delivered atomic.Int64
	var target atomic.Int64
	target.Store(int64(n))
	reached := make(chan struct{}, 1)
	d, err := webhook.NewDeliverer(webhook.DelivererConfig{Store: st, Endpoints: eps, Owner: "bench/webhooks",
		Observe: func(o webhook.Outcome) {
			if o.State == store.DeliveryDelivered && delivered.Add(1) == target.Load() {
				select {
				case reached <- struct{}{}:
				default:
				}
			}
		}})
	if err != nil {
		return res, err
	}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	defer func() { stop(); <-done }()
	wait := func() error {
		select {
		case <-reached:
			return nil
		case <-time.After(5 * time.Minute):
			return fmt.Errorf("webhooks: %d of %d deliveries recorded after 5 minutes", delivered.Load(), target.Load())
		}
	}
	if profile != "" {
		f, err := os.Create(profile + "." + backend)
		if err != nil {
			return res, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return res, err
		}
	}
	res.deliver, err = measure(func() (int64, int64, error) {
		go func() { defer close(done); _ = d.Run(rctx) }()
		return int64(n), res.bodyBytes, wait()
	})
	if profile != "" {
		pprof.StopCPUProfile()
	}
	if err != nil {
		return res, err
	}
	rc.mu.Lock()
	for _, k := range rc.seen {
		res.dups += k - 1
	}
	res.missing = n - len(rc.seen)
	rc.arrived = make(chan string, 16)
	rc.mu.Unlock()

	// The latency: one event at a time, committed while the deliverer
	// idles, woken as tributary serve wakes it after a commit (Notify).
	res.latN = min(n, hookLatencyEvents)
	for i := range res.latN {
		ev, err := newEvent(n + i)
		if err != nil {
			return res, err
		}
		target.Store(int64(n + i + 1))
		if err := st.AddEvent(ctx, ev); err != nil {
			return res, err
		}
		start := time.Now()
		d.Notify()
		if err := arrival(rc.arrived, ev.ID); err != nil {
			return res, err
		}
		res.hookLatency = append(res.hookLatency, time.Since(start))
		// Its delivered mark, before the next event.
		if err := wait(); err != nil {
			return res, err
		}
	}
	res.lat50, res.lat99 = percentiles(res.hookLatency)
	res.postLat50, res.postLat99 = percentiles(res.postLatDs)
	stop()
	<-done
	// The events are kept no longer than the run (PostgreSQL's database
	// outlives it).
	if _, err := st.PruneEvents(ctx, time.Now().Add(time.Hour)); err != nil {
		return res, err
	}
	return res, nil
}

// arrival waits for the receiver to read the request of event id.
func arrival(ch <-chan string, id string) error {
	t := time.NewTimer(time.Minute)
	defer t.Stop()
	for {
		select {
		case got := <-ch:
			if got == id {
				return nil
			}
		case <-t.C:
			return fmt.Errorf("webhooks: event %s not received after a minute", id)
		}
	}
}

// postLoops POSTs every body to url, with http.Client.Post, from loops
// goroutines over kept-alive connections (one each), each body once; with
// lat, it appends each request's time.
func postLoops(ctx context.Context, url string, bodies [][]byte, loops int, lat *[]time.Duration) (phase, error) {
	tr := &http.Transport{DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext, MaxIdleConnsPerHost: loops}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	var next atomic.Int64
	var mu sync.Mutex
	var total int64
	for _, b := range bodies {
		total += int64(len(b))
	}
	return measure(func() (int64, int64, error) {
		errs := make([]error, loops)
		var wg sync.WaitGroup
		for l := range loops {
			wg.Go(func() {
				for ctx.Err() == nil {
					i := int(next.Add(1)) - 1
					if i >= len(bodies) {
						return
					}
					start := time.Now()
					resp, err := hc.Post(url, "application/json", bytes.NewReader(bodies[i]))
					if err != nil {
						errs[l] = err
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusNoContent {
						errs[l] = fmt.Errorf("webhooks: the receiver answered %s", resp.Status)
						return
					}
					if lat != nil {
						d := time.Since(start)
						mu.Lock()
						*lat = append(*lat, d)
						mu.Unlock()
					}
				}
			})
		}
		wg.Wait()
		return int64(len(bodies)), total, errors.Join(append(errs, ctx.Err())...)
	})
}

// percentiles returns the p50 and p99 of ds (sorted in place).
func percentiles(ds []time.Duration) (p50, p99 time.Duration) {
	if len(ds) == 0 {
		return 0, 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2], ds[len(ds)*99/100]
}

func (h hookResult) print(w io.Writer) {
	fmt.Fprintf(w, "%s webhooks: %d events over %d connectors to one endpoint (%d requests in flight at most), %.0f bytes a body\n",
		h.backend, h.events, h.connectors, h.concurrency, float64(h.bodyBytes)/float64(max(h.events, 1)))
	if h.slow > 0 {
		fmt.Fprintf(w, "%s webhooks: the receiver holds one request in 16 for %v\n", h.backend, h.slow)
	}
	fmt.Fprintf(w, "%s webhooks: deliverer %v: %.0f deliveries/s, %.1f µs CPU/delivery; %d duplicates, %d missing\n",
		h.backend, h.deliver.wall.Round(time.Millisecond), h.deliver.perSecond(), h.deliver.cpuPerRecord(), h.dups, h.missing)
	fmt.Fprintf(w, "%s webhooks: one plain POST loop %v: %.0f requests/s, %.1f µs CPU/request; %d loops %v: %.0f requests/s, %.1f µs CPU/request\n",
		h.backend, h.seq.wall.Round(time.Millisecond), h.seq.perSecond(), h.seq.cpuPerRecord(),
		h.concurrency, h.par.wall.Round(time.Millisecond), h.par.perSecond(), h.par.cpuPerRecord())
	fmt.Fprintf(w, "%s webhooks: deliveries/s against %d plain POST loops %.2f×, against one %.2f×\n",
		h.backend, h.concurrency, h.deliver.perSecond()/h.par.perSecond(), h.deliver.perSecond()/h.seq.perSecond())
	fmt.Fprintf(w, "%s webhooks: commit to receipt, an event at a time (%d): p50 %.3f ms p99 %.3f ms; a plain POST p50 %.3f ms p99 %.3f ms\n",
		h.backend, h.latN, ms(h.lat50), ms(h.lat99), ms(h.postLat50), ms(h.postLat99))
}

// markdown writes the table of one backend's webhook phase.
func (h hookResult) markdown(w io.Writer) {
	fmt.Fprintf(w, "\n### Webhook delivery, %s: %s events to one endpoint, against plain HTTP POST loops to the same receiver\n\n", title(h.backend), count(int64(h.events)))
	fmt.Fprintf(w, "The events (sync.completed, %.0f bytes a body) of %d connectors, in the outbox before the deliverer starts; the deliverer has at most %d requests in flight (one per connector's chain, its batch of %d), so the fair baseline is %d plain loops in parallel. Event ids never received: %d; received again: %d.\n\n",
		float64(h.bodyBytes)/float64(max(h.events, 1)), h.connectors, h.concurrency, webhook.DefaultBatch, h.concurrency, h.missing, h.dups)
	fmt.Fprintf(w, "| measure | Tributary | baseline | ratio |\n|---|---|---|---|\n")
	d := h.deliver
	fmt.Fprintf(w, "| deliveries/s, against %d plain POST loops in parallel (fair baseline) | %.0f | %.0f | %s |\n", h.concurrency, d.perSecond(), h.par.perSecond(), ratio(d.perSecond()/h.par.perSecond()))
	fmt.Fprintf(w, "| deliveries/s, against one plain POST loop | %.0f | %.0f | %s |\n", d.perSecond(), h.seq.perSecond(), ratio(d.perSecond()/h.seq.perSecond()))
	fmt.Fprintf(w, "| CPU µs/delivery (the process, the receiver's included), against %d loops | %.1f | %.1f | %s |\n", h.concurrency, d.cpuPerRecord(), h.par.cpuPerRecord(), ratio(d.cpuPerRecord()/h.par.cpuPerRecord()))
	fmt.Fprintf(w, "| CPU µs/delivery, against one loop | %.1f | %.1f | %s |\n", d.cpuPerRecord(), h.seq.cpuPerRecord(), ratio(d.cpuPerRecord()/h.seq.cpuPerRecord()))
	fmt.Fprintf(w, "| latency p50, commit to receipt (%d events one at a time), against one plain POST | %.3f ms | %.3f ms | %s |\n", h.latN, ms(h.lat50), ms(h.postLat50), ratio(float64(h.lat50)/float64(h.postLat50)))
	fmt.Fprintf(w, "| latency p99, against one plain POST | %.3f ms | %.3f ms | %s |\n", ms(h.lat99), ms(h.postLat99), ratio(float64(h.lat99)/float64(h.postLat99)))
}

// openHookStore opens a fresh store for the webhook phase: a SQLite file
// in dir, or the PostgreSQL database of dsn.
func openHookStore(ctx context.Context, backend, dir, dsn string) (*store.Store, error) {
	if backend == "postgres" {
		return store.OpenPostgres(ctx, dsn)
	}
	file := dir + "/webhooks.db"
	for _, f := range []string{file, file + "-wal", file + "-shm"} {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
	}
	return store.OpenSQLite(ctx, file)
}

// settlePostgres brings the database of dsn to rest: a checkpoint writes
// what the earlier phases left in its buffers, and ANALYZE gives the
// outbox's tables their statistics, as autovacuum would soon after.
func settlePostgres(ctx context.Context, dsn string) error {
	pc, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer pc.Close(context.Background())
	for _, q := range []string{"CHECKPOINT", "ANALYZE tributary_events, tributary_deliveries, tributary_webhook_endpoints"} {
		if _, err := pc.Exec(ctx, q); err != nil {
			return fmt.Errorf("webhooks: %s: %w", q, err)
		}
	}
	return nil
}
