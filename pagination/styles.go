package pagination

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
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
}

// Style is one vendor paging scheme.
type Style interface {
	// Page returns the page's Meta and the params of the next page (nil on
	// the last page).
	Page(r *Response) (meta map[string]any, next map[string]any, err error)
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

func intParam(params map[string]any, key string) int64 {
	switch v := params[key].(type) {
	case int64:
		return v
	case int:
		return int64(v)
	case float64:
		return int64(v)
	}
	return 0
}

// OffsetTotal is offset/count paging with a total in the body (Mailchimp:
// `count`, `offset` → `total_items`). The next page starts where this one
// ended; paging stops at the total or on an empty page.
type OffsetTotal struct {
	OffsetParam string // "offset"
	TotalField  string // "total_items"
}

// Page implements Style.
func (s OffsetTotal) Page(r *Response) (map[string]any, map[string]any, error) {
	raw, ok := r.Fields[s.TotalField]
	if !ok {
		return map[string]any{}, nil, nil
	}
	total, ok := jsonx.Int(raw)
	if !ok {
		return nil, nil, fmt.Errorf("pagination: %s is %s, not an integer", s.TotalField, raw)
	}
	meta := map[string]any{s.TotalField: total}
	off := intParam(r.Params, s.OffsetParam) + int64(r.Count)
	if r.Count == 0 || off >= total {
		return meta, nil, nil
	}
	return meta, with(r.Params, s.OffsetParam, off), nil
}

// RecordsCursor is Gong's paging: a `records` object {totalRecords,
// currentPageSize, currentPageNumber, cursor} whose cursor, present only
// when more pages exist, goes into the next request as `cursor` (the kind
// decides whether in the query or the body). Meta: {"pagination": records}.
type RecordsCursor struct{}

// Page implements Style.
func (RecordsCursor) Page(r *Response) (map[string]any, map[string]any, error) {
	raw, ok := r.Fields["records"]
	if !ok || jsonx.IsNull(raw) {
		return map[string]any{}, nil, nil
	}
	meta := map[string]any{"pagination": value(raw)}
	c, _ := jsonx.Lookup(raw, "cursor")
	if cur, ok := jsonx.String(c); ok && cur != "" {
		return meta, with(r.Params, "cursor", cur), nil
	}
	return meta, nil, nil
}

// StartingAfter is Intercom's cursor paging: `pages.next.starting_after`
// goes into the next request as `starting_after`. Meta: {"next_page": the
// cursor or nil}.
type StartingAfter struct{}

// Page implements Style.
func (StartingAfter) Page(r *Response) (map[string]any, map[string]any, error) {
	raw, _ := jsonx.Lookup(r.Fields["pages"], "next", "starting_after")
	cur, ok := jsonx.String(raw)
	if !ok || cur == "" {
		return map[string]any{"next_page": nil}, nil, nil
	}
	return map[string]any{"next_page": cur}, with(r.Params, "starting_after", cur), nil
}

// NextRecordsURL is Salesforce's query paging: while `done` is false,
// `nextRecordsUrl` (a path relative to the instance) leads to the next
// batch. The next params carry it under Param. Meta: totalSize, done,
// nextRecordsUrl.
type NextRecordsURL struct {
	Param string // "next_records_url"
}

// Page implements Style.
func (s NextRecordsURL) Page(r *Response) (map[string]any, map[string]any, error) {
	meta := map[string]any{"totalSize": value(r.Fields["totalSize"]), "done": value(r.Fields["done"]), "nextRecordsUrl": value(r.Fields["nextRecordsUrl"])}
	done, _ := jsonx.Bool(r.Fields["done"])
	next, ok := jsonx.String(r.Fields["nextRecordsUrl"])
	if done || !ok || next == "" {
		return meta, nil, nil
	}
	return meta, with(r.Params, s.Param, next), nil
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
func (ZendeskPage) Page(r *Response) (map[string]any, map[string]any, error) {
	if _, cursor := r.Params["page[size]"]; cursor {
		m := r.Fields["meta"]
		hasMoreRaw, _ := jsonx.Lookup(m, "has_more")
		after, _ := jsonx.Lookup(m, "after_cursor")
		before, _ := jsonx.Lookup(m, "before_cursor")
		nextURL, _ := jsonx.Lookup(r.Fields["links"], "next")
		prevURL, _ := jsonx.Lookup(r.Fields["links"], "prev")
		hasMore, _ := jsonx.Bool(hasMoreRaw)
		meta := map[string]any{"has_more": hasMore, "after_cursor": value(after), "before_cursor": value(before),
			"next_page": value(nextURL), "previous_page": value(prevURL)}
		cur, ok := jsonx.String(after)
		if !hasMore || !ok || cur == "" {
			return meta, nil, nil
		}
		return meta, with(r.Params, "page[after]", cur), nil
	}
	if _, offset := r.Fields["next_page"]; !offset {
		if _, legacy := r.Fields["before_url"]; legacy {
			return legacyCursor(r)
		}
	}
	meta := map[string]any{"next_page": value(r.Fields["next_page"]), "previous_page": value(r.Fields["previous_page"]), "count": value(r.Fields["count"])}
	next, ok := jsonx.String(r.Fields["next_page"])
	if !ok || next == "" {
		return meta, nil, nil
	}
	page := intParam(r.Params, "page")
	if page < 1 {
		page = 1
	}
	n := page + 1
	if u, err := url.Parse(next); err == nil {
		if p, err := strconv.ParseInt(u.Query().Get("page"), 10, 64); err == nil && p > 0 {
			n = p
		}
	}
	return meta, with(r.Params, "page", n), nil
}

func legacyCursor(r *Response) (map[string]any, map[string]any, error) {
	meta := map[string]any{
		"after_cursor": value(r.Fields["after_cursor"]), "after_url": value(r.Fields["after_url"]),
		"before_cursor": value(r.Fields["before_cursor"]), "before_url": value(r.Fields["before_url"]),
	}
	beforeURL, _ := jsonx.String(r.Fields["before_url"])
	cur, ok := jsonx.String(r.Fields["before_cursor"])
	if beforeURL == "" || !ok || cur == "" || r.Count == 0 {
		return meta, nil, nil
	}
	return meta, with(r.Params, "cursor", cur), nil
}

// LinkHeader is GitHub's paging: the `Link` response header's rel="next"
// and rel="last" URLs carry the page numbers. Meta {next_page, last_page}
// (integers or nil); a search body adds total_count and incomplete_results.
type LinkHeader struct{}

// Page implements Style.
func (LinkHeader) Page(r *Response) (map[string]any, map[string]any, error) {
	links := ParseLink(r.Header.Values("Link"))
	pageOf := func(rel string) any {
		u, ok := links[rel]
		if !ok {
			return nil
		}
		pu, err := url.Parse(u)
		if err != nil {
			return nil
		}
		n, err := strconv.ParseInt(pu.Query().Get("page"), 10, 64)
		if err != nil {
			return nil
		}
		return n
	}
	meta := map[string]any{"next_page": pageOf("next"), "last_page": pageOf("last")}
	for _, k := range []string{"total_count", "incomplete_results"} {
		if raw, ok := r.Fields[k]; ok {
			meta[k] = value(raw)
		}
	}
	n, ok := meta["next_page"].(int64)
	if !ok {
		return meta, nil, nil
	}
	return meta, with(r.Params, "page", n), nil
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
func (PagingNextAfter) Page(r *Response) (map[string]any, map[string]any, error) {
	raw, _ := jsonx.Lookup(r.Fields["paging"], "next", "after")
	meta := map[string]any{"next_cursor": value(raw)}
	if t, ok := r.Fields["total"]; ok {
		meta["total"] = value(t)
	}
	cur, ok := jsonx.String(raw)
	if !ok || cur == "" {
		meta["next_cursor"] = nil
		return meta, nil, nil
	}
	return meta, with(r.Params, "after", cur), nil
}

// None is a list that is not paged: empty Meta, no next page.
type None struct{}

// Page implements Style.
func (None) Page(*Response) (map[string]any, map[string]any, error) {
	return map[string]any{}, nil, nil
}
