package intercom_test

import (
	"context"
	"fmt"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/intercom"
	"github.com/tributary-dev/tributary/kinds/intercom/intercomtest"
)

// Read an Intercom workspace: one page of contacts, then every company
// with a typed walk. The fake stands in for https://api.intercom.io.
func Example() {
	srv := intercomtest.New(intercomtest.WithContacts(120), intercomtest.WithCompanies(35))
	defer srv.Close()

	c, err := intercom.New(intercom.Credentials{AccessToken: intercomtest.DefaultAccessToken},
		tributary.WithBaseURL(srv.URL))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()

	page, err := c.List(ctx, "contacts", tributary.Params{"per_page": 50})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(page.Records), "contacts; more:", page.Next != nil)

	n := 0
	for co, err := range c.Companies().All(ctx, intercom.CompanyListParams{}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		if n == 0 {
			fmt.Println("most recently active:", *co.Name)
		}
		n++
	}
	fmt.Println(n, "companies")
	// Output:
	// 50 contacts; more: true
	// most recently active: Initech Sample 34
	// 35 companies
}

// Options choose the workspace's region and the API version; the
// replication config is what hosted mode needs when the connector is
// created.
func ExampleNew() {
	c, err := intercom.New(intercom.Credentials{AccessToken: "token", Region: intercom.RegionEU}, intercom.WithAPIVersion("2.11"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.BaseURL())

	start, err := intercom.ParseStartDate("2024-01-01T00:00:00Z")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(intercom.ReplicationConfig(start.Time()))
	// Output:
	// https://api.eu.intercom.io
	// map[start_date:2024-01-01T00:00:00Z]
}
