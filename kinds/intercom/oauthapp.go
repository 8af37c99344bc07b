package intercom

import "github.com/tributary-dev/tributary"

// OAuthApp describes Intercom's authorization-code flow: consent at
// app.intercom.com/oauth, exchange at api.intercom.io/auth/eagle/token
// (client in the body). Scopes are chosen on the app, not in the request;
// the token does not expire and comes without a refresh token. The
// exchange produces {"access_token": ...} (a workspace outside the US adds
// its region to the credentials).
func OAuthApp() tributary.OAuthApp {
	return tributary.OAuthApp{
		Kind:     Type,
		AuthURL:  "https://app.intercom.com/oauth",
		TokenURL: "https://api.intercom.io/auth/eagle/token",
		ConsentNote: "Intercom asks for the permissions the application chose in its settings at Intercom; " +
			"its consent page lists them",
		Credentials: []tributary.OAuthField{
			{Name: "access_token", From: tributary.OAuthFromAccessToken},
		},
	}
}
