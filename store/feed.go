package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The change feed.
//
// Every copy has a feed: a numbered list of the changes made to it, one
// per record inserted, updated or deleted (a record read again with the
// same bytes makes none), in the order they were made. Changes are
// numbered per copy, 1, 2, 3, ... with no gaps; a cursor is the number of
// the last change a reader has seen (0: none). Each change carries the
// record's bytes as the change left them (for a deletion, the record's
// last bytes), so that replaying a feed from cursor 0 onto an empty table
// reproduces the copy.
//
// The changes are written in the transaction that makes them: an
// incremental page (Update.Apply) writes its records, its tombstones and
// their changes together; a full synchronization, whose new table
// becomes the copy at once, writes the difference between the previous
// copy and the new one in the transaction that swaps them (Load.Commit).
// A process killed at any instant leaves the feed and the copy agreeing.
//
// A full synchronization's inserts and updates do not copy the records'
// bytes into the feed: each refers to its row of the copy's raw records
// (ref_table, the copy's table, and ref_rid, the row), which holds the
// same bytes, and the feed's reader takes them from there. Whatever would
// change or drop such a row first writes the bytes into the changes that
// refer to it (materialize), in the same transaction: an incremental page
// that rewrites the record, and the next full synchronization's swap,
// after which the previous copy is dropped. A reference is therefore
// always to a row of the live copy that holds the change's bytes, and
// Changes returns the same bytes, at every moment, as when every change
// carried them.
//
// Retention (SetRetention) drops a copy's oldest changes at the end of a
// synchronization, in its transaction; a cursor older than the oldest
// change kept fails with ErrCursorExpired.

// ErrCursorExpired: a change feed's cursor is older than the changes the
// feed keeps (see Retention): the reader must read the copy again (a
// search or list of every record), then follow the feed from the cursor
// ChangeCursor returned before that read.
var ErrCursorExpired = errors.New("change cursor expired")

// ChangeOp is what a change did to a record.
type ChangeOp string

// The operations of a change.
const (
	// OpInsert: the record was not in the copy (or was a deletion).
	OpInsert ChangeOp = "insert"
	// OpUpdate: the record was in the copy, with other bytes.
	OpUpdate ChangeOp = "update"
	// OpDelete: the record left the copy (a tombstone, or a full
	// synchronization that did not find it).
	OpDelete ChangeOp = "delete"
)

// op codes as stored.
const (
	opInsert = 1
	opUpdate = 2
	opDelete = 3
)

func opOf(code int) ChangeOp {
	switch code {
	case opInsert:
		return OpInsert
	case opUpdate:
		return OpUpdate
	default:
		return OpDelete
	}
}

// Change is one change of a copy. Its JSON is the service's and the
// command line's: {"seq", "op", "id", "data", "at"}.
type Change struct {
	// Seq is the change's number in the copy's feed: pass it as the cursor
	// to read the changes after it.
	Seq int64 `json:"seq"`
	// Op is what the change did.
	Op ChangeOp `json:"op"`
	// ID is the record's id (a string id, or a number id's literal).
	ID string `json:"id"`
	// Data is the record's JSON as the change left it, byte for byte; for
	// a deletion, the record's last bytes.
	Data json.RawMessage `json:"data"`
	// At is when the change was written to the store.
	At time.Time `json:"at"`
}

// ChangePage is a page of a copy's changes.
type ChangePage struct {
	// Changes are in the order they were made (Seq ascending).
	Changes []Change
	// Next is the cursor to read the following changes from: the last
	// change's Seq, or the cursor given when there were none.
	Next int64
	// More reports changes after Next at the time of the read.
	More bool
}

// Retention is how long a copy's change feed keeps its changes. A change
// is dropped when either limit says so; zero limits keep everything.
type Retention struct {
	// MaxAge drops the changes older than this.
	MaxAge time.Duration
	// MaxChanges keeps at most this many changes per copy, the newest.
	MaxChanges int64
}

// DefaultRetentionAge is a store's retention until SetRetention changes
// it: Retention{MaxAge: DefaultRetentionAge}, seven days of changes.
const DefaultRetentionAge = 7 * 24 * time.Hour

// MaxChangesPage is the most changes one call of Changes returns.
const MaxChangesPage = 10_000

// SetRetention sets how long the store's change feeds keep their changes
// (Retention{MaxAge: DefaultRetentionAge} until then). Each synchronization drops what is past
// it, for the copy it wrote, when it ends.
func (s *Store) SetRetention(r Retention) {
	s.mu.Lock()
	s.retention = r
	s.mu.Unlock()
}

func (s *Store) retentionNow() Retention {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.retention
}

// schemaV4 adds the change feeds. The copies a store holds already get a
// feed that starts after them: its first cursor is 1, and cursor 0 fails
// with ErrCursorExpired (their records were written before there was a
// feed, so a reader must read the copy once).
func (s *Store) schemaV4() []string {
	return []string{
		`CREATE TABLE tributary_feeds (id ` + s.d.serial() + `, connector TEXT NOT NULL, entity TEXT NOT NULL,
			first_seq BIGINT NOT NULL, last_seq BIGINT NOT NULL, last_at BIGINT NOT NULL, UNIQUE (connector, entity))`,
		`CREATE TABLE tributary_changes (feed BIGINT NOT NULL, seq BIGINT NOT NULL, op SMALLINT NOT NULL,
			id TEXT NOT NULL, raw ` + s.d.blob() + ` NOT NULL, at BIGINT NOT NULL, PRIMARY KEY (feed, seq))`,
		"INSERT INTO tributary_feeds (connector, entity, first_seq, last_seq, last_at) SELECT connector, entity, 1, 1, 0 FROM tributary_entities WHERE live_table IS NOT NULL",
	}
}

// schemaV9 is what version 9 added: a change may refer to its record's
// row in the copy's raw records instead of carrying the bytes (raw is
// null, ref_table and ref_rid say where they are), and the index that
// finds the changes referring to a table's rows. The changes a store
// holds keep their bytes. (Version 8 is another change's.)
func (s *Store) schemaV9() []string {
	// Either the bytes or a reference, never both or neither.
	check := "CONSTRAINT tributary_changes_raw_or_ref CHECK (raw IS NOT NULL AND ref_table IS NULL AND ref_rid IS NULL OR raw IS NULL AND ref_table IS NOT NULL AND ref_rid IS NOT NULL)"
	index := "CREATE INDEX tributary_changes_ref ON tributary_changes (ref_table, ref_rid) WHERE ref_table IS NOT NULL"
	if s.d.name() == "postgres" {
		return []string{
			"ALTER TABLE tributary_changes ALTER COLUMN raw DROP NOT NULL, ADD COLUMN ref_table BIGINT, ADD COLUMN ref_rid BIGINT, ADD " + check,
			index,
		}
	}
	// SQLite cannot drop a column's NOT NULL: the table is made again.
	return []string{
		`CREATE TABLE tributary_changes_v9 (feed BIGINT NOT NULL, seq BIGINT NOT NULL, op SMALLINT NOT NULL, id TEXT NOT NULL, raw BLOB, at BIGINT NOT NULL,
			ref_table BIGINT, ref_rid BIGINT, PRIMARY KEY (feed, seq), ` + check + ")",
		"INSERT INTO tributary_changes_v9 (feed, seq, op, id, raw, at) SELECT feed, seq, op, id, raw, at FROM tributary_changes",
		"DROP TABLE tributary_changes",
		"ALTER TABLE tributary_changes_v9 RENAME TO tributary_changes",
		index,
	}
}

// feedsReady fails when the store's tables are of a version without
// change feeds (an older store opened read-only).
func (s *Store) feedsReady(op string) error {
	if s.schema < 4 {
		return &Error{Op: op, Err: ErrVersion, Message: fmt.Sprintf("the store is at schema version %d, which keeps no change feed, and could not be upgraded to %d (it is read-only): open it once with write access", s.schema, SchemaVersion)}
	}
	return nil
}

// feedState is a copy's feed row, read in a write transaction.
type feedState struct {
	id, first, last, lastAt int64
}

// at returns the time to stamp the next changes with: now, or the last
// changes' time if the clock went back, so that times never decrease
// along a feed (retention searches them).
func (f *feedState) at() int64 { return max(time.Now().UnixMilli(), f.lastAt) }

// feed returns the feed of a copy in tx, making it when there is none.
// The caller's transaction holds the copy's row (its lock, in
// PostgreSQL), so that a copy's changes are numbered in the order their
// transactions commit.
func (s *Store) feed(ctx context.Context, tx *sql.Tx, connector, entity string) (*feedState, error) {
	if s.schema < 4 {
		return nil, nil // a read-only store of an older version writes nothing anyway
	}
	q := "SELECT id, first_seq, last_seq, last_at FROM tributary_feeds WHERE connector = " + s.d.ph(1) + " AND entity = " + s.d.ph(2)
	f := &feedState{}
	err := tx.QueryRowContext(ctx, q, connector, entity).Scan(&f.id, &f.first, &f.last, &f.lastAt)
	if errors.Is(err, sql.ErrNoRows) {
		if _, err := tx.ExecContext(ctx, "INSERT INTO tributary_feeds (connector, entity, first_seq, last_seq, last_at) VALUES ("+placeholders(s.d, 1, 2)+", 0, 0, 0)", connector, entity); err != nil {
			return nil, err
		}
		err = tx.QueryRowContext(ctx, q, connector, entity).Scan(&f.id, &f.first, &f.last, &f.lastAt)
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// advance records that n changes, stamped at, follow f.last.
func (s *Store) advance(ctx context.Context, tx *sql.Tx, f *feedState, n, at int64) error {
	if n == 0 {
		return nil
	}
	f.last += n
	f.lastAt = at
	_, err := tx.ExecContext(ctx, "UPDATE tributary_feeds SET last_seq = "+s.d.ph(1)+", last_at = "+s.d.ph(2)+" WHERE id = "+s.d.ph(3), f.last, at, f.id)
	return err
}

// pendingChange is a change to log with bound values.
type pendingChange struct {
	op  int
	id  string
	raw []byte
}

// logSelectFirst is the number of the first placeholder of logSelect's
// sel.
const logSelectFirst = 4

// logChanges appends changes to f, in tx.
func (s *Store) logChanges(ctx context.Context, tx *sql.Tx, stmts *stmtCache, f *feedState, changes []pendingChange) error {
	if f == nil || len(changes) == 0 {
		return nil
	}
	at := f.at()
	const per = maxRowsPerInsert
	args := make([]any, 0, 6*min(per, len(changes)))
	for start := 0; start < len(changes); start += per {
		part := changes[start:min(start+per, len(changes))]
		var q strings.Builder
		q.WriteString("INSERT INTO tributary_changes (feed, seq, op, id, raw, at) VALUES ")
		args = args[:0]
		for i, c := range part {
			if i > 0 {
				q.WriteByte(',')
			}
			q.WriteString("(" + placeholders(s.d, 6*i+1, 6) + ")")
			args = append(args, f.id, f.last+int64(start+i)+1, c.op, c.id, c.raw, at)
		}
		if _, err := stmts.exec(ctx, tx, q.String(), args...); err != nil {
			return err
		}
	}
	return s.advance(ctx, tx, f, int64(len(changes)), at)
}

// logSelect appends to f the changes that sel selects, in tx: sel is a
// SELECT of (op, id, raw, ref_table, ref_rid, ord) from which ord, a
// column that orders them, is dropped (raw null and a reference, or the
// bytes and no reference: see materialize); its placeholders, for args,
// start at logSelectFirst. It returns how many there were of each op.
func (s *Store) logSelect(ctx context.Context, tx *sql.Tx, f *feedState, sel string, args ...any) (map[int]int64, error) {
	if f == nil {
		return nil, nil
	}
	at := f.at()
	q := fmt.Sprintf("INSERT INTO tributary_changes (feed, seq, op, id, raw, ref_table, ref_rid, at) SELECT %s, %s + row_number() OVER (ORDER BY c.ord), c.op, c.id, c.raw, c.ref_table, c.ref_rid, %s FROM (%s) c",
		s.d.ph(1), s.d.ph(2), s.d.ph(3), sel)
	if _, err := tx.ExecContext(ctx, q, append([]any{f.id, f.last, at}, args...)...); err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, "SELECT op, count(*) FROM tributary_changes WHERE feed = "+s.d.ph(1)+" AND seq > "+s.d.ph(2)+" GROUP BY op", f.id, f.last)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	counts := map[int]int64{}
	var total int64
	for rows.Next() {
		var op int
		var k int64
		if err := rows.Scan(&op, &k); err != nil {
			return nil, err
		}
		counts[op] = k
		total += k
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return counts, s.advance(ctx, tx, f, total, at)
}

// prune drops the changes of f that the store's retention no longer
// keeps, in tx.
func (s *Store) prune(ctx context.Context, tx *sql.Tx, f *feedState) error {
	if f == nil {
		return nil
	}
	r := s.retentionNow()
	cut := f.first
	if r.MaxChanges > 0 {
		cut = max(cut, f.last-r.MaxChanges)
	}
	if r.MaxAge > 0 {
		// The changes' times never decrease along the feed (feedState.at)
		// and its numbers have no gaps: the last change older than the
		// limit is found by bisection, in a few lookups.
		limit := time.Now().Add(-r.MaxAge).UnixMilli()
		lo, hi := cut, f.last // the answer is in [lo, hi]
		for lo < hi {
			mid := lo + (hi-lo+1)/2
			var at int64
			err := tx.QueryRowContext(ctx, "SELECT at FROM tributary_changes WHERE feed = "+s.d.ph(1)+" AND seq = "+s.d.ph(2), f.id, mid).Scan(&at)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			if err == nil && at < limit {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		cut = max(cut, lo)
	}
	if cut <= f.first {
		return nil
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM tributary_changes WHERE feed = "+s.d.ph(1)+" AND seq <= "+s.d.ph(2), f.id, cut); err != nil {
		return err
	}
	f.first = cut
	_, err := tx.ExecContext(ctx, "UPDATE tributary_feeds SET first_seq = "+s.d.ph(1)+" WHERE id = "+s.d.ph(2), cut, f.id)
	return err
}

// materialize writes into the changes that refer to the rows rids of
// table's raw records (see schemaV9) the rows' bytes, and drops their
// references, in tx: before the rows are changed. A row that no change
// refers to costs a lookup of the index.
func (s *Store) materialize(ctx context.Context, tx *sql.Tx, table int64, rids []int64) error {
	q := materializeSQL(s.d, table)
	for start := 0; start < len(rids); start += maxRowsPerInsert {
		chunk := rids[start:min(start+maxRowsPerInsert, len(rids))]
		args := make([]any, 0, 1+len(chunk))
		args = append(args, table)
		for _, rid := range chunk {
			args = append(args, rid)
		}
		if _, err := tx.ExecContext(ctx, q+" AND ref_rid IN ("+placeholders(s.d, 2, len(chunk))+")", args...); err != nil {
			return err
		}
	}
	return nil
}

// materializeTable is materialize for every row of table that a change
// refers to: before the table is dropped.
func (s *Store) materializeTable(ctx context.Context, tx *sql.Tx, table int64) error {
	_, err := tx.ExecContext(ctx, materializeSQL(s.d, table), table)
	return err
}

// materializeSQL is the UPDATE of the changes that refer to table's rows
// (its placeholder 1), for materialize.
func materializeSQL(d dialect, table int64) string {
	return fmt.Sprintf("UPDATE tributary_changes SET raw = (SELECT r.raw FROM %s r WHERE r.rid = tributary_changes.ref_rid), ref_table = NULL, ref_rid = NULL WHERE ref_table = %s",
		quoteIdent(tableName(table)+"_raw"), d.ph(1))
}

// ChangeCursor returns the cursor of the last change of a copy's feed: a
// reader that starts from it sees every change made after this call. It
// fails with an error matching ErrNotSynced when the copy has no feed yet
// (it was never synchronized).
func (s *Store) ChangeCursor(ctx context.Context, connector, entity string) (int64, error) {
	if err := s.feedsReady("changes"); err != nil {
		return 0, err
	}
	var last int64
	err := s.r.QueryRowContext(ctx, "SELECT last_seq FROM tributary_feeds WHERE connector = "+s.d.ph(1)+" AND entity = "+s.d.ph(2), connector, entity).Scan(&last)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, &Error{Op: "changes", Connector: connector, Entity: entity, Err: ErrNotSynced, Message: "the entity has no copy in the store yet: synchronize it first"}
	}
	if err != nil {
		return 0, s.wrapCopy("changes", connector, entity, err)
	}
	return last, nil
}

// Changes returns the changes of a copy after cursor (0: from the
// feed's start), at most limit of them (≤ 0 or more than MaxChangesPage:
// MaxChangesPage), in order. A cursor older than the changes the feed
// keeps fails with an error matching ErrCursorExpired; one the feed has
// not reached, or a negative one, with ErrInvalid; a copy never
// synchronized with ErrNotSynced.
func (s *Store) Changes(ctx context.Context, connector, entity string, cursor int64, limit int) (*ChangePage, error) {
	if err := s.feedsReady("changes"); err != nil {
		return nil, err
	}
	if limit <= 0 || limit > MaxChangesPage {
		limit = MaxChangesPage
	}
	// A change that refers to its record's row reads it from the live
	// copy's raw records, in the same snapshot. On PostgreSQL a full
	// synchronization can swap the copies and drop the previous one
	// between the snapshot's first statement and the one that reads the
	// table (the table is gone, while the snapshot still shows the
	// references to it): the read starts again, and its new snapshot has
	// the bytes in the changes (the swap wrote them before the drop).
	var page *ChangePage
	err := s.readLive(ctx, connector, entity, func() (live sql.NullInt64, err error) {
		page, live, err = s.readChanges(ctx, connector, entity, cursor, limit)
		return live, err
	})
	return page, err
}

// readLive runs read, which reads a copy in one snapshot and returns the
// live table it read (when it got that far), again, up to three times in
// all, while it fails and the copy's live table has changed since: a full
// synchronization swapped the copies and dropped the one it was reading
// (PostgreSQL finds a table by its name outside the snapshot). It returns
// read's last error.
func (s *Store) readLive(ctx context.Context, connector, entity string, read func() (sql.NullInt64, error)) error {
	for attempt := 1; ; attempt++ {
		live, err := read()
		if err == nil || attempt == 3 || !live.Valid {
			return err
		}
		var now sql.NullInt64
		if s.r.QueryRowContext(ctx, "SELECT live_table FROM tributary_entities WHERE connector = "+s.d.ph(1)+" AND entity = "+s.d.ph(2), connector, entity).Scan(&now) != nil || now == live {
			return err
		}
	}
}

// readChanges is Changes in one read transaction; it returns the live
// table it read the references from, if any.
func (s *Store) readChanges(ctx context.Context, connector, entity string, cursor int64, limit int) (*ChangePage, sql.NullInt64, error) {
	var live sql.NullInt64
	tx, err := s.d.readTx(ctx, s.r)
	if err != nil {
		return nil, live, s.wrapCopy("changes", connector, entity, err)
	}
	defer tx.Rollback()
	var f feedState
	err = tx.QueryRowContext(ctx, "SELECT f.id, f.first_seq, f.last_seq, e.live_table FROM tributary_feeds f LEFT JOIN tributary_entities e ON e.connector = f.connector AND e.entity = f.entity WHERE f.connector = "+s.d.ph(1)+" AND f.entity = "+s.d.ph(2), connector, entity).Scan(&f.id, &f.first, &f.last, &live)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, live, &Error{Op: "changes", Connector: connector, Entity: entity, Err: ErrNotSynced, Message: "the entity has no copy in the store yet: synchronize it first"}
	}
	if err != nil {
		return nil, live, s.wrapCopy("changes", connector, entity, err)
	}
	switch {
	case cursor < 0 || cursor > f.last:
		return nil, live, &Error{Op: "changes", Connector: connector, Entity: entity, Err: ErrInvalid,
			Message: fmt.Sprintf("cursor %d is not one of this copy's feed (its last change is %d)", cursor, f.last)}
	case cursor < f.first:
		return nil, live, &Error{Op: "changes", Connector: connector, Entity: entity, Err: ErrCursorExpired,
			Message: fmt.Sprintf("cursor %d is older than the changes the feed keeps (from %d on): read the copy again, then follow the feed from the cursor taken before that read", cursor, f.first)}
	}
	q := "SELECT c.seq, c.op, c.id, c.raw, c.at FROM tributary_changes c"
	if s.schema >= 9 && live.Valid {
		q = fmt.Sprintf("SELECT c.seq, c.op, c.id, coalesce(c.raw, r.raw), c.at FROM tributary_changes c LEFT JOIN %s r ON c.ref_table = %d AND r.rid = c.ref_rid",
			quoteIdent(tableName(live.Int64)+"_raw"), live.Int64)
	}
	rows, err := tx.QueryContext(ctx, q+" WHERE c.feed = "+s.d.ph(1)+" AND c.seq > "+s.d.ph(2)+" ORDER BY c.seq LIMIT "+s.d.ph(3), f.id, cursor, limit)
	if err != nil {
		return nil, live, s.wrapCopy("changes", connector, entity, err)
	}
	defer rows.Close()
	page := &ChangePage{Changes: make([]Change, 0, min(int64(limit), f.last-cursor)), Next: cursor}
	for rows.Next() {
		var c Change
		var op int
		var at int64
		var data []byte
		if err := rows.Scan(&c.Seq, &op, &c.ID, &data, &at); err != nil {
			return nil, live, s.wrapCopy("changes", connector, entity, err)
		}
		if data == nil {
			// A reference to a row that is not the live copy's: never
			// written so (see materialize).
			return nil, live, &Error{Op: "changes", Connector: connector, Entity: entity, Err: ErrCorrupt,
				Message: fmt.Sprintf("change %d refers to a record the copy no longer holds", c.Seq)}
		}
		c.Op, c.Data, c.At = opOf(op), data, time.UnixMilli(at).UTC()
		page.Changes = append(page.Changes, c)
		page.Next = c.Seq
	}
	if err := rows.Err(); err != nil {
		return nil, live, s.wrapCopy("changes", connector, entity, err)
	}
	page.More = page.Next < f.last
	return page, live, nil
}

// wrapCopy is d.wrap naming the copy.
func (s *Store) wrapCopy(op, connector, entity string, err error) error {
	e := s.d.wrap(op, err)
	var se *Error
	if errors.As(e, &se) {
		se.Connector, se.Entity = connector, entity
	}
	return e
}

// logDiff writes, in tx (the transaction that makes the load's table the
// live copy in place of old), the changes between the two into the copy's
// feed: an insert for each live record of the load that old lacks (or
// holds as a deletion), an update for each whose bytes differ, a deletion
// for each live record of old that the load lacks or holds as a deletion.
// The inserts and updates refer to the load's rows (see materialize); the
// deletions carry old's bytes. It returns the load's counts with
// Inserted, Updated and Unchanged as the difference decided them, prunes
// the feed, then writes into the changes that refer to old's rows,
// still kept, their bytes, since old is dropped after the swap.
func (l *Load) logDiff(ctx context.Context, tx *sql.Tx, old sql.NullInt64) (Counts, error) {
	s := l.s
	counts := l.counts
	f, err := s.feed(ctx, tx, l.spec.Connector, l.spec.Entity)
	if err != nil || f == nil {
		return counts, err
	}
	nt := quoteIdent(l.table)
	nr := quoteIdent(l.table + "_raw")
	// A reference to the load's row: no bytes, the table and the row.
	ref := fmt.Sprintf("CAST(NULL AS %s) AS raw, %d AS ref_table, n.rid AS ref_rid", s.d.blob(), l.id)
	var c map[int]int64
	if !old.Valid {
		c, err = s.logSelect(ctx, tx, f, fmt.Sprintf("SELECT %d AS op, n.hid AS id, %s, n.rid AS ord FROM %s n WHERE n.deleted_at IS NULL",
			opInsert, ref, nt))
		if err != nil {
			return counts, err
		}
	} else {
		ot := quoteIdent(tableName(old.Int64))
		or := quoteIdent(tableName(old.Int64) + "_raw")
		c, err = s.logSelect(ctx, tx, f, fmt.Sprintf(`SELECT CASE WHEN o.rid IS NULL OR o.deleted_at IS NOT NULL THEN %d ELSE %d END AS op, n.hid AS id, %s, n.rid AS ord
			FROM %s n JOIN %s nr ON nr.rid = n.rid LEFT JOIN %s o ON o.idkey = n.idkey LEFT JOIN %s orr ON orr.rid = o.rid
			WHERE n.deleted_at IS NULL AND (o.rid IS NULL OR o.deleted_at IS NOT NULL OR orr.raw <> nr.raw)`,
			opInsert, opUpdate, ref, nt, nr, ot, or))
		if err != nil {
			return counts, err
		}
		// The previous copy's live records that the load holds live are
		// the load's less its inserts: when they are all of them, none was
		// deleted, and the search for deletions is skipped.
		var oldLive int64
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM "+ot+" WHERE deleted_at IS NULL").Scan(&oldLive); err != nil {
			return counts, err
		}
		if oldLive != l.liveN-c[opInsert] {
			if _, err := s.logSelect(ctx, tx, f, fmt.Sprintf(`SELECT %d AS op, o.hid AS id, orr.raw AS raw, CAST(NULL AS BIGINT) AS ref_table, CAST(NULL AS BIGINT) AS ref_rid, o.rid AS ord FROM %s o JOIN %s orr ON orr.rid = o.rid
				WHERE o.deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM %s n WHERE n.idkey = o.idkey AND n.deleted_at IS NULL)`,
				opDelete, ot, or, nt)); err != nil {
				return counts, err
			}
		}
	}
	counts.Inserted, counts.Updated = c[opInsert], c[opUpdate]
	counts.Unchanged = l.liveN - counts.Inserted - counts.Updated
	if err := s.prune(ctx, tx, f); err != nil {
		return counts, err
	}
	if old.Valid {
		// Only the changes retention kept are written.
		return counts, s.materializeTable(ctx, tx, old.Int64)
	}
	return counts, nil
}
