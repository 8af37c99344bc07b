package transport

import (
	"context"
	"math"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// PaceMargin is the share of a vendor's limit a pace uses: a little under,
// so that jitter in when requests leave and arrive never puts one more in
// a window.
const PaceMargin = 0.95

// Under returns a limiter that keeps to a vendor's limit of n requests per
// period: a rate of PaceMargin of it, and a burst small enough that no
// interval of length per, however aligned (a fixed window included), holds
// more than n requests. It returns nil (no pace) when n or per is not
// positive.
func Under(n float64, per time.Duration) *rate.Limiter {
	if n <= 0 || per <= 0 {
		return nil
	}
	// A token bucket lets at most burst + rate×per requests into any
	// interval of length per: with rate×per = PaceMargin×n, the burst is
	// what is left of n, and at least one.
	burst := max(int(math.Floor(n*(1-PaceMargin))), 1)
	return rate.NewLimiter(rate.Limit(PaceMargin*n/per.Seconds()), burst)
}

// Budget is what a vendor's answer says of its current rate-limit window:
// the requests left in it and when it ends (GitHub's x-ratelimit-remaining
// and x-ratelimit-reset).
type Budget struct {
	// Limit is the requests a window allows (0: not said).
	Limit int
	// Remaining is the requests left in the window.
	Remaining int
	// Reset is when the window ends and a new one begins.
	Reset time.Time
	// Bound says that Reset is only when the window ends at the latest:
	// the vendor said the requests left, not when its window ends
	// (Zendesk's X-Rate-Limit-Remaining, "in the current minute"). Such a
	// budget holds requests once it is spent, and spreads none; an answer
	// that says the reset replaces it.
	Bound bool
}

// budgetGate keeps a client to the budget its answers announce: it lets
// requests go while some are left, spreads the last tenth of them over the
// time to the reset, and holds the rest until the reset. It counts the
// requests in flight as spent, since the vendor may have counted them
// already.
type budgetGate struct {
	mu       sync.Mutex
	reset    time.Time // end of the known window; zero: none known
	bound    bool      // reset is only a bound of the window's end (Budget.Bound)
	left     int       // requests the client may still send in it
	limit    int
	next     time.Time // earliest send while spreading
	inFlight int
}

// low is how few requests left start spreading them: a tenth of the
// window's limit (none when the limit is not said).
func (g *budgetGate) low() int { return g.limit / 10 }

// wait holds a request until the budget allows it. A wait longer than
// maxWait, or past ctx's deadline, is not made: the request goes, and the
// vendor's own answer (its rate-limit error, with the reset) decides.
func (g *budgetGate) wait(ctx context.Context, now func() time.Time, maxWait time.Duration) error {
	for {
		g.mu.Lock()
		t := now()
		var until time.Time
		switch {
		case g.reset.IsZero() || !t.Before(g.reset):
			g.reset = time.Time{} // a new window: known at the next answer
		case g.left <= 0:
			until = g.reset
		case g.left <= g.low() && t.Before(g.next):
			until = g.next
		case g.left <= g.low():
			g.next = t.Add(g.reset.Sub(t) / time.Duration(g.left))
		}
		d := until.Sub(t)
		if until.IsZero() || d > maxWait || pastDeadline(ctx, t.Add(d)) {
			g.left--
			g.inFlight++
			g.mu.Unlock()
			return nil
		}
		g.mu.Unlock()
		end := longWait(ctx, d)
		timer := time.NewTimer(d)
		select {
		case <-timer.C:
			end()
		case <-ctx.Done():
			timer.Stop()
			end()
			return ctx.Err()
		}
	}
}

func pastDeadline(ctx context.Context, t time.Time) bool {
	dl, ok := ctx.Deadline()
	return ok && t.After(dl)
}

// done records the end of a request the gate let go, with the budget its
// answer announced (ok false: none, or no answer).
func (g *budgetGate) done(b Budget, ok bool, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inFlight--
	if !ok || !b.Reset.After(now) {
		return // no budget, or one of a window already over
	}
	left := b.Remaining - g.inFlight
	known := !g.reset.IsZero() && g.reset.After(now)
	switch {
	case b.Bound && known && !g.bound:
		// The window whose reset an answer said, as far as can be told.
		g.left = min(g.left, left)
		return
	case !known || b.Reset.After(g.reset) || (g.bound && !b.Bound):
		// A later window, or the reset of one known only by its bound.
		g.reset, g.bound, g.left, g.next = b.Reset, b.Bound, left, time.Time{}
	case b.Reset.Equal(g.reset):
		g.left = min(g.left, left)
	default:
		return // an answer from before the window we know
	}
	g.limit = b.Limit
	if b.Bound {
		g.limit = 0 // not spread over a reset that is only a bound
	}
}

// EndpointBudget is a budget of the requests Match accepts (an endpoint's
// own limit), which Read reads from their answers (see Config.Budget).
type EndpointBudget struct {
	Match func(*http.Request) bool
	Read  func(resp *http.Response) (Budget, bool)
}

// gatedBudget is a budget a Client keeps to: the requests match accepts
// (nil: all) wait at gate, and read tells it what each answer announced.
type gatedBudget struct {
	match func(*http.Request) bool
	read  func(*http.Response) (Budget, bool)
	gate  *budgetGate
}

// done records the end of a request that waited for b: its answer, or
// the error that left it without one.
func (b gatedBudget) done(resp *http.Response, err error, now time.Time) {
	var bud Budget
	ok := false
	if err == nil && resp != nil {
		bud, ok = b.read(resp)
	}
	b.gate.done(bud, ok, now)
}

// waitBudgets holds r until every budget it is under allows it, and
// returns those budgets, whose done the caller calls with the answer. On
// an error (r's context ended) r waits for none.
func (c *Client) waitBudgets(r *http.Request, cfg *Config) ([]gatedBudget, error) {
	var held []gatedBudget
	for _, b := range c.budgets {
		if b.match != nil && !b.match(r) {
			continue
		}
		if err := b.gate.wait(r.Context(), cfg.Now, cfg.MaxRateLimitWait); err != nil {
			for _, h := range held {
				h.gate.done(Budget{}, false, cfg.Now())
			}
			return nil, err
		}
		held = append(held, b)
	}
	return held, nil
}
