package zendesktest

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// Paging limits, as Zendesk enforces them.
const (
	maxPerPage     = 100   // per_page and page[size]
	maxOffsetPage  = 100   // offset pages past this answer 400
	maxOffsetDepth = 10000 // page * per_page past this answers 400
	maxAuditLimit  = 1000  // legacy ticket_audits limit
)

// page describes one list response: n records, written by item(k) for the
// k-th record of the (filtered, sorted) sequence.
type page struct {
	key    string // envelope key, also the cursor namespace
	n      int
	item   func(w *jw, k int)
	defPer int
	// hc adds Help Center's page, per_page and page_count to offset pages;
	// sortBy/sortOrder (articles) add sort_by and sort_order.
	hc                bool
	sortBy, sortOrder string
}

func (c *call) get(k string) string {
	if v := c.q[k]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func (c *call) has(k string) bool {
	_, ok := c.q[k]
	return ok
}

// cursorMode reports whether the request asked for cursor paging.
func (c *call) cursorMode() bool { return c.has("page[size]") }

// link returns the request URL (request host, path as sent) with the query
// parameters drop removed and k=v set.
func (c *call) link(k, v string, drop ...string) string {
	q := make(url.Values, len(c.q)+1)
	for key, vs := range c.q {
		q[key] = vs
	}
	for _, d := range drop {
		delete(q, d)
	}
	q.Set(k, v)
	return c.base + c.r.URL.EscapedPath() + "?" + q.Encode()
}

// descending reports whether the caller asked for reverse order: offset mode
// sort_order=desc, cursor mode sort=-field. Fields whose order matches the
// id order (id, created_at, updated_at, position, nice_id) are honoured;
// other sort fields are accepted and ignored.
func (c *call) descending() bool {
	if c.cursorMode() {
		f, desc := strings.CutPrefix(c.get("sort"), "-")
		return desc && monotonicField(f)
	}
	if !strings.EqualFold(c.get("sort_order"), "desc") {
		return false
	}
	f := c.get("sort_by")
	return f == "" || monotonicField(f)
}

func monotonicField(f string) bool {
	switch f {
	case "id", "nice_id", "created_at", "updated_at", "position":
		return true
	}
	return false
}

func encodeCursor(key string, pos int) string {
	raw := make([]byte, 0, 48)
	raw = append(raw, `{"o":"`...)
	raw = append(raw, key...)
	raw = append(raw, `","v":`...)
	raw = strconv.AppendInt(raw, int64(pos), 10)
	raw = append(raw, '}')
	return base64.StdEncoding.EncodeToString(raw)
}

func decodeCursor(key, s string) (int, bool) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return 0, false
	}
	rest, ok := strings.CutPrefix(string(raw), `{"o":"`+key+`","v":`)
	if !ok {
		return 0, false
	}
	num, ok := strings.CutSuffix(rest, "}")
	if !ok {
		return 0, false
	}
	pos, err := strconv.Atoi(num)
	return pos, err == nil && pos >= 0
}

// offsetParams reads page and per_page; ok is false when an error response
// has been written.
func offsetParams(c *call, defPer int) (pageNo, per int, ok bool) {
	pageNo, per = 1, defPer
	if v := c.get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			invalidParam(c.w, "page must be an integer")
			return 0, 0, false
		}
		pageNo = max(n, 1)
	}
	if v := c.get("per_page"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			per = min(n, maxPerPage)
		}
	}
	if pageNo > maxOffsetPage || pageNo*per > maxOffsetDepth {
		writeBody(c.w, http.StatusBadRequest, bodyDepth)
		return 0, 0, false
	}
	return pageNo, per, true
}

// servePage writes a list response in whichever paging mode was requested.
func (s *Server) servePage(c *call, p page) {
	if c.cursorMode() {
		s.serveCursorPage(c, p)
		return
	}
	pageNo, per, ok := offsetParams(c, p.defPer)
	if !ok {
		return
	}
	start := min((pageNo-1)*per, p.n)
	end := min(start+per, p.n)

	buf := s.getBuf()
	w := jw{b: append((*buf)[:0], '{')}
	w.Arr(p.key)
	for k := start; k < end; k++ {
		p.item(&w, k)
	}
	w.ArrEnd()
	if p.hc {
		w.Int("page", int64(pageNo))
		w.Int("per_page", int64(per))
		w.Int("page_count", int64((p.n+per-1)/per))
	}
	if (pageNo-1)*per+per < p.n {
		w.Str("next_page", c.link("page", strconv.Itoa(pageNo+1)))
	} else {
		w.Null("next_page")
	}
	if pageNo > 1 {
		w.Str("previous_page", c.link("page", strconv.Itoa(pageNo-1)))
	} else {
		w.Null("previous_page")
	}
	w.Int("count", int64(p.n))
	if p.sortBy != "" {
		w.Str("sort_by", p.sortBy)
		w.Str("sort_order", p.sortOrder)
	}
	w.b = append(w.b, '}')
	s.setListHeaders(c)
	fakeserver.WriteJSON(c.w, http.StatusOK, w.b)
	s.putBuf(buf, w.b)
}

func (s *Server) serveCursorPage(c *call, p page) {
	size, err := strconv.Atoi(c.get("page[size]"))
	switch {
	case err != nil || size < 1:
		invalidParam(c.w, "page[size] must be a positive integer")
		return
	case size > maxPerPage:
		invalidParam(c.w, "page[size] must be less than or equal to 100")
		return
	}
	after, before := c.get("page[after]"), c.get("page[before]")
	if after != "" && before != "" {
		invalidParam(c.w, "page[before] and page[after] can't be used together")
		return
	}
	start, end := 0, min(size, p.n)
	backward := false
	switch {
	case after != "":
		pos, ok := decodeCursor(p.key, after)
		if !ok {
			invalidParam(c.w, "page[after] is not valid")
			return
		}
		start = min(pos+1, p.n)
		end = min(start+size, p.n)
	case before != "":
		pos, ok := decodeCursor(p.key, before)
		if !ok {
			invalidParam(c.w, "page[before] is not valid")
			return
		}
		end = min(pos, p.n)
		start = max(end-size, 0)
		backward = true
	}
	hasMore := end < p.n
	if backward {
		hasMore = start > 0
	}

	buf := s.getBuf()
	w := jw{b: append((*buf)[:0], '{')}
	w.Arr(p.key)
	for k := start; k < end; k++ {
		p.item(&w, k)
	}
	w.ArrEnd()
	var afterCur, beforeCur string
	if start < end {
		afterCur, beforeCur = encodeCursor(p.key, end-1), encodeCursor(p.key, start)
	}
	w.Obj("meta")
	w.Bool("has_more", hasMore)
	w.StrOr("after_cursor", afterCur, afterCur != "")
	w.StrOr("before_cursor", beforeCur, beforeCur != "")
	w.End()
	w.Obj("links")
	if beforeCur != "" {
		w.Str("prev", c.link("page[before]", beforeCur, "page[after]"))
	} else {
		w.Null("prev")
	}
	if afterCur != "" {
		w.Str("next", c.link("page[after]", afterCur, "page[before]"))
	} else {
		w.Null("next")
	}
	w.End()
	w.b = append(w.b, '}')
	s.setListHeaders(c)
	fakeserver.WriteJSON(c.w, http.StatusOK, w.b)
	s.putBuf(buf, w.b)
}

// setListHeaders adds the extra rate-limit headers Zendesk sends on list
// endpoints: the account's budget with its reset, and List Tickets' own.
func (s *Server) setListHeaders(c *call) {
	h := c.w.Header()
	h.Set("Ratelimit-Limit", s.rlLimit)
	h.Set("Ratelimit-Remaining", c.remaining)
	h.Set("Ratelimit-Reset", c.reset)
	if c.ticketsIndex != "" {
		h.Set("Zendesk-Ratelimit-Tickets-Index", c.ticketsIndex)
	}
}

// listAllAudits serves GET /api/v2/ticket_audits: Zendesk's legacy cursor
// shape (cursor, limit → before_/after_ cursor and url) unless page[size]
// asks for standard cursor paging.
func (s *Server) listAllAudits(c *call) {
	d := s.d
	n := d.totalAudits()
	item := func(w *jw, k int) {
		t, j := d.auditAt(k)
		d.audit(w, c.origin, t, j)
	}
	if c.cursorMode() {
		s.serveCursorPage(c, page{key: "audits", n: n, item: item})
		return
	}
	limit := maxAuditLimit
	if v := c.get("limit"); v != "" {
		if l, err := strconv.Atoi(v); err == nil && l > 0 {
			limit = min(l, maxAuditLimit)
		}
	}
	// Default: the most recent page. Positions are in ascending created_at.
	end := n
	start := max(end-limit, 0)
	if cur := c.get("cursor"); cur != "" {
		if pos, ok := decodeCursor("audits.before", cur); ok {
			end = min(pos, n)
			start = max(end-limit, 0)
		} else if pos, ok := decodeCursor("audits.after", cur); ok {
			start = min(pos, n)
			end = min(start+limit, n)
		} else {
			invalidParam(c.w, "cursor is not valid")
			return
		}
	}

	buf := s.getBuf()
	w := jw{b: append((*buf)[:0], '{')}
	w.Arr("audits")
	for k := start; k < end; k++ {
		item(&w, k)
	}
	w.ArrEnd()
	if end < n {
		cur := encodeCursor("audits.after", end)
		w.Str("after_cursor", cur)
		w.Str("after_url", c.link("cursor", cur))
	} else {
		w.Null("after_cursor")
		w.Null("after_url")
	}
	if start > 0 {
		cur := encodeCursor("audits.before", start)
		w.Str("before_cursor", cur)
		w.Str("before_url", c.link("cursor", cur))
	} else {
		w.Null("before_cursor")
		w.Null("before_url")
	}
	w.b = append(w.b, '}')
	s.setListHeaders(c)
	fakeserver.WriteJSON(c.w, http.StatusOK, w.b)
	s.putBuf(buf, w.b)
}
