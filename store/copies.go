package store

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
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

// Freshness is how current a store's copies are, counted in one
// statement over every registered copy (CopiesFreshness): what a fleet's
// monitoring reads at each scrape, where a series per copy would be
// hundreds of thousands.
type Freshness struct {
	// Copies is the number of registered copies; Never of them were
	// never synchronized, Failing have a failure standing (of any class).
	Copies, Never, Failing int64
	// Due counts the copies synchronized once whose last synchronization
	// is older than the interval given, Overdue those older than twice
	// it (a subset of Due).
	Due, Overdue int64
	// Buckets[i] counts the copies synchronized once whose staleness (the
	// time since their last synchronization ended) is at most the i-th
	// bound given; SumSeconds is their staleness summed, over every copy
	// synchronized once.
	Buckets    []int64
	SumSeconds float64
}

// CopiesFreshness counts every registered copy by its staleness, the time
// since its last synchronization ended (by the database's clock): at most
// each of bounds (ascending), over interval (Due), over twice interval
// (Overdue); and the copies never synchronized and the failing ones. One
// statement that reads each copy's row once, whatever the store holds.
func (s *Store) CopiesFreshness(ctx context.Context, interval time.Duration, bounds []time.Duration) (*Freshness, error) {
	d := s.d
	age := "(" + d.now() + " - synced_at)"
	cols := []string{"count(*)", "COALESCE(SUM(CASE WHEN synced_at IS NULL THEN 1 ELSE 0 END), 0)",
		"COALESCE(SUM(CASE WHEN " + s.failingSelect() + " THEN 1 ELSE 0 END), 0)",
		"COALESCE(SUM(CASE WHEN " + age + " > " + strconv.FormatInt(interval.Milliseconds(), 10) + " THEN 1 ELSE 0 END), 0)",
		"COALESCE(SUM(CASE WHEN " + age + " > " + strconv.FormatInt(2*interval.Milliseconds(), 10) + " THEN 1 ELSE 0 END), 0)",
		"COALESCE(SUM(" + age + "), 0)"}
	for _, b := range bounds {
		cols = append(cols, "COALESCE(SUM(CASE WHEN "+age+" <= "+strconv.FormatInt(b.Milliseconds(), 10)+" THEN 1 ELSE 0 END), 0)")
	}
	f := &Freshness{Buckets: make([]int64, len(bounds))}
	var sumMS float64
	dest := []any{&f.Copies, &f.Never, &f.Failing, &f.Due, &f.Overdue, &sumMS}
	for i := range f.Buckets {
		dest = append(dest, &f.Buckets[i])
	}
	if err := s.r.QueryRowContext(ctx, "SELECT "+strings.Join(cols, ", ")+" FROM tributary_entities").Scan(dest...); err != nil {
		return nil, d.wrap("freshness", err)
	}
	f.SumSeconds = sumMS / 1000
	return f, nil
}
