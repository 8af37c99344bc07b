package engine

import (
	"fmt"
	"net/http"
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
	r := def
	if v, ok := settings[name]; ok {
		bad := &tributary.Error{Kind: kind, Err: tributary.ErrInvalidParams, Param: name, Message: fmt.Sprintf("%q is not a rate such as 100/10s", v)}
		n, per, hasPer := strings.Cut(strings.TrimSpace(v), "/")
		f, err := strconv.ParseFloat(n, 64)
		if err != nil || f < 0 {
			return nil, bad
		}
		r.N = f
		if hasPer {
			if r.Per, err = time.ParseDuration(per); err != nil || r.Per <= 0 {
				return nil, bad
			}
		}
	}
	lim := transport.Under(r.N, r.Per)
	if lim == nil {
		return nil, nil
	}
	return []transport.Pace{{Match: match, Limiter: lim}}, nil
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
	return func(resp *http.Response) (transport.Budget, bool) {
		h := resp.Header
		rem, err := strconv.Atoi(strings.TrimSpace(h.Get(remaining)))
		if err != nil {
			return transport.Budget{}, false
		}
		sec, err := strconv.ParseInt(strings.TrimSpace(h.Get(reset)), 10, 64)
		if err != nil || sec <= 0 {
			return transport.Budget{}, false
		}
		lim, _ := strconv.Atoi(strings.TrimSpace(h.Get(limit)))
		return transport.Budget{Limit: lim, Remaining: rem, Reset: time.Unix(sec, 0)}, true
	}
}
