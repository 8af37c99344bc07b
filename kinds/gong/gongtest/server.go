package gongtest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// Faults configures the faults the fake injects into its API responses
// (latency, 429 with Retry-After, 500, connections cut mid-body).
type Faults = fakeserver.Faults

// Credentials and sizes the fake uses unless options say otherwise.
const (
	// DefaultAccessKey and DefaultAccessKeySecret form the API key pair
	// accepted as Basic authentication.
	DefaultAccessKey       = "TEST_ACCESS_KEY"
	DefaultAccessKeySecret = "TEST_ACCESS_KEY_SECRET"
	// DefaultAccessToken is a Bearer token accepted from the start.
	DefaultAccessToken = "TEST_ACCESS_TOKEN"
	// DefaultClientID and DefaultClientSecret identify the OAuth app at
	// the token endpoint (Basic authentication).
	DefaultClientID     = "TEST_CLIENT_ID"
	DefaultClientSecret = "TEST_CLIENT_SECRET"
	// DefaultRefreshToken is the first refresh token the token endpoint
	// accepts. Like Gong's, every refresh token works exactly once.
	DefaultRefreshToken = "TEST_REFRESH_TOKEN"

	// DefaultCalls and DefaultUsers are the synthetic volumes.
	DefaultCalls = 250
	DefaultUsers = 25
	// DefaultMediaSize is the size in bytes of a call's audio file; a
	// video file is twice as large.
	DefaultMediaSize = 64 << 10

	// PageSize is Gong's fixed page size; clients cannot change it.
	PageSize = 100

	// TokenPath is the path of the OAuth token endpoint on the fake's API
	// origin (Gong serves it at https://app.gong.io/oauth2/generate-customer-token).
	TokenPath = "/oauth2/generate-customer-token"
)

// Messages of Gong's error bodies that clients may need to recognise.
const (
	// NoCallsFound is the message of the 404 Gong answers, instead of an
	// empty page, when a call filter matches nothing.
	NoCallsFound = "No calls found corresponding to the provided filters"
	// AccessDenied is the message of the 401 for missing or wrong
	// credentials.
	AccessDenied = "Access denied"
	// RateLimitExceeded is the message of the 429.
	RateLimitExceeded = "API request limit exceeded"
	// InternalError is the message of the injected 500.
	InternalError = "An error has occurred"
	// InvalidCursor is the message of the 400 for a cursor that is not
	// valid for the request it arrives with.
	InvalidCursor = "Invalid cursor"
)

type config struct {
	faults          Faults
	limit           *fakeserver.Window
	calls, users    int
	accessKey       string
	accessKeySecret string
	accessToken     string
	clientID        string
	clientSecret    string
	refreshToken    string
	mediaSize       int
	fileCutEvery    int
	now             func() time.Time
	clock           *fakeserver.Clock
}

// Option configures a Server.
type Option func(*config)

// WithFaults sets the faults injected into API responses from the start;
// Server.SetFaults changes them later.
func WithFaults(f Faults) Option { return func(c *config) { c.faults = f } }

// WithCalls sets the number of synthetic calls (default DefaultCalls). Call i
// starts i hours (plus up to four minutes) after 2024-01-01T08:00:00Z, so
// call windows select contiguous runs of calls. Answered scorecards exist
// for every fourth call.
func WithCalls(n int) Option { return func(c *config) { c.calls = max(n, 0) } }

// WithUsers sets the number of synthetic users (default DefaultUsers, at
// least 1). User 0 is the top manager; user i > 0 reports to user (i-1)/5.
func WithUsers(n int) Option { return func(c *config) { c.users = max(n, 1) } }

// WithCredentials sets the API key pair accepted as Basic authentication.
func WithCredentials(accessKey, accessKeySecret string) Option {
	return func(c *config) { c.accessKey, c.accessKeySecret = accessKey, accessKeySecret }
}

// WithAccessToken sets the Bearer token accepted from the start. Tokens
// issued by the token endpoint are accepted as well.
func WithAccessToken(token string) Option { return func(c *config) { c.accessToken = token } }

// WithOAuthClient sets the OAuth app credentials the token endpoint expects
// and the first refresh token it accepts.
func WithOAuthClient(clientID, clientSecret, refreshToken string) Option {
	return func(c *config) { c.clientID, c.clientSecret, c.refreshToken = clientID, clientSecret, refreshToken }
}

// WithMediaSize sets the size in bytes of each call's audio file (video files
// are twice as large).
func WithMediaSize(n int) Option { return func(c *config) { c.mediaSize = max(n, 16) } }

// WithFileCutEvery makes the media host drop the connection after every n
// bytes of a response body, so that downloads must resume with Range.
func WithFileCutEvery(n int) Option { return func(c *config) { c.fileCutEvery = n } }

// WithRateLimit enforces Gong's limit of API requests (documented: 3 a
// second per company): n requests per window of length per on the fake's
// clock (WithMutationClock; a fakeserver.NewRealClock for a client that
// paces itself), the request after the n-th in a window answered 429 with
// Retry-After and {"requestId", "errors": ["API request limit exceeded"]}.
// Zero n (the default) enforces nothing.
func WithRateLimit(n int, per time.Duration) Option {
	return func(c *config) { c.limit = &fakeserver.Window{Limit: max(n, 0), Per: per} }
}

// WithClock sets the clock used to stamp and check the expiry (8 hours) of
// pre-signed media URLs. The default is time.Now.
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// Server is a running fake of Gong's API v2.
type Server struct {
	*fakeserver.Server

	cfg    config
	secret []byte
	seq    atomic.Uint64

	mu       sync.Mutex
	refresh  string          // the refresh token that works next
	issued   map[string]bool // access tokens issued by the token endpoint
	refreshN int
	mut      mutations
	clock    *fakeserver.Clock
}

// New starts a fake Gong API on loopback. The caller must Close it.
func New(opts ...Option) *Server {
	cfg := config{
		calls:           DefaultCalls,
		users:           DefaultUsers,
		accessKey:       DefaultAccessKey,
		accessKeySecret: DefaultAccessKeySecret,
		accessToken:     DefaultAccessToken,
		clientID:        DefaultClientID,
		clientSecret:    DefaultClientSecret,
		refreshToken:    DefaultRefreshToken,
		mediaSize:       DefaultMediaSize,
		now:             time.Now,
	}
	for _, o := range opts {
		o(&cfg)
	}
	s := &Server{
		cfg:     cfg,
		secret:  []byte("gongtest fixed signing key"),
		refresh: cfg.refreshToken,
		issued:  map[string]bool{},
		clock:   cfg.clock,
	}
	if s.clock == nil {
		s.clock = defaultClock(&cfg)
	}
	api := s.apiHandler()
	if cfg.limit != nil && cfg.limit.Limit > 0 {
		api = fakeserver.Enforce(cfg.limit, s.clock.Now, s.rateLimited, api)
	}
	oauth := fakeserver.NewOAuthServer(fakeserver.OAuthConfig{
		Vendor: "Gong", AuthorizePath: "/oauth2/authorize", TokenPath: TokenPath,
		ClientID: cfg.clientID, ClientSecret: cfg.clientSecret, BasicOnly: true, Now: s.clock.Now,
		Issue: func(r *http.Request, _ fakeserver.Grant) map[string]any {
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.mintLocked(r)
		},
	})
	s.Server = fakeserver.New(oauth.Wrap(api), http.HandlerFunc(s.serveMedia), cfg.faults,
		fakeserver.Vendor{RateLimited: s.rateLimited, ServerError: s.serverError})
	return s
}

// TokenURL is the full URL of the fake's OAuth token endpoint.
func (s *Server) TokenURL() string { return s.URL + TokenPath }

// RefreshToken returns the refresh token the token endpoint accepts next.
func (s *Server) RefreshToken() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refresh
}

// ExpireAccessTokens makes every access token the token endpoint has issued
// so far answer 401, as an expired one does, so that a test can make its
// clients refresh when it chooses.
func (s *Server) ExpireAccessTokens() {
	s.mu.Lock()
	clear(s.issued)
	s.mu.Unlock()
}

// Calls returns the number of synthetic calls.
func (s *Server) Calls() int { return s.cfg.calls }

// Users returns the number of synthetic users.
func (s *Server) Users() int { return s.cfg.users }

// CallID returns the id of synthetic call i (0 ≤ i < Calls()).
func (s *Server) CallID(i int) string { return callID(i) }

// UserID returns the id of synthetic user i (0 ≤ i < Users()).
func (s *Server) UserID(i int) string { return userID(i) }

// WorkspaceID returns the id of workspace i (0 ≤ i < 3).
func (s *Server) WorkspaceID(i int) string { return workspaceID(i) }

// FolderID returns the id of library folder i (0 ≤ i < 12; folders 4w to
// 4w+3 belong to workspace w, the first of them being the root).
func (s *Server) FolderID(i int) string { return folderID(i) }

// ScorecardID returns the id of scorecard i (0 ≤ i < 4).
func (s *Server) ScorecardID(i int) string { return scorecardID(i) }

func (s *Server) apiHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v2/users", s.listUsers)
	mux.HandleFunc("GET /v2/users/{id}", s.getUser)
	mux.HandleFunc("GET /v2/calls", s.listCalls)
	mux.HandleFunc("GET /v2/calls/{id}", s.getCall)
	mux.HandleFunc("POST /v2/calls/extensive", s.listCallsExtensive)
	mux.HandleFunc("POST /v2/calls/transcript", s.listTranscripts)
	mux.HandleFunc("GET /v2/workspaces", s.listWorkspaces)
	mux.HandleFunc("POST /v2/stats/activity/aggregate", s.statsAggregate)
	mux.HandleFunc("POST /v2/stats/activity/day-by-day", s.statsDayByDay)
	mux.HandleFunc("POST /v2/stats/interaction", s.statsInteraction)
	mux.HandleFunc("POST /v2/stats/activity/scorecards", s.answeredScorecards)
	mux.HandleFunc("GET /v2/settings/scorecards", s.listScorecards)
	mux.HandleFunc("GET /v2/settings/trackers", s.listTrackers)
	mux.HandleFunc("GET /v2/library/folders", s.listFolders)
	mux.HandleFunc("GET /v2/library/folder-content", s.folderContent)
	mux.HandleFunc("GET /v2/coaching", s.coaching)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, http.StatusNotFound, "Resource not found: "+r.URL.Path)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == TokenPath {
			s.token(w, r)
			return
		}
		if !s.authorized(r) {
			s.writeError(w, http.StatusUnauthorized, AccessDenied)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// authorized reports whether r carries credentials Gong would accept:
// Basic base64(accessKey:accessKeySecret) or a Bearer token.
func (s *Server) authorized(r *http.Request) bool {
	h := r.Header.Get("Authorization")
	scheme, cred, ok := strings.Cut(h, " ")
	if !ok {
		return false
	}
	switch strings.ToLower(scheme) {
	case "basic":
		raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred))
		if err != nil {
			return false
		}
		key, secret, ok := strings.Cut(string(raw), ":")
		return ok && key == s.cfg.accessKey && secret == s.cfg.accessKeySecret
	case "bearer":
		tok := strings.TrimSpace(cred)
		if tok == "" {
			return false
		}
		if tok == s.cfg.accessToken {
			return true
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.issued[tok]
	}
	return false
}

// requestID returns a Gong-like request reference: 19 lowercase base-36
// characters, deterministic per server.
func (s *Server) requestID() string {
	n := s.seq.Add(1)
	a := strconv.FormatUint(n*0x9e3779b97f4a7c15, 36)
	b := strconv.FormatUint((n+0x5bd1e995)*0xbf58476d1ce4e5b9, 36)
	id := a + b
	for len(id) < 19 {
		id = "0" + id
	}
	return id[:19]
}

// writeError writes Gong's error body {"requestId", "errors": [msg]}.
func (s *Server) writeError(w http.ResponseWriter, status int, msg string) {
	fakeserver.WriteJSON(w, status, object(kv{"requestId", s.requestID()}, kv{"errors", []string{msg}}))
}

func (s *Server) rateLimited(w http.ResponseWriter, _ *http.Request, retryAfter time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(int((retryAfter+time.Second-1)/time.Second)))
	s.writeError(w, http.StatusTooManyRequests, RateLimitExceeded)
}

func (s *Server) serverError(w http.ResponseWriter, _ *http.Request) {
	s.writeError(w, http.StatusInternalServerError, InternalError)
}

// kv is one member of a JSON object written in a fixed order.
type kv struct {
	k string
	v any
}

// object encodes an ordered JSON object. Values that cannot be encoded (none
// of the fake's own) become null.
func object(members ...kv) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.k)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(m.v)
		if err != nil {
			v = []byte("null")
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes()
}
