package lineartest

import (
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// Kind describes this fake to the sandbox and to the tests that cover
// every kind (see fakeserver.Kind): Start(n) serves n issues that are not
// trashed (0: the default data); Limited enforces a requests budget of
// limit per per (the complexity budget never the one that binds).
func Kind() fakeserver.Kind {
	sized := func(n int, opts ...Option) *Server {
		if n > 0 {
			opts = append(opts, WithIssues(issuesFor(n)))
		}
		return New(opts...)
	}
	return fakeserver.Kind{
		Type: "linear", Main: "issues", Probe: fakeserver.Probe{Entity: "teams"},
		Start:       func(n int) fakeserver.Fake { return sized(n) },
		PageSize:    MaxFirst,
		Credentials: map[string]any{"api_key": DefaultAPIKey},
		OAuth:       fakeserver.OAuthClient{ClientID: DefaultClientID, ClientSecret: DefaultClientSecret},
		// RATELIMITED comes in errors[] with a 400.
		RateLimitStatus: 400,
		Limited: func(c *fakeserver.Clock, n, limit int, per time.Duration) fakeserver.Fake {
			return sized(n, WithClock(c), WithRateLimit(limit, limit*10_000, per))
		},
	}
}

// issuesFor is how many issues to generate for live of them not to be
// trashed (every 40th is).
func issuesFor(live int) int {
	m := live + live/39
	for m-m/40 < live {
		m++
	}
	for m > 0 && (m-1)-(m-1)/40 >= live {
		m--
	}
	return m
}
