// Package store keeps durable, searchable copies of entities in a SQL
// database: SQLite, embedded, in one file (OpenSQLite), or PostgreSQL, which
// many processes share (OpenPostgres). Package replica fills it from a
// connector; the command-line tool's sync, search and store commands and
// the connector service use it directly.
//
// # What is kept
//
// Each copy of a (connector, entity) is a table of its own, made from the
// entity's searchable fields (the catalogue decides the columns, with their
// types; no SQL is written by hand per entity): the vendor's JSON of every
// record, byte for byte; the record's id; and, per searchable field, an
// order key (search.Value.Key: bytes that compare as the search language
// compares values), the text of a date-time string, and the field's words
// in a word index (FTS5 in SQLite; an array with a GIN index in
// PostgreSQL). Fields whose keys are short get a B-tree index once a copy
// is loaded.
//
// # Crash safety
//
// Every write is a transaction. A full synchronization loads a new table
// page by page (each page and the walk's checkpoint in one transaction),
// then makes it the live copy in one small transaction: a search sees the
// old copy or the new one, never a mix, and a process killed at any point
// (kill -9 included) leaves the previous copy intact and searchable; the
// unfinished table is dropped by the next synchronization.
//
// # Search
//
// Search runs the filter language of package search with exactly the
// semantics documented on search.Index. The filter is compiled to SQL with
// bound values only (identifiers are the store's own numbered columns):
// comparisons, in, null tests, not, and, or exactly, on the order keys;
// like, contains, any, keyword and fuzzy (whose candidate words are found
// in the copy's vocabulary with the search package's edit-distance rule) as
// a prefilter that search.Evaluator then decides record by record. Rows
// come in the request's order from the database (ORDER BY the order keys),
// so a page reads little more than its own records; results ordered by
// score are ranked in the process, over the prefilter's candidates.
//
// # Versions
//
// The store records the version of its schema. Opening a store written by
// a newer version fails with ErrVersion and changes nothing; a store of an
// older version is upgraded in place, in one transaction, when it is opened.
//
// # Connectors
//
// A store also keeps the connectors of a service (Connector): who owns
// each, its kind and its credentials, sealed by the caller. LockConnector
// makes a change of credentials (an OAuth refresh with a single-use
// refresh token) exclusive across every process that shares the database.
package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tributary-dev/tributary/search"
)

// SchemaVersion is the version of the store's own tables that this library
// writes. Opening a store of a newer version fails with ErrVersion; a store
// of an older one is upgraded when it is opened. Version 2 added the
// connectors (Connector); version 3 each copy's last failure (Failure);
// version 4 each copy's change feed (Changes); version 5 the outbox of
// events and their webhook deliveries (Event); version 6 the connect
// sessions (ConnectSession); version 7 each copy's last synchronization's
// summary (CopyState.LastSync); version 8 each connector's reconnection
// mark and last use as columns (Connector.NeedsReconnect, LastUsed);
// version 9 the change feed's references to a full synchronization's
// records instead of copies of them; version 10 the index workers find
// due copies by (ClaimDue); version 11 the index a claim of deliveries
// reads each endpoint's due deliveries by.
const SchemaVersion = 11

// Errors a Store returns, matched with errors.Is; each comes inside an
// *Error that says what went wrong.
var (
	// ErrNotSynced: the entity has no copy in the store yet.
	ErrNotSynced = errors.New("not synchronized")
	// ErrVersion: the store was written by a newer version of the library,
	// or is not a Tributary store.
	ErrVersion = errors.New("unsupported store version")
	// ErrCorrupt: the file is not a database, or it is damaged.
	ErrCorrupt = errors.New("corrupt store")
	// ErrFull: the disk (or the database's quota) is full.
	ErrFull = errors.New("store full")
	// ErrReadOnly: the store cannot be written (a read-only file or
	// directory, or a read-only connection).
	ErrReadOnly = errors.New("store read-only")
	// ErrIO: the operating system failed to read or write the store.
	ErrIO = errors.New("store input/output error")
	// ErrBusy: another process holds the store's write lock for too long.
	ErrBusy = errors.New("store busy")
	// ErrUnavailable: the database server cannot be reached.
	ErrUnavailable = errors.New("store unavailable")
	// ErrDatabase: another database failure.
	ErrDatabase = errors.New("store database error")
	// ErrInvalid: a bad argument (an empty name, a bad schema).
	ErrInvalid = errors.New("invalid store argument")
	// ErrLeaseLost: a lease this process held expired and was taken over.
	ErrLeaseLost = errors.New("lease lost")
)

// Error is a failed store operation. Search requests that are not valid
// come back as the search package's *search.Error instead.
type Error struct {
	// Op is what was being done: "open", "sync", "search", "stats", ...
	Op string
	// Connector and Entity name the copy concerned, if any.
	Connector, Entity string
	// Err is the sentinel (ErrCorrupt, ...).
	Err error
	// Message says what happened.
	Message string
	// Cause is the underlying error.
	Cause error
}

// Error renders the error on one line.
func (e *Error) Error() string {
	s := "store: " + e.Op
	if e.Entity != "" {
		s += " " + e.Connector + "/" + e.Entity
	}
	s += ": " + e.Err.Error()
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Unwrap returns the sentinel and the cause.
func (e *Error) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Err, e.Cause}
	}
	return []error{e.Err}
}

// Store is a durable copy of entities of any number of connectors. It is
// safe for concurrent use; several processes may share one (SQLite: one
// writes at a time; PostgreSQL: any number).
type Store struct {
	d    dialect
	w    *sql.DB // writes
	r    *sql.DB // reads
	desc string  // the file, or the server without credentials
	// schema is the version of the database's tables: SchemaVersion, or
	// an older one in a store that could not be upgraded (read-only).
	schema int
	// broad is the number of matches past which a filter is broad
	// (broadFilter).
	broad int

	mu        sync.Mutex
	retention Retention // of the change feeds (SetRetention)
	vocab     map[vocabKey]*vocabEntry
	specs     map[int64]parsedSpec // by table (liveRead)
	narrowed  map[string]time.Time // filters counted narrow, when (narrow)
	rstmts    *readStmts           // searches' prepared statements
	wstmts    *readStmts           // the outbox's hot statements, on the writer pool

	// bgMu guards checkpointing, set while a checkpoint runs in the
	// background (checkpointSoon), and closed, set by Close, after which
	// none starts; Close waits for the one running (background).
	bgMu          sync.Mutex
	checkpointing bool
	closed        bool
	background    sync.WaitGroup
}

type vocabKey struct {
	table int64
	col   int
}

type vocabEntry struct {
	n     int64
	words []string
	runes [][]rune
}

// Close closes the store's connections.
func (s *Store) Close() error {
	s.bgMu.Lock()
	s.closed = true
	s.bgMu.Unlock()
	s.background.Wait()
	s.rstmts.close()
	s.wstmts.close()
	return errors.Join(s.w.Close(), s.r.Close())
}

// checkpointSoon starts a checkpoint of SQLite's write-ahead log on a
// reader's connection, in a goroutine, unless one is running: it copies
// the pages committed so far into the database file while the writer goes
// on, on another processor. A full synchronization calls it after each
// page; the log then starts again from its beginning at the next page,
// below the size (1,000 pages) at which the writer's own commit would
// stop to checkpoint, which took 10% of the writer's time. When it falls
// behind, the writer's commit checkpoints as before (or finds this one
// under way and goes on). Its failure changes nothing: a later checkpoint
// copies the same pages.
func (s *Store) checkpointSoon() {
	if !s.d.backgroundCheckpoints() {
		return
	}
	s.bgMu.Lock()
	defer s.bgMu.Unlock()
	if s.closed || s.checkpointing {
		return
	}
	s.checkpointing = true
	s.background.Add(1)
	go func() {
		defer s.background.Done()
		_, _ = s.r.Exec("PRAGMA wal_checkpoint(PASSIVE)")
		s.bgMu.Lock()
		s.checkpointing = false
		s.bgMu.Unlock()
	}()
}

// String names the store (its file, or its server without credentials).
func (s *Store) String() string { return s.d.name() + ":" + s.desc }

// newStore opens the store over w and r; create says a database without
// tables gets the store's (else it is refused with ErrVersion).
func newStore(ctx context.Context, d dialect, w, r *sql.DB, desc string, create bool) (*Store, error) {
	s := &Store{d: d, w: w, r: r, desc: desc, schema: SchemaVersion, broad: broadFilter, retention: Retention{MaxAge: DefaultRetentionAge}, vocab: map[vocabKey]*vocabEntry{},
		rstmts: &readStmts{on: d.name() == "sqlite", db: r}, wstmts: &readStmts{on: d.name() == "sqlite", ahead: true, db: w}}
	if err := d.setup(ctx, w); err != nil {
		return nil, d.wrap("open", err)
	}
	if err := s.init(ctx, create); err != nil {
		return nil, err
	}
	return s, nil
}

// init creates the store's tables in a new database, upgrades the tables
// of an older version, or checks the version of a current one. A current
// store is only read (a read-only file or directory opens for searching);
// the write lock is taken only to create or upgrade the tables, and the
// check is made again under it. A store of an older version that cannot be
// written (ErrReadOnly) still opens, for searching: what the newer version
// added (connectors, failures) fails with ErrVersion.
//
// Without create, a database without tables (an empty file) is refused
// with ErrVersion and not written.
func (s *Store) init(ctx context.Context, create bool) error {
	rtx, err := s.d.readTx(ctx, s.r)
	if err != nil {
		return s.d.wrap("open", err)
	}
	v, err := s.checkVersion(ctx, rtx)
	rtx.Rollback()
	if err != nil || v == SchemaVersion {
		return err
	}
	if v == 0 && !create {
		return &Error{Op: "open", Err: ErrVersion, Message: "not a Tributary store: the database is empty ('tributary sync' makes a store)"}
	}
	err = s.upgrade(ctx)
	if v > 0 && errors.Is(err, ErrReadOnly) {
		s.schema = v
		return nil
	}
	return err
}

// schemaV1 is the first version's tables.
func (s *Store) schemaV1() []string {
	return []string{
		"CREATE TABLE tributary_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
		"CREATE TABLE tributary_tables (id " + s.d.serial() + ", connector TEXT NOT NULL, entity TEXT NOT NULL, spec TEXT NOT NULL, created_at BIGINT NOT NULL)",
		`CREATE TABLE tributary_entities (connector TEXT NOT NULL, entity TEXT NOT NULL,
			live_table BIGINT, staging_table BIGINT, checkpoint TEXT,
			synced_at BIGINT, records BIGINT, sync_started_at BIGINT,
			lease_owner TEXT, lease_expires BIGINT, lease_token BIGINT,
			PRIMARY KEY (connector, entity))`,
	}
}

// upgrade brings the database to SchemaVersion in one write transaction:
// it creates every table in an empty database, or adds what each version
// since the database's added. Processes that open one database at once
// take turns (SQLite: the write lock; PostgreSQL: an advisory lock), and
// each checks the version again once it has its turn.
func (s *Store) upgrade(ctx context.Context) error {
	tx, err := s.d.writeTx(ctx, s.w)
	if err != nil {
		return s.d.wrap("open", err)
	}
	defer tx.Rollback()
	if lock := s.d.initLock(); lock != "" {
		if _, err := tx.ExecContext(ctx, lock); err != nil {
			return s.d.wrap("open", err)
		}
	}
	v, err := s.checkVersion(ctx, tx)
	if err != nil || v == SchemaVersion {
		return err
	}
	var stmts []string
	if v == 0 {
		stmts = append(s.schemaV1(), "INSERT INTO tributary_meta (name, value) VALUES ('schema_version', '"+strconv.Itoa(SchemaVersion)+"')")
	} else {
		stmts = []string{"UPDATE tributary_meta SET value = '" + strconv.Itoa(SchemaVersion) + "' WHERE name = 'schema_version'"}
	}
	if v < 2 {
		stmts = append(stmts, s.schemaV2()...)
	}
	if v < 3 {
		stmts = append(stmts, s.schemaV3()...)
	}
	if v < 4 {
		stmts = append(stmts, s.schemaV4()...)
	}
	if v < 5 {
		stmts = append(stmts, s.schemaV5()...)
	}
	if v < 6 {
		stmts = append(stmts, s.schemaV6()...)
	}
	if v < 7 {
		stmts = append(stmts, s.schemaV7()...)
	}
	if v < 8 {
		stmts = append(stmts, s.schemaV8()...)
	}
	if v < 9 {
		stmts = append(stmts, s.schemaV9()...)
	}
	if v < 10 {
		stmts = append(stmts, s.schemaV10()...)
	}
	if v < 11 {
		stmts = append(stmts, s.schemaV11()...)
	}
	for _, stmt := range stmts {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return s.d.wrap("open", err)
		}
	}
	return s.d.wrap("open", tx.Commit())
}

// errNoMeta: the database has no tributary_meta table.
var errNoMeta = errors.New("no tributary_meta")

// checkVersion returns the schema version of a store this library reads
// (1 to SchemaVersion), or 0, with no error, for a database without
// tables; a newer version, a damaged catalogue or another application's
// database is an error.
func (s *Store) checkVersion(ctx context.Context, q querier) (int, error) {
	var metas int
	if err := q.QueryRowContext(ctx, s.countTables("tributary_meta")).Scan(&metas); err != nil {
		return 0, s.d.wrap("open", err)
	}
	var version string
	var err error
	if metas > 0 {
		err = q.QueryRowContext(ctx, "SELECT value FROM tributary_meta WHERE name = 'schema_version'").Scan(&version)
	} else {
		err = errNoMeta
	}
	switch {
	case err == nil:
		v, perr := strconv.Atoi(version)
		if perr != nil || v < 1 {
			return 0, &Error{Op: "open", Err: ErrVersion, Message: fmt.Sprintf("the store's schema version %q is not one this library knows", version)}
		}
		if v > SchemaVersion {
			return 0, &Error{Op: "open", Err: ErrVersion, Message: fmt.Sprintf("the store was written by a newer version of Tributary (schema %d; this one reads up to %d): upgrade the library", v, SchemaVersion)}
		}
		return v, nil
	case errors.Is(err, sql.ErrNoRows):
		return 0, &Error{Op: "open", Err: ErrVersion, Message: "the store has no schema version: it is damaged or not a Tributary store"}
	case !errors.Is(err, errNoMeta):
		return 0, s.d.wrap("open", err)
	}
	// No tributary_meta table: a new database, or one of something else.
	var others int
	if err := q.QueryRowContext(ctx, s.countTables("")).Scan(&others); err != nil {
		return 0, s.d.wrap("open", err)
	}
	if others > 0 {
		return 0, &Error{Op: "open", Err: ErrVersion, Message: "the database holds other tables and is not a Tributary store"}
	}
	return 0, nil
}

// countTables counts the tables named name ("": every table of the
// database's own).
func (s *Store) countTables(name string) string {
	q := "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
	if s.d.name() == "postgres" {
		q = "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()"
		if name != "" {
			return q + " AND table_name = '" + name + "'"
		}
		return q
	}
	if name != "" {
		return q + " AND name = '" + name + "'"
	}
	return q
}

// Spec describes the copy of one entity: whose it is and what can be
// searched in it.
type Spec struct {
	// Connector names the connector the copy belongs to (a kind's
	// connector_type, or any name that tells two accounts of one kind
	// apart); Entity is the catalogue's entity name.
	Connector, Entity string
	// Schema is the entity's searchable fields (tributary.SearchSchema).
	Schema search.Schema
	// IDField is the dot path of each record's id.
	IDField string
	// Indexed names the fields that get a B-tree index, for the filters
	// and sorts a program runs most. Empty: the store chooses up to
	// DefaultIndexes from the first page of records, date-times first,
	// then the fields with the fewest distinct values, and one covering
	// index more: the string field of few values (at most 16 in the first
	// page, a status, a type) that most records have and that got no
	// index, then the two date-time fields most records have, from which
	// SQLite reads a filter and a sort on those fields alone without
	// reading a record. Fields without an index are still searched
	// exactly, by reading the copy in order.
	Indexed []string
}

// DefaultIndexes is how many fields of a copy get a B-tree index when the
// Spec names none.
const DefaultIndexes = 6

func (sp Spec) check() error {
	if sp.Connector == "" || sp.Entity == "" {
		return &Error{Op: "sync", Err: ErrInvalid, Message: "a copy needs a connector and an entity name"}
	}
	if len(sp.Schema) == 0 {
		return &Error{Op: "sync", Connector: sp.Connector, Entity: sp.Entity, Err: ErrInvalid, Message: "the entity has no searchable fields"}
	}
	if err := sp.Schema.Check(); err != nil {
		return &Error{Op: "sync", Connector: sp.Connector, Entity: sp.Entity, Err: ErrInvalid, Message: err.Error(), Cause: err}
	}
	for _, f := range sp.Indexed {
		if _, ok := sp.Schema[f]; !ok {
			return &Error{Op: "sync", Connector: sp.Connector, Entity: sp.Entity, Err: ErrInvalid, Message: fmt.Sprintf("cannot index %q: it is not a searchable field", f)}
		}
	}
	return nil
}

// tableSpec is what a records table holds, stored beside it as JSON so
// that a copy can be searched without its connector.
type tableSpec struct {
	IDField string        `json:"id_field"`
	Fields  []tableField  `json:"fields"`
	Schema  search.Schema `json:"-"`
	// TaggedWords says the table's word index has one column (SQLite's
	// FTS5 column, PostgreSQL's array), whose words are those of every word
	// field, each tagged with its field's column (wordTag), rather than a
	// column per field. Tables written by earlier versions of the store
	// (on PostgreSQL, every table before its copy's next full load) have
	// a column per field, which writes and matches name until a full load
	// replaces the table.
	TaggedWords bool `json:"tagged_words,omitempty"`
	// Covering is the fields (by column) of the table's covering index, a
	// field of few values then one or two date-times (Load.decide), whose
	// entries also hold the id key and the tombstone's time: a filter and
	// a sort on these fields alone are read from the index, without a
	// row. None when the copy's Spec names its indexes.
	Covering []int `json:"covering,omitempty"`
	// InOrder is the last rid of the run of rows, from the table's first,
	// that a full load wrote in id order (rid 1 to InOrder, each id key
	// above the one before); 0 when it knows of none. Rows are never
	// removed and never change their id key, and a row written later gets
	// a rid above every row's, so the run stays in id order: a search that
	// read its candidates in the order of the rows need only look at the
	// rows after the run for one out of order (Store.inRowOrder).
	InOrder int64 `json:"in_order,omitempty"`
}

// maxEnumValues is the most distinct values, in the first page of a
// load, of a field that gets the covering index (tableSpec.Covering).
const maxEnumValues = 16

// coveringCols returns the columns of the covering index, in order, or
// nil when the table has none.
func (ts *tableSpec) coveringCols() []string {
	if len(ts.Covering) == 0 {
		return nil
	}
	var cols []string
	for _, i := range ts.Covering {
		cols = append(cols, keyCol(i))
	}
	return append(cols, "idkey", "deleted_at")
}

// covers reports whether the table's covering index holds every column
// conds (over the records table, as r) refer to and the sort's keys.
func (ts *tableSpec) covers(conds []string, sort []search.SortItem) bool {
	cols := ts.coveringCols()
	if cols == nil {
		return false
	}
	for _, it := range sort {
		if !slices.Contains(cols, keyCol(ts.column(it.Field))) {
			return false
		}
	}
	for _, c := range conds {
		if strings.Contains(c, "r.rid IN (") {
			return false // the word index
		}
		for _, ref := range columnRef.FindAllString(c, -1) {
			if !slices.Contains(cols, ref[len("r."):]) {
				return false
			}
		}
	}
	return true
}

// columnRef is a reference to a column of the records table in a
// compiled condition.
var columnRef = regexp.MustCompile(`\br\.[a-z_]+[0-9]*\b`)

// wordTag is what a word of field col starts with in a tagged word index
// (tableSpec.TaggedWords): its column's digits, then 'q', so that no two
// fields' words are alike (the tag ends at the first 'q') and each is one
// token of FTS5's ascii tokenizer.
func wordTag(col int) string { return strconv.Itoa(col) + "q" }

// tagWords returns the words ws of field col as a tagged word index holds
// them (wordTag).
func tagWords(col int, ws []string) []string {
	tag := wordTag(col)
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = tag + w
	}
	return out
}

type tableField struct {
	Name  string      `json:"name"`
	Type  search.Type `json:"type"`
	Key   bool        `json:"key,omitempty"`   // an order-key column
	Time  bool        `json:"time,omitempty"`  // a column with the text of date-times
	Words bool        `json:"words,omitempty"` // a word column (strings)
	Index bool        `json:"index,omitempty"` // a B-tree index on the key
	// Strings and Dates report whether some record of the table has a
	// string that is not a date-time, or a date-time, in the field: a
	// comparison with a string skips the band of keys that is empty.
	// Every write that adds such a value sets them in its transaction.
	Strings bool `json:"strings,omitempty"`
	Dates   bool `json:"dates,omitempty"`
}

func newTableSpec(sp Spec) (*tableSpec, error) {
	x, err := search.NewExtractor(sp.Schema, sp.IDField)
	if err != nil {
		return nil, err
	}
	ts := &tableSpec{IDField: sp.IDField, Schema: sp.Schema}
	for _, p := range x.Fields() {
		name := p.String()
		t := sp.Schema[name]
		ts.Fields = append(ts.Fields, tableField{Name: name, Type: t})
	}
	return ts, nil
}

func parseTableSpec(s string) (*tableSpec, error) {
	ts := &tableSpec{}
	if err := json.Unmarshal([]byte(s), ts); err != nil {
		return nil, &Error{Op: "open", Err: ErrCorrupt, Message: "a copy's description is not valid JSON", Cause: err}
	}
	ts.Schema = search.Schema{}
	for _, f := range ts.Fields {
		ts.Schema[f.Name] = f.Type
	}
	return ts, nil
}

func (ts *tableSpec) wordCols() []int {
	var out []int
	for i, f := range ts.Fields {
		if f.Words {
			out = append(out, i)
		}
	}
	return out
}

func (ts *tableSpec) column(p search.Path) int {
	name := p.String()
	for i, f := range ts.Fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// EntityStats describes one copy.
type EntityStats struct {
	Connector, Entity string
	// Records is the number of records of the live copy (tombstones not
	// counted); Deleted the tombstones.
	Records, Deleted int64
	// SyncedAt is when the live copy was completed; zero when the entity
	// has none yet.
	SyncedAt time.Time
	// Syncing reports an unfinished synchronization (running, or left by
	// a process that died; the next one starts it again).
	Syncing bool
	// Fields is the number of searchable fields.
	Fields int
	// Failure is the copy's last synchronization failure, nil when the
	// last synchronization succeeded (or none failed yet).
	Failure *Failure
}

// Stats describes the store and every copy in it.
type Stats struct {
	// Backend is "sqlite" or "postgres"; Location the file or the server.
	Backend, Location string
	// SizeBytes is the size of the database (SQLite: the file and its
	// write-ahead log; PostgreSQL: the store's tables and indexes).
	SizeBytes int64
	// SchemaVersion is the version of the store's tables.
	SchemaVersion int
	Entities      []EntityStats
}

// Stats describes the store and its copies.
func (s *Store) Stats(ctx context.Context) (*Stats, error) {
	tx, err := s.d.readTx(ctx, s.r)
	if err != nil {
		return nil, s.d.wrap("stats", err)
	}
	defer tx.Rollback()
	st := &Stats{Backend: s.d.name(), Location: s.desc, SchemaVersion: s.schema}
	rows, err := tx.QueryContext(ctx, "SELECT e.connector, e.entity, e.live_table, e.staging_table, e.synced_at, t.spec, "+s.failureSelect("e.")+
		" FROM tributary_entities e LEFT JOIN tributary_tables t ON t.id = e.live_table ORDER BY e.connector, e.entity")
	if err != nil {
		return nil, s.d.wrap("stats", err)
	}
	type ent struct {
		EntityStats
		live sql.NullInt64
	}
	var ents []ent
	for rows.Next() {
		var e ent
		var staging, synced sql.NullInt64
		var spec sql.NullString
		var f failureFields
		if err := rows.Scan(append([]any{&e.Connector, &e.Entity, &e.live, &staging, &synced, &spec}, f.dest()...)...); err != nil {
			rows.Close()
			return nil, s.d.wrap("stats", err)
		}
		e.Syncing = staging.Valid
		e.Failure = f.failure()
		if synced.Valid {
			e.SyncedAt = time.UnixMilli(synced.Int64).UTC()
		}
		if spec.Valid {
			if ts, err := parseTableSpec(spec.String); err == nil {
				e.Fields = len(ts.Fields)
			}
		}
		ents = append(ents, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.d.wrap("stats", err)
	}
	for _, e := range ents {
		if e.live.Valid {
			q := "SELECT count(*) - count(deleted_at), count(deleted_at) FROM " + quoteIdent(tableName(e.live.Int64))
			if err := tx.QueryRowContext(ctx, q).Scan(&e.Records, &e.Deleted); err != nil {
				return nil, s.d.wrap("stats", err)
			}
		}
		st.Entities = append(st.Entities, e.EntityStats)
	}
	if st.SizeBytes, err = s.size(ctx, tx); err != nil {
		return nil, s.d.wrap("stats", err)
	}
	return st, nil
}

func (s *Store) size(ctx context.Context, tx *sql.Tx) (int64, error) {
	if s.d.name() == "postgres" {
		var n sql.NullInt64
		err := tx.QueryRowContext(ctx, "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace ns ON ns.oid = c.relnamespace WHERE ns.nspname = current_schema() AND c.relkind = 'r' AND c.relname LIKE 'tributary%'").Scan(&n)
		return n.Int64, err
	}
	var pages, size int64
	if err := tx.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		return 0, err
	}
	if err := tx.QueryRowContext(ctx, "PRAGMA page_size").Scan(&size); err != nil {
		return 0, err
	}
	return pages * size, nil
}

// Entities lists the copies in the store, by connector then entity.
func (s *Store) Entities(ctx context.Context) ([]EntityStats, error) {
	st, err := s.Stats(ctx)
	if err != nil {
		return nil, err
	}
	return st.Entities, nil
}

// live returns the live table of a copy and its spec, inside tx. The
// spec is the caller's to change.
func (s *Store) live(ctx context.Context, q querier, connector, entity string) (int64, *tableSpec, error) {
	id, spec, err := s.liveSpec(ctx, q, connector, entity)
	if err != nil {
		return 0, nil, err
	}
	ts, err := parseTableSpec(spec)
	if err != nil {
		return 0, nil, err
	}
	return id, ts, nil
}

// liveRead is live for a reader that changes nothing of the spec: the
// spec parsed the last time is shared while its text is the same (a write
// that marks a field as having strings or dates changes it).
func (s *Store) liveRead(ctx context.Context, q querier, connector, entity string) (int64, *tableSpec, error) {
	id, spec, err := s.liveSpec(ctx, q, connector, entity)
	if err != nil {
		return 0, nil, err
	}
	s.mu.Lock()
	c, ok := s.specs[id]
	s.mu.Unlock()
	if ok && c.text == spec {
		return id, c.ts, nil
	}
	ts, err := parseTableSpec(spec)
	if err != nil {
		return 0, nil, err
	}
	s.mu.Lock()
	if s.specs == nil || len(s.specs) >= maxSpecs {
		s.specs = map[int64]parsedSpec{}
	}
	s.specs[id] = parsedSpec{spec, ts}
	s.mu.Unlock()
	return id, ts, nil
}

// parsedSpec is a table's spec as text and parsed (Store.specs).
type parsedSpec struct {
	text string
	ts   *tableSpec
}

// maxSpecs bounds the parsed specs a store keeps.
const maxSpecs = 256

// liveSpec returns the live table of a copy and its spec's text.
func (s *Store) liveSpec(ctx context.Context, q querier, connector, entity string) (int64, string, error) {
	var id sql.NullInt64
	var spec sql.NullString
	err := s.rstmts.queryRow(ctx, q, "SELECT e.live_table, t.spec FROM tributary_entities e LEFT JOIN tributary_tables t ON t.id = e.live_table WHERE e.connector = "+s.d.ph(1)+" AND e.entity = "+s.d.ph(2), connector, entity).Scan(&id, &spec)
	if errors.Is(err, sql.ErrNoRows) || err == nil && !id.Valid {
		return 0, "", &Error{Op: "search", Connector: connector, Entity: entity, Err: ErrNotSynced, Message: "the entity has no copy in the store yet: synchronize it first"}
	}
	if err != nil {
		return 0, "", s.d.wrap("search", err)
	}
	if !spec.Valid {
		return 0, "", &Error{Op: "search", Connector: connector, Entity: entity, Err: ErrCorrupt, Message: "the live copy's table is not registered"}
	}
	return id.Int64, spec.String, nil
}

// Schema returns the searchable fields and the id field of a copy, as it
// was synchronized.
func (s *Store) Schema(ctx context.Context, connector, entity string) (search.Schema, string, error) {
	_, ts, err := s.live(ctx, s.r, connector, entity)
	if err != nil {
		return nil, "", err
	}
	return ts.Schema, ts.IDField, nil
}
