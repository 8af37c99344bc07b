package salesforcetest

import (
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// Records are written straight into a byte buffer: the fake may serve a
// million records, and encoding through reflection would dominate the cost
// of a page.

const dateTimeLayout = "2006-01-02T15:04:05.000-0700"

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendValue appends a generated field value as JSON.
func appendValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return appendString(b, x)
	case bool:
		return strconv.AppendBool(b, x)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case float64:
		return appendFloat(b, x)
	case time.Time:
		b = append(b, '"')
		b = x.UTC().AppendFormat(b, dateTimeLayout)
		return append(b, '"')
	case *address:
		b = append(b, `{"city":`...)
		b = appendString(b, x.city)
		b = append(b, `,"country":`...)
		b = appendString(b, x.country)
		b = append(b, `,"geocodeAccuracy":null,"latitude":null,"longitude":null,"postalCode":`...)
		b = appendString(b, x.postal)
		b = append(b, `,"state":`...)
		if x.state == "" {
			b = append(b, "null"...)
		} else {
			b = appendString(b, x.state)
		}
		b = append(b, `,"street":`...)
		b = appendString(b, x.street)
		return append(b, '}')
	}
	return append(b, "null"...)
}

// appendFloat writes numbers the way Salesforce does for currency, double
// and percent fields: always with a fraction (15000.0).
func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		b = strconv.AppendFloat(b, f, 'f', -1, 64)
		return append(b, ".0"...)
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}

// appendAttributes appends the "attributes" member every record carries.
func appendAttributes(b []byte, o *object, version, id string) []byte {
	b = append(b, `"attributes":{"type":`...)
	b = appendString(b, o.name)
	b = append(b, `,"url":"/services/data/v`...)
	b = append(b, version...)
	b = append(b, "/sobjects/"...)
	b = append(b, o.name...)
	b = append(b, '/')
	b = append(b, id...)
	return append(b, `"}`...)
}

// column is one member of a rendered record: field f of the object, or,
// when rel is set, a parent record reached through a lookup.
type column struct {
	f   int
	rel *relation
}

// relation is a parent relationship selected with a path such as
// Owner.Name: the lookup field and the parent's fields to render.
type relation struct {
	name    string // canonical relationship name, e.g. "Owner"
	idField int    // the lookup field, e.g. OwnerId
	sub     []string
}

// direct turns field indexes into columns.
func direct(fields []int) []column {
	cols := make([]column, len(fields))
	for k, f := range fields {
		cols[k] = column{f: f}
	}
	return cols
}

// appendRecord appends record i of o with the given columns, attributes
// first.
func appendRecord(b []byte, c *gctx, o *object, i int, cols []column) []byte {
	b = append(b, '{')
	b = appendAttributes(b, o, c.version, makeID(o.prefix, i))
	for _, col := range cols {
		b = append(b, ',', '"')
		if col.rel != nil {
			b = append(b, col.rel.name...)
			b = append(b, '"', ':')
			b = appendRelated(b, c, c.value(o, col.rel.idField, i), col.rel.sub)
			continue
		}
		f := &o.fields[col.f]
		b = append(b, f.name...)
		b = append(b, '"', ':')
		b = appendValue(b, c.value(o, col.f, i))
	}
	return append(b, '}')
}

// appendRelated renders the parent record a lookup value points to, with
// its own attributes, or null when the lookup is empty or its object is not
// served. A field the parent's object lacks (possible through a polymorphic
// lookup) is null.
func appendRelated(b []byte, c *gctx, v any, sub []string) []byte {
	id, _ := v.(string)
	if len(id) < 3 {
		return append(b, "null"...)
	}
	t := c.s.byPrefix[id[:3]]
	if t == nil {
		return append(b, "null"...)
	}
	i, ok := parseID(t.prefix, id)
	if !ok || !c.live(t.idx, i) {
		return append(b, "null"...)
	}
	b = append(b, '{')
	b = appendAttributes(b, t, c.version, id)
	for _, name := range sub {
		b = append(b, ',', '"')
		b = append(b, name...)
		b = append(b, '"', ':')
		if k, ok := t.field(name); ok {
			b = appendValue(b, c.value(t, k, i))
		} else {
			b = append(b, "null"...)
		}
	}
	return append(b, '}')
}
