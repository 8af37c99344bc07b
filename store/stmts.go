package store

import (
	"context"
	"database/sql"
)

// stmtCache keeps the prepared statements a load runs page after page
// (the multi-row INSERTs of a full batch, whose text repeats), so that
// SQLite parses each once per load instead of once per batch: parsing a
// statement of 256 rows of placeholders cost as much as a tenth of a load.
//
// A statement is prepared on the writer pool between transactions (the
// pool has one connection, which a transaction holds), once its text has
// been run twice; inside a transaction it is used through Tx.StmtContext,
// which reuses the connection's prepared statement. PostgreSQL's driver
// caches prepared statements by itself, so the cache is off there.
type stmtCache struct {
	db   *sql.DB
	on   bool
	m    map[string]*sql.Stmt
	seen map[string]int
}

// maxCached bounds the statements a load keeps prepared.
const maxCached = 32

func newStmtCache(d dialect, db *sql.DB) *stmtCache {
	return &stmtCache{db: db, on: d.name() == "sqlite"}
}

// get returns the prepared statement of q in tx, or nil (and notes q).
func (c *stmtCache) get(ctx context.Context, tx *sql.Tx, q string) *sql.Stmt {
	if c == nil || !c.on {
		return nil
	}
	if st, ok := c.m[q]; ok {
		return tx.StmtContext(ctx, st)
	}
	if len(c.m) < maxCached {
		if c.seen == nil {
			c.seen = map[string]int{}
		}
		if len(c.seen) > 4*maxCached {
			clear(c.seen)
		}
		c.seen[q]++
	}
	return nil
}

func (c *stmtCache) exec(ctx context.Context, tx *sql.Tx, q string, args ...any) (sql.Result, error) {
	if st := c.get(ctx, tx, q); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, q, args...)
}

func (c *stmtCache) query(ctx context.Context, tx *sql.Tx, q string, args ...any) (*sql.Rows, error) {
	if st := c.get(ctx, tx, q); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return tx.QueryContext(ctx, q, args...)
}

// prepare prepares the statements run twice so far; it is called between
// transactions. A statement that fails to prepare is run unprepared.
func (c *stmtCache) prepare(ctx context.Context) {
	if c == nil || !c.on {
		return
	}
	for q, n := range c.seen {
		if n < 2 || len(c.m) >= maxCached {
			continue
		}
		delete(c.seen, q)
		st, err := c.db.PrepareContext(ctx, q)
		if err != nil {
			continue
		}
		if c.m == nil {
			c.m = map[string]*sql.Stmt{}
		}
		c.m[q] = st
	}
}

// close releases the prepared statements (before the load's tables are
// indexed, swapped or dropped).
func (c *stmtCache) close() {
	if c == nil {
		return
	}
	for _, st := range c.m {
		st.Close()
	}
	c.m, c.seen = nil, nil
}
