// Package jsonx is the one seam through which the library decodes JSON.
//
// Every kind and the pagination package call it, so the decoder behind it
// can be measured and replaced in one place. It has two halves: a validating
// splitter that cuts a page body into its records and top-level members in
// one pass, without decoding them (records stay raw bytes, sub-slices of the
// page), and Unmarshal/Value for the typed and generic decoding of a single
// record or member.
package jsonx

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"
)

// maxDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxDepth = 512

// ErrSyntax is wrapped by every malformed-JSON error of this package. Its
// text says what was expected and what arrived: "expected JSON, got
// malformed JSON at byte 12: bad escape".
var ErrSyntax = errors.New("malformed JSON")

// ErrShape is wrapped by every error of this package about valid JSON of
// another shape than the one expected. Its text says both: `expected an
// array under "tickets", got an object`.
var ErrShape = errors.New("unexpected JSON shape")

func syntaxErr(off int, what string) error {
	return fmt.Errorf("expected JSON, got %w at byte %d: %s", ErrSyntax, off, what)
}

// shapeError is valid JSON of an unexpected shape (or an empty body,
// which is no JSON at all but is best described as such).
type shapeError struct {
	expected, got string
	empty         bool
}

func (e *shapeError) Error() string { return "expected " + e.expected + ", got " + e.got }

func (e *shapeError) Unwrap() error {
	if e.empty {
		return ErrSyntax
	}
	return ErrShape
}

// describe names the JSON value that starts at data[i] ("an object", "a
// string", ...), which the caller has validated.
func describe(data []byte, i int) string {
	if i >= len(data) {
		return "an empty body"
	}
	switch data[i] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// expect checks that data holds one valid JSON value: a syntax error if
// not, else the shape error "expected <what>, got <what data is>".
func expect(data []byte, i int, what string) error {
	if i >= len(data) {
		return &shapeError{expected: what, got: "an empty body", empty: true}
	}
	end, err := skipValue(data, i, 1)
	if err != nil {
		return err
	}
	if j := skipWS(data, end); j != len(data) {
		return syntaxErr(j, "data after the top-level value")
	}
	return &shapeError{expected: what, got: describe(data, i)}
}

// memberList names up to ten members of an object, for an error saying
// which member is missing.
func memberList(fields map[string][]byte) string {
	if len(fields) == 0 {
		return "an empty object"
	}
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, strconv.Quote(k))
	}
	slices.Sort(names)
	if len(names) > 10 {
		names = append(names[:10], "...")
	}
	return "an object with " + strings.Join(names, ", ")
}

// Unmarshal decodes one JSON value into v, as encoding/json would. It is
// github.com/goccy/go-json, pure Go: on every kind's records it decodes
// 4.2–6.8× faster than encoding/json, about 2× faster than
// go-json-experiment/json and a little faster than sonic
// (bench/decoders_test.go; the README's Performance section), and
// kinds/decoders_test.go asserts it gives exactly encoding/json's results
// on every kind's records.
func Unmarshal(data []byte, v any) error {
	return gojson.Unmarshal(data, v)
}

// Marshal encodes v as JSON.
func Marshal(v any) ([]byte, error) {
	return json.Marshal(v)
}

// plainString returns the text of raw when raw is exactly a JSON string
// without escapes, control characters or invalid UTF-8, as decoding would
// give it (the usual case, without a decoder's allocations): a record's
// change time is read this way for every record of a synchronization.
func plainString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c == '"' || c == '\\' || c < 0x20 {
			return "", false
		}
	}
	if !utf8.Valid(body) {
		return "", false
	}
	return string(body), true
}

// Value decodes a JSON value into Go values: objects as map[string]any,
// arrays as []any, strings, booleans, nil, and numbers as int64 when they are
// integers that fit, json.Number otherwise (so nothing loses precision).
func Value(data []byte) (any, error) {
	if s, ok := plainString(data); ok {
		return s, nil
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return normalize(v), nil
}

func normalize(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		return x
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
	}
	return v
}

// SplitArray cuts a JSON array into its elements, validating the whole input.
// The elements are sub-slices of data. Valid JSON that is not an array is
// an error wrapping ErrShape.
func SplitArray(data []byte) ([][]byte, error) {
	i := skipWS(data, 0)
	if i >= len(data) || data[i] != '[' {
		return nil, expect(data, i, "an array")
	}
	elems, end, err := splitArrayAt(data, i, nil, "", nil)
	if err != nil {
		return nil, err
	}
	if j := skipWS(data, end); j != len(data) {
		return nil, syntaxErr(j, "data after the top-level value")
	}
	return elems, nil
}

// splitArrayAt splits the array that starts at data[i] ('[') and returns its
// elements (appended to dst) and the offset just past it. With drop set,
// object elements whose top-level member drop is present and not null are
// validated but left out, and counted in *dropped.
func splitArrayAt(data []byte, i int, dst [][]byte, drop string, dropped *int) ([][]byte, int, error) {
	i++ // '['
	i = skipWS(data, i)
	if i < len(data) && data[i] == ']' {
		if dst == nil {
			dst = [][]byte{}
		}
		return dst, i + 1, nil
	}
	for {
		i = skipWS(data, i)
		start := i
		var (
			end  int
			err  error
			keep = true
		)
		if drop != "" && i < len(data) && data[i] == '{' {
			end, keep, err = skipRecord(data, i, drop)
		} else {
			end, err = skipValue(data, i, 1)
		}
		if err != nil {
			return nil, 0, err
		}
		if keep {
			dst = append(dst, data[start:end:end])
		} else {
			*dropped++
		}
		i = skipWS(data, end)
		if i >= len(data) {
			return nil, 0, syntaxErr(i, "unterminated array")
		}
		switch data[i] {
		case ',':
			i++
		case ']':
			return dst, i + 1, nil
		default:
			return nil, 0, syntaxErr(i, "expected ',' or ']' in array")
		}
	}
}

// skipRecord validates the object record at data[i], as skipValue does, and
// reports whether to keep it: false when its top-level member drop (as
// written, without escapes) is present and not null.
func skipRecord(data []byte, i int, drop string) (int, bool, error) {
	keep := true
	end, err := members(data, i, 1, func(ks, ke, vs int) (int, error) {
		if ke-ks-2 == len(drop) && string(data[ks+1:ke-1]) == drop && vs < len(data) && data[vs] != 'n' {
			keep = false
		}
		return skipValue(data, vs, 2)
	})
	return end, keep && err == nil, err
}

// Page is a response body cut into records and the other top-level members.
type Page struct {
	// Records are the elements of the records array (sub-slices of the body).
	Records [][]byte
	// Fields holds every other top-level member of an object body, raw.
	// It is nil when the body is a bare array.
	Fields map[string][]byte
	// Found reports whether the records key was present.
	Found bool
	// Dropped counts the records left out (see SplitPageDrop).
	Dropped int
}

// Spec says where a page's records are (see Split).
type Spec struct {
	// Key is the member of an object body that holds the records array;
	// "" means the body is a bare array of records. A dot path
	// ("data.issues.nodes") names an array inside nested objects: the
	// page's Fields are then the members beside it ("pageInfo"), and a
	// missing or null object on the way is a page without the key.
	Key string
	// Drop leaves out the records (objects) whose top-level member of this
	// name is present and not null, in the same pass: GitHub's issues list,
	// which also returns pull requests, each with a "pull_request" member.
	// They are still validated, and counted in Page.Dropped.
	Drop string
	// Required makes a body without Key an error (wrapping ErrShape)
	// instead of a page with Found false.
	Required bool
	// One, with Key "", reads an object body as a page of that one record:
	// GitHub's contents endpoint answers a directory with an array of its
	// entries and a file with the file's own object.
	One bool
}

// SplitPage cuts body into a Page. With key "" the body must be a bare array
// of records; otherwise it must be an object and the records are the
// elements of the array under key (a null or missing key yields no records).
// The whole body is validated in the same pass.
func SplitPage(body []byte, key string) (Page, error) {
	return Split(body, Spec{Key: key})
}

// SplitPageDrop is SplitPage that also leaves out the records with a
// present, non-null member drop (see Spec.Drop).
func SplitPageDrop(body []byte, key, drop string) (Page, error) {
	return Split(body, Spec{Key: key, Drop: drop})
}

// Split cuts body into a Page as spec says, validating the whole body in
// the same pass. Malformed JSON is an error wrapping ErrSyntax; valid JSON
// of another shape (an object where the records array should be, a string
// under the key, a missing key when spec requires it) one wrapping ErrShape
// that says what was expected and what arrived.
func Split(body []byte, spec Spec) (Page, error) {
	if dot := strings.LastIndexByte(spec.Key, '.'); dot >= 0 {
		return splitNested(body, spec, dot)
	}
	var p Page
	key, drop := spec.Key, spec.Drop
	if key == "" {
		i := skipWS(body, 0)
		if spec.One && i < len(body) && body[i] == '{' {
			end, err := skipValue(body, i, 1)
			if err != nil {
				return Page{}, err
			}
			if j := skipWS(body, end); j != len(body) {
				return Page{}, syntaxErr(j, "data after the top-level value")
			}
			return Page{Records: [][]byte{body[i:end:end]}, Found: true}, nil
		}
		if i >= len(body) || body[i] != '[' {
			what := "an array"
			if spec.One {
				what = "an array or an object"
			}
			return Page{}, expect(body, i, what)
		}
		recs, end, err := splitArrayAt(body, i, make([][]byte, 0, 128), drop, &p.Dropped)
		if err != nil {
			return Page{}, err
		}
		if j := skipWS(body, end); j != len(body) {
			return Page{}, syntaxErr(j, "data after the top-level value")
		}
		return Page{Records: recs, Found: true, Dropped: p.Dropped}, nil
	}
	i := skipWS(body, 0)
	if i >= len(body) || body[i] != '{' {
		return p, expect(body, i, fmt.Sprintf("an object with an array under %q", key))
	}
	p, end, shape, err := splitObject(body, i, key, drop)
	if err != nil {
		return Page{}, err
	}
	if j := skipWS(body, end); j != len(body) {
		return Page{}, syntaxErr(j, "data after the top-level value")
	}
	if shape != nil {
		return Page{}, shape
	}
	if !p.Found && spec.Required {
		return Page{}, &shapeError{expected: fmt.Sprintf("an array under %q", key), got: memberList(p.Fields)}
	}
	return p, nil
}

// splitObject splits the object at body[i] ('{'): the records array under
// key, split where it stands, the other members kept as Fields. It returns
// the offset past the object and, apart from a syntax error, the shape
// error of a key whose value is neither an array nor null.
func splitObject(body []byte, i int, key, drop string) (p Page, end int, shape, err error) {
	p.Fields = make(map[string][]byte, 8)
	// One pass: the records array is split where it stands, not first
	// skipped as a member and then split again.
	end, err = members(body, i, 1, func(ks, ke, vs int) (int, error) {
		k, err := unescapeKey(body, ks, ke)
		if err != nil {
			return 0, err
		}
		switch {
		case string(k) != key:
			ve, err := skipValue(body, vs, 1)
			if err == nil {
				p.Fields[string(k)] = body[vs:ve:ve]
			}
			return ve, err
		case vs < len(body) && body[vs] == '[':
			p.Dropped = 0 // a repeated key: the last one counts
			recs, ve, err := splitArrayAt(body, vs, make([][]byte, 0, 128), drop, &p.Dropped)
			p.Records, p.Found, shape = recs, err == nil, nil
			return ve, err
		default:
			ve, err := skipValue(body, vs, 1)
			p.Records, p.Found, shape = nil, true, nil
			if err == nil && body[vs] != 'n' {
				shape = &shapeError{expected: fmt.Sprintf("an array under %q", key), got: describe(body, vs)}
			}
			return ve, err
		}
	})
	return p, end, shape, err
}

// splitNested is Split of a Key that is a dot path, in one pass over the
// body: the objects on the path are walked into where they stand (a
// GraphQL answer's data, its connection), every other value validated as
// it is skipped, and the object that holds the last step split.
func splitNested(body []byte, spec Spec, dot int) (Page, error) {
	outer, key := spec.Key[:dot], spec.Key[dot+1:]
	var (
		p     Page
		shape error
		at    = -1 // where the innermost object starts; -1: not reached
	)
	i := skipWS(body, 0)
	if i >= len(body) {
		return Page{}, validate(body)
	}
	end, err := descend(body, i, 1, strings.Split(outer, "."), func(j int) (int, error) {
		at = j
		if body[j] != '{' {
			return skipValue(body, j, 1)
		}
		var end int
		var err error
		p, end, shape, err = splitObject(body, j, key, spec.Drop)
		return end, err
	})
	if err != nil {
		return Page{}, err
	}
	if j := skipWS(body, end); j != len(body) {
		return Page{}, syntaxErr(j, "data after the top-level value")
	}
	if at < 0 || body[at] != '{' {
		if at >= 0 && body[at] != 'n' {
			return Page{}, &shapeError{expected: fmt.Sprintf("an object under %q", outer), got: describe(body, at)}
		}
		if spec.Required {
			return Page{}, &shapeError{expected: fmt.Sprintf("an object under %q", outer), got: describePath(body, outer)}
		}
		return Page{}, nil
	}
	if shape != nil {
		se := shape.(*shapeError)
		se.expected = fmt.Sprintf("an array under %q", spec.Key)
		return Page{}, se
	}
	if !p.Found && spec.Required {
		return Page{}, &shapeError{expected: fmt.Sprintf("an array under %q", spec.Key), got: memberList(p.Fields)}
	}
	return p, nil
}

// descend walks the value at data[i] and returns the offset past it,
// calling at, which must return the offset past the value it starts at,
// for the value at path within it (objects only); a value that is not an
// object, or has no member of the path's next name, is skipped.
func descend(data []byte, i, depth int, path []string, at func(j int) (int, error)) (int, error) {
	if len(path) == 0 {
		return at(i)
	}
	if data[i] != '{' {
		return skipValue(data, i, depth)
	}
	return members(data, i, depth, func(ks, ke, vs int) (int, error) {
		k, err := unescapeKey(data, ks, ke)
		if err != nil {
			return 0, err
		}
		if string(k) != path[0] || vs >= len(data) {
			return skipValue(data, vs, depth+1)
		}
		return descend(data, vs, depth+1, path[1:], at)
	})
}

// validate checks that data holds exactly one valid JSON value.
func validate(data []byte) error {
	i := skipWS(data, 0)
	if i >= len(data) {
		return &shapeError{expected: "JSON", got: "an empty body", empty: true}
	}
	end, err := skipValue(data, i, 1)
	if err != nil {
		return err
	}
	if j := skipWS(data, end); j != len(data) {
		return syntaxErr(j, "data after the top-level value")
	}
	return nil
}

// describePath says what a valid body holds instead of an object at the
// dot path: the members of the deepest object on the way.
func describePath(body []byte, path string) string {
	cur := body
	for step := range strings.SplitSeq(path, ".") {
		next, ok := Lookup(cur, step)
		if !ok {
			if m, err := Members(cur); err == nil {
				return memberList(m)
			}
			return describe(cur, skipWS(cur, 0))
		}
		if IsNull(next) {
			return "null"
		}
		cur = next
	}
	return describe(cur, skipWS(cur, 0))
}

// Object returns the record object of a response body: the body itself,
// as it is (key ""), or the object under its member key (a dot path names
// an object inside nested objects: "data.issue"). Malformed JSON is an error
// wrapping ErrSyntax; anything but an object there (a missing key, null,
// an array) one wrapping ErrShape that says what arrived.
func Object(body []byte, key string) ([]byte, error) {
	if dot := strings.LastIndexByte(key, '.'); dot >= 0 {
		if err := validate(body); err != nil {
			return nil, err
		}
		v, ok := Lookup(body, strings.Split(key, ".")...)
		if !ok || IsNull(v) {
			return nil, &shapeError{expected: fmt.Sprintf("an object under %q", key), got: describePath(body, key)}
		}
		if v[0] != '{' {
			return nil, &shapeError{expected: fmt.Sprintf("an object under %q", key), got: describe(v, 0)}
		}
		return v, nil
	}
	m, err := Members(body)
	if err != nil {
		if key != "" && errors.Is(err, ErrShape) {
			return nil, expect(body, skipWS(body, 0), fmt.Sprintf("an object with an object under %q", key))
		}
		return nil, err
	}
	if key == "" {
		return body, nil
	}
	v, ok := m[key]
	if !ok {
		return nil, &shapeError{expected: fmt.Sprintf("an object under %q", key), got: memberList(m)}
	}
	if v[0] != '{' {
		return nil, &shapeError{expected: fmt.Sprintf("an object under %q", key), got: describe(v, 0)}
	}
	return v, nil
}

// Members returns the top-level members of a JSON object, raw. Valid JSON
// that is not an object is an error wrapping ErrShape.
func Members(data []byte) (map[string][]byte, error) {
	i := skipWS(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, expect(data, i, "an object")
	}
	m := make(map[string][]byte, 8)
	end, err := walkObject(data, i, func(k []byte, vs, ve int) error {
		m[string(k)] = data[vs:ve:ve]
		return nil
	})
	if err != nil {
		return nil, err
	}
	if j := skipWS(data, end); j != len(data) {
		return nil, syntaxErr(j, "data after the top-level value")
	}
	return m, nil
}

// Lookup follows a path of object keys (and decimal array indexes) from the
// value data and returns the raw value found there. It reports false when a
// step does not exist, or when the input is malformed before the value is
// found; what follows an object's first member of that key is not read (a
// record's pages are validated when they are split, and a lookup of a key
// early in a large record need not walk the rest).
func Lookup(data []byte, path ...string) ([]byte, bool) {
	cur := data
	for _, step := range path {
		i := skipWS(cur, 0)
		if i >= len(cur) {
			return nil, false
		}
		var next []byte
		switch cur[i] {
		case '{':
			found := false
			_, err := walkObject(cur, i, func(k []byte, vs, ve int) error {
				if string(k) == step {
					next, found = cur[vs:ve], true
					return errFound
				}
				return nil
			})
			if err != nil && err != errFound || !found {
				return nil, false
			}
		case '[':
			idx, err := strconv.Atoi(step)
			if err != nil || idx < 0 {
				return nil, false
			}
			elems, _, err := splitArrayAt(cur, i, nil, "", nil)
			if err != nil || idx >= len(elems) {
				return nil, false
			}
			next = elems[idx]
		default:
			return nil, false
		}
		cur = next
	}
	return cur, true
}

// IsNull reports whether raw is absent or the JSON literal null.
func IsNull(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// String decodes raw as a JSON string; null or absent gives "", false.
func String(raw []byte) (string, bool) {
	if s, ok := plainString(raw); ok {
		return s, true
	}
	if IsNull(raw) {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// Int decodes raw as an integer (a JSON number, or a string of digits).
func Int(raw []byte) (int64, bool) {
	if IsNull(raw) {
		return 0, false
	}
	s := string(bytes.TrimSpace(raw))
	if len(s) > 1 && s[0] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			s = u
		}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, true
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f), true
	}
	return 0, false
}

// Bool decodes raw as a JSON boolean.
func Bool(raw []byte) (bool, bool) {
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// walkObject walks the top-level object at data[i] ('{'), calling fn with
// each key (unescaped) and the offsets of its value; it returns the offset
// just past the object.
// errFound stops a walk that found what it looked for.
var errFound = errors.New("found")

func walkObject(data []byte, i int, fn func(key []byte, vs, ve int) error) (int, error) {
	return walkObjectDepth(data, i, 1, fn)
}

func skipWS(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipValue validates the value at data[i] and returns the offset past it.
func skipValue(data []byte, i, depth int) (int, error) {
	if depth > maxDepth {
		return 0, syntaxErr(i, "nesting too deep")
	}
	if i >= len(data) {
		return 0, syntaxErr(i, "unexpected end of input")
	}
	switch c := data[i]; {
	case c == '"':
		return skipString(data, i)
	case c == '{':
		return members(data, i, depth, nil)
	case c == '[':
		i++
		i = skipWS(data, i)
		if i < len(data) && data[i] == ']' {
			return i + 1, nil
		}
		for {
			i = skipWS(data, i)
			end, err := skipValue(data, i, depth+1)
			if err != nil {
				return 0, err
			}
			i = skipWS(data, end)
			if i >= len(data) {
				return 0, syntaxErr(i, "unterminated array")
			}
			switch data[i] {
			case ',':
				i++
			case ']':
				return i + 1, nil
			default:
				return 0, syntaxErr(i, "expected ',' or ']' in array")
			}
		}
	case c == 't':
		return literal(data, i, "true")
	case c == 'f':
		return literal(data, i, "false")
	case c == 'n':
		return literal(data, i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return skipNumber(data, i)
	}
	return 0, syntaxErr(i, "unexpected character")
}

// walkObjectDepth validates the object at data[i] ('{') nested depth
// deep, calling fn (when not nil) with each member's unescaped key and the
// offsets of its value.
func walkObjectDepth(data []byte, i, depth int, fn func(key []byte, vs, ve int) error) (int, error) {
	if fn == nil {
		return members(data, i, depth, nil)
	}
	return members(data, i, depth, func(ks, ke, vs int) (int, error) {
		ve, err := skipValue(data, vs, depth+1)
		if err != nil {
			return ve, err
		}
		key, err := unescapeKey(data, ks, ke)
		if err != nil {
			return 0, err
		}
		return ve, fn(key, vs, ve)
	})
}

// members walks the object at data[i] ('{'), nested depth deep: the one
// loop over keys, colons and commas. For each member, value gets the
// offsets of its key (quotes included) and the start of its value, and
// returns the end of the value, having validated it (or split it, or
// looked into it) as it needs. A nil value validates each member's value
// as skipValue does, without a call through a func value: that is how
// every record of every page is validated, so it is the hot path.
func members(data []byte, i, depth int, value func(ks, ke, vs int) (int, error)) (int, error) {
	i++ // '{'
	i = skipWS(data, i)
	if i < len(data) && data[i] == '}' {
		return i + 1, nil
	}
	for {
		i = skipWS(data, i)
		if i >= len(data) || data[i] != '"' {
			return 0, syntaxErr(i, "expected a string key")
		}
		ks := i
		ke, err := skipString(data, i)
		if err != nil {
			return 0, err
		}
		i = skipWS(data, ke)
		if i >= len(data) || data[i] != ':' {
			return 0, syntaxErr(i, "expected ':'")
		}
		var ve int
		if value == nil {
			ve, err = skipValue(data, skipWS(data, i+1), depth+1)
		} else {
			ve, err = value(ks, ke, skipWS(data, i+1))
		}
		if err != nil {
			return 0, err
		}
		i = skipWS(data, ve)
		if i >= len(data) {
			return 0, syntaxErr(i, "unterminated object")
		}
		switch data[i] {
		case ',':
			i++
		case '}':
			return i + 1, nil
		default:
			return 0, syntaxErr(i, "expected ',' or '}' in object")
		}
	}
}

// unescapeKey returns the key whose quoted form is data[ks:ke], unescaped.
func unescapeKey(data []byte, ks, ke int) ([]byte, error) {
	key := data[ks+1 : ke-1]
	if bytes.IndexByte(key, '\\') < 0 {
		return key, nil
	}
	var s string
	if err := json.Unmarshal(data[ks:ke], &s); err != nil {
		return nil, syntaxErr(ks, "bad key")
	}
	return []byte(s), nil
}

func literal(data []byte, i int, lit string) (int, error) {
	if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return 0, syntaxErr(i, "bad literal")
	}
	return i + len(lit), nil
}

// Masks for scanning eight bytes at a time: a word has a byte below n when
// (x - lsb*n) &^ x & msb != 0, and a zero byte (after xor with a
// repeated byte c: a byte equal to c) likewise with n = 1.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

func skipString(data []byte, i int) (int, error) {
	i++ // opening quote
	for {
		// Skip eight plain bytes at a time: none is '"', '\\' or a
		// control character. In a word that holds one, the lowest
		// flagged byte is the first such byte (a borrow only runs
		// upwards from it), so the scan goes straight to it.
		for i+8 <= len(data) {
			x := binary.LittleEndian.Uint64(data[i:])
			q := x ^ (lsb * '"')
			b := x ^ (lsb * '\\')
			if m := ((q-lsb)&^q | (b-lsb)&^b | (x-lsb*0x20)&^x) & msb; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(data) {
			break
		}
		c := data[i]
		switch {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			if i+1 >= len(data) {
				return 0, syntaxErr(i, "unterminated escape")
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(data) {
					return 0, syntaxErr(i, "short \\u escape")
				}
				for _, h := range data[i+2 : i+6] {
					if !isHex(h) {
						return 0, syntaxErr(i, "bad \\u escape")
					}
				}
				i += 6
			default:
				return 0, syntaxErr(i, "bad escape")
			}
		case c < 0x20:
			return 0, syntaxErr(i, "control character in string")
		default:
			i++
		}
	}
	return 0, syntaxErr(i, "unterminated string")
}

func skipStringSlow(data []byte, i int) (int, error) {
	i++ // opening quote
	for i < len(data) {
		c := data[i]
		switch {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			if i+1 >= len(data) {
				return 0, syntaxErr(i, "unterminated escape")
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(data) {
					return 0, syntaxErr(i, "short \\u escape")
				}
				for _, h := range data[i+2 : i+6] {
					if !isHex(h) {
						return 0, syntaxErr(i, "bad \\u escape")
					}
				}
				i += 6
			default:
				return 0, syntaxErr(i, "bad escape")
			}
		case c < 0x20:
			return 0, syntaxErr(i, "control character in string")
		default:
			i++
		}
	}
	return 0, syntaxErr(i, "unterminated string")
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func skipNumber(data []byte, i int) (int, error) {
	start := i
	if data[i] == '-' {
		i++
	}
	if i >= len(data) {
		return 0, syntaxErr(start, "bad number")
	}
	switch {
	case data[i] == '0':
		i++
	case data[i] >= '1' && data[i] <= '9':
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	default:
		return 0, syntaxErr(start, "bad number")
	}
	if i < len(data) && data[i] == '.' {
		i++
		d := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		if i == d {
			return 0, syntaxErr(start, "bad number")
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		d := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		if i == d {
			return 0, syntaxErr(start, "bad number")
		}
	}
	return i, nil
}
