package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tributary-dev/tributary/mcp"
	"github.com/tributary-dev/tributary/sandbox"
)

// changing is a Backend whose list the test changes.
type changing struct {
	mu      sync.Mutex
	sources []mcp.Source
}

func (c *changing) Sources(context.Context) ([]mcp.Source, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.sources), nil
}

func (c *changing) set(s ...mcp.Source) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sources = s
}

// A Handler answers each request over the connectors its backend lists
// then: one added is offered at once, one removed is unknown_connector.
func TestHandlerFollowsItsBackend(t *testing.T) {
	sb := sandbox.New()
	t.Cleanup(sb.Close)
	open := func(name, kind string) mcp.Source {
		conn, err := sb.Open(kind)
		if err != nil {
			t.Fatal(err)
		}
		return mcp.Source{Name: name, Conn: conn}
	}
	gh, hs := open("code", "github"), open("crm", "hubspot")
	b := &changing{}
	b.set(gh)
	ts := httptest.NewServer(mcp.NewHandler(b, mcp.Options{}, nil))
	t.Cleanup(ts.Close)
	ctx := context.Background()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx,
		&sdk.StreamableClientTransport{Endpoint: ts.URL, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	names := func() []string {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "list_connectors", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("list_connectors: %v %v", err, res)
		}
		var out []string
		for _, c := range res.StructuredContent.(map[string]any)["connectors"].([]any) {
			out = append(out, c.(map[string]any)["name"].(string))
		}
		return out
	}
	if got := names(); !slices.Equal(got, []string{"code"}) {
		t.Fatalf("connectors %v", got)
	}
	b.set(gh, hs)
	if got := names(); !slices.Equal(got, []string{"code", "crm"}) {
		t.Fatalf("after adding crm: %v", got)
	}
	b.set(hs)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "describe", Arguments: map[string]any{"connector": "code"}})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := res.StructuredContent.(map[string]any)["error"].(map[string]any)
	if !res.IsError || e["kind"] != mcp.KindUnknownConnector || !slices.Equal(e["allowed"].([]any), []any{"crm"}) {
		t.Errorf("describe of a removed connector: %v %v", res.IsError, res.StructuredContent)
	}
}

// A Handler whose backend fails answers with its fail function.
func TestHandlerBackendFails(t *testing.T) {
	h := mcp.NewHandler(failing{}, mcp.Options{}, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/mcp", nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("status %d: %s", rec.Code, rec.Body)
	}
}

type failing struct{}

func (failing) Sources(context.Context) ([]mcp.Source, error) { return nil, context.DeadlineExceeded }
