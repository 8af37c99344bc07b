package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"
)

// Drop removes the copy of connector's entity from the store, or with
// entity "" every copy of connector: each copy's tables (the live one and
// an unfinished one), its registration and checkpoint, its last failure,
// and its change feed, all in one transaction. It returns the entities
// dropped, in order. A connector with no such copy is ErrNotSynced; a copy
// that a synchronization holds (its claim has not expired) is ErrBusy,
// and nothing is dropped. The space the tables took is reused by the
// store; Compact gives it back to the file system.
func (s *Store) Drop(ctx context.Context, connector, entity string) ([]string, error) {
	if connector == "" {
		return nil, &Error{Op: "drop", Err: ErrInvalid, Message: "no connector name"}
	}
	d := s.d
	tx, err := d.writeTx(ctx, s.w)
	if err != nil {
		return nil, d.wrap("drop", err)
	}
	defer tx.Rollback()
	where, args := "connector = "+d.ph(1), []any{connector}
	if entity != "" {
		where, args = where+" AND entity = "+d.ph(2), append(args, entity)
	}
	rows, err := tx.QueryContext(ctx, "SELECT entity, lease_owner IS NOT NULL AND lease_expires >= "+d.now()+", COALESCE(lease_owner, '') FROM tributary_entities WHERE "+where+" ORDER BY entity", args...)
	if err != nil {
		return nil, d.wrap("drop", err)
	}
	var dropped []string
	for rows.Next() {
		var e, owner string
		var held bool
		if err := rows.Scan(&e, &held, &owner); err != nil {
			rows.Close()
			return nil, d.wrap("drop", err)
		}
		if held {
			rows.Close()
			return nil, &Error{Op: "drop", Connector: connector, Entity: e, Err: ErrBusy,
				Message: fmt.Sprintf("a synchronization (%s) holds the copy: stop it, or wait for its claim to expire, then drop again", owner)}
		}
		dropped = append(dropped, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, d.wrap("drop", err)
	}
	if len(dropped) == 0 {
		return nil, &Error{Op: "drop", Connector: connector, Entity: entity, Err: ErrNotSynced, Message: "the store has no such copy"}
	}
	// Every table of the copies: the live and unfinished ones, and any
	// left behind.
	var tables []int64
	trows, err := tx.QueryContext(ctx, "SELECT id FROM tributary_tables WHERE "+where, args...)
	if err != nil {
		return nil, d.wrap("drop", err)
	}
	for trows.Next() {
		var id int64
		if err := trows.Scan(&id); err != nil {
			trows.Close()
			return nil, d.wrap("drop", err)
		}
		tables = append(tables, id)
	}
	trows.Close()
	if err := trows.Err(); err != nil {
		return nil, d.wrap("drop", err)
	}
	for _, id := range tables {
		if err := s.dropTable(ctx, tx, id); err != nil {
			return nil, d.wrap("drop", err)
		}
	}
	stmts := []string{"DELETE FROM tributary_entities WHERE " + where}
	if s.schema >= 4 {
		stmts = append([]string{
			"DELETE FROM tributary_changes WHERE feed IN (SELECT id FROM tributary_feeds WHERE " + where + ")",
			"DELETE FROM tributary_feeds WHERE " + where,
		}, stmts...)
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return nil, d.wrap("drop", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, d.wrap("drop", err)
	}
	return dropped, nil
}

// Compaction is what Compact did: the store's size before and after, as
// Stats measures it.
type Compaction struct {
	Before, After int64
}

// Compact gives the space of dropped and rewritten copies back to the file
// system and rebuilds the store's tables tightly: SQLite's VACUUM (the
// file is rewritten, which needs as much free disk again, and the write
// lock for its duration), then a checkpoint that empties the write-ahead
// log; PostgreSQL's VACUUM (ANALYZE) of each of the store's tables, outside
// a transaction (it reclaims dead rows for reuse and updates the planner's
// statistics without locking out readers or writers; the server returns
// space to the file system only at a table's end).
func (s *Store) Compact(ctx context.Context) (Compaction, error) {
	var c Compaction
	var err error
	if c.Before, err = s.sizeNow(ctx); err != nil {
		return c, err
	}
	if s.d.name() == "postgres" {
		rows, err := s.w.QueryContext(ctx, "SELECT c.relname FROM pg_class c JOIN pg_namespace ns ON ns.oid = c.relnamespace WHERE ns.nspname = current_schema() AND c.relkind = 'r' AND c.relname LIKE 'tributary%' ORDER BY c.relname")
		if err != nil {
			return c, s.d.wrap("compact", err)
		}
		var tables []string
		for rows.Next() {
			var t string
			if err := rows.Scan(&t); err != nil {
				rows.Close()
				return c, s.d.wrap("compact", err)
			}
			tables = append(tables, quoteIdent(t))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return c, s.d.wrap("compact", err)
		}
		if len(tables) > 0 {
			if _, err := s.w.ExecContext(ctx, "VACUUM (ANALYZE) "+strings.Join(tables, ", ")); err != nil {
				return c, s.d.wrap("compact", err)
			}
		}
	} else {
		if _, err := s.w.ExecContext(ctx, "VACUUM"); err != nil {
			return c, s.d.wrap("compact", err)
		}
		if _, err := s.w.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			return c, s.d.wrap("compact", err)
		}
	}
	c.After, err = s.sizeNow(ctx)
	return c, err
}

// sizeNow is the store's size, as Stats measures it.
func (s *Store) sizeNow(ctx context.Context) (int64, error) {
	tx, err := s.d.readTx(ctx, s.r)
	if err != nil {
		return 0, s.d.wrap("compact", err)
	}
	defer tx.Rollback()
	n, err := s.size(ctx, tx)
	return n, s.d.wrap("compact", err)
}

// StoredRecord is a record of a copy as Records reads it.
type StoredRecord struct {
	// ID is the record's id, as search hits show it.
	ID string
	// Data is the vendor's JSON of the record, byte for byte.
	Data json.RawMessage
	// DeletedAt is when the record was found deleted at the source (a
	// tombstone); zero for a live record.
	DeletedAt time.Time
}

// Records reads every record of the live copy of connector's entity, in
// the order of their ids, from one snapshot of the store; with
// opts.Deleted the tombstones too, which are left out otherwise. A copy
// that does not exist yields ErrNotSynced. The iteration holds a read
// transaction (on SQLite, the write-ahead log cannot be checkpointed past
// it) until it ends or the loop breaks.
func (s *Store) Records(ctx context.Context, connector, entity string, opts SearchOptions) iter.Seq2[StoredRecord, error] {
	return func(yield func(StoredRecord, error) bool) {
		tx, err := s.d.readTx(ctx, s.r)
		if err != nil {
			yield(StoredRecord{}, s.d.wrap("export", err))
			return
		}
		defer tx.Rollback()
		table, _, err := s.live(ctx, tx, connector, entity)
		if err != nil {
			var se *Error
			if errors.As(err, &se) {
				se.Op = "export"
			}
			yield(StoredRecord{}, err)
			return
		}
		t := tableName(table)
		q := "SELECT t.hid, t.deleted_at, r.raw FROM " + quoteIdent(t) + " t JOIN " + quoteIdent(t+"_raw") + " r ON r.rid = t.rid"
		if !opts.Deleted {
			q += " WHERE t.deleted_at IS NULL"
		}
		rows, err := tx.QueryContext(ctx, q+" ORDER BY t.idkey")
		if err != nil {
			yield(StoredRecord{}, s.exportErr(err, connector, entity))
			return
		}
		defer rows.Close()
		for rows.Next() {
			var rec StoredRecord
			var del sql.NullInt64
			var raw []byte
			if err := rows.Scan(&rec.ID, &del, &raw); err != nil {
				yield(StoredRecord{}, s.exportErr(err, connector, entity))
				return
			}
			rec.Data = raw
			if del.Valid {
				rec.DeletedAt = time.UnixMilli(del.Int64).UTC()
			}
			if !yield(rec, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(StoredRecord{}, s.exportErr(err, connector, entity))
		}
	}
}

// exportErr is the dialect's error of a read of Records, naming the copy.
func (s *Store) exportErr(err error, connector, entity string) error {
	e := s.d.wrap("export", err)
	var ee *Error
	if errors.As(e, &ee) {
		ee.Connector, ee.Entity = connector, entity
	}
	return e
}

// Tombstones returns those of ids (as search hits show them) whose
// records in the live copy of connector's entity are tombstones: what
// tells them apart in the hits of a search with SearchOptions.Deleted. It
// reads the copy's rows without an index of ids, so it suits a page of
// hits rather than a whole copy (Records reports each record's deletion).
func (s *Store) Tombstones(ctx context.Context, connector, entity string, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	tx, err := s.d.readTx(ctx, s.r)
	if err != nil {
		return nil, s.d.wrap("search", err)
	}
	defer tx.Rollback()
	table, _, err := s.live(ctx, tx, connector, entity)
	if err != nil {
		return nil, err
	}
	for start := 0; start < len(ids); start += maxRowsPerInsert {
		chunk := ids[start:min(start+maxRowsPerInsert, len(ids))]
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		rows, err := tx.QueryContext(ctx, "SELECT hid FROM "+quoteIdent(tableName(table))+" WHERE deleted_at IS NOT NULL AND hid IN ("+placeholders(s.d, 1, len(chunk))+")", args...)
		if err != nil {
			return nil, s.searchErr(err, connector, entity)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, s.searchErr(err, connector, entity)
			}
			out[id] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, s.searchErr(err, connector, entity)
		}
	}
	return out, nil
}
