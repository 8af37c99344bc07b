package lineartest

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// resolve answers one root field of a query.
func (s *Server) resolve(call *fakeserver.GraphQLCall, f *ast.Field, args map[string]any) (any, error) {
	if f.Name == "viewer" {
		return s.d.ref("users", 0).(func() any)(), nil
	}
	if f.Name == "searchIssues" {
		return s.search(args)
	}
	k := s.d.kind(f.Name)
	switch {
	case k == nil:
		return nil, lerr("INPUT_ERROR", "invalid input", "lineartest does not serve Query."+f.Name, 400)
	case f.Name == k.listField:
		return s.connection(k, args, nil)
	}
	id, _ := args["id"].(string)
	if r, ok := k.table.Live(id); ok && id != "" {
		return r, nil
	}
	if k.entity == "issues" && id != "" { // an issue by its identifier
		for _, r := range k.table.Rows(nil) {
			if r.Rec["identifier"] == id {
				return r.Rec, nil
			}
		}
	}
	return nil, notFound(k.typeName)
}

// search answers searchIssues: the issues whose title or description
// (or a comment, with includeComments) contains the term, the team's
// first.
func (s *Server) search(args map[string]any) (any, error) {
	term, _ := args["term"].(string)
	term = strings.ToLower(term)
	commented := map[string]bool{}
	if args["includeComments"] == true {
		for _, c := range s.d.kind("comments").table.Rows(nil) {
			if id, ok := c.Rec["issueId"].(string); ok && strings.Contains(strings.ToLower(fmt.Sprint(c.Rec["body"])), term) {
				commented[id] = true
			}
		}
	}
	match := func(r record) bool {
		desc, _ := r["description"].(string)
		return commented[r["id"].(string)] || strings.Contains(strings.ToLower(r["title"].(string)+"\n"+desc), term)
	}
	team, _ := args["teamId"].(string)
	out, err := s.connection(s.d.kind("issues"), args, match, func(r record) bool { return team != "" && teamID(r) == team })
	if m, ok := out.(map[string]any); ok {
		m["archivePayload"] = record{"success": true, "lastSyncId": 0.0}
	}
	return out, err
}

func teamID(r record) string {
	if f, ok := r["team"].(func() any); ok {
		if t, ok := f().(record); ok {
			return t["id"].(string)
		}
	}
	return ""
}

// cursor is a position in a list: the sort key and creation order of the
// last record read, bound to the list's order.
func cursor(entity, orderBy string, key string, seq int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(entity + "|" + orderBy + "|" + key + "|" + strconv.Itoa(seq)))
}

func fromCursor(entity, orderBy, c string) (key string, seq int, ok bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	parts := strings.Split(string(b), "|")
	if err != nil || len(parts) != 4 || parts[0] != entity || parts[1] != orderBy {
		return "", 0, false
	}
	seq, err = strconv.Atoi(parts[3])
	return parts[2], seq, err == nil
}

// connection answers a list: the records that pass the arguments (and
// match, when set), newest first, one page of them from after.
func (s *Server) connection(k *kind, args map[string]any, match func(record) bool, first ...func(record) bool) (any, error) {
	invalid := func(msg string) error { return lerr("INPUT_ERROR", "invalid input", msg, 400) }
	if args["last"] != nil || args["before"] != nil {
		return nil, invalid("lineartest pages forward only (first, after)")
	}
	n := int64(50)
	if v, ok := args["first"].(int64); ok {
		n = v
	}
	if n < 0 || n > MaxFirst {
		return nil, invalid(fmt.Sprintf("first must be between 0 and %d", MaxFirst))
	}
	orderBy, _ := args["orderBy"].(string)
	if orderBy == "" {
		orderBy = "createdAt"
	}
	filter, _ := args["filter"].(map[string]any)
	rows, err := k.ordered(orderBy, args["includeArchived"] == true, args["includeDisabled"] == true, filter, match, first...)
	if err != nil {
		return nil, invalid(err.Error())
	}
	from := 0
	if after, ok := args["after"].(string); ok && after != "" {
		key, seq, ok := fromCursor(k.entity, orderBy, after)
		if !ok {
			return nil, invalid("Invalid cursor: " + after)
		}
		// The first record past the cursor's.
		from, _ = slices.BinarySearchFunc(rows, entry{key: key, seq: seq}, func(e, target entry) int {
			if !target.before(e) {
				return -1
			}
			return 1
		})
	}
	page, next := fakeserver.PageOf(rows, from, int(n))
	if n == 0 {
		page, next = nil, -1
	}
	nodes := make([]record, len(page))
	edges := make([]any, len(page))
	var start, end any
	for i, e := range page {
		c := cursor(k.entity, orderBy, e.key, e.seq)
		nodes[i], edges[i] = e.rec, record{"node": e.rec, "cursor": c}
		if i == 0 {
			start = c
		}
		end = c
	}
	return record{"nodes": nodes, "edges": edges, "totalCount": float64(len(rows)),
		"pageInfo": record{"hasNextPage": next >= 0, "hasPreviousPage": from > 0, "startCursor": start, "endCursor": end}}, nil
}

// entry is a record in a list's order.
type entry struct {
	key string // 1 for a boosted record (0 else), a space, the orderBy time as written
	seq int
	rec record
}

// before reports whether e comes before o: newest first (the boosted
// first of all), ties in reverse creation order.
func (e entry) before(o entry) bool {
	if e.key != o.key {
		return e.key > o.key
	}
	return e.seq > o.seq
}

// ordered returns the records of a list in its order. The order of an
// unfiltered list is kept until the records change.
func (k *kind) ordered(orderBy string, archived, disabled bool, filter map[string]any, match func(record) bool, boost ...func(record) bool) ([]entry, error) {
	plain := filter == nil && match == nil && len(boost) == 0
	cacheKey := fmt.Sprint(orderBy, archived, disabled)
	k.mu.Lock()
	if c, ok := k.cache[cacheKey]; plain && ok && c.version == k.version {
		k.mu.Unlock()
		return c.rows, nil
	}
	version := k.version
	k.mu.Unlock()
	var rows []entry
	for _, r := range k.table.Rows(nil) {
		if (r.Rec["archivedAt"] != nil && !archived) || (r.Rec["active"] == false && !disabled) || (match != nil && !match(r.Rec)) {
			continue
		}
		ok, err := matches(r.Rec, filter)
		if err != nil {
			return nil, err
		}
		if ok {
			b := "0 "
			if len(boost) > 0 && boost[0](r.Rec) {
				b = "1 "
			}
			rows = append(rows, entry{b + r.Rec[orderBy].(string), r.Seq, r.Rec})
		}
	}
	slices.SortFunc(rows, func(a, b entry) int {
		switch {
		case a.before(b):
			return -1
		case b.before(a):
			return 1
		}
		return 0
	})
	if plain {
		k.mu.Lock()
		if k.cache == nil {
			k.cache = map[string]ordering{}
		}
		k.cache[cacheKey] = ordering{version, rows}
		k.mu.Unlock()
	}
	return rows, nil
}

// ordering is a list's order at a version of its records.
type ordering struct {
	version int
	rows    []entry
}

var comparators = map[string]bool{"eq": true, "neq": true, "gt": true, "gte": true, "lt": true, "lte": true, "in": true, "nin": true,
	"null": true, "contains": true, "containsIgnoreCase": true, "startsWith": true}

// matches evaluates a Linear filter on a record: field comparators,
// filters of related records, and and/or.
func matches(r record, filter map[string]any) (bool, error) {
	for name, cond := range filter {
		switch name {
		case "and", "or":
			list, _ := cond.([]any)
			some := false
			for _, sub := range list {
				m, _ := sub.(map[string]any)
				ok, err := matches(r, m)
				if err != nil {
					return false, err
				}
				if name == "and" && !ok {
					return false, nil
				}
				some = some || ok
			}
			if name == "or" && !some && len(list) > 0 {
				return false, nil
			}
			continue
		}
		v, known := r[name]
		if f, ok := v.(func() any); ok {
			v = f()
		}
		c, _ := cond.(map[string]any)
		if !known {
			return false, fmt.Errorf("lineartest cannot filter on %s", name)
		}
		nested := false
		for op := range c {
			nested = nested || !comparators[op]
		}
		if nested {
			sub, _ := v.(record)
			if sub == nil {
				return false, nil
			}
			ok, err := matches(sub, c)
			if !ok || err != nil {
				return false, err
			}
			continue
		}
		for op, want := range c {
			ok, err := compare(v, op, want)
			if !ok || err != nil {
				return false, err
			}
		}
	}
	return true, nil
}

// compare applies one comparator; date-times compare as times.
func compare(v any, op string, want any) (bool, error) {
	switch op {
	case "null":
		return (v == nil) == (want == true), nil
	case "in", "nin":
		list, _ := want.([]any)
		in := slices.ContainsFunc(list, func(w any) bool { return order(v, w) == 0 })
		return in == (op == "in"), nil
	case "contains", "containsIgnoreCase", "startsWith":
		s, w := fmt.Sprint(v), fmt.Sprint(want)
		if op == "containsIgnoreCase" {
			s, w = strings.ToLower(s), strings.ToLower(w)
		}
		return v != nil && ((op == "startsWith" && strings.HasPrefix(s, w)) || (op != "startsWith" && strings.Contains(s, w))), nil
	}
	if v == nil {
		return op == "neq" && want != nil, nil
	}
	if ws, ok := want.(string); ok && (strings.HasPrefix(ws, "P") || strings.HasPrefix(ws, "-P")) {
		return false, fmt.Errorf("lineartest does not read durations (%v): give a date-time", want)
	}
	c := order(v, want)
	switch op {
	case "eq":
		return c == 0, nil
	case "neq":
		return c != 0, nil
	case "gt":
		return c > 0, nil
	case "gte":
		return c >= 0, nil
	case "lt":
		return c < 0, nil
	case "lte":
		return c <= 0, nil
	}
	return false, fmt.Errorf("lineartest does not read the comparator %s", op)
}

// order compares a record's value with a filter's: as times when both are
// date-times, as numbers when both are, else as text.
func order(v, w any) int {
	vs, ws := fmt.Sprint(v), fmt.Sprint(w)
	if vt, err := time.Parse(time.RFC3339Nano, vs); err == nil {
		if wt, err := time.Parse(time.RFC3339Nano, ws); err == nil {
			return vt.Compare(wt)
		}
	}
	if vf, ok := v.(float64); ok {
		if wf, ok := w.(float64); ok {
			return cmp.Compare(vf, wf)
		}
	}
	return strings.Compare(vs, ws)
}
