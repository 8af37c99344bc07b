package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
)

// The differential test: the same generated records in a store and in the
// reference search.Index, the same generated requests (thousands, every
// operator, nested, sorted, paged with cursors, projected) against both:
// every page must be identical, hit for hit, score for score, cursor for
// cursor; a request the reference refuses must be refused alike.

var diffSchema = search.Schema{
	"id": search.TypeInteger, "status": search.TypeString, "n": search.TypeNumber, "count": search.TypeInteger,
	"at": search.TypeString, "a": search.TypeAny, "tags": search.TypeArray, "subject": search.TypeString,
	"via": search.TypeObject, "flag": search.TypeBoolean, "props.email": search.TypeString,
	"body": search.TypeString, // long: no key column, so the Evaluator decides
}

var (
	statuses = []string{"open", "pending", "solved", "Open", "new", "closed", "2024-01-05T10:00:00Z", ""}
	numbers  = []string{"0", "-0", "0.0", "1", "-1", "10", "1e1", "1.5", "-1.5", "2", "3.0", "100", "99.99", "9007199254740993", "-7", "1e-3", "0.001", "12345678901234567890"}
	dates    = []string{"2024-01-05T10:00:00Z", "2024-01-05T12:00:00+02:00", "2024-01-05T10:00:00.5Z", "2024-02-01T00:00:00Z", "2023-12-31T23:59:59Z",
		"2024-01-05T09:00:00-01:00", "2025-06-01T08:30:00.123456789Z", "not a date", "2024-01-05", "zzz", "2024"}
	vocab = []string{"password", "pasword", "reset", "resett", "billing", "refund", "login", "fails", "naïve", "café", "Résumé", "reset!", "PASSWORD",
		"account", "acount", "locked", "help", "urgent", "the", "a", "invoice", "invoices", "2fa", "émoji", "straße", "strasse"}
)

func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

func genText(r *rand.Rand) string {
	n := r.IntN(5)
	s := ""
	for i := range n {
		if i > 0 {
			s += pick(r, []string{" ", ", ", "-", " / "})
		}
		s += pick(r, vocab)
	}
	return s
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func genRecord(r *rand.Rand, id int) []byte {
	m := map[string]json.RawMessage{"id": json.RawMessage(strconv.Itoa(id))}
	maybe := func(name string, v func() string) {
		switch r.IntN(8) {
		case 0: // missing
		case 1:
			m[name] = json.RawMessage("null")
		default:
			m[name] = json.RawMessage(v())
		}
	}
	maybe("status", func() string { return jsonOf(pick(r, statuses)) })
	maybe("n", func() string { return pick(r, numbers) })
	maybe("count", func() string {
		if r.IntN(10) == 0 {
			return jsonOf(pick(r, dates)) // not what the catalogue says, as vendors do
		}
		return strconv.Itoa(r.IntN(20) - 5)
	})
	maybe("at", func() string { return jsonOf(pick(r, dates)) })
	maybe("a", func() string {
		switch r.IntN(5) {
		case 0:
			return pick(r, numbers)
		case 1:
			return jsonOf(pick(r, dates))
		case 2:
			return pick(r, []string{"true", "false", "[1,2]", `{"x":1}`})
		}
		return jsonOf(pick(r, statuses))
	})
	maybe("tags", func() string {
		var tags []any
		for range r.IntN(4) {
			if r.IntN(3) == 0 {
				tags = append(tags, map[string]any{"name": pick(r, statuses), "n": r.IntN(3)})
			} else {
				tags = append(tags, pick(r, []any{"vip", "beta", 1, 2.5, "open", true}))
			}
		}
		return jsonOf(tags)
	})
	maybe("subject", func() string { return jsonOf(genText(r)) })
	maybe("via", func() string {
		return jsonOf(map[string]any{"channel": pick(r, []string{"email", "web", "api", "Email"})})
	})
	maybe("body", func() string {
		return jsonOf(genText(r) + " " + strings.Repeat("lorem ipsum dolor sit amet ", 3+r.IntN(3)) + genText(r))
	})
	maybe("flag", func() string { return pick(r, []string{"true", "false"}) })
	maybe("props", func() string { return jsonOf(map[string]any{"email": pick(r, []string{"a@x.io", "b@x.io", "A@x.io"})}) })
	b, _ := json.Marshal(m)
	return b
}

// genValue returns a value suited to a field (mostly), for comparisons.
func genValue(r *rand.Rand, field string) any {
	switch field {
	case "status", "props.email":
		return pick(r, append(statuses, "a@x.io", "b"))
	case "n":
		return json.Number(pick(r, numbers))
	case "count", "id":
		if r.IntN(4) == 0 {
			return strconv.Itoa(r.IntN(30) - 5) // an integer spelled as a string
		}
		return r.IntN(30) - 5
	case "at":
		return pick(r, dates)
	case "flag":
		if r.IntN(4) == 0 {
			return strconv.FormatBool(r.IntN(2) == 0)
		}
		return r.IntN(2) == 0
	case "subject", "body":
		return genText(r)
	}
	switch r.IntN(4) {
	case 0:
		return json.Number(pick(r, numbers))
	case 1:
		return pick(r, dates)
	case 2:
		return r.IntN(2) == 0
	}
	return pick(r, statuses)
}

var scalarFields = []string{"id", "status", "n", "count", "at", "a", "subject", "flag", "props.email", "via.channel", "body"}

func genFilter(r *rand.Rand, depth int) search.Filter {
	if depth > 0 && r.IntN(3) == 0 {
		switch r.IntN(3) {
		case 0:
			return search.Not(genFilter(r, depth-1))
		case 1:
			var fs []search.Filter
			for range r.IntN(4) {
				fs = append(fs, genFilter(r, depth-1))
			}
			return search.And(fs...)
		default:
			var fs []search.Filter
			for range r.IntN(4) {
				fs = append(fs, genFilter(r, depth-1))
			}
			return search.Or(fs...)
		}
	}
	f := pick(r, scalarFields)
	switch r.IntN(12) {
	case 0:
		return search.Eq(f, genValue(r, f))
	case 1:
		if r.IntN(4) == 0 {
			return search.Eq(f, nil)
		}
		return search.Neq(f, genValue(r, f))
	case 2:
		return search.Gt(f, genValue(r, f))
	case 3:
		return search.Gte(f, genValue(r, f))
	case 4:
		return search.Lt(f, genValue(r, f))
	case 5:
		return search.Lte(f, genValue(r, f))
	case 6:
		vs := []any{}
		for range r.IntN(4) {
			vs = append(vs, genValue(r, f))
		}
		if r.IntN(5) == 0 {
			vs = append(vs, nil)
		}
		return search.In(f, vs...)
	case 7:
		return search.Like(pick(r, []string{"status", "subject", "at", "a", "props.email", "body"}), pick(r, []string{"%pass%", "OPEN", "o%", "%e_", "2024%", "%", "_", `\%`, "%reset%"}))
	case 8:
		return search.Keyword(pick(r, []string{"subject", "status", "a", "at", "body"}), genText(r))
	case 9:
		return search.Fuzzy(pick(r, []string{"subject", "status", "a", "body"}), genText(r))
	case 10:
		return search.Contains("tags", pick(r, []any{"vip", 1, 2.5, true, "open", nil}))
	}
	return search.Any("tags", pick(r, []search.Filter{search.Eq("name", pick(r, statuses)), search.Gte("n", 1), search.Like("name", "o%")}))
}

func genRequest(r *rand.Rand) search.Request {
	req := search.Request{Limit: 1 + r.IntN(40)}
	if r.IntN(8) > 0 {
		f := genFilter(r, 3)
		req.Query.Filter = &f
	}
	for range r.IntN(3) {
		f := pick(r, append(scalarFields, "tags", "via"))
		if r.IntN(2) == 0 {
			req.Query.Sort = append(req.Query.Sort, search.Asc(f))
		} else {
			req.Query.Sort = append(req.Query.Sort, search.Desc(f))
		}
	}
	if r.IntN(4) == 0 {
		req.Fields = []search.Path{{"id"}, {"status"}, {"via", "channel"}}
	}
	return req
}

// loadBoth puts n generated records into st (as connector "diff") and the
// reference Index.
func loadBoth(t testing.TB, st *store.Store, seed uint64, n int) *search.Index {
	t.Helper()
	return loadIDs(t, st, seed, n, func(i int) int { return i * 7 % n })
}

// loadIDs is loadBoth with the i-th record written having the id id(i).
func loadIDs(t testing.TB, st *store.Store, seed uint64, n int, id func(int) int) *search.Index {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed+1))
	var recs [][]byte
	for i := range n {
		recs = append(recs, genRecord(r, id(i)))
	}
	return loadThings(t, st, diffSchema, recs)
}

// loadThings writes recs of schema, 37 a page, as the copy diff/things of
// st in one full load, and returns the reference index of them.
func loadThings(t testing.TB, st *store.Store, schema search.Schema, recs [][]byte) *search.Index {
	t.Helper()
	ix, err := search.NewIndex(schema, "id", recs)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	l, err := st.BeginFull(ctx, store.Spec{Connector: "diff", Entity: "things", Schema: schema, IDField: "id"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(recs); i += 37 {
		if err := l.Write(ctx, recs[i:min(i+37, len(recs))], nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	return ix
}

// diffQueries runs count generated requests against st and ix and fails
// on the first difference.
func diffQueries(t *testing.T, st *store.Store, ix *search.Index, seed uint64, count int) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 99))
	diffRequests(t, st, ix, count, func() search.Request { return genRequest(r) })
}

// diffRequests runs count requests of gen against st and ix and fails on
// the first difference.
func diffRequests(t *testing.T, st *store.Store, ix *search.Index, count int, gen func() search.Request) {
	t.Helper()
	ctx := context.Background()
	for q := range count {
		req := gen()
		for page := 0; page < 3; page++ {
			want, werr := ix.Search(req)
			got, gerr := st.Search(ctx, "diff", "things", req)
			js, _ := json.Marshal(req)
			if werr != nil || gerr != nil {
				var se *search.Error
				if werr == nil || gerr == nil || !errors.As(gerr, &se) || werr.Error() != gerr.Error() {
					t.Fatalf("request %d page %d %s:\n reference error: %v\n store error:     %v", q, page, js, werr, gerr)
				}
				break
			}
			want.TookMS, got.TookMS = 0, 0
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("request %d page %d %s differs (-reference +store):\n%s", q, page, js, d)
			}
			if want.NextCursor == nil {
				break
			}
			req.Cursor = *want.NextCursor
		}
	}
}

// diffQueryCount is how many requests the differential tests run: 30 in
// the README's test command (and in CI's run of it under -race), and
// TRIBUTARY_DIFF_QUERIES in CI's longer run of them (.ci/run: 2000,
// without -race), where the number of requests is what finds a rare
// disagreement. The generators are seeded: the README's 30 are the first
// 30 of CI's 2,000. The queries, not the loads, are the tests' time (at
// 100 they took 48 s of CPU, at 1 five).
func diffQueryCount() int {
	if s := os.Getenv("TRIBUTARY_DIFF_QUERIES"); s != "" {
		if n, err := strconv.Atoi(s); err == nil {
			return n
		}
	}
	return 30
}

func TestDifferentialSQLite(t *testing.T) {
	t.Parallel()
	st := diffSQLite(t, "diff")
	ix := loadBoth(t, st, 7, 600)
	n := diffQueryCount()
	diffQueries(t, st, ix, 11, n)
}

func TestDifferentialPostgres(t *testing.T) {
	t.Parallel()
	st := diffPostgres(t)
	ix := loadBoth(t, st, 7, 600)
	n := diffQueryCount()
	diffQueries(t, st, ix, 11, n)
}

// genRange returns an and of comparisons, several of them on one field
// (which the store turns into one range), and maybe another condition.
func genRange(r *rand.Rand) search.Request {
	f := pick(r, scalarFields)
	var fs []search.Filter
	for range 2 + r.IntN(3) {
		v := genValue(r, f)
		switch r.IntN(4) {
		case 0:
			fs = append(fs, search.Gt(f, v))
		case 1:
			fs = append(fs, search.Gte(f, v))
		case 2:
			fs = append(fs, search.Lt(f, v))
		default:
			fs = append(fs, search.Lte(f, v))
		}
	}
	if r.IntN(2) == 0 {
		fs = slices.Insert(fs, r.IntN(len(fs)+1), genFilter(r, 1))
	}
	req := search.Request{Limit: 1 + r.IntN(40), Query: search.Query{Filter: search.And(fs...).Ptr()}}
	if r.IntN(2) == 0 {
		req.Query.Sort = []search.SortItem{search.Desc(pick(r, scalarFields))}
	}
	return req
}

// TestDifferentialRanges: ands of comparisons on one field, whose bounds
// the store merges into one range, against the reference.
func TestDifferentialRanges(t *testing.T) {
	t.Parallel()
	st := diffSQLite(t, "ranges")
	ix := loadBoth(t, st, 7, 600)
	r := rand.New(rand.NewPCG(13, 99))
	diffRequests(t, st, ix, diffQueryCount(), func() search.Request { return genRange(r) })
}

func TestDifferentialRangesPostgres(t *testing.T) {
	t.Parallel()
	st := diffPostgres(t)
	ix := loadBoth(t, st, 7, 600)
	r := rand.New(rand.NewPCG(13, 99))
	diffRequests(t, st, ix, diffQueryCount(), func() search.Request { return genRange(r) })
}

// genScored returns a request ordered by score: a keyword or fuzzy,
// alone or beside a condition that does not score, which the store ranks
// by levels of score.
func genScored(r *rand.Rand) search.Request {
	var f search.Filter
	field := pick(r, []string{"subject", "body", "status"})
	text := genText(r) + " " + genText(r)
	if r.IntN(2) == 0 {
		f = search.Keyword(field, text)
	} else {
		f = search.Fuzzy(field, text)
	}
	if r.IntN(3) == 0 {
		f = search.And(f, search.Not(search.Eq("status", pick(r, statuses))))
	}
	return search.Request{Limit: 1 + r.IntN(20), Query: search.Query{Filter: &f}}
}

// TestDifferentialScored: requests ranked by score (the store's levels of
// score, one word index query each) against the reference.
func TestDifferentialScored(t *testing.T) {
	t.Parallel()
	st := diffSQLite(t, "scored")
	ix := loadBoth(t, st, 7, 600)
	r := rand.New(rand.NewPCG(17, 99))
	diffRequests(t, st, ix, diffQueryCount(), func() search.Request { return genScored(r) })
}

// TestDifferentialBroad: sorted requests with the threshold of a broad
// filter small enough for 600 records to reach every plan: one pass that
// collects and sorts the matches, its fallback to the order's index when
// the filter turns out broad, and (SQLite) the count before a page that
// ends past the threshold.
func TestDifferentialBroad(t *testing.T) {
	t.Parallel()
	st := diffSQLite(t, "broad")
	diffBroad(t, st)
}

func TestDifferentialBroadPostgres(t *testing.T) {
	t.Parallel()
	st := diffPostgres(t)
	diffBroad(t, st)
}

func diffBroad(t *testing.T, st *store.Store) {
	ix := loadBoth(t, st, 7, 600)
	for _, broad := range []int{1, 8, 60, 250} {
		t.Run(strconv.Itoa(broad), func(t *testing.T) {
			store.SetBroadFilter(st, broad)
			r := rand.New(rand.NewPCG(uint64(broad), 5))
			diffRequests(t, st, ix, diffQueryCount()/2, func() search.Request {
				req := genRequest(r)
				if r.IntN(2) == 0 {
					req = genRange(r)
				}
				if len(req.Query.Sort) == 0 {
					req.Query.Sort = []search.SortItem{search.Desc(pick(r, scalarFields))}
				}
				return req
			})
		})
	}
}

// TestDifferentialRowOrder: requests in id order over copies written in
// id order, which SQLite reads in the order of its rows (checking that it
// is the ids'), and over one written in id order but for a few records
// written last, whose smaller ids the check must see.
func TestDifferentialRowOrder(t *testing.T) {
	const n = 600
	late := func(i int) bool { return i%97 == 5 }
	var lateLast []int
	for i := range n {
		if !late(i) {
			lateLast = append(lateLast, i)
		}
	}
	for i := range n {
		if late(i) {
			lateLast = append(lateLast, i)
		}
	}
	for _, c := range []struct {
		name string
		id   func(int) int
	}{
		{"ordered", func(i int) int { return i }},
		{"late", func(i int) int { return lateLast[i] }},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := diffSQLite(t, "roworder-"+c.name)
			ix := loadIDs(t, st, 7, n, c.id)
			r := rand.New(rand.NewPCG(23, 99))
			diffRequests(t, st, ix, diffQueryCount(), func() search.Request {
				var req search.Request
				switch r.IntN(3) {
				case 0:
					req = genRequest(r)
				case 1:
					req = genScored(r)
				default:
					// One word: a keyword exactly its word index's match.
					f := search.Keyword(pick(r, []string{"subject", "body", "status"}), pick(r, vocab))
					req = search.Request{Limit: 1 + r.IntN(30), Query: search.Query{Filter: &f}}
					if r.IntN(4) == 0 {
						req.Fields = []search.Path{{"id"}, {"subject"}}
					}
				}
				req.Query.Sort = nil
				return req
			})
		})
	}
}

func TestDifferentialScoredPostgres(t *testing.T) {
	t.Parallel()
	st := diffPostgres(t)
	ix := loadBoth(t, st, 7, 600)
	r := rand.New(rand.NewPCG(17, 99))
	diffRequests(t, st, ix, diffQueryCount(), func() search.Request { return genScored(r) })
}

// diffSQLite opens a store in a new SQLite file of the test's, closed at
// its end.
func diffSQLite(t *testing.T, name string) *store.Store {
	t.Helper()
	st, err := store.OpenSQLite(context.Background(), t.TempDir()+"/"+name+".db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// diffPostgres opens a store in the test's PostgreSQL database, closed at
// its end.
func diffPostgres(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.OpenPostgres(context.Background(), pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
