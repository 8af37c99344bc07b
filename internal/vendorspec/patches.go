package vendorspec

import (
	"fmt"
	"strings"
)

// patch fixes one documented defect of a vendor's description in the
// parsed copy (the file stays byte for byte as published). apply fails
// when the defect is no longer there, so that a patch never outlives the
// defect it was written for.
type patch struct {
	why   string
	apply func(tree map[string]any) error
}

// define adds a component the description refers to but does not define.
func define(ptr string, schema map[string]any, why string) patch {
	return patch{why: why, apply: func(tree map[string]any) error {
		segs, _ := pointer(ptr)
		if _, ok := lookup(tree, segs); ok {
			return fmt.Errorf("%s is defined now", ptr)
		}
		put(tree, segs, schema)
		return nil
	}}
}

// nullableRefs rewrites {"$ref": X, "nullable": true} as {"allOf":
// [{"$ref": X}], "nullable": true}: OpenAPI 3.0 ignores every keyword
// next to a $ref, so the nullable the vendor wrote there is lost, though
// it says what the API does (its own examples answer null there).
func nullableRefs(why string) patch {
	return patch{why: why, apply: func(tree map[string]any) error {
		n := 0
		var walk func(v any)
		walk = func(v any) {
			switch x := v.(type) {
			case map[string]any:
				if ref, ok := x["$ref"]; ok && x["nullable"] == true {
					delete(x, "$ref")
					x["allOf"] = []any{map[string]any{"$ref": ref}}
					n++
				}
				for _, e := range x {
					walk(e)
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			}
		}
		walk(tree)
		if n == 0 {
			return fmt.Errorf("no nullable next to a $ref any more")
		}
		return nil
	}}
}

// intercomPatches: Intercom's 2.11 description.
var intercomPatches = []patch{
	nullableRefs("Intercom 2.11 writes nullable: true next to $ref in 18 places (cursor_pages.next, " +
		"conversation.ai_agent and .sla_applied, conversation_part.assigned_to, …), which OpenAPI 3.0 " +
		"ignores; the API answers null there (so do the description's own examples), so each $ref is " +
		"wrapped in allOf for the nullable to count"),
	define("#/components/schemas/custom_attributes",
		map[string]any{"type": "object", "description": "Custom attributes as key-value pairs (defined by vendorspec: the file refers to this schema without defining it)."},
		"Intercom 2.11 refers to #/components/schemas/custom_attributes (conversation, "+
			"update_conversation_request and two more) without defining it; Intercom documents custom "+
			"attributes as an object of key-value pairs, so it is defined as an object with any values"),
}

// githubPatches: GitHub's description as of 2022-06-11.
var githubPatches []patch

// jiraPatches: Atlassian's Jira Cloud platform description (September 2025).
var jiraPatches []patch

// slackPatches: Slack's Web API description (Swagger 2.0, October 2020).
var slackPatches = []patch{{
	why: "Slack's Swagger 2.0 file uses JSON Schema draft 4 forms Swagger 2.0 does not have: " +
		"\"items\": [A, B] for a value that is A or B, and \"type\": [\"string\", \"null\"] or \"null\"; " +
		"they become x-nullable and, after the conversion to OpenAPI 3, anyOf",
	apply: func(tree map[string]any) error {
		if draft4Alternatives(tree) == 0 {
			return fmt.Errorf("no draft 4 alternatives any more")
		}
		return nil
	},
}}

// anyOfExt holds a schema's alternatives through openapi2conv, which
// knows no anyOf (Swagger 2.0 has none); anyOfFromExt makes them anyOf.
const anyOfExt = "x-vendorspec-anyOf"

// draft4Alternatives rewrites JSON Schema draft 4 forms in a Swagger 2.0
// tree (see slackPatches), returning how many it rewrote.
func draft4Alternatives(v any) int {
	n := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			n += draft4Alternatives(e)
		}
		if types, ok := x["type"].([]any); ok {
			var kept []any
			for _, t := range types {
				if t == "null" {
					x["x-nullable"] = true
				} else {
					kept = append(kept, t)
				}
			}
			if len(kept) == 1 {
				x["type"] = kept[0]
			} else {
				delete(x, "type")
			}
			n++
		}
		if x["type"] == "null" {
			delete(x, "type")
			x["x-nullable"], x["enum"] = true, []any{nil}
			n++
		}
		if alts, ok := x["items"].([]any); ok {
			var kept []any
			nullable := false
			for _, a := range alts {
				if m, ok := a.(map[string]any); ok && m["x-nullable"] == true && fmt.Sprint(m["enum"]) == "[<nil>]" {
					nullable = true
					continue
				}
				kept = append(kept, a)
			}
			delete(x, "items")
			target := x
			if x["type"] == "array" { // a tuple: its items are one of these
				target = map[string]any{}
				x["items"] = target
			}
			if nullable {
				target["x-nullable"] = true
			}
			if len(kept) == 1 {
				target["allOf"] = kept
			} else {
				target[anyOfExt] = kept
			}
			n++
		}
	case []any:
		for _, e := range x {
			n += draft4Alternatives(e)
		}
	}
	return n
}

// anyOfFromExt turns the alternatives draft4Alternatives kept in an
// extension into anyOf, in a tree converted to OpenAPI 3 (their $refs and
// x-nullable made OpenAPI 3's, as openapi2conv does to the rest).
func anyOfFromExt(v any) {
	switch x := v.(type) {
	case map[string]any:
		if alts, ok := x[anyOfExt]; ok {
			delete(x, anyOfExt)
			x["anyOf"] = toV3Schema(alts)
		}
		for _, e := range x {
			anyOfFromExt(e)
		}
	case []any:
		for _, e := range x {
			anyOfFromExt(e)
		}
	}
}

// toV3Schema makes a Swagger 2.0 schema's references and x-nullable
// OpenAPI 3's.
func toV3Schema(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			switch {
			case k == "$ref":
				s, _ := e.(string)
				m[k] = strings.Replace(s, "#/definitions/", "#/components/schemas/", 1)
			case k == "x-nullable":
				m["nullable"] = e
			default:
				m[k] = toV3Schema(e)
			}
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = toV3Schema(e)
		}
		return out
	}
	return v
}

// asanaPatches: Asana's description.
var asanaPatches = []patch{
	dropPattern("#/components/schemas/ProjectDuplicateRequest/properties/include"),
	dropPattern("#/components/schemas/TaskDuplicateRequest/properties/include"),
}

// dropPattern removes a pattern with a back-reference (\1), which Go's
// regexp (RE2) cannot compile: the field keeps its type, unchecked by
// pattern.
func dropPattern(ptr string) patch {
	return patch{
		why: ptr + ": the pattern ([a|b|…])(,\\1)* has a back-reference, which Go's regexp (RE2) cannot " +
			"compile (and a character class where a list of names is meant); the string is left unchecked by pattern",
		apply: func(tree map[string]any) error {
			segs, _ := pointer(ptr)
			v, ok := lookup(tree, segs)
			m, _ := v.(map[string]any)
			p, _ := m["pattern"].(string)
			if !ok || !strings.Contains(p, `\1`) {
				return fmt.Errorf("%s has no pattern with a back-reference any more", ptr)
			}
			delete(m, "pattern")
			return nil
		},
	}
}
