package gong

import "github.com/tributary-dev/tributary"

// OAuthApp describes Gong's authorization-code flow: consent at
// app.gong.io/oauth2/authorize, exchange at DefaultTokenURL with the client
// in HTTP Basic. The token answer names the company's own API host
// (api_base_url_for_customer), kept as api_base_url; the exchange also
// produces access_token, refresh_token (single-use: register
// tributary.WithTokenRefresh), client_id and client_secret. The scopes
// read everything the catalogue lists.
func OAuthApp() tributary.OAuthApp {
	return tributary.OAuthApp{
		Kind:       Type,
		AuthURL:    "https://app.gong.io/oauth2/authorize",
		TokenURL:   DefaultTokenURL,
		ClientAuth: tributary.OAuthClientInBasic,
		Scopes: []string{"api:users:read", "api:calls:read:basic", "api:calls:read:extensive",
			"api:calls:read:media-url", "api:calls:read:transcript", "api:workspaces:read",
			"api:stats:user-actions", "api:stats:user-actions:detailed", "api:stats:interaction",
			"api:stats:scorecards", "api:settings:scorecards:read", "api:settings:trackers:read",
			"api:library:read", "api:coaching:read"},
		Expires: true,
		Credentials: []tributary.OAuthField{
			{Name: "access_token", From: tributary.OAuthFromAccessToken},
			{Name: "refresh_token", From: tributary.OAuthFromRefreshToken, Optional: true},
			{Name: "client_id", From: tributary.OAuthFromClientID},
			{Name: "client_secret", From: tributary.OAuthFromClientSecret},
			{Name: "api_base_url", From: tributary.OAuthFromToken, Key: "api_base_url_for_customer"},
		},
	}
}
