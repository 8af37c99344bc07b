package jira_test

import (
	"context"
	"fmt"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/jira"
	"github.com/tributary-dev/tributary/kinds/jira/jiratest"
)

// Typed handles decode records into this package's structs; issues are
// found with JQL.
func Example() {
	srv := jiratest.New(jiratest.WithIssues(6))
	defer srv.Close()
	c, err := jira.New(jira.Credentials{Site: "acme", Email: jiratest.DefaultEmail, APIToken: jiratest.DefaultAPIToken},
		tributary.WithBaseURL(srv.URL))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for is, err := range c.Issues().All(ctx, jira.IssueParams{JQL: "project = ENG ORDER BY created ASC"}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(is.Key, is.Fields.Status.Name, "-", is.Fields.Summary)
	}
	p, err := c.Projects().Get(ctx, "ENG")
	fmt.Println(p.Name, err)
	// Output:
	// ENG-1 To Do - Issue 0: fix login
	// ENG-2 To Do - Issue 3: handle timeouts
	// Project ENG <nil>
}
