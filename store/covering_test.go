package store_test

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
)

// A copy with a string field of few values left without an index of its
// own and date-time fields gets the covering index (the state, then the
// two date-times most records have); filters and sorts on those fields
// alone are read from it.

var coveringSchema = search.Schema{
	"id": search.TypeInteger, "state": search.TypeString, "created": search.TypeDateTime,
	"updated": search.TypeDateTime, "due": search.TypeDateTime, "n": search.TypeNumber,
	// Fewer values than the state's: they take the indexes of their own
	// left after the date-times (DefaultIndexes), as a ticket's brand,
	// group and priority do.
	"brand": search.TypeInteger, "group": search.TypeInteger, "priority": search.TypeString,
}

var (
	states   = []string{"open", "pending", "solved", "closed", "new", "Open", ""}
	tsDates  = []string{"2024-01-05T10:00:00Z", "2024-01-05T12:00:00+02:00", "2024-02-01T00:00:00Z", "2023-12-31T23:59:59Z", "2024-03-10T08:30:00.5Z", "2024-06-30T23:00:00Z", "not a date", "2024"}
	tsFields = []string{"state", "created", "updated", "due", "n"}
)

// genCovered returns a record of coveringSchema; due is in a third.
func genCovered(r *rand.Rand, id int) []byte {
	rec := `{"id":` + strconv.Itoa(id)
	field := func(name string, v func() string, missing int) {
		switch r.IntN(missing) {
		case 0: // missing
		case 1:
			rec += `,"` + name + `":null`
		default:
			rec += `,"` + name + `":` + v()
		}
	}
	date := func() string { return jsonOf(pick(r, tsDates)) }
	field("state", func() string { return jsonOf(pick(r, states)) }, 12)
	field("created", date, 20)
	field("updated", date, 20)
	if r.IntN(3) == 0 {
		field("due", date, 20)
	}
	field("n", func() string { return pick(r, numbers) }, 8)
	field("brand", func() string { return strconv.Itoa(1 + r.IntN(3)) }, 8)
	field("group", func() string { return strconv.Itoa(10 + r.IntN(4)) }, 8)
	field("priority", func() string { return jsonOf(pick(r, []string{"low", "normal", "high", "urgent"})) }, 8)
	return []byte(rec + "}")
}

// genCoveredRequest returns a range of created and an eq or in of the
// state (the covering index's fields), sometimes with a condition on n
// (not in it), sorted by a field of the index or not.
func genCoveredRequest(r *rand.Rand) search.Request {
	var fs []search.Filter
	for range 1 + r.IntN(2) {
		v := pick(r, tsDates)
		switch r.IntN(4) {
		case 0:
			fs = append(fs, search.Gt("created", v))
		case 1:
			fs = append(fs, search.Gte("created", v))
		case 2:
			fs = append(fs, search.Lt("created", v))
		default:
			fs = append(fs, search.Lte("created", v))
		}
	}
	if r.IntN(2) == 0 {
		fs = append(fs, search.Eq("state", pick(r, states)))
	} else {
		fs = append(fs, search.In("state", pick(r, states), pick(r, states), pick(r, states)))
	}
	if r.IntN(5) == 0 {
		fs = append(fs, search.Gt("n", pick(r, numbers)))
	}
	sort := search.Desc(pick(r, tsFields))
	if r.IntN(2) == 0 {
		sort.Order = search.OrderAsc
	}
	req := search.Request{Limit: 1 + r.IntN(30), Query: search.Query{Filter: search.And(fs...).Ptr(), Sort: []search.SortItem{sort}}}
	if r.IntN(3) == 0 {
		req.Query.Sort = append(req.Query.Sort, search.Asc(pick(r, tsFields)))
	}
	return req
}

// TestDifferentialCovering: sorted requests on the covering index's
// fields against the reference, with the threshold of a broad filter at
// 1 to 250 and the default, so that the read behind its count, the count
// that stops it, and the read in the order's index are all reached; and
// the index is there.
func TestDifferentialCovering(t *testing.T) {
	t.Parallel()
	file := t.TempDir() + "/covering.db"
	st, err := store.OpenSQLite(context.Background(), file)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ix := loadCovered(t, st, 600)
	db, err := sql.Open("sqlite", "file:"+file+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var def string
	if err := db.QueryRow("SELECT sql FROM sqlite_master WHERE type = 'index' AND name LIKE '%\\_covering' ESCAPE '\\'").Scan(&def); err != nil {
		t.Fatalf("the copy has no covering index: %v", err)
	}
	if want := "(k7, k1, k8, idkey, deleted_at)"; !strings.HasSuffix(def, want) {
		t.Fatalf("the covering index is %s, want its columns the state's, created's and updated's: %s", def, want)
	}
	diffCovered(t, st, ix)
}

// TestDifferentialCoveringPostgres: the same on PostgreSQL, whose copy
// gets the covering index too (its planner chooses whether to read it).
func TestDifferentialCoveringPostgres(t *testing.T) {
	t.Parallel()
	st := diffPostgres(t)
	diffCovered(t, st, loadCovered(t, st, 600))
}

func diffCovered(t *testing.T, st *store.Store, ix *search.Index) {
	for _, broad := range []int{1, 8, 60, 250, 20000} {
		t.Run(strconv.Itoa(broad), func(t *testing.T) {
			store.SetBroadFilter(st, broad)
			r := rand.New(rand.NewPCG(uint64(broad), 31))
			diffRequests(t, st, ix, diffQueryCount(), func() search.Request { return genCoveredRequest(r) })
		})
	}
}

// loadCovered writes n records of coveringSchema (ids out of order) into
// st's copy diff/things, and returns the reference index of them.
func loadCovered(t *testing.T, st *store.Store, n int) *search.Index {
	t.Helper()
	r := rand.New(rand.NewPCG(3, 4))
	var recs [][]byte
	for i := range n {
		recs = append(recs, genCovered(r, i*7%n))
	}
	return loadThings(t, st, coveringSchema, recs)
}
