package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sort"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/suggest"
)

// The tools' names.
const (
	ToolListConnectors = "list_connectors"
	ToolDescribe       = "describe"
	ToolValidate       = "validate"
	ToolExecute        = "execute"
	ToolDownload       = "download"
)

func boolPtr(b bool) *bool { return &b }

// annotations mark a tool that only reads. openWorld: it reaches a source.
func annotations(title string, readOnly, openWorld bool) *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{Title: title, ReadOnlyHint: readOnly, IdempotentHint: true,
		DestructiveHint: boolPtr(false), OpenWorldHint: boolPtr(openWorld)}
}

// handler runs one tool call on its decoded arguments and returns the
// structured result and its one-line summary.
type handler func(ctx context.Context, args json.RawMessage) (out any, summary string, err error)

func (s *Server) addTools() {
	s.add(&sdk.Tool{Name: ToolListConnectors,
		Description: "List the connectors this server offers: name (what the other tools take as connector), title (its name for people), external user (whose account it reads, on a service), connector type, mode (direct, hosted, sandbox, service), number of entities, and whether search runs on them.",
		InputSchema: obj{"type": "object", "properties": obj{}, "additionalProperties": false},
		OutputSchema: obj{"type": "object", "required": []string{"connectors"}, "properties": obj{
			"connectors": obj{"type": "array", "items": obj{"type": "object", "properties": obj{
				"name": obj{"type": "string"}, "title": obj{"type": "string"}, "external_user_id": obj{"type": "string"},
				"type": obj{"type": "string"}, "mode": obj{"type": "string"},
				"entities": obj{"type": "integer"}, "search": obj{"type": "boolean"}}}},
			"error": errorSchema}},
		Annotations: annotations("List connectors", true, false)}, s.listConnectors)

	s.add(&sdk.Tool{Name: ToolDescribe,
		Description: "Describe a connector (its entities and their actions) or, with entity, one entity: each action's parameters (type, required, allowed values, default, description) and the fields search can filter and sort on.",
		InputSchema: obj{"type": "object", "required": []string{"connector"}, "additionalProperties": false, "properties": obj{
			"connector": obj{"type": "string", "enum": s.names(), "description": "a connector's name (list_connectors)"},
			"entity":    obj{"type": "string", "enum": s.allEntities(), "description": "an entity of the connector; omit to list the entities"}}},
		OutputSchema: obj{"type": "object", "properties": obj{
			"connector": obj{"type": "string"}, "type": obj{"type": "string"}, "mode": obj{"type": "string"},
			"entities": obj{"type": "array", "items": obj{"type": "object"}},
			"entity":   obj{"type": "object"},
			"error":    errorSchema}},
		Annotations: annotations("Describe a connector or entity", true, false)}, s.describe)

	s.add(&sdk.Tool{Name: ToolValidate,
		Description: "Check an operation against the connector's catalogue without sending anything: valid with the params in normal form, or the exact error (the parameter, the allowed values).",
		InputSchema: s.operationSchema(validateActions, nil),
		OutputSchema: obj{"type": "object", "required": []string{"valid"}, "properties": obj{
			"valid": obj{"type": "boolean"}, "params": obj{"type": "object"}, "error": errorSchema}},
		Annotations: annotations("Validate an operation", true, false)}, s.validate)

	s.add(&sdk.Tool{Name: ToolExecute,
		Description: fmt.Sprintf("Run an operation: list (one page), get (one record), api_search (the source's own search) or search (the filter language over a synchronized copy). "+
			"Answers hold at most limit records (default %d) and about %d bytes of records; fields keeps only the named fields (dot paths). "+
			"When truncated is true, or more pages exist, next holds the arguments of the call that continues.", s.opts.Limits.Records, s.opts.Limits.Bytes),
		InputSchema: s.operationSchema(executeActions, obj{
			"fields": obj{"type": "array", "items": obj{"type": "string"}, "description": "keep only these fields of each record (dot paths, e.g. via.channel)"},
			"limit":  obj{"type": "integer", "minimum": 1, "maximum": MaxRecords, "description": fmt.Sprintf("the most records to return (default %d)", s.opts.Limits.Records)},
			"skip":   obj{"type": "integer", "minimum": 0, "description": "records of the page to skip: set by next when an answer was cut"},
		}),
		OutputSchema: executeOutput,
		Annotations:  annotations("Execute a read", true, true)}, s.execute)

	s.add(&sdk.Tool{Name: ToolDownload,
		Description: fmt.Sprintf("Download a file (an entity with the download action) into the server's download directory and return its path, size and content type; "+
			"text files up to %d bytes are also returned inline. Files above %d bytes are refused.", max(s.opts.Downloads.InlineBytes, 0), s.opts.Downloads.MaxBytes),
		InputSchema: s.operationSchema(downloadActions, obj{
			"inline": obj{"type": "boolean", "default": true, "description": "also return a small text file's content"},
		}),
		OutputSchema: obj{"type": "object", "properties": obj{
			"path": obj{"type": "string"}, "size": obj{"type": "integer"}, "content_type": obj{"type": "string"},
			"file_name": obj{"type": "string"}, "text": obj{"type": "string"}, "error": errorSchema}},
		// It writes a file on this machine, never to the source.
		Annotations: annotations("Download a file", false, true)}, s.download)
}

// allEntities lists every entity name of every connector, once.
func (s *Server) allEntities() []string {
	out := []string{} // an empty enum, not null, over no connectors
	for _, src := range s.sources {
		for _, e := range src.Conn.Entities() {
			if !slices.Contains(out, e.Name) {
				out = append(out, e.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// errorSchema is the schema of the error object of a failed call.
var errorSchema = obj{"type": "object", "required": []string{"kind", "message"}, "properties": obj{
	"kind": obj{"type": "string", "enum": []string{KindInvalidArguments, KindUnknownConnector, KindUnknownEntity, KindUnsupportedAction,
		KindInvalidParams, KindInvalidCredentials, KindUnauthorized, KindForbidden, KindNotFound, KindRateLimited, KindServer, KindUnreachable, KindPaging,
		KindUnexpected, KindTimeout, KindCanceled, KindTooLarge, KindNotConfigured, KindDownloadFailed, KindInternal}},
	"message": obj{"type": "string"}, "connector": obj{"type": "string"}, "entity": obj{"type": "string"}, "action": obj{"type": "string"},
	"param": obj{"type": "string"}, "allowed": obj{"type": "array", "items": obj{"type": "string"}},
	"status": obj{"type": "integer"}, "code": obj{"type": "string"}, "retryable": obj{"type": "boolean"},
	"retry_after_seconds": obj{"type": "number"}, "request_id": obj{"type": "string"}}}

// add registers a tool whose handler runs within the call timeout, never
// panics out, and reports every failure as a tool result with isError.
func (s *Server) add(t *sdk.Tool, h handler) {
	// The schemas are encoded once, here: the SDK encodes a tool's input
	// schema again on every call over streamable HTTP (to find
	// x-mcp-header annotations), which for a map of many connectors'
	// operations costs more than the call.
	for _, schema := range []*any{&t.InputSchema, &t.OutputSchema} {
		if *schema == nil {
			continue
		}
		if b, err := json.Marshal(*schema); err == nil {
			*schema = json.RawMessage(b)
		}
	}
	s.mcp.AddTool(t, func(ctx context.Context, req *sdk.CallToolRequest) (res *sdk.CallToolResult, err error) {
		var args json.RawMessage
		if req != nil && req.Params != nil {
			args = req.Params.Arguments
		}
		ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
		defer cancel()
		defer func() {
			if p := recover(); p != nil {
				s.opts.Logger.Error("tool call panicked", "tool", t.Name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				res, err = s.errorResult(t.Name, errorf(KindInternal, "internal error in %s: please report it", t.Name)), nil
			}
		}()
		out, summary, herr := h(ctx, args)
		if herr != nil {
			return s.errorResult(t.Name, herr), nil
		}
		return result(out, summary), nil
	})
}

// result is a successful tool result: the structured content, and as text
// the summary line followed by the same JSON. The JSON is encoded once, or
// not at all when out is already a json.RawMessage; the SDK encodes the
// result (both blocks) when it sends it.
func result(out any, summary string) *sdk.CallToolResult {
	b, ok := out.(json.RawMessage)
	if !ok {
		var err error
		if b, err = json.Marshal(out); err != nil {
			b = []byte("{}")
		}
	}
	text := string(b)
	if summary != "" {
		text = summary + "\n" + text
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, StructuredContent: json.RawMessage(b)}
}

// errorResult is a failed tool result: isError, {"error": {...}}, and the
// error on one line as text.
func (s *Server) errorResult(tool string, err error) *sdk.CallToolResult {
	te := toToolError("", err)
	s.opts.Logger.Info("tool call failed", "tool", tool, "connector", te.Connector, "kind", te.Kind, "error", te.Message)
	b, _ := json.Marshal(map[string]any{"error": te})
	text := "error (" + te.Kind + "): " + te.Message
	if te.RetryAfter > 0 {
		text += fmt.Sprintf(" (wait %g s before trying again)", te.RetryAfter)
	}
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: text}}, StructuredContent: json.RawMessage(b)}
}

// decodeArgs decodes a tool's arguments into v strictly: unknown fields and
// wrong types are invalid_arguments naming the field. Numbers keep their
// digits (json.Number), so large ids survive.
func decodeArgs(args json.RawMessage, v any) error {
	if len(bytes.TrimSpace(args)) == 0 || bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		args = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		msg := err.Error()
		var ute *json.UnmarshalTypeError
		switch {
		case errors.As(err, &ute):
			msg = fmt.Sprintf("argument %q must be %s, got a JSON %s", strings.TrimPrefix(ute.Field, "operation."), jsonType(ute.Type.Kind().String()), ute.Value)
		case strings.HasPrefix(msg, "json: unknown field "):
			msg = "unknown argument " + strings.TrimPrefix(msg, "json: unknown field ") + " (accepted: " + strings.Join(jsonFields(v), ", ") + ")"
		default:
			msg = "the arguments are not a JSON object: " + msg
		}
		return &toolError{Kind: KindInvalidArguments, Message: msg, Allowed: jsonFields(v)}
	}
	return nil
}

func jsonType(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "map", "struct":
		return "an object"
	case "slice":
		return "an array"
	case "bool":
		return "a boolean"
	case "ptr":
		return "a boolean"
	}
	return "a number"
}

// jsonFields lists the JSON names of the fields of the struct v points to.
func jsonFields(v any) []string {
	var names []string
	b, _ := json.Marshal(v)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// operation is the arguments of validate, execute and download.
type operation struct {
	Connector string           `json:"connector"`
	Entity    string           `json:"entity"`
	Action    tributary.Action `json:"action"`
	Params    tributary.Params `json:"params"`
}

// source finds the connector an operation names.
func (s *Server) source(name string) (Source, error) {
	if name == "" {
		return Source{}, &toolError{Kind: KindInvalidArguments, Message: "argument \"connector\" is required (connectors: " + strings.Join(s.names(), ", ") + ")", Allowed: s.names()}
	}
	src, ok := s.byName[name]
	if !ok {
		return Source{}, &toolError{Kind: KindUnknownConnector, Connector: name, Allowed: s.names(),
			Message: fmt.Sprintf("unknown connector %q%s (connectors: %s)", name, suggest.Hint(name, s.names()), strings.Join(s.names(), ", "))}
	}
	return src, nil
}

func requireArg(name, value string) error {
	if value == "" {
		return &toolError{Kind: KindInvalidArguments, Message: fmt.Sprintf("argument %q is required", name)}
	}
	return nil
}

// checkAction refuses an action the tool does not run.
func checkAction(src Source, op operation, allowed []tributary.Action, other string) error {
	if err := requireArg("action", string(op.Action)); err != nil {
		return err
	}
	for _, a := range allowed {
		if a == op.Action {
			return nil
		}
	}
	msg := fmt.Sprintf("action %q is not one of %s", op.Action, strings.Join(actionNames(allowed), ", "))
	if other != "" {
		msg += "; " + other
	}
	return &toolError{Kind: KindUnsupportedAction, Connector: src.Name, Entity: op.Entity, Action: string(op.Action), Param: "action",
		Allowed: actionNames(allowed), Message: msg}
}
