package webhook_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/store"
	"github.com/tributary-dev/tributary/webhook"
)

// A receiver that holds one connector's request holds up that chain only:
// the other connectors' events keep arriving, all of them, while it
// hangs (the deliverer used to wait for a batch's slowest request before
// claiming the next deliveries); once it answers, its chain follows, in
// order.
func TestSlowChainDoesNotHoldTheOthers(t *testing.T) {
	backends(t, func(t *testing.T, target string) {
		st := openStore(t, target)
		release := make(chan struct{})
		var releaseOnce sync.Once
		free := func() { releaseOnce.Do(func() { close(release) }) }
		defer free()
		slow := map[string]bool{}
		var held atomic.Int32
		rc := newReceiver(t, func(r *http.Request) int {
			if slow[r.Header.Get("webhook-id")] {
				held.Add(1)
				select {
				case <-release:
				case <-r.Context().Done():
				}
			}
			return http.StatusNoContent
		})
		ep := webhook.Endpoint{Tenant: "app", URL: rc.URL, Secret: secret}
		conns := []string{"conn_slow", "conn_a", "conn_b", "conn_c"}
		const per = 10
		ids := addEvents(t, st, ep, conns, per)
		for i, id := range ids {
			if i%len(conns) == 0 {
				slow[id] = true
			}
		}
		var attempts atomic.Int32
		// A timeout far beyond the test's wait: a batch that waited for
		// its slowest request would deliver one event per chain.
		d := newDeliverer(t, st, []webhook.Endpoint{ep}, func(c *webhook.DelivererConfig) {
			c.Timeout = time.Minute
			c.Observe = func(webhook.Outcome) { attempts.Add(1) }
		})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); _ = d.Run(ctx) }()
		defer func() { cancel(); <-done }()
		others := func() (n int) {
			for _, g := range rc.received() {
				if g.conn != "conn_slow" {
					n++
				}
			}
			return n
		}
		want := (len(conns) - 1) * per
		deadline := time.Now().Add(10 * time.Second)
		for others() < want && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if got := others(); got != want {
			t.Fatalf("while one chain's request hangs, %d of the other chains' %d events arrived", got, want)
		}
		if n := held.Load(); n != 1 {
			t.Errorf("the slow chain got %d requests while its first hung, want 1 (its next must wait)", n)
		}
		for _, g := range rc.received() {
			if g.conn == "conn_slow" {
				t.Fatalf("the slow chain's event %d arrived while its first still hung", g.seq)
			}
		}
		free()
		// Every answer recorded (a request the receiver has answered may
		// not be recorded yet: a stop then would give it back).
		deadline = time.Now().Add(10 * time.Second)
		for int(attempts.Load()) < len(ids) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if got := len(rc.received()); got != len(ids) {
			t.Fatalf("%d of %d events arrived once the slow request was answered", got, len(ids))
		}
		checkOrder(t, rc.received(), conns)
		cancel()
		<-done
		if n := attempts.Load(); n != int32(len(ids)) {
			t.Errorf("Observe was called %d times for %d attempts", n, len(ids))
		}
		states, err := st.Endpoints(context.Background(), ep.ID())
		if err != nil || states[0].Delivered != int64(len(ids)) || states[0].Pending != 0 {
			t.Errorf("the endpoint once done: %+v, %v", states, err)
		}
	})
}

// Under the pipeline, with more chains than requests in flight, receivers
// that answer after random delays and fail now and then, each connector's
// events still arrive in the order they were written, each is delivered,
// and Observe hears of every attempt once.
func TestPipelineKeepsChainOrder(t *testing.T) {
	backends(t, func(t *testing.T, target string) {
		st := openStore(t, target)
		var attempts atomic.Int32
		var mu sync.Mutex
		rng := rand.New(rand.NewPCG(32, 7))
		rc := newReceiver(t, func(r *http.Request) int {
			attempts.Add(1)
			mu.Lock()
			delay := time.Duration(rng.IntN(4000)) * time.Microsecond
			fail := rng.IntN(10) == 0
			mu.Unlock()
			time.Sleep(delay)
			if fail {
				return http.StatusServiceUnavailable
			}
			return http.StatusOK
		})
		ep := webhook.Endpoint{Tenant: "app", URL: rc.URL, Secret: secret}
		var conns []string
		for i := range 12 {
			conns = append(conns, fmt.Sprintf("conn_%02d", i))
		}
		ids := addEvents(t, st, ep, conns, 12)
		var observed, delivered atomic.Int32
		d := newDeliverer(t, st, []webhook.Endpoint{ep}, func(c *webhook.DelivererConfig) {
			c.Batch = 5
			c.Backoff, c.MaxBackoff = time.Millisecond, 5*time.Millisecond
			c.Observe = func(o webhook.Outcome) {
				observed.Add(1)
				if o.State == store.DeliveryDelivered {
					delivered.Add(1)
				}
			}
		})
		if !runUntil(t, d, 60*time.Second, func() bool { return int(delivered.Load()) == len(ids) }) {
			t.Fatalf("%d of %d events delivered", delivered.Load(), len(ids))
		}
		if got := len(dedupe(rc.received())); got != len(ids) {
			t.Errorf("the receiver got %d distinct events, want %d", got, len(ids))
		}
		checkOrder(t, rc.received(), conns)
		if a, o := attempts.Load(), observed.Load(); a != o || a < int32(len(ids)) {
			t.Errorf("the receiver saw %d attempts, Observe %d", a, o)
		}
	})
}
