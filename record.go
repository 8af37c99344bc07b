package tributary

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tributary-dev/tributary/internal/jsonx"
)

// Record is one record exactly as the source sent it: the raw JSON bytes,
// lossless (integer ids beyond 2^53 survive, unknown fields are kept).
// Decode it into a typed struct, read it as a map, or look up single fields
// by dot path. The zero Record is the JSON null.
type Record struct {
	raw []byte
}

// NewRecord wraps raw JSON bytes as a Record without copying them.
func NewRecord(raw []byte) Record { return Record{raw: raw} }

// RecordOf encodes v as JSON and returns it as a Record.
func RecordOf(v any) (Record, error) {
	b, err := jsonx.Marshal(v)
	if err != nil {
		return Record{}, err
	}
	return Record{raw: b}, nil
}

// Raw returns the record's JSON bytes. The caller must not modify them.
func (r Record) Raw() json.RawMessage {
	if r.raw == nil {
		return json.RawMessage("null")
	}
	return r.raw
}

// IsZero reports whether the record holds nothing (or JSON null).
func (r Record) IsZero() bool { return jsonx.IsNull(r.raw) }

// Decode unmarshals the record into v, as encoding/json would.
func (r Record) Decode(v any) error {
	return jsonx.Unmarshal(r.Raw(), v)
}

// Map returns the record as a map. Integer numbers come back as int64;
// other numbers as json.Number, so no precision is lost.
func (r Record) Map() (map[string]any, error) {
	v, err := jsonx.Value(r.Raw())
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("tributary: record is a JSON %T, not an object", v)
	}
	return m, nil
}

// Lookup returns the raw JSON at a dot path ("via.source.from.address";
// array elements by index: "tags.0"), and whether it exists.
func (r Record) Lookup(path string) (json.RawMessage, bool) {
	if path == "" {
		return r.Raw(), true
	}
	return jsonx.Lookup(r.raw, strings.Split(path, ".")...)
}

// Field returns the value at a dot path decoded as by Map, or nil and
// false when the path does not exist.
func (r Record) Field(path string) (any, bool) {
	raw, ok := r.Lookup(path)
	if !ok {
		return nil, false
	}
	v, err := jsonx.Value(raw)
	if err != nil {
		return nil, false
	}
	return v, true
}

// StringAt returns the string at a dot path ("" and false when absent, null
// or not a string).
func (r Record) StringAt(path string) (string, bool) {
	raw, ok := r.Lookup(path)
	if !ok {
		return "", false
	}
	return jsonx.String(raw)
}

// IntAt returns the integer at a dot path (also from a string of digits, as
// some vendors send ids).
func (r Record) IntAt(path string) (int64, bool) {
	raw, ok := r.Lookup(path)
	if !ok {
		return 0, false
	}
	return jsonx.Int(raw)
}

// MarshalJSON returns the record's bytes unchanged.
func (r Record) MarshalJSON() ([]byte, error) { return r.Raw(), nil }

// UnmarshalJSON keeps a copy of data as the record.
func (r *Record) UnmarshalJSON(data []byte) error {
	r.raw = append([]byte(nil), data...)
	return nil
}

// Format prints the record's JSON for every verb, so %v of a Record or of a
// Page is readable.
func (r Record) Format(f fmt.State, verb rune) {
	_, _ = f.Write(r.Raw())
}
