package engine

import (
	"net/url"
	"strings"

	"golang.org/x/oauth2"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/transport"
)

// Tokens are the OAuth fields of a kind's credentials.
type Tokens struct {
	ClientID, ClientSecret    string
	AccessToken, RefreshToken string
}

// RefreshAuth returns the Auth of OAuth credentials that refreshes its
// access token at the token endpoint the kind's OAuth app declares (the
// one its consent flow uses: one statement of it, no drift), with the
// client authenticating as the app says. The endpoint follows
// tributary.WithBaseURL (its origin replaced, its path kept), and
// tributary.WithTokenURL replaces it. An access token of unknown age is
// used until the source rejects it; refreshes go through
// Options.TokenStore and reach Options.OnTokenRefresh (rotating refresh
// tokens: Atlassian's, Linear's). A refresh token is required; without
// one the access token is sent as it is (Bearer) until it expires.
func RefreshAuth(o tributary.Options, app tributary.OAuthApp, t Tokens) transport.Auth {
	if t.RefreshToken == "" {
		return transport.Bearer(t.AccessToken)
	}
	style := oauth2.AuthStyleInParams
	if app.ClientAuth == tributary.OAuthClientInBasic {
		style = oauth2.AuthStyleInHeader
	}
	auth, _ := transport.OAuth(transport.OAuthConfig{
		TokenURL: TokenURL(o, app.TokenURL), AuthStyle: style,
		ClientID: t.ClientID, ClientSecret: t.ClientSecret,
		AccessToken: t.AccessToken, RefreshToken: t.RefreshToken,
		HTTPClient: o.HTTPClient, Timeouts: Timeouts(o), JSONBody: app.TokenJSON, OnRefresh: o.OnTokenRefresh, Store: o.TokenStore,
	})
	return auth
}

// TokenURL is the token endpoint a connector refreshes at: o.TokenURL
// when set, else the app's, its origin replaced by o.BaseURL's when that
// is set (a fake serves the vendor's paths).
func TokenURL(o tributary.Options, appTokenURL string) string {
	if o.TokenURL != "" {
		return o.TokenURL
	}
	if o.BaseURL == "" {
		return appTokenURL
	}
	u, err := url.Parse(appTokenURL)
	b, berr := url.Parse(o.BaseURL)
	if err != nil || berr != nil {
		return appTokenURL
	}
	u.Scheme, u.Host = b.Scheme, b.Host
	u.Path = strings.TrimRight(b.Path, "/") + u.Path
	return u.String()
}
