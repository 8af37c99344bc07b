package store

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tributary-dev/tributary/search"
)

// Load is a full synchronization of one copy under way: a new table,
// filled page by page, that becomes the live copy when Commit succeeds.
// Until then searches see the previous copy. A Load is used by one
// goroutine at a time.
type Load struct {
	s       *Store
	spec    Spec
	ts      *tableSpec
	id      int64
	table   string
	x       *search.Extractor
	ex      search.Extracted
	n       int64
	claim   *Claim
	created bool
	done    bool
	vocab   map[vocabWord]struct{} // words in the vocabulary already
	pending map[vocabWord]struct{} // words the open transaction adds

	checkpoint []byte                         // the last page's checkpoint, the copy's at Commit
	tombstones bool                           // Commit keeps the previous copy's missing records as deletions
	counts     Counts                         // what Commit changed, against the previous copy
	liveN      int64                          // the load's records, deletions left out (compare)
	live       bool                           // the load writes into the live table (an Update)
	event      func(SyncDone) (*Event, error) // WithEvent's
	begun      time.Time                      // when the load began (LastSync's duration)
	stmts      *stmtCache

	decided bool          // the table's columns are decided (decide)
	fields  []fieldLayout // then, their layout
	inline  preparer      // Write's
	ahead   preparer      // Prepare's
	forget  atomic.Bool   // a prepared page failed: ahead's known words may not be

	copyRows bool      // rows are copied in (PostgreSQL, a full synchronization; see copy.go)
	conn     *sql.Conn // then, the connection the pages are written on
	nextRid  int64     // and the last rid given (copyRows or newRows)
	newRows  bool      // rows are inserted with rids the load gives (SQLite, a full synchronization; see insertBatch)
	// order is the run of rows, from the table's first, that insertBatch
	// wrote in id order (tableSpec.InOrder), as committed; pendingOrder
	// the same with the open transaction's rows.
	order, pendingOrder rowOrder
	// insertArgs are insertBatch's slices of values, for the next batch,
	// and insertSQL its statements (rows, then raw records) by shape.
	insertArgs [2][]any
	insertSQL  map[string][2]string
	// defaults are, by field, the key every record of decide's sample
	// has in it (nil when they differ, or some lack it): its column's
	// DEFAULT in a table the load fills with new rows (newRows), which
	// insertBatch leaves out of a batch whose rows all have it.
	// colDefaults are the same by column of shape's (nil: none).
	defaults    [][]byte
	colDefaults [][]byte
}

// Counts says what a synchronization changed in a copy.
type Counts struct {
	// Inserted records were not in the copy; Updated ones were, with other
	// bytes; Unchanged ones were read again as they were (a feed's
	// overlap). Deleted records became tombstones.
	Inserted, Updated, Unchanged, Deleted int64
}

// maxIndexedKey is the mean key length (bytes) up to which a field gets a
// key column and a B-tree index: identifiers, numbers, dates,
// enumerations and names do; long texts (descriptions, bodies) do not, and
// are found through the word index instead.
const maxIndexedKey = 64

// One INSERT statement carries at most maxRowsPerInsert rows and
// maxParams bound values (SQLite allows 32,766; PostgreSQL 65,535).
const (
	maxRowsPerInsert = 256
	maxParams        = 30000
)

// BeginFull starts a full synchronization of a copy: a new, empty table.
// An unfinished synchronization of the same copy (left by a process that
// died) is dropped first.
func (s *Store) BeginFull(ctx context.Context, sp Spec, opts ...LoadOption) (*Load, error) {
	if err := sp.check(); err != nil {
		return nil, err
	}
	ts, err := newTableSpec(sp)
	if err != nil {
		return nil, &Error{Op: "sync", Connector: sp.Connector, Entity: sp.Entity, Err: ErrInvalid, Message: err.Error(), Cause: err}
	}
	ts.TaggedWords = true // see the dialects' createWords
	x, _ := search.NewExtractor(sp.Schema, sp.IDField)
	l := &Load{s: s, spec: sp, ts: ts, x: x, vocab: map[vocabWord]struct{}{}, stmts: newStmtCache(s.d, s.w), copyRows: s.d.name() == "postgres", newRows: s.d.name() == "sqlite",
		begun: time.Now()}
	for _, o := range opts {
		o(l)
	}
	if l.claim != nil && (l.claim.Connector != sp.Connector || l.claim.Entity != sp.Entity) {
		return nil, &Error{Op: "sync", Connector: sp.Connector, Entity: sp.Entity, Err: ErrInvalid, Message: "the claim is for another copy"}
	}
	wrap := func(err error) error {
		e := s.d.wrap("sync", err)
		var se *Error
		if errors.As(e, &se) {
			se.Connector, se.Entity = sp.Connector, sp.Entity
		}
		return e
	}
	if err := s.dropStaging(ctx, sp.Connector, sp.Entity); err != nil {
		return nil, wrap(err)
	}
	tx, err := s.d.writeTx(ctx, s.w)
	if err != nil {
		return nil, wrap(err)
	}
	defer tx.Rollback()
	specJSON, _ := json.Marshal(ts)
	now := time.Now().UnixMilli()
	if err := tx.QueryRowContext(ctx, "INSERT INTO tributary_tables (connector, entity, spec, created_at) VALUES ("+placeholders(s.d, 1, 4)+") RETURNING id",
		sp.Connector, sp.Entity, string(specJSON), now).Scan(&l.id); err != nil {
		return nil, wrap(err)
	}
	l.table = tableName(l.id)
	fence, fargs := l.fence(5)
	res, err := tx.ExecContext(ctx, "UPDATE tributary_entities SET staging_table = "+s.d.ph(1)+", sync_started_at = "+s.d.ph(2)+" WHERE connector = "+s.d.ph(3)+" AND entity = "+s.d.ph(4)+fence,
		append([]any{l.id, now, sp.Connector, sp.Entity}, fargs...)...)
	if err != nil {
		return nil, wrap(err)
	}
	if n, _ := res.RowsAffected(); n == 0 && l.claim != nil {
		return nil, l.claim.lost("sync")
	} else if n == 0 {
		if _, err := tx.ExecContext(ctx, "INSERT INTO tributary_entities (connector, entity, staging_table, sync_started_at) VALUES ("+placeholders(s.d, 1, 4)+")",
			sp.Connector, sp.Entity, l.id, now); err != nil {
			return nil, wrap(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, wrap(err)
	}
	return l, nil
}

// decide sets, from the first records of a load (the sample), which
// fields get a key column (those whose keys are short: a long text has
// none, so conditions on it are decided by the Evaluator and sorts by it
// are ranked in the process), a date-time text column, and words.
func (l *Load) decide(sample [][]byte) {
	type seen struct {
		n, keyBytes int64
		text, times bool
		distinct    map[string]struct{}
	}
	st := make([]seen, len(l.ts.Fields))
	var ex search.Extracted
	var ok int64
	for _, rec := range sample {
		if l.x.Extract(rec, &ex) != nil {
			continue
		}
		ok++
		for i := range l.ts.Fields {
			if k := ex.Keys[i]; k != nil {
				st[i].n++
				st[i].keyBytes += int64(len(k))
				if st[i].distinct == nil {
					st[i].distinct = map[string]struct{}{}
				}
				st[i].distinct[string(k)] = struct{}{}
			}
			st[i].times = st[i].times || ex.Times[i] != nil
			st[i].text = st[i].text || ex.Text[i] != nil && ex.Times[i] == nil
		}
	}
	var candidates []int
	for i := range l.ts.Fields {
		f := &l.ts.Fields[i]
		scalar := f.Type != search.TypeObject && f.Type != search.TypeArray
		stringy := f.Type == search.TypeString || f.Type == search.TypeAny || f.Type == search.TypeDateTime
		f.Key = st[i].n == 0 || st[i].keyBytes/st[i].n <= maxIndexedKey
		f.Time = f.Key && stringy
		f.Words = stringy && (st[i].text || st[i].times && !f.Time)
		if len(l.spec.Indexed) > 0 {
			f.Index = f.Key && slices.Contains(l.spec.Indexed, f.Name)
		} else if f.Key && scalar && len(st[i].distinct) > 2 {
			candidates = append(candidates, i)
		}
	}
	// Date-times first (ranges and sorts), then the fewest distinct values
	// (statuses, types: the usual filters), then the shortest keys.
	slices.SortStableFunc(candidates, func(a, b int) int {
		ta, tb := st[a].times, st[b].times
		if ta != tb {
			if ta {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(len(st[a].distinct), len(st[b].distinct)); c != 0 {
			return c
		}
		return cmp.Compare(st[a].keyBytes/st[a].n, st[b].keyBytes/st[b].n)
	})
	for _, i := range candidates[:min(len(candidates), DefaultIndexes)] {
		l.ts.Fields[i].Index = true
	}
	if len(l.spec.Indexed) == 0 {
		l.ts.Covering = nil
		// A string field of few values left without an index of its own
		// (a status, a type: what filters are made of), the one most
		// records have, then the one of fewest values, gets one with the
		// two date-time fields most records have (created, updated: the
		// usual range and sort), which serves a filter on it and a range
		// of the first, sorted by either, from the index alone.
		enum, dates := -1, []int(nil)
		for i, f := range l.ts.Fields {
			switch {
			case !f.Key || st[i].n == 0:
			case f.Type == search.TypeDateTime:
				dates = append(dates, i)
			case f.Type == search.TypeString && !f.Index && len(st[i].distinct) >= 2 && len(st[i].distinct) <= maxEnumValues:
				if enum < 0 || st[i].n > st[enum].n || st[i].n == st[enum].n && len(st[i].distinct) < len(st[enum].distinct) {
					enum = i
				}
			}
		}
		slices.SortStableFunc(dates, func(a, b int) int { return cmp.Compare(st[b].n, st[a].n) })
		if enum >= 0 && len(dates) > 0 {
			l.ts.Covering = append([]int{enum}, dates[:min(2, len(dates))]...)
		}
	}
	if l.newRows {
		// A key the whole sample has in a field (an array's or object's
		// kind, a flag that never changes) becomes its column's default.
		l.defaults = make([][]byte, len(l.ts.Fields))
		for i, f := range l.ts.Fields {
			if f.Key && ok >= 2 && st[i].n == ok && len(st[i].distinct) == 1 {
				for k := range st[i].distinct {
					l.defaults[i] = []byte(k)
				}
			}
		}
	}
	l.decided = true
}

// ensureTable creates the load's tables, in tx, on its first write.
func (l *Load) ensureTable(ctx context.Context, tx *sql.Tx, sample [][]byte) error {
	if l.created {
		return nil
	}
	d := l.s.d
	if !l.decided {
		l.decide(sample)
	}
	var ddl strings.Builder
	fmt.Fprintf(&ddl, "CREATE TABLE %s (rid %s, idkey %s NOT NULL UNIQUE, hid TEXT NOT NULL, deleted_at BIGINT", quoteIdent(l.table), d.serial(), d.blob())
	for i, f := range l.ts.Fields {
		if f.Key {
			fmt.Fprintf(&ddl, ", %s %s", keyCol(i), d.blob())
			if l.defaults != nil && l.defaults[i] != nil {
				fmt.Fprintf(&ddl, " DEFAULT x'%x'", l.defaults[i])
			}
		}
		if f.Time {
			fmt.Fprintf(&ddl, ", %s %s", timeCol(i), d.blob())
		}
	}
	ddl.WriteString(")")
	for _, stmt := range []string{
		ddl.String(),
		// The vendor's JSON apart, so that the keys' table stays narrow for
		// scans and index builds.
		fmt.Sprintf("CREATE TABLE %s (rid %s, raw %s NOT NULL)", quoteIdent(l.table+"_raw"), d.ridKey(), d.blob()),
		"CREATE TABLE " + quoteIdent(l.table+"_vocab") + " (col INTEGER NOT NULL, word TEXT NOT NULL, PRIMARY KEY (col, word))" + d.withoutRowid(),
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	if err := d.createWords(ctx, tx, l.table, l.ts.wordCols()); err != nil {
		return err
	}
	specJSON, _ := json.Marshal(l.ts)
	if _, err := tx.ExecContext(ctx, "UPDATE tributary_tables SET spec = "+d.ph(1)+" WHERE id = "+d.ph(2), string(specJSON), l.id); err != nil {
		return err
	}
	l.created = true
	return nil
}

// dropStaging drops the unfinished table of a copy, if there is one.
func (s *Store) dropStaging(ctx context.Context, connector, entity string) error {
	tx, err := s.d.writeTx(ctx, s.w)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var staging sql.NullInt64
	err = tx.QueryRowContext(ctx, "SELECT staging_table FROM tributary_entities WHERE connector = "+s.d.ph(1)+" AND entity = "+s.d.ph(2), connector, entity).Scan(&staging)
	if errors.Is(err, sql.ErrNoRows) || err == nil && !staging.Valid {
		return nil
	}
	if err != nil {
		return err
	}
	if err := s.dropTable(ctx, tx, staging.Int64); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE tributary_entities SET staging_table = NULL WHERE connector = "+s.d.ph(1)+" AND entity = "+s.d.ph(2), connector, entity); err != nil {
		return err
	}
	return tx.Commit()
}

// dropTable drops a records table and everything that goes with it.
func (s *Store) dropTable(ctx context.Context, tx *sql.Tx, id int64) error {
	t := tableName(id)
	if err := s.d.dropWords(ctx, tx, t); err != nil {
		return err
	}
	for _, stmt := range []string{
		"DROP TABLE IF EXISTS " + quoteIdent(t+"_vocab"),
		"DROP TABLE IF EXISTS " + quoteIdent(t+"_raw"),
		"DROP TABLE IF EXISTS " + quoteIdent(t),
		"DELETE FROM tributary_tables WHERE id = " + s.d.ph(1),
	} {
		var args []any
		if strings.Contains(stmt, "DELETE") {
			args = []any{id}
		}
		if _, err := tx.ExecContext(ctx, stmt, args...); err != nil {
			return err
		}
	}
	s.mu.Lock()
	for k := range s.vocab {
		if k.table == id {
			delete(s.vocab, k)
		}
	}
	s.mu.Unlock()
	return nil
}

func (l *Load) wrap(err error) error {
	e := l.s.d.wrap("sync", err)
	var se *Error
	if errors.As(e, &se) {
		se.Connector, se.Entity = l.spec.Connector, l.spec.Entity
	}
	return e
}

// Write adds one page of records in one transaction: after a crash the
// unfinished table holds exactly the pages written (the next full
// synchronization drops it). checkpoint, when not nil, is where the
// entity's change feed stands after the page: the last one written
// becomes the copy's checkpoint (Store.Checkpoint) when Commit makes the
// table live. A record whose id was written before replaces it. A record
// that is not a JSON object with an id is an error, and nothing of the
// page is written.
func (l *Load) Write(ctx context.Context, records [][]byte, checkpoint []byte) error {
	return l.write(ctx, nil, records, checkpoint)
}

// write writes the batches next returns or, when next is nil, records, in
// one transaction (see Write).
func (l *Load) write(ctx context.Context, next func() *preparedBatch, records [][]byte, checkpoint []byte) (err error) {
	defer func() {
		if err != nil {
			// A statement cancelled mid-way leaves the connection
			// unusable: the next page takes another.
			l.endCopy()
		}
	}()
	if l.done {
		return &Error{Op: "sync", Connector: l.spec.Connector, Entity: l.spec.Entity, Err: ErrInvalid, Message: "the load has ended"}
	}
	var tx *sql.Tx
	if l.copyRows {
		tx, err = l.beginCopyTx(ctx)
	} else {
		tx, err = l.s.d.writeTx(ctx, l.s.w)
	}
	if err != nil {
		return l.wrap(err)
	}
	defer tx.Rollback()
	if err := l.s.d.stagingTx(ctx, tx); err != nil {
		return l.wrap(err)
	}
	l.pendingOrder = l.order
	if next == nil {
		if err := l.writeRecords(ctx, tx, records); err != nil {
			return err
		}
	} else {
		if err := l.ensureTable(ctx, tx, nil); err != nil {
			return l.wrap(err)
		}
		cols, _ := l.shape(0)
		if err := l.writeBatches(ctx, tx, cols, next); err != nil {
			return err
		}
	}
	// The row lock (PostgreSQL) and the check that this load still owns
	// the copy's unfinished table, in the page's transaction.
	fence, fargs := l.fence(4)
	res, err := tx.ExecContext(ctx, "UPDATE tributary_entities SET staging_table = staging_table WHERE connector = "+l.s.d.ph(1)+" AND entity = "+l.s.d.ph(2)+" AND staging_table = "+l.s.d.ph(3)+fence,
		append([]any{l.spec.Connector, l.spec.Entity, l.id}, fargs...)...)
	if err != nil {
		return l.wrap(err)
	}
	if err := l.owned(res, "another synchronization of this copy started meanwhile; this one is abandoned"); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return l.wrap(err)
	}
	// The connection goes back to the pool while the next page is read
	// from the vendor: a load that kept it would hold one of the pool's
	// connections idle for its whole length, and as many loads as the
	// pool has connections would wait forever for one more (the statement
	// cache's prepare below, a claim's renewal, the commit's setval).
	l.endCopy()
	l.s.checkpointSoon()
	if checkpoint != nil {
		l.checkpoint = slices.Clone(checkpoint)
	}
	for w := range l.pending {
		l.vocab[w] = struct{}{}
	}
	l.pending = nil
	l.order = l.pendingOrder
	l.stmts.prepare(ctx)
	return nil
}

// rowOrder is a run of a table's rows, from its first, whose rids and id
// keys are in the same order: rid 1 to last, each key above the one
// before (bytes.Compare, the order of the idkey column).
type rowOrder struct {
	last   int64  // the run's last rid (0: none yet)
	key    []byte // its id key
	broken bool   // a row that does not follow: the run ends at last
}

// add extends the run with the row rid of id key key, if it follows.
func (o *rowOrder) add(rid int64, key []byte) {
	if o.broken {
		return
	}
	if rid != o.last+1 || o.last > 0 && bytes.Compare(key, o.key) <= 0 {
		o.broken = true
		return
	}
	o.last, o.key = rid, key
}

// preparedBatch is a batch of records extracted for writeRecords: the
// INSERT's values and, by idkey, each record's bytes and words.
type preparedBatch struct {
	args  []any
	n     int // rows in args
	rows  map[string]batchRow
	err   error
	vocab map[vocabWord]struct{} // words the preparer had not seen
	// strs and dates say which fields have a string that is not a
	// date-time, and a date-time, in the batch (tableField.Strings, Dates).
	strs, dates []bool
}

type batchRow struct {
	raw   []byte
	words []string
}

// fieldLayout is what extraction needs of a field once the table's
// columns are decided: fixed from then on, so a preparer reads it while
// the writer updates the table's spec.
type fieldLayout struct{ key, time, words bool }

// preparer extracts batches; it is used by one goroutine at a time.
type preparer struct {
	x         *search.Extractor
	ex        search.Extracted
	keyBytes  int // the largest key buffer of a batch so far
	textBytes int // and word buffer
	// known holds words the vocabulary has, or that an earlier batch of
	// this preparer carries: a batch lists only the others.
	known map[vocabWord]struct{}
}

// layout returns the fields' layout; the columns must be decided.
func (l *Load) layout() []fieldLayout {
	if l.fields == nil {
		for _, f := range l.ts.Fields {
			l.fields = append(l.fields, fieldLayout{key: f.Key, time: f.Time, words: f.Words})
		}
	}
	return l.fields
}

// shape returns the INSERT's columns, and how many rows a batch holds
// when a page has n records: batches of equal size, so that a page's
// statements have the same text as the previous page's, prepared once
// (see stmtCache).
func (l *Load) shape(n int) (cols []string, per int) {
	cols = []string{"idkey", "hid"}
	for i, f := range l.layout() {
		if f.key {
			cols = append(cols, keyCol(i))
		}
		if f.time {
			cols = append(cols, timeCol(i))
		}
	}
	per = max(1, min(maxRowsPerInsert, maxParams/len(cols)))
	if nb := (n + per - 1) / per; nb > 0 {
		per = (n + nb - 1) / nb
	}
	return cols, per
}

// prepareBatch extracts the fields of batch (records first..first+len of
// the page). It touches no database and reads nothing the writer changes,
// so that the next batch, or the next page, is extracted while the current
// one is written.
func (l *Load) prepareBatch(pr *preparer, batch [][]byte, first, perRow int) *preparedBatch {
	layout := l.layout()
	p := &preparedBatch{args: make([]any, 0, len(batch)*perRow), rows: make(map[string]batchRow, len(batch)), vocab: map[vocabWord]struct{}{},
		strs: make([]bool, len(layout)), dates: make([]bool, len(layout))}
	at := make(map[string]int, len(batch)) // idkey → its row in args
	// The keys of the batch, copied out of ex into one buffer: a slice
	// taken from it stays valid when appending moves the buffer.
	keys := make([]byte, 0, pr.keyBytes)
	key := func(k []byte) []byte {
		keys = append(keys, k...)
		return keys[len(keys)-len(k) : len(keys) : len(keys)]
	}
	// The batch's words, in one buffer made a string once: each record's
	// word texts are substrings of it.
	text := make([]byte, 0, pr.textBytes)
	// Each record's word texts, one span of text per word field: record
	// i's are spans[i*nw:(i+1)*nw].
	type span struct{ start, end int }
	nw := 0
	for _, f := range layout {
		if f.words {
			nw++
		}
	}
	// A tagged word index (tableSpec.TaggedWords) takes one text a
	// record: its word fields' words, each after its field's tag.
	tagged := l.ts.TaggedWords && nw > 0
	var tags []string
	if tagged {
		tags = make([]string, len(layout))
		for fi, f := range layout {
			if f.words {
				tags[fi] = wordTag(fi)
			}
		}
		nw = 1
	}
	spans := make([]span, 0, len(batch)*nw)
	// The batch's words by column, looked up without allocating: a word
	// is checked against the vocabulary once per batch, not once per use.
	seen := map[int]map[string]struct{}{}
	defer func() { pr.keyBytes, pr.textBytes = max(pr.keyBytes, cap(keys)), max(pr.textBytes, cap(text)) }()
	ex := &pr.ex
	ids := make([]string, len(batch))
	for i, rec := range batch {
		if err := pr.x.Extract(rec, ex); err != nil {
			p.err = &Error{Op: "sync", Connector: l.spec.Connector, Entity: l.spec.Entity, Err: ErrInvalid,
				Message: fmt.Sprintf("record %d of the page cannot be stored: %v", first+i, err), Cause: err}
			return p
		}
		idkey := key(ex.IDKey)
		ids[i] = string(idkey)
		if j, dup := at[ids[i]]; dup {
			// The same id twice in one statement: the later record wins,
			// as it would in two statements.
			p.args = append(p.args[:j*perRow], p.args[(j+1)*perRow:]...)
			for k, v := range at {
				if v > j {
					at[k] = v - 1
				}
			}
			p.n--
		}
		at[ids[i]] = p.n
		p.n++
		p.args = append(p.args, idkey, ex.ID)
		r0 := len(text) // where the record's tagged words start
		for fi, f := range layout {
			if k := ex.Keys[fi]; len(k) > 0 && k[0] == byte(search.ClassString) {
				p.strs[fi] = true
			} else if len(k) > 0 && k[0] == byte(search.ClassTime) {
				p.dates[fi] = true
			}
			if f.key {
				if k := ex.Keys[fi]; k != nil {
					p.args = append(p.args, key(k))
				} else {
					p.args = append(p.args, nil)
				}
			}
			t := ex.Times[fi]
			if f.time {
				if t != nil {
					p.args = append(p.args, key(t))
				} else {
					p.args = append(p.args, nil)
				}
			}
			if f.words {
				if t != nil && f.time {
					if !tagged {
						spans = append(spans, span{}) // found through its time column
					}
					continue
				}
				if !tagged {
					t0 := len(text)
					text = append(text, ex.Text[fi]...)
					spans = append(spans, span{t0, len(text)})
				}
				for w := range bytes.SplitSeq(ex.Text[fi], []byte{' '}) {
					if len(w) == 0 {
						continue
					}
					if tagged {
						if len(text) > r0 {
							text = append(text, ' ')
						}
						text = append(append(text, tags[fi]...), w...)
					}
					if _, dup := seen[fi][string(w)]; dup || !hasLetter(w) {
						continue
					}
					if seen[fi] == nil {
						seen[fi] = map[string]struct{}{}
					}
					s := string(w)
					seen[fi][s] = struct{}{}
					if _, known := pr.known[vocabWord{fi, s}]; !known {
						p.vocab[vocabWord{fi, s}] = struct{}{}
					}
				}
			}
		}
		if tagged {
			spans = append(spans, span{r0, len(text)})
		}
	}
	all := string(text)
	words := make([]string, len(spans))
	for i, rec := range batch {
		var ws []string
		if nw > 0 {
			ws = words[i*nw : (i+1)*nw : (i+1)*nw]
			for j, sp := range spans[i*nw : (i+1)*nw] {
				ws[j] = all[sp.start:sp.end]
			}
		}
		p.rows[ids[i]] = batchRow{raw: rec, words: ws}
	}
	return p
}

// A Page is a page of records whose fields Prepare has extracted, for
// WritePage.
type Page struct {
	batches []*preparedBatch
	records int
}

// Prepare extracts the fields of a page of records, for WritePage. It
// reads and writes no database, so a caller can prepare the next page
// while the current one is written: Prepare may run at the same time as
// WritePage, but not as another Prepare, Write or Commit. A record that is
// not a JSON object with an id makes WritePage fail, writing nothing of
// the page.
func (l *Load) Prepare(records [][]byte) *Page {
	if !l.decided {
		l.decide(records)
	}
	pr := &l.ahead
	if pr.x == nil {
		pr.x, _ = search.NewExtractor(l.spec.Schema, l.spec.IDField)
		pr.known = map[vocabWord]struct{}{}
	}
	if l.forget.Swap(false) {
		// A page failed after this preparer counted its words as known.
		clear(pr.known)
	}
	cols, per := l.shape(len(records))
	pg := &Page{records: len(records)}
	for start := 0; start < len(records); start += per {
		p := l.prepareBatch(pr, records[start:min(start+per, len(records))], start, len(cols))
		pg.batches = append(pg.batches, p)
		if p.err != nil {
			return pg
		}
	}
	// Known once the whole page is prepared: a page that fails here is
	// not written, and its words must still be offered by the next.
	for _, p := range pg.batches {
		for w := range p.vocab {
			pr.known[w] = struct{}{}
		}
	}
	return pg
}

// WritePage writes a page that Prepare extracted, as Write writes records.
func (l *Load) WritePage(ctx context.Context, page *Page, checkpoint []byte) error {
	i := 0
	err := l.write(ctx, func() *preparedBatch {
		if i == len(page.batches) {
			return nil
		}
		i++
		return page.batches[i-1]
	}, nil, checkpoint)
	if err != nil {
		// The preparer counted this page's words as written.
		l.forget.Store(true)
	}
	return err
}

// writeRecords upserts records into the load's table, with their words and
// vocabulary, in tx. The records are written in batches (one multi-row
// statement each); the fields of the next batch are extracted, in a
// goroutine, while the current one is written.
func (l *Load) writeRecords(ctx context.Context, tx *sql.Tx, records [][]byte) error {
	if err := l.ensureTable(ctx, tx, records); err != nil {
		return l.wrap(err)
	}
	cols, per := l.shape(len(records))
	batches := make(chan *preparedBatch, 1)
	stop := make(chan struct{})
	pr := &l.inline
	pr.x, pr.known = l.x, l.vocab // unchanged until this transaction ends
	go func() {
		defer close(batches)
		for start := 0; start < len(records); start += per {
			p := l.prepareBatch(pr, records[start:min(start+per, len(records))], start, len(cols))
			select {
			case batches <- p:
			case <-stop:
				return
			}
			if p.err != nil {
				return
			}
		}
	}()
	defer func() {
		close(stop)
		for range batches { // until the goroutine ends
		}
	}()
	return l.writeBatches(ctx, tx, cols, func() *preparedBatch { return <-batches })
}

// writeBatches writes the batches next returns until it returns nil, in
// tx, with their words and vocabulary. The table exists.
func (l *Load) writeBatches(ctx context.Context, tx *sql.Tx, cols []string, next func() *preparedBatch) error {
	wordCols := l.ts.wordCols()
	vocab := map[vocabWord]struct{}{}
	// The page's words are written together after its rows: FTS5 flushes
	// its pending words into a new segment of the index at every
	// statement (its savepoint), so one statement per batch made four
	// times the segments, and merges, of one per page.
	w := &pageWords{at: map[int64]int{}, on: len(wordCols) > 0}
	for p := next(); p != nil; p = next() {
		if p.err != nil {
			return p.err
		}
		for w := range p.vocab {
			vocab[w] = struct{}{}
		}
		for fi := range l.ts.Fields {
			l.ts.Fields[fi].Strings = l.ts.Fields[fi].Strings || p.strs[fi]
			l.ts.Fields[fi].Dates = l.ts.Fields[fi].Dates || p.dates[fi]
		}
		if l.copyRows {
			if err := l.copyBatch(ctx, tx, cols, p, w); err != nil {
				return err
			}
		} else if l.newRows {
			if err := l.insertBatch(ctx, tx, cols, p, w); err != nil {
				return err
			}
		} else if err := l.upsertBatch(ctx, tx, cols, p.args, p.n, p.rows, w); err != nil {
			return err
		}
		l.n += int64(p.n)
	}
	if len(w.fresh) > 0 && l.copyRows {
		rows := make([][]any, len(w.fresh))
		for i, r := range w.fresh {
			row := make([]any, 1+len(r.words))
			row[0] = r.rid
			for j, ws := range r.words {
				row[1+j] = splitWords(ws)
			}
			rows[i] = row
		}
		wc := append([]string{"rid"}, wordColumns(wordCols, l.ts.TaggedWords)...)
		if err := l.copyFrom(ctx, wordsName(l.table), wc, rows); err != nil {
			return err
		}
	}
	writeWords := func(rows []wordRow, replace bool) error {
		wper := max(1, maxParams/(1+len(wordCols)))
		for start := 0; start < len(rows); start += wper {
			wq, wargs := l.s.d.writeWords(l.table, wordCols, rows[start:min(start+wper, len(rows))], replace, l.ts.TaggedWords)
			if _, err := l.stmts.exec(ctx, tx, wq, wargs...); err != nil {
				return l.wrap(err)
			}
		}
		return nil
	}
	if err := writeWords(w.rows, true); err != nil {
		return err
	}
	if !l.copyRows {
		// Rows inserted with rids the load gave (newRows) have no words
		// yet: a plain INSERT, without REPLACE's lookup.
		if err := writeWords(w.fresh, false); err != nil {
			return err
		}
	}
	for w := range vocab {
		if _, ok := l.vocab[w]; ok {
			delete(vocab, w)
		}
	}
	if err := l.s.addVocab(ctx, tx, l.stmts, l.table, vocab); err != nil {
		return err
	}
	// Remembered only once the transaction commits (see Write).
	l.pending = vocab
	return nil
}

// pageWords gathers a page's words by rid: those of rows copied in
// (copied) and of rows written with INSERT (rows). A record written twice
// in the page (the same id in two batches) keeps its row, and its last
// words win.
type pageWords struct {
	on    bool          // the table has word columns
	at    map[int64]int // rid → its row in rows (>= 0) or fresh (< 0: -1-i)
	rows  []wordRow
	fresh []wordRow // of rows the load gave their rids: they have no words yet
}

// add sets the words of the row rid; fresh says the load just gave the row
// its rid (it was copied in, or inserted with it).
func (w *pageWords) add(rid int64, words []string, fresh bool) {
	if !w.on {
		return
	}
	if j, ok := w.at[rid]; ok {
		if j < 0 {
			w.fresh[-1-j].words = words
		} else {
			w.rows[j].words = words
		}
		return
	}
	if fresh {
		w.at[rid] = -1 - len(w.fresh)
		w.fresh = append(w.fresh, wordRow{rid: rid, words: words})
		return
	}
	w.at[rid] = len(w.rows)
	w.rows = append(w.rows, wordRow{rid: rid, words: words})
}

// splitWords is PostgreSQL's string_to_array(ws, ' '), which the INSERT
// path applies: no element for an empty text.
func splitWords(ws string) []string {
	if ws == "" {
		return []string{}
	}
	return strings.Split(ws, " ")
}

// insertBatch writes the batch p into a table that a full synchronization
// fills (newRows): its rows, with rids the load gives, then their raw
// records, each with a plain INSERT. That is a third less of the writer's
// time than upsertBatch, whose ON CONFLICT and RETURNING (to learn each
// row's rid) every row pays for, while a record read twice (a feed's
// overlap) is rare. When the table holds one of the batch's ids already,
// the INSERT fails on the idkey's uniqueness, changing nothing, and the
// batch takes upsertBatch instead.
func (l *Load) insertBatch(ctx context.Context, tx *sql.Tx, cols []string, p *preparedBatch, w *pageWords) error {
	d := l.s.d
	perRow := len(cols)
	if l.colDefaults == nil {
		l.colDefaults = make([][]byte, perRow)
		c := 2 // after idkey and hid
		for i, f := range l.layout() {
			if f.key {
				if l.defaults != nil {
					l.colDefaults[c] = l.defaults[i]
				}
				c++
			}
			if f.time {
				c++
			}
		}
	}
	// The columns null in every row of the batch (a field the records
	// lack, a text that is no date-time), or equal in every row to their
	// column's default, are left out, to take the default: a bound value
	// costs more than a row's share of the rest.
	keep := make([]bool, perRow)
	shape := make([]byte, 0, perRow+8) // the columns kept, and the rows: the statements' key
	nused := 0
	for c := range perRow {
		def := l.colDefaults[c]
		for i := c; i < len(p.args) && !keep[c]; i += perRow {
			if v, isKey := p.args[i].([]byte); def != nil && isKey {
				keep[c] = !bytes.Equal(v, def)
			} else {
				// A null is written as one where the column has a default.
				keep[c] = p.args[i] != nil || def != nil
			}
		}
		if keep[c] {
			nused++
			shape = append(shape, 1)
		} else {
			shape = append(shape, 0)
		}
	}
	shape = strconv.AppendInt(shape, int64(p.n), 10)
	// The statements' texts, made once per shape (each has thousands of
	// placeholders).
	stmts, ok := l.insertSQL[string(shape)]
	if !ok {
		var used []string
		for c, k := range keep {
			if k {
				used = append(used, cols[c])
			}
		}
		var q, rq strings.Builder
		fmt.Fprintf(&q, "INSERT INTO %s (rid, %s) VALUES ", quoteIdent(l.table), strings.Join(used, ", "))
		fmt.Fprintf(&rq, "INSERT INTO %s (rid, raw) VALUES ", quoteIdent(l.table+"_raw"))
		for i := range p.n {
			if i > 0 {
				q.WriteByte(',')
				rq.WriteByte(',')
			}
			q.WriteString("(" + placeholders(d, i*(nused+1)+1, nused+1) + ")")
			rq.WriteString("(" + placeholders(d, 2*i+1, 2) + ")")
		}
		stmts = [2]string{q.String(), rq.String()}
		if l.insertSQL == nil {
			l.insertSQL = map[string][2]string{}
		}
		if len(l.insertSQL) < maxCached {
			l.insertSQL[string(shape)] = stmts
		}
	}
	// The values' slices are the load's, reused batch after batch.
	args, rawArgs := l.insertArgs[0][:0], l.insertArgs[1][:0]
	defer func() {
		clear(args)
		clear(rawArgs)
		l.insertArgs = [2][]any{args[:0], rawArgs[:0]}
	}()
	for i := range p.n {
		rid := l.nextRid + 1 + int64(i)
		row := p.args[i*perRow : (i+1)*perRow]
		args = append(args, rid)
		for c, v := range row {
			if keep[c] {
				args = append(args, v)
			}
		}
		rawArgs = append(rawArgs, rid, p.rows[string(row[0].([]byte))].raw)
	}
	if _, err := l.stmts.exec(ctx, tx, stmts[0], args...); err != nil {
		if !isUniqueViolation(err) {
			return l.wrap(err)
		}
		// The upsert gives rids of its own: the run in id order ends.
		l.pendingOrder.broken = true
		if err := l.upsertBatch(ctx, tx, cols, p.args, p.n, p.rows, w); err != nil {
			return err
		}
		// The rids the upsert gave.
		return l.wrap(tx.QueryRowContext(ctx, "SELECT coalesce(max(rid), 0) FROM "+quoteIdent(l.table)).Scan(&l.nextRid))
	}
	if _, err := l.stmts.exec(ctx, tx, stmts[1], rawArgs...); err != nil {
		return l.wrap(err)
	}
	for i := range p.n {
		key := p.args[i*perRow].([]byte)
		w.add(l.nextRid+1+int64(i), p.rows[string(key)].words, true)
		l.pendingOrder.add(l.nextRid+1+int64(i), key)
	}
	l.nextRid += int64(p.n)
	return nil
}

// upsertBatch writes n rows (args, perRow values each) with one INSERT …
// ON CONFLICT, then their raw records; rows gives each idkey's record and
// words.
func (l *Load) upsertBatch(ctx context.Context, tx *sql.Tx, cols []string, args []any, n int, rows map[string]batchRow, w *pageWords) error {
	d := l.s.d
	perRow := len(cols)
	var q strings.Builder
	fmt.Fprintf(&q, "INSERT INTO %s (%s) VALUES ", quoteIdent(l.table), strings.Join(cols, ", "))
	for i := range n {
		if i > 0 {
			q.WriteByte(',')
		}
		q.WriteByte('(')
		q.WriteString(placeholders(d, i*perRow+1, perRow))
		q.WriteByte(')')
	}
	q.WriteString(" ON CONFLICT (idkey) DO UPDATE SET ")
	for i, c := range cols[1:] {
		if i > 0 {
			q.WriteString(", ")
		}
		fmt.Fprintf(&q, "%s = excluded.%s", c, c)
	}
	q.WriteString(", deleted_at = NULL RETURNING rid, idkey")
	res, err := l.stmts.query(ctx, tx, q.String(), args...)
	if err != nil {
		return l.wrap(err)
	}
	rawArgs := make([]any, 0, 2*n)
	for res.Next() {
		var rid int64
		var idkey sql.RawBytes
		if err := res.Scan(&rid, &idkey); err != nil {
			res.Close()
			return l.wrap(err)
		}
		r := rows[string(idkey)]
		rawArgs = append(rawArgs, rid, r.raw)
		w.add(rid, r.words, false)
	}
	res.Close()
	if err := res.Err(); err != nil {
		return l.wrap(err)
	}
	var rq strings.Builder
	fmt.Fprintf(&rq, "INSERT INTO %s (rid, raw) VALUES ", quoteIdent(l.table+"_raw"))
	for i := range len(rawArgs) / 2 {
		if i > 0 {
			rq.WriteByte(',')
		}
		rq.WriteString("(" + placeholders(d, 2*i+1, 2) + ")")
	}
	rq.WriteString(" ON CONFLICT (rid) DO UPDATE SET raw = excluded.raw")
	if _, err := l.stmts.exec(ctx, tx, rq.String(), rawArgs...); err != nil {
		return l.wrap(err)
	}
	return nil
}

// hasLetter reports whether w has a letter. The vocabulary, which fuzzy
// searches for words near a query word, keeps only such words: a word
// without one (a number, an id) is within k edits only of query words
// with at most k letters, and fuzzy does not use the vocabulary for those.
func hasLetter(w []byte) bool {
	for _, c := range w {
		if 'a' <= c && c <= 'z' || c >= utf8.RuneSelf && hasLetterRune(w) {
			return true
		}
	}
	return false
}

func hasLetterRune(w []byte) bool {
	for _, r := range string(w) {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

type vocabWord struct {
	col  int
	word string
}

// addVocab records the distinct words of each word column, for fuzzy.
func (s *Store) addVocab(ctx context.Context, tx *sql.Tx, stmts *stmtCache, table string, vocab map[vocabWord]struct{}) error {
	all := make([]vocabWord, 0, len(vocab))
	for w := range vocab {
		all = append(all, w)
	}
	if len(all) == 0 {
		return nil
	}
	const per = 200
	for start := 0; start < len(all); start += per {
		part := all[start:min(start+per, len(all))]
		var q strings.Builder
		fmt.Fprintf(&q, "INSERT INTO %s (col, word) VALUES ", quoteIdent(table+"_vocab"))
		args := make([]any, 0, 2*len(part))
		for i, w := range part {
			if i > 0 {
				q.WriteByte(',')
			}
			q.WriteString("(" + placeholders(s.d, 2*i+1, 2) + ")")
			args = append(args, w.col, w.word)
		}
		q.WriteString(" ON CONFLICT DO NOTHING")
		if _, err := stmts.exec(ctx, tx, q.String(), args...); err != nil {
			return s.d.wrap("sync", err)
		}
	}
	return nil
}

// Records returns the number of records written so far.
func (l *Load) Records() int64 { return l.n }

// Commit makes the loaded table the live copy, in one transaction, then
// drops the previous copy. It indexes the fields whose keys are short
// first (on the new table, before anyone searches it).
func (l *Load) Commit(ctx context.Context) error {
	if l.done {
		return &Error{Op: "sync", Connector: l.spec.Connector, Entity: l.spec.Entity, Err: ErrInvalid, Message: "the load has ended"}
	}
	s, d := l.s, l.s.d
	l.stmts.close()
	if err := l.finishCopy(ctx); err != nil {
		return err
	}
	// Indexes, in their own transaction: a crash here leaves an unfinished
	// table, which the next synchronization drops.
	tx, err := d.writeTx(ctx, s.w)
	if err != nil {
		return l.wrap(err)
	}
	defer tx.Rollback()
	if err := l.ensureTable(ctx, tx, nil); err != nil {
		return l.wrap(err)
	}
	if err := tx.Commit(); err != nil {
		return l.wrap(err)
	}
	if err := l.compare(ctx); err != nil {
		return err
	}
	if err := l.buildIndexes(ctx); err != nil {
		return err
	}
	tx, err = d.writeTx(ctx, s.w)
	if err != nil {
		return l.wrap(err)
	}
	defer tx.Rollback()
	if err := d.indexMemory(ctx, tx, true); err != nil {
		return l.wrap(err)
	}
	// Only the cache's size: a failure to restore it changes no data.
	defer func() { _ = d.indexMemory(context.WithoutCancel(ctx), s.w, false) }()
	for _, stmt := range l.indexes(true) {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return l.wrap(err)
		}
	}
	if l.newRows {
		l.ts.InOrder = l.order.last
	}
	specJSON, _ := json.Marshal(l.ts)
	if _, err := tx.ExecContext(ctx, "UPDATE tributary_tables SET spec = "+d.ph(1)+" WHERE id = "+d.ph(2), string(specJSON), l.id); err != nil {
		return l.wrap(err)
	}
	if err := tx.Commit(); err != nil {
		return l.wrap(err)
	}

	// The swap.
	tx, err = d.writeTx(ctx, s.w)
	if err != nil {
		return l.wrap(err)
	}
	defer tx.Rollback()
	var old sql.NullInt64
	var staging sql.NullInt64
	fence, fargs := l.fence(3)
	err = tx.QueryRowContext(ctx, "SELECT live_table, staging_table FROM tributary_entities WHERE connector = "+d.ph(1)+" AND entity = "+d.ph(2)+fence+d.forUpdate(),
		append([]any{l.spec.Connector, l.spec.Entity}, fargs...)...).Scan(&old, &staging)
	if errors.Is(err, sql.ErrNoRows) && l.claim != nil {
		return l.claim.lost("sync")
	}
	if err != nil {
		return l.wrap(err)
	}
	if !staging.Valid || staging.Int64 != l.id {
		return &Error{Op: "sync", Connector: l.spec.Connector, Entity: l.spec.Entity, Err: ErrLeaseLost,
			Message: "another synchronization of this copy started meanwhile; this one is abandoned"}
	}
	counts, err := l.logDiff(ctx, tx, old)
	if err != nil {
		return l.wrap(err)
	}
	var cp any
	if l.checkpoint != nil {
		cp = string(l.checkpoint)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE tributary_entities SET live_table = "+d.ph(1)+", staging_table = NULL, synced_at = "+d.ph(2)+", records = "+d.ph(3)+", checkpoint = "+d.ph(4)+" WHERE connector = "+d.ph(5)+" AND entity = "+d.ph(6),
		l.id, time.Now().UnixMilli(), l.n, cp, l.spec.Connector, l.spec.Entity); err != nil {
		return l.wrap(err)
	}
	if err := l.saveLastSync(ctx, tx, true, counts); err != nil {
		return err
	}
	// The event carries the counts of this swap (the copy's, once it
	// commits).
	prev := l.counts
	l.counts = counts
	if err := l.syncEvent(ctx, tx, true); err != nil {
		l.counts = prev
		return err
	}
	if err := tx.Commit(); err != nil {
		l.counts = prev
		return l.wrap(err)
	}
	l.done = true
	if old.Valid {
		// The previous copy: readers in a transaction that began before
		// the swap still see it (SQLite's WAL snapshot; PostgreSQL waits
		// for them to finish).
		tx, err := d.writeTx(ctx, s.w)
		if err != nil {
			return l.wrap(err)
		}
		defer tx.Rollback()
		if err := s.dropTable(ctx, tx, old.Int64); err != nil {
			return l.wrap(err)
		}
		if err := tx.Commit(); err != nil {
			return l.wrap(err)
		}
	}
	// Only tidying: the copy is live whatever happens here.
	_ = d.afterLoad(ctx, s.w)
	return nil
}

// indexes returns the statements that build the loaded table's indexes
// and statistics, when they are built in Commit's transaction (pending)
// or by buildIndexes (not pending). The word index comes first: on
// PostgreSQL its GIN build is the longest statement by far (7.7 s at
// 200,000 tickets, against 0.4 to 0.9 s for each B-tree), so one worker
// builds it while the other builds the B-trees and their statistics;
// after the B-trees it was the whole commit's last 8 s, alone.
func (l *Load) indexes(pending bool) []string {
	if pending != (l.s.d.indexWorkers() <= 1) {
		return nil
	}
	out := l.s.d.wordIndexes(l.table, l.ts.wordCols())
	for i, f := range l.ts.Fields {
		if f.Index {
			out = append(out, fmt.Sprintf("CREATE INDEX %s ON %s (%s, idkey)", quoteIdent(fmt.Sprintf("%s_%s", l.table, keyCol(i))), quoteIdent(l.table), keyCol(i)))
		}
	}
	if cols := l.ts.coveringCols(); cols != nil {
		out = append(out, fmt.Sprintf("CREATE INDEX %s ON %s (%s)", quoteIdent(l.table+"_covering"), quoteIdent(l.table), strings.Join(cols, ", ")))
	}
	// The statistics after the indexes they may describe (a statement
	// run at the same time as another on its table waits for its lock).
	keys, words := l.s.d.analyze(l.table, len(l.ts.wordCols()) > 0)
	out = append(out, keys...)
	return append(out, words...)
}

// buildIndexes builds the loaded table's indexes, indexWorkers at a time,
// each in a transaction of its own, where the dialect allows it. A crash
// meanwhile leaves an unfinished table, which the next synchronization
// drops.
func (l *Load) buildIndexes(ctx context.Context) error {
	stmts := l.indexes(false)
	if len(stmts) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	work := make(chan string)
	errs := make(chan error, len(stmts))
	var wg sync.WaitGroup
	for range min(l.s.d.indexWorkers(), len(stmts)) {
		wg.Go(func() {
			for stmt := range work {
				if _, err := l.s.w.ExecContext(ctx, stmt); err != nil {
					errs <- err
					cancel()
				}
			}
		})
	}
feed:
	for _, stmt := range stmts {
		select {
		case work <- stmt:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return l.wrap(err)
	}
	return l.wrap(ctx.Err())
}

// Abort drops the loaded table; the live copy stays as it was. It is safe
// to call after Commit (it does nothing then).
func (l *Load) Abort(ctx context.Context) error {
	if l.done {
		return nil
	}
	l.done = true
	l.stmts.close()
	l.endCopy()
	tx, err := l.s.d.writeTx(ctx, l.s.w)
	if err != nil {
		return l.wrap(err)
	}
	defer tx.Rollback()
	var staging sql.NullInt64
	err = tx.QueryRowContext(ctx, "SELECT staging_table FROM tributary_entities WHERE connector = "+l.s.d.ph(1)+" AND entity = "+l.s.d.ph(2), l.spec.Connector, l.spec.Entity).Scan(&staging)
	if err != nil {
		return l.wrap(err)
	}
	if err := l.s.dropTable(ctx, tx, l.id); err != nil {
		return l.wrap(err)
	}
	if staging.Valid && staging.Int64 == l.id {
		if _, err := tx.ExecContext(ctx, "UPDATE tributary_entities SET staging_table = NULL WHERE connector = "+l.s.d.ph(1)+" AND entity = "+l.s.d.ph(2), l.spec.Connector, l.spec.Entity); err != nil {
			return l.wrap(err)
		}
	}
	return l.wrap(tx.Commit())
}
