package mailchimp

import (
	"strings"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/pagination"
)

// Type is the connector_type of this kind.
const Type = "mailchimp"

// Paging limits of the Marketing API.
const (
	// DefaultCount is the page size Mailchimp uses when count is not given.
	DefaultCount = 10
	// MaxCount is the largest count Mailchimp accepts; a larger one is a
	// parameter error, raised before anything is sent.
	MaxCount = 1000
)

type (
	action = tributary.Action
	param  = tributary.Param
)

const (
	list   = tributary.ActionList
	get    = tributary.ActionGet
	search = tributary.ActionSearch
)

func strParam(name, doc string, enum ...string) param {
	return param{Name: name, Type: tributary.TypeString, Enum: enum, Doc: doc}
}

func required(name, doc string) param {
	return param{Name: name, Type: tributary.TypeString, Required: true, Doc: doc}
}

func boolParam(name, doc string) param {
	return param{Name: name, Type: tributary.TypeBoolean, Doc: doc}
}

// timeParam is an ISO 8601 time filter, e.g. 2015-10-21T15:41:36+00:00
// (see FormatTime).
func timeParam(name, doc string) param {
	return param{Name: name, Type: tributary.TypeString, Doc: doc + " (ISO 8601, e.g. 2015-10-21T15:41:36+00:00)"}
}

// pagingParams are count and offset, taken by every paged list.
var pagingParams = []param{
	{Name: "count", Type: tributary.TypeInteger, Default: DefaultCount, Min: tributary.Bound(1), Max: tributary.Bound(MaxCount),
		Doc: "records per page, default 10, at most 1000 (what a copy asks for)", PageSize: true},
	{Name: "offset", Type: tributary.TypeInteger, Default: 0, Min: tributary.Bound(0),
		Doc: "number of records to skip"},
}

var (
	listID        = required("list_id", "the list (audience) id")
	campaignID    = required("campaign_id", "the campaign id")
	categoryID    = required("interest_category_id", "the interest category id")
	segmentID     = param{Name: "segment_id", Type: tributary.TypeInteger, Required: true, Min: tributary.Bound(1), Doc: "the segment id"}
	sortDir       = strParam("sort_dir", "sort direction", "ASC", "DESC")
	campaignTypes = []string{"regular", "plaintext", "absplit", "rss", "variate"}
	offsetTotal   = pagination.OffsetTotal{OffsetParam: "offset", TotalField: "total_items"}
)

// emailActivityScope copies email_activity one campaign at a time (its
// list needs campaign_id): a part per report, each stamped with its
// campaign_id. The parent is the reports list, not campaigns: a report
// exists for every sent campaign, and only those have email activity
// (Mailchimp answers 404 for the others); a report's id is its campaign's.
//
// A record has no id, and its email_id (the recipient) repeats across
// campaigns: the entity's IDField is email_id and the copy keys records per
// part (PartIDs), by campaign and email_id.
var emailActivityScope = func() *tributary.Scope {
	s := tributary.ChildScope("the email activity of every sent campaign: one walk of GET /3.0/reports/{campaign_id}/email-activity per report of the reports list, each record with its campaign_id",
		"reports", "id", "campaign_id", "campaign")
	s.PartIDs = true
	return s
}()

// spec is one entity: its catalogue entry, record type and routes.
type spec struct {
	name       string
	doc        string
	record     any               // zero value of the typed record, for the searchable fields
	find       []tributary.Field // searchable fields when they are not the record's
	searchable bool
	listPath   string
	listKey    string
	listParams []param
	paging     pagination.Style // nil: offset/count with total_items
	getPath    string
	getParams  []param
	prepareGet func(tributary.Params) tributary.Params
	feed       *tributary.Feed // change feed; nil: kept by full walks
	scope      *tributary.Scope
}

func specs() []spec {
	return []spec{
		{name: "campaigns", doc: "Email campaigns.", record: Campaign{}, searchable: true,
			listPath: "/3.0/campaigns", listKey: "campaigns",
			listParams: []param{
				strParam("type", "only campaigns of this type", campaignTypes...),
				strParam("status", "only campaigns with this status", "save", "paused", "schedule", "sending", "sent"),
				timeParam("before_send_time", "only campaigns sent before this time"),
				timeParam("since_send_time", "only campaigns sent after this time"),
				timeParam("before_create_time", "only campaigns created before this time"),
				timeParam("since_create_time", "only campaigns created after this time"),
				strParam("list_id", "only campaigns sent to this list"),
				strParam("folder_id", "only campaigns in this folder"),
				strParam("sort_field", "sort field", "create_time", "send_time"),
				sortDir,
			},
			getPath: "/3.0/campaigns/{campaign_id}", getParams: []param{campaignID}},
		{name: "lists", doc: "Lists (audiences).", record: List{}, searchable: true,
			listPath: "/3.0/lists", listKey: "lists",
			listParams: []param{
				timeParam("before_date_created", "only lists created before this time"),
				timeParam("since_date_created", "only lists created after this time"),
				timeParam("before_campaign_last_sent", "only lists whose last campaign was sent before this time"),
				timeParam("since_campaign_last_sent", "only lists whose last campaign was sent after this time"),
				strParam("email", "only lists that include this subscriber address"),
				strParam("sort_field", "sort field", "date_created"),
				sortDir,
			},
			getPath: "/3.0/lists/{list_id}", getParams: []param{listID}},
		{name: "list_members", doc: "Members (contacts) of a list.", record: ListMember{},
			listPath: "/3.0/lists/{list_id}/members", listKey: "members",
			listParams: []param{
				listID,
				strParam("email_type", "only members who receive this email type", "html", "text"),
				strParam("status", "only members with this status", "subscribed", "unsubscribed", "cleaned", "pending", "transactional", "archived"),
				timeParam("since_timestamp_opt", "only members who opted in after this time"),
				timeParam("before_timestamp_opt", "only members who opted in before this time"),
				timeParam("since_last_changed", "only members whose data changed after this time"),
				timeParam("before_last_changed", "only members whose data changed before this time"),
				strParam("unique_email_id", "only the member with this unique email id"),
				boolParam("vip_only", "true: only VIP members; false: all members"),
				strParam("interest_category_id", "interest filter: the interest category (with interest_ids and interest_match)"),
				strParam("interest_ids", "interest filter: comma-separated interest ids (with interest_category_id and interest_match)"),
				strParam("interest_match", "interest filter: members with any, all or none of interest_ids", "any", "all", "none"),
				strParam("sort_field", "sort field", "timestamp_opt", "timestamp_signup", "last_changed"),
				sortDir,
			},
			getPath: "/3.0/lists/{list_id}/members/{subscriber_hash}",
			getParams: []param{listID, required("subscriber_hash",
				"MD5 hash of the lower-cased member address (see SubscriberHash); an email address is accepted and hashed before sending")},
			prepareGet: hashEmail,
			feed:       membersFeed},
		{name: "reports", doc: "Reports of sent campaigns.", record: Report{}, searchable: true,
			listPath: "/3.0/reports", listKey: "reports",
			listParams: []param{
				strParam("type", "only reports of campaigns of this type", campaignTypes...),
				timeParam("before_send_time", "only campaigns sent before this time"),
				timeParam("since_send_time", "only campaigns sent after this time"),
			},
			getPath: "/3.0/reports/{campaign_id}", getParams: []param{campaignID}},
		{name: "email_activity", doc: "Per-recipient activity (opens, clicks, bounces) of a sent campaign.", record: EmailActivity{}, searchable: true,
			find: []tributary.Field{
				{Name: "action", Type: tributary.TypeString, Doc: "open, click or bounce"},
				{Name: "campaign_id", Type: tributary.TypeString},
				{Name: "email_address", Type: tributary.TypeString},
				{Name: "email_id", Type: tributary.TypeString, Doc: "MD5 hash of the lower-cased member address"},
				{Name: "ip", Type: tributary.TypeString},
				{Name: "list_id", Type: tributary.TypeString},
				{Name: "list_is_active", Type: tributary.TypeBoolean},
				{Name: "timestamp", Type: tributary.TypeString, Doc: "ISO 8601"},
				{Name: "type", Type: tributary.TypeString, Doc: "hard or soft, when action is bounce"},
				{Name: "url", Type: tributary.TypeString, Doc: "when action is click"},
			},
			listPath: "/3.0/reports/{campaign_id}/email-activity", listKey: "emails",
			listParams: []param{campaignID, timeParam("since", "only events after this time")},
			scope:      emailActivityScope},
		{name: "automations", doc: "Classic automations.", record: Automation{},
			listPath: "/3.0/automations", listKey: "automations",
			listParams: []param{
				timeParam("before_create_time", "only automations created before this time"),
				timeParam("since_create_time", "only automations created after this time"),
				timeParam("before_start_time", "only automations started before this time"),
				timeParam("since_start_time", "only automations started after this time"),
				strParam("status", "only automations with this status", "save", "paused", "sending"),
			}},
		{name: "tags", doc: "Tags of a list, found by name prefix (not paged).", record: Tag{},
			listPath: "/3.0/lists/{list_id}/tag-search", listKey: "tags", paging: pagination.Total{Field: "total_items"},
			listParams: []param{listID, strParam("name", "only tags whose name starts with this text")}},
		{name: "interest_categories", doc: "Interest categories (group titles) of a list.", record: InterestCategory{},
			listPath: "/3.0/lists/{list_id}/interest-categories", listKey: "categories",
			listParams: []param{listID},
			getPath:    "/3.0/lists/{list_id}/interest-categories/{interest_category_id}", getParams: []param{listID, categoryID}},
		{name: "interests", doc: "Interests (group names) of an interest category.", record: Interest{},
			listPath: "/3.0/lists/{list_id}/interest-categories/{interest_category_id}/interests", listKey: "interests",
			listParams: []param{listID, categoryID},
			getPath:    "/3.0/lists/{list_id}/interest-categories/{interest_category_id}/interests/{interest_id}",
			getParams:  []param{listID, categoryID, required("interest_id", "the interest id")}},
		{name: "segments", doc: "Segments and tags (static segments) of a list.", record: Segment{},
			listPath: "/3.0/lists/{list_id}/segments", listKey: "segments",
			listParams: []param{
				listID,
				strParam("type", "only segments of this type", "saved", "static", "fuzzy"),
				timeParam("since_created_at", "only segments created after this time"),
				timeParam("before_created_at", "only segments created before this time"),
				timeParam("since_updated_at", "only segments updated after this time"),
				timeParam("before_updated_at", "only segments updated before this time"),
			},
			getPath: "/3.0/lists/{list_id}/segments/{segment_id}", getParams: []param{listID, segmentID}},
		{name: "segment_members", doc: "Members of a segment.", record: SegmentMember{},
			listPath: "/3.0/lists/{list_id}/segments/{segment_id}/members", listKey: "members",
			listParams: []param{
				listID, segmentID,
				boolParam("include_cleaned", "also list cleaned members"),
				boolParam("include_transactional", "also list transactional members"),
				boolParam("include_unsubscribed", "also list unsubscribed members"),
			}},
		{name: "unsubscribes", doc: "Members who unsubscribed from a sent campaign.", record: Unsubscribe{},
			listPath: "/3.0/reports/{campaign_id}/unsubscribed", listKey: "unsubscribes",
			listParams: []param{campaignID}},
	}
}

// catalogue builds the engine's view of the kind.
// Catalogue returns the email-marketing catalogue: every entity, its
// actions and their parameters, its searchable fields and its paging.
func Catalogue() []tributary.Entity { return engine.Catalogue(catalogue()) }

// dateTimes are the searchable fields whose values are RFC 3339 date-time
// strings, typed date-time in every entity that has them as strings.
var dateTimes = []string{"create_time", "send_time", "date_created", "rss_last_send", "timestamp"}

func catalogue() []engine.Entity {
	var out []engine.Entity
	for _, s := range specs() {
		e := engine.Entity{Entity: tributary.Entity{Name: s.name, Doc: s.doc, Params: map[action][]param{}}, Routes: map[action][]engine.Route{}}
		if s.listPath != "" {
			e.Actions = append(e.Actions, list)
			ps := append([]param{}, s.listParams...)
			style := s.paging
			if style == nil {
				ps = append(ps, pagingParams...)
				style = offsetTotal
			}
			e.Params[list] = ps
			e.Routes[list] = []engine.Route{{Path: s.listPath, Records: s.listKey, Paging: style}}
		}
		e.Feed = s.feed
		e.Scope = s.scope
		if s.name == "email_activity" {
			e.IDField = "email_id" // a recipient's; unique within a campaign
		}
		if s.getPath != "" {
			e.Actions = append(e.Actions, get)
			e.Params[get] = s.getParams
			e.Routes[get] = []engine.Route{{Path: s.getPath, Prepare: s.prepareGet}}
		}
		if s.searchable {
			e.Actions = append(e.Actions, search)
			e.Params[search] = tributary.SearchParams()
			e.Searchable = s.find
			if e.Searchable == nil {
				e.Searchable = engine.FieldsOf(s.record)
			}
		}
		out = append(out, e)
	}
	return engine.DateTimes(out, dateTimes...)
}

// hashEmail replaces an email address given as subscriber_hash by its
// subscriber hash, so that addresses never travel in URLs.
func hashEmail(p tributary.Params) tributary.Params {
	v, _ := p["subscriber_hash"].(string)
	if !strings.Contains(v, "@") {
		return p
	}
	out := p.Clone()
	out["subscriber_hash"] = SubscriberHash(v)
	return out
}
