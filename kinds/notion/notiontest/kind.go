package notiontest

import "github.com/tributary-dev/tributary/internal/fakeserver"

// Kind describes this fake to the sandbox and to the tests that cover
// every kind (see fakeserver.Kind): Start(n) serves n pages besides the
// rows of its data sources (0: the default data). Notion announces no
// rate-limit budget (only 429 with Retry-After): the kind paces itself to
// three requests a second, so the fake offers no Limited.
func Kind() fakeserver.Kind {
	return fakeserver.Kind{
		Type: "notion", Main: "pages", Probe: fakeserver.Probe{Entity: "users"},
		Start: func(n int) fakeserver.Fake {
			if n > 0 {
				return New(WithPages(n))
			}
			return New()
		},
		Credentials: map[string]any{"token": DefaultToken},
		OAuth:       fakeserver.OAuthClient{ClientID: DefaultClientID, ClientSecret: DefaultClientSecret},
		Download: func(size, cut int) (fakeserver.Fake, string, map[string]any, []byte) {
			s := New(WithPages(8), WithDataSources(0), WithFileSize(size), WithFileCutEvery(cut))
			id := s.FileBlocks()[0]
			content, _ := s.FileContent(id)
			return s, "files", map[string]any{"block_id": id}, content
		},
		DownloadOrigin: "files",
	}
}
