package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// nowMS is the database's clock in milliseconds, as the store reads it.
const nowMS = "(extract(epoch from clock_timestamp()) * 1000)::bigint"

// copyState is one copy's row of tributary_entities at a sample.
type copyState struct {
	connector, entity string
	// started is the start of its last completed sync (synced_at, the
	// commit, less the sync's duration from last_sync), 0 when never
	// synchronized; synced its commit.
	started, synced int64
	owner           string // the live claim's owner, "" when none
	failure         string // its last sync's failure, class and message ("" when none)
}

// sample is the fleet's state at one moment.
type sample struct {
	at     time.Time
	nowMS  int64
	copies []copyState
	// doubleClaims are connectors with more than one live claim (two of
	// their copies claimed at once: the store's one-sync-per-connector
	// rule broken).
	doubleClaims []string
	connections  int
}

// take reads every copy's state, and the database's connections.
func take(ctx context.Context, db *pgxpool.Pool) (*sample, error) {
	s := &sample{at: time.Now()}
	rows, err := db.Query(ctx, `SELECT connector, entity, COALESCE(synced_at, 0),
		COALESCE(synced_at - COALESCE((last_sync::json->>'duration_ms')::bigint, 0), 0),
		CASE WHEN lease_owner IS NOT NULL AND lease_expires >= `+nowMS+` THEN lease_owner ELSE '' END, `+nowMS+`,
		COALESCE(failure_class || ': ' || left(failure_message, 300), '')
		FROM tributary_entities`)
	if err != nil {
		return nil, err
	}
	claims := map[string]int{}
	for rows.Next() {
		var c copyState
		if err := rows.Scan(&c.connector, &c.entity, &c.synced, &c.started, &c.owner, &s.nowMS, &c.failure); err != nil {
			rows.Close()
			return nil, err
		}
		if c.owner != "" {
			claims[c.connector]++
		}
		s.copies = append(s.copies, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for conn, n := range claims {
		if n > 1 {
			s.doubleClaims = append(s.doubleClaims, conn)
		}
	}
	err = db.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()").Scan(&s.connections)
	return s, err
}

// pgTotals are the database's counters at one moment.
type pgTotals struct {
	commits, size int64
	// cpu is the server's CPU time so far (its postmaster's and
	// backends'), -1 when it is not a process of this machine that the
	// fleet can read.
	cpu time.Duration
}

func totals(ctx context.Context, db *pgxpool.Pool) (pgTotals, error) {
	var t pgTotals
	var backend int
	err := db.QueryRow(ctx, "SELECT xact_commit, pg_database_size(current_database()), pg_backend_pid() FROM pg_stat_database WHERE datname = current_database()").
		Scan(&t.commits, &t.size, &backend)
	t.cpu = -1
	if st, serr := readStat(backend); serr == nil && st.ppid > 1 {
		if cpu, cerr := treeCPU(st.ppid); cerr == nil {
			t.cpu = cpu
		}
	}
	return t, err
}

// change is one row of a copy's change feed.
type change struct {
	seq, at int64 // at in ms
	op      int   // the store's: 1 insert, 2 update, 3 delete
}

// opDelete is the store's code of a deletion in tributary_changes.
const opDelete = 3

// changeRows reads the change feeds' rows of the records keys name, by
// copy and record id, in the feeds' order. The keys go to the server as
// three arrays: at 10,000 connectors the feeds hold millions of rows (a
// copy's first load is a row a record), and reading them all into a map
// took 13.6 GB and most of a quarter of an hour.
func changeRows(ctx context.Context, db *pgxpool.Pool, keys []recordKey) (map[recordKey][]change, error) {
	var conns, ents, ids []string
	for _, k := range keys {
		conns, ents, ids = append(conns, k.connector), append(ents, k.entity), append(ids, k.id)
	}
	rows, err := db.Query(ctx, `SELECT f.connector, f.entity, c.id, c.seq, c.at, c.op
		FROM (SELECT DISTINCT * FROM unnest($1::text[], $2::text[], $3::text[]) AS m(connector, entity, id)) m
		JOIN tributary_feeds f ON f.connector = m.connector AND f.entity = m.entity
		JOIN tributary_changes c ON c.feed = f.id AND c.id = m.id
		ORDER BY c.feed, c.seq`, conns, ents, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[recordKey][]change{}
	for rows.Next() {
		var k recordKey
		var c change
		if err := rows.Scan(&k.connector, &k.entity, &k.id, &c.seq, &c.at, &c.op); err != nil {
			return nil, err
		}
		out[k] = append(out[k], c)
	}
	return out, rows.Err()
}

// syncsBetween counts the sync.completed events committed in [from, to).
func syncsBetween(ctx context.Context, db *pgxpool.Pool, from, to time.Time) (int64, error) {
	var n int64
	err := db.QueryRow(ctx, "SELECT count(*) FROM tributary_events WHERE type = 'sync.completed' AND created_at >= $1 AND created_at < $2",
		from.UnixMilli(), to.UnixMilli()).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("counting syncs: %w", err)
	}
	return n, nil
}

// copyKey names a copy.
type copyKey struct{ connector, entity string }
