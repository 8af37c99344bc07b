package salesforce

import (
	"net/http"
	"slices"
	"strings"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/pagination"
)

// Type is the connector_type of this kind.
const Type = "salesforce"

// DefaultAPIVersion is the REST API version requests use unless
// WithAPIVersion says otherwise (Summer '26).
const DefaultAPIVersion = "v67.0"

// PageSize is the number of records a list asks for per page (the
// Sforce-Query-Options batchSize); a query with its own LIMIT may return
// fewer, and Salesforce treats the batch size as a hint.
const PageSize = 200

const (
	list           = tributary.ActionList
	get            = tributary.ActionGet
	search         = tributary.ActionSearch
	apiSearch      = tributary.ActionAPISearch
	downloadAction = tributary.ActionDownload
)

// sobject is one entity of the catalogue and the sObject it reads.
type sobject struct {
	entity string // catalogue name, "accounts"
	name   string // sObject API name, "Account"; "" for the query entity
	prefix string // key prefix of its record ids, "001"
	doc    string
	search bool   // api_search (SOSL) is offered
	fields string // searchable fields of the `search` action, see parseFields
	blob   string // blob field served by download ("VersionData", "Body")
}

// sobjects lists the catalogue in its order.
func sobjects() []sobject {
	return []sobject{
		{entity: "accounts", name: "Account", prefix: "001", doc: "Accounts: companies and organizations.", search: true,
			fields: "Id Name AccountSource BillingAddress:obj BillingCity BillingCountry BillingPostalCode BillingState BillingStreet " +
				"CreatedById CreatedDate Description Industry IsDeleted:bool LastActivityDate LastModifiedById LastModifiedDate " +
				"NumberOfEmployees:int OwnerId ParentId Phone ShippingAddress:obj ShippingCity ShippingCountry ShippingPostalCode " +
				"ShippingState ShippingStreet Type Website SystemModstamp"},
		{entity: "contacts", name: "Contact", prefix: "003", doc: "Contacts: people, usually of an account.", search: true,
			fields: "Id AccountId CreatedById CreatedDate Department Email FirstName IsDeleted:bool LastActivityDate " +
				"LastModifiedById LastModifiedDate LastName LeadSource MailingAddress:obj MailingCity MailingCountry " +
				"MailingPostalCode MailingState MailingStreet MobilePhone Name OwnerId Phone ReportsToId Title SystemModstamp"},
		{entity: "leads", name: "Lead", prefix: "00Q", doc: "Leads: prospects not yet qualified.", search: true,
			fields: "Id Address:obj City Company ConvertedAccountId ConvertedContactId ConvertedDate ConvertedOpportunityId " +
				"Country CreatedById CreatedDate Email FirstName Industry IsConverted:bool IsDeleted:bool LastActivityDate " +
				"LastModifiedById LastModifiedDate LastName LeadSource MobilePhone Name NumberOfEmployees:int OwnerId Phone " +
				"PostalCode Rating State Status Street Title Website SystemModstamp"},
		{entity: "opportunities", name: "Opportunity", prefix: "006", doc: "Opportunities: deals in progress or closed.", search: true,
			fields: "Id AccountId Amount:number CampaignId CloseDate ContactId CreatedById CreatedDate Description " +
				"ExpectedRevenue:number ForecastCategory ForecastCategoryName IsClosed:bool IsDeleted:bool IsWon:bool " +
				"LastActivityDate LastModifiedById LastModifiedDate LeadSource Name NextStep OwnerId Probability:number " +
				"StageName Type SystemModstamp"},
		{entity: "tasks", name: "Task", prefix: "00T", doc: "Tasks: to-dos, logged calls and e-mails.", search: true,
			fields: "Id AccountId ActivityDate CallDisposition CallDurationInSeconds:int CallType CompletedDateTime " +
				"CreatedById CreatedDate Description IsClosed:bool IsDeleted:bool IsHighPriority:bool LastModifiedById " +
				"LastModifiedDate OwnerId Priority Status Subject TaskSubtype Type WhatId WhoId SystemModstamp"},
		{entity: "events", name: "Event", prefix: "00U", doc: "Events: calendar entries.", search: true},
		{entity: "campaigns", name: "Campaign", prefix: "701", doc: "Marketing campaigns.", search: true},
		{entity: "cases", name: "Case", prefix: "500", doc: "Cases: customer issues."},
		{entity: "notes", name: "Note", prefix: "002", doc: "Notes attached to records."},
		{entity: "content_versions", name: "ContentVersion", prefix: "068", blob: "VersionData",
			doc: "Versions of Salesforce Files documents (metadata and file content)."},
		{entity: "attachments", name: "Attachment", prefix: "00P", blob: "Body",
			doc: "Classic attachments of records (metadata and file content)."},
		{entity: "query", doc: "Rows of any SOQL query, of any object, aggregates included."},
	}
}

// parseFields reads a searchable-field list: names separated by spaces,
// each optionally suffixed with :obj, :int, :number or :bool (string
// otherwise).
func parseFields(spec string) []tributary.Field {
	var out []tributary.Field
	for _, f := range strings.Fields(spec) {
		name, typ, _ := strings.Cut(f, ":")
		t := tributary.TypeString
		switch typ {
		case "obj":
			t = tributary.TypeObject
		case "int":
			t = tributary.TypeInteger
		case "number":
			t = tributary.TypeNumber
		case "bool":
			t = tributary.TypeBoolean
		}
		field := tributary.Field{Name: name, Type: t}
		if name == "Probability" {
			field.Doc = "percentage, 0 to 100"
		}
		out = append(out, field)
	}
	return out
}

// scope is the copy scope of an sObject's entity: every record, with
// every searchable field, by a SOQL query generated from the catalogue.
// The searchable fields are fields of the object itself (compound
// addresses and names included, which SOQL selects like any other; a
// one-level parent path such as Owner.Name would be selectable too), so
// the query selects them all and search can filter on each; Id and
// SystemModstamp are selected in any case, for the hit's id and the change
// feed's order. The query has no WHERE, ORDER BY or LIMIT: the change feed
// (/queryAll) adds its own, as it does to a caller's query.
func scope(o sobject, fields []tributary.Field) *tributary.Scope {
	names := []string{"Id"}
	for _, f := range fields {
		if !slices.Contains(names, f.Name) && f.Name != "SystemModstamp" {
			names = append(names, f.Name)
		}
	}
	q := "SELECT " + strings.Join(append(names, "SystemModstamp"), ", ") + " FROM " + o.name
	return &tributary.Scope{
		Doc:    "every " + o.name + " record with its searchable fields (SOQL SELECT <searchable fields> FROM " + o.name + ")",
		Params: func() tributary.Params { return tributary.Params{"q": q} },
	}
}

func str(name string, required bool, doc string) tributary.Param {
	return tributary.Param{Name: name, Type: tributary.TypeString, Required: required, Doc: doc}
}

// nextRecordsURLParam carries the nextRecordsUrl of the previous page.
const nextRecordsURLParam = "next_records_url"

func listParams(o sobject) []tributary.Param {
	doc := "a SOQL query"
	if o.name != "" {
		doc += " FROM " + o.name
	}
	doc += "; a page holds up to 200 records unless the query has its own LIMIT"
	return []tributary.Param{
		str("q", true, doc),
		str(nextRecordsURLParam, false, "the nextRecordsUrl of the previous page"),
	}
}

func idParam(o sobject) tributary.Param {
	return str("id", true, "the 18-character record id (prefix "+o.prefix+"); the 15-character case-sensitive form is accepted too")
}

// catalogue builds the engine's view of the kind for one API version
// ("v67.0").

// dateTimes are the searchable fields whose values are RFC 3339 date-time
// strings, typed date-time in every entity that has them as strings.
var dateTimes = []string{"CreatedDate", "LastModifiedDate", "SystemModstamp", "CompletedDateTime"}

func catalogue(version string) []engine.Entity {
	data := "/services/data/" + version
	queryRoute := engine.Route{
		Path:     data + "/query",
		Records:  "records",
		Paging:   pagination.NextRecordsURL{Param: nextRecordsURLParam},
		URLParam: nextRecordsURLParam,
		Header:   http.Header{"Sforce-Query-Options": {"batchSize=200"}},
	}
	var out []engine.Entity
	for _, o := range sobjects() {
		e := engine.Entity{
			Entity: tributary.Entity{Name: o.entity, Doc: o.doc, Params: map[tributary.Action][]tributary.Param{}},
			Routes: map[tributary.Action][]engine.Route{},
		}
		e.Rules = rules(o)
		e.Actions = append(e.Actions, list)
		e.Params[list] = listParams(o)
		e.Routes[list] = []engine.Route{queryRoute}
		if o.name == "" {
			out = append(out, e)
			continue
		}
		e.Actions = append(e.Actions, get)
		e.Params[get] = []tributary.Param{idParam(o),
			str("fields", false, "comma-separated field names to return; all accessible fields when omitted")}
		e.Routes[get] = []engine.Route{{Path: data + "/sobjects/" + o.name + "/{id}"}}
		if o.search {
			e.Actions = append(e.Actions, apiSearch)
			e.Params[apiSearch] = []tributary.Param{str("q", true,
				"a SOSL query: FIND {term} [IN ALL|NAME|EMAIL|PHONE FIELDS] RETURNING "+o.name+"(field list) [LIMIT n]")}
			e.Routes[apiSearch] = []engine.Route{{Path: data + "/search", Records: "searchRecords"}}
		}
		if o.fields != "" {
			e.Actions = append(e.Actions, search)
			e.Params[search] = tributary.SearchParams()
			e.Searchable = parseFields(o.fields)
			e.Scope = scope(o, e.Searchable)
			// The feed runs the list's query through /queryAll, which
			// also returns deleted records; its nextRecordsUrl says
			// query, yet goes on with the queryAll's results.
			e.Feed = feed(o)
			feedRoute := queryRoute
			feedRoute.Path = data + "/queryAll"
			e.FeedRoute = &feedRoute
		}
		if o.blob != "" {
			e.Actions = append(e.Actions, downloadAction)
			e.Params[downloadAction] = []tributary.Param{idParam(o),
				str("range_header", false, "byte range to download: bytes=<first>-<last>, bytes=<first>- or bytes=-<n>")}
			e.Routes[downloadAction] = []engine.Route{{Path: data + "/sobjects/" + o.name + "/{id}/" + o.blob,
				Header: http.Header{"Accept": {"*/*"}}}}
		}
		out = append(out, e)
	}
	return engine.DateTimes(out, dateTimes...)
}

// Catalogue returns the sales-CRM catalogue: every entity, its actions and
// their parameters, its searchable fields and its paging.
func Catalogue() []tributary.Entity { return engine.Catalogue(catalogue(DefaultAPIVersion)) }
