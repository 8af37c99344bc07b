package googledrive

import "github.com/tributary-dev/tributary"

// OAuthApp describes Google's OAuth 2.0 authorization-code flow for a web
// application: consent at accounts.google.com/o/oauth2/v2/auth with
// access_type=offline and prompt=consent (without them Google hands out no
// refresh token, or none on a second consent), PKCE S256, exchange at
// oauth2.googleapis.com/token (client in the body). The one scope,
// drive.readonly, reads every file's metadata and content and writes
// nothing; Google counts it as restricted: an app for other domains'
// users goes through Google's verification.
func OAuthApp() tributary.OAuthApp {
	return tributary.OAuthApp{
		Kind:       Type,
		AuthURL:    "https://accounts.google.com/o/oauth2/v2/auth",
		TokenURL:   GoogleTokenURL,
		AuthParams: map[string]string{"access_type": "offline", "prompt": "consent"},
		Scopes:     []string{ReadOnlyScope},
		PKCE:       true,
		Expires:    true,
		Credentials: []tributary.OAuthField{
			{Name: "access_token", From: tributary.OAuthFromAccessToken},
			{Name: "refresh_token", From: tributary.OAuthFromRefreshToken},
			{Name: "client_id", From: tributary.OAuthFromClientID},
			{Name: "client_secret", From: tributary.OAuthFromClientSecret},
		},
	}
}
