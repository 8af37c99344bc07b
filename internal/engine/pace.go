package engine

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/transport"
)

// Rate is a vendor's documented limit: N requests per Per.
type Rate struct {
	N   float64
	Per time.Duration
}

// RateSetting returns the option behind a kind's With…RateLimit: setting
// name holds n requests per period ("100/10s"); n 0 turns the pace off.
func RateSetting(name string, n int, per time.Duration) tributary.Option {
	if n <= 0 || per <= 0 {
		return tributary.WithSetting(name, "0")
	}
	return tributary.WithSetting(name, strconv.Itoa(n)+"/"+per.String())
}

// PaceFrom builds a kind's pace of the requests match accepts from setting
// name: def when the setting is absent, none when it is 0. The setting is
// "n/period" (as RateSetting writes it) or a bare number of requests per
// def.Per. The limiter keeps a little under the limit (transport.Under).
// It returns no pace when turned off.
func PaceFrom(kind, name string, settings map[string]string, def Rate, match func(*http.Request) bool) ([]transport.Pace, error) {
	r, err := RateFrom(kind, name, settings, def)
	if err != nil {
		return nil, err
	}
	lim := transport.Under(r.N, r.Per)
	if lim == nil {
		return nil, nil
	}
	return []transport.Pace{{Match: match, Limiter: lim}}, nil
}

// RateFrom reads a kind's rate from setting name, as PaceFrom does: def
// when the setting is absent; N is 0 when it turns the pace off, Per
// then def's.
func RateFrom(kind, name string, settings map[string]string, def Rate) (Rate, error) {
	r := def
	v, ok := settings[name]
	if !ok {
		return r, nil
	}
	bad := &tributary.Error{Kind: kind, Err: tributary.ErrInvalidParams, Param: name, Message: fmt.Sprintf("%q is not a rate such as 100/10s", v)}
	n, per, hasPer := strings.Cut(strings.TrimSpace(v), "/")
	f, err := strconv.ParseFloat(n, 64)
	if err != nil || f < 0 {
		return Rate{}, bad
	}
	r.N = f
	if hasPer {
		if r.Per, err = time.ParseDuration(per); err != nil || r.Per <= 0 {
			return Rate{}, bad
		}
	}
	return r, nil
}

// AllRequests matches every request: a pace of a vendor's account-wide
// limit.
func AllRequests(*http.Request) bool { return true }

// BudgetSetting returns the option behind a kind's WithBudgetPacing:
// setting name on or off.
func BudgetSetting(name string, on bool) tributary.Option {
	return tributary.WithSetting(name, strconv.FormatBool(on))
}

// BudgetFrom returns read, the kind's reader of the budget its vendor
// announces (transport.Config.Budget), unless setting name turns keeping
// to it off.
func BudgetFrom(kind, name string, settings map[string]string, read func(*http.Response) (transport.Budget, bool)) (func(*http.Response) (transport.Budget, bool), error) {
	v, ok := settings[name]
	if !ok {
		return read, nil
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		return nil, &tributary.Error{Kind: kind, Err: tributary.ErrInvalidParams, Param: name, Message: fmt.Sprintf("%q is not true or false", v)}
	}
	if !on {
		return nil, nil
	}
	return read, nil
}

// HeaderBudget returns a reader of a budget announced in headers: the
// limit, the requests remaining and the reset in Unix seconds (GitHub's
// x-ratelimit-limit, -remaining and -reset).
func HeaderBudget(limit, remaining, reset string) func(*http.Response) (transport.Budget, bool) {
	return RateLimitHeaders{Limit: limit, Remaining: remaining, Reset: reset}.Budget
}

// ResetUnit is how a rate-limit header writes when the window ends.
type ResetUnit int

const (
	// ResetEpochSeconds is a Unix time in seconds (GitHub, Intercom).
	ResetEpochSeconds ResetUnit = iota
	// ResetEpochMillis is a Unix time in milliseconds (Linear).
	ResetEpochMillis
	// ResetAfterSeconds is the seconds from now to the reset.
	ResetAfterSeconds
	// ResetISO8601 is a time in ISO 8601 (Jira: 2026-11-29T05:50Z).
	ResetISO8601
)

// RateLimitHeaders declares, as data, the headers in which a source
// announces its current rate-limit window, so that one mechanism reads
// them for every kind: the budget a client keeps to on its own
// (transport.Config.Budget) and, on a throttled answer, how long to wait
// (Kind.RetryAfter). Either the three headers Limit, Remaining and Reset,
// or Structured: an IETF RateLimit header (draft-ietf-httpapi-ratelimit-
// headers) of the form `"policy";r=<remaining>;t=<seconds to reset>`, as
// Atlassian's Beta-RateLimit.
type RateLimitHeaders struct {
	// Limit, Remaining and Reset are header names; Limit may be "".
	Limit, Remaining, Reset string
	// Unit is how Reset writes the reset.
	Unit ResetUnit
	// Structured, when set, names an IETF RateLimit header read instead.
	Structured string
	// Window, when Reset is "", says that an answer gives no reset: its
	// window ends at most Window after it (Zendesk's
	// X-Rate-Limit-Remaining, the requests left "in the current minute").
	// As that is a bound, not the reset, the budget then only holds
	// requests once it is spent (its last are not spread), and a
	// throttled answer's wait is left to its Retry-After.
	Window time.Duration
	// Endpoints, when set, make this the budget of those endpoints of
	// their own, beside the source's (Zendesk's List Tickets): the paths of
	// the GET requests it counts, as the routes write them
	// ("/api/v2/tickets"; a ".json" suffix is ignored). Requests to them
	// keep to both.
	Endpoints []string
}

// Budget reads the window an answer announces; false when it announces
// none in these headers.
func (r RateLimitHeaders) Budget(resp *http.Response) (transport.Budget, bool) {
	return r.budgetAt(resp, time.Now())
}

func (r RateLimitHeaders) budgetAt(resp *http.Response, now time.Time) (transport.Budget, bool) {
	h := resp.Header
	if r.Structured != "" {
		return structuredBudget(h.Get(r.Structured), now)
	}
	rem, err := strconv.Atoi(strings.TrimSpace(h.Get(r.Remaining)))
	if err != nil {
		return transport.Budget{}, false
	}
	if r.Reset == "" {
		if r.Window <= 0 {
			return transport.Budget{}, false
		}
		return transport.Budget{Remaining: rem, Reset: now.Add(r.Window), Bound: true}, true
	}
	reset, ok := r.resetAt(h.Get(r.Reset), now)
	if !ok {
		return transport.Budget{}, false
	}
	var lim int
	if r.Limit != "" {
		lim, _ = strconv.Atoi(strings.TrimSpace(h.Get(r.Limit)))
	}
	return transport.Budget{Limit: lim, Remaining: rem, Reset: reset}, true
}

// resetAt reads a reset header in the declared unit.
func (r RateLimitHeaders) resetAt(v string, now time.Time) (time.Time, bool) {
	v = strings.TrimSpace(v)
	if r.Unit == ResetISO8601 {
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02T15:04:05Z0700", "2006-01-02T15:04Z0700"} {
			if t, err := time.Parse(layout, v); err == nil {
				return t, true
			}
		}
		return time.Time{}, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || (n == 0 && r.Unit <= ResetEpochMillis) {
		return time.Time{}, false
	}
	switch r.Unit {
	case ResetEpochMillis:
		return time.UnixMilli(n), true
	case ResetAfterSeconds:
		return now.Add(time.Duration(n) * time.Second), true
	}
	return time.Unix(n, 0), true
}

// structuredBudget reads `"policy";r=12;t=30` (several comma-separated
// items: the one with the fewest requests left counts), or the same with
// the parameters spelt out, as Zendesk does: `total=100; remaining=99;
// resets=41`.
func structuredBudget(v string, now time.Time) (transport.Budget, bool) {
	var best transport.Budget
	found := false
	for item := range strings.SplitSeq(v, ",") {
		rem, secs, lim := -1, -1, 0
		for p := range strings.SplitSeq(item, ";") {
			k, val, ok := strings.Cut(strings.TrimSpace(p), "=")
			if !ok {
				continue
			}
			n, err := strconv.Atoi(strings.Trim(strings.TrimSpace(val), `"`))
			if err != nil || n < 0 {
				continue
			}
			switch strings.ToLower(strings.TrimSpace(k)) {
			case "r", "remaining":
				rem = n
			case "t", "resets":
				secs = n
			case "total":
				lim = n
			}
		}
		if rem < 0 || secs < 0 {
			continue
		}
		if !found || rem < best.Remaining {
			best, found = transport.Budget{Limit: lim, Remaining: rem, Reset: now.Add(time.Duration(secs) * time.Second)}, true
		}
	}
	return best, found
}

// Wait is the kind's reset signal (Kind.RetryAfter): on a 429, or an
// answer that says no requests remain, the time until the window's reset;
// false otherwise, or when the headers say nothing of it.
func (r RateLimitHeaders) Wait(resp *http.Response, now time.Time) (time.Duration, bool) {
	if r.Reset == "" && r.Structured == "" {
		return 0, false // a bound of the window, not its reset
	}
	b, ok := r.budgetAt(resp, now)
	if !ok || (resp.StatusCode != http.StatusTooManyRequests && b.Remaining > 0) {
		return 0, false
	}
	return max(b.Reset.Sub(now), 0), true
}

// RateLimitsOf combines a kind's rate-limit headers: the budget of the
// first that an answer carries (of those without Endpoints), and its wait.
func RateLimitsOf(rls []RateLimitHeaders) (budget func(*http.Response) (transport.Budget, bool), wait func(*http.Response, time.Time) (time.Duration, bool)) {
	if len(rls) == 0 {
		return nil, nil
	}
	budget = func(resp *http.Response) (transport.Budget, bool) {
		for _, r := range rls {
			if len(r.Endpoints) > 0 {
				continue
			}
			if b, ok := r.Budget(resp); ok {
				return b, true
			}
		}
		return transport.Budget{}, false
	}
	wait = func(resp *http.Response, now time.Time) (time.Duration, bool) {
		for _, r := range rls {
			if d, ok := r.Wait(resp, now); ok {
				return d, true
			}
		}
		return 0, false
	}
	return budget, wait
}

// EndpointBudgetsOf returns the budgets of the rate-limit headers that
// are some endpoints' own (RateLimitHeaders.Endpoints).
func EndpointBudgetsOf(rls []RateLimitHeaders) []transport.EndpointBudget {
	var out []transport.EndpointBudget
	for _, r := range rls {
		if len(r.Endpoints) == 0 {
			continue
		}
		paths := r.Endpoints
		out = append(out, transport.EndpointBudget{Read: r.Budget, Match: func(req *http.Request) bool {
			p := strings.TrimSuffix(req.URL.Path, ".json")
			return req.Method == http.MethodGet && slices.ContainsFunc(paths, func(e string) bool { return strings.HasSuffix(p, e) })
		}})
	}
	return out
}

// tierKey is the context key under which a request carries the method
// and path of its route, when the route has a rate tier.
type tierKey struct{}

// withTier marks ctx as that of a request of rt, for the pace of its
// tier (tierPaces).
func withTier(ctx context.Context, rt Route) context.Context {
	if rt.Tier == "" {
		return ctx
	}
	return context.WithValue(ctx, tierKey{}, methodPath(rt))
}

func methodPath(rt Route) string {
	m := rt.Method
	if m == "" {
		m = http.MethodGet
	}
	return m + " " + rt.Path
}

// tierPaces returns one pace per method and path that a route of k names
// a tier for (Kind.Tiers), at the tier's rate or the one its setting
// "<type>.tier.<name>" gives. A route naming a tier k does not declare is
// an error of the kind.
func tierPaces(k *Kind, settings map[string]string) ([]transport.Pace, error) {
	tiers := map[string]string{} // method and path → tier
	var order []string
	add := func(rt *Route) error {
		if rt == nil || rt.Tier == "" {
			return nil
		}
		key := methodPath(*rt)
		if t, ok := tiers[key]; ok && t != rt.Tier {
			return fmt.Errorf("engine: %s: %s is in tier %q and tier %q", k.Type, key, t, rt.Tier)
		}
		if _, ok := k.Tiers[rt.Tier]; !ok {
			return fmt.Errorf("engine: %s: %s names tier %q, which Kind.Tiers does not declare", k.Type, key, rt.Tier)
		}
		if _, ok := tiers[key]; !ok {
			order = append(order, key)
		}
		tiers[key] = rt.Tier
		return nil
	}
	for _, e := range k.Entities {
		for _, a := range slices.Sorted(maps.Keys(e.Routes)) {
			for i := range e.Routes[a] {
				if err := add(&e.Routes[a][i]); err != nil {
					return nil, err
				}
			}
		}
		for _, rt := range []*Route{e.FeedRoute, e.DeletionsRoute} {
			if err := add(rt); err != nil {
				return nil, err
			}
		}
	}
	rates := map[string]Rate{}
	for name, def := range k.Tiers {
		r, err := RateFrom(k.Type, k.Type+".tier."+name, settings, def)
		if err != nil {
			return nil, err
		}
		rates[name] = r
	}
	var out []transport.Pace
	for _, key := range order {
		r := rates[tiers[key]]
		lim := transport.Under(r.N, r.Per)
		if lim == nil {
			continue
		}
		out = append(out, transport.Pace{Limiter: lim, Match: func(req *http.Request) bool {
			v, _ := req.Context().Value(tierKey{}).(string)
			return v == key
		}})
	}
	return out, nil
}
