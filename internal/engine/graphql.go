package engine

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// Selection returns the GraphQL selection set that asks a source for every
// field of a typed record, so that the record type is the one statement of
// the fields a kind reads (a GraphQL kind's queries are built from it): each
// exported field with a json tag is selected under its JSON name; a field
// whose type is a struct (through pointers, slices and arrays) is selected
// with the selection of that struct, except types that decode themselves
// (json.Unmarshaler, encoding.TextUnmarshaler: time.Time); maps, interfaces
// and json.RawMessage are scalars (a JSON scalar of the source). Embedded
// structs without a json tag add their fields. A field tagged
// `graphql:"-"` is not selected (one the client sets itself).
//
//	Selection(Issue{}) == "id title team { id key } labelIds"
//
// A record type that contains itself (through any path) is a programming
// error: Selection panics, naming it.
func Selection(record any) string { return selection(reflect.TypeOf(record), nil) }

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// object returns the struct type whose fields t's value is selected by,
// or nil when t is a scalar.
func object(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return nil // json.RawMessage, []byte
		}
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t.Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(jsonUnmarshaler) ||
		t.Implements(textUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return nil
	}
	return t
}

func selection(t reflect.Type, stack []reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for _, s := range stack {
		if s == t {
			panic(fmt.Sprintf("engine.Selection: %s contains itself; select a smaller type in its place", t))
		}
	}
	stack = append(stack, t)
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag, hasTag := f.Tag.Lookup("json")
		if et := f.Type; f.Anonymous && !hasTag && (et.Kind() == reflect.Struct || (et.Kind() == reflect.Pointer && et.Elem().Kind() == reflect.Struct)) {
			if s := selection(et, stack); s != "" {
				out = append(out, s)
			}
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" || name == "-" || !f.IsExported() || f.Tag.Get("graphql") == "-" {
			continue
		}
		if sub := object(f.Type); sub != nil {
			name += " { " + selection(sub, stack) + " }"
		}
		out = append(out, name)
	}
	return strings.Join(out, " ")
}

// GraphQLVar is a variable of a query built by GraphQLQuery: the param's
// name on the wire and its GraphQL type ("Int", "String!", "IssueFilter").
type GraphQLVar struct {
	Name, Type string
}

// GraphQLQuery returns the text of a query named op that reads one field
// of the source's root query type, every variable passed to the field as
// the argument of the same name, and body as the field's selection set:
//
//	GraphQLQuery("Issue", "issue", []GraphQLVar{{"id", "String!"}}, "id title")
//	  == "query Issue($id: String!) { issue(id: $id) { id title } }"
//
// A catalogue row's query (Route.GraphQL) is data built once, when the
// catalogue is; RelayNodes gives the body of a connection.
func GraphQLQuery(op, field string, vars []GraphQLVar, body string) string {
	decl := make([]string, len(vars))
	args := make([]string, len(vars))
	for i, v := range vars {
		decl[i] = "$" + v.Name + ": " + v.Type
		args[i] = v.Name + ": $" + v.Name
	}
	q := "query " + op
	if len(vars) > 0 {
		q += "(" + strings.Join(decl, ", ") + ")"
	}
	q += " { " + field
	if len(vars) > 0 {
		q += "(" + strings.Join(args, ", ") + ")"
	}
	return q + " { " + body + " } }"
}

// RelayNodes is the selection of a Relay connection whose records are its
// nodes, selected by selection, with the page information that
// pagination.Relay reads.
func RelayNodes(selection string) string {
	return "nodes { " + selection + " } pageInfo { hasNextPage endCursor }"
}
