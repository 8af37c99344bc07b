package store

import (
	"context"
	"database/sql"
	"time"
)

// CopyState is what the store knows of one registered copy's
// synchronization, without reading its records.
type CopyState struct {
	Connector, Entity string
	// SyncedAt is when the copy was last brought up to date (zero: never).
	SyncedAt time.Time
	// Syncing reports a full load under way (or left by a dead process).
	Syncing bool
	// Owner holds the copy's claim until Expires ("" when unclaimed or
	// the claim lapsed).
	Owner   string
	Expires time.Time
	// Failure is the copy's last synchronization failure, nil when the
	// last synchronization succeeded (or none failed yet).
	Failure *Failure
	// LastSync summarizes the last completed synchronization (at
	// SyncedAt); nil when none completed since the store was at schema
	// version 6.
	LastSync *SyncSummary
}

// Copies lists every registered copy's synchronization state, by connector
// then entity. Unlike Stats it counts nothing and touches no copy's table:
// it is cheap enough for every scrape of a monitoring system.
func (s *Store) Copies(ctx context.Context) ([]CopyState, error) {
	return s.copies(ctx)
}

// ConnectorCopies lists the registered copies of connector, as Copies
// does, by entity.
func (s *Store) ConnectorCopies(ctx context.Context, connector string) ([]CopyState, error) {
	return s.copies(ctx, connector)
}

// CopiesOf lists the registered copies of the connectors given, as Copies
// does, by connector then entity, in one statement; none given: none.
func (s *Store) CopiesOf(ctx context.Context, connectors ...string) ([]CopyState, error) {
	if len(connectors) == 0 {
		return nil, nil
	}
	return s.copies(ctx, connectors...)
}

// copies lists the copies of connectors (none: every connector's).
func (s *Store) copies(ctx context.Context, connectors ...string) ([]CopyState, error) {
	where, args := "", []any(nil)
	if len(connectors) > 0 {
		for _, c := range connectors {
			args = append(args, c)
		}
		where = " WHERE connector IN (" + placeholders(s.d, 1, len(args)) + ")"
	}
	rows, err := s.r.QueryContext(ctx, "SELECT connector, entity, synced_at, staging_table IS NOT NULL, lease_owner, lease_expires, "+s.d.now()+", "+s.lastSyncSelect()+", "+s.failureSelect("")+
		" FROM tributary_entities"+where+" ORDER BY connector, entity", args...)
	if err != nil {
		return nil, s.d.wrap("copies", err)
	}
	defer rows.Close()
	var out []CopyState
	for rows.Next() {
		var c CopyState
		var synced, expires sql.NullInt64
		var owner sql.NullString
		var now int64
		var f failureFields
		var last sql.NullString
		if err := rows.Scan(append([]any{&c.Connector, &c.Entity, &synced, &c.Syncing, &owner, &expires, &now, &last}, f.dest()...)...); err != nil {
			return nil, s.d.wrap("copies", err)
		}
		c.Failure = f.failure()
		c.LastSync = parseLastSync(last)
		if synced.Valid {
			c.SyncedAt = time.UnixMilli(synced.Int64).UTC()
		}
		if owner.Valid && expires.Valid && expires.Int64 >= now {
			c.Owner, c.Expires = owner.String, time.UnixMilli(expires.Int64).UTC()
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, s.d.wrap("copies", err)
	}
	return out, nil
}
