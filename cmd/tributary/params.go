package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/scalar"
)

// paramFlags are the two ways to give an operation's params.
type paramFlags struct {
	json  string   // --params: a JSON object, - for stdin, @file for a file
	pairs []string // -p key=value, repeated
}

// operation names what params are typed for.
type operation struct {
	kind     string
	entities []tributary.Entity
	entity   string
	action   tributary.Action
}

// paramError is a validation error naming the operation and the parameter.
func (op operation) paramError(param, format string, args ...any) error {
	return &tributary.Error{Kind: op.kind, Entity: op.entity, Action: op.action, Param: param,
		Err: tributary.ErrInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// flagError is the error of a flag of the command that carries a param
// of op (--range for range_header): it names the flag the user typed.
func (op operation) flagError(flag, format string, args ...any) error {
	return &tributary.Error{Kind: op.kind, Entity: op.entity, Action: op.action,
		Err: tributary.ErrInvalidParams, Message: flag + ": " + fmt.Sprintf(format, args...)}
}

// params builds the params object: --params first, then each -p on top of
// it. A dotted key ("filter.callIds") sets a member of a nested object,
// unless the catalogue has a parameter of exactly that name. Values are typed
// by the catalogue: integers, numbers and booleans are parsed, arrays split on
// commas (or given as a JSON array), objects read as JSON (integers and
// booleans as internal/scalar reads them, the library's own rule); a value the
// catalogue does not type is read as JSON when it is JSON, else kept as a
// string.
func (a *app) params(op operation, f paramFlags) (tributary.Params, error) {
	p := tributary.Params{}
	if f.json != "" {
		b, err := a.readArg("--params", f.json)
		if err != nil {
			return nil, op.paramError("", "%v", err)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return nil, op.paramError("", "--params is not a JSON object: %v", err)
		}
		for k, v := range m {
			p[k] = numbers(v)
		}
	}
	var params []tributary.Param
	if e, ok := tributary.FindEntity(op.entities, op.entity); ok {
		params = e.Params[op.action]
	}
	for _, kv := range f.pairs {
		key, value, ok := strings.Cut(kv, "=")
		if !ok || key == "" {
			return nil, op.paramError(key, "-p takes key=value, got %q", kv)
		}
		if prm, ok := findParam(params, []string{key}); ok {
			v, err := typed(op, key, prm, value)
			if err != nil {
				return nil, err
			}
			p[key] = v
			continue
		}
		path := strings.Split(key, ".")
		prm, _ := findParam(params, path)
		v, err := typed(op, key, prm, value)
		if err != nil {
			return nil, err
		}
		if err := setPath(p, path, v); err != nil {
			return nil, op.paramError(key, "%v", err)
		}
	}
	return p, nil
}

// readArg reads a flag value that may name stdin (-) or a file (@path).
func (a *app) readArg(flag, v string) ([]byte, error) {
	switch {
	case v == "-":
		b, err := readAllLimit(a.stdin)
		if err != nil {
			return nil, fmt.Errorf("reading %s from stdin: %w", flag, err)
		}
		return b, nil
	case strings.HasPrefix(v, "@"):
		b, err := os.ReadFile(v[1:])
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", flag, err)
		}
		return b, nil
	}
	return []byte(v), nil
}

// findParam follows path through the catalogue's parameters and the fields
// of object parameters. A zero Param with ok false means untyped.
func findParam(params []tributary.Param, path []string) (tributary.Param, bool) {
	var cur tributary.Param
	for i, name := range path {
		found := false
		for _, p := range params {
			if p.Name == name {
				cur, found = p, true
				break
			}
		}
		if !found {
			return tributary.Param{}, false
		}
		if i < len(path)-1 {
			params = cur.Fields
		}
	}
	return cur, true
}

// typed converts a -p value to the type of its parameter.
func typed(op operation, key string, p tributary.Param, v string) (any, error) {
	switch p.Type {
	case tributary.TypeString:
		return v, nil
	case tributary.TypeInteger:
		n, err := scalar.Int(strings.TrimSpace(v))
		if errors.Is(err, scalar.ErrRange) {
			return nil, op.paramError(key, "%q is out of the integer range", v)
		}
		if err != nil {
			return nil, op.paramError(key, "%q is not an integer", v)
		}
		return n, nil
	case tributary.TypeNumber:
		n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return nil, op.paramError(key, "%q is not a number", v)
		}
		return n, nil
	case tributary.TypeBoolean:
		b, ok := scalar.Bool(strings.TrimSpace(v))
		if !ok {
			return nil, op.paramError(key, "%q is not a boolean (true or false)", v)
		}
		return b, nil
	case tributary.TypeArray:
		if strings.HasPrefix(strings.TrimSpace(v), "[") {
			var arr []any
			if err := decodeJSON(v, &arr); err != nil {
				return nil, op.paramError(key, "not a JSON array: %v", err)
			}
			return arr, nil
		}
		out := []any{}
		if v == "" {
			return out, nil
		}
		item := tributary.Param{}
		if p.Items != nil {
			item = *p.Items
		}
		for _, s := range strings.Split(v, ",") {
			x, err := typed(op, key, item, strings.TrimSpace(s))
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
		return out, nil
	case tributary.TypeObject:
		var m map[string]any
		if err := decodeJSON(v, &m); err != nil || m == nil {
			return nil, op.paramError(key, "%q is not a JSON object", v)
		}
		return m, nil
	}
	// Untyped (TypeAny, a member of a free-form object, or a name the
	// catalogue does not have): JSON when it is JSON, else a string.
	var x any
	if decodeJSON(v, &x) == nil {
		return x, nil
	}
	return v, nil
}

// decodeJSON decodes s into v keeping numbers exact.
func decodeJSON(s string, v any) error {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data after the JSON value")
	}
	numbersIn(v)
	return nil
}

// numbersIn converts the json.Numbers that a decode into *[]any, *map or
// *any produced.
func numbersIn(v any) {
	switch t := v.(type) {
	case *any:
		*t = numbers(*t)
	case *[]any:
		*t = numbers(*t).([]any)
	case *map[string]any:
		if *t != nil {
			*t = numbers(*t).(map[string]any)
		}
	}
}

// numbers turns json.Number into int64 when integral, else float64, as
// tributary.Validate expects numbers.
func numbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		if n, err := t.Int64(); err == nil {
			return n
		}
		f, _ := t.Float64()
		return f
	case []any:
		for i := range t {
			t[i] = numbers(t[i])
		}
		return t
	case map[string]any:
		for k := range t {
			t[k] = numbers(t[k])
		}
		return t
	}
	return v
}

// setPath sets p[path[0]][path[1]]... = v, creating objects on the way.
func setPath(p map[string]any, path []string, v any) error {
	for i, k := range path[:len(path)-1] {
		next, ok := p[k]
		if !ok {
			m := map[string]any{}
			p[k] = m
			p = m
			continue
		}
		m, ok := next.(map[string]any)
		if !ok {
			return fmt.Errorf("%s is not an object", strings.Join(path[:i+1], "."))
		}
		p = m
	}
	p[path[len(path)-1]] = v
	return nil
}
