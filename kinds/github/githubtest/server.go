package githubtest

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// Credentials the fake accepts unless WithCredentials says otherwise.
const (
	// DefaultToken is the personal access token the fake accepts.
	DefaultToken = "TEST_TOKEN"
	// DefaultAccessToken is the OAuth access token the fake accepts.
	DefaultAccessToken = "TEST_ACCESS_TOKEN"
	// DefaultClientID and DefaultClientSecret are the OAuth app the
	// consent page (/login/oauth/authorize) and the token endpoint
	// (/login/oauth/access_token) know.
	DefaultClientID     = "TEST_CLIENT_ID"
	DefaultClientSecret = "TEST_CLIENT_SECRET"
)

// APIVersion is the REST API version the fake serves. Requests may name it
// (or 2026-03-10) in X-GitHub-Api-Version, or leave the header out.
const APIVersion = "2022-11-28"

// Rate limits announced in the x-ratelimit-* headers.
const (
	// DefaultCoreLimit is the hourly limit of the core resource for a token.
	DefaultCoreLimit = 5000
	// SearchLimit is the per-minute limit of the search resource.
	SearchLimit = 30
	// anonymousLimit is the hourly limit of unauthenticated requests.
	anonymousLimit = 60
)

// Faults configures injected faults; see fakeserver.Faults.
type Faults = fakeserver.Faults

// RateLimitStyle selects which of GitHub's rate-limit responses the fault
// injector writes (Faults.RateLimitFirst, Faults.RateLimitRate).
type RateLimitStyle int

const (
	// SecondaryRateLimit is a 429 with retry-after (the default).
	SecondaryRateLimit RateLimitStyle = iota
	// SecondaryRateLimitForbidden is a 403 with retry-after.
	SecondaryRateLimitForbidden
	// SecondaryRateLimitNoRetryAfter is a 403 without retry-after: clients
	// must wait at least a minute and back off.
	SecondaryRateLimitNoRetryAfter
	// PrimaryRateLimit is a 403 with x-ratelimit-remaining 0 and
	// x-ratelimit-reset Faults.RetryAfter from now.
	PrimaryRateLimit
	// PrimaryRateLimitTooMany is PrimaryRateLimit with status 429.
	PrimaryRateLimitTooMany
)

type config struct {
	faults     Faults
	tokens     map[string]bool
	rateStyle  RateLimitStyle
	coreLimit  int
	coreWindow time.Duration
	extraFiles map[string][]byte
	clock      *fakeserver.Clock

	repos, issues, pulls, commits, comments, reviews, prComments int
	users, releases, assets, branches, milestones, teams         int
	assetSize, fileSize, fileCutEvery                            int
	// commentsEach: every issue and pull request has exactly comments
	// comments (WithCommentsPerIssue), not a count varying by number.
	commentsEach bool
}

// Option configures a Server.
type Option func(*config)

// WithFaults sets the faults injected into API responses.
func WithFaults(f Faults) Option { return func(c *config) { c.faults = f } }

// WithCredentials replaces the tokens the fake accepts (DefaultToken and
// DefaultAccessToken by default), as "Authorization: Bearer <token>" or the
// legacy "Authorization: token <token>".
func WithCredentials(tokens ...string) Option {
	return func(c *config) {
		c.tokens = make(map[string]bool, len(tokens))
		for _, t := range tokens {
			c.tokens[t] = true
		}
	}
}

// WithRateLimitStyle selects the rate-limit response of fault injection.
func WithRateLimitStyle(s RateLimitStyle) Option { return func(c *config) { c.rateStyle = s } }

// WithCoreLimit sets the x-ratelimit-limit of the core resource
// (DefaultCoreLimit by default).
func WithCoreLimit(n int) Option { return func(c *config) { c.coreLimit = n } }

// WithCoreWindow enforces the primary limit of the core resource: the
// WithCoreLimit requests per window of length per (GitHub: 5,000 an hour
// for a token) on the fake's clock (WithClock; a fakeserver.NewRealClock
// for a client that paces itself), counted down in x-ratelimit-remaining
// with the window's end in x-ratelimit-reset, and the request after the
// last answered 403 with x-ratelimit-remaining 0, as GitHub does. Windows
// start at multiples of per; keep per a whole number of seconds, as
// x-ratelimit-reset is. Without it the counts roll over and never run
// out.
func WithCoreWindow(per time.Duration) Option { return func(c *config) { c.coreWindow = per } }

// WithRepos sets the number of repositories of the Owner organization
// (default 3): Owner/Repo, then Owner/repo-1, Owner/repo-2, ...
func WithRepos(n int) Option { return func(c *config) { c.repos = n } }

// WithIssues sets the number of issues per repository (default 200).
func WithIssues(n int) Option { return func(c *config) { c.issues = n } }

// WithPulls sets the number of pull requests per repository (default 50).
// Issues and pull requests share one number sequence.
func WithPulls(n int) Option { return func(c *config) { c.pulls = n } }

// WithCommits sets the number of commits per repository (default 120).
func WithCommits(n int) Option { return func(c *config) { c.commits = n } }

// WithComments sets the most comments an issue or pull request has
// (default 8); number x has (x*k) mod (n+1) comments for a fixed k.
func WithComments(n int) Option { return func(c *config) { c.comments = n } }

// WithCommentsPerIssue gives every issue and pull request exactly n
// comments (instead of WithComments' counts varying from 0 to n by
// number): a data set whose size is known, for benchmarks.
func WithCommentsPerIssue(n int) Option {
	return func(c *config) { c.comments, c.commentsEach = n, true }
}

// WithReviews sets the most reviews a pull request has (default 3).
func WithReviews(n int) Option { return func(c *config) { c.reviews = n } }

// WithPRComments sets the most review comments a pull request has (default 4).
func WithPRComments(n int) Option { return func(c *config) { c.prComments = n } }

// WithUsers sets the number of users (default 40): user-1 ... user-n, all
// members of Owner, all stargazers of every repository.
func WithUsers(n int) Option { return func(c *config) { c.users = n } }

// WithReleases sets the number of releases (and tags) per repository
// (default 8): v1.0.0, v1.1.0, ...
func WithReleases(n int) Option { return func(c *config) { c.releases = n } }

// WithAssets sets the number of assets per release (default 4).
func WithAssets(n int) Option { return func(c *config) { c.assets = n } }

// WithAssetSize sets the approximate size in bytes of release assets
// (default 64 KiB; each asset adds up to 511 bytes).
func WithAssetSize(n int) Option { return func(c *config) { c.assetSize = n } }

// WithBranches sets the number of branches per repository (default 6).
func WithBranches(n int) Option { return func(c *config) { c.branches = n } }

// WithMilestones sets the number of milestones per repository (default 5).
func WithMilestones(n int) Option { return func(c *config) { c.milestones = n } }

// WithTeams sets the number of teams of Owner (default 4).
func WithTeams(n int) Option { return func(c *config) { c.teams = n } }

// WithFileSize sets the size of data/large.bin, present in every repository
// (default 1.5 MiB: over the 1 MB GitHub inlines in the contents response).
func WithFileSize(n int) Option { return func(c *config) { c.fileSize = n } }

// WithFile adds (or replaces) a file in every repository's tree.
func WithFile(path string, content []byte) Option {
	return func(c *config) {
		if c.extraFiles == nil {
			c.extraFiles = make(map[string][]byte)
		}
		c.extraFiles[path] = content
	}
}

// WithFileCutEvery makes the file host drop the connection after every n
// bytes of a response body (see fakeserver.File.CutEvery), so that clients
// must resume with ranged requests.
func WithFileCutEvery(n int) Option { return func(c *config) { c.fileCutEvery = n } }

// Server is a running fake of GitHub's REST API.
type Server struct {
	*fakeserver.Server

	w     *world
	cfg   config
	scans scanCache
	start time.Time
	seq   atomic.Uint64

	m *mutations // created, updated and deleted records of Owner/Repo

	mu      sync.Mutex
	used    map[string]int
	core    *fakeserver.Window // WithCoreWindow's enforced limit; nil: none
	resetAt time.Time
	cacheOn bool // the response cache is on (mutations empty it)
}

var _ fakeserver.Mutable = (*Server)(nil)

// New starts a fake GitHub on loopback. Close it when done.
func New(opts ...Option) *Server {
	cfg := config{
		coreLimit: DefaultCoreLimit,
		repos:     DefaultRepos, issues: DefaultIssues, pulls: DefaultPulls, commits: DefaultCommits,
		comments: DefaultComments, reviews: DefaultReviews, prComments: DefaultPRComments,
		users: DefaultUsers, releases: DefaultReleases, assets: DefaultAssets, branches: DefaultBranches,
		milestones: DefaultMilestones, teams: DefaultTeams, assetSize: DefaultAssetSize, fileSize: DefaultFileSize,
	}
	WithCredentials(DefaultToken, DefaultAccessToken)(&cfg)
	for _, o := range opts {
		o(&cfg)
	}
	cfg.repos = max(cfg.repos, 1)
	cfg.users = max(cfg.users, 1)
	cfg.commits = max(cfg.commits, 1)
	cfg.branches = max(cfg.branches, 1)
	for _, p := range []*int{&cfg.issues, &cfg.pulls, &cfg.comments, &cfg.reviews, &cfg.prComments,
		&cfg.releases, &cfg.assets, &cfg.milestones, &cfg.teams, &cfg.assetSize, &cfg.fileSize} {
		*p = max(*p, 0)
	}
	if cfg.coreLimit < 2 {
		cfg.coreLimit = DefaultCoreLimit
	}
	if cfg.clock == nil {
		cfg.clock = fakeserver.NewClock(time.Now().UTC().Truncate(time.Second))
	}
	s := &Server{w: newWorld(cfg), cfg: cfg, start: time.Now(), used: make(map[string]int), m: newMutations(cfg.clock)}
	if cfg.coreWindow > 0 {
		s.core = &fakeserver.Window{Limit: cfg.coreLimit, Per: cfg.coreWindow}
	}
	s.resetAt = s.start.Add(time.Hour).Truncate(time.Second)
	oauth := fakeserver.NewOAuthServer(fakeserver.OAuthConfig{
		Vendor: "GitHub", AuthorizePath: "/login/oauth/authorize", TokenPath: "/login/oauth/access_token",
		ClientID: DefaultClientID, ClientSecret: DefaultClientSecret, PKCE: true, FormUnlessJSON: true,
		Now: cfg.clock.Now, Issue: s.issueToken,
	})
	s.Server = fakeserver.New(oauth.Wrap(http.HandlerFunc(s.serveAPI)), http.HandlerFunc(s.serveFiles), cfg.faults,
		fakeserver.Vendor{RateLimited: s.rateLimited, ServerError: s.serverError})
	return s
}

// ---- common headers, rate limits, errors

func resourceOf(r *http.Request) string {
	if strings.HasPrefix(r.URL.Path, "/search/") {
		return "search"
	}
	return "core"
}

func (s *Server) limitOf(resource string, authenticated bool) int {
	switch {
	case !authenticated:
		return anonymousLimit
	case resource == "search":
		return SearchLimit
	}
	return s.cfg.coreLimit
}

// countRequest records one request against resource and returns the used
// count and the reset time. Counts roll over at half the limit, so a
// successful response never announces that little remains — unless
// WithCoreWindow enforces the core limit: then ok is false for a request
// over it.
func (s *Server) countRequest(resource string, limit int) (used int, reset time.Time, ok bool) {
	if s.core != nil && resource == "core" && limit == s.cfg.coreLimit {
		remaining, reset, ok := s.core.Take(s.m.clock.Now())
		return limit - remaining, reset, ok
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	for !now.Before(s.resetAt) {
		s.resetAt = s.resetAt.Add(time.Hour)
		clear(s.used)
	}
	key := resource + "/" + strconv.Itoa(limit)
	used = s.used[key]%max(limit/2, 1) + 1
	s.used[key]++
	return used, s.resetAt, true
}

// setCommon writes the headers GitHub puts on every API response. It
// reports false for a request over the enforced core limit (WithCoreWindow).
func (s *Server) setCommon(w http.ResponseWriter, r *http.Request, authenticated bool) bool {
	h := w.Header()
	resource := resourceOf(r)
	limit := s.limitOf(resource, authenticated)
	used, reset, ok := s.countRequest(resource, limit)
	h.Set("X-RateLimit-Limit", strconv.Itoa(limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(limit-used))
	h.Set("X-RateLimit-Used", strconv.Itoa(used))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	h.Set("X-RateLimit-Resource", resource)
	h.Set("X-GitHub-Media-Type", "github.v3; format=json")
	h.Set("X-GitHub-Api-Version-Selected", selectedVersion(r))
	h.Set("X-GitHub-Request-Id", s.requestID())
	h.Set("Vary", "Accept, Authorization, Cookie, X-GitHub-OTP")
	return ok
}

func (s *Server) requestID() string {
	n := s.seq.Add(1)
	return fmt.Sprintf("C0DE:%04X:%06X:%06X:%08X", s.start.Unix()&0xffff, n>>24, n&0xffffff, s.start.Unix())
}

func selectedVersion(r *http.Request) string {
	if v := r.Header.Get("X-GitHub-Api-Version"); v != "" {
		return v
	}
	return APIVersion
}

// Documentation URLs GitHub puts in error bodies.
const (
	docsRoot       = "https://docs.github.com/rest"
	docsSearch     = "https://docs.github.com/v3/search/"
	docsRateLimits = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"
)

// writeError writes GitHub's basic-error body.
func writeError(w http.ResponseWriter, status int, message, doc string) {
	var b jw
	b.obj("")
	b.str("message", message)
	b.str("documentation_url", doc)
	b.str("status", strconv.Itoa(status))
	b.endObj()
	fakeserver.WriteJSON(w, status, b.bytes())
}

// fieldError is one entry of a validation-error's errors array.
type fieldError struct {
	resource, field, code, message string
}

// writeValidation writes a 422 validation-error body.
func writeValidation(w http.ResponseWriter, doc string, errs ...fieldError) {
	var b jw
	b.obj("")
	b.str("message", "Validation Failed")
	b.arr("errors")
	for _, e := range errs {
		b.obj("")
		if e.message != "" {
			b.str("message", e.message)
		}
		b.str("resource", e.resource)
		b.str("field", e.field)
		b.str("code", e.code)
		b.endObj()
	}
	b.endArr()
	b.str("documentation_url", doc)
	b.str("status", "422")
	b.endObj()
	fakeserver.WriteJSON(w, http.StatusUnprocessableEntity, b.bytes())
}

func notFound(w http.ResponseWriter, doc string) {
	writeError(w, http.StatusNotFound, "Not Found", doc)
}

// rateLimited is the fault injector's rate-limit response.
func (s *Server) rateLimited(w http.ResponseWriter, r *http.Request, retryAfter time.Duration) {
	s.setCommon(w, r, true)
	secs := int((retryAfter + time.Second - 1) / time.Second)
	h := w.Header()
	status := http.StatusForbidden
	switch s.cfg.rateStyle {
	case PrimaryRateLimit, PrimaryRateLimitTooMany:
		if s.cfg.rateStyle == PrimaryRateLimitTooMany {
			status = http.StatusTooManyRequests
		}
		h.Set("X-RateLimit-Remaining", "0")
		h.Set("X-RateLimit-Used", h.Get("X-RateLimit-Limit"))
		h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Duration(secs)*time.Second).Unix(), 10))
		writeError(w, status, "API rate limit exceeded for user ID "+strconv.Itoa(ViewerID)+
			". If you reach out to GitHub Support for help, please include the request ID "+h.Get("X-GitHub-Request-Id")+".",
			docsRateLimits+"#about-primary-rate-limits")
		return
	case SecondaryRateLimit:
		status = http.StatusTooManyRequests
		h.Set("Retry-After", strconv.Itoa(secs))
	case SecondaryRateLimitForbidden:
		h.Set("Retry-After", strconv.Itoa(secs))
	}
	writeError(w, status, "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. "+
		"If you reach out to GitHub Support for help, please include the request ID "+h.Get("X-GitHub-Request-Id")+".",
		docsRateLimits+"#about-secondary-rate-limits")
}

// serverError is the fault injector's 5xx response.
func (s *Server) serverError(w http.ResponseWriter, r *http.Request) {
	s.setCommon(w, r, true)
	writeError(w, http.StatusInternalServerError, "Server Error", docsRoot)
}

// issueToken is the token answer of an OAuth app's code exchange: an
// access token the fake accepts (DefaultAccessToken unless WithCredentials
// left it out), which does not expire and comes without a refresh token.
func (s *Server) issueToken(_ *http.Request, g fakeserver.Grant) map[string]any {
	tok := DefaultAccessToken
	if !s.cfg.tokens[tok] {
		toks := make([]string, 0, len(s.cfg.tokens))
		for t := range s.cfg.tokens {
			toks = append(toks, t)
		}
		slices.Sort(toks)
		if len(toks) > 0 {
			tok = toks[0]
		}
	}
	return map[string]any{"access_token": tok, "token_type": "bearer", "scope": strings.ReplaceAll(g.Scope, " ", ",")}
}

// authenticate checks the Authorization header as GitHub does.
func (s *Server) authenticate(r *http.Request) (ok bool, message string) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return false, "Requires authentication"
	}
	scheme, token, found := strings.Cut(h, " ")
	if !found || !(strings.EqualFold(scheme, "Bearer") || strings.EqualFold(scheme, "token")) {
		return false, "Bad credentials"
	}
	if !s.cfg.tokens[strings.TrimSpace(token)] {
		return false, "Bad credentials"
	}
	return true, ""
}

func supportedVersion(v string) bool { return v == "" || v == APIVersion || v == "2026-03-10" }

// serveAPI answers every request to the API origin.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	authOK, authMsg := s.authenticate(r)
	if !s.setCommon(w, r, authOK) {
		h := w.Header()
		writeError(w, http.StatusForbidden, "API rate limit exceeded for user ID "+strconv.Itoa(ViewerID)+
			". If you reach out to GitHub Support for help, please include the request ID "+h.Get("X-GitHub-Request-Id")+".",
			docsRateLimits+"#about-primary-rate-limits")
		return
	}
	if r.Header.Get("User-Agent") == "" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte("Request forbidden by administrative rules. Please make sure your request has a User-Agent header (https://docs.github.com/en/rest/overview/resources-in-the-rest-api#user-agent-required). Check https://developer.github.com for other possible causes.\n"))
		return
	}
	if v := r.Header.Get("X-GitHub-Api-Version"); !supportedVersion(v) {
		writeError(w, http.StatusBadRequest, "API version "+v+" is not supported.", docsRoot+"/overview/api-versions")
		return
	}
	if !authOK {
		writeError(w, http.StatusUnauthorized, authMsg, docsRoot)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		notFound(w, docsRoot)
		return
	}
	s.route(w, r)
}
