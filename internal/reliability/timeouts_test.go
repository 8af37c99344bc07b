package reliability

import (
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/github/githubtest"
)

// The servers of issue 18, as fakeserver faults, and the limit that must
// end each: one that never answers, one that stalls halfway through a
// body, one that drips a byte at a time (each byte well within the stall
// limit, so only the attempt ceiling ends it).
type stallCase struct {
	name   string
	faults fakeserver.Faults
	limit  string // the words the error must contain
}

func stallCases(n int) []stallCase {
	return []stallCase{
		{"never answers", fakeserver.Faults{HangFirst: n}, "response-header timeout"},
		{"stalls halfway", fakeserver.Faults{StallFirst: n}, "stall timeout"},
		{"drips", fakeserver.Faults{DripFirst: n, DripEvery: 10 * time.Millisecond}, "attempt timeout"},
	}
}

// TestTimeoutsWalkRecovers walks every kind's main entity while one page of
// the walk (the second request, or the first of a one-page walk) hangs,
// stalls or drips: the walk retries that page and delivers exactly the
// records of a fault-free walk, in order, with one request more, in about
// the time of the limit that ended the bad attempt. The limits are short
// but not so short that a loaded machine trips them on healthy pages.
func TestTimeoutsWalkRecovers(t *testing.T) {
	// Alone, as TestTimeoutsErrorAfterRetries.
	limits := tributary.Timeouts{ResponseHeader: 2 * time.Second, Stall: 2 * time.Second, Attempt: 4 * time.Second}
	forKinds(t, kindCases(), func(t testing.TB, kc kindCase) {
		f := kc.start(t, 300)
		c := open(t, kc, f, nil, tributary.WithRetry(fastRetry), tributary.WithTimeouts(limits))
		if _, err := c.List(context.Background(), kc.entity, kc.params.Clone()); err != nil {
			t.Fatalf("first page: %v", err)
		}
		f.srv.ResetRequests()
		base, err := walkAll(c, kc, true)
		if err != nil {
			t.Fatalf("fault-free walk: %v", err)
		}
		baseReqs := apiRequests(f)
		for _, sc := range stallCases(1) {
			faults := sc.faults
			faults.Skip = min(1, baseReqs-1)
			f.srv.SetFaults(faults)
			f.srv.ResetRequests()
			start := time.Now()
			got, err := walkAll(c, kc, false)
			took := time.Since(start)
			f.srv.SetFaults(fakeserver.Faults{})
			if err != nil {
				t.Errorf("%s: walk ended with %v", sc.name, err)
				continue
			}
			if !sameRecords(base, got) {
				t.Errorf("%s: the walk delivered %d records, not the %d of the fault-free walk in the same order", sc.name, len(got), len(base))
			}
			if reqs := apiRequests(f); reqs != baseReqs+1 {
				t.Errorf("%s: the fake saw %d requests, want %d (the fault-free walk's %d and one retry)", sc.name, reqs, baseReqs+1, baseReqs)
			}
			if took > 30*time.Second {
				t.Errorf("%s: the walk took %v", sc.name, took)
			}
			t.Logf("%s: %d records, %d requests, %v", sc.name, len(got), apiRequests(f), took.Round(time.Millisecond))
		}
	})
}

func sameRecords(a, b []recKey) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].sum != b[i].sum {
			return false
		}
	}
	return true
}

// TestTimeoutsErrorAfterRetries: a request whose every attempt hangs,
// stalls or drips is tried 1 + MaxRetries times and then fails with
// ErrServer, its message naming the limit and its length; an endless body
// fails at once with ErrUnexpectedResponse naming the page size cap. Every
// call returns within a few times its limits.
func TestTimeoutsErrorAfterRetries(t *testing.T) {
	// Alone: its limits are half a second to a second and a half, which
	// the other tests' walks of every kind at once could push a healthy
	// answer past on two cores.
	const retries = 2
	// Each limit is far from the others and from the drip's pace, so
	// that a loaded machine cannot make one fault end at another limit.
	limits := tributary.Timeouts{ResponseHeader: time.Second, Stall: 500 * time.Millisecond, Attempt: 1500 * time.Millisecond}
	policy := tributary.RetryPolicy{MaxRetries: retries, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond, MaxRateLimitWait: time.Second}
	forKinds(t, kindCases(), func(t testing.TB, kc kindCase) {
		f := kc.start(t, 10)
		c := open(t, kc, f, nil, tributary.WithRetry(policy), tributary.WithTimeouts(limits), tributary.WithMaxPageBytes(1<<20))
		if _, err := c.List(context.Background(), kc.lightEntity, kc.light.Clone()); err != nil {
			t.Fatalf("first page: %v", err)
		}
		cases := append(stallCases(100), stallCase{"never ends", fakeserver.Faults{EndlessFirst: 100}, "larger than 1 MiB"})
		for _, sc := range cases {
			f.srv.SetFaults(sc.faults)
			f.srv.ResetRequests()
			start := time.Now()
			_, err := c.List(context.Background(), kc.lightEntity, kc.light.Clone())
			took := time.Since(start)
			f.srv.SetFaults(fakeserver.Faults{})
			want, attempts := tributary.ErrServer, retries+1
			if sc.name == "never ends" {
				want, attempts = tributary.ErrUnexpectedResponse, 1
			}
			if !errors.Is(err, want) {
				t.Errorf("%s: error = %v, want %v", sc.name, err, want)
			} else if !strings.Contains(err.Error(), sc.limit) {
				t.Errorf("%s: message %q does not say %q", sc.name, err, sc.limit)
			}
			if reqs := apiRequests(f); reqs != attempts {
				t.Errorf("%s: the fake saw %d attempts, want %d", sc.name, reqs, attempts)
			}
			if took > 30*time.Second {
				t.Errorf("%s: the call took %v", sc.name, took)
			}
			t.Logf("%s: %v after %v", sc.name, err, took.Round(time.Millisecond))
		}
	})
}

// TestEndlessPageMemory: an endless page ends with ErrUnexpectedResponse
// having allocated at most 1.25 × the page size cap, and a walk whose pages
// fetched ahead are all endless allocates at most that per page in flight
// (reading a page used to double a buffer past the cap: 3.5 × at the
// default 256 MiB).
func TestEndlessPageMemory(t *testing.T) {
	const limit = 8 << 20
	const prefetch = 4
	s := githubtest.New(githubtest.WithRepos(1), githubtest.WithIssues(50), githubtest.WithPulls(0))
	register(t, s)
	c := open(t, kindCaseOf("github"), fake{srv: s.Server, creds: map[string]any{"token": githubtest.DefaultToken}}, nil,
		tributary.WithRetry(tributary.RetryPolicy{}), tributary.WithMaxPageBytes(limit), tributary.WithPrefetch(prefetch))
	params := tributary.Params{"owner": githubtest.Owner, "repo": githubtest.Repo, "state": "all", "per_page": 5}
	if _, err := c.List(context.Background(), "issues", params.Clone()); err != nil {
		t.Fatal(err)
	}
	allocated := func(fn func()) float64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		fn()
		runtime.ReadMemStats(&after)
		return float64(after.TotalAlloc-before.TotalAlloc) / limit
	}

	s.SetFaults(fakeserver.Faults{EndlessFirst: 1})
	var err error
	ratio := allocated(func() { _, err = c.List(context.Background(), "issues", params.Clone()) })
	if !errors.Is(err, tributary.ErrUnexpectedResponse) {
		t.Fatalf("endless page: %v, want ErrUnexpectedResponse", err)
	}
	t.Logf("one endless page: allocated %.2f× the %d MiB cap", ratio, limit>>20)
	if ratio > 1.25 {
		t.Errorf("one endless page allocated %.2f× the cap, want at most 1.25×", ratio)
	}

	// The first page names the last; the next four are fetched at once,
	// and all of them never end.
	s.SetFaults(fakeserver.Faults{Skip: 1, EndlessFirst: prefetch})
	n := 0
	ratio = allocated(func() {
		for _, e := range tributary.All(context.Background(), c, "issues", params.Clone()) {
			if e != nil {
				err = e
				break
			}
			n++
		}
	})
	s.SetFaults(fakeserver.Faults{})
	if !errors.Is(err, tributary.ErrUnexpectedResponse) || n != 5 {
		t.Fatalf("walk: %d records then %v; want the first page's 5, then ErrUnexpectedResponse", n, err)
	}
	t.Logf("a walk with %d endless pages in flight: allocated %.2f× the cap", prefetch, ratio)
	if ratio > 1.25*prefetch {
		t.Errorf("the walk allocated %.2f× the cap, want at most 1.25× for each of its %d pages in flight", ratio, prefetch)
	}
}

// TestDownloadStallResumes: a download whose body stalls halfway resumes
// with a ranged request from the byte reached (If-Range), as after a cut,
// and arrives whole; a caller that reads slowly, for longer than the
// attempt ceiling, is not cut off (downloads have no ceiling).
func TestDownloadStallResumes(t *testing.T) {
	parallelWhenWaiting(t)
	const size = 1 << 20
	s := githubtest.New(githubtest.WithRepos(1), githubtest.WithIssues(1), githubtest.WithFileSize(size))
	register(t, s)
	want, ok := s.FileContent("data/large.bin")
	if !ok {
		t.Fatal("no data/large.bin")
	}
	f := fake{srv: s.Server, creds: map[string]any{"token": githubtest.DefaultToken}}
	c := open(t, kindCaseOf("github"), f, nil, tributary.WithRetry(fastRetry),
		tributary.WithTimeouts(tributary.Timeouts{Stall: 500 * time.Millisecond, Attempt: 2 * time.Second}))
	p := tributary.Params{"owner": githubtest.Owner, "repo": githubtest.Repo, "path": "data/large.bin"}

	// Slow reading: a pause longer than the attempt ceiling mid-body.
	f.srv.ResetRequests()
	st, err := c.Download(context.Background(), "file_content", p)
	if err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 1000)
	if _, err := io.ReadFull(st, head); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	rest, err := io.ReadAll(st)
	st.Close()
	if err != nil || sha256.Sum256(append(head, rest...)) != sha256.Sum256(want) {
		t.Fatalf("slow download: %d bytes, %v", len(head)+len(rest), err)
	}
	clean := apiRequests(f)

	// A stall halfway through the file's bytes (the last request of a
	// clean download).
	s.SetFaults(fakeserver.Faults{Skip: clean - 1, StallFirst: 1})
	f.srv.ResetRequests()
	start := time.Now()
	st, err = c.Download(context.Background(), "file_content", p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(st)
	st.Close()
	took := time.Since(start)
	if err != nil || sha256.Sum256(got) != sha256.Sum256(want) {
		t.Fatalf("stalled download: %d bytes, %v", len(got), err)
	}
	reqs := f.srv.Requests()
	if len(reqs) != clean+1 {
		t.Fatalf("%d requests, want %d (a clean download's %d and one resume)", len(reqs), clean+1, clean)
	}
	last := reqs[len(reqs)-1].Header
	if rng, wantRange := last.Get("Range"), "bytes=524288-1048575"; rng != wantRange || last.Get("If-Range") == "" {
		t.Errorf("resume asked for %q (If-Range %q), want %q with If-Range", rng, last.Get("If-Range"), wantRange)
	}
	if took < 500*time.Millisecond || took > 15*time.Second {
		t.Errorf("the stalled download took %v", took)
	}
}

// silentTransport plays a server in memory, in testing/synctest's fake
// time: mode "hang" never answers; "stall" answers headers and then never
// sends a byte; "drip" sends a byte of an endless body every second.
type silentTransport struct{ mode string }

func (s silentTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx := r.Context()
	if s.mode == "hang" {
		<-ctx.Done()
		return nil, context.Cause(ctx)
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}, ContentLength: -1,
		Body: &silentBody{ctx: ctx, drip: s.mode == "drip"}, Request: r}, nil
}

type silentBody struct {
	ctx  context.Context
	drip bool
}

func (b *silentBody) Read(p []byte) (int, error) {
	if b.drip {
		select {
		case <-time.After(time.Second):
			p[0] = ' '
			return 1, nil
		case <-b.ctx.Done():
			return 0, context.Cause(b.ctx)
		}
	}
	<-b.ctx.Done()
	return 0, context.Cause(b.ctx)
}

func (b *silentBody) Close() error { return nil }

// TestDefaultTimeouts: a caller who sets no timeout and no deadline (only
// a transport of their own, with no timeout either) is still protected by
// the defaults: a server that never answers fails after the default
// response-header timeout, one that stalls after the default stall
// timeout, one that drips after the default attempt ceiling, each attempt
// retried under the default policy's retry count. It runs in
// testing/synctest's fake time, so the minutes pass at once.
func TestDefaultTimeouts(t *testing.T) {
	d := tributary.DefaultTimeouts
	retries := tributary.DefaultRetryPolicy.MaxRetries
	for _, tc := range []struct {
		mode, says string
		each       time.Duration
	}{
		{"hang", "no response headers within " + d.ResponseHeader.String(), d.ResponseHeader},
		{"stall", "no bytes for " + d.Stall.String(), d.Stall},
		{"drip", "took longer than " + d.Attempt.String(), d.Attempt},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c, err := kinds.Open("zendesk-support", map[string]any{"subdomain": "acme", "email": "a@acme.test", "api_token": "tok-123456"},
					tributary.WithHTTPClient(&http.Client{Transport: silentTransport{tc.mode}}))
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				_, err = c.List(context.Background(), "tickets", nil)
				took := time.Since(start)
				if !errors.Is(err, tributary.ErrServer) || !strings.Contains(err.Error(), tc.says) {
					t.Fatalf("error = %v, want ErrServer saying %q", err, tc.says)
				}
				// 1 + MaxRetries attempts of the limit each, plus the
				// backoffs between them (at most MaxBackoff each).
				lo := time.Duration(retries+1) * tc.each
				hi := lo + time.Duration(retries)*tributary.DefaultRetryPolicy.MaxBackoff
				if took < lo || took > hi {
					t.Errorf("took %v of fake time, want between %v and %v", took, lo, hi)
				}
			})
		})
	}
}
