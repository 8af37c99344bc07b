package hubspot

import (
	"slices"
	"strconv"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/pagination"
)

type (
	action = tributary.Action
	param  = tributary.Param
)

const (
	list      = tributary.ActionList
	get       = tributary.ActionGet
	search    = tributary.ActionSearch
	apiSearch = tributary.ActionAPISearch
)

// Limits of HubSpot's CRM API that the catalogue enforces before sending.
const (
	// MaxListLimit is the largest page of the objects lists.
	MaxListLimit = 100
	// MaxSearchLimit is the largest page of a search.
	MaxSearchLimit = 200
	// MaxOwnersLimit is the largest page of the owners list.
	MaxOwnersLimit = 500
	// SearchResultCap is how far one search query can page: HubSpot answers
	// 400 for an after of 10,000 or more. SearchAll re-windows past it.
	SearchResultCap = 10_000
	// MaxFilterGroups, MaxFiltersPerGroup and MaxFilters bound a search's
	// filterGroups.
	MaxFilterGroups    = 5
	MaxFiltersPerGroup = 10
	MaxFilters         = 25
)

// Operators are the filter operators of HubSpot's search.
var Operators = []string{"EQ", "NEQ", "LT", "LTE", "GT", "GTE", "BETWEEN", "IN", "NOT_IN",
	"HAS_PROPERTY", "NOT_HAS_PROPERTY", "CONTAINS_TOKEN", "NOT_CONTAINS_TOKEN"}

func str(name, doc string) param { return param{Name: name, Type: tributary.TypeString, Doc: doc} }

func required(name, doc string) param {
	return param{Name: name, Type: tributary.TypeString, Required: true, Doc: doc}
}

func strList(name, doc string) param {
	return param{Name: name, Type: tributary.TypeArray, Items: &param{Type: tributary.TypeString}, Doc: doc}
}

var (
	archivedList = param{Name: "archived", Type: tributary.TypeBoolean, Default: false, Doc: "list only archived (deleted) records instead of live ones"}
	archivedGet  = param{Name: "archived", Type: tributary.TypeBoolean, Default: false, Doc: "read the record among the archived (deleted) ones"}
	properties   = strList("properties", "properties to return (sent comma-separated); without it, the object type's default properties; unknown names are ignored")
	history      = strList("propertiesWithHistory", "properties to return with their previous values (lists then page at most 50 records)")
	associations = strList("associations", "object types whose associated record ids to return, e.g. companies, deals; unknown types are ignored")
	after        = str("after", "paging cursor: the next_cursor of the previous page (HubSpot's paging.next.after)")
)

// objectListParams are the params of every list on /crm/v3/objects/{objectType}.
func objectListParams() []param {
	return []param{
		{Name: "limit", Type: tributary.TypeInteger, Min: tributary.Bound(1), Max: tributary.Bound(MaxListLimit), Default: 10,
			Doc: "records per page, 1 to 100 (HubSpot's default 10)"},
		after, properties, history, associations, archivedList,
	}
}

// objectGetParams are the params of every get on /crm/v3/objects/{objectType}/{id}.
func objectGetParams(id ...param) []param {
	return append(id,
		properties, history, associations,
		str("idProperty", "a property with unique values (e.g. email for contacts) whose value the id is; default hs_object_id, the record id"),
		archivedGet)
}

// searchParams are the params of api_search: HubSpot's own search body.
func searchParams() []param {
	filter := param{Type: tributary.TypeObject, Fields: []param{
		required("propertyName", "the property to test"),
		{Name: "operator", Type: tributary.TypeString, Required: true, Enum: Operators, Doc: "comparison"},
		{Name: "value", Type: tributary.TypeAny, Doc: "the value to compare with (dates as epoch milliseconds or ISO 8601)"},
		{Name: "highValue", Type: tributary.TypeAny, Doc: "upper bound of BETWEEN"},
		{Name: "values", Type: tributary.TypeArray, Doc: "values of IN and NOT_IN"},
	}}
	group := param{Type: tributary.TypeObject, Fields: []param{
		{Name: "filters", Type: tributary.TypeArray, Required: true, Max: tributary.Bound(MaxFiltersPerGroup), Items: &filter,
			Doc: "filters that must all match (AND), at most 10"},
	}}
	return []param{
		{Name: "filterGroups", Type: tributary.TypeArray, Max: tributary.Bound(MaxFilterGroups), Items: &group,
			Doc: "groups of filters of which one must match (OR), at most 5, with at most 25 filters in all"},
		{Name: "sorts", Type: tributary.TypeArray, Items: &param{Type: tributary.TypeAny},
			Doc: `sort rule: [{"propertyName": "createdate", "direction": "ASCENDING"|"DESCENDING"}] (HubSpot applies one)`},
		str("query", "text searched in the object type's default searchable properties (at most 3000 characters)"),
		strList("properties", "properties to return; without it, the object type's default properties"),
		{Name: "limit", Type: tributary.TypeInteger, Min: tributary.Bound(1), Max: tributary.Bound(MaxSearchLimit), Default: 10,
			Doc: "records per page, 1 to 200 (HubSpot's default 10)"},
		str("after", "paging cursor: the next_cursor of the previous page, an offset below 10,000"),
	}
}

// crmFields are the searchable fields of a CRM object entity (the
// context-store fields): the record's top-level fields, the associated
// object types, and the properties the replica keeps.
func crmFields(assoc []string, props ...string) []tributary.Field {
	out := []tributary.Field{
		{Name: "archived", Type: tributary.TypeBoolean, Doc: "whether the record is archived"},
	}
	for _, a := range assoc {
		out = append(out, tributary.Field{Name: a, Type: tributary.TypeArray, Doc: "ids of the associated " + a})
	}
	out = append(out,
		tributary.Field{Name: "createdAt", Type: tributary.TypeString, Doc: "creation time, RFC 3339"},
		tributary.Field{Name: "id", Type: tributary.TypeString, Doc: "record id"},
		tributary.Field{Name: "properties", Type: tributary.TypeObject, Doc: "property values, all strings"},
	)
	for _, p := range props {
		out = append(out, tributary.Field{Name: "properties." + p, Type: tributary.TypeString, Doc: "property " + p + " (HubSpot sends every value as a string)"})
	}
	return append(out, tributary.Field{Name: "updatedAt", Type: tributary.TypeString, Doc: "last modification time, RFC 3339"})
}

// objectSpec is one entity over /crm/v3/objects/{objectType}.
type objectSpec struct {
	name, doc, idParam, idDoc string
	// searchable entities offer api_search and search.
	searchable []tributary.Field
}

func objectSpecs() []objectSpec {
	return []objectSpec{
		{name: "contacts", idParam: "contactId", idDoc: "contact id (or the idProperty value)",
			doc:        "Contacts (object type 0-1): people.",
			searchable: crmFields([]string{"companies"}, "associatedcompanyid", "createdate", "email", "firstname", "hs_object_id", "hubspot_owner_id", "lastmodifieddate", "lastname")},
		{name: "companies", idParam: "companyId", idDoc: "company id (or the idProperty value)",
			doc:        "Companies (object type 0-2): organizations.",
			searchable: crmFields([]string{"contacts"}, "createdate", "domain", "hs_lastmodifieddate", "hs_object_id", "hubspot_owner_id", "name")},
		{name: "deals", idParam: "dealId", idDoc: "deal id (or the idProperty value)",
			doc:        "Deals (object type 0-3): sales opportunities moving through a pipeline.",
			searchable: crmFields([]string{"companies", "contacts", "line_items"}, "amount", "closedate", "createdate", "dealname", "dealstage", "hs_lastmodifieddate", "hs_object_id", "hubspot_owner_id", "pipeline")},
		{name: "tickets", idParam: "ticketId", idDoc: "ticket id (or the idProperty value)",
			doc:        "Tickets (object type 0-5): support requests moving through a pipeline.",
			searchable: crmFields([]string{"companies", "contacts"}, "content", "createdate", "hs_lastmodifieddate", "hs_object_id", "hs_pipeline", "hs_pipeline_stage", "hs_ticket_category", "hs_ticket_priority", "subject")},
		{name: "notes", idParam: "noteId", idDoc: "note id", doc: "Notes (engagement object type 0-46)."},
		{name: "calls", idParam: "callId", idDoc: "call id", doc: "Logged calls (engagement object type 0-48)."},
		{name: "emails", idParam: "emailId", idDoc: "email id", doc: "Logged emails (engagement object type 0-49)."},
		{name: "meetings", idParam: "meetingId", idDoc: "meeting id", doc: "Meetings (engagement object type 0-47)."},
		{name: "tasks", idParam: "taskId", idDoc: "task id", doc: "Tasks (engagement object type 0-27)."},
	}
}

// FeedOverlap is read again before the checkpoint on every sync of a
// HubSpot feed: records that share the boundary millisecond, clock skew,
// and the search index catching up with recent writes.
const FeedOverlap = time.Minute

// feed is the change feed of a searchable CRM object entity: a search on
// its last-modified property (ModifiedProperty), at or after since,
// ascending, 200 a page, re-windowed past the 10,000-result cap; archived
// (deleted) records are read from the list with archived=true.
func feed(entity string) *tributary.Feed {
	prop := ModifiedProperty(entity)
	return &tributary.Feed{
		Doc: "CRM search on " + prop + " ascending, each page a query from the latest time read (offsets skip records that change during a pass; the 10,000-result cap never binds); " +
			"deletions are the archived records (list with archived=true)",
		Action: apiSearch,
		Params: func(base tributary.Params, since time.Time) tributary.Params {
			return feedParams(prop, base, since)
		},
		Changed: "properties." + prop,
		Overlap: FeedOverlap,
		Cap:     SearchResultCap,
		Keyset:  true,
		Deletions: &tributary.Feed{
			Doc: "archived records: list with archived=true",
			Params: func(base tributary.Params, _ time.Time) tributary.Params {
				p := tributary.Params{"archived": true, "limit": MaxListLimit}
				if v, ok := base["properties"]; ok {
					p["properties"] = v
				}
				return p
			},
		},
	}
}

// feedParams is the search body of a feed's first request: the records
// whose prop is at or after since (all of them for a zero since), sorted
// on it ascending, 200 a page. The properties of base, if any, are asked
// for, with prop.
func feedParams(prop string, base tributary.Params, since time.Time) tributary.Params {
	p := tributary.Params{
		"sorts": []any{map[string]any{"propertyName": prop, "direction": "ASCENDING"}},
		"limit": MaxSearchLimit,
	}
	if !since.IsZero() {
		p["filterGroups"] = []any{map[string]any{"filters": []any{
			map[string]any{"propertyName": prop, "operator": "GTE", "value": strconv.FormatInt(since.UnixMilli(), 10)},
		}}}
	}
	if props, ok := base["properties"].([]any); ok {
		out := append([]any{}, props...)
		if !slices.Contains(out, any(prop)) {
			out = append(out, prop)
		}
		p["properties"] = out
	} else if props, ok := base["properties"].([]string); ok {
		out := make([]any, 0, len(props)+1)
		for _, x := range props {
			out = append(out, x)
		}
		if !slices.Contains(props, prop) {
			out = append(out, prop)
		}
		p["properties"] = out
	}
	return p
}

// apiPaths builds HubSpot's paths for one API version: "v3"
// (/crm/v3/objects) or a date version (/crm/objects/2026-03).
type apiPaths struct{ version string }

func (p apiPaths) crm(api string) string {
	if p.version == "v3" {
		return "/crm/v3/" + api
	}
	return "/crm/" + api + "/" + p.version
}

func (p apiPaths) schemas() string { return "/crm-object-schemas/" + p.version + "/schemas" }

var paged = pagination.PagingNextAfter{}

// Catalogue returns the marketing-CRM catalogue (CRM v3 paths): every
// entity, its actions and their parameters, its searchable fields and its
// paging.
func Catalogue() []tributary.Entity { return engine.Catalogue(catalogue("v3")) }

// catalogue builds the engine's view of the kind for an API version.

// dateTimes are the searchable fields whose values are RFC 3339 date-time
// strings, typed date-time in every entity that has them as strings.
var dateTimes = []string{"createdAt", "updatedAt", "properties.createdate", "properties.lastmodifieddate", "properties.hs_lastmodifieddate", "properties.closedate"}

func catalogue(version string) []engine.Entity {
	p := apiPaths{version}
	objects := p.crm("objects")
	var out []engine.Entity
	for _, s := range objectSpecs() {
		e := engine.Entity{
			Entity: tributary.Entity{Name: s.name, Doc: s.doc, Actions: []action{list, get}, Params: map[action][]param{
				list: objectListParams(),
				get:  objectGetParams(required(s.idParam, s.idDoc)),
			}},
			Routes: map[action][]engine.Route{
				list: {{Path: objects + "/" + s.name, Records: "results", Paging: paged}},
				get:  {{Path: objects + "/" + s.name + "/{" + s.idParam + "}"}},
			},
		}
		if s.searchable != nil {
			e.Actions = append(e.Actions, apiSearch, search)
			e.Params[apiSearch] = searchParams()
			e.Params[search] = tributary.SearchParams()
			e.Searchable = s.searchable
			e.Routes[apiSearch] = []engine.Route{{Method: "POST", Path: objects + "/" + s.name + "/search", Body: true, Records: "results", Paging: paged}}
			e.Feed = feed(s.name)
		}
		out = append(out, e)
	}
	objectType := required("objectType", "object type: a name (contacts, cars), a fully qualified name (p12345_cars) or a type id (0-1, 2-12345)")
	out = append(out,
		engine.Entity{
			Entity: tributary.Entity{Name: "owners", Doc: "Owners: the users and queues records can be assigned to (hubspot_owner_id).",
				Actions: []action{list, get}, Params: map[action][]param{
					list: {
						{Name: "limit", Type: tributary.TypeInteger, Min: tributary.Bound(1), Max: tributary.Bound(MaxOwnersLimit), Default: 100, Doc: "owners per page, 1 to 500 (HubSpot's default 100)"},
						after,
						str("email", "only the owner with this email address"),
						{Name: "archived", Type: tributary.TypeBoolean, Default: false, Doc: "list only archived owners (deactivated users)"},
					},
					get: {
						required("ownerId", "owner id (or user id with idProperty userId)"),
						{Name: "idProperty", Type: tributary.TypeString, Enum: []string{"id", "userId"}, Default: "id", Doc: "whether ownerId is the owner id or the user id"},
						{Name: "archived", Type: tributary.TypeBoolean, Default: false, Doc: "read an archived owner"},
					},
				}},
			Routes: map[action][]engine.Route{
				list: {{Path: p.crm("owners"), Records: "results", Paging: paged}},
				get:  {{Path: p.crm("owners") + "/{ownerId}"}},
			},
		},
		engine.Entity{
			Entity: tributary.Entity{Name: "pipelines", Doc: "Pipelines of an object type (deals, tickets, ...) with their stages; not paged.",
				Actions: []action{list, get}, Params: map[action][]param{
					list: {required("objectType", "object type whose pipelines to list: deals, tickets, ...")},
					get:  {required("objectType", "object type of the pipeline"), required("pipelineId", "pipeline id (default, 0, or a number)")},
				}},
			Routes: map[action][]engine.Route{
				list: {{Path: p.crm("pipelines") + "/{objectType}", Records: "results"}},
				get:  {{Path: p.crm("pipelines") + "/{objectType}/{pipelineId}"}},
			},
		},
		engine.Entity{
			Entity: tributary.Entity{Name: "schemas", Doc: "Custom object schemas (object type definitions); not paged.",
				Actions: []action{list, get}, Params: map[action][]param{
					list: {{Name: "archived", Type: tributary.TypeBoolean, Default: false, Doc: "list only archived schemas"}},
					get:  {required("objectType", "fully qualified name (p12345_cars) or object type id (2-12345)")},
				}},
			Routes: map[action][]engine.Route{
				list: {{Path: p.schemas(), Records: "results"}},
				get:  {{Path: p.schemas() + "/{objectType}"}},
			},
		},
		engine.Entity{
			Entity: tributary.Entity{Name: "objects", Doc: "Records of any CRM object type, custom ones included.",
				Actions: []action{list, get}, Params: map[action][]param{
					list: append([]param{objectType}, objectListParams()...),
					get:  objectGetParams(objectType, required("objectId", "record id (or the idProperty value)")),
				}},
			Routes: map[action][]engine.Route{
				list: {{Path: objects + "/{objectType}", Records: "results", Paging: paged}},
				get:  {{Path: objects + "/{objectType}/{objectId}"}},
			},
		},
	)
	return engine.DateTimes(out, dateTimes...)
}
