package github_test

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/github/githubtest"
)

// idOf reads a record's key: sha for commits, id for the others.
func idOf(t *testing.T, entity string, r tributary.Record) string {
	t.Helper()
	key := "id"
	if entity == "commits" {
		key = "sha"
	}
	raw, ok := r.Lookup(key)
	if !ok {
		t.Fatalf("%s record without %s: %s", entity, key, r.Raw())
	}
	return strings.Trim(string(raw), `"`)
}

// changedPath is the last-modified field of each feed's records.
var changedPath = map[string]string{"issues": "updated_at", "comments": "updated_at", "commits": "commit.committer.date"}

// pass reads entity's feed from cp to its end and returns the ids of the
// records read (in order, repeats kept) and the checkpoint of every page.
func pass(t *testing.T, c tributary.Changer, entity string, base tributary.Params, cp tributary.Checkpoint) ([]string, []tributary.Checkpoint) {
	ids, _, cps := passAt(t, c, entity, base, cp)
	return ids, cps
}

// passAt is pass that also returns each record's last-modified time by id.
func passAt(t *testing.T, c tributary.Changer, entity string, base tributary.Params, cp tributary.Checkpoint) ([]string, map[string]time.Time, []tributary.Checkpoint) {
	t.Helper()
	at := map[string]time.Time{}
	var ids []string
	var cps []tributary.Checkpoint
	for ch, err := range c.Changes(context.Background(), entity, base, cp) {
		if err != nil {
			t.Fatalf("%s changes: %v", entity, err)
		}
		if len(ch.Deleted) > 0 {
			t.Errorf("%s: GitHub reports no deletions, got %d", entity, len(ch.Deleted))
		}
		for _, r := range ch.Records {
			id := idOf(t, entity, r)
			ids = append(ids, id)
			v, _ := r.StringAt(changedPath[entity])
			at[id], _ = time.Parse(time.RFC3339, v)
		}
		cps = append(cps, ch.Checkpoint)
	}
	if len(cps) == 0 {
		t.Fatalf("%s: no page", entity)
	}
	if last := cps[len(cps)-1]; last.Next != nil {
		t.Fatalf("%s: last checkpoint still has Next %v", entity, last.Next)
	}
	return ids, at, cps
}

// overlap is the feeds' overlap: records changed this long before a
// checkpoint are read again.
const overlap = time.Minute

// onlyChanged checks that a pass from checkpoint since read every id of
// want and, besides them, only records changed within the overlap before
// since (read again on purpose).
func onlyChanged(t *testing.T, what string, ids []string, at map[string]time.Time, want []string, since time.Time) {
	t.Helper()
	for _, id := range want {
		if !slices.Contains(ids, id) {
			t.Errorf("%s: changed record %s not read", what, id)
		}
	}
	for _, id := range ids {
		if !slices.Contains(want, id) && at[id].Before(since.Add(-overlap)) {
			t.Errorf("%s: read %s, changed at %s, before the checkpoint %s less the overlap", what, id, at[id], since)
		}
	}
}

// walk lists every record of entity with the list action, from list params.
func walk(t *testing.T, c tributary.Connector, entity string, params tributary.Params) []string {
	t.Helper()
	var ids []string
	for r, err := range tributary.All(context.Background(), c, entity, params) {
		if err != nil {
			t.Fatalf("walk %s: %v", entity, err)
		}
		ids = append(ids, idOf(t, entity, r))
	}
	return ids
}

func sorted(ids []string) []string {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

// feedRequests returns the API requests to path in the fake's log.
func feedRequests(srv *githubtest.Server, path string) []fakeserver.Request {
	var out []fakeserver.Request
	for _, r := range srv.Requests() {
		if r.Origin == "api" && r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

type feedCase struct {
	entity string
	path   string
	// walkAll lists every live record with the entity's list action.
	walkAll func(t *testing.T, c tributary.Connector) []string
	// first is the query of the feed's first request from the zero
	// checkpoint, page excluded.
	first url.Values
	// mutate changes records at the fake's clock and returns the ids the
	// next pass must return.
	mutate func(t *testing.T, srv *githubtest.Server) []string
}

var helloBase = tributary.Params{"owner": githubtest.Owner, "repo": githubtest.Repo}

func feedCases() []feedCase {
	issueList := func(t *testing.T, c tributary.Connector) []string {
		return walk(t, c, "issues", tributary.Params{"owner": githubtest.Owner, "repo": githubtest.Repo, "state": "all"})
	}
	return []feedCase{
		{entity: "issues", path: "/repos/octo/hello/issues", walkAll: issueList,
			first: url.Values{"state": {"all"}, "sort": {"updated"}, "direction": {"desc"}, "per_page": {"100"}},
			mutate: func(t *testing.T, srv *githubtest.Server) []string {
				ids := srv.IDs("issues")
				created := must(t)(srv.Create("issues"))
				mustDo(t, srv.Update("issues", ids[3]))
				mustDo(t, srv.Update("issues", ids[len(ids)-2]))
				mustDo(t, srv.Delete("issues", ids[7]))
				return []string{created, ids[3], ids[len(ids)-2]}
			}},
		{entity: "comments", path: "/repos/octo/hello/issues/comments",
			walkAll: func(t *testing.T, c tributary.Connector) []string {
				// The per-issue lists of every issue and pull request.
				var ids []string
				for is, err := range tributary.All(context.Background(), c, "issues", tributary.Params{"owner": githubtest.Owner, "repo": githubtest.Repo, "state": "all"}) {
					if err != nil {
						t.Fatal(err)
					}
					n, _ := is.Lookup("number")
					ids = append(ids, walk(t, c, "comments", tributary.Params{"owner": githubtest.Owner, "repo": githubtest.Repo, "issue_number": string(n)})...)
				}
				for pr, err := range tributary.All(context.Background(), c, "pull_requests", tributary.Params{"owner": githubtest.Owner, "repo": githubtest.Repo, "state": "all"}) {
					if err != nil {
						t.Fatal(err)
					}
					n, _ := pr.Lookup("number")
					ids = append(ids, walk(t, c, "comments", tributary.Params{"owner": githubtest.Owner, "repo": githubtest.Repo, "issue_number": string(n)})...)
				}
				return ids
			},
			first: url.Values{"sort": {"updated"}, "direction": {"desc"}, "per_page": {"100"}},
			mutate: func(t *testing.T, srv *githubtest.Server) []string {
				ids := srv.IDs("comments")
				created := must(t)(srv.Create("comments"))
				mustDo(t, srv.Update("comments", ids[5]))
				mustDo(t, srv.Delete("comments", ids[9]))
				return []string{created, ids[5]}
			}},
		{entity: "commits", path: "/repos/octo/hello/commits",
			walkAll: func(t *testing.T, c tributary.Connector) []string {
				return walk(t, c, "commits", helloBase)
			},
			first: url.Values{"per_page": {"100"}},
			mutate: func(t *testing.T, srv *githubtest.Server) []string {
				a := must(t)(srv.Create("commits"))
				srv.Clock().Advance(time.Second)
				b := must(t)(srv.Create("commits"))
				return []string{a, b}
			}},
	}
}

func must(t *testing.T) func(string, error) string {
	return func(s string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Every feed row of the catalogue: a full pass returns every live record;
// after mutations, a pass from the final checkpoint returns exactly what
// changed, in few requests; a pass resumed from page 1's checkpoint loses
// nothing and repeats nothing; the requests are GitHub's documented ones.
func TestFeeds(t *testing.T) {
	for _, fc := range feedCases() {
		t.Run(fc.entity, func(t *testing.T) {
			srv := githubtest.New(githubtest.WithIssues(230), githubtest.WithPulls(40), githubtest.WithCommits(250))
			defer srv.Close()
			c := open(t, srv)
			want := sorted(fc.walkAll(t, c))
			if len(want) <= 100 {
				t.Fatalf("%d records: too few to page", len(want))
			}

			// (a) and (d): a full pass from the zero checkpoint.
			srv.ResetRequests()
			ids, cps := pass(t, c, fc.entity, helloBase, tributary.Checkpoint{})
			if got := sorted(ids); !slices.Equal(got, want) {
				t.Fatalf("full pass: %d ids, full walk %d", len(got), len(want))
			}
			if len(ids) != len(want) {
				t.Errorf("full pass read %d records for %d ids", len(ids), len(want))
			}
			reqs := feedRequests(srv, fc.path)
			if len(reqs) != len(cps) || len(reqs) < 2 {
				t.Fatalf("requests to %s: %d for %d pages", fc.path, len(reqs), len(cps))
			}
			if q := reqs[0].Query; !equalValues(q, fc.first) {
				t.Errorf("first request query %v, want %v", q, fc.first)
			}
			later := url.Values{}
			for k, v := range fc.first {
				later[k] = v
			}
			later.Set("page", "2")
			if q := reqs[1].Query; !equalValues(q, later) {
				t.Errorf("second request query %v, want %v", q, later)
			}
			end := cps[len(cps)-1]
			if end.Since.IsZero() {
				t.Fatal("checkpoint after a full pass has no Since")
			}

			// (b): changes at a later time come back, and only they.
			srv.Clock().Advance(time.Hour)
			changed := fc.mutate(t, srv)
			srv.ResetRequests()
			ids, at, cps2 := passAt(t, c, fc.entity, helloBase, end)
			onlyChanged(t, "incremental pass", ids, at, changed, end.Since)
			if len(ids) > len(changed)+3 {
				t.Errorf("incremental pass read %d records for %d changes", len(ids), len(changed))
			}
			if n := len(feedRequests(srv, fc.path)); n != 1 {
				t.Errorf("incremental pass took %d requests, want 1", n)
			}
			q := feedRequests(srv, fc.path)[0].Query
			since, err := time.Parse(time.RFC3339, q.Get("since"))
			if err != nil || since.After(end.Since) || end.Since.Sub(since) > 2*time.Minute {
				t.Errorf("since=%q for a checkpoint at %s: want the checkpoint less the overlap", q.Get("since"), end.Since)
			}
			end2 := cps2[len(cps2)-1]
			for _, cp := range cps2 {
				if cp.Since.Before(end.Since) {
					t.Errorf("checkpoint moved back from %s to %s", end.Since, cp.Since)
				}
			}
			if !end2.Since.After(end.Since) {
				t.Errorf("checkpoint did not move past the changes: %s then %s", end.Since, end2.Since)
			}
			now := sorted(fc.walkAll(t, c))
			// And again: nothing new, only the overlap read twice.
			ids, at, _ = passAt(t, c, fc.entity, helloBase, end2)
			onlyChanged(t, "pass without changes", ids, at, nil, end2.Since)

			// (c): resume from page 1's checkpoint of a full pass.
			_, full := pass(t, c, fc.entity, helloBase, tributary.Checkpoint{})
			first := full[0]
			if first.Next == nil {
				t.Fatal("page 1's checkpoint has no Next")
			}
			var firstIDs []string
			for ch, err := range c.Changes(context.Background(), fc.entity, helloBase, tributary.Checkpoint{}) {
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range ch.Records {
					firstIDs = append(firstIDs, idOf(t, fc.entity, r))
				}
				break
			}
			rest, _ := pass(t, c, fc.entity, helloBase, first)
			all := append(slices.Clone(firstIDs), rest...)
			if got := sorted(all); !slices.Equal(got, now) {
				t.Errorf("page 1 and the resumed rest: %d ids, full walk %d", len(got), len(now))
			}
			if len(all) != len(now) {
				t.Errorf("page 1 and the resumed rest read %d records for %d ids: duplicates", len(all), len(now))
			}
		})
	}
}

func equalValues(a, b url.Values) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// A deleted issue is gone from the list, its get answers 410 Gone, and an
// updated one shows its new title in list, get and search.
func TestMutatedIssueVisibleEverywhere(t *testing.T) {
	srv := githubtest.New(githubtest.WithIssues(40), githubtest.WithPulls(5))
	defer srv.Close()
	c := open(t, srv)
	ids := srv.IDs("issues")
	mustDo(t, srv.Delete("issues", ids[0]))
	mustDo(t, srv.Update("issues", ids[1]))
	list := walk(t, c, "issues", tributary.Params{"owner": githubtest.Owner, "repo": githubtest.Repo, "state": "all"})
	if slices.Contains(list, ids[0]) || len(list) != len(ids)-1 {
		t.Errorf("list after a delete: %d issues, deleted one listed: %v", len(list), slices.Contains(list, ids[0]))
	}
	var deleted, updated int64
	for r, err := range tributary.All(context.Background(), c, "issues", tributary.Params{"owner": githubtest.Owner, "repo": githubtest.Repo, "state": "all", "sort": "updated"}) {
		if err != nil {
			t.Fatal(err)
		}
		if idOf(t, "issues", r) == ids[1] {
			title, _ := r.StringAt("title")
			if !strings.HasSuffix(title, "(edited 1)") {
				t.Errorf("updated issue's title %q", title)
			}
			n, _ := r.Field("number")
			updated = toInt(n)
		}
	}
	if updated == 0 {
		t.Fatal("updated issue not listed")
	}
	// The issue before ids[1] in number order is the deleted one.
	deleted = updated - 1
	for deleted > 0 && srv.IsPullRequest(int(deleted)) {
		deleted--
	}
	_, err := c.Get(context.Background(), "issues", tributary.Params{"owner": githubtest.Owner, "repo": githubtest.Repo, "issue_number": deleted})
	var te *tributary.Error
	if !errors.As(err, &te) || te.StatusCode != 410 {
		t.Errorf("get of a deleted issue: %v, want 410 Gone", err)
	}
	page, err := c.APISearch(context.Background(), "issues", tributary.Params{"q": "repo:octo/hello edited"})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) != 1 || idOf(t, "issues", page.Records[0]) != ids[1] {
		t.Errorf("search for the edited title: %d results", len(page.Records))
	}
}

func toInt(v any) int64 {
	switch x := v.(type) {
	case float64:
		return int64(x)
	case int64:
		return x
	case interface{ Int64() (int64, error) }:
		n, _ := x.Int64()
		return n
	}
	return 0
}

// A record changed while a pass is under way is not lost, nor is any other:
// what the pass and the next one read together is every live record. The
// feeds page by page number, so a record that moves in the feed's order
// shifts the others between pages.
func TestFeedChangesDuringPassLoseNothing(t *testing.T) {
	for _, fc := range feedCases() {
		if fc.entity == "commits" {
			continue // commits do not change
		}
		t.Run(fc.entity, func(t *testing.T) {
			srv := githubtest.New(githubtest.WithIssues(230), githubtest.WithPulls(40))
			defer srv.Close()
			c := open(t, srv)
			read := map[string]bool{}
			var end tributary.Checkpoint
			page := 0
			for ch, err := range c.Changes(context.Background(), fc.entity, helloBase, tributary.Checkpoint{}) {
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range ch.Records {
					read[idOf(t, fc.entity, r)] = true
				}
				if page == 0 {
					// Change one record already read and one not yet read.
					srv.Clock().Advance(time.Hour)
					mustDo(t, srv.Update(fc.entity, idOf(t, fc.entity, ch.Records[1])))
					mustDo(t, srv.Update(fc.entity, srv.IDs(fc.entity)[len(srv.IDs(fc.entity))/2]))
				}
				page++
				end = ch.Checkpoint
			}
			ids, _ := pass(t, c, fc.entity, helloBase, end)
			for _, id := range ids {
				read[id] = true
			}
			for _, id := range srv.IDs(fc.entity) {
				if !read[id] {
					t.Errorf("%s %s never read", fc.entity, id)
				}
			}
		})
	}
}
