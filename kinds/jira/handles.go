package jira

import (
	"context"

	"github.com/tributary-dev/tributary"
)

// IssueParams are the params of issues.list and api_search: a JQL query
// (the default: every issue), the fields to return (the default in list:
// *all) and paging. Zero fields are not sent.
type IssueParams struct {
	JQL           string   `param:"jql"`
	Fields        []string `param:"fields"`
	Expand        string   `param:"expand"`
	MaxResults    int      `param:"maxResults"`
	NextPageToken string   `param:"nextPageToken"`
}

// Paging selects a page of a list paged by offset: StartAt (from 0) and
// MaxResults.
type Paging struct {
	StartAt    int `param:"startAt"`
	MaxResults int `param:"maxResults"`
}

// IssueChildParams are the params of the lists of one issue's comments,
// worklogs, changelogs and attachments.
type IssueChildParams struct {
	Paging
	// IssueIDOrKey is required: the issue's id or key.
	IssueIDOrKey string `param:"issueIdOrKey"`
}

// BoardChildParams are the params of sprints.list.
type BoardChildParams struct {
	Paging
	// BoardID is required.
	BoardID int64 `param:"boardId"`
	// State is future, active or closed (comma-separated for several).
	State string `param:"state"`
}

// Entity is a typed handle on one entity with a get by one id.
type Entity[T, P any] struct {
	tributary.Handle[T, P]
	idParam string
}

// Get reads the record with this id (or key).
func (e Entity[T, P]) Get(ctx context.Context, id string) (T, error) {
	return e.Handle.Get(ctx, tributary.Params{e.idParam: id})
}

func entityOf[T, P any](c *Client, name, idParam string) Entity[T, P] {
	return Entity[T, P]{Handle: tributary.Handle[T, P]{Conn: c, Entity: name}, idParam: idParam}
}

// Issues is the typed handle on issues (api_search: Client.APISearch).
func (c *Client) Issues() Entity[Issue, IssueParams] {
	return entityOf[Issue, IssueParams](c, "issues", "issueIdOrKey")
}

// Projects is the typed handle on projects.
func (c *Client) Projects() Entity[Project, Paging] {
	return entityOf[Project, Paging](c, "projects", "projectIdOrKey")
}

// Users is the typed handle on users (Get by account id).
func (c *Client) Users() Entity[User, Paging] { return entityOf[User, Paging](c, "users", "accountId") }

// Fields is the typed handle on issue_fields.
func (c *Client) Fields() tributary.Handle[Field, tributary.Params] {
	return tributary.Handle[Field, tributary.Params]{Conn: c, Entity: "issue_fields"}
}

// Comments is the typed handle on issue_comments.
func (c *Client) Comments() tributary.Handle[Comment, IssueChildParams] {
	return tributary.Handle[Comment, IssueChildParams]{Conn: c, Entity: "issue_comments"}
}

// Worklogs is the typed handle on issue_worklogs.
func (c *Client) Worklogs() tributary.Handle[Worklog, IssueChildParams] {
	return tributary.Handle[Worklog, IssueChildParams]{Conn: c, Entity: "issue_worklogs"}
}

// Changelogs is the typed handle on issue_changelogs.
func (c *Client) Changelogs() tributary.Handle[Changelog, IssueChildParams] {
	return tributary.Handle[Changelog, IssueChildParams]{Conn: c, Entity: "issue_changelogs"}
}

// Transitions is the typed handle on issue_transitions.
func (c *Client) Transitions() tributary.Handle[Transition, IssueChildParams] {
	return tributary.Handle[Transition, IssueChildParams]{Conn: c, Entity: "issue_transitions"}
}

// Attachments is the typed handle on issue_attachments (Get by id;
// Download for the content).
func (c *Client) Attachments() Entity[Attachment, IssueChildParams] {
	return entityOf[Attachment, IssueChildParams](c, "issue_attachments", "id")
}

// Statuses is the typed handle on statuses (Get by id or name).
func (c *Client) Statuses() Entity[Status, tributary.Params] {
	return entityOf[Status, tributary.Params](c, "statuses", "idOrName")
}

// Priorities is the typed handle on priorities.
func (c *Client) Priorities() Entity[Priority, tributary.Params] {
	return entityOf[Priority, tributary.Params](c, "priorities", "id")
}

// IssueTypes is the typed handle on issue_types.
func (c *Client) IssueTypes() Entity[IssueType, tributary.Params] {
	return entityOf[IssueType, tributary.Params](c, "issue_types", "id")
}

// Boards is the typed handle on boards.
func (c *Client) Boards() Entity[Board, Paging] {
	return entityOf[Board, Paging](c, "boards", "boardId")
}

// Sprints is the typed handle on sprints.
func (c *Client) Sprints() Entity[Sprint, BoardChildParams] {
	return entityOf[Sprint, BoardChildParams](c, "sprints", "sprintId")
}
