package mcp_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/mcp"
)

// A SQLite store in the configuration: the first search synchronizes the
// copy into the file; a server started again over the same file answers
// from it without asking the source again.
func TestSQLiteStoreOutlivesTheServer(t *testing.T) {
	zd := zendesktest.New(zendesktest.WithTickets(40))
	defer zd.Close()
	path := filepath.Join(t.TempDir(), "copies.db")
	doc := fmt.Sprintf(`connectors:
  - name: support
    type: zendesk-support
    base_url: %s
    credentials: {subdomain: acme, email: %s, api_token: {env: ZD_TOKEN}}
store: {type: sqlite, path: %q}
`, zd.URL, zendesktest.DefaultEmail, path)
	search := map[string]any{"connector": "support", "entity": "tickets", "action": "search",
		"params": map[string]any{"query": map[string]any{"filter": map[string]any{"eq": map[string]any{"status": "open"}}}, "limit": 100}}
	run := func() (hits int) {
		cfg, err := mcp.ParseConfig([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		srv, err := mcp.FromConfig(context.Background(), cfg, env(map[string]string{"ZD_TOKEN": zendesktest.DefaultAPIToken}), mcp.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		a := call(t, connect(t, srv), mcp.ToolExecute, search).ok(t)
		recs, _ := a.out["hits"].([]any)
		return len(recs)
	}
	first := run()
	if first == 0 {
		t.Fatal("no open ticket found")
	}
	zd.ResetRequests()
	if again := run(); again != first {
		t.Errorf("%d hits after the restart, %d before", again, first)
	}
	if n := len(zd.Requests()); n != 0 {
		t.Errorf("the restarted server asked the source %d times; the copy is in the file", n)
	}

	bad, err := mcp.ParseConfig([]byte(fmt.Sprintf("connectors: [{name: s, type: zendesk-support, base_url: %s, credentials: {subdomain: acme, email: a@b.c, api_token: x}}]\nstore: {type: sqlite}\n", zd.URL)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mcp.FromConfig(context.Background(), bad, env(nil), mcp.Options{}); err == nil || !strings.Contains(err.Error(), "path is required") {
		t.Errorf("a sqlite store without a path: %v", err)
	}
	if _, err := mcp.FromConfig(context.Background(), nil, nil, mcp.Options{}); err == nil {
		t.Error("a nil configuration was accepted")
	}
}

// A Salesforce connector configured without search params: describe shows
// what the copy of accounts covers, and a search synchronizes accounts
// with that copy scope (a SOQL query of every searchable field), so it
// filters on any of them.
func TestCopyScopeWithoutSearchParams(t *testing.T) {
	sf := salesforcetest.New()
	defer sf.Close()
	doc := fmt.Sprintf(`connectors:
  - name: crm
    type: salesforce
    base_url: %s
    credentials: {client_id: %s, client_secret: %s, refresh_token: %s}
store: {type: sqlite, path: %q}
`, sf.URL, salesforcetest.DefaultClientID, salesforcetest.DefaultClientSecret, salesforcetest.DefaultRefreshToken,
		filepath.Join(t.TempDir(), "copies.db"))
	cfg, err := mcp.ParseConfig([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcp.FromConfig(context.Background(), cfg, env(nil), mcp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cs := connect(t, srv)
	a := call(t, cs, mcp.ToolDescribe, map[string]any{"connector": "crm", "entity": "accounts"}).ok(t)
	e, _ := a.out["entity"].(map[string]any)
	if c := str(e["copy"]); !strings.HasPrefix(c, "every Account record with its searchable fields") {
		t.Errorf("describe accounts: copy %q", c)
	}
	a = call(t, cs, mcp.ToolExecute, map[string]any{"connector": "crm", "entity": "accounts", "action": "search",
		"params": map[string]any{"query": map[string]any{"filter": map[string]any{"eq": map[string]any{"BillingCountry": "Canada"}}}, "limit": 1000}}).ok(t)
	hits, _ := a.out["hits"].([]any)
	if len(hits) == 0 {
		t.Fatalf("no account billed in Canada: %s", a.text)
	}
	for _, h := range hits {
		d, _ := h.(map[string]any)["data"].(map[string]any)
		if d["BillingCountry"] != "Canada" {
			t.Fatalf("hit %v", h)
		}
	}
}
