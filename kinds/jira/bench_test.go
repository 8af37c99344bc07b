package jira_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/benchmark"
	"github.com/tributary-dev/tributary/kinds/jira"
	"github.com/tributary-dev/tributary/kinds/jira/jiratest"
)

// benchIssues is the number of issues walked per iteration, 100 a page
// with every field.
const benchIssues = 10_000

const benchJQL = `created >= "1970/01/01" ORDER BY created ASC`

func benchServer(tb testing.TB, issues int) *jiratest.Server {
	srv := jiratest.New(jiratest.WithIssues(issues))
	// Pages are rendered once and replayed, so the fake costs next to
	// nothing and what is measured is the clients.
	srv.SetResponseCache(true)
	tb.Cleanup(srv.Close)
	return srv
}

func benchClient(tb testing.TB, srv *jiratest.Server) *jira.Client {
	c, err := jira.New(basic, tributary.WithBaseURL(srv.URL), jira.WithBudgetPacing(false))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// walkTyped lists every issue through the typed handle.
func walkTyped(tb testing.TB, c *jira.Client) int {
	return benchmark.Count(tb, c.Issues().All(context.Background(), jira.IssueParams{JQL: benchJQL, Fields: []string{"*all"}, MaxResults: 100}))
}

// walkNetHTTP is the baseline: a plain net/http + encoding/json loop over
// the pages the library asks for (GET /rest/api/3/search/jql, then
// nextPageToken until isLast), with the same headers, into the same
// struct.
func walkNetHTTP(tb testing.TB, hc *http.Client, base string) int {
	n := 0
	q := url.Values{"jql": {benchJQL}, "fields": {"*all"}, "maxResults": {"100"}}
	for {
		req, _ := http.NewRequest(http.MethodGet, base+"/rest/api/3/search/jql?"+q.Encode(), nil)
		req.SetBasicAuth(jiratest.DefaultEmail, jiratest.DefaultAPIToken)
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		var page struct {
			Issues        []jira.Issue `json:"issues"`
			NextPageToken string       `json:"nextPageToken"`
			IsLast        bool         `json:"isLast"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			tb.Fatal(resp.Status, err)
		}
		n += len(page.Issues)
		if page.IsLast || page.NextPageToken == "" {
			return n
		}
		q.Set("nextPageToken", page.NextPageToken)
	}
}

// BenchmarkListIssuesTyped walks 10,000 issues into jira.Issue.
func BenchmarkListIssuesTyped(b *testing.B) {
	c := benchClient(b, benchServer(b, benchIssues))
	benchmark.Walk(b, benchIssues, func() int { return walkTyped(b, c) })
}

// BenchmarkListIssuesGeneric walks 10,000 issues as raw Records.
func BenchmarkListIssuesGeneric(b *testing.B) {
	c := benchClient(b, benchServer(b, benchIssues))
	p := tributary.Params{"jql": benchJQL, "fields": []any{"*all"}, "maxResults": 100}
	benchmark.Walk(b, benchIssues, func() int {
		return benchmark.Count(b, tributary.All(context.Background(), c, "issues", p))
	})
}

// BenchmarkListIssuesNetHTTP walks the same 10,000 issues with
// walkNetHTTP.
func BenchmarkListIssuesNetHTTP(b *testing.B) {
	srv := benchServer(b, benchIssues)
	hc := benchmark.Client(b)
	benchmark.Walk(b, benchIssues, func() int { return walkNetHTTP(b, hc, srv.URL) })
}

// The baseline is a fair one: it sends what the typed listing sends (paths,
// queries, headers but User-Agent) and counts the same records.
func TestNetHTTPBaselineMatchesTyped(t *testing.T) {
	const issues = 250
	srv := benchServer(t, issues)
	c := benchClient(t, srv)
	benchmark.Baseline(t, srv, issues, func() int { return walkTyped(t, c) }, func(hc *http.Client) int { return walkNetHTTP(t, hc, srv.URL) })
}
