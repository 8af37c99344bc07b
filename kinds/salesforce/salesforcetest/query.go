package salesforcetest

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// resultSet is the evaluated row order of a query: row k of the result is
// record at(k) of obj. Natural-order results keep no per-row state, so a
// query over a million records costs nothing until its pages are read.
type resultSet struct {
	obj     *object
	cols    []column
	rows    []int32 // nil: the records 0..n-1, in order (reversed when reverse)
	reverse bool
	n       int // records of obj (when rows is nil)
	offset  int // OFFSET
	total   int // rows in the result, after OFFSET and LIMIT
}

func (r *resultSet) at(k int) int {
	k += r.offset
	switch {
	case r.rows != nil:
		return int(r.rows[k])
	case r.reverse:
		return r.n - 1 - k
	}
	return k
}

// monotonic fields increase with the record index (see modifiedAt) while
// no record of the object was changed; Id always does.
func monotonic(c *gctx, o *object, name string) bool {
	switch name {
	case "Id":
		return true
	case "CreatedDate", "LastModifiedDate", "SystemModstamp":
		return !c.touched(o.idx)
	}
	return false
}

// execute evaluates q over the records; all (queryAll) keeps the deleted
// ones, which /query leaves out.
func execute(c *gctx, q *soqlQuery, all bool) *resultSet {
	o := q.obj
	n := c.total(o.idx)
	rs := &resultSet{obj: o, cols: q.cols, n: n}
	var rows []int32
	filtered := false
	if q.where != nil || !all && c.hasDeleted(o.idx) {
		filtered = true
		var cand []int
		if q.where != nil {
			cand = idCandidates(o, q.where, n)
		}
		visit := func(i int) {
			if (all || c.live(o.idx, i)) && (q.where == nil || q.where.eval(c, i)) {
				rows = append(rows, int32(i))
			}
		}
		if cand != nil {
			for _, i := range cand {
				visit(i)
			}
		} else {
			for i := 0; i < n; i++ {
				visit(i)
			}
		}
	}
	if len(q.order) > 0 {
		first := q.order[0]
		if monotonic(c, o, o.fields[first.f].name) {
			if first.desc {
				if filtered {
					slices.Reverse(rows)
				} else {
					rs.reverse = true
				}
			}
		} else {
			if !filtered {
				rows = make([]int32, n)
				for i := range rows {
					rows[i] = int32(i)
				}
				filtered = true
			}
			sortRows(c, o, rows, q.order)
		}
	}
	if filtered {
		rs.rows = rows
		if rows == nil {
			rs.rows = []int32{}
		}
		n = len(rows)
	}
	total := n - q.offset
	if total < 0 {
		total = 0
	}
	if q.limit >= 0 && total > q.limit {
		total = q.limit
	}
	rs.offset = q.offset
	rs.total = total
	return rs
}

// idCandidates returns the only records a condition can match when it pins
// Id with = or IN (alone or inside an AND), or nil to scan everything.
func idCandidates(o *object, c cond, n int) []int {
	switch x := c.(type) {
	case *cmpCond:
		if x.f.name != "Id" || x.op != "=" && x.op != "IN" {
			return nil
		}
		out := []int{}
		for _, l := range x.vals {
			if i, ok := parseID(o.prefix, l.s); ok && i < n {
				out = append(out, i)
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	case andCond:
		for _, part := range x {
			if ids := idCandidates(o, part, n); ids != nil {
				return ids
			}
		}
	}
	return nil
}

func sortRows(c *gctx, o *object, rows []int32, order []orderKey) {
	keys := make([][]any, len(order))
	for k, ok := range order {
		vals := make([]any, len(rows))
		for r, i := range rows {
			vals[r] = c.value(o, ok.f, int(i))
		}
		keys[k] = vals
	}
	perm := make([]int32, len(rows))
	for r := range perm {
		perm[r] = int32(r)
	}
	slices.SortStableFunc(perm, func(ra, rb int32) int {
		for k, ok := range order {
			va, vb := keys[k][ra], keys[k][rb]
			var r int
			switch {
			case va == nil && vb == nil:
				r = 0
			case va == nil:
				r = -1
				if ok.nullsLast {
					r = 1
				}
			case vb == nil:
				r = 1
				if ok.nullsLast {
					r = -1
				}
			default:
				r = compareValues(o.fields[ok.f].kind, va, vb)
				if ok.desc {
					r = -r
				}
			}
			if r != 0 {
				return r
			}
		}
		return 0
	})
	sorted := make([]int32, len(rows))
	for r, p := range perm {
		sorted[r] = rows[p]
	}
	copy(rows, sorted)
}

// cursor is an open query locator.
type cursor struct {
	id    string
	rs    *resultSet
	batch int
	ov    *overlay // the records as the query saw them
}

// openCursor registers rs and returns its locator id. Salesforce keeps at
// most a handful of open locators per user and releases the oldest when a
// new one is opened; the fake does the same (Config.MaxOpenCursors).
func (s *Server) openCursor(rs *resultSet, batch int, ov *overlay) *cursor {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cursorSeq++
	cur := &cursor{id: makeID("01g", s.cursorSeq), rs: rs, batch: batch, ov: ov}
	s.cursors[cur.id] = cur
	s.cursorOrder = append(s.cursorOrder, cur.id)
	for len(s.cursorOrder) > s.cfg.maxCursors {
		delete(s.cursors, s.cursorOrder[0])
		s.cursorOrder = s.cursorOrder[1:]
	}
	return cur
}

func (s *Server) lookupCursor(id string) *cursor {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cursors[id]
}

// batchSize reads Sforce-Query-Options: batchSize=n (Salesforce clamps it to
// 200..2000 and treats it as a hint).
func (s *Server) batchSize(r *http.Request, def int) int {
	h := r.Header.Get("Sforce-Query-Options")
	for _, part := range strings.Split(h, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "batchSize") {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			continue
		}
		return min(max(n, 200), 2000)
	}
	return def
}

// handleQuery serves GET /query?q= and, with all, /queryAll?q=.
func (s *Server) handleQuery(w http.ResponseWriter, r *http.Request, version string, all bool) {
	q := r.URL.Query().Get("q")
	parsed, err := parseSOQL(s.schema, q)
	if err != nil {
		s.writeError(w, err)
		return
	}
	c := s.ctx(version)
	if parsed.count {
		rs := execute(c, &soqlQuery{obj: parsed.obj, where: parsed.where, limit: parsed.limit, offset: parsed.offset}, all)
		b := []byte(`{"totalSize":`)
		b = strconv.AppendInt(b, int64(rs.total), 10)
		b = append(b, `,"done":true,"records":[]}`...)
		s.writeJSON(w, http.StatusOK, b)
		return
	}
	rs := execute(c, parsed, all)
	batch := s.batchSize(r, s.cfg.batchSize)
	var cur *cursor
	if rs.total > batch {
		cur = s.openCursor(rs, batch, c.ov)
	}
	s.writePage(w, c, rs, cur, 0, batch)
}

// handleQueryMore serves GET /query/{locator}-{offset}.
func (s *Server) handleQueryMore(w http.ResponseWriter, r *http.Request, version, locator string) {
	id, offStr, ok := strings.Cut(locator, "-")
	off, err := strconv.Atoi(offStr)
	cur := s.lookupCursor(id)
	if !ok || err != nil || cur == nil || off < 0 || off > cur.rs.total {
		s.writeError(w, &apiError{400, "INVALID_QUERY_LOCATOR", "invalid query locator"})
		return
	}
	batch := s.batchSize(r, cur.batch)
	c := s.ctx(version)
	c.ov = cur.ov
	s.writePage(w, c, cur.rs, cur, off, batch)
}

func (s *Server) writePage(w http.ResponseWriter, c *gctx, rs *resultSet, cur *cursor, from, batch int) {
	to := min(from+batch, rs.total)
	b := make([]byte, 0, 256+(to-from)*1024)
	b = append(b, `{"totalSize":`...)
	b = strconv.AppendInt(b, int64(rs.total), 10)
	done := to >= rs.total
	b = append(b, `,"done":`...)
	b = strconv.AppendBool(b, done)
	if !done {
		b = append(b, `,"nextRecordsUrl":"/services/data/v`...)
		b = append(b, c.version...)
		b = append(b, "/query/"...)
		b = append(b, cur.id...)
		b = append(b, '-')
		b = strconv.AppendInt(b, int64(to), 10)
		b = append(b, '"')
	}
	b = append(b, `,"records":[`...)
	for k := from; k < to; k++ {
		if k > from {
			b = append(b, ',')
		}
		b = appendRecord(b, c, rs.obj, rs.at(k), rs.cols)
	}
	b = append(b, "]}"...)
	s.writeJSON(w, http.StatusOK, b)
}
