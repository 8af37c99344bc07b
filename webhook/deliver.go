package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/tributary-dev/tributary/store"
)

// Defaults of DelivererConfig's zero fields.
const (
	// DefaultRetryFor is how long a delivery is tried before it is given
	// up: at least a day, so a receiver down over a night gets every event.
	DefaultRetryFor = 24 * time.Hour
	// DefaultBackoff is the wait after a delivery's first failed attempt;
	// it doubles with each failure up to DefaultMaxBackoff, with jitter.
	DefaultBackoff    = 5 * time.Second
	DefaultMaxBackoff = time.Hour
	// DefaultTimeout bounds one request, from the connection to the end
	// of the answer's headers and its body read.
	DefaultTimeout = 10 * time.Second
	// DefaultPoll is how often an idle deliverer looks for due
	// deliveries (Notify wakes it at once for its own process's events).
	DefaultPoll = time.Second
	// DefaultBatch is how many deliveries are in flight at most, sent
	// concurrently.
	DefaultBatch = 16
)

// MaxResponseBody is the most of an answer's body that is read (and kept,
// cut, as the failure's message); the rest is dropped with the connection.
const MaxResponseBody = 4 << 10

// DelivererConfig configures a Deliverer.
type DelivererConfig struct {
	// Store holds the outbox. Required.
	Store *store.Store
	// Endpoints are the endpoints this deliverer sends to: no request
	// goes anywhere else. Deliveries to an endpoint it does not know
	// (removed from the configuration) stay pending for a deliverer
	// that does.
	Endpoints []Endpoint
	// Owner names the deliverer in its claims (default: host, process id
	// and a random suffix).
	Owner string
	// RetryFor is how long after its event a delivery is tried before it
	// is marked failed (default DefaultRetryFor).
	RetryFor time.Duration
	// Backoff and MaxBackoff bound the exponential back-off between
	// attempts (defaults DefaultBackoff, DefaultMaxBackoff); each wait
	// is drawn between half of and the full doubled value (jitter).
	Backoff, MaxBackoff time.Duration
	// Timeout bounds one request (default DefaultTimeout).
	Timeout time.Duration
	// Poll is how often an idle deliverer looks for due deliveries
	// (default DefaultPoll).
	Poll time.Duration
	// Batch is how many deliveries are in flight at most, sent
	// concurrently (default DefaultBatch); a claim takes no more than the
	// free places.
	Batch int
	// ClaimTTL is how long a claim on a delivery lasts: how soon the
	// deliveries of a process that died go to another (default: three
	// Timeouts, at least 30 seconds; never less than two Timeouts).
	ClaimTTL time.Duration
	// Transport sends the requests (default: a transport of its own with
	// connection, TLS and header time-outs). Redirects are never followed
	// whatever it is.
	Transport http.RoundTripper
	// Observe, when set, is called once after every attempt, once it is
	// recorded (with the other attempts that ended in the same round),
	// from the deliverer's goroutine; it must not block.
	Observe func(Outcome)
	// Logger receives failed attempts (default: discarded). No secret is
	// logged.
	Logger *slog.Logger
}

// Outcome is how one attempt of a delivery went.
type Outcome struct {
	// Endpoint and Tenant name the endpoint; EventID, Type and Connector
	// the event.
	Endpoint, Tenant, EventID, Type, Connector string
	// State is the delivery's state after the attempt: delivered;
	// pending (to be tried again); failed (given up).
	State store.DeliveryState
	// Status is the endpoint's HTTP status (0: no answer).
	Status int
	// Attempt is the attempt's number (1: the first).
	Attempt int
	// Latency is, for a delivered event, the time from the event's commit
	// to the endpoint's 2xx.
	Latency time.Duration
	// Err says why the attempt failed (nil when it succeeded).
	Err error
}

// Deliverer sends the outbox's deliveries to their endpoints. It is safe
// for concurrent use; run one per process (Run), and as many processes
// as you like on one PostgreSQL store.
type Deliverer struct {
	cfg   DelivererConfig
	eps   map[string]endpointKey
	ids   []string
	hc    *http.Client
	own   *http.Transport // the transport it made, closed when Run ends
	ttl   time.Duration
	log   *slog.Logger
	wake  chan struct{}
	clock func() time.Time
}

type endpointKey struct {
	Endpoint
	key []byte
}

// NewDeliverer checks cfg and returns a Deliverer.
func NewDeliverer(cfg DelivererConfig) (*Deliverer, error) {
	if cfg.Store == nil {
		return nil, errors.New("webhook: a deliverer needs a store")
	}
	for _, f := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&cfg.RetryFor, DefaultRetryFor}, {&cfg.Backoff, DefaultBackoff}, {&cfg.MaxBackoff, DefaultMaxBackoff}, {&cfg.Timeout, DefaultTimeout}, {&cfg.Poll, DefaultPoll}} {
		if *f.v <= 0 {
			*f.v = f.def
		}
	}
	if cfg.MaxBackoff < cfg.Backoff {
		cfg.MaxBackoff = cfg.Backoff
	}
	if cfg.Batch <= 0 {
		cfg.Batch = DefaultBatch
	}
	if cfg.Owner == "" {
		host, _ := os.Hostname()
		b := make([]byte, 4)
		for i := range b {
			b[i] = byte(rand.UintN(256))
		}
		cfg.Owner = fmt.Sprintf("%s-%d-%x", host, os.Getpid(), b)
	}
	ttl := cfg.ClaimTTL
	if ttl <= 0 {
		ttl = max(3*cfg.Timeout, 30*time.Second)
	}
	d := &Deliverer{cfg: cfg, eps: map[string]endpointKey{}, log: cfg.Logger, wake: make(chan struct{}, 1), clock: time.Now,
		ttl: max(ttl, 2*cfg.Timeout)}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	for _, e := range cfg.Endpoints {
		if err := e.Check(); err != nil {
			return nil, err
		}
		id := e.ID()
		if _, dup := d.eps[id]; dup {
			return nil, fmt.Errorf("webhook: endpoint %q of %q is given twice", redactURL(e.URL), e.Tenant)
		}
		key, _ := ParseSecret(e.Secret)
		d.eps[id] = endpointKey{Endpoint: e, key: key}
		d.ids = append(d.ids, id)
	}
	rt := cfg.Transport
	if rt == nil {
		d.own = &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: min(cfg.Timeout, 5*time.Second), KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   min(cfg.Timeout, 5*time.Second),
			ResponseHeaderTimeout: cfg.Timeout,
			MaxIdleConnsPerHost:   cfg.Batch,
			IdleConnTimeout:       90 * time.Second,
			ForceAttemptHTTP2:     true,
		}
		rt = d.own
	}
	d.hc = &http.Client{Transport: rt, Timeout: cfg.Timeout,
		// Nothing is sent to an address the configuration does not name: a
		// redirect is an answer like any other non-2xx, a failure.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return d, nil
}

// Owner returns the name the deliverer claims deliveries under.
func (d *Deliverer) Owner() string { return d.cfg.Owner }

// Notify wakes an idle Run at once (an event was just committed); it
// never blocks.
func (d *Deliverer) Notify() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run sends due deliveries until ctx ends, then returns once the requests
// under way have ended (a request cut by the stop is given back to be sent
// again, by this process or another). Failures of the store are logged
// and tried again after Poll (or at once when Notify wakes it).
//
// Up to Batch requests are in flight at once, with no barrier between
// them: as soon as a request ends, its attempt is recorded and a new due
// delivery takes its place, so a slow endpoint holds up its own chains
// only. One loop records the attempts and claims. Each round it records
// the failures that ended since its last round, then, in one transaction
// (Store.DeliveredAndClaim), marks the successes and claims up to Batch
// less the requests in flight (whose chains, leased, the claim skips: a
// chain's next delivery is never sent before its predecessor is marked
// delivered or given up). Once a request ends, the round waits a little
// for the others its claim started, at most as long as the last round
// took, so that a burst of answers costs one transaction (a group
// commit) and no answer waits for a slow one. It claims again when a
// request ends, when Notify wakes it, and after Poll.
func (d *Deliverer) Run(ctx context.Context) error {
	if d.own != nil {
		defer d.own.CloseIdleConnections()
	}
	if len(d.ids) == 0 {
		<-ctx.Done()
		return nil
	}
	// ended has room for every request in flight: a sender never blocks
	// on it, so a stop waits for no one but the requests themselves.
	ended := make(chan sent, d.cfg.Batch)
	inflight := map[int64]int{} // the deliveries under way: their ids, and the claims that started them
	claims := 0                 // the claims that started requests
	var started time.Time       // when the last of them did
	var wg sync.WaitGroup
	defer wg.Wait()
	poll := time.NewTimer(d.cfg.Poll)
	defer poll.Stop()
	var claimAfter time.Time // after a failed claim: not before Poll
	var round []sent
	var linger time.Duration // how long the last round's records and claim took
	for {
		// This round's ended requests: whatever has arrived.
	drain:
		for {
			select {
			case s := <-ended:
				round = append(round, s)
			default:
				break drain
			}
		}
		for _, s := range round {
			delete(inflight, s.dl.ID)
		}
		free := d.cfg.Batch - len(inflight)
		if ctx.Err() != nil || d.clock().Before(claimAfter) {
			free = 0
		}
		began, worked := time.Now(), len(round) > 0 || free > 0
		var dls []store.Delivery
		if worked {
			var err error
			dls, err = d.record(ctx, round, free)
			if err != nil {
				claimAfter = d.clock().Add(d.cfg.Poll)
			}
			round = round[:0]
		}
		if len(dls) > 0 {
			claims, started = claims+1, time.Now()
		}
		for _, dl := range dls {
			if _, under := inflight[dl.ID]; under {
				// Its claim lapsed while it was under way, and this claim
				// renewed it: the request under way records it.
				continue
			}
			inflight[dl.ID] = claims
			c := claims
			wg.Go(func() { ended <- sent{dl: dl, claim: c, try: d.try(ctx, dl)} })
		}
		if ctx.Err() != nil {
			// Stopping: the requests under way end (cut, given back).
			if len(inflight) == 0 {
				return nil
			}
			round = append(round, <-ended)
			continue
		}
		if worked {
			linger = min(time.Since(began), d.cfg.Poll)
		}
		poll.Reset(d.cfg.Poll)
		select {
		case <-ctx.Done():
		case s := <-ended:
			round = append(round, s)
			// The others of the last claim under way that end soon join
			// this round (group commit): a burst of answers costs one
			// transaction. Soon: within the last round's time (no answer
			// waits longer than a round would) and within the time since
			// the claim started them (a straggler, slower than twice the
			// first answer, is not waited for); an older request never.
			peers := 0
			for _, c := range inflight {
				if c == claims {
					peers++
				}
			}
			if s.claim == claims {
				peers--
			}
			round = gather(ctx, ended, round, claims, peers, min(linger, time.Since(started)))
		case <-d.wake:
			claimAfter = time.Time{}
		case <-poll.C:
		}
	}
}

// gather adds to round the requests that end within linger, until the
// peers under way that claim started have ended (or ctx ends), and
// returns it.
func gather(ctx context.Context, ended <-chan sent, round []sent, claim, peers int, linger time.Duration) []sent {
	if peers <= 0 || linger <= 0 {
		return round
	}
	t := time.NewTimer(linger)
	defer t.Stop()
	for peers > 0 {
		select {
		case s := <-ended:
			round = append(round, s)
			if s.claim == claim {
				peers--
			}
		case <-t.C:
			return round
		case <-ctx.Done():
			return round
		}
	}
	return round
}

// RunOnce claims one batch of up to Batch due deliveries, sends them
// concurrently, waits for all of them and records how each went, in one
// round (Run does not wait for a batch: it keeps up to Batch requests in
// flight); it returns how many it claimed.
//
// The batch's successes are recorded together, in one transaction, once
// its last request has ended (answered, failed, or cut by the timeout).
func (d *Deliverer) RunOnce(ctx context.Context) (int, error) {
	dls, err := d.record(ctx, nil, d.cfg.Batch)
	if err != nil {
		return 0, err
	}
	round := make([]sent, len(dls))
	var wg sync.WaitGroup
	for i, dl := range dls {
		wg.Go(func() { round[i] = sent{dl: dl, try: d.try(ctx, dl)} })
	}
	wg.Wait()
	_, _ = d.record(ctx, round, 0)
	return len(dls), nil
}

// try is how sending one delivery went.
type try struct {
	status int
	err    error
	cut    bool          // cut by the deliverer's stop: not the endpoint's failure
	took   time.Duration // from the event's commit to the answer
}

// sent is a delivery whose request has ended, and how.
type sent struct {
	dl    store.Delivery
	claim int // the claim that started it, numbered by Run
	try
}

// try sends one delivery.
func (d *Deliverer) try(ctx context.Context, dl store.Delivery) try {
	status, err := d.send(ctx, d.eps[dl.Endpoint], dl)
	return try{status: status, err: err, cut: err != nil && ctx.Err() != nil, took: d.clock().Sub(dl.Event.Created)}
}

// record records how a round's attempts went (even while stopping) and,
// with claim > 0, claims up to claim deliveries, which it returns (the
// claim's error is logged, and returned). It gives back the deliveries
// the stop cut, records each failure, then marks the successes and claims
// in one transaction; then tells Observe, once per attempt. A round's
// failures are recorded before its successes: an endpoint that answered
// 2xx in a round is healthy after it.
func (d *Deliverer) record(ctx context.Context, round []sent, claim int) ([]store.Delivery, error) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	var ok []store.Success
	var cut []store.Delivery
	outs := make([]Outcome, 0, len(round))
	for _, s := range round {
		dl, t := s.dl, s.try
		switch {
		case t.cut:
			cut = append(cut, dl)
			continue
		case t.err == nil:
			ok = append(ok, store.Success{Delivery: dl, Status: t.status})
		}
		ep := d.eps[dl.Endpoint]
		out := Outcome{Endpoint: dl.Endpoint, Tenant: ep.Tenant, EventID: dl.Event.ID, Type: dl.Event.Type, Connector: dl.Event.Connector,
			Attempt: dl.Attempts + 1, Status: t.status, Err: t.err}
		if t.err == nil {
			out.State, out.Latency = store.DeliveryDelivered, t.took
		} else {
			state, err := d.cfg.Store.DeliveryFailed(rctx, dl, d.cfg.Owner, store.Attempt{Status: t.status, Message: t.err.Error(),
				Retry: d.backoff(dl.Attempts + 1), EndpointBackoff: d.endpointBackoff, RetryFor: d.cfg.RetryFor})
			if err != nil {
				d.log.Error("webhook deliverer: recording a failed delivery", "owner", d.cfg.Owner, "endpoint", dl.Endpoint, "event", dl.Event.ID, "err", err)
				state = store.DeliveryPending
			}
			out.State = state
			d.log.Warn("webhook delivery failed", "endpoint", ep, "event", dl.Event.ID, "type", dl.Event.Type, "attempt", out.Attempt, "status", t.status, "state", string(state), "err", t.err)
		}
		outs = append(outs, out)
	}
	if len(cut) > 0 {
		// Sent again soon, by this process or another.
		if err := d.cfg.Store.Unclaim(rctx, d.cfg.Owner, cut...); err != nil {
			d.log.Warn("webhook deliverer: giving deliveries back (their claims lapse by themselves)", "owner", d.cfg.Owner, "deliveries", len(cut), "err", err)
		}
	}
	var dls []store.Delivery
	var claimErr error
	if claim > 0 {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		dls, claimErr = d.cfg.Store.DeliveredAndClaim(cctx, d.cfg.Owner, ok, d.ttl, claim, d.ids)
		cancel()
		if claimErr != nil {
			d.log.Error("webhook deliverer: claiming deliveries", "owner", d.cfg.Owner, "err", claimErr)
		} else {
			ok = nil // marked
		}
	}
	if err := d.cfg.Store.DeliveredAll(rctx, d.cfg.Owner, ok...); err != nil {
		// Sent again once their claims lapse: at least once.
		d.log.Error("webhook deliverer: recording deliveries", "owner", d.cfg.Owner, "deliveries", len(ok), "err", err)
	}
	if d.cfg.Observe != nil {
		for _, out := range outs {
			d.cfg.Observe(out)
		}
	}
	return dls, claimErr
}

// errStatus: the endpoint answered, but not 2xx.
var errStatus = errors.New("the endpoint did not answer 2xx")

// send POSTs the delivery's event, signed, and reads at most
// MaxResponseBody of the answer. It returns the status and, unless it was
// 2xx, why it failed (without the URL's query or any secret).
func (d *Deliverer) send(ctx context.Context, ep endpointKey, dl store.Delivery) (int, error) {
	if ep.key == nil {
		return 0, errors.New("the endpoint is not configured") // ClaimDeliveries names only known ones
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL, bytes.NewReader(dl.Event.Body))
	if err != nil {
		return 0, fmt.Errorf("building the request: %w", unwrapURL(err))
	}
	now := d.clock()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "tributary-webhooks/1")
	req.Header.Set("webhook-id", dl.Event.ID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
	req.Header.Set("webhook-signature", Sign(ep.key, dl.Event.ID, now, dl.Event.Body))
	resp, err := d.hc.Do(req)
	if err != nil {
		return 0, unwrapURL(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBody)) // a cut body is still a message
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp.StatusCode, nil
	}
	msg := resp.Status
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		msg += " (redirects are not followed)"
	}
	if len(body) > 0 {
		msg += ": " + string(bytes.ToValidUTF8(bytes.TrimSpace(body[:min(len(body), 200)]), []byte("?")))
	}
	return resp.StatusCode, fmt.Errorf("%w: %s", errStatus, msg)
}

// unwrapURL drops the *url.Error's URL (its query may hold a token).
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return fmt.Errorf("%s: timed out: %w", ue.Op, ue.Err)
		}
		return fmt.Errorf("%s: %w", ue.Op, ue.Err)
	}
	return err
}

// backoff is the wait after a delivery's n-th failed attempt: Backoff
// doubled n-1 times, at most MaxBackoff, drawn between half of it and all
// of it.
func (d *Deliverer) backoff(n int) time.Duration {
	w := d.cfg.Backoff
	for i := 1; i < n && w < d.cfg.MaxBackoff; i++ {
		w *= 2
	}
	w = min(w, d.cfg.MaxBackoff)
	return w/2 + rand.N(w/2+1)
}

// endpointBackoff is the wait of an endpoint after its n-th consecutive
// failure: none after the first (another chain's delivery may be the
// one at fault), then as a delivery's.
func (d *Deliverer) endpointBackoff(n int) time.Duration {
	if n < 2 {
		return 0
	}
	return d.backoff(n - 1)
}
