package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/store"
)

// feedModel is what a copy's feed should hold after a scenario, decided
// from the scenario alone: the changes, numbered from 1, and the copy.
type feedModel struct {
	changes []store.Change // changes[i].Seq == i+1; At is not modelled
	first   int64          // the oldest cursor the feed keeps
	copy    map[int]string
}

func (m *feedModel) add(op store.ChangeOp, id int, data string) {
	m.changes = append(m.changes, store.Change{Seq: int64(len(m.changes) + 1), Op: op, ID: fmt.Sprint(id), Data: []byte(data)})
}

// full is a full synchronization of recs, written in the order of their
// ids: its inserts and updates in that order, then its deletions in the
// order of the previous copy's rows (which is its ids' here: every new id
// is above the others).
func (m *feedModel) full(recs map[int]string) {
	for _, id := range slices.Sorted(maps.Keys(recs)) {
		if old, ok := m.copy[id]; !ok {
			m.add(store.OpInsert, id, recs[id])
		} else if old != recs[id] {
			m.add(store.OpUpdate, id, recs[id])
		}
	}
	for _, id := range slices.Sorted(maps.Keys(m.copy)) {
		if _, ok := recs[id]; !ok {
			m.add(store.OpDelete, id, m.copy[id])
		}
	}
	m.copy = maps.Clone(recs)
}

// update is an incremental page: its records in order (an id twice: one
// change, at the first's place, with the last bytes), then its deletions
// of records the copy holds, in the order of their rows, with their last
// bytes.
func (m *feedModel) update(page [][2]any, deleted []int) {
	at := map[int]int{}
	for _, r := range page {
		id, data := r[0].(int), r[1].(string)
		if i, ok := at[id]; ok {
			m.changes[i].Data = []byte(data)
		} else if old, ok := m.copy[id]; !ok {
			at[id] = len(m.changes)
			m.add(store.OpInsert, id, data)
		} else if old != data {
			at[id] = len(m.changes)
			m.add(store.OpUpdate, id, data)
		}
		m.copy[id] = data
	}
	for _, id := range slices.Sorted(slices.Values(deleted)) {
		if data, ok := m.copy[id]; ok {
			m.add(store.OpDelete, id, data)
			delete(m.copy, id)
		}
	}
}

// The feed returns the same bytes for every change, at every step, as
// when each change carried its record's bytes, although a full
// synchronization's changes refer to the copy's rows: through a first
// full load, incremental updates, deletions and restorations of records
// the load's changes refer to, a second full load (the swap that drops
// the rows the first load's changes refer to), retention, a reopening of
// the store, and a third full load. Each step reads the whole feed, in
// pages, and compares it with the changes the scenario makes, and each
// change with what it was when first read (its time included).
func TestFeedReferencesReadAsCopies(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "feed.db")
		feedReferences(t, func() (*store.Store, error) { return store.OpenSQLite(context.Background(), path) },
			func() (int64, int64) { return refsAndCopies(t, path) })
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		dsn := pgtest.DSN(t)
		feedReferences(t, func() (*store.Store, error) { return store.OpenPostgres(context.Background(), dsn) }, nil)
	})
}

// feedReferences runs the scenario on the store open opens; counts, if
// not nil, counts the changes that refer to rows and those that carry
// their bytes.
// feedRun runs a scenario on a store and checks its feed against the
// model's.
type feedRun struct {
	t    *testing.T
	st   *store.Store
	m    *feedModel
	seen map[int64]store.Change // each change as first read
}

func newFeedRun(t *testing.T, st *store.Store) *feedRun {
	return &feedRun{t: t, st: st, m: &feedModel{copy: map[int]string{}}, seen: map[int64]store.Change{}}
}

// check reads the whole feed, in pages, and compares it with the model's
// changes, and each change with what it was when first read; then the
// copy with the model's.
func (r *feedRun) check(step string) {
	t, m, ctx := r.t, r.m, context.Background()
	t.Helper()
	var got []store.Change
	for cursor := m.first; ; {
		page, err := r.st.Changes(ctx, "c", "tickets", cursor, 7)
		if err != nil {
			t.Fatalf("%s: changes after %d: %v", step, cursor, err)
		}
		got = append(got, page.Changes...)
		cursor = page.Next
		if !page.More {
			break
		}
	}
	want := m.changes[m.first:]
	if len(got) != len(want) {
		t.Fatalf("%s: %d changes after %d, want %d", step, len(got), m.first, len(want))
	}
	for i, c := range got {
		w := want[i]
		if c.Seq != w.Seq || c.Op != w.Op || c.ID != w.ID || string(c.Data) != string(w.Data) {
			t.Fatalf("%s: change %d is %d %s %s %s, want %d %s %s %s", step, i, c.Seq, c.Op, c.ID, c.Data, w.Seq, w.Op, w.ID, w.Data)
		}
		if before, ok := r.seen[c.Seq]; ok && !c.At.Equal(before.At) {
			t.Fatalf("%s: change %d was written at %v, now reads %v", step, c.Seq, before.At, c.At)
		} else if !ok {
			r.seen[c.Seq] = c
		}
	}
	if m.first > 0 {
		_, err := r.st.Changes(ctx, "c", "tickets", m.first-1, 7)
		wantErr(t, err, store.ErrCursorExpired)
	}
	live := map[string]string{}
	for id, rec := range m.copy {
		live[fmt.Sprint(id)] = rec
	}
	sameCopy(t, step+": the copy", liveCopy(t, r.st, "c", "tickets"), live)
}

// full synchronizes recs in full, 64 a page, in the order of their ids.
func (r *feedRun) full(recs map[int]string) {
	t, ctx := r.t, context.Background()
	t.Helper()
	l, err := r.st.BeginFull(ctx, changeSpec())
	if err != nil {
		t.Fatal(err)
	}
	ids := slices.Sorted(maps.Keys(recs))
	for i := 0; i < len(ids); i += 64 {
		var page [][]byte
		for _, id := range ids[i:min(i+64, len(ids))] {
			page = append(page, []byte(recs[id]))
		}
		if err := l.Write(ctx, page, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r.m.full(recs)
}

// update applies one incremental page: page's (id, record) pairs, and
// the deletion of the ids deleted.
func (r *feedRun) update(page [][2]any, deleted []int) {
	t, ctx := r.t, context.Background()
	t.Helper()
	u, err := r.st.BeginUpdate(ctx, changeSpec())
	if err != nil {
		t.Fatal(err)
	}
	var recs, dels [][]byte
	for _, p := range page {
		recs = append(recs, []byte(p[1].(string)))
	}
	for _, id := range deleted {
		dels = append(dels, fmt.Appendf(nil, `{"id":%d}`, id))
	}
	if err := u.Apply(ctx, recs, dels, nil); err != nil {
		t.Fatal(err)
	}
	if err := u.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	r.m.update(page, deleted)
}

// feedReferences runs the scenario on the store open opens; counts, if
// not nil, counts the changes that refer to rows and those that carry
// their bytes.
func feedReferences(t *testing.T, open func() (*store.Store, error), counts func() (refs, copies int64)) {
	st, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { st.Close() }()
	r := newFeedRun(t, st)
	m, check, full, update := r.m, r.check, r.full, r.update
	rec := func(id, v int) string {
		return fmt.Sprintf(`{"id":%d,"status":"open","subject":"ticket %d, version %d"}`, id, id, v)
	}

	// A first full load: 300 inserts, each referring to its row.
	recs := map[int]string{}
	for id := 1; id <= 300; id++ {
		recs[id] = rec(id, 1)
	}
	full(recs)
	check("the first load")
	if counts != nil {
		// No second copy of the records.
		if refs, copies := counts(); refs != 300 || copies != 0 {
			t.Fatalf("after the first load: %d changes refer to rows, %d carry bytes; want 300 and 0", refs, copies)
		}
	}

	// Updates of records whose inserts refer to their rows (one twice in
	// the page), one read again unchanged, new ones, deletions, then a
	// deleted record restored and an updated one updated again.
	var page [][2]any
	for id := 1; id <= 20; id++ {
		page = append(page, [2]any{id, rec(id, 2)})
	}
	page = append(page, [2]any{50, rec(50, 1)}, [2]any{3, rec(3, 3)})
	for id := 301; id <= 305; id++ {
		page = append(page, [2]any{id, rec(id, 1)})
	}
	update(page, []int{21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 999})
	check("an update")
	update([][2]any{{25, rec(25, 2)}, {1, rec(1, 3)}}, []int{40})
	check("a restoration")

	// A second full load: updates, inserts and deletions; the first
	// load's changes that still refer to rows take their bytes at the
	// swap.
	recs = maps.Clone(m.copy)
	for id := 100; id <= 120; id++ {
		recs[id] = rec(id, 2)
	}
	for id := 200; id <= 210; id++ {
		delete(recs, id)
	}
	for id := 400; id <= 410; id++ {
		recs[id] = rec(id, 1)
	}
	full(recs)
	check("the second load")

	// Updates and a deletion of the second load's records.
	page = nil
	for id := 100; id <= 105; id++ {
		page = append(page, [2]any{id, rec(id, 3)})
	}
	update(page, []int{400})
	check("an update after the second load")

	// Retention: the last 30 changes, among them the second load's
	// inserts, which refer to rows (400, deleted, among them); then 400
	// restored, which rewrites the row its insert refers to.
	r.st.SetRetention(store.Retention{MaxChanges: 30})
	update([][2]any{{400, rec(400, 2)}}, nil)
	m.first = int64(len(m.changes)) - 30
	check("retention")

	// The same feed after the store is opened again.
	st.Close()
	if st, err = open(); err != nil {
		t.Fatal(err)
	}
	r.st = st
	check("reopened")

	// A third full load, after which the second's changes kept carry
	// their bytes.
	recs = maps.Clone(m.copy)
	for id := 405; id <= 407; id++ {
		recs[id] = rec(id, 2)
	}
	full(recs)
	check("the third load")
	if counts != nil {
		if refs, copies := counts(); refs != 3 || copies != 30+3-3 {
			t.Fatalf("after the third load: %d changes refer to rows, %d carry bytes; want 3 and 30", refs, copies)
		}
	}
}

// refsAndCopies counts the changes of a SQLite store that refer to rows
// and those that carry their bytes.
func refsAndCopies(t *testing.T, path string) (refs, copies int64) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow("SELECT count(ref_rid), count(raw) FROM tributary_changes").Scan(&refs, &copies); err != nil {
		t.Fatal(err)
	}
	return refs, copies
}

// v7Scenario is what testdata/v7.db holds (made by a version-7 store):
// a full load of tickets 1 to 20, then an update of 1, an insert of 21
// and a deletion of 2.
func v7Scenario(r *feedRun) {
	recs := map[int]string{}
	for i := 1; i <= 20; i++ {
		recs[i] = string(ticket(i, "open", fmt.Sprintf("ticket %d", i)))
	}
	r.m.full(recs)
	r.m.update([][2]any{{1, string(ticket(1, "closed", "ticket 1"))}, {21, string(ticket(21, "open", "ticket 21"))}}, []int{2})
}

// afterUpgradeV7 checks that the changes of a store upgraded from version
// 7 read as they were written, then that the feed goes on through a full
// load (whose swap leaves the old changes as they are), an update of a
// record that load's insert refers to, and another full load.
func afterUpgradeV7(r *feedRun) {
	r.check("upgraded")
	recs := maps.Clone(r.m.copy)
	recs[3] = string(ticket(3, "closed", "ticket 3"))
	recs[30] = string(ticket(30, "open", "ticket 30"))
	delete(recs, 4)
	r.full(recs)
	r.check("a full load after the upgrade")
	r.update([][2]any{{30, string(ticket(30, "closed", "ticket 30"))}, {2, string(ticket(2, "open", "ticket 2 again"))}}, []int{3})
	r.check("an update after the upgrade")
	recs = maps.Clone(r.m.copy)
	recs[5] = string(ticket(5, "pending", "ticket 5"))
	r.full(recs)
	r.check("a second full load after the upgrade")
}

// A version-7 SQLite store, written by that version, is upgraded when
// opened (by processes opening it at once): its changes keep their bytes.
func TestUpgradeV7FeedSQLite(t *testing.T) {
	t.Parallel()
	stores := openFixtureAtOnce(t, "v7", "7", 3)
	r := newFeedRun(t, stores[1])
	v7Scenario(r)
	afterUpgradeV7(r)
}

// The same on PostgreSQL, from a current store made a version-7 one.
func TestUpgradeV7FeedPostgres(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	st, err := store.OpenPostgres(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	r := newFeedRun(t, st)
	recs := map[int]string{}
	for i := 1; i <= 20; i++ {
		recs[i] = string(ticket(i, "open", fmt.Sprintf("ticket %d", i)))
	}
	r.full(recs)
	r.update([][2]any{{1, string(ticket(1, "closed", "ticket 1"))}, {21, string(ticket(21, "open", "ticket 21"))}}, []int{2})
	r.check("before")
	st.Close()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var live int64
	if err := conn.QueryRow(ctx, "SELECT live_table FROM tributary_entities").Scan(&live); err != nil {
		t.Fatal(err)
	}
	// Version 7 kept every change's bytes.
	materialize := fmt.Sprintf("UPDATE tributary_changes SET raw = (SELECT raw FROM tributary_t%d_raw r WHERE r.rid = tributary_changes.ref_rid), ref_table = NULL, ref_rid = NULL WHERE ref_table IS NOT NULL", live)
	for _, stmt := range append(append(append([]string{materialize}, dropV9("postgres")...), dropV8...), "UPDATE tributary_meta SET value = '7' WHERE name = 'schema_version'") {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	stores := openAtOnce(t, 3, func(ctx context.Context) (*store.Store, error) { return store.OpenPostgres(ctx, dsn) })
	if v := pgVersion(t, conn); v != strconv.Itoa(store.SchemaVersion) {
		t.Fatalf("the upgraded database is at version %s", v)
	}
	r.st = stores[0]
	afterUpgradeV7(r)
}
