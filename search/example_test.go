package search_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tributary-dev/tributary/search"
)

func Example() {
	schema := search.Schema{
		"id": search.TypeInteger, "status": search.TypeString, "subject": search.TypeString,
		"tags": search.TypeArray, "created_at": search.TypeString, "via": search.TypeObject,
	}
	ix, err := search.NewIndex(schema, "id", [][]byte{
		[]byte(`{"id":1,"status":"open","subject":"Password reset","tags":["vip"],"created_at":"2024-01-05T10:00:00Z","via":{"channel":"web"}}`),
		[]byte(`{"id":2,"status":"open","subject":"Refund for invoice","tags":[],"created_at":"2024-01-06T09:00:00Z","via":{"channel":"email"}}`),
		[]byte(`{"id":3,"status":"solved","subject":"Cannot login","tags":["vip"],"created_at":"2024-01-07T08:00:00Z","via":{"channel":"web"}}`),
	})
	if err != nil {
		panic(err)
	}
	res, err := ix.Search(search.Request{
		Query: search.Query{
			Filter: search.Or(
				search.And(search.Eq("status", "open"), search.Eq("via.channel", "web")),
				search.Contains("tags", "vip"),
			).Ptr(),
			Sort: []search.SortItem{search.Desc("created_at")},
		},
		Fields: []search.Path{{"id"}, {"subject"}},
	})
	if err != nil {
		panic(err)
	}
	for _, h := range res.Hits {
		fmt.Println(h.ID, h.Score, string(h.Data))
	}
	// Output:
	// 3 1 {"id":3,"subject":"Cannot login"}
	// 1 1 {"id":1,"subject":"Password reset"}
}

func ExampleAnd() {
	f := search.And(
		search.In("status", "open", "pending"),
		search.Not(search.Like("subject", "%test%")),
		search.Any("labels", search.Eq("name", "vip")),
		search.Gte("created_at", "2024-01-01T00:00:00Z"),
	)
	b, _ := json.Marshal(f)
	fmt.Println(string(b))
	// Output:
	// {"and":[{"in":{"status":["open","pending"]}},{"not":{"like":{"subject":"%test%"}}},{"any":{"labels":{"eq":{"name":"vip"}}}},{"gte":{"created_at":"2024-01-01T00:00:00Z"}}]}
}

func ExampleKeys() {
	// A key holding a dot needs the array form of a field name.
	fmt.Println(search.Keys("via", "channel"))
	fmt.Println(search.Keys("custom.fields", "size"))
	f := search.Eq(search.Keys("custom.fields", "size"), "L")
	fmt.Println(f)
	// Output:
	// via.channel
	// ["custom.fields","size"]
	// {"eq":{"[\"custom.fields\",\"size\"]":"L"}}
}

func ExampleRequest_UnmarshalJSON() {
	var req search.Request
	err := json.Unmarshal([]byte(`{
		"query": {
			"filter": {"eq": {"status": "open"}, "fuzzy": {"subject": "pasword reset"}},
			"sort": [{"created_at": "desc"}]
		},
		"limit": 50,
		"fields": ["id", ["via", "channel"]]
	}`), &req)
	if err != nil {
		panic(err)
	}
	fmt.Println(req.Query.Filter)
	fmt.Println(req.Query.Sort[0].Field, req.Query.Sort[0].Order, req.Limit, req.Fields)
	// Output:
	// {"and":[{"eq":{"status":"open"}},{"fuzzy":{"subject":"pasword reset"}}]}
	// created_at desc 50 [id via.channel]
}

func ExampleRequest_Validate() {
	schema := search.Schema{"priority": search.TypeInteger, "vip": search.TypeBoolean}
	for _, f := range []search.Filter{
		search.Eq("priority", "high"),
		search.Gt("vip", true),
		search.Eq("prio", 1),
	} {
		req := search.Request{Query: search.Query{Filter: &f}}
		err := req.Validate(schema)
		var e *search.Error
		fmt.Println(errors.Is(err, search.ErrInvalidQuery), errors.As(err, &e) && e.Field != "", err)
	}
	// Output:
	// true true search: invalid query: eq on "priority": the field is an integer; the value "high" is a string
	// true true search: invalid query: gt on "vip": the field is a boolean and has no order
	// true true search: invalid query: eq on "prio": unknown field
}

func ExampleIndex_Search_paging() {
	schema := search.Schema{"id": search.TypeString, "n": search.TypeInteger}
	var recs [][]byte
	for i := range 5 {
		recs = append(recs, fmt.Appendf(nil, `{"id":"r%d","n":%d}`, i, i%3))
	}
	ix, _ := search.NewIndex(schema, "id", recs)
	req := search.Request{Query: search.Query{Sort: []search.SortItem{search.Asc("n")}}, Limit: 2}
	for {
		res, err := ix.Search(req)
		if err != nil {
			panic(err)
		}
		fmt.Println(len(res.Hits), res.Hits[0].ID, res.HasMore())
		if res.NextCursor == nil {
			break
		}
		req.Cursor = *res.NextCursor
	}
	// Output:
	// 2 r0 true
	// 2 r1 true
	// 1 r2 false
}

func ExampleIndex_Search_fuzzy() {
	schema := search.Schema{"id": search.TypeInteger, "subject": search.TypeString}
	ix, _ := search.NewIndex(schema, "id", [][]byte{
		[]byte(`{"id":1,"subject":"Password reset not working"}`),
		[]byte(`{"id":2,"subject":"Reset the password, please!"}`),
		[]byte(`{"id":3,"subject":"Passwort zurücksetzen"}`),
	})
	res, _ := ix.Search(search.Request{Query: search.Query{Filter: search.Fuzzy("subject", "pasword RESET").Ptr()}})
	for _, h := range res.Hits {
		fmt.Println(h.ID, h.Score)
	}
	// Output:
	// 1 0.75
	// 2 0.75
}

func ExampleResult_UnmarshalJSON() {
	for _, body := range []string{
		`{"hits":[{"id":"7","score":1,"data":{"id":7}}],"next_cursor":"abc","took_ms":2}`,
		`{"data":[{"id":7}],"meta":{"has_more":true,"cursor":"abc","took_ms":2}}`,
	} {
		var r search.Result
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			panic(err)
		}
		fmt.Println(r.Hits[0].ID, string(r.Hits[0].Data), *r.NextCursor, r.TookMS)
	}
	// Output:
	// 7 {"id":7} abc 2
	// 7 {"id":7} abc 2
}
