// Package transport builds the one HTTP client of a connector: retries with
// jittered exponential backoff (go-retryablehttp), the vendors' rate-limit
// signals, credentials applied only on the connector's own origin, an
// optional client-side rate limit and concurrency cap, a User-Agent, and
// debug logging through slog with secrets redacted.
package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"golang.org/x/time/rate"
)

// Version is the library version sent in the User-Agent.
const Version = "0.1.0"

// DefaultUserAgent names the library and its version.
const DefaultUserAgent = "tributary-go/" + Version + " (+https://github.com/tributary-dev/tributary)"

// ErrInsecureRedirect is returned when a redirect would go from https to http.
var ErrInsecureRedirect = errors.New("refused a redirect from https to http")

// ErrAuth wraps failures to obtain credentials (a failed token refresh).
var ErrAuth = errors.New("could not obtain credentials")

// Auth applies credentials to a request bound for the connector's origin.
type Auth interface {
	Apply(req *http.Request) error
}

// AuthFunc adapts a function to Auth.
type AuthFunc func(req *http.Request) error

// Apply implements Auth.
func (f AuthFunc) Apply(req *http.Request) error { return f(req) }

// Basic returns HTTP Basic credentials.
func Basic(user, password string) Auth {
	return AuthFunc(func(req *http.Request) error {
		req.SetBasicAuth(user, password)
		return nil
	})
}

// Bearer returns a static bearer token.
func Bearer(token string) Auth {
	return AuthFunc(func(req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+token)
		return nil
	})
}

// Header returns credentials sent as the whole value of one header, with
// no scheme (Linear's personal API keys: "Authorization: lin_api_…").
func Header(name, value string) Auth {
	return AuthFunc(func(req *http.Request) error {
		req.Header.Set(name, value)
		return nil
	})
}

// Pace limits the requests Match accepts to Limiter's rate.
type Pace struct {
	Match   func(*http.Request) bool
	Limiter *rate.Limiter
}

// idleConnsPerHost is how many idle connections to the vendor the
// library's own transport keeps: twice the default prefetch.
const idleConnsPerHost = 8

// Config configures a Client.
type Config struct {
	// Origin is the connector's own origin (scheme, host, port): the only
	// place credentials are sent.
	Origin *url.URL
	// Auth applies credentials; nil sends none.
	Auth Auth
	// CredentialHosts are further hosts that receive Auth's credentials,
	// over https on its default port only (Slack's files.slack.com, where
	// a file's bytes are read with the token): nothing else of Config
	// applies to them. Every other host, a redirect's included, gets no
	// credentials.
	CredentialHosts []string
	// Header is set on every request to Origin (version headers, Accept).
	Header http.Header
	// Base supplies the RoundTripper (and timeout) to use; nil uses a
	// pooled transport of its own, which keeps idleConnsPerHost
	// connections (or MaxConcurrency, if more) open to the vendor and
	// applies Timeouts.Connect.
	Base *http.Client
	// Timeouts bound every attempt (see Timeouts); a timed-out attempt is
	// retried like a dropped connection.
	Timeouts Timeouts
	// Logger receives one debug line per HTTP attempt; nil logs nothing.
	Logger *slog.Logger
	// UserAgent is sent on every request.
	UserAgent string

	// MaxRetries is the number of retries after the first attempt.
	MaxRetries int
	// MinBackoff and MaxBackoff bound the jittered exponential backoff.
	MinBackoff, MaxBackoff time.Duration
	// MaxRateLimitWait is the longest wait a rate-limit answer may impose
	// before the client gives up and returns the error with RetryAfter.
	MaxRateLimitWait time.Duration

	// Limiter, when set, paces requests to Origin.
	Limiter *rate.Limiter
	// Paces are further limits on some requests to Origin: a vendor
	// endpoint with a lower limit of its own (HubSpot's search). Each
	// attempt a Pace matches, retries included, waits for its Limiter.
	Paces []Pace
	// Budget, when set, reads the vendor's rate-limit budget from an
	// answer (the requests left in its window and when the window ends):
	// the client keeps to it on its own, spreading the last tenth of a
	// window's requests over the time to its reset and holding the rest
	// until then (see Budget). A hold longer than MaxRateLimitWait, or
	// past the request's deadline, is not made: the vendor's answer
	// decides.
	Budget func(resp *http.Response) (Budget, bool)
	// EndpointBudgets are budgets some requests have of their own, beside
	// Budget (an endpoint's limit, announced in its answers): a request
	// waits for each one that matches it, as for Budget.
	EndpointBudgets []EndpointBudget
	// MaxConcurrency, when positive, caps requests in flight to Origin
	// (a request holds its slot until its body is closed).
	MaxConcurrency int

	// RetryAfter reads a vendor's own reset signal from a response (for
	// example x-ratelimit-reset); Retry-After is always read.
	RetryAfter func(resp *http.Response) (time.Duration, bool)
	// Classify lets a kind decide whether a response is retryable before
	// the default rules (429 and 5xx retry, other statuses do not).
	Classify func(resp *http.Response) (retry, decided bool)

	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time

	// OnRetry, when set, is called before each retry's wait, from the
	// goroutine sending the request, so a caller can show the retries as
	// they happen. It must be quick and safe for concurrent use.
	OnRetry func(Retry)

	// dial replaces the network dialer of the library's own transport
	// (tests).
	dial dialFunc
}

// Retry describes a retry about to be made.
type Retry struct {
	// Attempt is the attempt about to be made (2 for the first retry), out
	// of Attempts at most.
	Attempt, Attempts int
	// Wait is the backoff before it.
	Wait time.Duration
	// Status is the HTTP status of the failed attempt's answer; 0 when it
	// had none and Err says why.
	Status int
	// Err is the failed attempt's transport error (any URL in it
	// redacted), when it had no answer.
	Err error
}

// Client is a connector's HTTP client. It is safe for concurrent use.
type Client struct {
	cfg     Config
	origin  atomic.Pointer[url.URL]
	sem     chan struct{}
	http    *http.Client
	budgets []gatedBudget // Config.Budget's, then Config.EndpointBudgets'

	requests, retries, throttled atomic.Int64
}

// Usage returns the requests sent to the origin so far, the retries among
// them, and the answers that asked the client to slow down.
func (c *Client) Usage() (requests, retries, throttled int64) {
	return c.requests.Load(), c.retries.Load(), c.throttled.Load()
}

// NoteRetry counts a retry that the caller made itself, after an answer
// the transport could not judge (a rate limit reported inside a body):
// one more request will be counted when it is sent; throttled counts the
// answer as one that asked the client to slow down.
func (c *Client) NoteRetry(throttled bool) {
	c.retries.Add(1)
	if throttled {
		c.throttled.Add(1)
	}
}

// throttle reports whether resp asks the client to slow down: a 429, or
// another error status that carries a reset signal (GitHub's 403 with no
// requests remaining).
func (c *Client) throttle(resp *http.Response) bool {
	if resp.StatusCode == http.StatusTooManyRequests {
		return true
	}
	if resp.StatusCode < 400 || resp.StatusCode >= 500 {
		return false
	}
	_, ok := c.RetryAfter(resp)
	return ok
}

// New builds a Client.
func New(cfg Config) *Client {
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = 500 * time.Millisecond
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = 30 * time.Second
	}
	if cfg.MaxRateLimitWait <= 0 {
		cfg.MaxRateLimitWait = 60 * time.Second
	}
	base := http.DefaultTransport
	var timeout time.Duration
	if cfg.Base != nil {
		if cfg.Base.Transport != nil {
			base = cfg.Base.Transport
		}
		timeout = cfg.Base.Timeout
	} else {
		// A walk has several pages in flight (Options.Prefetch) and
		// callers may run walks side by side: keep that many connections
		// to the vendor open, not net/http's default of two, which would
		// close and dial connections (with a TLS handshake each) on every
		// page.
		base = ownTransport(max(idleConnsPerHost, cfg.MaxConcurrency), cfg.Timeouts.Connect, cfg.dial)
	}
	base = withTimeouts(base, cfg.Timeouts)
	c := &Client{cfg: cfg}
	c.SetOrigin(cfg.Origin)
	if cfg.MaxConcurrency > 0 {
		c.sem = make(chan struct{}, cfg.MaxConcurrency)
	}
	if cfg.Budget != nil {
		c.budgets = append(c.budgets, gatedBudget{read: cfg.Budget, gate: &budgetGate{}})
	}
	for _, eb := range cfg.EndpointBudgets {
		c.budgets = append(c.budgets, gatedBudget{match: eb.Match, read: eb.Read, gate: &budgetGate{}})
	}
	inner := &http.Client{
		Transport:     &roundTripper{c: c, base: base},
		CheckRedirect: checkRedirect,
		Timeout:       timeout,
	}
	c.http = inner
	return c
}

// attempts is what one call of Do learns about its attempts.
type attempts struct {
	n       int    // attempts made
	status  int    // the last failed attempt's status, when it had an answer
	err     error  // the last failed attempt's transport error
	waiting func() // ends the long wait before the next attempt, if one is under way
}

// endWait ends the long wait under way, if any.
func (st *attempts) endWait() {
	if st.waiting != nil {
		st.waiting()
		st.waiting = nil
	}
}

// retrying returns the retrying client of one call of Do, which records
// its attempts in st.
func (c *Client) retrying(st *attempts) *retryablehttp.Client {
	return &retryablehttp.Client{
		HTTPClient:   c.http,
		RetryMax:     c.cfg.MaxRetries,
		RetryWaitMin: c.cfg.MinBackoff,
		RetryWaitMax: c.cfg.MaxBackoff,
		CheckRetry: func(ctx context.Context, resp *http.Response, err error) (bool, error) {
			st.n++
			st.status, st.err = 0, err
			if resp != nil {
				st.status = resp.StatusCode
			}
			return c.checkRetry(ctx, resp, err)
		},
		Backoff: func(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
			wait := c.backoff(minWait, maxWait, attempt, resp)
			if resp != nil && resp.Request != nil {
				st.waiting = longWait(resp.Request.Context(), wait) // ended before the next attempt, or by Do
			}
			if c.cfg.OnRetry != nil && st.status != http.StatusUnauthorized {
				c.cfg.OnRetry(Retry{Attempt: attempt + 2, Attempts: c.cfg.MaxRetries + 1, Wait: wait, Status: st.status, Err: redactErr(st.err)})
			}
			return wait
		},
		PrepareRetry: func(*http.Request) error {
			st.endWait()
			return nil
		},
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
	}
}

// redactErr hides the secrets of any URL in err.
func redactErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = RedactURL(ue.URL)
	}
	return err
}

// AttemptsError is the transport error of a request that was sent more
// than once: the last attempt's error, and how many attempts were made.
type AttemptsError struct {
	Attempts int
	Err      error
}

// Error is the last attempt's error text.
func (e *AttemptsError) Error() string { return e.Err.Error() }

// Unwrap returns the last attempt's error.
func (e *AttemptsError) Unwrap() error { return e.Err }

// Attempts returns how many attempts the request whose error is err made:
// 1 unless err is (or wraps) an *AttemptsError.
func Attempts(err error) int {
	var ae *AttemptsError
	if errors.As(err, &ae) {
		return ae.Attempts
	}
	return 1
}

// Origin returns the connector's origin.
func (c *Client) Origin() *url.URL { return c.origin.Load() }

// SetOrigin moves the connector to another origin (Salesforce's
// instance_url, Gong's per-customer host): from now on credentials go there
// and nowhere else.
func (c *Client) SetOrigin(u *url.URL) {
	if u == nil {
		return
	}
	o := &url.URL{Scheme: u.Scheme, Host: u.Host}
	c.origin.Store(o)
}

// Do sends req with retries. Its answer is the last response, whatever its
// status (the caller turns non-2xx into typed errors), or a transport error
// with any URL in it redacted.
func (c *Client) Do(req *http.Request) (*http.Response, error) {
	rreq, err := retryablehttp.FromRequest(req)
	if err != nil {
		return nil, err
	}
	var st attempts
	resp, err := c.retrying(&st).Do(rreq)
	st.endWait() // the call ended during a wait (its context, say)
	if err != nil {
		err = redactErr(err)
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		if st.n > 1 {
			err = &AttemptsError{Attempts: st.n, Err: err}
		}
		return nil, err
	}
	return resp, nil
}

func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if via[len(via)-1].URL.Scheme == "https" && req.URL.Scheme != "https" {
		return ErrInsecureRedirect
	}
	return nil
}

// credentialHost reports whether u is https, on its default port, at one
// of hosts.
func credentialHost(u *url.URL, hosts []string) bool {
	if len(hosts) == 0 || !strings.EqualFold(u.Scheme, "https") || (u.Port() != "" && u.Port() != "443") {
		return false
	}
	return slices.ContainsFunc(hosts, func(h string) bool { return strings.EqualFold(h, u.Hostname()) })
}

// SameOrigin reports whether u is on origin (scheme, host and port).
func SameOrigin(u, origin *url.URL) bool {
	if u == nil || origin == nil {
		return false
	}
	return strings.EqualFold(u.Scheme, origin.Scheme) && strings.EqualFold(hostPort(u), hostPort(origin))
}

func hostPort(u *url.URL) string {
	h, p := u.Hostname(), u.Port()
	if p == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			p = "443"
		case "http":
			p = "80"
		}
	}
	return net.JoinHostPort(strings.ToLower(h), p)
}

type roundTripper struct {
	c    *Client
	base http.RoundTripper
}

func (t *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	cfg := &t.c.cfg
	r := req.Clone(req.Context())
	r.Header.Del("Authorization")
	r.Header.Set("User-Agent", cfg.UserAgent)
	own := SameOrigin(r.URL, t.c.origin.Load())
	var budgets []gatedBudget // the budgets r waited for
	if (own || credentialHost(r.URL, cfg.CredentialHosts)) && cfg.Auth != nil {
		if err := cfg.Auth.Apply(r); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrAuth, err)
		}
	}
	if own {
		for k, v := range cfg.Header {
			if r.Header.Get(k) == "" {
				r.Header[k] = v
			}
		}
		if cfg.Limiter != nil {
			if err := cfg.Limiter.Wait(r.Context()); err != nil {
				closeBody(r)
				return nil, err
			}
		}
		for _, p := range cfg.Paces {
			if p.Match(r) {
				if err := p.Limiter.Wait(r.Context()); err != nil {
					closeBody(r)
					return nil, err
				}
			}
		}
		if t.c.sem != nil {
			select {
			case t.c.sem <- struct{}{}:
			case <-r.Context().Done():
				closeBody(r)
				return nil, r.Context().Err()
			}
		}
		var err error
		if budgets, err = t.c.waitBudgets(r, cfg); err != nil {
			if t.c.sem != nil {
				<-t.c.sem
			}
			closeBody(r)
			return nil, err
		}
	}
	start := cfg.Now()
	resp, err := t.base.RoundTrip(r)
	for _, b := range budgets {
		b.done(resp, err, cfg.Now())
	}
	if own {
		t.c.requests.Add(1)
		if err == nil && t.c.throttle(resp) {
			t.c.throttled.Add(1)
		}
	}
	if own && t.c.sem != nil {
		if err != nil {
			<-t.c.sem
		} else {
			resp.Body = &releaseBody{ReadCloser: resp.Body, release: func() { <-t.c.sem }}
		}
	}
	if cfg.Logger != nil && cfg.Logger.Enabled(r.Context(), slog.LevelDebug) {
		attrs := []slog.Attr{
			slog.String("method", r.Method),
			slog.String("url", RedactURL(r.URL.String())),
			slog.Bool("credentials", own && cfg.Auth != nil),
			slog.Duration("elapsed", cfg.Now().Sub(start)),
		}
		if err != nil {
			attrs = append(attrs, slog.String("error", err.Error()))
		} else {
			attrs = append(attrs, slog.Int("status", resp.StatusCode))
		}
		cfg.Logger.LogAttrs(r.Context(), slog.LevelDebug, "tributary http", attrs...)
	}
	return resp, err
}

type releaseBody struct {
	io.ReadCloser
	release func()
	done    bool
}

func (b *releaseBody) Close() error {
	err := b.ReadCloser.Close()
	if !b.done {
		b.done = true
		b.release()
	}
	return err
}

func (c *Client) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err != nil {
		if permanent(err) {
			return false, err
		}
		if once(ctx) || errors.Is(err, ErrAuth) || errors.Is(err, ErrInsecureRedirect) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return false, err
		}
		retry, err := retryablehttp.DefaultRetryPolicy(ctx, resp, err)
		if retry {
			c.retries.Add(1)
		}
		return retry, err
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 && resp.Request != nil {
		if acc, ok := c.cfg.Auth.(Accepter); ok && SameOrigin(resp.Request.URL, c.origin.Load()) {
			acc.Accept(resp.Request.Header.Get("Authorization"))
		}
	}
	if once(ctx) && resp.StatusCode >= 500 {
		return false, nil
	}
	retry := false
	decided := false
	if c.cfg.Classify != nil {
		retry, decided = c.cfg.Classify(resp)
	}
	if !decided && resp.StatusCode == http.StatusUnauthorized && resp.Request != nil && SameOrigin(resp.Request.URL, c.origin.Load()) {
		if rej, ok := c.cfg.Auth.(Rejecter); ok && rej.Reject(resp.Request.Header.Get("Authorization")) {
			c.retries.Add(1)
			return true, nil // once more, with fresh credentials
		}
	}
	if !decided {
		retry = resp.StatusCode == http.StatusTooManyRequests || (resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented)
	}
	if !retry {
		return false, nil
	}
	if wait, ok := c.RetryAfter(resp); ok {
		if wait > c.cfg.MaxRateLimitWait {
			return false, nil
		}
		if dl, has := ctx.Deadline(); has && c.cfg.Now().Add(wait).After(dl) {
			return false, nil
		}
	}
	c.retries.Add(1)
	return true, nil
}

// RetryAfter returns the wait a response asks for: the kind's own reset
// signal, else Retry-After in seconds or as an HTTP date.
func (c *Client) RetryAfter(resp *http.Response) (time.Duration, bool) {
	if resp == nil {
		return 0, false
	}
	if c.cfg.RetryAfter != nil {
		if d, ok := c.cfg.RetryAfter(resp); ok {
			return max(d, 0), true
		}
	}
	return ParseRetryAfter(resp.Header.Get("Retry-After"), c.cfg.Now())
}

// ParseRetryAfter reads a Retry-After value: delay seconds or an HTTP date.
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 && s < 1e7 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// ResetAt converts an epoch-seconds reset header into a wait from now.
func ResetAt(v string, now time.Time) (time.Duration, bool) {
	sec, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || sec <= 0 {
		return 0, false
	}
	return max(time.Unix(sec, 0).Sub(now), 0), true
}

func (c *Client) backoff(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil && resp.StatusCode == http.StatusUnauthorized {
		return 0 // new credentials, not time, is what the retry needs
	}
	if resp != nil {
		if d, ok := c.RetryAfter(resp); ok {
			return d
		}
	}
	exp := minWait << min(attempt, 30)
	if exp <= 0 || exp > maxWait {
		exp = maxWait
	}
	// Full jitter between half and all of the exponential step.
	half := exp / 2
	return half + time.Duration(rand.Int64N(int64(half)+1))
}

var sensitiveQuery = []string{"token", "signature", "sig", "key", "secret", "password", "credential", "code", "auth", "x-amz-security-token", "policy"}

// RedactURL hides the values of query parameters that look like secrets
// and the path segment after "token/", so that URLs can be logged.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable URL)"
	}
	u.User = nil
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			lk := strings.ToLower(k)
			for _, s := range sensitiveQuery {
				if strings.Contains(lk, s) {
					q[k] = []string{"REDACTED"}
					break
				}
			}
		}
		u.RawQuery = q.Encode()
	}
	if i := strings.Index(u.Path, "/token/"); i >= 0 {
		rest := u.Path[i+len("/token/"):]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			u.Path = u.Path[:i] + "/token/REDACTED" + rest[j:]
		} else {
			u.Path = u.Path[:i] + "/token/REDACTED"
		}
		u.RawPath = ""
	}
	return u.String()
}

// closeBody closes the body of a request that will not be sent, as a
// RoundTripper must.
func closeBody(r *http.Request) {
	if r.Body != nil {
		r.Body.Close()
	}
}

type onceKey struct{}

// Once marks the requests made under ctx as ones the vendor acts on as it
// answers (Intercom's scroll moves on): they are sent again only after an
// answer that says the vendor refused them untouched (429, 401 with fresh
// credentials), never after a dropped connection or a 5xx.
func Once(ctx context.Context) context.Context { return context.WithValue(ctx, onceKey{}, true) }

func once(ctx context.Context) bool { v, _ := ctx.Value(onceKey{}).(bool); return v }
