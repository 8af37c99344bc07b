package store

import (
	"context"
	"database/sql"
	"sync"
	"time"
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

// readStmts keeps prepared the statements searches run again and again
// (a copy's spec, the read of a page of the same shape of request), on
// the reader pool, so that SQLite parses each once per connection rather
// than once per search: parsing was a seventh of an indexed search's
// time. A transaction uses one through Tx.StmtContext, which prepares it
// on the transaction's connection the first time. At most maxReadStmts
// are kept: past them, all are closed (a statement a transaction still
// uses is closed when it is done with it) and the cache starts again, so
// that the statements of tables gone do not stay. PostgreSQL's driver caches prepared
// statements by itself: the cache is off there.
//
// The outbox's hot statements (a delivery claim, a batch's delivered
// marks) use one too, on the writer pool, with ahead set: that pool has one
// connection, which the transaction holds once it has begun, so a
// statement is prepared by ready, before its transaction, never by stmt
// (which runs it unprepared when ready did not, or its statement was
// dropped since).
type readStmts struct {
	mu    sync.Mutex
	on    bool
	ahead bool
	db    *sql.DB
	m     map[string]*sql.Stmt
}

// ready prepares, on the pool, those of texts not prepared yet (empty
// ones: none); it is called outside of any transaction of the pool (with
// ahead). A statement that fails to prepare is run unprepared.
func (c *readStmts) ready(ctx context.Context, texts ...string) {
	if c == nil || !c.on {
		return
	}
	for _, text := range texts {
		if text == "" {
			continue
		}
		c.mu.Lock()
		had := c.m[text] != nil
		c.mu.Unlock()
		if had {
			continue
		}
		st, err := c.db.PrepareContext(ctx, text)
		if err != nil {
			continue
		}
		c.keep(text, st)
	}
}

// keep adds st, prepared for text, to the cache, and returns the cached
// statement of text (st, or one another goroutine kept first).
func (c *readStmts) keep(text string, st *sql.Stmt) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	if had := c.m[text]; had != nil {
		st.Close()
		return had
	}
	c.evictLocked()
	c.m[text] = st
	return st
}

// evictLocked makes room for a statement (c.mu held): past maxReadStmts,
// all are closed.
func (c *readStmts) evictLocked() {
	if len(c.m) >= maxReadStmts {
		for _, old := range c.m {
			old.Close()
		}
		clear(c.m)
	}
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
}

// maxReadStmts bounds the statements readStmts keeps.
const maxReadStmts = 64

// stmt returns the prepared statement of text for q, a transaction, or
// nil.
func (c *readStmts) stmt(ctx context.Context, q querier, text string) *sql.Stmt {
	tx, ok := q.(*sql.Tx)
	if c == nil || !c.on || !ok {
		return nil
	}
	c.mu.Lock()
	st := c.m[text]
	if st != nil {
		// Under the lock: the transaction's statement keeps st open
		// (Close waits for it) once it exists.
		defer c.mu.Unlock()
		return tx.StmtContext(ctx, st)
	}
	c.mu.Unlock()
	if c.ahead {
		return nil // not prepared by ready: run unprepared
	}
	// Preparing takes a connection of the pool, which every search's
	// transaction holds one of: it waits a little for one, not for as long
	// as the searches that hold them, which may be waiting here too.
	pctx, cancel := context.WithTimeout(ctx, prepareWait)
	st, err := c.db.PrepareContext(pctx, text)
	cancel()
	if err != nil {
		return nil // run unprepared: its error, if any, is the query's
	}
	// Kept and given to the transaction under the lock, so that no
	// other goroutine's eviction closes it in between.
	c.mu.Lock()
	defer c.mu.Unlock()
	if had := c.m[text]; had != nil {
		st.Close()
		st = had
	} else {
		c.evictLocked()
		c.m[text] = st
	}
	return tx.StmtContext(ctx, st)
}

// prepareWait is how long readStmts waits for a connection to prepare a
// statement on.
const prepareWait = 10 * time.Millisecond

func (c *readStmts) query(ctx context.Context, q querier, text string, args ...any) (*sql.Rows, error) {
	if st := c.stmt(ctx, q, text); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return q.QueryContext(ctx, text, args...)
}

func (c *readStmts) exec(ctx context.Context, q querier, text string, args ...any) (sql.Result, error) {
	if st := c.stmt(ctx, q, text); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return q.ExecContext(ctx, text, args...)
}

func (c *readStmts) queryRow(ctx context.Context, q querier, text string, args ...any) *sql.Row {
	if st := c.stmt(ctx, q, text); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return q.QueryRowContext(ctx, text, args...)
}

// close releases the statements (before the pool closes).
func (c *readStmts) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
}
