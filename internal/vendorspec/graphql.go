package vendorspec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/tributary-dev/tributary/internal/fixture"
)

// Schema is a vendor's GraphQL schema (SDL). It checks a request's query
// and variables (gqlparser's validation, as the server does it) and a
// response's data against the query's selection. It is safe for
// concurrent use.
type Schema struct {
	name     string
	endpoint string
	schema   *ast.Schema
	allow    *allowList
}

func loadGraphQL(name string, v vendor, path string) (*Schema, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sch, err := gqlparser.LoadSchema(&ast.Source{Name: filepath.Base(path), Input: string(b)})
	if err != nil {
		return nil, fmt.Errorf("vendorspec: %s: %w", name, err)
	}
	s := &Schema{name: name, endpoint: v.endpoint, schema: sch}
	if s.allow, err = readAllowList(filepath.Join(filepath.Dir(filepath.Dir(path)), "allow-"+name+".txt")); err != nil {
		return nil, fmt.Errorf("vendorspec: %s: %w", name, err)
	}
	return s, nil
}

// Endpoint is the API's URL, to which every request is a POST.
func (s *Schema) Endpoint() string { return s.endpoint }

// operation parses and validates query, returning the operation to run
// (the one named, or the only one).
func (s *Schema) operation(query, name string) (*ast.OperationDefinition, []string) {
	doc, errs := gqlparser.LoadQueryWithRules(s.schema, query, nil)
	if len(errs) > 0 {
		out := make([]string, len(errs))
		for i, e := range errs {
			out[i] = "query: " + e.Error()
		}
		return nil, out
	}
	if name == "" && len(doc.Operations) != 1 {
		return nil, []string{fmt.Sprintf("query: %d operations and no operationName", len(doc.Operations))}
	}
	op := doc.Operations.ForName(name)
	if op == nil {
		return nil, []string{fmt.Sprintf("query: no operation %q", name)}
	}
	return op, nil
}

// CheckQuery validates a query and its variables against the schema, as
// the vendor's server would before running it; each problem is one line.
func (s *Schema) CheckQuery(query string, vars map[string]any) []string {
	_, problems := s.checkRequest(query, "", vars)
	return problems
}

func (s *Schema) checkRequest(query, opName string, vars map[string]any) (*ast.OperationDefinition, []string) {
	op, problems := s.operation(query, opName)
	if op == nil {
		return nil, problems
	}
	if _, err := validator.VariableValues(s.schema, op, vars); err != nil {
		return op, []string{"variables: " + err.Error()}
	}
	return op, nil
}

// ValidateQuery fails t for each problem CheckQuery finds.
func (s *Schema) ValidateQuery(t testing.TB, query string, vars map[string]any) {
	t.Helper()
	for _, p := range s.CheckQuery(query, vars) {
		t.Errorf("%s: %s", s.name, p)
	}
}

// CheckResponse checks a response body ({"data": …, "errors": […]})
// to query: each error has a message, and data, when not null, holds
// exactly the fields the query selects, each with a value of the
// schema's type (null only where the type is nullable), through every
// nested selection and fragment.
func (s *Schema) CheckResponse(query string, vars map[string]any, body []byte) []string {
	op, problems := s.checkRequest(query, "", vars)
	if op == nil {
		return problems
	}
	return append(problems, s.checkResponse(op, vars, body)...)
}

// ValidateResponse fails t for each problem CheckResponse finds.
func (s *Schema) ValidateResponse(t testing.TB, query string, vars map[string]any, body []byte) {
	t.Helper()
	for _, p := range s.CheckResponse(query, vars, body) {
		t.Errorf("%s: %s", s.name, p)
	}
}

func (s *Schema) checkResponse(op *ast.OperationDefinition, vars map[string]any, body []byte) []string {
	var resp struct {
		Data   json.RawMessage   `json:"data"`
		Errors []json.RawMessage `json:"errors"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&resp); err != nil {
		return []string{"response: not a GraphQL response: " + err.Error()}
	}
	var problems []string
	for i, raw := range resp.Errors {
		var e struct {
			Message *string `json:"message"`
		}
		if err := json.Unmarshal(raw, &e); err != nil || e.Message == nil {
			problems = append(problems, fmt.Sprintf("response: errors/%d: no message", i))
		}
	}
	if len(resp.Data) == 0 || string(resp.Data) == "null" {
		if len(resp.Errors) == 0 {
			problems = append(problems, "response: neither data nor errors")
		}
		return problems
	}
	var data any
	dec = json.NewDecoder(bytes.NewReader(resp.Data))
	dec.UseNumber()
	if err := dec.Decode(&data); err != nil {
		return append(problems, "response: data: "+err.Error())
	}
	root := s.schema.Query
	switch op.Operation {
	case ast.Mutation:
		root = s.schema.Mutation
	case ast.Subscription:
		root = s.schema.Subscription
	}
	c := &selectionCheck{schema: s.schema, vars: vars}
	c.object("data", data, root, op.SelectionSet)
	return append(problems, c.problems...)
}

// selectionCheck walks a response's data along the query's selection.
type selectionCheck struct {
	schema   *ast.Schema
	vars     map[string]any
	problems []string
}

func (c *selectionCheck) bad(path, format string, args ...any) {
	c.problems = append(c.problems, "response: "+path+": "+fmt.Sprintf(format, args...))
}

// selected is a field of a selection, and whether it is certain to be
// asked for (not under a fragment on another type).
type selected struct {
	field   *ast.Field
	certain bool
}

// fields collects the fields the selection asks of an object of type
// runtime (empty when unknown), by response key, in order.
func (c *selectionCheck) fields(def *ast.Definition, runtime string, set ast.SelectionSet, certain bool, into map[string][]selected, order *[]string) {
	for _, sel := range set {
		if !c.included(sel) {
			continue
		}
		var cond string
		var sub ast.SelectionSet
		switch x := sel.(type) {
		case *ast.Field:
			if _, seen := into[x.Alias]; !seen {
				*order = append(*order, x.Alias)
			}
			into[x.Alias] = append(into[x.Alias], selected{x, certain})
			continue
		case *ast.InlineFragment:
			cond, sub = x.TypeCondition, x.SelectionSet
		case *ast.FragmentSpread:
			if x.Definition == nil {
				continue
			}
			cond, sub = x.Definition.TypeCondition, x.Definition.SelectionSet
		}
		switch {
		case cond == "" || cond == def.Name || (runtime != "" && c.applies(cond, runtime)):
			c.fields(def, runtime, sub, certain, into, order)
		case runtime == "":
			c.fields(def, runtime, sub, false, into, order) // may or may not apply
		}
	}
}

// applies reports whether a fragment on cond applies to an object of type
// runtime.
func (c *selectionCheck) applies(cond, runtime string) bool {
	if cond == runtime {
		return true
	}
	t := c.schema.Types[cond]
	if t == nil {
		return false
	}
	for _, p := range c.schema.GetPossibleTypes(t) {
		if p.Name == runtime {
			return true
		}
	}
	return false
}

// included applies @skip and @include.
func (c *selectionCheck) included(sel ast.Selection) bool {
	var dirs ast.DirectiveList
	switch x := sel.(type) {
	case *ast.Field:
		dirs = x.Directives
	case *ast.InlineFragment:
		dirs = x.Directives
	case *ast.FragmentSpread:
		dirs = x.Directives
	}
	for _, d := range dirs {
		if d.Name != "skip" && d.Name != "include" {
			continue
		}
		arg := d.Arguments.ForName("if")
		if arg == nil {
			continue
		}
		v, err := arg.Value.Value(c.vars)
		if err != nil {
			continue
		}
		if b, ok := v.(bool); ok && b == (d.Name == "skip") {
			return false
		}
	}
	return true
}

func (c *selectionCheck) object(path string, v any, def *ast.Definition, set ast.SelectionSet) {
	obj, ok := v.(map[string]any)
	if !ok {
		c.bad(path, "expected a %s object, got %s", def.Name, short(v))
		return
	}
	runtime := ""
	if def.Kind == ast.Object {
		runtime = def.Name
	} else if tn, ok := obj["__typename"].(string); ok {
		runtime = tn
		if !c.applies(def.Name, tn) {
			c.bad(path, "__typename %s is not a %s", tn, def.Name)
			return
		}
	}
	byKey := map[string][]selected{}
	var order []string
	c.fields(def, runtime, set, true, byKey, &order)
	for _, key := range order {
		sels := byKey[key]
		certain := false
		for _, s := range sels {
			certain = certain || s.certain
		}
		val, present := obj[key]
		p := path + "/" + key
		if !present {
			if certain {
				c.bad(p, "missing (the query selects it)")
			}
			continue
		}
		f := sels[0].field
		if f.Name == "__typename" {
			if s, ok := val.(string); !ok || (runtime != "" && s != runtime) {
				c.bad(p, "expected the type's name %q, got %s", runtime, short(val))
			}
			continue
		}
		if f.Definition == nil {
			continue // a field of a fragment on another type: gqlparser resolved it there
		}
		var subset ast.SelectionSet
		for _, s := range sels {
			subset = append(subset, s.field.SelectionSet...)
		}
		c.value(p, val, f.Definition.Type, subset)
	}
	for key := range obj {
		if _, ok := byKey[key]; !ok {
			c.bad(path+"/"+key, "not selected by the query")
		}
	}
}

func (c *selectionCheck) value(path string, v any, t *ast.Type, set ast.SelectionSet) {
	if v == nil {
		if t.NonNull {
			c.bad(path, "null for the non-null %s", t.String())
		}
		return
	}
	if t.Elem != nil {
		list, ok := v.([]any)
		if !ok {
			c.bad(path, "expected a list (%s), got %s", t.String(), short(v))
			return
		}
		for i, e := range list {
			c.value(fmt.Sprintf("%s/%d", path, i), e, t.Elem, set)
		}
		return
	}
	def := c.schema.Types[t.NamedType]
	if def == nil {
		c.bad(path, "the schema has no type %s", t.NamedType)
		return
	}
	switch def.Kind {
	case ast.Object, ast.Interface, ast.Union:
		c.object(path, v, def, set)
	case ast.Enum:
		s, ok := v.(string)
		if !ok || def.EnumValues.ForName(s) == nil {
			c.bad(path, "expected a value of the enum %s, got %s", def.Name, short(v))
		}
	case ast.Scalar:
		if why := scalar(def.Name, v); why != "" {
			c.bad(path, "%s", why)
		}
	}
}

// scalar checks a value of a built-in scalar, and of DateTime (an ISO
// 8601 date-time string); the vendor's other scalars take any value.
func scalar(name string, v any) string {
	switch name {
	case "String", "ID":
		if _, ok := v.(string); !ok {
			return fmt.Sprintf("expected %s (a string), got %s", name, short(v))
		}
	case "Boolean":
		if _, ok := v.(bool); !ok {
			return "expected Boolean, got " + short(v)
		}
	case "Int":
		n, ok := v.(json.Number)
		i, err := n.Int64()
		if !ok || err != nil || i < math.MinInt32 || i > math.MaxInt32 {
			return "expected Int (32 bits), got " + short(v)
		}
	case "Float":
		n, ok := v.(json.Number)
		if _, err := n.Float64(); !ok || err != nil {
			return "expected Float, got " + short(v)
		}
	case "DateTime":
		s, ok := v.(string)
		if _, err := time.Parse(time.RFC3339Nano, s); !ok || err != nil {
			return "expected DateTime (an ISO 8601 date-time), got " + short(v)
		}
	}
	return ""
}

// request is a GraphQL request body.
type request struct {
	Query         string         `json:"query"`
	OperationName string         `json:"operationName"`
	Variables     map[string]any `json:"variables"`
}

// checkHTTP checks a GraphQL exchange: a POST of a JSON request to the
// endpoint, and its answer.
func (s *Schema) checkHTTP(e exchange) []string {
	u := *e.url
	u.RawQuery = ""
	if e.method != "POST" || u.String() != s.endpoint {
		return []string{fmt.Sprintf("%s %s: the API takes POST %s", e.method, u.String(), s.endpoint)}
	}
	var req request
	if err := json.Unmarshal(e.reqBody, &req); err != nil || req.Query == "" {
		return []string{"request body: not a GraphQL request (want {\"query\": …})"}
	}
	op, problems := s.checkRequest(req.Query, req.OperationName, req.Variables)
	name := "query"
	if op != nil && op.Name != "" {
		name = string(op.Operation) + " " + op.Name
	}
	for i := range problems {
		problems[i] = name + ": " + problems[i]
	}
	if op == nil {
		return problems
	}
	if ct := e.respHeader.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") && !strings.HasPrefix(ct, "application/graphql-response+json") {
		return append(problems, fmt.Sprintf("%s: response %d: Content-Type %q, not JSON", name, e.status, ct))
	}
	for _, p := range s.checkResponse(op, req.Variables, e.respBody) {
		problems = append(problems, fmt.Sprintf("%s: %d %s", name, e.status, p))
	}
	return problems
}

// CheckExchange validates one recorded exchange: the request's query and
// variables against the schema and the answer against the query.
func (s *Schema) CheckExchange(ex fixture.Exchange) []string {
	e, err := fromFixture(ex)
	if err != nil {
		return []string{err.Error()}
	}
	return s.checkHTTP(e)
}

// ValidateFixture validates every exchange of f, failing t for each
// problem the vendor's allow list does not allow.
func (s *Schema) ValidateFixture(t testing.TB, f fixture.File) {
	t.Helper()
	reportFixture(t, s.allow, f, func(ex fixture.Exchange) ([]string, []string) { return s.CheckExchange(ex), nil })
}

// ValidateFixtures validates every fixture of dir, each in a subtest.
func (s *Schema) ValidateFixtures(t *testing.T, dir string) {
	t.Helper()
	reportFixtures(t, s.allow, fixture.LoadDir(t, dir), s.ValidateFixture)
}

// Transport returns a RoundTripper that validates every exchange it
// carries to next (see Description.Transport); requests to fakeBase count
// as sent to the endpoint.
func (s *Schema) Transport(t testing.TB, next http.RoundTripper, fakeBase string) http.RoundTripper {
	return &checkingTransport{t: t, next: next, fake: strings.TrimSuffix(fakeBase, "/"), root: s.endpoint, check: s.checkHTTP}
}
