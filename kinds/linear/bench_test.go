package linear_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/benchmark"
	"github.com/tributary-dev/tributary/kinds/linear"
	"github.com/tributary-dev/tributary/kinds/linear/lineartest"
)

// benchIssues is the number of issues of the fake walked per iteration,
// 250 a page; every 40th is trashed, so a walk reads 9,750 in 39 pages.
const (
	benchIssues = 10_000
	benchLive   = benchIssues - benchIssues/40
)

func benchServer(tb testing.TB, issues int) *lineartest.Server {
	srv := lineartest.New(lineartest.WithIssues(issues))
	// Pages are rendered once and replayed (the same query and variables:
	// the same answer), so the fake costs next to nothing and what is
	// measured is the clients.
	srv.SetResponseCache(true)
	tb.Cleanup(srv.Close)
	return srv
}

func benchClient(tb testing.TB, srv *lineartest.Server) *linear.Client {
	c, err := linear.New(linear.Credentials{APIKey: lineartest.DefaultAPIKey}, tributary.WithBaseURL(srv.URL), linear.WithBudgetPacing(false))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// walkTyped lists every issue through the typed handle.
func walkTyped(tb testing.TB, c *linear.Client) int {
	return benchmark.Count(tb, c.Issues().All(context.Background(), linear.ListParams{First: linear.MaxFirst}))
}

// walkNetHTTP is the baseline: a plain net/http + encoding/json loop that
// POSTs the library's own query with first=250, then after=
// pageInfo.endCursor while hasNextPage, with the same headers, into the
// same struct. (Linear publishes no Go client to compare with.)
func walkNetHTTP(tb testing.TB, hc *http.Client, base, query string) int {
	n := 0
	vars := map[string]any{"first": linear.MaxFirst}
	for {
		body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
		req, _ := http.NewRequest(http.MethodPost, base+"/graphql", bytes.NewReader(body))
		req.Header.Set("Authorization", lineartest.DefaultAPIKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		var page struct {
			Data struct {
				Issues struct {
					Nodes    []linear.Issue `json:"nodes"`
					PageInfo struct {
						HasNextPage bool   `json:"hasNextPage"`
						EndCursor   string `json:"endCursor"`
					} `json:"pageInfo"`
				} `json:"issues"`
			} `json:"data"`
			Errors []json.RawMessage `json:"errors"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || len(page.Errors) > 0 {
			tb.Fatal(resp.Status, err, page.Errors)
		}
		n += len(page.Data.Issues.Nodes)
		if !page.Data.Issues.PageInfo.HasNextPage {
			return n
		}
		vars = map[string]any{"first": linear.MaxFirst, "after": page.Data.Issues.PageInfo.EndCursor}
	}
}

func issuesQuery(tb testing.TB, c *linear.Client) string {
	for _, e := range c.Kind().Entities {
		if e.Name == "issues" {
			return e.Routes[tributary.ActionList][0].GraphQL
		}
	}
	tb.Fatal("no issues")
	return ""
}

// BenchmarkListIssuesTyped walks 9,750 issues into linear.Issue.
func BenchmarkListIssuesTyped(b *testing.B) {
	srv := benchServer(b, benchIssues)
	c := benchClient(b, srv)
	benchmark.Walk(b, benchLive, func() int {
		n := walkTyped(b, c)
		srv.ResetRequests()
		return n
	})
}

// BenchmarkListIssuesGeneric walks the same issues as raw Records.
func BenchmarkListIssuesGeneric(b *testing.B) {
	srv := benchServer(b, benchIssues)
	c := benchClient(b, srv)
	benchmark.Walk(b, benchLive, func() int {
		n := 0
		for _, err := range tributary.All(context.Background(), c, "issues", tributary.Params{"first": linear.MaxFirst}) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		srv.ResetRequests()
		return n
	})
}

// BenchmarkListIssuesNetHTTP walks the same issues with walkNetHTTP.
func BenchmarkListIssuesNetHTTP(b *testing.B) {
	srv := benchServer(b, benchIssues)
	hc := benchmark.Client(b)
	q := issuesQuery(b, benchClient(b, srv))
	benchmark.Walk(b, benchLive, func() int {
		n := walkNetHTTP(b, hc, srv.URL, q)
		srv.ResetRequests()
		return n
	})
}

// The baseline is a fair one: it sends what the typed listing sends
// (query, variables, headers but User-Agent) and counts the same records.
func TestNetHTTPBaselineMatchesTyped(t *testing.T) {
	const issues = 600
	srv := benchServer(t, issues)
	c := benchClient(t, srv)
	q := issuesQuery(t, c)
	benchmark.Baseline(t, srv, issues-issues/40, func() int { return walkTyped(t, c) }, func(hc *http.Client) int { return walkNetHTTP(t, hc, srv.URL, q) })
}
