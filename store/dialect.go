package store

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
)

// dialect is what differs between the SQL engines a Store runs on. The
// schema, the write path, the filter compiler and the queries are written
// once, in store.go, write.go, compile.go and query.go, against it.
type dialect interface {
	// name is "sqlite" or "postgres".
	name() string
	// ph returns the n-th (1-based) bind placeholder.
	ph(n int) string
	// blob is the type of byte-string columns (compared with memcmp, then
	// length, as order keys need); serial the type of an auto-increment
	// integer primary key.
	blob() string
	serial() string
	// ridKey is the type of a column that holds another table's rid as
	// its primary key (SQLite's INTEGER PRIMARY KEY is the row's rowid: no
	// index of its own, and rows appended in rid order fill pages in turn).
	ridKey() string
	// now is the database server's clock, in Unix milliseconds.
	now() string
	// skipLocked ends a SELECT that picks a row to update, skipping the
	// rows other transactions have locked ("" where writers take turns).
	skipLocked() string
	// streams reports whether a transaction can run a query while the rows
	// of another are still being read.
	streams() bool
	// backgroundCheckpoints reports whether the database keeps a
	// write-ahead log that a reader's connection can copy into the
	// database file while the writer goes on (Store.checkpointSoon).
	backgroundCheckpoints() bool
	// forUpdate ends a SELECT whose rows the transaction goes on to
	// update, locking them ("" where the write transaction is exclusive).
	forUpdate() string
	// withoutRowid ends a CREATE TABLE whose primary key is the table.
	withoutRowid() string
	// distinct is a null-safe "a differs from b".
	distinct(a, b string) string
	// initLock is a statement that makes the write transactions that
	// create or upgrade the store's tables take turns ("" where the write
	// transaction is exclusive).
	initLock() string
	// claimLock is a statement that makes the transactions that take or
	// renew a copy's claim take turns, so that each sees the claims the
	// others committed ("" where the write transaction is exclusive).
	claimLock() string
	// setup prepares a new connection pool (pragmas, extensions).
	setup(ctx context.Context, db *sql.DB) error

	// createWords creates the word index of a records table over its
	// string fields (cols: the fields' column numbers); createIndexes the
	// word index's secondary structures once the table is loaded.
	createWords(ctx context.Context, tx *sql.Tx, table string, cols []int) error
	// wordIndexes returns the statements that finish a loaded table's
	// word index (its secondary indexes, or merges), run in order unless
	// indexWorkers says they may run at once.
	wordIndexes(table string, cols []int) []string
	// indexWorkers is how many of a loaded table's index builds may run
	// at once, each in a transaction of its own on a connection of its
	// own (1: one after the other, in one transaction).
	indexWorkers() int
	// writeWords returns the statement that stores the words of the given
	// rows (rid, then a space-separated word list per column of cols; ""
	// for none; or, tagged, one list of the words of all, tagged: see
	// tableSpec.TaggedWords), and its values. replace says some rows may
	// have words already, which the statement replaces; without it, none
	// has.
	writeWords(table string, cols []int, rows []wordRow, replace, tagged bool) (string, []any)
	// wordsMatch returns a condition on the records table (alias r) that
	// holds for every record whose column col has, for every group, at
	// least one of the group's words (and maybe for others); ok is false
	// when the word index cannot say (every record is a candidate).
	// tagged is the table's tableSpec.TaggedWords.
	wordsMatch(table string, col int, groups [][]string, tagged bool, args *[]any) (cond string, ok bool)
	// dropWords drops the word index of a table.
	dropWords(ctx context.Context, tx *sql.Tx, table string) error

	// analyze returns the statements that gather the planner's
	// statistics of a loaded table, its keys' then (words) its words',
	// run in order, after the table's indexes where words is false.
	analyze(table string, words bool) (keys, wordStats []string)
	// afterLoad tidies up once a copy is live (SQLite: the write-ahead log
	// folded into the file).
	afterLoad(ctx context.Context, db *sql.DB) error

	// readTx starts a transaction that sees one snapshot of the database.
	readTx(ctx context.Context, db *sql.DB) (*sql.Tx, error)
	// writeTx starts a transaction that writes.
	writeTx(ctx context.Context, db *sql.DB) (*sql.Tx, error)
	// indexMemory sets the memory the writer's connection caches pages in:
	// small while a loaded table's indexes are built (SQLite's sorter takes
	// as much again), the loading size otherwise.
	indexMemory(ctx context.Context, q querier, building bool) error
	// stagingTx prepares tx, which writes a page into the unfinished table
	// of a full load, for the database's lightest durable commit: the
	// table is dropped by the next load after a crash, and the commit
	// that makes it live is a durable one, which makes every page before
	// it durable too.
	stagingTx(ctx context.Context, tx *sql.Tx) error
	// wrap turns an engine error into one that says what went wrong.
	wrap(op string, err error) error
}

// wordRow is the words of one record: its rid and, per word column, the
// words joined by spaces.
type wordRow struct {
	rid   int64
	words []string
}

// querier is a *sql.DB or a *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// placeholders returns n placeholders from first, comma-separated.
func placeholders(d dialect, first, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(d.ph(first + i))
	}
	return b.String()
}

// quoteIdent quotes an identifier the store made itself (table and column
// names come from numbers, never from callers or the catalogue's text).
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func tableName(id int64) string { return "tributary_t" + strconv.FormatInt(id, 10) }

func keyCol(i int) string  { return "k" + strconv.Itoa(i) }
func timeCol(i int) string { return "t" + strconv.Itoa(i) }
