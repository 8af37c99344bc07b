package slacktest

import "github.com/tributary-dev/tributary/internal/fakeserver"

// Kind describes this fake to the sandbox and to the tests that cover
// every kind (see fakeserver.Kind): Start(n) serves n users (0: the
// default data). Slack announces no rate-limit budget (only 429 with
// Retry-After): the kind paces itself to each method's tier, which its
// own tests check, so the fake offers no Limited.
func Kind() fakeserver.Kind {
	return fakeserver.Kind{
		Type: "slack", Main: "users", Probe: fakeserver.Probe{Entity: "channels"},
		Start: func(n int) fakeserver.Fake {
			if n > 0 {
				return New(WithUsers(n))
			}
			return New()
		},
		Credentials: map[string]any{"token": DefaultBotToken, "user_token": DefaultUserToken},
		OAuth:       fakeserver.OAuthClient{ClientID: DefaultClientID, ClientSecret: DefaultClientSecret},
		Download: func(size, cut int) (fakeserver.Fake, string, map[string]any, []byte) {
			s := New(WithFiles(2), WithFileSize(size), WithFileCutEvery(cut))
			content, _ := s.FileContent(FileID(0))
			return s, "files", map[string]any{"file": FileID(0)}, content
		},
		DownloadOrigin: "api",
	}
}
