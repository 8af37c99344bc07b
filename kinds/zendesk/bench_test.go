package zendesk_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"runtime"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

const benchTickets = 10_000

// measure runs walk b.N times and reports records/s, bytes and
// allocations per record (the client's and the in-process fake's together,
// as for the baseline).
func measure(b *testing.B, walk func() int) {
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n := 0
	for b.Loop() {
		n += walk()
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(n), "allocs/record")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n), "B/record")
}

func benchServer(b *testing.B) *zendesktest.Server {
	srv := zendesktest.New(zendesktest.WithTickets(benchTickets))
	b.Cleanup(srv.Close)
	return srv
}

func benchClient(b *testing.B, srv *zendesktest.Server) *zendesk.Client {
	c, err := zendesk.New(zendesk.Credentials{Subdomain: "acme", Email: zendesktest.DefaultEmail, APIToken: zendesktest.DefaultAPIToken}, tributary.WithBaseURL(srv.URL))
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkListTicketsTyped walks 10,000 tickets into zendesk.Ticket.
func BenchmarkListTicketsTyped(b *testing.B) {
	srv := benchServer(b)
	c := benchClient(b, srv)
	measure(b, func() int {
		n := 0
		for _, err := range c.Tickets().All(context.Background(), zendesk.TicketListParams{}) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		return n
	})
}

// BenchmarkListTicketsGeneric walks 10,000 tickets as raw Records.
func BenchmarkListTicketsGeneric(b *testing.B) {
	srv := benchServer(b)
	c := benchClient(b, srv)
	measure(b, func() int {
		n := 0
		for _, err := range tributary.All(context.Background(), c, "tickets", nil) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		return n
	})
}

// BenchmarkListTicketsNetHTTP is the baseline: a plain net/http +
// encoding/json loop over the same cursor pages into the same struct.
func BenchmarkListTicketsNetHTTP(b *testing.B) {
	srv := benchServer(b)
	hc := &http.Client{}
	measure(b, func() int {
		n := 0
		next := srv.URL + "/api/v2/tickets.json?page%5Bsize%5D=100"
		for next != "" {
			req, _ := http.NewRequest(http.MethodGet, next, nil)
			req.SetBasicAuth(zendesktest.DefaultEmail+"/token", zendesktest.DefaultAPIToken)
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
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
			if err != nil {
				b.Fatal(err)
			}
			n += len(page.Tickets)
			next = ""
			if page.Meta.HasMore {
				next = srv.URL + "/api/v2/tickets.json?page%5Bsize%5D=100&page%5Bafter%5D=" + url.QueryEscape(page.Meta.AfterCursor)
			}
		}
		return n
	})
}
