package stripe

import "github.com/tributary-dev/tributary"

// OAuthApp describes Stripe Connect's OAuth for platforms: consent at
// connect.stripe.com/oauth/authorize with scope read_only, exchange at
// connect.stripe.com/oauth/token with the platform's secret key as the
// client secret. The answer's access_token is the connected account's
// key (kept as api_key, it does not expire) and stripe_user_id its
// account id (acct_…), kept beside it. read_only reads everything this
// connector reads and writes nothing.
func OAuthApp() tributary.OAuthApp {
	return tributary.OAuthApp{
		Kind:     Type,
		AuthURL:  "https://connect.stripe.com/oauth/authorize",
		TokenURL: "https://connect.stripe.com/oauth/token",
		Scopes:   []string{"read_only"},
		Credentials: []tributary.OAuthField{
			{Name: "api_key", From: tributary.OAuthFromAccessToken},
			{Name: "stripe_user_id", From: tributary.OAuthFromToken, Key: "stripe_user_id"},
		},
	}
}
