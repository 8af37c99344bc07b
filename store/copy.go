package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// A full synchronization into PostgreSQL copies its rows in with COPY
// rather than INSERT … ON CONFLICT: no statement of thousands of bound
// values to parse, and no speculative insertion per row. COPY cannot
// update a row, so a record whose id the table holds already (a change
// feed read the same record twice) takes the INSERT path, and the rows
// copied get their rids from the load, which moves the table's sequence
// past them before anything else inserts (finishCopy).

// copyBatch writes the batch p: the rows whose idkey the table lacks by
// COPY, the others by upsertBatch. A batch is first copied in whole,
// after a savepoint: the table rarely holds one of its ids already (a
// change feed that read a record twice), and then the copy fails on the
// idkey's uniqueness, is rolled back to the savepoint, and the batch takes
// checkedBatch. That saves a query of the batch's ids per batch (a
// round trip and an index lookup per row, a tenth of a load's time).
func (l *Load) copyBatch(ctx context.Context, tx *sql.Tx, cols []string, p *preparedBatch, w *pageWords) error {
	perRow := len(cols)
	rows := make([][]any, p.n)
	raws := make([][]any, p.n)
	for i := range p.n {
		row := p.args[i*perRow : (i+1)*perRow]
		rid := l.nextRid + 1 + int64(i)
		rows[i] = append([]any{rid}, row...)
		raws[i] = []any{rid, p.rows[string(row[0].([]byte))].raw}
	}
	if _, err := tx.ExecContext(ctx, "SAVEPOINT tributary_batch"); err != nil {
		return l.wrap(err)
	}
	err := l.copyFrom(ctx, l.table, append([]string{"rid"}, cols...), rows)
	if isPgUniqueViolation(err) {
		if _, err := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT tributary_batch"); err != nil {
			return l.wrap(err)
		}
		return l.checkedBatch(ctx, tx, cols, p, w)
	}
	if err != nil {
		return err
	}
	if err := l.copyFrom(ctx, l.table+"_raw", []string{"rid", "raw"}, raws); err != nil {
		return err
	}
	for i := range p.n {
		w.add(l.nextRid+1+int64(i), p.rows[string(p.args[i*perRow].([]byte))].words, true)
	}
	l.nextRid += int64(p.n)
	return nil
}

// isPgUniqueViolation reports whether err is PostgreSQL's refusal of a
// row that repeats a unique key.
func isPgUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// checkedBatch writes the batch p as copyBatch does, its ids looked up
// first: the rows whose idkey the table lacks by COPY, the others by
// upsertBatch.
func (l *Load) checkedBatch(ctx context.Context, tx *sql.Tx, cols []string, p *preparedBatch, w *pageWords) error {
	perRow := len(cols)
	keys := make([][]byte, p.n)
	for i := range p.n {
		keys[i] = p.args[i*perRow].([]byte)
	}
	have := map[string]bool{}
	rs, err := tx.QueryContext(ctx, "SELECT idkey FROM "+quoteIdent(l.table)+" WHERE idkey = ANY($1)", keys)
	if err != nil {
		return l.wrap(err)
	}
	for rs.Next() {
		var k []byte
		if err := rs.Scan(&k); err != nil {
			rs.Close()
			return l.wrap(err)
		}
		have[string(k)] = true
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return l.wrap(err)
	}
	var (
		rows, raws [][]any
		again      []any // the rows of records the table holds, for upsertBatch
		nagain     int
	)
	for i, k := range keys {
		row := p.args[i*perRow : (i+1)*perRow]
		if have[string(k)] {
			again = append(again, row...)
			nagain++
			continue
		}
		l.nextRid++
		rid := l.nextRid
		rows = append(rows, append([]any{rid}, row...))
		r := p.rows[string(k)]
		raws = append(raws, []any{rid, r.raw})
		w.add(rid, r.words, true)
	}
	if len(rows) > 0 {
		if err := l.copyFrom(ctx, l.table, append([]string{"rid"}, cols...), rows); err != nil {
			return err
		}
		if err := l.copyFrom(ctx, l.table+"_raw", []string{"rid", "raw"}, raws); err != nil {
			return err
		}
	}
	if nagain > 0 {
		return l.upsertBatch(ctx, tx, cols, again, nagain, p.rows, w)
	}
	return nil
}

// copyFrom copies rows into table, on the load's connection, in the
// transaction open on it.
func (l *Load) copyFrom(ctx context.Context, table string, cols []string, rows [][]any) error {
	err := l.conn.Raw(func(dc any) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("store: COPY needs a pgx connection, not %T", dc)
		}
		_, err := c.Conn().CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
		return err
	})
	return l.wrap(err)
}

// beginCopyTx begins a page's transaction on a connection of the load's
// own, which COPY needs (it is taken from the pool for the page and given
// back by endCopy once the page is written).
func (l *Load) beginCopyTx(ctx context.Context) (*sql.Tx, error) {
	if l.conn == nil {
		c, err := l.s.w.Conn(ctx)
		if err != nil {
			return nil, err
		}
		l.conn = c
	}
	return l.conn.BeginTx(ctx, nil)
}

// finishCopy ends the COPY path once the pages are written: the table's
// rid sequence moves past the rids the load gave, so that the rows
// Commit carries in (and later updates) get fresh ones, and the load's
// connection goes back to the pool.
func (l *Load) finishCopy(ctx context.Context) error {
	if !l.copyRows {
		return nil
	}
	l.copyRows = false
	defer l.endCopy()
	if !l.created || l.nextRid == 0 {
		return nil
	}
	_, err := l.s.w.ExecContext(ctx, "SELECT setval(pg_get_serial_sequence($1, 'rid'), $2)", quoteIdent(l.table), l.nextRid)
	return l.wrap(err)
}

// endCopy gives the load's connection back to the pool.
func (l *Load) endCopy() {
	if l.conn != nil {
		// An error here changes nothing: the pool drops a broken
		// connection.
		_ = l.conn.Close()
		l.conn = nil
	}
}
