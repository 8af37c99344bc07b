package search

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ValueKind is the JSON kind of a Value.
type ValueKind uint8

// The kinds of a Value. Values are JSON scalars: filters compare fields with
// scalars only (arrays are matched with Contains and Any).
const (
	KindNull ValueKind = iota
	KindBool
	KindNumber
	KindString
)

// String returns "null", "boolean", "number" or "string".
func (k ValueKind) String() string {
	switch k {
	case KindBool:
		return "boolean"
	case KindNumber:
		return "number"
	case KindString:
		return "string"
	}
	return "null"
}

// Value is a JSON scalar of a filter: null, a boolean, a number (kept as its
// exact decimal literal, so integers beyond 2^53 lose nothing) or a string.
// The zero Value is null. Values are comparable with ==.
type Value struct {
	n node
}

// ValueOf converts a Go value to a Value. It accepts nil, bool, string, every
// integer and float type (NaN and infinities are refused), json.Number,
// time.Time (encoded with time.RFC3339Nano) and Value itself.
func ValueOf(x any) (Value, error) {
	switch v := x.(type) {
	case nil:
		return Value{n: node{k: kNull}}, nil
	case Value:
		if v.n.k == kMissing {
			return Value{n: node{k: kNull}}, nil
		}
		return v, nil
	case bool:
		if v {
			return Value{n: node{k: kBool, f: fTrue}}, nil
		}
		return Value{n: node{k: kBool}}, nil
	case string:
		return Value{n: strNode(v)}, nil
	case int:
		return intValue(int64(v)), nil
	case int8:
		return intValue(int64(v)), nil
	case int16:
		return intValue(int64(v)), nil
	case int32:
		return intValue(int64(v)), nil
	case int64:
		return intValue(v), nil
	case uint:
		return uintValue(uint64(v)), nil
	case uint8:
		return uintValue(uint64(v)), nil
	case uint16:
		return uintValue(uint64(v)), nil
	case uint32:
		return uintValue(uint64(v)), nil
	case uint64:
		return uintValue(v), nil
	case float32:
		return floatValue(float64(v), 32)
	case float64:
		return floatValue(v, 64)
	case json.Number:
		if !isNumberLiteral(string(v)) {
			return Value{}, fmt.Errorf("%q is not a JSON number", string(v))
		}
		return Value{n: numNode(string(v))}, nil
	case time.Time:
		return Value{n: strNode(v.Format(time.RFC3339Nano))}, nil
	}
	return Value{}, fmt.Errorf("unsupported value type %T", x)
}

func intValue(i int64) Value { return Value{n: numNode(strconv.FormatInt(i, 10))} }

func uintValue(u uint64) Value { return Value{n: numNode(strconv.FormatUint(u, 10))} }

func floatValue(f float64, bits int) (Value, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Value{}, fmt.Errorf("%v is not a JSON number", f)
	}
	return Value{n: numNode(strconv.FormatFloat(f, 'g', -1, bits))}, nil
}

// Kind returns the kind of v.
func (v Value) Kind() ValueKind {
	switch v.n.k {
	case kBool:
		return KindBool
	case kNum:
		return KindNumber
	case kStr:
		return KindString
	}
	return KindNull
}

// Interface returns v as nil, bool, json.Number or string.
func (v Value) Interface() any {
	switch v.n.k {
	case kBool:
		return v.n.f&fTrue != 0
	case kNum:
		return json.Number(v.n.s)
	case kStr:
		return v.n.s
	}
	return nil
}

// String returns the JSON text of v.
func (v Value) String() string { return string(v.n.appendJSON(nil)) }

// MarshalJSON encodes v as a JSON scalar.
func (v Value) MarshalJSON() ([]byte, error) { return v.n.appendJSON(nil), nil }

// UnmarshalJSON decodes a JSON scalar; arrays and objects are refused.
func (v *Value) UnmarshalJSON(b []byte) error {
	n, err := parseJSON(string(b), true)
	if err != nil {
		return &Error{Reason: err.Error()}
	}
	if n.k == kArr || n.k == kObj {
		return &Error{Reason: "a value must be a string, number, boolean or null"}
	}
	*v = Value{n: n}
	return nil
}

// describe returns v for an error message, shortened.
func (v Value) describe() string {
	s := v.String()
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

// isIntegral reports whether a number node has an integer value.
func isIntegral(n *node) bool {
	if n.f&fInt != 0 {
		return true
	}
	_, digits, exp := decimal(n.s)
	return len(digits) == 0 || exp >= len(digits)
}

// numCmp compares two number nodes exactly.
func numCmp(a, b *node) int {
	if a.f&b.f&fInt != 0 {
		switch {
		case a.n < b.n:
			return -1
		case a.n > b.n:
			return 1
		}
		return 0
	}
	// Rounding to float64 is monotonic: distinct floats decide the order.
	fa, fb := a.float(), b.float()
	switch {
	case fa < fb:
		return -1
	case fa > fb:
		return 1
	}
	return decCmp(a.s, b.s)
}

// decimal splits a JSON number literal into its sign, its significant digits
// (no leading or trailing zeros) and the exponent exp such that the value is
// 0.<digits> × 10^exp. Zero has no digits.
func decimal(lit string) (neg bool, digits []byte, exp int) {
	s := lit
	if strings.HasPrefix(s, "-") {
		neg = true
		s = s[1:]
	}
	mant, e := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		es := s[i+1:]
		eneg := false
		if es != "" && (es[0] == '+' || es[0] == '-') {
			eneg = es[0] == '-'
			es = es[1:]
		}
		for _, c := range []byte(es) {
			if e < 1e9 {
				e = e*10 + int(c-'0')
			}
		}
		if eneg {
			e = -e
		}
	}
	intPart, frac := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intPart, frac = mant[:i], mant[i+1:]
	}
	point := len(intPart) + e
	digits = make([]byte, 0, len(intPart)+len(frac))
	digits = append(digits, intPart...)
	digits = append(digits, frac...)
	lead := 0
	for lead < len(digits) && digits[lead] == '0' {
		lead++
	}
	digits = digits[lead:]
	point -= lead
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	if len(digits) == 0 {
		return false, nil, 0
	}
	return neg, digits, point
}

// decCmp compares two JSON number literals exactly.
func decCmp(a, b string) int {
	an, ad, ae := decimal(a)
	bn, bd, be := decimal(b)
	sa, sb := sign(an, ad), sign(bn, bd)
	if sa != sb {
		if sa < sb {
			return -1
		}
		return 1
	}
	if sa == 0 {
		return 0
	}
	c := 0
	switch {
	case ae < be:
		c = -1
	case ae > be:
		c = 1
	default:
		c = strings.Compare(string(ad), string(bd))
	}
	return c * sa
}

func sign(neg bool, digits []byte) int {
	switch {
	case len(digits) == 0:
		return 0
	case neg:
		return -1
	}
	return 1
}

// timeCmp compares two date-time string nodes as instants.
func timeCmp(a, b *node) int {
	switch {
	case a.n < b.n:
		return -1
	case a.n > b.n:
		return 1
	}
	if (a.f|b.f)&fSubMicro == 0 {
		return 0
	}
	ta, _, _ := parseDateTime(a.s)
	tb, _, _ := parseDateTime(b.s)
	return ta.Compare(tb)
}

// equal reports whether a record value v equals the filter value q. A null
// q matches a null or missing v; values of different kinds are never equal;
// numbers compare exactly by value; strings compare byte for byte, or as
// instants when both are RFC 3339 date-times.
func equal(v, q *node) bool {
	if q.k == kNull {
		return v.k == kNull || v.k == kMissing
	}
	if v.k != q.k {
		return false
	}
	switch q.k {
	case kBool:
		return v.f&fTrue == q.f&fTrue
	case kNum:
		return numCmp(v, q) == 0
	case kStr:
		if v.f&q.f&fTime != 0 {
			return timeCmp(v, q) == 0
		}
		return v.s == q.s
	}
	return false
}

// order compares a record value v with the filter value q; ok is false when
// they have no order (different kinds, missing, null, booleans).
func order(v, q *node) (c int, ok bool) {
	if v.k != q.k {
		return 0, false
	}
	switch q.k {
	case kNum:
		return numCmp(v, q), true
	case kStr:
		if v.f&q.f&fTime != 0 {
			return timeCmp(v, q), true
		}
		return strings.Compare(v.s, q.s), true
	}
	return 0, false
}

// sortClass orders kinds for sorting: false < true < numbers < date-time
// strings < other strings < arrays < objects. Null and missing sort last,
// apart (class 0 is "none").
func sortClass(n *node) int {
	switch n.k {
	case kBool:
		if n.f&fTrue != 0 {
			return 2
		}
		return 1
	case kNum:
		return 3
	case kStr:
		if n.f&fTime != 0 {
			return 4
		}
		return 5
	case kArr:
		return 6
	case kObj:
		return 7
	}
	return 0
}

// sortCmp is the total order of sort keys over non-null values.
func sortCmp(a, b *node) int {
	ca, cb := sortClass(a), sortClass(b)
	if ca != cb {
		if ca < cb {
			return -1
		}
		return 1
	}
	switch ca {
	case 3:
		return numCmp(a, b)
	case 4:
		return timeCmp(a, b)
	case 5:
		return strings.Compare(a.s, b.s)
	}
	return 0
}
