package search

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-dev/tributary/internal/scalar"
	"github.com/tributary-dev/tributary/internal/suggest"
)

// ErrInvalidQuery is wrapped by every error about a search request: decoding,
// validation against a Schema, and cursors.
var ErrInvalidQuery = errors.New("search: invalid query")

// Error is an invalid search request. It wraps ErrInvalidQuery.
type Error struct {
	// Field is the field path concerned (a name as Path.String writes it),
	// or the request parameter ("query", "filter", "sort", "limit",
	// "cursor", "fields") when no field is.
	Field string
	// Op is the filter operator concerned, if any.
	Op Op
	// Reason says what is wrong.
	Reason string
}

// Error returns "search: invalid query: <op> on "<field>": <reason>".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("search: invalid query: ")
	switch {
	case e.Op != "" && e.Field != "":
		fmt.Fprintf(&b, "%s on %s: ", e.Op, strconv.Quote(e.Field))
	case e.Op != "":
		fmt.Fprintf(&b, "%s: ", e.Op)
	case e.Field != "":
		fmt.Fprintf(&b, "%s: ", strconv.Quote(e.Field))
	}
	b.WriteString(e.Reason)
	return b.String()
}

// Unwrap returns ErrInvalidQuery.
func (e *Error) Unwrap() error { return ErrInvalidQuery }

// Type is the type of a searchable field, as the connector catalogue gives it.
type Type string

// The eight field types.
const (
	TypeString  Type = "string"
	TypeInteger Type = "integer"
	TypeNumber  Type = "number"
	TypeBoolean Type = "boolean"
	TypeArray   Type = "array"
	TypeObject  Type = "object"
	// TypeAny is any JSON value (the catalogue's "obj|any").
	TypeAny Type = "any"
	// TypeDateTime is a string holding an RFC 3339 date-time: a field
	// condition compares it with an RFC 3339 date-time, or a plain date
	// (2024-01-31, midnight UTC), and refuses any other value.
	TypeDateTime Type = "date-time"
)

func (t Type) valid() bool {
	switch t {
	case TypeString, TypeInteger, TypeNumber, TypeBoolean, TypeArray, TypeObject, TypeAny, TypeDateTime:
		return true
	}
	return false
}

// article returns "a string", "an integer", ….
func (t Type) article() string {
	switch t {
	case TypeInteger, TypeArray, TypeObject, TypeAny:
		return "an " + string(t)
	}
	return "a " + string(t)
}

// Schema maps the searchable fields of an entity, by dot path, to their
// types: Schema{"status": TypeString, "via": TypeObject}. A path below a
// field of type object or any (via.channel) is searchable too and is typed
// any. A nil Schema accepts every field, typed any.
type Schema map[string]Type

// Check reports a field of the schema with an unknown type or a bad name.
func (s Schema) Check() error {
	for name, t := range s {
		if _, err := ParsePath(name); err != nil || strings.HasPrefix(name, "[") {
			return fmt.Errorf("search: schema: bad field name %q", name)
		}
		if !t.valid() {
			return fmt.Errorf("search: schema: field %q has unknown type %q", name, t)
		}
	}
	return nil
}

// typeOf resolves the type of path p: the declared type of the exact path,
// else any below the longest declared prefix of type object or any.
func (s Schema) typeOf(p Path) (Type, error) {
	if s == nil {
		return TypeAny, nil
	}
	name := p.String()
	if p.dotSafe() {
		if t, ok := s[name]; ok {
			if !t.valid() {
				return "", &Error{Field: name, Reason: fmt.Sprintf("the schema gives the unknown type %q", t)}
			}
			return t, nil
		}
	}
	for i := len(p) - 1; i >= 1; i-- {
		if !p[:i].dotSafe() {
			continue
		}
		prefix := strings.Join(p[:i], ".")
		t, ok := s[prefix]
		if !ok {
			continue
		}
		if t == TypeObject || t == TypeAny {
			return TypeAny, nil
		}
		return "", &Error{Field: name, Reason: fmt.Sprintf("%s is %s and has no member %q", prefix, t.article(), p[i])}
	}
	return "", &Error{Field: name, Reason: "unknown field" + suggest.Hint(name, s.names())}
}

// names returns the field names of s, sorted.
func (s Schema) names() []string {
	names := slices.Collect(maps.Keys(s))
	slices.Sort(names)
	return names
}

// Validate checks r against the searchable fields of an entity before
// anything is sent or evaluated: every field is known, every operator fits
// its field's type, every value fits its field, sort directions, fields,
// limit and cursor are well formed, and the cursor was issued for this
// query. Each error is an *Error wrapping ErrInvalidQuery.
func (r *Request) Validate(s Schema) error {
	c := *r // check rewrites its receiver; the caller's request stays as given
	_, err := c.check(s)
	return err
}

// check puts r in canonical form (see Canonical), validates it and returns
// the offset of its cursor. Every runner of requests (Index.Search, a
// store's evaluator) checks its own copy this way, so it runs the values
// it validated.
func (r *Request) check(s Schema) (int, error) {
	*r = r.Canonical(s)
	if r.Query.Filter != nil {
		if err := r.Query.Filter.Validate(s); err != nil {
			return 0, err
		}
	}
	for _, it := range r.Query.Sort {
		if it.err != "" {
			return 0, &Error{Field: "sort", Reason: it.err}
		}
		if err := it.Field.check(); err != nil {
			return 0, &Error{Field: "sort", Reason: "a sort item needs a field"}
		}
		name := it.Field.String()
		if it.Order != OrderAsc && it.Order != OrderDesc {
			return 0, &Error{Field: name, Reason: fmt.Sprintf(`sort direction must be "asc" or "desc", not %q`, string(it.Order))}
		}
		t, err := s.typeOf(it.Field)
		if err != nil {
			return 0, err
		}
		if t == TypeArray || t == TypeObject {
			return 0, &Error{Field: name, Reason: fmt.Sprintf("cannot sort on %s field", t.article())}
		}
	}
	for _, p := range r.Fields {
		if err := p.check(); err != nil {
			return 0, &Error{Field: "fields", Reason: "empty field path"}
		}
		if _, err := s.typeOf(p); err != nil {
			return 0, err
		}
	}
	if r.Limit < 0 {
		return 0, &Error{Field: "limit", Reason: "must be at least 1 (0 means the default, 1000)"}
	}
	if r.Cursor == "" {
		return 0, nil
	}
	h, err := r.Query.hash()
	if err != nil {
		return 0, err
	}
	return decodeCursor(r.Cursor, h)
}

// Validate checks f against a schema (nil: every field, typed any). See
// Request.Validate.
func (f *Filter) Validate(s Schema) error { return validate(f, s, 0) }

func validate(f *Filter, s Schema, depth int) error {
	if depth > maxDepth {
		return &Error{Op: f.Op, Reason: fmt.Sprintf("conditions nested deeper than %d", maxDepth)}
	}
	if f.err != "" {
		return &Error{Op: f.Op, Field: f.fieldName(), Reason: f.err}
	}
	switch {
	case f.Op == OpAnd || f.Op == OpOr:
		for i := range f.Filters {
			if err := validate(&f.Filters[i], s, depth+1); err != nil {
				return err
			}
		}
		return nil
	case f.Op == OpNot:
		if len(f.Filters) != 1 {
			return &Error{Op: f.Op, Reason: "takes exactly one condition"}
		}
		return validate(&f.Filters[0], s, depth+1)
	case f.Op.fieldOp():
		if err := f.Field.check(); err != nil {
			return &Error{Op: f.Op, Reason: "needs a field"}
		}
		t, err := s.typeOf(f.Field)
		if err != nil {
			e := err.(*Error)
			e.Op = f.Op
			return e
		}
		if err := checkType(f, t); err != nil {
			return err
		}
		if err := checkValues(f); err != nil {
			return err
		}
		if f.Op == OpAny {
			if len(f.Filters) != 1 {
				return &Error{Op: f.Op, Field: f.fieldName(), Reason: "takes exactly one condition"}
			}
			// The catalogue does not type array elements: paths inside
			// any are relative to the element and typed any.
			return validate(&f.Filters[0], nil, depth+1)
		}
		return nil
	}
	return unknownOperator(f.Op)
}

// checkType checks that f's operator applies to a field of type t and that
// its value fits t.
func checkType(f *Filter, t Type) error {
	bad := func(format string, a ...any) error {
		return &Error{Op: f.Op, Field: f.fieldName(), Reason: fmt.Sprintf(format, a...)}
	}
	switch f.Op {
	case OpEq, OpNeq, OpIn, OpGt, OpGte, OpLt, OpLte:
		switch t {
		case TypeArray:
			return bad("the field is an array; use contains or any")
		case TypeObject:
			return bad("the field is an object; compare one of its members with a dot path")
		case TypeBoolean:
			if f.Op != OpEq && f.Op != OpNeq && f.Op != OpIn {
				return bad("the field is a boolean and has no order")
			}
		}
		vals := f.Values
		if f.Op != OpIn {
			vals = []Value{f.Value}
		}
		for _, v := range vals {
			if err := fits(f, t, v); err != nil {
				return err
			}
		}
	case OpLike, OpFuzzy, OpKeyword:
		if t != TypeString && t != TypeAny && t != TypeDateTime {
			return bad("%s applies to string fields; the field is %s", f.Op, t.article())
		}
	case OpContains, OpAny:
		if t != TypeArray && t != TypeAny {
			return bad("%s applies to array fields; the field is %s", f.Op, t.article())
		}
	}
	return nil
}

// fits checks a comparison value against the field type t.
func fits(f *Filter, t Type, v Value) error {
	n := &v.n
	if n.k == kNull || n.k == kMissing {
		return nil // presence tests; ordered operators refuse null in checkValues
	}
	bad := func(what string) error {
		return &Error{Op: f.Op, Field: f.fieldName(), Reason: fmt.Sprintf("the field is %s; the value %s %s", t.article(), v.describe(), what)}
	}
	switch t {
	case TypeString:
		if n.k != kStr {
			return bad("is " + kindArticle(n.k))
		}
	case TypeDateTime:
		if n.k != kStr || n.f&fTime == 0 && !isDate(n.s) {
			return &Error{Op: f.Op, Field: f.fieldName(), Reason: fmt.Sprintf("%s is a date-time: %s is not RFC 3339 (e.g. 2024-01-31T00:00:00Z)", f.fieldName(), v.describe())}
		}
	case TypeInteger:
		if n.k == kStr {
			if _, err := scalar.Int(n.s); errors.Is(err, scalar.ErrRange) {
				return bad("is out of the integer range")
			} else if err == nil {
				return nil // "42": canonical turns it into 42
			}
		}
		if n.k != kNum {
			return bad("is " + kindArticle(n.k))
		}
		if !isIntegral(n) {
			return bad("is not an integer")
		}
	case TypeNumber:
		if n.k != kNum {
			return bad("is " + kindArticle(n.k))
		}
	case TypeBoolean:
		if _, ok := scalar.Bool(n.s); n.k == kStr && ok {
			return nil // "true": canonical turns it into true
		}
		if n.k != kBool {
			return bad("is " + kindArticle(n.k))
		}
	}
	return nil
}

// Canonical returns r with each value compared with an integer or a
// boolean field of s (by eq, neq, gt, gte, lt, lte or in) that is a string
// spelling one exactly ("42", "true", as callers holding JSON send ids)
// replaced by that number or boolean, the form the field's values have,
// and each plain date compared with a date-time field (2024-01-31)
// replaced by its midnight UTC (2024-01-31T00:00:00Z).
// Validate accepts such strings; Index.Search runs requests in this form,
// and clients send them in it. r itself is not modified.
func (r Request) Canonical(s Schema) Request {
	if r.Query.Filter != nil && s != nil {
		f := canonical(*r.Query.Filter, s, 0)
		r.Query.Filter = &f
	}
	return r
}

// canonical rewrites the values of f's field conditions; a copy of every
// rewritten node is made, the caller's tree is left alone.
func canonical(f Filter, s Schema, depth int) Filter {
	if depth > maxDepth {
		return f // Validate refuses it
	}
	switch f.Op {
	case OpAnd, OpOr, OpNot:
		subs := make([]Filter, len(f.Filters))
		for i := range f.Filters {
			subs[i] = canonical(f.Filters[i], s, depth+1)
		}
		f.Filters = subs
	case OpEq, OpNeq, OpGt, OpGte, OpLt, OpLte, OpIn:
		t, err := s.typeOf(f.Field)
		if err != nil || (t != TypeInteger && t != TypeBoolean && t != TypeDateTime) {
			return f
		}
		f.Value = canonicalValue(f.Value, t)
		if f.Values != nil {
			vals := make([]Value, len(f.Values))
			for i, v := range f.Values {
				vals[i] = canonicalValue(v, t)
			}
			f.Values = vals
		}
	}
	return f
}

// canonicalValue is v as a number (t integer) or a boolean (t boolean)
// when v is a string that spells one, else v.
func canonicalValue(v Value, t Type) Value {
	if v.n.k != kStr {
		return v
	}
	switch t {
	case TypeInteger:
		if i, err := scalar.Int(v.n.s); err == nil {
			return intValue(i)
		}
	case TypeBoolean:
		if b, ok := scalar.Bool(v.n.s); ok {
			c, _ := ValueOf(b)
			return c
		}
	case TypeDateTime:
		if v.n.f&fTime == 0 && isDate(v.n.s) {
			return Value{n: strNode(v.n.s + "T00:00:00Z")}
		}
	}
	return v
}

// isDate reports whether s is a plain calendar date, 2024-01-31.
func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

func kindArticle(k kind) string {
	switch k {
	case kBool:
		return "a boolean"
	case kNum:
		return "a number"
	case kStr:
		return "a string"
	case kArr:
		return "an array"
	case kObj:
		return "an object"
	}
	return "null"
}

// checkValues checks the value of a field condition against its operator,
// with no schema.
func checkValues(f *Filter) error {
	bad := func(format string, a ...any) error {
		return &Error{Op: f.Op, Field: f.fieldName(), Reason: fmt.Sprintf(format, a...)}
	}
	n := &f.Value.n
	switch f.Op {
	case OpGt, OpGte, OpLt, OpLte:
		if n.k != kNum && n.k != kStr {
			return bad("the value must be a number or a string, not %s", kindArticle(n.k))
		}
	case OpLike:
		if n.k != kStr {
			return bad("the pattern must be a string, not %s", kindArticle(n.k))
		}
		if _, err := compileLike(n.s); err != nil {
			return bad("%v", err)
		}
	case OpFuzzy, OpKeyword:
		if n.k != kStr {
			return bad("the text must be a string, not %s", kindArticle(n.k))
		}
		if len(queryWords(n.s)) == 0 {
			return bad("the text has no words")
		}
	case OpIn:
		for _, v := range f.Values {
			if v.n.k == kArr || v.n.k == kObj {
				return bad("the values must be strings, numbers, booleans or null")
			}
		}
	case OpAny:
		if n.k != kMissing && n.k != kNull {
			return bad("takes a condition, not a value")
		}
	}
	return nil
}
