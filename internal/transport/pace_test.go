package transport

import (
	"context"
	"testing"
	"time"
)

// A budget known only by a bound of its window's end (Zendesk's
// X-Rate-Limit-Remaining on most answers) and one whose reset an answer
// says (ratelimit-reset, on its lists) are one window: the said reset
// replaces the bound, and a bound does not push it out. (Taken for two
// windows, the lists' answers, ending before the bound, were dropped as
// stale while every request still counted: a sync of ticket comments
// stalled for the bound's minute after 700 requests, the account 699
// requests from its limit.)
func TestBudgetBoundAndReset(t *testing.T) {
	now := time.Date(2030, 1, 1, 12, 0, 20, 0, time.UTC)
	clock := func() time.Time { return now }
	g := &budgetGate{}
	send := func(b Budget) {
		t.Helper()
		if g.left <= 0 && !g.reset.IsZero() && now.Before(g.reset) {
			t.Fatalf("the next request would wait until %v: %d left", g.reset, g.left)
		}
		if err := g.wait(context.Background(), clock, time.Hour); err != nil {
			t.Fatal(err)
		}
		g.done(b, true, now)
	}
	send(Budget{Remaining: 699, Reset: now.Add(time.Minute), Bound: true}) // an export's page
	if !g.bound || g.limit != 0 {
		t.Fatalf("after a bound: reset %v, bound %v, limit %d", g.reset, g.bound, g.limit)
	}
	for range 1500 { // the comments of as many tickets: lists, with the reset
		now = now.Add(10 * time.Millisecond)
		send(Budget{Limit: 700, Remaining: 699, Reset: now.Add(37 * time.Second)})
	}
	if g.bound || g.limit != 700 || g.left < 690 {
		t.Errorf("after the lists: bound %v, limit %d, %d left", g.bound, g.limit, g.left)
	}
	// A bound that says the budget is spent holds the next request until
	// the said reset, which it does not move.
	reset := g.reset
	g.inFlight++ // a request answered
	g.done(Budget{Remaining: 0, Reset: now.Add(time.Minute), Bound: true}, true, now)
	if g.left > 0 || !g.reset.Equal(reset) {
		t.Errorf("a spent bound: %d left, reset %v (was %v)", g.left, g.reset, reset)
	}
}
