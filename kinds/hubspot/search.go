package hubspot

import (
	"context"
	"fmt"
	"iter"
	"strconv"
	"time"

	"github.com/tributary-dev/tributary"
)

// SearchAll yields every record that the api_search params p (HubSpot's
// own body: filterGroups, sorts, query, properties, limit, after) match, in
// order, across pages — and past HubSpot's cap of 10,000 results per query.
//
// Without sorts, SearchAll sorts by the last-modified date ascending
// (lastmodifieddate for contacts, hs_lastmodifieddate for the other object
// types). When the cap is reached it starts a new window: the same query
// with, in every filter group, the filter "modified at or after the last
// date seen", skipping the records of that date it already yielded. A
// record modified during the walk may therefore come again later (with its
// new date); none that matched throughout is missed. When the properties
// param is given, the last-modified property is added to it.
//
// With other sorts, or when more than 10,000 matching records share one
// modification time, or when a filter group has no room for the window
// filter, SearchAll ends with an error matching tributary.ErrPaging instead
// of stopping silently at the cap. Breaking out of the loop stops fetching.
func (c *Client) SearchAll(ctx context.Context, entity string, p tributary.Params) iter.Seq2[tributary.Record, error] {
	return func(yield func(tributary.Record, error) bool) {
		w, err := c.newSearchWalk(entity, p)
		if err != nil {
			yield(tributary.Record{}, err)
			return
		}
		if err := w.run(ctx, yield); err != nil {
			yield(tributary.Record{}, err)
		}
	}
}

// ModifiedProperty names the last-modified property SearchAll windows on:
// lastmodifieddate for contacts (HubSpot's contacts search does not filter
// reliably on hs_lastmodifieddate), hs_lastmodifieddate for the others.
func ModifiedProperty(entity string) string {
	if entity == "contacts" {
		return "lastmodifieddate"
	}
	return "hs_lastmodifieddate"
}

type searchWalk struct {
	c        *Client
	entity   string
	base     tributary.Params // normalized, without limit and after
	modProp  string
	windowed bool // sorted by modProp ascending: re-windowing is possible
	limit    int64
	start    int64 // the caller's after
}

func (c *Client) newSearchWalk(entity string, p tributary.Params) (*searchWalk, error) {
	norm, err := tributary.Validate(Type, c.Entities(), entity, apiSearch, p)
	if err != nil {
		return nil, err
	}
	w := &searchWalk{c: c, entity: entity, base: norm, modProp: ModifiedProperty(entity), limit: MaxSearchLimit}
	if sorts, ok := norm["sorts"].([]any); ok && len(sorts) > 0 {
		w.windowed = ascendingOn(sorts, w.modProp)
	} else {
		norm["sorts"] = []any{map[string]any{"propertyName": w.modProp, "direction": "ASCENDING"}}
		w.windowed = true
	}
	if props, ok := norm["properties"].([]any); ok && w.windowed {
		has := false
		for _, x := range props {
			has = has || x == w.modProp
		}
		if !has {
			norm["properties"] = append(append([]any{}, props...), w.modProp)
		}
	}
	if n, ok := norm["limit"].(int64); ok {
		w.limit = n
	}
	if s, ok := norm["after"].(string); ok {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return nil, &tributary.Error{Kind: Type, Entity: entity, Action: apiSearch, Param: "after", Err: tributary.ErrInvalidParams,
				Message: fmt.Sprintf("%q is not a search offset (the next_cursor of a search page)", s)}
		}
		w.start = n
	}
	delete(norm, "limit")
	delete(norm, "after")
	return w, nil
}

// ascendingOn reports whether sorts is the one rule "prop ascending".
func ascendingOn(sorts []any, prop string) bool {
	if len(sorts) != 1 {
		return false
	}
	switch s := sorts[0].(type) {
	case string:
		return s == prop
	case map[string]any:
		dir, _ := s["direction"].(string)
		return s["propertyName"] == prop && (dir == "" || dir == "ASCENDING")
	}
	return false
}

func (w *searchWalk) fail(format string, args ...any) error {
	return &tributary.Error{Kind: Type, Entity: w.entity, Action: apiSearch, Err: tributary.ErrPaging, Message: fmt.Sprintf(format, args...)}
}

// run walks the windows. A yield that returns false ends it with nil.
func (w *searchWalk) run(ctx context.Context, yield func(tributary.Record, error) bool) error {
	lower := int64(-1)                // window start in epoch ms; -1: the caller's query as is
	seen := map[string]struct{}{}     // ids yielded with modification time == lower
	last := int64(-1)                 // modification time of the last record yielded
	boundary := map[string]struct{}{} // ids yielded with modification time == last
	offset := w.start
	first := true
	for {
		params := w.base.Clone()
		if lower >= 0 {
			groups, err := w.window(lower)
			if err != nil {
				return err
			}
			params["filterGroups"] = groups
		}
		for {
			lim := min(w.limit, SearchResultCap-offset)
			if lim <= 0 {
				break
			}
			pp := params.Clone()
			pp["limit"] = lim
			if offset > 0 {
				pp["after"] = strconv.FormatInt(offset, 10)
			}
			page, err := w.c.APISearch(ctx, w.entity, pp)
			if err != nil {
				return err
			}
			if first && !w.windowed {
				if total, ok := page.Meta["total"].(int64); ok && total > SearchResultCap {
					return w.fail("the search matches %d records and HubSpot pages through at most %d per query; "+
						"to walk them all, sort by %s ascending (or give no sorts) so that SearchAll can re-window", total, SearchResultCap, w.modProp)
				}
			}
			first = false
			for _, rec := range page.Records {
				// A cancelled walk stops at once, also in the middle of a
				// page already in memory.
				if err := ctx.Err(); err != nil {
					return &tributary.Error{Kind: Type, Entity: w.entity, Action: apiSearch, Err: err, Message: "request cancelled"}
				}
				id, ms, err := w.key(rec)
				if err != nil {
					return err
				}
				if ms == lower {
					if _, dup := seen[id]; dup {
						continue
					}
				}
				if !yield(rec, nil) {
					return nil
				}
				if ms != last {
					last, boundary = ms, map[string]struct{}{}
				}
				boundary[id] = struct{}{}
			}
			offset += int64(len(page.Records))
			if page.Next == nil {
				return nil
			}
			if len(page.Records) == 0 {
				return w.fail("HubSpot announced another page at offset %d but sent no records", offset)
			}
		}
		// The window reached the cap.
		switch {
		case !w.windowed:
			return w.fail("HubSpot pages through at most %d results per query and this search has more; "+
				"sort by %s ascending (or give no sorts) so that SearchAll can re-window", SearchResultCap, w.modProp)
		case last < 0:
			return w.fail("the search reached HubSpot's %d-result cap before yielding a record", SearchResultCap)
		case last == lower:
			return w.fail("more than %d matching records have %s = %s; HubSpot's search cannot page past them",
				SearchResultCap, w.modProp, time.UnixMilli(last).UTC().Format("2006-01-02T15:04:05.000Z"))
		}
		lower, seen = last, boundary
		offset = 0
	}
}

// window returns the caller's filter groups with "modProp >= ms" added to
// each (one group of its own when there are none).
func (w *searchWalk) window(ms int64) ([]any, error) {
	f := map[string]any{"propertyName": w.modProp, "operator": "GTE", "value": strconv.FormatInt(ms, 10)}
	groups, _ := w.base["filterGroups"].([]any)
	if len(groups) == 0 {
		return []any{map[string]any{"filters": []any{f}}}, nil
	}
	out := make([]any, len(groups))
	total := 0
	for i, g := range groups {
		gm, _ := g.(map[string]any)
		filters, _ := gm["filters"].([]any)
		if len(filters) >= MaxFiltersPerGroup {
			return nil, w.fail("HubSpot pages through at most %d results per query, and filter group %d has no room for the %s filter SearchAll needs to re-window (it has %d filters, HubSpot allows %d)",
				SearchResultCap, i, w.modProp, len(filters), MaxFiltersPerGroup)
		}
		total += len(filters) + 1
		ng := make(map[string]any, len(gm))
		for k, v := range gm {
			ng[k] = v
		}
		ng["filters"] = append(append([]any{}, filters...), f)
		out[i] = ng
	}
	if total > MaxFilters {
		return nil, w.fail("HubSpot pages through at most %d results per query, and the filters have no room for the %s filter SearchAll needs to re-window (HubSpot allows %d filters in all)",
			SearchResultCap, w.modProp, MaxFilters)
	}
	return out, nil
}

// key reads a record's id and modification time (epoch milliseconds).
func (w *searchWalk) key(rec tributary.Record) (string, int64, error) {
	id, ok := rec.StringAt("id")
	if !ok {
		return "", 0, w.fail("a search result has no id")
	}
	v, ok := rec.StringAt("properties." + w.modProp)
	if !ok || v == "" {
		v, ok = rec.StringAt("updatedAt")
	}
	if !ok {
		return "", 0, w.fail("search result %s has neither %s nor updatedAt", id, w.modProp)
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return id, t.UnixMilli(), nil
	}
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
		return id, ms, nil
	}
	return "", 0, w.fail("search result %s has an unreadable modification time %q", id, v)
}
