package reliability

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakes"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/github/githubtest"
	"github.com/tributary-dev/tributary/kinds/gong/gongtest"
	"github.com/tributary-dev/tributary/kinds/hubspot/hubspottest"
	"github.com/tributary-dev/tributary/kinds/intercom/intercomtest"
	"github.com/tributary-dev/tributary/kinds/mailchimp/mailchimptest"
	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

// fake is one running vendor fake, reduced to what the suite needs.
type fake struct {
	// srv is the fake's shared machinery: request log, faults, origins.
	srv *fakeserver.Server
	// creds is the credentials object the fake accepts.
	creds map[string]any
}

// kindCase describes one connector kind to the suite: how to start its fake
// with n records of its main listable entity, and how to walk that entity.
type kindCase struct {
	typ    string
	entity string
	params tributary.Params
	// idPath is the record's id field.
	idPath string
	// start starts the fake with n records of entity (n <= 0: the fake's
	// default volume).
	start func(t testing.TB, n int) fake
	// light is a cheap request of the kind (one small page), for tests
	// that count requests rather than records.
	lightEntity string
	light       tributary.Params
	// rateLimitStatus is the status of the kind's rate-limit answer when
	// it is not 429.
	rateLimitStatus int
	// rateLimitFatal: the kind's own rate-limit answer is a quota that is
	// not retried (Salesforce's 403 REQUEST_LIMIT_EXCEEDED), so a walk
	// through injected rate limits must end with ErrRateLimited.
	rateLimitFatal bool
}

// forKinds runs fn for every kind at once, each in its own goroutine, and
// waits for all of them. The kinds run concurrently whatever -parallel says:
// most of a fault walk is spent waiting (Retry-After is at least a second),
// and those waits should overlap. fn reports through a testing.TB whose
// messages name the kind; its Fatal ends only that kind's goroutine.
// TRIBUTARY_RELIABILITY_KINDS (connector types, comma-separated) restricts
// the kinds, for debugging one of them; under the race detector the kinds
// are internal/fakes.Suite's few.
func forKinds(t *testing.T, cases []kindCase, fn func(t testing.TB, kc kindCase)) {
	t.Helper()
	only := os.Getenv("TRIBUTARY_RELIABILITY_KINDS")
	suite := fakes.Suite() // every kind; a few under the race detector
	var wg sync.WaitGroup
	for _, kc := range cases {
		if only != "" && !slices.Contains(strings.Split(only, ","), kc.typ) ||
			!slices.ContainsFunc(suite, func(k fakeserver.Kind) bool { return k.Type == kc.typ }) {
			continue
		}
		wg.Go(func() { fn(kindTB{TB: t, kind: kc.typ}, kc) })
	}
	wg.Wait()
}

// kindTB prefixes a test's messages with a kind, and turns Fatal into
// "fail and end this goroutine", which is safe off the test's goroutine
// because forKinds waits for it.
type kindTB struct {
	testing.TB
	kind string
}

func (k kindTB) Errorf(format string, args ...any) {
	k.TB.Helper()
	k.TB.Errorf("%s: %s", k.kind, fmt.Sprintf(format, args...))
}

func (k kindTB) Error(args ...any) { k.TB.Helper(); k.TB.Errorf("%s: %s", k.kind, fmt.Sprint(args...)) }

func (k kindTB) Logf(format string, args ...any) {
	k.TB.Helper()
	k.TB.Logf("%s: %s", k.kind, fmt.Sprintf(format, args...))
}

func (k kindTB) Log(args ...any) { k.TB.Helper(); k.TB.Logf("%s: %s", k.kind, fmt.Sprint(args...)) }

func (k kindTB) Fatalf(format string, args ...any) {
	k.TB.Helper()
	k.Errorf(format, args...)
	runtime.Goexit()
}

func (k kindTB) Fatal(args ...any) {
	k.TB.Helper()
	k.Error(args...)
	runtime.Goexit()
}

func (k kindTB) FailNow() { k.TB.Fail(); runtime.Goexit() }

// register closes s when the test ends.
func register(t testing.TB, s interface{ Close() }) {
	t.Helper()
	t.Cleanup(s.Close)
}

// kindCases lists every kind of this build, with the entity the suite walks.
func kindCases() []kindCase {
	cs := []kindCase{
		{typ: "github", entity: "issues", idPath: "id",
			lightEntity: "issues", light: tributary.Params{"owner": githubtest.Owner, "repo": githubtest.Repo, "per_page": 1},
			params: tributary.Params{"owner": githubtest.Owner, "repo": githubtest.Repo, "state": "all"},
			// GitHub's own primary limit: 403, x-ratelimit-remaining 0 and
			// x-ratelimit-reset (the secondary limit's 429 with Retry-After
			// is the other kinds' shape; TestCancelMidRetryWait covers it).
			rateLimitStatus: http.StatusForbidden,
			start:           func(t testing.TB, n int) fake { return githubFake(t, n, githubtest.PrimaryRateLimit) }},
		{typ: "gong", entity: "calls", idPath: "id", lightEntity: "workspaces",
			start: func(t testing.TB, n int) fake {
				var opts []gongtest.Option
				if n > 0 {
					opts = append(opts, gongtest.WithCalls(n))
				}
				s := gongtest.New(opts...)
				register(t, s)
				return fake{srv: s.Server, creds: map[string]any{
					"access_key": gongtest.DefaultAccessKey, "access_key_secret": gongtest.DefaultAccessKeySecret}}
			}},
		{typ: "hubspot", entity: "contacts", idPath: "id", params: tributary.Params{"limit": 100},
			lightEntity: "contacts", light: tributary.Params{"limit": 1},
			start: func(t testing.TB, n int) fake {
				var opts []hubspottest.Option
				if n > 0 {
					opts = append(opts, hubspottest.WithContacts(n))
				}
				s := hubspottest.New(opts...)
				register(t, s)
				return fake{srv: s.Server, creds: map[string]any{"private_app_token": hubspottest.DefaultPrivateAppToken}}
			}},
		{typ: "intercom", entity: "contacts", idPath: "id",
			lightEntity: "contacts", light: tributary.Params{"per_page": 1},
			start: func(t testing.TB, n int) fake {
				var opts []intercomtest.Option
				if n > 0 {
					opts = append(opts, intercomtest.WithContacts(n))
				}
				s := intercomtest.New(opts...)
				register(t, s)
				return fake{srv: s.Server, creds: map[string]any{"access_token": intercomtest.DefaultAccessToken}}
			}},
		{typ: "mailchimp", entity: "campaigns", idPath: "id", params: tributary.Params{"count": 100},
			lightEntity: "campaigns", light: tributary.Params{"count": 1},
			start: func(t testing.TB, n int) fake {
				var opts []mailchimptest.Option
				if n > 0 {
					opts = append(opts, mailchimptest.WithCampaigns(n))
				}
				s := mailchimptest.New(opts...)
				register(t, s)
				return fake{srv: s.Server, creds: map[string]any{"api_key": mailchimptest.DefaultAPIKey}}
			}},
		{typ: "salesforce", entity: "accounts", idPath: "Id", rateLimitFatal: true, rateLimitStatus: http.StatusForbidden,
			lightEntity: "accounts", light: tributary.Params{"q": "SELECT Id FROM Account LIMIT 1"},
			params: tributary.Params{"q": "SELECT Id, Name, Industry, CreatedDate FROM Account"},
			start: func(t testing.TB, n int) fake {
				var opts []salesforcetest.Option
				if n > 0 {
					opts = append(opts, salesforcetest.WithAccounts(n))
				}
				s := salesforcetest.New(opts...)
				register(t, s)
				return fake{srv: s.Server, creds: map[string]any{
					"client_id": salesforcetest.DefaultClientID, "client_secret": salesforcetest.DefaultClientSecret,
					"refresh_token": salesforcetest.DefaultRefreshToken}}
			}},
		{typ: "zendesk-support", entity: "tickets", idPath: "id",
			lightEntity: "tickets", light: tributary.Params{"per_page": 1},
			start: func(t testing.TB, n int) fake {
				var opts []zendesktest.Option
				if n > 0 {
					opts = append(opts, zendesktest.WithTickets(n))
				}
				s := zendesktest.New(opts...)
				register(t, s)
				return fake{srv: s.Server, creds: map[string]any{
					"subdomain": zendesktest.DefaultSubdomain, "email": zendesktest.DefaultEmail, "api_token": zendesktest.DefaultAPIToken}}
			}},
	}
	// Every other kind, from its fake's description.
	for _, k := range fakes.All() {
		if !slices.ContainsFunc(cs, func(kc kindCase) bool { return kc.typ == k.Type }) {
			cs = append(cs, defaultCase(k))
		}
	}
	return cs
}

// defaultCase is the case of a kind the list above does not name, from
// its fake's description (internal/fakes): its main entity, walked with no
// params, one record a page for the light request.
func defaultCase(k fakeserver.Kind) kindCase {
	kc := kindCase{typ: k.Type, entity: k.Main, idPath: "id", lightEntity: k.Main, light: tributary.Params{}, rateLimitStatus: k.RateLimitStatus,
		start: func(t testing.TB, n int) fake {
			f := k.Start(n)
			register(t, f)
			return fake{srv: f.Core(), creds: k.Credentials}
		}}
	entities, err := kinds.Catalogue(k.Type)
	if err != nil {
		panic(err)
	}
	if e, ok := tributary.FindEntity(entities, k.Main); ok {
		if e.IDField != "" {
			kc.idPath = e.IDField
		}
		for _, p := range e.Params[tributary.ActionList] {
			if p.PageSize {
				kc.light[p.Name] = 1
			}
		}
	}
	return kc
}

// githubFake starts GitHub's fake with n issues (n <= 0: its default
// volume) and the given rate-limit answer.
func githubFake(t testing.TB, n int, style githubtest.RateLimitStyle) fake {
	opts := []githubtest.Option{githubtest.WithRepos(1), githubtest.WithRateLimitStyle(style)}
	if n > 0 {
		opts = append(opts, githubtest.WithIssues(n), githubtest.WithPulls(0))
	}
	s := githubtest.New(opts...)
	register(t, s)
	return fake{srv: s.Server, creds: map[string]any{"token": githubtest.DefaultToken}}
}

// fastRetry retries quickly, so that a walk through many faults takes
// seconds. MaxRateLimitWait is above the fakes' shortest Retry-After (they
// announce whole seconds, at least one).
var fastRetry = tributary.RetryPolicy{MaxRetries: 8, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, MaxRateLimitWait: 2 * time.Second}

// open opens a direct-mode connector of kc against f, with every HTTP
// attempt going through obs.
func open(t testing.TB, kc kindCase, f fake, obs *observer, opts ...tributary.Option) tributary.Connector {
	t.Helper()
	// The fakes enforce no rate limit unless told to: no pacing to them.
	all := []tributary.Option{tributary.WithBaseURL(f.srv.URL), tributary.WithoutPacing()}
	if obs != nil {
		all = append(all, tributary.WithHTTPClient(&http.Client{Transport: obs}))
	}
	c, err := kinds.Open(kc.typ, f.creds, append(all, opts...)...)
	if err != nil {
		t.Fatalf("%s: open: %v", kc.typ, err)
	}
	return c
}

// apiRequests counts the requests the fake's API origin received.
func apiRequests(f fake) int {
	n := 0
	for _, r := range f.srv.Requests() {
		if r.Origin == "api" {
			n++
		}
	}
	return n
}

// observer is an http.RoundTripper that records what the client sees of
// every attempt: when it was sent, its status, and whether its body broke
// before its end.
type observer struct {
	base http.RoundTripper

	mu       sync.Mutex
	sent     []time.Time
	statuses map[int]int
	cuts     int
	errs     int
}

func newObserver() *observer {
	t := http.DefaultTransport.(*http.Transport).Clone()
	return &observer{base: t, statuses: map[int]int{}}
}

// RoundTrip implements http.RoundTripper.
func (o *observer) RoundTrip(r *http.Request) (*http.Response, error) {
	o.mu.Lock()
	o.sent = append(o.sent, time.Now())
	o.mu.Unlock()
	resp, err := o.base.RoundTrip(r)
	o.mu.Lock()
	defer o.mu.Unlock()
	if err != nil {
		// A request the client itself cancelled (a page fetched ahead
		// when the walk ended) is not a failure of the connection.
		if r.Context().Err() == nil {
			o.errs++
		}
		return nil, err
	}
	o.statuses[resp.StatusCode]++
	resp.Body = &watchedBody{ReadCloser: resp.Body, o: o}
	return resp, nil
}

// close releases the observer's idle connections.
func (o *observer) close() {
	if t, ok := o.base.(*http.Transport); ok {
		t.CloseIdleConnections()
	}
}

type observed struct {
	attempts int
	statuses map[int]int
	cuts     int
	errs     int
	sent     []time.Time
}

func (o *observer) snapshot() observed {
	o.mu.Lock()
	defer o.mu.Unlock()
	st := make(map[int]int, len(o.statuses))
	for k, v := range o.statuses {
		st[k] = v
	}
	return observed{attempts: len(o.sent), statuses: st, cuts: o.cuts, errs: o.errs, sent: append([]time.Time(nil), o.sent...)}
}

func (o *observer) reset() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.sent, o.statuses, o.cuts, o.errs = nil, map[int]int{}, 0, 0
}

// watchedBody counts a body that ends with an error other than EOF (a
// connection cut mid-body) once.
type watchedBody struct {
	io.ReadCloser
	o      *observer
	broken bool
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && !errors.Is(err, io.EOF) && !b.broken {
		b.broken = true
		b.o.mu.Lock()
		b.o.cuts++
		b.o.mu.Unlock()
	}
	return n, err
}
