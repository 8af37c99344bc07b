package pagination

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"strings"

	"github.com/tributary-dev/tributary/internal/jsonx"
)

// Response is what a Style reads of one page.
type Response struct {
	// Params are the params of the request that produced the page.
	Params map[string]any
	// Header is the response's header.
	Header http.Header
	// Fields are the top-level members of the body other than the records,
	// raw; nil when the body is a bare array.
	Fields map[string][]byte
	// Count is the number of records on the page.
	Count int
	// Last is the page's last record, raw (nil on an empty page), for
	// styles whose cursor is a record's own id (LastID).
	Last []byte
}

// Style is one vendor paging scheme.
type Style interface {
	// Page returns the page's Meta and the params of the next page (nil on
	// the last page).
	Page(r *Response) (meta map[string]any, next map[string]any, err error)
}

// Resumer is implemented by styles whose next params follow from the Meta
// alone, so that a client that only sees Meta (the hosted client) builds
// the same Next as direct mode. Every style of this package implements it.
type Resumer interface {
	// Next returns the params of the page after the one fetched with params
	// that had meta and count records; nil on the last page.
	Next(params, meta map[string]any, count int) map[string]any
}

// Planner is implemented by styles whose pages name the pages after the
// next one: page numbers up to a last page (GitHub's Link rel="last",
// Zendesk's count), offsets up to a total (Mailchimp's total_items). A pager
// may fetch those pages at once instead of one after another.
type Planner interface {
	// Plan returns the params of up to n pages after the one fetched with
	// params that had meta and count records, in order; the first is the
	// page's Next. It returns nil on the last page.
	Plan(params, meta map[string]any, count, n int) []map[string]any
}

// Later returns the params of up to n pages after the next one, as s
// plans them from a page (Page.Later); nil when s is not a Planner or
// the page names no further pages.
func Later(s Style, params, meta map[string]any, count, n int) []map[string]any {
	pl, ok := s.(Planner)
	if !ok || n <= 0 {
		return nil
	}
	plan := pl.Plan(params, meta, count, n+1)
	if len(plan) < 2 {
		return nil
	}
	return plan[1:]
}

// metaNext is a style written as its two halves.
type metaNext interface {
	meta(r *Response) (map[string]any, error)
	Resumer
}

func page(s metaNext, r *Response) (map[string]any, map[string]any, error) {
	m, err := s.meta(r)
	if err != nil {
		return nil, nil, err
	}
	next, err := NextFromMeta(s, r.Params, m, r.Count)
	return m, next, err
}

// NextFromMeta returns the params of the page after the one fetched with
// params, as r derives them from the page's meta; an error wrapping
// ErrStalled when the source pointed at the same page again (a repeated
// cursor, page number or URL), so that no caller, paging by hand or in
// hosted mode, loops on it.
func NextFromMeta(r Resumer, params, meta map[string]any, count int) (map[string]any, error) {
	next := r.Next(params, meta, count)
	if next == nil {
		return nil, nil
	}
	if sameParams(next, params) {
		a, _ := json.Marshal(next)
		return nil, fmt.Errorf("%w: the source pointed at the same page again (%s)", ErrStalled, a)
	}
	return next, nil
}

// with returns a copy of params with key set to v.
func with(params map[string]any, key string, v any) map[string]any {
	out := make(map[string]any, len(params)+1)
	maps.Copy(out, params)
	out[key] = v
	return out
}

func value(raw []byte) any {
	if jsonx.IsNull(raw) {
		return nil
	}
	v, err := jsonx.Value(raw)
	if err != nil {
		return nil
	}
	return v
}

func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case float64:
		return int64(x), x == float64(int64(x))
	case interface{ Int64() (int64, error) }:
		n, err := x.Int64()
		return n, err == nil
	}
	return 0, false
}

func intParam(params map[string]any, key string) int64 {
	n, _ := asInt(params[key])
	return n
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func lookup(m map[string]any, path ...string) any {
	var cur any = m
	for _, k := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[k]
	}
	return cur
}

// OffsetTotal is offset/count paging with a total in the body (Mailchimp:
// `count`, `offset` → `total_items`; Jira: `maxResults`, `startAt` →
// `total`, `isLast`). The next page starts where this one ended; paging
// stops at the total, where LastField says the page is the last, or on an
// empty page. A list that gives no total (Jira's user search, a bare array)
// goes on while a page is full: as many records as SizeParam asked for.
type OffsetTotal struct {
	OffsetParam string // "offset"
	TotalField  string // "total_items"
	// LastField, when set, is a boolean member of the body that is true on
	// the last page (Jira's isLast); Meta carries it.
	LastField string
	// SizeParam, when set, is the page-size param: without a total, a page
	// with fewer records than it asked for is the last.
	SizeParam string
}

// Page implements Style.
func (s OffsetTotal) Page(r *Response) (map[string]any, map[string]any, error) { return page(s, r) }

func (s OffsetTotal) meta(r *Response) (map[string]any, error) {
	m := map[string]any{}
	if s.LastField != "" {
		if raw, ok := r.Fields[s.LastField]; ok {
			last, ok := jsonx.Bool(raw)
			if !ok {
				return nil, fmt.Errorf("pagination: %s is %s, not a boolean", s.LastField, raw)
			}
			m[s.LastField] = last
		}
	}
	raw, ok := r.Fields[s.TotalField]
	if !ok || (s.SizeParam != "" && jsonx.IsNull(raw)) {
		return m, nil
	}
	total, ok := jsonx.Int(raw)
	if !ok {
		return nil, fmt.Errorf("pagination: %s is %s, not an integer", s.TotalField, raw)
	}
	m[s.TotalField] = total
	return m, nil
}

// Next implements Resumer.
func (s OffsetTotal) Next(params, meta map[string]any, count int) map[string]any {
	off := intParam(params, s.OffsetParam) + int64(count)
	if last, _ := meta[s.LastField].(bool); count == 0 || (s.LastField != "" && last) {
		return nil
	}
	total, ok := asInt(meta[s.TotalField])
	switch {
	case ok && off >= total:
		return nil
	case !ok && (s.SizeParam == "" || int64(count) < intParam(params, s.SizeParam)):
		return nil
	}
	return with(params, s.OffsetParam, off)
}

// Plan implements Planner: the offsets after this page, a page's worth
// apart, up to the total.
func (s OffsetTotal) Plan(params, meta map[string]any, count, n int) []map[string]any {
	total, ok := asInt(meta[s.TotalField])
	if !ok || count <= 0 {
		return nil
	}
	var out []map[string]any
	for off := intParam(params, s.OffsetParam) + int64(count); off < total && len(out) < n; off += int64(count) {
		out = append(out, with(params, s.OffsetParam, off))
	}
	return out
}

// Token is paging by an opaque token that each page names in a member of
// its body, perhaps nested (Jira's and Google's `nextPageToken`, Slack's
// `response_metadata.next_cursor`, Asana's `next_page.offset`), a string
// or an integer (Jira's changed worklogs page with since = until): it
// goes into the next request as Param. The list ends where the token is
// absent, null or "" (Slack's end marker), or where the boolean member
// Last is true (Jira's isLast). Meta holds, raw, the top-level members
// that Field and Last start with.
type Token struct {
	// Param is the request param the token goes into ("nextPageToken").
	Param string
	// Field is the dot path of the token in the body ("nextPageToken",
	// "response_metadata.next_cursor").
	Field string
	// Last, when set, is a boolean top-level member that is true on the
	// last page.
	Last string
	// More, when set, is a boolean top-level member that is false on the
	// last page (Asana's events: has_more).
	More string
	// Keep are further top-level members the Meta carries (Drive's
	// newStartPageToken on a changes list's last page).
	Keep []string
}

// Page implements Style.
func (s Token) Page(r *Response) (map[string]any, map[string]any, error) { return page(s, r) }

func (s Token) meta(r *Response) (map[string]any, error) {
	m := map[string]any{}
	top, _, _ := strings.Cut(s.Field, ".")
	if raw, ok := r.Fields[top]; ok {
		m[top] = value(raw)
	}
	for _, name := range []string{s.Last, s.More} {
		if name == "" {
			continue
		}
		if raw, ok := r.Fields[name]; ok {
			b, ok := jsonx.Bool(raw)
			if !ok && !jsonx.IsNull(raw) {
				return nil, fmt.Errorf("pagination: %s is %s, not a boolean", name, raw)
			}
			m[name] = b
		}
	}
	for _, name := range s.Keep {
		if raw, ok := r.Fields[name]; ok {
			m[name] = value(raw)
		}
	}
	return m, nil
}

// Next implements Resumer.
func (s Token) Next(params, meta map[string]any, _ int) map[string]any {
	if last, _ := meta[s.Last].(bool); s.Last != "" && last {
		return nil
	}
	if more, _ := meta[s.More].(bool); s.More != "" && !more {
		return nil
	}
	switch tok := lookup(meta, strings.Split(s.Field, ".")...).(type) {
	case string:
		if tok != "" {
			return with(params, s.Param, tok)
		}
	case int64:
		// A number (Jira's changed-worklog feeds page by until, a time
		// in ms) goes on as it is.
		return with(params, s.Param, tok)
	}
	return nil
}

// Relay is GraphQL's cursor connections (Relay's specification, as Linear
// and GitHub's GraphQL API page): the connection's `pageInfo
// {hasNextPage endCursor}` beside its `nodes`, and the next request
// carries endCursor as the variable After. The route's Records path names
// the nodes ("data.issues.nodes"), so that pageInfo is a field of the page.
// Meta {"pageInfo": {...}} as the source sent it.
type Relay struct {
	// After is the param (a variable of the query) the cursor goes into;
	// "" means "after".
	After string
}

// Page implements Style.
func (s Relay) Page(r *Response) (map[string]any, map[string]any, error) { return page(s, r) }

func (Relay) meta(r *Response) (map[string]any, error) {
	raw, ok := r.Fields["pageInfo"]
	if !ok || jsonx.IsNull(raw) {
		return map[string]any{}, nil
	}
	info := value(raw)
	if _, ok := info.(map[string]any); !ok {
		return nil, fmt.Errorf("pagination: pageInfo is %s, not an object", raw)
	}
	return map[string]any{"pageInfo": info}, nil
}

// Next implements Resumer.
func (s Relay) Next(params, meta map[string]any, _ int) map[string]any {
	more, _ := lookup(meta, "pageInfo", "hasNextPage").(bool)
	cur := str(lookup(meta, "pageInfo", "endCursor"))
	if !more || cur == "" {
		return nil
	}
	after := s.After
	if after == "" {
		after = "after"
	}
	return with(params, after, cur)
}

// RecordsCursor is Gong's paging: a `records` object {totalRecords,
// currentPageSize, currentPageNumber, cursor} whose cursor, present only
// when more pages exist, goes into the next request as `cursor` (the kind
// decides whether in the query or the body). Meta: {"pagination": records}.
type RecordsCursor struct{}

// Page implements Style.
func (s RecordsCursor) Page(r *Response) (map[string]any, map[string]any, error) { return page(s, r) }

func (RecordsCursor) meta(r *Response) (map[string]any, error) {
	raw, ok := r.Fields["records"]
	if !ok || jsonx.IsNull(raw) {
		return map[string]any{}, nil
	}
	return map[string]any{"pagination": value(raw)}, nil
}

// Next implements Resumer.
func (RecordsCursor) Next(params, meta map[string]any, _ int) map[string]any {
	if cur := str(lookup(meta, "pagination", "cursor")); cur != "" {
		return with(params, "cursor", cur)
	}
	return nil
}

// StartingAfter is Intercom's cursor paging: `pages.next.starting_after`
// goes into the next request as `starting_after`. Meta: {"next_page": the
// cursor or nil}, and total_count when the page gives it.
type StartingAfter struct{}

// Page implements Style.
func (s StartingAfter) Page(r *Response) (map[string]any, map[string]any, error) { return page(s, r) }

func (StartingAfter) meta(r *Response) (map[string]any, error) {
	m := map[string]any{"next_page": nil}
	raw, _ := jsonx.Lookup(r.Fields["pages"], "next", "starting_after")
	if cur, ok := jsonx.String(raw); ok && cur != "" {
		m["next_page"] = cur
	}
	// The number of records of the whole list, where the page says.
	if n, ok := r.Fields["total_count"]; ok {
		m["total_count"] = value(n)
	}
	return m, nil
}

// Next implements Resumer.
func (StartingAfter) Next(params, meta map[string]any, _ int) map[string]any {
	if cur := str(meta["next_page"]); cur != "" {
		return with(params, "starting_after", cur)
	}
	return nil
}

// LastID is paging by the id of a page's last record (Stripe's lists:
// `starting_after` = the id of the last object, while `has_more` is true).
// The cursor comes from the records, not from a member beside them.
// Meta: {More: the boolean, Param: the last record's id}, so that a
// client that sees only Meta resumes the same way.
type LastID struct {
	// Param is the request param the id goes into ("starting_after").
	Param string
	// ID is the record's id member ("id").
	ID string
	// More is the boolean top-level member that is false on the last page
	// ("has_more"); the list ends too on an empty page.
	More string
}

// Page implements Style.
func (s LastID) Page(r *Response) (map[string]any, map[string]any, error) { return page(s, r) }

func (s LastID) meta(r *Response) (map[string]any, error) {
	m := map[string]any{}
	raw, ok := r.Fields[s.More]
	more, isBool := jsonx.Bool(raw)
	if !ok || !isBool {
		return nil, fmt.Errorf("pagination: %s is %s, not a boolean", s.More, raw)
	}
	m[s.More] = more
	if r.Last != nil {
		id, _ := jsonx.Lookup(r.Last, s.ID)
		cur, ok := jsonx.String(id)
		if !ok || cur == "" {
			return nil, fmt.Errorf("pagination: the page's last record has no string %s to page on from", s.ID)
		}
		m[s.Param] = cur
	}
	return m, nil
}

// Next implements Resumer.
func (s LastID) Next(params, meta map[string]any, count int) map[string]any {
	more, _ := meta[s.More].(bool)
	cur := str(meta[s.Param])
	if !more || count == 0 || cur == "" {
		return nil
	}
	return with(params, s.Param, cur)
}

// NextRecordsURL is Salesforce's query paging: while `done` is false,
// `nextRecordsUrl` (a path relative to the instance) leads to the next
// batch. The next params carry it under Param. Meta: totalSize, done,
// nextRecordsUrl.
type NextRecordsURL struct {
	Param string // "next_records_url"
}

// Page implements Style.
func (s NextRecordsURL) Page(r *Response) (map[string]any, map[string]any, error) { return page(s, r) }

func (NextRecordsURL) meta(r *Response) (map[string]any, error) {
	return map[string]any{"totalSize": value(r.Fields["totalSize"]), "done": value(r.Fields["done"]), "nextRecordsUrl": value(r.Fields["nextRecordsUrl"])}, nil
}

// Next implements Resumer.
func (s NextRecordsURL) Next(params, meta map[string]any, _ int) map[string]any {
	done, _ := meta["done"].(bool)
	next := str(meta["nextRecordsUrl"])
	if done || next == "" {
		return nil
	}
	return with(params, s.Param, next)
}

// ZendeskPage is Zendesk's paging, in its three shapes.
//
// Offset mode (`page`, `per_page`): Meta {next_page, previous_page, count}
// and the next `page` number read from next_page.
//
// Cursor mode, chosen by the presence of `page[size]`: Meta {has_more,
// after_cursor, before_cursor, next_page, previous_page} from the body's
// `meta` and `links`, and `page[after]` for the next page.
//
// The older cursor shape of `GET /ticket_audits` (top-level after_cursor,
// after_url, before_cursor, before_url; records newest first): Meta holds
// those four, and the next page is requested with `cursor` = before_cursor
// while before_url is set: "before" is earlier in time, the next page of a
// newest-first list.
type ZendeskPage struct{}

// Page implements Style.
func (s ZendeskPage) Page(r *Response) (map[string]any, map[string]any, error) { return page(s, r) }

func (ZendeskPage) meta(r *Response) (map[string]any, error) {
	if _, cursor := r.Params["page[size]"]; cursor {
		m := r.Fields["meta"]
		hasMoreRaw, _ := jsonx.Lookup(m, "has_more")
		after, _ := jsonx.Lookup(m, "after_cursor")
		before, _ := jsonx.Lookup(m, "before_cursor")
		nextURL, _ := jsonx.Lookup(r.Fields["links"], "next")
		prevURL, _ := jsonx.Lookup(r.Fields["links"], "prev")
		hasMore, _ := jsonx.Bool(hasMoreRaw)
		return map[string]any{"has_more": hasMore, "after_cursor": value(after), "before_cursor": value(before),
			"next_page": value(nextURL), "previous_page": value(prevURL)}, nil
	}
	if _, offset := r.Fields["next_page"]; !offset {
		if _, legacy := r.Fields["before_url"]; legacy {
			return map[string]any{
				"after_cursor": value(r.Fields["after_cursor"]), "after_url": value(r.Fields["after_url"]),
				"before_cursor": value(r.Fields["before_cursor"]), "before_url": value(r.Fields["before_url"]),
			}, nil
		}
	}
	return map[string]any{"next_page": value(r.Fields["next_page"]), "previous_page": value(r.Fields["previous_page"]), "count": value(r.Fields["count"])}, nil
}

// Next implements Resumer.
func (ZendeskPage) Next(params, meta map[string]any, count int) map[string]any {
	if _, cursor := params["page[size]"]; cursor {
		hasMore, _ := meta["has_more"].(bool)
		if cur := str(meta["after_cursor"]); hasMore && cur != "" {
			return with(params, "page[after]", cur)
		}
		return nil
	}
	if _, legacy := meta["before_url"]; legacy {
		if cur := str(meta["before_cursor"]); str(meta["before_url"]) != "" && cur != "" && count > 0 {
			return with(params, "cursor", cur)
		}
		return nil
	}
	next := str(meta["next_page"])
	if next == "" {
		return nil
	}
	n := max(intParam(params, "page"), 1) + 1
	if p, ok := pageParam(next); ok && p > 0 {
		n = p
	}
	return with(params, "page", n)
}

// Zendesk's offset paging limits: per_page at most 100, and a 400 beyond
// 100 pages or 10,000 records.
const (
	zendeskMaxPerPage = 100
	zendeskMaxPage    = 100
	zendeskMaxOffset  = 10_000
)

// Plan implements Planner in offset mode: the page numbers from the next
// one to the last that count (the total) and per_page (100 unless set)
// imply, never past Zendesk's offset limits. The cursor modes name only the
// next page.
func (s ZendeskPage) Plan(params, meta map[string]any, count, n int) []map[string]any {
	next := s.Next(params, meta, count)
	if next == nil {
		return nil
	}
	out := []map[string]any{next}
	if _, cursor := params["page[size]"]; cursor {
		return out
	}
	if _, legacy := meta["before_url"]; legacy {
		return out
	}
	total, ok := asInt(meta["count"])
	first := intParam(next, "page")
	if !ok || first <= 0 {
		return out
	}
	// The page size: as asked, else as the next page's URL says, else
	// Zendesk's default; at most its cap of 100.
	size := intParam(params, "per_page")
	if size <= 0 {
		size, _ = queryInt(str(meta["next_page"]), "per_page")
	}
	if size <= 0 || size > zendeskMaxPerPage {
		size = zendeskMaxPerPage
	}
	// Offset paging answers 400 beyond 100 pages or 10,000 records: never
	// plan a page it refuses.
	last := min((total+size-1)/size, zendeskMaxPage, zendeskMaxOffset/size)
	for pg := first + 1; pg <= last && len(out) < n; pg++ {
		out = append(out, with(params, "page", pg))
	}
	return out
}

// ZendeskExport is the paging of Zendesk's incremental exports, in their
// two shapes; both end where end_of_stream is true.
//
// Cursor-based (`GET /api/v2/incremental/tickets/cursor.json`, users
// likewise): the first request carries `start_time`, every later one
// `cursor` = the page's after_cursor and no start_time. Meta
// {end_of_stream, after_cursor, after_url, before_cursor, before_url}.
//
// Time-based (`GET /api/v2/incremental/organizations.json`): the next
// request carries `start_time` = the page's end_time (records sharing
// that second come again: the vendor's boundary duplicates). Meta
// {end_of_stream, end_time, next_page, count}.
type ZendeskExport struct{}

// Page implements Style.
func (s ZendeskExport) Page(r *Response) (map[string]any, map[string]any, error) { return page(s, r) }

func (ZendeskExport) meta(r *Response) (map[string]any, error) {
	eos, _ := jsonx.Bool(r.Fields["end_of_stream"])
	m := map[string]any{"end_of_stream": eos}
	if _, timed := r.Fields["end_time"]; timed {
		m["end_time"], m["next_page"], m["count"] = value(r.Fields["end_time"]), value(r.Fields["next_page"]), value(r.Fields["count"])
		return m, nil
	}
	for _, k := range []string{"after_cursor", "after_url", "before_cursor", "before_url"} {
		m[k] = value(r.Fields[k])
	}
	return m, nil
}

// Next implements Resumer.
func (ZendeskExport) Next(params, meta map[string]any, _ int) map[string]any {
	if eos, _ := meta["end_of_stream"].(bool); eos {
		return nil
	}
	if _, timed := meta["end_time"]; timed {
		if t, ok := asInt(meta["end_time"]); ok {
			return with(params, "start_time", t)
		}
		return nil
	}
	cur := str(meta["after_cursor"])
	if cur == "" {
		return nil
	}
	next := with(params, "cursor", cur)
	delete(next, "start_time")
	return next
}

// LinkHeader is GitHub's paging: the `Link` response header's rel="next"
// and rel="last" URLs carry the page numbers. Meta {next_page, last_page}
// (integers or nil); a search body adds total_count and incomplete_results.
type LinkHeader struct{}

// Page implements Style.
func (s LinkHeader) Page(r *Response) (map[string]any, map[string]any, error) { return page(s, r) }

func (LinkHeader) meta(r *Response) (map[string]any, error) {
	links := ParseLink(r.Header.Values("Link"))
	pageOf := func(rel string) any {
		if n, ok := pageParam(links[rel]); ok {
			return n
		}
		return nil
	}
	meta := map[string]any{"next_page": pageOf("next"), "last_page": pageOf("last")}
	for _, k := range []string{"total_count", "incomplete_results"} {
		if raw, ok := r.Fields[k]; ok {
			meta[k] = value(raw)
		}
	}
	return meta, nil
}

// Next implements Resumer.
func (LinkHeader) Next(params, meta map[string]any, _ int) map[string]any {
	if n, ok := asInt(meta["next_page"]); ok && meta["next_page"] != nil {
		return with(params, "page", n)
	}
	return nil
}

// Plan implements Planner: the page numbers from next_page to last_page.
func (s LinkHeader) Plan(params, meta map[string]any, _, n int) []map[string]any {
	next, ok := asInt(meta["next_page"])
	if !ok || meta["next_page"] == nil {
		return nil
	}
	last, ok := asInt(meta["last_page"])
	if !ok || meta["last_page"] == nil {
		last = next // no last page named: only the next is known
	}
	var out []map[string]any
	for pg := next; pg <= last && len(out) < n; pg++ {
		out = append(out, with(params, "page", pg))
	}
	if len(out) == 0 { // a last page before the next: trust next
		out = append(out, with(params, "page", next))
	}
	return out
}

// pageParam reads the integer query parameter "page" of a URL.
func pageParam(u string) (int64, bool) { return queryInt(u, "page") }

// queryInt reads the integer query parameter key of a URL, as url.Parse
// and Query would, without building either: it is read on every page of a
// walk.
func queryInt(u, key string) (int64, bool) {
	_, q, ok := strings.Cut(u, "?")
	if !ok {
		return 0, false
	}
	q, _, _ = strings.Cut(q, "#")
	for q != "" {
		var kv string
		kv, q, _ = strings.Cut(q, "&")
		if k, v, _ := strings.Cut(kv, "="); k == key {
			n, err := strconv.ParseInt(v, 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// ParseLink parses RFC 8288 Link header values into rel → URL. URLs may
// contain commas (GitHub's `labels=bug,ui`): a link ends only at a comma
// outside <...>.
func ParseLink(values []string) map[string]string {
	out := map[string]string{}
	for _, v := range values {
		for len(v) > 0 {
			start := strings.IndexByte(v, '<')
			if start < 0 {
				break
			}
			end := strings.IndexByte(v[start:], '>')
			if end < 0 {
				break
			}
			u := v[start+1 : start+end]
			rest := v[start+end+1:]
			params := rest
			if next := strings.IndexByte(rest, '<'); next >= 0 {
				params, rest = rest[:next], rest[next:]
			} else {
				rest = ""
			}
			for _, attr := range strings.Split(params, ";") {
				k, val, ok := strings.Cut(strings.TrimSpace(attr), "=")
				if !ok || strings.TrimSpace(k) != "rel" {
					continue
				}
				val = strings.TrimRight(strings.TrimSpace(val), ", ")
				for _, rel := range strings.Fields(strings.Trim(val, `"`)) {
					if _, dup := out[rel]; !dup {
						out[rel] = u
					}
				}
			}
			v = rest
		}
	}
	return out
}

// PagingNextAfter is HubSpot's paging: `paging.next.after` goes into the
// next request as `after`. Meta {next_cursor}, plus total for searches.
type PagingNextAfter struct{}

// Page implements Style.
func (s PagingNextAfter) Page(r *Response) (map[string]any, map[string]any, error) { return page(s, r) }

func (PagingNextAfter) meta(r *Response) (map[string]any, error) {
	raw, _ := jsonx.Lookup(r.Fields["paging"], "next", "after")
	meta := map[string]any{"next_cursor": nil}
	if cur, ok := jsonx.String(raw); ok && cur != "" {
		meta["next_cursor"] = cur
	}
	if t, ok := r.Fields["total"]; ok {
		meta["total"] = value(t)
	}
	return meta, nil
}

// Next implements Resumer.
func (PagingNextAfter) Next(params, meta map[string]any, _ int) map[string]any {
	if cur := str(meta["next_cursor"]); cur != "" {
		return with(params, "after", cur)
	}
	return nil
}

// Total is a list that is not paged but reports a total (Mailchimp's
// tag-search: total_items): Meta {Field: n}, never a next page.
type Total struct {
	Field string
}

// Page implements Style.
func (s Total) Page(r *Response) (map[string]any, map[string]any, error) {
	if n, ok := jsonx.Int(r.Fields[s.Field]); ok {
		return map[string]any{s.Field: n}, nil, nil
	}
	return map[string]any{}, nil, nil
}

// Next implements Resumer.
func (Total) Next(map[string]any, map[string]any, int) map[string]any { return nil }

// None is a list that is not paged: empty Meta, no next page.
type None struct{}

// Page implements Style.
func (None) Page(*Response) (map[string]any, map[string]any, error) {
	return map[string]any{}, nil, nil
}

// Next implements Resumer.
func (None) Next(map[string]any, map[string]any, int) map[string]any { return nil }

// PageNumber is paging by page number, with the number of pages in the
// body (Slack's files.list and search.messages: page, and paging.pages
// beside the records). The first page is 1 (a request without Param);
// paging stops at the last page or on an empty one. Meta holds, raw, the
// top-level member that Pages starts with.
type PageNumber struct {
	// Param is the request param of the page number ("page").
	Param string
	// Pages is the dot path of the number of pages in the body
	// ("paging.pages").
	Pages string
}

// Page implements Style.
func (s PageNumber) Page(r *Response) (map[string]any, map[string]any, error) { return page(s, r) }

func (s PageNumber) meta(r *Response) (map[string]any, error) {
	m := map[string]any{}
	top, _, _ := strings.Cut(s.Pages, ".")
	if raw, ok := r.Fields[top]; ok {
		m[top] = value(raw)
	}
	return m, nil
}

// Next implements Resumer.
func (s PageNumber) Next(params, meta map[string]any, count int) map[string]any {
	cur := max(intParam(params, s.Param), 1)
	pages, ok := asInt(lookup(meta, strings.Split(s.Pages, ".")...))
	if count == 0 || !ok || cur >= pages {
		return nil
	}
	return with(params, s.Param, cur+1)
}

// Plan implements Planner: the page numbers after this page, up to the
// last.
func (s PageNumber) Plan(params, meta map[string]any, count, n int) []map[string]any {
	pages, ok := asInt(lookup(meta, strings.Split(s.Pages, ".")...))
	if !ok || count == 0 {
		return nil
	}
	var out []map[string]any
	for p := max(intParam(params, s.Param), 1) + 1; p <= pages && len(out) < n; p++ {
		out = append(out, with(params, s.Param, p))
	}
	return out
}
