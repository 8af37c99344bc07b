package jira

import "github.com/tributary-dev/tributary"

// OAuthApp describes Atlassian's OAuth 2.0 (3LO) authorization-code flow:
// consent at auth.atlassian.com/authorize with audience=api.atlassian.com
// and prompt=consent, exchange at auth.atlassian.com/oauth/token (client in
// the body). offline_access among the scopes brings a refresh token, which
// rotates: each refresh returns a new one. After the exchange the flow
// asks GET api.atlassian.com/oauth/token/accessible-resources which sites
// the token opens and keeps the chosen one's id as cloud_id (the input
// site chooses among several: its name, host or URL); the API is then
// https://api.atlassian.com/ex/jira/{cloud_id}. The scopes read issues,
// projects, users, boards and sprints and write nothing.
func OAuthApp() tributary.OAuthApp {
	return tributary.OAuthApp{
		Kind:       Type,
		AuthURL:    "https://auth.atlassian.com/authorize",
		TokenURL:   "https://auth.atlassian.com/oauth/token",
		AuthParams: map[string]string{"audience": "api.atlassian.com", "prompt": "consent"},
		Scopes:     []string{"read:jira-work", "read:jira-user", "read:board-scope:jira-software", "read:sprint:jira-software", "offline_access"},
		Expires:    true,
		Lookup: &tributary.OAuthLookup{URL: "https://api.atlassian.com/oauth/token/accessible-resources",
			Pick: &tributary.OAuthPick{Input: "site", Match: []string{"name", "url"}, Label: "url"}},
		Inputs: []tributary.OAuthInput{{Name: "site",
			Doc: `the site to connect when the user grants several: its name ("acme" for acme.atlassian.net) or URL`}},
		Credentials: []tributary.OAuthField{
			{Name: "cloud_id", From: tributary.OAuthFromMetadata, Key: "id"},
			{Name: "access_token", From: tributary.OAuthFromAccessToken},
			{Name: "refresh_token", From: tributary.OAuthFromRefreshToken},
			{Name: "client_id", From: tributary.OAuthFromClientID},
			{Name: "client_secret", From: tributary.OAuthFromClientSecret},
		},
	}
}
