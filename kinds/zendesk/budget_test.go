package zendesk_test

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

// budgetClient opens a connector on fake, sending through the fake's
// in-process transport (so that, in a synctest bubble, the fake's windows
// and the connector's waits read the bubble's clock).
func budgetClient(t *testing.T, fake *zendesktest.Server, opts ...tributary.Option) *zendesk.Client {
	t.Helper()
	c, err := zendesk.New(zendesk.Credentials{Subdomain: "acme", Email: zendesktest.DefaultEmail, APIToken: zendesktest.DefaultAPIToken},
		append([]tributary.Option{tributary.WithBaseURL(fake.URL), tributary.WithHTTPClient(&http.Client{Transport: fake.Transport()}),
			zendesk.WithExportRateLimit(0, 0)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// list lists entity n times, one record a page, and returns what the
// connector's usage grew by and how long it took.
func list(t *testing.T, c *zendesk.Client, entity string, n int) (tributary.Usage, time.Duration) {
	t.Helper()
	u0, start := c.Usage(), time.Now()
	for range n {
		if _, err := c.List(context.Background(), entity, tributary.Params{"per_page": 1}); err != nil {
			t.Fatal(err)
		}
	}
	return c.Usage().Sub(u0), time.Since(start)
}

// A new process keeps to what the account has left from its first answer
// on: another client has spent 18 of the window's 20 requests; a fresh
// connector, whose own pace starts from a full window, reads
// X-Rate-Limit-Remaining and ratelimit-reset from its first answer and
// waits for the window's end instead of being refused. With the budget
// turned off it is refused (the fake's 429), which the test checks too.
func TestBudgetFromTheFirstAnswer(t *testing.T) {
	const limit = 20
	for _, c := range []struct {
		name    string
		opts    []tributary.Option
		refused bool
	}{{"budget", nil, false}, {"budget off", []tributary.Option{zendesk.WithBudgetPacing(false)}, true}} {
		t.Run(c.name, func(t *testing.T) {
			// The fake is started outside the bubble (a goroutine waiting on
			// a socket would keep its clock from moving); its handlers run
			// in the bubble through its transport.
			fake := zendesktest.New(zendesktest.WithClock(fakeserver.NewRealClock()), zendesktest.WithAPIRateLimit(limit, time.Second))
			defer fake.Close()
			synctest.Test(t, func(t *testing.T) {
				time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second))) // a window's start
				other := budgetClient(t, fake, zendesk.WithAPIRateLimit(0, 0), zendesk.WithBudgetPacing(false))
				list(t, other, "groups", limit-2)
				// The window is a second long: so is the account's period.
				fresh := budgetClient(t, fake, append([]tributary.Option{zendesk.WithAPIRateLimit(1000, time.Second)}, c.opts...)...)
				u, took := list(t, fresh, "groups", 6)
				if c.refused {
					if u.Throttled == 0 {
						t.Errorf("without the budget, no request was refused (%+v): the test shows nothing", u)
					}
					return
				}
				if u.Throttled != 0 || u.Retries != 0 || u.Requests != 6 {
					t.Errorf("usage %+v: want 6 requests, none refused", u)
				}
				if took < 900*time.Millisecond {
					t.Errorf("6 requests with 2 left in the window took %s: the connector did not wait for the window's end", took)
				}
			})
		})
	}
}

// List Tickets has a budget of its own (zendesk-ratelimit-tickets-index):
// once it is spent, a ticket list waits for its reset, and other requests
// do not.
func TestTicketsIndexBudget(t *testing.T) {
	const limit = 5
	fake := zendesktest.New(zendesktest.WithClock(fakeserver.NewRealClock()), zendesktest.WithTicketsIndexRateLimit(limit, time.Second))
	defer fake.Close()
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
		c := budgetClient(t, fake)
		if u, _ := list(t, c, "tickets", limit); u.Throttled != 0 {
			t.Fatalf("the index's %d requests: %+v", limit, u)
		}
		if _, took := list(t, c, "groups", 3); took != 0 {
			t.Errorf("groups waited %s for the tickets' budget", took)
		}
		u, took := list(t, c, "tickets", 2)
		if u.Throttled != 0 || u.Retries != 0 || took < 900*time.Millisecond {
			t.Errorf("tickets past their budget: %+v in %s, want none refused, after the reset", u, took)
		}
	})
}
