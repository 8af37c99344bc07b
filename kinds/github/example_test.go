package github_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/github"
	"github.com/tributary-dev/tributary/kinds/github/githubtest"
)

// List the open issues of a repository of the fake GitHub with the typed
// handle (pull requests are left out), then read one page generically.
func Example() {
	srv := githubtest.New(githubtest.WithIssues(8), githubtest.WithPulls(2))
	defer srv.Close()

	c, err := github.New(github.Credentials{Token: githubtest.DefaultToken}, tributary.WithBaseURL(srv.URL))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for is, err := range c.Issues().All(ctx, github.IssueListParams{RepoRef: github.RepoRef{Owner: "octo", Repo: "hello"}}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(is.Number, is.State, is.Title)
	}

	page, err := c.List(ctx, "commits", tributary.Params{"owner": "octo", "repo": "hello", "per_page": 50})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(page.Records), "commits; next page", page.Meta["next_page"], "of", page.Meta["last_page"])
	// Output:
	// 8 open Test login form for large files
	// 7 open Speed up login form for large files
	// 4 open Document parser on empty input
	// 2 open Improve widget on empty input
	// 1 open Add widget on empty input
	// 50 commits; next page 2 of 3
}

// SearchAll walks a search to its end; GitHub delivers at most 1,000
// results per query, and a walk the cap cut short ends with ErrPaging.
func ExampleClient_SearchAll() {
	srv := githubtest.New(githubtest.WithIssues(1500), githubtest.WithPulls(0))
	defer srv.Close()
	c, _ := github.New(github.Credentials{Token: githubtest.DefaultToken}, tributary.WithBaseURL(srv.URL))

	n := 0
	for _, err := range c.SearchAll(context.Background(), "issues", tributary.Params{"q": "repo:octo/hello"}) {
		if errors.Is(err, tributary.ErrPaging) {
			fmt.Println("stopped:", n, "results")
			break
		}
		n++
	}
	// Output:
	// stopped: 1000 results
}
