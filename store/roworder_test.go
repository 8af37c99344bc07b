package store_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
)

// TestRowOrderRun: a full load records the run of rows, from the first,
// that it wrote in id order, and no further: the whole copy when it wrote
// every record in id order, up to the first record out of order, and up
// to the page before one that wrote records the table already held.
func TestRowOrderRun(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(5, 6))
	recs := func(ids ...int) [][]byte {
		var out [][]byte
		for _, id := range ids {
			out = append(out, genRecord(r, id))
		}
		return out
	}
	seq := func(from, to int) []int {
		var ids []int
		for i := from; i < to; i++ {
			ids = append(ids, i)
		}
		return ids
	}
	for _, c := range []struct {
		name  string
		pages [][]int
		want  int64
	}{
		{"ordered", [][]int{seq(0, 37), seq(37, 74), seq(74, 100)}, 100},
		// The id 5 after 39: the run ends at 39's row (the 39th).
		{"late", [][]int{seq(0, 5), seq(6, 37), append(seq(37, 40), 5)}, 39},
		// A page written again: the INSERT fails on an id the table
		// holds, the page is upserted, and the run ends before it.
		{"again", [][]int{seq(0, 30), seq(20, 40)}, 30},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := diffSQLite(t, "run-"+c.name)
			l, err := st.BeginFull(ctx, store.Spec{Connector: "diff", Entity: "things", Schema: diffSchema, IDField: "id"})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range c.pages {
				if err := l.Write(ctx, recs(p...), nil); err != nil {
					t.Fatal(err)
				}
			}
			if err := l.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			got, err := store.InOrderRun(ctx, st, "diff", "things")
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("run through rid %d, want %d", got, c.want)
			}
		})
	}
}

// TestDifferentialRowOrderUpdated: searches in id order over a copy whose
// full load wrote it in id order (a run of rows the search trusts) and
// which incremental updates then changed: records of smaller ids written
// after the run, which a page read in the order of the rows must not miss,
// more records after the run than the search looks at, the last of a
// smaller id (it probes the id index instead), and a second full load,
// out of order, swapped in.
func TestDifferentialRowOrderUpdated(t *testing.T) {
	ctx := context.Background()
	sp := store.Spec{Connector: "diff", Entity: "things", Schema: diffSchema, IDField: "id"}
	s := diffSQLite(t, "roworder-updated")
	r := rand.New(rand.NewPCG(41, 42))
	byID := map[int][]byte{}
	var ids []int
	put := func(id int) []byte {
		if _, ok := byID[id]; !ok {
			ids = append(ids, id)
		}
		byID[id] = genRecord(r, id)
		return byID[id]
	}
	reference := func() *search.Index {
		var recs [][]byte
		for _, id := range ids {
			recs = append(recs, byID[id])
		}
		ix, err := search.NewIndex(diffSchema, "id", recs)
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	update := func(add ...int) {
		t.Helper()
		var recs [][]byte
		for _, id := range add {
			recs = append(recs, put(id))
		}
		u, err := s.BeginUpdate(ctx, sp)
		if err != nil {
			t.Fatal(err)
		}
		if err := u.Apply(ctx, recs, nil, nil); err != nil {
			t.Fatal(err)
		}
		if err := u.Finish(ctx); err != nil {
			t.Fatal(err)
		}
	}
	gen := func() search.Request {
		var req search.Request
		if r.IntN(2) == 0 {
			// One word: a keyword exactly its word index's match.
			f := search.Keyword(pick(r, []string{"subject", "body", "status"}), pick(r, vocab))
			req = search.Request{Limit: 1 + r.IntN(30), Query: search.Query{Filter: &f}}
		} else {
			req = genRequest(r)
		}
		req.Query.Sort = nil
		return req
	}
	// The copy: ids 1,000 to 1,599 in id order.
	var recs [][]byte
	for i := 1000; i < 1600; i++ {
		recs = append(recs, put(i))
	}
	loadThings(t, s, diffSchema, recs)
	if run, err := store.InOrderRun(ctx, s, "diff", "things"); err != nil || run != 600 {
		t.Fatalf("run through rid %d (%v), want 600", run, err)
	}
	t.Run("more rows after the run than it reads", func(t *testing.T) {
		var add []int
		for i := 1600; i < 1700; i++ {
			add = append(add, i)
		}
		// The smaller id past the rows the search reads after the run.
		update(append(add, 7)...)
		diffRequests(t, s, reference(), diffQueryCount(), gen)
	})
	t.Run("smaller ids after the run", func(t *testing.T) {
		update(3, 500, 999)
		diffRequests(t, s, reference(), diffQueryCount(), gen)
	})
	t.Run("a full load out of order swapped in", func(t *testing.T) {
		var recs [][]byte
		for i := len(ids) - 1; i >= 0; i-- {
			recs = append(recs, put(ids[i]))
		}
		loadThings(t, s, diffSchema, recs)
		// 999 (updated last), then 500: the run ends at 999.
		if run, err := store.InOrderRun(ctx, s, "diff", "things"); err != nil || run != 1 {
			t.Fatalf("run through rid %d (%v), want 1", run, err)
		}
		diffRequests(t, s, reference(), diffQueryCount(), gen)
	})
}

// TestDifferentialKeywordPostgres: keywords in id order on PostgreSQL,
// of one word (a page of the word index's matches, read without deciding
// them) and of two (each decided), paged with cursors, over records
// written in and out of id order.
func TestDifferentialKeywordPostgres(t *testing.T) {
	t.Parallel()
	st := diffPostgres(t)
	const n = 600
	ix := loadIDs(t, st, 7, n, func(i int) int { return (i * 7) % n })
	r := rand.New(rand.NewPCG(29, 99))
	diffRequests(t, st, ix, diffQueryCount(), func() search.Request {
		text := pick(r, vocab)
		if r.IntN(3) == 0 {
			text += " " + pick(r, vocab)
		}
		f := search.Keyword(pick(r, []string{"subject", "body", "status"}), text)
		req := search.Request{Limit: 1 + r.IntN(30), Query: search.Query{Filter: &f}}
		if r.IntN(4) == 0 {
			req.Fields = []search.Path{{"id"}, {"subject"}}
		}
		return req
	})
}
