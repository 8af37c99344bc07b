// Package googledrivetest is an in-process fake of Google Drive's API v3,
// for tests, examples and benchmarks that must run offline. It serves
// Drive's paths under Server.URL (standing for
// https://www.googleapis.com/drive/v3): files (list with a subset of the
// q language, get, alt=media with Range, export), drives, permissions,
// comments, replies, revisions, about, changes and changes/startPageToken;
// and Google's OAuth endpoints: /o/oauth2/v2/auth (a consent page, PKCE
// S256 honoured) and /token (codes, refresh tokens, and service accounts'
// signed JWTs, urn:ietf:params:oauth:grant-type:jwt-bearer).
//
// Answers honour Drive's partial responses (fields, nested as
// files(id,name)); without fields a file is its kind, id, name and
// mimeType, and about, comments and replies refuse a request without
// fields (400, as Drive does). files.list pages by an opaque pageToken
// bound to its query, at most 1000 files a page, 100 when the fields ask
// for permissions (fields=* does). My Drive's files are listed with
// corpora=user (the default); a shared drive's with corpora=drive,
// driveId, includeItemsFromAllDrives and supportsAllDrives.
//
// The changes feed is a log: every create, edit, trash and removal is a
// change at the fake's clock (WithClock); a page token is a position in
// the log, changes/startPageToken the end of it (per shared drive with
// driveId: the changes of that drive only; without it those of My Drive).
// ForgetTokens makes every token handed out so far invalid: Drive's 400.
//
// The server implements fakeserver.Mutable for files. Binary files serve
// their bytes with alt=media (Range, If-Range, an ETag per version;
// WithFileSize, WithFileCutEvery); Google Docs, Sheets, Slides and
// Drawings answer alt=media with 403 fileNotDownloadable and export to the
// formats of about.exportFormats (no Range). API requests need a Bearer
// token the fake issued, or DefaultAccessToken; anything else is Google's
// 401. WithRateLimit answers requests over a window with 403
// userRateLimitExceeded, WithFaults injects faults (429
// rateLimitExceeded, 503 backendError).
package googledrivetest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// Credentials the fake accepts unless options say otherwise. They are
// placeholders, never real secrets.
const (
	DefaultAccessToken  = "TEST_ACCESS_TOKEN"
	DefaultRefreshToken = "TEST_REFRESH_TOKEN"
	DefaultClientID     = "tributary-test.apps.googleusercontent.com"
	DefaultClientSecret = "TEST_CLIENT_SECRET"
	// DefaultEmail is the user the tokens act as.
	DefaultEmail = "agent@example.com"
	// ServiceAccountEmail is the service account of ServiceAccountKey.
	ServiceAccountEmail = "reader@tributary-test.iam.gserviceaccount.com"
	// TokenPath is Google's token endpoint's path (oauth2.googleapis.com/token).
	TokenPath = "/token"
)

// Default volumes.
const (
	DefaultFiles      = 120
	DefaultDrives     = 2
	DefaultDriveFiles = 12
	DefaultFileSize   = 4096
)

// Server is a running fake of Google Drive. Close it when done.
type Server struct {
	*fakeserver.Server

	cfg   config
	clock *fakeserver.Clock
	oauth *fakeserver.OAuthServer
	win   *fakeserver.Window

	tokens fakeserver.Tokens

	mu     sync.Mutex // serializes mutations and the log
	files  fakeserver.Table[file]
	drives fakeserver.Table[drive]
	log    []change
	forgot int
	nextID int
	sums   map[string]string // md5 of a file version's bytes
}

type config struct {
	faults                   Faults
	files, drives, perDrive  int
	clock                    *fakeserver.Clock
	rateLimit                int
	ratePer, tokenTTL        time.Duration
	fileSize, cutEvery       int
	accessToken, clientID    string
	clientSecret, refreshTok string
}

// Faults configures injected faults; see fakeserver.Faults.
type Faults = fakeserver.Faults

// Option configures a Server.
type Option func(*config)

// WithFiles sets the number of files of My Drive (default 120; folders,
// Google Docs, Sheets, Slides and binary files in turn).
func WithFiles(n int) Option { return func(c *config) { c.files = max(n, 0) } }

// WithDrives sets the number of shared drives (default 2) and the files
// of each (default 12).
func WithDrives(n, files int) Option {
	return func(c *config) { c.drives, c.perDrive = max(n, 0), max(files, 0) }
}

// WithClock sets the clock of mutations, changes and tokens (default: one
// that starts at the current time and moves only when advanced).
func WithClock(clock *fakeserver.Clock) Option { return func(c *config) { c.clock = clock } }

// WithFaults injects faults into API responses.
func WithFaults(f Faults) Option { return func(c *config) { c.faults = f } }

// WithRateLimit answers more than n requests per window of length per
// (on the fake's clock) with 403 userRateLimitExceeded.
func WithRateLimit(n int, per time.Duration) Option {
	return func(c *config) { c.rateLimit, c.ratePer = n, per }
}

// WithTokenTTL sets how long an issued access token lives (default an
// hour, Google's).
func WithTokenTTL(d time.Duration) Option { return func(c *config) { c.tokenTTL = d } }

// WithFileSize sets the size of every binary file (default 4096 bytes;
// the bytes are generated as they are read: a GiB costs no memory).
func WithFileSize(n int) Option { return func(c *config) { c.fileSize = max(n, 1) } }

// WithFileCutEvery drops the connection after every n bytes a file
// response sends, so that a download must resume with Range.
func WithFileCutEvery(n int) Option { return func(c *config) { c.cutEvery = max(n, 0) } }

// New starts a fake.
func New(opts ...Option) *Server {
	cfg := config{files: DefaultFiles, drives: DefaultDrives, perDrive: DefaultDriveFiles, fileSize: DefaultFileSize, tokenTTL: time.Hour,
		accessToken: DefaultAccessToken, refreshTok: DefaultRefreshToken, clientID: DefaultClientID, clientSecret: DefaultClientSecret}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.clock == nil {
		cfg.clock = fakeserver.NewClock(time.Now().UTC().Truncate(time.Second))
	}
	s := &Server{cfg: cfg, clock: cfg.clock, sums: map[string]string{},
		tokens: fakeserver.Tokens{Now: cfg.clock.Now, TTL: cfg.tokenTTL, Reusable: true,
			AccessFormat: "ya29.fake-access-%d", RefreshFormat: "1//fake-refresh-%d"}}
	s.tokens.Accept(cfg.accessToken, cfg.refreshTok)
	if cfg.rateLimit > 0 {
		s.win = &fakeserver.Window{Limit: cfg.rateLimit, Per: cfg.ratePer}
	}
	s.generate()
	s.oauth = fakeserver.NewOAuthServer(fakeserver.OAuthConfig{Vendor: "Google", AuthorizePath: "/o/oauth2/v2/auth", TokenPath: TokenPath,
		ClientID: cfg.clientID, ClientSecret: cfg.clientSecret, PKCE: true, Now: s.clock.Now,
		Issue: func(*http.Request, fakeserver.Grant) map[string]any { return s.issue(true) }})
	s.Server = fakeserver.New(s.oauth.Wrap(s.routes()), http.NotFoundHandler(), cfg.faults,
		fakeserver.Vendor{RateLimited: func(w http.ResponseWriter, _ *http.Request, after time.Duration) {
			w.Header().Set("Retry-After", fmt.Sprint(int(after/time.Second)))
			writeErr(w, http.StatusTooManyRequests, "rateLimitExceeded", "Rate Limit Exceeded")
		}, ServerError: func(w http.ResponseWriter, _ *http.Request) {
			writeErr(w, http.StatusServiceUnavailable, "backendError", "Backend Error")
		}})
	return s
}

// TokenURL is the token endpoint on the fake.
func (s *Server) TokenURL() string { return s.URL + TokenPath }

// issue issues a new access token, with a refresh token when asked.
func (s *Server) issue(withRefresh bool) map[string]any {
	out := map[string]any{"token_type": "Bearer", "expires_in": int(s.cfg.tokenTTL / time.Second),
		"scope": "https://www.googleapis.com/auth/drive.readonly"}
	if withRefresh {
		out["access_token"], out["refresh_token"] = s.tokens.Mint()
	} else {
		out["access_token"] = s.tokens.MintAccess()
	}
	return out
}

// ExpireAccessTokens makes every access token issued so far, and the
// default one, invalid: the next request with one gets 401.
func (s *Server) ExpireAccessTokens() { s.tokens.ExpireAll() }

// grant answers the token endpoint's other grants: refresh_token (Google
// keeps the refresh token: none comes back) and a service account's
// signed JWT.
func (s *Server) grant(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	tokenErr := func(code, desc string) {
		fakeserver.JSON(w, http.StatusBadRequest, map[string]any{"error": code, "error_description": desc})
	}
	switch r.PostForm.Get("grant_type") {
	case "refresh_token":
		id, secret, ok := r.BasicAuth()
		if !ok {
			id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		}
		if id != s.cfg.clientID || secret != s.cfg.clientSecret {
			fakeserver.JSON(w, http.StatusUnauthorized, map[string]any{"error": "invalid_client", "error_description": "Unauthorized"})
			return
		}
		if !s.tokens.Redeem(r.PostForm.Get("refresh_token")) {
			tokenErr("invalid_grant", "Token has been expired or revoked.")
			return
		}
		fakeserver.JSON(w, http.StatusOK, s.issue(false))
	case "urn:ietf:params:oauth:grant-type:jwt-bearer":
		if why := s.checkAssertion(r.PostForm.Get("assertion")); why != "" {
			tokenErr("invalid_grant", why)
			return
		}
		fakeserver.JSON(w, http.StatusOK, s.issue(false))
	default:
		tokenErr("unsupported_grant_type", "Invalid grant_type: "+r.PostForm.Get("grant_type"))
	}
}

var (
	saOnce sync.Once
	saKey  *rsa.PrivateKey
)

func serviceKey() *rsa.PrivateKey {
	saOnce.Do(func() {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		saKey = k
	})
	return saKey
}

// ServiceAccountKey returns the JSON key of the service account the fake
// accepts (ServiceAccountEmail; its RSA key is made once per process), as
// Google Cloud's console downloads one.
func ServiceAccountKey() string {
	der, _ := x509.MarshalPKCS8PrivateKey(serviceKey())
	b, _ := json.Marshal(map[string]string{"type": "service_account", "project_id": "tributary-test", "private_key_id": "fake-key-1",
		"private_key": string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), "client_email": ServiceAccountEmail,
		"client_id": "100000000000000000001", "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": "https://oauth2.googleapis.com/token"})
	return string(b)
}

// checkAssertion verifies a service account's JWT: signed RS256 by the
// service account's key, issued by it for Google's token endpoint, with
// the drive.readonly scope: "" when it is, else Google's description of
// what is wrong.
func (s *Server) checkAssertion(jwt string) string {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return "Invalid JWT: Token must be a short-lived token and in a reasonable timeframe"
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return "Invalid JWT Signature."
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(&serviceKey().PublicKey, crypto.SHA256, sum[:], sig) != nil {
		return "Invalid JWT Signature."
	}
	raw, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var claims struct {
		Iss, Scope, Aud string
		Exp             int64
	}
	if json.Unmarshal(raw, &claims) != nil || claims.Iss != ServiceAccountEmail || !strings.HasSuffix(claims.Aud, TokenPath) {
		return "Invalid JWT: the claims do not name this service account and endpoint"
	}
	if !strings.Contains(claims.Scope, "drive") {
		return "Invalid OAuth scope or ID token audience provided."
	}
	return ""
}

// authorized reports whether r carries a token the fake accepts, and
// answers Google's 401 when not.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && s.tokens.Valid(tok) {
		return true
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="https://accounts.google.com/", error="invalid_token"`)
	fakeserver.JSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{"code": 401,
		"message": "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
		"errors":  []any{map[string]any{"message": "Invalid Credentials", "domain": "global", "reason": "authError", "location": "Authorization", "locationType": "header"}},
		"status":  "UNAUTHENTICATED"}})
	return false
}

// limit counts r against the enforced window and answers 403
// userRateLimitExceeded when it is spent.
func (s *Server) limit(w http.ResponseWriter) bool {
	if s.win == nil {
		return true
	}
	if _, _, ok := s.win.Take(s.clock.Now()); !ok {
		writeErr(w, http.StatusForbidden, "userRateLimitExceeded", "User Rate Limit Exceeded")
		return false
	}
	return true
}

// writeErr answers Google's error body.
func writeErr(w http.ResponseWriter, status int, reason, msg string) {
	domain := "global"
	if strings.Contains(reason, "RateLimit") {
		domain = "usageLimits"
	}
	fakeserver.JSON(w, status, map[string]any{"error": map[string]any{"code": status, "message": msg,
		"errors": []any{map[string]any{"message": msg, "domain": domain, "reason": reason}}}})
}
