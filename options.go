package tributary

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"golang.org/x/oauth2"
)

// Options collects what the Option functions set. Kinds read it when they
// build a connector; callers use the With... functions.
type Options struct {
	// BaseURL replaces the vendor's origin; the kind keeps the vendor's
	// documented path (a path in BaseURL is kept as a prefix).
	BaseURL string
	// TokenURL is the full URL of the OAuth token endpoint.
	TokenURL string
	// HTTPClient supplies the RoundTripper and timeout.
	HTTPClient *http.Client
	// Logger receives debug lines for each HTTP attempt, secrets redacted.
	Logger *slog.Logger
	// Retry is the retry policy.
	Retry RetryPolicy
	// OnRetry is called before each retry of an HTTP request (see
	// WithRetryHook); nil calls nothing.
	OnRetry func(Retrying)
	// RatePerSecond and RateBurst set a client-side rate limit (0: none).
	RatePerSecond float64
	RateBurst     int
	// MaxConcurrency caps requests in flight (0: the kind's default).
	MaxConcurrency int
	// Prefetch is the most pages a walk (All, Walk) fetches at once where
	// a page names the pages after it: page numbers up to a last page,
	// offsets up to a total (0: DefaultPrefetch). One fetches only the
	// next page, while the caller works on the current one. Requests still
	// pass the concurrency cap and the rate limit.
	Prefetch int
	// UserAgent replaces the default User-Agent.
	UserAgent string
	// Timeouts bound every HTTP attempt (see Timeouts); zero fields take
	// DefaultTimeouts' values.
	Timeouts Timeouts
	// MaxPageBytes caps the body of one page or record read into memory
	// (0: DefaultMaxPageBytes). Downloads are streamed and have no cap.
	MaxPageBytes int64
	// OnTokenRefresh receives every token an OAuth refresh issues.
	OnTokenRefresh func(*oauth2.Token)
	// TokenStore, when set, takes every OAuth refresh, so that processes
	// holding the same credentials spend each refresh token once.
	TokenStore TokenStore
	// Settings holds kind-specific settings (see each kind's With...
	// functions), keyed by name.
	Settings map[string]string
	// NoPacing turns off the kinds' own pacing to their vendors'
	// documented limits (WithoutPacing).
	NoPacing bool
}

// DefaultPrefetch is the number of pages a walk fetches at once unless
// WithPrefetch says otherwise.
const DefaultPrefetch = 4

// PrefetchWithin returns how many pages a walk fetches at once: Prefetch,
// or DefaultPrefetch when unset, and no more than maxConcurrency when that
// is positive.
func (o Options) PrefetchWithin(maxConcurrency int) int {
	n := o.Prefetch
	if n <= 0 {
		n = DefaultPrefetch
	}
	if maxConcurrency > 0 {
		n = min(n, maxConcurrency)
	}
	return n
}

// DefaultMaxPageBytes is the largest page or record body read unless
// WithMaxPageBytes says otherwise: far above any vendor's page, far below
// what would hurt a process holding a few pages at once.
const DefaultMaxPageBytes = 64 << 20

// PageLimit returns the cap on one page or record body: MaxPageBytes, or
// DefaultMaxPageBytes when unset.
func (o Options) PageLimit() int64 {
	if o.MaxPageBytes > 0 {
		return o.MaxPageBytes
	}
	return DefaultMaxPageBytes
}

// Timeouts bound each HTTP attempt, so that no request hangs for ever
// when the caller's context has no deadline. An attempt that hits one is
// treated as a dropped connection: it is retried under the RetryPolicy,
// and once the retries are spent the error is ErrServer, its message
// naming the limit and its length (ErrUnreachable, naming the host, for
// Connect). The caller's own deadline and the
// timeout of a client given WithHTTPClient still apply, and win when they
// are shorter. A negative field turns that limit off.
type Timeouts struct {
	// Connect bounds dialling the source and the TLS handshake. It applies
	// to the library's own transport; with WithHTTPClient your transport's
	// dialer decides, and ResponseHeader still bounds the whole wait.
	Connect time.Duration
	// ResponseHeader bounds the wait from sending a request (connecting
	// included) to the response's status and headers.
	ResponseHeader time.Duration
	// Stall ends an attempt when no byte of its body arrives for this long
	// while it is being read. It applies to downloads too: a stalled
	// download resumes with a ranged request, like a cut one. Time the
	// caller spends between reads does not count.
	Stall time.Duration
	// Attempt bounds one attempt at a page or record as a whole, headers
	// and body. Downloads have no overall limit (files can be large).
	Attempt time.Duration
}

// DefaultTimeouts are the limits used where WithTimeouts sets none.
var DefaultTimeouts = Timeouts{Connect: 10 * time.Second, ResponseHeader: time.Minute, Stall: 30 * time.Second, Attempt: 5 * time.Minute}

// WithDefaults returns t with its zero fields taken from DefaultTimeouts;
// negative fields (no limit) are kept.
func (t Timeouts) WithDefaults() Timeouts {
	d := DefaultTimeouts
	if t.Connect != 0 {
		d.Connect = t.Connect
	}
	if t.ResponseHeader != 0 {
		d.ResponseHeader = t.ResponseHeader
	}
	if t.Stall != 0 {
		d.Stall = t.Stall
	}
	if t.Attempt != 0 {
		d.Attempt = t.Attempt
	}
	return d
}

// RetryPolicy bounds retries of one HTTP request (never of a whole walk).
type RetryPolicy struct {
	// MaxRetries is the number of retries after the first attempt.
	MaxRetries int
	// MinBackoff and MaxBackoff bound the jittered exponential backoff.
	MinBackoff, MaxBackoff time.Duration
	// MaxRateLimitWait is the longest wait a rate-limit answer (Retry-After,
	// reset headers) may impose; a longer one returns ErrRateLimited with
	// RetryAfter set.
	MaxRateLimitWait time.Duration
}

// DefaultRetryPolicy is used unless WithRetry says otherwise.
var DefaultRetryPolicy = RetryPolicy{MaxRetries: 4, MinBackoff: 500 * time.Millisecond, MaxBackoff: 30 * time.Second, MaxRateLimitWait: time.Minute}

// Option configures a connector.
type Option func(*Options)

// NewOptions applies opts over the defaults.
func NewOptions(opts ...Option) Options {
	o := Options{Retry: DefaultRetryPolicy}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// WithBaseURL sends requests to u instead of the vendor's origin (a fake,
// a proxy, GitHub Enterprise at https://host/api/v3).
func WithBaseURL(u string) Option { return func(o *Options) { o.BaseURL = u } }

// WithTokenURL sets the full URL of the OAuth token endpoint.
func WithTokenURL(u string) Option { return func(o *Options) { o.TokenURL = u } }

// WithHTTPClient uses c's RoundTripper and timeout. Its redirect policy is
// replaced by the library's own (no credentials off-origin, no https→http).
// The limits of Timeouts still apply on top of c's own (the shorter wins),
// except Connect, which is c's dialer's business.
// A walk keeps up to Options.Prefetch requests in flight: give an
// *http.Transport a MaxIdleConnsPerHost at least that high (net/http's
// default is 2), or connections are closed and dialled again on every page.
func WithHTTPClient(c *http.Client) Option { return func(o *Options) { o.HTTPClient = c } }

// WithLogger logs each HTTP attempt at debug level, secrets redacted.
func WithLogger(l *slog.Logger) Option { return func(o *Options) { o.Logger = l } }

// WithRetry sets the retry policy.
func WithRetry(p RetryPolicy) Option { return func(o *Options) { o.Retry = p } }

// Retrying describes a retry of an HTTP request that the library is about
// to make.
type Retrying struct {
	// Attempt is the attempt about to be made (2 for the first retry), out
	// of Attempts at most (RetryPolicy.MaxRetries + 1).
	Attempt, Attempts int
	// Wait is how long the library waits before it.
	Wait time.Duration
	// Reason says why the attempt before failed ("HTTP 503", or the
	// network error), secrets redacted.
	Reason string
}

// WithRetryHook calls fn before each retry's wait, so that a caller can
// show retries as they happen (the CLI does on a terminal). fn is called
// from the goroutine sending the request: it must be quick and safe for
// concurrent use.
func WithRetryHook(fn func(Retrying)) Option { return func(o *Options) { o.OnRetry = fn } }

// WithRateLimit paces requests to perSecond with bursts of burst.
func WithRateLimit(perSecond float64, burst int) Option {
	return func(o *Options) { o.RatePerSecond, o.RateBurst = perSecond, burst }
}

// WithMaxConcurrency caps the requests in flight at n.
func WithMaxConcurrency(n int) Option { return func(o *Options) { o.MaxConcurrency = n } }

// WithPrefetch sets how many pages a walk may fetch at once where the
// pages name the ones after them (see Options.Prefetch); 1 fetches one page
// ahead, as for cursor paging.
func WithPrefetch(n int) Option { return func(o *Options) { o.Prefetch = n } }

// WithTimeouts sets the limits on each HTTP attempt (see Timeouts). Zero
// fields keep their current value (DefaultTimeouts unless set before); a
// negative field turns that limit off:
//
//	tributary.WithTimeouts(tributary.Timeouts{Stall: 10 * time.Second, Attempt: -1})
func WithTimeouts(t Timeouts) Option {
	return func(o *Options) {
		if t.Connect != 0 {
			o.Timeouts.Connect = t.Connect
		}
		if t.ResponseHeader != 0 {
			o.Timeouts.ResponseHeader = t.ResponseHeader
		}
		if t.Stall != 0 {
			o.Timeouts.Stall = t.Stall
		}
		if t.Attempt != 0 {
			o.Timeouts.Attempt = t.Attempt
		}
	}
}

// WithMaxPageBytes caps the body of one page or record at n bytes (n <= 0
// keeps DefaultMaxPageBytes). A larger answer fails with
// ErrUnexpectedResponse, having held little more than n bytes.
func WithMaxPageBytes(n int64) Option { return func(o *Options) { o.MaxPageBytes = n } }

// WithUserAgent replaces the User-Agent.
func WithUserAgent(ua string) Option { return func(o *Options) { o.UserAgent = ua } }

// WithTokenRefresh registers fn to receive every token an OAuth refresh
// issues, so that rotated refresh tokens can be saved.
func WithTokenRefresh(fn func(*oauth2.Token)) Option {
	return func(o *Options) { o.OnTokenRefresh = fn }
}

// TokenStore shares a connector's OAuth tokens between processes that hold
// the same credentials, so that a refresh token is spent once across all of
// them. Without one, two processes holding the same single-use refresh
// token both spend it when their access tokens expire, and the second
// refresh fails (ErrUnauthorized, invalid_grant).
//
// A store keeps one saved token per set of credentials (the service keys it
// by connector). Besides the access and refresh tokens and the expiry, it
// should keep the token response's extra fields that a kind reads
// (Salesforce's instance_url, Gong's api_base_url_for_customer) and hand
// them back with oauth2.Token.WithExtra.
type TokenStore interface {
	// Refresh is called in place of every refresh. Holding a lock that every
	// process sharing the credentials respects, it loads the newest saved
	// token; when that token differs from stale (another process refreshed
	// meanwhile) and has not expired, it returns it without refreshing;
	// otherwise it calls refresh with the saved refresh token ("" when none
	// is saved: the connector's own is used), saves what refresh returns and
	// returns it. stale is the token this process holds (nil if none).
	//
	// refresh must be called, if at all, before Refresh returns; its error
	// should be returned as is or wrapped with %w, so that it keeps its
	// meaning (a rejected refresh token is ErrUnauthorized). Any other error
	// of Refresh (the store's own) is reported as a retryable ErrServer,
	// wrapped as is: it must not carry token values.
	// When the process adopts a token saved by another, it adopts its
	// refresh token too; WithTokenRefresh's callback still receives every
	// token this process obtains from the endpoint.
	Refresh(ctx context.Context, stale *oauth2.Token, refresh func(ctx context.Context, refreshToken string) (*oauth2.Token, error)) (*oauth2.Token, error)
}

// WithTokenStore makes OAuth refreshes go through ts (see TokenStore), for
// processes that share credentials. Kinds without OAuth ignore it.
func WithTokenStore(ts TokenStore) Option { return func(o *Options) { o.TokenStore = ts } }

// WithoutPacing turns off every pace a kind keeps on its own to its
// vendor's documented limits (HubSpot's 100 requests per 10 seconds,
// Zendesk's 10 exports a minute, Gong's 3 a second, ...), whatever its
// With…RateLimit settings say: for a fake that does not enforce them (the
// sandbox), and for benchmarks, which measure the client. Budgets the
// vendor announces in its answers are still kept, and its rate-limit
// answers still waited for.
func WithoutPacing() Option { return func(o *Options) { o.NoPacing = true } }

// WithSetting sets a kind-specific setting; kinds export typed helpers.
func WithSetting(key, value string) Option {
	return func(o *Options) {
		if o.Settings == nil {
			o.Settings = map[string]string{}
		}
		o.Settings[key] = value
	}
}
