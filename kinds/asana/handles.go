package asana

import (
	"context"

	"github.com/tributary-dev/tributary"
)

// Page are the paging params every list takes; zero fields are not sent.
type Page struct {
	Limit     int    `param:"limit"`
	Offset    string `param:"offset"`
	OptFields string `param:"opt_fields"`
}

// TaskParams are the params of the tasks list: a project, section or tag,
// or an assignee with a workspace.
type TaskParams struct {
	Project        string `param:"project"`
	Section        string `param:"section"`
	Tag            string `param:"tag"`
	Assignee       string `param:"assignee"`
	Workspace      string `param:"workspace"`
	CompletedSince string `param:"completed_since"`
	ModifiedSince  string `param:"modified_since"`
	Limit          int    `param:"limit"`
	Offset         string `param:"offset"`
	OptFields      string `param:"opt_fields"`
}

// WorkspaceParams filter the lists of projects, users and tags.
type WorkspaceParams struct {
	Workspace string `param:"workspace"`
	Team      string `param:"team"`
	Archived  *bool  `param:"archived"`
	Limit     int    `param:"limit"`
	Offset    string `param:"offset"`
	OptFields string `param:"opt_fields"`
}

// Entity is a typed handle on one entity with a get by its gid.
type Entity[T, P any] struct {
	tributary.Handle[T, P]
	gidParam string
}

// Get reads the record with this gid.
func (e Entity[T, P]) Get(ctx context.Context, gid string) (T, error) {
	return e.Handle.Get(ctx, tributary.Params{e.gidParam: gid})
}

func entityOf[T, P any](c *Client, name, gidParam string) Entity[T, P] {
	return Entity[T, P]{Handle: tributary.Handle[T, P]{Conn: c, Entity: name}, gidParam: gidParam}
}

// Workspaces is the typed handle on workspaces.
func (c *Client) Workspaces() Entity[Workspace, Page] {
	return entityOf[Workspace, Page](c, "workspaces", "workspace_gid")
}

// Users is the typed handle on users.
func (c *Client) Users() Entity[User, WorkspaceParams] {
	return entityOf[User, WorkspaceParams](c, "users", "user_gid")
}

// Projects is the typed handle on projects.
func (c *Client) Projects() Entity[Project, WorkspaceParams] {
	return entityOf[Project, WorkspaceParams](c, "projects", "project_gid")
}

// Tags is the typed handle on tags.
func (c *Client) Tags() Entity[Tag, WorkspaceParams] {
	return entityOf[Tag, WorkspaceParams](c, "tags", "tag_gid")
}

// Tasks is the typed handle on tasks (Asana's task search: SearchTasks).
func (c *Client) Tasks() Entity[Task, TaskParams] {
	return entityOf[Task, TaskParams](c, "tasks", "task_gid")
}

// Teams is the typed handle on one organization's teams (params:
// workspace_gid).
func (c *Client) Teams() Entity[Team, tributary.Params] {
	return entityOf[Team, tributary.Params](c, "teams", "team_gid")
}

// Sections is the typed handle on one project's sections (params:
// project_gid).
func (c *Client) Sections() Entity[Section, tributary.Params] {
	return entityOf[Section, tributary.Params](c, "sections", "section_gid")
}

// Subtasks is the typed handle on one task's subtasks (params: task_gid).
func (c *Client) Subtasks() tributary.Handle[Task, tributary.Params] {
	return tributary.Handle[Task, tributary.Params]{Conn: c, Entity: "subtasks"}
}

// Stories is the typed handle on one task's stories (params: task_gid).
func (c *Client) Stories() Entity[Story, tributary.Params] {
	return entityOf[Story, tributary.Params](c, "stories", "story_gid")
}

// Attachments is the typed handle on the files attached to one task
// (params: parent); their bytes: Client.Download("attachments", ...).
func (c *Client) Attachments() Entity[Attachment, tributary.Params] {
	return entityOf[Attachment, tributary.Params](c, "attachments", "attachment_gid")
}

// SearchParams are the params of Asana's task search (api_search on
// tasks: premium workspaces only, another answers ErrForbidden saying so);
// zero fields are not sent. Asana's dotted names are written with an
// underscore (projects.any: ProjectsAny).
type SearchParams struct {
	// WorkspaceGID is required.
	WorkspaceGID    string `param:"workspace_gid"`
	Text            string `param:"text"`
	ResourceSubtype string `param:"resource_subtype"`
	AssigneeAny     string `param:"assignee_any"`
	ProjectsAny     string `param:"projects_any"`
	SectionsAny     string `param:"sections_any"`
	TagsAny         string `param:"tags_any"`
	Completed       *bool  `param:"completed"`
	IsSubtask       *bool  `param:"is_subtask"`
	ModifiedAtAfter string `param:"modified_at_after"`
	CreatedAtBefore string `param:"created_at_before"`
	SortBy          string `param:"sort_by"`
	SortAscending   bool   `param:"sort_ascending"`
	Limit           int    `param:"limit"`
	OptFields       string `param:"opt_fields"`
}

// SearchTasks runs Asana's task search: one answer of at most Limit tasks
// (Asana's search has no offset; page by CreatedAtBefore with SortBy
// created_at).
func (c *Client) SearchTasks(ctx context.Context, p SearchParams) ([]Task, error) {
	page, err := c.Tasks().APISearch(ctx, p)
	if err != nil {
		return nil, err
	}
	return page.Items, nil
}
