// Package stripetest is an in-process fake of Stripe's REST API (at the
// version the connector pins), for tests, examples and benchmarks that
// must run offline. It serves, under Server.URL as https://api.stripe.com:
// the lists and gets of customers, invoices, charges, subscriptions,
// payment_intents, products, prices, refunds, balance_transactions,
// disputes, payouts, events and files, the Search API of customers,
// invoices, charges, subscriptions, payment_intents, products and prices,
// /v1/balance, and a file's bytes at /v1/files/{id}/contents (as
// files.stripe.com, whose URLs the records carry).
//
// Lists are newest first and page with limit (1 to 100, default 10) and
// starting_after or ending_before (an object's id), has_more saying
// whether more follow; created[gt|gte|lt|lte] and the documented filters
// narrow them. A search pages with page = the previous answer's
// next_page. Errors are Stripe's {"error": {type, code, message, param}}
// with a Request-Id header: 401 without a key or with an unknown one, 404
// resource_missing, 400 parameter_unknown, parameter_invalid_integer and
// search_query_invalid; a refused request (WithRateLimit, or
// Faults.RateLimitFirst) is a 429 rate_limit with Retry-After.
//
// The server implements fakeserver.Mutable for customers, invoices,
// subscriptions, products and prices at the fake's clock (WithClock):
// every change is an event of /v1/events (customer.created, .updated
// with previous_attributes, .deleted; a deleted customer, product, price
// or draft invoice leaves its list; a deleted subscription is canceled and
// leaves the default list), and events older than 30 days on the clock
// are forgotten, as Stripe's are (a get of one, or a list's cursor on
// one, is 404 resource_missing). Requests must carry the key and may
// carry Stripe-Account (an account the fake knows: WithAccount); the log
// keeps them (fakeserver.Server.Requests). /oauth/authorize is a Connect
// consent page and /oauth/token answers with the account's key and its
// stripe_user_id, as connect.stripe.com does. WithFaults injects faults.
package stripetest

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

// Credentials and identities the fake accepts unless options say
// otherwise. They are placeholders, never real secrets.
const (
	DefaultKey          = "sk_test_fake_key"
	DefaultClientID     = "ca_FAKECLIENT"
	DefaultClientSecret = "sk_test_fake_platform"
	ConnectedAccount    = "acct_1FAKECONNECTED"
	// FileHost is where records say a file's bytes are, as Stripe's do.
	FileHost = "https://files.stripe.com"
	// Version is the API version the fake answers in.
	Version = "2023-08-16"
)

// DefaultCustomers is the number of customers by default; the other
// entities are sized from it.
const DefaultCustomers = 30

// Retention is how long the fake keeps events.
const Retention = 30 * 24 * time.Hour

// Server is a running fake of Stripe. Close it when done.
type Server struct {
	*fakeserver.Server

	cfg   config
	clock *fakeserver.Clock
	oauth *fakeserver.OAuthServer

	mu      sync.Mutex // serializes mutations, events and keys
	tables  map[string]*fakeserver.Table[object]
	events  fakeserver.Table[object]
	keys    map[string]bool
	seq     int
	limiter *fakeserver.Window
}

// object is a Stripe object as its JSON renders it; a stored one is never
// changed in place (a change stores a copy).
type object = map[string]any

type config struct {
	faults             Faults
	customers          int
	clock              *fakeserver.Clock
	fileSize, cutEvery int
	rateLimit          int
	accounts           []string
}

// Faults configures injected faults; see fakeserver.Faults.
type Faults = fakeserver.Faults

// Option configures a Server.
type Option func(*config)

// WithCustomers sets the number of customers (default 30); every other
// entity holds about as many (products and prices a third, files a tenth).
func WithCustomers(n int) Option { return func(c *config) { c.customers = max(n, 1) } }

// WithClock sets the clock of mutations and events (default: one that
// starts at the current time and moves only when advanced).
func WithClock(clock *fakeserver.Clock) Option { return func(c *config) { c.clock = clock } }

// WithFaults injects faults into API responses.
func WithFaults(f Faults) Option { return func(c *config) { c.faults = f } }

// WithRateLimit refuses more than n requests a second of the fake's clock
// with Stripe's 429 (a fakeserver.NewRealClock for a client that paces
// itself).
func WithRateLimit(n int) Option { return func(c *config) { c.rateLimit = n } }

// WithAccount adds a connected account the fake accepts in Stripe-Account
// (ConnectedAccount is always accepted).
func WithAccount(id string) Option { return func(c *config) { c.accounts = append(c.accounts, id) } }

// WithFileSize sets the size of every file (default 2048).
func WithFileSize(n int) Option { return func(c *config) { c.fileSize = max(n, 1) } }

// WithFileCutEvery drops the connection after every n bytes a file
// response sends, so that a download must resume with Range.
func WithFileCutEvery(n int) Option { return func(c *config) { c.cutEvery = n } }

// New starts a fake.
func New(opts ...Option) *Server {
	cfg := config{customers: DefaultCustomers, fileSize: 2048}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.clock == nil {
		cfg.clock = fakeserver.NewClock(time.Now().UTC().Truncate(time.Second))
	}
	s := &Server{cfg: cfg, clock: cfg.clock, keys: map[string]bool{DefaultKey: true}, tables: map[string]*fakeserver.Table[object]{}}
	if cfg.rateLimit > 0 {
		s.limiter = &fakeserver.Window{Limit: cfg.rateLimit, Per: time.Second}
	}
	s.generate()
	s.oauth = fakeserver.NewOAuthServer(fakeserver.OAuthConfig{Vendor: "Stripe", AuthorizePath: "/oauth/authorize", TokenPath: "/oauth/token",
		ClientID: DefaultClientID, ClientSecret: DefaultClientSecret, Now: s.clock.Now, Issue: s.issue})
	var h http.Handler = http.HandlerFunc(s.serve)
	if s.limiter != nil {
		h = fakeserver.Enforce(s.limiter, s.clock.Now, s.throttled, h)
	}
	s.Server = fakeserver.New(s.oauth.Wrap(h), nil, cfg.faults,
		fakeserver.Vendor{RateLimited: s.throttled, ServerError: func(w http.ResponseWriter, r *http.Request) {
			s.fail(w, r, http.StatusInternalServerError, "api_error", "", "An unknown error occurred", "")
		}})
	return s
}

// TokenURL is the OAuth token endpoint on the fake.
func (s *Server) TokenURL() string { return s.URL + "/oauth/token" }

// issue answers a Connect exchange: the connected account's key and id.
func (s *Server) issue(*http.Request, fakeserver.Grant) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	key := fmt.Sprintf("sk_test_connected_%d", s.seq)
	s.keys[key] = true
	return map[string]any{"access_token": key, "token_type": "bearer", "scope": "read_only", "livemode": false,
		"refresh_token": fmt.Sprintf("rt_fake_%d", s.seq), "stripe_user_id": ConnectedAccount, "stripe_publishable_key": "pk_test_connected"}
}

// authorized checks r's key (Bearer, or Basic with the key as user) and
// Stripe-Account, answering Stripe's 401 or 403 when they fail.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		key, _, _ = r.BasicAuth()
	}
	s.mu.Lock()
	known := s.keys[key]
	s.mu.Unlock()
	switch {
	case key == "":
		s.fail(w, r, http.StatusUnauthorized, "invalid_request_error", "", "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').", "")
		return false
	case !known:
		s.fail(w, r, http.StatusUnauthorized, "invalid_request_error", "", "Invalid API Key provided: "+redact(key), "")
		return false
	}
	if acct := r.Header.Get("Stripe-Account"); acct != "" && acct != ConnectedAccount && !contains(s.cfg.accounts, acct) {
		s.fail(w, r, http.StatusForbidden, "invalid_request_error", "account_invalid", "The provided key does not have access to account '"+acct+"' (or that account does not exist).", "")
		return false
	}
	return true
}

// redact writes a key as Stripe's 401 does: its prefix and last four.
func redact(key string) string {
	if len(key) < 12 {
		return "****"
	}
	return key[:8] + strings.Repeat("*", 4) + key[len(key)-4:]
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// throttled writes Stripe's 429, with the wait in Retry-After (which
// Stripe's own clients honour where an answer has one).
func (s *Server) throttled(w http.ResponseWriter, r *http.Request, retryAfter time.Duration) {
	if retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(max(int((retryAfter+time.Second-1)/time.Second), 1)))
	}
	s.fail(w, r, http.StatusTooManyRequests, "invalid_request_error", "rate_limit",
		"Too many requests hit the API too quickly. We recommend an exponential backoff of your requests.", "")
}

// fail writes Stripe's error body with a Request-Id.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, status int, typ, code, msg, param string) {
	e := map[string]any{"type": typ, "message": msg}
	if code != "" {
		e["code"] = code
		e["doc_url"] = "https://stripe.com/docs/error-codes/" + strings.ReplaceAll(code, "_", "-")
	}
	if param != "" {
		e["param"] = param
	}
	w.Header().Set("Request-Id", s.requestID())
	writeJSON(w, status, map[string]any{"error": e})
}

func (s *Server) requestID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return fmt.Sprintf("req_fake%08d", s.seq)
}

// writeJSON answers v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Stripe-Version", Version)
	fakeserver.WriteJSON(w, status, b)
}
