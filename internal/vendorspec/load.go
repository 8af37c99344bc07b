package vendorspec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// readTree reads a JSON or YAML description into plain values
// (map[string]any, []any, strings, json.Number, bools, nil).
func readTree(path string) (map[string]any, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var v any
	if strings.HasSuffix(path, ".json") {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	} else {
		if err := yaml.Unmarshal(b, &v); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		v = stringKeys(v)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: not an object", path)
	}
	return m, nil
}

// stringKeys turns YAML's mappings with non-string keys (a response
// status written 200, not '200') into string-keyed maps, as JSON has them.
func stringKeys(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = stringKeys(e)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = stringKeys(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = stringKeys(e)
		}
		return x
	}
	return v
}

// pointer splits a local JSON reference ("#/components/schemas/a~1b")
// into its unescaped segments.
func pointer(ref string) ([]string, bool) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, false
	}
	segs := strings.Split(ref[2:], "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return segs, true
}

// lookup finds the value at segs in tree.
func lookup(tree any, segs []string) (any, bool) {
	for _, s := range segs {
		switch x := tree.(type) {
		case map[string]any:
			v, ok := x[s]
			if !ok {
				return nil, false
			}
			tree = v
		case []any:
			var i int
			if _, err := fmt.Sscan(s, &i); err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			tree = x[i]
		default:
			return nil, false
		}
	}
	return tree, true
}

// put sets the value at segs in tree, making the maps on the way.
func put(tree map[string]any, segs []string, v any) {
	for _, s := range segs[:len(segs)-1] {
		next, ok := tree[s].(map[string]any)
		if !ok {
			next = map[string]any{}
			tree[s] = next
		}
		tree = next
	}
	tree[segs[len(segs)-1]] = v
}

// unit is how much of a reference's target is copied into a partial
// description: the whole component (or path item) it is in.
func unit(segs []string) []string {
	n := len(segs)
	switch segs[0] {
	case "components":
		n = 3
	case "definitions", "parameters", "responses", "securityDefinitions", "paths":
		n = 2
	}
	return segs[:min(n, len(segs))]
}

// namedKeys are the keys under which a map's keys are names (of
// properties, components, media types, …), not keywords.
var namedKeys = map[string]bool{
	"properties": true, "patternProperties": true, "schemas": true, "definitions": true,
	"parameters": true, "responses": true, "headers": true, "requestBodies": true,
	"securitySchemes": true, "securityDefinitions": true, "content": true, "paths": true,
	"callbacks": true, "links": true, "encoding": true, "mapping": true, "variables": true,
}

// partial copies what validation reads of a description: the given path
// items, every component they reach through "$ref", and the extra roots
// (pointers), leaving out examples (documentation only: they are neither
// read nor checked when validating an exchange, and they are a third of
// GitHub's file). A reference to nothing is an error.
func partial(tree map[string]any, paths []string, roots []string, keep []string) (map[string]any, error) {
	out := map[string]any{}
	for _, k := range keep {
		if v, ok := tree[k]; ok {
			out[k] = v
		}
	}
	var refs []string
	var copyVal func(v any, named bool) any
	copyVal = func(v any, named bool) any {
		switch x := v.(type) {
		case map[string]any:
			m := make(map[string]any, len(x))
			for k, e := range x {
				if !named && (k == "example" || k == "examples" || k == "x-examples") {
					continue
				}
				if k == "$ref" && !named {
					if s, ok := e.(string); ok {
						refs = append(refs, s)
					}
				}
				if k == "mapping" && !named { // a discriminator's
					if mm, ok := e.(map[string]any); ok {
						for _, r := range mm {
							if s, ok := r.(string); ok && strings.HasPrefix(s, "#/") {
								refs = append(refs, s)
							}
						}
					}
				}
				m[k] = copyVal(e, !named && namedKeys[k])
			}
			return m
		case []any:
			s := make([]any, len(x))
			for i, e := range x {
				s[i] = copyVal(e, false)
			}
			return s
		}
		return v
	}
	pathItems := map[string]any{}
	srcPaths, _ := tree["paths"].(map[string]any)
	for _, p := range paths {
		item, ok := srcPaths[p]
		if !ok {
			return nil, fmt.Errorf("no path %s", p)
		}
		pathItems[p] = copyVal(item, false)
	}
	out["paths"] = pathItems
	refs = append(refs, roots...)
	done := map[string]bool{}
	var dangling []string
	for len(refs) > 0 {
		ref := refs[len(refs)-1]
		refs = refs[:len(refs)-1]
		segs, ok := pointer(ref)
		if !ok {
			continue // an external reference: kin-openapi reports it
		}
		u := unit(segs)
		key := strings.Join(u, "/")
		if done[key] {
			continue
		}
		done[key] = true
		if u[0] == "paths" {
			if _, ok := pathItems[u[1]]; ok {
				continue
			}
		}
		v, ok := lookup(tree, u)
		if !ok {
			dangling = append(dangling, ref)
			continue
		}
		put(out, u, copyVal(v, false))
		if _, ok := lookup(tree, segs); !ok {
			dangling = append(dangling, ref)
		}
	}
	if len(dangling) > 0 {
		return nil, fmt.Errorf("$ref to nothing: %s", strings.Join(dangling, ", "))
	}
	return out, nil
}
