package intercom

import "github.com/tributary-dev/tributary"

// OAuthApp describes Intercom's authorization-code flow: consent at
// app.intercom.com/oauth, exchange at api.intercom.io/auth/eagle/token
// (client in the body), or at the hosts of the workspace's region, asked
// up front: app.eu.intercom.com and api.eu.intercom.io in the EU,
// app.au.intercom.com and api.au.intercom.io in Australia. Scopes are
// chosen on the app, not in the request; the token does not expire and
// comes without a refresh token. The exchange produces {"access_token":
// ...} and, when the caller named the region, "region", which points the
// connector at the region's API host.
func OAuthApp() tributary.OAuthApp {
	var choices []tributary.OAuthChoice
	for _, r := range []Region{RegionUS, RegionEU, RegionAU} {
		choices = append(choices, tributary.OAuthChoice{Value: string(r),
			Fill: map[string]string{"app_origin": r.appURL(), "api_origin": r.BaseURL()}})
	}
	return tributary.OAuthApp{
		Kind:     Type,
		AuthURL:  "{app_origin}/oauth",
		TokenURL: "{api_origin}/auth/eagle/token",
		ConsentNote: "Intercom asks for the permissions the application chose in its settings at Intercom; " +
			"its consent page lists them",
		Inputs: []tributary.OAuthInput{{Name: "region", Default: string(RegionUS), Choices: choices,
			Doc: "the workspace's data-hosting region: us (app.intercom.com), eu (app.eu.intercom.com) or au (app.au.intercom.com)"}},
		Credentials: []tributary.OAuthField{
			{Name: "access_token", From: tributary.OAuthFromAccessToken},
			{Name: "region", From: tributary.OAuthFromInput, Key: "region", Optional: true},
		},
	}
}

// appURL is the origin of the region's web application, where its OAuth
// consent page is.
func (r Region) appURL() string {
	switch r {
	case RegionEU:
		return "https://app.eu.intercom.com"
	case RegionAU:
		return "https://app.au.intercom.com"
	}
	return "https://app.intercom.com"
}
