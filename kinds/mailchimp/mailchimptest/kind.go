package mailchimptest

import "github.com/tributary-dev/tributary/internal/fakeserver"

// Kind describes this fake to the sandbox and to the tests that cover
// every kind (see fakeserver.Kind): Start(n) serves n campaigns (0: the
// default data).
func Kind() fakeserver.Kind {
	return fakeserver.Kind{
		Type: "mailchimp", Main: "campaigns", Probe: fakeserver.Probe{Entity: "lists"},
		Start: func(n int) fakeserver.Fake {
			opts := []Option{}
			if n > 0 {
				opts = append(opts, WithCampaigns(n))
			}
			return New(opts...)
		},
		Credentials: map[string]any{"api_key": DefaultAPIKey},
		OAuth:       fakeserver.OAuthClient{ClientID: DefaultClientID, ClientSecret: DefaultClientSecret},
	}
}
