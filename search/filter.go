package search

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tributary-dev/tributary/internal/suggest"
)

// Op is a filter operator.
type Op string

// The operators. OpContains and OpAny go beyond the contract's list, as
// Airbyte's search does.
const (
	// OpEq: the field equals the value. {"eq": {"status": "open"}}
	OpEq Op = "eq"
	// OpNeq: the field does not equal the value (true when it is missing).
	OpNeq Op = "neq"
	// OpGt: the field is greater than the value.
	OpGt Op = "gt"
	// OpGte: the field is greater than or equal to the value.
	OpGte Op = "gte"
	// OpLt: the field is less than the value.
	OpLt Op = "lt"
	// OpLte: the field is less than or equal to the value.
	OpLte Op = "lte"
	// OpIn: the field equals one of the values. {"in": {"status": ["open", "new"]}}
	OpIn Op = "in"
	// OpLike: the string field matches a pattern with % and _ wildcards.
	OpLike Op = "like"
	// OpFuzzy: every word of the text matches a word of the field, with typos.
	OpFuzzy Op = "fuzzy"
	// OpKeyword: some word of the text is a word of the field.
	OpKeyword Op = "keyword"
	// OpContains: an element of the array field equals the value.
	OpContains Op = "contains"
	// OpAny: an element of the array field matches a condition.
	// {"any": {"tags": {"eq": {"name": "vip"}}}}
	OpAny Op = "any"
	// OpNot negates a condition. {"not": {...}}
	OpNot Op = "not"
	// OpAnd: every condition holds. {"and": [...]}
	OpAnd Op = "and"
	// OpOr: some condition holds. {"or": [...]}
	OpOr Op = "or"
)

// fieldOp reports whether op takes {<field>: <value>}.
func (op Op) fieldOp() bool {
	switch op {
	case OpEq, OpNeq, OpGt, OpGte, OpLt, OpLte, OpIn, OpLike, OpFuzzy, OpKeyword, OpContains, OpAny:
		return true
	}
	return false
}

// Filter is one condition of the filter language, a tree:
//
//   - a field condition (Op eq … contains) holds Field and Value, or Values
//     for in;
//   - any holds Field and, in Filters, the one condition its elements are
//     matched against (its field paths are relative to the element);
//   - not holds the one condition it negates in Filters;
//   - and / or hold their operands in Filters (an empty and matches every
//     record, an empty or none).
//
// Build filters with the functions of this package (Eq, And, Any, …) or
// decode them from JSON. The JSON form is the contract's:
// {"eq": {"status": "open"}}, {"and": [...]}, {"not": {...}}. When decoding,
// several operators side by side in one object ({"eq": {...}, "gt": {...}})
// and several fields inside one operator object ({"eq": {"a": 1, "b": 2}})
// both mean and: they decode to an and of single conditions, in document
// order.
type Filter struct {
	// Op is the operator.
	Op Op
	// Field is the field of a field condition, or the array of any.
	Field Path
	// Value is the value of eq, neq, gt, gte, lt, lte, like, fuzzy, keyword
	// and contains.
	Value Value
	// Values are the values of in.
	Values []Value
	// Filters are the operands of and / or, or the single operand of not
	// and any.
	Filters []Filter

	err string // set by a builder given a bad field name or value
}

func (f Filter) fieldName() string { return f.Field.String() }

func build(op Op, field string, value any) Filter {
	f := Filter{Op: op}
	p, err := ParsePath(field)
	if err != nil {
		f.err = fmt.Sprintf("bad field name %q", field)
		return f
	}
	f.Field = p
	v, err := ValueOf(value)
	if err != nil {
		f.err = err.Error()
		return f
	}
	f.Value = v
	return f
}

// Eq matches records whose field equals value (see Index for the exact
// comparison rules). value is a Go scalar accepted by ValueOf; nil tests
// that the field is null or missing.
func Eq(field string, value any) Filter { return build(OpEq, field, value) }

// Neq matches records whose field does not equal value, including records
// where the field is missing.
func Neq(field string, value any) Filter { return build(OpNeq, field, value) }

// Gt matches records whose field is greater than value.
func Gt(field string, value any) Filter { return build(OpGt, field, value) }

// Gte matches records whose field is greater than or equal to value.
func Gte(field string, value any) Filter { return build(OpGte, field, value) }

// Lt matches records whose field is less than value.
func Lt(field string, value any) Filter { return build(OpLt, field, value) }

// Lte matches records whose field is less than or equal to value.
func Lte(field string, value any) Filter { return build(OpLte, field, value) }

// In matches records whose field equals one of values.
func In(field string, values ...any) Filter {
	f := build(OpIn, field, nil)
	f.Value = Value{}
	f.Values = make([]Value, 0, len(values))
	for _, x := range values {
		v, err := ValueOf(x)
		if err != nil && f.err == "" {
			f.err = err.Error()
		}
		f.Values = append(f.Values, v)
	}
	return f
}

// Like matches records whose string field matches pattern, case-insensitively:
// % matches any run of characters, _ exactly one, and \ escapes the next
// character (\%, \_, \\).
func Like(field, pattern string) Filter { return build(OpLike, field, pattern) }

// Fuzzy matches records whose string field holds, for every word of text, a
// word within a small edit distance, in any order.
func Fuzzy(field, text string) Filter { return build(OpFuzzy, field, text) }

// Keyword matches records whose string field holds at least one of the words
// of text.
func Keyword(field, text string) Filter { return build(OpKeyword, field, text) }

// Contains matches records whose array field has an element equal to value.
func Contains(field string, value any) Filter { return build(OpContains, field, value) }

// Any matches records whose array field has an element (an object) that
// matches cond; the field paths of cond are relative to the element.
func Any(field string, cond Filter) Filter {
	f := build(OpAny, field, nil)
	f.Value = Value{}
	f.Filters = []Filter{cond}
	return f
}

// Not matches records that f does not match.
func Not(f Filter) Filter { return Filter{Op: OpNot, Filters: []Filter{f}} }

// And matches records that every filter matches (every record when there
// are none).
func And(filters ...Filter) Filter {
	return Filter{Op: OpAnd, Filters: append([]Filter{}, filters...)}
}

// Or matches records that at least one filter matches (none when there are
// none).
func Or(filters ...Filter) Filter {
	return Filter{Op: OpOr, Filters: append([]Filter{}, filters...)}
}

// String returns the JSON form of f, or a description of why it has none.
func (f Filter) String() string {
	b, err := f.appendJSON(nil)
	if err != nil {
		return "invalid filter: " + err.Error()
	}
	return string(b)
}

// MarshalJSON encodes f in the contract's shape.
func (f Filter) MarshalJSON() ([]byte, error) { return f.appendJSON(nil) }

func (f Filter) appendJSON(b []byte) ([]byte, error) {
	if f.err != "" {
		return nil, &Error{Op: f.Op, Field: f.fieldName(), Reason: f.err}
	}
	switch {
	case f.Op == OpAnd || f.Op == OpOr:
		b = append(b, `{"`...)
		b = append(b, f.Op...)
		b = append(b, `":[`...)
		for i, g := range f.Filters {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = g.appendJSON(b); err != nil {
				return nil, err
			}
		}
		return append(b, "]}"...), nil
	case f.Op == OpNot:
		if len(f.Filters) != 1 {
			return nil, &Error{Op: f.Op, Reason: "takes exactly one condition"}
		}
		b = append(b, `{"not":`...)
		b, err := f.Filters[0].appendJSON(b)
		if err != nil {
			return nil, err
		}
		return append(b, '}'), nil
	case f.Op.fieldOp():
		if err := f.Field.check(); err != nil {
			return nil, &Error{Op: f.Op, Reason: "needs a field"}
		}
		b = append(b, `{"`...)
		b = append(b, f.Op...)
		b = append(b, `":{`...)
		b = appendString(b, f.Field.String())
		b = append(b, ':')
		switch f.Op {
		case OpIn:
			b = append(b, '[')
			for i, v := range f.Values {
				if i > 0 {
					b = append(b, ',')
				}
				b = v.n.appendJSON(b)
			}
			b = append(b, ']')
		case OpAny:
			if len(f.Filters) != 1 {
				return nil, &Error{Op: f.Op, Field: f.fieldName(), Reason: "takes exactly one condition"}
			}
			var err error
			if b, err = f.Filters[0].appendJSON(b); err != nil {
				return nil, err
			}
		default:
			b = f.Value.n.appendJSON(b)
		}
		return append(b, "}}"...), nil
	}
	return nil, unknownOperator(f.Op)
}

// UnmarshalJSON decodes a condition in the contract's shape. Malformed input
// is refused with an *Error naming the operator and field.
func (f *Filter) UnmarshalJSON(b []byte) error {
	n, err := parseJSON(string(b), true)
	if err != nil {
		return &Error{Field: "filter", Reason: err.Error()}
	}
	g, err := decodeFilter(&n)
	if err != nil {
		return err
	}
	*f = g
	return nil
}

// decodeFilter converts a parsed condition object.
func decodeFilter(n *node) (Filter, error) {
	if n.k != kObj {
		return Filter{}, &Error{Field: "filter", Reason: "a condition must be an object {<operator>: ...}"}
	}
	conds := make([]Filter, 0, len(n.c.keys))
	for i, key := range n.c.keys {
		var err error
		if conds, err = decodeOp(conds, Op(key), &n.c.vals[i]); err != nil {
			return Filter{}, err
		}
	}
	if len(conds) == 1 {
		return conds[0], nil
	}
	return Filter{Op: OpAnd, Filters: conds}, nil
}

func decodeOp(conds []Filter, op Op, v *node) ([]Filter, error) {
	switch {
	case op == OpAnd || op == OpOr:
		if v.k != kArr {
			return nil, &Error{Op: op, Reason: "expects an array of conditions"}
		}
		f := Filter{Op: op, Filters: make([]Filter, 0, len(v.c.vals))}
		for i := range v.c.vals {
			g, err := decodeFilter(&v.c.vals[i])
			if err != nil {
				return nil, err
			}
			f.Filters = append(f.Filters, g)
		}
		return append(conds, f), nil
	case op == OpNot:
		if v.k != kObj {
			return nil, &Error{Op: op, Reason: "expects a condition object"}
		}
		g, err := decodeFilter(v)
		if err != nil {
			return nil, err
		}
		return append(conds, Filter{Op: OpNot, Filters: []Filter{g}}), nil
	case op.fieldOp():
		if v.k != kObj || len(v.c.keys) == 0 {
			return nil, &Error{Op: op, Reason: "expects an object {<field>: <value>} with at least one field"}
		}
		for i, name := range v.c.keys {
			p, err := ParsePath(name)
			if err != nil {
				e := err.(*Error)
				e.Op = op
				return nil, e
			}
			f, err := decodeField(op, p, &v.c.vals[i])
			if err != nil {
				return nil, err
			}
			if err := checkValues(&f); err != nil {
				return nil, err
			}
			conds = append(conds, f)
		}
		return conds, nil
	}
	return nil, unknownOperator(op)
}

// operators are the names of the filter language's operators.
var operators = []string{"eq", "neq", "gt", "gte", "lt", "lte", "in", "like", "fuzzy", "keyword", "contains", "any", "not", "and", "or"}

// operatorAliases are the names other query languages (SQL, MongoDB,
// Elasticsearch, other connectors' filters) give an operator of this one,
// lowercased, without a leading "$", and with "_" for "-" and spaces: an
// unknown operator that is one of them is answered with its name here.
var operatorAliases = map[string]Op{
	"=": OpEq, "==": OpEq, "equals": OpEq, "equal": OpEq, "equal_to": OpEq, "is": OpEq, "term": OpEq,
	"!=": OpNeq, "<>": OpNeq, "ne": OpNeq, "not_equals": OpNeq, "not_equal": OpNeq, "not_equal_to": OpNeq, "is_not": OpNeq,
	">": OpGt, "greater_than": OpGt, "after": OpGt,
	">=": OpGte, "ge": OpGte, "greater_than_or_equal": OpGte, "greater_than_or_equal_to": OpGte,
	"<": OpLt, "less_than": OpLt, "before": OpLt,
	"<=": OpLte, "le": OpLte, "less_than_or_equal": OpLte, "less_than_or_equal_to": OpLte,
	"one_of": OpIn, "any_of": OpIn, "terms": OpIn,
	"ilike": OpLike, "wildcard": OpLike, "pattern": OpLike, "starts_with": OpLike, "startswith": OpLike, "ends_with": OpLike, "prefix": OpLike,
	"match": OpFuzzy, "search": OpFuzzy, "text": OpFuzzy, "fulltext": OpFuzzy, "full_text": OpFuzzy,
	"has": OpContains, "includes": OpContains, "include": OpContains, "array_contains": OpContains,
	"elemmatch": OpAny, "some": OpAny, "exists_in": OpAny,
	"nin": OpNot, "not_in": OpNot, "!": OpNot,
	"&&": OpAnd, "all": OpAnd, "must": OpAnd,
	"||": OpOr, "should": OpOr,
}

// unknownOperator is the error for an operator that is not one of the
// language's: it names the nearest operator, or the one an alias from
// another query language stands for, and lists them all.
func unknownOperator(op Op) *Error {
	name := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(string(op)), "$"))
	name = strings.NewReplacer("-", "_", " ", "_").Replace(name)
	hint := ""
	if a, ok := operatorAliases[name]; ok {
		hint = string(a)
	} else if slices.Contains(operators, name) {
		hint = name // "EQ", "$eq"
	} else {
		hint = suggest.Nearest(name, operators)
	}
	reason := "unknown operator"
	if hint != "" {
		reason += "; did you mean " + strconv.Quote(hint) + "?"
	}
	return &Error{Op: op, Reason: reason + " (operators: " + strings.Join(operators, ", ") + ")"}
}

func decodeField(op Op, p Path, v *node) (Filter, error) {
	f := Filter{Op: op, Field: p}
	switch op {
	case OpIn:
		if v.k != kArr {
			return f, &Error{Op: op, Field: p.String(), Reason: "expects an array of values"}
		}
		f.Values = make([]Value, 0, len(v.c.vals))
		for i := range v.c.vals {
			e := &v.c.vals[i]
			if e.k == kArr || e.k == kObj {
				return f, &Error{Op: op, Field: p.String(), Reason: "the values must be strings, numbers, booleans or null"}
			}
			f.Values = append(f.Values, Value{n: *e})
		}
	case OpAny:
		if v.k != kObj {
			return f, &Error{Op: op, Field: p.String(), Reason: "expects a condition object for the elements"}
		}
		g, err := decodeFilter(v)
		if err != nil {
			return f, err
		}
		f.Filters = []Filter{g}
	default:
		if v.k == kArr || v.k == kObj {
			return f, &Error{Op: op, Field: p.String(), Reason: "the value must be a string, number, boolean or null"}
		}
		f.Value = Value{n: *v}
	}
	return f, nil
}
