package linear_test

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/linear"
)

// schemaPath is Linear's own schema (linear/linear@8335e09a,
// packages/sdk/src/schema.graphql, MIT), byte for byte.
const schemaPath = "../../testdata/vendor-specs/linear/schema.graphql"

var loadSchema = sync.OnceValues(func() (*ast.Schema, error) {
	b, err := os.ReadFile(schemaPath)
	if err != nil {
		return nil, err
	}
	return gqlparser.LoadSchema(&ast.Source{Name: "schema.graphql", Input: string(b)})
})

func linearSchema(t testing.TB) *ast.Schema {
	t.Helper()
	s, err := loadSchema()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// validQuery checks a query and its variables against Linear's schema, as
// Linear's server does before it answers.
func validQuery(t testing.TB, query string, vars map[string]any) *ast.OperationDefinition {
	t.Helper()
	op, err := checkQuery(linearSchema(t), query, vars)
	if err != nil {
		t.Fatal(err)
	}
	return op
}

func checkQuery(schema *ast.Schema, query string, vars map[string]any) (*ast.OperationDefinition, error) {
	doc, errs := gqlparser.LoadQueryWithRules(schema, query, nil)
	if errs != nil {
		return nil, fmt.Errorf("the schema refuses %q: %v", query, errs)
	}
	if len(doc.Operations) != 1 {
		return nil, fmt.Errorf("%d operations in %q", len(doc.Operations), query)
	}
	// Variables as they travel: JSON.
	b, _ := json.Marshal(vars)
	var decoded map[string]any
	_ = json.Unmarshal(b, &decoded)
	if _, err := validator.VariableValues(schema, doc.Operations[0], decoded); err != nil {
		return nil, fmt.Errorf("the schema refuses the variables %s of %q: %v", b, query, err)
	}
	return doc.Operations[0], nil
}

// Every query of the catalogue (each list, get and api_search, and the
// credential check) is valid against Linear's schema, with every param an
// action declares as one of its variables (so that whatever a caller
// passes, Linear reads it), and every declared variable used.
func TestEveryQueryIsValidAgainstLinearsSchema(t *testing.T) {
	c, err := linear.New(linear.Credentials{APIKey: "lin_api_test"})
	if err != nil {
		t.Fatal(err)
	}
	k := c.Kind()
	n := 0
	for _, e := range k.Entities {
		for a, routes := range e.Routes {
			for _, rt := range routes {
				op := validQuery(t, rt.GraphQL, sampleParams(e.Params[a]))
				n++
				noDeprecated(t, e.Name+"."+string(a), op.SelectionSet)
				declared := map[string]bool{}
				for _, v := range op.VariableDefinitions {
					declared[v.Variable] = true
				}
				for _, p := range e.Params[a] {
					if !declared[p.Name] {
						t.Errorf("%s.%s: param %s is not a variable of the query", e.Name, a, p.Name)
					}
				}
			}
		}
	}
	validQuery(t, k.Check.GraphQL, nil)
	if n != 9*2+1 {
		t.Errorf("%d queries checked, want 19", n)
	}
}

// noDeprecated fails for a selected field the schema marks deprecated: a
// field Linear may drop.
func noDeprecated(t *testing.T, where string, set ast.SelectionSet) {
	t.Helper()
	for _, s := range set {
		if f, ok := s.(*ast.Field); ok {
			if d := f.Definition.Directives.ForName("deprecated"); d != nil {
				t.Errorf("%s selects %s.%s, deprecated: %s", where, f.ObjectDefinition.Name, f.Name, d.Arguments.ForName("reason").Value.Raw)
			}
			noDeprecated(t, where, f.SelectionSet)
		}
	}
}

// sampleParams gives each declared param a value of its type.
func sampleParams(ps []tributary.Param) map[string]any {
	out := map[string]any{}
	for _, p := range ps {
		switch {
		case p.Enum != nil:
			out[p.Name] = p.Enum[len(p.Enum)-1]
		case p.Type == tributary.TypeInteger:
			out[p.Name] = 250
		case p.Type == tributary.TypeBoolean:
			out[p.Name] = true
		case p.Type == tributary.TypeObject:
			out[p.Name] = map[string]any{"updatedAt": map[string]any{"gt": "2026-01-01T00:00:00.000Z"}}
		default:
			out[p.Name] = "x"
		}
	}
	return out
}
