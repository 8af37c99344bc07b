package search

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// randomLiteral returns a JSON value of every class the order knows, with
// the edge cases of each: numbers written many ways, date-times in several
// zones and precisions, strings that are almost date-times.
func randomLiteral(r *rand.Rand) string {
	switch r.IntN(9) {
	case 0:
		return []string{"true", "false", "null"}[r.IntN(3)]
	case 1, 2:
		ints := []string{"0", "-0", "0.0", "1", "-1", "10", "1e1", "1.0e1", "100", "99", "-99", "9007199254740993", "9007199254740992",
			"18446744073709551616", "-18446744073709551617", "0.5", "-0.5", "5e-1", "0.05", "-0.050", "1.5", "12", "123", "-12", "-123", "1e300", "-1e-300", "3.14159"}
		if r.IntN(3) == 0 {
			return fmt.Sprintf("%d", r.Int64N(2000)-1000)
		}
		if r.IntN(3) == 0 {
			return fmt.Sprintf("%d.%d", r.IntN(200)-100, r.IntN(100))
		}
		return ints[r.IntN(len(ints))]
	case 3, 4:
		dates := []string{`"2024-01-05T10:00:00Z"`, `"2024-01-05T12:00:00+02:00"`, `"2024-01-05T10:00:00.000001Z"`, `"2024-01-05T10:00:00.0000001Z"`,
			`"2024-01-05T10:00:00.00000001Z"`, `"1969-12-31T23:59:59Z"`, `"0001-01-01T00:00:00Z"`, `"9999-12-31T23:59:59.999999999Z"`, `"2024-01-05T09:59:59.999Z"`,
			`"2024-13-05T10:00:00Z"`, `"2024-01-05"`, `"2024-01-05T10:00:00"`}
		return dates[r.IntN(len(dates))]
	case 5, 6:
		strs := []string{`""`, `"a"`, `"ab"`, `"b"`, `"A"`, `"é"`, `"e\u0301"`, `"\u0000"`, `"a\u0000"`, `"open"`, `"pending"`, `"2024"`, `"zz"`}
		return strs[r.IntN(len(strs))]
	case 7:
		return []string{`[]`, `[1]`, `["a"]`}[r.IntN(3)]
	}
	return []string{`{}`, `{"a":1}`}[r.IntN(2)]
}

func parseLiteral(t *testing.T, s string) node {
	t.Helper()
	n, err := parseJSON(s, true)
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return n
}

// TestKeysOrderAsValues: bytes.Compare of two order keys is the
// reference's sort order of the values, and equal keys are equal values
// (eq), over many pairs of every class.
func TestKeysOrderAsValues(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		as, bs := randomLiteral(r), randomLiteral(r)
		a, b := parseLiteral(t, as), parseLiteral(t, bs)
		ka, aok := appendKey(nil, &a)
		kb, bok := appendKey(nil, &b)
		if aok != (a.k != kNull) || bok != (b.k != kNull) {
			t.Fatalf("%s / %s: a key for null, or none for a value", as, bs)
		}
		if !aok || !bok {
			continue
		}
		if got, want := bytes.Compare(ka, kb), sortCmp(&a, &b); got != want {
			t.Fatalf("%s vs %s: keys compare %d, values %d", as, bs, got, want)
		}
		if a.k != kArr && a.k != kObj && b.k != kArr && b.k != kObj {
			if eq := equal(&a, &b); eq != bytes.Equal(ka, kb) {
				t.Fatalf("%s vs %s: equal %v, keys equal %v", as, bs, eq, bytes.Equal(ka, kb))
			}
		}
	}
}

// TestEvaluatorMatchesIndex: the record-at-a-time Evaluator gives the
// Index's hits and scores, over generated records and filters.
func TestEvaluatorMatchesIndex(t *testing.T) {
	schema := Schema{"id": TypeInteger, "status": TypeString, "n": TypeNumber, "at": TypeString, "tags": TypeArray, "subject": TypeString, "via": TypeObject}
	r := rand.New(rand.NewPCG(3, 4))
	var recs [][]byte
	subjects := []string{"password reset", "Pasword resett please", "billing issue", "refund", "login fails", "Reset my password now", ""}
	for i := range 300 {
		recs = append(recs, fmt.Appendf(nil, `{"id":%d,"status":%s,"n":%s,"at":%s,"tags":[%s],"subject":%q,"via":{"channel":%s}}`,
			i, randomLiteral(r), randomLiteral(r), randomLiteral(r), randomLiteral(r), subjects[r.IntN(len(subjects))], randomLiteral(r)))
	}
	ix, err := NewIndex(schema, "id", recs)
	if err != nil {
		t.Fatal(err)
	}
	filters := []Filter{
		Eq("status", "open"), Neq("n", 1), Gt("n", 0), Lte("at", "2024-01-05T10:00:00Z"), In("status", "a", nil, "open"),
		Like("subject", "%pass%"), Keyword("subject", "password refund"), Fuzzy("subject", "pasword reset"),
		Contains("tags", 1), Any("tags", Eq("a", 1)), Not(Fuzzy("subject", "billing")),
		Or(Keyword("subject", "reset"), Fuzzy("subject", "logn")), And(Gte("n", -1), Lt("n", 100)), Eq("via.channel", "a"),
	}
	for _, f := range filters {
		req := Request{Query: Query{Filter: f.Ptr()}, Limit: 1000}
		want, err := ix.Search(req)
		if err != nil {
			t.Fatalf("%v: %v", f, err)
		}
		ev, err := NewEvaluator(schema, "id", req)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]float64{}
		for _, rec := range recs {
			ok, s, err := ev.Match(rec)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				h, err := ev.Hit(rec, s)
				if err != nil {
					t.Fatal(err)
				}
				got[h.ID] = h.Score
			}
		}
		if len(got) != len(want.Hits) {
			t.Errorf("%v: %d hits, the index %d", f, len(got), len(want.Hits))
		}
		for _, h := range want.Hits {
			if s, ok := got[h.ID]; !ok || s != h.Score {
				t.Errorf("%v: hit %s scored %v (found %v), the index %v", f, h.ID, s, ok, h.Score)
			}
		}
	}
}
