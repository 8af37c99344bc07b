package stripetest

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// filters are the list params each entity takes besides paging, created
// and expand: each keeps the objects whose field of that name (or, for
// ids, whose id) is the value.
var filters = map[string][]string{
	"customers": {"email", "test_clock"}, "invoices": {"customer", "subscription", "status", "collection_method"},
	"charges": {"customer", "payment_intent", "transfer_group"}, "subscriptions": {"customer", "price", "status", "collection_method"},
	"payment_intents": {"customer"}, "products": {"active", "shippable", "url", "ids[]"}, "prices": {"active", "currency", "product", "type"},
	"refunds": {"charge", "payment_intent"}, "balance_transactions": {"payout", "source", "type", "currency"},
	"disputes": {"charge", "payment_intent"}, "payouts": {"status", "destination"}, "files": {"purpose"},
	"events": {"type", "types[]", "delivery_success"},
}

// searchable are the entities of the Search API.
var searchable = []string{"customers", "invoices", "charges", "subscriptions", "payment_intents", "products", "prices"}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if r.Method != http.MethodGet || len(parts) < 2 || parts[0] != "v1" {
		s.fail(w, r, http.StatusNotFound, "invalid_request_error", "", "Unrecognized request URL ("+r.Method+": "+r.URL.Path+").", "")
		return
	}
	entity := parts[1]
	_, known := filters[entity]
	switch {
	case len(parts) == 2 && entity == "balance":
		writeJSON(w, http.StatusOK, object{"object": "balance", "livemode": false,
			"available": []any{object{"amount": 123456, "currency": "usd", "source_types": object{"card": 123456}}},
			"pending":   []any{object{"amount": 7890, "currency": "usd", "source_types": object{"card": 7890}}}})
	case !known:
		s.fail(w, r, http.StatusNotFound, "invalid_request_error", "", "Unrecognized request URL (GET: "+r.URL.Path+").", "")
	case len(parts) == 2:
		s.list(w, r, entity)
	case len(parts) == 3 && parts[2] == "search" && slices.Contains(searchable, entity):
		s.search(w, r, entity)
	case len(parts) == 3:
		s.get(w, r, entity, parts[2])
	case len(parts) == 4 && entity == "files" && parts[3] == "contents":
		s.contents(w, r, parts[2])
	default:
		s.fail(w, r, http.StatusNotFound, "invalid_request_error", "", "Unrecognized request URL (GET: "+r.URL.Path+").", "")
	}
}

// table returns entity's table (events included).
func (s *Server) table(entity string) *fakeserver.Table[object] {
	if entity == "events" {
		return &s.events
	}
	return s.tables[entity]
}

// rows are entity's live objects, newest first; events older than
// Retention are gone.
func (s *Server) rows(entity string) []fakeserver.Row[object] {
	oldest := s.clock.Now().Add(-Retention)
	rows := s.table(entity).Rows(func(row fakeserver.Row[object]) bool {
		return !row.Deleted && (entity != "events" || !row.Created.Before(oldest))
	})
	slices.SortFunc(rows, newestFirst)
	return rows
}

func newestFirst(a, b fakeserver.Row[object]) int {
	if c := b.Created.Compare(a.Created); c != 0 {
		return c
	}
	return b.Seq - a.Seq
}

// params checks r's query against what entity's list (extra) takes,
// answering Stripe's 400 for an unknown param or a bad limit; it returns
// the limit.
func (s *Server) params(w http.ResponseWriter, r *http.Request, extra ...string) (int, bool) {
	q := r.URL.Query()
	for k := range q {
		base := k
		if i := strings.IndexByte(k, '['); i > 0 && !slices.Contains(extra, k) {
			base = k[:i]
		}
		if !slices.Contains(extra, base) && !slices.Contains(extra, k) {
			s.fail(w, r, http.StatusBadRequest, "invalid_request_error", "parameter_unknown", "Received unknown parameter: "+k, k)
			return 0, false
		}
	}
	limit := 10
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			s.fail(w, r, http.StatusBadRequest, "invalid_request_error", "parameter_invalid_integer", "Invalid integer: "+v+" (limit must be between 1 and 100)", "limit")
			return 0, false
		}
		limit = n
	}
	return limit, true
}

// keep reports whether an object passes the list's filters.
func keep(entity string, q url.Values, row fakeserver.Row[object]) bool {
	for op, cmp := range map[string]func(a, b int64) bool{
		"gt": func(a, b int64) bool { return a > b }, "gte": func(a, b int64) bool { return a >= b },
		"lt": func(a, b int64) bool { return a < b }, "lte": func(a, b int64) bool { return a <= b },
	} {
		if v := q.Get("created[" + op + "]"); v != "" {
			if n, err := strconv.ParseInt(v, 10, 64); err != nil || !cmp(row.Created.Unix(), n) {
				return false
			}
		}
	}
	if v := q.Get("created"); v != "" && v != strconv.FormatInt(row.Created.Unix(), 10) {
		return false
	}
	o := row.Rec
	for _, f := range filters[entity] {
		v, ok := q[f]
		switch {
		case !ok:
			if entity == "subscriptions" && f == "status" && o["status"] == "canceled" {
				return false // the default list leaves canceled ones out
			}
		case f == "ids[]":
			if !slices.Contains(v, row.ID) {
				return false
			}
		case f == "types[]":
			if !slices.Contains(v, o["type"].(string)) {
				return false
			}
		case f == "type" && entity == "events":
			t := o["type"].(string)
			if p, wild := strings.CutSuffix(v[0], "*"); (wild && !strings.HasPrefix(t, p)) || (!wild && t != v[0]) {
				return false
			}
		case f == "status" && v[0] == "all":
		case f == "delivery_success", f == "price", f == "test_clock", f == "transfer_group", f == "payout":
		default:
			if render(o[f]) != v[0] {
				return false
			}
		}
	}
	return true
}

// render writes a field's value as a query param would.
func render(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return ""
	case map[string]any:
		id, _ := x["id"].(string)
		return id
	}
	return ""
}

// list answers a list of entity, newest first, paged by starting_after
// or ending_before.
func (s *Server) list(w http.ResponseWriter, r *http.Request, entity string) {
	limit, ok := s.params(w, r, append([]string{"limit", "starting_after", "ending_before", "created", "expand[]"}, filters[entity]...)...)
	if !ok {
		return
	}
	q := r.URL.Query()
	var items []fakeserver.Row[object]
	for _, row := range s.rows(entity) {
		if keep(entity, q, row) {
			items = append(items, row)
		}
	}
	var page []fakeserver.Row[object]
	more := false
	switch {
	case q.Get("starting_after") != "" || q.Get("ending_before") != "":
		after := q.Get("starting_after") != ""
		param := map[bool]string{true: "starting_after", false: "ending_before"}[after]
		at, found := s.table(entity).Get(q.Get(param))
		if !found || entity == "events" && at.Created.Before(s.clock.Now().Add(-Retention)) {
			// An event Stripe no longer keeps is no cursor either.
			s.fail(w, r, http.StatusNotFound, "invalid_request_error", "resource_missing", "No such "+objectName(entity)+": '"+q.Get(param)+"'", param)
			return
		}
		i, _ := slices.BinarySearchFunc(items, at, newestFirst)
		if after {
			if i < len(items) && items[i].ID == at.ID {
				i++
			}
			page, more = items[i:min(i+limit, len(items))], i+limit < len(items)
		} else {
			page, more = items[max(i-limit, 0):i], i-limit > 0
		}
	default:
		page, more = items[:min(limit, len(items))], limit < len(items)
	}
	data := make([]any, len(page))
	for i, row := range page {
		data[i] = row.Rec
	}
	l := list("/v1/"+entity, data)
	l["has_more"] = more
	writeJSON(w, http.StatusOK, l)
}

func objectName(entity string) string {
	if entity == "events" {
		return "event"
	}
	return objects[entity]
}

// get answers one object; a deleted customer is {id, object, deleted}.
func (s *Server) get(w http.ResponseWriter, r *http.Request, entity, id string) {
	if _, ok := s.params(w, r, "expand[]"); !ok {
		return
	}
	row, ok := s.table(entity).Get(id)
	switch {
	case ok && row.Deleted && entity == "customers":
		writeJSON(w, http.StatusOK, object{"id": id, "object": "customer", "deleted": true})
	case !ok || row.Deleted || (entity == "events" && row.Created.Before(s.clock.Now().Add(-Retention))):
		s.fail(w, r, http.StatusNotFound, "invalid_request_error", "resource_missing", "No such "+objectName(entity)+": '"+id+"'", "id")
	default:
		writeJSON(w, http.StatusOK, row.Rec)
	}
}

// clause is one condition of a search query: field, operator, value.
var clause = regexp.MustCompile(`^\s*(-?)([a-z_]+(?:\['[^']*'\])?)\s*(:|~|>=|<=|>|<)\s*(?:'([^']*)'|"([^"]*)"|(-?\d+)|(null))\s*$`)

// search answers the Search API: clauses joined by AND or by OR (field:
// equal, ~ contains, > < >= <= on numbers, metadata['key']), newest
// first, paged by an opaque page token.
func (s *Server) search(w http.ResponseWriter, r *http.Request, entity string) {
	limit, ok := s.params(w, r, "query", "limit", "page", "expand[]")
	if !ok {
		return
	}
	q := r.URL.Query()
	query := q.Get("query")
	if query == "" {
		s.fail(w, r, http.StatusBadRequest, "invalid_request_error", "parameter_missing", "Missing required param: query.", "query")
		return
	}
	joiner := " AND "
	if strings.Contains(query, " OR ") {
		joiner = " OR "
	}
	var conds [][]string
	for c := range strings.SplitSeq(query, joiner) {
		m := clause.FindStringSubmatch(c)
		if m == nil || (joiner == " OR " && strings.Contains(c, " AND ")) {
			s.fail(w, r, http.StatusBadRequest, "invalid_request_error", "search_query_invalid", "Invalid search query: "+c, "query")
			return
		}
		conds = append(conds, []string{m[1], m[2], m[3], m[4] + m[5] + m[6] + m[7]})
	}
	var items []any
	for _, row := range s.rows(entity) {
		hits := 0
		for _, c := range conds {
			if matches(row.Rec, c[1], c[2], c[3]) != (c[0] == "-") {
				hits++
			}
		}
		if (joiner == " AND " && hits == len(conds)) || (joiner == " OR " && hits > 0) {
			items = append(items, row.Rec)
		}
	}
	off := 0
	if p := q.Get("page"); p != "" {
		if off, ok = fakeserver.FromCursor(searchKey(entity, query), p); !ok {
			s.fail(w, r, http.StatusBadRequest, "invalid_request_error", "parameter_invalid_string", "Invalid page: "+p, "page")
			return
		}
	}
	page, next := fakeserver.PageOf(items, off, limit)
	res := object{"object": "search_result", "data": page, "has_more": next > 0, "next_page": nil, "url": "/v1/" + entity + "/search"}
	if page == nil {
		res["data"] = []any{}
	}
	if next > 0 {
		res["next_page"] = fakeserver.Cursor(searchKey(entity, query), next)
	}
	writeJSON(w, http.StatusOK, res)
}

// searchKey binds a page token to its entity and query.
func searchKey(entity, query string) string {
	return "search " + entity + " " + strings.ReplaceAll(query, ":", " ")
}

// matches reports whether o's field meets op value.
func matches(o object, field, op, value string) bool {
	var v any = o[field]
	if k, ok := strings.CutPrefix(field, "metadata['"); ok {
		md, _ := o["metadata"].(map[string]any)
		v = md[strings.TrimSuffix(k, "']")]
	}
	switch op {
	case ":":
		if value == "null" {
			return v == nil
		}
		return strings.EqualFold(render(v), value) || numeric(v) == value
	case "~":
		return len(value) >= 3 && strings.Contains(strings.ToLower(render(v)), strings.ToLower(value))
	}
	a, err1 := strconv.ParseInt(numeric(v), 10, 64)
	b, err2 := strconv.ParseInt(value, 10, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	return map[string]bool{">": a > b, "<": a < b, ">=": a >= b, "<=": a <= b}[op]
}

func numeric(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	}
	return ""
}

// contents serves a file's bytes (files.stripe.com).
func (s *Server) contents(w http.ResponseWriter, r *http.Request, id string) {
	row, ok := s.tables["files"].Get(id)
	if !ok || row.Deleted {
		s.fail(w, r, http.StatusNotFound, "invalid_request_error", "resource_missing", "No such file: '"+id+"'", "id")
		return
	}
	fakeserver.ServeFile(w, r, fakeserver.File{Name: row.Rec["filename"].(string), ContentType: "application/pdf", ETag: `"` + id + `"`,
		ModTime: time.Unix(row.Rec["created"].(int64), 0), Content: s.fileContent(id), CutEvery: s.cfg.cutEvery})
}

// FileContent returns a file's bytes, as a download should read them.
func (s *Server) FileContent(id string) ([]byte, bool) {
	row, ok := s.tables["files"].Get(id)
	if !ok || row.Deleted {
		return nil, false
	}
	return s.fileContent(id), true
}
