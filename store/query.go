package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-dev/tributary/search"
)

// SearchOptions change what Search looks at.
type SearchOptions struct {
	// Deleted includes records deleted at the source (tombstones), which
	// searches leave out by default.
	Deleted bool
}

// Search runs req over the live copy of connector's entity, with the
// semantics of search.Index. An invalid request is a *search.Error
// (ErrInvalidQuery) naming the field, returned before any SQL runs; an
// entity with no copy yet is ErrNotSynced.
func (s *Store) Search(ctx context.Context, connector, entity string, req search.Request) (*search.Result, error) {
	return s.SearchWith(ctx, connector, entity, req, SearchOptions{})
}

// SearchWith is Search with options.
func (s *Store) SearchWith(ctx context.Context, connector, entity string, req search.Request, opts SearchOptions) (*search.Result, error) {
	start := time.Now()
	tx, err := s.d.readTx(ctx, s.r)
	if err != nil {
		return nil, s.d.wrap("search", err)
	}
	defer tx.Rollback()
	table, ts, err := s.liveRead(ctx, tx, connector, entity)
	if err != nil {
		return nil, err
	}
	ev, err := search.NewEvaluator(ts.Schema, ts.IDField, req)
	if err != nil {
		return nil, err
	}
	c := &compiler{ctx: ctx, s: s, q: tx, table: table, ts: ts}
	where := cond{sql: "", exact: true}
	// Values spelled as strings for integer and boolean fields ("42",
	// "true") compare as what they spell, as the Evaluator sees them.
	if creq := req.Canonical(ts.Schema); creq.Query.Filter != nil {
		if where, err = c.compile(creq.Query.Filter); err != nil {
			return nil, err
		}
	}
	conds := []string{}
	if !opts.Deleted {
		conds = append(conds, "r.deleted_at IS NULL")
	}
	if where.sql != "" {
		conds = append(conds, "("+where.sql+")")
	}
	// Ordered reads select the rows' rids, in order (narrow rows for the
	// database to sort), and fetch their JSON a chunk at a time; a ranking
	// in the process reads the JSON of every candidate.
	from := "SELECT r.rid FROM " + quoteIdent(tableName(table)) + " r"
	tname := tableName(table)
	// The order: the sort keys' columns then the id's, when every sort
	// field has a column; by score, in the process, when the filter
	// scores and there is no sort. Absent values sort last in either
	// direction: the records that have the first sort key come first (a
	// query the key's index can serve in order, with only ties sorted),
	// then those that do not.
	var order []string
	var first string
	inSQL := true
	for i, it := range req.Query.Sort {
		col := ts.column(it.Field)
		if col < 0 || !ts.Fields[col].Key {
			inSQL = false
			break
		}
		k := "r." + keyCol(col)
		dir := ""
		if it.Order == search.OrderDesc {
			dir = " DESC"
		}
		if i == 0 {
			first = k
			order = append(order, k+dir)
		} else {
			order = append(order, "("+k+" IS NULL)", k+dir)
		}
	}
	if len(req.Query.Sort) == 0 && ev.Scoring() && !constScore(req.Canonical(ts.Schema).Query.Filter, false) {
		inSQL = false
	}
	// A sorted read of a filter an index serves: one pass collects the
	// filter's matches (up to s.broad of them) with their sort keys and
	// sorts them. SQLite's planner prefers the filter's index even when
	// the filter matches much of the copy and the order's index would stop
	// after a page; PostgreSQL's prefers the order's index when it expects
	// the matches spread over the order, and reads most of the copy when
	// they are at its end (a date range sorted by update: 0.5 s at 1M).
	// When the filter matches more than a few thousand records (s.broad),
	// the read follows the order's index: SQLite is told to set the
	// filter's aside.
	broad := false
	sub, words := wordsOnly(where.sql, c.words)
	// A keyword of one word (ASCII) is exactly its match in a tagged word
	// index, whose tokens are the field's words each after its tag
	// (SQLite's FTS5 column, PostgreSQL's array): every hit scores 1, and
	// no record need be read to decide.
	oneWord := false
	if f := req.Canonical(ts.Schema).Query.Filter; words && ts.TaggedWords && f.Op == search.OpKeyword {
		w := search.Words(f.Value.Interface().(string))
		oneWord = len(w) == 1 && isASCIIWord(w[0])
	}
	// Results in id order, from the word index alone or from no index:
	// SQLite reads them in the order of the rows first, which is the ids'
	// when the feed delivered them in that order, and checks that it is.
	if s.d.name() == "sqlite" && inSQL && first == "" && (words || !c.indexed) {
		// Each candidate with its record: one statement.
		const cols = "SELECT r.rid, r.idkey, r.hid, x.raw FROM "
		raw := " JOIN " + quoteIdent(tname+"_raw") + " x ON x.rid = r.rid"
		q := cols + quoteIdent(tname) + " r" + raw
		// No index: none serves the filter but the covering index might,
		// whose matches SQLite would read and sort by row (all of a
		// status's, where the rows' order stops after a page).
		cs, order := conds, " ORDER BY r.rid"
		if words {
			// The word index's rows drive the read, in their order
			// (ORDER BY r.rid would sort every match).
			q = cols + "(" + sub + ") f JOIN " + quoteIdent(tname) + " r ON r.rid = f.rowid" + raw
			cs, order = conds[:len(conds)-1], " ORDER BY f.rowid"
		} else if where.sql != "" {
			cs = slices.Clone(conds)
			cs[len(cs)-1] = noIndex(cs[len(cs)-1])
		}
		if len(cs) > 0 {
			q += " WHERE " + strings.Join(cs, " AND ")
		}
		res, ok, err := s.inRowOrder(ctx, tx, tname, ts.InOrder, q+order, c.args, where.exact || oneWord, ev)
		if err != nil {
			return nil, s.searchErr(err, connector, entity)
		}
		if ok {
			res.TookMS = search.Took(start)
			return res, nil
		}
	}
	if where.sql != "" && c.indexed && inSQL && first != "" && !words && ev.Offset()+ev.Limit() < s.broad {
		// The page ends before s.broad matches, so that a broad filter's
		// page is never empty.
		res, ok, err := s.collected(ctx, tx, tname, conds, req.Query.Sort, ts, c.args, where.exact, ev)
		if err != nil {
			return nil, s.searchErr(err, connector, entity)
		}
		if ok {
			res.TookMS = search.Took(start)
			return res, nil
		}
		broad = true
	} else if s.d.name() == "sqlite" && where.sql != "" && c.indexed {
		// Otherwise SQLite counts the matches first.
		var n int
		probe := "SELECT count(*) FROM (SELECT 1 FROM " + quoteIdent(tableName(table)) + " r WHERE " + strings.Join(conds, " AND ") + " LIMIT " + strconv.Itoa(s.broad) + ")"
		if words {
			// The filter is the word index's condition alone: its
			// matches are the index's (tombstones aside), counted
			// without reading a record (1 ms instead of 60 for 20,000
			// at 1M).
			probe = "SELECT count(*) FROM (" + sub + " LIMIT " + strconv.Itoa(s.broad) + ")"
		}
		if err := tx.QueryRowContext(ctx, probe, c.args...).Scan(&n); err != nil {
			return nil, s.d.wrap("search", err)
		}
		broad = n >= s.broad
	}
	if broad && s.d.name() == "sqlite" {
		conds[len(conds)-1] = noIndex(conds[len(conds)-1])
	}

	queryOver := func(conds []string, extra string, order []string) string {
		all := append(slices.Clone(conds), extra)
		if extra == "" {
			all = conds
		}
		q := from
		if len(all) > 0 {
			q += " WHERE " + strings.Join(all, " AND ")
		}
		if order != nil {
			q += " ORDER BY " + strings.Join(append(order, "r.idkey"), ", ")
		}
		return q
	}
	query := func(extra string, order []string) string { return queryOver(conds, extra, order) }
	rawQuery := func() string {
		q := "SELECT x.raw FROM " + quoteIdent(tname) + " r JOIN " + quoteIdent(tname+"_raw") + " x ON x.rid = r.rid"
		if len(conds) > 0 {
			q += " WHERE " + strings.Join(conds, " AND ")
		}
		return q
	}
	var res *search.Result
	noScore := math.NaN()
	switch {
	case !inSQL && len(req.Query.Sort) == 0:
		// Score order: by levels of score when the store can say them,
		// else every candidate ranked in the process.
		var lvls []level
		ok := false
		if leaf := scoringLeaf(req.Canonical(ts.Schema).Query.Filter); leaf != nil {
			if lvls, ok, err = c.levels(leaf); err != nil {
				return nil, err
			}
		}
		if ok {
			var qs []sqlQuery
			for _, lv := range lvls {
				if broad {
					lv.cond = noIndex(lv.cond)
				}
				q := query("("+lv.cond+")", []string{})
				if _, only := wordsOnly(where.sql, c.words); only {
					// The level's words imply the filter's, its last
					// condition: one query of the word index instead of
					// two (the Evaluator decides every record all the
					// same). SQLite's values are numbered by position;
					// PostgreSQL's level values, numbered after the
					// filter's, are renumbered from 1. PostgreSQL took
					// the filter's words and the level's for independent
					// conditions, expected a few dozen records of 100,000
					// and read all of them to sort (2 s for a fuzzy
					// "pasword reset" at 1M).
					cond := lv.cond
					if s.d.name() == "postgres" {
						cond = renumber(cond, len(c.args))
					}
					q = queryOver(conds[:len(conds)-1], "("+cond+")", []string{})
					lv.args = lv.args[len(c.args):]
				}
				qs = append(qs, sqlQuery{q: q, args: lv.args, score: lv.score})
			}
			res, err = s.ordered(ctx, tx, tname, qs, false, ev)
			if errors.Is(err, errScoreMismatch) {
				res, err = s.ranked(ctx, tx, rawQuery(), c.args, ts, req)
			}
		} else {
			res, err = s.ranked(ctx, tx, rawQuery(), c.args, ts, req)
		}
	case !inSQL:
		res, err = s.ranked(ctx, tx, rawQuery(), c.args, ts, req)
	case first == "":
		// In id order: on PostgreSQL, a keyword of one word is read a
		// page at a time, its hits undecided (it read a chunk of 128
		// candidates and their records, and decided each).
		res, err = s.ordered(ctx, tx, tname, []sqlQuery{{q: query("", []string{}), args: c.args, score: noScore}}, where.exact && !ev.Scoring() || oneWord, ev)
	default:
		res, err = s.ordered(ctx, tx, tname, []sqlQuery{
			{q: query(first+" IS NOT NULL", order), args: c.args, score: noScore},
			{q: query(first+" IS NULL", order[1:]), args: c.args, score: noScore}}, where.exact && !ev.Scoring(), ev)
	}
	if err != nil {
		return nil, s.searchErr(err, connector, entity)
	}
	res.TookMS = search.Took(start)
	return res, nil
}

// searchErr is the error of a search that failed while reading: a
// *search.Error as it is, else the dialect's error naming the copy.
func (s *Store) searchErr(err error, connector, entity string) error {
	var se *search.Error
	if errors.As(err, &se) {
		return err
	}
	e := s.d.wrap("search", err)
	var ee *Error
	if errors.As(e, &ee) {
		ee.Connector, ee.Entity = connector, entity
	}
	return e
}

// sqlQuery is one query of an ordered read: its SQL, its values, and the
// score every hit of it must have (NaN: any).
type sqlQuery struct {
	q     string
	args  []any
	score float64
}

// errScoreMismatch: a record of a score level scored otherwise.
var errScoreMismatch = errors.New("a record's score is not its level's")

// ordered reads the rows of the queries qs, one after the other, in the
// request's order: when direct says that every row is a hit of score 1
// (an exact condition of a request that does not score, or a keyword of
// one word), a page straight from the database (LIMIT/OFFSET); otherwise
// every row in order, decided by the Evaluator, until the page is full.
func (s *Store) ordered(ctx context.Context, tx querier, table string, qs []sqlQuery, direct bool, ev *search.Evaluator) (*search.Result, error) {
	limit, offset := ev.Limit(), ev.Offset()
	res := &search.Result{Hits: []search.Hit{}}
	matched := 0 // hits seen, the skipped ones included
	more := false
	for _, sq := range qs {
		q, args := sq.q, sq.args
		if more {
			break
		}
		if direct {
			// The hits of this query that the page still needs.
			skip := max(0, offset-matched)
			n, err := s.readPage(ctx, tx, table, q+fmt.Sprintf(" LIMIT %d OFFSET %d", limit+1-len(res.Hits), skip), args, ev, res, limit, &more)
			if err != nil {
				return nil, err
			}
			if n > 0 || skip == 0 {
				matched += skip + n
			} else {
				// The page starts past this query's rows: count them.
				var total int
				if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM ("+q+") c", args...).Scan(&total); err != nil {
					return nil, err
				}
				matched += total
			}
			continue
		}
		if err := s.readMatches(ctx, tx, table, q, args, sq.score, ev, res, limit, offset, &matched, &more); err != nil {
			return nil, err
		}
	}
	return withCursor(res, ev, more)
}

// withCursor gives res, a page of ev's request, the cursor of the next
// page when more says there is one.
func withCursor(res *search.Result, ev *search.Evaluator, more bool) (*search.Result, error) {
	if more {
		c, err := ev.Cursor(ev.Offset() + ev.Limit())
		if err != nil {
			return nil, err
		}
		res.NextCursor = &c
	}
	return res, nil
}

// maxRowOrder bounds the rows inRowOrder reads past a page's start.
const maxRowOrder = 10000

// inRowOrder answers ev's request, whose results are in id order, with q,
// which selects the rid, idkey, hit id and JSON of the request's
// candidates (exact says they are its matches) in the order of the rows
// (rid). That order is the ids' when the rows were written in id order:
// ok is false, and there is no result, when the candidates read come in
// another order, or when a row after the last read has a smaller id than
// it (a candidate not read yet could then come before some of the page),
// or when the page starts past maxRowOrder candidates. The rows read are
// the page's and the candidates before it: a page of a word the index
// holds for many records reads a page of them, not all of them. Exact
// candidates are hits of score 1 (which a scoring request's must be),
// read without deciding them.
//
// inOrderThrough is the table's tableSpec.InOrder.
func (s *Store) inRowOrder(ctx context.Context, tx querier, table string, inOrderThrough int64, q string, args []any, exact bool, ev *search.Evaluator) (res *search.Result, ok bool, err error) {
	limit, offset := ev.Limit(), ev.Offset()
	if offset > maxRowOrder {
		return nil, false, nil
	}
	res = &search.Result{Hits: make([]search.Hit, 0, limit)}
	more := false
	var lastRid int64
	var lastKey []byte // the last candidate's id key, a copy (key is the driver's)
	inOrder, all := true, true
	err = func() error {
		rows, err := s.rstmts.query(ctx, tx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		n, matched := 0, 0 // candidates read, hits seen
		// Declared once: Scan's pointers make them escape.
		var (
			rid int64
			key sql.RawBytes
			id  string
			raw driverBytes
		)
		for rows.Next() {
			if err := rows.Scan(&rid, &key, &id, &raw); err != nil {
				return err
			}
			if n > 0 && bytes.Compare(key, lastKey) <= 0 {
				inOrder = false
				return nil
			}
			lastRid, lastKey = rid, append(lastKey[:0], key...)
			if n++; n > offset+maxRowOrder+limit+1 {
				inOrder = false
				return nil
			}
			score := 1.0
			if !exact {
				ok, sc, err := ev.Match(raw)
				if err != nil {
					return &Error{Op: "search", Err: ErrCorrupt, Message: "a stored record is not valid JSON", Cause: err}
				}
				if !ok {
					continue
				}
				score = sc
			}
			if matched++; matched <= offset {
				continue
			}
			if len(res.Hits) == limit {
				more, all = true, false
				break
			}
			h, err := ev.HitOf(id, raw, score)
			if err != nil {
				return &Error{Op: "search", Err: ErrCorrupt, Message: "a stored record is not valid JSON", Cause: err}
			}
			res.Hits = append(res.Hits, h)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if all {
			return nil
		}
		rows.Close()
		inOrder, err = s.noLaterRow(ctx, tx, table, inOrderThrough, lastKey, lastRid)
		return err
	}()
	if err != nil || !inOrder {
		return nil, false, err
	}
	res, err = withCursor(res, ev, more)
	return res, err == nil, err
}

// maxAfterRun is the most rows after a table's run in id order
// (tableSpec.InOrder) that noLaterRow reads (about 10 µs); with more it
// probes the id index instead.
const maxAfterRun = 64

// noLaterRow reports whether no row of table after the row lastRid, the
// last a read in the order of the rows took, has an id key below its,
// lastKey: then every row of a smaller id was read before it. When the
// table's rows 1 to run are in id order (tableSpec.InOrder), it is enough
// that none of the rows after the run (the records written since the full
// load, usually none or few) has a key below lastKey: a row of the run
// after lastRid has a greater key, and one before it is no later row. It
// reads them when there are at most maxAfterRun; with more, or when one
// has a smaller key (which may still come before lastRid), or without a
// run, it probes the id index for a row of a smaller key and a greater
// rid, which reads the index's entries below lastKey (36 µs of a keyword
// search's 245 µs of CPU at 200,000 tickets).
func (s *Store) noLaterRow(ctx context.Context, tx querier, table string, run int64, lastKey []byte, lastRid int64) (bool, error) {
	if run > 0 {
		// -1: too many rows after the run to read (the greatest rid says
		// how many: rows are never removed); else how many of them (0 or
		// 1) have a smaller key. The unary + keeps SQLite from reading
		// the id index for it.
		t := quoteIdent(table)
		var below int
		if err := s.rstmts.queryRow(ctx, tx, "SELECT CASE WHEN (SELECT max(rid) FROM "+t+") - ? > "+strconv.Itoa(maxAfterRun)+
			" THEN -1 ELSE (SELECT count(*) FROM (SELECT 1 FROM "+t+" WHERE rid > ? AND +idkey < ? LIMIT 1)) END", run, run, lastKey).Scan(&below); err != nil {
			return false, err
		}
		if below == 0 {
			return true, nil
		}
	}
	var later int
	if err := s.rstmts.queryRow(ctx, tx, "SELECT count(*) FROM (SELECT 1 FROM "+quoteIdent(table)+" WHERE idkey < ? AND rid > ? LIMIT 1)", lastKey, lastRid).Scan(&later); err != nil {
		return false, err
	}
	return later == 0, nil
}

// collectQuery is the one-pass read of a sorted request over the records
// table: the first most matches of conds, found through the filter's index,
// with their sort keys, sorted in the request's order (for each key, the
// records that have it first; then the id), each row with the number of
// matches collected. The sort fields all have key columns.
//
// When the table's covering index holds the conditions' and the sort's
// columns, SQLite's read (gated) is the matches sorted as they are read,
// not collected into a table first, behind a count of them, capped at
// most, that SQLite runs once before the read: the read returns nothing
// when the count reaches most, and each row's number is 0. Its values are
// the conditions' twice (the count's, then the read's). Collecting the
// matches into a table (to count them in the same pass) took twice as
// long as reading and sorting them, and the count alone, from the same
// index, a quarter of the read (a date range and an in of 10,000 matches
// at 200,000 records: 6.7 ms collected, 3.0 ms sorted, 0.9 ms counted).
// Where the count would read the rows, it would read them twice. counted
// says that the conditions were counted on this copy lately and had fewer
// than most matches (Store.narrow): SQLite's read is then not gated.
func collectQuery(d dialect, table string, conds []string, sort []search.SortItem, ts *tableSpec, most int, counted bool) (q string, gated bool) {
	var cols, order, keys []string
	for i, it := range sort {
		a := "s" + strconv.Itoa(i)
		k := "r." + keyCol(ts.column(it.Field))
		cols = append(cols, k+" AS "+a)
		dir := ""
		if it.Order == search.OrderDesc {
			dir = " DESC"
		}
		order = append(order, "("+a+" IS NULL)", a+dir)
		keys = append(keys, k+dir+" NULLS LAST")
	}
	where := strings.Join(conds, " AND ")
	from := " FROM " + quoteIdent(table) + " r WHERE "
	if d.name() == "sqlite" && ts.covers(conds, sort) {
		gate := ""
		if !counted {
			gate = "(" + countQuery(table, conds, most) + ") < " + strconv.Itoa(most) + " AND "
		}
		return "SELECT r.rid, 0" + from + gate + where + " ORDER BY " + strings.Join(keys, ", ") + ", r.idkey", !counted
	}
	return "WITH m AS MATERIALIZED (SELECT r.rid, " + strings.Join(cols, ", ") + ", r.idkey" + from +
		where + " LIMIT " + strconv.Itoa(most) + ") SELECT m.rid, (SELECT count(*) FROM m) FROM m ORDER BY " +
		strings.Join(order, ", ") + ", m.idkey", false
}

// narrowFor is how long a filter counted with fewer matches than
// Store.broad is taken for one without counting it again (Store.narrow):
// the matches of a copy that changes meanwhile could grow past it, and
// the read then sorts all of them (the results stay the same).
const narrowFor = time.Minute

// maxNarrow bounds the filters Store.narrow keeps.
const maxNarrow = 256

// narrow reports whether the filter key (the table's, with its values and
// the threshold) was counted within narrowFor with fewer matches than the
// threshold; note records that it just was.
func (s *Store) narrow(key string, note bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if note {
		if s.narrowed == nil || len(s.narrowed) >= maxNarrow {
			s.narrowed = map[string]time.Time{}
		}
		s.narrowed[key] = time.Now()
		return true
	}
	at, ok := s.narrowed[key]
	return ok && time.Since(at) < narrowFor
}

// countQuery counts the rows of table r that meet conds, up to most.
func countQuery(table string, conds []string, most int) string {
	return "SELECT count(*) FROM (SELECT 1 FROM " + quoteIdent(table) + " r WHERE " + strings.Join(conds, " AND ") + " LIMIT " + strconv.Itoa(most) + ")"
}

// collected answers ev's request, sorted by sort, whose matches are the
// rows of table that meet conds (with the values args), in one pass
// (collectQuery); exact says that conds' matches are the request's. ok is
// false, and there is no result, when conds have s.broad matches or more:
// the pass saw only some of them, and a read in the order's index is the
// cheaper plan. The page must end before s.broad matches.
func (s *Store) collected(ctx context.Context, tx querier, table string, conds []string, sort []search.SortItem, ts *tableSpec, args []any, exact bool, ev *search.Evaluator) (res *search.Result, ok bool, err error) {
	limit, offset := ev.Limit(), ev.Offset()
	direct := exact && !ev.Scoring()
	// A filter the covering index serves, counted lately: its count
	// again would be a fifth of the read.
	var narrowKey string
	counted := false
	if s.d.name() == "sqlite" && ts.covers(conds, sort) {
		narrowKey = fmt.Sprintf("%d\x00%s\x00%q", s.broad, strings.Join(conds, " AND "), args)
		counted = s.narrow(narrowKey, false)
	}
	q, gated := collectQuery(s.d, table, conds, sort, ts, s.broad, counted)
	qargs := args
	if gated {
		qargs = append(slices.Clone(args), args...)
	}
	if direct {
		q += fmt.Sprintf(" LIMIT %d OFFSET %d", limit+1, offset)
	}
	var rids []int64
	var broad bool
	read := 0 // rows read
	res = &search.Result{Hits: make([]search.Hit, 0, limit)}
	matched, more, done := 0, false, false
	// decide decides the records of chunk (done: the page is full).
	decide := func(chunk []int64) error {
		var err error
		done, err = s.decideChunk(ctx, tx, table, chunk, math.NaN(), ev, res, limit, offset, &matched, &more)
		return err
	}
	// Candidates are decided a chunk at a time as they are read, or, when
	// the dialect reads one query at a time, once all are read.
	stream := !direct && s.d.streams()
	err = func() error {
		rows, err := tx.QueryContext(ctx, q, qargs...)
		if err != nil {
			return err
		}
		defer rows.Close()
		var rid int64
		var n int
		for !done && rows.Next() {
			read++
			if err := rows.Scan(&rid, &n); err != nil {
				return err
			}
			if broad = n >= s.broad; broad {
				return nil
			}
			if rids = append(rids, rid); stream && len(rids) == matchChunk {
				if err := decide(rids); err != nil {
					return err
				}
				rids = rids[:0]
			}
		}
		return rows.Err()
	}()
	if err == nil && gated && read == 0 {
		// Nothing read: no match (or none past the offset), or the count
		// reached s.broad.
		var n int
		err = tx.QueryRowContext(ctx, countQuery(table, conds, s.broad), args...).Scan(&n)
		broad = n >= s.broad
	}
	if err != nil || broad {
		return nil, false, err
	}
	if gated {
		s.narrow(narrowKey, true)
	}
	switch {
	case direct:
		err = s.addPage(ctx, tx, table, rids, ev, res, limit, &more)
	case !stream:
		for len(rids) > 0 && !done && err == nil {
			n := min(len(rids), matchChunk)
			err = decide(rids[:n])
			rids = rids[n:]
		}
	case !done:
		err = decide(rids)
	}
	if err != nil {
		return nil, false, err
	}
	res, err = withCursor(res, ev, more)
	return res, err == nil, err
}

// driverBytes scans a record's JSON with one copy rather than two: the
// SQLite driver (modernc.org/sqlite) copies each row's blob out of SQLite's
// memory into a slice of its own, which database/sql would copy again into
// a []byte destination; a Scanner receives the driver's slice and keeps it.
// A text value (a string) is copied. TestDriverBytesKept pins the driver's behaviour: every row's
// slice its own. The bytes were a third of a page's allocations (a 1.6 KiB
// ticket copied twice, 51 times).
type driverBytes []byte

// Scan implements sql.Scanner.
func (b *driverBytes) Scan(src any) error {
	switch v := src.(type) {
	case []byte:
		*b = v
	case string:
		*b = []byte(v)
	case nil:
		*b = nil
	default:
		return fmt.Errorf("a record's JSON is a %T, not bytes", src)
	}
	return nil
}

// fetchRaw returns the JSON of the records rids of table, in their order,
// and their hit ids.
func (s *Store) fetchRaw(ctx context.Context, tx querier, table string, rids []int64) (raws [][]byte, ids []string, err error) {
	if len(rids) == 0 {
		return nil, nil, nil
	}
	args := make([]any, len(rids))
	for i, r := range rids {
		args[i] = r
	}
	rows, err := tx.QueryContext(ctx, "SELECT x.rid, r.hid, x.raw FROM "+quoteIdent(table+"_raw")+" x JOIN "+quoteIdent(table)+" r ON r.rid = x.rid WHERE x.rid IN ("+placeholders(s.d, 1, len(rids))+")", args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	type rec struct {
		id  string
		raw driverBytes
	}
	byRid := make(map[int64]rec, len(rids))
	for rows.Next() {
		var rid int64
		var r rec
		if err := rows.Scan(&rid, &r.id, &r.raw); err != nil {
			return nil, nil, err
		}
		byRid[rid] = r
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	raws, ids = make([][]byte, len(rids)), make([]string, len(rids))
	for i, r := range rids {
		if raws[i], ids[i] = byRid[r].raw, byRid[r].id; raws[i] == nil {
			return nil, nil, &Error{Op: "search", Err: ErrCorrupt, Message: fmt.Sprintf("record %d has no JSON", r)}
		}
	}
	return raws, ids, nil
}

// readPage adds the records of q, every one a hit, to res; more is set
// when a record beyond the page's limit is there.
func (s *Store) readPage(ctx context.Context, tx querier, table, q string, args []any, ev *search.Evaluator, res *search.Result, limit int, more *bool) (int, error) {
	rids, err := readRids(ctx, tx, q, args)
	if err != nil {
		return 0, err
	}
	return len(rids), s.addPage(ctx, tx, table, rids, ev, res, limit, more)
}

// addPage adds the records rids, every one a hit, to res, up to its
// limit; more is set when rids go beyond it.
func (s *Store) addPage(ctx context.Context, tx querier, table string, rids []int64, ev *search.Evaluator, res *search.Result, limit int, more *bool) error {
	if room := limit - len(res.Hits); len(rids) > room {
		*more = true
		rids = rids[:room]
	}
	raws, ids, err := s.fetchRaw(ctx, tx, table, rids)
	if err != nil {
		return err
	}
	for i, raw := range raws {
		h, err := ev.HitOf(ids[i], raw, 1)
		if err != nil {
			return &Error{Op: "search", Err: ErrCorrupt, Message: "a stored record is not valid JSON", Cause: err}
		}
		res.Hits = append(res.Hits, h)
	}
	return nil
}

func readRids(ctx context.Context, tx querier, q string, args []any) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var rid int64
		if err := rows.Scan(&rid); err != nil {
			return nil, err
		}
		out = append(out, rid)
	}
	return out, rows.Err()
}

// matchChunk is how many records an ordered read decides at a time.
const matchChunk = 128

// readMatches reads the records of q in order and adds those the
// Evaluator matches, past the first offset of them, to res. want is the
// score every hit must have (NaN: any).
func (s *Store) readMatches(ctx context.Context, tx querier, table, q string, args []any, want float64, ev *search.Evaluator, res *search.Result, limit, offset int, matched *int, more *bool) error {
	if !s.d.streams() {
		// One query at a time per connection: the rids a batch at a time,
		// each twice the last (q's order ends with the id, so batches do
		// not overlap), then their records a chunk at a time. Reading
		// every candidate first took 1 s for a keyword 125,000 tickets
		// hold at 1M, of which a page needs 50. The first batch is one
		// chunk: PostgreSQL plans a LIMIT of 256 with parallel workers,
		// whose start took 40 ms of a 45 ms read on a busy machine.
		for from, size := 0, matchChunk; ; from, size = from+size, 2*size {
			rids, err := readRids(ctx, tx, q+fmt.Sprintf(" LIMIT %d OFFSET %d", size, from), args)
			if err != nil {
				return err
			}
			last := len(rids) < size
			for len(rids) > 0 {
				n := min(len(rids), matchChunk)
				done, err := s.decideChunk(ctx, tx, table, rids[:n], want, ev, res, limit, offset, matched, more)
				if done || err != nil {
					return err
				}
				rids = rids[n:]
			}
			if last {
				return nil
			}
		}
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	chunk := make([]int64, 0, matchChunk)
	decide := func() (bool, error) {
		done, err := s.decideChunk(ctx, tx, table, chunk, want, ev, res, limit, offset, matched, more)
		chunk = chunk[:0]
		return done, err
	}
	for rows.Next() {
		var rid int64
		if err := rows.Scan(&rid); err != nil {
			return err
		}
		if chunk = append(chunk, rid); len(chunk) == matchChunk {
			if done, err := decide(); done || err != nil {
				return err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	_, err = decide()
	return err
}

// decideChunk fetches the records rids and adds those the Evaluator
// matches, past the first offset, to res; done when the page is full.
func (s *Store) decideChunk(ctx context.Context, tx querier, table string, rids []int64, want float64, ev *search.Evaluator, res *search.Result, limit, offset int, matched *int, more *bool) (bool, error) {
	{
		raws, ids, err := s.fetchRaw(ctx, tx, table, rids)
		if err != nil {
			return false, err
		}
		for i, raw := range raws {
			ok, score, err := ev.Match(raw)
			if err != nil {
				return false, &Error{Op: "search", Err: ErrCorrupt, Message: "a stored record is not valid JSON", Cause: err}
			}
			if !ok {
				continue
			}
			if !math.IsNaN(want) && score != want {
				return false, errScoreMismatch
			}
			if *matched++; *matched <= offset {
				continue
			}
			if len(res.Hits) == limit {
				*more = true
				return true, nil
			}
			h, err := ev.HitOf(ids[i], raw, score)
			if err != nil {
				return false, &Error{Op: "search", Err: ErrCorrupt, Message: "a stored record is not valid JSON", Cause: err}
			}
			res.Hits = append(res.Hits, h)
		}
		return false, nil
	}
}

// wordsOnly returns the word index's query (of rowids) when the filter's
// condition where is the word index condition words and nothing else.
func wordsOnly(where, words string) (string, bool) {
	const in = "r.rid IN ("
	if words == "" || where != words || !strings.HasPrefix(where, in) || !strings.HasSuffix(where, ")") ||
		strings.Count(where, " IN (") != 1 {
		return "", false
	}
	return where[len(in) : len(where)-1], true
}

// broadFilter is the number of matches past which a filter is broad: an
// ordered read then follows the order's index rather than the filter's
// (Store.broad, which tests make smaller).
const broadFilter = 20000

// noIndex keeps SQLite from using an index for the key columns and the
// word index in cond (a unary + before a column is SQLite's way to say
// so; the values are unchanged).
func noIndex(cond string) string {
	cond = keyRef.ReplaceAllString(cond, "+$0")
	return strings.ReplaceAll(cond, "r.rid IN (", "+r.rid IN (")
}

var keyRef = regexp.MustCompile(`\br\.k[0-9]+\b`)

// renumber lowers by n the numbers of PostgreSQL's placeholders ($1, $2,
// ...) in cond, whose values are all bound: no other $ is in its text.
func renumber(cond string, n int) string {
	return placeholder.ReplaceAllStringFunc(cond, func(p string) string {
		i, _ := strconv.Atoi(p[1:])
		return "$" + strconv.Itoa(i-n)
	})
}

var placeholder = regexp.MustCompile(`\$[0-9]+`)

// constScore reports whether every record f matches gets the same score
// (then score order is id order): single-word keywords, and ands of such
// conditions and conditions that do not score.
func constScore(f *search.Filter, negated bool) bool {
	if f == nil || negated {
		return true
	}
	switch f.Op {
	case search.OpAnd:
		for i := range f.Filters {
			if !constScore(&f.Filters[i], false) {
				return false
			}
		}
		return true
	case search.OpNot:
		return true // a not scores nothing
	case search.OpOr:
		for i := range f.Filters {
			if scores(&f.Filters[i]) {
				return false
			}
		}
		return true
	case search.OpAny:
		return !scores(&f.Filters[0])
	case search.OpKeyword:
		return len(search.Words(f.Value.Interface().(string))) == 1
	case search.OpFuzzy:
		return false
	}
	return true
}

// scores reports whether f has a scoring condition outside a not.
func scores(f *search.Filter) bool {
	switch f.Op {
	case search.OpKeyword, search.OpFuzzy:
		return true
	case search.OpNot:
		return false
	}
	for i := range f.Filters {
		if scores(&f.Filters[i]) {
			return true
		}
	}
	return false
}

// ranked runs req over the candidates of q with the reference Index: for
// results ordered by score, or by a field without a column.
func (s *Store) ranked(ctx context.Context, tx querier, q string, args []any, ts *tableSpec, req search.Request) (*search.Result, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	b, err := search.NewBuilder(ts.Schema, ts.IDField)
	if err != nil {
		return nil, &Error{Op: "search", Err: ErrCorrupt, Message: err.Error(), Cause: err}
	}
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return nil, err
		}
		if err := b.Add(raw); err != nil {
			return nil, &Error{Op: "search", Err: ErrCorrupt, Message: "a stored record cannot be read: " + err.Error(), Cause: err}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return b.Build().Search(req)
}
