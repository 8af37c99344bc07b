// Package notion is the documents connector (connector_type "notion"):
// Notion's API, version 2025-09-03 (the Notion-Version header every
// request carries), read-only.
//
// Open it with New (typed credentials) or kinds.Open("notion",
// map[string]any{...}) with an integration's token ({"token": "ntn_…"}),
// or the tokens of Notion's OAuth flow (access_token, and refresh_token
// with the integration's client_id and client_secret: Notion authenticates
// the client with HTTP Basic, takes the token request as JSON, and hands
// out a new refresh token with every refresh).
//
//	c, err := notion.New(notion.Credentials{Token: tok})
//	for p, err := range c.Pages().All(ctx, notion.SearchParams{Query: "roadmap"}) { ... }
//
// Lists page with start_cursor and page_size (at most 100) until has_more
// is false: in the query of a GET, in the JSON body of a POST (search and
// data source queries). Pages and data sources are listed by POST
// /v1/search; a data source's rows by its query; a page's content by
// blocks, whose list reads nested blocks to the depth asked. Notion has
// no change feed: a copy of pages or data sources is kept current by a
// search sorted by last_edited_time, newest first, that stops at the
// checkpoint; a data source's rows by a query filtered on
// last_edited_time; the blocks and comments of pages whose edit time
// moved are read again. Pages in the trash are deletions. Requests are
// paced to Notion's three a second; a 429 rate_limited is waited out for
// its Retry-After, a 529 service_overload retried.
package notion

import (
	"fmt"
	"net/http"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/jsonx"
	"github.com/tributary-dev/tributary/internal/transport"
)

// DefaultBaseURL is Notion's API origin.
const DefaultBaseURL = "https://api.notion.com"

// SettingAPIRate is the tributary.WithSetting key of the requests per
// second the connector keeps to ("3/1s" by default; "0" for no pace).
const SettingAPIRate = Type + ".api_rate"

// DefaultAPIRate is Notion's documented average: three requests a second
// per integration.
const DefaultAPIRate = 3

// Credentials of a Notion workspace: an integration's token, or OAuth
// tokens. Printing Credentials never shows the secrets.
type Credentials struct {
	// Token is an internal integration's secret (ntn_… or secret_…),
	// sent as Bearer.
	Token string
	// AccessToken is a public integration's OAuth access token.
	AccessToken string
	// RefreshToken, with ClientID and ClientSecret, obtains access tokens
	// at Notion's token endpoint when the access token is refused; Notion
	// rotates it, and every issued token reaches tributary.WithTokenRefresh.
	RefreshToken, ClientID, ClientSecret string
	// WorkspaceID and BotID name what the OAuth exchange connected
	// (kept, never sent).
	WorkspaceID, BotID string
}

// Format prints the credentials with every secret redacted.
func (c Credentials) Format(f fmt.State, _ rune) {
	red := engine.Redacted
	fmt.Fprintf(f, "notion.Credentials{Token: %s, AccessToken: %s, RefreshToken: %s, ClientID: %q, ClientSecret: %s, WorkspaceID: %q, BotID: %q}",
		red(c.Token), red(c.AccessToken), red(c.RefreshToken), c.ClientID, red(c.ClientSecret), c.WorkspaceID, c.BotID)
}

// CredentialsFromMap reads the credentials object of the contract: token;
// or access_token, refresh_token, client_id, client_secret (with
// workspace_id and bot_id). Unknown, missing and conflicting fields are
// errors matching tributary.ErrInvalidCredentials.
func CredentialsFromMap(m map[string]any) (Credentials, error) {
	var c Credentials
	if err := engine.ReadCredentials(Type, m,
		engine.CredentialField{Name: "token", Dst: &c.Token},
		engine.CredentialField{Name: "access_token", Dst: &c.AccessToken},
		engine.CredentialField{Name: "refresh_token", Dst: &c.RefreshToken},
		engine.CredentialField{Name: "client_id", Dst: &c.ClientID},
		engine.CredentialField{Name: "client_secret", Dst: &c.ClientSecret},
		engine.CredentialField{Name: "workspace_id", Dst: &c.WorkspaceID},
		engine.CredentialField{Name: "bot_id", Dst: &c.BotID},
	); err != nil {
		return c, err
	}
	return c, c.validate()
}

func (c Credentials) validate() error {
	return engine.KeyOrOAuth(Type, "token", "an integration's secret", c.Token,
		engine.Tokens{ClientID: c.ClientID, ClientSecret: c.ClientSecret, AccessToken: c.AccessToken, RefreshToken: c.RefreshToken})
}

// Client is a direct-mode Notion connector. It implements
// tributary.Connector, tributary.Walker and tributary.Changer and is safe
// for concurrent use.
type Client struct {
	*engine.Connector
}

// New opens a Notion connector. Options: tributary.WithBaseURL (a fake or
// proxy; the token endpoint follows it), WithHTTPClient, WithLogger,
// WithRetry, WithRateLimit, WithTokenURL, WithTokenRefresh,
// WithTokenStore, WithoutPacing, and the setting SettingAPIRate.
func New(creds Credentials, opts ...tributary.Option) (*Client, error) {
	if err := creds.validate(); err != nil {
		return nil, err
	}
	o := tributary.NewOptions(opts...)
	auth := transport.Bearer(creds.Token)
	if creds.Token == "" {
		auth = engine.RefreshAuth(o, OAuthApp(), engine.Tokens{ClientID: creds.ClientID, ClientSecret: creds.ClientSecret,
			AccessToken: creds.AccessToken, RefreshToken: creds.RefreshToken})
	}
	paces, err := engine.PaceFrom(Type, SettingAPIRate, o.Settings, engine.Rate{N: DefaultAPIRate, Per: time.Second}, engine.AllRequests)
	if err != nil {
		return nil, err
	}
	conn, err := engine.Open(engine.Setup{
		Kind: &engine.Kind{Type: Type, Entities: catalogue(), ParseError: parseError,
			Check: &engine.Route{Path: "/v1/users/me"}}, // the integration's bot user
		Options:        o,
		DefaultBaseURL: DefaultBaseURL,
		Auth:           auth,
		Paces:          paces,
		Header:         http.Header{"Notion-Version": {Version}, "Accept": {"application/json"}},
		Secrets:        []string{creds.Token, creds.AccessToken, creds.RefreshToken, creds.ClientSecret},
	})
	if err != nil {
		return nil, err
	}
	return &Client{Connector: conn}, nil
}

// Open builds a connector from the contract's credentials object; it is
// what kinds.Open calls for "notion".
func Open(credentials map[string]any, opts ...tributary.Option) (tributary.Connector, error) {
	return engine.OpenFrom(credentials, CredentialsFromMap, New, opts...)
}

// OAuthApp describes Notion's authorization-code flow for a public
// integration: consent at api.notion.com/v1/oauth/authorize with
// owner=user (the user picks the pages to share; no scopes), exchange and
// refresh at api.notion.com/v1/oauth/token with the client in HTTP Basic
// and the request body in JSON. The answer names the workspace and the
// bot; the refresh token is rotated on every refresh.
func OAuthApp() tributary.OAuthApp {
	return tributary.OAuthApp{
		Kind:        Type,
		AuthURL:     DefaultBaseURL + "/v1/oauth/authorize",
		TokenURL:    DefaultBaseURL + "/v1/oauth/token",
		AuthParams:  map[string]string{"owner": "user"},
		ClientAuth:  tributary.OAuthClientInBasic,
		TokenJSON:   true,
		ConsentNote: "Notion asks the user which pages and data sources to share with the integration; the connector reads only those.",
		Expires:     true,
		Credentials: []tributary.OAuthField{
			{Name: "access_token", From: tributary.OAuthFromAccessToken},
			{Name: "refresh_token", From: tributary.OAuthFromRefreshToken, Optional: true},
			{Name: "client_id", From: tributary.OAuthFromClientID},
			{Name: "client_secret", From: tributary.OAuthFromClientSecret},
			{Name: "workspace_id", From: tributary.OAuthFromToken, Key: "workspace_id", Optional: true},
			{Name: "bot_id", From: tributary.OAuthFromToken, Key: "bot_id", Optional: true},
		},
	}
}

// parseError reads Notion's error body: {"object": "error", "status",
// "code", "message", "request_id"}. The status already gives the shared
// sentinel (rate_limited is a 429, service_overload a 529).
func parseError(_ int, _ http.Header, body []byte, e *tributary.Error) {
	var b struct {
		Code      string `json:"code"`
		Message   string `json:"message"`
		RequestID string `json:"request_id"`
	}
	if jsonx.Unmarshal(body, &b) == nil {
		e.Code, e.Message, e.RequestID = b.Code, b.Message, b.RequestID
	}
	if e.Code == "validation_error" || e.Code == "invalid_request" || e.Code == "invalid_json" {
		e.Err = tributary.ErrInvalidParams
	}
}
