// Package asanatest is an in-process fake of Asana's REST API 1.0, for
// tests, examples and benchmarks that must run offline. It serves Asana's
// paths under Server.URL (standing for https://app.asana.com/api/1.0):
// workspaces, users, teams, projects, sections, tasks (and subtasks),
// stories, tags, attachments, the task search and events; the attachments'
// bytes on a second origin (FilesURL, standing for Asana's S3 bucket); and
// Asana's OAuth endpoints /-/oauth_authorize (a consent page, PKCE S256
// honoured) and /-/oauth_token (codes and refresh tokens, a form body).
//
// Lists answer {"data": [...], "next_page": {offset, path, uri} | null},
// paged by limit (1 to 100) and an opaque offset; their records are
// compact (gid, resource_type, name) unless opt_fields names fields, as
// Asana's are, where a get answers the whole record. GET /tasks needs a
// project, section or tag, or an assignee with a workspace (400
// otherwise). The task search answers 402 unless WithPremium.
//
// Events: every create, change and deletion of a task is an event of its
// project at the fake's clock. GET /events?resource={project} without a
// sync token, or with one older than 24 hours or forgotten
// (ForgetTokens), answers 412 with a fresh token; with a valid one, the
// events since it, at most 100 a page, has_more and the next token.
//
// The server implements fakeserver.Mutable for tasks and projects.
// Attachments' download_url is signed for two minutes of the fake's clock:
// the file host answers S3's 403 AccessDenied after that. API requests
// need a Bearer token the fake issued or DefaultToken (Asana's 401
// otherwise). WithFaults injects faults (429 with Retry-After, 500);
// WithRateLimit refuses requests over a window with 429 and Retry-After.
package asanatest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// Credentials the fake accepts unless options say otherwise: placeholders,
// never real secrets.
const (
	DefaultToken        = "2/1200000000000001/1200000000000002:fakepersonalaccesstoken"
	DefaultClientID     = "1200000000000099"
	DefaultClientSecret = "TEST_CLIENT_SECRET"
	// TokenPath is Asana's token endpoint's path.
	TokenPath = "/-/oauth_token"
)

// Default volumes.
const (
	DefaultUsers    = 8
	DefaultProjects = 6
	DefaultTasks    = 60 // in all, spread over the projects
	DefaultFileSize = 2048
)

// Server is a running fake of Asana. Close it when done.
type Server struct {
	*fakeserver.Server

	cfg   config
	clock *fakeserver.Clock
	oauth *fakeserver.OAuthServer
	// limited is the API's routes behind WithRateLimit's window (no
	// limit without it).
	limited http.Handler

	mu          sync.Mutex // serializes mutations, events and tokens
	workspaces  fakeserver.Table[obj]
	users       fakeserver.Table[obj]
	teams       fakeserver.Table[obj]
	projects    fakeserver.Table[obj]
	sections    fakeserver.Table[obj]
	tasks       fakeserver.Table[obj]
	stories     fakeserver.Table[obj]
	tags        fakeserver.Table[obj]
	attachments fakeserver.Table[obj]
	events      map[string][]obj // by project gid
	syncs       map[string]syncToken
	access      map[string]time.Time
	refresh     map[string]bool
	seq         int // tokens issued
	nextTask    int // the sequence of the next task's gid
}

// obj is a record as Asana writes it.
type obj = map[string]any

type syncToken struct {
	resource string
	pos      int
	issued   time.Time
}

type config struct {
	faults             Faults
	users, projects    int
	tasks              int
	clock              *fakeserver.Clock
	premium            bool
	fileSize, cutEvery int
	rateLimit          int
	ratePer            time.Duration
}

// Faults configures injected faults; see fakeserver.Faults.
type Faults = fakeserver.Faults

// Option configures a Server.
type Option func(*config)

// WithUsers sets the number of users (default 8).
func WithUsers(n int) Option { return func(c *config) { c.users = max(n, 1) } }

// WithProjects sets the number of projects (default 6).
func WithProjects(n int) Option { return func(c *config) { c.projects = max(n, 0) } }

// WithTasks sets the number of tasks, spread over the projects in turn
// (default 60).
func WithTasks(n int) Option { return func(c *config) { c.tasks = max(n, 0) } }

// WithClock sets the clock of mutations, events and tokens (default: one
// that starts at the current time and moves only when advanced).
func WithClock(clock *fakeserver.Clock) Option { return func(c *config) { c.clock = clock } }

// WithFaults injects faults into API responses.
func WithFaults(f Faults) Option { return func(c *config) { c.faults = f } }

// WithPremium makes the workspace a premium one: the task search answers.
func WithPremium() Option { return func(c *config) { c.premium = true } }

// WithFileSize sets the size of every attachment (default 2048 bytes).
func WithFileSize(n int) Option { return func(c *config) { c.fileSize = max(n, 1) } }

// WithFileCutEvery drops the file host's connection after every n bytes
// it sends, so that a download must resume.
func WithFileCutEvery(n int) Option { return func(c *config) { c.cutEvery = max(n, 0) } }

// WithRateLimit answers more than n API requests per window of length
// per (on the fake's clock; windows start at multiples of per) with
// Asana's 429 and a Retry-After of the seconds left in the window: Asana
// allows 150 a minute on a free plan, 1,500 on a paid one.
func WithRateLimit(n int, per time.Duration) Option {
	return func(c *config) { c.rateLimit, c.ratePer = n, per }
}

// New starts a fake.
func New(opts ...Option) *Server {
	cfg := config{users: DefaultUsers, projects: DefaultProjects, tasks: DefaultTasks, fileSize: DefaultFileSize}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.clock == nil {
		cfg.clock = fakeserver.NewClock(time.Now().UTC().Truncate(time.Second))
	}
	s := &Server{cfg: cfg, clock: cfg.clock, events: map[string][]obj{}, syncs: map[string]syncToken{},
		access: map[string]time.Time{DefaultToken: {}}, refresh: map[string]bool{}}
	s.generate()
	s.oauth = fakeserver.NewOAuthServer(fakeserver.OAuthConfig{Vendor: "Asana", AuthorizePath: "/-/oauth_authorize", TokenPath: TokenPath,
		ClientID: DefaultClientID, ClientSecret: DefaultClientSecret, PKCE: true, Now: s.clock.Now,
		Issue: func(*http.Request, fakeserver.Grant) map[string]any { return s.issue(true) }})
	s.limited = fakeserver.Enforce(&fakeserver.Window{Limit: cfg.rateLimit, Per: cfg.ratePer}, s.clock.Now, rateLimited, http.HandlerFunc(s.route))
	s.Server = fakeserver.New(s.oauth.Wrap(http.HandlerFunc(s.serve)), http.HandlerFunc(s.serveFile), cfg.faults,
		fakeserver.Vendor{RateLimited: rateLimited, ServerError: func(w http.ResponseWriter, _ *http.Request) {
			writeErr(w, http.StatusInternalServerError, "Server Error")
		}})
	return s
}

// rateLimited answers Asana's 429: Retry-After in whole seconds, at
// least one.
func rateLimited(w http.ResponseWriter, _ *http.Request, after time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(max(int((after+time.Second-1)/time.Second), 1)))
	writeErr(w, http.StatusTooManyRequests, "You have made too many requests recently. Please, be chill.")
}

// TokenURL is the token endpoint on the fake.
func (s *Server) TokenURL() string { return s.URL + TokenPath }

// issue issues an access token that lives an hour, with a refresh token
// when asked, and the user, as Asana's token endpoint answers.
func (s *Server) issue(withRefresh bool) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	at := fmt.Sprintf("2/1200000000000001/%d:fakeaccess", s.seq)
	s.access[at] = s.clock.Now().Add(time.Hour)
	me := s.me()
	out := map[string]any{"access_token": at, "token_type": "bearer", "expires_in": 3600,
		"data": map[string]any{"id": me["gid"], "gid": me["gid"], "name": me["name"], "email": me["email"]}}
	if withRefresh {
		rt := fmt.Sprintf("2/1200000000000001/%d:fakerefresh", s.seq)
		s.refresh[rt] = true
		out["refresh_token"] = rt
	}
	return out
}

// ExpireAccessTokens makes every access token issued so far invalid (the
// personal access token stays valid).
func (s *Server) ExpireAccessTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.access {
		if k != DefaultToken {
			s.access[k] = s.clock.Now().Add(-time.Second)
		}
	}
}

// ForgetTokens makes every sync token handed out so far invalid: the next
// events request with one answers 412.
func (s *Server) ForgetTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.syncs = map[string]syncToken{}
}

// grant answers the token endpoint's refresh_token grant (Asana keeps the
// refresh token: none comes back).
func (s *Server) grant(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	if r.PostForm.Get("grant_type") != "refresh_token" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "unsupported_grant_type", "error_description": "The authorization grant type is not supported."})
		return
	}
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id != DefaultClientID || secret != DefaultClientSecret {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "invalid_client", "error_description": "The client is not authorized."})
		return
	}
	s.mu.Lock()
	ok = s.refresh[r.PostForm.Get("refresh_token")]
	s.mu.Unlock()
	if !ok {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "The refresh token is invalid or expired."})
		return
	}
	writeJSON(w, http.StatusOK, s.issue(false))
}

// authorized reports whether r carries a token the fake accepts, and
// answers Asana's 401 when not.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		s.mu.Lock()
		exp, known := s.access[tok]
		s.mu.Unlock()
		if known && (exp.IsZero() || s.clock.Now().Before(exp)) {
			return true
		}
	}
	writeErr(w, http.StatusUnauthorized, "Not Authorized")
	return false
}

// writeJSON answers v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	fakeserver.WriteJSON(w, status, b)
}

// writeErr answers Asana's error body.
func writeErr(w http.ResponseWriter, status int, msg string) {
	e := map[string]any{"message": msg, "help": "For more information on API status codes and how to handle them, read the docs on errors: https://developers.asana.com/docs/errors"}
	if status >= 500 {
		e["phrase"] = "6 sad squid snuggle softly"
	}
	writeJSON(w, status, map[string]any{"errors": []any{e}})
}
