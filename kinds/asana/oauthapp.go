package asana

import "github.com/tributary-dev/tributary"

// OAuthApp describes Asana's OAuth 2.0 authorization-code flow: consent
// at app.asana.com/-/oauth_authorize, exchange and refresh at
// app.asana.com/-/oauth_token (a form body, the client in it). Access
// tokens live an hour; the refresh token does not change. The scopes are
// the read scopes of what the catalogue reads.
func OAuthApp() tributary.OAuthApp {
	return tributary.OAuthApp{
		Kind:     Type,
		AuthURL:  "https://app.asana.com/-/oauth_authorize",
		TokenURL: "https://app.asana.com/-/oauth_token",
		Scopes: []string{"workspaces:read", "users:read", "teams:read", "projects:read", "tasks:read", "stories:read",
			"tags:read", "attachments:read"},
		PKCE:    true,
		Expires: true,
		Credentials: []tributary.OAuthField{
			{Name: "access_token", From: tributary.OAuthFromAccessToken},
			{Name: "refresh_token", From: tributary.OAuthFromRefreshToken},
			{Name: "client_id", From: tributary.OAuthFromClientID},
			{Name: "client_secret", From: tributary.OAuthFromClientSecret},
		},
	}
}
