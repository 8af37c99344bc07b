package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
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
	table, ts, err := s.live(ctx, tx, connector, entity)
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
	from := "SELECT x.raw FROM " + quoteIdent(tableName(table)) + " r JOIN " + quoteIdent(tableName(table)+"_raw") + " x ON x.rid = r.rid"

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
	query := func(extra string, order []string) string {
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
				qs = append(qs, sqlQuery{q: query("("+lv.cond+")", []string{}), args: lv.args, score: lv.score})
			}
			res, err = s.ordered(ctx, tx, qs, false, ev)
			if errors.Is(err, errScoreMismatch) {
				res, err = s.ranked(ctx, tx, query("", nil), c.args, ts, req)
			}
		} else {
			res, err = s.ranked(ctx, tx, query("", nil), c.args, ts, req)
		}
	case !inSQL:
		res, err = s.ranked(ctx, tx, query("", nil), c.args, ts, req)
	case first == "":
		res, err = s.ordered(ctx, tx, []sqlQuery{{q: query("", []string{}), args: c.args, score: noScore}}, where.exact, ev)
	default:
		res, err = s.ordered(ctx, tx, []sqlQuery{
			{q: query(first+" IS NOT NULL", order), args: c.args, score: noScore},
			{q: query(first+" IS NULL", order[1:]), args: c.args, score: noScore}}, where.exact, ev)
	}
	if err != nil {
		var se *search.Error
		if errors.As(err, &se) {
			return nil, err
		}
		e := s.d.wrap("search", err)
		var ee *Error
		if errors.As(e, &ee) {
			ee.Connector, ee.Entity = connector, entity
		}
		return nil, e
	}
	res.TookMS = search.Took(start)
	return res, nil
}

// ordered reads the rows of the queries qs, one after the other, in the
// request's order: a page of an exact condition straight from the
// database (LIMIT/OFFSET); otherwise every row in order, decided by the
// Evaluator, until the page is full.
// sqlQuery is one query of an ordered read: its SQL, its values, and the
// score every hit of it must have (NaN: any).
type sqlQuery struct {
	q     string
	args  []any
	score float64
}

// errScoreMismatch: a record of a score level scored otherwise.
var errScoreMismatch = errors.New("a record's score is not its level's")

func (s *Store) ordered(ctx context.Context, tx querier, qs []sqlQuery, exact bool, ev *search.Evaluator) (*search.Result, error) {
	limit, offset := ev.Limit(), ev.Offset()
	direct := exact && !ev.Scoring()
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
			n, err := s.readPage(ctx, tx, q+fmt.Sprintf(" LIMIT %d OFFSET %d", limit+1-len(res.Hits), skip), args, ev, res, limit, &more)
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
		if err := s.readMatches(ctx, tx, q, args, sq.score, ev, res, limit, offset, &matched, &more); err != nil {
			return nil, err
		}
	}
	if more {
		c, err := ev.Cursor(offset + limit)
		if err != nil {
			return nil, err
		}
		res.NextCursor = &c
	}
	return res, nil
}

// readPage adds the rows of q, every one a hit, to res; more is set when
// a row beyond the page's limit is there.
func (s *Store) readPage(ctx context.Context, tx querier, q string, args []any, ev *search.Evaluator, res *search.Result, limit int, more *bool) (int, error) {
	debugPlan(ctx, tx, q, args)
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
		if len(res.Hits) == limit {
			*more = true
			break
		}
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return 0, err
		}
		h, err := ev.Hit(raw, 1)
		if err != nil {
			return 0, &Error{Op: "search", Err: ErrCorrupt, Message: "a stored record is not valid JSON", Cause: err}
		}
		res.Hits = append(res.Hits, h)
	}
	return n, rows.Err()
}

// readMatches reads the rows of q in order and adds those the Evaluator
// matches, past the first offset of them, to res.
func (s *Store) readMatches(ctx context.Context, tx querier, q string, args []any, want float64, ev *search.Evaluator, res *search.Result, limit, offset int, matched *int, more *bool) error {
	debugPlan(ctx, tx, q, args)
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return err
		}
		ok, score, err := ev.Match(raw)
		if err != nil {
			return &Error{Op: "search", Err: ErrCorrupt, Message: "a stored record is not valid JSON", Cause: err}
		}
		if !ok {
			continue
		}
		if !math.IsNaN(want) && score != want {
			return errScoreMismatch
		}
		if *matched++; *matched <= offset {
			continue
		}
		if len(res.Hits) == limit {
			*more = true
			return nil
		}
		h, err := ev.Hit(raw, score)
		if err != nil {
			return &Error{Op: "search", Err: ErrCorrupt, Message: "a stored record is not valid JSON", Cause: err}
		}
		res.Hits = append(res.Hits, h)
	}
	return rows.Err()
}

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

func debugPlan(ctx context.Context, tx querier, q string, args []any) {
	if os.Getenv("TRIBUTARY_STORE_DEBUG") == "" {
		return
	}
	fmt.Fprintln(os.Stderr, q)
	rows, err := tx.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var a, b, c int
		var d string
		rows.Scan(&a, &b, &c, &d)
		fmt.Fprintln(os.Stderr, "  ", d)
	}
}
