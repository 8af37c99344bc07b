package reliability

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
)

// TestRateBudget uses one connector of every kind from 16 goroutines at
// once, with tributary.WithRateLimit(20, 1): the requests leave the client
// (measured by a RoundTripper under the library's transport, so after its
// limiter) no faster than 20 a second, with bursts of one, and the fake
// receives exactly those.
func TestRateBudget(t *testing.T) {
	const (
		perSecond  = 20
		burst      = 1
		goroutines = 16
		requests   = 40
	)
	var mu sync.Mutex
	var rows []string
	forKinds(t, kindCases(), func(t testing.TB, kc kindCase) {
		f := kc.start(t, 0)
		obs := newObserver()
		t.Cleanup(obs.close)
		c := open(t, kc, f, obs, tributary.WithRetry(fastRetry), tributary.WithRateLimit(perSecond, burst))
		// A first call, so that one-time requests (an OAuth token, which
		// goes to the token endpoint outside the limit) are not measured.
		if _, err := c.List(context.Background(), kc.lightEntity, kc.light.Clone()); err != nil {
			t.Fatalf("first call: %v", err)
		}
		// Let the limiter's bucket refill, then measure from a clean state.
		time.Sleep(time.Second / perSecond)
		obs.reset()
		f.srv.ResetRequests()

		var left atomic.Int64
		left.Store(requests)
		var wg sync.WaitGroup
		for range goroutines {
			wg.Go(func() {
				for left.Add(-1) >= 0 {
					if _, err := c.List(context.Background(), kc.lightEntity, kc.light.Clone()); err != nil {
						t.Errorf("list: %v", err)
						return
					}
				}
			})
		}
		wg.Wait()
		seen := obs.snapshot()
		if seen.attempts != requests {
			t.Errorf("%d requests sent, want %d", seen.attempts, requests)
		}
		if n := apiRequests(f); n != seen.attempts {
			t.Errorf("the fake received %d requests, the client sent %d", n, seen.attempts)
		}
		sent := seen.sent
		slices.SortFunc(sent, func(a, b time.Time) int { return a.Compare(b) })
		if len(sent) < 2 {
			return
		}
		// The most requests in any one-second window: the limiter allows
		// perSecond + burst. The times are taken after the limiter, so a
		// goroutine descheduled between the two can bunch with the next:
		// two more for that, under -race on a busy machine.
		most := 0
		for i := range sent {
			j, _ := slices.BinarySearchFunc(sent, sent[i].Add(time.Second), func(a, b time.Time) int { return a.Compare(b) })
			most = max(most, j-i)
		}
		span := sent[len(sent)-1].Sub(sent[0])
		rate := float64(len(sent)-1) / span.Seconds()
		var minGap time.Duration = time.Hour
		for i := 1; i < len(sent); i++ {
			minGap = min(minGap, sent[i].Sub(sent[i-1]))
		}
		if most > perSecond+burst+2 {
			t.Errorf("%d requests within one second, the limit allows %d", most, perSecond+burst)
		}
		if rate > perSecond*1.05 {
			t.Errorf("%d requests in %v: %.1f/s, the limit is %d/s", len(sent), span.Round(time.Millisecond), rate, perSecond)
		}
		row := fmt.Sprintf("%-16s %d requests from %d goroutines in %v: %.2f/s, at most %d in any 1 s window, smallest gap %v",
			kc.typ, len(sent), goroutines, span.Round(time.Millisecond), rate, most, minGap.Round(time.Microsecond))
		mu.Lock()
		rows = append(rows, row)
		mu.Unlock()
	})
	t.Logf("rate budget %d/s, burst %d:\n%s", perSecond, burst, joinSorted(rows))
}
