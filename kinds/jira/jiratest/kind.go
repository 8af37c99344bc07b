package jiratest

import (
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// Kind describes this fake to the sandbox and to the tests that cover
// every kind (see fakeserver.Kind): Start(n) serves n issues (0: the
// default data).
func Kind() fakeserver.Kind {
	start := func(n int, opts ...Option) *Server {
		if n > 0 {
			opts = append(opts, WithIssues(n))
		}
		return New(opts...)
	}
	return fakeserver.Kind{
		Type: "jira", Main: "issues", Probe: fakeserver.Probe{Entity: "projects"},
		Start:       func(n int) fakeserver.Fake { return start(n) },
		Credentials: map[string]any{"site": DefaultSite, "email": DefaultEmail, "api_token": DefaultAPIToken},
		OAuth:       fakeserver.OAuthClient{ClientID: DefaultClientID, ClientSecret: DefaultClientSecret, Inputs: map[string]string{"site": DefaultSite}},
		Limited: func(c *fakeserver.Clock, n, limit int, per time.Duration) fakeserver.Fake {
			return start(n, WithClock(c), WithRateLimit(limit, per))
		},
		Download: func(size, cut int) (fakeserver.Fake, string, map[string]any, []byte) {
			s := New(WithIssues(4), WithAttachmentSize(size), WithFileCutEvery(cut))
			id := AttachmentID(0)
			content, _ := s.FileContent(id)
			return s, "issue_attachments", map[string]any{"id": id}, content
		},
		DownloadOrigin: "files",
	}
}
