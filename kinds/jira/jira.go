// Package jira is the issue-tracking connector (connector_type "jira"):
// Jira Cloud's REST API v3 and the Jira Software agile API, read-only.
//
// Open it with New (typed credentials) or kinds.Open("jira",
// map[string]any{...}) with a site, an email and an API token (Basic, at
// https://{site}.atlassian.net), or with OAuth 2.0 (3LO) credentials: the
// cloud_id of the site and an access token, with refresh_token, client_id
// and client_secret to refresh it (https://api.atlassian.com/ex/jira/{cloud_id}).
// Every entity of the catalogue is reachable through the generic
// tributary.Connector methods; the typed handles (Issues, Projects, ...)
// decode records into the structs of this package.
//
//	c, err := jira.New(jira.Credentials{Site: "acme", Email: "me@acme.com", APIToken: tok})
//	for is, err := range c.Issues().All(ctx, jira.IssueParams{JQL: "project = ABC"}) { ... }
//
// Issues are listed with JQL (GET /rest/api/3/search/jql, paged by
// nextPageToken until isLast); other lists page with startAt and
// maxResults. A copy of issues is kept current by a JQL filter on updated,
// read to the minute in the API user's time zone, with deleted issues
// found by a periodic sweep of the ids; worklogs by Jira's own change
// feeds of updated and deleted worklogs.
package jira

import (
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/jsonx"
	"github.com/tributary-dev/tributary/internal/transport"
)

// Credentials of a Jira Cloud site: Site, Email and APIToken (Basic), or
// CloudID and AccessToken, with RefreshToken, ClientID and ClientSecret to
// refresh it (OAuth 2.0 3LO). Printing Credentials never shows the
// secrets.
type Credentials struct {
	// Site is the site's name: "acme" for acme.atlassian.net.
	Site string
	// Email and APIToken authenticate with Basic auth.
	Email, APIToken string
	// CloudID is the site's cloud id, which OAuth requests go through
	// (https://api.atlassian.com/ex/jira/{cloud_id}).
	CloudID string
	// AccessToken is an OAuth access token, sent as Bearer.
	AccessToken string
	// RefreshToken, ClientID and ClientSecret refresh it at
	// https://auth.atlassian.com/oauth/token. Atlassian's refresh tokens
	// rotate: pass tributary.WithTokenStore or WithTokenRefresh to keep
	// the new one.
	RefreshToken, ClientID, ClientSecret string
}

// Format prints the credentials with every secret redacted.
func (c Credentials) Format(f fmt.State, verb rune) {
	red := func(s string) string {
		if s == "" {
			return `""`
		}
		return "[REDACTED]"
	}
	fmt.Fprintf(f, "jira.Credentials{Site: %q, Email: %q, APIToken: %s, CloudID: %q, AccessToken: %s, RefreshToken: %s, ClientID: %q, ClientSecret: %s}",
		c.Site, c.Email, red(c.APIToken), c.CloudID, red(c.AccessToken), red(c.RefreshToken), c.ClientID, red(c.ClientSecret))
}

// CredentialsFromMap reads the credentials object of the contract: site,
// email and api_token; or cloud_id and access_token (with refresh_token,
// client_id and client_secret). Unknown, missing and conflicting fields
// are errors matching tributary.ErrInvalidCredentials.
func CredentialsFromMap(m map[string]any) (Credentials, error) {
	var c Credentials
	if err := engine.ReadCredentials(Type, m,
		engine.CredentialField{Name: "site", Dst: &c.Site},
		engine.CredentialField{Name: "email", Dst: &c.Email},
		engine.CredentialField{Name: "api_token", Dst: &c.APIToken},
		engine.CredentialField{Name: "cloud_id", Dst: &c.CloudID},
		engine.CredentialField{Name: "access_token", Dst: &c.AccessToken},
		engine.CredentialField{Name: "refresh_token", Dst: &c.RefreshToken},
		engine.CredentialField{Name: "client_id", Dst: &c.ClientID},
		engine.CredentialField{Name: "client_secret", Dst: &c.ClientSecret},
	); err != nil {
		return c, err
	}
	return c, c.validate()
}

var (
	siteRE  = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$`)
	cloudRE = regexp.MustCompile(`^[A-Za-z0-9-]{1,64}$`)
)

func (c Credentials) validate() error {
	bad := func(format string, args ...any) error {
		return &tributary.Error{Kind: Type, Err: tributary.ErrInvalidCredentials, Message: fmt.Sprintf(format, args...)}
	}
	basic := c.Email != "" || c.APIToken != ""
	oauth := c.CloudID != "" || c.AccessToken != "" || c.RefreshToken != "" || c.ClientID != "" || c.ClientSecret != ""
	switch {
	case basic && oauth:
		return bad("give either site, email and api_token, or the OAuth fields (cloud_id, access_token, refresh_token, client_id, client_secret), not both")
	case !basic && !oauth:
		return bad("give site, email and api_token, or cloud_id and access_token (OAuth)")
	case c.Site != "" && !siteRE.MatchString(c.Site):
		return bad("site %q is not a Jira Cloud site name (the part before .atlassian.net)", c.Site)
	case basic && (c.Site == "" || c.Email == "" || c.APIToken == ""):
		return bad("API-token authentication needs site, email and api_token")
	case oauth && !cloudRE.MatchString(c.CloudID):
		return bad("OAuth needs the site's cloud_id (letters, digits and hyphens)")
	case oauth && c.AccessToken == "" && c.RefreshToken == "":
		return bad("OAuth needs access_token, or refresh_token to obtain one")
	case c.RefreshToken != "" && (c.ClientID == "" || c.ClientSecret == ""):
		return bad("refreshing an OAuth token needs client_id and client_secret")
	}
	return nil
}

// Client is a direct-mode Jira connector. It implements
// tributary.Connector, tributary.Walker and tributary.Changer and is safe
// for concurrent use.
type Client struct {
	*engine.Connector
}

// WithBudgetPacing turns keeping to the budget Jira announces in its
// rate-limit headers on (the default) or off.
func WithBudgetPacing(on bool) tributary.Option {
	return engine.BudgetSetting(Type+".budget_pacing", on)
}

// New opens a Jira connector. Options: tributary.WithBaseURL (a fake or
// proxy), WithHTTPClient, WithLogger, WithRetry, WithRateLimit,
// WithTokenURL, WithTokenRefresh, WithTokenStore, and WithBudgetPacing.
func New(creds Credentials, opts ...tributary.Option) (*Client, error) {
	if err := creds.validate(); err != nil {
		return nil, err
	}
	o := tributary.NewOptions(opts...)
	base := "https://" + creds.Site + ".atlassian.net"
	auth := transport.Basic(creds.Email, creds.APIToken)
	if creds.CloudID != "" {
		base = "https://api.atlassian.com/ex/jira/" + creds.CloudID
		auth = engine.RefreshAuth(o, OAuthApp(), engine.Tokens{ClientID: creds.ClientID, ClientSecret: creds.ClientSecret,
			AccessToken: creds.AccessToken, RefreshToken: creds.RefreshToken})
	}
	conn, err := engine.Open(engine.Setup{
		Kind: &engine.Kind{
			Type: Type, Entities: catalogue(), ParseError: parseError,
			RateLimits: []engine.RateLimitHeaders{
				{Limit: "X-RateLimit-Limit", Remaining: "X-RateLimit-Remaining", Reset: "X-RateLimit-Reset", Unit: engine.ResetISO8601},
				{Structured: "Beta-RateLimit"},
			},
			Check: &engine.Route{Path: "/rest/api/3/myself"}, // the user the credentials act as
		},
		Options:        o,
		DefaultBaseURL: base,
		Auth:           auth,
		Header:         http.Header{"Accept": {"application/json"}},
		Secrets:        []string{creds.APIToken, creds.AccessToken, creds.RefreshToken, creds.ClientSecret},
	})
	if err != nil {
		return nil, err
	}
	return &Client{Connector: conn}, nil
}

// Open builds a connector from the contract's credentials object; it is
// what kinds.Open calls for "jira".
func Open(credentials map[string]any, opts ...tributary.Option) (tributary.Connector, error) {
	return engine.OpenFrom(credentials, CredentialsFromMap, New, opts...)
}

// parseError reads Jira's error bodies: the ErrorCollection
// {"errorMessages": [...], "errors": {"field": "message"}} of the REST
// API, and {"code": 401, "message": "Unauthorized"} of Atlassian's API
// gateway; other text is kept by the engine.
func parseError(_ int, h http.Header, body []byte, e *tributary.Error) {
	e.RequestID = h.Get("X-Arequestid")
	m, err := jsonx.Members(body)
	if err != nil {
		return
	}
	var msgs []string
	if raw, ok := m["errorMessages"]; ok {
		_ = jsonx.Unmarshal(raw, &msgs)
	}
	var fields map[string]string
	if raw, ok := m["errors"]; ok && jsonx.Unmarshal(raw, &fields) == nil {
		for _, k := range slices.Sorted(maps.Keys(fields)) {
			msgs = append(msgs, k+": "+fields[k])
		}
	}
	if s, ok := jsonx.String(m["message"]); ok && s != "" {
		msgs = append(msgs, s)
	}
	e.Message = strings.Join(msgs, "; ")
}
