package linear_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fixture"
	"github.com/tributary-dev/tributary/kinds/linear"
	"github.com/tributary-dev/tributary/kinds/linear/lineartest"
)

const fixtures = "../../testdata/linear"

// fixtureCredentials maps the fixtures' credential names to the
// placeholder credentials they were recorded with.
var fixtureCredentials = map[string]linear.Credentials{
	"api_key": {APIKey: "lin_api_TEST_API_KEY"},
	"oauth":   {AccessToken: "TEST_ACCESS_TOKEN"},
}

// TestFixtures replays every recorded exchange of testdata/linear: the
// request must be exactly the recorded one and the records, meta, next
// params or error exactly the expected ones.
func TestFixtures(t *testing.T) {
	for _, f := range fixture.LoadDir(t, fixtures) {
		t.Run(f.Name, func(t *testing.T) {
			creds, ok := fixtureCredentials[f.Credentials]
			if !ok {
				t.Fatalf("unknown credentials %q", f.Credentials)
			}
			replay := fixture.NewReplay(f)
			opts := []tributary.Option{tributary.WithHTTPClient(replay.Client()), linear.WithBudgetPacing(false)}
			if !f.RetriesAllowed() {
				opts = append(opts, tributary.WithRetry(tributary.RetryPolicy{}))
			}
			c, err := linear.New(creds, opts...)
			if err != nil {
				t.Fatal(err)
			}
			fixture.Run(t, f, c, replay)
		})
	}
}

// TestFixturesCoverCatalogue proves that every entity/action of the
// catalogue (except search, which runs on a replica) has a fixture.
func TestFixturesCoverCatalogue(t *testing.T) {
	have := map[string]bool{}
	for _, f := range fixture.LoadDir(t, fixtures) {
		have[f.Operation.Entity+"."+string(f.Operation.Action)] = true
	}
	for _, e := range linear.Catalogue() {
		for _, a := range e.Actions {
			if a != tributary.ActionSearch && !have[e.Name+"."+string(a)] {
				t.Errorf("no fixture for %s.%s", e.Name, a)
			}
		}
	}
}

// Every fixture agrees with Linear's schema: its request's query and
// variables validate, and each answer's data is what the query selects,
// typed as the schema types it (no field missing, none extra, null only
// where the schema allows it); errors[] have a message.
func TestFixturesAgreeWithLinearsSchema(t *testing.T) {
	for _, f := range fixture.LoadDir(t, fixtures) {
		for i, ex := range f.Exchanges {
			var req gqlBody
			if err := json.Unmarshal(ex.Request.Body, &req); err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			var resp struct {
				Data   json.RawMessage `json:"data"`
				Errors []struct {
					Message    string         `json:"message"`
					Extensions map[string]any `json:"extensions"`
				} `json:"errors"`
			}
			if err := json.Unmarshal(ex.Response.Body, &resp); err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			op, err := checkQuery(linearSchema(t), req.Query, req.Variables)
			if refused := len(resp.Errors) > 0 && resp.Errors[0].Extensions["code"] == "GRAPHQL_VALIDATION_FAILED"; refused != (err != nil) {
				t.Errorf("%s exchange %d: Linear refuses the request: %v; the schema: %v", f.Name, i, refused, err)
			}
			if err != nil {
				continue
			}
			for _, e := range resp.Errors {
				if e.Message == "" {
					t.Errorf("%s exchange %d: an error without a message", f.Name, i)
				}
			}
			if len(resp.Errors) == 0 || string(resp.Data) != "null" && len(resp.Data) > 0 {
				var data any
				_ = json.Unmarshal(resp.Data, &data)
				for _, msg := range conforms(op.SelectionSet, data, "data") {
					t.Errorf("%s exchange %d: %s", f.Name, i, msg)
				}
			}
		}
	}
}

// conforms checks a value against a selection set: the fields it
// selects, typed by their definitions.
func conforms(set ast.SelectionSet, v any, path string) []string {
	obj, ok := v.(map[string]any)
	if !ok {
		return []string{fmt.Sprintf("%s: %v is not an object", path, v)}
	}
	var out []string
	selected := map[string]bool{}
	for _, s := range set {
		f, ok := s.(*ast.Field)
		if !ok {
			out = append(out, path+": fragments are not checked")
			continue
		}
		selected[f.Alias] = true
		fv, present := obj[f.Alias]
		if !present {
			out = append(out, fmt.Sprintf("%s.%s: missing", path, f.Alias))
			continue
		}
		out = append(out, conformsType(f, f.Definition.Type, fv, path+"."+f.Alias)...)
	}
	for k := range obj {
		if !selected[k] {
			out = append(out, fmt.Sprintf("%s.%s: not selected", path, k))
		}
	}
	return out
}

func conformsType(f *ast.Field, t *ast.Type, v any, path string) []string {
	if v == nil {
		if t.NonNull {
			return []string{path + ": null, but the schema says " + t.String()}
		}
		return nil
	}
	if t.Elem != nil {
		list, ok := v.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %v is not a list (%s)", path, v, t)}
		}
		var out []string
		for i, e := range list {
			out = append(out, conformsType(f, t.Elem, e, fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	}
	if len(f.SelectionSet) > 0 {
		return conforms(f.SelectionSet, v, path)
	}
	schema, _ := loadSchema()
	def := schema.Types[t.NamedType]
	ok := true
	switch {
	case def.Kind == ast.Enum:
		s, isStr := v.(string)
		ok = isStr && def.EnumValues.ForName(s) != nil
	case t.NamedType == "Int":
		n, isNum := v.(float64)
		ok = isNum && n == math.Trunc(n)
	case t.NamedType == "Float":
		_, ok = v.(float64)
	case t.NamedType == "Boolean":
		_, ok = v.(bool)
	case t.NamedType == "JSONObject" || t.NamedType == "JSON":
		_, ok = v.(map[string]any)
	default: // String, ID, DateTime, TimelessDate, ...
		_, ok = v.(string)
		if t.NamedType == "DateTime" && ok {
			ok = strings.HasSuffix(v.(string), "Z") && len(v.(string)) == len("2006-01-02T15:04:05.000Z")
		}
	}
	if !ok {
		return []string{fmt.Sprintf("%s: %v is not a %s", path, v, t.NamedType)}
	}
	return nil
}

// The fake answers every query of the catalogue as Linear's schema says:
// the data of each list, get, search and credential check is exactly what
// the query selects, typed as the schema types it, null only where the
// schema allows (archived issues included).
func TestFakeAnswersConformToLinearsSchema(t *testing.T) {
	s := lineartest.New()
	defer s.Close()
	c := open(t, s)
	ctx := context.Background()
	for _, e := range c.Entities() {
		if _, err := c.List(ctx, e.Name, tributary.Params{"first": 250, "includeArchived": true}); err != nil {
			t.Fatal(err)
		}
		page, err := c.List(ctx, e.Name, tributary.Params{"first": 1})
		if err != nil {
			t.Fatal(err)
		}
		id, _ := page.Records[0].StringAt("id")
		if _, err := c.Get(ctx, e.Name, tributary.Params{"id": id}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.APISearch(ctx, "issues", tributary.Params{"term": "a", "includeComments": true}); err != nil {
		t.Fatal(err)
	}
	if err := c.CheckCredentials(ctx); err != nil {
		t.Fatal(err)
	}
	bodies := sent(t, s)
	if len(bodies) != 9*3+2 {
		t.Fatalf("%d requests", len(bodies))
	}
	for _, b := range bodies {
		raw, _ := json.Marshal(map[string]any{"query": b.Query, "variables": b.Variables})
		var answer struct {
			Data   any             `json:"data"`
			Errors json.RawMessage `json:"errors"`
		}
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/graphql", bytes.NewReader(raw))
		req.Header.Set("Authorization", lineartest.DefaultAPIKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(resp.Body).Decode(&answer)
		resp.Body.Close()
		if err != nil || answer.Errors != nil {
			t.Fatalf("%v %s", err, answer.Errors)
		}
		op := validQuery(t, b.Query, b.Variables)
		for _, msg := range conforms(op.SelectionSet, answer.Data, "data") {
			t.Errorf("%s: %s", op.Name, msg)
		}
	}
}
