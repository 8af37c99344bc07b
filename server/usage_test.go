package server_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/internal/keyring"
	"github.com/tributary-dev/tributary/server"
)

// lastUsed is the connector's last_used_at in the list ("" when null).
func (s *service) lastUsed(t *testing.T, token, id string) string {
	t.Helper()
	a := s.do(t, "GET", "/v1/integrations/connectors/"+id, token, nil)
	if a.status != 200 {
		t.Fatalf("status of %s: %d %s", id, a.status, a.body)
	}
	v, _ := a.json["last_used_at"].(string)
	return v
}

// A connector's last use: null until a tenant's call uses it, then the
// time of that call (through the API's execute and through /mcp), in the
// list, the status and the console; the background's own reads do not
// count.
func TestLastUsed(t *testing.T) {
	t.Parallel()
	s := start(t, sqliteStore(t), nil, func(c *server.Config) { withConsole(c); c.UseFlushEvery = 20 * time.Millisecond })
	tok := s.token(t, clientA, "")
	viaAPI, viaMCP := s.create(t, tok, "ada"), s.create(t, tok, "ada")
	if u := s.lastUsed(t, tok, viaAPI); u != "" {
		t.Fatalf("a new connector was used at %q", u)
	}
	before := time.Now().Add(-time.Second)
	if a := s.execute(t, tok, viaAPI, map[string]any{"entity": "tickets", "action": "list", "params": map[string]any{"per_page": 1}}); a.status != 200 {
		t.Fatalf("execute: %d %s", a.status, a.body)
	}
	cs, err := s.mcpSession(t, tok)
	if err != nil {
		t.Fatal(err)
	}
	if isErr, out := call(t, cs, "execute", map[string]any{"connector": viaMCP, "entity": "tickets", "action": "list", "params": map[string]any{"per_page": 1}}); isErr {
		t.Fatalf("mcp execute: %v", out)
	}
	for _, id := range []string{viaAPI, viaMCP} {
		var u string
		for deadline := time.Now().Add(10 * time.Second); u == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			u = s.lastUsed(t, tok, id)
		}
		at, err := time.Parse(time.RFC3339, u)
		if err != nil || at.Before(before.Truncate(time.Second)) || at.After(time.Now().Add(time.Second)) {
			t.Fatalf("%s: last used %q (%v), want about now", id, u, err)
		}
		var listed string
		for _, item := range s.do(t, "GET", "/v1/integrations/connectors", tok, nil).json["data"].([]any) {
			if m := item.(map[string]any); m["id"] == id {
				listed, _ = m["last_used_at"].(string)
			}
		}
		if listed != u {
			t.Errorf("%s: the list says %q, the status %q", id, listed, u)
		}
		o := signedIn(t, s)
		if p := o.get("/console/connectors/" + id); !strings.Contains(p.body, `<dd id="last-used"><time datetime="`) {
			t.Errorf("the console's page of %s does not show its last use: %.400s", id, p.body)
		}
	}
}

// A store that a service of schema version 7 kept marks the vendor's
// refusal inside the sealed credentials; after the upgrade, the service's
// Run copies the mark into the connector's row, so the status, the
// console and its filter say needs_reconnect without opening credentials.
func TestLegacyNeedsReconnectMigrated(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "serve.db")
	old := start(t, openSQLiteAt(t, path), nil, nil)
	tok := old.token(t, clientA, "")
	refused, fine := old.create(t, tok, "ada"), old.create(t, tok, "ada")
	keys, err := keyring.Parse(old.keys)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	row, err := old.st.Connector(ctx, refused)
	if err != nil {
		t.Fatal(err)
	}
	// What version 7's service sealed for a refused refresh.
	sealed, err := keys.Seal([]byte(`{"credentials":{"subdomain":"acme","email":"a@example.com","api_token":"t"},"needs_reconnect":true}`), []byte(refused))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.st.UpdateSealed(ctx, refused, row.Version, sealed); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, stmt := range []string{"DROP INDEX tributary_deliveries_next", "DROP INDEX tributary_entities_due", "DROP INDEX tributary_connectors_reconnect", "ALTER TABLE tributary_connectors DROP COLUMN needs_reconnect",
		"ALTER TABLE tributary_connectors DROP COLUMN last_used", "UPDATE tributary_meta SET value = '7' WHERE name = 'schema_version'"} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	s := start(t, openSQLiteAt(t, path), old.zd, func(c *server.Config) { withConsole(c); c.Keys = old.keys })
	var status string
	for deadline := time.Now().Add(10 * time.Second); status != "needs_reconnect" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		status, _ = s.do(t, "GET", "/v1/integrations/connectors/"+refused, tok, nil).json["status"].(string)
	}
	if status != "needs_reconnect" {
		t.Fatalf("after the upgrade the refused connector is %q", status)
	}
	if st, _ := s.do(t, "GET", "/v1/integrations/connectors/"+fine, tok, nil).json["status"].(string); st != "healthy" {
		t.Errorf("the other connector is %q", st)
	}
	o := signedIn(t, s)
	if p := o.get("/console/connectors?status=needs_reconnect"); !strings.Contains(p.body, refused) || strings.Contains(p.body, fine) {
		t.Errorf("the console's filter does not list exactly the refused connector: %.500s", p.body)
	}
}
