package engine

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/tributary-dev/tributary"
)

// FieldsOf lists the JSON fields of a typed record struct as searchable
// fields, typed from their Go types (json.RawMessage is an object), so a
// kind writes its record fields once.
func FieldsOf(record any) []tributary.Field {
	t := reflect.TypeOf(record)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	out := make([]tributary.Field, 0, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
			out = append(out, FieldsOf(reflect.Zero(f.Type).Interface())...)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		out = append(out, tributary.Field{Name: name, Type: typeOf(f.Type)})
	}
	return out
}

func typeOf(t reflect.Type) tributary.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[json.RawMessage]() {
		return tributary.TypeObject
	}
	switch t.Kind() {
	case reflect.String:
		return tributary.TypeString
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return tributary.TypeInteger
	case reflect.Float32, reflect.Float64:
		return tributary.TypeNumber
	case reflect.Bool:
		return tributary.TypeBoolean
	case reflect.Slice, reflect.Array:
		return tributary.TypeArray
	case reflect.Struct, reflect.Map:
		return tributary.TypeObject
	}
	return tributary.TypeAny
}

// MergeFields appends extra to base; an extra field replaces a base field
// of the same name (the catalogue types some searchable fields differently
// from the record).
func MergeFields(base, extra []tributary.Field) []tributary.Field {
	out := append([]tributary.Field(nil), base...)
	for _, x := range extra {
		replaced := false
		for i := range out {
			if out[i].Name == x.Name {
				out[i], replaced = x, true
			}
		}
		if !replaced {
			out = append(out, x)
		}
	}
	return out
}

// DateTimes types as date-time, in every entity of es, the searchable
// fields named in names that FieldsOf or the catalogue typed as strings:
// the fields whose values are RFC 3339 date-time strings. A kind lists its
// date-time field names once, after building its entities, whatever
// built their searchable fields; a date-time the source sends as a Unix
// integer keeps its integer type, and a name no entity has as a string
// changes nothing (TestSearchEverySearchableEntity in package hosted
// checks the names against the sandbox's records).
func DateTimes(es []Entity, names ...string) []Entity {
	for i := range es {
		fields := es[i].Searchable
		var out []tributary.Field
		for j, f := range fields {
			if f.Type != tributary.TypeString || !slices.Contains(names, f.Name) {
				continue
			}
			if out == nil {
				out = slices.Clone(fields) // the entity may share its slice
			}
			out[j].Type = tributary.TypeDateTime
		}
		if out != nil {
			es[i].Searchable = out
		}
	}
	return es
}

// NewEntity builds a catalogue entity from its routes by action: its
// actions are those with routes, in the catalogue's order (list, get,
// api_search, download), and, when record is not nil, search, with the
// searchable fields of record's type (FieldsOf) merged with extra. params
// are the actions' parameters; search's are set here.
func NewEntity(name, doc string, record any, routes map[tributary.Action][]Route, params map[tributary.Action][]tributary.Param, extra ...tributary.Field) Entity {
	if params == nil {
		params = map[tributary.Action][]tributary.Param{}
	}
	e := Entity{Entity: tributary.Entity{Name: name, Doc: doc, Params: params}, Routes: routes}
	for _, a := range []tributary.Action{tributary.ActionList, tributary.ActionGet, tributary.ActionAPISearch, tributary.ActionDownload} {
		if routes[a] != nil {
			e.Actions = append(e.Actions, a)
		}
	}
	if record != nil {
		e.Actions = append(e.Actions, tributary.ActionSearch)
		e.Params[tributary.ActionSearch] = tributary.SearchParams()
		e.Searchable = MergeFields(FieldsOf(record), extra)
	}
	return e
}
