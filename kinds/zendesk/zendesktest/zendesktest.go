// Package zendesktest is an in-process fake of the Zendesk Support API v2 and
// the Help Center articles API, for tests, examples and benchmarks that must
// run offline.
//
// The fake serves Zendesk's documented paths under Server.URL (a client whose
// base URL is Server.URL sends exactly what it would send to
// https://{subdomain}.zendesk.com), with the `.json` suffix optional on every
// path, Zendesk's envelopes (`tickets`/`ticket`, `users`/`user`, …), both of
// Zendesk's paging modes, its authentication, its error bodies and its
// rate-limit headers. Data is synthetic and deterministic: record i of every
// entity is a pure function of i, so WithTickets(1_000_000) costs no startup
// time and no memory.
//
// The URLs inside records (url, content_url, mapped_content_url, html_url)
// carry Zendesk's origin, https://{subdomain}.zendesk.com (Server.Origin),
// whatever port the fake listens on, so a record reads the same from every
// fake; the fake serves their paths under Server.URL, where a connector
// opened with Server.URL as its base URL takes them. The links a client
// follows to page (next_page, after_url, links.next, ...) are built from
// the request's host.
//
// # Paths
//
// Under /api/v2: tickets, tickets/{id}, tickets/{id}/comments,
// tickets/{id}/audits, ticket_audits, users, users/{id}, users/me,
// organizations, organizations/{id}, groups, groups/{id}, attachments/{id},
// ticket_metrics, ticket_metrics/{id}, ticket_fields, ticket_fields/{id},
// brands, brands/{id}, views, views/{id}, macros, macros/{id}, triggers,
// triggers/{id}, automations, automations/{id}, tags, satisfaction_ratings,
// satisfaction_ratings/{id}, group_memberships, organization_memberships,
// slas/policies, slas/policies/{id}, ticket_forms, ticket_forms/{id},
// help_center/articles, help_center/articles/{id},
// help_center/articles/{article_id}/attachments,
// help_center/articles/{article_id}/attachments/{id} and
// help_center/articles/attachments/{id} (the articles paths also with a locale
// segment, help_center/en-us/articles/…). Outside /api/v2: POST /oauth/tokens,
// the attachment download URLs /attachments/token/{token}/?name=… and
// /hc/article_attachments/{id}/{file_name}, which answer 302 to FilesURL.
//
// # Paging
//
// Every list pages in both of Zendesk's modes. Offset mode (the default):
// `page`, `per_page` (default 100, Help Center 30, at most 100; larger values
// are clamped as Zendesk does) → `next_page`, `previous_page` (absolute URLs
// built from the request host, other query parameters kept) and `count`; Help
// Center lists add `page`, `per_page`, `page_count` (and for articles
// `sort_by`, `sort_order`). A page past 100, or past 10,000 records, answers
// 400 `{"errors":[{"code":"InvalidPaginationDepth",…}]}` as Zendesk has done
// since 2023. Cursor mode is chosen by the presence of `page[size]` (1..100):
// `page[after]` / `page[before]` → `meta: {has_more, after_cursor,
// before_cursor}` and `links: {prev, next}` (no `count`). As on Zendesk,
// `links.next` is present on every non-empty page: stop on `has_more`.
// Cursors are opaque standard base64 (they may contain `+`, `/` and `=`, so
// they must be URL-encoded);
// a malformed cursor, a cursor from another list, both page[after] and
// page[before], or a page[size] outside 1..100 answer 400
// `{"error":"InvalidPaginationParameter","description":…}`.
//
// GET /api/v2/ticket_audits uses Zendesk's legacy cursor shape by default:
// `audits`, `before_cursor`, `before_url`, `after_cursor`, `after_url`, with
// request parameters `cursor` and `limit` (default and maximum 1000). The
// first page holds the most recent audits (in ascending created_at order);
// follow before_url to walk back in time until before_cursor is null. With
// page[size] it answers in the standard cursor shape instead, oldest first.
//
// # Data and ids
//
// Tickets have ids FirstTicketID (35436) onwards. User ids start at
// FirstUserID = 9_007_199_254_740_993 (2^53+1) and step by 2, and
// organization ids are 19-digit values from FirstOrganizationID =
// 9_100_000_000_000_000_001, also odd: none of them survives a round trip
// through float64, so clients must keep integers exact. Other ids are 12- to
// 14-digit values (see the ID functions). Each ticket has two to four
// comments; some comments carry one or two attachments (and, with
// include_inline_images=true, an inline image); each article has one or two
// attachments. Ticket id ForbiddenTicketID (403) answers 403 with Zendesk's
// object-valued `error`.
//
// # Authentication
//
// API requests need `Authorization: Basic base64("{email}/token:{api_token}")`
// (DefaultEmail, DefaultAPIToken) or `Bearer {access_token}`
// (DefaultAccessToken, then whatever POST /oauth/tokens issued). Anything else
// is 401 `{"error":"Couldn't authenticate you"}`. POST /oauth/tokens
// (form or JSON body) supports grant_type=refresh_token and
// client_credentials; refresh ROTATES: the old refresh token and the access
// token issued with it stop working, and reusing the old refresh token
// answers 400 `{"error":"invalid_grant",…}`. The download URLs and FilesURL
// never need credentials.
//
// # Incremental exports and changes
//
// GET /api/v2/incremental/tickets/cursor and /incremental/users/cursor are
// the cursor-based exports: start_time (Unix seconds) on the first request,
// then cursor = after_cursor; per_page up to 1000 (the default) →
// {tickets|users, after_url, after_cursor, before_url, before_cursor,
// end_of_stream}. /incremental/tickets, /incremental/users and
// /incremental/organizations are the time-based exports: start_time, next
// page at start_time = end_time → {…, count, end_time, next_page,
// end_of_stream}, end_of_stream when a page holds fewer than per_page
// records; records sharing the end_time second come again on the next page,
// as on Zendesk (a full page all in start_time's second takes the whole
// second and goes on from the next). Records come in order of last change
// (updated_at, tickets' generated_timestamp), then id, rendered as the lists
// render them, a record changed several times once at its latest place;
// changes less than a minute old (on the fake's clock) are left out, and a
// start_time less than a minute old answers 422 "Too recent start_time".
// GET /api/v2/incremental/ticket_events is the time-based ticket event
// export: one event (event_type "Audit") per audit, {id, ticket_id,
// timestamp, created_at, updater_id, via, event_type, child_events}, 1000
// a page (per_page lowers it), in the time-based envelope. The generated
// audits come one per generated comment at its created_at; later, every
// Create, Update and Delete of a ticket, comment added and comment
// redacted is an event at the fake's clock. A comment is a Comment child
// event: in full with include=comment_events (id, via, via_reference_id,
// type, author_id, body, html_body, public, attachments, audit_id,
// created_at, event_type, as Zendesk documents it: no plain_body or
// metadata), else only comment_present and comment_public.
// WithExportRateLimit turns on the exports' own limit (Zendesk: 10 requests
// a minute): 429 with Retry-After and {"error":"APIRateLimitExceeded",…}.
//
// The server implements fakeserver.Mutable for tickets, users,
// organizations and groups: Create, Update and Delete change records at
// the fake's clock (WithClock). A deleted ticket, user or organization
// leaves lists and gets (404) and shows in the exports with status
// "deleted", active false, or deleted_at set; a deleted group stays in
// the groups list with "deleted": true unless exclude_deleted=true.
// Generated users are all active (on Zendesk, active false means deleted).
//
// ticket_comments are mutable too, as Zendesk's comments are: Create (or
// AddComment, to choose the ticket) adds a comment to a live ticket,
// Update redacts one (its text becomes ▇ characters), and both make the
// ticket changed now, so that it shows in the ticket exports; Delete
// fails, since Zendesk comments go only with their ticket (a deleted
// ticket's comments list answers 404).
//
// # Faults
//
// WithFaults injects latency, Zendesk's 429 (text/plain "Number of allowed
// API requests per minute exceeded" with Retry-After and
// X-Rate-Limit-Remaining: 0), 503 with a JSON body, and connections cut
// mid-body. Every API response carries X-Rate-Limit and
// X-Rate-Limit-Remaining; lists add ratelimit-limit, ratelimit-remaining
// and ratelimit-reset (the seconds to the window's end), and List Tickets
// zendesk-ratelimit-tickets-index ("total=100; remaining=99; resets=41"),
// counted down when WithAPIRateLimit and WithTicketsIndexRateLimit
// enforce the limits. WithFileCutEvery cuts file downloads so that
// clients must resume with Range.
//
// OAuth consent: GET /oauth/authorizations/new is a consent page (HTML, Approve and Deny buttons
// in a form that POSTs decision=approve or decision=deny to the same URL)
// that redirects to the exact redirect_uri with a code, or with
// error=access_denied; POST /oauth/tokens with grant_type=authorization_code
// exchanges the code once, within fakeserver.DefaultCodeTTL on the fake's
// clock, for the same redirect_uri, with the client of WithOAuth; PKCE S256 is honoured; the answer carries a new access and refresh token pair of this account (one fake is one subdomain).
// The package connect runs the whole flow against it (connect.Config.BaseURL).
package zendesktest

import (
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// Credentials the fake accepts unless options say otherwise. They are
// placeholders, never real secrets.
const (
	DefaultSubdomain    = "acme"
	DefaultEmail        = "agent@example.com"
	DefaultAPIToken     = "TEST_TOKEN"
	DefaultAccessToken  = "TEST_ACCESS_TOKEN"
	DefaultRefreshToken = "TEST_REFRESH_TOKEN"
	DefaultClientID     = "tributary_test_client"
	DefaultClientSecret = "TEST_CLIENT_SECRET"
)

// Default volumes and sizes.
const (
	DefaultTickets        = 250
	DefaultUsers          = 50
	DefaultOrganizations  = 20
	DefaultArticles       = 40
	DefaultAttachmentSize = 4096
	// DefaultRateLimit is the per-minute limit announced in X-Rate-Limit.
	DefaultRateLimit = 700
)

// Faults configures injected faults; see fakeserver.Faults.
type Faults = fakeserver.Faults

// Server is a running fake of Zendesk's API. Close it when done.
type Server struct {
	*fakeserver.Server

	cfg   config
	d     *data
	oauth *oauthState

	rlLimit, rlRemaining string
	bufs                 sync.Pool

	clock   *fakeserver.Clock
	mutMu   sync.Mutex         // serializes Create, Update and Delete
	export  *fakeserver.Window // the exports' own limit
	account *fakeserver.Window // the account's limit on every API request
	// ticketsIndex is List Tickets' own limit, when enforced; it allows
	// ticketsIndexLimit requests a window.
	ticketsIndex      *fakeserver.Window
	ticketsIndexLimit int
}

type config struct {
	faults Faults

	tickets, users, orgs, articles int

	subdomain, email, apiToken                        string
	accessToken, refreshToken, clientID, clientSecret string
	tokenTTL                                          time.Duration

	attSize, cutEvery int
	rateLimit         int

	clock       *fakeserver.Clock
	exportLimit int
	exportPer   time.Duration
	apiPer      time.Duration
	indexLimit  int
	indexPer    time.Duration
}

// Option configures a Server.
type Option func(*config)

// WithFaults injects faults into API responses (not into FilesURL; see
// WithFileCutEvery for that).
func WithFaults(f Faults) Option { return func(c *config) { c.faults = f } }

// WithTickets sets the number of tickets (default 250). Comments, audits,
// ticket metrics and ticket attachments scale with it.
func WithTickets(n int) Option { return func(c *config) { c.tickets = max(n, 0) } }

// WithUsers sets the number of users (default 50). Users with index%10 == 0
// are admins, 1..3 agents, the rest end-users.
func WithUsers(n int) Option { return func(c *config) { c.users = max(n, 0) } }

// WithOrganizations sets the number of organizations (default 20).
func WithOrganizations(n int) Option { return func(c *config) { c.orgs = max(n, 0) } }

// WithArticles sets the number of Help Center articles (default 40).
func WithArticles(n int) Option { return func(c *config) { c.articles = max(n, 0) } }

// WithSubdomain sets the account subdomain used in generated data (brand
// subdomains, support addresses, the origin of record URLs: see Origin).
// Default DefaultSubdomain.
func WithSubdomain(s string) Option { return func(c *config) { c.subdomain = s } }

// WithCredentials sets the email and API token accepted as
// Basic base64("{email}/token:{apiToken}").
func WithCredentials(email, apiToken string) Option {
	return func(c *config) { c.email, c.apiToken = email, apiToken }
}

// WithOAuth sets the initial OAuth access and refresh tokens and the OAuth
// client the token endpoint accepts.
func WithOAuth(accessToken, refreshToken, clientID, clientSecret string) Option {
	return func(c *config) {
		c.accessToken, c.refreshToken = accessToken, refreshToken
		c.clientID, c.clientSecret = clientID, clientSecret
	}
}

// WithAccessTokenTTL makes access tokens (the initial one and every one
// POST /oauth/tokens issues) expire after d. Zero, the default, means they
// live until rotated or ExpireAccessTokens is called.
func WithAccessTokenTTL(d time.Duration) Option { return func(c *config) { c.tokenTTL = d } }

// WithAttachmentSize sets the size in bytes of every attachment file
// (default 4096). Thumbnails are at most 1024 bytes.
func WithAttachmentSize(n int) Option { return func(c *config) { c.attSize = max(n, 0) } }

// WithFileCutEvery makes FilesURL drop the connection after n bytes of every
// file response, so that clients must resume with ranged requests.
func WithFileCutEvery(n int) Option { return func(c *config) { c.cutEvery = n } }

// WithRateLimit sets the per-minute limit announced in X-Rate-Limit
// (default 700). It does not throttle (use WithAPIRateLimit, or WithFaults
// for 429s).
func WithRateLimit(n int) Option { return func(c *config) { c.rateLimit = max(n, 1) } }

// WithAPIRateLimit enforces the account's limit, as Zendesk does on its
// plans (700 a minute on Enterprise): n API requests per window of length
// per on the fake's clock (WithClock), announced in X-Rate-Limit and
// counted down in X-Rate-Limit-Remaining; the request after the n-th in a
// window gets Zendesk's 429, text/plain with Retry-After in seconds.
func WithAPIRateLimit(n int, per time.Duration) Option {
	return func(c *config) { c.rateLimit, c.apiPer = max(n, 1), per }
}

// WithClock sets the clock that stamps the records Create, Update and
// Delete change and that the incremental exports read as "now" (their
// minimum start_time age, the minute they leave out, the export rate
// limit's window). By default the clock starts at the current time,
// truncated to the second (or an hour after the newest generated record,
// when that is later), and moves only when the test advances it. A clock
// given here must start after every generated record's updated_at.
func WithClock(c *fakeserver.Clock) Option { return func(cfg *config) { cfg.clock = c } }

// WithExportRateLimit makes the incremental export endpoints answer 429
// after n requests in a window of length per on the fake's clock, as
// Zendesk limits them (10 per minute; 30 with the High Volume add-on):
// Retry-After with the seconds left in the window and the JSON body
// {"error":"APIRateLimitExceeded",...}. Zero n (the default) turns it off.
func WithExportRateLimit(n int, per time.Duration) Option {
	return func(c *config) { c.exportLimit, c.exportPer = max(n, 0), per }
}

// DefaultTicketsIndexLimit is List Tickets' own limit of requests a
// minute that zendesk-ratelimit-tickets-index announces.
const DefaultTicketsIndexLimit = 100

// WithTicketsIndexRateLimit enforces List Tickets' own limit (Zendesk:
// DefaultTicketsIndexLimit a minute): n requests of GET /api/v2/tickets
// per window of length per on the fake's clock, counted down in
// zendesk-ratelimit-tickets-index; the request after the n-th gets
// Zendesk's 429. Without it the header is announced with requests to
// spare.
func WithTicketsIndexRateLimit(n int, per time.Duration) Option {
	return func(c *config) { c.indexLimit, c.indexPer = max(n, 1), per }
}

// New starts a fake Zendesk on loopback. Close it when done.
func New(opts ...Option) *Server {
	cfg := config{
		tickets:      DefaultTickets,
		users:        DefaultUsers,
		orgs:         DefaultOrganizations,
		articles:     DefaultArticles,
		subdomain:    DefaultSubdomain,
		email:        DefaultEmail,
		apiToken:     DefaultAPIToken,
		accessToken:  DefaultAccessToken,
		refreshToken: DefaultRefreshToken,
		clientID:     DefaultClientID,
		clientSecret: DefaultClientSecret,
		attSize:      DefaultAttachmentSize,
		rateLimit:    DefaultRateLimit,
	}
	for _, o := range opts {
		o(&cfg)
	}
	s := &Server{
		cfg:         cfg,
		d:           newData(cfg),
		oauth:       newOAuth(cfg),
		rlLimit:     strconv.Itoa(cfg.rateLimit),
		rlRemaining: strconv.Itoa(cfg.rateLimit - 1),
	}
	s.clock = cfg.clock
	if s.clock == nil {
		s.clock = defaultClock(s.d)
	}
	s.export = &fakeserver.Window{Limit: cfg.exportLimit, Per: cfg.exportPer}
	if cfg.apiPer > 0 {
		s.account = &fakeserver.Window{Limit: cfg.rateLimit, Per: cfg.apiPer}
	}
	s.ticketsIndexLimit = DefaultTicketsIndexLimit
	if cfg.indexPer > 0 {
		s.ticketsIndexLimit = cfg.indexLimit
		s.ticketsIndex = &fakeserver.Window{Limit: cfg.indexLimit, Per: cfg.indexPer}
	}
	s.bufs.New = func() any { b := make([]byte, 0, 64<<10); return &b }
	authz := fakeserver.NewOAuthServer(fakeserver.OAuthConfig{
		Vendor: "Zendesk (" + cfg.subdomain + ")", AuthorizePath: "/oauth/authorizations/new", TokenPath: "/oauth/tokens",
		ClientID: cfg.clientID, ClientSecret: cfg.clientSecret, PKCE: true, Now: s.clock.Now,
		Issue: s.oauth.exchange,
	})
	s.Server = fakeserver.New(authz.Wrap(http.HandlerFunc(s.serveAPI)), http.HandlerFunc(s.serveFiles), cfg.faults,
		fakeserver.Vendor{RateLimited: s.rateLimited, ServerError: s.serverError})
	return s
}

// Origin returns https://{subdomain}.zendesk.com, the origin of the URLs
// inside records (url, content_url, ...), whatever port the fake listens
// on. The fake serves their paths under URL.
func (s *Server) Origin() string { return "https://" + s.cfg.subdomain + ".zendesk.com" }

// AccessToken returns the OAuth access token currently valid (the initial one
// until a refresh rotates it).
func (s *Server) AccessToken() string { return s.oauth.current(false) }

// RefreshToken returns the OAuth refresh token currently valid.
func (s *Server) RefreshToken() string { return s.oauth.current(true) }

// ExpireAccessTokens makes every access token issued so far invalid, as if
// they had expired; refresh tokens stay valid.
func (s *Server) ExpireAccessTokens() { s.oauth.expireAll() }

// Total returns how many records the unfiltered list of a catalogue entity
// holds ("tickets", "users", "organizations", "groups", "ticket_audits",
// "ticket_metrics", "ticket_fields", "brands", "views", "macros",
// "triggers", "automations", "tags", "satisfaction_ratings",
// "group_memberships", "organization_memberships", "sla_policies",
// "ticket_forms", "articles"), or -1 for an unknown name.
func (s *Server) Total(entity string) int {
	if entity == "ticket_audits" {
		return s.d.totalAudits()
	}
	if l, ok := s.d.collections[entity]; ok {
		return l.n(s.d)
	}
	return -1
}

// Error bodies, as Zendesk sends them.
const (
	bodyUnauthorized    = `{"error":"Couldn't authenticate you"}`
	bodyNotFound        = `{"error":"RecordNotFound","description":"Not found"}`
	bodyInvalidEndpoint = `{"error":"InvalidEndpoint","description":"Not found"}`
	bodyForbidden       = `{"error":{"title":"Forbidden","message":"You do not have access to this page. Please contact the account owner of this help desk for further help."}}`
	bodyDepth           = `{"errors":[{"code":"InvalidPaginationDepth","title":"Pagination requests using Offset Pagination are limited to page 100 or up to 10000 records (page * per_page)","detail":"Offset pagination is limited in depth. Switch to cursor pagination (page[size], page[after]) to list more records."}]}`
	bodyUnavailable     = `{"error":"ServiceUnavailable","description":"The server is temporarily unavailable, please try again later"}`
	bodyMethod          = `{"error":"MethodNotAllowed","description":"This fake serves GET requests only"}`
	rateLimitText       = "Number of allowed API requests per minute exceeded"
)

func writeBody(w http.ResponseWriter, status int, body string) {
	fakeserver.WriteJSON(w, status, []byte(body))
}

// invalidParam answers 400 InvalidPaginationParameter with description desc.
func invalidParam(w http.ResponseWriter, desc string) {
	b := append([]byte(`{"error":"InvalidPaginationParameter","description":`), appendString(nil, desc)...)
	fakeserver.WriteJSON(w, http.StatusBadRequest, append(b, '}'))
}

// invalidValue answers 400 with Zendesk's details map naming the parameter.
func invalidValue(w http.ResponseWriter, param, desc string) {
	b := []byte(`{"error":"InvalidValue","description":"Invalid parameter value","details":{`)
	b = appendString(b, param)
	b = append(b, `:[{"description":`...)
	b = appendString(b, desc)
	b = append(b, `,"error":"InvalidValue"}]}}`...)
	fakeserver.WriteJSON(w, http.StatusBadRequest, b)
}

func (s *Server) rateLimited(w http.ResponseWriter, _ *http.Request, retryAfter time.Duration) {
	h := w.Header()
	h.Set("Retry-After", strconv.Itoa(int((retryAfter+time.Second-1)/time.Second)))
	h.Set("X-Rate-Limit", s.rlLimit)
	h.Set("X-Rate-Limit-Remaining", "0")
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(rateLimitText)))
	w.WriteHeader(http.StatusTooManyRequests)
	_, _ = w.Write([]byte(rateLimitText))
}

// secondsUntil is the whole seconds from now to t, rounded up, as Zendesk
// says a reset.
func secondsUntil(now, t time.Time) string {
	return strconv.Itoa(int((t.Sub(now) + time.Second - 1) / time.Second))
}

func (s *Server) serverError(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("X-Rate-Limit", s.rlLimit)
	w.Header().Set("X-Rate-Limit-Remaining", s.rlRemaining)
	writeBody(w, http.StatusServiceUnavailable, bodyUnavailable)
}

func (s *Server) unauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", `Basic realm="Web Password"`)
	writeBody(w, http.StatusUnauthorized, bodyUnauthorized)
}

// authorized reports whether r carries credentials the fake accepts.
func (s *Server) authorized(r *http.Request) bool {
	a := r.Header.Get("Authorization")
	scheme, cred, ok := strings.Cut(a, " ")
	if !ok {
		return false
	}
	cred = strings.TrimSpace(cred)
	switch {
	case strings.EqualFold(scheme, "Basic"):
		raw, err := base64.StdEncoding.DecodeString(cred)
		if err != nil {
			return false
		}
		user, pass, ok := strings.Cut(string(raw), ":")
		if !ok {
			return false
		}
		email, isToken := strings.CutSuffix(user, "/token")
		return isToken && strings.EqualFold(email, s.cfg.email) &&
			subtle.ConstantTimeCompare([]byte(pass), []byte(s.cfg.apiToken)) == 1
	case strings.EqualFold(scheme, "Bearer"):
		return s.oauth.valid(cred)
	}
	return false
}

// call is one API request being served.
type call struct {
	w    http.ResponseWriter
	r    *http.Request
	base string // scheme://host the client used: the links it follows (next pages)
	// origin is https://{subdomain}.zendesk.com: the URLs inside records
	// (url, content_url, ...), the same whatever port the fake listens on,
	// as the client would read them from Zendesk. A connector opened on the
	// fake's URL reaches a content_url there by its base URL.
	origin string
	q      map[string][]string
	// remaining and reset are the account's budget as this answer
	// announces it: the requests left in the window, and the seconds to
	// its end. ticketsIndex is the List Tickets endpoint's, as
	// zendesk-ratelimit-tickets-index says it ("" elsewhere).
	remaining, reset, ticketsIndex string
}

func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Rate-Limit", s.rlLimit)
	h.Set("X-Rate-Limit-Remaining", s.rlRemaining)
	now := s.clock.Now()
	remaining, reset := s.rlRemaining, now.Truncate(time.Minute).Add(time.Minute)
	if s.account != nil {
		left, end, ok := s.account.Take(now)
		if !ok {
			s.rateLimited(w, r, end.Sub(now))
			return
		}
		remaining, reset = strconv.Itoa(left), end
		h.Set("X-Rate-Limit-Remaining", remaining)
	}

	p := r.URL.Path
	switch {
	case p == "/oauth/tokens" || p == "/oauth/tokens.json":
		s.serveToken(w, r)
		return
	case strings.HasPrefix(p, "/attachments/token/"):
		s.serveAttachmentToken(w, r)
		return
	case strings.HasPrefix(p, "/hc/article_attachments/"):
		s.serveArticleAttachmentFile(w, r)
		return
	}
	rest, ok := strings.CutPrefix(p, "/api/v2/")
	if !ok {
		writeBody(w, http.StatusNotFound, bodyInvalidEndpoint)
		return
	}
	if !s.authorized(r) {
		s.unauthorized(w)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		writeBody(w, http.StatusMethodNotAllowed, bodyMethod)
		return
	}
	rest = strings.TrimSuffix(rest, "/")
	rest = strings.TrimSuffix(rest, ".json")
	segs := strings.Split(rest, "/")
	c := &call{w: w, r: r, base: fakeserver.BaseURL(r), origin: s.Origin(), q: r.URL.Query(),
		remaining: remaining, reset: secondsUntil(now, reset)}
	if len(segs) == 1 && segs[0] == "tickets" {
		// List Tickets has a budget of its own.
		left, end := s.ticketsIndexLimit-1, now.Truncate(time.Minute).Add(time.Minute)
		if s.ticketsIndex != nil {
			var ok bool
			if left, end, ok = s.ticketsIndex.Take(now); !ok {
				s.rateLimited(w, r, end.Sub(now))
				return
			}
		}
		c.ticketsIndex = fmt.Sprintf("total=%d; remaining=%d; resets=%s", s.ticketsIndexLimit, left, secondsUntil(now, end))
	}
	if !s.route(c, segs) {
		writeBody(w, http.StatusNotFound, bodyInvalidEndpoint)
	}
}

// route dispatches an authenticated GET; false means no such endpoint.
func (s *Server) route(c *call, segs []string) bool {
	d := s.d
	switch segs[0] {
	case "tickets":
		switch len(segs) {
		case 1:
			s.listTickets(c)
		case 2:
			s.getTicket(c, segs[1])
		case 3:
			switch segs[2] {
			case "comments":
				s.listComments(c, segs[1])
			case "audits":
				s.listTicketAudits(c, segs[1])
			default:
				return false
			}
		default:
			return false
		}
		return true
	case "users":
		switch {
		case len(segs) == 1:
			s.listUsers(c)
		case len(segs) == 2 && segs[1] == "me":
			s.getOne(c, "users", "0", true)
		case len(segs) == 2:
			s.getOne(c, "users", segs[1], false)
		default:
			return false
		}
		return true
	case "attachments":
		if len(segs) != 2 {
			return false
		}
		s.getAttachment(c, segs[1])
		return true
	case "incremental":
		return s.serveExport(c, segs)
	case "ticket_audits":
		if len(segs) != 1 {
			return false
		}
		s.listAllAudits(c)
		return true
	case "slas":
		if len(segs) < 2 || segs[1] != "policies" {
			return false
		}
		segs = segs[1:]
		segs[0] = "sla_policies"
	case "help_center":
		return s.routeHelpCenter(c, segs[1:])
	}
	if _, ok := d.collections[segs[0]]; !ok {
		return false
	}
	switch len(segs) {
	case 1:
		s.listCollection(c, segs[0])
	case 2:
		if !d.collections[segs[0]].hasGet() {
			return false
		}
		s.getOne(c, segs[0], segs[1], false)
	default:
		return false
	}
	return true
}

func (s *Server) routeHelpCenter(c *call, segs []string) bool {
	// Optional locale: help_center/{locale}/articles/…
	if len(segs) >= 2 && segs[0] != "articles" && segs[1] == "articles" {
		segs = segs[1:]
	}
	if len(segs) == 0 || segs[0] != "articles" {
		return false
	}
	switch len(segs) {
	case 1:
		s.listArticles(c)
	case 2:
		s.getOne(c, "articles", segs[1], false)
	case 3:
		if segs[1] == "attachments" {
			s.getArticleAttachment(c, "", segs[2])
			return true
		}
		if segs[2] != "attachments" {
			return false
		}
		s.listArticleAttachments(c, segs[1])
	case 4:
		if segs[2] != "attachments" {
			return false
		}
		s.getArticleAttachment(c, segs[1], segs[3])
	default:
		return false
	}
	return true
}

func (s *Server) getBuf() *[]byte { return s.bufs.Get().(*[]byte) }

func (s *Server) putBuf(p *[]byte, b []byte) {
	if cap(b) > 8<<20 {
		return
	}
	*p = b[:0]
	s.bufs.Put(p)
}

// writeOne answers {"<key>":{record}}.
func (s *Server) writeOne(c *call, key string, rec func(w *jw)) {
	p := s.getBuf()
	w := jw{b: append((*p)[:0], '{')}
	w.key(key)
	w.comma = false
	rec(&w)
	w.b = append(w.b, '}')
	fakeserver.WriteJSON(c.w, http.StatusOK, w.b)
	s.putBuf(p, w.b)
}

// parseID parses a path id; ok is false for anything that is not a positive
// integer.
func parseID(s string) (int64, bool) {
	id, err := strconv.ParseInt(s, 10, 64)
	return id, err == nil && id > 0
}
