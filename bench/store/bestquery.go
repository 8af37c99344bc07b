package main

// The best single query: for each search the benchmark times, the SQL a
// person would write by hand for that one search, with the ideal index,
// over the same records in a table made for it (the plain table's file,
// beside the store's, on the same file system), read with the store's
// reader settings.

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/tributary-dev/tributary/search"
)

// handQuery runs one search by hand and returns its hits.
type handQuery struct {
	sql string // what it runs, for the page
	run func(ctx context.Context, db *sql.DB) (int, error)
	// apart: measured apart, to show work the search must do or the
	// baseline's index spares it; never the baseline.
	apart bool
}

// buildHand makes, in the plain table's file, the table a person would
// make for these searches: the searched fields as columns, the raw JSON
// beside them, an index for each search, and an FTS5 index of the
// subject. Not timed.
func buildHand(ctx context.Context, file string) error {
	db, err := sql.Open("sqlite", sqliteDSN(file, true))
	if err != nil {
		return err
	}
	defer db.Close()
	for _, q := range []string{
		"DROP TABLE IF EXISTS hand",
		"DROP TABLE IF EXISTS hand_fts",
		"DROP TABLE IF EXISTS hand_vocab",
		"DROP TABLE IF EXISTS hand_words",
		`CREATE TABLE hand (id INTEGER PRIMARY KEY, status TEXT, created_at TEXT, updated_at TEXT, subject TEXT, raw BLOB NOT NULL)`,
		`INSERT INTO hand SELECT id, raw->>'status', raw->>'created_at', raw->>'updated_at', raw->>'subject', raw FROM plain ORDER BY id`,
		// eq: the rows of a status are in id order in its index.
		"CREATE INDEX hand_status ON hand (status)",
		// date range + in: the composite index, the statuses then the
		// range, covering the sort key; and the other order, walked
		// newest first.
		"CREATE INDEX hand_status_created ON hand (status, created_at, updated_at)",
		"CREATE INDEX hand_status_updated ON hand (status, updated_at, created_at)",
		// Measured apart: an index of the date alone, as the store has.
		"CREATE INDEX hand_created ON hand (created_at)",
		// keyword and fuzzy: FTS5 over the subject, rowid the id.
		"CREATE VIRTUAL TABLE hand_fts USING fts5 (subject, content='hand', content_rowid='id')",
		"INSERT INTO hand_fts (hand_fts) VALUES ('rebuild')",
		"INSERT INTO hand_fts (hand_fts) VALUES ('optimize')",
		// fuzzy's vocabulary: the index's distinct words, in a table of
		// their own (FTS5's fts5vocab reads every word's list to count it).
		"CREATE VIRTUAL TABLE hand_vocab USING fts5vocab (hand_fts, row)",
		"CREATE TABLE hand_words (word TEXT PRIMARY KEY) WITHOUT ROWID",
		"INSERT INTO hand_words SELECT term FROM hand_vocab",
		"ANALYZE",
		"PRAGMA wal_checkpoint(TRUNCATE)",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// rows reads a query's (id, raw) rows as a search reads its hits.
func rows(ctx context.Context, db *sql.DB, q string, args ...any) (int, error) {
	rs, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	defer rs.Close()
	n := 0
	for rs.Next() {
		var id int64
		var raw []byte
		if err := rs.Scan(&id, &raw); err != nil {
			return n, err
		}
		n++
	}
	return n, rs.Err()
}

// The searches' hand-written counterparts. Each asks for 51 rows: the
// store reads one past the page's 50 to know whether a next page exists.
func handQueries() map[string][]handQuery {
	simple := func(q string, args ...any) handQuery {
		return handQuery{sql: q, run: func(ctx context.Context, db *sql.DB) (int, error) { return rows(ctx, db, q, args...) }}
	}
	return map[string][]handQuery{
		"eq": {simple("SELECT id, raw FROM hand WHERE status = 'open' ORDER BY id LIMIT 51")},
		// The two plans a person would try: the range in the composite
		// index (then sort the matches), or the sort's order walked and
		// filtered. The faster is the baseline.
		"range": {
			simple(rangeByHand("hand_status_created")),
			simple(rangeByHand("hand_status_updated")),
			// Apart: the date's index alone, as the store's copy has (one
			// index a field, none on the status): the range's rows read
			// for their status and update time.
			{sql: rangeByHand("hand_created"), run: simple(rangeByHand("hand_created")).run, apart: true},
		},
		// One word scores 1 in every match: the order is the id's, FTS5's.
		"keyword": {simple("SELECT h.id, h.raw FROM hand_fts f JOIN hand h ON h.id = f.rowid WHERE hand_fts MATCH 'printer' ORDER BY f.rowid LIMIT 51")},
		"fuzzy": {
			{sql: "the vocabulary (a table of the index's words) scanned for each query word's words within its edits, then per score level, best first, until 51 rows: `SELECT h.id, h.raw FROM hand_fts f JOIN hand h ON h.id = f.rowid WHERE hand_fts MATCH '(w1 OR w1′ …) AND (w2 OR …)' ORDER BY f.rowid LIMIT 51`",
				run: func(ctx context.Context, db *sql.DB) (int, error) { return fuzzyByHand(ctx, db, "pasword reset", true) }},
			{sql: "the same, the vocabulary's words looked up before the clock starts: the FTS5 statements alone",
				run: func(ctx context.Context, db *sql.DB) (int, error) {
					return fuzzyByHand(ctx, db, "pasword reset", false)
				}, apart: true},
		},
	}
}

// rangeByHand is the date range + in, sorted, through index: the page
// found in the index alone (it covers the filter and the sort), the raw
// JSON read for its rows only.
func rangeByHand(index string) string {
	return "SELECT h.id, h.raw FROM (SELECT id, updated_at FROM hand INDEXED BY " + index +
		" WHERE status IN ('open', 'pending') AND created_at >= '2024-01-01T00:00:00Z' AND created_at < '2024-07-01T00:00:00Z'" +
		" ORDER BY updated_at DESC, id LIMIT 51) p JOIN hand h ON h.id = p.id ORDER BY p.updated_at DESC, p.id"
}

// fuzzyCache holds the fuzzy expansion when it is not timed.
var fuzzyCache = map[string][][]near{}

type near struct {
	word string
	d    int
}

// fuzzyByHand answers fuzzy as a person would with FTS5, which has no
// edit-distance match: find each query word's words within its edits in
// the index's vocabulary, then read the score levels (one distance per
// query word; score the mean of 1/(1+d)) best first, one MATCH each, until
// 51 rows. expand says the vocabulary scan is timed (else cached).
func fuzzyByHand(ctx context.Context, db *sql.DB, q string, expand bool) (int, error) {
	words := search.Words(q)
	nears, ok := fuzzyCache[q]
	if expand || !ok {
		nears = make([][]near, len(words))
		rs, err := db.QueryContext(ctx, "SELECT word FROM hand_words")
		if err != nil {
			return 0, err
		}
		for rs.Next() {
			var t string
			if err := rs.Scan(&t); err != nil {
				rs.Close()
				return 0, err
			}
			for i, w := range words {
				if k := search.MaxEdits(w); search.WithinEdits(w, t, k) {
					nears[i] = append(nears[i], near{t, search.EditDistance(w, t, k)})
				}
			}
		}
		rs.Close()
		if err := rs.Err(); err != nil {
			return 0, err
		}
		fuzzyCache[q] = nears
	}
	// The levels: every choice of a distance per word, best score first.
	type level struct {
		ds    []int
		score float64
	}
	levels := []level{{}}
	for i, w := range words {
		var next []level
		for _, l := range levels {
			for d := 0; d <= search.MaxEdits(w); d++ {
				if !slices.ContainsFunc(nears[i], func(n near) bool { return n.d == d }) {
					continue
				}
				next = append(next, level{append(slices.Clone(l.ds), d), l.score + 1/float64(1+d)})
			}
		}
		levels = next
	}
	slices.SortStableFunc(levels, func(a, b level) int { return int(1e6*b.score) - int(1e6*a.score) })
	got := 0
	for _, l := range levels {
		var m strings.Builder
		for i, d := range l.ds {
			if i > 0 {
				m.WriteString(" AND ")
			}
			m.WriteByte('(')
			first := true
			for _, n := range nears[i] {
				if n.d == d {
					if !first {
						m.WriteString(" OR ")
					}
					first = false
					m.WriteString(`"` + n.word + `"`)
				}
			}
			m.WriteByte(')')
		}
		// A record at a better level also matches this one's words only
		// if it has words at both distances: rare, and counted again here
		// (a person's query would not exclude it either).
		n, err := rows(ctx, db, "SELECT h.id, h.raw FROM hand_fts f JOIN hand h ON h.id = f.rowid WHERE hand_fts MATCH ? ORDER BY f.rowid LIMIT ?", m.String(), 51-got)
		if err != nil {
			return got, err
		}
		if got += n; got >= 51 {
			break
		}
	}
	return got, nil
}
