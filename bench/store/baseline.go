package main

// The baselines that bound the sync's figures, measured in the same run on
// the same generated records: reading the feed into nothing (the source's
// own cost), and the plainest durable copy of it (each record's raw JSON
// and id, one table keyed by id, nothing else).

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite" // the store's SQLite driver, for the plain table

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/search"
)

// phase is what one timed pass over the records cost.
type phase struct {
	records int64
	bytes   int64 // raw JSON read
	wall    time.Duration
	cpu     time.Duration // the process's, the fake server's included
	peakRSS int64         // the process's peak resident memory during the pass
	size    int64         // bytes on disk afterwards (plain persistence)
}

func (p phase) perSecond() float64 { return float64(p.records) / p.wall.Seconds() }
func (p phase) cpuPerRecord() float64 {
	return float64(p.cpu.Microseconds()) / float64(max(p.records, 1))
}

// measure times f, its CPU time and the process's peak RSS while it runs
// (the kernel's high-water mark is reset first).
func measure(f func() (records, bytes int64, err error)) (phase, error) {
	resetPeakRSS()
	start, cpu0 := time.Now(), cpuTime()
	n, b, err := f()
	return phase{records: n, bytes: b, wall: time.Since(start), cpu: cpuTime() - cpu0, peakRSS: peakRSS()}, err
}

// feedPages reads entity's change feed from the beginning, the walk a full
// sync makes (the same params: Entity.CopyParams), one page read ahead of
// the one its caller handles, as the replica reads it.
func feedPages(ctx context.Context, conn tributary.Connector, entity string) iter.Seq2[[]tributary.Record, error] {
	return func(yield func([]tributary.Record, error) bool) {
		e, ok := tributary.FindEntity(conn.Entities(), entity)
		if !ok {
			yield(nil, fmt.Errorf("no entity %s", entity))
			return
		}
		type item struct {
			recs []tributary.Record
			err  error
		}
		ch := make(chan item, 1)
		stop := make(chan struct{})
		ctx, cancel := context.WithCancel(ctx)
		go func() {
			defer close(ch)
			for c, err := range conn.(tributary.Changer).Changes(ctx, entity, e.CopyParams(nil), tributary.Checkpoint{}) {
				var it item
				if err != nil {
					it.err = err
				} else {
					it.recs = c.Records
				}
				select {
				case ch <- it:
				case <-stop:
					return
				}
				if err != nil {
					return
				}
			}
		}()
		defer func() {
			close(stop)
			cancel()
			for range ch {
			}
		}()
		for it := range ch {
			if !yield(it.recs, it.err) {
				return
			}
		}
	}
}

// readAlone walks the feed into nothing: the source's own cost (the fake
// server's work, HTTP, and the connector's parsing of the pages).
func readAlone(ctx context.Context, conn tributary.Connector) (phase, error) {
	return measure(func() (n, b int64, err error) {
		for page, err := range feedPages(ctx, conn, "tickets") {
			if err != nil {
				return n, b, err
			}
			for _, r := range page {
				b += int64(len(r.Raw()))
			}
			n += int64(len(page))
		}
		return n, b, nil
	})
}

// The store's batching, mirrored: a page is one transaction, written in
// multi-row INSERTs of equal size, at most maxRowsPerInsert rows each
// (store/write.go).
const maxRowsPerInsert = 256

// sqliteDSN opens file with the store's settings (store/sqlite.go): its
// writer's and readers' page caches, synchronous NORMAL, BEGIN IMMEDIATE
// for writers.
func sqliteDSN(file string, write bool) string {
	q := url.Values{}
	if write {
		q.Add("_pragma", "cache_size(-16384)")
	} else {
		q.Add("_pragma", "cache_size(-32768)")
	}
	q.Add("_pragma", "busy_timeout(30000)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "journal_mode(WAL)")
	if write {
		q.Add("_txlock", "immediate")
	}
	return "file:" + (&url.URL{Path: file}).EscapedPath() + "?" + q.Encode()
}

// plainKind is what a SQLite baseline writes besides each record's id and
// raw JSON.
type plainKind int

const (
	// plainOnly: the id and raw JSON, one table keyed by id, nothing else.
	plainOnly plainKind = iota
	// plainFeed: also each record as a change of a change feed (a second
	// table keyed by the change's number: the op, the id, the raw JSON and
	// the time), in the same transaction: the copy of every record that
	// the store's feed kept until schema version 9.
	plainFeed
	// plainSearchable: the table of the best single queries (the searched
	// fields as columns beside the raw JSON) and a contentless FTS5 index
	// of the subject and description, filled in the same transactions,
	// then the best queries' indexes built and the word index merged, as
	// the store does when a load commits: the least a copy that answers
	// the benchmark's four searches costs, written by hand for them alone.
	plainSearchable
)

// plainSQLite is plain persistence on SQLite: each record's id and raw
// JSON into one table keyed by id (the id its rowid), in the store's
// transactions and batches, in WAL mode; then the WAL copied into the
// file, as the store does at the end of a load. kind says what else each
// page writes (plainFeed, plainSearchable): fair baselines, work the store
// must do that plain persistence skips.
func plainSQLite(ctx context.Context, conn tributary.Connector, file string, kind plainKind) (phase, error) {
	os.Remove(file)
	db, err := sql.Open("sqlite", sqliteDSN(file, true))
	if err != nil {
		return phase{}, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var setup, finish []string
	// Each batch's statements: the table, its prefix and the values of a
	// row, then what else a row writes.
	type insert struct {
		prefix, row string
		values      func(r tributary.Record, id, seq int64, args []any) []any // seq: the record's number in the run, from 1
	}
	ins := []insert{{"INSERT INTO plain (id, raw) VALUES ", "(?,?)", func(r tributary.Record, id, _ int64, args []any) []any {
		return append(args, id, []byte(r.Raw()))
	}}}
	switch kind {
	case plainOnly:
		setup = []string{"CREATE TABLE plain (id INTEGER PRIMARY KEY, raw BLOB NOT NULL)"}
	case plainFeed:
		setup = []string{"CREATE TABLE plain (id INTEGER PRIMARY KEY, raw BLOB NOT NULL)",
			"CREATE TABLE changes (seq INTEGER PRIMARY KEY, op INTEGER NOT NULL, id TEXT NOT NULL, raw BLOB NOT NULL, at INTEGER NOT NULL)"}
		at := time.Now().UnixMilli()
		ins = append(ins, insert{"INSERT INTO changes (seq, op, id, raw, at) VALUES ", "(?,?,?,?,?)", func(r tributary.Record, id, seq int64, args []any) []any {
			return append(args, seq, 1, strconv.FormatInt(id, 10), []byte(r.Raw()), at)
		}})
	case plainSearchable:
		setup = []string{
			"CREATE TABLE plain (id INTEGER PRIMARY KEY, status TEXT, created_at TEXT, updated_at TEXT, subject TEXT, raw BLOB NOT NULL)",
			"CREATE VIRTUAL TABLE plain_fts USING fts5 (subject, description, content='')",
		}
		str := func(r tributary.Record, path string) any {
			if v, ok := r.StringAt(path); ok {
				return v
			}
			return nil
		}
		ins = []insert{
			{"INSERT INTO plain (id, status, created_at, updated_at, subject, raw) VALUES ", "(?,?,?,?,?,?)", func(r tributary.Record, id, _ int64, args []any) []any {
				return append(args, id, str(r, "status"), str(r, "created_at"), str(r, "updated_at"), str(r, "subject"), []byte(r.Raw()))
			}},
			{"INSERT INTO plain_fts (rowid, subject, description) VALUES ", "(?,?,?)", func(r tributary.Record, id, _ int64, args []any) []any {
				return append(args, id, str(r, "subject"), str(r, "description"))
			}},
		}
		finish = []string{
			"CREATE INDEX plain_status ON plain (status)",
			"CREATE INDEX plain_status_created ON plain (status, created_at, updated_at)",
			"INSERT INTO plain_fts (plain_fts) VALUES ('optimize')",
			"ANALYZE",
		}
	}
	for _, q := range setup {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return phase{}, err
		}
	}
	stmts := make([]map[int]*sql.Stmt, len(ins))
	for i := range stmts {
		stmts[i] = map[int]*sql.Stmt{}
	}
	defer func() {
		for _, m := range stmts {
			for _, s := range m {
				s.Close()
			}
		}
	}()
	ph, err := measure(func() (n, b int64, err error) {
		var args []any
		var seq int64 // the records written before the batch
		for page, err := range feedPages(ctx, conn, "tickets") {
			if err != nil {
				return n, b, err
			}
			batches := equalBatches(page)
			// Prepared once per batch size, outside the transaction: the
			// one connection is the transaction's while it runs.
			for _, batch := range batches {
				for i, in := range ins {
					if stmts[i][len(batch)] == nil {
						q := in.prefix + in.row + strings.Repeat(","+in.row, len(batch)-1)
						if stmts[i][len(batch)], err = db.PrepareContext(ctx, q); err != nil {
							return n, b, err
						}
					}
				}
			}
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				return n, b, err
			}
			for _, batch := range batches {
				ids := make([]int64, len(batch))
				for j, r := range batch {
					id, ok := r.IntAt("id")
					if !ok {
						tx.Rollback()
						return n, b, fmt.Errorf("a record without an id: %.100s", r.Raw())
					}
					ids[j] = id
					b += int64(len(r.Raw()))
				}
				for i, in := range ins {
					args = args[:0]
					for j, r := range batch {
						args = in.values(r, ids[j], seq+int64(j)+1, args)
					}
					if _, err := tx.StmtContext(ctx, stmts[i][len(batch)]).ExecContext(ctx, args...); err != nil {
						tx.Rollback()
						return n, b, err
					}
				}
				seq += int64(len(batch))
			}
			if err := tx.Commit(); err != nil {
				return n, b, err
			}
			n += int64(len(page))
		}
		for _, q := range append(finish, "PRAGMA wal_checkpoint(TRUNCATE)") {
			if _, err := db.ExecContext(ctx, q); err != nil {
				return n, b, fmt.Errorf("%s: %w", q, err)
			}
		}
		return n, b, nil
	})
	ph.size = fileSize(file) + fileSize(file+"-wal")
	return ph, err
}

// equalBatches splits a page as the store does: into the fewest batches
// of at most maxRowsPerInsert rows, of equal size.
func equalBatches[T any](page []T) [][]T {
	if len(page) == 0 {
		return nil
	}
	nb := (len(page) + maxRowsPerInsert - 1) / maxRowsPerInsert
	per := (len(page) + nb - 1) / nb
	var out [][]T
	for start := 0; start < len(page); start += per {
		out = append(out, page[start:min(start+per, len(page))])
	}
	return out
}

// plainPostgres is plain persistence on PostgreSQL: each record's id and
// raw JSON into one table keyed by id by COPY (pgx's CopyFrom), a page a
// transaction, as the store copies a full sync's rows in. kind says what
// else each page writes, as plainSQLite's: with plainFeed each record is
// also copied into a change feed's table; with plainSearchable the table
// has the best queries' columns and a word vector of the subject and
// description (a generated tsvector column, the 'simple' configuration),
// and its indexes (the status; the status, created and updated dates; a
// GIN index of the words) are built at the end, with its statistics.
func plainPostgres(ctx context.Context, conn tributary.Connector, dsn string, kind plainKind) (phase, error) {
	pc, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return phase{}, err
	}
	defer pc.Close(ctx)
	setup := "DROP TABLE IF EXISTS bench_plain; DROP TABLE IF EXISTS bench_changes; " +
		"CREATE TABLE bench_changes (seq BIGINT PRIMARY KEY, op SMALLINT NOT NULL, id TEXT NOT NULL, raw BYTEA NOT NULL, at BIGINT NOT NULL); "
	cols := []string{"id", "raw"}
	var finish []string
	if kind == plainSearchable {
		setup += "CREATE TABLE bench_plain (id BIGINT PRIMARY KEY, status TEXT, created_at TEXT, updated_at TEXT, subject TEXT, description TEXT, raw BYTEA NOT NULL, " +
			"w tsvector GENERATED ALWAYS AS (to_tsvector('simple', coalesce(subject, '') || ' ' || coalesce(description, ''))) STORED)"
		cols = []string{"id", "status", "created_at", "updated_at", "subject", "description", "raw"}
		finish = []string{
			"CREATE INDEX bench_plain_status ON bench_plain (status)",
			"CREATE INDEX bench_plain_status_created ON bench_plain (status, created_at, updated_at)",
			"CREATE INDEX bench_plain_w ON bench_plain USING GIN (w)",
			"ANALYZE bench_plain",
		}
	} else {
		setup += "CREATE TABLE bench_plain (id BIGINT PRIMARY KEY, raw BYTEA NOT NULL)"
	}
	if _, err := pc.Exec(ctx, setup); err != nil {
		return phase{}, err
	}
	str := func(r tributary.Record, path string) any {
		if v, ok := r.StringAt(path); ok {
			return v
		}
		return nil
	}
	ph, err := measure(func() (n, b int64, err error) {
		var seq int64
		for page, err := range feedPages(ctx, conn, "tickets") {
			if err != nil {
				return n, b, err
			}
			rows := make([][]any, len(page))
			for i, r := range page {
				id, ok := r.IntAt("id")
				if !ok {
					return n, b, fmt.Errorf("a record without an id: %.100s", r.Raw())
				}
				if kind == plainSearchable {
					rows[i] = []any{id, str(r, "status"), str(r, "created_at"), str(r, "updated_at"), str(r, "subject"), str(r, "description"), []byte(r.Raw())}
				} else {
					rows[i] = []any{id, []byte(r.Raw())}
				}
				b += int64(len(r.Raw()))
			}
			tx, err := pc.Begin(ctx)
			if err != nil {
				return n, b, err
			}
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{"bench_plain"}, cols, pgx.CopyFromRows(rows)); err != nil {
				tx.Rollback(ctx)
				return n, b, err
			}
			if kind == plainFeed {
				at := time.Now().UnixMilli()
				changes := make([][]any, len(page))
				for i, row := range rows {
					seq++
					changes[i] = []any{seq, int16(1), strconv.FormatInt(row[0].(int64), 10), row[1], at}
				}
				if _, err := tx.CopyFrom(ctx, pgx.Identifier{"bench_changes"}, []string{"seq", "op", "id", "raw", "at"}, pgx.CopyFromRows(changes)); err != nil {
					tx.Rollback(ctx)
					return n, b, err
				}
			}
			if err := tx.Commit(ctx); err != nil {
				return n, b, err
			}
			n += int64(len(page))
		}
		for _, q := range finish {
			if _, err := pc.Exec(ctx, q); err != nil {
				return n, b, fmt.Errorf("%s: %w", q, err)
			}
		}
		return n, b, nil
	})
	if err == nil {
		err = pc.QueryRow(ctx, "SELECT pg_total_relation_size('bench_plain') + pg_total_relation_size('bench_changes')").Scan(&ph.size)
	}
	return ph, err
}

func fileSize(name string) int64 {
	fi, err := os.Stat(name)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// resetPeakRSS resets the kernel's high-water mark of this process's
// resident memory (VmHWM), so that peakRSS reports the peak from here on.
func resetPeakRSS() { os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// readExtract is reading alone plus the store's extraction of every
// record's search fields: order keys, date-times and words, tokenized (the
// work of Load.Prepare, without the database). Against reading alone, it
// is the part of the sync's cost that plain persistence skips and that no
// searchable copy can.
func readExtract(ctx context.Context, conn tributary.Connector) (phase, error) {
	e, _ := tributary.FindEntity(conn.Entities(), "tickets")
	x, err := search.NewExtractor(tributary.SearchSchema(e), "id")
	if err != nil {
		return phase{}, err
	}
	var ex search.Extracted
	return measure(func() (n, b int64, err error) {
		for page, err := range feedPages(ctx, conn, "tickets") {
			if err != nil {
				return n, b, err
			}
			for _, r := range page {
				if err := x.Extract(r.Raw(), &ex); err != nil {
					return n, b, err
				}
				b += int64(len(r.Raw()))
			}
			n += int64(len(page))
		}
		return n, b, nil
	})
}
