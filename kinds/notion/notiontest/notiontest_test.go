package notiontest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/internal/vendorspec"
	"github.com/tributary-dev/tributary/kinds/notion"
	"github.com/tributary-dev/tributary/kinds/notion/notiontest"
)

// TestMain fails the package if any test leaves a goroutine running.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var _ fakeserver.Mutable = (*notiontest.Server)(nil)

func call(t *testing.T, srv *notiontest.Server, method, path, body string, header http.Header) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, bytes.NewReader([]byte(body)))
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := srv.Transport().RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return res.StatusCode, m
}

var good = http.Header{"Authorization": {"Bearer " + notiontest.DefaultToken}, "Notion-Version": {notiontest.Version}, "Content-Type": {"application/json"}}

// Every exchange of a client reading each entity that Notion's
// description covers agrees with it.
func TestAgreesWithTheDescription(t *testing.T) {
	srv := notiontest.New(notiontest.WithPages(8))
	defer srv.Close()
	hc := &http.Client{Transport: vendorspec.OpenAPI(t, "notion").Transport(t, srv.Transport(), srv.URL)}
	c, err := notion.New(notion.Credentials{Token: notiontest.DefaultToken}, tributary.WithBaseURL(srv.URL), tributary.WithHTTPClient(hc), tributary.WithoutPacing())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	page := notiontest.PageID(20)
	for _, op := range []tributary.Request{
		{Entity: "users", Action: "list", Params: tributary.Params{"page_size": 2}}, {Entity: "users", Action: "get", Params: tributary.Params{"user_id": "me"}},
		{Entity: "pages", Action: "list", Params: tributary.Params{"page_size": 3}}, {Entity: "pages", Action: "get", Params: tributary.Params{"page_id": page}},
		{Entity: "pages", Action: "api_search", Params: tributary.Params{"query": "page"}},
		{Entity: "data_sources", Action: "list"}, {Entity: "data_sources", Action: "get", Params: tributary.Params{"data_source_id": notiontest.DataSourceID(0)}},
		{Entity: "data_source_rows", Action: "list", Params: tributary.Params{"data_source_id": notiontest.DataSourceID(1), "page_size": 4}},
		{Entity: "blocks", Action: "list", Params: tributary.Params{"block_id": page, "depth": 3}},
		{Entity: "comments", Action: "list", Params: tributary.Params{"block_id": page}},
	} {
		if _, err := tributary.Execute(ctx, c, op); err != nil {
			t.Errorf("%s.%s: %v", op.Entity, op.Action, err)
		}
	}
}

// Notion's refusals: no version header, a bad token, a page size over
// 100, a cursor of another list; a 429 when the window is spent.
func TestRefusals(t *testing.T) {
	srv := notiontest.New(notiontest.WithRateLimit(2, time.Second))
	defer srv.Close()
	noVersion := http.Header{"Authorization": good["Authorization"]}
	if status, e := call(t, srv, "GET", "/v1/users", "", noVersion); status != 400 || e["code"] != "missing_version" {
		t.Errorf("no Notion-Version: %d %v", status, e)
	}
	bad := http.Header{"Authorization": {"Bearer nope"}, "Notion-Version": {notiontest.Version}}
	if status, e := call(t, srv, "GET", "/v1/users", "", bad); status != 401 || e["code"] != "unauthorized" || e["object"] != "error" {
		t.Errorf("bad token: %d %v", status, e)
	}
	if status, e := call(t, srv, "POST", "/v1/search", `{"page_size": 101}`, good); status != 400 || e["code"] != "validation_error" {
		t.Errorf("page_size 101: %d %v", status, e)
	}
	_, users := call(t, srv, "GET", "/v1/users?page_size=1", "", good)
	if status, e := call(t, srv, "POST", "/v1/search", `{"start_cursor": "`+users["next_cursor"].(string)+`"}`, good); status != 429 || e["code"] != "rate_limited" {
		t.Errorf("the third request in a second (refusals before the token is checked are not counted): %d %v", status, e)
	}
	srv.Clock().Advance(time.Second)
	if status, e := call(t, srv, "POST", "/v1/search", `{"start_cursor": "`+users["next_cursor"].(string)+`"}`, good); status != 400 || e["code"] != "validation_error" {
		t.Errorf("a cursor of another list: %d %v", status, e)
	}
}

// Mutations: a page created is found by search and has content; an edit
// moves its last_edited_time (to the minute); a page deleted goes to the
// trash: out of search, still answered by a get with in_trash.
func TestMutations(t *testing.T) {
	srv := notiontest.New(notiontest.WithPages(3), notiontest.WithDataSources(1))
	defer srv.Close()
	srv.Clock().Advance(90 * time.Second)
	id, err := srv.Create("pages")
	if err != nil {
		t.Fatal(err)
	}
	_, list := call(t, srv, "POST", "/v1/search", `{"filter": {"property": "object", "value": "page"}}`, good)
	first := list["results"].([]any)[0].(map[string]any)
	if first["id"] != id || first["last_edited_time"] != "2026-03-02T09:01:00.000Z" {
		t.Errorf("newest page %v at %v, want %s at 09:01", first["id"], first["last_edited_time"], id)
	}
	if _, kids := call(t, srv, "GET", "/v1/blocks/"+id+"/children", "", good); len(kids["results"].([]any)) < 3 {
		t.Errorf("the new page's blocks: %v", kids)
	}
	if err := srv.Delete("pages", id); err != nil {
		t.Fatal(err)
	}
	_, list = call(t, srv, "POST", "/v1/search", `{"query": "New page"}`, good)
	if n := len(list["results"].([]any)); n != 0 {
		t.Errorf("a trashed page is still searched: %d results", n)
	}
	if status, p := call(t, srv, "GET", "/v1/pages/"+id, "", good); status != 200 || p["in_trash"] != true {
		t.Errorf("get of a trashed page: %d %v", status, p["in_trash"])
	}
	row, _ := srv.Create("data_source_rows")
	must(t, srv.Delete("data_source_rows", row))
	_, trash := call(t, srv, "POST", "/v1/data_sources/"+notiontest.DataSourceID(0)+"/query", `{"in_trash": true}`, good)
	if rs := trash["results"].([]any); len(rs) != 1 || rs[0].(map[string]any)["id"] != row {
		t.Errorf("the trashed rows: %v", rs)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
