package asanatest

import "github.com/tributary-dev/tributary/internal/fakeserver"

// Kind describes this fake to the sandbox and to the tests that cover
// every kind (see fakeserver.Kind). Its Main is projects, not tasks: the
// suites walk Main with no params, and Asana lists tasks only by project,
// section, tag or assignee. Start(n) serves n projects (0: the default
// data). Asana announces no rate-limit budget (only 429 with Retry-After):
// the kind paces itself to the documented 150 a minute, so the fake
// offers no Limited.
func Kind() fakeserver.Kind {
	return fakeserver.Kind{
		Type: "asana", Main: "projects", Probe: fakeserver.Probe{Entity: "workspaces"},
		Start: func(n int) fakeserver.Fake {
			if n > 0 {
				return New(WithProjects(n), WithTasks(n))
			}
			return New()
		},
		Credentials: map[string]any{"token": DefaultToken},
		OAuth:       fakeserver.OAuthClient{ClientID: DefaultClientID, ClientSecret: DefaultClientSecret},
		Download: func(size, cut int) (fakeserver.Fake, string, map[string]any, []byte) {
			s := New(WithProjects(1), WithTasks(3), WithFileSize(size), WithFileCutEvery(cut))
			id := GID("attachment", 0)
			content, _ := s.FileContent(id)
			return s, "attachments", map[string]any{"attachment_gid": id}, content
		},
		DownloadOrigin: "files",
	}
}
