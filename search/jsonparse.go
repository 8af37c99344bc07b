package search

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// kind is the JSON kind of a parsed node. kMissing marks a path that does
// not resolve.
type kind uint8

const (
	kMissing kind = iota
	kNull
	kBool
	kNum
	kStr
	kArr
	kObj
)

// Node flags.
const (
	fInt      uint8 = 1 << iota // number: n holds the exact int64 value
	fTime                       // string: an RFC 3339 date-time; n holds Unix microseconds
	fSubMicro                   // string date-time with more than 6 fractional digits
	fTrue                       // boolean true
)

// node is one parsed JSON value, kept compact: strings are substrings of the
// record's text whenever they carry no escape, numbers keep their literal
// (s) next to a fast form (n: the int64, or the float64 bits).
type node struct {
	s string
	n int64
	c *composite
	k kind
	f uint8
}

// composite holds the members of an object (keys and vals in document
// order) or the elements of an array (vals only).
type composite struct {
	keys []string
	vals []node
}

var missing = node{k: kMissing}

// maxDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxDepth = 512

var errSyntax = errors.New("malformed JSON")

// parser is a strict RFC 8259 parser producing nodes. Invalid UTF-8 inside
// strings is replaced by U+FFFD, as encoding/json does.
type parser struct {
	s      string
	i      int
	depth  int
	dates  bool // recognize RFC 3339 date-time strings
	vstack []node
	kstack []string
	// deep, when set, names the members of the top-level object whose
	// arrays and objects are parsed; the others' are skipped (their nodes
	// have the kind and nothing inside), for readers that need no more.
	deep func(key string) bool
	// arena, when set, holds the composites of the value parsed, reused
	// from one parse to the next: for readers that keep nothing of a
	// parse once the next begins (Extractor, Evaluator).
	arena *arena
}

// arena is storage for parsed composites, emptied by reset: what a parse
// allocated is overwritten by the next one.
type arena struct {
	comps []composite
	keys  []string
	vals  []node
}

func (a *arena) reset() {
	a.comps, a.keys, a.vals = a.comps[:0], a.keys[:0], a.vals[:0]
}

// composite returns a composite of keys and vals (copied; nil when empty).
func (p *parser) composite(keys []string, vals []node) *composite {
	a := p.arena
	if a == nil {
		var c composite
		if len(keys) > 0 {
			c.keys = append([]string(nil), keys...)
		}
		if len(vals) > 0 {
			c.vals = append([]node(nil), vals...)
		}
		return &c
	}
	var c composite
	if len(keys) > 0 {
		k0 := len(a.keys)
		a.keys = append(a.keys, keys...)
		c.keys = a.keys[k0:len(a.keys):len(a.keys)]
	}
	if len(vals) > 0 {
		v0 := len(a.vals)
		a.vals = append(a.vals, vals...)
		c.vals = a.vals[v0:len(a.vals):len(a.vals)]
	}
	// A pointer into comps stays valid when appending moves it (the old
	// array lives on while it is referenced).
	a.comps = append(a.comps, c)
	return &a.comps[len(a.comps)-1]
}

// parseJSON parses one complete JSON text.
func parseJSON(s string, dates bool) (node, error) {
	p := parser{s: s, dates: dates}
	return p.parseAll()
}

func (p *parser) parseAll() (node, error) {
	p.skipWS()
	n, err := p.value()
	if err != nil {
		return node{}, err
	}
	p.skipWS()
	if p.i != len(p.s) {
		return node{}, p.errf("unexpected data after the value")
	}
	return n, nil
}

func (p *parser) errf(format string, a ...any) error {
	return fmt.Errorf("%w at byte %d: %s", errSyntax, p.i, fmt.Sprintf(format, a...))
}

func (p *parser) skipWS() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value() (node, error) {
	if p.i >= len(p.s) {
		return node{}, p.errf("unexpected end of input")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.str()
		if err != nil {
			return node{}, err
		}
		return p.strNode(s), nil
	case c == 't':
		return p.lit("true", node{k: kBool, f: fTrue})
	case c == 'f':
		return p.lit("false", node{k: kBool})
	case c == 'n':
		return p.lit("null", node{k: kNull})
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		return node{}, p.errf("unexpected character %q", c)
	}
}

func (p *parser) strNode(s string) node {
	if p.dates {
		return strNode(s)
	}
	return node{k: kStr, s: s}
}

func (p *parser) lit(word string, n node) (node, error) {
	if !strings.HasPrefix(p.s[p.i:], word) {
		return node{}, p.errf("invalid literal")
	}
	p.i += len(word)
	return n, nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.errf("nesting deeper than %d", maxDepth)
	}
	return nil
}

func (p *parser) object() (node, error) {
	if err := p.enter(); err != nil {
		return node{}, err
	}
	p.i++ // {
	vbase, kbase := len(p.vstack), len(p.kstack)
	p.skipWS()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		p.depth--
		return node{k: kObj, c: p.composite(nil, nil)}, nil
	}
	for {
		p.skipWS()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return node{}, p.errf("expected a member name")
		}
		key, err := p.str()
		if err != nil {
			return node{}, err
		}
		p.skipWS()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return node{}, p.errf("expected ':'")
		}
		p.i++
		p.skipWS()
		var v node
		if p.deep != nil && p.depth == 1 && p.i < len(p.s) && (p.s[p.i] == '{' || p.s[p.i] == '[') && !p.deep(key) {
			v, err = p.skipContainer()
		} else {
			v, err = p.value()
		}
		if err != nil {
			return node{}, err
		}
		p.kstack = append(p.kstack, key)
		p.vstack = append(p.vstack, v)
		p.skipWS()
		if p.i >= len(p.s) {
			return node{}, p.errf("unexpected end of input in an object")
		}
		if p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.s[p.i] == '}' {
			p.i++
			break
		}
		return node{}, p.errf("expected ',' or '}'")
	}
	c := p.composite(p.kstack[kbase:], p.vstack[vbase:])
	clear(p.vstack[vbase:])
	p.kstack, p.vstack = p.kstack[:kbase], p.vstack[:vbase]
	p.depth--
	return node{k: kObj, c: c}, nil
}

// skipContainer passes over the array or object at p.i (strings and
// nesting respected; its contents are not validated) and returns a node of
// its kind with nothing inside.
func (p *parser) skipContainer() (node, error) {
	k := kArr
	if p.s[p.i] == '{' {
		k = kObj
	}
	depth := 0
	for ; p.i < len(p.s); p.i++ {
		switch p.s[p.i] {
		case '"':
			// To the closing quote.
			for p.i++; p.i < len(p.s); p.i++ {
				for p.i+8 <= len(p.s) && !hasQuote8(p.s, p.i) {
					p.i += 8
				}
				if p.i >= len(p.s) || p.s[p.i] == '"' {
					break
				}
				if p.s[p.i] == '\\' {
					p.i++
				}
			}
		case '[', '{':
			depth++
		case ']', '}':
			if depth--; depth == 0 {
				p.i++
				return node{k: k, c: p.composite(nil, nil)}, nil
			}
		}
	}
	return node{}, p.errf("unexpected end of input in a container")
}

func (p *parser) array() (node, error) {
	if err := p.enter(); err != nil {
		return node{}, err
	}
	p.i++ // [
	base := len(p.vstack)
	p.skipWS()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		p.depth--
		return node{k: kArr, c: p.composite(nil, nil)}, nil
	}
	for {
		p.skipWS()
		v, err := p.value()
		if err != nil {
			return node{}, err
		}
		p.vstack = append(p.vstack, v)
		p.skipWS()
		if p.i >= len(p.s) {
			return node{}, p.errf("unexpected end of input in an array")
		}
		if p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.s[p.i] == ']' {
			p.i++
			break
		}
		return node{}, p.errf("expected ',' or ']'")
	}
	c := p.composite(nil, p.vstack[base:])
	clear(p.vstack[base:])
	p.vstack = p.vstack[:base]
	p.depth--
	return node{k: kArr, c: c}, nil
}

// str parses a string starting at the opening quote. Strings without escapes
// and with valid UTF-8 are returned as substrings of the input.
func (p *parser) str() (string, error) {
	start := p.i + 1
	i := start
	for i < len(p.s) {
		for i+8 <= len(p.s) && plain8(p.s, i) {
			i += 8
		}
		if i >= len(p.s) {
			break
		}
		c := p.s[i]
		switch {
		case c == '"':
			p.i = i + 1
			return p.s[start:i], nil
		case c == '\\':
			return p.slowStr(start)
		case c < 0x20:
			p.i = i
			return "", p.errf("control character in a string")
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRuneInString(p.s[i:])
			if r == utf8.RuneError && size == 1 {
				return p.slowStr(start)
			}
			i += size
		}
	}
	p.i = i
	return "", p.errf("unterminated string")
}

func (p *parser) slowStr(start int) (string, error) {
	var b strings.Builder
	i := start
	for i < len(p.s) {
		c := p.s[i]
		switch {
		case c == '"':
			p.i = i + 1
			return b.String(), nil
		case c == '\\':
			if i+1 >= len(p.s) {
				p.i = i
				return "", p.errf("unterminated escape")
			}
			e := p.s[i+1]
			i += 2
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := hex4(p.s, i)
				if !ok {
					p.i = i
					return "", p.errf("invalid \\u escape")
				}
				i += 4
				if utf16.IsSurrogate(r) {
					r2, ok2 := rune(-1), false
					if i+6 <= len(p.s) && p.s[i] == '\\' && p.s[i+1] == 'u' {
						r2, ok2 = hex4(p.s, i+2)
					}
					if ok2 {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							i += 6
							b.WriteRune(d)
							continue
						}
					}
					r = utf8.RuneError
				}
				b.WriteRune(r)
			default:
				p.i = i - 1
				return "", p.errf("invalid escape character %q", e)
			}
		case c < 0x20:
			p.i = i
			return "", p.errf("control character in a string")
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(p.s[i:])
			b.WriteRune(r) // RuneError for invalid bytes, one per byte
			i += size
		}
	}
	p.i = i
	return "", p.errf("unterminated string")
}

func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

func (p *parser) number() (node, error) {
	start := p.i
	if end, ok := scanNumber(p.s, p.i); ok {
		p.i = end
		return numNode(p.s[start:end]), nil
	}
	return node{}, p.errf("invalid number")
}

// scanNumber scans a JSON number starting at i and returns its end.
func scanNumber(s string, i int) (int, bool) {
	if i < len(s) && s[i] == '-' {
		i++
	}
	if i >= len(s) {
		return i, false
	}
	switch {
	case s[i] == '0':
		i++
	case s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return i, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			return i, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			return i, false
		}
	}
	return i, true
}

// isNumberLiteral reports whether s is exactly one JSON number.
func isNumberLiteral(s string) bool {
	end, ok := scanNumber(s, 0)
	return ok && end == len(s)
}

// numNode builds a number node from a valid JSON number literal.
func numNode(lit string) node {
	if len(lit) <= 20 && !strings.ContainsAny(lit, ".eE") {
		if v, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return node{k: kNum, s: lit, n: v, f: fInt}
		}
	}
	f, _ := strconv.ParseFloat(lit, 64) // ±Inf or 0 on range errors: still monotonic
	return node{k: kNum, s: lit, n: int64(math.Float64bits(f))}
}

// strNode builds a string node, recognizing RFC 3339 date-times.
func strNode(s string) node {
	n := node{k: kStr, s: s}
	if t, sub, ok := parseDateTime(s); ok {
		n.f |= fTime
		n.n = t.UnixMicro()
		if sub {
			n.f |= fSubMicro
		}
	}
	return n
}

// parseDateTime parses an RFC 3339 date-time (as time.Parse with
// time.RFC3339 accepts it, fractional seconds allowed), or one whose
// numeric offset has no colon (+0000, as Salesforce writes its
// datetimes). sub reports more than
// six fractional digits.
func parseDateTime(s string) (t time.Time, sub bool, ok bool) {
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, false, false
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		// Salesforce writes the offset without its colon:
		// 2024-01-31T08:00:00.000+0000, the same instant.
		n := len(s)
		if n < 24 || s[n-5] != '+' && s[n-5] != '-' {
			return time.Time{}, false, false
		}
		if t, err = time.Parse("2006-01-02T15:04:05-0700", s); err != nil {
			return time.Time{}, false, false
		}
	}
	if len(s) > 20 && s[19] == '.' {
		j := 20
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		sub = j-20 > 6
	}
	return t, sub, true
}

func (n *node) float() float64 {
	if n.f&fInt != 0 {
		return float64(n.n)
	}
	return math.Float64frombits(uint64(n.n))
}

// member returns the value of key in an object node, or &missing. When a
// key repeats, the last one counts, as with encoding/json.
func (n *node) member(key string) *node {
	if n.k != kObj {
		return &missing
	}
	c := n.c
	for i := len(c.keys) - 1; i >= 0; i-- {
		if c.keys[i] == key {
			return &c.vals[i]
		}
	}
	return &missing
}

// walk follows path from n through objects.
func (n *node) walk(path []string) *node {
	v := n
	for _, k := range path {
		v = v.member(k)
		if v.k == kMissing {
			return v
		}
	}
	return v
}

// appendJSON appends the JSON encoding of n.
func (n *node) appendJSON(b []byte) []byte {
	switch n.k {
	case kNull, kMissing:
		return append(b, "null"...)
	case kBool:
		if n.f&fTrue != 0 {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case kNum:
		return append(b, n.s...)
	case kStr:
		return appendString(b, n.s)
	case kArr:
		b = append(b, '[')
		for i := range n.c.vals {
			if i > 0 {
				b = append(b, ',')
			}
			b = n.c.vals[i].appendJSON(b)
		}
		return append(b, ']')
	default:
		b = append(b, '{')
		for i := range n.c.vals {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, n.c.keys[i])
			b = append(b, ':')
			b = n.c.vals[i].appendJSON(b)
		}
		return append(b, '}')
	}
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
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
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// The bytes of 8 ASCII characters, as one word.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// load8 reads the eight bytes of s at i (i+8 <= len(s)) as one word.
func load8(s string, i int) uint64 {
	return binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
}

// plain8 reports whether the eight bytes of s at i are printable ASCII
// other than '"' and '\\': a string's bytes that need no look.
func plain8(s string, i int) bool {
	x := load8(s, i)
	q := x ^ (lsb * '"')
	b := x ^ (lsb * '\\')
	return ((q-lsb)&^q|(b-lsb)&^b|(x-lsb*0x20)&^x|x)&msb == 0
}

// hasQuote8 reports whether one of the eight bytes of s at i may be '"'
// or '\\' (a byte of 0x80 or more may be taken for one).
func hasQuote8(s string, i int) bool {
	x := load8(s, i)
	q := x ^ (lsb * '"')
	b := x ^ (lsb * '\\')
	return ((q-lsb)&^q|(b-lsb)&^b)&msb != 0
}
