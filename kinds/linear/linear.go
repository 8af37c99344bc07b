// Package linear is the issue-tracking connector (connector_type "linear"):
// Linear's GraphQL API, read-only.
//
// Open it with New (typed credentials) or kinds.Open("linear",
// map[string]any{...}) with a personal API key ({"api_key": "lin_api_…"},
// sent as "Authorization: <key>" with no scheme, as Linear requires), or
// the tokens of Linear's OAuth flow (access_token, and refresh_token with
// the app's client_id and client_secret, sent as Bearer and refreshed when
// Linear refuses them).
//
//	c, err := linear.New(linear.Credentials{APIKey: key})
//	for is, err := range c.Issues().All(ctx, linear.ListParams{First: 250}) { ... }
//
// Every request is one POST of a GraphQL query to /graphql; the queries
// are catalogue data, their selection sets built from this package's
// record types, so that a record holds exactly the fields it declares.
// Lists page by Relay cursors (first ≤ 250, after; Meta holds pageInfo).
// Linear reports failures inside the answer (errors[], with a 200, 400 or
// 401): they are mapped to the shared errors (ErrNotFound for "Entity not
// found", ErrUnauthorized, ErrForbidden, ErrInvalidParams for a query or
// variables Linear refuses), and RATELIMITED is waited for until the reset
// Linear's X-RateLimit-Requests-* and -Complexity-* headers announce (in
// epoch milliseconds). The client keeps to the requests budget those
// headers announce unless told not to (WithBudgetPacing(false)).
//
// Every entity has a change feed: its list ordered by updatedAt, filtered
// on updatedAt after the checkpoint, with archived records included, which
// a copy holds as deletions (archivedAt set, or trashed: a deleted issue).
// Records deleted for good are not visible to the API.
package linear

import (
	"fmt"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/transport"
)

// Type is the connector_type of this kind.
const Type = "linear"

// DefaultBaseURL is Linear's API origin; queries go to DefaultBaseURL +
// "/graphql".
const DefaultBaseURL = "https://api.linear.app"

// SettingBudgetPacing is the tributary.WithSetting key of WithBudgetPacing.
const SettingBudgetPacing = Type + ".budget_pacing"

// WithBudgetPacing turns off (or on, the default) keeping to the requests
// budget Linear's answers announce (X-RateLimit-Requests-Remaining and
// -Reset): with it on, the client spreads the last tenth of a window's
// requests over the time to its reset and holds the rest until then, so
// that a long sync is not refused.
func WithBudgetPacing(on bool) tributary.Option { return engine.BudgetSetting(SettingBudgetPacing, on) }

// Credentials of a Linear workspace: a personal API key, or OAuth tokens.
// Printing Credentials never shows the secrets.
type Credentials struct {
	// APIKey is a personal API key (lin_api_…), sent as the whole
	// Authorization header.
	APIKey string
	// AccessToken is an OAuth access token, sent as Bearer.
	AccessToken string
	// RefreshToken, with ClientID and ClientSecret (the OAuth app, in the
	// refresh's form body), obtains access tokens at Linear's token
	// endpoint when the access token is refused or absent; Linear rotates
	// it, and every issued token reaches tributary.WithTokenRefresh.
	RefreshToken, ClientID, ClientSecret string
}

// Format prints the credentials with every secret redacted.
func (c Credentials) Format(f fmt.State, _ rune) {
	red := engine.Redacted
	fmt.Fprintf(f, "linear.Credentials{APIKey: %s, AccessToken: %s, RefreshToken: %s, ClientID: %q, ClientSecret: %s}",
		red(c.APIKey), red(c.AccessToken), red(c.RefreshToken), c.ClientID, red(c.ClientSecret))
}

// CredentialsFromMap reads the credentials object of the contract: api_key;
// or access_token, refresh_token, client_id and client_secret. Unknown,
// missing and conflicting fields are errors matching
// tributary.ErrInvalidCredentials.
func CredentialsFromMap(m map[string]any) (Credentials, error) {
	var c Credentials
	if err := engine.ReadCredentials(Type, m,
		engine.CredentialField{Name: "api_key", Dst: &c.APIKey},
		engine.CredentialField{Name: "access_token", Dst: &c.AccessToken},
		engine.CredentialField{Name: "refresh_token", Dst: &c.RefreshToken},
		engine.CredentialField{Name: "client_id", Dst: &c.ClientID},
		engine.CredentialField{Name: "client_secret", Dst: &c.ClientSecret},
	); err != nil {
		return c, err
	}
	return c, c.validate()
}

func (c Credentials) validate() error {
	return engine.KeyOrOAuth(Type, "api_key", "a personal API key", c.APIKey,
		engine.Tokens{ClientID: c.ClientID, ClientSecret: c.ClientSecret, AccessToken: c.AccessToken, RefreshToken: c.RefreshToken})
}

// Client is a direct-mode Linear connector. It implements
// tributary.Connector, tributary.Walker and tributary.Changer and is safe
// for concurrent use.
type Client struct {
	*engine.Connector
}

// New opens a Linear connector. Options: tributary.WithBaseURL (a fake or
// proxy; the token endpoint follows it), WithHTTPClient, WithLogger,
// WithRetry, WithRateLimit, WithTokenURL, WithTokenRefresh,
// WithTokenStore, and this package's WithBudgetPacing.
func New(creds Credentials, opts ...tributary.Option) (*Client, error) {
	if err := creds.validate(); err != nil {
		return nil, err
	}
	o := tributary.NewOptions(opts...)
	auth := transport.Header("Authorization", creds.APIKey)
	if creds.APIKey == "" {
		auth = engine.RefreshAuth(o, OAuthApp(), engine.Tokens{ClientID: creds.ClientID, ClientSecret: creds.ClientSecret,
			AccessToken: creds.AccessToken, RefreshToken: creds.RefreshToken})
	}
	conn, err := engine.Open(engine.Setup{
		Kind:           kind(),
		Options:        o,
		DefaultBaseURL: DefaultBaseURL,
		Auth:           auth,
		Secrets:        []string{creds.APIKey, creds.AccessToken, creds.RefreshToken, creds.ClientSecret},
	})
	if err != nil {
		return nil, err
	}
	return &Client{Connector: conn}, nil
}

// Open builds a connector from the contract's credentials object; it is
// what kinds.Open calls for "linear".
func Open(credentials map[string]any, opts ...tributary.Option) (tributary.Connector, error) {
	return engine.OpenFrom(credentials, CredentialsFromMap, New, opts...)
}

// OAuthApp describes Linear's authorization-code flow: consent at
// linear.app/oauth/authorize (scopes comma-separated, PKCE supported),
// exchange at api.linear.app/oauth/token (client in the form body). Access
// tokens expire (a day); the refresh token, which Linear rotates, renews
// them. The read scope covers every entity of the catalogue.
func OAuthApp() tributary.OAuthApp {
	return tributary.OAuthApp{
		Kind:           Type,
		AuthURL:        "https://linear.app/oauth/authorize",
		TokenURL:       DefaultBaseURL + "/oauth/token",
		Scopes:         []string{"read"},
		ScopeSeparator: ",",
		PKCE:           true,
		Expires:        true,
		Credentials: []tributary.OAuthField{
			{Name: "access_token", From: tributary.OAuthFromAccessToken},
			{Name: "refresh_token", From: tributary.OAuthFromRefreshToken, Optional: true},
			{Name: "client_id", From: tributary.OAuthFromClientID},
			{Name: "client_secret", From: tributary.OAuthFromClientSecret},
		},
	}
}
