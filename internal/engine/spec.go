// Package engine is the one implementation of tributary.Connector for
// direct mode. A kind declares its catalogue and, for each entity and
// action, a Route (method, path, where the records are, the paging style,
// how a download finds its file); the engine validates, builds requests,
// sends them through the kind's transport, splits pages, reads paging
// information and turns error bodies into *tributary.Error. Kinds add only
// what is theirs: credentials, error-body parsing and typed records.
package engine

import (
	"maps"
	"net/http"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/pagination"
)

// Kind describes one connector kind to the engine.
type Kind struct {
	// Type is the connector_type.
	Type string
	// Entities is the catalogue with the routes of each entity.
	Entities []Entity
	// ParseError fills e.Code, e.Message and e.RequestID from an error
	// response of the source. e.StatusCode and e.Err are already set.
	ParseError func(status int, header http.Header, body []byte, e *tributary.Error)
	// Classify may change the sentinel of an error (for example a 403 that
	// is a rate limit) after ParseError ran.
	Classify func(status int, header http.Header, body []byte, e *tributary.Error)
	// EmptyList reports whether an error answer to a list really means
	// "no records" (Gong answers 404 for an empty window).
	EmptyList func(e *tributary.Error) bool
	// RetryAfter reads the kind's own reset signal (see transport.Config).
	RetryAfter func(resp *http.Response, now time.Time) (time.Duration, bool)
	// Retryable decides retries before the default rules (see transport.Config).
	Retryable func(resp *http.Response) (retry, decided bool)
	// Errors, when set, is how the source reports failures inside a
	// response body (Slack's ok:false, GraphQL's errors[]): a 2xx answer
	// that carries one is an error, and on an error status the rule reads
	// the body before ParseError does.
	Errors *ErrorRule
	// RateLimits are the headers in which the source announces its
	// rate-limit windows: the client keeps to the budget they announce
	// (unless Setup.Budget says otherwise, or the setting
	// "<type>.budget_pacing" is false), and waits for their reset on a
	// throttled answer when RetryAfter is nil (and the answer has no
	// Retry-After of its own).
	RateLimits []RateLimitHeaders
	// CredentialHosts are the vendor's hosts, besides the base URL's, that
	// a download's file URL (Route.FileURL) may name and that must receive
	// the credentials (Slack's files.slack.com serves url_private_download
	// to the token only). Only https on the default port gets them; every
	// other host, a redirect's included, gets none. When a base URL stands
	// in for the vendor (tributary.WithBaseURL: a fake, a proxy), a file
	// URL on one of them is read through the base URL's origin instead.
	CredentialHosts []string
	// Tiers are the vendor's rate tiers (Slack's Web API gives each method
	// one: Tier 2 is 20 requests a minute, Tier 3 50): the requests per
	// period one connector, that is one token, may send to each method of
	// a tier. A route names its tier (Route.Tier) and the engine paces the
	// requests to its method and path at the tier's rate, each method on
	// its own. The setting "<type>.tier.<name>" ("n/period" as RateSetting
	// writes it, or "0" for no pace) replaces a tier's rate, and
	// tributary.WithoutPacing turns every tier's pace off.
	Tiers map[string]Rate
	// Check is the kind's credential check: one cheap authenticated
	// request, sent without params, that the source answers with 2xx only
	// for working credentials (GitHub's GET /user). CheckCredentials sends
	// it; nil: the kind has none.
	Check *Route
}

// Entity is a catalogue entity with its routes.
type Entity struct {
	tributary.Entity
	// Routes holds, per action, the candidate routes: the first whose When
	// params are all present is used.
	Routes map[tributary.Action][]Route
	// FeedRoute, when set, reads the entity's change feed (Entity.Feed)
	// from an endpoint that is not one of the entity's actions: Zendesk's
	// incremental exports, Salesforce's queryAll. Its Paging must be set.
	FeedRoute *Route
	// DeletionsRoute, when set, reads the feed's Deletions from an
	// endpoint of its own (Jira's /rest/api/3/worklog/deleted beside
	// /worklog/updated); without it they are read from FeedRoute, or the
	// routes of their action.
	DeletionsRoute *Route
}

// Route maps one action of one entity onto the source's HTTP API.
type Route struct {
	// Method is the HTTP method; "" means GET.
	Method string
	// Path is the vendor's documented path under the base URL, with
	// {param} placeholders (escaped as one segment) and {+param} (slashes
	// kept, each segment escaped).
	Path string
	// When lists params that must be present for this route to be chosen.
	When []string
	// Records is the body member holding the list's records, or the get's
	// object; "" means the body itself (a bare array, or the object).
	Records string
	// Paging is the paging style of a list or api_search; nil: not paged.
	Paging pagination.Style
	// Body sends the params that are not in the path as a JSON body
	// (nested objects kept) instead of the query.
	Body bool
	// Query lists params that go in the query even when Body is set.
	Query []string
	// Rename maps a param name to the name the source expects on the wire.
	Rename map[string]string
	// RepeatArrays sends array params as repeated query parameters instead
	// of one comma-separated value.
	RepeatArrays bool
	// DeepObject sends the object and array params that go in the query
	// in OpenAPI's deepObject style, as Stripe's form encoding writes them:
	// an object's members as name[member]=value (created[gt]=1700000000),
	// an array's elements as repeated name[]=value (expand[]=data.customer).
	DeepObject bool
	// Header is added to the request (Accept for raw downloads, ...).
	Header http.Header
	// URLParam names a param that, when present, holds the URL of the next
	// page (relative to the base URL, or absolute on the same origin); the
	// request then goes there with no other params.
	URLParam string
	// Prepare rewrites the normalized params before the request is built
	// (GitHub adds is:issue to a search); it must not modify its argument.
	Prepare func(p tributary.Params) tributary.Params
	// Walk rewrites the first params of a full walk (All), e.g. to switch
	// to a cursor mode; it must not modify its argument.
	Walk func(p tributary.Params) tributary.Params
	// Once marks a request the vendor acts on as it answers (Intercom's
	// scroll moves on): it is repeated after a 429, never after a dropped
	// connection or a 5xx (see transport.Once).
	Once bool
	// Drop leaves out the records (objects) whose top-level member of this
	// name is present and not null, as the page is split: GitHub's issues
	// list also returns pull requests, which carry "pull_request". Paging
	// still counts them.
	Drop string
	// Keep, when set, leaves out the records it returns false for, as
	// the page is split: what the source's filter could not say exactly
	// (Intercom's search matches a time by its day). p are the params the
	// request was sent with (after Prepare). Paging still counts the
	// records left out.
	Keep func(p tributary.Params, r tributary.Record) bool
	// One, for a list whose records are a bare array (Records ""), reads
	// an object body as a page of that one record: GitHub's contents
	// endpoint answers a directory with the array of its entries and a
	// file with the file's own object.
	One bool
	// GraphQL, when set, is the text of a GraphQL query (a catalogue row's
	// data): the request is a POST of {"query": GraphQL, "variables": …} to
	// Path, the params that are not in the path being the variables, under
	// their Rename names. Records is then a dot path into the answer
	// ("data.issues.nodes"), and paging is pagination.Relay.
	GraphQL string
	// FileURL, for a two-step download, is the path inside the response
	// of Path to the file's URL; nil means Path answers with the bytes. A
	// step "{member}" is the value of that top-level member of the answer
	// (Notion's "{type}", "file", "url": a block of type pdf holds
	// pdf.file.url).
	FileURL []string
	// Tier, when set, names the rate tier of the vendor method this route
	// calls (Kind.Tiers): requests with the same method and path are paced
	// together at the tier's rate, whichever route or action sends them.
	Tier string
	// Tree, when set, makes a list read a tree of records whose children
	// are listed by their parent's id (Notion's blocks): see Tree.
	Tree *Tree
	// Refs, when set, says that the route's records are references to the
	// entity's records (Jira's changed worklogs, {worklogId,
	// updatedTime}), and how each page of them becomes records.
	Refs *Refs
}

// Refs turns a page of references into the records they name
// (Route.Refs): a change feed that lists ids, then a second request that
// reads the records of those ids.
type Refs struct {
	// ID is the dot path of the id in a reference ("worklogId").
	ID string
	// Fetch, when set, reads the records of the ids, at most Max of them
	// a request, the ids going as the array param Param (POST
	// /rest/api/3/worklog/list {"ids": [...]}): the page's records are
	// the records it answers (a record deleted in between is not among
	// them). Without Fetch, each reference is a record whose member As is
	// its id (a deletions feed: a deleted record needs nothing more).
	Fetch *Route
	// Param is the param of Fetch that takes the ids; Max the most ids a
	// request of Fetch takes (0: all of a page).
	Param string
	Max   int
	// As is the member of a record that holds its id ("id").
	As string
	// Text writes the id under As as a JSON string, as the records write
	// it (Jira's worklog ids: strings in records, numbers in the feeds).
	Text bool
}

// Tree describes a list of the children of one record that also reads
// their children, level after level (Route.Tree): when the parent's pages
// are read, each record read that has children (the boolean member Has)
// is listed in turn as a parent, down to Depth levels. The parents still
// to list travel from page to page in the param Pending, so that a page's
// Next carries the rest of the walk, as a cursor does. Depth and Pending
// are the list's params (declared in the catalogue) and are never sent.
type Tree struct {
	// Param is the list param that takes a parent's id ("block_id").
	Param string
	// ID is the member of a record that holds its id ("id"); Has the
	// boolean member that says it has children ("has_children").
	ID, Has string
	// Cursor is the paging param dropped when the walk moves to the next
	// parent ("start_cursor").
	Cursor string
	// Depth is the param of the levels read (1: the children of Param
	// alone); absent, Max levels are read.
	Depth string
	Max   int
	// Pending is the param that carries the parents still to list, each
	// as "<levels>:<id>".
	Pending string
}

// WalkPageSize is a Route.Walk that makes a full walk ask for pages of n
// records under param (the vendor's largest page) unless the caller
// named param or any of unless (a starting page, which fixes the size
// the walk goes on with): a walk of everything should not pay for the
// vendor's small default page (Stripe's 10, GitHub's 30) in requests.
func WalkPageSize(param string, n int64, unless ...string) func(tributary.Params) tributary.Params {
	return func(p tributary.Params) tributary.Params {
		for _, name := range append([]string{param}, unless...) {
			if _, ok := p[name]; ok {
				return p
			}
		}
		out := make(tributary.Params, len(p)+1)
		maps.Copy(out, p)
		out[param] = n
		return out
	}
}
