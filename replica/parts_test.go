package replica_test

import (
	"context"
	"errors"
	"iter"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/github/githubtest"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/search"
)

// scoped is a connector whose catalogue gives one entity a copy scope read
// in parts, so that the mechanism is tested apart from any kind's scope.
type scoped struct {
	tributary.Connector
	entity  string
	parts   func() []tributary.Part
	partIDs bool // Scope.PartIDs
}

func (s scoped) Entities() []tributary.Entity {
	es := slices.Clone(s.Connector.Entities())
	for i, e := range es {
		if e.Name != s.entity {
			continue
		}
		e.Searchable = append(slices.Clone(e.Searchable), tributary.Field{Name: "repository", Type: tributary.TypeString})
		e.Scope = &tributary.Scope{Doc: "test parts", PartIDs: s.partIDs, Parts: func(context.Context, tributary.Connector, map[string]any) iter.Seq2[tributary.Part, error] {
			return func(yield func(tributary.Part, error) bool) {
				for _, p := range s.parts() {
					if !yield(p, nil) {
						return
					}
				}
			}
		}}
		es[i] = e
	}
	return es
}

func (s scoped) Changes(ctx context.Context, entity string, base tributary.Params, from tributary.Checkpoint) iter.Seq2[*tributary.Changes, error] {
	return s.Connector.(tributary.Changer).Changes(ctx, entity, base, from)
}

func repoPart(repo string) tributary.Part {
	return tributary.Part{Key: githubtest.Owner + "/" + repo,
		Params: tributary.Params{"owner": githubtest.Owner, "repo": repo, "state": "all"},
		Fields: map[string]any{"repository": githubtest.Owner + "/" + repo}}
}

// searchCount counts the live records of entity whose field equals value.
func searchCount(t *testing.T, r *replica.Replica, entity, field, value string) int {
	t.Helper()
	n := 0
	q := search.Request{Query: search.Query{Filter: search.Eq(field, value).Ptr()}, Limit: 1000}
	for {
		res, err := r.Search(context.Background(), entity, q)
		if err != nil {
			t.Fatal(err)
		}
		n += len(res.Hits)
		if res.NextCursor == nil {
			return n
		}
		q.Cursor = *res.NextCursor
	}
}

// TestCopyReadInParts: an entity copied in parts (GitHub issues of two
// repositories) holds the union of the parts' records, each stamped with
// what scoped it; the change feed is read per part from the part's own
// checkpoint; a part that leaves the scope has its records kept as
// deletions by a full walk, and nothing else is lost.
func TestCopyReadInParts(t *testing.T) {
	t.Parallel()
	fake := githubtest.New()
	defer fake.Close()
	parts := []tributary.Part{repoPart(githubtest.Repo), repoPart("repo-1")}
	conn := scoped{Connector: openKind(t, kindCase{kind: "github", creds: map[string]any{"token": githubtest.DefaultToken}}, fake.URL),
		entity: "issues", parts: func() []tributary.Part { return parts }}
	ctx := context.Background()
	r, err := replica.Open(ctx, conn, replica.SQLite(t.TempDir()+"/parts.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := replica.Syncable(conn.Entities()); !slices.Contains(got, "issues") {
		t.Errorf("Syncable = %v, want issues among them", got)
	}
	rep, err := r.Sync(ctx, "issues")
	if err != nil {
		t.Fatal(err)
	}
	main, other := searchCount(t, r, "issues", "repository", githubtest.Owner+"/"+githubtest.Repo), searchCount(t, r, "issues", "repository", githubtest.Owner+"/repo-1")
	if e := rep.Entities[0]; e.Mode != replica.Full || main == 0 || other == 0 || int64(main+other) != e.Inserted {
		t.Fatalf("first sync: %+v; %d records of %s, %d of repo-1", e, main, githubtest.Repo, other)
	}

	// A change in one repository: read from that part's checkpoint.
	fake.Clock().Advance(10 * time.Minute)
	ids := fake.IDs("issues")
	if err := fake.Update("issues", ids[0]); err != nil {
		t.Fatal(err)
	}
	fake.Clock().Advance(2 * time.Minute)
	rep, err = r.Sync(ctx, "issues")
	if err != nil {
		t.Fatal(err)
	}
	if e := rep.Entities[0]; e.Mode != replica.Incremental || e.Updated != 1 || e.Deleted != 0 || e.Inserted != 0 {
		t.Errorf("incremental sync: %+v", e)
	}
	if n := searchCount(t, r, "issues", "repository", githubtest.Owner+"/repo-1"); n != other {
		t.Errorf("repo-1 has %d records after the incremental sync, want %d", n, other)
	}

	// repo-1 leaves the scope: its records become deletions, the rest stay.
	parts = parts[:1]
	rep, err = r.Sync(ctx, "issues")
	if err != nil {
		t.Fatal(err)
	}
	if e := rep.Entities[0]; e.Mode != replica.Full || e.Deleted != int64(other) || !strings.Contains(e.Reason, "left the copy's scope") {
		t.Errorf("after repo-1 left the scope: %+v, want a full walk deleting %d", e, other)
	}
	if n, m := searchCount(t, r, "issues", "repository", githubtest.Owner+"/repo-1"), searchCount(t, r, "issues", "repository", githubtest.Owner+"/"+githubtest.Repo); n != 0 || m != main {
		t.Errorf("after repo-1 left the scope: %d of its records searchable, %d of %s (want %d)", n, m, githubtest.Repo, main)
	}
}

// TestSyncDeletesNothingItDidNotRead: the reported data loss. A copy of a
// ticket's comments, then a sync of another ticket's comments into the same
// copy: refused before anything is read, naming both params, and the first
// ticket's comments are all still there.
func TestSyncDeletesNothingItDidNotRead(t *testing.T) {
	t.Parallel()
	fake := zendesktest.New()
	defer fake.Close()
	conn := openKind(t, kindCase{kind: "zendesk-support", creds: crashCreds, opts: zendeskOpts}, fake.URL)
	ctx := context.Background()
	page, err := conn.List(ctx, "tickets", nil)
	if err != nil || len(page.Records) < 2 {
		t.Fatalf("tickets: %v", err)
	}
	first, _ := page.Records[0].IntAt("id")
	second, _ := page.Records[1].IntAt("id")
	path := t.TempDir() + "/comments.db"
	sync := func(ticket int64) (*replica.Report, error) {
		r, err := replica.Open(ctx, conn, replica.SQLite(path), replica.WithParams("ticket_comments", tributary.Params{"ticket_id": ticket}))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		return r.Sync(ctx, "ticket_comments")
	}
	rep, err := sync(first)
	if err != nil {
		t.Fatal(err)
	}
	had := rep.Entities[0].Inserted
	if had == 0 {
		t.Fatalf("ticket %d has no comments in the fake", first)
	}
	fake.ResetRequests()
	_, err = sync(second)
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) || te.Entity != "ticket_comments" ||
		!strings.Contains(te.Message, "--name") || !strings.Contains(te.Message, `"ticket_id":`) {
		t.Fatalf("a sync of ticket %d into ticket %d's copy: %v, want ErrInvalidParams naming the params and the way out", second, first, err)
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("the refused sync sent %d requests", n)
	}
	// The same params again are fine, and the copy is whole.
	rep, err = sync(first)
	if err != nil {
		t.Fatal(err)
	}
	if e := rep.Entities[0]; e.Deleted != 0 || e.Inserted+e.Unchanged+e.Updated != had {
		t.Errorf("the first ticket's copy after the refusal: %+v, want %d records and no deletion", e, had)
	}
	// A copy of its own for the second ticket.
	r, err := replica.Open(ctx, conn, replica.SQLite(path), replica.WithName("ticket-2"), replica.WithParams("ticket_comments", tributary.Params{"ticket_id": second}))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Sync(ctx, "ticket_comments"); err != nil {
		t.Errorf("a copy of its own: %v", err)
	}
}

// TestFeedlessCopyReadInParts: an entity without a change feed (GitHub
// labels) copied in parts is walked in full, part after part, its records
// stamped with their part's fields; a part that leaves the scope has its
// records kept as deletions.
func TestFeedlessCopyReadInParts(t *testing.T) {
	t.Parallel()
	fake := githubtest.New()
	defer fake.Close()
	parts := []tributary.Part{repoPart(githubtest.Repo), repoPart("repo-2")}
	for _, p := range parts {
		delete(p.Params, "state") // labels have none
	}
	conn := scoped{Connector: openKind(t, kindCase{kind: "github", creds: map[string]any{"token": githubtest.DefaultToken}}, fake.URL),
		entity: "labels", parts: func() []tributary.Part { return parts }}
	ctx := context.Background()
	r, err := replica.Open(ctx, conn, replica.SQLite(t.TempDir()+"/labels.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Sync(ctx, "labels"); err != nil {
		t.Fatal(err)
	}
	other := searchCount(t, r, "labels", "repository", githubtest.Owner+"/repo-2")
	if other == 0 || searchCount(t, r, "labels", "repository", githubtest.Owner+"/"+githubtest.Repo) == 0 {
		t.Fatalf("labels of each repository: %d of repo-2", other)
	}
	parts = parts[:1]
	rep, err := r.Sync(ctx, "labels")
	if err != nil {
		t.Fatal(err)
	}
	if e := rep.Entities[0]; e.Mode != replica.Full || e.Deleted != int64(other) {
		t.Errorf("after repo-2 left the scope: %+v, want %d deleted", e, other)
	}
}

// TestPartIDs: branches are named alike in every repository; a copy keyed
// per part (Scope.PartIDs) keeps each repository's, where a copy keyed by
// the source's id alone keeps one of each name.
func TestPartIDs(t *testing.T) {
	t.Parallel()
	fake := githubtest.New()
	defer fake.Close()
	parts := []tributary.Part{repoPart(githubtest.Repo), repoPart("repo-1")}
	for _, p := range parts {
		delete(p.Params, "state")
	}
	ctx := context.Background()
	gh := openKind(t, kindCase{kind: "github", creds: map[string]any{"token": githubtest.DefaultToken}}, fake.URL)
	perRepo := 0
	for _, err := range tributary.All(ctx, gh, "branches", parts[0].Params) {
		if err != nil {
			t.Fatal(err)
		}
		perRepo++
	}
	for _, keyed := range []bool{false, true} {
		conn := scoped{Connector: gh, entity: "branches", partIDs: keyed, parts: func() []tributary.Part { return parts }}
		r, err := replica.Open(ctx, conn, replica.SQLite(t.TempDir()+"/branches.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if _, err := r.Sync(ctx, "branches"); err != nil {
			t.Fatal(err)
		}
		n := searchCount(t, r, "branches", "repository", githubtest.Owner+"/repo-1") + searchCount(t, r, "branches", "repository", githubtest.Owner+"/"+githubtest.Repo)
		if keyed && n != 2*perRepo {
			t.Errorf("keyed per part: %d branches in the copy, want %d", n, 2*perRepo)
		}
		if !keyed && n != perRepo {
			t.Errorf("keyed by name alone: %d branches, want %d (the premise of the test)", n, perRepo)
		}
		if keyed {
			res, err := r.Search(ctx, "branches", search.Request{Limit: 1})
			if err != nil || len(res.Hits) != 1 || !strings.HasPrefix(res.Hits[0].ID, githubtest.Owner+"/") {
				t.Errorf("a hit's id is the copy id: %+v, %v", res, err)
			}
		}
	}
}

// TestVersionedParts: a copy read in parts without a change feed (GitHub
// labels, one part per repository), whose parts carry a Version, is walked
// in full once; then a sync reads again only the parts whose version
// changed (its changed, new and deleted records written, nothing read of
// the others); a part that leaves the scope has its records kept as
// deletions by a full walk. The copy equals a fresh walk.
func TestVersionedParts(t *testing.T) {
	t.Parallel()
	fake := githubtest.New()
	defer fake.Close()
	version := map[string]string{githubtest.Repo: "v1", "repo-1": "v1"}
	repos := []string{githubtest.Repo, "repo-1"}
	parts := func() []tributary.Part {
		var out []tributary.Part
		for _, repo := range repos {
			out = append(out, tributary.Part{Key: githubtest.Owner + "/" + repo,
				Params:  tributary.Params{"owner": githubtest.Owner, "repo": repo},
				Fields:  map[string]any{"repository": githubtest.Owner + "/" + repo},
				Version: version[repo]})
		}
		return out
	}
	conn := scoped{Connector: openKind(t, kindCase{kind: "github", creds: map[string]any{"token": githubtest.DefaultToken}}, fake.URL),
		entity: "labels", parts: parts}
	ctx := context.Background()
	r, err := replica.Open(ctx, conn, replica.SQLite(t.TempDir()+"/versions.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sync := func() replica.EntityReport {
		t.Helper()
		rep, err := r.Sync(ctx, "labels")
		if err != nil {
			t.Fatal(err)
		}
		return rep.Entities[0]
	}
	first := sync()
	main, other := searchCount(t, r, "labels", "repository", githubtest.Owner+"/"+githubtest.Repo), searchCount(t, r, "labels", "repository", githubtest.Owner+"/repo-1")
	if first.Mode != replica.Full || main == 0 || other == 0 {
		t.Fatalf("first sync: %+v; %d labels of %s, %d of repo-1", first, main, githubtest.Repo, other)
	}
	if idle := sync(); idle.Mode != replica.Incremental || idle.Usage.Requests != 0 || idle.Inserted+idle.Updated+idle.Deleted != 0 {
		t.Errorf("no version changed: %+v, want nothing read", idle)
	}

	// The first repository's labels change, and so does its version.
	ids := fake.IDs("labels")
	if err := fake.Update("labels", ids[0]); err != nil {
		t.Fatal(err)
	}
	if err := fake.Delete("labels", ids[1]); err != nil {
		t.Fatal(err)
	}
	if _, err := fake.Create("labels"); err != nil {
		t.Fatal(err)
	}
	version[githubtest.Repo] = "v2"
	inc := sync()
	if inc.Mode != replica.Incremental || inc.Updated != 1 || inc.Deleted != 1 || inc.Inserted != 1 || inc.Usage.Requests != 1 {
		t.Errorf("after the first repository changed: %+v, want one request, 1 updated, 1 inserted, 1 deleted", inc)
	}
	if n := searchCount(t, r, "labels", "repository", githubtest.Owner+"/repo-1"); n != other {
		t.Errorf("repo-1 has %d labels, want %d", n, other)
	}
	fresh, err := replica.Open(ctx, conn, replica.SQLite(t.TempDir()+"/fresh.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if _, err := fresh.Sync(ctx, "labels"); err != nil {
		t.Fatal(err)
	}
	sameCopies(t, "github", "labels", r, fresh, nil)

	// repo-1 leaves the scope.
	repos = repos[:1]
	if e := sync(); e.Mode != replica.Full || e.Deleted != int64(other) || !strings.Contains(e.Reason, "left the copy's scope") {
		t.Errorf("after repo-1 left the scope: %+v, want a full walk deleting %d", e, other)
	}
}

// Usage counts the wrapped connector's requests.
func (s scoped) Usage() tributary.Usage { return s.Connector.(tributary.Metered).Usage() }
