package asana

import (
	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/pagination"
)

// Type is the connector_type of this kind.
const Type = "asana"

type (
	action = tributary.Action
	param  = tributary.Param
)

const (
	list      = tributary.ActionList
	get       = tributary.ActionGet
	search    = tributary.ActionSearch
	apiSearch = tributary.ActionAPISearch
	download  = tributary.ActionDownload
)

// MaxLimit is the most records a page of any list holds (limit).
const MaxLimit = 100

// Fields are the fields the connector asks for (opt_fields) when the
// caller names none, by entity: Asana's lists answer only gid,
// resource_type and name (a compact record) without them, and a copy
// needs its lists and gets to answer the same record. An attachment's
// download_url is left out: it expires in about two minutes.
var Fields = map[string]string{
	"workspaces": "name,email_domains,is_organization",
	"users":      "name,email,photo,workspaces",
	"teams":      "name,description,organization,permalink_url,visibility",
	"projects": "name,archived,color,notes,public,completed,completed_at,created_at,modified_at,due_on,start_on," +
		"owner,team,workspace,members,followers,permalink_url",
	"sections": "name,created_at,project",
	"tasks": "resource_subtype,name,notes,completed,completed_at,created_at,modified_at,due_on,due_at,start_on," +
		"assignee,assignee_status,num_subtasks,parent,projects,memberships,tags,followers,workspace,permalink_url",
	"stories":     "resource_subtype,type,text,created_at,created_by,target,is_pinned,is_edited",
	"tags":        "name,color,notes,created_at,workspace,permalink_url",
	"attachments": "resource_subtype,name,created_at,host,parent,size,permanent_url,view_url",
}

func str(name, doc string, enum ...string) param {
	return param{Name: name, Type: tributary.TypeString, Enum: enum, Doc: doc}
}

func req(name, doc string) param {
	return param{Name: name, Type: tributary.TypeString, Required: true, Doc: doc}
}

func flag(name, doc string) param { return param{Name: name, Type: tributary.TypeBoolean, Doc: doc} }

var (
	byOffset = pagination.Token{Param: "offset", Field: "next_page.offset"}
	limit    = param{Name: "limit", Type: tributary.TypeInteger, Min: tributary.Bound(1), Max: tributary.Bound(MaxLimit), PageSize: true,
		Doc: "records per page (1 to 100; 100 when omitted)"}
	offset    = str("offset", "the next_page.offset of the previous page (an opaque token)")
	optFields = str("opt_fields", "comma-separated fields to return (default: the catalogue's full set; Asana answers gid, resource_type and name without it)")
	workspace = str("workspace", "a workspace's gid")
	paged     = []param{limit, offset, optFields}
)

// withFields asks for the entity's fields where the caller names none.
func withFields(entity string) func(tributary.Params) tributary.Params {
	return func(p tributary.Params) tributary.Params {
		if _, ok := p["opt_fields"]; ok {
			return p
		}
		out := p.Clone()
		if out == nil {
			out = tributary.Params{}
		}
		out["opt_fields"] = Fields[entity]
		return out
	}
}

// pageDefaults asks for the entity's fields and, where the caller names no
// limit, for pages of MaxLimit: without a limit Asana answers every record
// at once, or 400 "The result is too large" past about a thousand.
func pageDefaults(entity string) func(tributary.Params) tributary.Params {
	fields := withFields(entity)
	return func(p tributary.Params) tributary.Params {
		p = fields(p)
		if _, ok := p["limit"]; !ok {
			p = p.Clone()
			p["limit"] = int64(MaxLimit)
		}
		return p
	}
}

// listRoute is an entity's list at path: GET, paged by offset, the
// records in data.
func listRoute(entity, path string) engine.Route {
	return engine.Route{Path: path, Records: "data", Paging: byOffset, Prepare: pageDefaults(entity)}
}

// rows are an entity's list and get routes: GET list (listRoute) and GET
// get (the record in data).
func rows(entity, listPath, getPath string) map[action][]engine.Route {
	return map[action][]engine.Route{
		list: {listRoute(entity, listPath)},
		get:  {{Path: getPath, Records: "data", Prepare: withFields(entity)}},
	}
}

// gets are the params of a get by the entity's gid param.
func gets(name, doc string) []param { return []param{req(name, doc), optFields} }

// Catalogue returns the project-management catalogue: every entity, its
// actions and their parameters, its searchable fields and its paging.
func Catalogue() []tributary.Entity { return engine.Catalogue(catalogue()) }

func catalogue() []engine.Entity {
	entity := engine.NewEntity
	teams := entity("teams", "Teams of an organization (a workspace that is an organization).", Team{},
		rows("teams", "/workspaces/{workspace_gid}/teams", "/teams/{team_gid}"),
		map[action][]param{list: append([]param{req("workspace_gid", "the organization's gid")}, paged...), get: gets("team_gid", "the team's gid")})
	teams.Scope = tributary.Parent{Entity: "workspaces", IDField: "gid", Param: "workspace_gid", Key: "workspace"}.Scope(
		"the teams of every workspace the user belongs to: one walk of GET /workspaces/{gid}/teams per workspace")

	projects := entity("projects", "Projects of the user's workspaces, archived ones included unless archived=false.", Project{},
		rows("projects", "/projects", "/projects/{project_gid}"),
		map[action][]param{
			list: append([]param{workspace, str("team", "a team's gid"), flag("archived", "only archived (true) or unarchived (false) projects")}, paged...),
			get:  gets("project_gid", "the project's gid"),
		})

	sections := entity("sections", "Sections of a project (a board's columns).", Section{},
		rows("sections", "/projects/{project_gid}/sections", "/sections/{section_gid}"),
		map[action][]param{list: append([]param{req("project_gid", "the project's gid")}, paged...), get: gets("section_gid", "the section's gid")})
	sections.Scope = tributary.Parent{Entity: "projects", IDField: "gid", Param: "project_gid", Key: "project"}.Scope(
		"the sections of every project: one walk of GET /projects/{gid}/sections per project")

	taskRoutes := rows("tasks", "/tasks", "/tasks/{task_gid}")
	taskRoutes[apiSearch] = []engine.Route{{Path: "/workspaces/{workspace_gid}/tasks/search", Records: "data", Prepare: withFields("tasks"), Rename: searchRename(), Tier: tierSearch}}
	tasks := entity("tasks", "Tasks of a project, section, tag, or of one assignee in a workspace; api_search is Asana's task search (premium workspaces only).", Task{}, taskRoutes,
		map[action][]param{
			list: append([]param{str("project", "a project's gid"), str("section", "a section's gid"), str("tag", "a tag's gid"),
				str("assignee", "a user's gid, or me (with workspace)"), workspace,
				str("completed_since", "only tasks incomplete or completed since this time (RFC 3339), or now"),
				str("modified_since", "only tasks modified since this time (RFC 3339)")}, paged...),
			get:       gets("task_gid", "the task's gid"),
			apiSearch: searchParams,
		})
	tasks.Rules = map[action]func(tributary.Params) (string, string){list: func(p tributary.Params) (string, string) {
		_, a := p["assignee"]
		_, w := p["workspace"]
		for _, k := range []string{"project", "section", "tag"} {
			if _, ok := p[k]; ok {
				return "", ""
			}
		}
		if !a || !w {
			return "project", "Asana lists tasks of a project, a section or a tag, or of an assignee in a workspace: give project (or section, tag, or assignee with workspace)"
		}
		return "", ""
	}}
	tasks.Feed, tasks.FeedRoute, tasks.Scope = taskFeed(), eventsRoute(), tasksScope()

	subtasks := entity("subtasks", "Subtasks of a task (each a task whose parent is it).", Task{},
		map[action][]engine.Route{
			list: {listRoute("tasks", "/tasks/{task_gid}/subtasks")},
			get:  {{Path: "/tasks/{task_gid}", Records: "data", Prepare: withFields("tasks")}},
		},
		map[action][]param{list: append([]param{req("task_gid", "the parent task's gid")}, paged...), get: gets("task_gid", "the subtask's gid")})
	subtasks.Scope = perTask("task_gid", "the subtasks of every task: one walk of GET /tasks/{gid}/subtasks per task")

	stories := entity("stories", "Comments on a task, and the changes Asana recorded on it (assigned, section changed, ...).", Story{},
		rows("stories", "/tasks/{task_gid}/stories", "/stories/{story_gid}"),
		map[action][]param{list: append([]param{req("task_gid", "the task's gid")}, paged...), get: gets("story_gid", "the story's gid")})
	stories.Scope = perTask("task_gid", "the stories of every task: one walk of GET /tasks/{gid}/stories per task")

	attachmentRoutes := rows("attachments", "/attachments", "/attachments/{attachment_gid}")
	attachmentRoutes[download] = []engine.Route{{Path: "/attachments/{attachment_gid}", FileURL: []string{"data", "download_url"},
		Prepare: func(p tributary.Params) tributary.Params {
			out := p.Clone()
			out["opt_fields"] = "download_url"
			return out
		}}}
	attachments := entity("attachments", "Files attached to a task (or a project, a project brief); download streams one, its download_url read right before (it lives about two minutes).", Attachment{}, attachmentRoutes,
		map[action][]param{
			list:     append([]param{req("parent", "the gid of the task, project or project brief the files are attached to")}, paged...),
			get:      gets("attachment_gid", "the attachment's gid"),
			download: {req("attachment_gid", "the attachment's gid"), {Name: "range_header", Type: tributary.TypeString, Doc: "byte range to download: bytes=<first>-<last>, bytes=<first>- or bytes=-<n>"}},
		})
	attachments.Scope = perTask("parent", "the attachments of every task: one walk of GET /attachments?parent={gid} per task")

	all := []engine.Entity{
		entity("workspaces", "Workspaces and organizations the user belongs to.", Workspace{},
			rows("workspaces", "/workspaces", "/workspaces/{workspace_gid}"),
			map[action][]param{list: paged, get: gets("workspace_gid", "the workspace's gid")}),
		entity("users", "Users of the user's workspaces (of one, with workspace; of a team, with team).", User{},
			rows("users", "/users", "/users/{user_gid}"),
			map[action][]param{list: append([]param{workspace, str("team", "a team's gid")}, paged...), get: gets("user_gid", "the user's gid, an email, or me")}),
		teams, projects, sections, tasks, subtasks, stories,
		entity("tags", "Tags of the user's workspaces.", Tag{},
			rows("tags", "/tags", "/tags/{tag_gid}"),
			map[action][]param{list: append([]param{workspace}, paged...), get: gets("tag_gid", "the tag's gid")}),
		attachments,
	}
	for i := range all {
		all[i].IDField = "gid"
	}
	return engine.DateTimes(all, "created_at", "modified_at", "completed_at", "due_at")
}

// searchParams are the params of Asana's task search
// (/workspaces/{workspace_gid}/tasks/search); a dotted name of Asana's is
// written with an underscore (assignee_any for assignee.any).
var searchParams = []param{
	req("workspace_gid", "the workspace to search"),
	str("text", "words in the task's name or description"),
	str("resource_subtype", "default_task, milestone or approval", "default_task", "milestone", "approval"),
	str("assignee_any", "comma-separated user gids (assignee.any)"),
	str("projects_any", "comma-separated project gids (projects.any)"),
	str("sections_any", "comma-separated section gids (sections.any)"),
	str("tags_any", "comma-separated tag gids (tags.any)"),
	flag("completed", "only completed (true) or incomplete (false) tasks"),
	flag("is_subtask", "only subtasks (true) or top-level tasks (false)"),
	str("modified_at_after", "only tasks modified after this time (modified_at.after, RFC 3339)"),
	str("created_at_before", "only tasks created before this time (created_at.before): the next page of a search sorted by created_at"),
	str("sort_by", "due_date, created_at, completed_at, likes or modified_at (the default)", "due_date", "created_at", "completed_at", "likes", "modified_at"),
	flag("sort_ascending", "ascending order (default: descending)"),
	{Name: "limit", Type: tributary.TypeInteger, Min: tributary.Bound(1), Max: tributary.Bound(MaxLimit), Doc: "results (1 to 100); search has no offset: page by created_at_before"},
	optFields,
}

// searchRename writes the search params' Asana names.
func searchRename() map[string]string {
	return map[string]string{"assignee_any": "assignee.any", "projects_any": "projects.any", "sections_any": "sections.any",
		"tags_any": "tags.any", "modified_at_after": "modified_at.after", "created_at_before": "created_at.before"}
}
