package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// SyncSummary is what the store keeps of a copy's last completed
// synchronization (schema version 7), besides its time
// (CopyState.SyncedAt).
type SyncSummary struct {
	// Full is true for a full synchronization (Load.Commit), false for an
	// incremental one (Update.Finish).
	Full bool
	// Counts is what it changed in the copy.
	Counts Counts
	// Duration is how long it took, from the load's beginning to its
	// commit (this process's clock, to the millisecond).
	Duration time.Duration
}

// lastSync is a SyncSummary as the last_sync column holds it (JSON).
type lastSync struct {
	Full       bool  `json:"full"`
	Inserted   int64 `json:"inserted"`
	Updated    int64 `json:"updated"`
	Unchanged  int64 `json:"unchanged"`
	Deleted    int64 `json:"deleted"`
	DurationMS int64 `json:"duration_ms"`
}

// schemaV7 is what version 7 added: each copy's last synchronization's
// summary, and an index of the failing copies (a console's "failing"
// filter reads them, not every copy).
func (s *Store) schemaV7() []string {
	return []string{"ALTER TABLE tributary_entities ADD COLUMN last_sync TEXT",
		"CREATE INDEX tributary_entities_failing ON tributary_entities (connector) WHERE failure_class IS NOT NULL"}
}

// saveLastSync records, in the load's last transaction, the summary of the
// synchronization that commits with it (a store of an older schema opened
// read-only for its tables keeps none).
func (l *Load) saveLastSync(ctx context.Context, tx *sql.Tx, full bool, c Counts) error {
	if l.s.schema < 7 {
		return nil
	}
	b, _ := json.Marshal(lastSync{Full: full, Inserted: c.Inserted, Updated: c.Updated, Unchanged: c.Unchanged, Deleted: c.Deleted,
		DurationMS: time.Since(l.begun).Milliseconds()})
	d := l.s.d
	if _, err := tx.ExecContext(ctx, "UPDATE tributary_entities SET last_sync = "+d.ph(1)+" WHERE connector = "+d.ph(2)+" AND entity = "+d.ph(3),
		string(b), l.spec.Connector, l.spec.Entity); err != nil {
		return l.wrap(err)
	}
	return nil
}

// lastSyncSelect is the column that holds the summary ("NULL" before
// version 7).
func (s *Store) lastSyncSelect() string {
	if s.schema < 7 {
		return "NULL"
	}
	return "last_sync"
}

// parseLastSync reads the column; nil when there is none (or it does not
// read).
func parseLastSync(v sql.NullString) *SyncSummary {
	if !v.Valid {
		return nil
	}
	var ls lastSync
	if json.Unmarshal([]byte(v.String), &ls) != nil {
		return nil
	}
	return &SyncSummary{Full: ls.Full, Counts: Counts{Inserted: ls.Inserted, Updated: ls.Updated, Unchanged: ls.Unchanged, Deleted: ls.Deleted},
		Duration: time.Duration(ls.DurationMS) * time.Millisecond}
}
