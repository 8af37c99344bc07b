package slack

import "github.com/tributary-dev/tributary"

// OAuthApp describes Slack's OAuth v2 install: consent at
// slack.com/oauth/v2/authorize with the bot scopes in scope and the user
// scope search:read in user_scope (comma-separated), exchange at
// slack.com/api/oauth.v2.access. The answer's extras are nested: the bot
// token is access_token, the user token authed_user.access_token (kept
// as user_token, for search.messages), the workspace team.id. The tokens
// live until revoked (an app that turns token rotation on is not
// supported). The scopes read and write nothing else.
func OAuthApp() tributary.OAuthApp {
	return tributary.OAuthApp{
		Kind:           Type,
		AuthURL:        "https://slack.com/oauth/v2/authorize",
		TokenURL:       "https://slack.com/api/oauth.v2.access",
		AuthParams:     map[string]string{"user_scope": "search:read"},
		ScopeSeparator: ",",
		Scopes: []string{"channels:read", "groups:read", "channels:history", "groups:history", "users:read", "users:read.email",
			"files:read", "team:read"},
		Credentials: []tributary.OAuthField{
			{Name: "token", From: tributary.OAuthFromAccessToken},
			{Name: "user_token", From: tributary.OAuthFromToken, Key: "authed_user.access_token", Optional: true},
			{Name: "team_id", From: tributary.OAuthFromToken, Key: "team.id", Optional: true},
		},
	}
}
