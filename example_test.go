package tributary_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

// Open a connector from a credentials object, list one page, then walk
// every page.
func Example() {
	srv := zendesktest.New(zendesktest.WithTickets(230))
	defer srv.Close()

	c, err := kinds.Open("zendesk-support", map[string]any{
		"subdomain": "acme", "email": zendesktest.DefaultEmail, "api_token": zendesktest.DefaultAPIToken,
	}, tributary.WithBaseURL(srv.URL))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()

	page, err := c.List(ctx, "tickets", tributary.Params{"per_page": 100})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(page.Records), "tickets; count:", page.Meta["count"], "next:", page.Next)

	n := 0
	for _, err := range tributary.All(ctx, c, "tickets", nil) {
		if err != nil {
			fmt.Println(err)
			return
		}
		n++
	}
	fmt.Println("walked", n, "tickets")
	// Output:
	// 100 tickets; count: 230 next: map[page:2 per_page:100]
	// walked 230 tickets
}

// Bad input is refused before anything is sent, with an error that names
// the entity, the action and the parameter.
func ExampleExecute_validation() {
	c, _ := kinds.Open("zendesk-support", map[string]any{"subdomain": "acme", "access_token": "token"})
	_, err := tributary.Execute(context.Background(), c, tributary.Request{
		Entity: "tickets", Action: tributary.ActionGet, Params: tributary.Params{"ticket_id": "#35436"},
	})
	var te *tributary.Error
	if errors.As(err, &te) && errors.Is(err, tributary.ErrInvalidParams) {
		fmt.Println(te.Entity, te.Action, te.Param)
		fmt.Println(err)
	}
	// Output:
	// tickets get ticket_id
	// tributary: zendesk-support tickets.get: invalid params: parameter "ticket_id": must be an integer, got a string "#35436"
}
