// Package asana is the project-management connector (connector_type
// "asana"): Asana's REST API 1.0, read-only.
//
// Open it with New (typed credentials) or kinds.Open("asana",
// map[string]any{...}) with a personal access token (token), or with an
// OAuth access token (access_token) and, to refresh it, refresh_token,
// client_id and client_secret. Every entity of the catalogue is reachable
// through the generic tributary.Connector methods; the typed handles
// (Tasks, Projects, ...) decode records into the structs of this package.
//
//	c, err := asana.New(asana.Credentials{Token: pat})
//	for t, err := range c.Tasks().All(ctx, asana.TaskParams{Project: gid}) { ... }
//
// Lists page with limit and offset until next_page is null, and ask for
// the catalogue's fields (opt_fields: Asana's lists answer gid,
// resource_type and name without it). A copy of tasks is read project by
// project and kept current from each project's events: a sync token, 412
// with a fresh one on the first call and once it expired (then the project
// is walked in full again), deleted and removed tasks as deletions.
// Attachments download through their download_url, read right before
// streaming and again on a resume: it lives about two minutes.
package asana

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/transport"
)

// Credentials of an Asana user: a personal access Token, or an OAuth
// AccessToken with RefreshToken, ClientID and ClientSecret to refresh it.
// Printing Credentials never shows the secrets.
type Credentials struct {
	// Token is a personal access token, sent as Bearer.
	Token string
	// AccessToken is an OAuth access token (it lives an hour).
	AccessToken string
	// RefreshToken, ClientID and ClientSecret refresh it at
	// https://app.asana.com/-/oauth_token.
	RefreshToken, ClientID, ClientSecret string
}

// Format prints the credentials with every secret redacted.
func (c Credentials) Format(f fmt.State, _ rune) {
	fmt.Fprintf(f, "asana.Credentials{Token: %s, AccessToken: %s, RefreshToken: %s, ClientID: %q, ClientSecret: %s}",
		engine.Redacted(c.Token), engine.Redacted(c.AccessToken), engine.Redacted(c.RefreshToken), c.ClientID, engine.Redacted(c.ClientSecret))
}

// CredentialsFromMap reads the credentials object of the contract: token,
// or access_token (with refresh_token, client_id and client_secret).
// Unknown, missing and conflicting fields are errors matching
// tributary.ErrInvalidCredentials.
func CredentialsFromMap(m map[string]any) (Credentials, error) {
	var c Credentials
	if err := engine.ReadCredentials(Type, m,
		engine.CredentialField{Name: "token", Dst: &c.Token},
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
	return engine.KeyOrOAuth(Type, "token", "a personal access token", c.Token, c.tokens())
}

func (c Credentials) tokens() engine.Tokens {
	return engine.Tokens{ClientID: c.ClientID, ClientSecret: c.ClientSecret, AccessToken: c.AccessToken, RefreshToken: c.RefreshToken}
}

// Client is a direct-mode Asana connector. It implements
// tributary.Connector, tributary.Walker and tributary.Changer and is safe
// for concurrent use.
type Client struct {
	*engine.Connector
}

// Rate limits Asana documents: 150 requests a minute per token on a free
// plan, 1,500 on a paid one; 60 a minute for the task search.
const (
	DefaultAPIRate = 150
	PaidAPIRate    = 1500
	SearchRate     = 60
)

// SettingAPIRate is the tributary.WithSetting key of WithAPIRateLimit.
const SettingAPIRate = Type + ".api_rate"

// WithAPIRateLimit sets the requests a minute the connector keeps to
// (default 150, a free plan's; PaidAPIRate for a paid one); 0 turns the
// pacing off.
func WithAPIRateLimit(n int) tributary.Option {
	return engine.RateSetting(SettingAPIRate, n, time.Minute)
}

// tierSearch is the task search's own limit.
const tierSearch = "search"

// New opens an Asana connector. Options: tributary.WithBaseURL (a fake or
// proxy; the token endpoint follows it), WithHTTPClient, WithLogger,
// WithRetry, WithRateLimit, WithTokenURL, WithTokenRefresh,
// WithTokenStore, and WithAPIRateLimit.
func New(creds Credentials, opts ...tributary.Option) (*Client, error) {
	if err := creds.validate(); err != nil {
		return nil, err
	}
	o := tributary.NewOptions(opts...)
	auth := transport.Bearer(creds.Token)
	if creds.Token == "" {
		auth = engine.RefreshAuth(o, OAuthApp(), creds.tokens())
	}
	paces, err := engine.PaceFrom(Type, SettingAPIRate, o.Settings, engine.Rate{N: DefaultAPIRate, Per: time.Minute}, engine.AllRequests)
	if err != nil {
		return nil, err
	}
	conn, err := engine.Open(engine.Setup{
		Kind: &engine.Kind{
			Type: Type, Entities: catalogue(), Classify: classify,
			Errors: &engine.ErrorRule{List: "errors", Message: "message", Detail: "help"},
			Tiers:  map[string]engine.Rate{tierSearch: {N: SearchRate, Per: time.Minute}},
			Check:  &engine.Route{Path: "/users/me", Records: "data"},
		},
		Options:        o,
		DefaultBaseURL: "https://app.asana.com/api/1.0",
		Auth:           auth,
		Header:         http.Header{"Accept": {"application/json"}},
		Secrets:        []string{creds.Token, creds.AccessToken, creds.RefreshToken, creds.ClientSecret},
		Paces:          paces,
	})
	if err != nil {
		return nil, err
	}
	return &Client{Connector: conn}, nil
}

// Open builds a connector from the contract's credentials object; it is
// what kinds.Open calls for "asana".
func Open(credentials map[string]any, opts ...tributary.Option) (tributary.Connector, error) {
	return engine.OpenFrom(credentials, CredentialsFromMap, New, opts...)
}

// classify says what a 402 means: Asana's task search is for premium
// workspaces only.
func classify(status int, _ http.Header, _ []byte, e *tributary.Error) {
	if status == http.StatusPaymentRequired {
		e.Err = tributary.ErrForbidden
		e.Message = strings.TrimSuffix(e.Message, ".") + ". Asana's task search (api_search) needs a premium workspace (Starter, Advanced, Enterprise): " +
			"list tasks by project, or search a copy of tasks"
	}
}
