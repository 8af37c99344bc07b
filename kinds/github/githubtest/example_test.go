package githubtest_test

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/tributary-dev/tributary/kinds/github/githubtest"
)

// Start the fake, list the first page of issues of Owner/Repo with plain
// net/http and follow GitHub's Link header.
func Example() {
	srv := githubtest.New(githubtest.WithIssues(10), githubtest.WithPulls(2))
	defer srv.Close()

	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/repos/octo/hello/issues?state=all&per_page=5", nil)
	req.Header.Set("Authorization", "Bearer "+githubtest.DefaultToken)
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", githubtest.APIVersion)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()

	var issues []struct {
		Number      int             `json:"number"`
		PullRequest json.RawMessage `json:"pull_request"`
	}
	if err := json.NewDecoder(res.Body).Decode(&issues); err != nil {
		fmt.Println(err)
		return
	}
	for _, is := range issues {
		fmt.Println(is.Number, is.PullRequest != nil)
	}
	fmt.Println(res.Header.Get("X-RateLimit-Resource"), res.Header.Get("Link") != "")
	// Output:
	// 12 false
	// 11 false
	// 10 true
	// 9 false
	// 8 false
	// core true
}
