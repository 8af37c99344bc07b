// Package intercom is the customer-messaging connector (connector_type
// "intercom"): Intercom's REST API 2.x, read-only.
//
// Open it with New (typed credentials) or Open(map[string]any{...}), the
// credentials object of the contract: {"access_token": "...", "region":
// "eu"}. Every entity of the catalogue (contacts, conversations, companies,
// teams, admins, tags, segments) is reachable through the generic
// tributary.Connector methods; the typed handles (Contacts, Companies, ...)
// decode records into the structs of this package.
//
//	c, err := intercom.New(intercom.Credentials{AccessToken: token, Region: intercom.RegionEU})
//	for co, err := range c.Companies().All(ctx, intercom.CompanyListParams{}) { ... }
//
// Every request carries "Authorization: Bearer <access token>", "Accept:
// application/json" and "Intercom-Version: 2.11" (WithAPIVersion chooses
// another version; records keep the 2.11 shapes this package types).
//
// The workspace's region picks the host: US https://api.intercom.io (the
// default), EU https://api.eu.intercom.io, AU https://api.au.intercom.io.
// An access token works only on its workspace's regional host, so the
// region belongs to the account: it is an optional field of Credentials
// (and of the credentials object, "region": "us", "eu" or "au"); WithRegion
// sets it as an option instead. tributary.WithBaseURL overrides both.
//
// Lists page with per_page (at most 150) and starting_after; Meta
// next_page is the cursor of the next page or nil, and Next holds the
// params that fetch it. teams, admins, tags and segments are not paged.
// All (tributary.All, or a handle's All) walks every page with per_page
// 150; over companies it goes on past the plain list's 10,000-company limit
// with Intercom's scroll API (see Client.Walk).
//
// Rate limits: a 429 is retried after X-RateLimit-Reset (epoch seconds),
// as is any retryable answer whose X-RateLimit-Remaining is 0.
package intercom

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/jsonx"
	"github.com/tributary-dev/tributary/internal/transport"
)

// DefaultAPIVersion is the Intercom-Version sent unless WithAPIVersion says
// otherwise.
const DefaultAPIVersion = "2.11"

// Setting keys of this kind's options (tributary.Options.Settings).
const (
	SettingAPIVersion = "intercom.api_version"
	SettingRegion     = "intercom.region"
)

// Region is the data-hosting region of an Intercom workspace.
type Region string

// The regions Intercom hosts workspaces in.
const (
	RegionUS Region = "us"
	RegionEU Region = "eu"
	RegionAU Region = "au"
)

// BaseURL returns the API host of the region ("" for an unknown region;
// the zero Region is the US).
func (r Region) BaseURL() string {
	switch r {
	case RegionUS, "":
		return "https://api.intercom.io"
	case RegionEU:
		return "https://api.eu.intercom.io"
	case RegionAU:
		return "https://api.au.intercom.io"
	}
	return ""
}

// WithAPIVersion sets the Intercom-Version header ("2.11" by default): a
// version such as "2.14", or "Unstable" or "Preview". The typed records of
// this package follow 2.11.
func WithAPIVersion(v string) tributary.Option { return tributary.WithSetting(SettingAPIVersion, v) }

// WithRegion selects the workspace's regional host, as Credentials.Region
// does (when both are set they must agree).
func WithRegion(r Region) tributary.Option { return tributary.WithSetting(SettingRegion, string(r)) }

// Credentials of an Intercom workspace: an access token (a private app's
// workspace token, or an OAuth token of a public app; Intercom's tokens do
// not expire and have no refresh token) and, optionally, the workspace's
// region. Printing Credentials never shows the token.
type Credentials struct {
	// AccessToken is sent as "Authorization: Bearer <token>".
	AccessToken string
	// Region is the workspace's region: RegionUS (also the zero value),
	// RegionEU or RegionAU.
	Region Region
}

// Format prints the credentials with the token redacted.
func (c Credentials) Format(f fmt.State, verb rune) {
	tok := `""`
	if c.AccessToken != "" {
		tok = "[REDACTED]"
	}
	fmt.Fprintf(f, "intercom.Credentials{AccessToken: %s, Region: %q}", tok, string(c.Region))
}

// CredentialsFromMap reads the contract's credentials object:
// access_token (required) and region ("us", "eu" or "au"; optional).
func CredentialsFromMap(m map[string]any) (Credentials, error) {
	var c Credentials
	var region string
	if err := engine.ReadCredentials(Type, m,
		engine.CredentialField{Name: "access_token", Dst: &c.AccessToken},
		engine.CredentialField{Name: "region", Dst: &region},
	); err != nil {
		return c, err
	}
	c.Region = Region(region)
	return c, c.validate()
}

func credErr(format string, args ...any) error {
	return &tributary.Error{Kind: Type, Err: tributary.ErrInvalidCredentials, Message: fmt.Sprintf(format, args...)}
}

func (c Credentials) validate() error {
	switch {
	case c.AccessToken == "":
		return credErr("access_token is required")
	case strings.TrimSpace(c.AccessToken) != c.AccessToken || strings.ContainsAny(c.AccessToken, " \t\r\n"):
		return credErr("access_token must not contain spaces or line breaks")
	case c.Region != "" && c.Region.BaseURL() == "":
		return credErr("region %q is not one of us, eu, au", string(c.Region))
	}
	return nil
}

// versionRE accepts Intercom's version names: "2.11", "1.4", "Unstable",
// "Preview".
var versionRE = regexp.MustCompile(`^(?:[0-9]+\.[0-9]+|Unstable|Preview)$`)

// Client is a direct-mode Intercom connector. It implements
// tributary.Connector and tributary.Walker and is safe for concurrent use.
type Client struct {
	*engine.Connector
	// retry is the caller's retry policy, for waiting out another open
	// scroll (see openScroll).
	retry tributary.RetryPolicy
}

// New opens an Intercom connector. Options: WithAPIVersion, WithRegion,
// and tributary.WithBaseURL (a fake or proxy), WithHTTPClient, WithLogger,
// WithRetry, WithRateLimit, WithMaxConcurrency, WithUserAgent, and
// WithBudgetPacing.
func New(creds Credentials, opts ...tributary.Option) (*Client, error) {
	if err := creds.validate(); err != nil {
		return nil, err
	}
	o := tributary.NewOptions(opts...)
	version := DefaultAPIVersion
	region := creds.Region
	for k, v := range o.Settings {
		switch k {
		case SettingAPIVersion:
			if !versionRE.MatchString(v) {
				return nil, credErr("Intercom-Version %q is not a version such as 2.11, Unstable or Preview", v)
			}
			version = v
		case SettingRegion:
			r := Region(v)
			if r.BaseURL() == "" {
				return nil, credErr("region %q is not one of us, eu, au", v)
			}
			if creds.Region != "" && normRegion(creds.Region) != normRegion(r) {
				return nil, credErr("the credentials say region %q and WithRegion %q", string(creds.Region), v)
			}
			region = r
		case SettingBudgetPacing:
		default:
			if strings.HasPrefix(k, "intercom.") {
				return nil, credErr("unknown setting %q", k)
			}
		}
	}
	budget, err := engine.BudgetFrom(Type, SettingBudgetPacing, o.Settings, engine.HeaderBudget("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"))
	if err != nil {
		return nil, err
	}
	setup := engine.Setup{
		Kind: &engine.Kind{
			Type:       Type,
			Entities:   catalogue(),
			ParseError: parseError,
			Check:      &engine.Route{Path: "/me"}, // the admin the token acts as
			RetryAfter: retryAfter,
		},
		Options:        o,
		DefaultBaseURL: region.BaseURL(),
		Auth:           transport.Bearer(creds.AccessToken),
		Header:         http.Header{"Accept": {"application/json"}, "Intercom-Version": {version}},
		Secrets:        []string{creds.AccessToken},
		Budget:         budget,
	}
	conn, err := engine.Open(setup)
	if err != nil {
		return nil, err
	}
	retry := o.Retry
	// The transport's defaults for a partly filled policy.
	if retry.MinBackoff <= 0 {
		retry.MinBackoff = 500 * time.Millisecond
	}
	if retry.MaxBackoff <= 0 {
		retry.MaxBackoff = 30 * time.Second
	}
	if retry.MaxRateLimitWait <= 0 {
		retry.MaxRateLimitWait = time.Minute
	}
	return &Client{Connector: conn, retry: retry}, nil
}

func normRegion(r Region) Region {
	if r == "" {
		return RegionUS
	}
	return r
}

// Open builds a connector from the contract's credentials object; it is
// what kinds.Open calls for "intercom".
func Open(credentials map[string]any, opts ...tributary.Option) (tributary.Connector, error) {
	return engine.OpenFrom(credentials, CredentialsFromMap, New, opts...)
}

// SettingBudgetPacing is the tributary.WithSetting key of WithBudgetPacing.
const SettingBudgetPacing = "intercom.budget_pacing"

// WithBudgetPacing turns off (or on, the default) keeping to the budget
// Intercom announces on every answer. Intercom allows a private app 10,000
// requests a minute (25,000 a workspace; public apps have per-workspace
// limits), counted in 10-second windows of a sixth of that each, and says
// in X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset how
// much of the current window is left. The connector sends freely while
// plenty is left, spreads the last tenth over the time to the reset, and
// waits for the reset when none is left, whatever the app's limit.
func WithBudgetPacing(on bool) tributary.Option {
	return engine.BudgetSetting(SettingBudgetPacing, on)
}

// retryAfter reads Intercom's rate-limit headers: when an answer is a 429,
// or says X-RateLimit-Remaining: 0, the wait lasts until X-RateLimit-Reset
// (Unix seconds). A reset already past falls back to the default backoff.
func retryAfter(resp *http.Response, now time.Time) (time.Duration, bool) {
	h := resp.Header
	if resp.StatusCode != http.StatusTooManyRequests && strings.TrimSpace(h.Get("X-RateLimit-Remaining")) != "0" {
		return 0, false
	}
	d, ok := transport.ResetAt(h.Get("X-RateLimit-Reset"), now)
	if !ok || d <= 0 {
		return 0, false
	}
	return d, true
}

// parseError reads Intercom's error body: {"type": "error.list",
// "request_id": "...", "errors": [{"code", "message", "field"}]}. The first
// error gives Code and Param; the messages of all of them are joined.
func parseError(status int, h http.Header, body []byte, e *tributary.Error) {
	var el struct {
		Type      string  `json:"type"`
		RequestID *string `json:"request_id"`
		Errors    []struct {
			Code    string  `json:"code"`
			Message *string `json:"message"`
			Field   *string `json:"field"`
		} `json:"errors"`
	}
	if err := jsonx.Unmarshal(body, &el); err == nil {
		if el.RequestID != nil {
			e.RequestID = *el.RequestID
		}
		var msgs []string
		for i, it := range el.Errors {
			if i == 0 {
				e.Code = it.Code
				if it.Field != nil {
					e.Param = *it.Field
				}
			}
			if it.Message != nil && *it.Message != "" {
				msgs = append(msgs, *it.Message)
			}
		}
		e.Message = strings.Join(msgs, "; ")
		if e.Message == "" {
			e.Message = e.Code
		}
	}
	if e.RequestID == "" {
		e.RequestID = h.Get("X-Request-Id")
	}
}
