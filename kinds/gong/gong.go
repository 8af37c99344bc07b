// Package gong is the call-analytics connector (connector_type "gong"):
// Gong's API v2, read-only, with call media downloads.
//
// Open it with New (typed credentials) or kinds.Open("gong",
// map[string]any{...}). Every entity of the catalogue is reachable through
// the generic tributary.Connector methods; the typed handles (Users, Calls,
// CallsExtensive, ...) decode records into the structs of this package.
//
//	c, err := gong.New(gong.Credentials{AccessKey: key, AccessKeySecret: secret})
//	for call, err := range c.Calls().All(ctx, gong.CallListParams{FromDateTime: since}) { ... }
//
// Parameters follow the catalogue, nested where Gong nests them: give
// {"filter": {"callIds": [...]}} or the dotted "filter.callIds"; GET
// endpoints receive them in the query, POST endpoints (calls/extensive,
// calls/transcript, stats/...) as the JSON body.
//
// Lists page with Gong's cursor (param cursor; Meta "pagination" holds
// Gong's records block {totalRecords, currentPageSize, currentPageNumber,
// cursor}); for POST endpoints the next page repeats every other input, as
// Gong requires. Gong answers 404 "No calls found ..." when a filter matches
// nothing: such a list is an empty page, while a 404 of a get stays
// tributary.ErrNotFound.
//
// call_audio and call_video download a call's media in two steps: the
// pre-signed URL from /v2/calls/extensive, then the file from Gong's media
// host, without Gong credentials, with range_header and resumption.
//
// OAuth refresh tokens are single-use: register tributary.WithTokenRefresh
// to save each new one, with its api_base_url_for_customer
// (tok.Extra(CustomerBaseURLKey)), which goes back into the credentials as
// api_base_url.
package gong

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/jsonx"
	"github.com/tributary-dev/tributary/internal/transport"
)

const (
	// DefaultBaseURL is Gong's shared API origin. A company may have its
	// own (https://us-12345.api.gong.io, on its API settings page; for
	// OAuth, the token response's api_base_url_for_customer).
	DefaultBaseURL = "https://api.gong.io"
	// DefaultTokenURL is Gong's OAuth token endpoint.
	DefaultTokenURL = "https://app.gong.io/oauth2/generate-customer-token"
	// TokenPath is the token endpoint's path, appended to a base URL given
	// with tributary.WithBaseURL when no token URL is given (fakes, proxies).
	TokenPath = "/oauth2/generate-customer-token"
)

// Credentials of a Gong company: an API key pair (AccessKey and
// AccessKeySecret, sent as Basic), or an OAuth access token (AccessToken,
// optionally with RefreshToken, ClientID and ClientSecret to refresh it).
// Printing Credentials never shows the secrets.
type Credentials struct {
	// AccessKey and AccessKeySecret are the API key pair a technical
	// administrator creates in Gong.
	AccessKey       string
	AccessKeySecret string
	// AccessToken is an OAuth access token, sent as Bearer. With a
	// RefreshToken it is used until Gong rejects it, then refreshed.
	AccessToken string
	// RefreshToken, ClientID and ClientSecret refresh the access token at
	// DefaultTokenURL (client credentials in Basic). Gong's refresh tokens
	// are single-use: register tributary.WithTokenRefresh to save each new
	// one.
	RefreshToken string
	ClientID     string
	ClientSecret string
	// APIBaseURL is the company's own API origin, e.g.
	// https://us-12345.api.gong.io; empty means DefaultBaseURL. With OAuth,
	// save here the api_base_url_for_customer of the last token response.
	APIBaseURL string
}

// Format prints the credentials with every secret redacted.
func (c Credentials) Format(f fmt.State, verb rune) {
	red := func(s string) string {
		if s == "" {
			return `""`
		}
		return "[REDACTED]"
	}
	fmt.Fprintf(f, "gong.Credentials{AccessKey: %s, AccessKeySecret: %s, AccessToken: %s, RefreshToken: %s, ClientID: %q, ClientSecret: %s, APIBaseURL: %q}",
		red(c.AccessKey), red(c.AccessKeySecret), red(c.AccessToken), red(c.RefreshToken), c.ClientID, red(c.ClientSecret), c.APIBaseURL)
}

// CredentialsFromMap reads the credentials object of the contract:
// access_key + access_key_secret, or access_token (+ refresh_token,
// client_id, client_secret); optionally api_base_url.
func CredentialsFromMap(m map[string]any) (Credentials, error) {
	var c Credentials
	if err := engine.ReadCredentials(Type, m,
		engine.CredentialField{Name: "access_key", Dst: &c.AccessKey},
		engine.CredentialField{Name: "access_key_secret", Dst: &c.AccessKeySecret},
		engine.CredentialField{Name: "access_token", Dst: &c.AccessToken},
		engine.CredentialField{Name: "refresh_token", Dst: &c.RefreshToken},
		engine.CredentialField{Name: "client_id", Dst: &c.ClientID},
		engine.CredentialField{Name: "client_secret", Dst: &c.ClientSecret},
		engine.CredentialField{Name: "api_base_url", Dst: &c.APIBaseURL},
	); err != nil {
		return c, err
	}
	return c, c.validate()
}

func credErr(format string, args ...any) error {
	return &tributary.Error{Kind: Type, Err: tributary.ErrInvalidCredentials, Message: fmt.Sprintf(format, args...)}
}

func (c Credentials) validate() error {
	key := c.AccessKey != "" || c.AccessKeySecret != ""
	oauth := c.AccessToken != "" || c.RefreshToken != ""
	switch {
	case key && oauth:
		return credErr("give either access_key + access_key_secret or OAuth access_token/refresh_token, not both")
	case key && (c.AccessKey == "" || c.AccessKeySecret == ""):
		return credErr("API-key authentication needs both access_key and access_key_secret")
	case !key && !oauth:
		return credErr("give access_key + access_key_secret, or access_token, or refresh_token + client_id + client_secret")
	case key && (c.ClientID != "" || c.ClientSecret != ""):
		return credErr("client_id and client_secret belong to OAuth, not to API-key authentication")
	case c.RefreshToken != "" && (c.ClientID == "" || c.ClientSecret == ""):
		return credErr("refreshing an OAuth token needs client_id and client_secret")
	case (c.ClientID == "") != (c.ClientSecret == ""):
		return credErr("client_id and client_secret go together")
	}
	if c.APIBaseURL != "" {
		if _, err := engine.ParseBaseURL(c.APIBaseURL); err != nil {
			return credErr("api_base_url: %v", err)
		}
	}
	return nil
}

// Client is a direct-mode Gong connector. It implements tributary.Connector
// and tributary.Walker and is safe for concurrent use.
type Client struct {
	*engine.Connector
}

// SettingAPIRate is the tributary.WithSetting key of WithAPIRateLimit:
// requests per period ("3/1s"; a bare number is requests per second).
const SettingAPIRate = "gong.api_rate"

// DefaultAPIRate is the requests a second the connector keeps to unless
// told otherwise: Gong's documented default limit of 3 a second per
// company (with 10,000 a day), shared by every client of the company.
const DefaultAPIRate = 3

// WithAPIRateLimit sets how many requests Gong allows the company per
// period: DefaultAPIRate a second unless Gong support raised it. The
// connector paces every request to it, a little under, so that a long
// sync is never throttled. n 0 turns the pacing off.
func WithAPIRateLimit(n int, per time.Duration) tributary.Option {
	return engine.RateSetting(SettingAPIRate, n, per)
}

// New opens a Gong connector. Options: tributary.WithBaseURL (a fake or a
// proxy; it pins the base URL), WithHTTPClient, WithLogger, WithRetry,
// WithRateLimit, WithTokenURL (default DefaultTokenURL, or the WithBaseURL
// origin + TokenPath), WithTokenRefresh, and this package's
// WithAPIRateLimit (every request is paced to Gong's 3 a second by
// default).
//
// Without WithBaseURL, requests go to Credentials.APIBaseURL, else
// DefaultBaseURL; with OAuth refreshes, to the api_base_url_for_customer
// of the last token response, as Gong requires.
func New(creds Credentials, opts ...tributary.Option) (*Client, error) {
	if err := creds.validate(); err != nil {
		return nil, err
	}
	o := tributary.NewOptions(opts...)
	lookback, err := feedLookback(o)
	if err != nil {
		return nil, err
	}
	paces, err := engine.PaceFrom(Type, SettingAPIRate, o.Settings, engine.Rate{N: DefaultAPIRate, Per: time.Second}, engine.AllRequests)
	if err != nil {
		return nil, err
	}
	kind := &engine.Kind{Type: Type, Entities: catalogue(lookback), ParseError: parseError, EmptyList: emptyList,
		Check: &engine.Route{Path: "/v2/users"}} // one page of the company's users
	setup := engine.Setup{
		Paces:          paces,
		Kind:           kind,
		Options:        o,
		DefaultBaseURL: DefaultBaseURL,
		Header:         http.Header{"Accept": {"application/json"}},
		Secrets:        []string{creds.AccessKey, creds.AccessKeySecret, creds.AccessToken, creds.RefreshToken, creds.ClientSecret},
	}
	if creds.APIBaseURL != "" {
		setup.DefaultBaseURL = creds.APIBaseURL
	}
	switch {
	case creds.AccessKey != "":
		setup.Auth = transport.Basic(creds.AccessKey, creds.AccessKeySecret)
	case creds.RefreshToken != "":
		initial, err := engine.ParseBaseURL(setup.DefaultBaseURL)
		if err != nil {
			return nil, credErr("api_base_url: %v", err)
		}
		tokenURL := o.TokenURL
		if tokenURL == "" {
			tokenURL = DefaultTokenURL
			if o.BaseURL != "" {
				u, err := engine.ParseBaseURL(o.BaseURL)
				if err != nil {
					return nil, credErr("base URL: %v", err)
				}
				tokenURL = u.Scheme + "://" + u.Host + TokenPath
			}
		}
		s := &session{given: creds.AccessToken, saved: creds.APIBaseURL, initial: initial.String(), https: initial.Scheme == "https"}
		// learn sees every token used, including those another process
		// refreshed (adopted through the token store).
		s.refreshed, s.ts = transport.OAuth(transport.OAuthConfig{
			TokenURL: tokenURL, AuthStyle: oauth2.AuthStyleInHeader,
			ClientID: creds.ClientID, ClientSecret: creds.ClientSecret,
			RefreshToken: creds.RefreshToken,
			HTTPClient:   o.HTTPClient,
			Timeouts:     engine.Timeouts(o),
			OnRefresh:    o.OnTokenRefresh,
			OnToken:      s.learn,
			Store:        o.TokenStore,
		})
		setup.Auth = s
		setup.ResolveBaseURL = s.baseURL
	default:
		setup.Auth = transport.Bearer(creds.AccessToken)
	}
	conn, err := engine.Open(setup)
	if err != nil {
		return nil, err
	}
	return &Client{Connector: conn}, nil
}

// Open builds a connector from the contract's credentials object; it is
// what kinds.Open calls for "gong".
func Open(credentials map[string]any, opts ...tributary.Option) (tributary.Connector, error) {
	return engine.OpenFrom(credentials, CredentialsFromMap, New, opts...)
}

// ruleOf returns the cross-parameter rule of entity.action (the catalogue's
// Entity.Rules, run by tributary.Validate in direct and hosted mode): it
// looks at validated params and returns the offending parameter and why,
// or "".
func ruleOf(entity string, a tributary.Action) func(p tributary.Params) (string, string) {
	switch {
	case a == tributary.ActionDownload && (entity == "call_audio" || entity == "call_video"):
		return mediaMustBeTrue
	case a == tributary.ActionList && entity == "call_transcripts":
		return datesUnlessCallIDs
	}
	return nil
}

// datesUnlessCallIDs is the catalogue's rule for call_transcripts: "dates
// optional when callIds is given".
func datesUnlessCallIDs(p tributary.Params) (string, string) {
	f, _ := p["filter"].(map[string]any)
	if ids, _ := f["callIds"].([]any); len(ids) > 0 {
		return "", ""
	}
	for _, k := range []string{"fromDateTime", "toDateTime"} {
		if _, ok := f[k]; !ok {
			return "filter." + k, "is required unless filter.callIds is given"
		}
	}
	return "", ""
}

func mediaMustBeTrue(p tributary.Params) (string, string) {
	cs, _ := p["contentSelector"].(map[string]any)
	ef, _ := cs["exposedFields"].(map[string]any)
	if media, _ := ef["media"].(bool); !media {
		return "contentSelector.exposedFields.media", "must be true: Gong returns the media URLs only then"
	}
	return "", ""
}

// parseError reads Gong's error body {"requestId": "...", "errors":
// ["..."]}, OAuth's {"error", "error_description"} and the media host's
// S3-style XML <Error><Code/><Message/><RequestId/></Error>. Gong has no
// error codes; its messages are joined with "; ".
func parseError(status int, h http.Header, body []byte, e *tributary.Error) {
	m, err := jsonx.Members(body)
	if err != nil {
		var x struct {
			Code      string `xml:"Code"`
			Message   string `xml:"Message"`
			RequestID string `xml:"RequestId"`
		}
		if xml.Unmarshal(body, &x) == nil && (x.Code != "" || x.Message != "") {
			e.Code, e.Message, e.RequestID = x.Code, x.Message, x.RequestID
		}
		return
	}
	if s, ok := jsonx.String(m["requestId"]); ok {
		e.RequestID = s
	}
	if raw, ok := m["errors"]; ok {
		var list []string
		if json.Unmarshal(raw, &list) == nil {
			var msgs []string
			for _, s := range list {
				if s = strings.TrimSpace(s); s != "" {
					msgs = append(msgs, s)
				}
			}
			e.Message = strings.Join(msgs, "; ")
		}
	}
	if s, ok := jsonx.String(m["error"]); ok {
		e.Code = s
	}
	for _, k := range []string{"error_description", "message"} {
		if s, ok := jsonx.String(m[k]); ok && s != "" && e.Message == "" {
			e.Message = s
		}
	}
	if e.Message == "" && e.Code != "" {
		e.Message = e.Code
	}
}

// emptyList reports whether a list's error answer means "nothing matched":
// Gong answers 404 "No calls found corresponding to the provided filters"
// (and "No stats found ...", "No folders found ...", "Answered scorecards
// not found") instead of an empty page. Other 404s ("User not found" for
// unknown user ids, "Workspace not found") stay errors.
func emptyList(e *tributary.Error) bool {
	if e.StatusCode != http.StatusNotFound {
		return false
	}
	m := strings.ToLower(strings.TrimSpace(e.Message))
	return (strings.HasPrefix(m, "no ") && strings.Contains(m, " found")) ||
		m == "answered scorecards not found" || m == "scorecards not found"
}
