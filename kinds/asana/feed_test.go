package asana_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/asana"
	"github.com/tributary-dev/tributary/kinds/asana/asanatest"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/search"
)

// open connects to the fake in-process, without pacing.
func open(t *testing.T, s *asanatest.Server, opts ...tributary.Option) *asana.Client {
	t.Helper()
	c, err := asana.New(asana.Credentials{Token: asanatest.DefaultToken}, append([]tributary.Option{tributary.WithBaseURL(s.URL),
		tributary.WithHTTPClient(&http.Client{Transport: s.Transport()}), tributary.WithoutPacing()}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func inCopy(t *testing.T, r *replica.Replica, gid string) (tributary.Record, bool) {
	t.Helper()
	hits := hitsOf(t, r, gid)
	if len(hits) != 1 {
		return tributary.Record{}, false
	}
	return tributary.NewRecord(hits[0].Data), true
}

// hitsOf returns the copy's records of task gid, one per project.
func hitsOf(t *testing.T, r *replica.Replica, gid string) []search.Hit {
	t.Helper()
	res, err := r.Search(context.Background(), "tasks", search.Request{Query: search.Query{Filter: search.Eq("gid", gid).Ptr()}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Hits
}

// tasksCopy opens a copy of the fake's tasks, and a sync of it that
// starts the fake's request log afresh.
func tasksCopy(t *testing.T, s *asanatest.Server) (*replica.Replica, func() replica.EntityReport) {
	t.Helper()
	r, err := replica.Open(context.Background(), open(t, s), replica.SQLite(t.TempDir()+"/asana.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, func() replica.EntityReport {
		t.Helper()
		s.ResetRequests()
		rep, err := r.Sync(context.Background(), "tasks")
		if err != nil {
			t.Fatal(err)
		}
		return rep.Entities[0]
	}
}

// countPaths counts the fake's requests by path, and the events requests
// by their answer: with a sync token or without one.
func countPaths(s *asanatest.Server) map[string]int {
	out := map[string]int{}
	for _, r := range s.Requests() {
		k := r.Path
		if k == "/events" && r.Query.Get("sync") == "" {
			k += " (no sync)"
		}
		out[k]++
	}
	return out
}

// The 412 dance of Asana's events: the first sync asks each project's
// events without a token, is answered 412 with one, and walks the
// project's tasks; the second reads the events from the token (one
// request per project), reads the changed tasks again (one list of the
// project modified since), and keeps a deleted task and one removed from
// its project as deletions; a token Asana forgot, or one older than 24
// hours, walks the copy in full again from a fresh token.
func TestEventsFeed(t *testing.T) {
	s := asanatest.New(asanatest.WithProjects(2), asanatest.WithTasks(250))
	defer s.Close()
	r, sync := tasksCopy(t, s)
	first := sync()
	n := countPaths(s)
	if first.Mode != replica.Full || first.Inserted != 250 || n["/events (no sync)"] != 2 || n["/events"] != 0 || n["/tasks"] != 2+2 || n["/projects"] != 1 {
		t.Fatalf("first sync %+v, requests %v", first, n)
	}
	for _, q := range s.Requests() {
		if q.Path == "/tasks" && (q.Query.Get("opt_fields") != asana.Fields["tasks"] || q.Query.Get("limit") != "100") {
			t.Errorf("tasks listed with %v, want the catalogue's opt_fields and limit 100", q.Query)
		}
	}

	s.Clock().Advance(time.Minute)
	created, _ := s.Create("tasks")
	ids := s.IDs("tasks")
	edited := ids[4]
	must(t, s.Update("tasks", edited))
	deleted := ids[7]
	must(t, s.Delete("tasks", deleted))
	second := sync()
	n = countPaths(s)
	if second.Mode != replica.Incremental || second.Inserted != 1 || second.Updated != 1 || second.Deleted != 1 || n["/events"] != 2 || n["/tasks"] != 1 {
		t.Fatalf("second sync %+v, requests %v", second, n)
	}
	if rec, ok := inCopy(t, r, edited); !ok || !strings.HasPrefix(stringAt(rec, "notes"), "Edited at") {
		t.Errorf("the edited task in the copy: %s (the whole record, read again, not the event's compact one)", rec.Raw())
	}
	if _, ok := inCopy(t, r, created); !ok {
		t.Errorf("the created task %s is not in the copy", created)
	}
	if _, ok := inCopy(t, r, deleted); ok {
		t.Errorf("the deleted task %s is still in the copy", deleted)
	}

	// Nothing changed: one events request per project, nothing else.
	if third := sync(); third.Mode != replica.Incremental || len(s.Requests()) != 1+2 {
		t.Errorf("a sync with nothing changed: %+v, %d requests (want the projects and two events)", third, len(s.Requests()))
	}

	// A forgotten token and one older than 24 hours: 412, a full walk.
	for name, expire := range map[string]func(){"forgotten": s.ForgetTokens, "old": func() { s.Clock().Advance(25 * time.Hour) }} {
		expire()
		rep := sync()
		n = countPaths(s)
		if rep.Mode != replica.Full || n["/tasks"] != 4 || n["/events"]+n["/events (no sync)"] < 2 {
			t.Errorf("%s token: %+v, requests %v", name, rep, n)
		}
		if again := sync(); again.Mode != replica.Incremental {
			t.Errorf("%s token: the sync after the walk is %s (%s)", name, again.Mode, again.Reason)
		}
	}
}

func stringAt(r tributary.Record, field string) string {
	v, _ := r.StringAt(field)
	return v
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// partsOf returns the parts (the copy's ids less the gid: "project
// <gid>") under which the copy holds task gid, sorted.
func partsOf(t *testing.T, r *replica.Replica, gid string) []string {
	t.Helper()
	var out []string
	for _, h := range hitsOf(t, r, gid) {
		out = append(out, strings.TrimSuffix(h.ID, " "+gid))
	}
	slices.Sort(out)
	return out
}

// A task moved into a project, or added to a second one, keeps its
// modified_at, as in Asana: the list by modified_since does not return
// it, so the copy reads it by its gid at the next sync (one request each),
// into the new project's part; the project it left deletes it from its
// own part only, and a task in two projects taken out of one of them
// stays in the copy under the other.
func TestTaskMovedBetweenProjects(t *testing.T) {
	s := asanatest.New(asanatest.WithProjects(2), asanatest.WithTasks(10))
	defer s.Close()
	r, sync := tasksCopy(t, s)
	sync()
	a, b := "project "+asanatest.GID("project", 0), "project "+asanatest.GID("project", 1)
	moved, shared := asanatest.GID("task", 0), asanatest.GID("task", 2) // both in the first project
	if got := partsOf(t, r, moved); !slices.Equal(got, []string{a}) {
		t.Fatalf("before the move, task %s is in %v, want [%s]", moved, got, a)
	}

	s.Clock().Advance(time.Minute)
	must(t, s.MoveToProject(moved, asanatest.GID("project", 0), asanatest.GID("project", 1)))
	must(t, s.AddToProject(shared, asanatest.GID("project", 1)))
	rep := sync()
	if got := partsOf(t, r, moved); !slices.Equal(got, []string{b}) {
		t.Errorf("the moved task %s is in %v, want [%s] (report %+v)", moved, got, b, rep)
	}
	if got := partsOf(t, r, shared); !slices.Equal(got, []string{a, b}) {
		t.Errorf("the task %s added to a second project is in %v, want [%s %s]", shared, got, a, b)
	}
	if n := countPaths(s); n["/tasks/"+moved] != 1 || n["/tasks/"+shared] != 1 {
		t.Errorf("requests %v, want each task the list did not return read once by its gid", n)
	}
	rec, _ := inCopyUnder(t, r, b, moved)
	if ps := stringsAt(rec, "projects"); !slices.Equal(ps, []string{asanatest.GID("project", 1)}) {
		t.Errorf("the moved task's projects in the copy: %v, want the new project's alone (read again, not the event's record)", ps)
	}

	s.Clock().Advance(time.Minute)
	must(t, s.RemoveFromProject(shared, asanatest.GID("project", 0)))
	rep = sync()
	if got := partsOf(t, r, shared); !slices.Equal(got, []string{b}) {
		t.Errorf("the task %s taken out of one of its two projects is in %v, want [%s] (report %+v)", shared, got, b, rep)
	}
	if rep.Deleted != 1 {
		t.Errorf("report %+v, want the one deletion of the project it left", rep)
	}
}

// inCopyUnder returns the copy's record of task gid in part.
func inCopyUnder(t *testing.T, r *replica.Replica, part, gid string) (tributary.Record, bool) {
	t.Helper()
	for _, h := range hitsOf(t, r, gid) {
		if h.ID == part+" "+gid {
			return tributary.NewRecord(h.Data), true
		}
	}
	return tributary.Record{}, false
}

// stringsAt returns the gids of the objects of an array field.
func stringsAt(r tributary.Record, field string) []string {
	var out []string
	raw, _ := r.Lookup(field)
	var arr []struct {
		GID string `json:"gid"`
	}
	_ = json.Unmarshal(raw, &arr)
	for _, x := range arr {
		out = append(out, x.GID)
	}
	return out
}

// A task in two projects is listed under both: the copies of the
// children of tasks (a part per task) read its stories once, not a
// repeated part.
func TestChildrenOfATaskInTwoProjects(t *testing.T) {
	ctx := context.Background()
	s := asanatest.New(asanatest.WithProjects(2), asanatest.WithTasks(4))
	defer s.Close()
	task := asanatest.GID("task", 0)
	must(t, s.AddToProject(task, asanatest.GID("project", 1)))
	r, _ := tasksCopy(t, s)
	if _, err := r.Sync(ctx, "stories"); err != nil {
		t.Fatal(err)
	}
	if n := countPaths(s)["/tasks/"+task+"/stories"]; n != 1 {
		t.Errorf("the stories of the task in two projects read %d times, want once", n)
	}
}
