package bench

import (
	"context"
	"testing"

	gojira "github.com/andygrunwald/go-jira"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/benchmark"
	"github.com/tributary-dev/tributary/kinds/jira"
	"github.com/tributary-dev/tributary/kinds/jira/jiratest"
)

// benchJiraIssues is the number of Jira issues walked per iteration, 100
// a page with every field.
const benchJiraIssues = 10_000

const jiraJQL = `created >= "1970/01/01" ORDER BY created ASC`

func jiraServer(b *testing.B) *jiratest.Server {
	srv := jiratest.New(jiratest.WithIssues(benchJiraIssues))
	srv.SetResponseCache(true)
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkJiraIssuesGoJira lists the issues with andygrunwald/go-jira
// v1.16.0, the most used Go client the module proxy serves (its v2 is not
// served). It knows only the deprecated GET /rest/api/2/search, paged by
// startAt up to total, which the fake serves with the same issues (rich
// text as strings, as v2 writes it).
func BenchmarkJiraIssuesGoJira(b *testing.B) {
	srv := jiraServer(b)
	tp := gojira.BasicAuthTransport{Username: jiratest.DefaultEmail, Password: jiratest.DefaultAPIToken}
	c, err := gojira.NewClient(tp.Client(), srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	benchmark.Walk(b, benchJiraIssues, func() int {
		n := 0
		for {
			issues, resp, err := c.Issue.SearchWithContext(ctx, jiraJQL, &gojira.SearchOptions{StartAt: n, MaxResults: 100})
			if err != nil {
				b.Fatal(err)
			}
			n += len(issues)
			if len(issues) == 0 || n >= resp.Total {
				return n
			}
		}
	})
}

func jiraClient(b *testing.B, srv *jiratest.Server) *jira.Client {
	c, err := jira.New(jira.Credentials{Site: jiratest.DefaultSite, Email: jiratest.DefaultEmail, APIToken: jiratest.DefaultAPIToken},
		tributary.WithBaseURL(srv.URL), jira.WithBudgetPacing(false))
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkJiraIssuesTributaryTyped lists the same issues into jira.Issue
// with Tributary's typed handle (GET /rest/api/3/search/jql, by
// nextPageToken).
func BenchmarkJiraIssuesTributaryTyped(b *testing.B) {
	c := jiraClient(b, jiraServer(b))
	p := jira.IssueParams{JQL: jiraJQL, Fields: []string{"*all"}, MaxResults: 100}
	benchmark.Walk(b, benchJiraIssues, func() int {
		return benchmark.Count(b, c.Issues().All(context.Background(), p))
	})
}

// BenchmarkJiraIssuesTributaryGeneric lists the same issues as raw
// tributary.Records.
func BenchmarkJiraIssuesTributaryGeneric(b *testing.B) {
	c := jiraClient(b, jiraServer(b))
	p := tributary.Params{"jql": jiraJQL, "fields": []any{"*all"}, "maxResults": 100}
	benchmark.Walk(b, benchJiraIssues, func() int {
		return benchmark.Count(b, tributary.All(context.Background(), c, "issues", p))
	})
}
