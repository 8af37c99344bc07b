package jira_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/jira"
	"github.com/tributary-dev/tributary/kinds/jira/jiratest"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/search"
)

var _ tributary.Changer = (*jira.Client)(nil)

// durable opens a copy of the fake's data in a SQLite file.
func durable(t *testing.T, c tributary.Connector, opts ...replica.Option) *replica.Replica {
	t.Helper()
	return durableAt(t, t.TempDir()+"/copy.db", c, opts...)
}

func durableAt(t *testing.T, path string, c tributary.Connector, opts ...replica.Option) *replica.Replica {
	t.Helper()
	r, err := replica.Open(context.Background(), c, replica.SQLite(path), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func syncOne(t *testing.T, r *replica.Replica, entity string) replica.EntityReport {
	t.Helper()
	rep, err := r.Sync(context.Background(), entity)
	if err != nil {
		t.Fatalf("sync %s: %v", entity, err)
	}
	return rep.Entities[0]
}

// jqls returns the JQL of the searches the fake received.
func jqls(srv *jiratest.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		if r.Path == "/rest/api/3/search/jql" && r.Query.Get("jql") != "" {
			out = append(out, r.Query.Get("jql"))
		}
	}
	return out
}

func inCopy(t *testing.T, r *replica.Replica, entity, id string) bool {
	t.Helper()
	res, err := r.Search(context.Background(), entity, search.Request{Query: search.Query{Filter: search.Eq("id", id).Ptr()}})
	if err != nil {
		t.Fatal(err)
	}
	return len(res.Hits) == 1
}

// The issues feed reads JQL dates to the minute in the API user's zone
// (here Adelaide, UTC+10:30 or +9:30): changes on both sides of a minute
// boundary, and one made later in the minute the last sync ended in, are
// all read, and the issues read again in the overlap are unchanged, not
// updated.
func TestIssueFeedAcrossAMinuteInTheUsersZone(t *testing.T) {
	clock := fakeserver.NewClock(time.Date(2026, 3, 2, 10, 0, 59, 900e6, time.UTC))
	srv := jiratest.New(jiratest.WithClock(clock), jiratest.WithTimeZone("Australia/Adelaide"), jiratest.WithIssues(60))
	defer srv.Close()
	r := durable(t, open(t, srv))
	if er := syncOne(t, r, "issues"); er.Inserted != 60 {
		t.Fatalf("full copy: %+v", er)
	}
	ids := srv.IDs("issues")
	// 10:00:59.900 and 10:01:00.100 UTC: two minutes of the zone's wall
	// clock (20:30 and 20:31 in Adelaide in March, UTC+10:30).
	if err := srv.Update("issues", ids[3]); err != nil {
		t.Fatal(err)
	}
	clock.Advance(200 * time.Millisecond)
	if err := srv.Update("issues", ids[7]); err != nil {
		t.Fatal(err)
	}
	srv.ResetRequests()
	er := syncOne(t, r, "issues")
	if er.Updated != 2 || er.Inserted != 0 || er.Deleted != 0 {
		t.Fatalf("after two changes across a minute: %+v", er)
	}
	// The checkpoint was the newest generated issue's change: the search
	// starts a minute earlier, at the minute, in Adelaide's wall time.
	gen := jqls(srv)
	if len(gen) != 1 || !strings.HasPrefix(gen[0], `updated >= "`) || !strings.HasSuffix(gen[0], `" ORDER BY updated ASC`) {
		t.Fatalf("searches %q", gen)
	}
	// A change later in the minute the last sync ended in (20:31 wall
	// time), after that sync.
	clock.Advance(30 * time.Second)
	if err := srv.Update("issues", ids[11]); err != nil {
		t.Fatal(err)
	}
	srv.ResetRequests()
	er = syncOne(t, r, "issues")
	if er.Updated != 1 || er.Inserted != 0 || er.Unchanged != 2 {
		t.Fatalf("a change in the checkpoint's minute: %+v (want 1 updated, and the two issues changed since 20:30 read again unchanged)", er)
	}
	if got := jqls(srv); len(got) != 1 || got[0] != `updated >= "2026/03/02 20:30" ORDER BY updated ASC` {
		t.Errorf("search %q, want the minute before the checkpoint's (20:31:00.1 in Adelaide), at the minute", got)
	}
	for _, req := range srv.Requests() {
		if req.Path == "/rest/api/3/myself" {
			t.Error("the zone was read again: once per connector")
		}
	}
	// Nothing changed: the overlap is read, and nothing is updated.
	er = syncOne(t, r, "issues")
	if er.Updated != 0 || er.Inserted != 0 || er.Unchanged == 0 {
		t.Errorf("nothing changed: %+v", er)
	}
}

// A JQL search never shows a deleted issue: the copy finds it by its
// sweep of the ids, once the sweep is due (every hour; here WithReconcile
// makes every sync sweep), one request per 5,000 issues.
func TestSweepFindsDeletedIssues(t *testing.T) {
	srv := jiratest.New(jiratest.WithIssues(120))
	defer srv.Close()
	c := open(t, srv)
	path := t.TempDir() + "/copy.db"
	r := durableAt(t, path, c)
	syncOne(t, r, "issues")
	gone := srv.IDs("issues")[5]
	if err := srv.Delete("issues", gone); err != nil {
		t.Fatal(err)
	}
	// A full walk counts as a sweep: none is due yet.
	er := syncOne(t, r, "issues")
	if er.Swept != nil || !inCopy(t, r, "issues", gone) {
		t.Fatalf("a sweep before it was due: %+v", er.Swept)
	}
	r.Close()
	r = durableAt(t, path, c, replica.WithReconcile(time.Nanosecond))
	srv.ResetRequests()
	er = syncOne(t, r, "issues")
	if er.Swept == nil || er.Swept.Requests != 1 || er.Swept.Live != 119 || er.Deleted != 1 || inCopy(t, r, "issues", gone) {
		t.Fatalf("report %+v, swept %+v: the deleted issue is still in the copy", er, er.Swept)
	}
	var sweep []string
	for _, req := range srv.Requests() {
		if req.Query.Get("fields") == "id" {
			sweep = append(sweep, req.Query.Encode())
		}
	}
	if want := []string{"fields=id&jql=created+%3E%3D+%221970%2F01%2F01%22&maxResults=5000"}; !cmp.Equal(sweep, want) {
		t.Errorf("sweep requests %q, want %q", sweep, want)
	}
}

// Worklogs are kept from Jira's own feeds: the ids changed since the
// checkpoint, read in one POST worklog/list, and the ids deleted; a copy
// of every worklog of every issue takes three requests, not one per
// issue.
func TestWorklogFeeds(t *testing.T) {
	clock := fakeserver.NewClock(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC))
	srv := jiratest.New(jiratest.WithClock(clock), jiratest.WithIssues(40))
	defer srv.Close()
	r := durable(t, open(t, srv))
	er := syncOne(t, r, "issue_worklogs")
	if want := len(srv.IDs("issue_worklogs")); er.Inserted != int64(want) || er.Usage.Requests != 3 {
		t.Fatalf("full copy: %+v, want %d worklogs in 3 requests", er, want)
	}
	ids := srv.IDs("issue_worklogs")
	added, err := srv.AddTo("issue_worklogs", srv.IDs("issues")[2])
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Update("issue_worklogs", ids[0]); err != nil {
		t.Fatal(err)
	}
	if err := srv.Delete("issue_worklogs", ids[1]); err != nil {
		t.Fatal(err)
	}
	// Jira leaves out the changes of the last minute.
	clock.Advance(2 * time.Minute)
	srv.ResetRequests()
	er = syncOne(t, r, "issue_worklogs")
	if er.Inserted != 1 || er.Updated != 1 || er.Deleted != 1 || er.Usage.Requests != 3 {
		t.Fatalf("incremental: %+v", er)
	}
	if !inCopy(t, r, "issue_worklogs", added) || inCopy(t, r, "issue_worklogs", ids[1]) {
		t.Error("the copy lacks the new worklog, or keeps the deleted one")
	}
	reqs := srv.Requests()
	paths := make([]string, len(reqs))
	for i, req := range reqs {
		paths[i] = req.Method + " " + req.Path
	}
	if want := []string{"GET /rest/api/3/worklog/updated", "POST /rest/api/3/worklog/list", "GET /rest/api/3/worklog/deleted"}; !cmp.Equal(paths, want) {
		t.Fatalf("requests %q, want %q", paths, want)
	}
	var body struct{ IDs []int64 }
	if err := json.Unmarshal(reqs[1].Body, &body); err != nil || !slices.Contains(body.IDs, mustInt(t, added)) || !slices.Contains(body.IDs, mustInt(t, ids[0])) {
		t.Errorf("worklog/list body %s", reqs[1].Body)
	}
	since := reqs[0].Query.Get("since")
	if since == "" || since == "0" || reqs[2].Query.Get("since") != since {
		t.Errorf("since %q and %q: both feeds from the checkpoint less the overlap", since, reqs[2].Query.Get("since"))
	}
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	var n int64
	if err := json.Unmarshal([]byte(s), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Comments follow the issues feed: a comment added is read with its
// issue's comments alone. The feed shows no deleted issue, so the comments
// of one leave the copy at its next full walk, once the last is older than
// WithReconcile (a day by default).
func TestCommentsFollowTheIssuesFeed(t *testing.T) {
	clock := fakeserver.NewClock(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC))
	srv := jiratest.New(jiratest.WithClock(clock), jiratest.WithIssues(30))
	defer srv.Close()
	c := open(t, srv)
	path := t.TempDir() + "/copy.db"
	r := durableAt(t, path, c)
	syncOne(t, r, "issue_comments")
	issues := srv.IDs("issues")
	added, err := srv.AddTo("issue_comments", issues[4])
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	srv.ResetRequests()
	er := syncOne(t, r, "issue_comments")
	if er.Inserted != 1 || !inCopy(t, r, "issue_comments", added) {
		t.Fatalf("after a comment added: %+v", er)
	}
	var reads []string
	for _, req := range srv.Requests() {
		if strings.HasSuffix(req.Path, "/comment") {
			reads = append(reads, req.Path)
		}
	}
	if len(reads) > 2 || !slices.Contains(reads, "/rest/api/3/issue/"+issues[4]+"/comment") {
		t.Errorf("comments read %q: only those of the issues the feed shows changed", reads)
	}
	res, err := r.Search(context.Background(), "issue_comments", search.Request{Query: search.Query{Filter: search.Eq("issueId", issues[4]).Ptr()}})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("the comments of issue %s by issueId: %v %v", issues[4], res, err)
	}
	if err := srv.Delete("issues", issues[4]); err != nil {
		t.Fatal(err)
	}
	r.Close()
	r = durableAt(t, path, c, replica.WithReconcile(time.Nanosecond))
	er = syncOne(t, r, "issue_comments")
	if er.Mode != replica.Full || inCopy(t, r, "issue_comments", added) {
		t.Errorf("after the issue was deleted: %+v; its comment still in the copy: %v", er, inCopy(t, r, "issue_comments", added))
	}
}
