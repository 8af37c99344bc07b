package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tributary-dev/tributary/mcp"
)

// FuzzToolArguments: whatever arguments an agent sends, every tool answers
// with a result (isError for a mistake), never a protocol error, a panic
// or a hang.
func FuzzToolArguments(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`{"connector":"support"}`,
		`{"connector":"support","entity":"tickets"}`,
		`{"connector":"support","entity":"tickets","action":"get","params":{"ticket_id":35436}}`,
		`{"connector":"support","entity":"tickets","action":"list","params":{"per_page":3},"limit":2,"skip":1,"fields":["id","via.channel"]}`,
		`{"connector":"support","entity":"tickets","action":"search","params":{"query":{"filter":{"eq":{"status":"open"}}},"limit":2}}`,
		`{"connector":"support","entity":"tickets","action":"list","params":{"filter.x":1,"filter":{"x":2}}}`,
		`{"connector":"support","entity":"attachments","params":{"attachment_id":30000000000000,"range_header":"bytes=0-9"}}`,
		`{"connector":"support","entity":"tickets","action":"list","fields":["[\"a\",\"b\"]"],"limit":"7"}`,
		`{"connector":null,"entity":[],"action":{},"params":"x","limit":1e400}`,
	} {
		for _, tool := range []string{"list_connectors", "describe", "validate", "execute", "download"} {
			f.Add(tool, []byte(seed))
		}
	}
	w := setup(f, mcp.Options{Limits: mcp.Limits{Bytes: 4096}})
	f.Fuzz(func(t *testing.T, tool string, args []byte) {
		switch tool {
		case "list_connectors", "describe", "validate", "execute", "download":
		default:
			return
		}
		if !json.Valid(args) || !bytes.HasPrefix(bytes.TrimSpace(args), []byte("{")) {
			return
		}
		res, err := w.client.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("%s %s: protocol error %v", tool, args, err)
		}
		if len(res.Content) == 0 || res.StructuredContent == nil {
			t.Fatalf("%s %s: an empty result", tool, args)
		}
	})
}
