package zendesk_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/benchmark"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

// benchTickets is the number of tickets walked per iteration, 100 a page.
const benchTickets = 10_000

func benchServer(tb testing.TB, tickets int) *zendesktest.Server {
	srv := zendesktest.New(zendesktest.WithTickets(tickets))
	// Pages are rendered once and replayed, so the fake costs next to
	// nothing and what is measured is the clients.
	srv.SetResponseCache(true)
	tb.Cleanup(srv.Close)
	return srv
}

// benchClient opens the client measured. A benchmark measures the client,
// not Zendesk's rate limit: the pacing to it is off (as in the sandbox),
// or a walk of 100 pages would take 9 s at 700 requests a minute.
func benchClient(tb testing.TB, srv *zendesktest.Server) *zendesk.Client {
	c, err := zendesk.New(zendesk.Credentials{Subdomain: "acme", Email: zendesktest.DefaultEmail, APIToken: zendesktest.DefaultAPIToken},
		tributary.WithBaseURL(srv.URL), tributary.WithoutPacing())
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// walkTyped lists every ticket through the typed handle.
func walkTyped(tb testing.TB, c *zendesk.Client) int {
	return benchmark.Count(tb, c.Tickets().All(context.Background(), zendesk.TicketListParams{}))
}

// walkNetHTTP is the baseline: a plain net/http + encoding/json loop over
// the cursor pages the library asks for (page[size]=100, then
// page[after]=meta.after_cursor while meta.has_more), with the same
// headers, into the same struct.
func walkNetHTTP(tb testing.TB, hc *http.Client, base string) int {
	n := 0
	q := url.Values{"page[size]": {"100"}}
	for {
		req, _ := http.NewRequest(http.MethodGet, base+"/api/v2/tickets.json?"+q.Encode(), nil)
		req.SetBasicAuth(zendesktest.DefaultEmail+"/token", zendesktest.DefaultAPIToken)
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		var page struct {
			Tickets []zendesk.Ticket `json:"tickets"`
			Meta    struct {
				HasMore     bool   `json:"has_more"`
				AfterCursor string `json:"after_cursor"`
			} `json:"meta"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			tb.Fatal(resp.Status, err)
		}
		n += len(page.Tickets)
		if !page.Meta.HasMore {
			return n
		}
		q.Set("page[after]", page.Meta.AfterCursor)
	}
}

// BenchmarkListTicketsTyped walks 10,000 tickets into zendesk.Ticket.
func BenchmarkListTicketsTyped(b *testing.B) {
	c := benchClient(b, benchServer(b, benchTickets))
	benchmark.Walk(b, benchTickets, func() int { return walkTyped(b, c) })
}

// BenchmarkListTicketsGeneric walks 10,000 tickets as raw Records.
func BenchmarkListTicketsGeneric(b *testing.B) {
	c := benchClient(b, benchServer(b, benchTickets))
	benchmark.Walk(b, benchTickets, func() int {
		return benchmark.Count(b, tributary.All(context.Background(), c, "tickets", nil))
	})
}

// BenchmarkListTicketsNetHTTP walks the same 10,000 tickets with
// walkNetHTTP.
func BenchmarkListTicketsNetHTTP(b *testing.B) {
	srv := benchServer(b, benchTickets)
	hc := benchmark.Client(b)
	benchmark.Walk(b, benchTickets, func() int { return walkNetHTTP(b, hc, srv.URL) })
}

// The baseline is a fair one: it sends what the typed listing sends (paths,
// queries, headers but User-Agent) and counts the same records.
func TestNetHTTPBaselineMatchesTyped(t *testing.T) {
	const tickets = 250
	srv := benchServer(t, tickets)
	c := benchClient(t, srv)
	benchmark.Baseline(t, srv, tickets, func() int { return walkTyped(t, c) }, func(hc *http.Client) int { return walkNetHTTP(t, hc, srv.URL) })
}
