package github_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/github"
	"github.com/tributary-dev/tributary/kinds/github/githubtest"
)

// The repositories of the sandbox fake (githubtest.New's defaults), by
// full name.
var sandboxRepos = []string{"octo/hello", "octo/repo-1", "octo/repo-2"}

// The organizations of the fake's authenticated user.
var sandboxOrgs = []string{githubtest.Owner, githubtest.LabsOrg, githubtest.ArchiveOrg}

// sandbox starts the sandbox fake (githubtest.New's defaults) and a
// client of it.
func sandbox(t *testing.T) (*githubtest.Server, *github.Client) {
	t.Helper()
	srv := githubtest.New()
	t.Cleanup(srv.Close)
	return srv, open(t, srv)
}

// scopeParts iterates entity's Scope.Parts with config.
func scopeParts(t *testing.T, c tributary.Connector, entity string, config map[string]any) []tributary.Part {
	t.Helper()
	e, ok := tributary.FindEntity(c.Entities(), entity)
	if !ok || !e.CopiedInParts() {
		t.Fatalf("%s has no Scope.Parts", entity)
	}
	if e.Scope.Doc == "" {
		t.Errorf("%s: the scope has no Doc", entity)
	}
	var out []tributary.Part
	for p, err := range e.Scope.Parts(context.Background(), c, config) {
		if err != nil {
			t.Fatalf("%s parts: %v", entity, err)
		}
		out = append(out, p)
	}
	return out
}

// apiRequests lists the fake's API requests as "path?query".
func apiRequests(srv *githubtest.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		if r.Origin == "api" {
			out = append(out, r.Path+query(r.Query))
		}
	}
	return out
}

func query(q url.Values) string {
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// repoLevel lists the repository-level entities and the params their
// parts add to owner and repo.
var repoLevel = map[string]tributary.Params{
	"branches": {}, "commits": {}, "releases": {}, "issues": {"state": "all"}, "pull_requests": {"state": "all"},
	"labels": {}, "tags": {}, "milestones": {"state": "all"}, "stargazers": {}, "comments": {},
}

func repoParts(repos []string, extra tributary.Params) []tributary.Part {
	var out []tributary.Part
	for _, full := range repos {
		owner, name, _ := strings.Cut(full, "/")
		p := tributary.Params{"owner": owner, "repo": name}
		for k, v := range extra {
			p[k] = v
		}
		out = append(out, tributary.Part{Key: full, Params: p, Fields: map[string]any{"repository": full}})
	}
	return out
}

// Every searchable entity has a scope read in parts; with no
// replication_config the parts cover every repository the token can read
// (GET /user/repos) and every organization of its user (GET /user/orgs),
// and each part's walk returns records.
func TestScopesWithoutConfig(t *testing.T) {
	srv, c := sandbox(t)

	var searchable []string
	for _, e := range c.Entities() {
		if e.Supports(tributary.ActionSearch) {
			searchable = append(searchable, e.Name)
		}
	}
	if len(searchable) != 15 {
		t.Errorf("searchable entities: %v, want 15", searchable)
	}

	orgParts := func() []tributary.Part {
		var out []tributary.Part
		for _, o := range sandboxOrgs {
			out = append(out, tributary.Part{Key: o, Params: tributary.Params{"org": o}, Fields: map[string]any{"org": o}})
		}
		return out
	}
	want := map[string][]tributary.Part{
		"repositories":  {{Key: "user", Params: tributary.Params{}}},
		"organizations": {{Key: "user", Params: tributary.Params{}}},
		"users":         orgParts(),
		"teams":         orgParts(),
	}
	for e, extra := range repoLevel {
		want[e] = repoParts(sandboxRepos, extra)
	}

	for _, entity := range searchable {
		t.Run(entity, func(t *testing.T) {
			srv.ResetRequests()
			got := scopeParts(t, c, entity, nil)
			if entity == "reviews" {
				checkReviewParts(t, c, got, sandboxRepos)
			} else if d := cmp.Diff(want[entity], got); d != "" {
				t.Errorf("parts (-want +got):\n%s", d)
			}
			total := 0
			for _, p := range got {
				n := 0
				for _, err := range tributary.All(context.Background(), c, entity, p.Params) {
					if err != nil {
						t.Fatalf("part %s: %v", p.Key, err)
					}
					n++
				}
				// Teams: only the fake's Owner organization has any; some
				// pull requests have no reviews.
				if n == 0 && entity != "reviews" && !(entity == "teams" && p.Key != githubtest.Owner) {
					t.Errorf("part %s: no records", p.Key)
				}
				total += n
			}
			if total == 0 {
				t.Errorf("no records")
			}
		})
	}
}

// checkReviewParts: one part per pull request (closed ones too) of each
// repository, with repository and pull_number set on its records.
func checkReviewParts(t *testing.T, c tributary.Connector, got []tributary.Part, repos []string) {
	t.Helper()
	var want []tributary.Part
	for _, full := range repos {
		owner, name, _ := strings.Cut(full, "/")
		for pr, err := range tributary.All(context.Background(), c, "pull_requests", tributary.Params{"owner": owner, "repo": name, "state": "all"}) {
			if err != nil {
				t.Fatal(err)
			}
			n, _ := pr.IntAt("number")
			updated, _ := pr.StringAt("updated_at")
			if updated == "" {
				t.Fatalf("pull request %s#%d has no updated_at", full, n)
			}
			want = append(want, tributary.Part{Key: full + "#" + strconv.FormatInt(n, 10),
				Params:  tributary.Params{"owner": owner, "repo": name, "pull_number": n},
				Fields:  map[string]any{"repository": full, "pull_number": n},
				Version: updated})
		}
	}
	if len(repos) > 0 && len(want) <= len(repos) {
		t.Fatalf("the fake has %d pull requests in %v", len(want), repos)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("review parts (-want +got):\n%s", d)
	}
}

// replication_config.repositories limits the repository-level parts to the
// repositories it names; owner/* reads the owner's list at the path
// GitHub serves for the owner's type; start_date is the since of the lists
// that take one. The requests that list the parts are GitHub's.
func TestScopesWithConfig(t *testing.T) {
	srv, c := sandbox(t)

	cases := []struct {
		name     string
		config   map[string]any
		repos    []string
		requests []string // what listing the parts asked for
	}{
		{"one repository", map[string]any{"repositories": []any{"octo/hello"}}, []string{"octo/hello"},
			[]string{"/repos/octo/hello"}},
		{"an organization's", map[string]any{"repositories": []any{"octo/*"}}, sandboxRepos,
			[]string{"/users/octo", "/orgs/octo/repos?per_page=100&sort=full_name"}},
		{"named twice", map[string]any{"repositories": []any{"octo/repo-2", "octo/*"}}, []string{"octo/repo-2", "octo/hello", "octo/repo-1"},
			[]string{"/repos/octo/repo-2", "/users/octo", "/orgs/octo/repos?per_page=100&sort=full_name"}},
		{"a user's", map[string]any{"repositories": []any{"user-1/*"}}, nil,
			[]string{"/users/user-1", "/user", "/users/user-1/repos?per_page=100"}},
		// GET /users/{username}/repos lists public repositories only: the
		// authenticated user's own, private ones included, are on
		// /user/repos (the fake's user owns none).
		{"the authenticated user's", map[string]any{"repositories": []any{githubtest.ViewerLogin + "/*"}}, nil,
			[]string{"/users/" + githubtest.ViewerLogin, "/user", "/user/repos?affiliation=owner&per_page=100"}},
		{"none", nil, sandboxRepos, []string{"/user/repos?per_page=100"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The copies of one sync list the repositories once: the
			// first entity asks, the others reuse the list.
			srv.ResetRequests()
			for e, extra := range repoLevel {
				got := scopeParts(t, c, e, tc.config)
				if d := cmp.Diff(repoParts(tc.repos, extra), got); d != "" {
					t.Errorf("%s parts (-want +got):\n%s", e, d)
				}
			}
			if d := cmp.Diff(tc.requests, apiRequests(srv)); d != "" {
				t.Errorf("requests of %d entities' parts (-want +got):\n%s", len(repoLevel), d)
			}
			srv.ResetRequests()
			checkReviewParts(t, c, scopeParts(t, c, "reviews", tc.config), tc.repos)
		})
	}

	t.Run("start_date", func(t *testing.T) {
		config := map[string]any{"repositories": []any{"octo/hello"}, "start_date": "2024-01-31T10:00:00+02:00"}
		for _, e := range []string{"issues", "comments", "commits"} {
			got := scopeParts(t, c, e, config)
			if len(got) != 1 || got[0].Params["since"] != "2024-01-31T08:00:00Z" {
				t.Errorf("%s: parts %v, want since 2024-01-31T08:00:00Z", e, got)
			}
			srv.ResetRequests()
			for _, err := range tributary.All(context.Background(), c, e, got[0].Params) {
				if err != nil {
					t.Fatal(err)
				}
			}
			for _, r := range srv.Requests() {
				if r.Query.Get("since") != "2024-01-31T08:00:00Z" {
					t.Errorf("%s: %s?%s has no since", e, r.Path, r.Query.Encode())
				}
			}
		}
		if got := scopeParts(t, c, "pull_requests", config); got[0].Params["since"] != nil {
			t.Errorf("pull_requests take no since: %v", got[0].Params)
		}
	})

	t.Run("organizations", func(t *testing.T) {
		srv.ResetRequests()
		for _, e := range []string{"users", "teams"} {
			got := scopeParts(t, c, e, map[string]any{"repositories": []any{"octo/hello"}})
			var keys []string
			for _, p := range got {
				keys = append(keys, p.Key)
			}
			if d := cmp.Diff(sandboxOrgs, keys); d != "" {
				t.Errorf("%s keys (-want +got):\n%s", e, d)
			}
		}
		if d := cmp.Diff([]string{"/user/orgs?per_page=100", "/user/orgs?per_page=100"}, apiRequests(srv)); d != "" {
			t.Errorf("requests (-want +got):\n%s", d)
		}
	})
}

// The walks the parts take reach GitHub's paths: the repository-wide
// comments list, the authenticated user's organizations and repositories,
// one repository as a list of one.
func TestScopeListRoutes(t *testing.T) {
	srv, c := sandbox(t)
	cases := []struct {
		entity string
		params tributary.Params
		path   string
	}{
		{"comments", tributary.Params{"owner": "octo", "repo": "hello"}, "/repos/octo/hello/issues/comments"},
		{"comments", tributary.Params{"owner": "octo", "repo": "hello", "issue_number": 3}, "/repos/octo/hello/issues/3/comments"},
		{"organizations", tributary.Params{}, "/user/orgs"},
		{"organizations", tributary.Params{"username": "user-2"}, "/users/user-2/orgs"},
		{"repositories", tributary.Params{}, "/user/repos"},
		{"repositories", tributary.Params{"username": "octo"}, "/users/octo/repos"},
		{"repositories", tributary.Params{"org": "octo"}, "/orgs/octo/repos"},
		{"repositories", tributary.Params{"owner": "octo", "repo": "repo-1"}, "/repos/octo/repo-1"},
	}
	for _, tc := range cases {
		srv.ResetRequests()
		page, err := c.List(context.Background(), tc.entity, tc.params)
		if err != nil {
			t.Fatalf("%s %v: %v", tc.entity, tc.params, err)
		}
		if len(page.Records) == 0 {
			t.Errorf("%s %v: no records", tc.entity, tc.params)
		}
		if d := cmp.Diff([]string{tc.path}, apiRequests(srv)); d != "" {
			t.Errorf("%s %v: requests (-want +got):\n%s", tc.entity, tc.params, d)
		}
	}
	// One repository's list is that repository.
	page, err := c.List(context.Background(), "repositories", tributary.Params{"owner": "octo", "repo": "repo-1"})
	if err != nil {
		t.Fatal(err)
	}
	if full, _ := page.Records[0].StringAt("full_name"); len(page.Records) != 1 || full != "octo/repo-1" || page.Next != nil {
		t.Errorf("one repository: %d records (%s), next %v", len(page.Records), full, page.Next)
	}
}

// A copy sets an issue's repository to owner/repo; the typed Issue reads
// it as the repository's full name.
func TestIssueRepositoryFromCopy(t *testing.T) {
	var is github.Issue
	var r tributary.Record
	if err := r.UnmarshalJSON([]byte(`{"number": 3, "repository": "octo/hello"}`)); err != nil {
		t.Fatal(err)
	}
	if err := r.Decode(&is); err != nil {
		t.Fatal(err)
	}
	got := [3]string{is.Repository.FullName, is.Repository.Name, is.Repository.Owner.Login}
	if got != [3]string{"octo/hello", "hello", "octo"} {
		t.Errorf("repository %v", got)
	}
	if err := (&tributary.Record{}).UnmarshalJSON([]byte(`{"repository": {"full_name": "octo/hello", "id": 7}}`)); err != nil {
		t.Fatal(err)
	}
}

// A part's since (replication_config.start_date) bounds its change feed
// from below: a checkpoint before it, or none, reads from start_date.
func TestFeedKeepsStartDate(t *testing.T) {
	base := tributary.Params{"owner": "octo", "repo": "hello", "since": "2024-01-31T08:00:00Z"}
	for _, name := range []string{"issues", "comments", "commits"} {
		e, _ := tributary.FindEntity(github.Catalogue(), name)
		for _, c := range []struct {
			checkpoint time.Time
			want       string
		}{
			{time.Time{}, "2024-01-31T08:00:00Z"},
			{time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC), "2024-01-31T08:00:00Z"},
			{time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), "2025-01-01T00:00:00Z"},
		} {
			if got := e.Feed.Params(base, c.checkpoint)["since"]; got != c.want {
				t.Errorf("%s from %v: since %v, want %s", name, c.checkpoint, got, c.want)
			}
		}
	}
}

// The copies of one sync (entity after entity) list the repositories
// once; a minute later the list is read again, so a repository created
// since is in the next sync's copies. On the clock of a synctest bubble.
func TestScopesListRepositoriesOncePerSync(t *testing.T) {
	srv := githubtest.New()
	defer srv.Close()
	synctest.Test(t, func(t *testing.T) {
		c := open(t, srv, tributary.WithHTTPClient(&http.Client{Transport: srv.Transport()}))
		count := func(entities ...string) int {
			srv.ResetRequests()
			for _, e := range entities {
				if got := scopeParts(t, c, e, nil); len(got) != len(sandboxRepos) {
					t.Fatalf("%s: %d parts, want %d", e, len(got), len(sandboxRepos))
				}
			}
			return len(apiRequests(srv))
		}
		if n := count("issues", "comments", "labels"); n != 1 {
			t.Errorf("three entities' parts sent %d requests, want 1 (GET /user/repos)", n)
		}
		time.Sleep(repoListFreshness)
		if n := count("issues"); n != 1 {
			t.Errorf("a minute later, the parts sent %d requests, want the list read again", n)
		}
	})
}

// repoListFreshness is how long a client reuses a scope's repositories.
const repoListFreshness = time.Minute
