// Package zendesk is the helpdesk connector (connector_type
// "zendesk-support"): Zendesk Support API v2 and Help Center, read-only.
//
// Open it with New (typed credentials) or kinds.Open("zendesk-support",
// map[string]any{...}). Every entity of the catalogue is reachable through
// the generic tributary.Connector methods; the typed handles (Tickets,
// Users, ...) decode records into the structs of this package.
//
//	c, err := zendesk.New(zendesk.Credentials{Subdomain: "acme", Email: "agent@acme.com", APIToken: tok})
//	for t, err := range c.Tickets().All(ctx, zendesk.TicketListParams{}) { ... }
//
// Lists page by page number (params page, per_page; Meta next_page,
// previous_page, count) as the contract says; All walks with Zendesk's
// cursor mode (page[size], page[after]) where the endpoint has it, so it is
// not stopped at Zendesk's 100-page limit for offset paging.
//
// Tickets, users and organizations have change feeds (Changes, the
// catalogue's Feed rows) read from Zendesk's incremental exports: the
// cursor-based ticket and user exports and the time-based organization
// export, which also report deletions. The exports have their own rate
// limit (10 requests a minute on most plans), so keep their page size
// (per_page, up to 1000, the default) large.
package zendesk

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/jsonx"
	"github.com/tributary-dev/tributary/internal/transport"
)

// Credentials of a Zendesk account: the subdomain plus either an API token
// (Email and APIToken) or an OAuth access token (AccessToken, optionally
// with RefreshToken, ClientID and ClientSecret to refresh it). Printing
// Credentials never shows the secrets.
type Credentials struct {
	// Subdomain is the account's subdomain: "acme" for acme.zendesk.com.
	Subdomain string
	// Email and APIToken authenticate as {email}/token with Basic auth.
	Email    string
	APIToken string
	// AccessToken is an OAuth access token, sent as Bearer.
	AccessToken string
	// RefreshToken, ClientID and ClientSecret refresh the access token at
	// https://{subdomain}.zendesk.com/oauth/tokens. Zendesk rotates refresh
	// tokens: register tributary.WithTokenRefresh to save the new ones.
	RefreshToken string
	ClientID     string
	ClientSecret string
}

// Format prints the credentials with every secret redacted.
func (c Credentials) Format(f fmt.State, verb rune) {
	red := func(s string) string {
		if s == "" {
			return `""`
		}
		return "[REDACTED]"
	}
	fmt.Fprintf(f, "zendesk.Credentials{Subdomain: %q, Email: %q, APIToken: %s, AccessToken: %s, RefreshToken: %s, ClientID: %q, ClientSecret: %s}",
		c.Subdomain, c.Email, red(c.APIToken), red(c.AccessToken), red(c.RefreshToken), c.ClientID, red(c.ClientSecret))
}

var subdomainRE = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$`)

// CredentialsFromMap reads the credentials object of the contract:
// subdomain, and email + api_token, or access_token (+ refresh_token,
// client_id, client_secret).
func CredentialsFromMap(m map[string]any) (Credentials, error) {
	var c Credentials
	if err := engine.ReadCredentials(Type, m,
		engine.CredentialField{Name: "subdomain", Dst: &c.Subdomain},
		engine.CredentialField{Name: "email", Dst: &c.Email},
		engine.CredentialField{Name: "api_token", Dst: &c.APIToken},
		engine.CredentialField{Name: "access_token", Dst: &c.AccessToken},
		engine.CredentialField{Name: "refresh_token", Dst: &c.RefreshToken},
		engine.CredentialField{Name: "client_id", Dst: &c.ClientID},
		engine.CredentialField{Name: "client_secret", Dst: &c.ClientSecret},
	); err != nil {
		return c, err
	}
	return c, c.validate()
}

func credErr(format string, args ...any) error {
	return &tributary.Error{Kind: Type, Err: tributary.ErrInvalidCredentials, Message: fmt.Sprintf(format, args...)}
}

func (c Credentials) validate() error {
	if c.Subdomain == "" {
		return credErr("subdomain is required")
	}
	if !subdomainRE.MatchString(c.Subdomain) {
		return credErr("subdomain %q is not a Zendesk subdomain (the part before .zendesk.com)", c.Subdomain)
	}
	token := c.Email != "" || c.APIToken != ""
	oauth := c.AccessToken != "" || c.RefreshToken != ""
	switch {
	case token && oauth:
		return credErr("give either email + api_token or OAuth access_token, not both")
	case token && (c.Email == "" || c.APIToken == ""):
		return credErr("API-token authentication needs both email and api_token")
	case !token && !oauth:
		return credErr("give email + api_token, or access_token")
	case c.RefreshToken != "" && (c.ClientID == "" || c.ClientSecret == ""):
		return credErr("refreshing an OAuth token needs client_id and client_secret")
	case token && (c.ClientID != "" || c.ClientSecret != ""):
		return credErr("client_id and client_secret belong to OAuth, not to API-token authentication")
	}
	return nil
}

// Client is a direct-mode Zendesk connector. It implements
// tributary.Connector and tributary.Walker and is safe for concurrent use.
type Client struct {
	*engine.Connector
}

// SettingExportRate is the setting WithExportRateLimit writes: requests
// per period ("10/1m0s"; a bare number is requests per minute).
const SettingExportRate = "zendesk.export_rate"

// SettingAPIRate is the setting WithAPIRateLimit writes: requests per
// period ("700/1m0s"; a bare number is requests per minute).
const SettingAPIRate = "zendesk.api_rate"

// DefaultExportRate is the incremental exports' own limit on standard
// plans: 10 requests a minute (30 with the High Volume API add-on),
// whatever the account's overall limit.
const DefaultExportRate = 10

// DefaultAPIRate is the account's limit of requests a minute the connector
// keeps to unless told otherwise: Zendesk's documented limit of the
// Enterprise plan (Team 200, Growth and Professional 400, Enterprise 700,
// Enterprise Plus or the High Volume add-on 2,500), shared by every
// client of the account.
const DefaultAPIRate = 700

// WithExportRateLimit sets how many requests the incremental exports
// (what keeps copies of tickets, users and organizations current) may send
// per period: the account's limit, DefaultExportRate a minute unless the
// plan allows more. The connector paces itself to it, a little under, so
// that a long sync is never throttled. n 0 turns the pacing off.
func WithExportRateLimit(n int, per time.Duration) tributary.Option {
	return engine.RateSetting(SettingExportRate, n, per)
}

// WithAPIRateLimit sets how many requests the account allows per period,
// all endpoints together: DefaultAPIRate a minute unless the plan says
// otherwise (set it to the plan's: WithAPIRateLimit(400, time.Minute) on
// Growth). The connector paces every request to it, a little under, so
// that a long sync is never throttled. n 0 turns the pacing off.
func WithAPIRateLimit(n int, per time.Duration) tributary.Option {
	return engine.RateSetting(SettingAPIRate, n, per)
}

// pacesOf returns the connector's paces: the account's limit on every request,
// and the exports' own.
func pacesOf(settings map[string]string) ([]transport.Pace, error) {
	all, err := engine.PaceFrom(Type, SettingAPIRate, settings, engine.Rate{N: DefaultAPIRate, Per: time.Minute}, engine.AllRequests)
	if err != nil {
		return nil, err
	}
	exports, err := engine.PaceFrom(Type, SettingExportRate, settings, engine.Rate{N: DefaultExportRate, Per: time.Minute}, isExport)
	if err != nil {
		return nil, err
	}
	return append(all, exports...), nil
}

// SettingBudgetPacing is the tributary.WithSetting key of WithBudgetPacing.
const SettingBudgetPacing = Type + ".budget_pacing"

// WithBudgetPacing turns off (or on, the default) keeping to the budget
// Zendesk announces in its answers, which other clients of the account
// spend too: X-Rate-Limit-Remaining on every answer (the requests left in
// the current minute; the connector waits for the window to end once none
// is left), ratelimit-limit, -remaining and -reset on list endpoints (it
// spreads the last tenth of them over the seconds to the reset), and the
// List Tickets endpoint's own budget in zendesk-ratelimit-tickets-index.
// A new process thus keeps to what the account has left from its first
// answer on, where its own pace (WithAPIRateLimit) starts from a full
// minute. The window of an answer without a reset is the period of
// WithAPIRateLimit (a minute unless set).
func WithBudgetPacing(on bool) tributary.Option {
	return engine.BudgetSetting(SettingBudgetPacing, on)
}

// rateLimitsOf declares the budgets Zendesk announces, for the engine to
// keep to: the account's, with its reset on lists and without elsewhere
// (its window is then the account limit's period, per), and List
// Tickets' own.
func rateLimitsOf(settings map[string]string) ([]engine.RateLimitHeaders, error) {
	rate, err := engine.RateFrom(Type, SettingAPIRate, settings, engine.Rate{N: DefaultAPIRate, Per: time.Minute})
	if err != nil {
		return nil, err
	}
	return []engine.RateLimitHeaders{
		{Limit: "Ratelimit-Limit", Remaining: "Ratelimit-Remaining", Reset: "Ratelimit-Reset", Unit: engine.ResetAfterSeconds},
		{Remaining: "X-Rate-Limit-Remaining", Window: rate.Per},
		{Structured: "Zendesk-Ratelimit-Tickets-Index", Endpoints: []string{"/api/v2/tickets"}},
	}, nil
}

// isExport matches the incremental exports, which Zendesk limits on their
// own.
func isExport(req *http.Request) bool {
	return req != nil && strings.Contains(req.URL.Path, "/api/v2/incremental/")
}

// New opens a Zendesk connector. Options: tributary.WithBaseURL (a fake or
// proxy; the default is https://{subdomain}.zendesk.com), WithHTTPClient,
// WithLogger, WithRetry, WithRateLimit, WithTokenURL, WithTokenRefresh,
// and this package's WithAPIRateLimit, WithExportRateLimit and
// WithBudgetPacing.
func New(creds Credentials, opts ...tributary.Option) (*Client, error) {
	if err := creds.validate(); err != nil {
		return nil, err
	}
	o := tributary.NewOptions(opts...)
	origin := "https://" + creds.Subdomain + ".zendesk.com"
	var auth transport.Auth
	secrets := []string{creds.APIToken, creds.AccessToken, creds.RefreshToken, creds.ClientSecret}
	switch {
	case creds.APIToken != "":
		auth = transport.Basic(creds.Email+"/token", creds.APIToken)
	case creds.RefreshToken != "":
		tokenURL := o.TokenURL
		if tokenURL == "" {
			base := origin
			if o.BaseURL != "" {
				base = strings.TrimRight(o.BaseURL, "/")
			}
			tokenURL = base + "/oauth/tokens"
		}
		auth, _ = transport.OAuth(transport.OAuthConfig{
			TokenURL: tokenURL, AuthStyle: oauth2.AuthStyleInParams,
			ClientID: creds.ClientID, ClientSecret: creds.ClientSecret,
			AccessToken: creds.AccessToken, RefreshToken: creds.RefreshToken,
			HTTPClient: o.HTTPClient, Timeouts: engine.Timeouts(o), OnRefresh: o.OnTokenRefresh, Store: o.TokenStore,
		})
	default:
		auth = transport.Bearer(creds.AccessToken)
	}
	paces, err := pacesOf(o.Settings)
	if err != nil {
		return nil, err
	}
	rateLimits, err := rateLimitsOf(o.Settings)
	if err != nil {
		return nil, err
	}
	conn, err := engine.Open(engine.Setup{
		Kind: &engine.Kind{
			Type: Type, Entities: catalogue(), ParseError: parseError, RateLimits: rateLimits,
			Check: &engine.Route{Path: "/api/v2/users/me.json"}, // the user the credentials sign in as
		},
		Paces:          paces,
		Options:        o,
		DefaultBaseURL: origin,
		Auth:           auth,
		Header:         http.Header{"Accept": {"application/json"}},
		Secrets:        secrets,
	})
	if err != nil {
		return nil, err
	}
	return &Client{Connector: conn}, nil
}

// Open builds a connector from the contract's credentials object; it is
// what kinds.Open calls for "zendesk-support".
func Open(credentials map[string]any, opts ...tributary.Option) (tributary.Connector, error) {
	return engine.OpenFrom(credentials, CredentialsFromMap, New, opts...)
}

// parseError reads Zendesk's error bodies: {"error": "RecordNotFound",
// "description": "Not found"}, {"error": {"title", "message"}}, OAuth's
// {"error", "error_description"}, {"errors": [{"code", "title",
// "detail"}]}, and plain-text bodies (429).
func parseError(status int, h http.Header, body []byte, e *tributary.Error) {
	e.RequestID = h.Get("X-Zendesk-Request-Id")
	if e.RequestID == "" {
		e.RequestID = h.Get("X-Request-Id")
	}
	m, err := jsonx.Members(body)
	if err != nil {
		if t := strings.TrimSpace(string(body)); t != "" && len(t) < 300 && !strings.HasPrefix(t, "<") {
			e.Message = t
		}
		return
	}
	if raw, ok := m["error"]; ok {
		if s, ok := jsonx.String(raw); ok {
			e.Code = s
		} else {
			var obj struct{ Title, Message string }
			if json.Unmarshal(raw, &obj) == nil {
				e.Code = obj.Title
				e.Message = obj.Message
			}
		}
	}
	if arr, ok := m["errors"]; ok {
		// {"errors": [{"code", "title", "detail"}]} (pagination limits).
		var list []struct{ Code, Title, Detail string }
		if json.Unmarshal(arr, &list) == nil && len(list) > 0 {
			e.Code = list[0].Code
			e.Message = strings.TrimSpace(list[0].Title + ". " + list[0].Detail)
		}
	}
	for _, k := range []string{"description", "error_description", "message"} {
		if s, ok := jsonx.String(m[k]); ok && s != "" && e.Message == "" {
			e.Message = s
		}
	}
	if e.Message == "" && e.Code != "" {
		e.Message = e.Code
	}
}
