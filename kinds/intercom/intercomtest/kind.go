package intercomtest

import "github.com/tributary-dev/tributary/internal/fakeserver"

// Kind describes this fake to the sandbox and to the tests that cover
// every kind (see fakeserver.Kind): Start(n) serves n contacts (0: the
// default data).
func Kind() fakeserver.Kind {
	return fakeserver.Kind{
		Type: "intercom", Main: "contacts", Probe: fakeserver.Probe{Entity: "admins"},
		Start: func(n int) fakeserver.Fake {
			opts := []Option{}
			if n > 0 {
				opts = append(opts, WithContacts(n))
			}
			return New(opts...)
		},
		Credentials: map[string]any{"access_token": DefaultAccessToken},
		OAuth:       fakeserver.OAuthClient{ClientID: DefaultClientID, ClientSecret: DefaultClientSecret},
	}
}
