package zendesk_test

import (
	"context"
	"fmt"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

// Typed handles decode records into this package's structs.
func Example() {
	srv := zendesktest.New(zendesktest.WithTickets(5))
	defer srv.Close()
	c, err := zendesk.New(zendesk.Credentials{Subdomain: "acme", Email: zendesktest.DefaultEmail, APIToken: zendesktest.DefaultAPIToken},
		tributary.WithBaseURL(srv.URL))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for t, err := range c.Tickets().All(ctx, zendesk.TicketListParams{}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(t.ID, t.Status)
	}
	u, err := c.Users().Get(ctx, zendesktest.UserID(0))
	fmt.Println(u.ID, err)
	// Output:
	// 35436 open
	// 35437 pending
	// 35438 solved
	// 35439 closed
	// 35440 new
	// 9007199254740993 <nil>
}
