package mcp_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

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
