package pagination

import (
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"reflect"
	"testing"

	"github.com/tributary-dev/tributary/internal/jsonx"
)

// fuzzStyles are every paging style, configured as the kinds configure them.
var fuzzStyles = map[string]Style{
	"ZendeskPage":     ZendeskPage{},
	"OffsetTotal":     OffsetTotal{OffsetParam: "offset", TotalField: "total_items"},
	"RecordsCursor":   RecordsCursor{},
	"StartingAfter":   StartingAfter{},
	"NextRecordsURL":  NextRecordsURL{Param: "next_records_url"},
	"LinkHeader":      LinkHeader{},
	"PagingNextAfter": PagingNextAfter{},
	"PageNumber":      PageNumber{Param: "page", Pages: "paging.pages"},
	"Total":           Total{Field: "total_items"},
	"None":            None{},
}

// fuzzRecordKeys are the records members the kinds split pages on ("" is a
// bare array, GitHub's lists).
var fuzzRecordKeys = []string{"", "tickets", "audits", "campaigns", "calls", "data", "records", "items", "results"}

// FuzzStyles feeds every paging style random pages: the body split the way
// the engine splits it, a random Link header, and params carrying a random
// cursor and page number. No style panics or modifies the params; a style
// never proposes the page it was given (Next equal to the params); and the
// Next a client rebuilds from the Meta alone after a JSON round trip (hosted
// mode, pagination.Resumer) is the Next of direct mode.
func FuzzStyles(f *testing.F) {
	f.Add([]byte(`{"tickets":[{"id":1}],"next_page":"https://acme.zendesk.com/api/v2/tickets.json?page=3","previous_page":null,"count":9}`), "", "c0", int64(2))
	f.Add([]byte(`{"tickets":[{"id":1}],"meta":{"has_more":true,"after_cursor":"xxx","before_cursor":"yyy"},"links":{"next":"n","prev":"p"}}`), "", "www", int64(1))
	f.Add([]byte(`{"audits":[{"id":3}],"after_cursor":"a1","after_url":"u","before_cursor":"b1","before_url":"v"}`), "", "b0", int64(1))
	f.Add([]byte(`{"campaigns":[{"id":"a"},{"id":"b"}],"total_items":5}`), "", "", int64(2))
	f.Add([]byte(`{"requestId":"r","records":{"totalRecords":3,"cursor":"eyJ"},"calls":[{"id":"1"}]}`), "", "eyI", int64(0))
	f.Add([]byte(`{"type":"list","data":[{"id":"1"}],"pages":{"next":{"page":2,"starting_after":"WzE"}}}`), "", "WzD", int64(0))
	f.Add([]byte(`{"totalSize":3,"done":false,"nextRecordsUrl":"/services/data/v67.0/query/01g-200","records":[{"Id":"001"}]}`), "", "/services/data/v67.0/query/01g-0", int64(0))
	f.Add([]byte(`[{"id":1},{"id":2}]`), `<https://api.github.com/repositories/1/issues?page=3>; rel="next", <https://api.github.com/repositories/1/issues?page=9>; rel="last"`, "", int64(2))
	f.Add([]byte(`{"total_count":2,"incomplete_results":false,"items":[{"id":1}]}`), `<https://api.github.com/search/issues?q=a%2Cb&page=2>; rel="next"`, "", int64(1))
	f.Add([]byte(`{"results":[{"id":"1"}],"paging":{"next":{"after":"7","link":"l"}},"total":12}`), "", "6", int64(0))
	f.Add([]byte(`{"tags":[{"name":"a"}],"total_items":"12"}`), "<>;rel=next,<", "\xff", int64(-1))
	f.Fuzz(func(t *testing.T, body []byte, link, cursor string, n int64) {
		paramSets := []map[string]any{
			{},
			{"page": n, "per_page": int64(2), "offset": n, "count": int64(2), "cursor": cursor, "starting_after": cursor,
				"after": cursor, "next_records_url": cursor},
			{"page[size]": int64(2), "page[after]": cursor},
		}
		header := http.Header{}
		if link != "" {
			header["Link"] = []string{link}
		}
		repeated := ""
		for _, key := range fuzzRecordKeys {
			split, err := jsonx.SplitPage(body, key)
			if err != nil || (!split.Found && key != "") {
				continue // the engine refuses such a page before any style runs
			}
			for name, style := range fuzzStyles {
				for _, params := range paramSets {
					if checkStyle(t, name, style, params, &Response{Params: params, Header: header, Fields: split.Fields, Count: len(split.Records)}) {
						repeated = name
					}
				}
			}
		}
		// Resumers also get meta straight from JSON (the hosted service's
		// connector_metadata), whatever its shape.
		if meta, err := jsonx.Value(body); err == nil {
			if m, ok := meta.(map[string]any); ok {
				for name, style := range fuzzStyles {
					for _, params := range paramSets {
						before := maps.Clone(params)
						next, _ := NextFromMeta(style.(Resumer), params, m, int(n%1000))
						if !reflect.DeepEqual(before, params) {
							t.Fatalf("%s.Next modified its params: %v", name, params)
						}
						if repeats(params, next) {
							repeated = name + ".Next"
						}
					}
				}
			}
		}
		if repeated != "" {
			t.Fatalf("%s proposes the page it was given again", repeated)
		}
	})
}

// checkStyle runs one style on one page; it reports whether the style
// proposed the same page again.
func checkStyle(t *testing.T, name string, style Style, params map[string]any, r *Response) bool {
	t.Helper()
	before := maps.Clone(params)
	meta, next, err := style.Page(r)
	if !reflect.DeepEqual(before, params) {
		t.Fatalf("%s.Page modified its params: %v", name, params)
	}
	if err != nil {
		return false
	}
	// Hosted mode rebuilds Next from the Meta it received as JSON.
	b, err := json.Marshal(meta)
	if err != nil {
		t.Fatalf("%s: meta %#v cannot be encoded: %v", name, meta, err)
	}
	m, err := jsonx.Value(b)
	if err != nil {
		t.Fatalf("%s: meta %s does not decode: %v", name, b, err)
	}
	mm, _ := m.(map[string]any)
	if mm == nil {
		mm = map[string]any{}
	}
	if again, _ := NextFromMeta(style.(Resumer), params, mm, r.Count); !reflect.DeepEqual(again, next) {
		t.Fatalf("%s: from meta %s hosted mode builds Next %#v, direct mode %#v", name, b, again, next)
	}
	return repeats(params, next)
}

// repeats reports whether next designates the page params did.
func repeats(params, next map[string]any) bool {
	return next != nil && reflect.DeepEqual(next, params)
}

// TestStylesRepeatPage: for each cursor style, a source that answers with
// the cursor (page, URL) it was sent gets no Next, but an error wrapping
// ErrStalled, so that no caller pages forever.
func TestStylesRepeatPage(t *testing.T) {
	tests := []struct {
		name   string
		style  Style
		key    string
		body   string
		link   string
		params map[string]any
	}{
		{"ZendeskPage offset", ZendeskPage{}, "tickets", `{"tickets":[{"id":1}],"next_page":"https://acme.zendesk.com/api/v2/tickets.json?page=2","count":9}`, "", map[string]any{"page": int64(2)}},
		{"ZendeskPage cursor", ZendeskPage{}, "tickets", `{"tickets":[{"id":1}],"meta":{"has_more":true,"after_cursor":"c1"}}`, "", map[string]any{"page[size]": int64(1), "page[after]": "c1"}},
		{"RecordsCursor", RecordsCursor{}, "calls", `{"records":{"cursor":"c1"},"calls":[{"id":"1"}]}`, "", map[string]any{"cursor": "c1"}},
		{"StartingAfter", StartingAfter{}, "data", `{"data":[{"id":"1"}],"pages":{"next":{"starting_after":"c1"}}}`, "", map[string]any{"starting_after": "c1"}},
		{"NextRecordsURL", NextRecordsURL{Param: "next_records_url"}, "records", `{"done":false,"nextRecordsUrl":"/q/1-200","records":[{}]}`, "", map[string]any{"q": "x", "next_records_url": "/q/1-200"}},
		{"LinkHeader", LinkHeader{}, "", `[{"id":1}]`, `<https://api.github.com/x?page=2>; rel="next"`, map[string]any{"page": int64(2)}},
		{"PagingNextAfter", PagingNextAfter{}, "results", `{"results":[{}],"paging":{"next":{"after":"c1"}}}`, "", map[string]any{"after": "c1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			split, err := jsonx.SplitPage([]byte(tt.body), tt.key)
			if err != nil {
				t.Fatal(err)
			}
			h := http.Header{}
			if tt.link != "" {
				h.Set("Link", tt.link)
			}
			_, next, err := tt.style.Page(&Response{Params: tt.params, Header: h, Fields: split.Fields, Count: len(split.Records)})
			if !errors.Is(err, ErrStalled) || next != nil {
				t.Errorf("Next %v, err %v; want an error wrapping ErrStalled", next, err)
			}
		})
	}
}
