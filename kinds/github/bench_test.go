package github_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/benchmark"
	"github.com/tributary-dev/tributary/kinds/github"
	"github.com/tributary-dev/tributary/kinds/github/githubtest"
)

// benchIssues is the number of issues walked per iteration: the fake's
// nested issues (user, labels, assignees, milestone with its creator,
// reactions), about 3 to 5 KB each, 100 a page.
const benchIssues = 10_000

func benchServer(b *testing.B) *githubtest.Server {
	srv := githubtest.New(githubtest.WithIssues(benchIssues), githubtest.WithPulls(0))
	// Pages are rendered once and replayed, so the fake costs next to
	// nothing and what is measured is the clients.
	srv.SetResponseCache(true)
	b.Cleanup(srv.Close)
	return srv
}

var benchParams = github.IssueListParams{RepoRef: github.RepoRef{Owner: githubtest.Owner, Repo: githubtest.Repo}, State: "all"}

// BenchmarkListIssuesTyped walks 10,000 issues into github.Issue.
func BenchmarkListIssuesTyped(b *testing.B) {
	c := open(b, benchServer(b))
	benchmark.Walk(b, benchIssues, func() int {
		return benchmark.Count(b, c.Issues().All(context.Background(), benchParams))
	})
}

// BenchmarkListIssuesGeneric walks 10,000 issues as raw Records.
func BenchmarkListIssuesGeneric(b *testing.B) {
	c := open(b, benchServer(b))
	params := tributary.Params{"owner": githubtest.Owner, "repo": githubtest.Repo, "state": "all"}
	benchmark.Walk(b, benchIssues, func() int {
		return benchmark.Count(b, tributary.All(context.Background(), c, "issues", params))
	})
}

// BenchmarkListIssuesNetHTTP is the baseline: a plain net/http +
// encoding/json loop over the same pages (per_page 100, Link rel="next")
// into the same struct.
func BenchmarkListIssuesNetHTTP(b *testing.B) {
	srv := benchServer(b)
	hc := &http.Client{}
	benchmark.Walk(b, benchIssues, func() int {
		n := 0
		next := srv.URL + "/repos/octo/hello/issues?state=all&per_page=100"
		for next != "" {
			req, _ := http.NewRequest(http.MethodGet, next, nil)
			req.Header.Set("Authorization", "Bearer "+githubtest.DefaultToken)
			req.Header.Set("Accept", "application/vnd.github+json")
			req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			var page []github.Issue
			err = json.NewDecoder(resp.Body).Decode(&page)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				b.Fatal(resp.Status, err)
			}
			for i := range page {
				if page[i].PullRequest == nil {
					n++
				}
			}
			next = nextLink(resp.Header.Get("Link"))
		}
		return n
	})
}

// nextLink finds the rel="next" URL of a Link header.
func nextLink(h string) string {
	for _, part := range strings.Split(h, ", <") {
		u, rel, ok := strings.Cut(part, ">; ")
		if ok && rel == `rel="next"` {
			return strings.TrimPrefix(u, "<")
		}
	}
	return ""
}
