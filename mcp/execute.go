package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/search"
)

// executeArgs are the arguments of execute.
type executeArgs struct {
	operation
	Fields []string `json:"fields"`
	Limit  any      `json:"limit"`
	Skip   any      `json:"skip"`
}

// nextCall is the arguments of the execute call that continues an answer.
type nextCall struct {
	Connector string           `json:"connector"`
	Entity    string           `json:"entity"`
	Action    tributary.Action `json:"action"`
	Params    tributary.Params `json:"params,omitempty"`
	Skip      int              `json:"skip,omitempty"`
	Fields    []string         `json:"fields,omitempty"`
	Limit     int              `json:"limit,omitempty"`
}

type hitOut struct {
	ID    string          `json:"id"`
	Score float64         `json:"score"`
	Data  json.RawMessage `json:"data"`
}

// executeOut is execute's answer. Its JSON (MarshalJSON) follows the
// tags; the records go in as they are.
type executeOut struct {
	Connector string            `json:"connector"`
	Entity    string            `json:"entity"`
	Action    tributary.Action  `json:"action"`
	Records   []json.RawMessage `json:"records,omitempty"`
	Hits      []hitOut          `json:"hits,omitempty"`
	Count     int               `json:"count"`
	Meta      map[string]any    `json:"meta,omitempty"`
	Truncated bool              `json:"truncated"`
	Next      *nextCall         `json:"next"`
	Note      string            `json:"note,omitempty"`
}

var executeOutput = obj{"type": "object", "properties": obj{
	"connector": obj{"type": "string"}, "entity": obj{"type": "string"}, "action": obj{"type": "string"},
	"records": obj{"type": "array", "description": "the records (list, get, api_search)", "items": obj{"type": "object", "additionalProperties": true}},
	"hits": obj{"type": "array", "description": "the matches (search)", "items": obj{"type": "object", "properties": obj{
		"id": obj{"type": "string"}, "score": obj{"type": "number"}, "data": obj{"type": "object", "additionalProperties": true}}}},
	"count":     obj{"type": "integer", "description": "records (or hits) in this answer"},
	"meta":      obj{"type": "object", "description": "the page's paging information, as the source names it"},
	"truncated": obj{"type": "boolean", "description": "the page held more records than this answer: call execute with next"},
	"next":      obj{"anyOf": []obj{{"type": "object"}, {"type": "null"}}, "description": "the arguments of the execute call that continues (the rest of this page, or the next page); null at the end"},
	"note":      obj{"type": "string"},
	"error":     errorSchema,
}}

func intArg(name string, x any, def, lo, hi int) (int, error) {
	if x == nil {
		return def, nil
	}
	var n json.Number
	switch x := x.(type) {
	case json.Number:
		n = x
	case string: // some clients send every argument as a string
		n = json.Number(strings.TrimSpace(x))
	}
	v, err := n.Int64()
	if err != nil || v < int64(lo) || v > int64(hi) {
		return 0, &toolError{Kind: KindInvalidArguments, Param: name, Message: fmt.Sprintf("argument %q must be an integer from %d to %d", name, lo, hi)}
	}
	return int(v), nil
}

func (s *Server) execute(ctx context.Context, args json.RawMessage) (any, string, error) {
	var in executeArgs
	if err := decodeArgs(args, &in); err != nil {
		return nil, "", err
	}
	src, err := s.source(in.Connector)
	if err != nil {
		return nil, "", err
	}
	if err := requireArg("entity", in.Entity); err != nil {
		return nil, "", err
	}
	if err := checkAction(src, in.operation, executeActions, "downloads run with the download tool"); err != nil {
		return nil, "", err
	}
	limit, err := intArg("limit", in.Limit, s.opts.Limits.Records, 1, MaxRecords)
	if err != nil {
		return nil, "", err
	}
	skip, err := intArg("skip", in.Skip, 0, 0, 1<<30)
	if err != nil {
		return nil, "", err
	}
	paths := make([]string, len(in.Fields))
	for i, f := range in.Fields {
		p, err := search.ParsePath(f)
		if err != nil {
			return nil, "", &toolError{Kind: KindInvalidArguments, Param: "fields", Message: fmt.Sprintf("fields[%d]: %v", i, err)}
		}
		paths[i] = strings.Join(p, ".")
	}
	res, err := tributary.Execute(ctx, src.Conn, tributary.Request{Entity: in.Entity, Action: in.Action, Params: in.Params})
	if err != nil {
		return nil, "", err
	}
	if res.Download != nil { // not reachable through execute's actions; never leak a stream
		res.Download.Close()
	}
	out := executeOut{Connector: src.Name, Entity: in.Entity, Action: in.Action, Meta: res.Meta}
	base := nextCall{Connector: src.Name, Entity: in.Entity, Action: in.Action, Fields: in.Fields}
	if in.Limit != nil {
		base.Limit = limit
	}

	// The items of the page, projected and encoded.
	var items []json.RawMessage
	var ids []string
	var scores []float64
	if res.Search != nil {
		for _, h := range res.Search.Hits {
			items = append(items, project(h.Data, paths))
			ids, scores = append(ids, h.ID), append(scores, h.Score)
		}
	} else {
		for _, r := range res.Records {
			items = append(items, project(r.Raw(), paths))
		}
	}
	total := len(items)
	if skip > total {
		skip = total
	}

	// The following page, when this one is delivered whole.
	var following *nextCall
	switch {
	case res.Search != nil && res.Search.NextCursor != nil:
		n := base
		n.Params = in.Params.Clone()
		if n.Params == nil {
			n.Params = tributary.Params{}
		}
		n.Params["cursor"] = *res.Search.NextCursor
		following = &n
	case res.Next != nil:
		n := base
		n.Params = res.Next
		following = &n
	}

	// Take records while they fit the limit and the byte cap; what the
	// answer needs besides them is counted first. Each is made compact
	// before it is counted: it is sent as it is.
	overhead := 512 + jsonLen(res.Meta) + 2*jsonLen(in.Params) + jsonLen(following)
	budget := max(s.opts.Limits.Bytes-overhead, s.opts.Limits.Bytes/2)
	used, end := 0, skip
	for end < total && end-skip < limit {
		if items[end], err = compactJSON(items[end]); err != nil {
			return nil, "", &toolError{Kind: KindUnexpected, Connector: src.Name, Entity: in.Entity, Action: string(in.Action),
				Message: fmt.Sprintf("record %d of the page is not valid JSON: %v", end+1, err)}
		}
		size := len(items[end]) + 1
		if res.Search != nil {
			size += len(ids[end]) + 40
		}
		if used+size > budget {
			break
		}
		used += size
		end++
	}
	for i := skip; i < end; i++ {
		if res.Search != nil {
			out.Hits = append(out.Hits, hitOut{ID: ids[i], Score: scores[i], Data: items[i]})
		} else {
			out.Records = append(out.Records, items[i])
		}
	}
	out.Count = end - skip
	if res.Search == nil && out.Records == nil {
		out.Records = []json.RawMessage{}
	}
	if res.Search != nil && out.Hits == nil {
		out.Hits = []hitOut{}
	}
	switch {
	case end < total:
		out.Truncated = true
		n := base
		n.Params, n.Skip = in.Params, end
		out.Next = &n
		reason := fmt.Sprintf("the record limit (%d)", limit)
		if end-skip < limit {
			reason = fmt.Sprintf("the byte cap (%d bytes)", s.opts.Limits.Bytes)
		}
		out.Note = fmt.Sprintf("cut at %s: records %d to %d of the page's %d; call execute with next for the rest", reason, skip+1, end, total)
		if end == skip { // one record alone is above the cap
			n.Skip = end + 1
			out.Note = fmt.Sprintf("record %d of the page is %d bytes, above the byte cap (%d bytes): ask for fewer fields with \"fields\"; next skips it", end+1, len(items[end]), s.opts.Limits.Bytes)
		}
	case following != nil:
		out.Next = following
		out.Note = "more pages: call execute with next"
	}

	what := "records"
	if res.Search != nil {
		what = "hits"
	}
	summary := fmt.Sprintf("%d %s of %s.%s %s", out.Count, what, src.Name, in.Entity, in.Action)
	switch {
	case out.Truncated:
		summary += " (cut: call execute with next for the rest)"
	case out.Next != nil:
		summary += " (more pages: call execute with next)"
	}
	b, err := out.MarshalJSON()
	if err != nil {
		return nil, "", err
	}
	return json.RawMessage(b), summary, nil
}

// MarshalJSON encodes the answer as encoding/json would from the tags
// (without escaping HTML), but appends the records (and hits' data) as
// they are instead of compacting them again: the execute handler made them
// compact (compactJSON), and they are nearly all of the answer.
func (o *executeOut) MarshalJSON() ([]byte, error) {
	size := 512
	for _, r := range o.Records {
		size += len(r) + 1
	}
	for _, h := range o.Hits {
		size += len(h.Data) + len(h.ID) + 40
	}
	b := make([]byte, 0, size)
	var err error
	member := func(name string, v any) {
		if err != nil {
			return
		}
		b = append(append(append(b, ',', '"'), name...), '"', ':')
		b, err = appendJSON(b, v)
	}
	b = append(b, '{')
	b = append(b, `"connector":`...)
	b, err = appendJSON(b, o.Connector)
	member("entity", o.Entity)
	member("action", o.Action)
	if err != nil {
		return nil, err
	}
	if len(o.Records) > 0 {
		b = append(b, `,"records":[`...)
		for i, r := range o.Records {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, r...)
		}
		b = append(b, ']')
	}
	if len(o.Hits) > 0 {
		b = append(b, `,"hits":[`...)
		for i, h := range o.Hits {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"id":`...)
			b, err = appendJSON(b, h.ID)
			member("score", h.Score)
			if err != nil {
				return nil, err
			}
			b = append(append(b, `,"data":`...), h.Data...)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	member("count", o.Count)
	if len(o.Meta) > 0 {
		member("meta", o.Meta)
	}
	member("truncated", o.Truncated)
	member("next", o.Next)
	if o.Note != "" {
		member("note", o.Note)
	}
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// appendJSON appends v's encoding/json encoding to b, without escaping
// HTML's <, > and & (the answer is read by a model, not a browser).
func appendJSON(b []byte, v any) ([]byte, error) {
	buf := bytes.NewBuffer(b)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return b, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// compactJSON returns raw without white space between tokens. Records
// nearly always arrive compact (decoded from a page, or from a store), so
// it scans raw once and returns it as it is; when raw has white space, or
// does not look like one JSON object or array, json.Compact rewrites it,
// rejecting what is not JSON.
func compactJSON(raw json.RawMessage) (json.RawMessage, error) {
	if isCompact(raw) {
		return raw, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// isCompact reports whether raw is one JSON object or array with no white
// space outside its strings. It checks the structure (strings closed,
// brackets balanced, nothing after the value), not each token: the SDK
// validates the whole answer again when it encodes it.
func isCompact(raw []byte) bool {
	if len(raw) < 2 || (raw[0] != '{' && raw[0] != '[') {
		return false
	}
	depth := 0
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '"': // to the closing quote: one after an even run of backslashes
			for {
				j := bytes.IndexByte(raw[i+1:], '"')
				if j < 0 {
					return false
				}
				i += 1 + j
				k := i - 1
				for raw[k] == '\\' {
					k--
				}
				if (i-1-k)%2 == 0 {
					break
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 && i != len(raw)-1 {
				return false
			}
		case ' ', '\t', '\n', '\r':
			return false
		}
	}
	return depth == 0
}

// jsonLen is the length of v's JSON encoding.
func jsonLen(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}

// project keeps the fields at paths of a JSON object (all of it when paths
// is empty); fields a record lacks are left out.
func project(raw json.RawMessage, paths []string) json.RawMessage {
	if len(paths) == 0 {
		return raw
	}
	rec := tributary.NewRecord(raw)
	out := map[string]any{}
	for _, p := range paths {
		v, ok := rec.Lookup(p)
		if !ok {
			continue
		}
		keys := strings.Split(p, ".")
		cur := out
		for i, k := range keys {
			if i == len(keys)-1 {
				cur[k] = v
				break
			}
			next, ok := cur[k].(map[string]any)
			if !ok {
				if _, leaf := cur[k]; leaf {
					break // a parent already holds the whole value
				}
				next = map[string]any{}
				cur[k] = next
			}
			cur = next
		}
	}
	b, err := appendJSON(nil, out)
	if err != nil {
		return json.RawMessage("{}")
	}
	return b
}
