package mailchimp

import "github.com/tributary-dev/tributary"

// OAuthApp describes Mailchimp's authorization-code flow: consent at
// login.mailchimp.com/oauth2/authorize, exchange at
// login.mailchimp.com/oauth2/token, then the metadata endpoint
// login.mailchimp.com/oauth2/metadata (Authorization: OAuth <token>) names
// the account's data centre. Mailchimp takes no scopes and its tokens
// never expire; the exchange produces access_token and data_center.
func OAuthApp() tributary.OAuthApp {
	return tributary.OAuthApp{
		Kind:        Type,
		AuthURL:     "https://login.mailchimp.com/oauth2/authorize",
		TokenURL:    "https://login.mailchimp.com/oauth2/token",
		MetadataURL: "https://login.mailchimp.com/oauth2/metadata",
		ConsentNote: "Mailchimp asks for no particular permission: you give access to the whole account, " +
			"as your own login has it, reading and writing",
		Credentials: []tributary.OAuthField{
			{Name: "access_token", From: tributary.OAuthFromAccessToken},
			{Name: "data_center", From: tributary.OAuthFromMetadata, Key: "dc"},
		},
	}
}
