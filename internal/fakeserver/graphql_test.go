package fakeserver_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

const testSchema = `
scalar DateTime
interface Node { id: ID! }
type Team implements Node { id: ID! key: String! members(first: Int): [User!]! }
type User implements Node { id: ID! name: String }
type Issue implements Node { id: ID! title: String! team: Team! assignee: User updatedAt: DateTime! estimate: Float }
type Query {
  issue(id: String!): Issue!
  maybe(id: String!): Issue
  issues(first: Int = 50, filter: IssueFilter): [Issue!]!
  node(id: ID!): Node
}
input IssueFilter { title: String }
`

func newGraphQL(t *testing.T) *fakeserver.GraphQL {
	t.Helper()
	s, err := gqlparser.LoadSchema(&ast.Source{Name: "test.graphql", Input: testSchema})
	if err != nil {
		t.Fatal(err)
	}
	return &fakeserver.GraphQL{Schema: s, Code: "GRAPHQL_VALIDATION_FAILED"}
}

func body(query string, vars map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	return b
}

var at = time.Date(2026, 3, 4, 5, 6, 7, 8_000_000, time.UTC)

func issue(id string) map[string]any {
	return map[string]any{"id": id, "title": "Title " + id, "updatedAt": at, "estimate": 2.5,
		"team": map[string]any{"id": "t1", "key": "ENG", "members": func(args map[string]any) any {
			n, _ := args["first"].(int64)
			all := []any{map[string]any{"id": "u1", "name": "Ada"}, map[string]any{"id": "u2", "name": "Bo"}}
			return all[:min(int(n), len(all))]
		}},
		"assignee": func() any { return nil }}
}

// What a query selects, and only that, under its aliases and in its
// order, through fragments, directives, lazy values and nested arguments.
func TestGraphQLAnswersTheSelection(t *testing.T) {
	g := newGraphQL(t)
	q := `query Q($id: String!, $n: Int, $skip: Boolean!) {
  one: issue(id: $id) { ...F title @skip(if: $skip) assignee { id } }
  issues(first: 2) { id t: team { key members(first: $n) { name } } }
  node(id: "x") { __typename ... on Issue { title } ... on User { name } }
}
fragment F on Issue { id updatedAt estimate __typename }`
	call, errs := g.Parse(body(q, map[string]any{"id": "a", "n": 1, "skip": true}))
	if errs != nil {
		t.Fatal(errs[0])
	}
	var gotArgs []map[string]any
	out, errs := call.Answer(func(f *ast.Field, args map[string]any) (any, error) {
		gotArgs = append(gotArgs, args)
		switch f.Name {
		case "issue":
			return issue(args["id"].(string)), nil
		case "issues":
			return []map[string]any{issue("b"), issue("c")}, nil
		}
		return map[string]any{"__typename": "User", "id": "x", "name": "Xi"}, nil
	})
	if errs != nil {
		t.Fatal(errs[0])
	}
	want := `{"data":{"one":{"id":"a","updatedAt":"2026-03-04T05:06:07.008Z","estimate":2.5,"__typename":"Issue","assignee":null},` +
		`"issues":[{"id":"b","t":{"key":"ENG","members":[{"name":"Ada"}]}},{"id":"c","t":{"key":"ENG","members":[{"name":"Ada"}]}}],` +
		`"node":{"__typename":"User","name":"Xi"}}}`
	if string(out) != want {
		t.Errorf("answer:\n got %s\nwant %s", out, want)
	}
	if d := cmp.Diff([]map[string]any{{"id": "a"}, {"first": int64(2)}, {"id": "x"}}, gotArgs); d != "" {
		t.Errorf("arguments (-want +got):\n%s", d)
	}
}

// A query the schema refuses, or variables that do not fit, are refused
// with the server's code before any resolver runs.
func TestGraphQLRefusesWhatTheSchemaRefuses(t *testing.T) {
	g := newGraphQL(t)
	for _, c := range []struct {
		body []byte
		want string
	}{
		{body(`{ issue(id: "a") { id nope } }`, nil), `Cannot query field "nope" on type "Issue".`},
		{body(`{ issue { id } }`, nil), `Field "issue" argument "id" of type "String!" is required, but it was not provided.`},
		{body(`query Q($id: String!) { issue(id: $id) { id } }`, map[string]any{"id": 3}), `cannot use float64 as String`},
		{body(`query Q($id: String!) { issue(id: $id) { id } }`, nil), `must be defined`},
		{body(`{ issue(id: "a") { id `, nil), `Expected Name, found <EOF>`},
		{[]byte(`{"query": 1}`), `POST body sent invalid JSON or no query`},
	} {
		call, errs := g.Parse(c.body)
		if call != nil || len(errs) == 0 || !strings.Contains(errs[0].Message, c.want) || errs[0].Extensions["code"] != "GRAPHQL_VALIDATION_FAILED" {
			t.Errorf("%s: %v %+v", c.body, call, errs)
		}
	}
}

// A resolver's error fails its field: a non-null root field makes data
// null, a nullable one is null alone; the error carries the field's path.
func TestGraphQLResolverErrors(t *testing.T) {
	g := newGraphQL(t)
	notFound := &fakeserver.GraphQLError{Message: "Entity not found: Issue", Extensions: map[string]any{"code": "INPUT_ERROR"}}
	for q, want := range map[string]string{
		`{ issue(id: "a") { id } }`: `{"data":null,"errors":[{"message":"Entity not found: Issue","path":["issue"],"extensions":{"code":"INPUT_ERROR"}}]}`,
		`{ maybe(id: "a") { id } }`: `{"data":{"maybe":null},"errors":[{"message":"Entity not found: Issue","path":["maybe"],"extensions":{"code":"INPUT_ERROR"}}]}`,
	} {
		call, errs := g.Parse(body(q, nil))
		if errs != nil {
			t.Fatal(errs[0])
		}
		out, errs := call.Answer(func(*ast.Field, map[string]any) (any, error) { return nil, notFound })
		if string(out) != want || len(errs) != 1 {
			t.Errorf("%s:\n got %s\nwant %s", q, out, want)
		}
	}
	// A resolver that panics answers an error, not a dropped connection.
	call, _ := g.Parse(body(`{ maybe(id: "a") { id } }`, nil))
	out, _ := call.Answer(func(*ast.Field, map[string]any) (any, error) { panic("boom") })
	if !strings.Contains(string(out), `internal error resolving maybe: boom`) {
		t.Errorf("panic: %s", out)
	}
}
