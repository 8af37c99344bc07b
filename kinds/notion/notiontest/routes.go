package notiontest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	api := func(pattern string, h func(http.ResponseWriter, *http.Request)) {
		limited := fakeserver.Enforce(s.win, s.clock.Now, rateLimited, http.HandlerFunc(h))
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			if s.authorized(w, r) { // a refusal before the token is checked is not counted
				limited.ServeHTTP(w, r)
			}
		})
	}
	mux.HandleFunc("POST "+TokenPath, s.grant)
	api("GET /v1/users", s.listUsers)
	api("GET /v1/users/{id}", s.getUser)
	api("POST /v1/search", s.search)
	api("GET /v1/pages/{id}", s.getPage)
	api("GET /v1/data_sources/{id}", s.getSource)
	api("POST /v1/data_sources/{id}/query", s.query)
	api("GET /v1/blocks/{id}", s.getBlock)
	api("GET /v1/blocks/{id}/children", s.listChildren)
	api("GET /v1/comments", s.listComments)
	api("GET /v1/comments/{id}", s.getComment)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeErr(w, http.StatusBadRequest, "invalid_request_url", "Invalid request URL.")
	})
	return mux
}

// listArgs are the paging args of a list: from the query of a GET, the
// JSON body of a POST.
type listArgs struct {
	StartCursor string          `json:"start_cursor"`
	PageSize    *int            `json:"page_size"`
	Query       string          `json:"query"`
	Filter      json.RawMessage `json:"filter"`
	Sort        *struct {
		Timestamp string `json:"timestamp"`
		Direction string `json:"direction"`
	} `json:"sort"`
	Sorts   []map[string]any `json:"sorts"`
	InTrash bool             `json:"in_trash"`
}

func readArgs(w http.ResponseWriter, r *http.Request) (listArgs, bool) {
	var a listArgs
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if len(body) > 0 {
			if err := json.Unmarshal(body, &a); err != nil {
				writeErr(w, http.StatusBadRequest, "invalid_json", "Error parsing JSON body.")
				return a, false
			}
		}
	} else {
		q := r.URL.Query()
		a.StartCursor = q.Get("start_cursor")
		if v := q.Get("page_size"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				writeErr(w, http.StatusBadRequest, "validation_error", "body failed validation: body.page_size should be a number, instead was `"+v+"`.")
				return a, false
			}
			a.PageSize = &n
		}
	}
	if a.PageSize != nil && (*a.PageSize < 1 || *a.PageSize > 100) {
		writeErr(w, http.StatusBadRequest, "validation_error", "body failed validation: body.page_size should be ≤ `100`, instead was `"+strconv.Itoa(*a.PageSize)+"`.")
		return a, false
	}
	return a, true
}

// answer answers one page of items (already rendered, in order) as
// Notion's list object, the cursor bound to the list named key.
func answer(w http.ResponseWriter, a listArgs, key, typ string, items []map[string]any) {
	answerN(w, a, key, typ, len(items), func(i int) map[string]any { return items[i] })
}

// answerN answers one page of n items, rendering only those of the page.
func answerN(w http.ResponseWriter, a listArgs, key, typ string, n int, render func(int) map[string]any) {
	off := 0
	if a.StartCursor != "" {
		var ok bool
		if off, ok = fakeserver.FromCursor(key, a.StartCursor); !ok {
			writeErr(w, http.StatusBadRequest, "validation_error", "body failed validation: body.start_cursor should be a valid cursor.")
			return
		}
	}
	size := 100
	if a.PageSize != nil {
		size = *a.PageSize
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	part, next := fakeserver.PageOf(idx, off, size)
	var cur any
	if next >= 0 {
		cur = fakeserver.Cursor(key, next)
	}
	out := make([]map[string]any, len(part))
	for i, j := range part {
		out[i] = render(j)
	}
	fakeserver.JSON(w, http.StatusOK, map[string]any{"object": "list", "results": out, "next_cursor": cur, "has_more": next >= 0,
		"type": typ, typ: map[string]any{}, "request_id": "fake-list"})
}

func notFound(w http.ResponseWriter, what, id string) {
	writeErr(w, http.StatusNotFound, "object_not_found", "Could not find "+what+" with ID: "+id+". Make sure the relevant pages and databases are shared with your integration.")
}

func (s *Server) listUsers(w http.ResponseWriter, r *http.Request) {
	a, ok := readArgs(w, r)
	if !ok {
		return
	}
	var out []map[string]any
	for _, u := range s.users {
		out = append(out, s.renderUser(u))
	}
	answer(w, a, "users", "user", out)
}

func (s *Server) getUser(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if id == "me" {
		id = BotID
	}
	for _, u := range s.users {
		if u.id == id {
			fakeserver.JSON(w, http.StatusOK, s.renderUser(u))
			return
		}
	}
	notFound(w, "user", id)
}

// edited is a search result with its edit time, for sorting.
type edited struct {
	render func() map[string]any
	at     time.Time
	seq    int
	kind   int
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	a, ok := readArgs(w, r)
	if !ok {
		return
	}
	var f struct{ Property, Value string }
	if len(a.Filter) > 0 {
		if json.Unmarshal(a.Filter, &f) != nil || f.Property != "object" || (f.Value != "page" && f.Value != "data_source") {
			writeErr(w, http.StatusBadRequest, "validation_error", `body failed validation: body.filter.value should be "page" or "data_source".`)
			return
		}
	}
	desc := true
	if a.Sort != nil {
		if a.Sort.Timestamp != "last_edited_time" || (a.Sort.Direction != "ascending" && a.Sort.Direction != "descending") {
			writeErr(w, http.StatusBadRequest, "validation_error", `body failed validation: body.sort.timestamp should be "last_edited_time", body.sort.direction "ascending" or "descending".`)
			return
		}
		desc = a.Sort.Direction == "descending"
	}
	res := s.searchOrder(f.Value, a.Query, desc)
	answerN(w, a, "search", "page_or_data_source", len(res), func(i int) map[string]any { return res[i].render() })
}

// searchOrder returns the search results of a kind of object ("": both)
// whose titles match query, in order; kept until the next mutation, so
// that a walk of many pages sorts once.
func (s *Server) searchOrder(kind, query string, desc bool) []edited {
	key := fmt.Sprintf("%d %s %t %s", s.version.Load(), kind, desc, query)
	s.mu.Lock()
	res, ok := s.orders[key]
	s.mu.Unlock()
	if ok {
		return res
	}
	match := func(title string) bool {
		return query == "" || strings.Contains(strings.ToLower(title), strings.ToLower(query))
	}
	f := struct{ Value string }{kind}
	if f.Value != "data_source" {
		for _, row := range s.pages.Rows(nil) {
			if !row.Rec.trash && match(row.Rec.title) {
				res = append(res, edited{func() map[string]any { return s.renderPage(row.ID, row.Rec, row.Created, row.Modified) }, row.Modified, row.Seq, 1})
			}
		}
	}
	if f.Value != "page" {
		for _, row := range s.sources.Rows(nil) {
			if match(row.Rec.title) {
				res = append(res, edited{func() map[string]any { return s.renderSource(row.ID, row.Rec, row.Created, row.Modified) }, row.Modified, row.Seq, 0})
			}
		}
	}
	slices.SortStableFunc(res, func(x, y edited) int {
		c := x.at.Truncate(time.Minute).Compare(y.at.Truncate(time.Minute))
		if c == 0 {
			c = (x.kind - y.kind) * 1_000_000
			c += x.seq - y.seq
		}
		if desc {
			return -c
		}
		return c
	})
	s.mu.Lock()
	if len(s.orders) > 16 {
		clear(s.orders)
	}
	s.orders[key] = res
	s.mu.Unlock()
	return res
}

func (s *Server) getPage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	row, ok := s.pages.Get(id)
	if !ok || row.Deleted {
		notFound(w, "page", id)
		return
	}
	fakeserver.JSON(w, http.StatusOK, s.renderPage(id, row.Rec, row.Created, row.Modified))
}

func (s *Server) getSource(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	row, ok := s.sources.Get(id)
	if !ok || row.Deleted {
		notFound(w, "data source", id)
		return
	}
	fakeserver.JSON(w, http.StatusOK, s.renderSource(id, row.Rec, row.Created, row.Modified))
}

// query answers a data source's rows: the filter on last_edited_time
// (on_or_after, after, on_or_before, before) and the sorts on it are
// honoured; the default order is the rows' creation.
func (s *Server) query(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, ok := s.sources.Live(id); !ok {
		notFound(w, "data source", id)
		return
	}
	a, ok := readArgs(w, r)
	if !ok {
		return
	}
	keep, ok := timeFilter(w, a.Filter)
	if !ok {
		return
	}
	rows := s.pages.Rows(func(row fakeserver.Row[page]) bool {
		return !row.Deleted && row.Rec.parent == id && row.Rec.trash == a.InTrash && keep(row.Modified.Truncate(time.Minute))
	})
	for _, so := range a.Sorts {
		if so["timestamp"] == "last_edited_time" || so["timestamp"] == "created_time" {
			fakeserver.ByModified(rows)
			if so["direction"] == "descending" {
				slices.Reverse(rows)
			}
		}
	}
	answerN(w, a, "query "+id, "page_or_data_source", len(rows), func(i int) map[string]any {
		return s.renderPage(rows[i].ID, rows[i].Rec, rows[i].Created, rows[i].Modified)
	})
}

// timeFilter reads a filter on last_edited_time; other filters keep
// every row.
func timeFilter(w http.ResponseWriter, raw json.RawMessage) (func(time.Time) bool, bool) {
	all := func(time.Time) bool { return true }
	if len(raw) == 0 {
		return all, true
	}
	var f struct {
		Timestamp      string            `json:"timestamp"`
		LastEditedTime map[string]string `json:"last_edited_time"`
	}
	if json.Unmarshal(raw, &f) != nil || f.Timestamp != "last_edited_time" {
		return all, true
	}
	for op, v := range f.LastEditedTime {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			writeErr(w, http.StatusBadRequest, "validation_error", "body failed validation: body.filter.last_edited_time."+op+" should be an ISO 8601 date, instead was `"+v+"`.")
			return nil, false
		}
		t = t.Truncate(time.Minute)
		switch op {
		case "on_or_after":
			return func(x time.Time) bool { return !x.Before(t) }, true
		case "after":
			return func(x time.Time) bool { return x.After(t) }, true
		case "on_or_before":
			return func(x time.Time) bool { return !x.After(t) }, true
		case "before":
			return func(x time.Time) bool { return x.Before(t) }, true
		}
	}
	return all, true
}

func (s *Server) getBlock(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	row, ok := s.blocks.Get(id)
	if !ok || row.Deleted {
		notFound(w, "block", id)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fakeserver.JSON(w, http.StatusOK, s.renderBlock(id, row.Rec, row.Created, row.Modified))
}

func (s *Server) listChildren(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	_, isPage := s.pages.Live(id)
	_, isBlock := s.blocks.Live(id)
	if !isPage && !isBlock {
		notFound(w, "block", id)
		return
	}
	a, ok := readArgs(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	var out []map[string]any
	for _, c := range s.children[id] {
		if row, ok := s.blocks.Get(c); ok && !row.Deleted {
			out = append(out, s.renderBlock(c, row.Rec, row.Created, row.Modified))
		}
	}
	s.mu.Unlock()
	answer(w, a, "children "+id, "block", out)
}

func (s *Server) listComments(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("block_id")
	if id == "" {
		writeErr(w, http.StatusBadRequest, "validation_error", "body failed validation: body.block_id should be defined, instead was `undefined`.")
		return
	}
	if _, ok := s.pages.Live(id); !ok {
		if _, ok := s.blocks.Live(id); !ok {
			notFound(w, "block", id)
			return
		}
	}
	a, ok := readArgs(w, r)
	if !ok {
		return
	}
	var out []map[string]any
	for _, row := range s.comments.Rows(func(row fakeserver.Row[comment]) bool { return !row.Deleted && row.Rec.page == id }) {
		out = append(out, s.renderComment(row.ID, row.Rec, row.Created, row.Modified))
	}
	answer(w, a, "comments "+id, "comment", out)
}

func (s *Server) getComment(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	row, ok := s.comments.Get(id)
	if !ok || row.Deleted {
		notFound(w, "comment", id)
		return
	}
	fakeserver.JSON(w, http.StatusOK, s.renderComment(id, row.Rec, row.Created, row.Modified))
}
