package salesforcetest

import "github.com/tributary-dev/tributary/internal/fakeserver"

// Kind describes this fake to the sandbox and to the tests that cover
// every kind (see fakeserver.Kind): Start(n) serves n accounts (0: the
// default data).
func Kind() fakeserver.Kind {
	return fakeserver.Kind{
		Type: "salesforce", Main: "accounts", Probe: fakeserver.Probe{Entity: "query", Params: map[string]any{"q": "SELECT Id FROM Account LIMIT 1"}},
		Start: func(n int) fakeserver.Fake {
			opts := []Option{WithAccounts(1000)}
			if n > 0 {
				opts = append(opts, WithAccounts(n))
			}
			return New(opts...)
		},
		Credentials: map[string]any{"client_id": DefaultClientID, "client_secret": DefaultClientSecret, "refresh_token": DefaultRefreshToken},
		OAuth:       fakeserver.OAuthClient{ClientID: DefaultClientID, ClientSecret: DefaultClientSecret},
	}
}
