package stripe_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/benchmark"
	"github.com/tributary-dev/tributary/kinds/stripe"
	"github.com/tributary-dev/tributary/kinds/stripe/stripetest"
)

// benchCustomers is the number of customers walked per iteration, 100 a
// page.
const benchCustomers = 10_000

func benchServer(tb testing.TB, customers int) *stripetest.Server {
	srv := stripetest.New(stripetest.WithCustomers(customers))
	// Pages are rendered once and replayed, so the fake costs next to
	// nothing and what is measured is the clients.
	srv.SetResponseCache(true)
	tb.Cleanup(srv.Close)
	return srv
}

func benchClient(tb testing.TB, srv *stripetest.Server) *stripe.Client {
	c, err := stripe.New(key, tributary.WithBaseURL(srv.URL), tributary.WithoutPacing())
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// walkTyped lists the customers through the typed handle.
func walkTyped(tb testing.TB, c *stripe.Client) int {
	return benchmark.Count(tb, c.Customers().All(context.Background(), stripe.ListParams{Limit: 100}))
}

// walkNetHTTP is the baseline: a plain net/http + encoding/json loop over
// the pages the library asks for (limit, then starting_after = the last
// customer's id while has_more), with the same headers, into the same
// struct.
func walkNetHTTP(tb testing.TB, hc *http.Client, base string) int {
	n := 0
	q := url.Values{"limit": {"100"}}
	for {
		req, _ := http.NewRequest(http.MethodGet, base+"/v1/customers?"+q.Encode(), nil)
		req.Header.Set("Authorization", "Bearer "+stripetest.DefaultKey)
		req.Header.Set("Stripe-Version", stripe.Version)
		resp, err := hc.Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		var page struct {
			Data    []stripe.Customer `json:"data"`
			HasMore bool              `json:"has_more"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			tb.Fatal(resp.Status, err)
		}
		n += len(page.Data)
		if !page.HasMore || len(page.Data) == 0 {
			return n
		}
		q.Set("starting_after", page.Data[len(page.Data)-1].ID)
	}
}

// BenchmarkListCustomersTyped walks 10,000 customers into stripe.Customer.
func BenchmarkListCustomersTyped(b *testing.B) {
	c := benchClient(b, benchServer(b, benchCustomers))
	benchmark.Walk(b, benchCustomers, func() int { return walkTyped(b, c) })
}

// BenchmarkListCustomersGeneric walks 10,000 customers as raw Records.
func BenchmarkListCustomersGeneric(b *testing.B) {
	c := benchClient(b, benchServer(b, benchCustomers))
	p := tributary.Params{"limit": 100}
	benchmark.Walk(b, benchCustomers, func() int {
		return benchmark.Count(b, tributary.All(context.Background(), c, "customers", p))
	})
}

// BenchmarkListCustomersNetHTTP walks the same 10,000 customers with
// walkNetHTTP.
func BenchmarkListCustomersNetHTTP(b *testing.B) {
	srv := benchServer(b, benchCustomers)
	hc := benchmark.Client(b)
	benchmark.Walk(b, benchCustomers, func() int { return walkNetHTTP(b, hc, srv.URL) })
}

// The baseline is a fair one: it sends what the typed listing sends (paths,
// queries, headers but User-Agent) and counts the same records.
func TestNetHTTPBaselineMatchesTyped(t *testing.T) {
	const customers = 450
	srv := benchServer(t, customers)
	c := benchClient(t, srv)
	benchmark.Baseline(t, srv, customers, func() int { return walkTyped(t, c) }, func(hc *http.Client) int { return walkNetHTTP(t, hc, srv.URL) })
}
