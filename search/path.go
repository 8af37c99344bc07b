package search

import (
	"strings"
)

// Path is a field path: the keys leading from a record to a value, outermost
// first. Path{"via", "channel"} is the channel member of the record's via
// object.
//
// A path is written as a string in two forms:
//
//   - a dot path, "via.channel": the keys separated by dots;
//   - a JSON array of keys, `["via","channel"]`, for keys that contain a dot
//     (`["custom.fields","size"]`) or that a dot path cannot carry.
//
// Both forms are accepted wherever a field name is: in filter and sort
// objects (as the member name, e.g. {"eq": {"[\"a.b\",\"c\"]": 1}}), by the
// builders (Eq(`["a.b","c"]`, 1), or Eq(Keys("a.b", "c"), 1)) and in the
// fields parameter. There, items may also be real JSON arrays of keys
// ("fields": ["id", ["via","channel"]]), as Airbyte's generated clients send
// them, and a path that has no dot form is encoded so. Keys are never empty.
type Path []string

// ParsePath parses a field name in either form of Path.
func ParsePath(s string) (Path, error) {
	if strings.HasPrefix(s, "[") {
		n, err := parseJSON(s, false)
		if err != nil {
			return nil, &Error{Field: s, Reason: "a field name starting with '[' must be a JSON array of keys"}
		}
		return pathFromNode(n, s)
	}
	if s == "" {
		return nil, &Error{Field: s, Reason: "empty field name"}
	}
	p := Path(strings.Split(s, "."))
	for _, k := range p {
		if k == "" {
			return nil, &Error{Field: s, Reason: "empty key in a dot path"}
		}
	}
	return p, nil
}

// pathFromNode converts a parsed JSON array of keys to a Path.
func pathFromNode(n node, name string) (Path, error) {
	if n.k != kArr {
		return nil, &Error{Field: name, Reason: "a field path must be a string or an array of keys"}
	}
	if len(n.c.vals) == 0 {
		return nil, &Error{Field: name, Reason: "empty array of keys"}
	}
	p := make(Path, len(n.c.vals))
	for i := range n.c.vals {
		v := &n.c.vals[i]
		if v.k != kStr || v.s == "" {
			return nil, &Error{Field: name, Reason: "the keys of a field path must be non-empty strings"}
		}
		p[i] = v.s
	}
	return p, nil
}

// Keys returns the field name of the path made of keys, in the form ParsePath
// reads: a dot path when no key needs the array form, else a JSON array.
func Keys(keys ...string) string { return Path(keys).String() }

// dotSafe reports whether p can be written as a dot path.
func (p Path) dotSafe() bool {
	if len(p) == 0 || strings.HasPrefix(p[0], "[") {
		return false
	}
	for _, k := range p {
		if k == "" || strings.Contains(k, ".") {
			return false
		}
	}
	return true
}

// String returns the field name of p: its dot path, or the JSON array of its
// keys when a key is empty, contains a dot or the first key starts with '['.
func (p Path) String() string {
	if p.dotSafe() {
		return strings.Join(p, ".")
	}
	b := []byte{'['}
	for i, k := range p {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
	}
	return string(append(b, ']'))
}

// MarshalJSON encodes p as in the fields parameter: its dot path as a JSON
// string when it has one, else a JSON array of its keys.
func (p Path) MarshalJSON() ([]byte, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	if p.dotSafe() {
		return appendString(nil, p.String()), nil
	}
	return []byte(p.String()), nil
}

// UnmarshalJSON decodes a field name (either form) or a JSON array of keys.
func (p *Path) UnmarshalJSON(b []byte) error {
	n, err := parseJSON(string(b), false)
	if err != nil {
		return &Error{Field: "fields", Reason: err.Error()}
	}
	q, err := pathOf(&n)
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// pathOf converts a parsed string or array of keys.
func pathOf(n *node) (Path, error) {
	switch n.k {
	case kStr:
		return ParsePath(n.s)
	case kArr:
		return pathFromNode(*n, string(n.appendJSON(nil)))
	}
	return nil, &Error{Field: string(n.appendJSON(nil)), Reason: "a field path must be a string or an array of keys"}
}

func (p Path) check() error {
	if len(p) == 0 {
		return &Error{Reason: "empty field path"}
	}
	for _, k := range p {
		if k == "" {
			return &Error{Field: p.String(), Reason: "empty key in a field path"}
		}
	}
	return nil
}
