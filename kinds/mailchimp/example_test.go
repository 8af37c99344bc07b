package mailchimp_test

import (
	"context"
	"fmt"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/mailchimp"
	"github.com/tributary-dev/tributary/kinds/mailchimp/mailchimptest"
)

// Open a connector on the fake Mailchimp, walk an audience's members with
// the typed handle and read one member by email address.
func Example() {
	srv := mailchimptest.New(mailchimptest.WithListMembers(2500))
	defer srv.Close()

	// In production: mailchimp.New(mailchimp.Credentials{APIKey: key}),
	// whose suffix (…-us6) picks https://us6.api.mailchimp.com.
	c, err := mailchimp.New(mailchimp.Credentials{APIKey: mailchimptest.DefaultAPIKey}, tributary.WithBaseURL(srv.URL))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	lists, err := c.Lists().List(ctx, mailchimp.ListListParams{})
	if err != nil {
		fmt.Println(err)
		return
	}
	audience := lists.Items[0]

	subscribed := 0
	for m, err := range c.ListMembers().All(ctx, mailchimp.ListMemberListParams{ListID: audience.ID, Paging: mailchimp.Paging{Count: 1000}}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		if m.Status != nil && *m.Status == "subscribed" {
			subscribed++
		}
	}
	fmt.Println(lists.Meta["total_items"], "audiences;", subscribed, "subscribed members in", *audience.Name)

	m, err := c.ListMembers().Get(ctx, audience.ID, "member42@example.com")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(*m.EmailAddress, m.ID == mailchimp.SubscriberHash("member42@example.com"))
	// Output:
	// 3 audiences; 2000 subscribed members in Placeholder Audience 1
	// member42@example.com true
}
