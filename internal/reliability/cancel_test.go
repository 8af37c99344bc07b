package reliability

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/github/githubtest"
)

// cancelBound is how soon a cancelled operation must return: 100 ms, the
// README's promise, when TRIBUTARY_STRICT_TIMING is set (CI checks it so,
// without -race, in a step of its own); otherwise 5 s, which still fails
// every operation that waits out what it was cancelled in (the hangs and
// retry waits here last 30 s to a minute) and holds on a loaded machine.
func cancelBound() time.Duration {
	if strictTiming() {
		return 100 * time.Millisecond
	}
	return 5 * time.Second
}

// slowRetry waits long between attempts, so that a test can cancel the
// context in the middle of the wait.
var slowRetry = tributary.RetryPolicy{MaxRetries: 3, MinBackoff: 30 * time.Second, MaxBackoff: 30 * time.Second, MaxRateLimitWait: time.Minute}

// checkCancelled checks that err, returned elapsed after cancel, matches
// context.Canceled and came within cancelBound.
func checkCancelled(t testing.TB, what string, err error, elapsed time.Duration) {
	t.Helper()
	if !errors.Is(err, context.Canceled) {
		t.Errorf("%s: returned %v, want an error matching context.Canceled", what, err)
	}
	if bound := cancelBound(); elapsed > bound {
		t.Errorf("%s: returned %v after the cancel, want within %v", what, elapsed.Round(time.Millisecond), bound)
	}
}

// waitRequests waits until the fake's API origin has received n requests.
func waitRequests(t testing.TB, f fake, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for apiRequests(f) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the fake received %d requests, waited for %d", apiRequests(f), n)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

type cancelRows struct {
	mu   sync.Mutex
	rows []string
}

func (r *cancelRows) add(format string, args ...any) {
	r.mu.Lock()
	r.rows = append(r.rows, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

// TestCancelMidWalk cancels a walk of every kind while the request for its
// next page hangs in the fake: the walk ends within 100 ms with
// context.Canceled.
func TestCancelMidWalk(t *testing.T) {
	var rows cancelRows
	forKinds(t, kindCases(), func(t testing.TB, kc kindCase) {
		f := kc.start(t, 1000)
		obs := newObserver()
		t.Cleanup(obs.close)
		c := open(t, kc, f, obs, tributary.WithRetry(fastRetry))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()

		type cancelInfo struct {
			hung int
			at   time.Time
		}
		cancelled := make(chan cancelInfo, 1)
		var once sync.Once
		n := 0
		var walkErr error
		for _, err := range tributary.All(ctx, c, kc.entity, kc.params.Clone()) {
			if err != nil {
				walkErr = err
				break
			}
			n++
			once.Do(func() {
				// From now on every request hangs in the fake; cancel once
				// one is hanging and the walk has nothing left to yield.
				before := apiRequests(f)
				f.srv.SetFaults(fakeserver.Faults{Latency: time.Minute})
				go func() {
					deadline := time.Now().Add(10 * time.Second)
					for apiRequests(f) == before && time.Now().Before(deadline) {
						time.Sleep(2 * time.Millisecond)
					}
					time.Sleep(50 * time.Millisecond)
					info := cancelInfo{hung: apiRequests(f) - before, at: time.Now()}
					cancel()
					cancelled <- info
				}()
			})
		}
		ended := time.Now()
		var info cancelInfo
		select {
		case info = <-cancelled:
		case <-time.After(15 * time.Second):
			t.Fatalf("the walk ended (%v) but was never cancelled", walkErr)
		}
		elapsed := ended.Sub(info.at)
		if info.hung == 0 {
			t.Errorf("no request was hanging in the fake when the walk was cancelled")
		}
		if walkErr == nil {
			t.Fatalf("the walk ended without an error after %d records", n)
		}
		var te *tributary.Error
		typed := errors.As(walkErr, &te)
		checkCancelled(t, "walk", walkErr, elapsed)
		rows.add("%-16s walk cancelled after %4d records: %v (typed %v) in %v", kc.typ, n, sentinelName(walkErr), typed, elapsed.Round(time.Microsecond))
	})
	t.Logf("cancel mid-walk:\n%s", joinSorted(rows.rows))
}

// TestCancelMidRetryWait cancels a request of every kind while the client
// waits to retry: after the kind's own rate-limit answer announcing 30 s
// (Retry-After, or its reset header), and after a 5xx with a 30 s backoff.
// It returns within 100 ms with context.Canceled, having sent one request.
func TestCancelMidRetryWait(t *testing.T) {
	var rows cancelRows
	forKinds(t, kindCases(), func(t testing.TB, kc kindCase) {
		type wait struct {
			name   string
			faults fakeserver.Faults
			start  func(t testing.TB, n int) fake // nil: kc.start
		}
		waits := []wait{
			{name: "rate-limit", faults: fakeserver.Faults{RateLimitFirst: 1000, RetryAfter: 30 * time.Second}},
			{name: "5xx", faults: fakeserver.Faults{ServerErrorFirst: 1000}},
		}
		if kc.typ == "github" {
			// kc's fake answers GitHub's primary limit (403 and
			// x-ratelimit-reset); this one its secondary limit (429 and
			// Retry-After).
			waits = append(waits, wait{name: "secondary", faults: waits[0].faults,
				start: func(t testing.TB, n int) fake { return githubFake(t, n, githubtest.SecondaryRateLimit) }})
		}
		for _, w := range waits {
			start := kc.start
			if w.start != nil {
				start = w.start
			}
			f := start(t, 0)
			obs := newObserver()
			t.Cleanup(obs.close)
			c := open(t, kc, f, obs, tributary.WithRetry(slowRetry))
			// A first call without faults, so that one-time requests (an
			// OAuth token) are done; TestTokenRefresh* covers those.
			if _, err := c.List(context.Background(), kc.entity, kc.params.Clone()); err != nil {
				t.Fatalf("first call: %v", err)
			}
			f.srv.ResetRequests()
			f.srv.SetFaults(w.faults)
			ctx, cancel := context.WithCancel(context.Background())
			type result struct {
				err error
				at  time.Time
			}
			done := make(chan result, 1)
			go func() {
				_, err := c.List(ctx, kc.entity, kc.params.Clone())
				done <- result{err, time.Now()}
			}()
			waitRequests(t, f, 1)
			if w.name != "5xx" && kc.rateLimitFatal {
				// The kind's limit is a quota that no wait fixes: the call
				// must end at once, without waiting.
				select {
				case r := <-done:
					if !errors.Is(r.err, tributary.ErrRateLimited) {
						t.Errorf("%s: %v, want ErrRateLimited", w.name, r.err)
					}
					rows.add("%-16s %-10s not waited for: %v", kc.typ, w.name, sentinelName(r.err))
				case <-time.After(5 * time.Second):
					t.Errorf("%s: the call waits on a quota that waiting does not fix", w.name)
				}
				cancel()
				continue
			}
			time.Sleep(50 * time.Millisecond) // well into the 30 s wait
			cancelled := time.Now()
			cancel()
			var r result
			select {
			case r = <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: the call did not return 10 s after the cancel", w.name)
			}
			elapsed := r.at.Sub(cancelled)
			checkCancelled(t, w.name+" wait", r.err, elapsed)
			var te *tributary.Error
			if !errors.As(r.err, &te) {
				t.Errorf("%s: %T is not a *tributary.Error", w.name, r.err)
			}
			if n := apiRequests(f); n != 1 {
				t.Errorf("%s: the fake received %d requests, want 1 (the wait is 30 s)", w.name, n)
			}
			rows.add("%-16s %-10s wait cancelled: %v in %v", kc.typ, w.name, sentinelName(r.err), elapsed.Round(time.Microsecond))
		}
	})
	t.Logf("cancel mid-retry-wait:\n%s", joinSorted(rows.rows))
}

// TestCancelMidDownload cancels the context of every kind's download after
// its first MiB: the next reads end within 100 ms with context.Canceled.
func TestCancelMidDownload(t *testing.T) {
	var rows cancelRows
	cases := dlCases()
	kcs := make([]kindCase, len(cases))
	for i, dc := range cases {
		kcs[i] = dc.kc
	}
	forKinds(t, kcs, func(t testing.TB, kc kindCase) {
		var dc dlCase
		for _, d := range cases {
			if d.kc.typ == kc.typ {
				dc = d
			}
		}
		f, entity, p, _ := dc.start(t, 8<<20, 0)
		obs := newObserver()
		t.Cleanup(obs.close)
		c := open(t, kc, f, obs, tributary.WithRetry(fastRetry))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s, err := c.Download(ctx, entity, p)
		if err != nil {
			t.Fatalf("download: %v", err)
		}
		defer s.Close()
		if _, err := io.CopyN(io.Discard, s, 1<<20); err != nil {
			t.Fatalf("first MiB: %v", err)
		}
		cancelled := time.Now()
		cancel()
		extra, err := io.Copy(io.Discard, s)
		elapsed := time.Since(cancelled)
		if err == nil {
			t.Fatalf("the download completed (%d more bytes) after the cancel", extra)
		}
		checkCancelled(t, "download", err, elapsed)
		rows.add("%-16s download cancelled after 1 MiB: %v, %d bytes more in %v", kc.typ, sentinelName(err), extra, elapsed.Round(time.Microsecond))
	})
	t.Logf("cancel mid-download:\n%s", joinSorted(rows.rows))
}
