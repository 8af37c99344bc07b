package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/download"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/hosted/hostedtest"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/mcp"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// TestConfigDirectAndHosted serves a direct connector whose secret comes
// from the environment, and a hosted one whose token comes from a file,
// from one YAML file; then the same in JSON.
func TestConfigDirectAndHosted(t *testing.T) {
	zd := zendesktest.New(zendesktest.WithTickets(30))
	defer zd.Close()
	svc := hostedtest.New(hostedtest.WithToken("svc-token-77-abcdefgh"), hostedtest.WithConnectorOptions("zendesk-support", tributary.WithBaseURL(zd.URL)))
	defer svc.Close()
	hc, err := hosted.New(hosted.Config{BaseURL: svc.URL, Token: "svc-token-77-abcdefgh", ExternalUserID: "u"})
	if err != nil {
		t.Fatal(err)
	}
	id, err := hc.CreateConnector(context.Background(), hosted.CreateRequest{ConnectorType: "zendesk-support", Credentials: map[string]any{
		"subdomain": zendesktest.DefaultSubdomain, "email": zendesktest.DefaultEmail, "api_token": zendesktest.DefaultAPIToken}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte("svc-token-77-abcdefgh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	yaml := fmt.Sprintf(`
connectors:
  - name: support
    type: zendesk-support
    base_url: %s
    credentials:
      subdomain: acme
      email: %s
      api_token: {env: ZD_TOKEN}
    search:
      tickets: {per_page: 100}
  - name: hosted-support
    type: zendesk-support
    hosted:
      base_url: %s
      connector_id: %s
      token: {file: %s}
store: {type: memory}
limits: {records: 5}
`, zd.URL, zendesktest.DefaultEmail, svc.URL, id, tokenFile)
	json := fmt.Sprintf(`{"connectors": [
  {"name": "support", "type": "zendesk-support", "base_url": %q,
   "credentials": {"subdomain": "acme", "email": %q, "api_token": {"env": "ZD_TOKEN"}}, "search": {"tickets": {}}},
  {"name": "hosted-support", "type": "zendesk-support", "hosted": {"base_url": %q, "connector_id": %q, "token": {"file": %q}}}],
 "store": {"type": "memory"}, "limits": {"records": 5}}`, zd.URL, zendesktest.DefaultEmail, svc.URL, id, tokenFile)
	for name, doc := range map[string]string{"yaml": yaml, "json": json} {
		t.Run(name, func(t *testing.T) {
			cfg, err := mcp.ParseConfig([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			srv, err := mcp.FromConfig(context.Background(), cfg, env(map[string]string{"ZD_TOKEN": zendesktest.DefaultAPIToken}), mcp.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			cs := connect(t, srv)
			a := call(t, cs, "list_connectors", nil).ok(t)
			for _, s := range []string{"support (zendesk-support, direct", "hosted-support (zendesk-support, hosted"} {
				if !strings.Contains(a.text, s) {
					t.Errorf("list_connectors %q lacks %q", a.text, s)
				}
			}
			var titles []string
			for _, c := range a.out["connectors"].([]any) {
				titles = append(titles, fmt.Sprint(c.(map[string]any)["title"]))
			}
			if !slices.Equal(titles, []string{"support", "hosted-support"}) {
				t.Errorf("list_connectors' titles %q, want the configured names", titles)
			}
			for _, c := range []string{"support", "hosted-support"} {
				a := exec(t, cs, map[string]any{"connector": c, "entity": "tickets", "action": "list"})
				if a.out["count"] != float64(5) { // limits.records
					t.Errorf("%s: %v", c, a.out)
				}
				a = exec(t, cs, map[string]any{"connector": c, "entity": "tickets", "action": "search",
					"params": map[string]any{"query": map[string]any{"filter": map[string]any{"eq": map[string]any{"status": "open"}}}}})
				if len(a.out["hits"].([]any)) == 0 {
					t.Errorf("%s search: %v", c, a.out)
				}
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	const secret = "s3cr3t-literal-9f2"
	for _, c := range []struct {
		doc, want string
	}{
		{``, "empty"},
		{`connectors: []`, "no connectors"},
		{`connectors: [{name: a, type: zendesk-support, credentals: {}}]`, "credentals"},
		{`connectors: [{name: a, type: zendesk-support}, {name: a, type: github}]`, `"a" is used twice`},
		{`connectors: [{name: "a b", type: github}]`, "letters, digits"},
		{`connectors: [{name: a}]`, "type is required"},
		{`connectors: [{name: a, type: github, credentials: {token: {env: X, file: y}}}]`, "{env: NAME} or {file: PATH}"},
		{`connectors: [{name: a, type: github, hosted: {base_url: "http://x"}}]`, "connector_id"},
		{`connectors: [{name: a, type: github, credentials: [` + secret + `]}]`, "line 1"},
		{`limits: {records: ` + secret + `}`, "line 1"},
	} {
		_, err := mcp.ParseConfig([]byte(c.doc))
		if !errors.Is(err, mcp.ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.doc, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("the error shows a value of the file: %v", err)
		}
	}

	// Opening: an unset variable, a missing file, an unknown type, bad
	// credentials; the errors name the variable or field, never a value.
	for _, c := range []struct {
		doc, want string
	}{
		{`connectors: [{name: a, type: github, credentials: {token: {env: GH_TOKEN}}}]`, "environment variable GH_TOKEN is not set"},
		{`connectors: [{name: a, type: github, credentials: {token: {file: /nonexistent/t}}}]`, "reading /nonexistent/t"},
		{`connectors: [{name: a, type: gitlab, credentials: {}}]`, `unknown type "gitlab"`},
		{`connectors: [{name: a, type: github}]` + "\nstore: {type: mysql}", `store type "mysql"`},
		{`connectors: [{name: a, type: github, credentials: {token: ` + secret + `, access_token: ` + secret + `}}]`, `connector "a"`},
		{`connectors: [{name: a, type: github, hosted: {base_url: "http://127.0.0.1:1", connector_id: x}}]`, `connector "a"`},
	} {
		cfg, err := mcp.ParseConfig([]byte(c.doc))
		if err != nil {
			t.Fatalf("%s: %v", c.doc, err)
		}
		_, err = mcp.FromConfig(context.Background(), cfg, env(nil), mcp.Options{})
		if !errors.Is(err, mcp.ErrConfig) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), secret) {
			t.Errorf("%s: %v, want %q and no secret", c.doc, err, c.want)
		}
	}

	v := mcp.Literal(secret)
	for _, s := range []string{fmt.Sprint(v), fmt.Sprintf("%+v", v), fmt.Sprintf("%#v", v), fmt.Sprintf("%v", mcp.ConnectorConfig{Credentials: map[string]mcp.Value{"token": v}})} {
		if strings.Contains(s, secret) {
			t.Errorf("a Value prints its literal: %s", s)
		}
	}
}

// TestNoSecretInAnyOutput: credentials the source rejects produce an
// unauthorized tool error that names no secret, in any tool's output.
func TestNoSecretInAnyOutput(t *testing.T) {
	const secret = "wrong-token-q8v1z"
	zd := zendesktest.New()
	defer zd.Close()
	conn, err := kinds.Open("zendesk-support", map[string]any{"subdomain": "acme", "email": zendesktest.DefaultEmail, "api_token": secret},
		tributary.WithBaseURL(zd.URL), tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 0}))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcp.New([]mcp.Source{{Name: "support", Conn: conn}}, mcp.Options{Downloads: mcp.Downloads{Dir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	var outputs []string
	a := call(t, cs, "execute", map[string]any{"connector": "support", "entity": "tickets", "action": "list"})
	a.fails(t, mcp.KindUnauthorized)
	outputs = append(outputs, a.text)
	a = call(t, cs, "download", map[string]any{"connector": "support", "entity": "attachments", "params": map[string]any{"attachment_id": 30000000000000}})
	a.fails(t, mcp.KindUnauthorized)
	outputs = append(outputs, a.text)
	for _, tool := range []string{"list_connectors", "describe"} {
		outputs = append(outputs, call(t, cs, tool, map[string]any{"connector": "support"}).text)
	}
	for _, o := range outputs {
		if strings.Contains(o, secret) {
			t.Errorf("output shows the secret: %s", o)
		}
	}
}

// trap is a connector whose every call panics or waits for its context.
type trap struct {
	tributary.Connector
	panics bool
}

func (c trap) List(ctx context.Context, entity string, p tributary.Params) (*tributary.Page, error) {
	if c.panics {
		panic("boom")
	}
	<-ctx.Done()
	return nil, &tributary.Error{Kind: c.Type(), Entity: entity, Action: tributary.ActionList, Err: ctx.Err(), Cause: ctx.Err()}
}

func (c trap) Download(ctx context.Context, entity string, p tributary.Params) (*download.Stream, error) {
	panic("boom")
}

// TestNothingPanicsOrHangs: a panicking connector is an internal tool
// error and the server keeps serving; a call that outlives the timeout is
// a timeout tool error.
func TestNothingPanicsOrHangs(t *testing.T) {
	zd := zendesktest.New()
	defer zd.Close()
	conn, err := kinds.Open("zendesk-support", map[string]any{"subdomain": "acme", "email": zendesktest.DefaultEmail, "api_token": zendesktest.DefaultAPIToken}, tributary.WithBaseURL(zd.URL))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcp.New([]mcp.Source{{Name: "p", Conn: trap{conn, true}}, {Name: "w", Conn: trap{conn, false}}},
		mcp.Options{Timeout: 50 * time.Millisecond, Downloads: mcp.Downloads{Dir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	call(t, cs, "execute", map[string]any{"connector": "p", "entity": "tickets", "action": "list"}).fails(t, mcp.KindInternal, "internal error")
	call(t, cs, "download", map[string]any{"connector": "p", "entity": "attachments", "params": map[string]any{"attachment_id": 1}}).fails(t, mcp.KindInternal)
	call(t, cs, "execute", map[string]any{"connector": "w", "entity": "tickets", "action": "list"}).fails(t, mcp.KindTimeout)
	call(t, cs, "list_connectors", nil).ok(t)
}

// TestREADMEConfiguration: the configuration file docs/mcp.md shows is
// valid.
func TestREADMEConfiguration(t *testing.T) {
	doc, err := os.ReadFile("../docs/mcp.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "# For AI agents")
	if !ok {
		t.Fatal("docs/mcp.md has no MCP section")
	}
	_, block, ok := strings.Cut(section, "```yaml\n")
	block, _, _ = strings.Cut(block, "```")
	if !ok || block == "" {
		t.Fatal("docs/mcp.md has no yaml block")
	}
	cfg, err := mcp.ParseConfig([]byte(block))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Connectors) != 3 || cfg.Connectors[2].Hosted == nil || !cfg.Connectors[0].Credentials["api_token"].IsSet() {
		t.Errorf("configuration %+v", cfg)
	}
}
