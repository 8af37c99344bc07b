package tributary

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tributary-dev/tributary/internal/scalar"
	"github.com/tributary-dev/tributary/internal/suggest"
	"github.com/tributary-dev/tributary/pagination"
)

// Type is the type of a parameter or a searchable field.
type Type string

// The types of the catalogue.
const (
	TypeString  Type = "string"
	TypeInteger Type = "integer"
	TypeNumber  Type = "number"
	TypeBoolean Type = "boolean"
	TypeArray   Type = "array"
	TypeObject  Type = "object"
	// TypeAny accepts any JSON value (searchable fields typed "obj|any").
	TypeAny Type = "any"
	// TypeDateTime is a searchable field whose values are RFC 3339
	// date-time strings (2024-01-31T08:00:00Z): a search compares them as
	// instants and refuses a comparison with a value that is not one.
	// Date-times the source sends as Unix integers stay TypeInteger.
	TypeDateTime Type = "date-time"
)

// Param describes one parameter of an action.
type Param struct {
	Name     string
	Type     Type
	Required bool
	// Enum lists the allowed values (of the value, or of each element of an
	// array), as strings.
	Enum []string
	// Default is the value the source assumes when the parameter is omitted
	// (documentation only: the library never sends defaults on its own).
	Default any
	// Min and Max bound integer and number values when set.
	Min, Max *float64
	// Items describes the elements of an array parameter.
	Items *Param
	// Fields describes the members of an object parameter; nil allows any.
	Fields []Param
	// Doc says what the parameter is for.
	Doc string
	// PageSize marks the list parameter that sets how many records a page
	// holds (Mailchimp's count, default 10): a copy sets it to Max when
	// the caller does not (Entity.CopyParams), so that a walk takes the
	// fewest requests the source allows.
	PageSize bool
}

// Field is a searchable field of an entity, for the `search` action.
type Field struct {
	Name string
	Type Type
	Doc  string
}

// Entity describes one entity of a kind's catalogue.
type Entity struct {
	// Name is the entity's name in operations (lower snake_case).
	Name string
	// Doc says what the entity is.
	Doc string
	// Actions lists the actions the entity offers, in the catalogue's order.
	Actions []Action
	// Params holds the parameters of each action.
	Params map[Action][]Param
	// Searchable lists the fields the `search` action can filter and sort on.
	Searchable []Field
	// IDField is the dot path of a record's id, where it is neither "id"
	// nor "Id" (Gong's scorecards: scorecardId; a Gong call in
	// calls/extensive: metaData.id). A copy keys its records by it; empty:
	// "id", else "Id", else the first searchable field.
	IDField string
	// Paging is the paging style of each paged action (list, api_search),
	// so that any client of the contract, direct or hosted, derives the
	// same Next params from the same Meta.
	Paging map[Action]pagination.Style `json:"-"`
	// Rules are checks across parameters, or of a value against the entity
	// (a record id's prefix), run by Validate after each parameter's own
	// checks, so direct and hosted mode refuse the same operations. A rule
	// gets the normalized params and returns the offending parameter and
	// why, or "" when they pass.
	Rules map[Action]func(p Params) (param, reason string) `json:"-"`
	// Feed is the entity's change feed, nil when the source offers none:
	// a copy of the entity is then kept current by full walks, which find
	// deletions by difference.
	Feed *Feed `json:"-"`
	// Scope says how a complete copy of the entity is built when its list
	// needs params the caller did not give (Salesforce's SOQL), nil when
	// it needs none or cannot be copied without them.
	Scope *Scope `json:"-"`
}

// Supports reports whether the entity offers action a.
func (e Entity) Supports(a Action) bool { return slices.Contains(e.Actions, a) }

// Param returns the parameter name of action a.
func (e Entity) Param(a Action, name string) (Param, bool) {
	for _, p := range e.Params[a] {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// allActions are the actions of the contract.
var allActions = []Action{ActionList, ActionGet, ActionSearch, ActionAPISearch, ActionDownload}

// SearchParams are the parameters of every `search` action (the contract's
// common search parameters).
var searchParams = []Param{
	{Name: "query", Type: TypeObject, Required: true, Doc: "filter and sort conditions", Fields: []Param{
		{Name: "filter", Type: TypeObject, Doc: "filter conditions, {<operator>: {<field>: <value>}}"},
		{Name: "sort", Type: TypeArray, Doc: `sort conditions, each {"<field>": "asc"|"desc"}`},
	}},
	{Name: "limit", Type: TypeInteger, Default: 1000, Min: ptr(1), Doc: "maximum results"},
	{Name: "cursor", Type: TypeString, Doc: "next_cursor of the previous result"},
	{Name: "fields", Type: TypeArray, Doc: "field paths to include in each result (dot paths, or arrays of keys)"},
}

// SearchParams returns the parameters every `search` action takes.
func SearchParams() []Param { return slices.Clone(searchParams) }

func ptr(f float64) *float64 { return &f }

// Bound returns a pointer to f, for Param.Min and Param.Max.
func Bound(f float64) *float64 { return &f }

// FindEntity returns the entity called name from a catalogue.
func FindEntity(entities []Entity, name string) (Entity, bool) {
	for _, e := range entities {
		if e.Name == name {
			return e, true
		}
	}
	return Entity{}, false
}

// Validate checks an operation against a catalogue before anything is sent
// and returns the params in normal form: dotted keys ("filter.callIds")
// expanded into nested objects, integers as int64, numbers as float64,
// arrays as []any. Where the catalogue says integer or boolean, a string
// that spells one exactly is accepted too ("7253394935055", "true": callers
// holding operations as JSON send ids that way) and normalized to the
// int64 or bool. The input is not modified. Failures are *Error values
// naming the kind, entity, action and parameter, matching ErrUnknownEntity,
// ErrUnsupportedAction or ErrInvalidParams; an unknown name comes with the
// nearest valid one when one is close (did you mean "tickets"?).
func Validate(kind string, entities []Entity, entity string, a Action, p Params) (Params, error) {
	e, ok := FindEntity(entities, entity)
	if !ok {
		names := make([]string, 0, len(entities))
		for _, x := range entities {
			names = append(names, x.Name)
		}
		return nil, &Error{Kind: kind, Entity: entity, Action: a, Err: ErrUnknownEntity,
			Message: fmt.Sprintf("%s has no entity %q%s (entities: %s)", kind, entity, suggest.Hint(entity, names), strings.Join(names, ", "))}
	}
	if !e.Supports(a) {
		acts := make([]string, len(e.Actions))
		for i, x := range e.Actions {
			acts[i] = string(x)
		}
		msg := fmt.Sprintf("%s offers %s", entity, strings.Join(acts, ", "))
		if !slices.Contains(allActions, a) {
			msg = fmt.Sprintf("there is no action %q%s (%s)", a, suggest.Hint(string(a), acts), msg)
		}
		return nil, &Error{Kind: kind, Entity: entity, Action: a, Err: ErrUnsupportedAction, Message: msg}
	}
	decl := e.Params[a]
	if a == ActionSearch && decl == nil {
		decl = searchParams
	}
	nested, err := expandDots(p)
	if err != nil {
		return nil, paramError(kind, entity, a, err.param, "%s", err.msg)
	}
	out, verr := validateObject(decl, nested, "")
	if verr != nil {
		return nil, paramError(kind, entity, a, verr.param, "%s", verr.msg)
	}
	if rule := e.Rules[a]; rule != nil {
		if param, reason := rule(out); param != "" {
			return nil, paramError(kind, entity, a, param, "%s", reason)
		}
	}
	return out, nil
}

type vErr struct{ param, msg string }

// expandDots turns {"filter.callIds": x} into {"filter": {"callIds": x}}.
func expandDots(p Params) (map[string]any, *vErr) {
	out := make(map[string]any, len(p))
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys) // deterministic conflict reports
	for _, k := range keys {
		v := p[k]
		if !strings.Contains(k, ".") {
			if m, ok := asMap(v); ok {
				if prev, ok := out[k].(map[string]any); ok {
					for mk, mv := range m {
						if _, dup := prev[mk]; dup {
							return nil, &vErr{k + "." + mk, "given twice"}
						}
						prev[mk] = mv
					}
					continue
				}
				out[k] = cloneMap(m)
				continue
			}
			if _, dup := out[k]; dup {
				return nil, &vErr{k, "given twice"}
			}
			out[k] = v
			continue
		}
		parts := strings.Split(k, ".")
		cur := out
		for i, part := range parts {
			if part == "" {
				return nil, &vErr{k, "empty path segment"}
			}
			if i == len(parts)-1 {
				if _, dup := cur[part]; dup {
					return nil, &vErr{k, "given twice"}
				}
				cur[part] = v
				break
			}
			next, exists := cur[part]
			if !exists {
				m := map[string]any{}
				cur[part] = m
				cur = m
				continue
			}
			m, ok := next.(map[string]any)
			if !ok {
				return nil, &vErr{k, "conflicts with " + strings.Join(parts[:i+1], ".")}
			}
			cur = m
		}
	}
	return out, nil
}

func cloneMap(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		if mm, ok := asMap(v); ok {
			v = cloneMap(mm)
		}
		c[k] = v
	}
	return c
}

func asMap(v any) (map[string]any, bool) {
	switch m := v.(type) {
	case map[string]any:
		return m, true
	case Params:
		return map[string]any(m), true
	}
	return nil, false
}

func validateObject(decl []Param, in map[string]any, prefix string) (map[string]any, *vErr) {
	out := make(map[string]any, len(in))
	for _, d := range decl {
		v, present := in[d.Name]
		if !present || v == nil {
			if d.Required {
				return nil, &vErr{prefix + d.Name, "is required" + describe(d)}
			}
			continue
		}
		nv, err := validateValue(d, v, prefix+d.Name)
		if err != nil {
			return nil, err
		}
		out[d.Name] = nv
	}
	if len(out) != len(in) {
		var unknown []string
		for k, v := range in {
			if _, ok := out[k]; !ok && !(v == nil && declared(decl, k)) {
				unknown = append(unknown, k)
			}
		}
		if len(unknown) > 0 {
			sort.Strings(unknown)
			names := make([]string, len(decl))
			for i, d := range decl {
				names[i] = d.Name
			}
			accepted := "none"
			if len(names) > 0 {
				accepted = strings.Join(names, ", ")
			}
			name := unknown[0]
			if name == "" {
				name = `""` // an empty key still gets a name in the error
			}
			return nil, &vErr{prefix + name, "is not a parameter of this action" + suggest.Hint(unknown[0], names) + " (accepted: " + accepted + ")"}
		}
	}
	return out, nil
}

func declared(decl []Param, name string) bool {
	for _, d := range decl {
		if d.Name == name {
			return true
		}
	}
	return false
}

func describe(d Param) string {
	s := " (" + string(d.Type)
	if len(d.Enum) > 0 {
		s += ", one of " + strings.Join(d.Enum, ", ")
	}
	return s + ")"
}

func validateValue(d Param, v any, name string) (any, *vErr) {
	switch d.Type {
	case TypeString:
		s, ok := v.(string)
		if !ok {
			return nil, &vErr{name, fmt.Sprintf("must be a string, got %s", gotValue(name, v))}
		}
		if len(d.Enum) > 0 && !slices.Contains(d.Enum, s) {
			return nil, &vErr{name, fmt.Sprintf("%q is not one of %s", s, strings.Join(d.Enum, ", "))}
		}
		return s, nil
	case TypeInteger:
		n, ok := toInt(v)
		if s, isStr := v.(string); isStr {
			var err error
			n, err = scalar.Int(s)
			if errors.Is(err, scalar.ErrRange) {
				return nil, &vErr{name, fmt.Sprintf("%s is out of the integer range", quoteShort(s))}
			}
			ok = err == nil
		}
		if !ok {
			return nil, &vErr{name, fmt.Sprintf("must be an integer, got %s", gotValue(name, v))}
		}
		if d.Min != nil && float64(n) < *d.Min {
			return nil, &vErr{name, fmt.Sprintf("%d is below the minimum %v", n, *d.Min)}
		}
		if d.Max != nil && float64(n) > *d.Max {
			return nil, &vErr{name, fmt.Sprintf("%d is above the maximum %v", n, *d.Max)}
		}
		if len(d.Enum) > 0 && !slices.Contains(d.Enum, strconv.FormatInt(n, 10)) {
			return nil, &vErr{name, fmt.Sprintf("%d is not one of %s", n, strings.Join(d.Enum, ", "))}
		}
		return n, nil
	case TypeNumber:
		f, ok := toFloat(v)
		if !ok {
			return nil, &vErr{name, fmt.Sprintf("must be a number, got %s", gotValue(name, v))}
		}
		if d.Min != nil && f < *d.Min {
			return nil, &vErr{name, fmt.Sprintf("%v is below the minimum %v", f, *d.Min)}
		}
		if d.Max != nil && f > *d.Max {
			return nil, &vErr{name, fmt.Sprintf("%v is above the maximum %v", f, *d.Max)}
		}
		return f, nil
	case TypeBoolean:
		b, ok := v.(bool)
		if s, isStr := v.(string); isStr {
			b, ok = scalar.Bool(s)
		}
		if !ok {
			return nil, &vErr{name, fmt.Sprintf("must be a boolean, got %s", gotValue(name, v))}
		}
		return b, nil
	case TypeArray:
		elems, ok := toSlice(v)
		if !ok {
			return nil, &vErr{name, fmt.Sprintf("must be an array, got %s", gotValue(name, v))}
		}
		if d.Min != nil && float64(len(elems)) < *d.Min {
			return nil, &vErr{name, fmt.Sprintf("needs at least %v elements, got %d", *d.Min, len(elems))}
		}
		if d.Max != nil && float64(len(elems)) > *d.Max {
			return nil, &vErr{name, fmt.Sprintf("takes at most %v elements, got %d", *d.Max, len(elems))}
		}
		item := Param{Type: TypeAny}
		if d.Items != nil {
			item = *d.Items
		}
		if len(d.Enum) > 0 && len(item.Enum) == 0 {
			item.Enum = d.Enum
			if item.Type == TypeAny {
				item.Type = TypeString
			}
		}
		out := make([]any, len(elems))
		for i, e := range elems {
			nv, err := validateValue(item, e, fmt.Sprintf("%s[%d]", name, i))
			if err != nil {
				return nil, err
			}
			out[i] = nv
		}
		return out, nil
	case TypeObject:
		m, ok := asMap(v)
		if !ok {
			if raw, isRaw := v.(json.RawMessage); isRaw {
				var mm map[string]any
				if json.Unmarshal(raw, &mm) == nil {
					m, ok = mm, true
				}
			}
		}
		if !ok {
			return nil, &vErr{name, fmt.Sprintf("must be an object, got %s", gotValue(name, v))}
		}
		if d.Fields == nil {
			return normalizeAny(m), nil
		}
		return validateObject(d.Fields, m, name+".")
	default: // TypeAny
		return normalizeAny(v), nil
	}
}

// normalizeAny converts Go values to the JSON normal form used in Params.
func normalizeAny(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalizeAny(e)
		}
		return out
	case Params:
		return normalizeAny(map[string]any(x))
	}
	if n, ok := toInt(v); ok {
		return n
	}
	if f, ok := toFloat(v); ok {
		return f
	}
	if s, ok := toSlice(v); ok {
		out := make([]any, len(s))
		for i, e := range s {
			out[i] = normalizeAny(e)
		}
		return out
	}
	return v
}

func toInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int8:
		return int64(n), true
	case int16:
		return int64(n), true
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case uint:
		return int64(n), n <= math.MaxInt64
	case uint8:
		return int64(n), true
	case uint16:
		return int64(n), true
	case uint32:
		return int64(n), true
	case uint64:
		return int64(n), n <= math.MaxInt64
	case float64:
		if n == math.Trunc(n) && math.Abs(n) <= 1<<53 {
			return int64(n), true
		}
	case float32:
		f := float64(n)
		if f == math.Trunc(f) && math.Abs(f) <= 1<<24 {
			return int64(f), true
		}
	case json.Number:
		if i, err := n.Int64(); err == nil {
			return i, true
		}
	}
	return 0, false
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, !math.IsNaN(n) && !math.IsInf(n, 0)
	case float32:
		f := float64(n)
		return f, !math.IsNaN(f) && !math.IsInf(f, 0)
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	if i, ok := toInt(v); ok {
		return float64(i), true
	}
	return 0, false
}

func toSlice(v any) ([]any, bool) {
	switch s := v.(type) {
	case []any:
		return s, true
	case []string:
		out := make([]any, len(s))
		for i, e := range s {
			out[i] = e
		}
		return out, true
	case nil:
		return nil, false
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return nil, false
	}
	if rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8 {
		return nil, false // []byte is not a JSON array
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out, true
}

func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	if _, ok := toInt(v); ok {
		return "an integer"
	}
	if _, ok := toFloat(v); ok {
		return "a number"
	}
	if _, ok := asMap(v); ok {
		return "an object"
	}
	if _, ok := toSlice(v); ok {
		return "an array"
	}
	return fmt.Sprintf("a Go %T", v)
}

// secretish are the parts of a parameter name whose value a validation
// error never echoes.
var secretish = []string{"token", "secret", "password", "passwd", "key", "credential", "auth", "signature"}

// gotValue describes a value that has the wrong type, for a validation
// error: its JSON kind and, unless the parameter's name suggests a secret,
// the value itself, cut short (`a string "ten"`).
func gotValue(name string, v any) string {
	kind := jsonKind(v)
	if v == nil {
		return kind
	}
	lname := strings.ToLower(name)
	for _, s := range secretish {
		if strings.Contains(lname, s) {
			return kind
		}
	}
	if str, ok := v.(string); ok {
		return kind + " " + quoteShort(str)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return kind
	}
	if len(b) > 40 {
		return kind + " " + string(b[:40]) + "…"
	}
	return kind + " " + string(b)
}

// quoteShort quotes s for an error message, cut to 40 bytes.
func quoteShort(s string) string {
	if len(s) > 40 {
		return strconv.Quote(s[:40]) + "…"
	}
	return strconv.Quote(s)
}
