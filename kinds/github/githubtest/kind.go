package githubtest

import "github.com/tributary-dev/tributary/internal/fakeserver"

// Kind describes this fake to the sandbox and to the tests that cover
// every kind (see fakeserver.Kind): Start(n) serves n issues (0: the
// default data).
func Kind() fakeserver.Kind {
	return fakeserver.Kind{
		Type: "github", Main: "issues", Probe: fakeserver.Probe{Entity: "viewer_repositories"},
		Start: func(n int) fakeserver.Fake {
			opts := []Option{}
			if n > 0 {
				opts = append(opts, WithIssues(n))
			}
			return New(opts...)
		},
		Credentials: map[string]any{"token": DefaultToken},
		OAuth:       fakeserver.OAuthClient{ClientID: DefaultClientID, ClientSecret: DefaultClientSecret},
	}
}
