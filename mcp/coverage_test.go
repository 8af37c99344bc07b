package mcp_test

import (
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/mcp"
)

// TestSearchEverySearchableEntity: `tributary mcp --sandbox`'s server
// answers `search` for every entity of every kind that the catalogue
// marks searchable, with no params from the caller (each copied on its
// first search through its copy scope).
func TestSearchEverySearchableEntity(t *testing.T) {
	srv, err := mcp.Sandbox(mcp.Options{Downloads: mcp.Downloads{Dir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cs := connect(t, srv)
	total := 0
	for _, kind := range kinds.Types() {
		es, _ := kinds.Catalogue(kind)
		for _, e := range es {
			if !e.Supports(tributary.ActionSearch) || len(e.Searchable) == 0 {
				continue
			}
			total++
			a := call(t, cs, mcp.ToolExecute, map[string]any{"connector": kind, "entity": e.Name, "action": "search",
				"params": map[string]any{"query": map[string]any{}, "limit": 3}})
			if a.isError {
				t.Errorf("%s %s: %s", kind, e.Name, a.text)
				continue
			}
			if hits, _ := a.out["hits"].([]any); len(hits) == 0 {
				t.Errorf("%s %s: no hits: %s", kind, e.Name, a.text)
			}
			// Every date-time field refuses a date that is not RFC 3339
			// and compares a plain date.
			for _, f := range e.Searchable {
				if f.Type != tributary.TypeDateTime {
					continue
				}
				call(t, cs, mcp.ToolExecute, map[string]any{"connector": kind, "entity": e.Name, "action": "search",
					"params": map[string]any{"query": map[string]any{"filter": map[string]any{"gt": map[string]any{f.Name: "yesterday"}}}}}).
					fails(t, mcp.KindInvalidParams, f.Name+` is a date-time: "yesterday" is not RFC 3339`)
				a := call(t, cs, mcp.ToolExecute, map[string]any{"connector": kind, "entity": e.Name, "action": "search",
					"params": map[string]any{"query": map[string]any{"filter": map[string]any{"gte": map[string]any{f.Name: "2000-01-01"}}}, "limit": 1}})
				if a.isError {
					t.Errorf("%s %s.%s gte 2000-01-01: %s", kind, e.Name, f.Name, a.text)
				}
			}
		}
	}
	// The seven first kinds' 49 searchable entities stay searchable (a
	// floor: each new kind adds its own).
	if total < 49 {
		t.Errorf("%d searchable entities, the first seven kinds alone mark 49", total)
	}
}
