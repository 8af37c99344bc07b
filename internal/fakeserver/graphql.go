package fakeserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
)

// GraphQL is the server half of a vendor's GraphQL API, for a fake: it
// reads a request as a GraphQL server does (a POST of {query, variables,
// operationName}), refuses what the vendor's schema refuses (a query that
// does not parse or validate, variables of the wrong type) with the errors
// a server sends, and answers each root field of the operation with the
// Go data the fake's resolver returns, shaped by the field's selection set:
// only the fields the query selects, under their aliases, in its order.
// The fake keeps its records as Go data (maps, slices, scalars) and
// supplies only its vendor's root fields and quirks. It is safe for
// concurrent use; the schema is only read.
type GraphQL struct {
	// Schema is the vendor's schema (gqlparser.LoadSchema).
	Schema *ast.Schema
	// Code is the extensions.code of a query the schema refuses
	// ("GRAPHQL_VALIDATION_FAILED", as Apollo servers answer).
	Code string
}

// GraphQLError is one error of a GraphQL answer's errors[]: a message and
// the vendor's extensions (its code, and what else it sends). A resolver
// returns one to fail its field.
type GraphQLError struct {
	Message    string         `json:"message"`
	Path       []any          `json:"path,omitempty"`
	Extensions map[string]any `json:"extensions,omitempty"`
}

// Error implements error.
func (e *GraphQLError) Error() string { return e.Message }

// GraphQLCall is one validated GraphQL request.
type GraphQLCall struct {
	g *GraphQL
	// Op is the operation the request runs.
	Op *ast.OperationDefinition
	// Vars are its variables, coerced to their declared types.
	Vars map[string]any
	doc  *ast.QueryDocument
}

// Parse reads a request body and validates it against the schema. A body
// that is not a GraphQL request, a query that does not parse or does not
// validate, and variables that do not fit their declarations are the
// errors a server answers with 400 (each with the extensions.code Code).
func (g *GraphQL) Parse(body []byte) (*GraphQLCall, []*GraphQLError) {
	var req struct {
		Query         string         `json:"query"`
		Variables     map[string]any `json:"variables"`
		OperationName string         `json:"operationName"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.Query == "" {
		return nil, g.refused(errors.New("POST body sent invalid JSON or no query"))
	}
	doc, err := parser.ParseQuery(&ast.Source{Input: req.Query})
	if err != nil {
		return nil, g.refused(err)
	}
	if errs := validator.ValidateWithRules(g.Schema, doc, nil); len(errs) > 0 {
		out := make([]*GraphQLError, len(errs))
		for i, e := range errs {
			out[i] = g.refused(e)[0]
		}
		return nil, out
	}
	var op *ast.OperationDefinition
	switch {
	case req.OperationName != "":
		op = doc.Operations.ForName(req.OperationName)
	case len(doc.Operations) == 1:
		op = doc.Operations[0]
	}
	if op == nil {
		return nil, g.refused(fmt.Errorf("unknown operation %q; name one of the document's operations in operationName", req.OperationName))
	}
	vars, err := validator.VariableValues(g.Schema, op, req.Variables)
	if err != nil {
		return nil, g.refused(err)
	}
	for _, d := range op.VariableDefinitions {
		// An Int variable is an int64, as an Int literal is.
		if f, ok := vars[d.Variable].(float64); ok && d.Type.NamedType == "Int" {
			vars[d.Variable] = int64(f)
		}
	}
	return &GraphQLCall{g: g, Op: op, Vars: vars, doc: doc}, nil
}

func (g *GraphQL) refused(err error) []*GraphQLError {
	e := &GraphQLError{Message: err.Error(), Extensions: map[string]any{"code": g.Code}}
	var ge *gqlerror.Error
	if errors.As(err, &ge) {
		e.Message = ge.Message
		if len(ge.Path) > 0 { // a variable's: say which
			e.Message = ge.Path.String() + ": " + ge.Message
		}
	}
	return []*GraphQLError{e}
}

// Fields returns the root fields the operation selects (fragments on the
// root type expanded, @skip and @include applied).
func (c *GraphQLCall) Fields() []*ast.Field {
	var out []*ast.Field
	c.collect(c.Op.SelectionSet, "", &out)
	return out
}

// collect appends the fields of set that apply to an object of type
// typeName ("" for the root).
func (c *GraphQLCall) collect(set ast.SelectionSet, typeName string, out *[]*ast.Field) {
	for _, s := range set {
		switch s := s.(type) {
		case *ast.Field:
			if c.included(s.Directives) {
				*out = append(*out, s)
			}
		case *ast.InlineFragment:
			if c.included(s.Directives) && c.applies(s.TypeCondition, typeName) {
				c.collect(s.SelectionSet, typeName, out)
			}
		case *ast.FragmentSpread:
			if c.included(s.Directives) && s.Definition != nil && c.applies(s.Definition.TypeCondition, typeName) {
				c.collect(s.Definition.SelectionSet, typeName, out)
			}
		}
	}
}

func (c *GraphQLCall) included(ds ast.DirectiveList) bool {
	if d := ds.ForName("skip"); d != nil && d.ArgumentMap(c.Vars)["if"] == true {
		return false
	}
	if d := ds.ForName("include"); d != nil && d.ArgumentMap(c.Vars)["if"] == false {
		return false
	}
	return true
}

// applies reports whether a fragment on cond applies to an object of type
// typeName.
func (c *GraphQLCall) applies(cond, typeName string) bool {
	if cond == "" || typeName == "" || cond == typeName {
		return true
	}
	def := c.g.Schema.Types[cond]
	if def == nil {
		return false
	}
	for _, p := range c.g.Schema.GetPossibleTypes(def) {
		if p.Name == typeName {
			return true
		}
	}
	return false
}

// Args returns a field's arguments, the call's variables applied and
// defaults filled in. An Int argument is an int64; numbers inside input
// objects are float64, as JSON decodes them.
func (c *GraphQLCall) Args(f *ast.Field) map[string]any { return f.ArgumentMap(c.Vars) }

// Answer runs the operation: each root field is resolved by resolve, and
// its value written as the field's selection set selects it. A resolver
// error fails its field (null, with the error in errors[]; a non-null
// root field makes data null, as GraphQL's null propagation does). It
// returns the answer's JSON body and the errors the resolvers returned.
//
// Values are Go data: map[string]any for an object (a "__typename"
// member gives an abstract field's concrete type), slices for lists,
// scalars (strings, numbers, bools, time.Time, nil), a func() any
// computed when the field is selected, and a func(args map[string]any)
// any for a field with arguments (a nested connection). A field the data
// does not hold is null.
func (c *GraphQLCall) Answer(resolve func(f *ast.Field, args map[string]any) (any, error)) ([]byte, []*GraphQLError) {
	var errs []*GraphQLError
	var b bytes.Buffer
	b.WriteString(`{"data":{`)
	null := false
	for i, f := range c.Fields() {
		v, err := c.resolveRoot(f, resolve)
		if err != nil {
			ge := &GraphQLError{Message: err.Error()}
			if !errors.As(err, &ge) {
				ge.Extensions = map[string]any{"code": "INTERNAL_SERVER_ERROR"}
			}
			e := *ge
			e.Path = []any{f.Alias}
			errs = append(errs, &e)
			null = null || (f.Definition != nil && f.Definition.Type.NonNull)
			v = nil
		}
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(&b, f.Alias)
		b.WriteByte(':')
		c.write(&b, f, v)
	}
	b.WriteString("}")
	if null {
		b.Reset()
		b.WriteString(`{"data":null`)
	}
	if len(errs) > 0 {
		e, _ := json.Marshal(errs)
		b.WriteString(`,"errors":`)
		b.Write(e)
	}
	b.WriteByte('}')
	return b.Bytes(), errs
}

// resolveRoot calls resolve, turning a panic into an error (a fake's bug
// is an answer, not a dropped connection).
func (c *GraphQLCall) resolveRoot(f *ast.Field, resolve func(*ast.Field, map[string]any) (any, error)) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("internal error resolving %s: %v", f.Name, r)
		}
	}()
	return resolve(f, c.Args(f))
}

// write writes v as field f selects it.
func (c *GraphQLCall) write(b *bytes.Buffer, f *ast.Field, v any) {
	switch x := v.(type) {
	case func() any:
		v = x()
	case func(map[string]any) any:
		v = x(c.Args(f))
	}
	if v == nil {
		b.WriteString("null")
		return
	}
	if len(f.SelectionSet) == 0 {
		writeScalar(b, v)
		return
	}
	if m, ok := v.(map[string]any); ok {
		c.writeObject(b, f, m)
		return
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice {
		b.WriteString("null") // a scalar where the schema has an object
		return
	}
	b.WriteByte('[')
	for i := range rv.Len() {
		if i > 0 {
			b.WriteByte(',')
		}
		c.write(b, f, rv.Index(i).Interface())
	}
	b.WriteByte(']')
}

func (c *GraphQLCall) writeObject(b *bytes.Buffer, f *ast.Field, m map[string]any) {
	typeName, _ := m["__typename"].(string)
	if typeName == "" && f.Definition != nil {
		typeName = f.Definition.Type.Name()
	}
	var fields []*ast.Field
	c.collect(f.SelectionSet, typeName, &fields)
	b.WriteByte('{')
	for i, sf := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(b, sf.Alias)
		b.WriteByte(':')
		if sf.Name == "__typename" {
			writeString(b, typeName)
			continue
		}
		c.write(b, sf, m[sf.Name])
	}
	b.WriteByte('}')
}

func writeString(b *bytes.Buffer, s string) {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			e, _ := json.Marshal(s)
			b.Write(e)
			return
		}
	}
	b.WriteByte('"')
	b.WriteString(s)
	b.WriteByte('"')
}

func writeScalar(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case string:
		writeString(b, x)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(strconv.FormatFloat(x, 'f', -1, 64))
	case time.Time:
		writeString(b, x.UTC().Format("2006-01-02T15:04:05.000Z"))
	default:
		e, err := json.Marshal(v)
		if err != nil {
			b.WriteString("null")
			return
		}
		b.Write(e)
	}
}
