package hubspottest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// Credentials the fake accepts, by default the Default... constants.
const (
	// DefaultPrivateAppToken is the private-app (static) token accepted as
	// "Authorization: Bearer TEST_PRIVATE_APP_TOKEN".
	DefaultPrivateAppToken = "TEST_PRIVATE_APP_TOKEN"
	// DefaultAccessToken is an OAuth access token accepted without going
	// through the token endpoint; it never expires.
	DefaultAccessToken = "TEST_ACCESS_TOKEN"
	// DefaultClientID, DefaultClientSecret and DefaultRefreshToken are what
	// the OAuth token endpoint accepts for grant_type=refresh_token.
	DefaultClientID     = "TEST_CLIENT_ID"
	DefaultClientSecret = "TEST_CLIENT_SECRET"
	DefaultRefreshToken = "TEST_REFRESH_TOKEN"
	// DefaultTokenLifetime is the expires_in of issued access tokens (HubSpot:
	// 30 minutes).
	DefaultTokenLifetime = 30 * time.Minute
)

// Rate-limit policies a 429 can name (the policyName of HubSpot's body).
const (
	// PolicyTenSecondly is the burst limit: 190 requests per 10 s.
	PolicyTenSecondly = "TEN_SECONDLY_ROLLING"
	// PolicyDaily is the daily request quota.
	PolicyDaily = "DAILY"
)

// Limits the fake enforces like HubSpot.
const (
	// MaxListLimit is the largest limit of the objects list endpoints.
	MaxListLimit = 100
	// MaxHistoryLimit is the page size when propertiesWithHistory is asked
	// for; larger limits are reduced to it.
	MaxHistoryLimit = 50
	// MaxSearchLimit is the largest limit of the search endpoints.
	MaxSearchLimit = 200
	// SearchResultCap is how deep a search can page: after ≥ 10,000 is a 400.
	SearchResultCap = 10_000
	// MaxOwnersLimit is the largest limit of the owners list.
	MaxOwnersLimit = 500
	// RateLimitMax and DailyLimit are the numbers announced in the
	// X-HubSpot-RateLimit-* headers.
	RateLimitMax = 190
	DailyLimit   = 1_000_000
)

// The date-based API version served besides v3.
const dateVersion = "2026-03"

// Credentials are what the fake accepts. An empty field accepts nothing.
type Credentials struct {
	// PrivateAppToken is a private-app static token.
	PrivateAppToken string
	// AccessToken is an OAuth access token that never expires.
	AccessToken string
	// ClientID, ClientSecret and RefreshToken are checked by the token
	// endpoint (POST /oauth/v1/token and /oauth/2026-03/token).
	ClientID     string
	ClientSecret string
	RefreshToken string
}

// DefaultCredentials returns the credentials the fake accepts when
// WithCredentials is not given.
func DefaultCredentials() Credentials {
	return Credentials{
		PrivateAppToken: DefaultPrivateAppToken,
		AccessToken:     DefaultAccessToken,
		ClientID:        DefaultClientID,
		ClientSecret:    DefaultClientSecret,
		RefreshToken:    DefaultRefreshToken,
	}
}

// Faults configures injected faults; see fakeserver.Faults.
type Faults = fakeserver.Faults

// Option configures a Server.
type Option func(*config)

type config struct {
	counts   map[string]int
	owners   int
	faults   Faults
	creds    Credentials
	tokenTTL time.Duration
	policy   string
	grain    time.Duration
	clock    *fakeserver.Clock
	limit    *fakeserver.Window
}

// WithRateLimit enforces the account's burst limit of private apps
// (documented: 100 requests per 10 seconds on Free and Starter, 190 on
// Professional and Enterprise): n API requests per window of length per on
// the fake's clock (WithClock; a fakeserver.NewRealClock for a client that
// paces itself), the request after the n-th in a window answered with
// HubSpot's 429 (policyName TEN_SECONDLY, or the search endpoints'
// SECONDLY). Zero n (the default) enforces nothing.
func WithRateLimit(n int, per time.Duration) Option {
	return func(c *config) { c.limit = &fakeserver.Window{Limit: max(n, 0), Per: per} }
}

// WithFaults injects faults (latency, 429, 5xx, cut connections) into the
// API origin; 429s carry HubSpot's RATE_LIMIT body.
func WithFaults(f Faults) Option { return func(c *config) { c.faults = f } }

// WithContacts sets how many contacts the account holds (default 50).
func WithContacts(n int) Option { return func(c *config) { c.counts["contacts"] = max(n, 0) } }

// WithCompanies sets how many companies the account holds (default 20).
func WithCompanies(n int) Option { return func(c *config) { c.counts["companies"] = max(n, 0) } }

// WithDeals sets how many deals the account holds (default 30).
func WithDeals(n int) Option { return func(c *config) { c.counts["deals"] = max(n, 0) } }

// WithTickets sets how many tickets the account holds (default 25).
func WithTickets(n int) Option { return func(c *config) { c.counts["tickets"] = max(n, 0) } }

// WithEngagements sets how many records each engagement type (notes,
// calls, emails, meetings, tasks) holds (default 15).
func WithEngagements(n int) Option {
	return func(c *config) {
		for _, t := range []string{"notes", "calls", "emails", "meetings", "tasks"} {
			c.counts[t] = max(n, 0)
		}
	}
}

// WithCustomObjects sets how many records the custom object type (cars)
// holds (default 12).
func WithCustomObjects(n int) Option {
	return func(c *config) { c.counts[CustomObjectFullyQualifiedName] = max(n, 0) }
}

// WithOwners sets how many active owners the account has (default 8).
func WithOwners(n int) Option { return func(c *config) { c.owners = max(n, 0) } }

// WithCredentials replaces the accepted credentials (see DefaultCredentials).
func WithCredentials(cr Credentials) Option { return func(c *config) { c.creds = cr } }

// WithTokenLifetime sets the lifetime (expires_in) of access tokens issued
// by the token endpoint; after it they get HubSpot's 401
// EXPIRED_AUTHENTICATION.
func WithTokenLifetime(d time.Duration) Option { return func(c *config) { c.tokenTTL = d } }

// WithModifiedGranularity rounds every record's modification time
// (updatedAt, hs_lastmodifieddate and the contacts' lastmodifieddate) up to
// a multiple of d, so that many records share one: the situation a walk
// that pages by modification date must handle at its boundaries. Zero (the
// default) keeps millisecond times, which are almost always distinct.
func WithModifiedGranularity(d time.Duration) Option {
	return func(c *config) { c.grain = max(d, 0) }
}

// WithRateLimitPolicy chooses which limit injected 429s on non-search
// endpoints report: PolicyTenSecondly (default) or PolicyDaily. Search
// endpoints always report their own per-second limit.
func WithRateLimitPolicy(policy string) Option { return func(c *config) { c.policy = policy } }

// Server is a running fake of HubSpot's CRM v3 API (objects, search,
// owners, pipelines, schemas) and its OAuth token endpoint.
type Server struct {
	*fakeserver.Server

	data     *dataset
	creds    Credentials
	tokenTTL time.Duration
	policy   string
	clock    *fakeserver.Clock
	oauth    *fakeserver.OAuthServer

	mu     sync.Mutex
	seq    uint64               // requests answered, for correlation ids and rate-limit headers
	minted map[string]time.Time // issued access token -> expiry
	nToken int
}

// New starts a fake on loopback. Close it when done.
func New(opts ...Option) *Server {
	c := &config{
		counts: map[string]int{
			"contacts": DefaultContacts, "companies": DefaultCompanies, "deals": DefaultDeals, "tickets": DefaultTickets,
			"notes": DefaultEngagements, "calls": DefaultEngagements, "emails": DefaultEngagements,
			"meetings": DefaultEngagements, "tasks": DefaultEngagements,
			CustomObjectFullyQualifiedName: DefaultCustomObjects,
		},
		owners:   DefaultOwners,
		creds:    DefaultCredentials(),
		tokenTTL: DefaultTokenLifetime,
		policy:   PolicyTenSecondly,
	}
	for _, o := range opts {
		o(c)
	}
	if c.clock == nil {
		c.clock = fakeserver.NewClock(time.Now().UTC().Truncate(time.Second))
	}
	s := &Server{
		clock:    c.clock,
		data:     newDataset(c.counts, c.owners, c.grain),
		creds:    c.creds,
		tokenTTL: c.tokenTTL,
		policy:   c.policy,
		minted:   map[string]time.Time{},
	}
	var api http.Handler = http.HandlerFunc(s.serveAPI)
	if c.limit != nil && c.limit.Limit > 0 {
		api = fakeserver.Enforce(c.limit, s.clock.Now, s.rateLimited, api)
	}
	s.oauth = fakeserver.NewOAuthServer(fakeserver.OAuthConfig{
		Vendor: "HubSpot", AuthorizePath: "/oauth/authorize", TokenPath: "/oauth/v1/token",
		ClientID: c.creds.ClientID, ClientSecret: c.creds.ClientSecret, Now: s.clock.Now,
		Issue: func(*http.Request, fakeserver.Grant) map[string]any { return s.mint() },
	})
	s.Server = fakeserver.New(s.oauth.Wrap(api), nil, c.faults, fakeserver.Vendor{
		RateLimited: s.rateLimited,
		ServerError: s.serverError,
	})
	return s
}

// ObjectID returns the id of record i (0-based) of an object type ("contacts",
// "0-1", "cars", ...), as the fake serves it; "" for an unknown type.
func (s *Server) ObjectID(objectType string, i int) string {
	t := s.data.resolve(objectType)
	if t == nil {
		return ""
	}
	return ref{t: t, i: i}.id()
}

// Count returns how many live records an object type holds (created ones
// included, deleted ones not); 0 for an unknown type.
func (s *Server) Count(objectType string) int {
	t := s.data.resolve(objectType)
	if t == nil {
		return 0
	}
	return s.data.total(t) - len(s.data.deletedRefs(t))
}

// OwnerID returns the id of owner i (0-based).
func (s *Server) OwnerID(i int) string { return ownerID(i) }

// ExpireAccessTokens makes every access token the token endpoint has issued
// so far expired, so that the next call with one gets a 401
// EXPIRED_AUTHENTICATION. The static access token is not affected.
func (s *Server) ExpireAccessTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	past := time.Now().Add(-time.Minute)
	for t := range s.minted {
		s.minted[t] = past
	}
}

// call is one API request being answered.
type call struct {
	s    *Server
	w    http.ResponseWriter
	r    *http.Request
	corr string
}

func (s *Server) next() (uint64, string) {
	s.mu.Lock()
	s.seq++
	n := s.seq
	s.mu.Unlock()
	return n, correlationID(n)
}

func correlationID(n uint64) string {
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", 0x5f1c2e7a, n>>48&0xffff, n>>36&0xfff, n>>24&0xfff, n&0xffffffffffff)
}

// marshal encodes v as HubSpot does, without escaping <, > and &.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func (c *call) json(status int, v any) {
	b, err := marshal(v)
	if err != nil {
		c.fail(http.StatusInternalServerError, "", "internal error", nil)
		return
	}
	c.w.Header().Set("X-HubSpot-Correlation-Id", c.corr)
	fakeserver.WriteJSON(c.w, status, b)
}

// hubspotError is HubSpot's error body.
type hubspotError struct {
	Status        string              `json:"status"`
	Message       string              `json:"message"`
	CorrelationID string              `json:"correlationId"`
	Category      string              `json:"category,omitempty"`
	Context       map[string][]string `json:"context,omitempty"`
	Errors        []errorDetail       `json:"errors,omitempty"`
}

type errorDetail struct {
	Message string `json:"message"`
	In      string `json:"in,omitempty"`
	Code    string `json:"code,omitempty"`
}

func (c *call) fail(status int, category, message string, ctx map[string][]string, details ...errorDetail) {
	b, _ := marshal(hubspotError{Status: "error", Message: message, CorrelationID: c.corr, Category: category, Context: ctx, Errors: details})
	c.w.Header().Set("X-HubSpot-Correlation-Id", c.corr)
	fakeserver.WriteJSON(c.w, status, b)
}

func (c *call) invalid(message string, details ...errorDetail) {
	c.fail(http.StatusBadRequest, "VALIDATION_ERROR", message, nil, details...)
}

func (c *call) notFound(message string, ctx map[string][]string) {
	c.fail(http.StatusNotFound, "OBJECT_NOT_FOUND", message, ctx)
}

// rateHeaders sets the X-HubSpot-RateLimit-* headers HubSpot sends on every
// non-search response.
func rateHeaders(h http.Header, n uint64, exhausted bool) {
	remaining := RateLimitMax - 1 - int(n%RateLimitMax)
	if exhausted {
		remaining = 0
	}
	h.Set("X-HubSpot-RateLimit-Daily", strconv.Itoa(DailyLimit))
	h.Set("X-HubSpot-RateLimit-Daily-Remaining", strconv.Itoa(max(DailyLimit-int(n), 0)))
	h.Set("X-HubSpot-RateLimit-Interval-Milliseconds", "10000")
	h.Set("X-HubSpot-RateLimit-Max", strconv.Itoa(RateLimitMax))
	h.Set("X-HubSpot-RateLimit-Remaining", strconv.Itoa(remaining))
}

func isSearch(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasSuffix(strings.TrimRight(r.URL.Path, "/"), "/search")
}

// rateLimited writes HubSpot's 429. Search endpoints have their own
// per-second limit and send no rate-limit headers.
func (s *Server) rateLimited(w http.ResponseWriter, r *http.Request, retryAfter time.Duration) {
	n, corr := s.next()
	body := map[string]string{"status": "error", "errorType": "RATE_LIMIT", "correlationId": corr}
	switch {
	case isSearch(r):
		body["message"] = "You have reached your secondly limit."
		body["policyName"] = "SECONDLY"
	case s.policy == PolicyDaily:
		rateHeaders(w.Header(), n, true)
		w.Header().Set("X-HubSpot-RateLimit-Daily-Remaining", "0")
		body["message"] = "You have reached your daily limit."
		body["policyName"] = PolicyDaily
		body["requestId"] = corr
	default:
		rateHeaders(w.Header(), n, true)
		body["message"] = "You have reached your ten_secondly_rolling limit."
		body["policyName"] = PolicyTenSecondly
		body["groupName"] = fmt.Sprintf("publicapi:private_app-api-calls-ten-secondly:1000001:%d", PortalID)
	}
	// HubSpot does not promise Retry-After; the fake sends it so that
	// Faults.RetryAfter reaches clients.
	w.Header().Set("Retry-After", strconv.Itoa(int((retryAfter+time.Second-1)/time.Second)))
	w.Header().Set("X-HubSpot-Correlation-Id", corr)
	b, _ := marshal(body)
	fakeserver.WriteJSON(w, http.StatusTooManyRequests, b)
}

func (s *Server) serverError(w http.ResponseWriter, r *http.Request) {
	_, corr := s.next()
	c := &call{s: s, w: w, r: r, corr: corr}
	c.fail(http.StatusInternalServerError, "", "internal error", nil)
}

// serveAPI routes one request of the API origin.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	seg := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(seg) >= 2 && seg[0] == "oauth" {
		s.serveToken(w, r, seg)
		return
	}
	n, corr := s.next()
	c := &call{s: s, w: w, r: r, corr: corr}
	if !isSearch(r) {
		rateHeaders(w.Header(), n, false)
	}
	if !c.authorized() {
		return
	}
	if r.Method == http.MethodGet && r.URL.Path == "/account-info/v3/details" {
		c.accountDetails()
		return
	}
	api, rest, ok := splitPath(seg)
	if !ok {
		c.notFound("resource not found", nil)
		return
	}
	switch {
	case api == "objects" && len(rest) == 2 && rest[1] == "search":
		if r.Method != http.MethodPost {
			c.methodNotAllowed()
			return
		}
		c.search(rest[0])
	case r.Method != http.MethodGet:
		c.methodNotAllowed()
	case api == "objects" && len(rest) == 1:
		c.listObjects(rest[0])
	case api == "objects" && len(rest) == 2:
		c.getObject(rest[0], rest[1])
	case api == "owners" && len(rest) == 0:
		c.listOwners()
	case api == "owners" && len(rest) == 1:
		c.getOwner(rest[0])
	case api == "pipelines" && len(rest) == 1:
		c.listPipelines(rest[0])
	case api == "pipelines" && len(rest) == 2:
		c.getPipeline(rest[0], rest[1])
	case api == "schemas" && len(rest) == 0:
		c.listSchemas()
	case api == "schemas" && len(rest) == 1:
		c.getSchema(rest[0])
	default:
		c.notFound("resource not found", nil)
	}
}

// accountDetails answers GET /account-info/v3/details: the account the
// token belongs to, as HubSpot's Account Information API describes it.
func (c *call) accountDetails() {
	c.json(http.StatusOK, map[string]any{"portalId": PortalID, "accountType": "STANDARD", "timeZone": "US/Eastern",
		"companyCurrency": "USD", "additionalCurrencies": []string{}, "utcOffset": "-05:00", "utcOffsetMilliseconds": -18000000,
		"uiDomain": "app.hubspot.com", "dataHostingLocation": "na1"})
}

// splitPath recognises /crm/v3/{api}/..., /crm/{api}/2026-03/...,
// /crm-object-schemas/{v3|2026-03}/schemas/... and returns the API name and
// the segments after it.
func splitPath(seg []string) (string, []string, bool) {
	if len(seg) < 3 {
		return "", nil, false
	}
	switch seg[0] {
	case "crm":
		if seg[1] == "v3" {
			switch seg[2] {
			case "objects", "owners", "pipelines", "schemas":
				return seg[2], seg[3:], true
			}
			return "", nil, false
		}
		if seg[2] == dateVersion {
			switch seg[1] {
			case "objects", "owners", "pipelines":
				return seg[1], seg[3:], true
			}
		}
	case "crm-object-schemas":
		if (seg[1] == "v3" || seg[1] == dateVersion) && seg[2] == "schemas" {
			return "schemas", seg[3:], true
		}
	}
	return "", nil, false
}

func (c *call) methodNotAllowed() {
	c.w.Header().Set("Allow", "GET")
	c.fail(http.StatusMethodNotAllowed, "VALIDATION_ERROR", "HTTP 405 Method Not Allowed", nil)
}

const authMessage = "Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview"

// authorized checks the bearer token as HubSpot does and writes the 401.
func (c *call) authorized() bool {
	h := c.r.Header.Get("Authorization")
	scheme, token, _ := strings.Cut(h, " ")
	token = strings.TrimSpace(token)
	if strings.EqualFold(scheme, "Bearer") && token != "" {
		s := c.s
		if (s.creds.PrivateAppToken != "" && token == s.creds.PrivateAppToken) ||
			(s.creds.AccessToken != "" && token == s.creds.AccessToken) {
			return true
		}
		s.mu.Lock()
		exp, ok := s.minted[token]
		s.mu.Unlock()
		if ok {
			if ago := time.Since(exp); ago >= 0 {
				c.fail(http.StatusUnauthorized, "EXPIRED_AUTHENTICATION",
					fmt.Sprintf("The OAuth token used to make this call expired %d minute(s) ago.", int(ago/time.Minute)), nil)
				return false
			}
			return true
		}
	}
	c.fail(http.StatusUnauthorized, "INVALID_AUTHENTICATION", authMessage, nil)
	return false
}

// serveToken is HubSpot's OAuth token endpoint (v1 and 2026-03): a form
// POST with grant_type=refresh_token, client_id, client_secret and
// refresh_token.
func (s *Server) serveToken(w http.ResponseWriter, r *http.Request, seg []string) {
	_, corr := s.next()
	if len(seg) != 3 || (seg[1] != "v1" && seg[1] != dateVersion) || seg[2] != "token" {
		c := &call{s: s, w: w, r: r, corr: corr}
		c.notFound("resource not found", nil)
		return
	}
	// v1 answers {"status": "BAD_...", "message", "correlationId",
	// "requestId"}; the date-versioned endpoint adds the standard OAuth
	// "error" and "error_description".
	standard := seg[1] == dateVersion
	fail := func(status, message, oauthErr string) {
		body := map[string]string{"status": status, "message": message, "correlationId": corr, "requestId": corr}
		if standard {
			body["error"], body["error_description"] = oauthErr, message
		}
		b, _ := marshal(body)
		fakeserver.WriteJSON(w, http.StatusBadRequest, b)
	}
	if r.Method != http.MethodPost {
		fail("BAD_REQUEST", "The token endpoint only accepts POST", "invalid_request")
		return
	}
	if err := r.ParseForm(); err != nil {
		fail("BAD_REQUEST", "could not parse the form body", "invalid_request")
		return
	}
	f := r.PostForm
	switch {
	case f.Get("grant_type") != "refresh_token":
		fail("BAD_GRANT_TYPE", "missing or unknown grant type", "unsupported_grant_type")
	case s.creds.ClientID == "" || f.Get("client_id") != s.creds.ClientID:
		fail("BAD_CLIENT_ID", "missing or invalid client id", "invalid_client")
	case f.Get("client_secret") != s.creds.ClientSecret:
		fail("BAD_CLIENT_SECRET", "missing or invalid client secret", "invalid_client")
	case s.creds.RefreshToken == "" || f.Get("refresh_token") != s.creds.RefreshToken:
		fail("BAD_REFRESH_TOKEN", "missing or invalid refresh token", "invalid_grant")
	default:
		b, _ := marshal(s.mint())
		fakeserver.WriteJSON(w, http.StatusOK, b)
	}
}

// mint issues a new access token and returns HubSpot's token answer,
// with the refresh token the fake accepts.
func (s *Server) mint() map[string]any {
	s.mu.Lock()
	s.nToken++
	token := fmt.Sprintf("fake-hubspot-access-%d", s.nToken)
	s.minted[token] = time.Now().Add(s.tokenTTL)
	s.mu.Unlock()
	return map[string]any{
		"token_type":    "bearer",
		"refresh_token": s.creds.RefreshToken,
		"access_token":  token,
		"expires_in":    int(s.tokenTTL / time.Second),
	}
}

// splitList reads an array query parameter the way HubSpot does: repeated
// parameters and comma-separated values both work.
func splitList(q url.Values, name string) []string {
	var out []string
	for _, v := range q[name] {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func parseBoolParam(q url.Values, name string) (bool, bool) {
	v := q.Get(name)
	switch strings.ToLower(v) {
	case "":
		return false, true
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// pageURL is the request URL with after replaced, absolute on the host the
// client used, as HubSpot's paging.next.link.
func pageURL(r *http.Request, after string) string {
	q := r.URL.Query()
	q.Set("after", after)
	return fakeserver.BaseURL(r) + r.URL.EscapedPath() + "?" + q.Encode()
}

type nextPage struct {
	After string `json:"after"`
	Link  string `json:"link,omitempty"`
}

type paging struct {
	Next nextPage `json:"next"`
}

type listResponse struct {
	Results any     `json:"results"`
	Paging  *paging `json:"paging,omitempty"`
}
