package linear_test

import (
	"context"
	"fmt"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/linear"
	"github.com/tributary-dev/tributary/kinds/linear/lineartest"
)

// Read issues from a fake Linear workspace: one typed page, newest
// first, then an issue by its identifier, then Linear's search.
func Example() {
	srv := lineartest.New(lineartest.WithIssues(3))
	defer srv.Close()

	c, err := linear.New(linear.Credentials{APIKey: lineartest.DefaultAPIKey}, tributary.WithBaseURL(srv.URL))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	page, err := c.Issues().List(ctx, linear.ListParams{First: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, is := range page.Items {
		fmt.Printf("%s %q %s\n", is.Identifier, is.Title, is.State.Name)
	}
	fmt.Println("more:", page.Meta["pageInfo"].(map[string]any)["hasNextPage"])

	is, err := c.Issues().GetID(ctx, "ENG-1")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(is.ID, is.Team.Name)

	for is, err := range c.Issues().SearchAll(ctx, linear.SearchParams{Term: "login"}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("found", is.Identifier)
	}
	// Output:
	// OPS-1 "Add login 2" In Progress
	// DES-1 "Improve login 1" Todo
	// more: true
	// 7c1b38ad-2e75-4c09-a000-000000000000 Engineering
	// found OPS-1
	// found DES-1
	// found ENG-1
}
