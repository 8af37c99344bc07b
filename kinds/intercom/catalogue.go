package intercom

import (
	"context"
	"encoding/json"
	"iter"
	"maps"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/jsonx"
	"github.com/tributary-dev/tributary/pagination"
)

// Type is the connector_type of this kind.
const Type = "intercom"

// MaxPerPage is the largest per_page Intercom accepts on its lists.
const MaxPerPage = 150

// companyListLimit is where Intercom's plain company list stops: past it,
// only GET /companies/scroll reaches the remaining companies.
const companyListLimit = 10_000

type (
	action = tributary.Action
	param  = tributary.Param
	field  = tributary.Field
)

const (
	list   = tributary.ActionList
	get    = tributary.ActionGet
	search = tributary.ActionSearch
)

var (
	tString  = tributary.TypeString
	tInt     = tributary.TypeInteger
	tNumber  = tributary.TypeNumber
	tBool    = tributary.TypeBoolean
	tArray   = tributary.TypeArray
	tObject  = tributary.TypeObject
	tAny     = tributary.TypeAny
	idParam  = param{Name: "id", Type: tString, Required: true, Doc: "Intercom's id of the record"}
	afterArg = param{Name: "starting_after", Type: tString, Doc: "the cursor of the next page: the next_page of the previous page's Meta"}
)

func perPage(def int) param {
	return param{Name: "per_page", Type: tInt, Default: def, Min: tributary.Bound(1), Max: tributary.Bound(MaxPerPage),
		Doc: "records per page, at most 150"}
}

// scrollParam selects GET /companies/scroll (see the companies entity).
var scrollParam = param{Name: "scroll_param", Type: tString,
	Doc: "scroll over every company with GET /companies/scroll: \"\" opens a new scroll, then pass the previous page's next_page; " +
		"the plain list stops at 10,000 companies, a scroll does not. One scroll per workspace at a time; it expires after a minute unused. " +
		"Not combined with per_page or starting_after. (Intercom's own parameter; the catalogue lists only per_page and starting_after.)"}

// spec is one entity of the catalogue.
type spec struct {
	name       string
	doc        string
	path       string // list path; get is path + "/{id}"
	listKey    string
	listParams []param
	paged      bool // per_page/starting_after cursor paging
	searchable []field
	routes     []engine.Route // extra list routes tried before the default one
	// feed is the change feed: the entity's search endpoint on
	// updated_at; nil: kept by full walks.
	feed *tributary.Feed
	// feedRoute reads the feed (POST {path}/search).
	feedRoute *engine.Route
	// scope limits a copy to replication_config.start_date (nil: a copy
	// is every record).
	scope *tributary.Scope
}

func specs() []spec {
	return []spec{
		{name: "contacts", doc: "Contacts: users and leads.", path: "/contacts", listKey: "data", paged: true,
			listParams: []param{perPage(50), afterArg, updatedSince("contacts")}, searchable: contactFields,
			routes: []engine.Route{updatedRoute("/contacts/search", "data")},
			feed:   searchFeed("contacts", ContactSearchLookback), feedRoute: searchRoute("/contacts/search", "data"), scope: startDateScope("contacts")},
		{name: "conversations", doc: "Conversations (get includes up to the 500 most recent conversation parts).", path: "/conversations",
			listKey: "conversations", paged: true, listParams: []param{perPage(20), afterArg, updatedSince("conversations")}, searchable: conversationFields,
			routes: []engine.Route{updatedRoute("/conversations/search", "conversations")},
			feed:   searchFeed("conversations", 0), feedRoute: searchRoute("/conversations/search", "conversations"), scope: startDateScope("conversations")},
		{name: "companies", doc: "Companies. All walks past the list's 10,000-company limit with the scroll API.", path: "/companies",
			listKey: "data", paged: true, listParams: []param{perPage(15), afterArg, scrollParam}, searchable: companyFields,
			routes: []engine.Route{{Path: "/companies/scroll", When: []string{"scroll_param"}, Records: "data", Paging: scrollPages{}, Prepare: dropEmptyScrollParam,
				// Intercom moves a scroll on as it answers: a repeat after a
				// dropped connection or a 5xx could skip a page.
				Once: true}}},
		{name: "teams", doc: "Teams of admins.", path: "/teams", listKey: "teams", searchable: teamFields},
		{name: "admins", doc: "Admins (teammates) of the workspace.", path: "/admins", listKey: "admins"},
		{name: "tags", doc: "Tags of the workspace.", path: "/tags", listKey: "data"},
		{name: "segments", doc: "Segments of contacts.", path: "/segments", listKey: "segments",
			listParams: []param{{Name: "include_count", Type: tBool, Default: false, Doc: "include the contact count of each segment"}}},
	}
}

// catalogue builds the engine's view of the kind.
// Catalogue returns the customer-messaging catalogue: every entity, its
// actions and their parameters, its searchable fields and its paging.
func Catalogue() []tributary.Entity { return engine.Catalogue(catalogue()) }

// dateTimes are the searchable fields whose values are RFC 3339 date-time
// strings: none, Intercom sends its times as Unix integers (created_at,
// updated_at…), which stay integers.
var dateTimes []string

func catalogue() []engine.Entity {
	var out []engine.Entity
	for _, s := range specs() {
		e := engine.Entity{
			Entity: tributary.Entity{Name: s.name, Doc: s.doc, Actions: []action{list, get},
				Params: map[action][]param{list: s.listParams, get: {idParam}}},
			Routes: map[action][]engine.Route{},
		}
		// Unpaged lists use the same style: their Meta is {"next_page": null}.
		rt := engine.Route{Path: s.path, Records: s.listKey, Paging: pagination.StartingAfter{}}
		if s.paged {
			rt.Walk = walkPerPage
		}
		e.Routes[list] = append(append([]engine.Route{}, s.routes...), rt)
		e.Routes[get] = []engine.Route{{Path: s.path + "/{id}"}}
		e.Feed, e.FeedRoute, e.Scope = s.feed, s.feedRoute, s.scope
		if s.searchable != nil {
			e.Actions = append(e.Actions, search)
			e.Params[search] = tributary.SearchParams()
			e.Searchable = s.searchable
		}
		out = append(out, e)
	}
	return engine.DateTimes(out, dateTimes...)
}

// Feed settings of Intercom's search endpoints.
const (
	// FeedOverlap is read again before the checkpoint on every sync:
	// records sharing the boundary second, clock skew.
	FeedOverlap = time.Minute
	// ContactSearchLookback covers Intercom's documented contact creation
	// delay: a contact may reach the search index minutes after it was
	// created (or changed).
	ContactSearchLookback = 10 * time.Minute
	// searchDay is the precision of Intercom's search on timestamps: it
	// matches by calendar day in the workspace's time zone.
	searchDay = 24 * time.Hour
)

// searchFeed is the change feed of contacts or conversations: POST
// {entity}/search on updated_at, oldest first, 150 a page. Intercom
// matches timestamps by calendar day in the workspace's time zone, and
// "updated_at > v" starts at the day after v's, so the query asks for
// updated_at > since less a day: whatever the time zone, that is the
// start of since's day or earlier, and every sync reads the changes of
// that whole day again (records are upserted by id). The search does not
// report deletions: those are found by full walks.
func searchFeed(entity string, lookback time.Duration) *tributary.Feed {
	return &tributary.Feed{
		Doc: "POST /" + entity + "/search on updated_at ascending (matched by calendar day: the day of the checkpoint is read again); " +
			"deletions are not reported (full walks find them)",
		Params:   searchFeedParams,
		Changed:  "updated_at",
		Overlap:  FeedOverlap,
		Lookback: lookback,
	}
}

// searchFeedParams is the body of a feed's first request: updated_at
// after the day before since's (Unix seconds; 0, every record, for a zero
// since), sorted on updated_at ascending, 150 a page.
// A base with updated_since (a copy limited to a start date) is a floor:
// while the day read again could start before it, the query is the
// floor's (startQuery), whose records updated before it are left out.
func searchFeedParams(base tributary.Params, since time.Time) tributary.Params {
	v := int64(0)
	if !since.IsZero() {
		v = max(since.Add(-searchDay).Unix(), 0)
	}
	query := updatedAfter(v)
	if floor, ok := base["updated_since"].(int64); ok && (since.IsZero() || v < floor) {
		// The day the query would read again starts before the floor.
		query = startQuery(floor)
	}
	return tributary.Params{
		"query":    query,
		"sort":     map[string]any{"field": "updated_at", "order": "ascending"},
		"per_page": int64(MaxPerPage),
	}
}

// updatedAfter is the search query updated_at > v.
func updatedAfter(v int64) map[string]any {
	return map[string]any{"field": "updated_at", "operator": ">", "value": v}
}

// searchRoute is a search endpoint read as a feed: the body's per_page and
// starting_after go into its pagination object; with a copy's start, the
// records updated before it are left out (keepUpdated).
func searchRoute(path, records string) *engine.Route {
	return &engine.Route{Method: "POST", Path: path, Body: true, Records: records, Paging: pagination.StartingAfter{}, Prepare: searchPagination, Keep: keepUpdated}
}

// updatedSince is the list param that limits a list to the records last
// updated at or after a time (a copy's replication_config.start_date).
func updatedSince(entity string) param {
	return param{Name: "updated_since", Type: tInt, Min: tributary.Bound(0),
		Doc: "only the records last updated at or after this Unix time (seconds), oldest first: the list is then read with POST /" + entity +
			"/search on updated_at (Intercom matches its day; the records of that day updated earlier are left out here)"}
}

// updatedRoute lists the records updated since a time (list param
// updated_since) with the entity's search: updated_at > the day before,
// as the feed asks (Intercom matches by day), oldest first, the records
// updated before the time left out.
func updatedRoute(path, records string) engine.Route {
	return engine.Route{Method: "POST", Path: path, When: []string{"updated_since"}, Body: true, Records: records,
		Paging: updatedPages{}, Keep: keepUpdated, Walk: walkPerPage,
		Prepare: func(p tributary.Params) tributary.Params {
			out := p.Clone()
			since, _ := out["updated_since"].(int64)
			delete(out, "updated_since")
			out["query"] = startQuery(since)
			out["sort"] = map[string]any{"field": "updated_at", "order": "ascending"}
			return searchPagination(out)
		}}
}

// startQuery is the search query of the records updated at or after
// start (Unix seconds): updated_at > the day before, which Intercom
// matches from the start of start's day in the workspace's time zone, at
// or before start. It is sent as a one-filter AND group, so that the
// records of that day before start can be told apart and left out
// (keepUpdated), unlike a feed's plain updated_at filter, whose whole day
// is read again on purpose.
func startQuery(start int64) map[string]any {
	return map[string]any{"operator": "AND", "value": []any{updatedAfter(start - int64(searchDay/time.Second))}}
}

// updatedBound is the start of a search body built by startQuery (false
// for any other body).
func updatedBound(p tributary.Params) (int64, bool) {
	q, _ := p["query"].(map[string]any)
	group, _ := q["value"].([]any)
	if q == nil || q["operator"] != "AND" || len(group) != 1 {
		return 0, false
	}
	f, _ := group[0].(map[string]any)
	if f["field"] != "updated_at" || f["operator"] != ">" {
		return 0, false
	}
	var v int64
	switch x := f["value"].(type) {
	case int64:
		v = x
	case float64: // a saved checkpoint's params, read back from JSON
		v = int64(x)
	case json.Number:
		v, _ = x.Int64()
	}
	return v + int64(searchDay/time.Second), true
}

// keepUpdated leaves out the records of a search built by startQuery
// that were updated before its start.
func keepUpdated(p tributary.Params, r tributary.Record) bool {
	b, ok := updatedBound(p)
	if !ok {
		return true
	}
	t, ok := r.IntAt("updated_at")
	return !ok || t >= b
}

// updatedPages is the paging of the lists of contacts and conversations:
// Intercom's starting_after cursor, whose next params, after a search by
// updated_since, are again the list's (updated_since, per_page,
// starting_after), not the search body they were sent as.
type updatedPages struct{}

// Page implements pagination.Style.
func (updatedPages) Page(r *pagination.Response) (map[string]any, map[string]any, error) {
	rr := *r
	if b, ok := updatedBound(tributary.Params(r.Params)); ok {
		rr.Params = map[string]any{"updated_since": b}
		if pg, ok := r.Params["pagination"].(map[string]any); ok && pg["per_page"] != nil {
			rr.Params["per_page"] = pg["per_page"]
		}
	}
	return pagination.StartingAfter{}.Page(&rr)
}

// startDateScope limits a copy of contacts or conversations to the
// records last updated at or after replication_config.start_date: one
// part, listed with updated_since (POST /{entity}/search). Without a start
// date the copy is every record, by the plain list.
func startDateScope(entity string) *tributary.Scope {
	return &tributary.Scope{
		Doc: "the " + entity + " last updated at or after replication_config.start_date (POST /" + entity + "/search on updated_at); every one without it",
		Parts: func(_ context.Context, _ tributary.Connector, config map[string]any) iter.Seq2[tributary.Part, error] {
			return func(yield func(tributary.Part, error) bool) {
				s, _ := config["start_date"].(string)
				if s == "" {
					yield(tributary.Part{Key: "all"}, nil)
					return
				}
				start, err := ParseStartDate(s)
				if err != nil {
					yield(tributary.Part{}, err)
					return
				}
				yield(tributary.Part{Key: "updated since " + start.String(), Params: tributary.Params{"updated_since": start.Time().Unix()}}, nil)
			}
		},
	}
}

// searchPagination moves per_page and starting_after (where the paging
// style puts the next page's cursor) into the search body's pagination
// object, as Intercom's search expects.
func searchPagination(p tributary.Params) tributary.Params {
	out := p.Clone()
	pg := map[string]any{}
	if old, ok := out["pagination"].(map[string]any); ok {
		maps.Copy(pg, old)
	}
	for _, k := range []string{"per_page", "starting_after"} {
		if v, ok := out[k]; ok {
			pg[k] = v
			delete(out, k)
		}
	}
	if len(pg) > 0 {
		out["pagination"] = pg
	}
	return out
}

// walkPerPage makes a full walk ask for the largest pages, unless the
// caller chose a page size.
var walkPerPage = engine.WalkPageSize("per_page", MaxPerPage)

// dropEmptyScrollParam opens a new scroll: GET /companies/scroll without
// scroll_param.
func dropEmptyScrollParam(p tributary.Params) tributary.Params {
	if s, _ := p["scroll_param"].(string); s != "" {
		return p
	}
	out := p.Clone()
	delete(out, "scroll_param")
	return out
}

// scrollPages is the paging of GET /companies/scroll: every response names
// the scroll_param of the next request; the first page with no companies
// ends the scroll. Meta: {"next_page": the scroll_param, or nil at the end}.
//
// Intercom keeps the same scroll_param for a whole scroll, so consecutive
// pages are asked for with the same params: walk a scroll with All (or by
// hand with Next), not with a pagination.Pager, whose repeated-params guard
// would stop it.
type scrollPages struct{}

// Page implements pagination.Style.
func (scrollPages) Page(r *pagination.Response) (map[string]any, map[string]any, error) {
	sp, ok := jsonx.String(r.Fields["scroll_param"])
	if r.Count == 0 || !ok || sp == "" {
		return map[string]any{"next_page": nil}, nil, nil
	}
	next := make(map[string]any, len(r.Params)+1)
	maps.Copy(next, r.Params)
	next["scroll_param"] = sp
	return map[string]any{"next_page": sp}, next, nil
}

// Searchable fields, as the catalogue names and types them (they run on a
// synchronized copy; see tributary.Searcher).
var (
	contactFields = concat(
		strs("type", "id", "workspace_id", "external_id", "role", "email", "phone", "name"),
		[]field{{Name: "avatar", Type: tString, Doc: "typed string by the catalogue; Intercom 2.11 sends an object {type, image_url} or null"},
			{Name: "owner_id", Type: tInt}, {Name: "social_profiles", Type: tAny},
			{Name: "has_hard_bounced", Type: tBool}, {Name: "marked_email_as_spam", Type: tBool}, {Name: "unsubscribed_from_emails", Type: tBool}},
		ints("created_at", "updated_at", "signed_up_at", "last_seen_at", "last_replied_at", "last_contacted_at", "last_email_opened_at", "last_email_clicked_at"),
		strs("language_override", "browser", "browser_version", "browser_language", "os"),
		[]field{{Name: "location", Type: tAny}},
		strs("android_app_name", "android_app_version", "android_device", "android_os_version", "android_sdk_version"),
		[]field{{Name: "android_last_seen_at", Type: tString, Doc: "typed string in the searchable set (an integer Unix time on records)"}},
		strs("ios_app_name", "ios_app_version", "ios_device", "ios_os_version", "ios_sdk_version"),
		ints("ios_last_seen_at"),
		[]field{{Name: "custom_attributes", Type: tObject}, {Name: "tags", Type: tAny}, {Name: "notes", Type: tAny}, {Name: "companies", Type: tAny},
			{Name: "opted_in_subscription_types", Type: tObject}, {Name: "opted_out_subscription_types", Type: tObject}},
		strs("referrer"),
		[]field{{Name: "sms_consent", Type: tBool}, {Name: "unsubscribed_from_sms", Type: tBool}},
		strs("utm_campaign", "utm_content", "utm_medium", "utm_source", "utm_term"),
	)
	conversationFields = concat(
		strs("type", "id", "title"),
		ints("created_at", "updated_at", "waiting_since", "snoozed_until"),
		[]field{{Name: "open", Type: tBool}, {Name: "state", Type: tString}, {Name: "read", Type: tBool}, {Name: "priority", Type: tString},
			{Name: "admin_assignee_id", Type: tInt},
			{Name: "team_assignee_id", Type: tInt, Doc: "an integer in the searchable set (the catalogue's record types it as a string)"}},
		anys("tags", "conversation_rating", "source", "contacts", "teammates", "first_contact_reply", "sla_applied", "statistics", "conversation_parts"),
		[]field{{Name: "custom_attributes", Type: tObject},
			{Name: "ai_agent", Type: tObject}, {Name: "ai_agent_participated", Type: tBool}, {Name: "assignee", Type: tObject},
			{Name: "conversation_message", Type: tObject}, {Name: "customer_first_reply", Type: tObject}, {Name: "customers", Type: tArray},
			{Name: "linked_objects", Type: tObject}, {Name: "redacted", Type: tBool}, {Name: "sent_at", Type: tInt},
			{Name: "topics", Type: tObject}, {Name: "user", Type: tObject}},
	)
	companyFields = concat(
		strs("type", "id", "name", "company_id"),
		[]field{{Name: "plan", Type: tAny}, {Name: "size", Type: tInt}, {Name: "industry", Type: tString}, {Name: "website", Type: tString}},
		ints("remote_created_at", "created_at", "updated_at", "last_request_at", "session_count"),
		[]field{{Name: "monthly_spend", Type: tNumber}, {Name: "user_count", Type: tInt}, {Name: "tags", Type: tAny}, {Name: "segments", Type: tAny},
			{Name: "custom_attributes", Type: tObject}, {Name: "app_id", Type: tString}},
	)
	teamFields = []field{{Name: "admin_ids", Type: tArray}, {Name: "id", Type: tString}, {Name: "name", Type: tString}, {Name: "type", Type: tString}}
)

func typed(t tributary.Type, names []string) []field {
	out := make([]field, len(names))
	for i, n := range names {
		out[i] = field{Name: n, Type: t}
	}
	return out
}

func strs(names ...string) []field { return typed(tString, names) }
func ints(names ...string) []field { return typed(tInt, names) }
func anys(names ...string) []field { return typed(tAny, names) }

func concat(parts ...[]field) []field {
	var out []field
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
