package zendesktest

import "github.com/tributary-dev/tributary/internal/fakeserver"

// Kind describes this fake to the sandbox and to the tests that cover
// every kind (see fakeserver.Kind): Start(n) serves n tickets (0: the
// default data).
func Kind() fakeserver.Kind {
	return fakeserver.Kind{
		Type: "zendesk-support", Main: "tickets", Probe: fakeserver.Probe{Entity: "groups"},
		Start: func(n int) fakeserver.Fake {
			opts := []Option{}
			if n > 0 {
				opts = append(opts, WithTickets(n))
			}
			return New(opts...)
		},
		Credentials: map[string]any{"subdomain": DefaultSubdomain, "email": DefaultEmail, "api_token": DefaultAPIToken},
		OAuth:       fakeserver.OAuthClient{ClientID: DefaultClientID, ClientSecret: DefaultClientSecret, Inputs: map[string]string{"subdomain": DefaultSubdomain}},
	}
}
