package stripe

import (
	"strings"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/pagination"
)

// Type is the connector_type of this kind.
const Type = "stripe"

type (
	action = tributary.Action
	param  = tributary.Param
)

const (
	list      = tributary.ActionList
	get       = tributary.ActionGet
	apiSearch = tributary.ActionAPISearch
	download  = tributary.ActionDownload
)

// MaxLimit is the most objects a page of a list or a search holds.
const MaxLimit = 100

// Retention is how long Stripe keeps events: a copy whose checkpoint is
// older is walked in full again.
const Retention = 30 * 24 * time.Hour

var (
	byLastID = pagination.LastID{Param: "starting_after", ID: "id", More: "has_more"}
	byPage   = pagination.Token{Param: "page", Field: "next_page", More: "has_more"}
	limit    = param{Name: "limit", Type: tributary.TypeInteger, Min: tributary.Bound(1), Max: tributary.Bound(MaxLimit), PageSize: true,
		Doc: "objects per page, 1 to 100 (default 10; a walk of every page asks for 100)"}
	// walkLimit makes a walk of every page ask for pages of 100 (Stripe's
	// largest) unless the caller chose a limit or a starting object.
	walkLimit = engine.WalkPageSize("limit", MaxLimit, "starting_after", "ending_before")
	expand    = param{Name: "expand", Type: tributary.TypeArray, Items: &param{Type: tributary.TypeString}, Doc: "fields to expand (data.customer, …)"}
	window    = []param{limit, expand,
		str("starting_after", "the id of the last object of the previous page"),
		str("ending_before", "the id of the first object of the next page, to page backwards"),
		{Name: "created", Type: tributary.TypeObject, Doc: "creation time bounds in Unix seconds: {gt, gte, lt, lte}",
			Fields: []param{num("gt"), num("gte"), num("lt"), num("lte")}},
	}
)

func str(name, doc string, enum ...string) param {
	return param{Name: name, Type: tributary.TypeString, Enum: enum, Doc: doc}
}

func num(name string) param { return param{Name: name, Type: tributary.TypeInteger} }

// entity is one Stripe resource at /v1/<path>: list with filters, get by
// the path's id param, api_search when searchable, its changes from the
// event stream when object names its events' data.object.
func entity(name, path, idParam, object, doc string, record any, searchable bool, filters ...param) engine.Entity {
	routes := map[action][]engine.Route{
		list: {{Path: "/v1/" + path, Records: "data", Paging: byLastID, DeepObject: true, Walk: walkLimit}},
		get:  {{Path: "/v1/" + path + "/{" + idParam + "}", DeepObject: true}},
	}
	params := map[action][]param{
		list: append(append([]param{}, window...), filters...),
		get:  {{Name: idParam, Type: tributary.TypeString, Required: true, Doc: "the object's id"}, expand},
	}
	if searchable {
		routes[apiSearch] = []engine.Route{{Path: "/v1/" + path + "/search", Records: "data", Paging: byPage, DeepObject: true, Walk: engine.WalkPageSize("limit", MaxLimit, "page")}}
		params[apiSearch] = []param{{Name: "query", Type: tributary.TypeString, Required: true, Doc: "Stripe's search query language (email:'ana@example.com' AND metadata['plan']:'pro')"},
			limit, str("page", "the next_page of the previous answer"), expand}
	}
	e := engine.NewEntity(name, doc, record, routes, params)
	if object != "" {
		e.Feed = streamFeed(object)
	}
	return e
}

// streamFeed is an entity's feed from the event stream: the events whose
// data.object is an object of this type; *.deleted events are deletions,
// and so is any event of a canceled subscription (an update of its
// metadata after the cancel included), since the list the copy mirrors
// leaves canceled subscriptions out.
func streamFeed(object string) *tributary.Feed {
	return &tributary.Feed{
		Doc:     "the event stream GET /v1/events?ending_before=<the last event read>, walked forward a page at a time and shared by every copy; *.deleted events are deletions; events are kept 30 days",
		Params:  eventParams,
		Changed: "created", Overlap: time.Second, Retention: Retention, Unwrap: "data.object",
		Stream: &tributary.Stream{Entity: "events", Field: "data.object.object", Value: object, Newer: "ending_before"},
		Deleted: func(r tributary.Record) bool {
			t, _ := r.StringAt("type")
			status, _ := r.StringAt("data.object.status")
			return strings.HasSuffix(t, ".deleted") || object == "subscription" && status == "canceled"
		},
	}
}

// eventParams are the stream's params: the events created after since, a
// full page at a time. Every type is read (the stream feeds every copy,
// and types[] takes at most 20).
func eventParams(_ tributary.Params, since time.Time) tributary.Params {
	p := tributary.Params{"limit": int64(MaxLimit)}
	if !since.IsZero() {
		p["created"] = map[string]any{"gt": since.Unix()}
	}
	return p
}

// Catalogue returns the payments catalogue: every entity, its actions and
// their parameters, its searchable fields and its paging.
func Catalogue() []tributary.Entity { return engine.Catalogue(catalogue()) }

func catalogue() []engine.Entity {
	customer := str("customer", "only the objects of this customer (cus_…)")
	paymentIntent := str("payment_intent", "only the objects of this PaymentIntent (pi_…)")
	charge := str("charge", "only the objects of this charge (ch_…)")
	events := entity("events", "events", "id", "", "Events of the last 30 days, newest first: every change of the account, each with the object as it became (data.object). The stream the other entities' copies are kept current from.", nil, false,
		str("type", "only events of this type, or a group with * (customer.*)"),
		param{Name: "types", Type: tributary.TypeArray, Items: &param{Type: tributary.TypeString}, Doc: "only events of these types (at most 20)"},
		param{Name: "delivery_success", Type: tributary.TypeBoolean, Doc: "only events whose webhooks were all delivered (true) or not (false)"})
	files := entity("files", "files", "file", "file", "Files uploaded to Stripe (dispute evidence, identity documents, reports): metadata, and their bytes (download, from files.stripe.com).", File{}, false,
		str("purpose", "only files of this purpose (dispute_evidence, …)"))
	files.Actions = append(files.Actions, download)
	files.Routes[download] = []engine.Route{{Path: "/v1/files/{file}", FileURL: []string{"url"}}}
	files.Params[download] = []param{{Name: "file", Type: tributary.TypeString, Required: true, Doc: "the file's id (file_…)"},
		{Name: "range_header", Type: tributary.TypeString, Doc: "byte range to download: bytes=<first>-<last>, bytes=<first>- or bytes=-<n>"}}
	balance := engine.NewEntity("balance", "The account's balance: funds available and pending, by currency.", nil,
		map[action][]engine.Route{get: {{Path: "/v1/balance", DeepObject: true}}}, map[action][]param{get: {expand}})
	return []engine.Entity{
		entity("customers", "customers", "customer", "customer", "Customers; a deleted customer leaves the list.", Customer{}, true,
			str("email", "only customers with this email (case-sensitive)"), str("test_clock", "only customers of this test clock")),
		entity("invoices", "invoices", "invoice", "invoice", "Invoices, drafts included (a deleted draft leaves the list).", Invoice{}, true, customer,
			str("subscription", "only invoices of this subscription"), str("status", "only invoices in this status", "draft", "open", "paid", "uncollectible", "void"),
			str("collection_method", "only invoices collected this way", "charge_automatically", "send_invoice")),
		entity("charges", "charges", "charge", "charge", "Charges, the attempts to move money from a card or account.", Charge{}, true, customer, paymentIntent,
			str("transfer_group", "only charges of this transfer group")),
		entity("subscriptions", "subscriptions", "subscription_exposed_id", "subscription", "Subscriptions that are not canceled (status all lists canceled ones too); a canceled subscription leaves the copy.", Subscription{}, true, customer,
			str("price", "only subscriptions of this price"), str("status", "only subscriptions in this status (default: all but canceled)",
				"active", "all", "canceled", "ended", "incomplete", "incomplete_expired", "past_due", "paused", "trialing", "unpaid"),
			str("collection_method", "only subscriptions collected this way", "charge_automatically", "send_invoice")),
		entity("payment_intents", "payment_intents", "intent", "payment_intent", "PaymentIntents, the payments from creation to settlement.", PaymentIntent{}, true, customer),
		entity("products", "products", "id", "product", "Products; a deleted product leaves the list.", Product{}, true,
			param{Name: "active", Type: tributary.TypeBoolean, Doc: "only active (true) or archived (false) products"},
			param{Name: "ids", Type: tributary.TypeArray, Items: &param{Type: tributary.TypeString}, Doc: "only these products"},
			param{Name: "shippable", Type: tributary.TypeBoolean, Doc: "only shippable products"}, str("url", "only the product at this URL")),
		entity("prices", "prices", "price", "price", "Prices of products; a deleted price leaves the list.", Price{}, true,
			param{Name: "active", Type: tributary.TypeBoolean, Doc: "only active (true) or archived (false) prices"},
			str("currency", "only prices in this currency"), str("product", "only prices of this product"),
			str("type", "only prices of this type", "one_time", "recurring")),
		entity("refunds", "refunds", "refund", "refund", "Refunds of charges.", Refund{}, false, charge, paymentIntent),
		entity("balance_transactions", "balance_transactions", "id", "", "Balance transactions: every movement of the balance. Stripe sends no events for them: a copy is walked in full.", BalanceTransaction{}, false,
			str("payout", "only the transactions of this payout"), str("source", "only the transactions of this source"),
			str("type", "only transactions of this type (charge, refund, payout, …)"), str("currency", "only transactions in this currency")),
		entity("disputes", "disputes", "dispute", "dispute", "Disputes of charges.", Dispute{}, false, charge, paymentIntent),
		entity("payouts", "payouts", "payout", "payout", "Payouts to the account's bank accounts and cards.", Payout{}, false,
			str("status", "only payouts in this status", "pending", "paid", "failed", "canceled"), str("destination", "only payouts to this destination")),
		events, files, balance,
	}
}
