package linear

import (
	"context"
	"iter"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/pagination"
)

// ListParams are the arguments of every list (Linear's connections). Zero
// fields are not sent.
type ListParams struct {
	// First is the page size, 1 to 250 (Linear's default 50).
	First int `param:"first"`
	// After is the previous page's pageInfo.endCursor.
	After string `param:"after"`
	// Filter is Linear's filter of the entity's type (IssueFilter, ...):
	// {"team": {"key": {"eq": "ENG"}}}.
	Filter map[string]any `param:"filter"`
	// OrderBy is "createdAt" (the default) or "updatedAt", newest first.
	OrderBy string `param:"orderBy"`
	// IncludeArchived lists archived records (and trashed issues) too.
	IncludeArchived bool `param:"includeArchived"`
}

// UserListParams are the arguments of the users list.
type UserListParams struct {
	ListParams
	// IncludeDisabled lists deactivated users too.
	IncludeDisabled bool `param:"includeDisabled"`
}

// SearchParams are the arguments of Linear's issue search (searchIssues).
type SearchParams struct {
	// Term is the text searched (required).
	Term string `param:"term"`
	// IncludeComments searches the issues' comments too.
	IncludeComments bool `param:"includeComments"`
	// TeamID ranks the issues of this team first.
	TeamID string `param:"teamId"`
	ListParams
}

// IssueEntity is the typed handle on issues, with Linear's search. Its
// GetID takes an issue's id or its identifier (ENG-123).
type IssueEntity struct {
	tributary.Handle[Issue, ListParams]
}

// Search reads one page of Linear's issue search (api_search).
func (e IssueEntity) Search(ctx context.Context, p SearchParams) (*pagination.Page[Issue], error) {
	return e.APISearch(ctx, p)
}

// SearchAll yields every issue the search finds, page after page.
func (e IssueEntity) SearchAll(ctx context.Context, p SearchParams) iter.Seq2[Issue, error] {
	return e.APISearchAll(ctx, p)
}

// handle is the typed handle on an entity: List, Pager, All, and GetID.
func handle[T, P any](c *Client, name string) tributary.Handle[T, P] {
	return tributary.Handle[T, P]{Conn: c, Entity: name}
}

// Issues is the typed handle on issues.
func (c *Client) Issues() IssueEntity { return IssueEntity{handle[Issue, ListParams](c, "issues")} }

// Projects is the typed handle on projects.
func (c *Client) Projects() tributary.Handle[Project, ListParams] {
	return handle[Project, ListParams](c, "projects")
}

// Teams is the typed handle on teams.
func (c *Client) Teams() tributary.Handle[Team, ListParams] {
	return handle[Team, ListParams](c, "teams")
}

// Users is the typed handle on users.
func (c *Client) Users() tributary.Handle[User, UserListParams] {
	return handle[User, UserListParams](c, "users")
}

// Comments is the typed handle on comments.
func (c *Client) Comments() tributary.Handle[Comment, ListParams] {
	return handle[Comment, ListParams](c, "comments")
}

// WorkflowStates is the typed handle on workflow_states.
func (c *Client) WorkflowStates() tributary.Handle[WorkflowState, ListParams] {
	return handle[WorkflowState, ListParams](c, "workflow_states")
}

// Cycles is the typed handle on cycles.
func (c *Client) Cycles() tributary.Handle[Cycle, ListParams] {
	return handle[Cycle, ListParams](c, "cycles")
}

// Labels is the typed handle on labels.
func (c *Client) Labels() tributary.Handle[Label, ListParams] {
	return handle[Label, ListParams](c, "labels")
}

// Attachments is the typed handle on attachments.
func (c *Client) Attachments() tributary.Handle[Attachment, ListParams] {
	return handle[Attachment, ListParams](c, "attachments")
}
