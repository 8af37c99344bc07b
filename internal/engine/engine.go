package engine

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"iter"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/download"
	"github.com/tributary-dev/tributary/internal/jsonx"
	"github.com/tributary-dev/tributary/internal/transport"
	"github.com/tributary-dev/tributary/pagination"
)

// maxErrorBody bounds an error body read for parsing.
const maxErrorBody = 64 << 10

// Setup is what a kind passes to Open.
type Setup struct {
	Kind *Kind
	// Options are the caller's options.
	Options tributary.Options
	// DefaultBaseURL is the vendor's origin (and path prefix) for this
	// account; Options.BaseURL replaces it.
	DefaultBaseURL string
	// Auth applies the credentials.
	Auth transport.Auth
	// Header is sent on every request to the origin.
	Header http.Header
	// Secrets are credential values that must never appear in an error.
	Secrets []string
	// MaxConcurrency is the kind's default cap (Options.MaxConcurrency wins).
	MaxConcurrency int
	// ResolveBaseURL, when set and Options.BaseURL is not, gives the base
	// URL before each request: for sources whose host is only known from
	// the OAuth token response (Salesforce's instance_url, Gong's
	// api_base_url_for_customer). Credentials follow the base to its origin.
	ResolveBaseURL func(ctx context.Context) (string, error)
	// Paces are the kind's own limits on some of its endpoints (see
	// transport.Config.Paces).
	Paces []transport.Pace
	// Budget reads the vendor's rate-limit budget from an answer, for a
	// client that keeps to it on its own (see transport.Config.Budget).
	Budget func(resp *http.Response) (transport.Budget, bool)
}

// Connector is a direct-mode connector driven by a Kind.
type Connector struct {
	kind *Kind
	base atomic.Pointer[url.URL]
	// vendor is the vendor's own origin when Options.BaseURL replaced it
	// (a fake, a proxy): a file URL the source gives on that origin is
	// fetched from the base URL's origin instead. Nil otherwise.
	vendor   *url.URL
	resolve  func(ctx context.Context) (string, error)
	client   *transport.Client
	catalog  []tributary.Entity
	byName   map[string]*Entity
	secrets  []string
	retry    tributary.RetryPolicy
	now      func() time.Time
	download download.Options
	prefetch int   // the most pages a walk fetches at once
	maxBody  int64 // the most bytes of a page or record body read

	zoneMu sync.Mutex
	zones  map[string]zoneRead // by Feed.Zone path, for ZoneTTL

	streamMu sync.Mutex
	streams  map[string]*streamRun // the pages read last of each Feed.Stream
}

// Open builds a Connector.
func Open(s Setup) (*Connector, error) {
	raw := s.DefaultBaseURL
	if s.Options.BaseURL != "" {
		raw = s.Options.BaseURL
	}
	base, err := ParseBaseURL(raw)
	if err != nil {
		return nil, &tributary.Error{Kind: s.Kind.Type, Err: tributary.ErrInvalidCredentials, Message: "base URL: " + err.Error()}
	}
	c := &Connector{kind: s.Kind, byName: map[string]*Entity{}, now: time.Now, retry: s.Options.Retry}
	c.base.Store(base)
	if s.Options.BaseURL == "" {
		c.resolve = s.ResolveBaseURL
	} else if v, err := ParseBaseURL(s.DefaultBaseURL); err == nil && s.DefaultBaseURL != "" {
		c.vendor = v
	}
	for i := range s.Kind.Entities {
		e := &s.Kind.Entities[i]
		c.byName[e.Name] = e
	}
	c.catalog = Catalogue(s.Kind.Entities)
	for _, sec := range s.Secrets {
		if len(sec) >= 4 {
			c.secrets = append(c.secrets, sec)
		}
	}
	o := s.Options
	cfg := transport.Config{
		Origin:           &url.URL{Scheme: base.Scheme, Host: base.Host},
		Auth:             s.Auth,
		CredentialHosts:  s.Kind.CredentialHosts,
		Header:           s.Header,
		Base:             o.HTTPClient,
		Logger:           o.Logger,
		UserAgent:        o.UserAgent,
		MaxRetries:       o.Retry.MaxRetries,
		MinBackoff:       o.Retry.MinBackoff,
		MaxBackoff:       o.Retry.MaxBackoff,
		MaxRateLimitWait: o.Retry.MaxRateLimitWait,
		Timeouts:         Timeouts(o),
		MaxConcurrency:   s.MaxConcurrency,
		Classify:         s.Kind.Retryable,
		Budget:           s.Budget,
	}
	if o.MaxConcurrency > 0 {
		cfg.MaxConcurrency = o.MaxConcurrency
	}
	if cfg.Paces, err = paces(s); err != nil {
		return nil, err
	}
	if o.OnRetry != nil {
		cfg.OnRetry = RetryHook(o.OnRetry, c.redact)
	}
	if o.RatePerSecond > 0 {
		burst := o.RateBurst
		if burst < 1 {
			burst = 1
		}
		cfg.Limiter = rate.NewLimiter(rate.Limit(o.RatePerSecond), burst)
	}
	if s.Kind.RateLimits != nil {
		budget, wait := RateLimitsOf(s.Kind.RateLimits)
		if cfg.Budget == nil {
			if cfg.Budget, err = BudgetFrom(s.Kind.Type, s.Kind.Type+".budget_pacing", o.Settings, budget); err != nil {
				return nil, err
			}
			if cfg.Budget != nil {
				cfg.EndpointBudgets = EndpointBudgetsOf(s.Kind.RateLimits)
			}
		}
		if s.Kind.RetryAfter == nil {
			// A Retry-After the answer carries says the wait itself
			// (Jira's 429 has both): the window's reset only without it.
			k := *s.Kind
			k.RetryAfter = func(resp *http.Response, now time.Time) (time.Duration, bool) {
				if resp.Header.Get("Retry-After") != "" {
					return 0, false
				}
				return wait(resp, now)
			}
			c.kind = &k
		}
	}
	if ra := c.kind.RetryAfter; ra != nil {
		cfg.RetryAfter = func(resp *http.Response) (time.Duration, bool) { return ra(resp, time.Now()) }
	}
	c.client = transport.New(cfg)
	c.prefetch = o.PrefetchWithin(cfg.MaxConcurrency)
	c.maxBody = o.PageLimit()
	return c, nil
}

// paces are the kind's own paces (Setup.Paces, and one per method of a
// rate tier), none when the caller turned them off.
func paces(s Setup) ([]transport.Pace, error) {
	if s.Options.NoPacing {
		return nil, nil
	}
	tiers, err := tierPaces(s.Kind, s.Options.Settings)
	if err != nil {
		return nil, err
	}
	return slices.Concat(s.Paces, tiers), nil
}

// Timeouts returns the limits on each HTTP attempt that o sets, defaults
// filled in, for the transport: the connector's own requests and its
// token requests.
func Timeouts(o tributary.Options) transport.Timeouts {
	return transport.Timeouts(o.Timeouts.WithDefaults())
}

// Catalogue returns the public catalogue of entities: each entity with the
// paging style of its paged actions taken from its routes.
func Catalogue(entities []Entity) []tributary.Entity {
	out := make([]tributary.Entity, 0, len(entities))
	for _, e := range entities {
		pub := e.Entity
		for a, rts := range e.Routes {
			if len(rts) > 0 && rts[0].Paging != nil {
				if pub.Paging == nil {
					pub.Paging = map[tributary.Action]pagination.Style{}
				}
				pub.Paging[a] = rts[0].Paging
			}
		}
		out = append(out, pub)
	}
	return out
}

// ParseBaseURL checks a base URL: absolute http(s), no query or fragment;
// a trailing slash of its path is dropped.
func ParseBaseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("%q is not a URL", raw)
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("%q must be an absolute http(s) URL", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("%q must not carry a query, fragment or user info", raw)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// Type implements tributary.Connector.
func (c *Connector) Type() string { return c.kind.Type }

// Kind returns the kind's description (its hooks: error parsing, retry
// classification), for tests and tools that exercise them directly. It must
// not be modified.
func (c *Connector) Kind() *Kind { return c.kind }

// Entities implements tributary.Connector.
func (c *Connector) Entities() []tributary.Entity { return c.catalog }

// BaseURL returns the base URL requests go to.
func (c *Connector) BaseURL() string { return c.base.Load().String() }

// baseURL returns the current base URL, resolving it first when the kind
// learns it at run time.
func (c *Connector) baseURL(ctx context.Context) (*url.URL, error) {
	cur := c.base.Load()
	if c.resolve == nil {
		return cur, nil
	}
	raw, err := c.resolve(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", transport.ErrAuth, err)
	}
	if strings.TrimRight(raw, "/") == cur.String() {
		return cur, nil
	}
	u, err := ParseBaseURL(raw)
	if err != nil {
		return nil, fmt.Errorf("the source gave an unusable base URL: %w", err)
	}
	c.base.Store(u)
	c.client.SetOrigin(u)
	return u, nil
}

// Format prints the connector without its credentials, for every verb.
func (c *Connector) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "tributary.Connector{type: %s, base: %s}", c.kind.Type, c.base.Load())
}

// List implements tributary.Connector.
func (c *Connector) List(ctx context.Context, entity string, p tributary.Params) (*tributary.Page, error) {
	return c.page(ctx, entity, tributary.ActionList, p)
}

// APISearch implements tributary.Connector.
func (c *Connector) APISearch(ctx context.Context, entity string, p tributary.Params) (*tributary.Page, error) {
	return c.page(ctx, entity, tributary.ActionAPISearch, p)
}

func (c *Connector) page(ctx context.Context, entity string, a tributary.Action, p tributary.Params) (*tributary.Page, error) {
	norm, rt, err := c.prepare(entity, a, p)
	if err != nil {
		return nil, err
	}
	page, _, err := c.fetchPage(ctx, entity, a, rt, norm, 0)
	return page, err
}

// Walk implements tributary.Walker: it pages through a list from p,
// switching to the route's preferred walking mode when it has one.
func (c *Connector) Walk(ctx context.Context, entity string, p tributary.Params) iter.Seq2[tributary.Record, error] {
	// The pager prepares each page's params itself: it gets them as the
	// caller may give them, before the route's Prepare.
	norm, rt, err := c.route(entity, tributary.ActionList, p)
	if err != nil {
		return func(yield func(tributary.Record, error) bool) { yield(tributary.Record{}, err) }
	}
	if rt.Walk != nil {
		norm = rt.Walk(norm)
	}
	return c.Pager(entity, tributary.ActionList, norm).All(ctx)
}

// Pager returns a pager over the pages of entity's action from p. Where
// the route's paging names later pages (page numbers up to a last page,
// offsets up to a total), its walk fetches up to Options.Prefetch pages at
// once, within the connector's concurrency cap and rate limit.
func (c *Connector) Pager(entity string, a tributary.Action, p tributary.Params) *pagination.Pager[tributary.Record] {
	return pagination.New(map[string]any(p), func(ctx context.Context, params map[string]any) (*pagination.Page[tributary.Record], error) {
		norm, rt, err := c.prepare(entity, a, tributary.Params(params))
		if err != nil {
			return nil, err
		}
		page, later, err := c.fetchPage(ctx, entity, a, rt, norm, c.prefetch-1)
		if err != nil {
			return nil, err
		}
		return &pagination.Page[tributary.Record]{Items: page.Records, Meta: page.Meta, Next: page.Next, Later: later}, nil
	}).Window(c.prefetch)
}

// Get implements tributary.Connector.
func (c *Connector) Get(ctx context.Context, entity string, p tributary.Params) (tributary.Record, error) {
	a := tributary.ActionGet
	norm, rt, err := c.prepare(entity, a, p)
	if err != nil {
		return tributary.Record{}, err
	}
	resp, body, err := c.read(ctx, entity, a, rt, norm)
	if err != nil {
		return tributary.Record{}, err
	}
	raw, err := jsonx.Object(body, rt.Records)
	if err != nil {
		if absentElement(body, rt.Records) {
			return tributary.Record{}, &tributary.Error{Kind: c.kind.Type, Entity: entity, Action: a, StatusCode: resp.StatusCode, Err: tributary.ErrNotFound,
				Message: "the source's answer holds no record (" + rt.Records + " is absent)"}
		}
		return tributary.Record{}, c.unexpected(entity, a, resp.StatusCode, err.Error(), err)
	}
	return tributary.NewRecord(raw), nil
}

// absentElement reports whether records, a dot path that ends with an
// array index ("messages.0": a get that reads a list of at most one, as
// Slack's history between a ts and itself), names an element the body's
// array does not have: the record does not exist.
func absentElement(body []byte, records string) bool {
	steps := strings.Split(records, ".")
	i, err := strconv.Atoi(steps[len(steps)-1])
	if err != nil || len(steps) < 2 {
		return false
	}
	arr, ok := jsonx.Lookup(body, steps[:len(steps)-1]...)
	elems, err := jsonx.SplitArray(arr)
	return ok && err == nil && i >= len(elems)
}

// Download implements tributary.Connector.
func (c *Connector) Download(ctx context.Context, entity string, p tributary.Params) (*download.Stream, error) {
	a := tributary.ActionDownload
	norm, rt, err := c.prepare(entity, a, p)
	if err != nil {
		return nil, err
	}
	var rng *download.Range
	if v, ok := norm["range_header"].(string); ok {
		r, err := download.ParseRange(v)
		if err != nil {
			return nil, &tributary.Error{Kind: c.kind.Type, Entity: entity, Action: a, Param: "range_header", Err: tributary.ErrInvalidParams, Message: err.Error()}
		}
		rng = &r
	}
	delete(norm, "range_header")

	var fetch download.Fetch
	if rt.FileURL == nil {
		fetch = func(ctx context.Context, h http.Header) (*http.Response, error) {
			req, err := c.build(ctx, rt, norm)
			if err != nil {
				return nil, c.invalid(entity, a, err)
			}
			for k, v := range h {
				req.Header[k] = v
			}
			return c.do(ctx, entity, a, req)
		}
	} else {
		// A file URL the source signs may expire (Asana's download_url and Notion's S3 URLs
		// live minutes to an hour): a resume reads it again.
		u, err := c.fileURL(ctx, entity, a, rt, norm)
		if err != nil {
			return nil, err
		}
		first := true
		fetch = func(ctx context.Context, h http.Header) (*http.Response, error) {
			if !first {
				var err error
				if u, err = c.fileURL(ctx, entity, a, rt, norm); err != nil {
					return nil, err
				}
			}
			first = false
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
			if err != nil {
				return nil, c.invalid(entity, a, err)
			}
			for k, v := range h {
				req.Header[k] = v
			}
			return c.do(ctx, entity, a, req)
		}
	}
	s, err := download.Open(transport.Unbounded(ctx), fetch, rng, c.download)
	if err != nil {
		var te *tributary.Error
		if errors.As(err, &te) {
			return nil, err
		}
		return nil, c.unexpected(entity, a, 0, err.Error(), err)
	}
	return s, nil
}

// fileURL reads the URL of a two-step download's file (Route.FileURL):
// a "{member}" step of the path is the value of that top-level member of
// the answer (Notion's block type: "{type}.file.url").
func (c *Connector) fileURL(ctx context.Context, entity string, a tributary.Action, rt Route, norm tributary.Params) (*url.URL, error) {
	resp, body, err := c.read(ctx, entity, a, rt, norm)
	if err != nil {
		return nil, err
	}
	path := slices.Clone(rt.FileURL)
	for i, step := range path {
		if name, ok := strings.CutPrefix(step, "{"); ok && strings.HasSuffix(name, "}") {
			raw, _ := jsonx.Lookup(body, strings.TrimSuffix(name, "}"))
			path[i], _ = jsonx.String(raw)
		}
	}
	raw, ok := jsonx.Lookup(body, path...)
	fileURL, isStr := jsonx.String(raw)
	if !ok || !isStr || fileURL == "" {
		return nil, &tributary.Error{Kind: c.kind.Type, Entity: entity, Action: a, StatusCode: resp.StatusCode, Err: tributary.ErrNotFound,
			Message: "the source names no file for this record (no " + strings.Join(path, ".") + ")"}
	}
	base := c.base.Load()
	u, err := base.Parse(fileURL)
	if err == nil && c.vendor != nil && (transport.SameOrigin(u, c.vendor) || c.credentialHost(u)) {
		// The vendor's own URL, read through a base URL that stands
		// in for the vendor: go where the base URL goes.
		u.Scheme, u.Host = base.Scheme, base.Host
		if vp, bp := strings.TrimRight(c.vendor.Path, "/"), strings.TrimRight(base.Path, "/"); vp != bp && strings.HasPrefix(u.Path, vp+"/") {
			u.Path, u.RawPath = bp+strings.TrimPrefix(u.Path, vp), ""
		}
	}
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		got := "a string that is not a URL" // the URL itself may carry a signature: never shown
		if err == nil {
			got = fmt.Sprintf("a URL of scheme %q", u.Scheme)
		}
		return nil, c.unexpected(entity, a, resp.StatusCode, fmt.Sprintf("expected an http(s) URL under %q, got %s", strings.Join(path, "."), got), err)
	}
	if base.Scheme == "https" && u.Scheme != "https" {
		return nil, c.unexpected(entity, a, resp.StatusCode, "expected an https file URL from an https source, got an http one (refused)", transport.ErrInsecureRedirect)
	}
	return u, nil
}

// credentialHost reports whether u is on one of the kind's
// CredentialHosts, over https.
func (c *Connector) credentialHost(u *url.URL) bool {
	return u.Scheme == "https" && slices.ContainsFunc(c.kind.CredentialHosts, func(h string) bool { return strings.EqualFold(h, u.Host) })
}

// prepare validates, picks the route and returns the params its request
// is built from.
func (c *Connector) prepare(entity string, a tributary.Action, p tributary.Params) (tributary.Params, Route, error) {
	norm, rt, err := c.route(entity, a, p)
	if err == nil && rt.Prepare != nil {
		norm = rt.Prepare(norm)
	}
	return norm, rt, err
}

// route validates and picks the route, returning the normalized params
// before the route's Prepare.
func (c *Connector) route(entity string, a tributary.Action, p tributary.Params) (tributary.Params, Route, error) {
	norm, err := tributary.Validate(c.kind.Type, c.catalog, entity, a, p)
	if err != nil {
		return nil, Route{}, err
	}
	e := c.byName[entity]
	for _, rt := range e.Routes[a] {
		ok := true
		for _, w := range rt.When {
			if _, present := norm[w]; !present {
				ok = false
				break
			}
		}
		if ok {
			return norm, rt, nil
		}
	}
	return nil, Route{}, &tributary.Error{Kind: c.kind.Type, Entity: entity, Action: a, Err: tributary.ErrUnsupportedAction,
		Message: "this action is not available in direct mode"}
}

// fetchPage fetches and splits one page; with later above zero it also
// returns the params of up to later pages after Next that the page names.
func (c *Connector) fetchPage(ctx context.Context, entity string, a tributary.Action, rt Route, norm tributary.Params, later int) (*tributary.Page, []map[string]any, error) {
	wire := norm
	if rt.Tree != nil {
		if _, err := treePending(rt.Tree, norm); err != nil {
			return nil, nil, &tributary.Error{Kind: c.kind.Type, Entity: entity, Action: a, Param: rt.Tree.Pending, Err: tributary.ErrInvalidParams, Message: err.Error()}
		}
		wire = treeWire(rt.Tree, norm)
	}
	resp, body, err := c.read(ctx, entity, a, rt, wire)
	if err != nil {
		var te *tributary.Error
		if errors.As(err, &te) && te.StatusCode >= 400 && c.kind.EmptyList != nil && c.kind.EmptyList(te) {
			return &tributary.Page{Records: []tributary.Record{}, Meta: map[string]any{}}, nil, nil
		}
		return nil, nil, err
	}
	split, err := jsonx.Split(body, jsonx.Spec{Key: rt.Records, Drop: rt.Drop, Required: true, One: rt.One})
	if err != nil {
		return nil, nil, c.unexpected(entity, a, resp.StatusCode, err.Error(), err)
	}
	recs := make([]tributary.Record, 0, len(split.Records))
	for _, r := range split.Records {
		rec := tributary.NewRecord(r)
		if rt.Keep == nil || rt.Keep(norm, rec) {
			recs = append(recs, rec)
		}
	}
	count := len(split.Records) + split.Dropped
	if rt.Refs != nil {
		if recs, err = c.deref(ctx, entity, a, rt.Refs, recs); err != nil {
			return nil, nil, err
		}
	}
	page := &tributary.Page{Records: recs, Meta: map[string]any{}}
	style := rt.Paging
	if style == nil {
		style = pagination.None{}
	}
	var last []byte
	if len(split.Records) > 0 {
		last = split.Records[len(split.Records)-1]
	}
	meta, next, err := style.Page(&pagination.Response{Params: norm, Header: resp.Header, Fields: split.Fields, Count: count, Last: last})
	if err != nil {
		return nil, nil, &tributary.Error{Kind: c.kind.Type, Entity: entity, Action: a, StatusCode: resp.StatusCode, Err: tributary.ErrPaging, Message: err.Error(), Cause: err}
	}
	if meta != nil {
		page.Meta = meta
	}
	var more []map[string]any
	if next != nil {
		page.Next = tributary.Params(next)
		more = pagination.Later(style, norm, meta, count, later)
	}
	if rt.Tree != nil {
		more = nil
		if err := descend(rt.Tree, norm, page); err != nil {
			return nil, nil, &tributary.Error{Kind: c.kind.Type, Entity: entity, Action: a, Param: rt.Tree.Pending, Err: tributary.ErrInvalidParams, Message: err.Error()}
		}
	}
	return page, more, nil
}

// read sends the request of a route and reads the whole body of its 2xx
// answer. The transport retries failed requests; a connection that drops
// while the body is being read is retried here, within the same retry
// policy, since every operation of the contract is a read.
func (c *Connector) read(ctx context.Context, entity string, a tributary.Action, rt Route, norm tributary.Params) (*http.Response, []byte, error) {
	var resp *http.Response
	var body []byte
	policy := c.retry
	if rt.Once {
		policy.MaxRetries = 0
	}
	attempt := func() (bool, error) {
		var err error
		resp, err = c.send(ctx, entity, a, rt, norm)
		if err != nil {
			return false, err
		}
		body, err = c.readBody(ctx, entity, a, resp)
		if err == nil {
			if be := c.bodyError(entity, a, resp, body); be != nil {
				return false, be
			}
		}
		return err != nil, err
	}
	var err error
	for n := 0; ; n++ {
		err = RetryBody(ctx, policy, attempt)
		again, werr := c.throttledInBody(ctx, err, n, policy)
		if werr != nil {
			err = werr // the context ended during the wait
		}
		if !again {
			break
		}
	}
	if err != nil {
		var te *tributary.Error
		if !errors.As(err, &te) { // the context ended during a backoff
			err = &tributary.Error{Kind: c.kind.Type, Entity: entity, Action: a, Err: err, Message: "request cancelled"}
		}
		return nil, nil, err
	}
	return resp, body, nil
}

// throttledInBody waits before another attempt when err is a rate limit
// that the transport did not wait for itself (one a source reports in the
// body of a 200 or 400, as GraphQL's RATELIMITED), within the retry
// policy: at most p.MaxRetries more attempts, each after the answer's
// reset (or the backoff) when it is no longer than p.MaxRateLimitWait and
// ends before ctx's deadline. It reports whether to try again, and the
// context's error when ctx ended during the wait.
func (c *Connector) throttledInBody(ctx context.Context, err error, n int, p tributary.RetryPolicy) (bool, error) {
	var te *tributary.Error
	if err == nil || !errors.As(err, &te) || !errors.Is(te.Err, tributary.ErrRateLimited) || !errors.Is(te.Cause, ErrInBody) ||
		te.StatusCode == http.StatusTooManyRequests || te.StatusCode >= 500 || n >= p.MaxRetries {
		return false, nil
	}
	wait := te.RetryAfter
	if wait <= 0 {
		wait = backoff(p, n)
	}
	if p.MaxRateLimitWait > 0 && wait > p.MaxRateLimitWait {
		return false, nil
	}
	if dl, ok := ctx.Deadline(); ok && time.Now().Add(wait).After(dl) {
		return false, nil
	}
	// The transport counted an error status with a reset signal as
	// throttled already; a 2xx, or a 400 without one, it did not.
	c.client.NoteRetry(te.StatusCode < 400 || te.RetryAfter <= 0)
	if err := sleep(ctx, wait); err != nil {
		return false, err
	}
	return true, nil
}

// RetryBody runs attempt (one request and the reading of its answer), and
// runs it again when it reports that the body broke off or stalled while
// it was read and its error is ErrServer, at most p.MaxRetries more times,
// after the policy's jittered backoff. The transport retries the requests
// themselves; this covers what happens after their headers arrived, since
// every operation of the contract is a read. It returns attempt's last
// error, or ctx's error if ctx ends during a backoff.
func RetryBody(ctx context.Context, p tributary.RetryPolicy, attempt func() (broken bool, err error)) error {
	for n := 0; ; n++ {
		broken, err := attempt()
		if err == nil || !broken || !errors.Is(err, tributary.ErrServer) || n >= p.MaxRetries {
			return err
		}
		if werr := sleep(ctx, backoff(p, n)); werr != nil {
			return werr
		}
	}
}

// backoff is the jittered exponential wait before retry attempt+1.
func backoff(p tributary.RetryPolicy, attempt int) time.Duration {
	d := p.MinBackoff << min(attempt, 30)
	if d <= 0 || (p.MaxBackoff > 0 && d > p.MaxBackoff) {
		d = p.MaxBackoff
	}
	if d <= 0 {
		return 0
	}
	return d/2 + rand.N(d/2+1)
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// CheckCredentials sends the kind's credential check (Kind.Check): one
// cheap authenticated request, with the connector's authentication (an
// OAuth refresh first when it has no access token), retries and error
// parsing. It returns nil when the source accepted the credentials, and
// otherwise the request's *tributary.Error: tributary.ErrUnauthorized or
// ErrForbidden when the source refused them, ErrUnreachable, ErrServer or
// ErrRateLimited when it could not tell. A kind without a check returns
// nil and sends nothing.
func (c *Connector) CheckCredentials(ctx context.Context) error {
	if c.kind.Check == nil {
		return nil
	}
	resp, err := c.send(ctx, "", "", *c.kind.Check, tributary.Params{})
	if err != nil {
		return err
	}
	body, err := c.readBody(ctx, "", "", resp)
	if err == nil {
		if be := c.bodyError("", "", resp, body); be != nil {
			// A refusal inside a 2xx (GraphQL's errors[], Slack's
			// ok:false) is a refusal.
			return be
		}
	}
	return err
}

// send builds and sends the request of a route and returns a 2xx response.
func (c *Connector) send(ctx context.Context, entity string, a tributary.Action, rt Route, norm tributary.Params) (*http.Response, error) {
	if rt.Once {
		ctx = transport.Once(ctx)
	}
	req, err := c.build(ctx, rt, norm)
	if err != nil {
		return nil, c.invalid(entity, a, err)
	}
	return c.do(ctx, entity, a, req)
}

func (c *Connector) invalid(entity string, a tributary.Action, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &tributary.Error{Kind: c.kind.Type, Entity: entity, Action: a, Err: err, Message: "request cancelled"}
	}
	if errors.Is(err, transport.ErrTokenUnavailable) {
		return &tributary.Error{Kind: c.kind.Type, Entity: entity, Action: a, Err: tributary.ErrServer, Retryable: true, Message: c.redact(err.Error())}
	}
	if errors.Is(err, transport.ErrAuth) {
		return &tributary.Error{Kind: c.kind.Type, Entity: entity, Action: a, Err: tributary.ErrUnauthorized, Message: c.redact(err.Error())}
	}
	var pe *paramErr
	if errors.As(err, &pe) {
		return &tributary.Error{Kind: c.kind.Type, Entity: entity, Action: a, Param: pe.param, Err: tributary.ErrInvalidParams, Message: pe.msg}
	}
	return &tributary.Error{Kind: c.kind.Type, Entity: entity, Action: a, Err: tributary.ErrInvalidParams, Message: c.redact(err.Error())}
}

// do sends req and turns failures and non-2xx answers into *tributary.Error.
func (c *Connector) do(ctx context.Context, entity string, a tributary.Action, req *http.Request) (*http.Response, error) {
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, c.transportError(ctx, entity, a, req, err)
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	return nil, c.httpError(entity, a, resp, body)
}

// transportError is the error of a request that got no answer.
func (c *Connector) transportError(ctx context.Context, entity string, a tributary.Action, req *http.Request, err error) error {
	e := &tributary.Error{Kind: c.kind.Type, Entity: entity, Action: a}
	switch {
	case ctx.Err() != nil:
		e.Err = ctx.Err()
		e.Message = "request cancelled"
	case errors.Is(err, transport.ErrTokenUnavailable):
		e.Err, e.Retryable = tributary.ErrServer, true
		e.Message = c.redact(err.Error())
	case errors.Is(err, transport.ErrAuth):
		e.Err = tributary.ErrUnauthorized
		e.Message = c.redact(err.Error())
	case errors.Is(err, transport.ErrInsecureRedirect):
		e.Err = tributary.ErrUnexpectedResponse
		e.Message = "expected a redirect that stays on https, got one from https to http (refused)"
	case unreachable(e, err, req.URL.Host):
		e.Message = c.redact(e.Message)
	default:
		e.Err = tributary.ErrServer
		e.Retryable = true
		e.Message = c.redact(err.Error())
		var te *transport.TimeoutError
		if errors.As(err, &te) {
			e.Cause = te
		}
	}
	return e
}

// unreachable fills e when err says host could not be reached, and
// reports whether it did.
func unreachable(e *tributary.Error, err error, host string) bool {
	msg, retryable, ok := transport.Unreachable(err, host)
	if ok {
		e.Err, e.Message, e.Retryable, e.Cause = tributary.ErrUnreachable, msg, retryable, err
	}
	return ok
}

// RetryHook adapts a caller's retry hook to the transport's, with the
// reason redacted by redact.
func RetryHook(fn func(tributary.Retrying), redact func(string) string) func(transport.Retry) {
	return func(r transport.Retry) {
		reason := "HTTP " + strconv.Itoa(r.Status)
		if r.Status == 0 && r.Err != nil {
			reason = r.Err.Error()
			var ue *url.Error
			if errors.As(r.Err, &ue) { // the method and URL say nothing new
				reason = ue.Err.Error()
			}
		}
		fn(tributary.Retrying{Attempt: r.Attempt, Attempts: r.Attempts, Wait: r.Wait, Reason: redact(reason)})
	}
}

func (c *Connector) httpError(entity string, a tributary.Action, resp *http.Response, body []byte) *tributary.Error {
	e := &tributary.Error{Kind: c.kind.Type, Entity: entity, Action: a, StatusCode: resp.StatusCode, Err: tributary.SentinelForStatus(resp.StatusCode)}
	if !c.parseRule(resp, body, e) && c.kind.ParseError != nil {
		c.kind.ParseError(resp.StatusCode, resp.Header, body, e)
	}
	if e.Message == "" {
		if t := strings.TrimSpace(string(body)); t != "" && len(t) < 300 && !strings.HasPrefix(t, "<") {
			e.Message = t
		} else {
			e.Message = http.StatusText(resp.StatusCode)
		}
	}
	if c.kind.Classify != nil {
		c.kind.Classify(resp.StatusCode, resp.Header, body, e)
	}
	c.finishError(e, resp)
	return e
}

// finishError completes an error read from an answer: whether a retry
// could help, the wait the answer asks for, and every text taken from the
// answer redacted.
func (c *Connector) finishError(e *tributary.Error, resp *http.Response) {
	if errors.Is(e.Err, tributary.ErrRateLimited) || errors.Is(e.Err, tributary.ErrServer) {
		e.Retryable = true
	}
	if d, ok := c.client.RetryAfter(resp); ok && (resp.StatusCode == 429 || resp.StatusCode == 403 || resp.StatusCode >= 500 || errors.Is(e.Err, tributary.ErrRateLimited)) {
		e.RetryAfter = d
	}
	// Everything taken from the response is redacted: the credentials as
	// configured, and as this request sent them (Basic-encoded, or a token
	// obtained by a refresh).
	var sent string
	if resp.Request != nil {
		sent = resp.Request.Header.Get("Authorization")
	}
	e.Message = redactSent(c.redact(e.Message), sent)
	e.Code = redactSent(c.redact(e.Code), sent)
	e.RequestID = redactSent(c.redact(e.RequestID), sent)
	e.Param = redactSent(c.redact(e.Param), sent)
}

// redactSent hides an Authorization header value in s, and the credential
// inside it: a bearer token, or a Basic pair in base64 and decoded, and the
// password alone.
func redactSent(s, authorization string) string {
	if authorization == "" || s == "" {
		return s
	}
	parts := []string{authorization}
	if scheme, cred, ok := strings.Cut(authorization, " "); ok && len(cred) >= 4 {
		parts = append(parts, cred)
		if strings.EqualFold(scheme, "Basic") {
			if raw, err := base64.StdEncoding.DecodeString(cred); err == nil {
				pair := string(raw)
				parts = append(parts, pair)
				if _, pass, ok := strings.Cut(pair, ":"); ok && len(pass) >= 4 {
					parts = append(parts, pass)
				}
			}
		}
	}
	for _, p := range parts {
		s = strings.ReplaceAll(s, p, "[REDACTED]")
	}
	return s
}

func (c *Connector) unexpected(entity string, a tributary.Action, status int, msg string, cause error) error {
	return &tributary.Error{Kind: c.kind.Type, Entity: entity, Action: a, StatusCode: status, Err: tributary.ErrUnexpectedResponse, Message: c.redact(msg), Cause: cause}
}

func (c *Connector) redact(s string) string {
	for _, sec := range c.secrets {
		s = strings.ReplaceAll(s, sec, "[REDACTED]")
	}
	return s
}

// readBody reads the whole body of resp, up to the page size cap, and
// closes it.
func (c *Connector) readBody(ctx context.Context, entity string, a tributary.Action, resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	body, err := transport.ReadBody(resp.Body, resp.ContentLength, c.maxBody)
	if errors.Is(err, transport.ErrTooLarge) {
		return nil, c.unexpected(entity, a, resp.StatusCode, "the response is larger than "+transport.Bytes(c.maxBody)+" (the page size cap, WithMaxPageBytes)", nil)
	}
	if err != nil {
		return nil, c.brokenBody(ctx, entity, a, resp.StatusCode, err)
	}
	return body, nil
}

// brokenBody is the error of a body that broke off or stalled: ErrServer,
// retryable, saying which timeout ended it if one did; or the context's
// error when the caller cancelled.
func (c *Connector) brokenBody(ctx context.Context, entity string, a tributary.Action, status int, err error) error {
	e := &tributary.Error{Kind: c.kind.Type, Entity: entity, Action: a, StatusCode: status, Err: tributary.ErrServer, Retryable: true,
		Message: "the connection broke while reading the response", Cause: err}
	var te *transport.TimeoutError
	if errors.As(err, &te) {
		e.Message, e.Cause = "reading the response: "+te.Error(), te
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		e.Err, e.Retryable, e.Message = ctxErr, false, "request cancelled"
	}
	return e
}

type paramErr struct{ param, msg string }

func (e *paramErr) Error() string { return e.param + ": " + e.msg }

// build makes the HTTP request of a route.
func (c *Connector) build(ctx context.Context, rt Route, p tributary.Params) (*http.Request, error) {
	ctx = withTier(ctx, rt)
	method := rt.Method
	if method == "" {
		method = http.MethodGet
	}
	base, err := c.baseURL(ctx)
	if err != nil {
		return nil, err
	}
	if rt.URLParam != "" {
		if raw, ok := p[rt.URLParam].(string); ok {
			u, err := base.Parse(raw)
			if err != nil {
				return nil, &paramErr{rt.URLParam, "is not a URL"}
			}
			if !transport.SameOrigin(u, base) {
				return nil, &paramErr{rt.URLParam, "points to another host; only the source's own URLs are followed"}
			}
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
			if err != nil {
				return nil, err
			}
			addHeader(req, rt.Header)
			return req, nil
		}
	}
	path, used, err := expandPath(rt.Path, p)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(base.String() + path)
	if err != nil {
		return nil, err
	}
	var body map[string]any
	q := url.Values{}
	inQuery := map[string]bool{}
	for _, k := range rt.Query {
		inQuery[k] = true
	}
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if used[k] || k == rt.URLParam || k == "range_header" {
			continue
		}
		v := p[k]
		name := k
		if r, ok := rt.Rename[k]; ok {
			name = r
		}
		if (rt.Body || rt.GraphQL != "") && !inQuery[k] {
			if body == nil {
				body = map[string]any{}
			}
			body[name] = v
			continue
		}
		if rt.DeepObject {
			if err := deepObject(q, name, v); err != nil {
				return nil, &paramErr{k, err.Error()}
			}
			continue
		}
		if arr, ok := v.([]any); ok && rt.RepeatArrays {
			for _, e := range arr {
				s, err := queryValue(e)
				if err != nil {
					return nil, &paramErr{k, err.Error()}
				}
				q.Add(name, s)
			}
			continue
		}
		s, err := queryValue(v)
		if err != nil {
			return nil, &paramErr{k, err.Error()}
		}
		q.Set(name, s)
	}
	u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
	var rdr io.Reader
	if rt.GraphQL != "" {
		// The params are the query's variables.
		vars := body
		if vars == nil {
			vars = map[string]any{}
		}
		body = map[string]any{"query": rt.GraphQL, "variables": vars}
		method = http.MethodPost
	}
	if rt.Body || rt.GraphQL != "" {
		if body == nil {
			body = map[string]any{}
		}
		b, err := jsonx.Marshal(body)
		if err != nil {
			return nil, err
		}
		rdr = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rdr)
	if err != nil {
		return nil, err
	}
	if rt.Body || rt.GraphQL != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	addHeader(req, rt.Header)
	return req, nil
}

func addHeader(req *http.Request, h http.Header) {
	for k, v := range h {
		req.Header[k] = v
	}
}

// expandPath substitutes {param} and {+param} placeholders.
func expandPath(tmpl string, p tributary.Params) (string, map[string]bool, error) {
	used := map[string]bool{}
	var b strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			b.WriteString(tmpl)
			break
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			return "", nil, fmt.Errorf("bad path template %q", tmpl)
		}
		b.WriteString(tmpl[:i])
		name := tmpl[i+1 : i+j]
		reserved := strings.HasPrefix(name, "+")
		name = strings.TrimPrefix(name, "+")
		v, ok := p[name]
		if !ok {
			return "", nil, &paramErr{name, "is required"}
		}
		s, err := queryValue(v)
		if err != nil {
			return "", nil, &paramErr{name, err.Error()}
		}
		if s == "" {
			return "", nil, &paramErr{name, "must not be empty"}
		}
		if reserved {
			segs := strings.Split(strings.Trim(s, "/"), "/")
			for k, seg := range segs {
				if seg == "." || seg == ".." {
					return "", nil, &paramErr{name, "must not contain . or .. segments"}
				}
				segs[k] = url.PathEscape(seg)
			}
			b.WriteString(strings.Join(segs, "/"))
		} else {
			if s == "." || s == ".." {
				return "", nil, &paramErr{name, "must not be . or .."}
			}
			b.WriteString(url.PathEscape(s))
		}
		used[name] = true
		tmpl = tmpl[i+j+1:]
	}
	return b.String(), used, nil
}

// deepObject adds v to q under name in OpenAPI's deepObject style: an
// object's members as name[member] (nested objects one bracket deeper), an
// array's elements as name[], anything else as queryValue writes it.
func deepObject(q url.Values, name string, v any) error {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if err := deepObject(q, name+"["+k+"]", e); err != nil {
				return err
			}
		}
		return nil
	case []any:
		for _, e := range x {
			s, err := queryValue(e)
			if err != nil {
				return err
			}
			q.Add(name+"[]", s)
		}
		return nil
	}
	s, err := queryValue(v)
	if err != nil {
		return err
	}
	q.Set(name, s)
	return nil
}

func queryValue(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case int:
		return strconv.Itoa(x), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			s, err := queryValue(e)
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return strings.Join(parts, ","), nil
	case nil:
		return "", nil
	}
	b, err := jsonx.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("cannot be sent in a URL")
	}
	return string(b), nil
}
