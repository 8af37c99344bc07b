package stripetest

import "github.com/tributary-dev/tributary/internal/fakeserver"

// Kind describes this fake to the sandbox and to the tests that cover
// every kind (see fakeserver.Kind): Start(n) serves n customers (0: the
// default data). Stripe announces no rate-limit budget (a 429 only): the
// kind paces itself to Stripe's documented rates, which its own tests
// check, so the fake offers no Limited.
func Kind() fakeserver.Kind {
	return fakeserver.Kind{
		Type: "stripe", Main: "customers", Probe: fakeserver.Probe{Entity: "customers"},
		Start: func(n int) fakeserver.Fake {
			if n > 0 {
				return New(WithCustomers(n))
			}
			return New()
		},
		Credentials: map[string]any{"api_key": DefaultKey},
		OAuth:       fakeserver.OAuthClient{ClientID: DefaultClientID, ClientSecret: DefaultClientSecret},
		Download: func(size, cut int) (fakeserver.Fake, string, map[string]any, []byte) {
			s := New(WithFileSize(size), WithFileCutEvery(cut))
			content, _ := s.FileContent(ID("files", 0))
			return s, "files", map[string]any{"file": ID("files", 0)}, content
		},
		DownloadOrigin: "api",
	}
}
