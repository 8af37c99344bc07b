// Package notiontest is an in-process fake of Notion's API (version
// 2025-09-03), for tests, examples and benchmarks that must run offline.
// It serves Notion's paths under Server.URL (standing for
// https://api.notion.com): users, search, pages, data sources and their
// queries, blocks and their children, comments; and Notion's OAuth
// endpoints: /v1/oauth/authorize (a consent page) and /v1/oauth/token
// (the client in HTTP Basic, the body in JSON, a new refresh token with
// every refresh, the old one refused).
//
// Every request needs the Notion-Version header (400 missing_version
// without it) and a Bearer token the fake issued, or DefaultToken
// (Notion's 401 unauthorized otherwise). Lists page by an opaque
// start_cursor (in the query of a GET, the JSON body of a POST), at most
// 100 a page, answering next_cursor and has_more. Times are on the fake's
// clock (WithClock), rounded to the minute as Notion's are. Search
// answers pages and data sources, the most recently edited first unless
// sort says otherwise, and leaves out what is in the trash. A file block's
// URL is signed and served by the second origin (FilesURL, standing for
// S3): it expires one to two hours after the block was read (signed once
// an hour, WithFileURLTTL), and is then refused with S3's 403.
//
// The server implements fakeserver.Mutable for pages and data source
// rows: an update edits the title and the edit time, a delete moves the
// page to the trash. WithRateLimit answers requests over a window with
// Notion's 429 rate_limited and Retry-After; WithFaults injects faults
// (429 rate_limited, 529 service_overload).
package notiontest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// Credentials the fake accepts unless options say otherwise. They are
// placeholders, never real secrets.
const (
	DefaultToken        = "ntn_TEST_INTEGRATION_TOKEN"
	DefaultClientID     = "tributary-test-notion-client"
	DefaultClientSecret = "secret_TEST_CLIENT_SECRET"
	// WorkspaceID and BotID name the workspace and the bot of every token.
	WorkspaceID = "0f3b5c1e-0000-4000-8000-00000000a001"
	BotID       = "0f3b5c1e-0000-4000-8000-00000000b001"
	// TokenPath is Notion's token endpoint.
	TokenPath = "/v1/oauth/token"
	// Version is the only Notion-Version the fake serves.
	Version = "2025-09-03"
)

// Default volumes.
const (
	DefaultPages       = 60
	DefaultDataSources = 2
	DefaultFileSize    = 4096
	DefaultURLTTL      = time.Hour
)

// Server is a running fake of Notion. Close it when done.
type Server struct {
	*fakeserver.Server

	cfg   config
	clock *fakeserver.Clock
	oauth *fakeserver.OAuthServer
	win   *fakeserver.Window // WithRateLimit's (no limit without it)

	mu       sync.Mutex // serializes mutations, children and the search orders
	users    []user
	sources  fakeserver.Table[source]
	pages    fakeserver.Table[page]
	blocks   fakeserver.Table[block]
	comments fakeserver.Table[comment]
	children map[string][]string // parent id → block ids, in order
	orders   map[string][]edited // search orders, by version and query
	version  atomic.Int64        // moves with every mutation
	tokens   fakeserver.Tokens   // what the token endpoint issued (DefaultToken is the integration's, apart)
	nextID   int
	nblocks  int // blocks made
}

type config struct {
	faults             Faults
	pages, sources     int
	clock              *fakeserver.Clock
	rateLimit          int
	ratePer, urlTTL    time.Duration
	fileSize, cutEvery int
}

// Faults configures injected faults; see fakeserver.Faults.
type Faults = fakeserver.Faults

// Option configures a Server.
type Option func(*config)

// WithPages sets the number of pages outside data sources (default 60).
func WithPages(n int) Option { return func(c *config) { c.pages = max(n, 0) } }

// WithDataSources sets the number of data sources (default 2), each with
// ten rows.
func WithDataSources(n int) Option { return func(c *config) { c.sources = max(n, 0) } }

// WithClock sets the clock of times, mutations, tokens and signed URLs
// (default: one that starts at a fixed date and moves only when advanced).
func WithClock(clock *fakeserver.Clock) Option { return func(c *config) { c.clock = clock } }

// WithFaults injects faults into API responses.
func WithFaults(f Faults) Option { return func(c *config) { c.faults = f } }

// WithRateLimit answers more than n requests per window of length per (on
// the fake's clock) with 429 rate_limited.
func WithRateLimit(n int, per time.Duration) Option {
	return func(c *config) { c.rateLimit, c.ratePer = n, per }
}

// WithFileSize sets the size of every file (default 4096 bytes).
func WithFileSize(n int) Option { return func(c *config) { c.fileSize = max(n, 1) } }

// WithFileCutEvery drops the connection after every n bytes a file
// response sends, so that a download must resume with Range.
func WithFileCutEvery(n int) Option { return func(c *config) { c.cutEvery = max(n, 0) } }

// WithFileURLTTL sets how long a signed file URL lives (default an hour).
func WithFileURLTTL(d time.Duration) Option { return func(c *config) { c.urlTTL = d } }

// Epoch is where the default clock starts: the data is dated before it.
var Epoch = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// New starts a fake.
func New(opts ...Option) *Server {
	cfg := config{pages: DefaultPages, sources: DefaultDataSources, fileSize: DefaultFileSize, urlTTL: DefaultURLTTL}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.clock == nil {
		cfg.clock = fakeserver.NewClock(Epoch)
	}
	s := &Server{cfg: cfg, clock: cfg.clock, children: map[string][]string{}, orders: map[string][]edited{},
		tokens: fakeserver.Tokens{Now: cfg.clock.Now, AccessFormat: "ntn_fake_access_%d", RefreshFormat: "nrt_fake_refresh_%d"}}
	s.win = &fakeserver.Window{Limit: cfg.rateLimit, Per: cfg.ratePer}
	s.generate()
	s.oauth = fakeserver.NewOAuthServer(fakeserver.OAuthConfig{Vendor: "Notion", AuthorizePath: "/v1/oauth/authorize", TokenPath: TokenPath,
		ClientID: DefaultClientID, ClientSecret: DefaultClientSecret, BasicOnly: true, JSONBody: true, Now: s.clock.Now,
		Issue: func(*http.Request, fakeserver.Grant) map[string]any { return s.issue() }})
	s.Server = fakeserver.New(s.oauth.Wrap(s.routes()), http.HandlerFunc(s.serveFile), cfg.faults,
		fakeserver.Vendor{RateLimited: rateLimited, ServerError: func(w http.ResponseWriter, _ *http.Request) {
			writeErr(w, 529, "service_overload", "Notion is unavailable due to high load. Please try again later.")
		}})
	return s
}

// TokenURL is the token endpoint on the fake.
func (s *Server) TokenURL() string { return s.URL + TokenPath }

// issue issues a new access token and refresh token: Notion's answer
// says no expiry.
func (s *Server) issue() map[string]any {
	at, rt := s.tokens.Mint()
	return map[string]any{"access_token": at, "token_type": "bearer", "refresh_token": rt, "bot_id": BotID,
		"workspace_id": WorkspaceID, "workspace_name": "Acme (fake)", "workspace_icon": nil, "duplicated_template_id": nil,
		"owner": map[string]any{"type": "user", "user": map[string]any{"object": "user", "id": userID(0)}}, "request_id": "fake-token-request"}
}

// ExpireAccessTokens makes every access token issued so far invalid: the
// next request with one gets 401 (DefaultToken, an integration's, stays
// valid).
func (s *Server) ExpireAccessTokens() { s.tokens.ExpireAll() }

// grant answers the token endpoint's refresh grant (the OAuth server has
// refused a body that is not JSON): Notion rotates the refresh token, the
// old one is refused from then on.
func (s *Server) grant(w http.ResponseWriter, r *http.Request) {
	if id, secret, ok := r.BasicAuth(); !ok || id != DefaultClientID || secret != DefaultClientSecret {
		fakeserver.JSON(w, http.StatusUnauthorized, map[string]any{"error": "invalid_client", "error_description": "Client authentication failed."})
		return
	}
	var body map[string]any
	_ = fakeserver.ReadJSON(r, &body)
	refresh, _ := body["refresh_token"].(string)
	switch {
	case body["grant_type"] != "refresh_token":
		fakeserver.JSON(w, http.StatusBadRequest, map[string]any{"error": "unsupported_grant_type", "error_description": "Unsupported grant_type."})
	case !s.tokens.Redeem(refresh):
		fakeserver.JSON(w, http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "Invalid refresh token."})
	default:
		fakeserver.JSON(w, http.StatusOK, s.issue())
	}
}

// authorized reports whether r carries the version header and a token
// the fake accepts, and answers Notion's error when not.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if v := r.Header.Get("Notion-Version"); v != Version {
		if v == "" {
			writeErr(w, http.StatusBadRequest, "missing_version", "Notion-Version header failed validation: Notion-Version header should be defined, instead was `undefined`.")
		} else {
			writeErr(w, http.StatusBadRequest, "validation_error", "Notion-Version header failed validation: this fake serves "+Version+" only.")
		}
		return false
	}
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && (tok == DefaultToken || s.tokens.Valid(tok)) {
		return true
	}
	writeErr(w, http.StatusUnauthorized, "unauthorized", "API token is invalid.")
	return false
}

// rateLimited answers Notion's 429: Retry-After in whole seconds, at
// least one.
func rateLimited(w http.ResponseWriter, _ *http.Request, after time.Duration) {
	w.Header().Set("Retry-After", fmt.Sprint(max(int((after+time.Second-1)/time.Second), 1)))
	writeErr(w, http.StatusTooManyRequests, "rate_limited", "You have been rate limited. Please try again in a few minutes.")
}

// sign is the signature of a file URL: the block and its expiry.
func sign(block string, expires int64) string {
	m := hmac.New(sha256.New, []byte("notiontest"))
	fmt.Fprintf(m, "%s:%d", block, expires)
	return hex.EncodeToString(m.Sum(nil))[:32]
}

// fileURL returns a signed URL of a file block's bytes and its expiry.
func (s *Server) fileURL(block string) (string, time.Time) {
	// Signed once per TTL: a URL read twice within it is the same (a copy
	// of the blocks converges), and lives between one and two TTLs.
	exp := s.clock.Now().Truncate(s.cfg.urlTTL).Add(2 * s.cfg.urlTTL)
	return fmt.Sprintf("%s/secure/%s/report.pdf?X-Amz-Expires=%d&X-Amz-Signature=%s&expires=%d", s.FilesURL, block,
		int(s.cfg.urlTTL/time.Second), sign(block, exp.Unix()), exp.Unix()), exp
}

// serveFile serves a file's bytes at its signed URL, as S3 does: no
// credentials, a 403 once it has expired or when it is not signed.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/secure/")
	block, _, _ := strings.Cut(rest, "/")
	var exp int64
	fmt.Sscan(r.URL.Query().Get("expires"), &exp)
	switch {
	case !ok || !hmac.Equal([]byte(r.URL.Query().Get("X-Amz-Signature")), []byte(sign(block, exp))):
		s3Error(w, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.")
		return
	case s.clock.Now().Unix() > exp:
		s3Error(w, "AccessDenied", "Request has expired")
		return
	}
	content, ok := s.FileContent(block)
	if !ok {
		s3Error(w, "NoSuchKey", "The specified key does not exist.")
		return
	}
	fakeserver.ServeFile(w, r, fakeserver.File{Name: "report.pdf", ContentType: "application/pdf", ETag: `"` + sign(block, 0) + `"`,
		ModTime: Epoch, Content: content, CutEvery: s.cfg.cutEvery})
}

func s3Error(w http.ResponseWriter, code, msg string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(http.StatusForbidden)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message></Error>`, code, msg)
}

// FileContent returns the bytes of a file block (deterministic, of the
// fake's file size).
func (s *Server) FileContent(block string) ([]byte, bool) {
	b, ok := s.blocks.Live(block)
	if !ok || b.typ != "pdf" {
		return nil, false
	}
	out := make([]byte, s.cfg.fileSize)
	for i := range out {
		out[i] = byte(i*31 + len(block) + i/257)
	}
	return out, true
}

// writeErr answers Notion's error body.
func writeErr(w http.ResponseWriter, status int, code, msg string) {
	fakeserver.JSON(w, status, map[string]any{"object": "error", "status": status, "code": code, "message": msg,
		"request_id": "fake-" + code})
}
