package store

import (
	"context"
	"errors"
	"fmt"
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
	q := "SELECT x.raw FROM " + quoteIdent(tableName(table)) + " r JOIN " + quoteIdent(tableName(table)+"_raw") + " x ON x.rid = r.rid"
	if len(conds) > 0 {
		q += " WHERE " + strings.Join(conds, " AND ")
	}

	// The order: the sort keys' columns then the id's, when every sort
	// field has a column; by score, in the process, when the filter
	// scores and there is no sort.
	var order []string
	inSQL := true
	for _, it := range req.Query.Sort {
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
		order = append(order, "("+k+" IS NULL)", k+dir)
	}
	if len(req.Query.Sort) == 0 && ev.Scoring() {
		inSQL = false
	}
	var res *search.Result
	if inSQL {
		order = append(order, "r.idkey")
		res, err = s.ordered(ctx, tx, q+" ORDER BY "+strings.Join(order, ", "), c.args, where.exact, ev)
	} else {
		res, err = s.ranked(ctx, tx, q, c.args, ts, req)
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

// ordered reads the rows of q in the request's order: a page of an exact
// condition straight from the database (LIMIT/OFFSET); otherwise every
// row in order, decided by the Evaluator, until the page is full.
func (s *Store) ordered(ctx context.Context, tx querier, q string, args []any, exact bool, ev *search.Evaluator) (*search.Result, error) {
	limit, offset := ev.Limit(), ev.Offset()
	direct := exact && !ev.Scoring()
	if direct {
		q += fmt.Sprintf(" LIMIT %d OFFSET %d", limit+1, offset)
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	res := &search.Result{Hits: []search.Hit{}}
	matched := 0
	more := false
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return nil, err
		}
		score := 1.0
		if !direct {
			ok, sc, err := ev.Match(raw)
			if err != nil {
				return nil, &Error{Op: "search", Err: ErrCorrupt, Message: "a stored record is not valid JSON", Cause: err}
			}
			if !ok {
				continue
			}
			score = sc
			if matched++; matched <= offset {
				continue
			}
		}
		if len(res.Hits) == limit {
			more = true
			break
		}
		h, err := ev.Hit(raw, score)
		if err != nil {
			return nil, &Error{Op: "search", Err: ErrCorrupt, Message: "a stored record is not valid JSON", Cause: err}
		}
		res.Hits = append(res.Hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, err
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
