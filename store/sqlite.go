package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// OpenSQLite opens (creating it if needed) the SQLite store in the file at
// path: one file that can be copied, backed up and opened again. It runs
// in WAL mode with one writer and concurrent readers. A file written by a
// newer version of this library, or that is not a store, is refused with
// an error that says so; nothing is changed in it.
func OpenSQLite(ctx context.Context, path string) (*Store, error) {
	return openSQLite(ctx, path, true)
}

// OpenSQLiteExisting opens the store in the file at path as OpenSQLite
// does, but never makes one: a file that does not exist is refused
// (ErrInvalid), and so is a file that holds no store, an empty one
// included (ErrVersion); neither is created or written. Commands that
// only read or tidy a store open it so, lest a mistyped path become a new
// store.
func OpenSQLiteExisting(ctx context.Context, path string) (*Store, error) {
	return openSQLite(ctx, path, false)
}

// openSQLite opens the store at path; create says a missing file, or one
// without tables, becomes a new store.
func openSQLite(ctx context.Context, path string, create bool) (*Store, error) {
	if path == "" {
		return nil, &Error{Op: "open", Err: ErrInvalid, Message: "no file name"}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &Error{Op: "open", Err: ErrInvalid, Message: err.Error()}
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return nil, &Error{Op: "open", Err: ErrInvalid, Message: abs + " is a directory"}
	}
	if fi, err := os.Stat(filepath.Dir(abs)); errors.Is(err, os.ErrNotExist) || err == nil && !fi.IsDir() {
		// SQLite would say it cannot open the file, which reads as a
		// permission problem.
		return nil, &Error{Op: "open", Err: ErrInvalid, Message: abs + ": the directory " + filepath.Dir(abs) + " does not exist"}
	}
	if _, err := os.Stat(abs); !create && errors.Is(err, os.ErrNotExist) {
		return nil, &Error{Op: "open", Err: ErrInvalid, Message: abs + ": no such file", Cause: err}
	}
	dsn := func(lock string, cacheKiB int) string {
		q := url.Values{}
		q.Add("_pragma", "cache_size(-"+strconv.Itoa(cacheKiB)+")")
		q.Add("_pragma", "busy_timeout(30000)")
		q.Add("_pragma", "synchronous(NORMAL)")
		q.Add("_pragma", "foreign_keys(1)")
		// What is deleted is overwritten with zeros (a deleted connector's
		// sealed credentials, a dropped copy's records): see Checkpoint.
		q.Add("_pragma", "secure_delete(1)")
		q.Add("_txlock", lock)
		if !create {
			q.Add("mode", "rw") // SQLite creates no file
		}
		return "file:" + (&url.URL{Path: abs}).EscapedPath() + "?" + q.Encode()
	}
	w, err := sql.Open("sqlite", dsn("immediate", writerCacheKiB))
	if err != nil {
		return nil, &Error{Op: "open", Err: ErrInvalid, Message: err.Error(), Cause: err}
	}
	w.SetMaxOpenConns(1) // one writer
	r, err := sql.Open("sqlite", dsn("deferred", readerCacheKiB))
	if err != nil {
		w.Close()
		return nil, &Error{Op: "open", Err: ErrInvalid, Message: err.Error(), Cause: err}
	}
	r.SetMaxOpenConns(8)
	d := sqliteDialect{file: abs}
	s, err := newStore(ctx, d, w, r, abs, create)
	if err != nil {
		w.Close()
		r.Close()
		return nil, d.wrap("open", err) // names the file
	}
	// WAL mode, which the file keeps, is set once the file is known to be
	// a store (a new one was just made): setting it on every connection
	// would convert another application's database before init refuses
	// it. On a store already in WAL mode it writes nothing.
	// Switching a file in rollback mode to WAL takes its exclusive lock,
	// and SQLite answers busy at once, without waiting, while another
	// process opening it at the same moment reads it: try again for up to
	// the busy timeout.
	for deadline := time.Now().Add(30 * time.Second); ; {
		_, err := w.ExecContext(ctx, "PRAGMA journal_mode = WAL")
		if err == nil {
			break
		}
		if err := d.wrap("open", err); !errors.Is(err, ErrBusy) || time.Now().After(deadline) || ctx.Err() != nil {
			s.Close()
			return nil, err
		}
		time.Sleep(20 * time.Millisecond)
	}
	return s, nil
}

// sqliteDialect is SQLite's; file is the store's, which its errors name.
type sqliteDialect struct{ file string }

func (sqliteDialect) name() string                { return "sqlite" }
func (sqliteDialect) ph(int) string               { return "?" }
func (sqliteDialect) now() string                 { return "CAST(unixepoch('subsec') * 1000 AS INTEGER)" }
func (sqliteDialect) skipLocked() string          { return "" } // one writer at a time
func (sqliteDialect) forUpdate() string           { return "" }
func (sqliteDialect) initLock() string            { return "" } // BEGIN IMMEDIATE
func (sqliteDialect) claimLock() string           { return "" } // one writer at a time
func (sqliteDialect) streams() bool               { return true }
func (sqliteDialect) backgroundCheckpoints() bool { return true }
func (sqliteDialect) withoutRowid() string        { return " WITHOUT ROWID" }
func (sqliteDialect) blob() string                { return "BLOB" }
func (sqliteDialect) serial() string              { return "INTEGER PRIMARY KEY" }
func (sqliteDialect) ridKey() string              { return "INTEGER PRIMARY KEY" }
func (sqliteDialect) distinct(a, b string) string { return a + " IS NOT " + b }

func (sqliteDialect) setup(ctx context.Context, db *sql.DB) error { return nil }

func ftsName(table string) string { return table + "_fts" }

// The word index is an FTS5 table without content, keyed by the records'
// rid. It has one column, w, whose text is the words the search package
// found in every word field, lowercased, each after its field's tag
// (wordTag), separated by spaces (so both sides of a match are tokenized
// alike), and it keeps no column or position lists (detail=none): a
// record binds one text rather than one a field, and the index is smaller
// to write and to merge. Its tokenizer is FTS5's "ascii": a token is a run
// of ASCII letters and digits and of any non-ASCII bytes, which splits
// that text at its spaces and nowhere else, for half the CPU time of
// "unicode61". A match is a superset, which the Evaluator narrows.
//
// Tables written before (tableSpec.TaggedWords false) have a column per
// word field (detail=column, unicode61 with the search package's word
// characters: the same tokens), which a match names.
func (sqliteDialect) createWords(ctx context.Context, tx *sql.Tx, table string, cols []int) error {
	if len(cols) == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("CREATE VIRTUAL TABLE %s USING fts5(w, content='', contentless_delete=1, detail=none, tokenize=\"ascii\")", quoteIdent(ftsName(table)))); err != nil {
		return err
	}
	// While the table is loaded, no merges: each page's words become a
	// segment of the index, and Commit merges them all into one
	// (wordIndexes), reading each word's list once. Merging four at a
	// time as they came (FTS5's default) took 15% of a load's CPU time;
	// merging 16 at a time when they piled up (crisismerge 16), the
	// second-best, read every list two or three times at 1M records. At
	// 1999 (FTS5's most) segments still merge then.
	t := quoteIdent(ftsName(table))
	if _, err := tx.ExecContext(ctx, "INSERT INTO "+t+"("+t+", rank) VALUES('crisismerge', 1999)"); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "INSERT INTO "+t+"("+t+", rank) VALUES('automerge', 0)")
	return err
}

// wordIndexes merges a loaded table's word index into one segment, the
// fastest to search, and sets the merges back to FTS5's default for the
// updates that follow.
func (sqliteDialect) wordIndexes(table string, cols []int) []string {
	if len(cols) == 0 {
		return nil
	}
	t := quoteIdent(ftsName(table))
	return []string{
		"INSERT INTO " + t + "(" + t + ") VALUES('optimize')",
		"INSERT INTO " + t + "(" + t + ", rank) VALUES('automerge', 4)",
		"INSERT INTO " + t + "(" + t + ", rank) VALUES('crisismerge', 16)",
	}
}

func (sqliteDialect) indexWorkers() int { return 1 } // one writer

func (sqliteDialect) writeWords(table string, cols []int, rows []wordRow, replace, tagged bool) (string, []any) {
	var b strings.Builder
	verb := "INSERT"
	if replace {
		verb = "INSERT OR REPLACE"
	}
	fmt.Fprintf(&b, "%s INTO %s(rowid", verb, quoteIdent(ftsName(table)))
	n := len(cols) // texts a row
	if tagged {
		n = 1
		b.WriteString(", w")
	} else {
		for _, c := range cols {
			fmt.Fprintf(&b, ", w%d", c)
		}
	}
	b.WriteString(") VALUES ")
	row := "(?" + strings.Repeat(",?", n) + ")"
	args := make([]any, 0, len(rows)*(n+1))
	for i, r := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(row)
		args = append(args, r.rid)
		for _, w := range r.words {
			args = append(args, w)
		}
	}
	return b.String(), args
}

// matchWords adds to args the MATCH text of the query q on column col (its
// words are tagged in a tagged index; another names the column) and
// returns the condition that holds for the records it matches.
func matchWords(table string, col int, q string, tagged bool, args *[]any) string {
	if !tagged {
		q = fmt.Sprintf("{w%d} : (%s)", col, q)
	}
	*args = append(*args, q)
	return fmt.Sprintf("r.rid IN (SELECT rowid FROM %s WHERE %s MATCH ?)", quoteIdent(ftsName(table)), quoteIdent(ftsName(table)))
}

func (sqliteDialect) wordsMatch(table string, col int, groups [][]string, tagged bool, args *[]any) (string, bool) {
	var q strings.Builder
	n := 0
	for _, g := range groups {
		// A table written before tokenizes a word as the search package
		// does when its letters are ASCII; another may split into a
		// phrase, which its index (detail=column) cannot match: a group
		// with such a word constrains nothing (in a tagged index either,
		// whose match is then only less narrow).
		if slices.ContainsFunc(g, func(w string) bool { return !isASCII(w) }) {
			continue
		}
		if n > 0 {
			q.WriteString(" AND ")
		}
		n++
		orGroup(&q, g, col, tagged)
	}
	if n == 0 {
		return "", false
	}
	return matchWords(table, col, q.String(), tagged, args), true
}

// patternsMatch: one FTS5 query, ((a OR b) AND (c) NOT (d)) OR (…); NOT
// is FTS5's binary "and not".
func (sqliteDialect) patternsMatch(table string, col int, pats []wordPattern, tagged bool, args *[]any) string {
	var q strings.Builder
	for i, p := range pats {
		if i > 0 {
			q.WriteString(" OR ")
		}
		q.WriteString("((")
		for j, g := range p.all {
			if j > 0 {
				q.WriteString(" AND ")
			}
			orGroup(&q, g, col, tagged)
		}
		q.WriteByte(')')
		for _, g := range p.none {
			q.WriteString(" NOT ")
			orGroup(&q, g, col, tagged)
		}
		q.WriteByte(')')
	}
	return matchWords(table, col, q.String(), tagged, args)
}

// orGroup writes the FTS5 group (“a” OR “b” …) of words g, of column col
// (tagged with it in a tagged index).
func orGroup(b *strings.Builder, g []string, col int, tagged bool) {
	tag := ""
	if tagged {
		tag = wordTag(col)
	}
	b.WriteByte('(')
	for j, w := range g {
		if j > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString(`"` + tag + w + `"`)
	}
	b.WriteByte(')')
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func (sqliteDialect) dropWords(ctx context.Context, tx *sql.Tx, table string) error {
	_, err := tx.ExecContext(ctx, "DROP TABLE IF EXISTS "+quoteIdent(ftsName(table)))
	return err
}

func (sqliteDialect) analyze(table string, words bool) (keys, wordStats []string) {
	return []string{"PRAGMA analysis_limit = 1000", "ANALYZE " + quoteIdent(table)}, nil
}

func (sqliteDialect) afterLoad(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	return err
}

func (sqliteDialect) readTx(ctx context.Context, db *sql.DB) (*sql.Tx, error) {
	return db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
}

// readerCacheKiB is the page cache of each reader. A search at 1M records
// can visit thousands of pages of the records table (a date range of 26,000
// records: 3,300 pages, 13 MiB): with a cache smaller than that, every
// search read each page again with a system call, a quarter of its time.
const readerCacheKiB = 32 << 10

// The writer's page cache while it loads, and while it builds a loaded
// table's indexes: SQLite's sorter holds up to the cache's size of keys
// in memory besides the cache (and, with worker threads, one such buffer
// per thread), which took a 1M-record load's peak RSS from 185 MiB to 335
// MiB with a 64 MiB cache. A 64 MiB cache while loading cost no less CPU
// than 32 MiB, and 50-60 MiB more memory at its peak. The index builds
// took the same time with 4, 8 and 16 MiB. A 16 MiB cache while loading
// took a 1M-record sync's peak RSS from 215 MiB to 187 MiB (bench/store,
// under the 200 MiB target), for the same CPU time per record against
// plain persistence in the same run (3.5× rather than 3.8×, within the
// noise of a shared machine).
const (
	writerCacheKiB = 16 << 10
	indexCacheKiB  = 8 << 10
)

// indexMemory sets the writer's cache for loading or for building indexes;
// the builds also sort with up to sortThreads worker threads (the six
// index builds of a 1M-record load took 3.7 s with two, on two cores,
// rather than 5.7 s with none, when nothing else runs).
func (sqliteDialect) indexMemory(ctx context.Context, q querier, building bool) error {
	kib, threads := writerCacheKiB, 0
	if building {
		kib, threads = indexCacheKiB, sortThreads()
	}
	_, err := q.ExecContext(ctx, "PRAGMA cache_size = -"+strconv.Itoa(kib)+"; PRAGMA threads = "+strconv.Itoa(threads))
	return err
}

// sortThreads is how many worker threads SQLite's sorter may use for an
// index build: one per processor Go may use, up to four.
func sortThreads() int { return min(runtime.GOMAXPROCS(0), 4) }

// stagingTx does nothing: SQLite's commits in WAL mode with synchronous
// NORMAL wait for no fsync already.
func (sqliteDialect) stagingTx(context.Context, *sql.Tx) error { return nil }

func (sqliteDialect) writeTx(ctx context.Context, db *sql.DB) (*sql.Tx, error) {
	return db.BeginTx(ctx, nil)
}

// wrap names the SQLite failures a user can act on: a file that is not a
// database or is damaged, a full disk, a read-only file or directory. Its
// messages, and those of the store's own errors that pass through it,
// name the file.
func (d sqliteDialect) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var se *Error
	if errors.As(err, &se) {
		if d.file != "" && !strings.Contains(se.Message, d.file) {
			se.Message = d.file + ": " + se.Message
		}
		return err
	}
	e := d.classify(op, err)
	if d.file != "" {
		e.Message = d.file + ": " + e.Message
	}
	return e
}

// isUniqueViolation reports whether err is SQLite's refusal of a
// statement that would repeat a unique key (the statement changed
// nothing).
func isUniqueViolation(err error) bool {
	var le *sqlite.Error
	return errors.As(err, &le) && le.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE
}

func (sqliteDialect) classify(op string, err error) *Error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &Error{Op: op, Err: err, Message: "cancelled", Cause: err}
	}
	var le *sqlite.Error
	if errors.As(err, &le) {
		switch le.Code() & 0xff {
		case sqlite3.SQLITE_NOTADB:
			return &Error{Op: op, Err: ErrCorrupt, Message: "the file is not a SQLite database (or is encrypted)", Cause: err}
		case sqlite3.SQLITE_CORRUPT:
			return &Error{Op: op, Err: ErrCorrupt, Message: "the database file is damaged: " + le.Error(), Cause: err}
		case sqlite3.SQLITE_FULL:
			return &Error{Op: op, Err: ErrFull, Message: "the disk is full; the previous copy is intact", Cause: err}
		case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM:
			if le.Code() == sqlite3.SQLITE_READONLY_DIRECTORY {
				return &Error{Op: op, Err: ErrReadOnly, Message: "the file's directory is read-only, and SQLite must create the store's -wal and -shm files beside it, even to read (" + le.Error() + ")", Cause: err}
			}
			return &Error{Op: op, Err: ErrReadOnly, Message: "cannot write the database file or its directory (" + le.Error() + ")", Cause: err}
		case sqlite3.SQLITE_IOERR:
			switch le.Code() {
			case sqlite3.SQLITE_IOERR_WRITE, sqlite3.SQLITE_IOERR_FSYNC, sqlite3.SQLITE_IOERR_DIR_FSYNC, sqlite3.SQLITE_IOERR_TRUNCATE, sqlite3.SQLITE_IOERR_SHMSIZE:
				// EFBIG (a file size limit), EIO, or a disk that is full
				// in a way SQLite does not recognise.
				return &Error{Op: op, Err: ErrIO, Message: "input/output error writing the database file (the disk may be full or failing, or the file at its size limit): " + le.Error(), Cause: err}
			case sqlite3.SQLITE_IOERR_READ, sqlite3.SQLITE_IOERR_SHORT_READ:
				return &Error{Op: op, Err: ErrIO, Message: "input/output error reading the database file (the disk may be failing): " + le.Error(), Cause: err}
			}
			return &Error{Op: op, Err: ErrIO, Message: "input/output error on the database file: " + le.Error(), Cause: err}
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return &Error{Op: op, Err: ErrBusy, Message: "the database is busy (another process holds its write lock): " + le.Error(), Cause: err}
		}
		return &Error{Op: op, Err: ErrDatabase, Message: "SQLite " + strconv.Itoa(le.Code()) + ": " + le.Error(), Cause: err}
	}
	return &Error{Op: op, Err: ErrDatabase, Message: err.Error(), Cause: err}
}
