// Package jiratest is an in-process fake of Jira Cloud's REST API v3 and
// of the Jira Software agile API, for tests, examples and benchmarks that
// must run offline. It serves Jira's paths under Server.URL (as
// https://{site}.atlassian.net) and under /ex/jira/{cloud_id} (the OAuth
// base): search/jql (GET, POST), issue/{idOrKey} and its comment, worklog,
// changelog and transitions lists, attachment/{id} and its content,
// project/search, project/{idOrKey}, users/search, user, myself, field,
// status, priority, issuetype, worklog/updated, worklog/deleted,
// worklog/list, the deprecated /rest/api/2/search, and the agile board,
// board/{id}/sprint and sprint/{id}; records carry the site's origin.
//
// search/jql reads a subset of JQL: "field op value" clauses joined by AND
// on updated and created (dates read in the API user's zone, WithTimeZone),
// project, key, id and status, ORDER BY updated, created, key or id; other
// JQL, and a query without a restriction, answer Jira's 400. It pages by
// nextPageToken, a keyset bound to its query that expires after 7 days on
// the fake's clock, until isLast; without fields an issue is its id alone;
// a page holds 5000 ids or 100 issues with fields (WithPageSize).
//
// The server implements fakeserver.Mutable for issues, issue_comments and
// issue_worklogs at the fake's clock (WithClock): a changed comment or
// worklog changes its issue; a deleted issue leaves every search and get
// with its comments and worklogs. worklog/updated and worklog/deleted list
// ids (1000 a page, since/until in ms) without the last minute's changes.
// An unchanged issue is served byte for byte the same.
//
// attachment/content/{id} answers 303 to a signed URL on FilesURL, which
// serves the bytes with Range. API requests need Basic email:api_token or
// a Bearer token the token endpoint issued (/authorize is a consent page,
// /oauth/token takes codes and rotating refresh tokens,
// /oauth/token/accessible-resources lists WithSites); anything else is
// 401. Answers carry Beta-RateLimit headers; WithRateLimit enforces a
// window announced in X-RateLimit-* (reset in ISO 8601) with Jira's 429;
// WithFaults injects faults.
package jiratest

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// Credentials and identities the fake accepts unless options say
// otherwise. They are placeholders, never real secrets.
const (
	DefaultSite         = "acme"
	DefaultCloudID      = "11223344-5566-4778-899a-abbccddeeff0"
	DefaultEmail        = "agent@example.com"
	DefaultAPIToken     = "TEST_API_TOKEN"
	DefaultAccessToken  = "TEST_ACCESS_TOKEN"
	DefaultRefreshToken = "TEST_REFRESH_TOKEN"
	DefaultClientID     = "tributary_test_client"
	DefaultClientSecret = "TEST_CLIENT_SECRET"
	// DefaultTimeZone is the API user's zone (GET /rest/api/3/myself): a
	// zone far from UTC, with daylight saving.
	DefaultTimeZone = "Australia/Sydney"
	// TokenPath is the OAuth token endpoint's path.
	TokenPath = "/oauth/token"
)

// Default volumes.
const (
	DefaultIssues   = 150
	DefaultUsers    = 20
	DefaultProjects = 3
	DefaultBoards   = 3
)

// Site is a Jira site an OAuth token opens (accessible resources).
type Site struct {
	ID     string   `json:"id"`
	URL    string   `json:"url"`
	Name   string   `json:"name"`
	Scopes []string `json:"scopes"`
}

// Server is a running fake of Jira Cloud. Close it when done.
type Server struct {
	*fakeserver.Server

	cfg   config
	zone  *time.Location
	clock *fakeserver.Clock
	oauth *fakeserver.OAuthServer
	win   *fakeserver.Window

	tokens fakeserver.Tokens

	mu       sync.Mutex // serializes mutations
	issues   fakeserver.Table[issue]
	comments fakeserver.Table[comment]
	worklogs fakeserver.Table[worklog]
	nextID   int
	keys     map[string]string // issue key → id
}

type config struct {
	faults                                  Faults
	issues, users, projects, boards         int
	tz                                      string
	clock                                   *fakeserver.Clock
	sites                                   []Site
	rateLimit                               int
	ratePer, tokenTTL                       time.Duration
	email, apiToken, clientID, clientSecret string
	accessToken, refreshToken               string
	attachmentSize, fullPageSize, cutEvery  int
}

// Faults configures injected faults; see fakeserver.Faults.
type Faults = fakeserver.Faults

// Option configures a Server.
type Option func(*config)

// WithIssues sets the number of issues (default 150); comments, worklogs
// and attachments scale with it.
func WithIssues(n int) Option { return func(c *config) { c.issues = max(n, 0) } }

// WithUsers sets the number of users (default 20).
func WithUsers(n int) Option { return func(c *config) { c.users = max(n, 1) } }

// WithTimeZone sets the API user's time zone, in which JQL dates are read
// and records' dates written (default DefaultTimeZone).
func WithTimeZone(name string) Option { return func(c *config) { c.tz = name } }

// WithClock sets the clock of mutations, feeds and tokens (default: one
// that starts at the current time and moves only when advanced).
func WithClock(clock *fakeserver.Clock) Option { return func(c *config) { c.clock = clock } }

// WithSites sets the sites an OAuth token opens (default: one, DefaultSite
// with DefaultCloudID).
func WithSites(sites ...Site) Option { return func(c *config) { c.sites = sites } }

// WithFaults injects faults into API responses.
func WithFaults(f Faults) Option { return func(c *config) { c.faults = f } }

// WithRateLimit enforces n requests per window of length per on the fake's
// clock (a fakeserver.NewRealClock for a client that paces itself),
// announced in X-RateLimit-* headers.
func WithRateLimit(n int, per time.Duration) Option {
	return func(c *config) { c.rateLimit, c.ratePer = n, per }
}

// WithTokenTTL sets how long an issued access token lives (default an
// hour, Atlassian's).
func WithTokenTTL(d time.Duration) Option { return func(c *config) { c.tokenTTL = d } }

// WithPageSize sets the most issues a search page holds when it asks for
// fields (default 100).
func WithPageSize(n int) Option { return func(c *config) { c.fullPageSize = max(n, 1) } }

// WithAttachmentSize sets the size of every attachment (default 4096).
func WithAttachmentSize(n int) Option { return func(c *config) { c.attachmentSize = max(n, 1) } }

// WithFileCutEvery drops the connection after every n bytes a file
// response sends, so that a download must resume with Range.
func WithFileCutEvery(n int) Option { return func(c *config) { c.cutEvery = n } }

// New starts a fake.
func New(opts ...Option) *Server {
	cfg := config{issues: DefaultIssues, users: DefaultUsers, projects: DefaultProjects, boards: DefaultBoards, tz: DefaultTimeZone,
		email: DefaultEmail, apiToken: DefaultAPIToken, clientID: DefaultClientID, clientSecret: DefaultClientSecret,
		accessToken: DefaultAccessToken, refreshToken: DefaultRefreshToken, tokenTTL: time.Hour, attachmentSize: 4096, fullPageSize: 100,
		sites: []Site{{ID: DefaultCloudID, URL: "https://" + DefaultSite + ".atlassian.net", Name: DefaultSite, Scopes: []string{"read:jira-work", "read:jira-user"}}}}
	for _, o := range opts {
		o(&cfg)
	}
	zone, err := time.LoadLocation(cfg.tz)
	if err != nil {
		panic("jiratest: unknown time zone " + cfg.tz)
	}
	if cfg.clock == nil {
		cfg.clock = fakeserver.NewClock(time.Now().UTC().Truncate(time.Second))
	}
	s := &Server{cfg: cfg, zone: zone, clock: cfg.clock, keys: map[string]string{},
		tokens: fakeserver.Tokens{Now: cfg.clock.Now, TTL: cfg.tokenTTL}}
	s.tokens.Accept(cfg.accessToken, cfg.refreshToken)
	if cfg.rateLimit > 0 {
		s.win = &fakeserver.Window{Limit: cfg.rateLimit, Per: cfg.ratePer}
	}
	s.generate()
	s.oauth = fakeserver.NewOAuthServer(fakeserver.OAuthConfig{Vendor: "Atlassian", AuthorizePath: "/authorize", TokenPath: TokenPath,
		ClientID: cfg.clientID, ClientSecret: cfg.clientSecret, Now: s.clock.Now,
		Issue: func(*http.Request, fakeserver.Grant) map[string]any { return s.issue() }})
	s.Server = fakeserver.New(s.oauth.Wrap(s.routes()), http.HandlerFunc(s.serveFile), cfg.faults,
		fakeserver.Vendor{RateLimited: s.throttled, ServerError: func(w http.ResponseWriter, _ *http.Request) {
			writeErr(w, http.StatusServiceUnavailable, "Service Unavailable")
		}})
	return s
}

// Origin is the site's origin that records' URLs carry.
func (s *Server) Origin() string { return "https://" + DefaultSite + ".atlassian.net" }

// TimeZone returns the API user's time zone.
func (s *Server) TimeZone() *time.Location { return s.zone }

// TokenURL is the token endpoint on the fake.
func (s *Server) TokenURL() string { return s.URL + TokenPath }

// issue issues a new access and refresh token pair.
func (s *Server) issue() map[string]any {
	at, rt := s.tokens.Mint()
	return map[string]any{"access_token": at, "refresh_token": rt, "token_type": "Bearer",
		"expires_in": int(s.cfg.tokenTTL / time.Second), "scope": "read:jira-work read:jira-user offline_access"}
}

// ExpireAccessTokens makes every access token issued so far, and the
// default one, invalid: the next request with one gets 401.
func (s *Server) ExpireAccessTokens() { s.tokens.ExpireAll() }

// refreshGrant answers grant_type=refresh_token: a new pair, the used
// refresh token spent.
func (s *Server) refreshGrant(w http.ResponseWriter, r *http.Request) {
	var p map[string]string
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		_ = fakeserver.ReadJSON(r, &p)
	} else {
		_ = r.ParseForm()
		p = map[string]string{}
		for k := range r.PostForm {
			p[k] = r.PostForm.Get(k)
		}
	}
	if p["grant_type"] != "refresh_token" || p["client_id"] != s.cfg.clientID || p["client_secret"] != s.cfg.clientSecret {
		fakeserver.JSON(w, http.StatusUnauthorized, map[string]any{"error": "access_denied", "error_description": "Unauthorized"})
		return
	}
	if !s.tokens.Redeem(p["refresh_token"]) {
		fakeserver.JSON(w, http.StatusForbidden, map[string]any{"error": "unauthorized_client", "error_description": "refresh_token is invalid"})
		return
	}
	fakeserver.JSON(w, http.StatusOK, s.issue())
}

// authorized reports whether r carries credentials the fake accepts, and
// answers 401 when not.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if u, p, ok := r.BasicAuth(); ok {
		if u == s.cfg.email && p == s.cfg.apiToken {
			return true
		}
		w.Header().Set("Content-Type", "text/plain;charset=UTF-8")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte("Client must be authenticated to access this resource."))
		return false
	}
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && s.tokens.Valid(tok) {
		return true
	}
	fakeserver.JSON(w, http.StatusUnauthorized, map[string]any{"code": 401, "message": "Unauthorized"})
	return false
}

// throttled writes Jira's 429.
func (s *Server) throttled(w http.ResponseWriter, _ *http.Request, retryAfter time.Duration) {
	if retryAfter <= 0 {
		retryAfter = time.Second
	}
	reset := s.clock.Now().Add(retryAfter).UTC()
	h := w.Header()
	h.Set("Retry-After", strconv.Itoa(int((retryAfter+time.Second-1)/time.Second)))
	h.Set("X-RateLimit-Limit", strconv.Itoa(max(s.cfg.rateLimit, 100)))
	h.Set("X-RateLimit-Remaining", "0")
	h.Set("X-RateLimit-Reset", reset.Format(time.RFC3339Nano))
	h.Set("X-RateLimit-NearLimit", "true")
	h.Set("RateLimit-Reason", "jira-burst-based")
	writeErr(w, http.StatusTooManyRequests, "Rate limit exceeded.")
}

// limit counts r against the enforced window, writes the rate-limit
// headers, and answers 429 when the window is spent.
func (s *Server) limit(w http.ResponseWriter) bool {
	h := w.Header()
	h.Set("Beta-RateLimit-Policy", `"global-app-quota";q=65000;w=3600`)
	h.Set("Beta-RateLimit", `"global-app-quota";r=64000;t=3600`)
	if s.win == nil {
		return true
	}
	now := s.clock.Now()
	left, reset, ok := s.win.Take(now)
	if !ok {
		s.throttled(w, nil, reset.Sub(now))
		return false
	}
	h.Set("X-RateLimit-Limit", strconv.Itoa(s.cfg.rateLimit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(left))
	h.Set("X-RateLimit-Reset", reset.UTC().Format(time.RFC3339Nano))
	return true
}

// writeErr answers Jira's ErrorCollection.
func writeErr(w http.ResponseWriter, status int, msg string) {
	fakeserver.JSON(w, status, map[string]any{"errorMessages": []string{msg}, "errors": map[string]string{}})
}

// sign makes the signature of a media URL.
func (s *Server) sign(id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte("media:" + id))
}

// serveFile is FilesURL: an attachment's bytes at /file/{id}?token=...
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimPrefix(r.URL.Path, "/file/")
	f, ok := s.file(id)
	if !ok || r.URL.Query().Get("token") != s.sign(id) {
		http.Error(w, "invalid or expired token", http.StatusForbidden)
		return
	}
	fakeserver.ServeFile(w, r, f)
}
