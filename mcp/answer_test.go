package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/mcp"
)

// TestExecuteAnswersConform reads execute's answers as they travel (the
// JSON-RPC lines, so no client decoding hides a difference): the text is a
// summary line followed by JSON equal to the structured content, and the
// structured content conforms to the tool's output schema as listed.
func TestExecuteAnswersConform(t *testing.T) {
	w := setup(t, mcp.Options{})
	ctx := context.Background()
	schema := outputSchema(t, w, mcp.ToolExecute)
	page, err := w.server.Sources()[0].Conn.List(ctx, "tickets", tributary.Params{"per_page": 1})
	if err != nil {
		t.Fatal(err)
	}
	id, _ := page.Records[0].IntAt("id")
	wire := newWireClient(t, w.server.Run)

	op := func(action string, params map[string]any, more ...any) map[string]any {
		args := map[string]any{"connector": "support", "entity": "tickets", "action": action, "params": params}
		for i := 0; i+1 < len(more); i += 2 {
			args[more[i].(string)] = more[i+1]
		}
		return args
	}
	eq := func(field string, v any) map[string]any {
		return map[string]any{"query": map[string]any{"filter": map[string]any{"eq": map[string]any{field: v}}}}
	}
	for _, c := range []struct {
		name    string
		args    map[string]any
		isError bool
	}{
		{"a page cut by the byte cap", op("list", map[string]any{"per_page": 30}), false},
		{"a page cut by the limit", op("list", map[string]any{"per_page": 30}, "limit", 3), false},
		{"a page with more pages", op("list", map[string]any{"per_page": 10}), false},
		{"get with fields", op("get", map[string]any{"ticket_id": id}, "fields", []string{"id", "via.channel", "nope"}), false},
		{"search hits", op("search", eq("status", "open"), "fields", []string{"status", "subject"}, "limit", 4), false},
		{"search without hits", op("search", eq("status", "nope")), false},
		{"an error", op("list", map[string]any{"per_page": "many"}), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			line := wire.roundTrip(t, mcp.ToolExecute, c.args)
			var msg struct {
				Result *struct {
					Content []struct {
						Type string `json:"type"`
						Text string `json:"text"`
					} `json:"content"`
					StructuredContent json.RawMessage `json:"structuredContent"`
					IsError           bool            `json:"isError"`
				} `json:"result"`
			}
			if err := json.Unmarshal(line, &msg); err != nil || msg.Result == nil {
				t.Fatalf("%v: %s", err, line)
			}
			res := msg.Result
			if res.IsError != c.isError || len(res.Content) != 1 || res.Content[0].Type != "text" {
				t.Fatalf("isError %v, content %v", res.IsError, res.Content)
			}
			var out any
			if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
				t.Fatalf("structured content %s: %v", res.StructuredContent, err)
			}
			if err := schema.Validate(out); err != nil {
				t.Errorf("the structured content does not conform to the output schema: %v\n%s", err, res.StructuredContent)
			}
			if c.isError {
				return
			}
			summary, text, ok := strings.Cut(res.Content[0].Text, "\n")
			if !ok || summary == "" || strings.HasPrefix(summary, "{") {
				t.Fatalf("text %q: want a summary line, then the JSON", res.Content[0].Text)
			}
			if a, b := exactJSON(t, text), exactJSON(t, string(res.StructuredContent)); !reflect.DeepEqual(a, b) {
				t.Errorf("the text's JSON and the structured content differ:\n%s\n%s", text, res.StructuredContent)
			}
			m := out.(map[string]any)
			items, _ := m["records"].([]any)
			if hits, ok := m["hits"].([]any); ok {
				items = hits
			}
			if m["count"] != float64(len(items)) {
				t.Errorf("count %v for %d items", m["count"], len(items))
			}
		})
	}
}

// outputSchema resolves a tool's output schema as tools/list gives it.
func outputSchema(t *testing.T, w *world, tool string) *jsonschema.Resolved {
	t.Helper()
	tools, err := w.client.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tools.Tools {
		if tt.Name != tool {
			continue
		}
		b, _ := json.Marshal(tt.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	t.Fatalf("no tool %s", tool)
	return nil
}

// exactJSON decodes one JSON value keeping numbers' digits, and fails on
// trailing data.
func exactJSON(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	if dec.More() {
		t.Fatalf("trailing data after the JSON: %s", s)
	}
	return v
}
