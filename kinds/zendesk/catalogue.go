package zendesk

import (
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/jsonx"
	"github.com/tributary-dev/tributary/pagination"
)

// Type is the connector_type of this kind.
const Type = "zendesk-support"

type (
	action = tributary.Action
	param  = tributary.Param
)

const (
	list     = tributary.ActionList
	get      = tributary.ActionGet
	search   = tributary.ActionSearch
	download = tributary.ActionDownload
)

func intParam(name string, required bool, doc string) param {
	return param{Name: name, Type: tributary.TypeInteger, Required: required, Min: tributary.Bound(1), Doc: doc}
}

func strParam(name, doc string, enum ...string) param {
	return param{Name: name, Type: tributary.TypeString, Enum: enum, Doc: doc}
}

func boolParam(name, doc string) param {
	return param{Name: name, Type: tributary.TypeBoolean, Doc: doc}
}

// offsetParams are the offset-paging params of every Zendesk list.
var offsetParams = []param{
	intParam("page", false, "page number, from 1 (offset paging; Zendesk stops at page 100)"),
	{Name: "per_page", Type: tributary.TypeInteger, Min: tributary.Bound(1), Max: tributary.Bound(100), Doc: "records per page, at most 100"},
}

// cursorParams are Zendesk's cursor-paging params, on the lists that have them.
var cursorParams = []param{
	{Name: "page[size]", Type: tributary.TypeInteger, Min: tributary.Bound(1), Max: tributary.Bound(100), Doc: "cursor paging: records per page, at most 100 (selects cursor mode)"},
	{Name: "page[after]", Type: tributary.TypeString, Doc: "cursor paging: the after_cursor of the previous page"},
	{Name: "page[before]", Type: tributary.TypeString, Doc: "cursor paging: the before_cursor of the next page"},
}

var (
	sortOrder     = strParam("sort_order", "sort direction", "asc", "desc")
	sortTriggers  = strParam("sort", "sort order (cursor paging); prefix - for descending", "alphabetical", "created_at", "updated_at", "position", "-alphabetical", "-created_at", "-updated_at", "-position")
	viewsSortBy   = strParam("sort_by", "sort field", "alphabetical", "created_at", "updated_at", "position")
	accessParam   = strParam("access", "who can use it", "personal", "shared", "account")
	activeParam   = boolParam("active", "only active (true) or inactive (false) ones")
	groupIDParam  = intParam("group_id", false, "only those of this group")
	rangeHeader   = param{Name: "range_header", Type: tributary.TypeString, Doc: "byte range to download: bytes=<first>-<last>, bytes=<first>- or bytes=-<n>"}
	pagedByOffset = engine.Route{Paging: pagination.ZendeskPage{}}
)

// spec is one entity: its catalogue entry, record type and routes.
type spec struct {
	name       string
	doc        string
	record     any               // zero value of the typed record, for the searchable fields
	extraFind  []tributary.Field // searchable fields beyond the record's
	searchable bool
	listPath   string
	listKey    string
	listParams []param
	cursor     bool // the list has Zendesk's cursor mode
	getPath    string
	getKey     string
	getParams  []param
	dl         []param // download params (two-step via content_url)
	routes     map[action][]engine.Route
	// feed is the entity's change feed, read from feedRoute (one of
	// Zendesk's incremental exports).
	feed      *tributary.Feed
	feedRoute *engine.Route
	// scope is how a copy is built when the list needs params (nil: none).
	scope *tributary.Scope
}

func specs() []spec {
	return []spec{
		{name: "tickets", doc: "Support tickets.", record: Ticket{}, searchable: true, cursor: true,
			extraFind: []tributary.Field{{Name: "deleted_ticket_form_id", Type: tributary.TypeInteger}, {Name: "satisfaction_rating", Type: tributary.TypeAny, Doc: "object or string"}},
			listPath:  "/api/v2/tickets.json", listKey: "tickets",
			listParams: []param{strParam("external_id", "only tickets with this external id"),
				strParam("sort", "sort order (cursor paging); prefix - for descending", "id", "status", "updated_at", "-id", "-status", "-updated_at")},
			getPath: "/api/v2/tickets/{ticket_id}.json", getKey: "ticket", getParams: []param{intParam("ticket_id", true, "ticket id")},
			feed: &tributary.Feed{Doc: "incremental ticket export, cursor-based, by generated_timestamp; deleted tickets arrive with status deleted",
				Params: exportParams, Changed: "updated_at", Overlap: time.Minute, Delay: time.Minute,
				Deleted: func(r tributary.Record) bool { s, _ := r.StringAt("status"); return s == "deleted" }},
			feedRoute: &engine.Route{Path: "/api/v2/incremental/tickets/cursor.json", Records: "tickets", Paging: pagination.ZendeskExport{}}},
		{name: "users", doc: "End users, agents and admins.", record: User{}, searchable: true, cursor: true,
			extraFind: []tributary.Field{{Name: "chat_only", Type: tributary.TypeBoolean}},
			listPath:  "/api/v2/users.json", listKey: "users",
			listParams: []param{strParam("role", "only users of this role", "end-user", "agent", "admin"), strParam("external_id", "only the user with this external id")},
			getPath:    "/api/v2/users/{user_id}.json", getKey: "user", getParams: []param{intParam("user_id", true, "user id")},
			feed: &tributary.Feed{Doc: "incremental user export, cursor-based, by updated_at; deleted users arrive with active false",
				Params: exportParams, Changed: "updated_at", Overlap: time.Minute, Delay: time.Minute,
				Deleted: func(r tributary.Record) bool {
					raw, ok := r.Lookup("active")
					a, isBool := jsonx.Bool(raw)
					return ok && isBool && !a
				}},
			feedRoute: &engine.Route{Path: "/api/v2/incremental/users/cursor.json", Records: "users", Paging: pagination.ZendeskExport{}}},
		{name: "organizations", doc: "Organizations.", record: Organization{}, searchable: true, cursor: true,
			extraFind: []tributary.Field{{Name: "deleted_at", Type: tributary.TypeString}},
			listPath:  "/api/v2/organizations.json", listKey: "organizations",
			getPath: "/api/v2/organizations/{organization_id}.json", getKey: "organization", getParams: []param{intParam("organization_id", true, "organization id")},
			feed: &tributary.Feed{Doc: "incremental organization export, time-based (start_time=end_time, boundary duplicates), by updated_at; deleted organizations arrive with deleted_at set",
				Params: exportParams, Changed: "updated_at", Overlap: time.Minute, Delay: time.Minute,
				Deleted: func(r tributary.Record) bool { raw, ok := r.Lookup("deleted_at"); return ok && !jsonx.IsNull(raw) }},
			feedRoute: &engine.Route{Path: "/api/v2/incremental/organizations.json", Records: "organizations", Paging: pagination.ZendeskExport{}}},
		{name: "groups", doc: "Agent groups.", record: Group{}, searchable: true, cursor: true,
			listPath: "/api/v2/groups.json", listKey: "groups",
			listParams: []param{boolParam("exclude_deleted", "leave out deleted groups")},
			getPath:    "/api/v2/groups/{group_id}.json", getKey: "group", getParams: []param{intParam("group_id", true, "group id")}},
		{name: "ticket_comments", doc: "Comments of one ticket.", record: TicketComment{}, searchable: true, cursor: true,
			extraFind: []tributary.Field{{Name: "event_type", Type: tributary.TypeString}, {Name: "ticket_id", Type: tributary.TypeInteger}, {Name: "timestamp", Type: tributary.TypeInteger}, {Name: "uploads", Type: tributary.TypeArray}, {Name: "via_reference_id", Type: tributary.TypeInteger}},
			listPath:  "/api/v2/tickets/{ticket_id}/comments.json", listKey: "comments",
			listParams: []param{intParam("ticket_id", true, "ticket id"), boolParam("include_inline_images", "also list inline images as attachments"),
				strParam("sort", "sort order", "created_at", "-created_at")},
			scope: commentsScope},
		{name: "attachments", doc: "Ticket attachments (metadata and file content).", record: Attachment{},
			getPath: "/api/v2/attachments/{attachment_id}.json", getKey: "attachment", getParams: []param{intParam("attachment_id", true, "attachment id")},
			dl: []param{intParam("attachment_id", true, "attachment id"), rangeHeader}},
		{name: "ticket_audits", doc: "Ticket audits: of every ticket (without ticket_id, admins only) or of one ticket.", record: TicketAudit{}, searchable: true, cursor: true,
			extraFind: []tributary.Field{{Name: "attachments", Type: tributary.TypeArray}},
			listParams: []param{{Name: "ticket_id", Type: tributary.TypeInteger, Min: tributary.Bound(1), Doc: "list the audits of this ticket only (offset paging); without it, all audits (cursor paging)"},
				{Name: "cursor", Type: tributary.TypeString, Doc: "all audits, older cursor mode: the before_cursor of the previous page"},
				{Name: "limit", Type: tributary.TypeInteger, Min: tributary.Bound(1), Max: tributary.Bound(1000), Doc: "all audits: records per page, at most 1000"}},
			routes: map[action][]engine.Route{list: {
				{Path: "/api/v2/tickets/{ticket_id}/audits.json", When: []string{"ticket_id"}, Records: "audits", Paging: pagination.ZendeskPage{}, Walk: walkByCursor},
				{Path: "/api/v2/ticket_audits.json", Records: "audits", Paging: pagination.ZendeskPage{}, Walk: walkByCursor},
			}}},
		{name: "ticket_metrics", doc: "Ticket metrics.", record: TicketMetric{}, searchable: true, cursor: true,
			listPath: "/api/v2/ticket_metrics.json", listKey: "ticket_metrics"},
		{name: "ticket_fields", doc: "Ticket field definitions.", record: TicketField{}, searchable: true, cursor: true,
			listPath: "/api/v2/ticket_fields.json", listKey: "ticket_fields",
			listParams: []param{strParam("locale", "locale of the dynamic content in titles")},
			getPath:    "/api/v2/ticket_fields/{ticket_field_id}.json", getKey: "ticket_field", getParams: []param{intParam("ticket_field_id", true, "ticket field id")}},
		{name: "brands", doc: "Brands.", record: Brand{}, searchable: true, cursor: true,
			extraFind: []tributary.Field{{Name: "logo", Type: tributary.TypeString}},
			listPath:  "/api/v2/brands.json", listKey: "brands",
			getPath: "/api/v2/brands/{brand_id}.json", getKey: "brand", getParams: []param{intParam("brand_id", true, "brand id")}},
		{name: "views", doc: "Views.", record: View{}, cursor: true,
			listPath: "/api/v2/views.json", listKey: "views",
			listParams: []param{accessParam, activeParam, groupIDParam, viewsSortBy, sortOrder},
			getPath:    "/api/v2/views/{view_id}.json", getKey: "view", getParams: []param{intParam("view_id", true, "view id")}},
		{name: "macros", doc: "Macros.", record: Macro{}, cursor: true,
			listPath: "/api/v2/macros.json", listKey: "macros",
			listParams: []param{accessParam, activeParam, intParam("category", false, "only macros of this category"), groupIDParam,
				boolParam("only_viewable", "only macros the user can view"), viewsSortBy, sortOrder},
			getPath: "/api/v2/macros/{macro_id}.json", getKey: "macro", getParams: []param{intParam("macro_id", true, "macro id")}},
		{name: "triggers", doc: "Triggers.", record: Trigger{}, cursor: true,
			listPath: "/api/v2/triggers.json", listKey: "triggers",
			listParams: []param{activeParam, strParam("category_id", "only triggers of this category"), sortTriggers},
			getPath:    "/api/v2/triggers/{trigger_id}.json", getKey: "trigger", getParams: []param{intParam("trigger_id", true, "trigger id")}},
		{name: "automations", doc: "Automations.", record: Automation{}, cursor: true,
			listPath: "/api/v2/automations.json", listKey: "automations",
			listParams: []param{activeParam, sortTriggers},
			getPath:    "/api/v2/automations/{automation_id}.json", getKey: "automation", getParams: []param{intParam("automation_id", true, "automation id")}},
		{name: "tags", doc: "Tags in use, with counts.", record: Tag{}, searchable: true, cursor: true,
			listPath: "/api/v2/tags.json", listKey: "tags"},
		{name: "satisfaction_ratings", doc: "Customer satisfaction ratings.", record: SatisfactionRating{}, searchable: true, cursor: true,
			listPath: "/api/v2/satisfaction_ratings.json", listKey: "satisfaction_ratings",
			listParams: []param{strParam("score", "only ratings with this score", "offered", "unoffered", "received", "good", "bad"),
				{Name: "start_time", Type: tributary.TypeInteger, Min: tributary.Bound(0), Doc: "only ratings created at or after this Unix time"},
				{Name: "end_time", Type: tributary.TypeInteger, Min: tributary.Bound(0), Doc: "only ratings created before this Unix time"}},
			getPath: "/api/v2/satisfaction_ratings/{satisfaction_rating_id}.json", getKey: "satisfaction_rating", getParams: []param{intParam("satisfaction_rating_id", true, "rating id")}},
		{name: "group_memberships", doc: "Memberships of agents in groups.", record: GroupMembership{}, cursor: true,
			listPath: "/api/v2/group_memberships.json", listKey: "group_memberships"},
		{name: "organization_memberships", doc: "Memberships of users in organizations.", record: OrganizationMembership{}, cursor: true,
			listPath: "/api/v2/organization_memberships.json", listKey: "organization_memberships"},
		{name: "sla_policies", doc: "SLA policies.", record: SLAPolicy{},
			listPath: "/api/v2/slas/policies.json", listKey: "sla_policies",
			getPath: "/api/v2/slas/policies/{sla_policy_id}.json", getKey: "sla_policy", getParams: []param{intParam("sla_policy_id", true, "SLA policy id")}},
		{name: "ticket_forms", doc: "Ticket forms.", record: TicketForm{}, searchable: true,
			listPath: "/api/v2/ticket_forms.json", listKey: "ticket_forms",
			listParams: []param{boolParam("active", "only active (true) or inactive (false) forms"), boolParam("end_user_visible", "only forms end users can see")},
			getPath:    "/api/v2/ticket_forms/{ticket_form_id}.json", getKey: "ticket_form", getParams: []param{intParam("ticket_form_id", true, "ticket form id")}},
		{name: "articles", doc: "Help Center articles.", record: Article{}, cursor: true,
			listPath: "/api/v2/help_center/articles.json", listKey: "articles",
			listParams: []param{strParam("sort_by", "sort field", "created_at", "updated_at", "title", "position"), sortOrder},
			getPath:    "/api/v2/help_center/articles/{id}.json", getKey: "article", getParams: []param{intParam("id", true, "article id")}},
		{name: "article_attachments", doc: "Attachments of a Help Center article (metadata and file content).", record: ArticleAttachment{},
			listPath: "/api/v2/help_center/articles/{article_id}/attachments.json", listKey: "article_attachments",
			listParams: []param{intParam("article_id", true, "article id")},
			getPath:    "/api/v2/help_center/articles/{article_id}/attachments/{attachment_id}.json", getKey: "article_attachment",
			getParams: []param{intParam("article_id", true, "article id"), intParam("attachment_id", true, "attachment id")},
			dl:        []param{intParam("article_id", true, "article id"), intParam("attachment_id", true, "attachment id"), rangeHeader}},
	}
}

// Catalogue returns the helpdesk catalogue: every entity, its actions and
// their parameters, its searchable fields and its paging.
func Catalogue() []tributary.Entity { return engine.Catalogue(catalogue()) }

// catalogue builds the engine's view of the kind.

// dateTimes are the searchable fields whose values are RFC 3339 date-time
// strings, typed date-time in every entity that has them as strings.
var dateTimes = []string{"created_at", "updated_at", "deleted_at", "due_at", "last_login_at", "assigned_at", "initially_assigned_at", "solved_at", "assignee_updated_at", "requester_updated_at", "status_updated_at", "latest_comment_added_at"}

func catalogue() []engine.Entity {
	var out []engine.Entity
	for _, s := range specs() {
		e := engine.Entity{Entity: tributary.Entity{Name: s.name, Doc: s.doc, Params: map[action][]param{}}, Routes: map[action][]engine.Route{}}
		for a, rs := range s.routes {
			e.Routes[a] = rs
		}
		if s.listPath != "" || e.Routes[list] != nil {
			e.Actions = append(e.Actions, list)
			ps := append([]param{}, s.listParams...)
			ps = append(ps, offsetParams...)
			if s.cursor {
				ps = append(ps, cursorParams...)
			}
			e.Params[list] = ps
			if e.Routes[list] == nil {
				rt := pagedByOffset
				rt.Path, rt.Records = s.listPath, s.listKey
				if s.cursor {
					rt.Walk = walkByCursor
				}
				e.Routes[list] = []engine.Route{rt}
			}
		}
		if s.getPath != "" {
			e.Actions = append(e.Actions, get)
			e.Params[get] = s.getParams
			e.Routes[get] = []engine.Route{{Path: s.getPath, Records: s.getKey}}
		}
		if s.searchable {
			e.Actions = append(e.Actions, search)
			e.Params[search] = tributary.SearchParams()
			e.Searchable = engine.MergeFields(engine.FieldsOf(s.record), s.extraFind)
		}
		if s.feed != nil {
			e.Feed, e.FeedRoute = s.feed, s.feedRoute
		}
		e.Scope = s.scope
		if s.dl != nil {
			e.Actions = append(e.Actions, download)
			e.Params[download] = s.dl
			e.Routes[download] = []engine.Route{{Path: s.getPath, FileURL: []string{s.getKey, "content_url"}}}
		}
		out = append(out, e)
	}
	return engine.DateTimes(out, dateTimes...)
}

// commentsScope copies ticket_comments one ticket at a time: Zendesk lists
// comments per ticket only (GET /api/v2/tickets/{ticket_id}/comments), so
// the tickets list is walked and each ticket is a part, its comments
// stamped with its ticket_id. That is a request per ticket (a ticket has
// rarely more than 100 comments) plus one per 100 tickets.
//
// Zendesk's incremental ticket event export (include=comment_events) was
// measured against it (TestCommentReadCost): on the fake, with one event
// per comment, 7 requests read the comments of 2,000 tickets against
// 2,020. It is not used: a real account has many events per comment
// (triggers, field changes), read 10,000 a minute at the exports' 10
// requests, a budget the tickets' own export shares; the export is for
// admins only; and its comment events lack plain_body and metadata, and
// report a redaction without the redacted text, which the comments list
// has.
//
// A durable copy follows the tickets' incremental export: a sync reads the
// comments of the tickets changed since the last one (a new comment, or
// a redaction, changes its ticket), and keeps those of deleted tickets as
// deletions.
var commentsScope = tributary.ChildScope(
	"the comments of every ticket: one walk of GET /api/v2/tickets/{ticket_id}/comments per ticket, each comment with its ticket_id; then only those of tickets the incremental ticket export shows changed",
	"tickets", "id", "ticket_id", "ticket")

// exportParams are the first params of an incremental export: start_time
// in Unix seconds (0 for everything) and the caller's per_page (the
// exports' own page size, at most 1000), nothing else of base.
func exportParams(base tributary.Params, since time.Time) tributary.Params {
	p := tributary.Params{"start_time": int64(0)}
	if !since.IsZero() {
		p["start_time"] = max(since.Unix(), 0)
	}
	if v, ok := base["per_page"]; ok {
		p["per_page"] = v
	}
	return p
}

// walkByCursor switches a full walk to Zendesk's cursor mode, which has no
// 100-page limit, unless the caller asked for a page number.
func walkByCursor(p tributary.Params) tributary.Params {
	if _, ok := p["page"]; ok {
		return p
	}
	if _, ok := p["page[size]"]; ok {
		return p
	}
	out := p.Clone()
	if out == nil {
		out = tributary.Params{}
	}
	size := any(int64(100))
	if v, ok := out["per_page"]; ok {
		size = v
		delete(out, "per_page")
	}
	out["page[size]"] = size
	return out
}
