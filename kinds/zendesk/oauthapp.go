package zendesk

import "github.com/tributary-dev/tributary"

// OAuthApp describes Zendesk's authorization-code flow, per account:
// consent at https://{subdomain}.zendesk.com/oauth/authorizations/new,
// exchange at https://{subdomain}.zendesk.com/oauth/tokens (PKCE S256
// supported), so the subdomain is asked up front. The exchange produces
// subdomain, access_token and, when Zendesk issues one, refresh_token
// with client_id and client_secret to refresh it. The scope "read" reads
// everything the catalogue lists and writes nothing.
func OAuthApp() tributary.OAuthApp {
	return tributary.OAuthApp{
		Kind:     Type,
		AuthURL:  "https://{subdomain}.zendesk.com/oauth/authorizations/new",
		TokenURL: "https://{subdomain}.zendesk.com/oauth/tokens",
		Scopes:   []string{"read"},
		PKCE:     true,
		Expires:  true,
		Inputs: []tributary.OAuthInput{{Name: "subdomain", Required: true,
			Doc: `the account's subdomain: "acme" for acme.zendesk.com`}},
		Credentials: []tributary.OAuthField{
			{Name: "subdomain", From: tributary.OAuthFromInput, Key: "subdomain"},
			{Name: "access_token", From: tributary.OAuthFromAccessToken},
			{Name: "refresh_token", From: tributary.OAuthFromRefreshToken, Optional: true},
			{Name: "client_id", From: tributary.OAuthFromClientID},
			{Name: "client_secret", From: tributary.OAuthFromClientSecret},
		},
	}
}
