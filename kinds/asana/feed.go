package asana

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"slices"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/pagination"
)

// eventsRoute reads GET /events?resource=…&sync=…: at most 100 events a
// page, has_more while more wait, each page naming the sync token to go
// on from. Only the events of tasks are kept (a project's events also
// tell of its stories, sections and attachments).
func eventsRoute() *engine.Route {
	return &engine.Route{Path: "/events", Records: "data",
		Paging: pagination.Token{Param: "sync", Field: "sync", More: "has_more"},
		Keep: func(_ tributary.Params, r tributary.Record) bool {
			t, _ := r.StringAt("resource.resource_type")
			return t == "task"
		}}
}

// taskFeed is Asana's events on a project: the first call (and any call
// with a token Asana no longer knows, after 24 hours or sooner) answers
// 412 with a fresh sync token, and the copy is then walked in full once;
// a pass reads the events since the token. An event names a task by its
// gid and name only, so the tasks of a pass's changes are read again
// with one list of the project's tasks modified since its first event
// (up to 50 pages of events a list), and those the list did not return
// (a task moved or added into the project: Asana does not move
// modified_at for a change of container) one by one with GET
// /tasks/{gid}; a task deleted, or removed from the project, is a
// deletion of the project's part.
func taskFeed() *tributary.Feed {
	return &tributary.Feed{
		Doc: "Asana's events on each project: GET /events?resource={project}&sync=…; the first call and an expired token (412, with a fresh token) walk the project in full; " +
			"changed tasks read again by GET /tasks?project=…&modified_since=…, and those it does not return (moved or added into the project) by GET /tasks/{gid}; " +
			"deleted tasks, and tasks removed from the project, are deletions",
		Params: func(base tributary.Params, _ time.Time) tributary.Params {
			return tributary.Params{"resource": base["project"]}
		},
		Check: func(base tributary.Params) (string, string) {
			if _, ok := base["project"]; !ok {
				return "project", "Asana's events follow one project: copy the tasks of a project (project), or copy tasks without params (every project, each with its events)"
			}
			for _, k := range []string{"section", "tag", "assignee", "completed_since", "modified_since"} {
				if _, ok := base[k]; ok {
					return k, "Asana's events follow a whole project: copy the project's tasks without " + k + ", and search the copy"
				}
			}
			return "", ""
		},
		Token:  &tributary.TokenFeed{Param: "sync", New: "sync", Expired: []int{http.StatusPreconditionFailed}, ExpiredToken: "sync"},
		Unwrap: "resource",
		Reread: &tributary.Reread{Param: "modified_since", At: "created_at", Get: "task_gid", Member: inProject},
		Deleted: func(r tributary.Record) bool {
			a, _ := r.StringAt("action")
			parent, _ := r.StringAt("parent.resource_type")
			return a == "deleted" || (a == "removed" && parent == "project")
		},
	}
}

// inProject reports whether task t, read by its gid, is in the project
// of a copy's params: a project's events also tell of subtasks, which
// are in no project unless added to one.
func inProject(base tributary.Params, t tributary.Record) bool {
	raw, _ := t.Lookup("projects")
	var ps []Ref
	if json.Unmarshal(raw, &ps) != nil {
		return false
	}
	return slices.ContainsFunc(ps, func(p Ref) bool { return p.GID == base["project"] })
}

// projectParts yields a part per project the user can see.
func projectParts(ctx context.Context, c tributary.Connector, yield func(tributary.Part, error) bool) bool {
	for p, err := range tributary.All(ctx, c, "projects", tributary.Params{"limit": int64(MaxLimit), "opt_fields": "gid"}) {
		if err != nil {
			yield(tributary.Part{}, err)
			return false
		}
		if gid, ok := p.StringAt("gid"); ok && !yield(tributary.Part{Key: "project " + gid, Params: tributary.Params{"project": gid}}, nil) {
			return false
		}
	}
	return true
}

// perTask copies a child of tasks one part per task of every project,
// param taking the task's gid, each part versioned by the task's
// modified_at: a sync lists the tasks (gid and modified_at, 100 a
// request) and reads again the children of the tasks whose modified_at
// moved. Asana does not move it for every change of a child (a comment
// added), so such a change waits for a task's next edit. A task in
// several projects is one part, under the first that lists it.
func perTask(param, doc string) *tributary.Scope {
	return &tributary.Scope{
		Doc: doc + "; read again for the tasks whose modified_at moved",
		Parts: func(ctx context.Context, c tributary.Connector, _ map[string]any) iter.Seq2[tributary.Part, error] {
			return func(yield func(tributary.Part, error) bool) {
				seen := map[string]bool{}
				projectParts(ctx, c, func(pp tributary.Part, err error) bool {
					if err != nil {
						yield(tributary.Part{}, err)
						return false
					}
					p := tributary.Params{"project": pp.Params["project"], "limit": int64(MaxLimit), "opt_fields": "gid,modified_at"}
					for t, err := range tributary.All(ctx, c, "tasks", p) {
						if err != nil {
							yield(tributary.Part{}, err)
							return false
						}
						gid, _ := t.StringAt("gid")
						if seen[gid] {
							continue
						}
						seen[gid] = true
						at, _ := t.StringAt("modified_at")
						if !yield(tributary.Part{Key: "task " + gid, Params: tributary.Params{param: gid}, Fields: map[string]any{"task_gid": gid}, Version: at}, nil) {
							return false
						}
					}
					return true
				})
			}
		},
	}
}

// tasksScope copies the tasks of every project the user can see, one part
// per project, each kept current by the project's own events. A task in
// two projects is in both parts, keyed by the part and its gid
// (PartIDs): removed from one project, it stays in the other's.
func tasksScope() *tributary.Scope {
	return &tributary.Scope{
		PartIDs: true,
		Doc: "the tasks of every project of the user's workspaces (GET /projects), one part per project, each kept current from the project's events; " +
			"a task in several projects is in the copy once per project",
		Parts: func(ctx context.Context, c tributary.Connector, _ map[string]any) iter.Seq2[tributary.Part, error] {
			return func(yield func(tributary.Part, error) bool) { projectParts(ctx, c, yield) }
		},
	}
}
