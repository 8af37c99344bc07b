package linear_test

import (
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/vendorspec"
	"github.com/tributary-dev/tributary/kinds/linear"
	"github.com/tributary-dev/tributary/kinds/linear/lineartest"
)

// linearSpec is Linear's own schema (linear/linear@8335e09a,
// packages/sdk/src/schema.graphql, MIT) in testdata/vendor-specs, byte
// for byte, against which every query the client sends is checked.
func linearSpec(t testing.TB) *vendorspec.Schema {
	t.Helper()
	return vendorspec.GraphQL(t, "linear")
}

// validQuery checks a query and its variables against Linear's schema, as
// Linear's server does before it answers, and returns the operation
// (parsed with the fake's copy of the schema, which
// TestEmbeddedSchemaIsLinears keeps identical).
func validQuery(t testing.TB, query string, vars map[string]any) *ast.OperationDefinition {
	t.Helper()
	linearSpec(t).ValidateQuery(t, query, vars)
	doc, errs := gqlparser.LoadQueryWithRules(lineartest.Schema(), query, nil)
	if errs != nil || len(doc.Operations) != 1 {
		t.Fatalf("%q: %v", query, errs)
	}
	return doc.Operations[0]
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
