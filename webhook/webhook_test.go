package webhook_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	svix "github.com/svix/svix-webhooks/go"
	"go.uber.org/goleak"

	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/internal/testmain"
	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
	"github.com/tributary-dev/tributary/webhook"
)

func TestMain(m *testing.M) {
	testmain.WaitingParallel(4)
	goleak.VerifyTestMain(pgtest.Main(m))
}

// A fixed secret of the tests (32 bytes).
const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// backends are the stores the tests run on: a SQLite file and a
// PostgreSQL database.
func backends(t *testing.T, run func(t *testing.T, target string)) {
	t.Run("sqlite", func(t *testing.T) { run(t, t.TempDir()+"/outbox.db") })
	t.Run("postgres", func(t *testing.T) { run(t, pgtest.DSN(t)) })
}

func openStore(t testing.TB, target string) *store.Store {
	t.Helper()
	var st *store.Store
	var err error
	if strings.HasPrefix(target, "postgres://") {
		st, err = store.OpenPostgres(context.Background(), target)
	} else {
		st, err = store.OpenSQLite(context.Background(), target)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// received is one request a receiver got.
type received struct {
	body    []byte
	headers http.Header
	id      string
	seq     int    // the event's data.seq
	conn    string // the event's connector
}

// receiver is a webhook endpoint of the tests: it records what it gets
// and answers what answer says.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []received
	answer func(r *http.Request) int
}

func newReceiver(t testing.TB, answer func(r *http.Request) int) *receiver {
	rc := &receiver{answer: answer}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		code := http.StatusOK
		if rc.answer != nil {
			code = rc.answer(r)
		}
		if code >= 200 && code < 300 {
			var p struct {
				Data struct {
					Seq  int    `json:"seq"`
					Conn string `json:"connector_id"`
				} `json:"data"`
			}
			_ = json.Unmarshal(body, &p)
			rc.mu.Lock()
			rc.got = append(rc.got, received{body: body, headers: r.Header.Clone(), id: r.Header.Get("webhook-id"), seq: p.Data.Seq, conn: p.Data.Conn})
			rc.mu.Unlock()
		}
		w.WriteHeader(code)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) received() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

// addEvents writes n events of each connector, data.seq 0..n-1, to ep.
func addEvents(t testing.TB, st *store.Store, ep webhook.Endpoint, connectors []string, n int) []string {
	t.Helper()
	var ids []string
	for i := range n {
		for _, c := range connectors {
			ev, err := webhook.NewEvent(webhook.SyncCompleted, ep.Tenant, c, time.Now(), map[string]any{"connector_id": c, "seq": i}, []webhook.Endpoint{ep})
			if err != nil {
				t.Fatal(err)
			}
			if err := st.AddEvent(context.Background(), ev); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, ev.ID)
		}
	}
	return ids
}

func newDeliverer(t testing.TB, st *store.Store, eps []webhook.Endpoint, mod func(*webhook.DelivererConfig)) *webhook.Deliverer {
	t.Helper()
	cfg := webhook.DelivererConfig{Store: st, Endpoints: eps, Backoff: 5 * time.Millisecond, MaxBackoff: 50 * time.Millisecond,
		Timeout: 400 * time.Millisecond, Poll: 10 * time.Millisecond}
	if mod != nil {
		mod(&cfg)
	}
	d, err := webhook.NewDeliverer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// runUntil runs d until cond holds (or the deadline), then stops it and
// waits for it.
func runUntil(t testing.TB, d *webhook.Deliverer, within time.Duration, cond func() bool) bool {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = d.Run(ctx) }()
	defer func() { cancel(); <-done }()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return cond()
}

// Every request is signed as Standard Webhooks says: svix's own library
// verifies it; a tampered body, a wrong secret and a stale timestamp fail.
func TestSignaturesVerifyWithSvix(t *testing.T) {
	st := openStore(t, t.TempDir()+"/sig.db")
	rc := newReceiver(t, nil)
	ep := webhook.Endpoint{Tenant: "app", URL: rc.URL + "/hooks?token=abc", Secret: secret}
	ids := addEvents(t, st, ep, []string{"conn_1"}, 3)
	d := newDeliverer(t, st, []webhook.Endpoint{ep}, nil)
	if !runUntil(t, d, 10*time.Second, func() bool { return len(rc.received()) >= 3 }) {
		t.Fatalf("%d of 3 events delivered", len(rc.received()))
	}
	wh, err := svix.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	for i, got := range rc.received() {
		if got.id != ids[i] {
			t.Errorf("event %d: webhook-id %q, want %q", i, got.id, ids[i])
		}
		if err := wh.Verify(got.body, got.headers); err != nil {
			t.Errorf("event %d: svix refuses the signature: %v", i, err)
		}
		var p struct {
			Type      string          `json:"type"`
			Timestamp time.Time       `json:"timestamp"`
			Data      json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(got.body, &p); err != nil || p.Type != webhook.SyncCompleted || p.Timestamp.IsZero() || len(p.Data) == 0 {
			t.Errorf("event %d: payload %s is not {type, timestamp, data} (%v)", i, got.body, err)
		}
		ts, _ := strconv.ParseInt(got.headers.Get("webhook-timestamp"), 10, 64)
		if d := time.Since(time.Unix(ts, 0)); d < -time.Minute || d > time.Minute {
			t.Errorf("event %d: webhook-timestamp %d is not now", i, ts)
		}
	}
	got := rc.received()[0]
	tampered := append([]byte(nil), got.body...)
	tampered[len(tampered)-2] ^= 1
	if err := wh.Verify(tampered, got.headers); err == nil {
		t.Error("a tampered body verifies")
	}
	other, _ := webhook.NewSecret()
	whOther, _ := svix.NewWebhook(other)
	if err := whOther.Verify(got.body, got.headers); err == nil {
		t.Error("the signature verifies with another secret")
	}
	// The same message signed ten minutes ago (svix tolerates five).
	key, _ := webhook.ParseSecret(secret)
	old := time.Now().Add(-10 * time.Minute)
	stale := got.headers.Clone()
	stale.Set("webhook-timestamp", strconv.FormatInt(old.Unix(), 10))
	stale.Set("webhook-signature", webhook.Sign(key, got.id, old, got.body))
	if err := wh.VerifyIgnoringTimestamp(got.body, stale); err != nil {
		t.Fatalf("the re-signed message does not verify at all: %v", err)
	}
	if err := wh.Verify(got.body, stale); err == nil {
		t.Error("a stale timestamp verifies")
	}
}

// Secrets never show in printed endpoints or in errors.
func TestSecretsStayHidden(t *testing.T) {
	ep := webhook.Endpoint{Tenant: "app", URL: "https://example.com/hooks?token=t0ps3cret", Secret: secret}
	for _, s := range []string{fmt.Sprint(ep), fmt.Sprintf("%+v", ep), fmt.Sprintf("%#v", ep), fmt.Sprintf("%v", []webhook.Endpoint{ep})} {
		if strings.Contains(s, "MfKQ9r8") || strings.Contains(s, "t0ps3cret") {
			t.Errorf("printed endpoint shows a secret: %s", s)
		}
	}
	bad := ep
	bad.Secret = "whsec_notbase64!!" + "MfKQ9r8"
	if err := bad.Check(); err == nil || strings.Contains(err.Error(), "MfKQ9r8") {
		t.Errorf("a bad secret: %v", err)
	}
	bad = ep
	bad.URL = "https://user:pw@example.com/"
	if err := bad.Check(); err == nil || strings.Contains(err.Error(), "pw") {
		t.Errorf("a URL with user info: %v", err)
	}
}

// A receiver down for a while, then up: every event is delivered, in order
// per connector, and a receiver that dedupes by webhook-id sees each once.
func TestReceiverDownThenUp(t *testing.T) {
	backends(t, func(t *testing.T, target string) {
		st := openStore(t, target)
		var mu sync.Mutex
		up := false
		attempts := 0
		rc := newReceiver(t, func(*http.Request) int {
			mu.Lock()
			defer mu.Unlock()
			attempts++
			if !up {
				return http.StatusServiceUnavailable
			}
			return http.StatusNoContent
		})
		ep := webhook.Endpoint{Tenant: "app", URL: rc.URL, Secret: secret}
		conns := []string{"conn_a", "conn_b", "conn_c"}
		ids := addEvents(t, st, ep, conns, 15)
		var outcomes sync.Map
		d := newDeliverer(t, st, []webhook.Endpoint{ep}, func(c *webhook.DelivererConfig) {
			c.Observe = func(o webhook.Outcome) { outcomes.Store(fmt.Sprint(o.State), true) }
		})
		// Down: only attempts, backing off, nothing received.
		runUntil(t, d, 400*time.Millisecond, func() bool { return false })
		mu.Lock()
		downAttempts := attempts
		up = true
		mu.Unlock()
		if downAttempts == 0 || downAttempts > 60 {
			t.Errorf("%d attempts in 400 ms to a receiver that is down: want a few (back-off), not none nor a tight loop", downAttempts)
		}
		states, err := st.Endpoints(context.Background(), ep.ID())
		if err != nil || states[0].Failures == 0 || states[0].Pending != int64(len(ids)) {
			t.Errorf("endpoint while down: %+v, %v", states, err)
		}
		// Up again: every event arrives, and is recorded (a stop between
		// the receipt and its record would give the delivery back).
		recorded := func() bool {
			states, err := st.Endpoints(context.Background(), ep.ID())
			return err == nil && states[0].Pending == 0
		}
		if !runUntil(t, d, 20*time.Second, func() bool { return len(dedupe(rc.received())) == len(ids) && recorded() }) {
			t.Fatalf("%d of %d events delivered after the receiver came back", len(dedupe(rc.received())), len(ids))
		}
		checkOrder(t, rc.received(), conns)
		if _, ok := outcomes.Load("pending"); !ok {
			t.Error("no retried attempt observed")
		}
		states, _ = st.Endpoints(context.Background(), ep.ID())
		if states[0].Failures != 0 || states[0].Pending != 0 || states[0].Delivered != int64(len(ids)) {
			t.Errorf("endpoint once up: %+v", states[0])
		}
	})
}

// dedupe keeps the first request of each webhook-id, as a receiver does.
func dedupe(got []received) []received {
	seen := map[string]bool{}
	var out []received
	for _, g := range got {
		if !seen[g.id] {
			seen[g.id] = true
			out = append(out, g)
		}
	}
	return out
}

// checkOrder checks that each connector's events were first received in
// the order they were written.
func checkOrder(t *testing.T, got []received, conns []string) {
	t.Helper()
	next := map[string]int{}
	for _, g := range dedupe(got) {
		if g.seq != next[g.conn] {
			t.Fatalf("connector %s: event %d received when %d was next", g.conn, g.seq, next[g.conn])
		}
		next[g.conn]++
	}
}

// A delivery is given up once its window passes, and the next of its
// chain goes.
func TestGiveUpAfterRetryWindow(t *testing.T) {
	st := openStore(t, t.TempDir()+"/giveup.db")
	rc := newReceiver(t, func(r *http.Request) int {
		body, _ := io.ReadAll(r.Body)
		_ = body
		return http.StatusOK
	})
	var first string
	rc.answer = func(r *http.Request) int {
		if r.Header.Get("webhook-id") == first {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	}
	ep := webhook.Endpoint{Tenant: "app", URL: rc.URL, Secret: secret}
	ids := addEvents(t, st, ep, []string{"conn_1"}, 3)
	first = ids[0]
	var failed sync.Map
	d := newDeliverer(t, st, []webhook.Endpoint{ep}, func(c *webhook.DelivererConfig) {
		c.RetryFor = 300 * time.Millisecond
		c.Observe = func(o webhook.Outcome) {
			if o.State == store.DeliveryFailed {
				failed.Store(o.EventID, true)
			}
		}
	})
	if !runUntil(t, d, 10*time.Second, func() bool { return len(rc.received()) == 2 }) {
		t.Fatalf("%d of the 2 later events delivered", len(rc.received()))
	}
	if _, ok := failed.Load(first); !ok {
		t.Error("the first event was not reported failed")
	}
	rec, err := st.EventByID(context.Background(), first)
	if err != nil || len(rec.Deliveries) != 1 || rec.Deliveries[0].State != store.DeliveryFailed || rec.Deliveries[0].LastStatus != 500 {
		t.Errorf("the first event: %+v, %v", rec, err)
	}
	// A replay sends it again.
	rc.answer = nil
	if n, err := st.ReplayEvents(context.Background(), ep.ID(), store.Replay{EventID: first}); n != 1 || err != nil {
		t.Fatalf("replay: %d, %v", n, err)
	}
	// Delivery is at least once: on a slow machine (-race) a later event
	// may arrive twice, before or after the replay; the replayed one must
	// arrive, after the first two deliveries.
	replayed := func() bool {
		for _, r := range rc.received()[2:] {
			if r.id == first {
				return true
			}
		}
		return false
	}
	if !runUntil(t, d, 10*time.Second, replayed) {
		t.Fatalf("the replayed event %s was not delivered (received %d)", first, len(rc.received()))
	}
}

// A receiver that answers slowly or never holds a delivery no longer than
// the timeout, Run stops promptly, and no goroutine is left (TestMain's
// goleak); a redirect is not followed.
func TestSlowReceiverIsBounded(t *testing.T) {
	st := openStore(t, t.TempDir()+"/slow.db")
	release := make(chan struct{})
	var followed sync.Map
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { followed.Store("yes", true) }))
	defer target.Close()
	never := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer never.Close()
	defer close(release)
	redirect := httptest.NewServer(http.RedirectHandler(target.URL, http.StatusTemporaryRedirect))
	defer redirect.Close()
	huge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		chunk := []byte(strings.Repeat("x", 1<<10))
		for range 1 << 14 { // 16 MiB, of which a few KiB are read
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer huge.Close()
	var eps []webhook.Endpoint
	for _, u := range []string{never.URL, redirect.URL, huge.URL} {
		ep := webhook.Endpoint{Tenant: "app", URL: u, Secret: secret}
		eps = append(eps, ep)
		addEvents(t, st, ep, []string{"conn_1"}, 2)
	}
	var mu sync.Mutex
	var outcomes []webhook.Outcome
	d := newDeliverer(t, st, eps, func(c *webhook.DelivererConfig) {
		c.Timeout = 300 * time.Millisecond
		c.Observe = func(o webhook.Outcome) { mu.Lock(); outcomes = append(outcomes, o); mu.Unlock() }
	})
	start := time.Now()
	n, err := d.RunOnce(context.Background())
	took := time.Since(start)
	if err != nil || n != 3 {
		t.Fatalf("RunOnce: %d, %v; want the head of each of 3 chains", n, err)
	}
	if took > 3*time.Second {
		t.Errorf("a batch took %v with a 300 ms timeout", took)
	}
	if _, ok := followed.Load("yes"); ok {
		t.Error("the redirect was followed")
	}
	mu.Lock()
	for _, o := range outcomes {
		if o.State != store.DeliveryPending || o.Err == nil {
			t.Errorf("%s: %+v, want a failed attempt to retry", o.Endpoint, o)
		}
	}
	mu.Unlock()
	// Run stops promptly while a request hangs.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = d.Run(ctx) }()
	time.Sleep(400 * time.Millisecond)
	cancel()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
}

// An event is written with its cause or not at all: a sync whose claim
// was lost commits no event; one that commits has exactly one.
func TestSyncEventCommitsWithTheSync(t *testing.T) {
	backends(t, func(t *testing.T, target string) {
		testSyncEvent(t, openStore(t, target))
	})
}

func testSyncEvent(t *testing.T, st *store.Store) {
	ctx := context.Background()
	ep := webhook.Endpoint{Tenant: "app", URL: "http://127.0.0.1:1/", Secret: secret}
	sp := store.Spec{Connector: "conn_1", Entity: "tickets", IDField: "id", Schema: search.Schema{"id": search.TypeInteger, "subject": search.TypeString}}
	var made []string
	event := store.WithEvent(func(d store.SyncDone) (*store.Event, error) {
		ev, err := webhook.NewEvent(webhook.SyncCompleted, "app", d.Connector, time.Now(), map[string]any{"entity": d.Entity, "full": d.Full, "inserted": d.Counts.Inserted}, []webhook.Endpoint{ep})
		if ev != nil {
			made = append(made, ev.ID)
		}
		return ev, err
	})
	c, err := st.Claim(ctx, "conn_1", "tickets", "w1", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	l, err := st.BeginFull(ctx, sp, store.Fenced(c), event)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Write(ctx, [][]byte{[]byte(`{"id":1,"subject":"a"}`), []byte(`{"id":2,"subject":"b"}`)}, nil); err != nil {
		t.Fatal(err)
	}
	if err := l.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if len(made) != 1 {
		t.Fatalf("%d events built at the full sync's commit", len(made))
	}
	rec, err := st.EventByID(ctx, made[0])
	if err != nil || len(rec.Deliveries) != 1 || !strings.Contains(string(rec.Body), `"inserted":2`) {
		t.Fatalf("the full sync's event: %+v, %v", rec, err)
	}
	// An update under a claim another worker took over: no event.
	u, err := st.BeginUpdate(ctx, sp, store.Fenced(c), event)
	if err != nil {
		t.Fatal(err)
	}
	if err := u.Apply(ctx, [][]byte{[]byte(`{"id":3,"subject":"c"}`)}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Claim(ctx, "conn_1", "tickets", "w2", time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := u.Finish(ctx); err == nil {
		t.Fatal("Finish succeeded under a lost claim")
	}
	if len(made) != 2 {
		// Built or not, it must not be stored.
		t.Logf("%d events built", len(made))
	}
	for _, id := range made[1:] {
		if _, err := st.EventByID(ctx, id); err == nil {
			t.Errorf("event %s of a sync that did not commit exists", id)
		}
	}
	states, _ := st.Endpoints(ctx, ep.ID())
	if states[0].Pending != 1 {
		t.Errorf("%d deliveries pending, want the committed sync's only", states[0].Pending)
	}
}
