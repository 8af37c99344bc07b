package gongtest

import "github.com/tributary-dev/tributary/internal/fakeserver"

// Kind describes this fake to the sandbox and to the tests that cover
// every kind (see fakeserver.Kind): Start(n) serves n calls (0: the
// default data).
func Kind() fakeserver.Kind {
	return fakeserver.Kind{
		Type: "gong", Main: "calls", Probe: fakeserver.Probe{Entity: "users"},
		Start: func(n int) fakeserver.Fake {
			opts := []Option{}
			if n > 0 {
				opts = append(opts, WithCalls(n))
			}
			return New(opts...)
		},
		Credentials: map[string]any{"access_key": DefaultAccessKey, "access_key_secret": DefaultAccessKeySecret},
		OAuth:       fakeserver.OAuthClient{ClientID: DefaultClientID, ClientSecret: DefaultClientSecret},
	}
}
