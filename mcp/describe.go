package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tributary-dev/tributary"
)

// paramDoc is one parameter as describe shows it.
type paramDoc struct {
	Name        string     `json:"name,omitempty"`
	Type        string     `json:"type"`
	Required    bool       `json:"required,omitempty"`
	Enum        []string   `json:"enum,omitempty"`
	Default     any        `json:"default,omitempty"`
	Minimum     *float64   `json:"minimum,omitempty"`
	Maximum     *float64   `json:"maximum,omitempty"`
	Items       *paramDoc  `json:"items,omitempty"`
	Fields      []paramDoc `json:"fields,omitempty"`
	Description string     `json:"description,omitempty"`
}

func docParam(p tributary.Param) paramDoc {
	d := paramDoc{Name: p.Name, Type: string(p.Type), Required: p.Required, Enum: p.Enum, Default: p.Default,
		Minimum: p.Min, Maximum: p.Max, Description: p.Doc}
	if p.Items != nil {
		it := docParam(*p.Items)
		d.Items = &it
	}
	for _, f := range p.Fields {
		d.Fields = append(d.Fields, docParam(f))
	}
	return d
}

type operationDoc struct {
	Action string     `json:"action"`
	Params []paramDoc `json:"params"`
}

type fieldDoc struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
}

// entityDoc is an entity as describe shows it; Operations, Searchable and
// Copy only when one entity is described. Copy is the Doc of the entity's
// copy scope (tributary.Scope): what its synchronized copy covers when the
// configuration gives no list params.
type entityDoc struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Actions     []string       `json:"actions"`
	Operations  []operationDoc `json:"operations,omitempty"`
	Searchable  []fieldDoc     `json:"searchable_fields,omitempty"`
	Copy        string         `json:"copy,omitempty"`
	Note        string         `json:"note,omitempty"`
}

// docEntity describes e as src offers it.
func docEntity(src Source, e tributary.Entity, full bool) entityDoc {
	d := entityDoc{Name: e.Name, Description: e.Doc, Actions: []string{}}
	for _, a := range e.Actions {
		if offers(src, e, a) {
			d.Actions = append(d.Actions, string(a))
		} else if a == tributary.ActionSearch && full {
			d.Note = "search is in the catalogue but not available here: it needs the hosted service or a store in the server's configuration"
		}
	}
	if !full {
		return d
	}
	for _, a := range e.Actions {
		if !offers(src, e, a) {
			continue
		}
		op := operationDoc{Action: string(a), Params: []paramDoc{}}
		for _, p := range actionParams(e, a) {
			op.Params = append(op.Params, docParam(p))
		}
		d.Operations = append(d.Operations, op)
	}
	for _, f := range e.Searchable {
		d.Searchable = append(d.Searchable, fieldDoc{Name: f.Name, Type: string(f.Type), Description: f.Doc})
	}
	if e.Scope != nil {
		d.Copy = e.Scope.Doc
	}
	return d
}

type connectorSummary struct {
	Name           string `json:"name"`
	Title          string `json:"title"`
	ExternalUserID string `json:"external_user_id,omitempty"`
	Type           string `json:"type"`
	Mode           string `json:"mode"`
	Entities       int    `json:"entities"`
	Search         bool   `json:"search"`
}

func (s *Server) listConnectors(_ context.Context, args json.RawMessage) (any, string, error) {
	var in struct{}
	if err := decodeArgs(args, &in); err != nil {
		return nil, "", err
	}
	out := struct {
		Connectors []connectorSummary `json:"connectors"`
	}{Connectors: []connectorSummary{}}
	lines := make([]string, 0, len(s.sources))
	for _, src := range s.sources {
		_, searches := src.Conn.(tributary.Searcher)
		c := connectorSummary{Name: src.Name, Title: src.Title, ExternalUserID: src.ExternalUserID, Type: src.Conn.Type(), Mode: src.Mode,
			Entities: len(src.Conn.Entities()), Search: searches}
		if c.Title == "" {
			c.Title = c.Name
		}
		out.Connectors = append(out.Connectors, c)
		line := fmt.Sprintf("%s (%s, %s, %d entities", c.Name, c.Type, c.Mode, c.Entities)
		if c.Title != c.Name {
			line += fmt.Sprintf(", named %q", c.Title)
		}
		if c.ExternalUserID != "" {
			line += fmt.Sprintf(", of user %q", c.ExternalUserID)
		}
		lines = append(lines, line+")")
	}
	return out, fmt.Sprintf("%d connectors: %s", len(lines), strings.Join(lines, "; ")), nil
}

type describeOut struct {
	Connector string      `json:"connector"`
	Type      string      `json:"type"`
	Mode      string      `json:"mode"`
	Entities  []entityDoc `json:"entities,omitempty"`
	Entity    *entityDoc  `json:"entity,omitempty"`
}

func (s *Server) describe(_ context.Context, args json.RawMessage) (any, string, error) {
	var in struct {
		Connector string `json:"connector"`
		Entity    string `json:"entity"`
	}
	if err := decodeArgs(args, &in); err != nil {
		return nil, "", err
	}
	src, err := s.source(in.Connector)
	if err != nil {
		return nil, "", err
	}
	out := describeOut{Connector: src.Name, Type: src.Conn.Type(), Mode: src.Mode}
	if in.Entity == "" {
		names := []string{}
		for _, e := range src.Conn.Entities() {
			out.Entities = append(out.Entities, docEntity(src, e, false))
			names = append(names, e.Name)
		}
		return out, fmt.Sprintf("%s (%s) has %d entities: %s", src.Name, out.Type, len(names), strings.Join(names, ", ")), nil
	}
	e, ok := tributary.FindEntity(src.Conn.Entities(), in.Entity)
	if !ok {
		// The library's own error: it names the entities (and the nearest one).
		_, err := tributary.Validate(src.Conn.Type(), src.Conn.Entities(), in.Entity, tributary.ActionList, nil)
		return nil, "", err
	}
	d := docEntity(src, e, true)
	out.Entity = &d
	return out, fmt.Sprintf("%s.%s: actions %s", src.Name, e.Name, strings.Join(d.Actions, ", ")), nil
}

type validateOut struct {
	Valid  bool             `json:"valid"`
	Params tributary.Params `json:"params,omitempty"`
	Error  *toolError       `json:"error,omitempty"`
}

// validate answers whether an operation would be accepted. A refused
// operation is the tool's answer (valid: false), not a failed call.
func (s *Server) validate(_ context.Context, args json.RawMessage) (any, string, error) {
	var op operation
	if err := decodeArgs(args, &op); err != nil {
		return nil, "", err
	}
	norm, err := s.check(op, validateActions)
	if err != nil {
		te := toToolError(op.Connector, err)
		if te.Kind == KindInvalidArguments {
			return nil, "", te // the call itself is malformed
		}
		return validateOut{Error: te}, "not valid: " + te.Message, nil
	}
	if norm == nil {
		norm = tributary.Params{}
	}
	return validateOut{Valid: true, Params: norm}, fmt.Sprintf("valid: %s %s.%s", op.Connector, op.Entity, op.Action), nil
}

// check validates op against its connector's catalogue exactly as running
// it would, without sending anything, and returns the params in normal
// form.
func (s *Server) check(op operation, actions []tributary.Action) (tributary.Params, error) {
	src, err := s.source(op.Connector)
	if err != nil {
		return nil, err
	}
	if err := requireArg("entity", op.Entity); err != nil {
		return nil, err
	}
	if err := checkAction(src, op, actions, ""); err != nil {
		return nil, err
	}
	c := src.Conn
	norm, err := tributary.Validate(c.Type(), c.Entities(), op.Entity, op.Action, op.Params)
	if err != nil {
		return nil, err
	}
	if op.Action == tributary.ActionSearch {
		if _, ok := c.(tributary.Searcher); !ok {
			return nil, &tributary.Error{Kind: c.Type(), Entity: op.Entity, Action: op.Action, Err: tributary.ErrUnsupportedAction,
				Message: "search runs on a synchronized copy of the data: this connector has none (configure a store, or use hosted mode)"}
		}
		q, err := tributary.SearchRequest(norm)
		if err != nil {
			return nil, &tributary.Error{Kind: c.Type(), Entity: op.Entity, Action: op.Action, Err: tributary.ErrInvalidParams, Param: "query", Message: err.Error()}
		}
		if err := tributary.ValidateSearch(c.Type(), c.Entities(), op.Entity, q); err != nil {
			return nil, err
		}
	}
	return norm, nil
}

// addResources exposes each connector's catalogue, in full, as a resource.
func (s *Server) addResources() {
	for _, src := range s.sources {
		uri := "tributary://connectors/" + src.Name + "/catalogue"
		s.mcp.AddResource(&sdk.Resource{URI: uri, Name: src.Name + " catalogue", MIMEType: "application/json",
			Title:       src.Name + " (" + src.Conn.Type() + ") catalogue",
			Description: "Every entity of the " + src.Name + " connector with its actions, parameters and searchable fields."},
			func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
				out := describeOut{Connector: src.Name, Type: src.Conn.Type(), Mode: src.Mode, Entities: []entityDoc{}}
				for _, e := range src.Conn.Entities() {
					out.Entities = append(out.Entities, docEntity(src, e, true))
				}
				b, err := json.Marshal(out)
				if err != nil {
					return nil, err
				}
				return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
			})
	}
}
