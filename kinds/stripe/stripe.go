// Package stripe is the payments connector (connector_type "stripe"):
// Stripe's REST API, read-only, at the API version the connector pins
// (Stripe-Version: Version).
//
// Open it with New (typed credentials) or kinds.Open("stripe",
// map[string]any{"api_key": "sk_live_…"}): a secret key (sk_) or a
// restricted key (rk_), and optionally stripe_account, a connected
// account (acct_…) every request reads through the Stripe-Account header
// (a Connect platform's usual way). OAuthApp describes Stripe Connect's
// OAuth, whose token is the connected account's key; the account's id
// (stripe_user_id) is kept beside it.
//
//	c, err := stripe.New(stripe.Credentials{APIKey: key})
//	for cu, err := range c.Customers().All(ctx, stripe.ListParams{}) { ... }
//
// Lists page with limit and starting_after, the id of a page's last
// object, until has_more is false; the Search API (api_search on
// customers, invoices, charges, subscriptions, payment_intents, products
// and prices) with page = the previous answer's next_page. Every copy of
// the connector is kept current from the event stream (GET /v1/events),
// which carries every entity's changes, read forward from the last event
// a copy applied (ending_before its id), a page of 100 at a time, each
// page saved with its checkpoint; the copies share the pages read last.
// Each event's data.object is the record as it was, *.deleted events are
// deletions; events are kept 30 days, so a copy whose checkpoint is older
// (or whose last event Stripe no longer has) is walked in full again. A file's bytes come from files.stripe.com with
// the same key.
package stripe

import (
	"fmt"
	"net/http"
	"strings"

	"golang.org/x/time/rate"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/jsonx"
	"github.com/tributary-dev/tributary/internal/transport"
)

// Version is the Stripe API version the connector pins (the version of
// the API description its records and fixtures follow).
const Version = "2023-08-16"

// Stripe's rate limits, requests a second (docs.stripe.com/rate-limits):
// live mode, test mode (a key sk_test_… or rk_test_…), and the Search
// API's. The connector paces itself to them, a little under.
const (
	LiveRate   = 100
	TestRate   = 25
	SearchRate = 20
)

// Credentials of a Stripe account: APIKey, a secret (sk_…) or restricted
// (rk_…) key; StripeAccount, a connected account (acct_…) to read
// through the Stripe-Account header; StripeUserID, the connected account
// an OAuth connection was made for (kept, not sent). Printing
// Credentials never shows the key.
type Credentials struct {
	APIKey, StripeAccount, StripeUserID string
}

// Format prints the credentials with the key redacted.
func (c Credentials) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "stripe.Credentials{APIKey: %s, StripeAccount: %q, StripeUserID: %q}", engine.Redacted(c.APIKey), c.StripeAccount, c.StripeUserID)
}

// CredentialsFromMap reads the credentials object of the contract:
// api_key, with stripe_account and stripe_user_id optional. Unknown,
// missing and malformed fields are errors matching
// tributary.ErrInvalidCredentials.
func CredentialsFromMap(m map[string]any) (Credentials, error) {
	var c Credentials
	if err := engine.ReadCredentials(Type, m,
		engine.CredentialField{Name: "api_key", Dst: &c.APIKey},
		engine.CredentialField{Name: "stripe_account", Dst: &c.StripeAccount},
		engine.CredentialField{Name: "stripe_user_id", Dst: &c.StripeUserID},
	); err != nil {
		return c, err
	}
	return c, c.validate()
}

func (c Credentials) validate() error {
	bad := func(format string, args ...any) error {
		return &tributary.Error{Kind: Type, Err: tributary.ErrInvalidCredentials, Message: fmt.Sprintf(format, args...)}
	}
	switch {
	case c.APIKey == "":
		return bad("give api_key: a secret key (sk_…) or a restricted key (rk_…)")
	case strings.HasPrefix(c.APIKey, "pk_"):
		// Any other key is Stripe's to judge: it answers 401 for one it
		// does not know.
		return bad("api_key is a publishable key (pk_…), which cannot read: give a secret key (sk_…) or a restricted key (rk_…)")
	case c.StripeAccount != "" && !strings.HasPrefix(c.StripeAccount, "acct_"):
		return bad("stripe_account must be a connected account's id (acct_…)")
	}
	return nil
}

// testMode reports whether the key is a test-mode key.
func (c Credentials) testMode() bool {
	return strings.HasPrefix(c.APIKey, "sk_test_") || strings.HasPrefix(c.APIKey, "rk_test_")
}

// Client is a direct-mode Stripe connector. It implements
// tributary.Connector, tributary.Walker and tributary.Changer and is safe
// for concurrent use.
type Client struct {
	*engine.Connector
}

// New opens a Stripe connector. Options: tributary.WithBaseURL (a fake or
// proxy), WithHTTPClient, WithLogger, WithRetry, WithRateLimit and
// WithoutPacing (no pacing to Stripe's rates).
func New(creds Credentials, opts ...tributary.Option) (*Client, error) {
	if err := creds.validate(); err != nil {
		return nil, err
	}
	o := tributary.NewOptions(opts...)
	// The key and the connected account go to files.stripe.com too.
	auth := transport.AuthFunc(func(req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+creds.APIKey)
		if creds.StripeAccount != "" {
			req.Header.Set("Stripe-Account", creds.StripeAccount)
		}
		req.Header.Set("Stripe-Version", Version)
		return nil
	})
	all := LiveRate
	if creds.testMode() {
		all = TestRate
	}
	conn, err := engine.Open(engine.Setup{
		Kind: &engine.Kind{
			Type: Type, Entities: catalogue(), ParseError: parseError, Retryable: shouldRetry,
			CredentialHosts: []string{"files.stripe.com"},
			Check:           &engine.Route{Path: "/v1/balance"}, // the cheapest read every key may do
		},
		Paces: []transport.Pace{
			{Match: func(*http.Request) bool { return true }, Limiter: rate.NewLimiter(rate.Limit(all)*0.9, all/10)},
			{Match: func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/search") }, Limiter: rate.NewLimiter(SearchRate*0.9, 2)},
		},
		Options:        o,
		DefaultBaseURL: "https://api.stripe.com",
		Auth:           auth,
		Secrets:        []string{creds.APIKey},
	})
	if err != nil {
		return nil, err
	}
	return &Client{Connector: conn}, nil
}

// Open builds a connector from the contract's credentials object; it is
// what kinds.Open calls for "stripe".
func Open(credentials map[string]any, opts ...tributary.Option) (tributary.Connector, error) {
	return engine.OpenFrom(credentials, CredentialsFromMap, New, opts...)
}

// shouldRetry follows Stripe's Stripe-Should-Retry header where an answer
// has one (a 429 of a lock_timeout says true, a refused request false).
func shouldRetry(resp *http.Response) (retry, decided bool) {
	switch resp.Header.Get("Stripe-Should-Retry") {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// errorCodes are the sentinels of Stripe's error codes.
var errorCodes = map[string]error{
	"resource_missing": tributary.ErrNotFound, "rate_limit": tributary.ErrRateLimited, "lock_timeout": tributary.ErrRateLimited,
	"api_key_expired": tributary.ErrUnauthorized, "secret_key_required": tributary.ErrForbidden, "parameter_invalid_empty": tributary.ErrInvalidParams,
	"parameter_invalid_integer": tributary.ErrInvalidParams, "parameter_unknown": tributary.ErrInvalidParams, "parameter_missing": tributary.ErrInvalidParams,
	"search_query_invalid": tributary.ErrInvalidParams,
}

// parseError reads Stripe's error body, {"error": {"type", "code",
// "message", "param"}}, and the Request-Id header.
func parseError(_ int, h http.Header, body []byte, e *tributary.Error) {
	e.RequestID = h.Get("Request-Id")
	var b struct {
		Error struct {
			Type, Code, Message, Param string
		} `json:"error"`
	}
	if jsonx.Unmarshal(body, &b) != nil {
		return
	}
	e.Code, e.Message = b.Error.Code, b.Error.Message
	if m, _, masked := strings.Cut(e.Message, ": "); masked && strings.HasPrefix(m, "Invalid API Key provided") {
		e.Message = m // Stripe echoes part of the key: not repeated
	}
	if e.Code == "" {
		e.Code = b.Error.Type
	}
	if b.Error.Param != "" {
		e.Message += " (param " + b.Error.Param + ")"
	}
	if s, ok := errorCodes[b.Error.Code]; ok && e.StatusCode != http.StatusUnauthorized {
		e.Err = s
	}
}
