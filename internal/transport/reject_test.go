package transport

import (
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// When a 401 leads to a refresh: the caller's token (of unknown age), a
// token that has worked, and an old one are refreshed; a token fresh from
// the endpoint that has never worked is not (the credentials are wrong,
// and refreshing again would loop); a token another request already
// dropped or replaced is retried.
func TestRejectRefreshesOnlyWhatCanHaveExpired(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	const auth = "Bearer t1"
	fresh := func() *tokenCache {
		return &tokenCache{tok: &oauth2.Token{AccessToken: "t1"}, obtained: now, now: func() time.Time { return now }}
	}
	tests := []struct {
		name  string
		setup func(c *tokenCache)
		sent  string
		want  bool
	}{
		{"fresh, never worked", func(c *tokenCache) {}, auth, false},
		{"fresh, has worked", func(c *tokenCache) { c.accept(auth) }, auth, true},
		{"the caller's", func(c *tokenCache) { c.given = true }, auth, true},
		{"old", func(c *tokenCache) { c.obtained = now.Add(-freshFor - time.Second) }, auth, true},
		{"already dropped", func(c *tokenCache) { c.tok = nil }, auth, true},
		{"already replaced", func(c *tokenCache) {}, "Bearer t0", true},
		{"another token worked", func(c *tokenCache) { c.accept("Bearer t0") }, auth, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := fresh()
			tt.setup(c)
			if got := c.reject(tt.sent); got != tt.want {
				t.Errorf("reject = %v, want %v", got, tt.want)
			}
		})
	}
}
