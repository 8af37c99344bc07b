package search

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The hand-made dataset: synthetic tickets, given out of id order.
var ticketSchema = Schema{
	"id":          TypeInteger,
	"status":      TypeString,
	"priority":    TypeInteger,
	"subject":     TypeString,
	"tags":        TypeArray,
	"labels":      TypeArray,
	"created_at":  TypeString,
	"requester":   TypeObject,
	"via":         TypeObject,
	"amount":      TypeNumber,
	"vip":         TypeBoolean,
	"assignee_id": TypeInteger,
	"big":         TypeInteger,
	"custom":      TypeAny,
}

var ticketRecords = []string{
	`{"id":3,"status":"solved","priority":3,"subject":"Cannot login after passwrd change","tags":[],"labels":[],"created_at":"2024-02-01T00:00:00Z","requester":{"name":"Cy Person","email":"cy@example.net"},"via":{"channel":"web"},"amount":0.1,"big":9007199254740994,"custom":7}`,
	`{"id":1,"status":"open","priority":2,"subject":"Password reset not working","tags":["vip","billing"],"labels":[{"name":"vip","weight":3}],"created_at":"2024-01-05T10:00:00Z","requester":{"name":"Ada Example","email":"ada@example.com"},"via":{"channel":"web"},"amount":10.5,"vip":true,"assignee_id":7,"big":9007199254740993,"custom":{"size":"L"}}`,
	`{"id":6,"status":"new","priority":4,"tags":null,"created_at":"2024-01-05T10:00:00.000Z","requester":null,"amount":0.10,"vip":false,"assignee_id":9}`,
	`{"id":2,"status":"pending","priority":1,"subject":"Refund for invoice #42","tags":["billing"],"labels":[{"name":"billing","weight":1}],"created_at":"2024-01-05T12:00:00+02:00","requester":{"name":"Bo Sample","email":"bo@example.org"},"via":{"channel":"email"},"amount":99,"vip":false,"assignee_id":null,"big":9007199254740992,"custom":"plain"}`,
	`{"id":5,"status":"closed","priority":2,"subject":"100% refund? Please!","tags":["refund","vip"],"created_at":"not a date","requester":{"name":"Ed Example","email":"ed@example.com"},"via":{"channel":"web"},"amount":1e2,"vip":true,"assignee_id":9}`,
	`{"id":4,"status":"open","subject":"Invoice copy request","tags":["vip"],"labels":[{"name":"VIP","weight":2}],"created_at":"2023-12-31T23:59:59.5Z","requester":{"name":"Di Person"},"via":{"channel":"phone"},"amount":-3,"vip":false,"assignee_id":7,"big":1}`,
}

func ticketIndex(t testing.TB) *Index {
	t.Helper()
	recs := make([][]byte, len(ticketRecords))
	for i, r := range ticketRecords {
		recs[i] = []byte(r)
	}
	ix, err := NewIndex(ticketSchema, "id", recs)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func ids(res *Result) []string {
	out := []string{}
	for _, h := range res.Hits {
		out = append(out, h.ID)
	}
	return out
}

func scores(res *Result) []float64 {
	out := []float64{}
	for _, h := range res.Hits {
		out = append(out, h.Score)
	}
	return out
}

func mustDecode(t *testing.T, js string) Request {
	t.Helper()
	var r Request
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatalf("decode %s: %v", js, err)
	}
	return r
}

// sortedTicketIndex holds the same records, added in id order.
func sortedTicketIndex(t testing.TB) *Index {
	t.Helper()
	recs := make([][]byte, len(ticketRecords))
	for _, r := range ticketRecords {
		var v struct{ ID int }
		if err := json.Unmarshal([]byte(r), &v); err != nil {
			t.Fatal(err)
		}
		recs[v.ID-1] = []byte(r)
	}
	ix, err := NewIndex(ticketSchema, "id", recs)
	if err != nil || !ix.idOrdered {
		t.Fatal(err)
	}
	return ix
}

func TestOperators(t *testing.T) {
	for _, ix := range []*Index{ticketIndex(t), sortedTicketIndex(t)} {
		testOperators(t, ix)
	}
}

func testOperators(t *testing.T, ix *Index) {
	cases := []struct {
		filter string
		want   string // ids, comma-separated
	}{
		{`{"eq":{"status":"open"}}`, "1,4"},
		{`{"neq":{"status":"open"}}`, "2,3,5,6"},
		{`{"eq":{"priority":2}}`, "1,5"},
		{`{"eq":{"priority":2.0}}`, "1,5"},
		{`{"neq":{"priority":2}}`, "2,3,4,6"},
		{`{"eq":{"assignee_id":null}}`, "2,3"},
		{`{"neq":{"assignee_id":null}}`, "1,4,5,6"},
		{`{"gt":{"priority":1}}`, "1,3,5,6"},
		{`{"gte":{"priority":2}}`, "1,3,5,6"},
		{`{"lt":{"priority":2}}`, "2"},
		{`{"lte":{"priority":2}}`, "1,2,5"},
		{`{"gt":{"amount":0.1}}`, "1,2,5"},
		{`{"gte":{"amount":0.1}}`, "1,2,3,5,6"},
		{`{"lt":{"amount":0}}`, "4"},
		{`{"eq":{"amount":100}}`, "5"},
		{`{"eq":{"big":9007199254740993}}`, "1"},
		{`{"gt":{"big":9007199254740992}}`, "1,3"},
		{`{"eq":{"created_at":"2024-01-05T10:00:00Z"}}`, "1,2,6"},
		{`{"gte":{"created_at":"2024-01-05T10:00:00Z"}}`, "1,2,3,5,6"},
		{`{"lt":{"created_at":"2024-01-01T00:00:00Z"}}`, "4"},
		{`{"gt":{"created_at":"yesterday"}}`, ""},
		{`{"in":{"status":["open","new"]}}`, "1,4,6"},
		{`{"in":{"priority":[1,4]}}`, "2,6"},
		{`{"in":{"assignee_id":[null,9]}}`, "2,3,5,6"},
		{`{"in":{"status":[]}}`, ""},
		{`{"like":{"subject":"%refund%"}}`, "2,5"},
		{`{"like":{"subject":"password%"}}`, "1"},
		{`{"like":{"subject":"_nvoice%"}}`, "4"},
		{`{"like":{"subject":"100\\% refund%"}}`, "5"},
		{`{"like":{"subject":"invoice copy request"}}`, "4"},
		{`{"like":{"requester.email":"%@example.com"}}`, "1,5"},
		{`{"contains":{"tags":"vip"}}`, "1,4,5"},
		{`{"contains":{"tags":"billing"}}`, "1,2"},
		{`{"any":{"labels":{"eq":{"name":"vip"}}}}`, "1"},
		{`{"any":{"labels":{"like":{"name":"vip"}}}}`, "1,4"},
		{`{"any":{"labels":{"eq":{"name":"billing"},"gte":{"weight":1}}}}`, "2"},
		{`{"any":{"labels":{"gt":{"weight":2}}}}`, "1"},
		{`{"not":{"eq":{"status":"open"}}}`, "2,3,5,6"},
		{`{"not":{"contains":{"tags":"vip"}}}`, "2,3,6"},
		{`{"and":[{"eq":{"status":"open"}},{"eq":{"vip":true}}]}`, "1"},
		{`{"or":[{"eq":{"status":"new"}},{"lt":{"amount":0}}]}`, "4,6"},
		{`{"and":[]}`, "1,2,3,4,5,6"},
		{`{"or":[]}`, ""},
		{`{}`, "1,2,3,4,5,6"},
		{`{"eq":{"status":"open"},"gt":{"amount":0}}`, "1"},
		{`{"eq":{"status":"open","vip":false}}`, "4"},
		{`{"eq":{"via.channel":"web"}}`, "1,3,5"},
		{`{"eq":{"[\"via\",\"channel\"]":"web"}}`, "1,3,5"},
		{`{"eq":{"custom.size":"L"}}`, "1"},
		{`{"eq":{"custom":7}}`, "3"},
		{`{"eq":{"custom":"plain"}}`, "2"},
		{`{"eq":{"vip":true}}`, "1,5"},
		{`{"eq":{"vip":false}}`, "2,4,6"},
		{`{"eq":{"requester.name.first":"Ada"}}`, ""},
		// Text operators order by score, then id.
		{`{"keyword":{"subject":"invoice refund"}}`, "2,4,5"},
		{`{"fuzzy":{"subject":"pasword reset"}}`, "1"},
		{`{"fuzzy":{"subject":"login passwrd"}}`, "3"},
		{`{"fuzzy":{"subject":"refund"}}`, "2,5"},
		{`{"fuzzy":{"subject":"invoise"}}`, "2,4"},
		{`{"fuzzy":{"subject":"cpy"}}`, ""},
		{`{"fuzzy":{"subject":"REQUEST, invoice!"}}`, "4"},
		{`{"fuzzy":{"requester.name":"example"}}`, "1,5"},
		{`{"or":[{"fuzzy":{"subject":"refund"}},{"eq":{"status":"new"}}]}`, "2,5,6"},
		{`{"not":{"fuzzy":{"subject":"refund"}}}`, "1,3,4,6"},
		{`{"any":{"labels":{"fuzzy":{"name":"biling"}}}}`, "2"},
	}
	for _, c := range cases {
		req := mustDecode(t, `{"query":{"filter":`+c.filter+`}}`)
		res, err := ix.Search(req)
		if err != nil {
			t.Errorf("%s: %v", c.filter, err)
			continue
		}
		if got := strings.Join(ids(res), ","); got != c.want {
			t.Errorf("%s: got [%s], want [%s]", c.filter, got, c.want)
		}
	}
}

func TestScores(t *testing.T) {
	ix := ticketIndex(t)
	cases := []struct {
		filter Filter
		ids    string
		scores []float64
	}{
		{Keyword("subject", "invoice refund"), "2,4,5", []float64{1, 0.5, 0.5}},
		{Fuzzy("subject", "pasword reset"), "1", []float64{0.75}},
		{Fuzzy("subject", "invoise"), "2,4", []float64{0.5, 0.5}},
		{Eq("status", "open"), "1,4", []float64{1, 1}},
		{Or(Fuzzy("subject", "refund"), Eq("status", "new")), "2,5,6", []float64{1, 1, 0}},
		{And(Fuzzy("subject", "refund"), Keyword("requester.name", "sample")), "2", []float64{2}},
		{Any("labels", Fuzzy("name", "biling")), "2", []float64{0.5}},
		{Not(Fuzzy("subject", "refund")), "1,3,4,6", []float64{1, 1, 1, 1}},
	}
	for _, c := range cases {
		res, err := ix.Search(Request{Query: Query{Filter: c.filter.Ptr()}})
		if err != nil {
			t.Fatalf("%v: %v", c.filter, err)
		}
		if got := strings.Join(ids(res), ","); got != c.ids || !slices.Equal(scores(res), c.scores) {
			t.Errorf("%v: got [%s] %v, want [%s] %v", c.filter, got, scores(res), c.ids, c.scores)
		}
	}
}

func TestSort(t *testing.T) {
	ix := ticketIndex(t)
	cases := []struct {
		sort []SortItem
		want string
	}{
		{[]SortItem{Asc("priority")}, "2,1,5,3,6,4"},
		{[]SortItem{Desc("priority")}, "6,3,1,5,2,4"},
		{[]SortItem{Asc("created_at")}, "4,1,2,6,3,5"},
		{[]SortItem{Desc("created_at")}, "5,3,1,2,6,4"},
		{[]SortItem{Asc("status"), Desc("amount")}, "5,6,1,4,2,3"},
		{[]SortItem{Desc("assignee_id")}, "5,6,1,4,2,3"},
		{[]SortItem{Asc("assignee_id")}, "1,4,5,6,2,3"},
		{[]SortItem{Asc("requester.email")}, "1,2,3,5,4,6"},
		{[]SortItem{Desc("vip"), Asc("id")}, "1,5,2,4,6,3"},
		{[]SortItem{Asc("custom")}, "3,2,1,4,5,6"},
	}
	for _, pack := range []bool{true, false} {
		ix.noPack = !pack
		for _, c := range cases {
			res, err := ix.Search(Request{Query: Query{Sort: c.sort}})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(ids(res), ","); got != c.want {
				t.Errorf("pack=%v sort %v: got [%s], want [%s]", pack, c.sort, got, c.want)
			}
		}
	}
	// A sort with a text filter orders by the sort, not the score.
	res, err := ix.Search(Request{Query: Query{Filter: Keyword("subject", "invoice refund").Ptr(), Sort: []SortItem{Desc("id")}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ids(res), ","); got != "5,4,2" || !slices.Equal(scores(res), []float64{0.5, 0.5, 1}) {
		t.Errorf("sorted keyword: got [%s] %v", got, scores(res))
	}
}

func TestProjection(t *testing.T) {
	ix := ticketIndex(t)
	req := mustDecode(t, `{"query":{"filter":{"in":{"id":[1,6]}}},"fields":["id","requester.name",["via","channel"],"vip"]}`)
	res, err := ix.Search(req)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"id":1,"requester":{"name":"Ada Example"},"via":{"channel":"web"},"vip":true}`,
		`{"id":6,"vip":false}`,
	}
	for i, h := range res.Hits {
		if string(h.Data) != want[i] {
			t.Errorf("hit %d: %s, want %s", i, h.Data, want[i])
		}
	}
	req = mustDecode(t, `{"query":{"filter":{"eq":{"id":2}}},"fields":["requester.email","requester","assignee_id","labels"]}`)
	res, err = ix.Search(req)
	if err != nil {
		t.Fatal(err)
	}
	if got, w := string(res.Hits[0].Data), `{"requester":{"name":"Bo Sample","email":"bo@example.org"},"assignee_id":null,"labels":[{"name":"billing","weight":1}]}`; got != w {
		t.Errorf("got %s, want %s", got, w)
	}
	// Without fields, data is the record as given.
	res, err = ix.Search(Request{Query: Query{Filter: Eq("id", 6).Ptr()}})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Hits[0].Data) != ticketRecords[2] {
		t.Errorf("data %s", res.Hits[0].Data)
	}
}

func TestCursorPaging(t *testing.T) {
	ix := ticketIndex(t)
	pages := func(req Request) [][]string {
		var out [][]string
		for range 10 {
			res, err := ix.Search(req)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, ids(res))
			if res.NextCursor == nil {
				return out
			}
			req.Cursor = *res.NextCursor
		}
		t.Fatal("no last page")
		return nil
	}
	sorted := Request{Query: Query{Sort: []SortItem{Asc("priority")}}, Limit: 2}
	if got, want := pages(sorted), [][]string{{"2", "1"}, {"5", "3"}, {"6", "4"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("sorted pages %v, want %v", got, want)
	}
	byID := Request{Limit: 4}
	if got, want := pages(byID), [][]string{{"1", "2", "3", "4"}, {"5", "6"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("id pages %v, want %v", got, want)
	}
	for _, x := range []*Index{ix, sortedTicketIndex(t)} {
		r := Request{Query: Query{Filter: In("status", "open", "new", "closed").Ptr()}, Limit: 2}
		var got [][]string
		for {
			res, err := x.Search(r)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, ids(res))
			if res.NextCursor == nil {
				break
			}
			r.Cursor = *res.NextCursor
		}
		if want := [][]string{{"1", "4"}, {"5", "6"}}; !reflect.DeepEqual(got, want) {
			t.Errorf("in pages %v, want %v", got, want)
		}
	}
	exact := Request{Limit: 3}
	if got, want := pages(exact), [][]string{{"1", "2", "3"}, {"4", "5", "6"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("exact pages %v, want %v", got, want)
	}
	scored := Request{Query: Query{Filter: Keyword("subject", "invoice refund").Ptr()}, Limit: 1}
	if got, want := pages(scored), [][]string{{"2"}, {"4"}, {"5"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("scored pages %v, want %v", got, want)
	}

	// The cursor of one query is refused by another; limit and fields may change.
	res, err := ix.Search(sorted)
	if err != nil {
		t.Fatal(err)
	}
	next := *res.NextCursor
	other := Request{Query: Query{Sort: []SortItem{Desc("priority")}}, Limit: 2, Cursor: next}
	_, err = ix.Search(other)
	var e *Error
	if !errors.Is(err, ErrInvalidQuery) || !errors.As(err, &e) || e.Field != "cursor" {
		t.Fatalf("reused cursor: %v", err)
	}
	other = Request{Query: Query{Filter: Eq("status", "open").Ptr(), Sort: sorted.Query.Sort}, Limit: 2, Cursor: next}
	if _, err := ix.Search(other); !errors.As(err, &e) || e.Field != "cursor" {
		t.Fatalf("reused cursor with a filter: %v", err)
	}
	same := Request{Query: Query{Sort: []SortItem{Asc("priority")}}, Limit: 3, Cursor: next, Fields: []Path{{"id"}}}
	res, err = ix.Search(same)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ids(res), ","); got != "5,3,6" || res.NextCursor == nil {
		t.Errorf("same query, new limit: [%s] %v", got, res.NextCursor)
	}
	for _, bad := range []string{"x", "!!!", "AQ", next + "A"} {
		sorted.Cursor = bad
		if _, err := ix.Search(sorted); !errors.As(err, &e) || e.Field != "cursor" {
			t.Errorf("cursor %q: %v", bad, err)
		}
	}
}

func TestValidation(t *testing.T) {
	ix := ticketIndex(t)
	cases := []struct {
		req   string
		field string
		op    Op
		in    string // in the message
	}{
		{`{"query":{"filter":{"eq":{"nope":1}}}}`, "nope", OpEq, "unknown field"},
		{`{"query":{"filter":{"gt":{"vip":true}}}}`, "vip", OpGt, "boolean"},
		{`{"query":{"filter":{"gt":{"vip":1}}}}`, "vip", OpGt, "no order"},
		{`{"query":{"filter":{"like":{"priority":"1%"}}}}`, "priority", OpLike, "string fields"},
		{`{"query":{"filter":{"contains":{"status":"x"}}}}`, "status", OpContains, "array fields"},
		{`{"query":{"filter":{"any":{"requester":{"eq":{"name":"x"}}}}}}`, "requester", OpAny, "array fields"},
		{`{"query":{"filter":{"eq":{"priority":"1a"}}}}`, "priority", OpEq, "is a string"},
		{`{"query":{"filter":{"eq":{"priority":1.5}}}}`, "priority", OpEq, "not an integer"},
		{`{"query":{"filter":{"eq":{"amount":"1"}}}}`, "amount", OpEq, "is a string"},
		{`{"query":{"filter":{"eq":{"status":1}}}}`, "status", OpEq, "is a number"},
		{`{"query":{"filter":{"eq":{"vip":"yes"}}}}`, "vip", OpEq, "is a string"},
		{`{"query":{"filter":{"in":{"priority":[1,"2.5"]}}}}`, "priority", OpIn, "is a string"},
		{`{"query":{"filter":{"in":{"status":"open"}}}}`, "status", OpIn, "array of values"},
		{`{"query":{"filter":{"eq":{"tags":"vip"}}}}`, "tags", OpEq, "use contains"},
		{`{"query":{"filter":{"eq":{"requester":"x"}}}}`, "requester", OpEq, "dot path"},
		{`{"query":{"filter":{"eq":{"status.x":"x"}}}}`, "status.x", OpEq, "status is a string"},
		{`{"query":{"filter":{"eq":{"status":[1]}}}}`, "status", OpEq, "must be a string, number"},
		{`{"query":{"filter":{"gt":{"priority":null}}}}`, "priority", OpGt, "number or a string"},
		{`{"query":{"filter":{"like":{"subject":"abc\\"}}}}`, "subject", OpLike, "escape"},
		{`{"query":{"filter":{"fuzzy":{"subject":"?!"}}}}`, "subject", OpFuzzy, "no words"},
		{`{"query":{"filter":{"keyword":{"subject":3}}}}`, "subject", OpKeyword, "must be a string"},
		{`{"query":{"filter":{"foo":{"status":"x"}}}}`, "", "foo", "unknown operator"},
		{`{"query":{"filter":{"and":{"eq":{"status":"x"}}}}}`, "", OpAnd, "array of conditions"},
		{`{"query":{"filter":{"not":[]}}}`, "", OpNot, "condition object"},
		{`{"query":{"filter":{"eq":{}}}}`, "", OpEq, "at least one field"},
		{`{"query":{"filter":{"eq":{"a..b":1}}}}`, "a..b", OpEq, "empty key"},
		{`{"query":{"filter":{"eq":{"[\"a\",1]":1}}}}`, `["a",1]`, OpEq, "non-empty strings"},
		{`{"query":{"filter":[]}}`, "filter", "", "must be an object"},
		{`{"query":{"sort":[{"id":"up"}]}}`, "id", "", "sort direction"},
		{`{"query":{"sort":[{"id":"asc","status":"asc"}]}}`, "sort", "", "one member"},
		{`{"query":{"sort":{"id":"asc"}}}`, "sort", "", "array"},
		{`{"query":{"sort":[{"tags":"asc"}]}}`, "tags", "", "cannot sort"},
		{`{"query":{"sort":[{"nope":"asc"}]}}`, "nope", "", "unknown field"},
		{`{"query":{},"fields":["nope"]}`, "nope", "", "unknown field"},
		{`{"query":{},"fields":[1]}`, "1", "", "string or an array"},
		{`{"query":{},"fields":"id"}`, "fields", "", "array of field paths"},
		{`{"query":{},"limit":0}`, "limit", "", "between 1"},
		{`{"query":{},"limit":-1}`, "limit", "", "between 1"},
		{`{"query":{},"limit":1.5}`, "limit", "", "integer"},
		{`{"query":{},"limit":"10x"}`, "limit", "", "integer"},
		{`{"query":{},"limit":"0"}`, "limit", "", "between 1"},
		{`{"query":{"filter":{"eq":{"priority":"99999999999999999999"}}}}`, "priority", OpEq, "out of the integer range"},
		{`{"query":{"filter":{"eq":{"prority":1}}}}`, "prority", OpEq, `unknown field; did you mean "priority"?`},
		{`{"query":{},"cursor":5}`, "cursor", "", "string"},
		{`{"query":{},"cursor":"zzzz"}`, "cursor", "", "malformed"},
		{`{"limit":10}`, "query", "", "required"},
		{`{"query":{},"page":2}`, "page", "", "unknown search parameter"},
		{`{"query":{"filtre":{}}}`, "query.filtre", "", `unknown member of query; did you mean "filter"?`},
		{`{"query":{},"limt":5}`, "limt", "", `unknown search parameter; did you mean "limit"?`},
		{`{"query":{"filter":{"eqq":{"status":"x"}}}}`, "", "eqq", `unknown operator; did you mean "eq"?`},
		{`{"query":{"filter":{"fuzy":{"status":"x"}}}}`, "", "fuzy", `unknown operator; did you mean "fuzzy"?`},
	}
	for _, c := range cases {
		var req Request
		err := json.Unmarshal([]byte(c.req), &req)
		if err == nil {
			_, err = ix.Search(req)
		}
		var e *Error
		if !errors.Is(err, ErrInvalidQuery) || !errors.As(err, &e) {
			t.Errorf("%s: got %v, want an *Error", c.req, err)
			continue
		}
		if e.Field != c.field || e.Op != c.op || !strings.Contains(err.Error(), c.in) {
			t.Errorf("%s: got Field %q Op %q %q; want Field %q Op %q, containing %q", c.req, e.Field, e.Op, err, c.field, c.op, c.in)
		}
	}

	// Go-built requests are validated the same way.
	bad := []Request{
		{Query: Query{Filter: Eq("status", struct{}{}).Ptr()}},
		{Query: Query{Filter: Eq("", 1).Ptr()}},
		{Query: Query{Sort: []SortItem{{Field: Path{"id"}, Order: "up"}}}},
		{Query: Query{Sort: []SortItem{Asc("a..b")}}},
		{Limit: -1},
		{Fields: []Path{{}}},
		{Query: Query{Filter: &Filter{Op: OpNot}}},
		{Query: Query{Filter: &Filter{Op: OpEq}}},
		{Query: Query{Filter: &Filter{Op: "bogus"}}},
	}
	for _, r := range bad {
		if err := r.Validate(ticketSchema); !errors.Is(err, ErrInvalidQuery) {
			t.Errorf("%+v: %v", r, err)
		}
	}
	// Keys with dots are fine below an object or any field.
	if err := (&Request{Query: Query{Filter: Eq(Keys("custom", "a.b"), 1).Ptr()}}).Validate(ticketSchema); err != nil {
		t.Error(err)
	}
	if err := (&Request{Query: Query{Filter: Eq(Keys("a.b"), 1).Ptr()}}).Validate(ticketSchema); err == nil {
		t.Error("unknown dotted key accepted")
	}
	// A nil schema accepts every field.
	if err := (&Request{Query: Query{Filter: Gt("anything.at.all", 3).Ptr()}}).Validate(nil); err != nil {
		t.Error(err)
	}
	if msg := (&Error{Field: "priority", Op: OpEq, Reason: "r"}).Error(); msg != `search: invalid query: eq on "priority": r` {
		t.Error(msg)
	}
}

// TestUnknownOperator: an operator the language does not have is refused
// with the list of those it has, and the nearest one: by spelling, or the
// one a name from another query language stands for.
func TestUnknownOperator(t *testing.T) {
	const list = " (operators: eq, neq, gt, gte, lt, lte, in, like, fuzzy, keyword, contains, any, not, and, or)"
	for _, c := range []struct{ op, want string }{
		{"equals", `search: invalid query: equals: unknown operator; did you mean "eq"?` + list},
		{"eqq", `search: invalid query: eqq: unknown operator; did you mean "eq"?` + list},
		{"fuzy", `search: invalid query: fuzy: unknown operator; did you mean "fuzzy"?` + list},
		{"$ne", `search: invalid query: $ne: unknown operator; did you mean "neq"?` + list},
		{"$in", `search: invalid query: $in: unknown operator; did you mean "in"?` + list},
		{"EQ", `search: invalid query: EQ: unknown operator; did you mean "eq"?` + list},
		{"greater-than", `search: invalid query: greater-than: unknown operator; did you mean "gt"?` + list},
		{"ilike", `search: invalid query: ilike: unknown operator; did you mean "like"?` + list},
		{"bogus", `search: invalid query: bogus: unknown operator` + list},
	} {
		var f Filter
		err := json.Unmarshal([]byte(`{"`+c.op+`": {"status": "open"}}`), &f)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v\nwant %s", c.op, err, c.want)
		}
		// A filter built in Go with that operator gets the same message.
		if err := (&Request{Query: Query{Filter: &Filter{Op: Op(c.op)}}}).Validate(ticketSchema); err == nil || err.Error() != c.want {
			t.Errorf("Validate %s: got %v\nwant %s", c.op, err, c.want)
		}
		if _, err := (Filter{Op: Op(c.op)}).MarshalJSON(); err == nil || err.Error() != c.want {
			t.Errorf("MarshalJSON %s: got %v\nwant %s", c.op, err, c.want)
		}
	}
}

func TestBuilderJSON(t *testing.T) {
	cases := []struct {
		f    Filter
		want string
	}{
		{Eq("status", "open"), `{"eq":{"status":"open"}}`},
		{And(Eq("status", "open"), Gt("priority", 1)), `{"and":[{"eq":{"status":"open"}},{"gt":{"priority":1}}]}`},
		{Or(Neq("a", nil), Gte("b", 1.5), Lt("c", uint64(18446744073709551615)), Lte("d", "z")), `{"or":[{"neq":{"a":null}},{"gte":{"b":1.5}},{"lt":{"c":18446744073709551615}},{"lte":{"d":"z"}}]}`},
		{Not(In("status", "open", "pending")), `{"not":{"in":{"status":["open","pending"]}}}`},
		{Like("subject", "%refund%"), `{"like":{"subject":"%refund%"}}`},
		{Fuzzy("subject", "pasword reset"), `{"fuzzy":{"subject":"pasword reset"}}`},
		{Keyword("subject", "refund invoice"), `{"keyword":{"subject":"refund invoice"}}`},
		{Contains("tags", "vip"), `{"contains":{"tags":"vip"}}`},
		{Any("tags", Eq("name", "vip")), `{"any":{"tags":{"eq":{"name":"vip"}}}}`},
		{Eq("via.channel", true), `{"eq":{"via.channel":true}}`},
		{Eq(Keys("custom.fields", "size"), json.Number("12345678901234567890")), `{"eq":{"[\"custom.fields\",\"size\"]":12345678901234567890}}`},
		{Eq(`["via","channel"]`, "web"), `{"eq":{"via.channel":"web"}}`},
	}
	for _, c := range cases {
		b, err := json.Marshal(c.f)
		if err != nil {
			t.Fatalf("%v: %v", c.want, err)
		}
		if string(b) != c.want {
			t.Errorf("got %s, want %s", b, c.want)
		}
		var back Filter
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		b2, _ := json.Marshal(back)
		if string(b2) != string(b) {
			t.Errorf("round trip %s → %s", b, b2)
		}
	}
	// Implicit and decodes to an explicit and, in document order.
	var f Filter
	if err := json.Unmarshal([]byte(`{"eq":{"a":1,"b":2},"not":{"eq":{"c":3}}}`), &f); err != nil {
		t.Fatal(err)
	}
	if got, want := f.String(), `{"and":[{"eq":{"a":1}},{"eq":{"b":2}},{"not":{"eq":{"c":3}}}]}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// A whole request.
	req := Request{
		Query:  Query{Filter: And(Eq("status", "open")).Ptr(), Sort: []SortItem{Desc("created_at"), Asc("id")}},
		Limit:  10,
		Cursor: "abc",
		Fields: []Path{{"id"}, {"via", "channel"}, {"a.b"}},
	}
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"query":{"filter":{"and":[{"eq":{"status":"open"}}]},"sort":[{"created_at":"desc"},{"id":"asc"}]},"limit":10,"cursor":"abc","fields":["id","via.channel",["a.b"]]}`
	if string(b) != want {
		t.Errorf("got %s\nwant %s", b, want)
	}
	var back Request
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, req) {
		t.Errorf("round trip: %+v, want %+v", back, req)
	}
	// Builder errors surface when encoding.
	if _, err := json.Marshal(Eq("x", []int{1})); err == nil {
		t.Error("a slice value encoded")
	}
}

func TestResultShapes(t *testing.T) {
	old := `{"hits":[{"id":"1","score":0.5,"data":{"id":1,"name":"a"}},{"id":2,"score":null,"data":{"id":2}}],"next_cursor":"c2","took_ms":3}`
	newer := `{"data":[{"id":"1","score":0.5,"data":{"id":1,"name":"a"}},{"id":2}],"meta":{"has_more":true,"cursor":"c2","took_ms":3}}`
	var a, b Result
	if err := json.Unmarshal([]byte(old), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(newer), &b); err != nil {
		t.Fatal(err)
	}
	want := Result{
		Hits: []Hit{
			{ID: "1", Score: 0.5, Data: json.RawMessage(`{"id":1,"name":"a"}`)},
			{ID: "2", Data: json.RawMessage(`{"id":2}`)},
		},
		NextCursor: ptr("c2"),
		TookMS:     3,
	}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("old shape: %+v", a)
	}
	if !reflect.DeepEqual(b, want) {
		t.Errorf("new shape: %+v", b)
	}
	// Bare records, has_more false, null cursor.
	var c Result
	if err := json.Unmarshal([]byte(`{"data":[{"id":"x","status":"open"},{"name":"no id"}],"meta":{"has_more":false,"cursor":"ignored","took_ms":null}}`), &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Hits) != 2 || c.Hits[0].ID != "x" || c.Hits[1].ID != "" || string(c.Hits[0].Data) != `{"id":"x","status":"open"}` || c.NextCursor != nil || c.HasMore() {
		t.Errorf("bare records: %+v", c)
	}
	var d Result
	if err := json.Unmarshal([]byte(`{"hits":[],"next_cursor":null,"took_ms":null}`), &d); err != nil || d.NextCursor != nil || d.Hits != nil {
		t.Errorf("empty: %+v %v", d, err)
	}
	for _, bad := range []string{`{}`, `[]`, `{"hits":[{"id":{}}]}`, `{"data":[1]}`} {
		var r Result
		if err := json.Unmarshal([]byte(bad), &r); err == nil {
			t.Errorf("%s decoded", bad)
		}
	}
	// Encoding is always the contract's shape.
	out, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(out); got != `{"hits":[{"id":"1","score":0.5,"data":{"id":1,"name":"a"}},{"id":"2","score":0,"data":{"id":2}}],"next_cursor":"c2","took_ms":3}` {
		t.Errorf("encoded %s", got)
	}
	out, _ = json.Marshal(Result{})
	if string(out) != `{"hits":[],"next_cursor":null,"took_ms":0}` {
		t.Errorf("empty encoded %s", out)
	}
}

func ptr[T any](v T) *T { return &v }

func TestIndexBuild(t *testing.T) {
	for _, c := range []struct {
		recs []string
		in   string
	}{
		{[]string{`{"id":1}`, `{"id":1}`}, "duplicate id"},
		{[]string{`{"id":1}`, `{"id":"1"}`}, "duplicate id"},
		{[]string{`{"name":"x"}`}, "id field"},
		{[]string{`{"id":true}`}, "id field"},
		{[]string{`[1]`}, "not a JSON object"},
		{[]string{`{"id":1,}`}, "malformed JSON"},
		{[]string{`{"id":1} x`}, "malformed JSON"},
		{[]string{strings.Repeat("[", 600) + strings.Repeat("]", 600)}, "nesting"},
	} {
		recs := [][]byte{}
		for _, r := range c.recs {
			recs = append(recs, []byte(r))
		}
		if _, err := NewIndex(ticketSchema, "id", recs); err == nil || !strings.Contains(err.Error(), c.in) {
			t.Errorf("%v: %v", c.recs, err)
		}
	}
	if _, err := NewIndex(Schema{"a": "text"}, "id", nil); err == nil {
		t.Error("bad type accepted")
	}
	if _, err := NewIndex(nil, "id", nil); err == nil {
		t.Error("empty schema accepted")
	}
	// Incremental building gives the same index, and the builder is reusable.
	b, err := NewBuilder(ticketSchema, "id")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range ticketRecords {
		if err := b.Add([]byte(r)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Add([]byte(`{"id":3}`)); err == nil {
		t.Error("duplicate accepted")
	}
	ix := b.Build()
	if ix.Len() != 6 || b.Len() != 0 {
		t.Fatalf("len %d, builder %d", ix.Len(), b.Len())
	}
	if err := b.Add([]byte(`{"id":3}`)); err != nil {
		t.Fatal(err)
	}
	if ix2 := b.Build(); ix2.Len() != 1 || ix.Len() != 6 {
		t.Fatal("builder reuse")
	}
	res, err := ix.Search(Request{Query: Query{Filter: Eq("status", "open").Ptr()}})
	if err != nil || strings.Join(ids(res), ",") != "1,4" {
		t.Fatalf("%v %v", res, err)
	}
	// A repeated key: the last one counts, as with encoding/json.
	dup, err := NewIndex(Schema{"k": TypeString, "v": TypeInteger}, "k", [][]byte{[]byte(`{"k":"a","v":1,"v":2}`)})
	if err != nil {
		t.Fatal(err)
	}
	res, err = dup.Search(Request{Query: Query{Filter: Eq("v", 2).Ptr()}, Limit: math.MaxInt})
	if err != nil || len(res.Hits) != 1 || res.NextCursor != nil {
		t.Errorf("repeated key: %v %v", res, err)
	}
	// String ids order as strings; numeric ids numerically.
	six, err := NewIndex(Schema{"k": TypeString}, "k", [][]byte{[]byte(`{"k":"b"}`), []byte(`{"k":"a10"}`), []byte(`{"k":"a9"}`)})
	if err != nil {
		t.Fatal(err)
	}
	res, _ = six.Search(Request{})
	if got := strings.Join(ids(res), ","); got != "a10,a9,b" {
		t.Errorf("string ids: %s", got)
	}
}

// Index-backed keyword and fuzzy evaluation agrees with the direct one used
// inside any.
func TestTextIndexMatchesScan(t *testing.T) {
	ix := ticketIndex(t)
	queries := []string{"pasword reset", "invoice refund", "refund", "invoise", "login passwrd", "cpy", "100", "please request", "cannot lgin", "ada", "exmple"}
	for _, op := range []Op{OpFuzzy, OpKeyword} {
		for _, field := range []string{"subject", "requester.name"} {
			for _, q := range queries {
				f := build(op, field, q)
				c := ix.compile(&f, false, false)
				tq := compileText(op, q)
				p, _ := ParsePath(field)
				col, rest := ix.column(p)
				for ord := range int32(ix.Len()) {
					ok, s := ix.match(c, ord)
					v := ix.value(col, rest, ord)
					want := 0.0
					if v.k == kStr {
						want = tq.score(v.s)
					}
					if ok != (want > 0) || s != want {
						t.Errorf("%s %s %q record %s: index %v %v, scan %v", op, field, q, ix.ids[ord], ok, s, want)
					}
				}
			}
		}
	}
}

func TestConcurrentSearch(t *testing.T) {
	ix := ticketIndex(t)
	reqs := []Request{
		{Query: Query{Filter: Fuzzy("subject", "refund").Ptr()}},
		{Query: Query{Sort: []SortItem{Desc("created_at")}}},
		{Query: Query{Filter: Keyword("requester.name", "example").Ptr(), Sort: []SortItem{Asc("priority")}}},
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if _, err := ix.Search(reqs[i%len(reqs)]); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

func TestEditDistanceAndLike(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{
		{"pasword", "password", 1}, {"recieve", "receive", 1}, {"abc", "abc", 0}, {"", "ab", 2},
		{"kitten", "sitting", 3}, {"ca", "abc", 3}, {"naïve", "naive", 1},
	} {
		if d := editDistance([]rune(c.a), []rune(c.b), 5, nil); d != c.d {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, d, c.d)
		}
	}
	if d := editDistance([]rune("kitten"), []rune("sitting"), 1, nil); d != 2 {
		t.Errorf("bounded distance %d", d)
	}
	for _, c := range []struct {
		p, s string
		ok   bool
	}{
		{"%", "", true}, {"_", "", false}, {"a%b", "aXXb", true}, {"a%b", "aXXbc", false},
		{"%a%a%", "banana", true}, {"ÉTÉ", "été", true}, {"_t_", "été", true}, {`a\_b`, "a_b", true},
		{`a\_b`, "axb", false}, {`\\`, `\`, true}, {"%%x", "yx", true}, {"abc", "ABC", true},
	} {
		lp, err := compileLike(c.p)
		if err != nil {
			t.Fatal(err)
		}
		if got := lp.match(c.s); got != c.ok {
			t.Errorf("like(%q, %q) = %v", c.s, c.p, got)
		}
	}
	if got := queryWords("Don't re-set: RÉSUMÉ résumé 42!"); !slices.Equal(got, []string{"don", "t", "re", "set", "résumé", "42"}) {
		t.Errorf("words %q", got)
	}
}

func TestNumbers(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"1", "1.0", 0}, {"1e2", "100", 0}, {"0.1", "0.10", 0}, {"-0", "0", 0},
		{"9007199254740993", "9007199254740992", 1}, {"9007199254740993", "9007199254740993.0", 0},
		{"1e400", "1e401", -1}, {"-1e400", "1e-400", -1}, {"1e-400", "0", 1}, {"123456789012345678901234567890", "123456789012345678901234567891", -1},
		{"-5", "-4.9999999999999999999", -1}, {"2.5", "-3", 1},
	} {
		a, b := numNode(c.a), numNode(c.b)
		if got := numCmp(&a, &b); got != c.want {
			t.Errorf("numCmp(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := numCmp(&b, &a); got != -c.want {
			t.Errorf("numCmp(%s, %s) = %d, want %d", c.b, c.a, got, -c.want)
		}
	}
	for lit, want := range map[string]bool{"1": true, "1.0": true, "1e3": true, "1.5": false, "1e-1": false, "0.0": true, "12345678901234567890": true} {
		n := numNode(lit)
		if isIntegral(&n) != want {
			t.Errorf("isIntegral(%s) = %v", lit, !want)
		}
	}
	a, b := strNode("2024-01-01T00:00:00.0000001Z"), strNode("2024-01-01T00:00:00.0000002Z")
	if !equal(&a, &a) || equal(&a, &b) || timeCmp(&a, &b) != -1 {
		t.Error("sub-microsecond instants")
	}
}

func TestParser(t *testing.T) {
	for in, want := range map[string]string{
		`"a\u00e9\ud83d\ude00\n"`: "\"aé😀\\n\"",
		`"\ud800x"`:               "\"\ufffdx\"",
		"\"\xff\"":                "\"\ufffd\"",
		` [1 , {"a" : null} ] `:   `[1,{"a":null}]`,
		`"\u2028"`:                `"\u2028"`,
		`"<&>"`:                   `"<&>"`,
	} {
		n, err := parseJSON(in, false)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := string(n.appendJSON(nil)); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
	for _, bad := range []string{``, `{`, `[1,]`, `{"a"}`, `01`, `1.`, `-`, `"\x"`, "\"\x01\"", `tru`, `{"a":1,}`, `"\u12"`, `1 2`} {
		if _, err := parseJSON(bad, false); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestSmallest(t *testing.T) {
	for n := range 300 {
		for _, k := range []int{0, 1, 2, 3, n / 70, n / 2, n, n + 1} {
			s := make([]int, n)
			x := uint32(n*7919 + k)
			for i := range s {
				x = x*1664525 + 1013904223
				s[i] = int(x >> 8)
			}
			want := slices.Clone(s)
			slices.Sort(want)
			want = want[:min(max(k, 0), n)]
			got := smallest(s, k, func(a, b int) int { return a - b })
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d k=%d: %v, want %v", n, k, got, want)
			}
		}
	}
}

// TestStringsForIntegersAndBooleans: a string that spells an integer or a
// boolean compares with an integer or boolean field as that value, and a
// paged search continues from its cursor.
func TestStringsForIntegersAndBooleans(t *testing.T) {
	ix := ticketIndex(t)
	cases := []struct{ asString, typed string }{
		{`{"eq":{"priority":"2"}}`, `{"eq":{"priority":2}}`},
		{`{"in":{"priority":["1","3"]}}`, `{"in":{"priority":[1,3]}}`},
		{`{"gt":{"assignee_id":"7"}}`, `{"gt":{"assignee_id":7}}`},
		{`{"lte":{"priority":"+02"}}`, `{"lte":{"priority":2}}`},
		{`{"eq":{"vip":"true"}}`, `{"eq":{"vip":true}}`},
		{`{"neq":{"vip":"false"}}`, `{"neq":{"vip":false}}`},
		{`{"eq":{"big":"9007199254740993"}}`, `{"eq":{"big":9007199254740993}}`},
		{`{"not":{"or":[{"eq":{"priority":"2"}},{"eq":{"vip":"true"}}]}}`, `{"not":{"or":[{"eq":{"priority":2}},{"eq":{"vip":true}}]}}`},
	}
	for _, c := range cases {
		str := mustDecode(t, `{"query":{"filter":`+c.asString+`}}`)
		before, _ := json.Marshal(str)
		got, err := ix.Search(str)
		if err != nil {
			t.Errorf("%s: %v", c.asString, err)
			continue
		}
		want, err := ix.Search(mustDecode(t, `{"query":{"filter":`+c.typed+`}}`))
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Hits) == 0 || !slices.Equal(ids(got), ids(want)) {
			t.Errorf("%s: ids %v, want %v", c.asString, ids(got), ids(want))
		}
		canon, _ := json.Marshal(str.Canonical(ticketSchema))
		if after, _ := json.Marshal(str); string(after) != string(before) {
			t.Errorf("%s: the request was modified: %s", c.asString, after)
		}
		wantJSON, _ := json.Marshal(mustDecode(t, `{"query":{"filter":`+c.typed+`}}`))
		if string(canon) != string(wantJSON) {
			t.Errorf("Canonical(%s) = %s, want %s", c.asString, canon, wantJSON)
		}
	}
	// A string field keeps its strings; an any field too.
	r := mustDecode(t, `{"query":{"filter":{"and":[{"eq":{"status":"2"}},{"eq":{"custom":"7"}},{"any":{"labels":{"eq":{"weight":"3"}}}}]}}}`)
	if a, b := mustJSON(t, r.Canonical(ticketSchema)), mustJSON(t, r); a != b {
		t.Errorf("Canonical changed values of other types: %s, was %s", a, b)
	}
	// Paging: the cursor of a query written with strings continues it.
	first, err := ix.Search(mustDecode(t, `{"query":{"filter":{"in":{"priority":["1","2","3"]}}},"limit":"2"}`))
	if err != nil || first.NextCursor == nil {
		t.Fatalf("first page: %v %v", first, err)
	}
	next, err := ix.Search(mustDecode(t, `{"query":{"filter":{"in":{"priority":["1","2","3"]}}},"limit":2,"cursor":"`+*first.NextCursor+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := append(ids(first), ids(next)...); !slices.Equal(got, []string{"1", "2", "3", "5"}) {
		t.Errorf("pages: %v", got)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
