package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/github/githubtest"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/mcp"
	"github.com/tributary-dev/tributary/replica"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// world is a server over one Zendesk fake, named "support", with search
// over the in-memory store, and a client connected to it in memory.
type world struct {
	fake   *zendesktest.Server
	server *mcp.Server
	client *sdk.ClientSession
	dir    string
}

func setup(t testing.TB, opts mcp.Options, fakeOpts ...zendesktest.Option) *world {
	t.Helper()
	fake := zendesktest.New(append([]zendesktest.Option{zendesktest.WithTickets(60)}, fakeOpts...)...)
	t.Cleanup(fake.Close)
	conn, err := kinds.Open("zendesk-support", map[string]any{"subdomain": zendesktest.DefaultSubdomain,
		"email": zendesktest.DefaultEmail, "api_token": zendesktest.DefaultAPIToken},
		tributary.WithBaseURL(fake.URL), tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 0}))
	if err != nil {
		t.Fatal(err)
	}
	conn, _ = mcp.MemoryStore{}.Attach(context.Background(), "support", conn, mcp.Copies{})
	w := &world{fake: fake, dir: t.TempDir()}
	if opts.Downloads.Dir == "" {
		opts.Downloads.Dir = w.dir
	}
	w.server, err = mcp.New([]mcp.Source{{Name: "support", Conn: conn}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.server.Close)
	w.client = connect(t, w.server)
	return w
}

// connect runs a session of s over the SDK's in-memory transport.
func connect(t testing.TB, s *mcp.Server) *sdk.ClientSession {
	t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.MCPServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return cs
}

// answer is one tool result as a client sees it.
type answer struct {
	isError bool
	text    string
	out     map[string]any // the structured content
}

func call(t testing.TB, cs *sdk.ClientSession, tool string, args any) answer {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", tool, err)
	}
	var a answer
	a.isError = res.IsError
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			a.text += tc.Text
		}
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &a.out); err != nil {
		t.Fatalf("%s: structured content %s: %v", tool, b, err)
	}
	return a
}

// ok fails unless the call succeeded.
func (a answer) ok(t testing.TB) answer {
	t.Helper()
	if a.isError {
		t.Fatalf("isError: %s", a.text)
	}
	return a
}

// fails checks a failed call: isError, the error kind, and the text.
func (a answer) fails(t testing.TB, kind string, texts ...string) map[string]any {
	t.Helper()
	if !a.isError {
		t.Fatalf("want isError (%s), got %s", kind, a.text)
	}
	e, _ := a.out["error"].(map[string]any)
	if e["kind"] != kind {
		t.Fatalf("error kind %v, want %s: %s", e["kind"], kind, a.text)
	}
	for _, s := range texts {
		if !strings.Contains(a.text, s) {
			t.Errorf("error text %q lacks %q", a.text, s)
		}
	}
	return e
}

func str(v any) string { s, _ := v.(string); return s }

func records(t testing.TB, a answer) []map[string]any {
	t.Helper()
	raw, _ := a.out["records"].([]any)
	out := make([]map[string]any, len(raw))
	for i, r := range raw {
		out[i], _ = r.(map[string]any)
	}
	return out
}

func ids(recs []map[string]any) []string {
	var out []string
	for _, r := range recs {
		b, _ := json.Marshal(r["id"])
		out = append(out, string(b))
	}
	return out
}

func directIDs(t *testing.T, recs []tributary.Record) []string {
	var out []string
	for _, r := range recs {
		raw, _ := r.Lookup("id")
		out = append(out, string(raw))
	}
	return out
}

func TestTools(t *testing.T) {
	w := setup(t, mcp.Options{})
	res, err := w.client.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	tools := map[string]*sdk.Tool{}
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		tools[tool.Name] = tool
		a := tool.Annotations
		if a == nil || !a.IdempotentHint || a.DestructiveHint == nil || *a.DestructiveHint {
			t.Errorf("%s: annotations %+v: want idempotent and not destructive", tool.Name, a)
		}
		if want := tool.Name != mcp.ToolDownload; a != nil && a.ReadOnlyHint != want {
			t.Errorf("%s: readOnlyHint %v, want %v", tool.Name, a.ReadOnlyHint, want)
		}
		if tool.OutputSchema == nil || tool.Description == "" {
			t.Errorf("%s: no output schema or description", tool.Name)
		}
	}
	slices.Sort(names)
	if want := []string{"describe", "download", "execute", "list_connectors", "validate"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}

	// execute's schema: the connector and entity names as enums, the actions,
	// and each operation's parameters from the catalogue.
	b, _ := json.Marshal(tools["execute"].InputSchema)
	var schema struct {
		Properties map[string]struct {
			Enum []any `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
		AllOf    []struct {
			If struct {
				Properties map[string]struct {
					Const string `json:"const"`
				} `json:"properties"`
			} `json:"if"`
			Then struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"then"`
		} `json:"allOf"`
	}
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	if got := schema.Properties["connector"].Enum; len(got) != 1 || got[0] != "support" {
		t.Errorf("connector enum %v", got)
	}
	if !slices.Contains(schema.Properties["entity"].Enum, any("tickets")) {
		t.Errorf("entity enum %v: want tickets", schema.Properties["entity"].Enum)
	}
	b, _ = json.Marshal(tools["download"].InputSchema)
	if s := string(b); !strings.Contains(s, `"enum":["article_attachments","attachments"]`) || strings.Contains(s, `"action"`) {
		t.Errorf("download schema: want the entities that download, no action: %s", s)
	}
	if got := schema.Properties["action"].Enum; !slices.Equal(got, []any{"list", "get", "api_search", "search"}) {
		t.Errorf("action enum %v", got)
	}
	params := map[string]string{}
	for _, c := range schema.AllOf {
		p := c.If.Properties
		if p["entity"].Const != "" && p["action"].Const != "" {
			params[p["entity"].Const+"."+p["action"].Const] = string(c.Then.Properties["params"])
		}
	}
	for op, want := range map[string][]string{
		"tickets.get":    {`"required":["ticket_id"]`, `"ticket_id":{"description":`, `"type":"integer"`},
		"tickets.list":   {`"per_page":{`, `"maximum":100`, `"enum":["id","status","updated_at","-id","-status","-updated_at"]`},
		"tickets.search": {`"query"`, `searchable fields: `, `status (string)`, `created_at (date-time)`, `compares with RFC 3339 date-times`},
	} {
		for _, s := range want {
			if !strings.Contains(params[op], s) {
				t.Errorf("%s params schema lacks %s: %s", op, s, params[op])
			}
		}
	}

	// Beyond SchemaBytes, the schema keeps the names and leaves the
	// parameters to describe.
	small := setup(t, mcp.Options{SchemaBytes: 1000})
	res, err = small.client.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if b, _ := json.Marshal(tool.InputSchema); strings.Contains(string(b), "ticket_id") {
			t.Errorf("%s: parameters in a schema over budget", tool.Name)
		}
	}
}

func TestListConnectorsAndDescribe(t *testing.T) {
	w := setup(t, mcp.Options{})
	a := call(t, w.client, "list_connectors", nil).ok(t)
	if !strings.Contains(a.text, "support (zendesk-support, direct") {
		t.Errorf("text %q", a.text)
	}
	cs := a.out["connectors"].([]any)
	c := cs[0].(map[string]any)
	if len(cs) != 1 || c["name"] != "support" || c["title"] != "support" || c["type"] != "zendesk-support" || c["search"] != true {
		t.Errorf("connectors %v", cs)
	}

	a = call(t, w.client, "describe", map[string]any{"connector": "support"}).ok(t)
	var es []string
	for _, e := range a.out["entities"].([]any) {
		es = append(es, str(e.(map[string]any)["name"]))
	}
	if !slices.Contains(es, "tickets") || !slices.Contains(es, "attachments") || !strings.Contains(a.text, "tickets") {
		t.Errorf("entities %v", es)
	}

	a = call(t, w.client, "describe", map[string]any{"connector": "support", "entity": "tickets"}).ok(t)
	e := a.out["entity"].(map[string]any)
	b, _ := json.Marshal(e)
	for _, s := range []string{`"actions":["list","get","search"]`, `"name":"ticket_id","required":true,"type":"integer"`,
		`"enum":["id","status","updated_at","-id","-status","-updated_at"]`, `"searchable_fields":[`, `"name":"status","type":"string"`} {
		if !strings.Contains(string(b), s) {
			t.Errorf("describe tickets lacks %s: %s", s, b)
		}
	}

	// Errors: the library's message, verbatim.
	a = call(t, w.client, "describe", map[string]any{"connector": "support", "entity": "ticket"})
	_, err := tributary.Validate("zendesk-support", w.server.Sources()[0].Conn.Entities(), "ticket", tributary.ActionList, nil)
	e = a.fails(t, mcp.KindUnknownEntity, err.Error(), "tickets")
	if !strings.Contains(a.text, `did you mean "tickets"?`) {
		t.Errorf("no suggestion for \"ticket\": %s", a.text)
	}
	if e["entity"] != "ticket" {
		t.Errorf("error %v", e)
	}
	a = call(t, w.client, "describe", map[string]any{"connector": "zendesk"})
	e = a.fails(t, mcp.KindUnknownConnector, `unknown connector "zendesk"`, "support")
	if !slices.Equal(e["allowed"].([]any), []any{"support"}) {
		t.Errorf("allowed %v", e["allowed"])
	}
	call(t, w.client, "describe", map[string]any{}).fails(t, mcp.KindInvalidArguments, `"connector" is required`)
	call(t, w.client, "describe", map[string]any{"connector": "support", "entty": "x"}).fails(t, mcp.KindInvalidArguments, `unknown argument "entty"`, "accepted: connector, entity")
	call(t, w.client, "describe", map[string]any{"connector": 7}).fails(t, mcp.KindInvalidArguments, `"connector" must be a string`)
	call(t, w.client, "list_connectors", map[string]any{"x": 1}).fails(t, mcp.KindInvalidArguments, `unknown argument "x"`)
}

func TestValidate(t *testing.T) {
	w := setup(t, mcp.Options{})
	w.fake.ResetRequests()
	a := call(t, w.client, "validate", map[string]any{"connector": "support", "entity": "tickets", "action": "get",
		"params": map[string]any{"ticket_id": 12}}).ok(t)
	if a.out["valid"] != true || a.out["params"].(map[string]any)["ticket_id"] != float64(12) {
		t.Errorf("valid get: %v", a.out)
	}
	for _, c := range []struct {
		params      map[string]any
		action      string
		entity      string
		kind, param string
		inText      []string
	}{
		{map[string]any{}, "get", "tickets", mcp.KindInvalidParams, "ticket_id", []string{"ticket_id", "is required"}},
		{map[string]any{"ticket_id": "abc"}, "get", "tickets", mcp.KindInvalidParams, "ticket_id", []string{`must be an integer, got a string "abc"`}},
		{map[string]any{"sort": "up"}, "list", "tickets", mcp.KindInvalidParams, "sort", []string{`"up" is not one of id, status`}},
		{map[string]any{"per_page": 500}, "list", "tickets", mcp.KindInvalidParams, "per_page", []string{"above the maximum 100"}},
		{map[string]any{"colour": 1}, "list", "tickets", mcp.KindInvalidParams, "colour", []string{"not a parameter", "per_page"}},
		{map[string]any{}, "download", "tickets", mcp.KindUnsupportedAction, "", []string{"tickets offers list, get, search"}},
		{map[string]any{}, "list", "tikets", mcp.KindUnknownEntity, "", []string{"tickets"}},
		{map[string]any{"query": map[string]any{"filter": map[string]any{"eq": map[string]any{"colour": "red"}}}}, "search", "tickets", mcp.KindInvalidParams, "colour", []string{"colour"}},
		{map[string]any{"query": map[string]any{"filter": map[string]any{"gt": map[string]any{"status": 3}}}}, "search", "tickets", mcp.KindInvalidParams, "status", []string{"status"}},
		{map[string]any{"query": map[string]any{"filter": map[string]any{"gt": map[string]any{"created_at": "yesterday"}}}}, "search", "tickets", mcp.KindInvalidParams, "created_at",
			[]string{`created_at is a date-time: "yesterday" is not RFC 3339 (e.g. 2024-01-31T00:00:00Z)`}},
	} {
		a := call(t, w.client, "validate", map[string]any{"connector": "support", "entity": c.entity, "action": c.action, "params": c.params}).ok(t)
		e, _ := a.out["error"].(map[string]any)
		if a.out["valid"] != false || e["kind"] != c.kind || str(e["param"]) != c.param {
			t.Errorf("%s %s %v: %v", c.entity, c.action, c.params, a.out)
			continue
		}
		// The exact error the library gives.
		_, err := tributary.Validate("zendesk-support", w.server.Sources()[0].Conn.Entities(), c.entity, tributary.Action(c.action), c.params)
		if err != nil && c.action != "search" && e["message"] != err.Error() {
			t.Errorf("message %q, want the library's %q", e["message"], err)
		}
		for _, s := range c.inText {
			if !strings.Contains(a.text, s) {
				t.Errorf("%v: text %q lacks %q", c.params, a.text, s)
			}
		}
	}
	if n := len(w.fake.Requests()); n != 0 {
		t.Errorf("validate sent %d requests", n)
	}
	call(t, w.client, "validate", map[string]any{"connector": "support", "entity": "tickets", "action": "erase"}).ok(t)
	call(t, w.client, "validate", map[string]any{"connector": "support", "entity": "tickets"}).fails(t, mcp.KindInvalidArguments, `"action" is required`)
}

// exec calls execute and fails the test on an error result.
func exec(t *testing.T, cs *sdk.ClientSession, args map[string]any) answer {
	t.Helper()
	return call(t, cs, "execute", args).ok(t)
}

func TestExecute(t *testing.T) {
	w := setup(t, mcp.Options{})
	ctx := context.Background()
	conn := w.server.Sources()[0].Conn
	page, err := conn.List(ctx, "tickets", tributary.Params{"per_page": 10})
	if err != nil {
		t.Fatal(err)
	}

	a := exec(t, w.client, map[string]any{"connector": "support", "entity": "tickets", "action": "list", "params": map[string]any{"per_page": 10}})
	if got, want := ids(records(t, a)), directIDs(t, page.Records); !slices.Equal(got, want) {
		t.Errorf("records %v, want the library's %v", got, want)
	}
	if a.out["count"] != float64(10) || a.out["truncated"] != false || a.out["meta"].(map[string]any)["count"] != float64(60) {
		t.Errorf("answer %v", a.out)
	}
	next := a.out["next"].(map[string]any)
	if next["params"].(map[string]any)["page"] != float64(2) || next["connector"] != "support" || next["action"] != "list" {
		t.Errorf("next %v", next)
	}
	if !strings.HasPrefix(a.text, "10 records of support.tickets list (more pages") {
		t.Errorf("text %q", a.text)
	}
	a2 := exec(t, w.client, next)
	page2, _ := conn.List(ctx, "tickets", page.Next)
	if got, want := ids(records(t, a2)), directIDs(t, page2.Records); !slices.Equal(got, want) {
		t.Errorf("page 2 %v, want %v", got, want)
	}

	// get, with a field projection.
	id, _ := page.Records[0].IntAt("id")
	a = exec(t, w.client, map[string]any{"connector": "support", "entity": "tickets", "action": "get",
		"params": map[string]any{"ticket_id": id}, "fields": []string{"id", "status", "via.channel", "nope"}})
	recs := records(t, a)
	want, _ := page.Records[0].Field("via.channel")
	if len(recs) != 1 || len(recs[0]) != 3 || recs[0]["via"].(map[string]any)["channel"] != want || recs[0]["status"] == nil {
		t.Errorf("get with fields: %v", recs)
	}

	// search over the store.
	a = exec(t, w.client, map[string]any{"connector": "support", "entity": "tickets", "action": "search",
		"params": map[string]any{"query": map[string]any{"filter": map[string]any{"eq": map[string]any{"status": "open"}}}, "limit": 5}, "fields": []string{"status"}})
	hits, _ := a.out["hits"].([]any)
	if len(hits) == 0 || len(hits) > 5 {
		t.Fatalf("hits %v", a.out)
	}
	for _, h := range hits {
		if d := h.(map[string]any)["data"].(map[string]any); d["status"] != "open" || len(d) != 1 {
			t.Errorf("hit %v", h)
		}
	}
	if n, _ := a.out["next"].(map[string]any); n != nil && str(n["params"].(map[string]any)["cursor"]) == "" {
		t.Errorf("search next %v", n)
	}
}

// TestCutAndContinue walks a page cut by the record limit and by the byte
// cap with next, and gets every record of the library's page once, in order.
func TestCutAndContinue(t *testing.T) {
	for _, c := range []struct {
		name string
		opts mcp.Options
		args map[string]any
	}{
		{"limit", mcp.Options{}, map[string]any{"limit": 7}},
		{"default limit", mcp.Options{Limits: mcp.Limits{Records: 9}}, map[string]any{}},
		{"limit as a string", mcp.Options{}, map[string]any{"limit": "8"}},
		{"bytes", mcp.Options{Limits: mcp.Limits{Bytes: 6000}}, map[string]any{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := setup(t, c.opts)
			page, err := w.server.Sources()[0].Conn.List(context.Background(), "tickets", tributary.Params{"per_page": 30})
			if err != nil {
				t.Fatal(err)
			}
			args := map[string]any{"connector": "support", "entity": "tickets", "action": "list", "params": map[string]any{"per_page": 30}}
			for k, v := range c.args {
				args[k] = v
			}
			var got []string
			calls := 0
			for {
				a := exec(t, w.client, args)
				calls++
				b, _ := json.Marshal(a.out)
				if c.opts.Limits.Bytes > 0 && len(b) > c.opts.Limits.Bytes {
					t.Errorf("answer of %d bytes, cap %d", len(b), c.opts.Limits.Bytes)
				}
				got = append(got, ids(records(t, a))...)
				next, _ := a.out["next"].(map[string]any)
				if a.out["truncated"] != true {
					if next == nil || next["skip"] != nil {
						t.Fatalf("end of page: next %v", next)
					}
					break
				}
				if !strings.Contains(a.text, "cut") || !strings.Contains(str(a.out["note"]), "call execute with next") {
					t.Errorf("a cut answer says %q / %q", a.text, a.out["note"])
				}
				args = next
				if calls > 40 {
					t.Fatal("no end")
				}
			}
			if want := directIDs(t, page.Records); !slices.Equal(got, want) {
				t.Errorf("records through next: %v\nwant %v", got, want)
			}
			if calls < 3 {
				t.Errorf("%d calls: the page was not cut", calls)
			}
		})
	}
}

func TestExecuteErrors(t *testing.T) {
	w := setup(t, mcp.Options{}, zendesktest.WithFaults(zendesktest.Faults{}))
	op := func(entity, action string, params map[string]any) map[string]any {
		return map[string]any{"connector": "support", "entity": entity, "action": action, "params": params}
	}
	call(t, w.client, "execute", op("tickets", "get", map[string]any{})).fails(t, mcp.KindInvalidParams, `"ticket_id"`, "is required")
	call(t, w.client, "execute", op("tickets", "get", map[string]any{"ticket_id": 999999})).fails(t, mcp.KindNotFound, "404")
	call(t, w.client, "execute", op("tikets", "list", nil)).fails(t, mcp.KindUnknownEntity, "tickets")
	call(t, w.client, "execute", op("attachments", "download", map[string]any{"attachment_id": 1})).fails(t, mcp.KindUnsupportedAction, "download tool")
	call(t, w.client, "execute", op("tickets", "api_search", nil)).fails(t, mcp.KindUnsupportedAction, "tickets offers")
	call(t, w.client, "execute", op("users", "search", map[string]any{"query": map[string]any{"sort": "x"}})).fails(t, mcp.KindInvalidParams)
	e := call(t, w.client, "execute", map[string]any{"connector": "nope", "entity": "tickets", "action": "list"}).fails(t, mcp.KindUnknownConnector, "support")
	if e["connector"] != "nope" || strings.Contains(str(e["message"]), "did you mean") {
		t.Errorf("error %v", e)
	}
	call(t, w.client, "execute", map[string]any{"connector": "suport", "entity": "tickets", "action": "list"}).
		fails(t, mcp.KindUnknownConnector, `unknown connector "suport"; did you mean "support"? (connectors: support)`)
	call(t, w.client, "describe", map[string]any{"connector": "Support"}).
		fails(t, mcp.KindUnknownConnector, `did you mean "support"?`)
	call(t, w.client, "execute", map[string]any{"connector": "support", "entity": "tickets", "action": "list", "limit": 0}).fails(t, mcp.KindInvalidArguments, `"limit" must be an integer from 1 to 1000`)
	call(t, w.client, "execute", map[string]any{"connector": "support", "entity": "tickets", "action": "list", "limit": "ten"}).fails(t, mcp.KindInvalidArguments, `"limit"`)
	call(t, w.client, "execute", map[string]any{"connector": "support", "entity": "tickets", "action": "list", "fields": []string{"a..b"}}).fails(t, mcp.KindInvalidArguments, "fields[0]")
	call(t, w.client, "execute", map[string]any{"connector": "support", "entity": "tickets", "action": "list", "params": []int{1}}).fails(t, mcp.KindInvalidArguments, `"params"`)
}

func TestRateLimitSaysHowLongToWait(t *testing.T) {
	w := setup(t, mcp.Options{}, zendesktest.WithFaults(zendesktest.Faults{RateLimitFirst: 1}))
	a := call(t, w.client, "execute", map[string]any{"connector": "support", "entity": "tickets", "action": "list"})
	e := a.fails(t, mcp.KindRateLimited, "wait")
	if s, _ := e["retry_after_seconds"].(float64); s <= 0 {
		t.Errorf("retry_after_seconds %v", e["retry_after_seconds"])
	}
	if e["status"] != float64(429) {
		t.Errorf("status %v", e["status"])
	}
}

func TestDownload(t *testing.T) {
	w := setup(t, mcp.Options{})
	ctx := context.Background()
	conn := w.server.Sources()[0].Conn
	p := tributary.Params{"attachment_id": 30000000000000}
	s, err := conn.Download(ctx, "attachments", p)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := readAll(s)
	a := call(t, w.client, "download", map[string]any{"connector": "support", "entity": "attachments", "params": p}).ok(t)
	path := str(a.out["path"])
	if filepath.Dir(path) != w.dir {
		t.Fatalf("path %q is not in %q", path, w.dir)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != string(want) || a.out["size"] != float64(len(want)) || str(a.out["content_type"]) != s.ContentType {
		t.Errorf("file %d bytes (%v), answer %v; want %d bytes", len(got), err, a.out, len(want))
	}
	if a.out["text"] != nil {
		t.Errorf("a binary file inline: %v", a.out["text"])
	}
	entries, _ := os.ReadDir(w.dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want the file alone", len(entries))
	}
	// The same download again lands on the same file.
	a = call(t, w.client, "download", map[string]any{"connector": "support", "entity": "attachments", "params": p}).ok(t)
	if str(a.out["path"]) != path {
		t.Errorf("second path %v", a.out["path"])
	}

	small := setup(t, mcp.Options{Downloads: mcp.Downloads{MaxBytes: 100}})
	call(t, small.client, "download", map[string]any{"connector": "support", "entity": "attachments", "params": p}).fails(t, mcp.KindTooLarge, "above the limit of 100 bytes")
	if entries, _ := os.ReadDir(small.dir); len(entries) != 0 {
		t.Errorf("a refused download left %d files", len(entries))
	}
	call(t, w.client, "download", map[string]any{"connector": "support", "entity": "tickets", "params": map[string]any{}}).fails(t, mcp.KindUnsupportedAction)
	call(t, w.client, "download", map[string]any{"connector": "support", "entity": "attachments", "params": map[string]any{}}).fails(t, mcp.KindInvalidParams, "attachment_id")
	call(t, w.client, "download", map[string]any{"connector": "support", "entity": "attachments", "params": map[string]any{"attachment_id": 1}}).fails(t, mcp.KindNotFound)
}

func TestDownloadNotConfigured(t *testing.T) {
	w := setup(t, mcp.Options{})
	srv, err := mcp.New(w.server.Sources(), mcp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	call(t, cs, "download", map[string]any{"connector": "support", "entity": "attachments", "params": map[string]any{"attachment_id": 1}}).
		fails(t, mcp.KindNotConfigured, "download directory")
}

func TestCatalogueResources(t *testing.T) {
	w := setup(t, mcp.Options{})
	ctx := context.Background()
	res, err := w.client.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Resources) != 1 || res.Resources[0].URI != "tributary://connectors/support/catalogue" || res.Resources[0].MIMEType != "application/json" {
		t.Fatalf("resources %+v", res.Resources)
	}
	r, err := w.client.ReadResource(ctx, &sdk.ReadResourceParams{URI: res.Resources[0].URI})
	if err != nil {
		t.Fatal(err)
	}
	var cat struct {
		Type     string
		Entities []struct {
			Name       string
			Operations []struct{ Action string }
		}
	}
	if err := json.Unmarshal([]byte(r.Contents[0].Text), &cat); err != nil {
		t.Fatal(err)
	}
	entities, _ := kinds.Catalogue("zendesk-support")
	if cat.Type != "zendesk-support" || len(cat.Entities) != len(entities) || len(cat.Entities[0].Operations) == 0 {
		t.Errorf("catalogue %+v", cat)
	}
}

func readAll(s interface {
	Read([]byte) (int, error)
	Close() error
}) ([]byte, error) {
	defer s.Close()
	var out []byte
	buf := make([]byte, 32<<10)
	for {
		n, err := s.Read(buf)
		out = append(out, buf[:n]...)
		if err != nil {
			if err.Error() == "EOF" {
				return out, nil
			}
			return out, err
		}
	}
}

// TestDownloadInline: a small text file comes back inline too, unless the
// call says not to or it is above inline_bytes.
func TestDownloadInline(t *testing.T) {
	content := "buy milk\nship v2\n"
	gh := githubtest.New(githubtest.WithFile("notes/todo.txt", []byte(content)))
	defer gh.Close()
	conn, err := kinds.Open("github", map[string]any{"token": githubtest.DefaultToken}, tributary.WithBaseURL(gh.URL))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		inline     any
		maxInline  int64
		wantInline bool
	}{{nil, 0, true}, {false, 0, false}, {true, 5, false}} {
		srv, err := mcp.New([]mcp.Source{{Name: "code", Conn: conn}}, mcp.Options{Downloads: mcp.Downloads{Dir: t.TempDir(), InlineBytes: c.maxInline}})
		if err != nil {
			t.Fatal(err)
		}
		args := map[string]any{"connector": "code", "entity": "file_content", "params": map[string]any{"owner": "octo", "repo": "hello", "path": "notes/todo.txt"}}
		if c.inline != nil {
			args["inline"] = c.inline
		}
		a := call(t, connect(t, srv), "download", args).ok(t)
		got, _ := os.ReadFile(str(a.out["path"]))
		if string(got) != content || !strings.HasPrefix(str(a.out["content_type"]), "text/plain") {
			t.Errorf("%+v: file %q, answer %v", c, got, a.out)
		}
		if inline := str(a.out["text"]); (inline == content) != c.wantInline || (inline != "" && inline != content) {
			t.Errorf("%+v: inline %q", c, inline)
		}
	}
}

// TestSearchNeedsAStore: without a store, search is not offered in direct
// mode, and asking for it says why.
func TestSearchNeedsAStore(t *testing.T) {
	w := setup(t, mcp.Options{})
	srv, err := mcp.New([]mcp.Source{{Name: "support", Conn: w.server.Sources()[0].Conn.(*replica.Connector).Connector}}, mcp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	args := map[string]any{"connector": "support", "entity": "tickets", "action": "search", "params": map[string]any{"query": map[string]any{}}}
	call(t, cs, "execute", args).fails(t, mcp.KindUnsupportedAction, "synchronized copy")
	a := call(t, cs, "validate", args).ok(t)
	if a.out["valid"] != false || !strings.Contains(a.text, "configure a store") {
		t.Errorf("validate search without a store: %s", a.text)
	}
	a = call(t, cs, "describe", map[string]any{"connector": "support", "entity": "tickets"}).ok(t)
	if !strings.Contains(a.text, "actions list, get") || strings.Contains(a.text, "search\n") || !strings.Contains(a.text, "not available here") {
		t.Errorf("describe: %s", a.text)
	}
}

// TestDownloadFileName: a download is saved under the file's own name,
// its extension from that name first (README.md stays .md, not text/plain's
// .asc) and from the content type when the name has none.
func TestDownloadFileName(t *testing.T) {
	gh := githubtest.New(githubtest.WithFile("README.md", []byte("# hello\n")), githubtest.WithFile("LICENSE", []byte("MIT\n")))
	defer gh.Close()
	conn, err := kinds.Open("github", map[string]any{"token": githubtest.DefaultToken}, tributary.WithBaseURL(gh.URL))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcp.New([]mcp.Source{{Name: "code", Conn: conn}}, mcp.Options{Downloads: mcp.Downloads{Dir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	for file, suffix := range map[string]string{"README.md": "-README.md", "LICENSE": "-LICENSE.txt"} {
		a := call(t, cs, "download", map[string]any{"connector": "code", "entity": "file_content",
			"params": map[string]any{"owner": "octo", "repo": "hello", "path": file}}).ok(t)
		if p := filepath.Base(str(a.out["path"])); !strings.HasPrefix(p, "code-file_content-") || !strings.HasSuffix(p, suffix) {
			t.Errorf("%s saved as %s, want a name ending in %s", file, p, suffix)
		}
	}
}
