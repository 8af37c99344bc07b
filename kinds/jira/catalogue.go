package jira

import (
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/pagination"
)

// Type is the connector_type of this kind.
const Type = "jira"

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

// Paging maxima: a JQL search returns at most MaxSearchResults issues a
// page (when it asks for ids only; fewer when it asks for many fields),
// the changed-worklogs feeds and the worklog list 1000.
const (
	MaxSearchResults = 5000
	MaxWorklogIDs    = 1000
)

func str(name, doc string, enum ...string) param {
	return param{Name: name, Type: tributary.TypeString, Enum: enum, Doc: doc}
}

func req(name, doc string) param {
	return param{Name: name, Type: tributary.TypeString, Required: true, Doc: doc}
}

func num(name, doc string) param {
	return param{Name: name, Type: tributary.TypeInteger, Min: tributary.Bound(0), Doc: doc}
}

func id(name, doc string) param {
	return param{Name: name, Type: tributary.TypeInteger, Required: true, Min: tributary.Bound(1), Doc: doc}
}

func flag(name, doc string) param { return param{Name: name, Type: tributary.TypeBoolean, Doc: doc} }

func strs(name, doc string) param {
	return param{Name: name, Type: tributary.TypeArray, Items: &param{Type: tributary.TypeString}, Doc: doc}
}

func size(max float64, doc string) param {
	p := param{Name: "maxResults", Type: tributary.TypeInteger, Min: tributary.Bound(1), PageSize: true, Doc: doc}
	if max > 0 {
		p.Max = tributary.Bound(max)
	}
	return p
}

var (
	startAt     = num("startAt", "index of the first record to return, from 0")
	issueID     = req("issueIdOrKey", "the issue's id or key (ABC-123)")
	expand      = str("expand", "comma-separated expansions the endpoint documents")
	rangeHeader = param{Name: "range_header", Type: tributary.TypeString, Doc: "byte range to download: bytes=<first>-<last>, bytes=<first>- or bytes=-<n>"}
	offset      = pagination.OffsetTotal{OffsetParam: "startAt", TotalField: "total", LastField: "isLast"}
	byToken     = pagination.Token{Param: "nextPageToken", Field: "nextPageToken", Last: "isLast"}
	searchBody  = []param{
		req("jql", "a bounded JQL query (with a search restriction: project = ABC, updated >= -1d, ...)"),
		str("nextPageToken", "the nextPageToken of the previous page"),
		size(MaxSearchResults, "issues per page (default 50; at most 5000 with ids only, fewer when many fields are asked for)"),
		strs("fields", "the fields to return: *all, *navigable, id, or field ids (-name excludes one); the default is id only"),
		expand, strs("properties", "up to 5 issue properties to include"),
		flag("fieldsByKeys", "reference fields by key rather than id"), flag("failFast", "fail early when a field cannot be read"),
		{Name: "reconcileIssues", Type: tributary.TypeArray, Items: &param{Type: tributary.TypeInteger}, Doc: "issue ids (at most 50) read with read-after-write consistency"},
	}
	issueGet = []param{issueID, strs("fields", "the fields to return (default all)"), flag("fieldsByKeys", "reference fields by key"),
		expand, strs("properties", "issue properties to include"), flag("updateHistory", "add the issue to the user's history"), flag("failFast", "fail early when a field cannot be read")}
)

// route is a GET of path whose records are at records, paged by p.
func route(path, records string, p pagination.Style) []engine.Route {
	return []engine.Route{{Path: path, Records: records, Paging: p}}
}

// entity builds a catalogue entity (engine.NewEntity): its routes by
// action, search added with the searchable fields when record is not nil.
var entity = engine.NewEntity

// Catalogue returns the issue-tracking catalogue: every entity, its
// actions and their parameters, its searchable fields and its paging.
func Catalogue() []tributary.Entity { return engine.Catalogue(catalogue()) }

func catalogue() []engine.Entity {
	issues := entity("issues", "Issues, found with JQL (list and api_search read POST or GET /rest/api/3/search/jql).", Issue{},
		map[action][]engine.Route{
			list:      {{Path: "/rest/api/3/search/jql", Records: "issues", Paging: byToken, Prepare: defaultSearch}},
			get:       route("/rest/api/3/issue/{issueIdOrKey}", "", nil),
			apiSearch: {{Method: "POST", Path: "/rest/api/3/search/jql", Records: "issues", Paging: byToken, Body: true}},
		},
		map[action][]param{
			list: append([]param{str("jql", "a bounded JQL query; default "+defaultJQL+": every issue the user can browse"), searchBody[1], searchBody[2],
				strs("fields", "the fields to return: *all (the default here), *navigable, id, or field ids")}, searchBody[4:]...),
			get:       issueGet,
			apiSearch: searchBody,
		},
		tributary.Field{Name: "fields.summary", Type: tributary.TypeString}, tributary.Field{Name: "fields.status.name", Type: tributary.TypeString},
		tributary.Field{Name: "fields.project.key", Type: tributary.TypeString}, tributary.Field{Name: "fields.issuetype.name", Type: tributary.TypeString},
		tributary.Field{Name: "fields.priority.name", Type: tributary.TypeString}, tributary.Field{Name: "fields.assignee.accountId", Type: tributary.TypeString},
		tributary.Field{Name: "fields.reporter.accountId", Type: tributary.TypeString}, tributary.Field{Name: "fields.labels", Type: tributary.TypeArray},
		tributary.Field{Name: "fields.created", Type: tributary.TypeDateTime}, tributary.Field{Name: "fields.updated", Type: tributary.TypeDateTime},
		tributary.Field{Name: "fields.resolutiondate", Type: tributary.TypeDateTime})
	issues.Feed = issueFeed()

	comments := entity("issue_comments", "Comments of one issue.", Comment{},
		map[action][]engine.Route{
			list: route("/rest/api/3/issue/{issueIdOrKey}/comment", "comments", offset),
			get:  route("/rest/api/3/issue/{issueIdOrKey}/comment/{id}", "", nil),
		},
		map[action][]param{
			list: {issueID, startAt, size(0, "comments per page (default 100)"), str("orderBy", "order by created date", "created", "-created", "+created"), expand},
			get:  {issueID, req("id", "comment id"), expand},
		})
	comments.Scope = tributary.Parent{Entity: "issues", IDField: "id", Param: "issueIdOrKey", Field: "issueId", Key: "issue"}.Scope(
		"the comments of every issue: one walk of GET /rest/api/3/issue/{issueIdOrKey}/comment per issue, each comment with its issueId; then only those of issues the JQL feed shows updated")

	worklogs := entity("issue_worklogs", "Worklogs (time logged) of one issue.", Worklog{},
		map[action][]engine.Route{
			list: route("/rest/api/3/issue/{issueIdOrKey}/worklog", "worklogs", offset),
			get:  route("/rest/api/3/issue/{issueIdOrKey}/worklog/{id}", "", nil),
		},
		map[action][]param{
			list: {issueID, startAt, size(5000, "worklogs per page (default and most 5000)"),
				num("startedAfter", "only worklogs started at or after this Unix time in ms"), num("startedBefore", "only worklogs started before this Unix time in ms"), expand},
			get: {issueID, req("id", "worklog id"), expand},
		})
	worklogs.Scope = tributary.Parent{Entity: "issues", IDField: "id", Param: "issueIdOrKey", Field: "issueId", Key: "issue"}.Scope(
		"the worklogs of every issue: one walk of GET /rest/api/3/issue/{issueIdOrKey}/worklog per issue; a durable copy is read and kept from Jira's changed and deleted worklog feeds instead")
	worklogs.Feed, worklogs.FeedRoute, worklogs.DeletionsRoute = worklogFeed()

	users := entity("users", "Users: every Atlassian account of the site, apps included.", User{},
		map[action][]engine.Route{
			list: route("/rest/api/3/users/search", "", pagination.OffsetTotal{OffsetParam: "startAt", SizeParam: "maxResults"}),
			get:  route("/rest/api/3/user", "", nil),
		},
		map[action][]param{
			list: {startAt, size(1000, "users per page (default 50, at most 1000); a shorter page is the last")},
			get:  {req("accountId", "the user's account id"), expand},
		})
	users.IDField = "accountId"

	attachments := entity("issue_attachments", "Files attached to an issue: metadata, and their content (download).", nil,
		map[action][]engine.Route{
			list:     {{Path: "/rest/api/3/issue/{issueIdOrKey}", Records: "fields.attachment", Prepare: attachmentFields}},
			get:      route("/rest/api/3/attachment/{id}", "", nil),
			download: route("/rest/api/3/attachment/content/{id}", "", nil),
		},
		map[action][]param{
			list:     {issueID},
			get:      {req("id", "attachment id")},
			download: {req("id", "attachment id"), rangeHeader},
		})

	return engine.DateTimes([]engine.Entity{
		issues,
		entity("projects", "Projects the user can see.", Project{},
			map[action][]engine.Route{
				list: route("/rest/api/3/project/search", "values", offset),
				get:  route("/rest/api/3/project/{projectIdOrKey}", "", nil),
			},
			map[action][]param{
				list: {startAt, size(100, "projects per page (default 50, at most 100)"), str("orderBy", "sort field, - for descending", "category", "-category", "+category", "key", "-key", "+key", "name", "-name", "+name", "owner", "-owner", "+owner", "issueCount", "-issueCount", "+issueCount", "lastIssueUpdatedDate", "-lastIssueUpdatedDate", "+lastIssueUpdatedDate", "archivedDate", "+archivedDate", "-archivedDate", "deletedDate", "+deletedDate", "-deletedDate"),
					strs("keys", "only these project keys"), str("query", "only projects whose key or name contains this"), str("typeKey", "only projects of these types (comma-separated)"),
					num("categoryId", "only projects of this category"), str("action", "only projects the user can act on so", "view", "browse", "edit", "create"),
					expand, strs("status", "only projects of these statuses (live, archived, deleted)")},
				get: {req("projectIdOrKey", "the project's id or key"), expand, strs("properties", "project properties to include")},
			}),
		users,
		entity("issue_fields", "Issue fields, system and custom.", nil,
			map[action][]engine.Route{list: route("/rest/api/3/field", "", nil)}, map[action][]param{list: nil}),
		comments, worklogs,
		entity("issue_changelogs", "The change history of one issue.", nil,
			map[action][]engine.Route{list: route("/rest/api/3/issue/{issueIdOrKey}/changelog", "values", offset)},
			map[action][]param{list: {issueID, startAt, size(100, "changes per page (default and most 100)")}}),
		entity("issue_transitions", "The workflow transitions one issue can take now.", nil,
			map[action][]engine.Route{list: route("/rest/api/3/issue/{issueIdOrKey}/transitions", "transitions", nil)},
			map[action][]param{list: {issueID, expand, str("transitionId", "only this transition"),
				flag("skipRemoteOnlyCondition", "skip conditions only remote apps check"), flag("includeUnavailableTransitions", "include those whose conditions fail"),
				flag("sortByOpsBarAndStatus", "sort as the issue view does")}}),
		attachments,
		entity("statuses", "Workflow statuses.", Status{},
			map[action][]engine.Route{list: route("/rest/api/3/status", "", nil), get: route("/rest/api/3/status/{idOrName}", "", nil)},
			map[action][]param{list: nil, get: {req("idOrName", "the status's id or name")}}),
		entity("priorities", "Issue priorities.", Priority{},
			map[action][]engine.Route{list: route("/rest/api/3/priority", "", nil), get: route("/rest/api/3/priority/{id}", "", nil)},
			map[action][]param{list: nil, get: {req("id", "priority id")}}),
		entity("issue_types", "Issue types.", IssueType{},
			map[action][]engine.Route{list: route("/rest/api/3/issuetype", "", nil), get: route("/rest/api/3/issuetype/{id}", "", nil)},
			map[action][]param{list: nil, get: {req("id", "issue type id")}}),
		entity("boards", "Jira Software boards (agile API).", Board{},
			map[action][]engine.Route{list: route("/rest/agile/1.0/board", "values", offset), get: route("/rest/agile/1.0/board/{boardId}", "", nil)},
			map[action][]param{
				list: {startAt, size(50, "boards per page (default and most 50)"), str("type", "only boards of this type", "scrum", "kanban", "simple"),
					str("name", "only boards whose name contains this"), str("projectKeyOrId", "only boards of this project")},
				get: {id("boardId", "board id")},
			}),
		entity("sprints", "Sprints of one scrum board (agile API).", nil,
			map[action][]engine.Route{
				list: route("/rest/agile/1.0/board/{boardId}/sprint", "values", pagination.OffsetTotal{OffsetParam: "startAt", LastField: "isLast", SizeParam: "maxResults"}),
				get:  route("/rest/agile/1.0/sprint/{sprintId}", "", nil),
			},
			map[action][]param{
				list: {id("boardId", "board id"), startAt, size(50, "sprints per page (default and most 50)"), str("state", "only sprints in these states (comma-separated: future, active, closed)")},
				get:  {id("sprintId", "sprint id")},
			}),
	}, "created", "updated", "started")
}

// FeedOverlap is read again before the checkpoint of a Jira feed: the
// search index catching up with recent writes, and clock skew.
const FeedOverlap = time.Minute
