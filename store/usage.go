package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
)

// schemaV8 is what version 8 added: each connector's reconnection mark
// and its last use as columns, so that a console filters and shows them
// without opening the sealed credentials. A store upgraded from an older
// version may have marks inside its sealed credentials: the meta row
// needs_reconnect_backfill says so until MigrateNeedsReconnect copies
// them.
func (s *Store) schemaV8() []string {
	return []string{
		"ALTER TABLE tributary_connectors ADD COLUMN needs_reconnect SMALLINT NOT NULL DEFAULT 0",
		"ALTER TABLE tributary_connectors ADD COLUMN last_used BIGINT",
		"CREATE INDEX tributary_connectors_reconnect ON tributary_connectors (seq) WHERE needs_reconnect <> 0",
		"INSERT INTO tributary_meta (name, value) SELECT 'needs_reconnect_backfill', '1' WHERE EXISTS (SELECT 1 FROM tributary_connectors)",
	}
}

// usageReady fails when the store's tables are older than version 8 (a
// read-only store).
func (s *Store) usageReady(op string) error {
	if s.schema < 8 {
		return &Error{Op: op, Err: ErrVersion, Message: fmt.Sprintf("the store is at schema version %d, which keeps no connector use, and could not be upgraded to %d (it is read-only): open it once with write access", s.schema, SchemaVersion)}
	}
	return nil
}

// RecordUse records, in one transaction, that each connector of used was
// used at its time: a connector's LastUsed becomes the later of the two.
// Ids with no connector are ignored (deleted meanwhile). A service calls it
// now and then with the uses it gathered, not on every request.
func (s *Store) RecordUse(ctx context.Context, used map[string]time.Time) error {
	const op = "record connector use"
	if err := s.usageReady(op); err != nil {
		return err
	}
	if len(used) == 0 {
		return nil
	}
	d := s.d
	tx, err := d.writeTx(ctx, s.w)
	if err != nil {
		return d.wrap(op, err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, "UPDATE tributary_connectors SET last_used = "+d.ph(1)+" WHERE id = "+d.ph(2)+" AND (last_used IS NULL OR last_used < "+d.ph(3)+")")
	if err != nil {
		return d.wrap(op, err)
	}
	defer stmt.Close()
	// In id order: two processes' transactions lock rows in the same order
	// (PostgreSQL), so that they cannot deadlock.
	for _, id := range slices.Sorted(maps.Keys(used)) {
		if !validText(id) {
			continue
		}
		ms := used[id].UnixMilli()
		if _, err := stmt.ExecContext(ctx, ms, id, ms); err != nil {
			return d.wrap(op, err)
		}
	}
	return d.wrap(op, tx.Commit())
}

// MigrateNeedsReconnect finishes the upgrade to version 8 of a store that
// had connectors before it: it sets NeedsReconnect on each connector for
// which marked (given the connector as read, its sealed credentials
// included) returns true, and then records that this is done; later calls,
// and calls on a store that needs none, do nothing. It returns how many
// connectors it marked. It runs in one write transaction. An error from
// marked rolls back and is returned; the next call tries again.
func (s *Store) MigrateNeedsReconnect(ctx context.Context, marked func(c *Connector) (bool, error)) (int, error) {
	const op = "migrate connectors"
	if s.schema < 8 {
		return 0, nil // read-only and older: nothing to migrate into
	}
	d := s.d
	var pending string
	err := s.r.QueryRowContext(ctx, "SELECT value FROM tributary_meta WHERE name = 'needs_reconnect_backfill'").Scan(&pending)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return 0, nil
		}
		return 0, d.wrap(op, err)
	}
	tx, err := d.writeTx(ctx, s.w)
	if err != nil {
		return 0, d.wrap(op, err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, "DELETE FROM tributary_meta WHERE name = 'needs_reconnect_backfill'")
	if err != nil {
		return 0, d.wrap(op, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return 0, d.wrap(op, err) // another process did it meanwhile
	}
	rows, err := tx.QueryContext(ctx, "SELECT "+s.connectorCols("")+" FROM tributary_connectors ORDER BY seq")
	if err != nil {
		return 0, d.wrap(op, err)
	}
	var ids []string
	for rows.Next() {
		c, err := scanConnector(rows)
		if err != nil {
			rows.Close()
			return 0, d.wrap(op, err)
		}
		ok, err := marked(c)
		if err != nil {
			rows.Close()
			return 0, err
		}
		if ok {
			ids = append(ids, c.ID)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, d.wrap(op, err)
	}
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx, "UPDATE tributary_connectors SET needs_reconnect = 1 WHERE id = "+d.ph(1), id); err != nil {
			return 0, d.wrap(op, err)
		}
	}
	return len(ids), d.wrap(op, tx.Commit())
}
