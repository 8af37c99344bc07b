package salesforce_test

import (
	"context"
	"fmt"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/salesforce"
	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
)

// Walk every account of an org: All follows nextRecordsUrl, 200 records a
// page, until Salesforce says done. Here the org is the in-process fake.
func Example() {
	fake := salesforcetest.New(salesforcetest.WithAccounts(1000))
	defer fake.Close()

	c, err := salesforce.New(salesforce.Credentials{
		ClientID:     salesforcetest.DefaultClientID,
		ClientSecret: salesforcetest.DefaultClientSecret,
		RefreshToken: salesforcetest.DefaultRefreshToken,
	}, tributary.WithBaseURL(fake.URL))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	q := salesforce.QueryParams{Q: "SELECT Id, Name, Industry FROM Account ORDER BY CreatedDate"}
	n := 0
	for a, err := range c.Accounts().All(ctx, q) {
		if err != nil {
			fmt.Println(err)
			return
		}
		if n == 0 {
			fmt.Println("first:", a.ID, a.Name)
		}
		n++
	}
	fmt.Println("accounts:", n)

	// One page by hand: Meta and the params of the next page.
	page, err := c.List(ctx, "accounts", tributary.Params{"q": q.Q})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(page.Records), page.Meta["totalSize"], page.Meta["done"], page.Next["next_records_url"] != nil)
	// Output:
	// first: 001RO0000000001YAA Stonegate Outfitters 1
	// accounts: 1000
	// 200 1000 false true
}
