package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
)

// wordsSpec has two word fields, so that a word of one found in the other
// shows a match that ignores the field.
var wordsSpec = store.Spec{Connector: "words", Entity: "tickets", IDField: "id",
	Schema: search.Schema{"id": search.TypeInteger, "gen": search.TypeInteger, "subject": search.TypeString, "body": search.TypeString}}

// wordsRecords is generation gen of n tickets: "printer" is in the subject
// of every third and in the body of every seventh.
func wordsRecords(gen, n int) [][]byte {
	out := make([][]byte, 0, n)
	for i := range n {
		subject := fmt.Sprintf("password reset request %d", i)
		if i%3 == 0 {
			subject = "printer jammed again"
		}
		body := "nothing to see here, the usual long description of a ticket that goes on for a while"
		if i%7 == 0 {
			body = "the printer toner leaks all over the desk, and the description goes on for a while"
		}
		out = append(out, fmt.Appendf(nil, `{"id":%d,"gen":%d,"subject":%q,"body":%q}`, i, gen, subject, body))
	}
	return out
}

// every returns the ids below n that keep says.
func every(n int, keep func(int) bool) []int {
	var out []int
	for i := range n {
		if keep(i) {
			out = append(out, i)
		}
	}
	return out
}

// wordColumnsOf returns the columns of the live table's word index of the
// copy of wordsSpec, and how many indexes it has.
func wordColumnsOf(t *testing.T, db *sql.DB) ([]string, int) {
	t.Helper()
	var live int64
	if err := db.QueryRow("SELECT live_table FROM tributary_entities WHERE connector = $1 AND entity = $2", wordsSpec.Connector, wordsSpec.Entity).Scan(&live); err != nil {
		t.Fatal(err)
	}
	table := "tributary_t" + strconv.FormatInt(live, 10) + "_words"
	rs, err := db.Query("SELECT column_name FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position", table)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	var cols []string
	for rs.Next() {
		var c string
		if err := rs.Scan(&c); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, c)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM pg_indexes WHERE tablename = $1", table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return cols, n
}

// A PostgreSQL copy's word index is one array of tagged words with one GIN
// index; a copy written before, with an array per word field, answers
// keyword and fuzzy searches and takes updates in its own layout until its
// next full load makes it tagged.
func TestWordsUntaggedPostgres(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	st, err := store.OpenPostgres(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const n = 300
	check := func(step string, want map[string][]int) {
		t.Helper()
		for filter, ids := range want {
			if got := idsOf(t, st, wordsSpec.Connector, wordsSpec.Entity, filter, false); !slices.Equal(got, ids) {
				t.Errorf("%s: %s: %v, want %v", step, filter, got, ids)
			}
		}
	}
	subjectPrinter := every(n, func(i int) bool { return i%3 == 0 })
	bodyPrinter := every(n, func(i int) bool { return i%7 == 0 })
	searches := map[string][]int{
		`{"keyword":{"subject":"printer"}}`:       subjectPrinter,
		`{"keyword":{"body":"printer"}}`:          bodyPrinter,
		`{"keyword":{"subject":"printer toner"}}`: subjectPrinter,
		`{"keyword":{"body":"printer toner"}}`:    bodyPrinter,
		`{"fuzzy":{"subject":"printr"}}`:          subjectPrinter,
		`{"fuzzy":{"body":"tonr"}}`:               bodyPrinter,
		`{"keyword":{"subject":"toner"}}`:         nil,
	}

	l, err := st.BeginFull(ctx, wordsSpec)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Write(ctx, wordsRecords(1, n), nil); err != nil {
		t.Fatal(err)
	}
	if err := l.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if cols, idx := wordColumnsOf(t, db); !slices.Equal(cols, []string{"rid", "w"}) || idx != 2 {
		t.Fatalf("a new copy's word index: columns %v and %d indexes, want [rid w] and 2 (its key, its GIN index)", cols, idx)
	}
	check("tagged", searches)

	// The copy as the store wrote it before: an array per word field.
	if err := store.UntagWordsPostgres(ctx, st, wordsSpec.Connector, wordsSpec.Entity); err != nil {
		t.Fatal(err)
	}
	cols, idx := wordColumnsOf(t, db)
	if len(cols) != 3 || cols[0] != "rid" || idx != 3 {
		t.Fatalf("the old layout: columns %v and %d indexes, want rid and two arrays, three indexes", cols, idx)
	}
	check("untagged", searches)

	u, err := st.BeginUpdate(ctx, wordsSpec)
	if err != nil {
		t.Fatal(err)
	}
	if err := u.Apply(ctx, [][]byte{
		[]byte(`{"id":0,"gen":2,"subject":"quarantined mailbox","body":"the printer is fine"}`),
		[]byte(`{"id":1000,"gen":2,"subject":"quarantined printer","body":"no toner"}`),
	}, [][]byte{[]byte(`{"id":3}`)}, nil); err != nil {
		t.Fatal(err)
	}
	if err := u.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	if c := u.Counts(); c != (store.Counts{Inserted: 1, Updated: 1, Deleted: 1}) {
		t.Errorf("counts %+v, want 1 inserted, 1 updated, 1 deleted", c)
	}
	if got, _ := wordColumnsOf(t, db); !slices.Equal(got, cols) {
		t.Errorf("after an update the word index has columns %v, want %v as before", got, cols)
	}
	updated := append(every(n, func(i int) bool { return i%3 == 0 && i != 0 && i != 3 }), 1000)
	check("untagged, updated", map[string][]int{
		`{"keyword":{"subject":"printer"}}`:     updated,
		`{"keyword":{"subject":"quarantined"}}`: {0, 1000},
		`{"keyword":{"body":"printer"}}`:        bodyPrinter,
		`{"keyword":{"body":"toner"}}`:          slices.Concat(bodyPrinter[1:], []int{1000}),
		`{"fuzzy":{"subject":"quarantine"}}`:    {0, 1000},
	})

	// The next full load replaces the table with a tagged one.
	l, err = st.BeginFull(ctx, wordsSpec)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Write(ctx, wordsRecords(3, n), nil); err != nil {
		t.Fatal(err)
	}
	if err := l.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if cols, idx := wordColumnsOf(t, db); !slices.Equal(cols, []string{"rid", "w"}) || idx != 2 {
		t.Fatalf("after a full load the word index has columns %v and %d indexes, want [rid w] and 2", cols, idx)
	}
	check("tagged again", searches)
}
