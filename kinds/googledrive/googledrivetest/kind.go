package googledrivetest

import (
	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// Kind describes this fake to the sandbox and to the tests that cover
// every kind (see fakeserver.Kind): Start(n) serves n files of My Drive
// and no shared drive (0: the default data, with two shared drives), so
// that the cost of a copy measured on it is that of one changes token.
func Kind() fakeserver.Kind {
	return fakeserver.Kind{
		Type: "google-drive", Main: "files", Probe: fakeserver.Probe{Entity: "drives"},
		Start: func(n int) fakeserver.Fake {
			if n > 0 {
				return New(WithFiles(n), WithDrives(0, 0))
			}
			return New()
		},
		Credentials: map[string]any{"access_token": DefaultAccessToken},
		OAuth:       fakeserver.OAuthClient{ClientID: DefaultClientID, ClientSecret: DefaultClientSecret},
		Download: func(size, cut int) (fakeserver.Fake, string, map[string]any, []byte) {
			s := New(WithFiles(7), WithDrives(0, 0), WithFileSize(size), WithFileCutEvery(cut))
			id := FileID(4) // a PDF: the fifth kind of file
			content, _ := s.FileContent(id)
			return s, "files", map[string]any{"fileId": id}, content
		},
		DownloadOrigin: "api",
	}
}
