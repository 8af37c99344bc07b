package store_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
)

// dropV4 turns a current PostgreSQL store's tables into version 3's.
var dropV4 = []string{"DROP TABLE tributary_changes", "DROP TABLE tributary_feeds"}

// dropV11 turns a current store into version 10's: no index of the
// deliveries by endpoint and due time.
const dropV11 = "DROP INDEX tributary_deliveries_next"

// dropV10 turns a version 10 store into version 9's: no due index.
const dropV10 = "DROP INDEX tributary_entities_due"

// dropV9 turns a current store into version 8's: version 11's and 10's
// indexes dropped, and the change feed version 4's tables, on backend
// "sqlite" or "postgres": the changes must carry their bytes (no
// reference to a row).
func dropV9(backend string) []string {
	return append([]string{dropV11, dropV10}, dropV9Feed(backend)...)
}

func dropV9Feed(backend string) []string {
	if backend == "postgres" {
		// Version 8 kept every change's bytes: the references' are copied
		// in first, from each copy's raw table.
		materialize := `DO $$ DECLARE t BIGINT; BEGIN
			FOR t IN SELECT DISTINCT ref_table FROM tributary_changes WHERE ref_table IS NOT NULL LOOP
				EXECUTE format('UPDATE tributary_changes c SET raw = r.raw, ref_table = NULL, ref_rid = NULL FROM tributary_t%s_raw r WHERE c.ref_table = %s AND r.rid = c.ref_rid', t, t);
			END LOOP; END $$`
		return []string{materialize, "DROP INDEX tributary_changes_ref",
			"ALTER TABLE tributary_changes DROP CONSTRAINT tributary_changes_raw_or_ref, DROP COLUMN ref_table, DROP COLUMN ref_rid, ALTER COLUMN raw SET NOT NULL"}
	}
	return []string{
		`CREATE TABLE tributary_changes_v4 (feed BIGINT NOT NULL, seq BIGINT NOT NULL, op SMALLINT NOT NULL,
			id TEXT NOT NULL, raw BLOB NOT NULL, at BIGINT NOT NULL, PRIMARY KEY (feed, seq))`,
		"INSERT INTO tributary_changes_v4 SELECT feed, seq, op, id, raw, at FROM tributary_changes",
		"DROP TABLE tributary_changes",
		"ALTER TABLE tributary_changes_v4 RENAME TO tributary_changes",
	}
}

func eachBackend(t *testing.T, f func(t *testing.T, st *store.Store)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		st, err := store.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "feed.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		f(t, st)
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		st, err := store.OpenPostgres(context.Background(), pgtest.DSN(t))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		f(t, st)
	})
}

// liveCopy reads every live record of a copy, by id, through search.
func liveCopy(t *testing.T, st *store.Store, connector, entity string) map[string]string {
	t.Helper()
	out := map[string]string{}
	req := search.Request{Limit: 500}
	for {
		res, err := st.Search(context.Background(), connector, entity, req)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			out[h.ID] = string(h.Data)
		}
		if !res.HasMore() {
			return out
		}
		req.Cursor = *res.NextCursor
	}
}

// replay applies a copy's changes after cursor onto m, limit a page, and
// returns the cursor it reached and how many changes of each op it saw.
func replay(t *testing.T, st *store.Store, connector, entity string, cursor int64, limit int, m map[string]string) (int64, map[store.ChangeOp]int64) {
	t.Helper()
	ops := map[store.ChangeOp]int64{}
	for {
		page, err := st.Changes(context.Background(), connector, entity, cursor, limit)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range page.Changes {
			if c.Seq != cursor+1 {
				t.Fatalf("change %d follows cursor %d", c.Seq, cursor)
			}
			cursor = c.Seq
			ops[c.Op]++
			switch c.Op {
			case store.OpInsert:
				if _, ok := m[c.ID]; ok {
					t.Fatalf("change %d inserts %s, which the replay holds", c.Seq, c.ID)
				}
				m[c.ID] = string(c.Data)
			case store.OpUpdate:
				if old, ok := m[c.ID]; !ok || old == string(c.Data) {
					t.Fatalf("change %d updates %s: held %v, same bytes %v", c.Seq, c.ID, ok, old == string(c.Data))
				}
				m[c.ID] = string(c.Data)
			case store.OpDelete:
				if _, ok := m[c.ID]; !ok {
					t.Fatalf("change %d deletes %s, which the replay lacks", c.Seq, c.ID)
				}
				delete(m, c.ID)
			default:
				t.Fatalf("change %d: op %q", c.Seq, c.Op)
			}
		}
		if page.Next != cursor {
			t.Fatalf("next %d, last change %d", page.Next, cursor)
		}
		if !page.More {
			return cursor, ops
		}
	}
}

func sameCopy(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if maps.Equal(got, want) {
		return
	}
	for id, w := range want {
		if g, ok := got[id]; !ok || g != w {
			t.Fatalf("%s: record %s is %q, want %q", what, id, g, w)
		}
	}
	for id := range got {
		if _, ok := want[id]; !ok {
			t.Fatalf("%s: record %s should not be there", what, id)
		}
	}
}

// After random creates, updates and deletes, synchronized incrementally
// (pages that overlap, deletions of records never copied) and in full
// (with and without tombstones), a replay of the feed from cursor 0 onto
// an empty map is the copy byte for byte, and so is a reader that follows
// the feed sync after sync; the feed's ops agree with the counts.
func TestFeedReplaysTheCopy(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		rng := rand.New(rand.NewPCG(29, 1))
		src := map[int][]byte{}
		next := 1
		version := map[int]int{}
		rec := func(id int) []byte {
			version[id]++
			return fmt.Appendf(nil, `{"id":%d,"status":%q,"subject":"subject %d v%d","pad":%q}`, id, []string{"open", "closed", "pending"}[rng.IntN(3)], id, version[id], strings.Repeat("x", rng.IntN(40)))
		}
		for range 120 {
			src[next] = rec(next)
			next++
		}
		full := func(tombstones bool) store.Counts {
			var opts []store.LoadOption
			if tombstones {
				opts = append(opts, store.Tombstones())
			}
			l, err := st.BeginFull(ctx, changeSpec(), opts...)
			if err != nil {
				t.Fatal(err)
			}
			recs := slices.Collect(maps.Values(src))
			for i := 0; i < len(recs); i += 45 {
				if err := l.Write(ctx, recs[i:min(i+45, len(recs))], nil); err != nil {
					t.Fatal(err)
				}
			}
			if err := l.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			return l.Counts()
		}
		follower, cursor := map[string]string{}, int64(0)
		check := func(round int, c store.Counts, tombstones bool) {
			t.Helper()
			want := liveCopy(t, st, "c", "tickets")
			if len(want) != len(src) {
				t.Fatalf("round %d: the copy has %d records, the source %d", round, len(want), len(src))
			}
			replayed := map[string]string{}
			last, _ := replay(t, st, "c", "tickets", 0, 1+rng.IntN(200), replayed)
			sameCopy(t, fmt.Sprintf("round %d, replay from 0", round), replayed, want)
			var ops map[store.ChangeOp]int64
			cursor, ops = replay(t, st, "c", "tickets", cursor, 1+rng.IntN(50), follower)
			sameCopy(t, fmt.Sprintf("round %d, follower", round), follower, want)
			if cur, err := st.ChangeCursor(ctx, "c", "tickets"); err != nil || cur != last || cur != cursor {
				t.Fatalf("round %d: ChangeCursor %d %v, replay reached %d and %d", round, cur, err, last, cursor)
			}
			if ops[store.OpInsert] != c.Inserted || ops[store.OpUpdate] != c.Updated || tombstones && ops[store.OpDelete] != c.Deleted {
				t.Fatalf("round %d: the feed's ops %v, the counts %+v", round, ops, c)
			}
		}
		check(0, full(true), true)
		for round := 1; round <= 30; round++ {
			var page, deleted [][]byte
			for range rng.IntN(15) { // creates
				src[next] = rec(next)
				page = append(page, src[next])
				next++
			}
			live := slices.Sorted(maps.Keys(src))
			rng.Shuffle(len(live), func(i, j int) { live[i], live[j] = live[j], live[i] })
			for _, id := range live[:rng.IntN(12)] { // updates, or deletes
				if rng.IntN(3) == 0 {
					delete(src, id)
					deleted = append(deleted, fmt.Appendf(nil, `{"id":%d}`, id))
				} else {
					src[id] = rec(id)
					page = append(page, src[id])
				}
			}
			for _, id := range live[len(live)-rng.IntN(5):] { // read again, unchanged
				if r, ok := src[id]; ok {
					page = append(page, r)
				}
			}
			deleted = append(deleted, fmt.Appendf(nil, `{"id":%d}`, 100000+round)) // never copied
			if round%10 == 0 {
				tomb := round%20 == 0
				check(round, full(tomb), tomb)
				continue
			}
			u, err := st.BeginUpdate(ctx, changeSpec())
			if err != nil {
				t.Fatal(err)
			}
			split := rng.IntN(len(page) + 1)
			if err := u.Apply(ctx, page[:split], nil, nil); err != nil {
				t.Fatal(err)
			}
			if err := u.Apply(ctx, page[split:], deleted, []byte(strconv.Itoa(round))); err != nil {
				t.Fatal(err)
			}
			if err := u.Finish(ctx); err != nil {
				t.Fatal(err)
			}
			check(round, u.Counts(), true)
		}
	})
}

// Retention drops the oldest changes when a synchronization ends; a
// cursor behind them fails with ErrCursorExpired, saying to read the copy
// again, and the cursors after them go on working.
func TestFeedRetention(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		st.SetRetention(store.Retention{MaxChanges: 5})
		l, err := st.BeginFull(ctx, changeSpec())
		if err != nil {
			t.Fatal(err)
		}
		var recs [][]byte
		for i := 1; i <= 20; i++ {
			recs = append(recs, ticket(i, "open", "s"))
		}
		if err := l.Write(ctx, recs, nil); err != nil {
			t.Fatal(err)
		}
		if err := l.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		_, err = st.Changes(ctx, "c", "tickets", 0, 100)
		wantErr(t, err, store.ErrCursorExpired, "read the copy again")
		page, err := st.Changes(ctx, "c", "tickets", 15, 100)
		if err != nil || len(page.Changes) != 5 || page.Changes[0].Seq != 16 || page.More {
			t.Fatalf("changes after 15: %+v %v", page, err)
		}
		_, err = st.Changes(ctx, "c", "tickets", 21, 100)
		wantErr(t, err, store.ErrInvalid, "cursor 21")
		_, err = st.Changes(ctx, "c", "missing", 0, 100)
		wantErr(t, err, store.ErrNotSynced)

		// By age: the load's changes are older than the limit when an
		// update ends; the update's own are kept.
		st.SetRetention(store.Retention{MaxAge: 300 * time.Millisecond})
		time.Sleep(400 * time.Millisecond)
		u, err := st.BeginUpdate(ctx, changeSpec())
		if err != nil {
			t.Fatal(err)
		}
		if err := u.Apply(ctx, [][]byte{ticket(1, "closed", "s")}, [][]byte{ticket(2, "", "")}, nil); err != nil {
			t.Fatal(err)
		}
		if err := u.Finish(ctx); err != nil {
			t.Fatal(err)
		}
		_, err = st.Changes(ctx, "c", "tickets", 15, 100)
		wantErr(t, err, store.ErrCursorExpired)
		page, err = st.Changes(ctx, "c", "tickets", 20, 100)
		if err != nil || len(page.Changes) != 2 || page.Changes[0].Op != store.OpUpdate || page.Changes[1].Op != store.OpDelete || page.Changes[1].ID != "2" {
			t.Fatalf("changes after 20: %+v %v", page, err)
		}
	})
}

// checkUpgradedV3 checks a store upgraded from version 3 with the copy of
// testdata/v3.db (tickets 1 to 20, 20 a deletion): the copy's feed starts
// after it, at cursor 1; cursor 0 says to read the copy; the next
// synchronizations are in the feed.
func checkUpgradedV3(t *testing.T, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	if cur, err := st.ChangeCursor(ctx, "c", "tickets"); err != nil || cur != 1 {
		t.Fatalf("the cursor after the upgrade: %d %v", cur, err)
	}
	_, err := st.Changes(ctx, "c", "tickets", 0, 10)
	wantErr(t, err, store.ErrCursorExpired, "read the copy again")
	if page, err := st.Changes(ctx, "c", "tickets", 1, 10); err != nil || len(page.Changes) != 0 || page.Next != 1 {
		t.Fatalf("changes after 1: %+v %v", page, err)
	}
	u, err := st.BeginUpdate(ctx, changeSpec())
	if err != nil {
		t.Fatal(err)
	}
	if err := u.Apply(ctx, [][]byte{ticket(1, "closed", "ticket 1"), ticket(21, "open", "new")}, [][]byte{[]byte(`{"id":2}`), []byte(`{"id":20}`)}, nil); err != nil {
		t.Fatal(err)
	}
	if err := u.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	page, err := st.Changes(ctx, "c", "tickets", 1, 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range page.Changes {
		got = append(got, fmt.Sprintf("%d %s %s", c.Seq, c.Op, c.ID))
	}
	if want := []string{"2 update 1", "3 insert 21", "4 delete 2"}; !slices.Equal(got, want) {
		t.Fatalf("the changes after the upgrade: %q, want %q", got, want)
	}
}

func TestUpgradeV3SQLite(t *testing.T) {
	t.Parallel()
	stores := openFixtureAtOnce(t, "v3", "3", 3)
	if got := ids(t, stores[0], "null", false); len(got) != 19 {
		t.Fatalf("the copy after the upgrade: %v", got)
	}
	checkUpgradedV3(t, stores[1])
}

func TestUpgradeV3Postgres(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	st, err := store.OpenPostgres(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	l, err := st.BeginFull(ctx, changeSpec())
	if err != nil {
		t.Fatal(err)
	}
	var recs [][]byte
	for i := 1; i <= 19; i++ {
		recs = append(recs, ticket(i, "open", fmt.Sprintf("ticket %d", i)))
	}
	if err := l.Write(ctx, recs, nil); err != nil {
		t.Fatal(err)
	}
	if err := l.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	st.Close()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, stmt := range append(append(slices.Clone(dropV5), dropV4...), "UPDATE tributary_meta SET value = '3' WHERE name = 'schema_version'") {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	stores := openAtOnce(t, 3, func(ctx context.Context) (*store.Store, error) { return store.OpenPostgres(ctx, dsn) })
	if v := pgVersion(t, conn); v != strconv.Itoa(store.SchemaVersion) {
		t.Fatalf("the upgraded database is at version %s", v)
	}
	checkUpgradedV3(t, stores[0])
}

// BenchmarkReadChanges reads a SQLite copy's feed of 100,000 changes
// (the inserts of its first load) a page of MaxChangesPage at a time.
//
//	go test -run '^$' -bench ReadChanges ./store/
func BenchmarkReadChanges(b *testing.B) {
	const n = 100_000
	ctx := context.Background()
	st, err := store.OpenSQLite(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	l, err := st.BeginFull(ctx, changeSpec())
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i += 1000 {
		var recs [][]byte
		for j := i; j < i+1000; j++ {
			recs = append(recs, fmt.Appendf(nil, `{"id":%d,"status":"open","subject":"ticket %d about a password reset","body":"%0200d"}`, j, j, j))
		}
		if err := l.Write(ctx, recs, nil); err != nil {
			b.Fatal(err)
		}
	}
	if err := l.Commit(ctx); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		var cursor int64
		read := 0
		for {
			page, err := st.Changes(ctx, "c", "tickets", cursor, store.MaxChangesPage)
			if err != nil {
				b.Fatal(err)
			}
			read += len(page.Changes)
			cursor = page.Next
			if !page.More {
				break
			}
		}
		if read != n {
			b.Fatalf("read %d changes", read)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "changes/s")
}
