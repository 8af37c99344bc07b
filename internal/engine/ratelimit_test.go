package engine

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary/internal/transport"
)

func TestRateLimitHeaders(t *testing.T) {
	now := time.Date(2026, 11, 29, 5, 50, 0, 0, time.UTC)
	at := func(status int, kv ...string) *http.Response {
		h := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return &http.Response{StatusCode: status, Header: h}
	}
	jira := RateLimitHeaders{Limit: "X-RateLimit-Limit", Remaining: "X-RateLimit-Remaining", Reset: "X-RateLimit-Reset", Unit: ResetISO8601}
	linear := RateLimitHeaders{Remaining: "X-RateLimit-Requests-Remaining", Reset: "X-RateLimit-Requests-Reset", Unit: ResetEpochMillis}
	beta := RateLimitHeaders{Structured: "Beta-RateLimit"}
	delta := RateLimitHeaders{Remaining: "RateLimit-Remaining", Reset: "RateLimit-Reset", Unit: ResetAfterSeconds}
	minute := RateLimitHeaders{Remaining: "X-Rate-Limit-Remaining", Window: time.Minute}
	index := RateLimitHeaders{Structured: "Zendesk-Ratelimit-Tickets-Index"}
	for _, c := range []struct {
		name   string
		r      RateLimitHeaders
		resp   *http.Response
		budget *transport.Budget
		wait   time.Duration // -1: none
	}{
		{"jira ISO 8601 to the minute, throttled", jira, at(429, "X-RateLimit-Limit", "100", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "2026-11-29T05:52Z"),
			&transport.Budget{Limit: 100, Remaining: 0, Reset: now.Add(2 * time.Minute)}, 2 * time.Minute},
		{"jira with seconds, not throttled", jira, at(200, "X-RateLimit-Remaining", "40", "X-RateLimit-Reset", "2026-11-29T05:50:30Z"),
			&transport.Budget{Remaining: 40, Reset: now.Add(30 * time.Second)}, -1},
		{"linear epoch ms, none left", linear, at(400, "X-RateLimit-Requests-Remaining", "0", "X-RateLimit-Requests-Reset", strconv.FormatInt(now.Add(5500*time.Millisecond).UnixMilli(), 10)),
			&transport.Budget{Remaining: 0, Reset: now.Add(5500 * time.Millisecond)}, 5500 * time.Millisecond},
		{"IETF structured, the tightest policy", beta, at(200, "Beta-RateLimit", `"global-app-quota";r=900;t=600, "burst";r=3;t=1`),
			&transport.Budget{Remaining: 3, Reset: now.Add(time.Second)}, -1},
		{"seconds from now", delta, at(429, "RateLimit-Remaining", "0", "RateLimit-Reset", "17"),
			&transport.Budget{Remaining: 0, Reset: now.Add(17 * time.Second)}, 17 * time.Second},
		{"no reset: the window's bound, no wait of its own", minute, at(429, "X-Rate-Limit", "700", "X-Rate-Limit-Remaining", "0", "Retry-After", "7"),
			&transport.Budget{Remaining: 0, Reset: now.Add(time.Minute), Bound: true}, -1},
		{"structured, spelt out", index, at(200, "Zendesk-Ratelimit-Tickets-Index", "total=100; remaining=99; resets=41"),
			&transport.Budget{Limit: 100, Remaining: 99, Reset: now.Add(41 * time.Second)}, -1},
		{"absent", jira, at(429), nil, -1},
		{"garbage", jira, at(429, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "soon"), nil, -1},
	} {
		b, ok := c.r.budgetAt(c.resp, now)
		if (c.budget == nil) == ok || (ok && !cmp.Equal(*c.budget, b)) {
			t.Errorf("%s: budget %+v %v, want %+v", c.name, b, ok, c.budget)
		}
		w, ok := c.r.Wait(c.resp, now)
		if (c.wait < 0) == ok || (ok && w != c.wait) {
			t.Errorf("%s: wait %v %v, want %v", c.name, w, ok, c.wait)
		}
	}
}

// Only the answers of the endpoints a budget is the own of count for it,
// and not for the source's.
func TestEndpointBudgets(t *testing.T) {
	rls := []RateLimitHeaders{{Remaining: "X-Rate-Limit-Remaining", Window: time.Minute},
		{Structured: "Zendesk-Ratelimit-Tickets-Index", Endpoints: []string{"/api/v2/tickets"}}}
	eb := EndpointBudgetsOf(rls)
	if len(eb) != 1 {
		t.Fatalf("%d endpoint budgets", len(eb))
	}
	for path, want := range map[string]bool{"/api/v2/tickets": true, "/api/v2/tickets.json": true, "/proxy/api/v2/tickets.json": true,
		"/api/v2/incremental/tickets.json": false, "/api/v2/tickets/1.json": false, "/api/v2/users.json": false} {
		req, _ := http.NewRequest(http.MethodGet, "https://acme.zendesk.com"+path, nil)
		if eb[0].Match(req) != want {
			t.Errorf("%s: matched %v", path, !want)
		}
	}
	budget, _ := RateLimitsOf(rls)
	resp := &http.Response{Header: http.Header{"Zendesk-Ratelimit-Tickets-Index": {"total=100; remaining=0; resets=41"}}}
	if b, ok := budget(resp); ok {
		t.Errorf("the source's budget read an endpoint's: %+v", b)
	}
}
