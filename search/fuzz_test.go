package search

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// FuzzDecodeFilter decodes random JSON into a Request: it never panics, every
// refusal of valid JSON is an *Error, and whatever decodes re-encodes to JSON
// that decodes to an equal Request. It also checks the package's JSON parser
// against encoding/json's notion of validity.
func FuzzDecodeFilter(f *testing.F) {
	for _, s := range []string{
		`{"query":{"filter":{"eq":{"status":"open"}}}}`,
		`{"query":{"filter":{"and":[{"eq":{"status":"open"}},{"gt":{"priority":1}}],"not":{"in":{"tags":["a",1,null,true]}}},"sort":[{"created_at":"desc"}]},"limit":10,"cursor":"x","fields":["id",["via","channel"]]}`,
		`{"query":{"filter":{"any":{"labels":{"like":{"name":"v%\\_"}}},"fuzzy":{"subject":"pasword reset"},"keyword":{"[\"a.b\",\"c\"]":"x y"}}}}`,
		`{"query":{"filter":{"or":[]}},"limit":1e2}`,
		`{"query":{"filter":{"contains":{"tags":9007199254740993}},"sort":[{"a":"up"}]}}`,
		`{"query":{}}`,
		`[1,{"a":"\ud83d\ude00"}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, perr := parseJSON(string(data), true)
		valid := json.Valid(data)
		if perr == nil && !valid {
			t.Fatalf("parser accepted invalid JSON %q", data)
		}
		if perr != nil && valid && !strings.Contains(perr.Error(), "nesting") {
			t.Fatalf("parser refused valid JSON %q: %v", data, perr)
		}

		var r Request
		if err := json.Unmarshal(data, &r); err != nil {
			if valid && !errors.Is(err, ErrInvalidQuery) {
				t.Fatalf("refusal without ErrInvalidQuery: %v", err)
			}
			return
		}
		_ = r.Validate(ticketSchema)
		_ = r.Validate(nil)
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("decoded %q but cannot encode it: %v", data, err)
		}
		var r2 Request
		if err := json.Unmarshal(b, &r2); err != nil {
			t.Fatalf("re-encoded %s does not decode: %v", b, err)
		}
		if !reflect.DeepEqual(r, r2) {
			t.Fatalf("round trip differs:\n%q\n%s\n%#v\n%#v", data, b, r, r2)
		}
	})
}

// gen turns fuzz bytes into search requests over the ticket dataset, so that
// most inputs are valid and reach the evaluator.
type gen struct {
	b []byte
	i int
}

func (g *gen) next() int {
	if g.i >= len(g.b) {
		return 0
	}
	c := g.b[g.i]
	g.i++
	return int(c)
}

var (
	genFields = []string{"id", "status", "priority", "subject", "tags", "labels", "created_at", "requester.name", "requester.email", "via.channel", "amount", "vip", "assignee_id", "big", "custom", "custom.size", "name", "weight", "nope"}
	genValues = []any{nil, true, false, 0, 1, 2, -3, 0.1, 1e2, json.Number("9007199254740993"), "open", "vip", "%re%", "_nv%", `\%`, "pasword", "2024-01-05T10:00:00Z", "", "refund invoice", "Ada Example", "é"}
	genOps    = []Op{OpEq, OpNeq, OpGt, OpGte, OpLt, OpLte, OpIn, OpLike, OpFuzzy, OpKeyword, OpContains, OpAny, OpNot, OpAnd, OpOr}
)

func (g *gen) filter(depth int) Filter {
	op := genOps[g.next()%len(genOps)]
	if depth > 5 && (op == OpAny || op == OpNot || op == OpAnd || op == OpOr) {
		op = OpEq
	}
	field := genFields[g.next()%len(genFields)]
	switch op {
	case OpNot:
		return Not(g.filter(depth + 1))
	case OpAnd, OpOr:
		fs := make([]Filter, g.next()%4)
		for i := range fs {
			fs[i] = g.filter(depth + 1)
		}
		if op == OpAnd {
			return And(fs...)
		}
		return Or(fs...)
	case OpAny:
		return Any(field, g.filter(depth+1))
	case OpIn:
		vs := make([]any, g.next()%4)
		for i := range vs {
			vs[i] = genValues[g.next()%len(genValues)]
		}
		return In(field, vs...)
	}
	return build(op, field, genValues[g.next()%len(genValues)])
}

func (g *gen) request() Request {
	r := Request{Limit: g.next() % 8}
	if g.next()%4 != 0 {
		r.Query.Filter = g.filter(0).Ptr()
	}
	for range g.next() % 3 {
		it := Asc(genFields[g.next()%len(genFields)])
		if g.next()%2 == 1 {
			it.Order = OrderDesc
		}
		r.Query.Sort = append(r.Query.Sort, it)
	}
	for range g.next() % 3 {
		p, _ := ParsePath(genFields[g.next()%len(genFields)])
		r.Fields = append(r.Fields, p)
	}
	return r
}

// FuzzEvaluate runs random filters over the fixed ticket dataset: no panic,
// no hang, pages within the limit, and paging through every page gives the
// same hits as one page holding them all.
func FuzzEvaluate(f *testing.F) {
	for _, s := range []string{"", "\x00\x00", "\x08\x03\x00\x01\x02", "\x0d\x03\x02\x00\x05\x01\x08\x07", "\x0b\x05\x07\x11\x0a", "\x0e\x02\x09\x03\x0a\x08\x04\x01\x02\x03"} {
		f.Add([]byte(s))
	}
	ix := ticketIndex(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &gen{b: data}
		req := g.request()
		res, err := ix.Search(req)
		if err != nil {
			if !errors.Is(err, ErrInvalidQuery) {
				t.Fatalf("%v", err)
			}
			return
		}
		limit := req.Limit
		if limit == 0 {
			limit = DefaultLimit
		}
		if len(res.Hits) > limit {
			t.Fatalf("%d hits over limit %d", len(res.Hits), limit)
		}
		// The filter's JSON form gives the same result.
		if req.Query.Filter != nil {
			b, err := json.Marshal(req)
			if err != nil {
				t.Fatal(err)
			}
			var back Request
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatalf("%s: %v", b, err)
			}
			res2, err := ix.Search(back)
			if err != nil || !reflect.DeepEqual(ids(res), ids(res2)) {
				t.Fatalf("%s: %v vs %v (%v)", b, ids(res), ids(res2), err)
			}
		}
		all := req
		all.Limit, all.Cursor = 100, ""
		full, err := ix.Search(all)
		if err != nil {
			t.Fatal(err)
		}
		paged := []string{}
		for pages := 0; ; pages++ {
			if pages > 10 {
				t.Fatal("paging does not end")
			}
			r, err := ix.Search(req)
			if err != nil {
				t.Fatal(err)
			}
			paged = append(paged, ids(r)...)
			if r.NextCursor == nil {
				break
			}
			req.Cursor = *r.NextCursor
		}
		if !reflect.DeepEqual(paged, ids(full)) {
			t.Fatalf("paged %v, whole %v", paged, ids(full))
		}
	})
}
