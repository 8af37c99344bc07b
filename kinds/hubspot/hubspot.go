// Package hubspot is the marketing-CRM connector (connector_type "hubspot"):
// HubSpot's CRM v3 API, read-only.
//
// Open it with New (typed credentials) or kinds.Open("hubspot",
// map[string]any{...}) with either a private-app token or an OAuth app's
// client_id, client_secret and refresh_token (access_token optional).
// Every entity of the catalogue is reachable through the generic
// tributary.Connector methods; the typed handles (Contacts, Companies,
// Deals, ...) decode records into the structs of this package.
//
//	c, err := hubspot.New(hubspot.Credentials{PrivateAppToken: token})
//	for ct, err := range c.Contacts().All(ctx, hubspot.ListParams{Limit: 100}) { ... }
//	for d, err := range c.Deals().SearchAll(ctx, hubspot.SearchRequest{...}) { ... }
//
// Records keep HubSpot's shape (id, properties, createdAt, updatedAt,
// archived, associations, ...). Lists page with limit and after; Meta holds
// next_cursor (paging.next.after), and api_search adds total. HubSpot's
// search stops at 10,000 results per query: SearchAll walks past it by
// re-windowing on the last-modified date, or ends with an error that says
// why it cannot.
//
// Search requests are paced on the client (4 a second by default, see
// WithSearchRateLimit) because HubSpot's search endpoints have a lower
// limit than the rest of the API. 429 answers are retried after
// Retry-After or, when HubSpot sends none, after
// X-HubSpot-RateLimit-Interval-Milliseconds; an exhausted daily quota is
// not retried.
package hubspot

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/time/rate"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/transport"
)

// Type is the connector_type of this kind.
const Type = "hubspot"

// DefaultBaseURL is HubSpot's API origin.
const DefaultBaseURL = "https://api.hubapi.com"

// DefaultTokenURL is HubSpot's OAuth token endpoint. With
// tributary.WithBaseURL the token endpoint moves to the same origin
// (base + /oauth/v1/token) unless tributary.WithTokenURL says otherwise.
const DefaultTokenURL = DefaultBaseURL + tokenPath

const tokenPath = "/oauth/v1/token"

// Credentials of a HubSpot account: either a private app's access token
// (PrivateAppToken), or an OAuth app's ClientID, ClientSecret and
// RefreshToken, with an optional current AccessToken. Printing Credentials
// never shows the secrets.
type Credentials struct {
	// PrivateAppToken is a private app's static access token, sent as
	// Bearer.
	PrivateAppToken string
	// ClientID and ClientSecret identify the OAuth app; they travel in the
	// form body of the refresh request.
	ClientID     string
	ClientSecret string
	// RefreshToken obtains access tokens at HubSpot's token endpoint.
	// HubSpot's refresh tokens do not rotate, but every issued token is
	// passed to tributary.WithTokenRefresh.
	RefreshToken string
	// AccessToken, when given, is used until HubSpot rejects it (its age is
	// unknown); then one refresh replaces it. Without it the connector
	// refreshes before its first request.
	AccessToken string
}

// Format prints the credentials with every secret redacted.
func (c Credentials) Format(f fmt.State, verb rune) {
	red := func(s string) string {
		if s == "" {
			return `""`
		}
		return "[REDACTED]"
	}
	fmt.Fprintf(f, "hubspot.Credentials{PrivateAppToken: %s, ClientID: %q, ClientSecret: %s, RefreshToken: %s, AccessToken: %s}",
		red(c.PrivateAppToken), c.ClientID, red(c.ClientSecret), red(c.RefreshToken), red(c.AccessToken))
}

// CredentialsFromMap reads the credentials object of the contract: OAuth
// client_id, client_secret, refresh_token (required) and access_token
// (optional); or private_app_token. Unknown, missing and conflicting fields
// are errors matching tributary.ErrInvalidCredentials.
func CredentialsFromMap(m map[string]any) (Credentials, error) {
	var c Credentials
	if err := engine.ReadCredentials(Type, m,
		engine.CredentialField{Name: "client_id", Dst: &c.ClientID},
		engine.CredentialField{Name: "client_secret", Dst: &c.ClientSecret},
		engine.CredentialField{Name: "refresh_token", Dst: &c.RefreshToken},
		engine.CredentialField{Name: "access_token", Dst: &c.AccessToken},
		engine.CredentialField{Name: "private_app_token", Dst: &c.PrivateAppToken},
	); err != nil {
		return c, err
	}
	return c, c.validate()
}

func credErr(format string, args ...any) error {
	return &tributary.Error{Kind: Type, Err: tributary.ErrInvalidCredentials, Message: fmt.Sprintf(format, args...)}
}

func (c Credentials) validate() error {
	oauth := c.ClientID != "" || c.ClientSecret != "" || c.RefreshToken != "" || c.AccessToken != ""
	switch {
	case c.PrivateAppToken != "" && oauth:
		return credErr("give either private_app_token or the OAuth fields (client_id, client_secret, refresh_token, access_token), not both")
	case c.PrivateAppToken != "":
		return nil
	case !oauth:
		return credErr("give private_app_token, or client_id, client_secret and refresh_token")
	case c.RefreshToken == "":
		return credErr("OAuth needs refresh_token (an access_token alone is not accepted: HubSpot's expire after 30 minutes)")
	case c.ClientID == "" || c.ClientSecret == "":
		return credErr("refreshing an OAuth token needs client_id and client_secret")
	}
	return nil
}

// Names of this kind's settings (tributary.WithSetting); use the typed
// helpers WithSearchRateLimit and WithAPIVersion.
const (
	SettingSearchRate  = "hubspot.search_rate"
	SettingSearchBurst = "hubspot.search_burst"
	SettingAPIVersion  = "hubspot.api_version"
	// SettingAPIRate is the setting of WithAPIRateLimit: requests per
	// period ("100/10s"; a bare number is requests per 10 seconds).
	SettingAPIRate = "hubspot.api_rate"
)

// DefaultAPIRate is the requests per 10 seconds the connector keeps to
// unless told otherwise: HubSpot's documented burst limit of private apps
// on Free and Starter accounts (Professional and Enterprise allow 190, the
// API limit increase pack 250), shared by every private app of the
// account.
const DefaultAPIRate = 100

// WithAPIRateLimit sets how many requests the account allows per period,
// all endpoints together: DefaultAPIRate per 10 seconds unless the plan
// allows more (WithAPIRateLimit(190, 10*time.Second) on Professional and
// Enterprise). The connector paces every request to it, a little under,
// so that a long sync is never throttled; search requests are paced to
// their own lower limit as well (WithSearchRateLimit). n 0 turns the
// pacing off.
func WithAPIRateLimit(n int, per time.Duration) tributary.Option {
	return engine.RateSetting(SettingAPIRate, n, per)
}

// DefaultSearchRate is the pace of search requests, per second: HubSpot's
// search endpoints allow a few requests a second (4 per token in the
// changelog that raised it, about 5 per account in newer documentation).
const DefaultSearchRate = 4

// WithSearchRateLimit paces the search requests (POST
// /crm/v3/objects/{type}/search, retries included) of this connector to
// perSecond with bursts of burst. perSecond <= 0 turns pacing off. The
// default is DefaultSearchRate with bursts of 1. tributary.WithRateLimit
// paces every request and applies as well.
func WithSearchRateLimit(perSecond float64, burst int) tributary.Option {
	return func(o *tributary.Options) {
		tributary.WithSetting(SettingSearchRate, strconv.FormatFloat(perSecond, 'f', -1, 64))(o)
		tributary.WithSetting(SettingSearchBurst, strconv.Itoa(burst))(o)
	}
}

// WithAPIVersion selects the API version in the paths: "v3" (the default:
// /crm/v3/objects/contacts) or a date version such as "2026-03"
// (/crm/objects/2026-03/contacts, /crm/owners/2026-03,
// /crm/pipelines/2026-03/{objectType}, /crm-object-schemas/2026-03/schemas).
// The records, paging and errors are the same in both.
func WithAPIVersion(v string) tributary.Option {
	return tributary.WithSetting(SettingAPIVersion, v)
}

var versionRE = regexp.MustCompile(`^(v3|[0-9]{4}-[0-9]{2}(-beta)?)$`)

// Client is a direct-mode HubSpot connector. It implements
// tributary.Connector and tributary.Walker and is safe for concurrent use.
type Client struct {
	*engine.Connector
}

// New opens a HubSpot connector. Options: tributary.WithBaseURL (a fake or
// proxy; the default is https://api.hubapi.com), WithHTTPClient,
// WithLogger, WithRetry, WithRateLimit, WithTokenURL, WithTokenRefresh,
// and this package's WithAPIRateLimit, WithSearchRateLimit and
// WithAPIVersion.
func New(creds Credentials, opts ...tributary.Option) (*Client, error) {
	if err := creds.validate(); err != nil {
		return nil, err
	}
	o := tributary.NewOptions(opts...)
	version := "v3"
	if v, ok := o.Settings[SettingAPIVersion]; ok {
		if !versionRE.MatchString(v) {
			return nil, optionErr(SettingAPIVersion, "%q is not v3 or a date version such as 2026-03", v)
		}
		version = v
	}
	lim, err := searchLimiter(o.Settings)
	if err != nil {
		return nil, err
	}

	// An OAuth access token of unknown age is used until HubSpot rejects
	// it; the transport then refreshes once and retries (a token it just
	// obtained and that is rejected is final).
	var auth transport.Auth
	if creds.PrivateAppToken != "" {
		auth = transport.Bearer(creds.PrivateAppToken)
	} else {
		tokenURL := o.TokenURL
		if tokenURL == "" {
			base := DefaultBaseURL
			if o.BaseURL != "" {
				base = strings.TrimRight(o.BaseURL, "/")
			}
			tokenURL = base + tokenPath
		}
		auth, _ = transport.OAuth(transport.OAuthConfig{
			TokenURL: tokenURL, AuthStyle: oauth2.AuthStyleInParams,
			ClientID: creds.ClientID, ClientSecret: creds.ClientSecret,
			AccessToken: creds.AccessToken, RefreshToken: creds.RefreshToken,
			HTTPClient: o.HTTPClient, Timeouts: engine.Timeouts(o), OnRefresh: o.OnTokenRefresh, Store: o.TokenStore,
		})
	}
	paces, err := engine.PaceFrom(Type, SettingAPIRate, o.Settings, engine.Rate{N: DefaultAPIRate, Per: 10 * time.Second}, engine.AllRequests)
	if err != nil {
		return nil, err
	}
	if lim != nil {
		paces = append(paces, transport.Pace{Match: isSearch, Limiter: lim})
	}
	conn, err := engine.Open(engine.Setup{
		Kind: &engine.Kind{
			Type: Type, Entities: catalogue(version), ParseError: parseError,
			RetryAfter: retryAfter,
			Retryable:  retryable,
			Check:      &engine.Route{Path: "/account-info/v3/details"}, // the account the token belongs to
		},
		Options:        o,
		DefaultBaseURL: DefaultBaseURL,
		Auth:           auth,
		Header:         http.Header{"Accept": {"application/json"}},
		Secrets:        []string{creds.PrivateAppToken, creds.ClientSecret, creds.RefreshToken, creds.AccessToken},
		Paces:          paces,
	})
	if err != nil {
		return nil, err
	}
	return &Client{Connector: conn}, nil
}

// Open builds a connector from the contract's credentials object; it is
// what kinds.Open calls for "hubspot".
func Open(credentials map[string]any, opts ...tributary.Option) (tributary.Connector, error) {
	return engine.OpenFrom(credentials, CredentialsFromMap, New, opts...)
}

func optionErr(name, format string, args ...any) error {
	return &tributary.Error{Kind: Type, Param: name, Err: tributary.ErrInvalidParams, Message: "option " + name + ": " + fmt.Sprintf(format, args...)}
}

// searchLimiter builds the search pacing from the settings; nil: none.
func searchLimiter(settings map[string]string) (*rate.Limiter, error) {
	perSecond, burst := float64(DefaultSearchRate), 1
	if v, ok := settings[SettingSearchRate]; ok {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, optionErr(SettingSearchRate, "%q is not a number", v)
		}
		perSecond = f
	}
	if v, ok := settings[SettingSearchBurst]; ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, optionErr(SettingSearchBurst, "%q is not an integer", v)
		}
		burst = max(n, 1)
	}
	if perSecond <= 0 {
		return nil, nil
	}
	return rate.NewLimiter(rate.Limit(perSecond), burst), nil
}

// isSearch matches the search endpoints, which HubSpot limits on their own.
func isSearch(req *http.Request) bool {
	return req != nil && req.Method == http.MethodPost && strings.HasSuffix(strings.TrimRight(req.URL.Path, "/"), "/search")
}

// retryable decides what the default rules would get wrong: a 429 of the
// spent daily quota (retrying before HubSpot's midnight reset cannot
// help).
func retryable(resp *http.Response) (retry, decided bool) {
	if resp.StatusCode == http.StatusTooManyRequests && dailySpent(resp) {
		return false, true
	}
	return false, false
}

// dailySpent reports whether a 429 is the account's spent daily quota.
func dailySpent(resp *http.Response) bool {
	return strings.TrimSpace(resp.Header.Get("X-HubSpot-RateLimit-Daily-Remaining")) == "0"
}

// retryAfter reads HubSpot's wait of a 429 when it sends no Retry-After:
// the rolling window of X-HubSpot-RateLimit-Interval-Milliseconds, or, on
// the search endpoints (which send no rate-limit headers), their
// one-second window. The spent daily quota has no such wait.
func retryAfter(resp *http.Response, _ time.Time) (time.Duration, bool) {
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "" || dailySpent(resp) {
		return 0, false
	}
	if ms, err := strconv.ParseInt(strings.TrimSpace(resp.Header.Get("X-HubSpot-RateLimit-Interval-Milliseconds")), 10, 64); err == nil && ms > 0 {
		return time.Duration(ms) * time.Millisecond, true
	}
	if isSearch(resp.Request) {
		return time.Second, true
	}
	return 0, false
}

// errorBody is HubSpot's error body (Error in its OpenAPI), with the
// fields of its 429 answers.
type errorBody struct {
	Status        string `json:"status"`
	Message       string `json:"message"`
	CorrelationID string `json:"correlationId"`
	Category      string `json:"category"`
	SubCategory   string `json:"subCategory"`
	ErrorType     string `json:"errorType"`
	PolicyName    string `json:"policyName"`
	RequestID     string `json:"requestId"`
	Errors        []struct {
		Message string `json:"message"`
	} `json:"errors"`
}

// parseError reads HubSpot's error bodies: {"status": "error", "message",
// "correlationId", "category", "errors": [{"message", ...}]} and the 429's
// {"status", "message", "errorType": "RATE_LIMIT", "correlationId",
// "policyName"}. Code is the category, or the errorType when there is no
// category; RequestID is the correlationId.
func parseError(_ int, h http.Header, body []byte, e *tributary.Error) {
	e.RequestID = h.Get("X-HubSpot-Correlation-Id")
	var b errorBody
	if json.Unmarshal(body, &b) != nil {
		return // HTML or text from HubSpot's edge: the engine keeps short text
	}
	e.Code = b.Category
	if e.Code == "" {
		e.Code = b.ErrorType
	}
	switch {
	case b.CorrelationID != "":
		e.RequestID = b.CorrelationID
	case e.RequestID == "":
		e.RequestID = b.RequestID
	}
	msg := b.Message
	for _, d := range b.Errors {
		if d.Message != "" && !strings.Contains(msg, d.Message) {
			switch {
			case strings.HasSuffix(msg, "."):
				msg += " "
			case msg != "":
				msg += "; "
			}
			msg += d.Message
		}
	}
	e.Message = msg
}
