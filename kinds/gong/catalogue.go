package gong

import (
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/pagination"
)

// Type is the connector_type of this kind.
const Type = "gong"

type (
	action = tributary.Action
	param  = tributary.Param
)

const (
	actList     = tributary.ActionList
	actGet      = tributary.ActionGet
	actSearch   = tributary.ActionSearch
	actDownload = tributary.ActionDownload
)

func str(name, doc string) param { return param{Name: name, Type: tributary.TypeString, Doc: doc} }

func required(p param) param {
	p.Required = true
	return p
}

func flag(name, doc string) param { return param{Name: name, Type: tributary.TypeBoolean, Doc: doc} }

func ids(name, doc string) param {
	return param{Name: name, Type: tributary.TypeArray, Items: &param{Type: tributary.TypeString}, Doc: doc}
}

func object(name, doc string, fields ...param) param {
	return param{Name: name, Type: tributary.TypeObject, Fields: fields, Doc: doc}
}

var (
	cursorParam = str("cursor", "records.cursor of the previous page (Gong pages by 100; the page size is fixed)")
	rangeHeader = str("range_header", "byte range to download: bytes=<first>-<last>, bytes=<first>- or bytes=-<n>")

	fromDateTime = str("fromDateTime", "ISO 8601 date-time: calls that started at or after it")
	toDateTime   = str("toDateTime", "ISO 8601 date-time: calls that started before it (exclusive)")
	workspaceID  = str("workspaceId", "only those of this workspace")
	callIDs      = ids("callIds", "only these calls (Gong call ids)")

	// exposedFields is contentSelector.exposedFields of /v2/calls/extensive:
	// which parts of each call Gong adds to metaData.
	exposedFields = object("exposedFields", "parts of each call to return",
		object("collaboration", "collaboration data",
			flag("publicComments", "public comments on the call")),
		object("content", "content data",
			flag("pointsOfInterest", "points of interest; deprecated by Gong in favour of highlights"),
			flag("structure", "agenda of each part of the call"),
			flag("topics", "topics and their duration"),
			flag("trackers", "smart and keyword trackers"),
			flag("trackerOccurrences", "timing and speaker of each tracker occurrence (with trackers)"),
			flag("brief", "the call's brief"),
			flag("outline", "the call's outline"),
			flag("highlights", "the call's highlights"),
			flag("callOutcome", "the call's outcome"),
			flag("keyPoints", "the call's key points")),
		object("interaction", "interaction data",
			flag("personInteractionStats", "interaction statistics (talk ratio, longest monologue, ...)"),
			flag("questions", "question counts"),
			flag("speakers", "talk time per speaker"),
			flag("video", "video statistics")),
		flag("media", "pre-signed audio and video URLs, valid for 8 hours"),
		flag("parties", "the call's participants"),
	)

	contentSelector = object("contentSelector", "what to return of each call",
		param{Name: "context", Type: tributary.TypeString, Enum: []string{"None", "Basic", "Extended"},
			Doc: "links to external systems (Basic) and their data (Extended)"},
		param{Name: "contextTiming", Type: tributary.TypeArray, Items: &param{Type: tributary.TypeString, Enum: []string{"Now", "TimeOfCall"}},
			Doc: "timing of the context data; Gong's default is [Now]"},
		exposedFields,
	)

	// mediaParams are the params of call_audio and call_video downloads:
	// exactly one call id, and exposedFields.media, which must be true.
	mediaParams = []param{
		required(object("filter", "the call",
			param{Name: "callIds", Type: tributary.TypeArray, Items: &param{Type: tributary.TypeString}, Required: true,
				Min: tributary.Bound(1), Max: tributary.Bound(1), Doc: "the id of the one call to download"})),
		required(object("contentSelector", "must ask for the media URLs",
			required(object("exposedFields", "must ask for the media URLs",
				param{Name: "media", Type: tributary.TypeBoolean, Required: true, Doc: "must be true"})))),
		rangeHeader,
	}

	// statsFilter is the filter of the activity and interaction statistics.
	// Gong requires the filter with both dates.
	statsFilter = required(object("filter", "period and users",
		required(str("fromDate", "YYYY-MM-DD, inclusive, in the company's time zone")),
		required(str("toDate", "YYYY-MM-DD, exclusive, in the company's time zone; not after today")),
		ids("userIds", "only these users (Gong user ids)"),
	))
)

// spec is one entity: its catalogue entry, record type and routes.
type spec struct {
	name       string
	doc        string
	record     any               // zero value of the typed record (searchable fields)
	searchable []tributary.Field // explicit searchable fields; nil: those of record
	search     bool
	list       []param
	listRoute  engine.Route
	get        []param
	getRoute   engine.Route
	download   []param
	dlRoute    engine.Route
	scope      *tributary.Scope
}

// pagedGET and pagedPOST are Gong's two paged request shapes: the cursor
// goes in the query of a GET and in the JSON body of a POST, where every
// other input is repeated.
func pagedGET(path, key string) engine.Route {
	return engine.Route{Path: path, Records: key, Paging: pagination.RecordsCursor{}}
}

func pagedPOST(path, key string) engine.Route {
	return engine.Route{Method: "POST", Path: path, Records: key, Paging: pagination.RecordsCursor{}, Body: true}
}

func unpaged(path, key string) engine.Route { return engine.Route{Path: path, Records: key} }

func mediaRoute(field string) engine.Route {
	return engine.Route{Method: "POST", Path: "/v2/calls/extensive", Body: true, FileURL: []string{"calls", "0", "media", field}}
}

func specs() []spec {
	return []spec{
		{name: "users", doc: "Gong users.", record: User{}, search: true,
			list: []param{cursorParam, flag("includeAvatars", "add each user's avatar URL")}, listRoute: pagedGET("/v2/users", "users"),
			get: []param{required(str("id", "Gong user id"))}, getRoute: engine.Route{Path: "/v2/users/{id}", Records: "user"}},
		{name: "calls", doc: "Calls: basic data.", record: Call{}, search: true,
			list:      []param{fromDateTime, toDateTime, workspaceID, cursorParam},
			listRoute: pagedGET("/v2/calls", "calls"),
			get:       []param{required(str("id", "Gong call id"))}, getRoute: engine.Route{Path: "/v2/calls/{id}", Records: "call"}},
		{name: "calls_extensive", doc: "Calls with the parts the content selector asks for (parties, content, interaction, collaboration, media).",
			record: CallExtensive{}, search: true,
			searchable: []tributary.Field{
				{Name: "id", Type: tributary.TypeInteger, Doc: "the call id"},
				{Name: "startdatetime", Type: tributary.TypeString, Doc: "when the call started"},
				{Name: "collaboration", Type: tributary.TypeObject},
				{Name: "content", Type: tributary.TypeObject},
				{Name: "context", Type: tributary.TypeObject},
				{Name: "interaction", Type: tributary.TypeObject},
				{Name: "media", Type: tributary.TypeObject},
				{Name: "metaData", Type: tributary.TypeObject, Doc: "the call's basic data"},
				{Name: "parties", Type: tributary.TypeArray},
			},
			list: []param{
				required(object("filter", "which calls; Gong requires it ({} selects every call)",
					fromDateTime, toDateTime, callIDs, workspaceID,
					ids("primaryUserIds", "only calls hosted by these users"))),
				contentSelector, cursorParam,
			},
			listRoute: pagedPOST("/v2/calls/extensive", "calls"), scope: callsExtensiveScope},
		{name: "call_audio", doc: "A call's audio file (two steps: its URL from /v2/calls/extensive, then the file from Gong's media host).",
			download: mediaParams, dlRoute: mediaRoute("audioUrl")},
		{name: "call_video", doc: "A call's video file (two steps: its URL from /v2/calls/extensive, then the file from Gong's media host).",
			download: mediaParams, dlRoute: mediaRoute("videoUrl")},
		{name: "workspaces", doc: "Workspaces of the company.", record: Workspace{},
			listRoute: unpaged("/v2/workspaces", "workspaces")},
		{name: "call_transcripts", doc: "Call transcripts.", record: CallTranscript{},
			list: []param{
				required(object("filter", "which calls: callIds, or fromDateTime and toDateTime",
					fromDateTime, toDateTime, callIDs, workspaceID)),
				cursorParam,
			},
			listRoute: pagedPOST("/v2/calls/transcript", "callTranscripts")},
		{name: "stats_activity_aggregate", doc: "Each user's activity totals over a period.", record: StatsActivityAggregate{},
			list: []param{statsFilter, cursorParam}, listRoute: pagedPOST("/v2/stats/activity/aggregate", "usersAggregateActivityStats")},
		{name: "stats_activity_day_by_day", doc: "Each user's activity, day by day.", record: StatsActivityDayByDay{},
			list: []param{statsFilter, cursorParam}, listRoute: pagedPOST("/v2/stats/activity/day-by-day", "usersDetailedActivities")},
		{name: "stats_interaction", doc: "Each user's interaction statistics, from calls with real-time guidance turned on.", record: StatsInteraction{},
			list: []param{statsFilter, cursorParam}, listRoute: pagedPOST("/v2/stats/interaction", "peopleInteractionStats")},
		{name: "settings_scorecards", doc: "Scorecard definitions.", record: SettingsScorecard{}, search: true,
			searchable: []tributary.Field{
				{Name: "created", Type: tributary.TypeString}, {Name: "enabled", Type: tributary.TypeBoolean},
				{Name: "questions", Type: tributary.TypeArray}, {Name: "scorecardId", Type: tributary.TypeString},
				{Name: "scorecardName", Type: tributary.TypeString}, {Name: "updated", Type: tributary.TypeString},
				{Name: "updaterUserId", Type: tributary.TypeString}, {Name: "workspaceId", Type: tributary.TypeString},
			},
			list: []param{workspaceID}, listRoute: unpaged("/v2/settings/scorecards", "scorecards")},
		{name: "settings_trackers", doc: "Keyword trackers.", record: SettingsTracker{},
			list: []param{workspaceID}, listRoute: unpaged("/v2/settings/trackers", "keywordTrackers")},
		{name: "library_folders", doc: "Public call-library folders of a workspace.", record: LibraryFolder{},
			list: []param{required(str("workspaceId", "the workspace"))}, listRoute: unpaged("/v2/library/folders", "folders")},
		{name: "library_folder_content", doc: "The calls of a call-library folder.", record: LibraryFolderContent{},
			list:      []param{required(str("folderId", "the folder")), cursorParam},
			listRoute: pagedGET("/v2/library/folder-content", "calls")},
		{name: "coaching", doc: "Coaching metrics of a manager and their direct reports.", record: Coaching{},
			list: []param{
				required(str("workspace-id", "the workspace")),
				required(str("manager-id", "the manager (Gong user id)")),
				required(str("from", "ISO 8601 date-time: start of the period")),
				required(str("to", "ISO 8601 date-time: end of the period")),
			},
			listRoute: unpaged("/v2/coaching", "coachingData")},
		{name: "stats_activity_scorecards", doc: "Answered scorecards.", record: StatsActivityScorecard{}, search: true,
			searchable: []tributary.Field{
				{Name: "answeredScorecardId", Type: tributary.TypeString}, {Name: "answers", Type: tributary.TypeArray},
				{Name: "callId", Type: tributary.TypeString}, {Name: "callStartTime", Type: tributary.TypeString},
				{Name: "reviewTime", Type: tributary.TypeString}, {Name: "reviewedUserId", Type: tributary.TypeString},
				{Name: "reviewerUserId", Type: tributary.TypeString}, {Name: "scorecardId", Type: tributary.TypeString},
				{Name: "scorecardName", Type: tributary.TypeString}, {Name: "visibilityType", Type: tributary.TypeString},
			},
			list: []param{
				object("filter", "which answered scorecards; sent as {} when omitted, as Gong requires a filter",
					str("fromDateTime", "ISO 8601 date-time: calls that started at or after it"),
					str("toDateTime", "ISO 8601 date-time: calls that started before it"),
					ids("scorecardIds", "only these scorecards"),
					ids("reviewedUserIds", "only reviews of these users (the calls' hosts)"),
					ids("reviewerUserIds", "only reviews by these users"),
					callIDs,
					str("callFromDate", "YYYY-MM-DD: calls on or after this day (Gong's documented name)"),
					str("callToDate", "YYYY-MM-DD: calls before this day (Gong's documented name)"),
					str("reviewFromDate", "YYYY-MM-DD: reviews on or after this day"),
					str("reviewToDate", "YYYY-MM-DD: reviews before this day"),
				),
				cursorParam,
			},
			listRoute: withFilter(pagedPOST("/v2/stats/activity/scorecards", "answeredScorecards"))},
	}
}

// callsExtensiveScope copies every call with the parts its searchable
// fields name: the empty filter, which Gong reads as every call from the
// earliest, and a content selector asking for the context (Extended),
// parties, content, interaction and public comments. Media URLs are left
// out: they expire after 8 hours, so a copy would keep dead links (and an
// OAuth token needs api:calls:read:media-url for them); call_audio and
// call_video fetch them when needed.
var callsExtensiveScope = &tributary.Scope{
	Doc: "every call (POST /v2/calls/extensive with filter {}) with its context, parties, content, interaction and public comments; no media URLs",
	Params: func() tributary.Params {
		return tributary.Params{
			"filter": map[string]any{},
			"contentSelector": map[string]any{
				"context":       "Extended",
				"contextTiming": []any{"Now"},
				"exposedFields": map[string]any{
					"parties":       true,
					"collaboration": map[string]any{"publicComments": true},
					"content": map[string]any{"structure": true, "topics": true, "trackers": true, "trackerOccurrences": true,
						"brief": true, "outline": true, "highlights": true, "callOutcome": true, "keyPoints": true},
					"interaction": map[string]any{"personInteractionStats": true, "questions": true, "speakers": true, "video": true},
				},
			},
		}
	},
}

// withFilter makes a route send "filter": {} when the caller gave none:
// Gong rejects a body without it.
func withFilter(rt engine.Route) engine.Route {
	rt.Prepare = func(p tributary.Params) tributary.Params {
		if _, ok := p["filter"]; ok {
			return p
		}
		out := p.Clone()
		if out == nil {
			out = tributary.Params{}
		}
		out["filter"] = map[string]any{}
		return out
	}
	return rt
}

// Catalogue returns the call-analytics catalogue: every entity, its actions
// and their parameters (nested where Gong nests them), its searchable
// fields and its paging.
func Catalogue() []tributary.Entity { return engine.Catalogue(catalogue(DefaultFeedLookback)) }

// idFields are the ids of the records that have no top-level "id": a copy
// keys them by it (a scorecard's creation time, the first searchable
// field, is shared by scorecards created together).
var idFields = map[string]string{
	"settings_scorecards":       "scorecardId",
	"stats_activity_scorecards": "answeredScorecardId",
	"calls_extensive":           "metaData.id",
}

// catalogue builds the engine's view of the kind; lookback is that of the
// calls feeds.

// dateTimes are the searchable fields whose values are RFC 3339 date-time
// strings, typed date-time in every entity that has them as strings.
var dateTimes = []string{"started", "scheduled", "startdatetime", "created", "updated", "callStartTime", "reviewTime"}

func catalogue(lookback time.Duration) []engine.Entity {
	var out []engine.Entity
	for _, s := range specs() {
		e := engine.Entity{Entity: tributary.Entity{Name: s.name, Doc: s.doc, Params: map[action][]param{}}, Routes: map[action][]engine.Route{}}
		if s.listRoute.Path != "" {
			e.Actions = append(e.Actions, actList)
			e.Params[actList] = s.list
			e.Routes[actList] = []engine.Route{s.listRoute}
		}
		if s.getRoute.Path != "" {
			e.Actions = append(e.Actions, actGet)
			e.Params[actGet] = s.get
			e.Routes[actGet] = []engine.Route{s.getRoute}
		}
		if s.search {
			e.Actions = append(e.Actions, actSearch)
			e.Params[actSearch] = tributary.SearchParams()
			e.Searchable = s.searchable
			if e.Searchable == nil {
				e.Searchable = engine.FieldsOf(s.record)
			}
		}
		if s.dlRoute.Path != "" {
			e.Actions = append(e.Actions, actDownload)
			e.Params[actDownload] = s.download
			e.Routes[actDownload] = []engine.Route{s.dlRoute}
		}
		e.Scope = s.scope
		switch s.name {
		case "calls":
			e.Feed = callsFeed(lookback)
		case "calls_extensive":
			e.Feed = callsExtensiveFeed(lookback)
		}
		e.IDField = idFields[s.name]
		for _, a := range e.Actions {
			if rule := ruleOf(s.name, a); rule != nil {
				if e.Rules == nil {
					e.Rules = map[action]func(tributary.Params) (string, string){}
				}
				e.Rules[a] = rule
			}
		}
		out = append(out, e)
	}
	return engine.DateTimes(out, dateTimes...)
}
