package bench

import (
	"context"
	"testing"

	stripego "github.com/stripe/stripe-go/v82"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/benchmark"
	"github.com/tributary-dev/tributary/kinds/stripe"
	"github.com/tributary-dev/tributary/kinds/stripe/stripetest"
)

// benchStripeCustomers is the number of customers walked per iteration,
// 100 a page.
const benchStripeCustomers = 10_000

func stripeServer(b *testing.B) *stripetest.Server {
	srv := stripetest.New(stripetest.WithCustomers(benchStripeCustomers))
	srv.SetResponseCache(true)
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkStripeCustomersStripeGo lists the customers with
// stripe/stripe-go v82.5.1, Stripe's own Go client: its V1Customers.List
// iterator, 100 a page by starting_after.
func BenchmarkStripeCustomersStripeGo(b *testing.B) {
	srv := stripeServer(b)
	backends := stripego.NewBackendsWithConfig(&stripego.BackendConfig{URL: stripego.String(srv.URL), HTTPClient: benchmark.Client(b),
		MaxNetworkRetries: stripego.Int64(0), LeveledLogger: &stripego.LeveledLogger{Level: stripego.LevelNull}})
	sc := stripego.NewClient(stripetest.DefaultKey, stripego.WithBackends(backends))
	ctx := context.Background()
	benchmark.Walk(b, benchStripeCustomers, func() int {
		n := 0
		p := &stripego.CustomerListParams{}
		p.Limit = stripego.Int64(100)
		for _, err := range sc.V1Customers.List(ctx, p) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		return n
	})
}

// BenchmarkStripeCustomersTributaryTyped lists the same customers into
// stripe.Customer with Tributary's typed handle.
func BenchmarkStripeCustomersTributaryTyped(b *testing.B) {
	srv := stripeServer(b)
	c, err := stripe.New(stripe.Credentials{APIKey: stripetest.DefaultKey}, tributary.WithBaseURL(srv.URL), tributary.WithoutPacing())
	if err != nil {
		b.Fatal(err)
	}
	benchmark.Walk(b, benchStripeCustomers, func() int {
		return benchmark.Count(b, c.Customers().All(context.Background(), stripe.ListParams{Limit: 100}))
	})
}
