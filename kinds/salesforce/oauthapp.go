package salesforce

import "github.com/tributary-dev/tributary"

// OAuthApp describes Salesforce's web-server flow: consent at
// {login_url}/services/oauth2/authorize, exchange at
// {login_url}/services/oauth2/token (PKCE S256 supported), where
// login_url is ProductionLoginURL unless the caller gives SandboxLoginURL
// or the org's My Domain. The token answer's instance_url is kept; the
// exchange produces client_id, client_secret, refresh_token, access_token,
// instance_url and, when the caller chose one, login_url. Salesforce has no
// read-only scope: "api" reads (and could write) data, "refresh_token"
// obtains the refresh token.
func OAuthApp() tributary.OAuthApp {
	return tributary.OAuthApp{
		Kind:     Type,
		AuthURL:  "{login_url}/services/oauth2/authorize",
		TokenURL: "{login_url}" + tokenPath,
		Scopes:   []string{"api", "refresh_token"},
		ScopeNotes: map[string]string{
			"api":           "also allows creating, changing and deleting records: Salesforce has no read-only permission for its API",
			"refresh_token": "keeps the access while you are away, until you revoke it",
		},
		PKCE:    true,
		Expires: true,
		Inputs: []tributary.OAuthInput{{Name: "login_url", Default: ProductionLoginURL,
			Doc: "login host: " + ProductionLoginURL + ", " + SandboxLoginURL + " for a sandbox, or the org's My Domain"}},
		Credentials: []tributary.OAuthField{
			{Name: "client_id", From: tributary.OAuthFromClientID},
			{Name: "client_secret", From: tributary.OAuthFromClientSecret},
			{Name: "refresh_token", From: tributary.OAuthFromRefreshToken},
			{Name: "access_token", From: tributary.OAuthFromAccessToken},
			{Name: "instance_url", From: tributary.OAuthFromToken, Key: "instance_url"},
			{Name: "login_url", From: tributary.OAuthFromInput, Key: "login_url", Optional: true},
		},
	}
}
