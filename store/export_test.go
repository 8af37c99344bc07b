package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
)

// SetBroadFilter sets the number of matches past which s takes a filter
// as broad (20,000 otherwise), so that tests of a few hundred records
// reach both plans of a sorted search.
func SetBroadFilter(s *Store, n int) { s.broad = n }

// UntagWordsPostgres rewrites the word index of a copy's live table in a
// PostgreSQL store as the store wrote it before tagged word indexes: an
// array w<col> per word field (the field's words, untagged), a GIN index
// on each, and a spec without tagged_words.
func UntagWordsPostgres(ctx context.Context, s *Store, connector, entity string) error {
	if s.d.name() != "postgres" {
		return fmt.Errorf("UntagWordsPostgres: a %s store", s.d.name())
	}
	id, spec, err := s.liveSpec(ctx, s.w, connector, entity)
	if err != nil {
		return err
	}
	ts, err := parseTableSpec(spec)
	if err != nil {
		return err
	}
	if !ts.TaggedWords {
		return fmt.Errorf("UntagWordsPostgres: %s/%s is not tagged", connector, entity)
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	words := quoteIdent(wordsName(tableName(id)))
	old := quoteIdent(wordsName(tableName(id)) + "_old")
	var cols, sel []string
	for _, c := range ts.wordCols() {
		cols = append(cols, fmt.Sprintf("w%d TEXT[]", c))
		sel = append(sel, fmt.Sprintf("ARRAY(SELECT substr(x, %d) FROM unnest(w) x WHERE starts_with(x, '%s'))", len(wordTag(c))+1, wordTag(c)))
	}
	stmts := []string{
		"CREATE TABLE " + old + " (rid BIGINT PRIMARY KEY, " + strings.Join(cols, ", ") + ")",
		"INSERT INTO " + old + " SELECT rid, " + strings.Join(sel, ", ") + " FROM " + words,
		"DROP TABLE " + words,
		"ALTER TABLE " + old + " RENAME TO " + words,
	}
	for _, c := range ts.wordCols() {
		stmts = append(stmts, fmt.Sprintf("CREATE INDEX %s ON %s USING GIN (w%d)", quoteIdent(fmt.Sprintf("%s_w%d", wordsName(tableName(id)), c)), words, c))
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	ts.TaggedWords = false
	b, err := json.Marshal(ts)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE tributary_tables SET spec = $1 WHERE id = $2", string(b), id); err != nil {
		return err
	}
	return tx.Commit()
}

// InOrderRun returns the last rid of the run of rows of a copy's live
// table that its full load wrote in id order (tableSpec.InOrder).
func InOrderRun(ctx context.Context, s *Store, connector, entity string) (int64, error) {
	_, ts, err := s.live(ctx, s.r, connector, entity)
	if err != nil {
		return 0, err
	}
	return ts.InOrder, nil
}

// ExplainDue returns the query plan of ClaimDue's search for due copies
// (PostgreSQL's with sequential scans and sorts priced out, so that the
// plan shows whether the index can serve the query at all).
func ExplainDue(ctx context.Context, s *Store) (string, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	explain := "EXPLAIN QUERY PLAN "
	if s.d.name() == "postgres" {
		explain = "EXPLAIN "
		if _, err := tx.ExecContext(ctx, "SET LOCAL enable_seqscan = off"); err != nil {
			return "", err
		}
		if _, err := tx.ExecContext(ctx, "SET LOCAL enable_sort = off"); err != nil {
			return "", err
		}
	}
	rows, err := tx.QueryContext(ctx, explain+s.duePick(16), int64(1000))
	if err != nil {
		return "", err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var plan []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return "", err
		}
		plan = append(plan, fmt.Sprint(vals[len(vals)-1]))
	}
	return strings.Join(plan, "\n"), rows.Err()
}

// SetSyncedAt sets the end of a copy's last synchronization.
func SetSyncedAt(ctx context.Context, s *Store, connector, entity string, at int64) error {
	_, err := s.w.ExecContext(ctx, "UPDATE tributary_entities SET synced_at = "+s.d.ph(1)+" WHERE connector = "+s.d.ph(2)+" AND entity = "+s.d.ph(3), at, connector, entity)
	return err
}

// RegisterMany registers one copy, entity, of each connector, in one
// transaction.
func RegisterMany(ctx context.Context, s *Store, entity string, connectors []string) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, c := range connectors {
		if _, err := tx.ExecContext(ctx, "INSERT INTO tributary_entities (connector, entity) VALUES ("+placeholders(s.d, 1, 2)+")", c, entity); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// SyncedNow marks the claimed copies synchronized now and releases them,
// in one transaction: a synchronization that costs nothing.
func SyncedNow(ctx context.Context, s *Store, cs []*Claim) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, c := range cs {
		if _, err := tx.ExecContext(ctx, "UPDATE tributary_entities SET synced_at = "+s.d.now()+", lease_owner = NULL, lease_expires = NULL WHERE connector = "+s.d.ph(1)+" AND entity = "+s.d.ph(2),
			c.Connector, c.Entity); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Pool returns the store's pool of connections (its writer's).
func Pool(s *Store) *sql.DB { return s.w }

// ReadPool is the pool of s's reads (Pool's itself with PostgreSQL's
// pool_max_conns=1).
func ReadPool(s *Store) *sql.DB { return s.r }
