package bench

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	gh "github.com/google/go-github/v92/github"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/benchmark"
	"github.com/tributary-dev/tributary/kinds/github"
	"github.com/tributary-dev/tributary/kinds/github/githubtest"
)

// benchIssues is the number of issues walked per iteration, 100 a page, from
// the GitHub fake's nested issues (user, labels, assignees, milestone with
// its creator, reactions).
const benchIssues = 10_000

func benchServer(b *testing.B) *githubtest.Server {
	srv := githubtest.New(githubtest.WithIssues(benchIssues), githubtest.WithPulls(0))
	// Pages are rendered once and replayed, so the fake costs next to
	// nothing and what is measured is the clients.
	srv.SetResponseCache(true)
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkGitHubIssuesGoGitHub lists the issues with google/go-github,
// following resp.NextPage.
func BenchmarkGitHubIssuesGoGitHub(b *testing.B) {
	srv := benchServer(b)
	// The fake serves GitHub's paths at its origin, as api.github.com
	// does: go-github's requests to api.github.com are sent there.
	fake, err := url.Parse(srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	hc := &http.Client{Transport: toFake{fake: fake, base: http.DefaultTransport}}
	c, err := gh.NewClient(gh.WithHTTPClient(hc), gh.WithAuthToken(githubtest.DefaultToken))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	benchmark.Walk(b, benchIssues, func() int {
		n := 0
		opt := &gh.IssueListByRepoOptions{State: "all", ListOptions: gh.ListOptions{PerPage: 100}}
		for {
			issues, resp, err := c.Issues.ListByRepo(ctx, githubtest.Owner, githubtest.Repo, opt)
			if err != nil {
				b.Fatal(err)
			}
			for _, is := range issues {
				if !is.IsPullRequest() {
					n++
				}
			}
			if resp.NextPage == 0 {
				return n
			}
			opt.ListOptions.Page = resp.NextPage
		}
	})
}

func benchClient(b *testing.B, srv *githubtest.Server) *github.Client {
	c, err := github.New(github.Credentials{Token: githubtest.DefaultToken}, tributary.WithBaseURL(srv.URL))
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkGitHubIssuesTributaryTyped lists the same issues into
// github.Issue with Tributary's typed handle.
func BenchmarkGitHubIssuesTributaryTyped(b *testing.B) {
	c := benchClient(b, benchServer(b))
	p := github.IssueListParams{RepoRef: github.RepoRef{Owner: githubtest.Owner, Repo: githubtest.Repo}, State: "all", Paging: github.Paging{PerPage: 100}}
	benchmark.Walk(b, benchIssues, func() int {
		return benchmark.Count(b, c.Issues().All(context.Background(), p))
	})
}

// BenchmarkGitHubIssuesTributaryGeneric lists the same issues as raw
// tributary.Records.
func BenchmarkGitHubIssuesTributaryGeneric(b *testing.B) {
	c := benchClient(b, benchServer(b))
	p := tributary.Params{"owner": githubtest.Owner, "repo": githubtest.Repo, "state": "all", "per_page": 100}
	benchmark.Walk(b, benchIssues, func() int {
		return benchmark.Count(b, tributary.All(context.Background(), c, "issues", p))
	})
}

// toFake sends requests for api.github.com to the fake's origin.
type toFake struct {
	fake *url.URL
	base http.RoundTripper
}

func (t toFake) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host, r.Host = t.fake.Scheme, t.fake.Host, t.fake.Host
	return t.base.RoundTrip(r)
}
