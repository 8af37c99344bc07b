package engine_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/internal/engine"
)

type ref struct {
	ID  string `json:"id"`
	Key string `json:"key,omitempty"`
}

type common struct {
	CreatedAt string `json:"createdAt"`
}

type record struct {
	ID       string          `json:"id"`
	Team     ref             `json:"team"`
	Assignee *ref            `json:"assignee"`
	Labels   []ref           `json:"labels"`
	LabelIDs []string        `json:"labelIds"`
	Data     json.RawMessage `json:"data"`
	Extra    map[string]any  `json:"extra"`
	At       time.Time       `json:"at"`
	Until    *time.Time      `json:"until"`
	Set      string          `json:"set" graphql:"-"`
	Skipped  string          `json:"-"`
	Untagged string
	common
}

// Selection reads the record type: json names, sub-selections for
// structs (through pointers and slices), scalars for what decodes itself,
// maps and raw JSON; embedded fields flattened; skipped fields left out.
func TestSelection(t *testing.T) {
	got := engine.Selection(record{})
	want := "id team { id key } assignee { id key } labels { id key } labelIds data extra at until createdAt"
	if got != want {
		t.Errorf("Selection:\n got %q\nwant %q", got, want)
	}
	if got := engine.Selection(&record{}); got != want {
		t.Errorf("Selection of a pointer: %q", got)
	}
}

type loop struct {
	ID     string `json:"id"`
	Parent *loop  `json:"parent"`
}

// A record that contains itself has no finite selection: a panic that
// names it, when the catalogue is built.
func TestSelectionOfARecursiveType(t *testing.T) {
	defer func() {
		r := recover()
		if msg, _ := r.(string); !strings.Contains(msg, "engine_test.loop contains itself") {
			t.Errorf("recovered %v", r)
		}
	}()
	engine.Selection(loop{})
}

func TestGraphQLQuery(t *testing.T) {
	if got, want := engine.GraphQLQuery("Issue", "issue", []engine.GraphQLVar{{Name: "id", Type: "String!"}}, "id title"),
		"query Issue($id: String!) { issue(id: $id) { id title } }"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	got := engine.GraphQLQuery("Teams", "teams", []engine.GraphQLVar{{Name: "first", Type: "Int"}, {Name: "after", Type: "String"}}, engine.RelayNodes("id"))
	if want := "query Teams($first: Int, $after: String) { teams(first: $first, after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } }"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got, want := engine.GraphQLQuery("Viewer", "viewer", nil, "id"), "query Viewer { viewer { id } }"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
