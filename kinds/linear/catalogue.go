package linear

import (
	"maps"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/jsonx"
	"github.com/tributary-dev/tributary/pagination"
)

type (
	action = tributary.Action
	param  = tributary.Param
	field  = tributary.Field
)

const (
	list      = tributary.ActionList
	get       = tributary.ActionGet
	search    = tributary.ActionSearch
	apiSearch = tributary.ActionAPISearch
)

// MaxFirst is the largest page (first) Linear serves.
const MaxFirst = 250

// FeedOverlap is read again before the checkpoint on every sync of a
// feed: records that share the boundary millisecond, and writes that
// become visible after a later one.
const FeedOverlap = time.Minute

// graphqlPath is where every query goes.
const graphqlPath = "/graphql"

// spec is one entity: its record type, the root fields of Linear's query
// type that list and get it, and the GraphQL type its filter is.
type spec struct {
	name, doc  string
	record     any
	list, get  string // root fields: "issues", "issue"
	op         string // operation name: "Issues" (and "Issue" for the get)
	filterType string
	extra      []param             // list params besides the connection's own
	extraVars  []engine.GraphQLVar // their GraphQL types
	fields     []field             // searchable fields of related records
	// feedSet are params the feed adds (users: the suspended too, as
	// deletions).
	feedSet tributary.Params
	// outright: Linear deletes the records outright (no archive, no
	// trash): the feed cannot show it, a daily sweep of the ids does.
	outright bool
}

func specs() []spec {
	ref := func(path, doc string) field { return field{Name: path, Type: tributary.TypeString, Doc: doc} }
	team := []field{ref("team.id", "the team's id"), ref("team.key", "the team's key (ENG)")}
	return []spec{
		{name: "issues", doc: "Issues of every team the credentials can read (type Issue).", record: Issue{},
			list: "issues", get: "issue", op: "Issue", filterType: "IssueFilter",
			fields: append(team, ref("state.name", "the workflow state's name"), ref("state.type", "the state's type: triage, backlog, unstarted, started, completed, canceled"),
				ref("assignee.id", "the assignee's user id"), ref("creator.id", "the creator's user id"), ref("project.id", "the project's id"), ref("cycle.id", "the cycle's id"))},
		{name: "projects", doc: "Projects (type Project).", record: Project{},
			list: "projects", get: "project", op: "Project", filterType: "ProjectFilter",
			fields: []field{ref("status.name", "the project status's name"), ref("status.type", "the status's type: backlog, planned, started, paused, completed, canceled"), ref("lead.id", "the lead's user id")}},
		{name: "teams", doc: "Teams (type Team).", record: Team{},
			list: "teams", get: "team", op: "Team", filterType: "TeamFilter"},
		{name: "users", doc: "Users of the workspace (type User).", record: User{},
			list: "users", get: "user", op: "User", filterType: "UserFilter",
			extra:     []param{{Name: "includeDisabled", Type: tributary.TypeBoolean, Default: false, Doc: "include suspended (disabled) users"}},
			extraVars: []engine.GraphQLVar{{Name: "includeDisabled", Type: "Boolean"}}, feedSet: tributary.Params{"includeDisabled": true}},
		{name: "comments", doc: "Comments on issues, project updates and documents (type Comment).", record: Comment{},
			list: "comments", get: "comment", op: "Comment", filterType: "CommentFilter", outright: true,
			fields: []field{ref("user.id", "the author's user id")}},
		{name: "workflow_states", doc: "Workflow states of every team (type WorkflowState).", record: WorkflowState{},
			list: "workflowStates", get: "workflowState", op: "WorkflowState", filterType: "WorkflowStateFilter", fields: team},
		{name: "cycles", doc: "Cycles of every team (type Cycle).", record: Cycle{},
			list: "cycles", get: "cycle", op: "Cycle", filterType: "CycleFilter", fields: team},
		{name: "labels", doc: "Issue labels, of the workspace and of teams (type IssueLabel).", record: Label{},
			list: "issueLabels", get: "issueLabel", op: "IssueLabel", filterType: "IssueLabelFilter", fields: team, outright: true},
		{name: "attachments", doc: "Attachments: links of issues to pull requests, documents, tickets (type Attachment).", record: Attachment{},
			list: "attachments", get: "attachment", op: "Attachment", filterType: "AttachmentFilter", outright: true,
			fields: []field{ref("issue.id", "the issue's id"), ref("issue.identifier", "the issue's identifier (ENG-123)")}},
	}
}

// connection are the params of every list: Linear's connection arguments.
func connection(filterType string) ([]param, []engine.GraphQLVar) {
	return []param{
			{Name: "first", Type: tributary.TypeInteger, Min: tributary.Bound(1), Max: tributary.Bound(MaxFirst), Default: 50, PageSize: true,
				Doc: "records per page, 1 to 250 (Linear's default 50)"},
			{Name: "after", Type: tributary.TypeString, Doc: "paging cursor: the previous page's pageInfo.endCursor"},
			{Name: "filter", Type: tributary.TypeObject, Doc: "Linear's " + filterType + " as JSON: {\"team\": {\"key\": {\"eq\": \"ENG\"}}}, {\"updatedAt\": {\"gt\": \"2026-01-01T00:00:00Z\"}}"},
			{Name: "orderBy", Type: tributary.TypeString, Enum: []string{"createdAt", "updatedAt"}, Default: "createdAt",
				Doc: "the order of the records, newest first: by creation or by last change"},
			{Name: "includeArchived", Type: tributary.TypeBoolean, Default: false, Doc: "include archived records (and trashed issues)"},
		}, []engine.GraphQLVar{
			{Name: "first", Type: "Int"}, {Name: "after", Type: "String"}, {Name: "filter", Type: filterType},
			{Name: "orderBy", Type: "PaginationOrderBy"}, {Name: "includeArchived", Type: "Boolean"},
		}
}

var relay = pagination.Relay{}

// Catalogue returns Linear's catalogue: every entity, its actions and
// their parameters, its searchable fields and its paging.
func Catalogue() []tributary.Entity { return engine.Catalogue(catalogue()) }

func catalogue() []engine.Entity {
	idParam := param{Name: "id", Type: tributary.TypeString, Required: true, Doc: "the record's id (an issue also by its identifier, ENG-123)"}
	var out []engine.Entity
	for _, s := range specs() {
		sel := engine.Selection(s.record)
		params, vars := connection(s.filterType)
		params, vars = append(params, s.extra...), append(vars, s.extraVars...)
		e := engine.Entity{
			Entity: tributary.Entity{Name: s.name, Doc: s.doc, Actions: []action{list, get, search},
				Params:     map[action][]param{list: params, get: {idParam}, search: tributary.SearchParams()},
				Searchable: engine.MergeFields(engine.FieldsOf(s.record), s.fields),
				Feed:       feed(s.feedSet, s.outright)},
			Routes: map[action][]engine.Route{
				list: {{Method: "POST", Path: graphqlPath, GraphQL: engine.GraphQLQuery(s.op+"s", s.list, vars, engine.RelayNodes(sel)),
					Records: "data." + s.list + ".nodes", Paging: relay}},
				get: {{Method: "POST", Path: graphqlPath, GraphQL: engine.GraphQLQuery(s.op, s.get, []engine.GraphQLVar{{Name: "id", Type: "String!"}}, sel),
					Records: "data." + s.get}},
			},
		}
		if s.name == "issues" {
			e.Actions = append(e.Actions, apiSearch)
			sp, sv := connection(s.filterType)
			e.Params[apiSearch] = append([]param{
				{Name: "term", Type: tributary.TypeString, Required: true, Doc: "the text searched in the issues' titles and descriptions (and comments, with includeComments)"},
				{Name: "includeComments", Type: tributary.TypeBoolean, Default: false, Doc: "search the issues' comments too"},
				{Name: "teamId", Type: tributary.TypeString, Doc: "the id of a team whose issues are ranked first"},
			}, sp...)
			e.Routes[apiSearch] = []engine.Route{{Method: "POST", Path: graphqlPath, Records: "data.searchIssues.nodes", Paging: relay,
				GraphQL: engine.GraphQLQuery("SearchIssues", "searchIssues", append([]engine.GraphQLVar{
					{Name: "term", Type: "String!"}, {Name: "includeComments", Type: "Boolean"}, {Name: "teamId", Type: "String"}}, sv...),
					engine.RelayNodes(sel))}}
		}
		out = append(out, e)
	}
	return engine.DateTimes(out, "createdAt", "updatedAt", "archivedAt", "startedAt", "completedAt", "canceledAt",
		"editedAt", "lastSeen", "startsAt", "endsAt")
}

// kind is the engine's description of Linear.
func kind() *engine.Kind {
	return &engine.Kind{
		Type: Type, Entities: catalogue(),
		// Linear's errors[]: the code in extensions; a missing record is
		// known by its message (its code, INPUT_ERROR, says only that the
		// input was wrong).
		Errors: &engine.ErrorRule{List: "errors", Code: "extensions.code", Message: "message",
			Codes: map[string]error{
				"RATELIMITED":               tributary.ErrRateLimited,
				"AUTHENTICATION_ERROR":      tributary.ErrUnauthorized,
				"FORBIDDEN":                 tributary.ErrForbidden,
				"GRAPHQL_VALIDATION_FAILED": tributary.ErrInvalidParams,
				"BAD_USER_INPUT":            tributary.ErrInvalidParams,
				"INTERNAL_SERVER_ERROR":     tributary.ErrServer,
			},
			Messages: map[string]error{"Entity not found": tributary.ErrNotFound}},
		RateLimits: []engine.RateLimitHeaders{
			{Limit: "X-RateLimit-Requests-Limit", Remaining: "X-RateLimit-Requests-Remaining", Reset: "X-RateLimit-Requests-Reset", Unit: engine.ResetEpochMillis},
			{Limit: "X-RateLimit-Complexity-Limit", Remaining: "X-RateLimit-Complexity-Remaining", Reset: "X-RateLimit-Complexity-Reset", Unit: engine.ResetEpochMillis},
		},
		// The user the credentials act as.
		Check: &engine.Route{Method: "POST", Path: graphqlPath, GraphQL: engine.GraphQLQuery("Viewer", "viewer", nil, "id"), Records: "data.viewer"},
	}
}

// SweepEvery is how long a copy of comments, attachments or labels goes
// between two sweeps of their ids: Linear deletes those outright, which
// no feed shows.
const SweepEvery = 24 * time.Hour

// feed is the change feed of every entity: its list ordered by updatedAt
// (newest first), filtered on updatedAt after since (and the copy's own
// filter), archived records included: those, trashed ones and suspended
// users are deletions. set are params it adds; outright adds the daily
// sweep of the ids of records Linear deletes outright.
func feed(set tributary.Params, outright bool) *tributary.Feed {
	f := &tributary.Feed{
		Doc:     "the list ordered by updatedAt, filter {updatedAt: {gt: since}}, includeArchived: true; archived and trashed records are deletions",
		Changed: "updatedAt", Overlap: FeedOverlap, Deleted: deleted,
		Params: func(base tributary.Params, since time.Time) tributary.Params {
			p := maps.Clone(base)
			if p == nil {
				p = tributary.Params{}
			}
			delete(p, "after")
			maps.Copy(p, set)
			p["orderBy"], p["includeArchived"] = "updatedAt", true
			if !since.IsZero() {
				f := map[string]any{"updatedAt": map[string]any{"gt": since.UTC().Format("2006-01-02T15:04:05.000Z")}}
				if own, ok := base["filter"]; ok {
					f = map[string]any{"and": []any{own, f}}
				}
				p["filter"] = f
			}
			return p
		},
	}
	if len(set) > 0 {
		f.Doc += "; suspended users too (includeDisabled), as deletions"
	}
	if outright {
		f.Doc += "; records deleted outright found by a daily sweep of the ids"
		f.Sweep = &tributary.Sweep{Every: SweepEvery, Settle: FeedOverlap, Params: func(base tributary.Params) tributary.Params {
			p := maps.Clone(base)
			if p == nil {
				p = tributary.Params{}
			}
			delete(p, "after")
			p["first"] = MaxFirst
			return p
		}}
	}
	return f
}

// deleted reports whether a record is archived, trashed (an issue or a
// project) or a suspended user (active false).
func deleted(r tributary.Record) bool {
	if raw, ok := r.Lookup("archivedAt"); ok && !jsonx.IsNull(raw) {
		return true
	}
	raw, _ := r.Lookup("trashed")
	trashed, _ := jsonx.Bool(raw)
	raw, ok := r.Lookup("active")
	active, isBool := jsonx.Bool(raw)
	return trashed || (ok && isBool && !active)
}
