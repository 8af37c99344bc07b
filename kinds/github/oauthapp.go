package github

import "github.com/tributary-dev/tributary"

// OAuthApp describes GitHub's OAuth-app authorization-code flow: consent
// at github.com/login/oauth/authorize, exchange at
// github.com/login/oauth/access_token (PKCE S256 supported). The tokens of
// OAuth apps do not expire and come without a refresh token; the exchange
// produces {"access_token": ...}.
//
// GitHub has no read-only scope for repositories: "repo" (private
// repositories' issues, pulls, contents) grants writing too; read:org and
// read:user read organizations, teams and users.
func OAuthApp() tributary.OAuthApp {
	return tributary.OAuthApp{
		Kind:     Type,
		AuthURL:  "https://github.com/login/oauth/authorize",
		TokenURL: "https://github.com/login/oauth/access_token",
		Scopes:   []string{"repo", "read:org", "read:user"},
		ScopeNotes: map[string]string{"repo": "also allows changing your repositories' code, issues and pull requests, " +
			"public and private: GitHub has no read-only permission for private repositories"},
		PKCE: true,
		Credentials: []tributary.OAuthField{
			{Name: "access_token", From: tributary.OAuthFromAccessToken},
		},
	}
}
