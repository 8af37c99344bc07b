package hubspot_test

import (
	"context"
	"fmt"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/hubspot"
	"github.com/tributary-dev/tributary/kinds/hubspot/hubspottest"
)

// Read contacts from a fake HubSpot account: one typed page, then a search
// walked to the end.
func Example() {
	srv := hubspottest.New(hubspottest.WithContacts(3))
	defer srv.Close()

	c, err := hubspot.New(hubspot.Credentials{PrivateAppToken: hubspottest.DefaultPrivateAppToken},
		tributary.WithBaseURL(srv.URL))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	page, err := c.Contacts().List(ctx, hubspot.ListParams{Limit: 2, Properties: []string{"email", "firstname"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ct := range page.Items {
		fmt.Println(ct.ID, ct.FirstName(), ct.Email())
	}
	fmt.Println("next_cursor:", page.Meta["next_cursor"])

	req := hubspot.SearchRequest{FilterGroups: []hubspot.FilterGroup{{Filters: []hubspot.Filter{
		{PropertyName: "email", Operator: "CONTAINS_TOKEN", Value: "*.org"},
	}}}}
	for ct, err := range c.Contacts().SearchAll(ctx, req) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("found", ct.Email())
	}
	// Output:
	// 10100000001 Ada ada.example0@example.com
	// 10100000002 Sam sam.example1@example.org
	// next_cursor: 10100000003
	// found sam.example1@example.org
}
