package hubspot

import "github.com/tributary-dev/tributary"

// OAuthApp describes HubSpot's authorization-code flow: consent at
// app.hubspot.com/oauth/authorize, exchange at
// api.hubapi.com/oauth/v1/token (client in the form body). Access tokens
// live 30 minutes (expires_in); the exchange produces client_id,
// client_secret, refresh_token and access_token, with which the connector
// refreshes by itself. The scopes read the catalogue's CRM objects,
// owners, pipelines and schemas.
func OAuthApp() tributary.OAuthApp {
	return tributary.OAuthApp{
		Kind:     Type,
		AuthURL:  "https://app.hubspot.com/oauth/authorize",
		TokenURL: "https://api.hubapi.com/oauth/v1/token",
		Scopes: []string{"oauth",
			"crm.objects.contacts.read", "crm.objects.companies.read", "crm.objects.deals.read",
			"tickets", "crm.objects.owners.read", "crm.objects.custom.read", "sales-email-read",
			"crm.schemas.contacts.read", "crm.schemas.companies.read", "crm.schemas.deals.read", "crm.schemas.custom.read"},
		Expires: true,
		Credentials: []tributary.OAuthField{
			{Name: "client_id", From: tributary.OAuthFromClientID},
			{Name: "client_secret", From: tributary.OAuthFromClientSecret},
			{Name: "refresh_token", From: tributary.OAuthFromRefreshToken},
			{Name: "access_token", From: tributary.OAuthFromAccessToken},
		},
	}
}
