package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tributary-dev/tributary/search"
)

// Tombstones makes a full synchronization find deletions by difference:
// when it commits, every record of the previous copy that the new one
// lacks is kept in it as a deletion (a tombstone, with its last bytes and
// the time it was found missing), so that deletions survive a full walk.
// Use it only with a walk that read every record: Commit is never called
// after a walk that failed.
func Tombstones() LoadOption { return func(l *Load) { l.tombstones = true } }

// Counts returns what the load changed: after Commit, against the copy it
// replaced; for an Update, so far.
func (l *Load) Counts() Counts { return l.counts }

// Checkpoint returns the checkpoint saved with the live copy of an entity
// (nil when it has none: a copy made by a walk without a change feed), or
// an error matching ErrNotSynced when there is no copy.
func (s *Store) Checkpoint(ctx context.Context, connector, entity string) ([]byte, error) {
	var live sql.NullInt64
	var cp sql.NullString
	err := s.r.QueryRowContext(ctx, "SELECT live_table, checkpoint FROM tributary_entities WHERE connector = "+s.d.ph(1)+" AND entity = "+s.d.ph(2), connector, entity).Scan(&live, &cp)
	if errors.Is(err, sql.ErrNoRows) || err == nil && !live.Valid {
		return nil, &Error{Op: "sync", Connector: connector, Entity: entity, Err: ErrNotSynced, Message: "the entity has no copy in the store yet: synchronize it in full first"}
	}
	if err != nil {
		return nil, s.d.wrap("sync", err)
	}
	if !cp.Valid {
		return nil, nil
	}
	return []byte(cp.String), nil
}

// Update is an incremental synchronization of a live copy: pages of
// changed and deleted records, each written with the checkpoint that
// follows it in one transaction, so that searches see every page whole and
// a synchronization that stops (a crash included) resumes from the last
// page written. A Update is used by one goroutine at a time.
type Update struct{ l *Load }

// BeginUpdate starts an incremental synchronization of the live copy of
// sp's entity. Without a live copy, or when the copy was made with other
// searchable fields or another id field than sp names, it fails with an
// error matching ErrNotSynced: synchronize in full (BeginFull) instead.
func (s *Store) BeginUpdate(ctx context.Context, sp Spec, opts ...LoadOption) (*Update, error) {
	if err := sp.check(); err != nil {
		return nil, err
	}
	id, ts, err := s.live(ctx, s.w, sp.Connector, sp.Entity)
	if err != nil {
		var se *Error
		if errors.As(err, &se) {
			se.Op = "sync"
		}
		return nil, err
	}
	if ts.IDField != sp.IDField || !sameSchema(ts.Schema, sp.Schema) {
		return nil, &Error{Op: "sync", Connector: sp.Connector, Entity: sp.Entity, Err: ErrNotSynced,
			Message: "the copy was made with other searchable fields: synchronize it in full"}
	}
	x, _ := search.NewExtractor(ts.Schema, ts.IDField)
	l := &Load{s: s, spec: sp, ts: ts, id: id, table: tableName(id), x: x, created: true, live: true, vocab: map[vocabWord]struct{}{}, stmts: newStmtCache(s.d, s.w),
		begun: time.Now()}
	for _, o := range opts {
		o(l)
	}
	if l.claim != nil && (l.claim.Connector != sp.Connector || l.claim.Entity != sp.Entity) {
		return nil, &Error{Op: "sync", Connector: sp.Connector, Entity: sp.Entity, Err: ErrInvalid, Message: "the claim is for another copy"}
	}
	return &Update{l: l}, nil
}

func sameSchema(a, b search.Schema) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Apply writes one page of changes and the checkpoint that follows them,
// in one transaction. records are upserted by id (a record read again
// with the same bytes is left alone and counted Unchanged); each record
// of deleted that the copy holds becomes a tombstone. checkpoint replaces
// the copy's checkpoint (nil leaves it as it was).
func (u *Update) Apply(ctx context.Context, records, deleted [][]byte, checkpoint []byte) (err error) {
	l := u.l
	defer func() {
		if err != nil {
			// An update that failed is usually abandoned without Finish:
			// its prepared statements are not kept for it.
			l.stmts.close()
		}
	}()
	if l.done {
		return &Error{Op: "sync", Connector: l.spec.Connector, Entity: l.spec.Entity, Err: ErrInvalid, Message: "the update has ended"}
	}
	tx, err := l.s.d.writeTx(ctx, l.s.w)
	if err != nil {
		return l.wrap(err)
	}
	defer tx.Rollback()
	counts, err := u.apply(ctx, tx, records, deleted, checkpoint)
	if err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return l.wrap(err)
	}
	u.applied(ctx, counts)
	return nil
}

// apply writes one page of changes and the checkpoint in tx (Apply), and
// returns the update's counts with the page's.
func (u *Update) apply(ctx context.Context, tx *sql.Tx, records, deleted [][]byte, checkpoint []byte) (Counts, error) {
	l := u.l
	d := l.s.d
	// First the copy's row: the lock (PostgreSQL), the check that the live
	// table is still this one (a full synchronization may have replaced
	// it) and that the claim holds, and the checkpoint.
	set, args := "checkpoint = checkpoint", []any{}
	if checkpoint != nil {
		set, args = "checkpoint = "+d.ph(1), []any{string(checkpoint)}
	}
	n := len(args)
	fence, fargs := l.fence(n + 4)
	res, err := tx.ExecContext(ctx, "UPDATE tributary_entities SET "+set+" WHERE connector = "+d.ph(n+1)+" AND entity = "+d.ph(n+2)+" AND live_table = "+d.ph(n+3)+fence,
		append(append(args, l.spec.Connector, l.spec.Entity, l.id), fargs...)...)
	if err != nil {
		return Counts{}, l.wrap(err)
	}
	if err := l.owned(res, "a full synchronization replaced the copy meanwhile; this update is abandoned"); err != nil {
		return Counts{}, err
	}
	f, err := l.s.feed(ctx, tx, l.spec.Connector, l.spec.Entity)
	if err != nil {
		return Counts{}, l.wrap(err)
	}
	counts := l.counts
	changed, logged, rewritten, err := l.classify(ctx, tx, records, &counts)
	if err != nil {
		return Counts{}, err
	}
	// The rows rewritten may hold the bytes of a full synchronization's
	// changes: those take them first.
	if err := l.s.materialize(ctx, tx, l.id, rewritten); err != nil {
		return Counts{}, l.wrap(err)
	}
	before := l.n
	if len(changed) > 0 {
		if err := l.writeRecords(ctx, tx, changed); err != nil {
			return Counts{}, err
		}
	}
	l.n = before
	// The page's changes, in the order they were made: its records, then
	// its deletions.
	if err := l.s.logChanges(ctx, tx, l.stmts, f, logged); err != nil {
		return Counts{}, l.wrap(err)
	}
	k, err := l.markDeleted(ctx, tx, deleted, f)
	if err != nil {
		return Counts{}, err
	}
	counts.Deleted += k
	specJSON, _ := json.Marshal(l.ts)
	if _, err := tx.ExecContext(ctx, "UPDATE tributary_tables SET spec = "+d.ph(1)+" WHERE id = "+d.ph(2), string(specJSON), l.id); err != nil {
		return Counts{}, l.wrap(err)
	}
	return counts, nil
}

// applied keeps what a page's committed transaction wrote: its counts and
// the words it added to the vocabulary.
func (u *Update) applied(ctx context.Context, counts Counts) {
	l := u.l
	l.counts = counts
	for w := range l.pending {
		l.vocab[w] = struct{}{}
	}
	l.pending = nil
	l.stmts.prepare(ctx)
}

// owned checks that the fenced statement res changed the copy's row: that
// this load still owns what it writes (its claim holds, and no other
// synchronization replaced its table); else the error says why.
func (l *Load) owned(res sql.Result, superseded string) error {
	if k, _ := res.RowsAffected(); k > 0 {
		return nil
	}
	if l.claim != nil {
		return l.claim.lost("sync")
	}
	return &Error{Op: "sync", Connector: l.spec.Connector, Entity: l.spec.Entity, Err: ErrLeaseLost, Message: superseded}
}

// Finish ends the update: the copy's synchronization time becomes now,
// its change feed drops the changes past the store's retention, and the
// event of WithEvent, if any, is written in the same transaction.
func (u *Update) Finish(ctx context.Context) error {
	l := u.l
	if l.done {
		return nil
	}
	l.done = true
	l.stmts.close()
	tx, err := l.s.d.writeTx(ctx, l.s.w)
	if err != nil {
		return l.wrap(err)
	}
	defer tx.Rollback()
	if err := u.finish(ctx, tx); err != nil {
		return err
	}
	return l.wrap(tx.Commit())
}

// FinishWith writes the last page of changes and its checkpoint, as Apply
// does, and ends the update, as Finish does, in one transaction: an
// incremental synchronization that reads one page (most do, and every one
// that finds nothing new) commits once.
func (u *Update) FinishWith(ctx context.Context, records, deleted [][]byte, checkpoint []byte) error {
	l := u.l
	if l.done {
		return &Error{Op: "sync", Connector: l.spec.Connector, Entity: l.spec.Entity, Err: ErrInvalid, Message: "the update has ended"}
	}
	l.done = true
	defer l.stmts.close()
	tx, err := l.s.d.writeTx(ctx, l.s.w)
	if err != nil {
		return l.wrap(err)
	}
	defer tx.Rollback()
	before := l.counts
	counts, err := u.apply(ctx, tx, records, deleted, checkpoint)
	if err != nil {
		return err
	}
	l.counts = counts // the last synchronization's summary counts the page
	if err := u.finish(ctx, tx); err != nil {
		l.counts = before
		return err
	}
	if err := tx.Commit(); err != nil {
		l.counts = before
		return l.wrap(err)
	}
	l.pending = nil
	return nil
}

// finish ends the update in tx (Finish).
func (u *Update) finish(ctx context.Context, tx *sql.Tx) error {
	l := u.l
	d := l.s.d
	fence, fargs := l.fence(5)
	res, err := tx.ExecContext(ctx, "UPDATE tributary_entities SET synced_at = "+d.ph(1)+" WHERE connector = "+d.ph(2)+" AND entity = "+d.ph(3)+" AND live_table = "+d.ph(4)+fence,
		append([]any{time.Now().UnixMilli(), l.spec.Connector, l.spec.Entity, l.id}, fargs...)...)
	if err != nil {
		return l.wrap(err)
	}
	if k, _ := res.RowsAffected(); k == 0 {
		if l.claim != nil {
			return l.claim.lost("sync")
		}
		// A full synchronization replaced the copy meanwhile: this update's
		// pages are in the copy it replaced, whose own commit pruned its
		// feed; no event of its own.
		return nil
	}
	f, err := l.s.feed(ctx, tx, l.spec.Connector, l.spec.Entity)
	if err != nil {
		return l.wrap(err)
	}
	if err := l.s.prune(ctx, tx, f); err != nil {
		return l.wrap(err)
	}
	if err := l.saveLastSync(ctx, tx, false, l.counts); err != nil {
		return err
	}
	return l.syncEvent(ctx, tx, false)
}

// Counts returns what the update changed so far.
func (u *Update) Counts() Counts { return u.l.counts }

// classify compares records with the rows the copy holds for their ids:
// it counts them and returns those to write (new, changed, or restored
// after a deletion), the change each makes, for the copy's feed, and the
// rids of the rows the writing rewrites.
func (l *Load) classify(ctx context.Context, tx *sql.Tx, records [][]byte, c *Counts) ([][]byte, []pendingChange, []int64, error) {
	if len(records) == 0 {
		return nil, nil, nil, nil
	}
	keys := make([][]byte, len(records))
	hids := make([]string, len(records))
	for i, rec := range records {
		if err := l.x.Extract(rec, &l.ex); err != nil {
			return nil, nil, nil, &Error{Op: "sync", Connector: l.spec.Connector, Entity: l.spec.Entity, Err: ErrInvalid,
				Message: fmt.Sprintf("record %d of the page cannot be stored: %v", i, err), Cause: err}
		}
		keys[i] = slices.Clone(l.ex.IDKey)
		hids[i] = l.ex.ID
	}
	type row struct {
		rid     int64
		deleted bool
		raw     []byte
	}
	have := map[string]row{}
	d := l.s.d
	for start := 0; start < len(keys); start += maxRowsPerInsert {
		chunk := keys[start:min(start+maxRowsPerInsert, len(keys))]
		args := make([]any, len(chunk))
		for i, k := range chunk {
			args[i] = k
		}
		q := fmt.Sprintf("SELECT t.idkey, t.rid, t.deleted_at, r.raw FROM %s t JOIN %s r ON r.rid = t.rid WHERE t.idkey IN (%s)",
			quoteIdent(l.table), quoteIdent(l.table+"_raw"), placeholders(d, 1, len(chunk)))
		rows, err := tx.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, nil, nil, l.wrap(err)
		}
		for rows.Next() {
			var k, raw []byte
			var rid int64
			var del sql.NullInt64
			if err := rows.Scan(&k, &rid, &del, &raw); err != nil {
				rows.Close()
				return nil, nil, nil, l.wrap(err)
			}
			have[string(k)] = row{rid: rid, deleted: del.Valid, raw: raw}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, nil, nil, l.wrap(err)
		}
	}
	out := make([][]byte, 0, len(records))
	logged := make([]pendingChange, 0, len(records))
	var rewritten []int64
	seen := map[string]int{} // id → its change in logged
	for i, rec := range records {
		k := string(keys[i])
		h, ok := have[k]
		op := opUpdate
		if j, dup := seen[k]; dup {
			// The same id twice in one page: the later one wins, counted
			// once, and its change is the record's last bytes.
			out = append(out, rec)
			logged[j].raw = rec
			continue
		}
		switch {
		case !ok || h.deleted:
			c.Inserted++
			op = opInsert
		case bytes.Equal(h.raw, rec):
			c.Unchanged++
			continue
		default:
			c.Updated++
		}
		if ok {
			rewritten = append(rewritten, h.rid)
		}
		seen[k] = len(logged)
		out = append(out, rec)
		logged = append(logged, pendingChange{op: op, id: hids[i], raw: rec})
	}
	return out, logged, rewritten, nil
}

// markDeleted makes the rows of deleted records tombstones (those the
// copy holds and that are not already); it returns how many. With f, the
// copy's feed, each is a change of the feed, with the record's last bytes.
func (l *Load) markDeleted(ctx context.Context, tx *sql.Tx, deleted [][]byte, f *feedState) (int64, error) {
	var total int64
	now := time.Now().UnixMilli()
	d := l.s.d
	for start := 0; start < len(deleted); start += maxRowsPerInsert {
		chunk := deleted[start:min(start+maxRowsPerInsert, len(deleted))]
		args := []any{now}
		for i, rec := range chunk {
			if err := l.x.Extract(rec, &l.ex); err != nil {
				return 0, &Error{Op: "sync", Connector: l.spec.Connector, Entity: l.spec.Entity, Err: ErrInvalid,
					Message: fmt.Sprintf("deleted record %d of the page has no id: %v", start+i, err), Cause: err}
			}
			args = append(args, slices.Clone(l.ex.IDKey))
		}
		if f != nil {
			sel := fmt.Sprintf("SELECT %d AS op, t.hid AS id, r.raw AS raw, CAST(NULL AS BIGINT) AS ref_table, CAST(NULL AS BIGINT) AS ref_rid, t.rid AS ord FROM %s t JOIN %s r ON r.rid = t.rid WHERE t.deleted_at IS NULL AND t.idkey IN (%s)",
				opDelete, quoteIdent(l.table), quoteIdent(l.table+"_raw"), placeholders(d, logSelectFirst, len(chunk)))
			if _, err := l.s.logSelect(ctx, tx, f, sel, args[1:]...); err != nil {
				return 0, l.wrap(err)
			}
		}
		q := fmt.Sprintf("UPDATE %s SET deleted_at = %s WHERE deleted_at IS NULL AND idkey IN (%s)",
			quoteIdent(l.table), d.ph(1), placeholders(d, 2, len(chunk)))
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return 0, l.wrap(err)
		}
		k, _ := res.RowsAffected()
		total += k
	}
	return total, nil
}

// WriteDeleted marks records of the load's table as deletions, in one
// transaction: the records a change feed reports deleted while it fills a
// new copy.
func (l *Load) WriteDeleted(ctx context.Context, deleted [][]byte) error {
	if len(deleted) == 0 {
		return nil
	}
	if !l.created {
		return nil // nothing written yet, so nothing to mark
	}
	tx, err := l.s.d.writeTx(ctx, l.s.w)
	if err != nil {
		return l.wrap(err)
	}
	defer tx.Rollback()
	if _, err := l.markDeleted(ctx, tx, deleted, nil); err != nil {
		return err
	}
	return l.wrap(tx.Commit())
}

// compare counts what the loaded table changes against the live copy and,
// with Tombstones, carries the live copy's records that the load lacks
// into it as deletions. It runs before the table is indexed, in
// transactions of its own: a crash leaves an unfinished table that the
// next synchronization drops.
func (l *Load) compare(ctx context.Context) error {
	s, d := l.s, l.s.d
	old, _, err := s.live(ctx, s.w, l.spec.Connector, l.spec.Entity)
	l.liveN = l.liveRecords(ctx)
	l.counts = Counts{}
	if errors.Is(err, ErrNotSynced) {
		return nil
	}
	if err != nil {
		return l.wrap(err)
	}
	ot, nt := tableName(old), l.table
	// Inserted, Updated and Unchanged are counted where the feed's changes
	// are decided, in the transaction that swaps the tables (Commit).
	if !l.tombstones {
		return nil
	}
	var after int64 = -1
	for {
		tx, err := d.writeTx(ctx, s.w)
		if err != nil {
			return l.wrap(err)
		}
		q := fmt.Sprintf("SELECT o.rid, o.deleted_at, orr.raw FROM %s o JOIN %s orr ON orr.rid = o.rid WHERE o.rid > %s AND NOT EXISTS (SELECT 1 FROM %s n WHERE n.idkey = o.idkey) ORDER BY o.rid LIMIT %d",
			quoteIdent(ot), quoteIdent(ot+"_raw"), d.ph(1), quoteIdent(nt), maxRowsPerInsert)
		rows, err := tx.QueryContext(ctx, q, after)
		if err != nil {
			tx.Rollback()
			return l.wrap(err)
		}
		var raws [][]byte
		var when []int64
		for rows.Next() {
			var rid int64
			var del sql.NullInt64
			var raw []byte
			if err := rows.Scan(&rid, &del, &raw); err != nil {
				rows.Close()
				tx.Rollback()
				return l.wrap(err)
			}
			after = rid
			raws = append(raws, raw)
			if del.Valid {
				when = append(when, del.Int64)
			} else {
				when = append(when, 0)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			tx.Rollback()
			return l.wrap(err)
		}
		if len(raws) == 0 {
			tx.Rollback()
			return nil
		}
		if err := l.carry(ctx, tx, raws, when); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return l.wrap(err)
		}
		for w := range l.pending {
			l.vocab[w] = struct{}{}
		}
		l.pending = nil
	}
}

// carry writes records of the previous copy into the load's table as
// tombstones: deleted when[i] (Unix milliseconds), or now when it is 0.
func (l *Load) carry(ctx context.Context, tx *sql.Tx, raws [][]byte, when []int64) error {
	d := l.s.d
	before := l.n
	if err := l.writeRecords(ctx, tx, raws); err != nil {
		return err
	}
	l.n = before
	now := time.Now().UnixMilli()
	byTime := map[int64][]any{}
	for i, raw := range raws {
		if err := l.x.Extract(raw, &l.ex); err != nil {
			return &Error{Op: "sync", Connector: l.spec.Connector, Entity: l.spec.Entity, Err: ErrCorrupt, Message: "a record of the previous copy has no id", Cause: err}
		}
		t := when[i]
		if t == 0 {
			t = now
			l.counts.Deleted++
		}
		byTime[t] = append(byTime[t], slices.Clone(l.ex.IDKey))
	}
	for t, keys := range byTime {
		q := fmt.Sprintf("UPDATE %s SET deleted_at = %s WHERE idkey IN (%s)", quoteIdent(l.table), d.ph(1), placeholders(d, 2, len(keys)))
		if _, err := tx.ExecContext(ctx, q, append([]any{t}, keys...)...); err != nil {
			return l.wrap(err)
		}
	}
	return nil
}

// liveRecords counts the load's records that are not deletions.
func (l *Load) liveRecords(ctx context.Context) int64 {
	if !l.created {
		return 0
	}
	var n int64
	if err := l.s.w.QueryRowContext(ctx, "SELECT count(*) FROM "+quoteIdent(l.table)+" WHERE deleted_at IS NULL").Scan(&n); err != nil {
		return l.n
	}
	return n
}

// Count returns the number of records of an entity's live copy,
// deletions left out.
//
// The copy is found and counted in one snapshot: a full synchronization
// that swaps the copies meanwhile is not seen half-way (it was: "no such
// table", the copy counted having been dropped between the two reads).
func (s *Store) Count(ctx context.Context, connector, entity string) (int64, error) {
	var n int64
	err := s.readLive(ctx, connector, entity, func() (sql.NullInt64, error) {
		tx, err := s.d.readTx(ctx, s.r)
		if err != nil {
			return sql.NullInt64{}, s.d.wrap("stats", err)
		}
		defer tx.Rollback()
		id, _, err := s.live(ctx, tx, connector, entity)
		if err != nil {
			return sql.NullInt64{}, err
		}
		live := sql.NullInt64{Int64: id, Valid: true}
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM "+quoteIdent(tableName(id))+" WHERE deleted_at IS NULL").Scan(&n); err != nil {
			return live, s.d.wrap("stats", err)
		}
		return live, nil
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}
