package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/mcp"
)

// bearer adds a bearer token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// mcpSession connects the go-sdk's client to the service's /mcp with token
// over streamable HTTP.
func (s *service) mcpSession(t testing.TB, token string) (*sdk.ClientSession, error) {
	t.Helper()
	hc := &http.Client{Transport: bearer{token: token, next: http.DefaultTransport}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx,
		&sdk.StreamableClientTransport{Endpoint: s.url + "/mcp", HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err == nil {
		t.Cleanup(func() { _ = cs.Close() })
	}
	return cs, err
}

// localMCP is `tributary mcp` over Zendesk connectors of the given names
// against the service's fake, with search over memory: what the service's
// tools must look like for a tenant with those connectors.
func (s *service) localMCP(t *testing.T, names ...string) *sdk.ClientSession {
	t.Helper()
	var sources []mcp.Source
	for _, n := range names {
		conn, err := kinds.Open("zendesk-support", zdCreds, tributary.WithBaseURL(s.zd.URL))
		if err != nil {
			t.Fatal(err)
		}
		conn, _ = mcp.MemoryStore{}.Attach(context.Background(), n, conn, mcp.Copies{})
		sources = append(sources, mcp.Source{Name: n, Conn: conn, Mode: "direct"})
	}
	srv, err := mcp.New(sources, mcp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ct, st := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.MCPServer().Connect(ctx, st, nil)
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
		srv.Close()
	})
	return cs
}

// toolsJSON lists a session's tools as JSON, by name.
func toolsJSON(t *testing.T, cs *sdk.ClientSession) map[string]string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, tool := range res.Tools {
		b, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		out[tool.Name] = string(b)
	}
	return out
}

// call calls a tool and returns its structured answer.
func call(t testing.TB, cs *sdk.ClientSession, tool string, args map[string]any) (bool, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return res.IsError, out
}

// The service's /mcp: a tenant's token gets the tools of `tributary mcp`
// (the same names and schemas, compared with the local server's over
// connectors of the same names), execute and search run on its
// connectors, another tenant's connector is unknown as in tributary mcp,
// a user's token sees that user's connectors only, and no token or a
// wrong one is a 401 with a challenge.
func TestMCPOnTheService(t *testing.T) {
	s := start(t, sqliteStore(t), nil, nil)
	tokA := s.token(t, clientA, "")
	id1 := s.create(t, tokA, "user-1")
	id2 := s.create(t, tokA, "user-2")
	other := s.create(t, s.token(t, clientB, ""), "user-1")

	cs, err := s.mcpSession(t, tokA)
	if err != nil {
		t.Fatal(err)
	}
	local := s.localMCP(t, id1, id2)
	got, want := toolsJSON(t, cs), toolsJSON(t, local)
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range got {
			if !yield(n) {
				return
			}
		}
	})
	if !slices.Equal(names, []string{"describe", "download", "execute", "list_connectors", "validate"}) {
		t.Fatalf("tools %v", names)
	}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("tool %s differs from tributary mcp's:\n service: %s\n local:   %s", n, got[n], w)
		}
	}

	t.Run("execute", func(t *testing.T) {
		api := s.execute(t, tokA, id1, map[string]any{"entity": "tickets", "action": "list", "params": map[string]any{"per_page": 1}})
		recs, _ := api.json["result"].([]any)
		if api.status != 200 || len(recs) != 1 {
			t.Fatalf("the API's list: %d %s", api.status, api.body)
		}
		first := recs[0].(map[string]any)
		isErr, out := call(t, cs, "execute", map[string]any{"connector": id1, "entity": "tickets", "action": "list",
			"params": map[string]any{"per_page": 1}, "limit": 1, "fields": []string{"id", "subject"}})
		records, _ := out["records"].([]any)
		if isErr || len(records) != 1 || out["connector"] != id1 {
			t.Fatalf("execute list: %v %v", isErr, out)
		}
		rec := records[0].(map[string]any)
		if rec["id"] != first["id"] || rec["subject"] != first["subject"] {
			t.Errorf("execute list gave %v, the API %v", rec, first)
		}
	})

	t.Run("search", func(t *testing.T) {
		first := s.firstTicket(t, tokA, id2)
		isErr, out := call(t, cs, "execute", map[string]any{"connector": id2, "entity": "tickets", "action": "search",
			"params": map[string]any{"query": map[string]any{"filter": map[string]any{"eq": map[string]any{"id": first}}}}})
		hits, _ := out["hits"].([]any)
		if isErr || len(hits) != 1 || hits[0].(map[string]any)["id"] != json.Number(first).String() {
			t.Fatalf("search: %v %v", isErr, out)
		}
		n, err := s.st.Count(context.Background(), id2, "tickets")
		if err != nil || n != int64(s.zd.Total("tickets")) {
			t.Errorf("search did not answer from the service's copy: it holds %d tickets (%v), the fake %d", n, err, s.zd.Total("tickets"))
		}
	})

	t.Run("download", func(t *testing.T) {
		isErr, out := call(t, cs, "download", map[string]any{"connector": id1, "entity": "tickets"})
		if e, _ := out["error"].(map[string]any); !isErr || e["kind"] != mcp.KindNotConfigured {
			t.Errorf("download on the service: %v %v", isErr, out)
		}
	})

	t.Run("another tenant's connector", func(t *testing.T) {
		args := map[string]any{"connector": other, "entity": "tickets", "action": "list"}
		isErr, out := call(t, cs, "execute", args)
		lerr, lout := call(t, local, "execute", args)
		if !isErr || !lerr || !reflect.DeepEqual(out, lout) {
			t.Errorf("the service answers\n %v %v\ntributary mcp\n %v %v", isErr, out, lerr, lout)
		}
		if e, _ := out["error"].(map[string]any); e["kind"] != mcp.KindUnknownConnector || strings.Contains(e["message"].(string), "user-") {
			t.Errorf("error %v", e)
		}
		for _, tool := range []string{"describe", "validate"} {
			a := map[string]any{"connector": other}
			if tool == "validate" {
				a = args
			}
			isErr, out := call(t, cs, tool, a)
			lerr, lout := call(t, local, tool, a)
			if isErr != lerr || !reflect.DeepEqual(out, lout) || !strings.Contains(string(must(json.Marshal(out))), `"kind":"unknown_connector"`) {
				t.Errorf("%s: the service answers %v %v, tributary mcp %v %v", tool, isErr, out, lerr, lout)
			}
		}
	})

	t.Run("a user's token", func(t *testing.T) {
		cs1, err := s.mcpSession(t, s.token(t, clientA, "user-1"))
		if err != nil {
			t.Fatal(err)
		}
		_, out := call(t, cs1, "list_connectors", nil)
		b, _ := json.Marshal(out["connectors"])
		if want := `[{"entities":`; !strings.HasPrefix(string(b), want) || !strings.Contains(string(b), `"name":"`+id1+`"`) || strings.Contains(string(b), id2) {
			t.Errorf("user-1 lists %s", b)
		}
		isErr, out := call(t, cs1, "execute", map[string]any{"connector": id2, "entity": "tickets", "action": "list"})
		if e, _ := out["error"].(map[string]any); !isErr || e["kind"] != mcp.KindUnknownConnector {
			t.Errorf("user-1 executing user-2's connector: %v %v", isErr, out)
		}
		_, out = call(t, cs, "list_connectors", nil)
		var ids []string
		for _, c := range out["connectors"].([]any) {
			c := c.(map[string]any)
			ids = append(ids, c["name"].(string))
			if c["type"] != "zendesk-support" || c["mode"] != "service" || c["search"] != true {
				t.Errorf("connector %v", c)
			}
		}
		sort.Strings(ids)
		wantIDs := []string{id1, id2}
		sort.Strings(wantIDs)
		if !slices.Equal(ids, wantIDs) {
			t.Errorf("the tenant's token lists %v, want %v", ids, wantIDs)
		}
	})

	t.Run("no token, a wrong token", func(t *testing.T) {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
		for _, tok := range []string{"", "wrong", tokA + "x"} {
			a := s.do(t, "POST", "/mcp", tok, body)
			if a.status != http.StatusUnauthorized || !strings.HasPrefix(a.header.Get("WWW-Authenticate"), "Bearer ") {
				t.Errorf("token %q: %d %q %s", tok, a.status, a.header.Get("WWW-Authenticate"), a.body)
			}
		}
		if _, err := s.mcpSession(t, "wrong"); err == nil {
			t.Error("a session with a wrong token was opened")
		}
	})
	leaks(t, "the log", s.logs.String(), zendesktest.DefaultAPIToken, clientA.Secret, tokA)
}

// firstTicket is the id of the first ticket the API lists on connector id.
func (s *service) firstTicket(t *testing.T, token, id string) json.Number {
	t.Helper()
	a := s.do(t, "POST", "/api/v1/connectors/sources/"+id+"/execute", token,
		map[string]any{"entity": "tickets", "action": "list", "params": map[string]any{"per_page": 1}})
	var body struct {
		Result []struct {
			ID json.Number `json:"id"`
		} `json:"result"`
	}
	if err := json.Unmarshal(a.body, &body); err != nil || len(body.Result) != 1 {
		t.Fatalf("list: %d %s", a.status, a.body)
	}
	return body.Result[0].ID
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// /mcp's list_connectors tells two connectors of one kind apart: each
// with its name and its external user, and a new name at once after a
// rename.
func TestMCPListConnectorsNamesUsers(t *testing.T) {
	s := start(t, sqliteStore(t), nil, nil)
	tok := s.token(t, clientA, "")
	ids := map[string]string{}
	for user, name := range map[string]string{"user-1": "Acme support", "user-2": "Globex support"} {
		a := s.do(t, "POST", "/v1/integrations/connectors", tok, map[string]any{
			"external_user_id": user, "connector_type": "zendesk-support", "name": name, "credentials": zdCreds})
		if ids[user], _ = a.json["id"].(string); a.status != http.StatusCreated {
			t.Fatalf("create: %d %s", a.status, a.body)
		}
	}
	cs, err := s.mcpSession(t, tok)
	if err != nil {
		t.Fatal(err)
	}
	listed := func() map[string]map[string]any {
		t.Helper()
		isErr, out := call(t, cs, "list_connectors", map[string]any{})
		list, _ := out["connectors"].([]any)
		if isErr || len(list) != 2 {
			t.Fatalf("list_connectors: %v %v", isErr, out)
		}
		byID := map[string]map[string]any{}
		for _, c := range list {
			c := c.(map[string]any)
			byID[c["name"].(string)] = c
		}
		return byID
	}
	got := listed()
	for user, name := range map[string]string{"user-1": "Acme support", "user-2": "Globex support"} {
		c := got[ids[user]]
		if c["title"] != name || c["external_user_id"] != user || c["type"] != "zendesk-support" || c["mode"] != "service" {
			t.Errorf("%s: %v, want title %q and external_user_id %q", ids[user], c, name, user)
		}
	}
	if a := s.do(t, "PATCH", "/v1/integrations/connectors/"+ids["user-1"], tok, map[string]any{"name": "Acme EU support"}); a.status != 200 {
		t.Fatalf("rename: %d %s", a.status, a.body)
	}
	if c := listed()[ids["user-1"]]; c["title"] != "Acme EU support" {
		t.Errorf("after a rename: %v", c)
	}
}

// A tenant without connectors yet gets the tools, and an empty list.
func TestMCPWithoutConnectors(t *testing.T) {
	s := start(t, sqliteStore(t), nil, nil)
	cs, err := s.mcpSession(t, s.token(t, clientB, ""))
	if err != nil {
		t.Fatal(err)
	}
	if tools := toolsJSON(t, cs); len(tools) != 5 {
		t.Errorf("tools %v", tools)
	}
	isErr, out := call(t, cs, "list_connectors", nil)
	if b, _ := json.Marshal(out); isErr || string(b) != `{"connectors":[]}` {
		t.Errorf("list_connectors: %v %s", isErr, b)
	}
	// A connector created now is offered at the next call (the listing
	// reused for up to 2 s is dropped), and one deleted is gone at once.
	tok := s.token(t, clientB, "")
	id := s.create(t, tok, "bob")
	if _, out := call(t, cs, "list_connectors", nil); len(out["connectors"].([]any)) != 1 {
		t.Errorf("after a creation, list_connectors gives %v", out)
	}
	if a := s.do(t, "DELETE", "/v1/integrations/connectors/"+id, tok, nil); a.status/100 != 2 {
		t.Fatalf("delete: %d %s", a.status, a.body)
	}
	if _, out := call(t, cs, "list_connectors", nil); len(out["connectors"].([]any)) != 0 {
		t.Errorf("after a deletion, list_connectors gives %v", out)
	}
}

// What /mcp adds to the API's execute for a one-record call, on one server
// and fake: the p50 of each over the same calls, interleaved, each sent
// by the same plain HTTP client and its answer read and decoded alike.
// The MCP call is sent as a client of protocol 2025-11-25 sends it, and as
// one of 2026-07-28 does (with the Mcp-Method and Mcp-Name headers, which
// the SDK checks against the tool's schema on every call: the dearest
// case). It logs the figures; with TRIBUTARY_STRICT_TIMING=1 (an idle
// machine) it fails when /mcp adds more than a millisecond. docs/mcp.md
// reports a run.
func TestMCPOverhead(t *testing.T) {
	s := start(t, sqliteStore(t), nil, nil)
	tok := s.token(t, clientA, "")
	id := s.create(t, tok, "user-1")
	first := s.firstTicket(t, tok, id)
	apiBody := must(json.Marshal(map[string]any{"entity": "tickets", "action": "get", "params": map[string]any{"ticket_id": first}}))
	call := map[string]any{"name": "execute", "arguments": map[string]any{"connector": id, "entity": "tickets", "action": "get",
		"params": map[string]any{"ticket_id": first}}}
	mcpBody := must(json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}))
	call["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
		"io.modelcontextprotocol/clientInfo": map[string]any{"name": "test", "version": "1"}, "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
	mcpBody2026 := must(json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}))
	post := func(path string, body []byte, header map[string]string) map[string]any {
		req, err := http.NewRequest("POST", s.url+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tok)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		var out map[string]any
		if err != nil || resp.StatusCode != 200 || json.Unmarshal(raw, &out) != nil {
			t.Fatalf("%s: %d %v %s", path, resp.StatusCode, err, raw)
		}
		return out
	}
	accept := "application/json, text/event-stream"
	h2025 := map[string]string{"Accept": accept, "Mcp-Protocol-Version": "2025-11-25"}
	h2026 := map[string]string{"Accept": accept, "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "execute"}
	const n = 400
	var api, v2025, v2026 []time.Duration
	for i := range n + 20 { // the first 20 warm all up
		t0 := time.Now()
		a := post("/api/v1/connectors/sources/"+id+"/execute", apiBody, nil)
		t1 := time.Now()
		m := post("/mcp", mcpBody, h2025)
		t2 := time.Now()
		m2 := post("/mcp", mcpBody2026, h2026)
		t3 := time.Now()
		for _, m := range []map[string]any{m, m2} {
			res, _ := m["result"].(map[string]any)
			sc, _ := res["structuredContent"].(map[string]any)
			got, _ := a["result"].(map[string]any)
			if res["isError"] == true || sc["count"] != float64(1) || got["id"] == nil {
				t.Fatalf("call %d: API %v, MCP %v", i, a, m)
			}
		}
		if i >= 20 {
			api, v2025, v2026 = append(api, t1.Sub(t0)), append(v2025, t2.Sub(t1)), append(v2026, t3.Sub(t2))
		}
	}
	p50 := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	pa, p25, p26 := p50(api), p50(v2025), p50(v2026)
	t.Logf("one-record get, %d calls each, p50: API execute %v; /mcp execute %v (protocol 2025-11-25, adds %v), %v (2026-07-28, adds %v)",
		n, pa, p25, p25-pa, p26, p26-pa)
	if os.Getenv("TRIBUTARY_STRICT_TIMING") == "1" {
		for _, p := range []time.Duration{p25, p26} {
			if p-pa > time.Millisecond {
				t.Errorf("/mcp adds %v to the API's p50 (%v): above 1 ms", p-pa, pa)
			}
		}
	}
}
