package mcp

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/tributary-dev/tributary"
)

// obj is a JSON Schema (or any JSON object) under construction.
type obj = map[string]any

// paramSchema is the JSON Schema of one catalogue parameter: its type,
// allowed values, bounds, default, description, and the members of an
// object or the elements of an array.
func paramSchema(p tributary.Param) obj {
	s := obj{}
	switch p.Type {
	case tributary.TypeAny, "":
	default:
		s["type"] = string(p.Type)
	}
	if p.Doc != "" {
		s["description"] = p.Doc
	}
	if p.Default != nil {
		s["default"] = p.Default
	}
	bounds := func(minKey, maxKey string) {
		if p.Min != nil {
			s[minKey] = *p.Min
		}
		if p.Max != nil {
			s[maxKey] = *p.Max
		}
	}
	switch p.Type {
	case tributary.TypeString:
		if len(p.Enum) > 0 {
			s["enum"] = p.Enum
		}
	case tributary.TypeInteger, tributary.TypeNumber:
		bounds("minimum", "maximum")
		if len(p.Enum) > 0 {
			var vals []any
			for _, e := range p.Enum {
				if n, err := strconv.ParseFloat(e, 64); err == nil {
					vals = append(vals, n)
				}
			}
			s["enum"] = vals
		}
	case tributary.TypeArray:
		bounds("minItems", "maxItems")
		item := obj{}
		if p.Items != nil {
			item = paramSchema(*p.Items)
		}
		if len(p.Enum) > 0 && item["enum"] == nil {
			item["enum"] = p.Enum
			if item["type"] == nil {
				item["type"] = "string"
			}
		}
		if len(item) > 0 {
			s["items"] = item
		}
	case tributary.TypeObject:
		if p.Fields != nil {
			for k, v := range objectSchema(p.Fields) {
				s[k] = v
			}
		}
	}
	return s
}

// objectSchema is the schema of an object whose members are ps.
func objectSchema(ps []tributary.Param) obj {
	props := obj{}
	var req []string
	for _, p := range ps {
		props[p.Name] = paramSchema(p)
		if p.Required {
			req = append(req, p.Name)
		}
	}
	s := obj{"type": "object", "properties": props, "additionalProperties": false}
	if len(req) > 0 {
		s["required"] = req
	}
	return s
}

// actionParams returns the parameters of action a of e (the common search
// parameters for search).
func actionParams(e tributary.Entity, a tributary.Action) []tributary.Param {
	if ps := e.Params[a]; ps != nil || a != tributary.ActionSearch {
		return ps
	}
	return tributary.SearchParams()
}

// paramsSchema is the schema of the params of action a of e. For search it
// names the searchable fields and their types, and the values a date-time
// field compares with.
func paramsSchema(e tributary.Entity, a tributary.Action) obj {
	s := objectSchema(actionParams(e, a))
	if a == tributary.ActionSearch && len(e.Searchable) > 0 {
		fields := make([]string, len(e.Searchable))
		dates := false
		for i, f := range e.Searchable {
			fields[i] = f.Name + " (" + string(f.Type) + ")"
			dates = dates || f.Type == tributary.TypeDateTime
		}
		s["description"] = "searchable fields: " + strings.Join(fields, ", ")
		if dates {
			s["description"] = s["description"].(string) + "; a date-time field compares with RFC 3339 date-times (2024-01-31T08:00:00Z) or dates (2024-01-31)"
		}
	}
	return s
}

// The actions each tool runs.
var (
	executeActions  = []tributary.Action{tributary.ActionList, tributary.ActionGet, tributary.ActionAPISearch, tributary.ActionSearch}
	validateActions = append(slices.Clone(executeActions), tributary.ActionDownload)
	downloadActions = []tributary.Action{tributary.ActionDownload}
)

// entitiesFor lists the entities of src that offer one of actions (for
// search: only when src can run it).
func entitiesFor(src Source, actions []tributary.Action) []tributary.Entity {
	var out []tributary.Entity
	for _, e := range src.Conn.Entities() {
		if slices.ContainsFunc(actions, func(a tributary.Action) bool { return offers(src, e, a) }) {
			out = append(out, e)
		}
	}
	return out
}

// offers reports whether src runs action a on e.
func offers(src Source, e tributary.Entity, a tributary.Action) bool {
	if !e.Supports(a) {
		return false
	}
	if a == tributary.ActionSearch {
		_, ok := src.Conn.(tributary.Searcher)
		return ok && len(e.Searchable) > 0
	}
	return true
}

func entityNames(es []tributary.Entity) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Name
	}
	return out
}

func actionNames(as []tributary.Action) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = string(a)
	}
	return out
}

// operationSchema is the input schema of validate, execute and download:
// the connector and entity names as enums (each connector's entities under
// a condition on the connector), the actions, and, while they fit in
// s.opts.SchemaBytes, each operation's parameters with their types,
// required flags, allowed values and descriptions.
func (s *Server) operationSchema(actions []tributary.Action, extra obj) obj {
	withAction := len(actions) > 1
	all := []string{} // an empty enum, not null, over no connectors
	var byConnector, byOperation []any
	for _, src := range s.sources {
		es := entitiesFor(src, actions)
		names := entityNames(es)
		for _, n := range names {
			if !slices.Contains(all, n) {
				all = append(all, n)
			}
		}
		byConnector = append(byConnector, obj{
			"if":   obj{"properties": obj{"connector": obj{"const": src.Name}}, "required": []string{"connector"}},
			"then": obj{"properties": obj{"entity": obj{"enum": names}}},
		})
		for _, e := range es {
			for _, a := range actions {
				if !offers(src, e, a) {
					continue
				}
				cond := obj{"connector": obj{"const": src.Name}, "entity": obj{"const": e.Name}}
				req := []string{"connector", "entity"}
				if withAction {
					cond["action"] = obj{"const": string(a)}
					req = append(req, "action")
				}
				byOperation = append(byOperation, obj{
					"if":   obj{"properties": cond, "required": req},
					"then": obj{"properties": obj{"params": paramsSchema(e, a)}},
				})
			}
		}
	}
	slices.Sort(all)
	paramsDoc := "the operation's parameters, by name; describe lists each entity's parameters"
	if withAction {
		paramsDoc += " for each action"
	}
	props := obj{
		"connector": obj{"type": "string", "enum": s.names(), "description": "a connector's name (list_connectors)"},
		"entity":    obj{"type": "string", "enum": all, "description": "an entity of the connector (describe lists them)"},
		"params":    obj{"type": "object", "description": paramsDoc},
	}
	req := []string{"connector", "entity"}
	if withAction {
		props["action"] = obj{"type": "string", "enum": actionNames(actions), "description": "what to do with the entity"}
		req = append(req, "action")
	}
	for k, v := range extra {
		props[k] = v
	}
	schema := obj{"type": "object", "properties": props, "required": req, "additionalProperties": false}
	conds := byConnector
	if s.opts.SchemaBytes > 0 {
		if b, err := json.Marshal(byOperation); err == nil && len(b) <= s.opts.SchemaBytes {
			conds = append(conds, byOperation...)
		}
	}
	if len(conds) > 0 {
		schema["allOf"] = conds
	}
	return schema
}
