package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// OpenPostgres opens the store in the PostgreSQL database at dsn
// (postgres://user:password@host:port/db?sslmode=...), creating its tables
// in the connection's current schema on first use. Any number of
// processes may share it. The store holds up to 16 connections, a quarter
// of them (at least two) for reads; pool_max_conns in dsn (the parameter
// pgxpool reads) sets another number, which processes sharing one server
// divide between them (docs/scale.md). The password never appears in
// errors or in String.
func OpenPostgres(ctx context.Context, dsn string) (*Store, error) {
	return openPostgres(ctx, dsn, true)
}

// OpenPostgresExisting opens the store in the PostgreSQL database at dsn as
// OpenPostgres does, but creates no tables: a schema without the store's
// is refused (ErrVersion) and left as it was.
func OpenPostgresExisting(ctx context.Context, dsn string) (*Store, error) {
	return openPostgres(ctx, dsn, false)
}

// openPostgres opens the store at dsn; create says a schema without
// tables gets the store's.
func openPostgres(ctx context.Context, dsn string, create bool) (*Store, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		// pgx's message can quote the DSN, password included.
		return nil, &Error{Op: "open", Err: ErrInvalid, Message: "the PostgreSQL connection string cannot be parsed"}
	}
	conns, err := poolSize(cfg)
	if err != nil {
		return nil, err
	}
	desc := fmt.Sprintf("postgres://%s@%s/%s", cfg.User, net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))), cfg.Database)
	// Two pools, writes (the syncs' transactions, the claims, the outbox)
	// and reads (searches, the console, the API's reads): a read waits
	// for another read, never for a sync's transaction. With a pool sized
	// to a busy server (a few connections a process), the console's list
	// took p95 678 ms in one pool, waiting for the syncs' connections.
	// A quarter of the connections read, at least two from three on (a
	// sync's count of a large copy is a read too: with one, the console's
	// list waited for them, p95 121 ms at 10,000 connectors against 56 ms
	// with two); one connection is one pool.
	var w, r *sql.DB
	if conns == 1 {
		w = pool(cfg, 1)
		r = w
	} else {
		reads := max(min(2, conns-1), conns/4)
		w, r = pool(cfg, conns-reads), pool(cfg, reads)
	}
	closeAll := func() {
		w.Close()
		r.Close()
	}
	d := postgresDialect{}
	if err := w.PingContext(ctx); err != nil {
		closeAll()
		return nil, d.wrap("open", err)
	}
	s, err := newStore(ctx, d, w, r, desc, create)
	if err != nil {
		closeAll()
		return nil, err
	}
	return s, nil
}

// pool opens a pool of up to n connections to cfg's server, kept while
// in use: database/sql keeps 2 idle by default and closes the others as
// they come back, so that a process running many syncs at once opened a
// PostgreSQL connection (a server process forked, authenticated) for
// most of its statements. One idle a minute is closed.
func pool(cfg *pgx.ConnConfig, n int) *sql.DB {
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	db.SetConnMaxIdleTime(time.Minute)
	return db
}

// postgresConns is the most connections a Store holds to PostgreSQL
// unless its connection string says otherwise (pool_max_conns).
const postgresConns = 16

// poolSize is the most connections the store holds: the connection
// string's pool_max_conns (the parameter pgxpool reads), taken out of the
// parameters sent to the server, or postgresConns. Several processes
// sharing one server divide its CPU between their connections' work, so
// that a fleet sizes each process's pool to the server, not to the syncs
// in flight (docs/scale.md).
func poolSize(cfg *pgx.ConnConfig) (int, error) {
	v, ok := cfg.RuntimeParams["pool_max_conns"]
	if !ok {
		return postgresConns, nil
	}
	delete(cfg.RuntimeParams, "pool_max_conns")
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 1000 {
		return 0, &Error{Op: "open", Err: ErrInvalid, Message: "pool_max_conns in the PostgreSQL connection string must be a whole number from 1 to 1000, not " + strconv.Quote(v)}
	}
	return n, nil
}

type postgresDialect struct{}

func (postgresDialect) name() string       { return "postgres" }
func (postgresDialect) ph(n int) string    { return "$" + strconv.Itoa(n) }
func (postgresDialect) now() string        { return "(extract(epoch from clock_timestamp()) * 1000)::bigint" }
func (postgresDialect) skipLocked() string { return " FOR UPDATE SKIP LOCKED" }
func (postgresDialect) forUpdate() string  { return " FOR UPDATE" }

// initLock takes a lock of the transaction that every process opening a
// store in the database asks for first (the key is arbitrary, and only
// the store uses it).
func (postgresDialect) initLock() string { return "SELECT pg_advisory_xact_lock(7350120093710464011)" }

// claimLock takes a lock of the transaction that every claim and renewal
// asks for first (another arbitrary key): with it, a claim's statement
// sees every claim committed before it, which SKIP LOCKED alone does not
// give (two claims of different copies of one connector would not see
// each other).
func (postgresDialect) claimLock() string { return "SELECT pg_advisory_xact_lock(7350120093710464012)" }

func (postgresDialect) streams() bool                        { return false }
func (postgresDialect) backgroundCheckpoints() bool          { return false }
func (postgresDialect) withoutRowid() string                 { return "" }
func (postgresDialect) blob() string                         { return "BYTEA" }
func (postgresDialect) serial() string                       { return "BIGSERIAL PRIMARY KEY" }
func (postgresDialect) ridKey() string                       { return "BIGINT PRIMARY KEY" }
func (postgresDialect) distinct(a, b string) string          { return a + " IS DISTINCT FROM " + b }
func (postgresDialect) setup(context.Context, *sql.DB) error { return nil }

func wordsName(table string) string { return table + "_words" }

// The word index is a table of word arrays keyed by the records' rid: the
// words are the search package's own, so a match of the arrays is exact.
// It has one array, w, of the words of every word field, each after its
// field's tag (wordTag, as SQLite's index), and one GIN index over it: a
// record binds one array rather than one a word field (nine for Zendesk
// tickets), and a load builds one GIN index rather than one a field (nine
// GIN builds took most of a 200k-ticket load's index time).
//
// Tables written before (tableSpec.TaggedWords false) have an array w<col>
// per word field, each with its GIN index, which writes and matches name
// until the copy's next full load replaces the table. A load's new table
// is always tagged.
func (postgresDialect) createWords(ctx context.Context, tx *sql.Tx, table string, cols []int) error {
	if len(cols) == 0 {
		return nil
	}
	// COLLATE "C": the words are compared byte for byte (a match is
	// equality, which no collation changes), not by the database's
	// collation: the GIN build sorts every word, and took 7.8 s instead of
	// 5.3 s at 200k tickets under C.UTF-8.
	_, err := tx.ExecContext(ctx, fmt.Sprintf(`CREATE TABLE %s (rid BIGINT PRIMARY KEY, w TEXT[] COLLATE "C")`, quoteIdent(wordsName(table))))
	return err
}

// wordIndexes: the GIN index of a loaded (so tagged) table's words.
func (postgresDialect) wordIndexes(table string, cols []int) []string {
	if len(cols) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("CREATE INDEX %s ON %s USING GIN (w)", quoteIdent(wordsName(table)+"_w"), quoteIdent(wordsName(table)))}
}

// indexWorkers: two index builds at once, each a server process of its
// own, on a machine of two cores or more (the GIN build beside the
// B-trees).
func (postgresDialect) indexWorkers() int { return 2 }

// wordColumns returns the word arrays of a table: w when tagged, else one
// a word field (cols).
func wordColumns(cols []int, tagged bool) []string {
	if tagged {
		return []string{"w"}
	}
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = "w" + strconv.Itoa(c)
	}
	return out
}

func (d postgresDialect) writeWords(table string, cols []int, rows []wordRow, _, tagged bool) (string, []any) {
	wc := wordColumns(cols, tagged)
	var b strings.Builder
	fmt.Fprintf(&b, "INSERT INTO %s (rid, %s) VALUES ", quoteIdent(wordsName(table)), strings.Join(wc, ", "))
	args := make([]any, 0, len(rows)*(len(wc)+1))
	for i, r := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		args = append(args, r.rid)
		b.WriteString(d.ph(len(args)))
		for _, w := range r.words {
			args = append(args, w)
			fmt.Fprintf(&b, ", string_to_array(%s, ' ')", d.ph(len(args)))
		}
		b.WriteByte(')')
	}
	b.WriteString(" ON CONFLICT (rid) DO UPDATE SET ")
	for i, c := range wc {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s = excluded.%s", c, c)
	}
	return b.String(), args
}

// wordsMatch: for each group, the records whose array has one of its
// words (w && the group's words, tagged in a tagged table), one GIN
// lookup a group.
func (d postgresDialect) wordsMatch(table string, col int, groups [][]string, tagged bool, args *[]any) (string, bool) {
	wc := "w" + strconv.Itoa(col)
	if tagged {
		wc = "w"
	}
	var parts []string
	for _, g := range groups {
		if tagged {
			g = tagWords(col, g)
		}
		*args = append(*args, g)
		parts = append(parts, fmt.Sprintf("%s && %s::text[]", wc, d.ph(len(*args))))
	}
	return fmt.Sprintf("r.rid IN (SELECT rid FROM %s WHERE %s)", quoteIdent(wordsName(table)), strings.Join(parts, " AND ")), len(parts) > 0
}

func (postgresDialect) dropWords(ctx context.Context, tx *sql.Tx, table string) error {
	_, err := tx.ExecContext(ctx, "DROP TABLE IF EXISTS "+quoteIdent(wordsName(table)))
	return err
}

// analyze: not the raw records' table, whose data nothing looks up.
func (postgresDialect) analyze(table string, words bool) (keys, wordStats []string) {
	keys = []string{"ANALYZE " + quoteIdent(table)}
	if words {
		wordStats = []string{"ANALYZE " + quoteIdent(wordsName(table))}
	}
	return keys, wordStats
}

func (postgresDialect) afterLoad(context.Context, *sql.DB) error { return nil }

func (postgresDialect) readTx(ctx context.Context, db *sql.DB) (*sql.Tx, error) {
	return db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
}

func (postgresDialect) indexMemory(context.Context, querier, bool) error { return nil }

// stagingTx makes the page's commit return without waiting for the WAL
// flush (synchronous_commit off, for this transaction only). A server
// crash can lose such a commit but never corrupts anything; the load's
// final swap commits synchronously, flushing every page before it.
func (postgresDialect) stagingTx(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, "SET LOCAL synchronous_commit = off")
	return err
}

func (postgresDialect) writeTx(ctx context.Context, db *sql.DB) (*sql.Tx, error) {
	return db.BeginTx(ctx, nil)
}

// wrap names the PostgreSQL failures a user can act on. Messages come
// from the server (never the connection string).
func (postgresDialect) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var se *Error
	if errors.As(err, &se) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &Error{Op: op, Err: err, Message: "cancelled", Cause: err}
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		msg := pe.Code + " " + pe.Message
		switch {
		case pe.Code == "53100": // disk_full
			return &Error{Op: op, Err: ErrFull, Message: "the database server's disk is full; the previous copy is intact (" + msg + ")", Cause: err}
		case pe.Code == "25006": // read_only_sql_transaction
			return &Error{Op: op, Err: ErrReadOnly, Message: msg, Cause: err}
		case strings.HasPrefix(pe.Code, "08"), strings.HasPrefix(pe.Code, "57P"): // connection exceptions, admin shutdown
			return &Error{Op: op, Err: ErrUnavailable, Message: "the database server went away (" + msg + ")", Cause: err}
		case strings.HasPrefix(pe.Code, "XX"):
			return &Error{Op: op, Err: ErrCorrupt, Message: msg, Cause: err}
		}
		return &Error{Op: op, Err: ErrDatabase, Message: msg, Cause: err}
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, sql.ErrConnDone) || errors.Is(err, driver.ErrBadConn) || strings.Contains(err.Error(), "connect") {
		return &Error{Op: op, Err: ErrUnavailable, Message: "cannot reach the database server: " + driverText(err), Cause: err}
	}
	return &Error{Op: op, Err: ErrDatabase, Message: driverText(err), Cause: err}
}

// driverText is a driver error's text on one line, each of its lines
// once: pgx joins the error of every attempt of a connection (TLS, then
// plain, with sslmode=prefer) on lines of their own, mostly the same
// refused dial twice; and without a password.
func driverText(err error) string {
	var out strings.Builder
	seen := map[string]bool{}
	for _, l := range strings.Split(redactDSN(err.Error()), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || seen[l] {
			continue
		}
		seen[l] = true
		if out.Len() > 0 {
			if strings.HasSuffix(out.String(), ":") {
				out.WriteByte(' ')
			} else {
				out.WriteString("; ")
			}
		}
		out.WriteString(l)
	}
	return out.String()
}

// redactDSN drops a password a driver message may carry.
func redactDSN(s string) string {
	if i := strings.Index(s, "password="); i >= 0 {
		j := strings.IndexAny(s[i:], " &")
		if j < 0 {
			return s[:i] + "password=REDACTED"
		}
		return s[:i] + "password=REDACTED" + s[i+j:]
	}
	return s
}
