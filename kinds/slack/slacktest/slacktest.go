// Package slacktest is an in-process fake of Slack's Web API, for tests,
// examples and benchmarks that must run offline. It serves Slack's
// methods under Server.URL and under Server.URL/api (as
// https://slack.com/api): auth.test, users.list, users.info,
// conversations.list, .info, .history, .replies and .members, files.list,
// files.info, team.info and search.messages, and the files' bytes at
// /files-pri/… (as files.slack.com, whose URLs the records carry).
//
// Every method answers HTTP 200, a failure as {"ok": false, "error":
// code}: not_authed without a token, invalid_auth with an unknown one,
// channel_not_found, user_not_found, file_not_found, invalid_cursor,
// missing_scope (with needed, for the methods WithMissingScope names),
// not_allowed_token_type (search.messages with a bot token). Lists page
// with cursor and limit (response_metadata.next_cursor, "" at the end);
// files.list and search.messages by page and count (paging.pages). As for
// an app outside the Slack Marketplace, conversations.history and
// .replies return at most 15 messages a page (WithMarketplace lifts it to
// 999) and, WithRateLimits, take one request a minute each on the fake's
// clock; every other method its tier (20, 50 or 100 a minute). A refused
// request is Slack's 429 with Retry-After.
//
// The server implements fakeserver.Mutable for channels and files (a
// deleted one is gone), at the fake's clock (WithClock); Deactivate keeps
// a user with deleted: true and Archive a channel with is_archived: true,
// as Slack does; Post adds a message to a channel and Reply a reply to a
// thread. /oauth/v2/authorize is a consent
// page and /api/oauth.v2.access answers with the bot token, and the user
// token under authed_user, as Slack's OAuth v2 does. WithFaults injects
// faults.
package slacktest

import (
	"fmt"
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
	DefaultBotToken     = "xoxb-test-bot-token"
	DefaultUserToken    = "xoxp-test-user-token"
	DefaultClientID     = "1111.2222"
	DefaultClientSecret = "TEST_CLIENT_SECRET"
	TeamID              = "T0FAKE001"
	TeamDomain          = "acme"
	// FileHost is where records say a file's bytes are, as Slack's do.
	FileHost = "https://files.slack.com"
)

// Default volumes.
const (
	DefaultUsers    = 20
	DefaultChannels = 6
	DefaultMessages = 20 // per channel
	DefaultFiles    = 12
)

// Server is a running fake of Slack. Close it when done.
type Server struct {
	*fakeserver.Server

	cfg   config
	clock *fakeserver.Clock
	oauth *fakeserver.OAuthServer

	mu       sync.Mutex // serializes mutations and token changes
	users    fakeserver.Table[user]
	channels fakeserver.Table[channel]
	messages fakeserver.Table[message] // by channel/ts
	replies  fakeserver.Table[message] // by channel/thread_ts/ts
	files    fakeserver.Table[file]
	tokens   map[string]bool // issued token → is a user token
	seq      int
	created  int                           // records Create made, for their ids
	wins     map[string]*fakeserver.Window // by method, WithRateLimits
}

type config struct {
	faults                           Faults
	users, channels, messages, files int
	clock                            *fakeserver.Clock
	marketplace, rateLimits          bool
	fileSize, cutEvery               int
	fileHost, fileRedirect           string
	missing                          map[string]string
}

// Faults configures injected faults; see fakeserver.Faults.
type Faults = fakeserver.Faults

// Option configures a Server.
type Option func(*config)

// WithUsers sets the number of users (default 20).
func WithUsers(n int) Option { return func(c *config) { c.users = max(n, 1) } }

// WithChannels sets the number of channels (default 6).
func WithChannels(n int) Option { return func(c *config) { c.channels = max(n, 0) } }

// WithMessages sets the number of messages of each channel (default 20);
// every fifth has a thread of three replies.
func WithMessages(n int) Option { return func(c *config) { c.messages = max(n, 0) } }

// WithFiles sets the number of files (default 12).
func WithFiles(n int) Option { return func(c *config) { c.files = max(n, 0) } }

// WithClock sets the clock of mutations, feeds and rate windows (default:
// one that starts at the current time and moves only when advanced).
func WithClock(clock *fakeserver.Clock) Option { return func(c *config) { c.clock = clock } }

// WithFaults injects faults into API responses.
func WithFaults(f Faults) Option { return func(c *config) { c.faults = f } }

// WithMarketplace serves an app in the Slack Marketplace: pages of up to
// 999 messages, and Tier 3 (50 a minute) on conversations.history and
// .replies.
func WithMarketplace() Option { return func(c *config) { c.marketplace = true } }

// WithRateLimits enforces each method's tier, per minute of the fake's
// clock (a fakeserver.NewRealClock for a client that paces itself).
func WithRateLimits() Option { return func(c *config) { c.rateLimits = true } }

// WithFileSize sets the size of every file (default 2048).
func WithFileSize(n int) Option { return func(c *config) { c.fileSize = max(n, 1) } }

// WithFileCutEvery drops the connection after every n bytes a file
// response sends, so that a download must resume with Range.
func WithFileCutEvery(n int) Option { return func(c *config) { c.cutEvery = n } }

// WithFileHost writes files' url_private_download on this origin instead
// of FileHost (a host that must never receive the token).
func WithFileHost(origin string) Option { return func(c *config) { c.fileHost = origin } }

// WithFileRedirect answers every file request with a 302 to the same path
// on this origin.
func WithFileRedirect(origin string) Option { return func(c *config) { c.fileRedirect = origin } }

// WithMissingScope answers method with missing_scope, needed being the
// scope it lacks.
func WithMissingScope(method, needed string) Option {
	return func(c *config) {
		if c.missing == nil {
			c.missing = map[string]string{}
		}
		c.missing[method] = needed
	}
}

// tiers are the requests a minute each method takes (WithRateLimits).
var tiers = map[string]int{
	"users.list": 20, "conversations.list": 20, "search.messages": 20, "conversations.history": 1, "conversations.replies": 1,
	"conversations.info": 50, "files.list": 50, "team.info": 50, "users.info": 100, "files.info": 100, "conversations.members": 100, "auth.test": 100,
}

// New starts a fake.
func New(opts ...Option) *Server {
	cfg := config{users: DefaultUsers, channels: DefaultChannels, messages: DefaultMessages, files: DefaultFiles, fileSize: 2048, fileHost: FileHost}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.clock == nil {
		cfg.clock = fakeserver.NewClock(time.Now().UTC().Truncate(time.Second))
	}
	s := &Server{cfg: cfg, clock: cfg.clock, tokens: map[string]bool{DefaultBotToken: false, DefaultUserToken: true}, wins: map[string]*fakeserver.Window{}}
	if cfg.rateLimits {
		for m, n := range tiers {
			if cfg.marketplace && n == 1 {
				n = 50
			}
			s.wins[m] = &fakeserver.Window{Limit: n, Per: time.Minute}
		}
	}
	s.generate()
	s.oauth = fakeserver.NewOAuthServer(fakeserver.OAuthConfig{Vendor: "Slack", AuthorizePath: "/oauth/v2/authorize", TokenPath: "/api/oauth.v2.access",
		ClientID: DefaultClientID, ClientSecret: DefaultClientSecret, Now: s.clock.Now, Issue: s.issue})
	s.Server = fakeserver.New(s.oauth.Wrap(http.HandlerFunc(s.serve)), nil, cfg.faults,
		fakeserver.Vendor{RateLimited: s.throttled, ServerError: func(w http.ResponseWriter, _ *http.Request) {
			fakeserver.JSON(w, http.StatusServiceUnavailable, map[string]any{"ok": false, "error": "service_unavailable"})
		}})
	return s
}

// TokenURL is the OAuth token endpoint on the fake.
func (s *Server) TokenURL() string { return s.URL + "/api/oauth.v2.access" }

// issue answers an OAuth v2 exchange: a bot token, and a user token
// under authed_user, with the team nested as Slack nests it.
func (s *Server) issue(*http.Request, fakeserver.Grant) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	bot, usr := fmt.Sprintf("xoxb-fake-%d", s.seq), fmt.Sprintf("xoxp-fake-%d", s.seq)
	s.tokens[bot], s.tokens[usr] = false, true
	return map[string]any{"ok": true, "app_id": "A0FAKE001", "token_type": "bot", "access_token": bot, "bot_user_id": "U0BOT0001",
		"scope": "channels:read,groups:read,channels:history,groups:history,users:read,users:read.email,files:read,team:read",
		"team":  map[string]any{"id": TeamID, "name": "Acme"}, "enterprise": nil, "is_enterprise_install": false,
		"authed_user": map[string]any{"id": "U00000001", "scope": "search:read", "access_token": usr, "token_type": "user"}}
}

// token reads r's token: its Bearer header, or the token form field;
// known says whether the fake issued it, user whether it is a user token.
func (s *Server) token(r *http.Request) (tok string, known, user bool) {
	tok, _ = strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if tok == "" {
		tok = r.FormValue("token")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	user, known = s.tokens[tok]
	return tok, known, user
}

// throttled writes Slack's 429.
func (s *Server) throttled(w http.ResponseWriter, _ *http.Request, retryAfter time.Duration) {
	secs := max(int((retryAfter+time.Second-1)/time.Second), 1)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	fakeserver.JSON(w, http.StatusTooManyRequests, map[string]any{"ok": false, "error": "ratelimited"})
}

// fail answers Slack's ok:false, with HTTP 200 as Slack does.
func fail(w http.ResponseWriter, code string, extra ...any) {
	body := map[string]any{"ok": false, "error": code}
	for i := 0; i+1 < len(extra); i += 2 {
		body[extra[i].(string)] = extra[i+1]
	}
	fakeserver.JSON(w, http.StatusOK, body)
}

// ok answers a success: members of v (an object) beside ok: true.
func ok(w http.ResponseWriter, v map[string]any) {
	v["ok"] = true
	fakeserver.JSON(w, http.StatusOK, v)
}
