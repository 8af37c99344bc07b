package reliability

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// TestRateLimitBeyondPolicy: a rate-limit answer that asks for a longer
// wait than the policy's MaxRateLimitWait, or than the context's deadline
// leaves, ends the call at once with ErrRateLimited and the wait the source
// asked for in RetryAfter, instead of sleeping into the deadline.
func TestRateLimitBeyondPolicy(t *testing.T) {
	var rows cancelRows
	forKinds(t, kindCases(), func(t testing.TB, kc kindCase) {
		if kc.typ == "mailchimp" {
			// Mailchimp's 429 (too many connections) announces no wait:
			// it is retried with backoff, never refused for its length.
			return
		}
		for _, v := range []struct {
			name     string
			policy   tributary.RetryPolicy
			deadline time.Duration
		}{
			{"max-wait", tributary.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond, MaxRateLimitWait: time.Second}, 0},
			{"deadline", tributary.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond, MaxRateLimitWait: time.Minute}, 5 * time.Second},
		} {
			f := kc.start(t, 0)
			c := open(t, kc, f, nil, tributary.WithRetry(v.policy))
			if _, err := c.List(context.Background(), kc.entity, kc.params.Clone()); err != nil {
				t.Fatalf("first call: %v", err)
			}
			f.srv.ResetRequests()
			f.srv.SetFaults(fakeserver.Faults{RateLimitFirst: 1000, RetryAfter: 30 * time.Second})
			ctx := context.Background()
			if v.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, v.deadline)
				defer cancel()
			}
			start := time.Now()
			_, err := c.List(ctx, kc.entity, kc.params.Clone())
			elapsed := time.Since(start)
			var te *tributary.Error
			switch {
			case !errors.As(err, &te) || !errors.Is(err, tributary.ErrRateLimited):
				t.Errorf("%s: %v, want a *tributary.Error matching ErrRateLimited", v.name, err)
				continue
			case elapsed > 3*time.Second: // far below the 5 s deadline and the 30 s wait
				t.Errorf("%s: returned after %v; a wait that does not fit must not be started", v.name, elapsed.Round(time.Millisecond))
			case !te.Retryable:
				t.Errorf("%s: %v is not marked retryable", v.name, err)
			}
			if n := apiRequests(f); n != 1 {
				t.Errorf("%s: %d requests, want 1", v.name, n)
			}
			if !kc.rateLimitFatal && (te.RetryAfter < 28*time.Second || te.RetryAfter > 31*time.Second) {
				t.Errorf("%s: RetryAfter %v, the source asked for 30 s", v.name, te.RetryAfter)
			}
			rows.add("%-16s %-8s %v, RetryAfter %v, in %v", kc.typ, v.name, sentinelName(err), te.RetryAfter.Round(time.Second), elapsed.Round(time.Microsecond))
		}
	})
	t.Logf("rate limits beyond the policy:\n%s", joinSorted(rows.rows))
}

// TestBreakMidWalk stops a walk of every kind early (break) while the page
// fetched ahead hangs in the fake: the loop exits at once, the fetch ahead
// is abandoned, and no goroutine is left behind (goleak, TestMain).
func TestBreakMidWalk(t *testing.T) {
	parallelWhenWaiting(t)
	// Every answer takes 6 s: a loop that waited for the fetch ahead would
	// take seconds to end, far beyond what a loaded machine adds.
	const latency = 6 * time.Second
	var rows cancelRows
	forKinds(t, kindCases(), func(t testing.TB, kc kindCase) {
		f := kc.start(t, 1000)
		c := open(t, kc, f, nil, tributary.WithRetry(fastRetry))
		// Every answer takes the latency: when the first page arrives, the
		// request for the next one has just started and hangs.
		f.srv.SetFaults(fakeserver.Faults{Latency: latency})
		n := 0
		var broke time.Time
		for _, err := range tributary.All(context.Background(), c, kc.entity, kc.params.Clone()) {
			if err != nil {
				t.Fatalf("walk: %v", err)
			}
			if n++; n == 50 {
				waitRequests(t, f, 2) // the request ahead is in the fake
				broke = time.Now()
				break
			}
		}
		elapsed := time.Since(broke)
		if elapsed > min(cancelBound(), latency/2) {
			t.Errorf("the loop took %v to end after break (the fetch ahead takes %v)", elapsed.Round(time.Millisecond), latency)
		}
		rows.add("%-16s break after %d records, the next page hanging: loop ended in %v", kc.typ, n, elapsed.Round(time.Microsecond))
	})
	t.Logf("break mid-walk:\n%s", joinSorted(rows.rows))
}
