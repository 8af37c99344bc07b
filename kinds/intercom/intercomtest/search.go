package intercomtest

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// Limits of Intercom's search bodies.
const (
	maxSearchFilters = 15 // per AND or OR group
	maxSearchNesting = 2
	day              = 86400
	// maxCachedSearches bounds the searches whose matches are kept at
	// one version of the records (a sandbox may serve many, unmutated).
	maxCachedSearches = 16
)

// searchBody is Intercom's search_request, with the sort object Intercom's
// search guide describes.
type searchBody struct {
	Query      json.RawMessage `json:"query"`
	Pagination *struct {
		PerPage       *int    `json:"per_page"`
		StartingAfter *string `json:"starting_after"`
	} `json:"pagination"`
	Sort *struct {
		Field string `json:"field"`
		Order string `json:"order"`
	} `json:"sort"`
}

type queryNode struct {
	Field    string          `json:"field"`
	Operator string          `json:"operator"`
	Value    json.RawMessage `json:"value"`
}

// predicate tests one record, rendered as a generic JSON value.
type predicate func(rec map[string]any) bool

// dateField reports whether a field is a timestamp, which Intercom's
// search matches by calendar day.
func dateField(field string) bool {
	last := field[strings.LastIndexByte(field, '.')+1:]
	return strings.HasSuffix(last, "_at") || last == "waiting_since" || last == "snoozed_until"
}

// parseQuery compiles a query node; a non-empty string is the 400's
// message.
func parseQuery(raw json.RawMessage, depth int) (predicate, string) {
	var n queryNode
	if len(bytes.TrimSpace(raw)) == 0 || json.Unmarshal(raw, &n) != nil {
		return nil, "query must be an object"
	}
	switch op := strings.ToUpper(n.Operator); {
	case n.Field == "" && (op == "AND" || op == "OR"):
		if depth >= maxSearchNesting {
			return nil, fmt.Sprintf("queries may nest at most %d levels", maxSearchNesting)
		}
		var parts []json.RawMessage
		if json.Unmarshal(n.Value, &parts) != nil || len(parts) == 0 {
			return nil, op + " needs an array of queries as its value"
		}
		if len(parts) > maxSearchFilters {
			return nil, fmt.Sprintf("a %s group accepts at most %d filters", op, maxSearchFilters)
		}
		preds := make([]predicate, len(parts))
		for k, p := range parts {
			pr, msg := parseQuery(p, depth+1)
			if msg != "" {
				return nil, msg
			}
			preds[k] = pr
		}
		return func(rec map[string]any) bool {
			for _, pr := range preds {
				if pr(rec) != (op == "AND") {
					return op != "AND"
				}
			}
			return op == "AND"
		}, ""
	case n.Field == "":
		return nil, "a query needs a field, or an AND/OR operator"
	default:
		return parseFilter(n)
	}
}

func parseFilter(n queryNode) (predicate, string) {
	field, op := n.Field, n.Operator
	var v any
	dec := json.NewDecoder(bytes.NewReader(n.Value))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return nil, "the value of " + field + " is not valid JSON"
	}
	if dateField(field) {
		// Timestamps match by calendar day (the fake's workspace time zone
		// is UTC): = the whole day, > from the start of the next day, < before
		// the start of the day.
		num, ok := v.(json.Number)
		if !ok {
			if s, isStr := v.(string); isStr {
				num, ok = json.Number(s), true
			}
		}
		t, err := num.Int64()
		if !ok || err != nil {
			return nil, fmt.Sprintf("%s accepts a date (a UNIX timestamp), not %s", field, n.Value)
		}
		start := t - ((t%day)+day)%day
		var test func(x int64) bool
		switch op {
		case "=":
			test = func(x int64) bool { return x >= start && x < start+day }
		case ">":
			test = func(x int64) bool { return x >= start+day }
		case "<":
			test = func(x int64) bool { return x < start }
		default:
			return nil, fmt.Sprintf("the operator %s is not supported on the date field %s", op, field)
		}
		return func(rec map[string]any) bool {
			x, ok := number(lookup(rec, field))
			return ok && test(int64(x))
		}, ""
	}
	values := []any{v}
	if arr, ok := v.([]any); ok {
		values = arr
	}
	str := func(x any) string {
		switch y := x.(type) {
		case string:
			return y
		case json.Number:
			return y.String()
		case float64:
			return strconv.FormatFloat(y, 'f', -1, 64)
		case bool:
			return strconv.FormatBool(y)
		case nil:
			return ""
		}
		b, _ := json.Marshal(x)
		return string(b)
	}
	eq := func(x any) bool {
		for _, w := range values {
			if strings.EqualFold(str(x), str(w)) {
				return true
			}
		}
		return false
	}
	want := str(v)
	cmpNum := func(x any, f func(a, b float64) bool) bool {
		a, ok1 := number(x)
		b, ok2 := number(v)
		return ok1 && ok2 && f(a, b)
	}
	var test func(x any) bool
	switch op {
	case "=", "IN":
		test = eq
	case "!=", "NIN":
		test = func(x any) bool { return !eq(x) }
	case "~":
		test = func(x any) bool { return strings.Contains(strings.ToLower(str(x)), strings.ToLower(want)) }
	case "!~":
		test = func(x any) bool { return !strings.Contains(strings.ToLower(str(x)), strings.ToLower(want)) }
	case "^":
		test = func(x any) bool { return strings.HasPrefix(strings.ToLower(str(x)), strings.ToLower(want)) }
	case "$":
		test = func(x any) bool { return strings.HasSuffix(strings.ToLower(str(x)), strings.ToLower(want)) }
	case "<":
		test = func(x any) bool { return cmpNum(x, func(a, b float64) bool { return a < b }) }
	case "<=":
		test = func(x any) bool { return cmpNum(x, func(a, b float64) bool { return a <= b }) }
	case ">":
		test = func(x any) bool { return cmpNum(x, func(a, b float64) bool { return a > b }) }
	case ">=":
		test = func(x any) bool { return cmpNum(x, func(a, b float64) bool { return a >= b }) }
	default:
		return nil, "unknown operator " + op
	}
	return func(rec map[string]any) bool { return test(lookup(rec, field)) }, ""
}

func number(x any) (float64, bool) {
	switch y := x.(type) {
	case json.Number:
		f, err := y.Float64()
		return f, err == nil
	case float64:
		return y, true
	case string:
		f, err := strconv.ParseFloat(y, 64)
		return f, err == nil
	}
	return 0, false
}

// lookup reads a dot path of a rendered record.
func lookup(rec map[string]any, path string) any {
	var cur any = rec
	for _, k := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}

// hit is one search match: the record, its index and sort key.
type hit struct {
	rec any
	i   int
	key int64
}

// search serves POST /contacts/search and POST /conversations/search:
// query (a filter, or AND/OR of filters, at most two levels), sort
// ({field, order}: ascending or descending on a number or timestamp
// field; by default oldest record first), pagination {per_page (at most
// 150), starting_after}. Like Intercom's, the cursor holds the sort value
// and id of the last record served, and the next page starts after that
// position, so records that change between pages are neither served
// twice at their old place nor skip others.
// searchRow is one live record as search filters it: the record, and its
// JSON decoded as the predicates read it.
type searchRow struct {
	i   int
	rec any
	m   map[string]any
}

// searchRows are an entity's live records at one version of the mutations.
type searchRows struct {
	version int64
	rows    []searchRow
}

// searchHits returns the live records of entity that pred (query's)
// matches, in the search's order: by sortField, ascending or descending,
// then by position (by position alone without a sortField). They are
// found and sorted once per version of the records for each query and
// order, since every page of a search reads them all; the slice is shared
// and only read.
func (s *Server) searchHits(entity string, query json.RawMessage, pred predicate, sortField string, desc bool) []hit {
	rows, v := s.rowsOf(entity)
	key := fmt.Sprintf("%s\x00%s\x00%t\x00%s", entity, sortField, desc, query)
	s.searchMu.Lock()
	if s.hitsVersion == v {
		if hits, ok := s.hitsCache[key]; ok {
			s.searchMu.Unlock()
			return hits
		}
	}
	s.searchMu.Unlock()
	var hits []hit
	for _, row := range rows {
		if !pred(row.m) {
			continue
		}
		h := hit{rec: row.rec, i: row.i, key: int64(row.i)}
		if sortField != "" {
			f, _ := number(lookup(row.m, sortField))
			h.key = int64(f)
		}
		hits = append(hits, h)
	}
	slices.SortFunc(hits, func(a, b hit) int { return hitOrder(a, b, desc) })
	s.searchMu.Lock()
	defer s.searchMu.Unlock()
	if v > s.hitsVersion || s.hitsCache == nil || len(s.hitsCache) >= maxCachedSearches {
		s.hitsVersion, s.hitsCache = max(v, s.hitsVersion), map[string][]hit{}
	}
	if v == s.hitsVersion {
		s.hitsCache[key] = hits
	}
	return hits
}

// hitOrder compares two hits in a search's order: by sort key, then by
// position, both reversed when desc.
func hitOrder(a, b hit, desc bool) int {
	c := cmp.Compare(a.key, b.key)
	if c == 0 {
		c = cmp.Compare(a.i, b.i)
	}
	if desc {
		c = -c
	}
	return c
}

// rowsOf returns entity's live records decoded for search, decoded again
// only after a mutation (every page of a search reads them all), and the
// version of the records they are.
func (s *Server) rowsOf(entity string) ([]searchRow, int64) {
	v := s.ov.version.Load()
	s.searchMu.Lock()
	defer s.searchMu.Unlock()
	if c := s.searchCache[entity]; c != nil && c.version == v {
		return c.rows, v
	}
	var rows []searchRow
	for i, n := 0, s.total(entity); i < n; i++ {
		if s.deleted(entity, i) {
			continue
		}
		var rec any
		if entity == contactsEntity {
			rec = s.contact(i)
		} else {
			rec = s.conversation(i, false, false)
		}
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(mustJSON(rec)))
		dec.UseNumber()
		if dec.Decode(&m) != nil {
			continue
		}
		rows = append(rows, searchRow{i: i, rec: rec, m: m})
	}
	if s.searchCache == nil {
		s.searchCache = map[string]*searchRows{}
	}
	s.searchCache[entity] = &searchRows{version: v, rows: rows}
	return rows, v
}

func (s *Server) search(entity string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var body searchBody
		if fakeserver.ReadJSON(r, &body) != nil {
			s.writeError(w, http.StatusBadRequest, "parameter_invalid", "Invalid JSON body", "")
			return
		}
		if len(body.Query) == 0 {
			s.writeError(w, http.StatusBadRequest, "parameter_not_found", "query is required", "query")
			return
		}
		pred, msg := parseQuery(body.Query, 0)
		if msg != "" {
			s.writeError(w, http.StatusBadRequest, "parameter_invalid", msg, "query")
			return
		}
		per := DefaultContactsPerPage
		if entity == conversationsEntity {
			per = DefaultConversationsPerPage
		}
		var after string
		if p := body.Pagination; p != nil {
			if p.PerPage != nil {
				if *p.PerPage < 1 || *p.PerPage > MaxPerPage {
					s.writeError(w, http.StatusBadRequest, "parameter_invalid", "per_page must be between 1 and 150", "per_page")
					return
				}
				per = *p.PerPage
			}
			if p.StartingAfter != nil {
				after = *p.StartingAfter
			}
		}
		sortField, desc := "", false
		if so := body.Sort; so != nil && so.Field != "" {
			sortField = so.Field
			switch strings.ToLower(so.Order) {
			case "", "ascending", "asc":
			case "descending", "desc":
				desc = true
			default:
				s.writeError(w, http.StatusBadRequest, "parameter_invalid", "sort order must be ascending or descending", "sort")
				return
			}
		}

		hits := s.searchHits(entity, body.Query, pred, sortField, desc)
		start, page := 0, 1
		if after != "" {
			key, i, p, ok := s.decodeSearchCursor(entity, after, sortField != "")
			if !ok {
				s.writeError(w, http.StatusBadRequest, "parameter_invalid", "starting_after is invalid", "starting_after")
				return
			}
			at := hit{key: key, i: i}
			start = sort.Search(len(hits), func(k int) bool { return hitOrder(hits[k], at, desc) > 0 })
			page = p
		}
		end := min(start+per, len(hits))
		pg := pages{Type: "pages", Page: page, PerPage: per, TotalPages: totalPages(len(hits), per)}
		if end < len(hits) && end > start {
			last := hits[end-1]
			pg.Next = nextPage{Page: page + 1, PerPage: per, StartingAfter: encodeSearchCursor(last.key, s.id(entity, last.i), page+1)}
		}
		if entity == contactsEntity {
			out := contactList{Type: "list", Data: make([]contact, 0, end-start), TotalCount: len(hits), Pages: pg}
			for _, h := range hits[start:end] {
				out.Data = append(out.Data, h.rec.(contact))
			}
			writeOK(w, out)
			return
		}
		out := conversationList{Type: "conversation.list", TotalCount: len(hits), Pages: pg, Conversations: make([]conversation, 0, end-start)}
		for _, h := range hits[start:end] {
			out.Conversations = append(out.Conversations, h.rec.(conversation))
		}
		writeOK(w, out)
	}
}

// encodeSearchCursor is a search's starting_after: base64 of [the sort
// value in milliseconds, the id of the last record served, the next page].
func encodeSearchCursor(key int64, id string, nextPage int) string {
	b, _ := json.Marshal([]any{key * 1000, id, nextPage})
	return base64.StdEncoding.EncodeToString(b)
}

func (s *Server) decodeSearchCursor(entity, c string, sorted bool) (key int64, i, page int, ok bool) {
	id, page, ok := decodeCursor(c)
	if !ok {
		return 0, 0, 0, false
	}
	b, _ := base64.StdEncoding.DecodeString(c)
	var parts []json.RawMessage
	_ = json.Unmarshal(b, &parts)
	var ms int64
	if json.Unmarshal(parts[0], &ms) != nil {
		return 0, 0, 0, false
	}
	switch entity {
	case contactsEntity:
		i, ok = hexIndex(contactIDPrefix, id)
	default:
		i, ok = numIndex(conversationIDBase, id, s.total(entity))
	}
	if !ok {
		return 0, 0, 0, false
	}
	key = int64(i)
	if sorted {
		key = ms / 1000
	}
	return key, i, page, true
}
