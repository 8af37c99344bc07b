package pagination

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary/internal/jsonx"
)

// resp builds a Response from a body shaped like the vendor's, split the
// way the engine splits it.
func resp(t *testing.T, body, key string, params map[string]any, header http.Header) *Response {
	t.Helper()
	p, err := jsonx.SplitPage([]byte(body), key)
	if err != nil {
		t.Fatal(err)
	}
	if header == nil {
		header = http.Header{}
	}
	return &Response{Params: params, Header: header, Fields: p.Fields, Count: len(p.Records)}
}

func TestStyles(t *testing.T) {
	tests := []struct {
		name     string
		style    Style
		r        *Response
		wantMeta map[string]any
		wantNext map[string]any
	}{
		{"mailchimp offset, more", OffsetTotal{OffsetParam: "offset", TotalField: "total_items"},
			resp(t, `{"campaigns":[{"id":"a"},{"id":"b"}],"total_items":5,"_links":[]}`, "campaigns", map[string]any{"count": int64(2), "offset": int64(2)}, nil),
			map[string]any{"total_items": int64(5)}, map[string]any{"count": int64(2), "offset": int64(4)}},
		{"mailchimp offset, last", OffsetTotal{OffsetParam: "offset", TotalField: "total_items"},
			resp(t, `{"campaigns":[{"id":"e"}],"total_items":5}`, "campaigns", map[string]any{"count": int64(2), "offset": int64(4)}, nil),
			map[string]any{"total_items": int64(5)}, nil},
		{"gong cursor", RecordsCursor{},
			resp(t, `{"requestId":"r1","records":{"totalRecords":263,"currentPageSize":100,"currentPageNumber":0,"cursor":"eyJhbGci"},"calls":[{"id":"1"}]}`, "calls", map[string]any{"fromDateTime": "2024-01-01T00:00:00Z"}, nil),
			map[string]any{"pagination": map[string]any{"totalRecords": int64(263), "currentPageSize": int64(100), "currentPageNumber": int64(0), "cursor": "eyJhbGci"}},
			map[string]any{"fromDateTime": "2024-01-01T00:00:00Z", "cursor": "eyJhbGci"}},
		{"gong last page", RecordsCursor{},
			resp(t, `{"requestId":"r1","records":{"totalRecords":1,"currentPageSize":1,"currentPageNumber":2},"calls":[{"id":"1"}]}`, "calls", map[string]any{"cursor": "x"}, nil),
			map[string]any{"pagination": map[string]any{"totalRecords": int64(1), "currentPageSize": int64(1), "currentPageNumber": int64(2)}}, nil},
		{"intercom starting_after", StartingAfter{},
			resp(t, `{"type":"list","data":[{"id":"1"}],"total_count":3,"pages":{"type":"pages","page":1,"per_page":1,"total_pages":3,"next":{"page":2,"starting_after":"WzE2OTk5"}}}`, "data", map[string]any{"per_page": int64(1)}, nil),
			map[string]any{"next_page": "WzE2OTk5", "total_count": int64(3)}, map[string]any{"per_page": int64(1), "starting_after": "WzE2OTk5"}},
		{"intercom last", StartingAfter{},
			resp(t, `{"type":"conversation.list","conversations":[],"pages":{"type":"pages","page":3,"per_page":1,"total_pages":3}}`, "conversations", map[string]any{}, nil),
			map[string]any{"next_page": nil}, nil},
		{"salesforce more", NextRecordsURL{Param: "next_records_url"},
			resp(t, `{"totalSize":3222,"done":false,"nextRecordsUrl":"/services/data/v67.0/query/01gRO0000016PIAYA2-200","records":[{"attributes":{"type":"Account"},"Id":"001"}]}`, "records", map[string]any{"q": "SELECT Id FROM Account"}, nil),
			map[string]any{"totalSize": int64(3222), "done": false, "nextRecordsUrl": "/services/data/v67.0/query/01gRO0000016PIAYA2-200"},
			map[string]any{"q": "SELECT Id FROM Account", "next_records_url": "/services/data/v67.0/query/01gRO0000016PIAYA2-200"}},
		{"salesforce done", NextRecordsURL{Param: "next_records_url"},
			resp(t, `{"totalSize":1,"done":true,"records":[{"Id":"001"}]}`, "records", map[string]any{"q": "x"}, nil),
			map[string]any{"totalSize": int64(1), "done": true, "nextRecordsUrl": nil}, nil},
		{"zendesk offset", ZendeskPage{},
			resp(t, `{"tickets":[{"id":1}],"next_page":"https://acme.zendesk.com/api/v2/tickets.json?page=3&per_page=1","previous_page":"https://acme.zendesk.com/api/v2/tickets.json?page=1&per_page=1","count":9}`, "tickets", map[string]any{"page": int64(2), "per_page": int64(1)}, nil),
			map[string]any{"next_page": "https://acme.zendesk.com/api/v2/tickets.json?page=3&per_page=1", "previous_page": "https://acme.zendesk.com/api/v2/tickets.json?page=1&per_page=1", "count": int64(9)},
			map[string]any{"page": int64(3), "per_page": int64(1)}},
		{"zendesk cursor", ZendeskPage{},
			resp(t, `{"tickets":[{"id":1}],"meta":{"has_more":true,"after_cursor":"xxx","before_cursor":"yyy"},"links":{"next":"https://acme.zendesk.com/api/v2/tickets.json?page%5Bafter%5D=xxx&page%5Bsize%5D=1","prev":"https://acme.zendesk.com/api/v2/tickets.json?page%5Bbefore%5D=yyy&page%5Bsize%5D=1"}}`, "tickets", map[string]any{"page[size]": int64(1)}, nil),
			map[string]any{"has_more": true, "after_cursor": "xxx", "before_cursor": "yyy", "next_page": "https://acme.zendesk.com/api/v2/tickets.json?page%5Bafter%5D=xxx&page%5Bsize%5D=1", "previous_page": "https://acme.zendesk.com/api/v2/tickets.json?page%5Bbefore%5D=yyy&page%5Bsize%5D=1"},
			map[string]any{"page[size]": int64(1), "page[after]": "xxx"}},
		{"zendesk audits, older page", ZendeskPage{},
			resp(t, `{"audits":[{"id":3},{"id":2}],"after_cursor":"a1","after_url":"https://acme.zendesk.com/api/v2/ticket_audits.json?cursor=a1","before_cursor":"b1","before_url":"https://acme.zendesk.com/api/v2/ticket_audits.json?cursor=b1"}`, "audits", map[string]any{}, nil),
			map[string]any{"after_cursor": "a1", "after_url": "https://acme.zendesk.com/api/v2/ticket_audits.json?cursor=a1", "before_cursor": "b1", "before_url": "https://acme.zendesk.com/api/v2/ticket_audits.json?cursor=b1"},
			map[string]any{"cursor": "b1"}},
		{"zendesk audits, oldest page", ZendeskPage{},
			resp(t, `{"audits":[{"id":1}],"after_cursor":"a0","after_url":"https://acme.zendesk.com/api/v2/ticket_audits.json?cursor=a0","before_cursor":null,"before_url":null}`, "audits", map[string]any{"cursor": "b1"}, nil),
			map[string]any{"after_cursor": "a0", "after_url": "https://acme.zendesk.com/api/v2/ticket_audits.json?cursor=a0", "before_cursor": nil, "before_url": nil}, nil},
		{"zendesk cursor export, first page", ZendeskExport{},
			resp(t, `{"tickets":[{"id":1}],"after_url":"https://acme.zendesk.com/api/v2/incremental/tickets/cursor.json?cursor=MTU3NjYxMzUzOS4wfHw0Njd8","after_cursor":"MTU3NjYxMzUzOS4wfHw0Njd8","before_url":null,"before_cursor":null,"end_of_stream":false}`, "tickets", map[string]any{"start_time": int64(0), "per_page": int64(1)}, nil),
			map[string]any{"end_of_stream": false, "after_cursor": "MTU3NjYxMzUzOS4wfHw0Njd8", "after_url": "https://acme.zendesk.com/api/v2/incremental/tickets/cursor.json?cursor=MTU3NjYxMzUzOS4wfHw0Njd8", "before_cursor": nil, "before_url": nil},
			map[string]any{"cursor": "MTU3NjYxMzUzOS4wfHw0Njd8", "per_page": int64(1)}},
		{"zendesk cursor export, end of stream", ZendeskExport{},
			resp(t, `{"users":[],"after_url":"https://acme.zendesk.com/api/v2/incremental/users/cursor.json?cursor=b","after_cursor":"b","before_url":"https://acme.zendesk.com/api/v2/incremental/users/cursor.json?cursor=a","before_cursor":"a","end_of_stream":true}`, "users", map[string]any{"cursor": "a"}, nil),
			map[string]any{"end_of_stream": true, "after_cursor": "b", "after_url": "https://acme.zendesk.com/api/v2/incremental/users/cursor.json?cursor=b", "before_cursor": "a", "before_url": "https://acme.zendesk.com/api/v2/incremental/users/cursor.json?cursor=a"}, nil},
		{"zendesk time export, more", ZendeskExport{},
			resp(t, `{"organizations":[{"id":1}],"next_page":"https://acme.zendesk.com/api/v2/incremental/organizations.json?start_time=1601357503","count":1000,"end_time":1601357503,"end_of_stream":false}`, "organizations", map[string]any{"start_time": int64(0)}, nil),
			map[string]any{"end_of_stream": false, "end_time": int64(1601357503), "next_page": "https://acme.zendesk.com/api/v2/incremental/organizations.json?start_time=1601357503", "count": int64(1000)},
			map[string]any{"start_time": int64(1601357503)}},
		{"zendesk time export, end of stream", ZendeskExport{},
			resp(t, `{"organizations":[{"id":1}],"next_page":"https://acme.zendesk.com/api/v2/incremental/organizations.json?start_time=1601357600","count":1,"end_time":1601357600,"end_of_stream":true}`, "organizations", map[string]any{"start_time": int64(1601357503)}, nil),
			map[string]any{"end_of_stream": true, "end_time": int64(1601357600), "next_page": "https://acme.zendesk.com/api/v2/incremental/organizations.json?start_time=1601357600", "count": int64(1)}, nil},
		{"github link", LinkHeader{},
			resp(t, `[{"id":1},{"id":2}]`, "", map[string]any{"owner": "o", "repo": "r", "per_page": int64(2)},
				http.Header{"Link": {`<https://api.github.com/repositories/1/issues?per_page=2&page=3>; rel="next", <https://api.github.com/repositories/1/issues?per_page=2&page=9>; rel="last"`}}),
			map[string]any{"next_page": int64(3), "last_page": int64(9)},
			map[string]any{"owner": "o", "repo": "r", "per_page": int64(2), "page": int64(3)}},
		{"github search", LinkHeader{},
			resp(t, `{"total_count":2400,"incomplete_results":false,"items":[{"id":1}]}`, "items", map[string]any{"q": "x"}, nil),
			map[string]any{"next_page": nil, "last_page": nil, "total_count": int64(2400), "incomplete_results": false}, nil},
		{"hubspot after", PagingNextAfter{},
			resp(t, `{"results":[{"id":"512"}],"paging":{"next":{"after":"NTI1Cg%3D%3D","link":"?after=NTI1Cg%3D%3D"}}}`, "results", map[string]any{"limit": int64(1)}, nil),
			map[string]any{"next_cursor": "NTI1Cg%3D%3D"}, map[string]any{"limit": int64(1), "after": "NTI1Cg%3D%3D"}},
		{"hubspot search last", PagingNextAfter{},
			resp(t, `{"total":1,"results":[{"id":"512"}]}`, "results", map[string]any{}, nil),
			map[string]any{"next_cursor": nil, "total": int64(1)}, nil},
		{"jira search/jql, more", Token{Param: "nextPageToken", Field: "nextPageToken", Last: "isLast"},
			resp(t, `{"issues":[{"id":"10001"}],"nextPageToken":"CAEaAggD","isLast":false}`, "issues", map[string]any{"jql": "project = X", "maxResults": int64(1)}, nil),
			map[string]any{"nextPageToken": "CAEaAggD", "isLast": false}, map[string]any{"jql": "project = X", "maxResults": int64(1), "nextPageToken": "CAEaAggD"}},
		{"jira search/jql, last", Token{Param: "nextPageToken", Field: "nextPageToken", Last: "isLast"},
			resp(t, `{"issues":[{"id":"10002"}],"isLast":true}`, "issues", map[string]any{"nextPageToken": "CAEaAggD"}, nil),
			map[string]any{"isLast": true}, nil},
		{"jira changed worklogs, a numeric token", Token{Param: "since", Field: "until", Last: "lastPage"},
			resp(t, `{"values":[{"worklogId":103,"updatedTime":1772407800000}],"since":0,"until":1772407800000,"lastPage":false}`, "values", map[string]any{"since": int64(0)}, nil),
			map[string]any{"until": int64(1772407800000), "lastPage": false}, map[string]any{"since": int64(1772407800000)}},
		{"slack cursor, more", Token{Param: "cursor", Field: "response_metadata.next_cursor"},
			resp(t, `{"ok":true,"channels":[{"id":"C1"}],"response_metadata":{"next_cursor":"dGVhbTpDMDYxRkE1UEI="}}`, "channels", map[string]any{"limit": int64(1)}, nil),
			map[string]any{"response_metadata": map[string]any{"next_cursor": "dGVhbTpDMDYxRkE1UEI="}}, map[string]any{"limit": int64(1), "cursor": "dGVhbTpDMDYxRkE1UEI="}},
		{"slack cursor, empty string ends", Token{Param: "cursor", Field: "response_metadata.next_cursor"},
			resp(t, `{"ok":true,"channels":[{"id":"C2"}],"response_metadata":{"next_cursor":""}}`, "channels", map[string]any{"cursor": "x"}, nil),
			map[string]any{"response_metadata": map[string]any{"next_cursor": ""}}, nil},
		{"slack files.list, more pages", PageNumber{Param: "page", Pages: "paging.pages"},
			resp(t, `{"ok":true,"files":[{"id":"F1"}],"paging":{"count":1,"total":3,"page":1,"pages":3}}`, "files", map[string]any{"count": int64(1)}, nil),
			map[string]any{"paging": map[string]any{"count": int64(1), "total": int64(3), "page": int64(1), "pages": int64(3)}}, map[string]any{"count": int64(1), "page": int64(2)}},
		{"slack files.list, last page", PageNumber{Param: "page", Pages: "paging.pages"},
			resp(t, `{"ok":true,"files":[{"id":"F3"}],"paging":{"count":1,"total":3,"page":3,"pages":3}}`, "files", map[string]any{"page": int64(3)}, nil),
			map[string]any{"paging": map[string]any{"count": int64(1), "total": int64(3), "page": int64(3), "pages": int64(3)}}, nil},
		{"slack search.messages, no pages", PageNumber{Param: "page", Pages: "paging.pages"},
			resp(t, `{"matches":[],"paging":{"count":20,"total":0,"page":1,"pages":0}}`, "matches", map[string]any{"query": "x"}, nil),
			map[string]any{"paging": map[string]any{"count": int64(20), "total": int64(0), "page": int64(1), "pages": int64(0)}}, nil},
		{"asana next_page null ends", Token{Param: "offset", Field: "next_page.offset"},
			resp(t, `{"data":[{"gid":"1"}],"next_page":null}`, "data", map[string]any{"offset": "eyJ0eXAiOJiKV1iQLCJhbGciOiJIUzI1NiJ9"}, nil),
			map[string]any{"next_page": nil}, nil},
		{"drive changes, the last page keeps its new start token", Token{Param: "pageToken", Field: "nextPageToken", Keep: []string{"newStartPageToken"}},
			resp(t, `{"kind":"drive#changeList","newStartPageToken":"5101","changes":[{"fileId":"a"}]}`, "changes", map[string]any{"pageToken": "5100"}, nil),
			map[string]any{"newStartPageToken": "5101"}, nil},
		{"asana events, has_more", Token{Param: "sync", Field: "sync", More: "has_more"},
			resp(t, `{"data":[{"action":"changed"}],"sync":"de4774f6","has_more":true}`, "data", map[string]any{"resource": "12", "sync": "aa"}, nil),
			map[string]any{"sync": "de4774f6", "has_more": true}, map[string]any{"resource": "12", "sync": "de4774f6"}},
		{"asana events, no more", Token{Param: "sync", Field: "sync", More: "has_more"},
			resp(t, `{"data":[],"sync":"e5","has_more":false}`, "data", map[string]any{"resource": "12", "sync": "de4774f6"}, nil),
			map[string]any{"sync": "e5", "has_more": false}, nil},
		{"jira page bean, more", OffsetTotal{OffsetParam: "startAt", TotalField: "total", LastField: "isLast", SizeParam: "maxResults"},
			resp(t, `{"self":"https://x.atlassian.net/rest/api/3/project/search?startAt=0&maxResults=2","maxResults":2,"startAt":0,"total":3,"isLast":false,"values":[{"id":"1"},{"id":"2"}]}`, "values", map[string]any{"maxResults": int64(2)}, nil),
			map[string]any{"total": int64(3), "isLast": false}, map[string]any{"maxResults": int64(2), "startAt": int64(2)}},
		{"jira page bean, isLast before the total", OffsetTotal{OffsetParam: "startAt", TotalField: "total", LastField: "isLast", SizeParam: "maxResults"},
			resp(t, `{"maxResults":2,"startAt":2,"total":9,"isLast":true,"values":[{"id":"3"}]}`, "values", map[string]any{"maxResults": int64(2), "startAt": int64(2)}, nil),
			map[string]any{"total": int64(9), "isLast": true}, nil},
		{"jira users, a full bare page", OffsetTotal{OffsetParam: "startAt", TotalField: "total", SizeParam: "maxResults"},
			resp(t, `[{"accountId":"a"},{"accountId":"b"}]`, "", map[string]any{"maxResults": int64(2)}, nil),
			map[string]any{}, map[string]any{"maxResults": int64(2), "startAt": int64(2)}},
		{"jira users, a short bare page", OffsetTotal{OffsetParam: "startAt", TotalField: "total", SizeParam: "maxResults"},
			resp(t, `[{"accountId":"c"}]`, "", map[string]any{"maxResults": int64(2), "startAt": int64(2)}, nil),
			map[string]any{}, nil},
		{"graphql relay, more", Relay{},
			resp(t, `{"data":{"issues":{"nodes":[{"id":"a"}],"pageInfo":{"hasNextPage":true,"endCursor":"YQ=="}}}}`, "data.issues.nodes", map[string]any{"first": int64(1)}, nil),
			map[string]any{"pageInfo": map[string]any{"hasNextPage": true, "endCursor": "YQ=="}}, map[string]any{"first": int64(1), "after": "YQ=="}},
		{"graphql relay, last", Relay{},
			resp(t, `{"data":{"issues":{"nodes":[{"id":"b"}],"pageInfo":{"hasNextPage":false,"endCursor":"Yg=="}}}}`, "data.issues.nodes", map[string]any{"after": "YQ=="}, nil),
			map[string]any{"pageInfo": map[string]any{"hasNextPage": false, "endCursor": "Yg=="}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := cmp.Diff(nil, tt.r.Params)
			meta, next, err := tt.style.Page(tt.r)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.wantMeta, meta); d != "" {
				t.Errorf("meta (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantNext, next); d != "" {
				t.Errorf("next (-want +got):\n%s", d)
			}
			if after := cmp.Diff(nil, tt.r.Params); after != before {
				t.Error("the style modified the request params")
			}
			// A client that only sees Meta, as JSON (the hosted client),
			// derives the same next params.
			b, _ := json.Marshal(meta)
			seen, _ := jsonx.Value(b)
			again := tt.style.(Resumer).Next(tt.r.Params, seen.(map[string]any), tt.r.Count)
			if d := cmp.Diff(tt.wantNext, again); d != "" {
				t.Errorf("next from meta alone (-want +got):\n%s", d)
			}
		})
	}
}

func TestPagerStopsOnRepeatedCursor(t *testing.T) {
	calls := 0
	p := New(map[string]any{}, func(ctx context.Context, params map[string]any) (*Page[int], error) {
		calls++
		// A source that answers every page with the same cursor.
		return &Page[int]{Items: []int{calls}, Next: map[string]any{"cursor": "same"}}, nil
	})
	var got []int
	var err error
	for v, e := range p.All(context.Background()) {
		if e != nil {
			err = e
			break
		}
		got = append(got, v)
	}
	if !errors.Is(err, ErrStalled) {
		t.Fatalf("err = %v, want ErrStalled", err)
	}
	if d := cmp.Diff([]int{1, 2}, got); d != "" || calls != 2 {
		t.Errorf("items (-want +got):\n%s calls=%d", d, calls)
	}
}

func TestPagerWalksUntilNoNext(t *testing.T) {
	p := New(map[string]any{"page": int64(1)}, func(ctx context.Context, params map[string]any) (*Page[int64], error) {
		n := params["page"].(int64)
		var next map[string]any
		if n < 3 {
			next = map[string]any{"page": n + 1}
		}
		return &Page[int64]{Items: []int64{n * 10, n*10 + 1}, Next: next}, nil
	})
	var got []int64
	for v, err := range p.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if d := cmp.Diff([]int64{10, 11, 20, 21, 30, 31}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if p.More() {
		t.Error("More after the last page")
	}
}

func TestParseLink(t *testing.T) {
	got := ParseLink([]string{`<https://x/a?labels=bug,ui&page=2>; rel="next", <https://x/a?page=5>; rel="last"`, `<https://x/a?page=1>; rel="first prev"`})
	want := map[string]string{"next": "https://x/a?labels=bug,ui&page=2", "last": "https://x/a?page=5", "first": "https://x/a?page=1", "prev": "https://x/a?page=1"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
