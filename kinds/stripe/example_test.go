package stripe_test

import (
	"context"
	"fmt"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/stripe"
	"github.com/tributary-dev/tributary/kinds/stripe/stripetest"
)

// Typed handles decode records into this package's structs: the newest
// customers, then the Search API's answer for one plan.
func Example() {
	srv := stripetest.New(stripetest.WithCustomers(4))
	defer srv.Close()
	c, err := stripe.New(stripe.Credentials{APIKey: stripetest.DefaultKey}, tributary.WithBaseURL(srv.URL), tributary.WithoutPacing())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for cu, err := range c.Customers().All(ctx, stripe.ListParams{Limit: 2}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(cu.ID, cu.Email)
	}
	for cu, err := range c.Customers().Search().APISearchAll(ctx, stripe.SearchParams{Query: "metadata['plan']:'pro'"}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("pro:", cu.Name)
	}
	// Output:
	// cus_00000000000004 customer4@example.com
	// cus_00000000000003 customer3@example.com
	// cus_00000000000002 customer2@example.com
	// cus_00000000000001 customer1@example.com
	// pro: Customer 2
}
