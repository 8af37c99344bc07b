// The rate budgets: a long sync against a fake that enforces the vendor's
// limit keeps to it on its own. By default each runs in a testing/synctest
// bubble, on the bubble's clock, which the connector's pacing and the
// fake's windows both read: the rate is measured exactly and no load on
// the machine can move it. With TRIBUTARY_STRICT_TIMING set (CI's step of
// its own, nothing else running) each runs once more on the real clock
// over loopback, as a user's program would.

package replica_test

import (
	"context"
	"flag"
	"net/http"
	"os"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakes"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/github"
	"github.com/tributary-dev/tributary/kinds/github/githubtest"
	"github.com/tributary-dev/tributary/kinds/gong"
	"github.com/tributary-dev/tributary/kinds/gong/gongtest"
	"github.com/tributary-dev/tributary/kinds/hubspot"
	"github.com/tributary-dev/tributary/kinds/hubspot/hubspottest"
	"github.com/tributary-dev/tributary/kinds/intercom"
	"github.com/tributary-dev/tributary/kinds/intercom/intercomtest"
	"github.com/tributary-dev/tributary/kinds/mailchimp/mailchimptest"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/replica"
)

// noPacing turns the connectors' own pacing off in TestRateBudget, to
// check that each case then fails: go test ./replica -run RateBudget
// -args -rate.nopacing.
var noPacing = flag.Bool("rate.nopacing", false, "TestRateBudget: turn the connectors' pacing off (each case must then fail)")

// TestExportsKeepToTheirRateLimit: against a fake that enforces Zendesk's
// limit on its incremental exports (here 10 requests a second, for a
// test of seconds rather than minutes: the same mechanism as the
// documented 10 a minute), a long sync paces itself: not one throttled
// answer, and at least 90% of the allowed rate used.
func TestExportsKeepToTheirRateLimit(t *testing.T) {
	parallelUnlessStrict(t)
	const limit, per = 10, time.Second
	rc := rateCase{
		name: "zendesk exports", limit: limit, per: per,
		start: func(c *fakeserver.Clock) (rateFake, string, func() int) {
			s := zendesktest.New(zendesktest.WithTickets(4000), zendesktest.WithClock(c), zendesktest.WithExportRateLimit(limit, per))
			return s, s.URL, nil
		},
		kc:     kindCase{kind: "zendesk-support", creds: crashCreds, opts: []tributary.Option{zendesk.WithExportRateLimit(limit, per), zendesk.WithAPIRateLimit(0, 0)}},
		off:    []tributary.Option{zendesk.WithExportRateLimit(0, 0)},
		entity: "tickets", params: tributary.Params{"per_page": 100}, want: 4000,
	}
	runRateCase(t, rc)
}

// rateCase is one kind's documented limit, scaled down so that a long
// sync takes seconds, enforced by its fake and kept to by its connector.
type rateCase struct {
	name   string
	limit  int           // requests per window; 0: a concurrency cap, not a rate
	per    time.Duration // the window
	start  func(clock *fakeserver.Clock) (fake rateFake, url string, refused func() int)
	kc     kindCase
	off    []tributary.Option // the connector's pacing turned off
	entity string
	params tributary.Params
	want   int64 // records the sync copies
}

// rateCases scale each vendor's documented limit (see each kind's
// With…RateLimit or WithBudgetPacing) down to seconds.
func rateCases() []rateCase {
	const sec = time.Second
	gongCreds := map[string]any{"access_key": gongtest.DefaultAccessKey, "access_key_secret": gongtest.DefaultAccessKeySecret}
	out := []rateCase{{
		// Zendesk: 700 requests a minute on Enterprise, the whole account.
		name: "zendesk", limit: 20, per: sec,
		start: func(c *fakeserver.Clock) (rateFake, string, func() int) {
			s := zendesktest.New(zendesktest.WithTickets(4000), zendesktest.WithClock(c), zendesktest.WithAPIRateLimit(20, sec))
			return s, s.URL, nil
		},
		kc:     kindCase{kind: "zendesk-support", creds: crashCreds, opts: []tributary.Option{zendesk.WithExportRateLimit(0, 0), zendesk.WithAPIRateLimit(20, sec)}},
		off:    []tributary.Option{zendesk.WithAPIRateLimit(0, 0), zendesk.WithBudgetPacing(false)},
		entity: "tickets", params: tributary.Params{"per_page": 100}, want: 4000,
	}, {
		// HubSpot: 100 requests per 10 seconds for private apps on Free
		// and Starter (190 on Professional and Enterprise). The sync reads
		// the search endpoints, whose own lower limit (paced since
		// before) the fake does not enforce: their pace is off here, so
		// that the account's limit is the one kept to.
		name: "hubspot", limit: 20, per: sec,
		start: func(c *fakeserver.Clock) (rateFake, string, func() int) {
			s := hubspottest.New(hubspottest.WithContacts(8000), hubspottest.WithClock(c), hubspottest.WithRateLimit(20, sec))
			return s, s.URL, nil
		},
		kc:     kindCase{kind: "hubspot", creds: map[string]any{"private_app_token": hubspottest.DefaultPrivateAppToken}, opts: []tributary.Option{hubspot.WithAPIRateLimit(20, sec), hubspot.WithSearchRateLimit(0, 0)}},
		off:    []tributary.Option{hubspot.WithAPIRateLimit(0, 0)},
		entity: "contacts", params: tributary.Params{"limit": 200}, want: 8000,
	}, {
		// Gong: 3 requests a second per company.
		name: "gong", limit: 10, per: sec,
		start: func(c *fakeserver.Clock) (rateFake, string, func() int) {
			s := gongtest.New(gongtest.WithCalls(4000), gongtest.WithMutationClock(c), gongtest.WithRateLimit(10, sec))
			return s, s.URL, nil
		},
		kc:     kindCase{kind: "gong", creds: gongCreds, opts: []tributary.Option{gong.WithAPIRateLimit(10, sec)}},
		off:    []tributary.Option{gong.WithAPIRateLimit(0, 0)},
		entity: "calls", want: 4000,
	}, {
		// Intercom: 10,000 requests a minute per private app, counted
		// in 10-second windows; the connector keeps to the budget of
		// X-RateLimit-Remaining and X-RateLimit-Reset.
		name: "intercom", limit: 10, per: sec,
		start: func(*fakeserver.Clock) (rateFake, string, func() int) {
			s := intercomtest.New(intercomtest.WithContacts(6000), intercomtest.WithRateLimit(10), intercomtest.WithRateLimitWindow(sec))
			return s, s.URL, nil
		},
		kc:     kindCase{kind: "intercom", creds: map[string]any{"access_token": intercomtest.DefaultAccessToken}},
		off:    []tributary.Option{intercom.WithBudgetPacing(false)},
		entity: "contacts", params: tributary.Params{"per_page": 150}, want: 6000,
	}, {
		// GitHub: 5,000 requests an hour for a token; the connector keeps
		// to the budget of x-ratelimit-remaining and x-ratelimit-reset.
		name: "github", limit: 20, per: sec,
		start: func(c *fakeserver.Clock) (rateFake, string, func() int) {
			s := githubtest.New(githubtest.WithIssues(4000), githubtest.WithClock(c), githubtest.WithCoreLimit(20), githubtest.WithCoreWindow(sec))
			return s, s.URL, nil
		},
		kc:     kindCase{kind: "github", creds: map[string]any{"token": githubtest.DefaultToken}},
		off:    []tributary.Option{github.WithBudgetPacing(false)},
		entity: "issues", params: tributary.Params{"owner": githubtest.Owner, "repo": githubtest.Repo, "state": "all", "per_page": 100}, want: 4000,
	}, {
		// Mailchimp: 10 simultaneous connections, not a rate; a sync with
		// 16 pages wanted at once stays within them.
		name: "mailchimp",
		start: func(*fakeserver.Clock) (rateFake, string, func() int) {
			s := mailchimptest.New(mailchimptest.WithCampaigns(3000), mailchimptest.WithFaults(mailchimptest.Faults{Latency: 20 * time.Millisecond}))
			return s, s.URL, s.TooManyRequests
		},
		kc:     kindCase{kind: "mailchimp", creds: map[string]any{"api_key": mailchimptest.DefaultAPIKey}, opts: []tributary.Option{tributary.WithPrefetch(16)}},
		off:    []tributary.Option{tributary.WithMaxConcurrency(100)},
		entity: "campaigns", params: tributary.Params{"count": 50}, want: 3000,
	}}
	// Every other kind whose fake can enforce its vendor's limit
	// (fakeserver.Kind.Limited): 20 requests a second, kept to from the
	// budget the fake announces, over its main entity's copy: 3,000
	// records, or 30 of the fake's pages when they are larger than 100.
	for _, k := range fakes.Suite() {
		if k.Limited == nil || slices.ContainsFunc(out, func(rc rateCase) bool { return rc.kc.kind == k.Type }) {
			continue
		}
		n := max(3000, 30*k.PageSize)
		out = append(out, rateCase{name: k.Type, limit: 20, per: sec,
			start: func(c *fakeserver.Clock) (rateFake, string, func() int) {
				f := k.Limited(c, n, 20, sec)
				return f, f.BaseURL(), nil
			},
			kc:     kindCase{kind: k.Type, creds: k.Credentials},
			off:    []tributary.Option{tributary.WithSetting(k.Type+".budget_pacing", "false")},
			entity: k.Main, want: int64(n),
		})
	}
	return out
}

// TestRateBudget: for every kind, against a fake enforcing the vendor's
// documented limit (scaled from minutes or hours to a second, the same
// mechanism), a long sync keeps to it on its own: not one throttled
// answer or retry, and at least 90% of the allowed rate used (Mailchimp's
// limit is on connections, not a rate: not one refused). Salesforce has
// no case: its limits are a daily allocation of the org and 25
// long-running requests at once, neither a rate a sync paces to.
func TestRateBudget(t *testing.T) {
	parallelUnlessStrict(t)
	for _, rc := range rateCases() {
		t.Run(rc.name, func(t *testing.T) {
			parallelUnlessStrict(t)
			runRateCase(t, rc)
		})
	}
}

// parallelUnlessStrict runs t beside the package's other parallel tests,
// except under TRIBUTARY_STRICT_TIMING, whose wall-clock rates CI's
// strict-timing step measures with nothing else running.
func parallelUnlessStrict(t *testing.T) {
	if os.Getenv("TRIBUTARY_STRICT_TIMING") == "" {
		t.Parallel()
	}
}

// rateFake is a kind's fake: every one embeds *fakeserver.Server.
type rateFake interface {
	Close()
	Transport() http.RoundTripper
}

// runRateCase syncs rc's entity and checks the budget: in a
// testing/synctest bubble, on the bubble's clock, always; on the real
// clock over loopback as well when TRIBUTARY_STRICT_TIMING is set.
func runRateCase(t *testing.T, rc rateCase) {
	t.Run("synctest", func(t *testing.T) {
		// The fake's servers are started outside the bubble (a goroutine
		// waiting on a socket would keep its clock from moving); the
		// connector reaches its handlers in-process, inside the bubble,
		// so the fake's windows and the connector's pacing read one clock.
		clock := fakeserver.NewRealClock()
		fake, url, refused := rc.start(clock)
		defer fake.Close()
		realNow := time.Now()
		synctest.Test(t, func(t *testing.T) {
			// The bubble's clock starts in 2000; the fake's data was
			// made now. Move the bubble to now (a sleep takes no time
			// here) so the fake's feeds see their records in the past.
			time.Sleep(time.Until(realNow))
			checkRateCase(t, rc, url, refused, fake.Transport())
		})
	})
	t.Run("real clock", func(t *testing.T) {
		if os.Getenv("TRIBUTARY_STRICT_TIMING") == "" {
			t.Skip("a wall-clock rate: CI's strict-timing step runs it, alone (TRIBUTARY_STRICT_TIMING=1)")
		}
		if testing.Short() {
			t.Skip("seconds of pacing")
		}
		fake, url, refused := rc.start(fakeserver.NewRealClock())
		defer fake.Close()
		checkRateCase(t, rc, url, refused, http.DefaultTransport.(*http.Transport).Clone())
	})
}

// checkRateCase syncs rc's entity into a new SQLite copy, sending through
// rt, and checks that not one answer was throttled or refused and, for a
// rate, that at least 90% of it was used between the first request and
// the last, as time.Now measures (the bubble's clock inside synctest): the
// pacing's rate, without the copy's opening and final commit.
func checkRateCase(t *testing.T, rc rateCase, url string, refused func() int, rt http.RoundTripper) {
	rec := &requestTimes{next: rt}
	kc := rc.kc
	kc.opts = append(append([]tributary.Option(nil), kc.opts...), tributary.WithHTTPClient(&http.Client{Transport: rec}))
	if *noPacing {
		kc.opts = append(kc.opts, rc.off...)
	}
	r, err := replica.Open(context.Background(), openKind(t, kc, url), replica.SQLite(t.TempDir()+"/rate.db"),
		replica.WithParams(rc.entity, rc.params))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	start := time.Now()
	rep, err := r.Sync(context.Background(), rc.entity)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	e := rep.Entities[0]
	n := e.Usage.Requests
	if n < 30 || e.Inserted != rc.want {
		t.Fatalf("%d requests, %d records: not a long sync", n, e.Inserted)
	}
	if e.Usage.Throttled != 0 || e.Usage.Retries != 0 {
		t.Errorf("%d throttled answers, %d retries", e.Usage.Throttled, e.Usage.Retries)
	}
	if refused != nil {
		t.Logf("%d requests in %s, %d throttled, %d refused by the fake", n, took.Round(time.Millisecond), e.Usage.Throttled, refused())
		if refused() != 0 {
			t.Errorf("the fake refused %d requests", refused())
		}
		return
	}
	span := rec.span()
	used := float64(n-1) / span.Seconds() / (float64(rc.limit) / rc.per.Seconds())
	t.Logf("%d requests in %s (the sync: %s): %.0f%% of the allowed rate, %d throttled", n, span.Round(time.Millisecond), took.Round(time.Millisecond), 100*used, e.Usage.Throttled)
	if used < 0.9 {
		t.Errorf("used %.0f%% of the allowed rate, want at least 90%%", 100*used)
	}
}

// requestTimes records when the first and the last request were sent.
type requestTimes struct {
	next        http.RoundTripper
	mu          sync.Mutex
	first, last time.Time
}

func (r *requestTimes) RoundTrip(req *http.Request) (*http.Response, error) {
	now := time.Now()
	r.mu.Lock()
	if r.first.IsZero() {
		r.first = now
	}
	r.last = now
	r.mu.Unlock()
	return r.next.RoundTrip(req)
}

// span is the time from the first request to the last.
func (r *requestTimes) span() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last.Sub(r.first)
}
