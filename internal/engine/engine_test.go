package engine_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/transport"
	"github.com/tributary-dev/tributary/pagination"
)

const secret = "s3cr3t-token-value"

// roundTripFunc is an in-memory transport: no network, so synctest's
// fake clock drives every wait.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func reply(status int, header http.Header, body string) *http.Response {
	if header == nil {
		header = http.Header{}
	}
	return &http.Response{StatusCode: status, Header: header, Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body))}
}

// recorder logs every request the "network" saw.
type recorder struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (r *recorder) add(req *http.Request) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reqs)
}

var testKind = engine.Kind{
	Type: "test-kind",
	Entities: []engine.Entity{{
		Entity: tributary.Entity{Name: "things", Actions: []tributary.Action{tributary.ActionList, tributary.ActionGet, tributary.ActionDownload},
			Params: map[tributary.Action][]tributary.Param{
				tributary.ActionList:     {{Name: "page", Type: tributary.TypeInteger}, {Name: "status", Type: tributary.TypeString, Enum: []string{"open", "closed"}}},
				tributary.ActionGet:      {{Name: "id", Type: tributary.TypeInteger, Required: true}},
				tributary.ActionDownload: {{Name: "id", Type: tributary.TypeInteger, Required: true}, {Name: "range_header", Type: tributary.TypeString}},
			}},
		Routes: map[tributary.Action][]engine.Route{
			tributary.ActionList:     {{Path: "/things", Records: "things", Paging: pagination.ZendeskPage{}}},
			tributary.ActionGet:      {{Path: "/things/{id}", Records: "thing"}},
			tributary.ActionDownload: {{Path: "/things/{id}", FileURL: []string{"thing", "file_url"}}},
		},
	}},
	ParseError: func(status int, h http.Header, body []byte, e *tributary.Error) {
		e.Message = strings.TrimSpace(string(body))
	},
}

func open(t *testing.T, rt http.RoundTripper, opts ...tributary.Option) *engine.Connector {
	t.Helper()
	k := testKind
	opts = append([]tributary.Option{tributary.WithHTTPClient(&http.Client{Transport: rt}),
		tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 3, MinBackoff: time.Second, MaxBackoff: 8 * time.Second, MaxRateLimitWait: time.Minute})}, opts...)
	c, err := engine.Open(engine.Setup{Kind: &k, Options: tributary.NewOptions(opts...), DefaultBaseURL: "https://api.example.com",
		Auth: transport.Bearer(secret), Secrets: []string{secret}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const page1 = `{"things":[{"id":1},{"id":2}],"next_page":null,"previous_page":null,"count":2}`

func TestValidationSendsNothing(t *testing.T) {
	rec := &recorder{}
	c := open(t, roundTripFunc(func(r *http.Request) (*http.Response, error) { rec.add(r); return reply(200, nil, page1), nil }))
	ctx := context.Background()
	cases := []struct {
		name   string
		err    error
		call   func() error
		param  string
		inText string
	}{
		{"unknown entity", tributary.ErrUnknownEntity, func() error { _, err := c.List(ctx, "widgets", nil); return err }, "", "widgets"},
		{"unsupported action", tributary.ErrUnsupportedAction, func() error { _, err := c.APISearch(ctx, "things", nil); return err }, "", "api_search"},
		{"missing required", tributary.ErrInvalidParams, func() error { _, err := c.Get(ctx, "things", nil); return err }, "id", "required"},
		{"wrong type", tributary.ErrInvalidParams, func() error { _, err := c.Get(ctx, "things", tributary.Params{"id": "7x"}); return err }, "id", "integer"},
		{"not in enum", tributary.ErrInvalidParams, func() error {
			_, err := c.List(ctx, "things", tributary.Params{"status": "pending"})
			return err
		}, "status", "open, closed"},
		{"unknown param", tributary.ErrInvalidParams, func() error {
			_, err := c.List(ctx, "things", tributary.Params{"colour": "red"})
			return err
		}, "colour", "page, status"},
		{"bad range", tributary.ErrInvalidParams, func() error {
			_, err := c.Download(ctx, "things", tributary.Params{"id": 1, "range_header": "bytes=9-2"})
			return err
		}, "range_header", "before first"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var te *tributary.Error
			if !errors.As(err, &te) || !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if te.Kind != "test-kind" || te.Entity == "" || te.Action == "" || te.Param != tc.param {
				t.Errorf("error names kind %q entity %q action %q param %q", te.Kind, te.Entity, te.Action, te.Param)
			}
			if !strings.Contains(err.Error(), tc.inText) {
				t.Errorf("%q does not say %q", err, tc.inText)
			}
		})
	}
	if n := rec.count(); n != 0 {
		t.Fatalf("%d requests were sent for invalid operations", n)
	}
}

func TestRetryAfterIsWaitedOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{}
		var times []time.Time
		c := open(t, roundTripFunc(func(r *http.Request) (*http.Response, error) {
			rec.add(r)
			times = append(times, time.Now())
			if rec.count() == 1 {
				return reply(429, http.Header{"Retry-After": {"7"}, "Content-Type": {"text/plain"}}, "Number of allowed API requests per minute exceeded"), nil
			}
			return reply(200, nil, page1), nil
		}))
		page, err := c.List(context.Background(), "things", nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Records) != 2 || rec.count() != 2 {
			t.Fatalf("%d records after %d requests", len(page.Records), rec.count())
		}
		if waited := times[1].Sub(times[0]); waited != 7*time.Second {
			t.Errorf("waited %v, want the 7s of Retry-After", waited)
		}
	})
}

func TestRetryAfterHTTPDate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var times []time.Time
		c := open(t, roundTripFunc(func(r *http.Request) (*http.Response, error) {
			times = append(times, time.Now())
			if len(times) == 1 {
				return reply(503, http.Header{"Retry-After": {time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)}}, "busy"), nil
			}
			return reply(200, nil, page1), nil
		}))
		if _, err := c.List(context.Background(), "things", nil); err != nil {
			t.Fatal(err)
		}
		if waited := times[1].Sub(times[0]); waited < 29*time.Second || waited > 30*time.Second {
			t.Errorf("waited %v for an HTTP-date Retry-After 30s ahead", waited)
		}
	})
}

func TestRateLimitBeyondDeadlineIsNotWaited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{}
		c := open(t, roundTripFunc(func(r *http.Request) (*http.Response, error) {
			rec.add(r)
			return reply(429, http.Header{"Retry-After": {"120"}}, "slow down"), nil
		}))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		start := time.Now()
		_, err := c.List(ctx, "things", nil)
		var te *tributary.Error
		if !errors.As(err, &te) || !errors.Is(err, tributary.ErrRateLimited) {
			t.Fatalf("err = %v, want ErrRateLimited", err)
		}
		if te.RetryAfter != 120*time.Second || !te.Retryable || te.StatusCode != 429 {
			t.Errorf("RetryAfter %v retryable %v status %d", te.RetryAfter, te.Retryable, te.StatusCode)
		}
		if rec.count() != 1 || time.Since(start) != 0 {
			t.Errorf("%d requests, %v spent: a wait past the deadline must not be started", rec.count(), time.Since(start))
		}
	})
}

func TestServerErrorRetriedThenSurfaced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{}
		c := open(t, roundTripFunc(func(r *http.Request) (*http.Response, error) {
			rec.add(r)
			return reply(502, nil, "bad gateway"), nil
		}))
		_, err := c.List(context.Background(), "things", nil)
		if !errors.Is(err, tributary.ErrServer) {
			t.Fatalf("err = %v, want ErrServer", err)
		}
		if rec.count() != 4 {
			t.Errorf("%d attempts, want 1 + 3 retries", rec.count())
		}
	})
}

func TestClientErrorsAreNotRetried(t *testing.T) {
	for status, want := range map[int]error{400: tributary.ErrInvalidParams, 401: tributary.ErrUnauthorized, 403: tributary.ErrForbidden, 404: tributary.ErrNotFound, 422: tributary.ErrInvalidParams} {
		rec := &recorder{}
		c := open(t, roundTripFunc(func(r *http.Request) (*http.Response, error) {
			rec.add(r)
			return reply(status, nil, "nope"), nil
		}))
		_, err := c.Get(context.Background(), "things", tributary.Params{"id": 1})
		if !errors.Is(err, want) {
			t.Errorf("%d: err = %v, want %v", status, err, want)
		}
		if rec.count() != 1 {
			t.Errorf("%d: %d attempts, want 1", status, rec.count())
		}
	}
}

func TestCredentialsStayOnOrigin(t *testing.T) {
	rec := &recorder{}
	c := open(t, roundTripFunc(func(r *http.Request) (*http.Response, error) {
		rec.add(r)
		switch r.URL.Host {
		case "api.example.com":
			if r.URL.Path == "/things/1" {
				return reply(200, nil, `{"thing":{"id":1,"file_url":"https://api.example.com/blobs/1"}}`), nil
			}
			// The API redirects the file to storage on another host.
			return reply(302, http.Header{"Location": {"https://storage.example.net/b/1?sig=abc"}}, ""), nil
		case "storage.example.net":
			return reply(200, http.Header{"ETag": {`"e"`}}, "file bytes"), nil
		}
		return nil, fmt.Errorf("unexpected host %s", r.URL.Host)
	}))
	s, err := c.Download(context.Background(), "things", tributary.Params{"id": 1})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(s)
	s.Close()
	if string(b) != "file bytes" {
		t.Fatalf("content %q", b)
	}
	var hosts []string
	for _, r := range rec.reqs {
		auth := r.Header.Get("Authorization")
		hosts = append(hosts, r.URL.Host+" "+map[bool]string{true: "with", false: "without"}[auth != ""]+" credentials")
	}
	want := []string{"api.example.com with credentials", "api.example.com with credentials", "storage.example.net without credentials"}
	if d := cmp.Diff(want, hosts); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestHTTPSDowngradeRefused(t *testing.T) {
	rec := &recorder{}
	c := open(t, roundTripFunc(func(r *http.Request) (*http.Response, error) {
		rec.add(r)
		if r.URL.Path == "/things/1" && r.URL.Host == "api.example.com" && r.URL.Scheme == "https" && rec.count() == 1 {
			return reply(200, nil, `{"thing":{"id":1,"file_url":"https://api.example.com/blobs/1"}}`), nil
		}
		return reply(302, http.Header{"Location": {"http://api.example.com/plain"}}, ""), nil
	}))
	_, err := c.Download(context.Background(), "things", tributary.Params{"id": 1})
	if err == nil || !strings.Contains(err.Error(), "https to http") {
		t.Fatalf("err = %v, want a refused downgrade", err)
	}
	for _, r := range rec.reqs {
		if r.URL.Scheme == "http" {
			t.Errorf("a request went over http: %s", r.URL)
		}
	}
}

func TestNoSecretInErrorsLogsOrPrints(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := open(t, roundTripFunc(func(r *http.Request) (*http.Response, error) {
		// A hostile server echoes the credentials it received.
		return reply(401, nil, "bad token: "+r.Header.Get("Authorization")), nil
	}), tributary.WithLogger(logger))
	_, err := c.Get(context.Background(), "things", tributary.Params{"id": 1})
	if !errors.Is(err, tributary.ErrUnauthorized) {
		t.Fatalf("err = %v", err)
	}
	for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err), fmt.Sprintf("%v %+v %#v %s", c, c, c, c), logs.String()} {
		if strings.Contains(s, secret) {
			t.Errorf("secret leaked in %q", s)
		}
	}
	if !strings.Contains(logs.String(), "tributary http") || !strings.Contains(logs.String(), "status=401") {
		t.Errorf("no debug line was logged: %q", logs.String())
	}
}

func TestCancelReturnsPromptly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := open(t, roundTripFunc(func(r *http.Request) (*http.Response, error) {
			return reply(503, http.Header{"Retry-After": {"30"}}, "down"), nil
		}))
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() {
			_, err := c.List(ctx, "things", nil)
			done <- err
		}()
		time.Sleep(time.Second) // now waiting out Retry-After
		start := time.Now()
		cancel()
		err := <-done
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if time.Since(start) != 0 {
			t.Errorf("cancel took %v of fake time", time.Since(start))
		}
	})
}

// A source that points at the page just fetched again ends the walk with
// ErrPaging when that page is read (its Next would fetch it again), and a
// caller paging by hand gets the same error from List instead of a loop.
func TestRepeatingCursorStops(t *testing.T) {
	c := open(t, roundTripFunc(func(r *http.Request) (*http.Response, error) {
		// Every page points at page 2 again.
		return reply(200, nil, `{"things":[{"id":1}],"next_page":"https://api.example.com/things?page=2","previous_page":null,"count":9}`), nil
	}))
	n := 0
	var err error
	for _, e := range tributary.All(context.Background(), c, "things", nil) {
		if e != nil {
			err = e
			break
		}
		n++
	}
	if !errors.Is(err, tributary.ErrPaging) || n != 1 {
		t.Fatalf("err = %v after %d records, want ErrPaging after the first page", err, n)
	}
	if _, err := c.List(context.Background(), "things", tributary.Params{"page": 2}); !errors.Is(err, tributary.ErrPaging) {
		t.Fatalf("List of a page whose next is itself: %v", err)
	}
}

func TestUserAgentAndRateLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{}
		var times []time.Time
		c := open(t, roundTripFunc(func(r *http.Request) (*http.Response, error) {
			rec.add(r)
			times = append(times, time.Now())
			return reply(200, nil, page1), nil
		}), tributary.WithRateLimit(2, 1))
		for range 5 {
			if _, err := c.List(context.Background(), "things", nil); err != nil {
				t.Fatal(err)
			}
		}
		if got := times[4].Sub(times[0]); got != 2*time.Second {
			t.Errorf("5 requests at 2/s took %v, want 2s", got)
		}
		if ua := rec.reqs[0].Header.Get("User-Agent"); !strings.HasPrefix(ua, "tributary-go/") {
			t.Errorf("User-Agent %q", ua)
		}
	})
}

// A URL param (a next-page URL handed back by the caller) is only followed
// on the connector's own origin.
func TestNextURLStaysOnOrigin(t *testing.T) {
	k := engine.Kind{Type: "url-kind", Entities: []engine.Entity{{
		Entity: tributary.Entity{Name: "rows", Actions: []tributary.Action{tributary.ActionList},
			Params: map[tributary.Action][]tributary.Param{tributary.ActionList: {{Name: "q", Type: tributary.TypeString}, {Name: "next_url", Type: tributary.TypeString}}}},
		Routes: map[tributary.Action][]engine.Route{tributary.ActionList: {{Path: "/query", Records: "records", URLParam: "next_url"}}},
	}}}
	rec := &recorder{}
	c, err := engine.Open(engine.Setup{Kind: &k, Options: tributary.NewOptions(tributary.WithHTTPClient(&http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		rec.add(r)
		return reply(200, nil, `{"records":[]}`), nil
	})})), DefaultBaseURL: "https://x.my.example.com", Auth: transport.Bearer(secret)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.List(context.Background(), "rows", tributary.Params{"next_url": "/query/01g-200"}); err != nil {
		t.Fatal(err)
	}
	if got := rec.reqs[0].URL.String(); got != "https://x.my.example.com/query/01g-200" {
		t.Errorf("relative next URL went to %s", got)
	}
	_, err = c.List(context.Background(), "rows", tributary.Params{"next_url": "https://evil.example.net/query/01g-200"})
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) || te.Param != "next_url" {
		t.Fatalf("off-origin next URL: %v", err)
	}
	if rec.count() != 1 {
		t.Errorf("%d requests; the off-origin one must not be sent", rec.count())
	}
}

// A kind that learns its host from the token response moves there, and
// its credentials move with it.
func TestResolvedBaseURL(t *testing.T) {
	rec := &recorder{}
	host := "first.example.com"
	k := testKind
	c, err := engine.Open(engine.Setup{Kind: &k, Options: tributary.NewOptions(tributary.WithHTTPClient(&http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		rec.add(r)
		return reply(200, nil, page1), nil
	})})), DefaultBaseURL: "https://login.example.com", Auth: transport.Bearer(secret),
		ResolveBaseURL: func(ctx context.Context) (string, error) { return "https://" + host, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.List(context.Background(), "things", nil); err != nil {
		t.Fatal(err)
	}
	host = "second.example.com"
	if _, err := c.List(context.Background(), "things", nil); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"first.example.com", "second.example.com"} {
		if r := rec.reqs[i]; r.URL.Host != want || r.Header.Get("Authorization") == "" {
			t.Errorf("request %d went to %s (auth %v)", i, r.URL.Host, r.Header.Get("Authorization") != "")
		}
	}
	c2, _ := engine.Open(engine.Setup{Kind: &k, Options: tributary.NewOptions(), DefaultBaseURL: "https://login.example.com",
		ResolveBaseURL: func(ctx context.Context) (string, error) { return "", errors.New("invalid_grant") }})
	if _, err := c2.List(context.Background(), "things", nil); !errors.Is(err, tributary.ErrUnauthorized) {
		t.Errorf("resolver failure: %v", err)
	}
}
