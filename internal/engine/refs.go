package engine

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/jsonx"
)

// deref turns a page of references into the records they name (see
// Refs): read by r.Fetch, at most r.Max ids a request, or each reference
// given its id as r.As.
func (c *Connector) deref(ctx context.Context, entity string, a tributary.Action, r *Refs, refs []tributary.Record) ([]tributary.Record, error) {
	ids := make([]any, len(refs))
	for i, ref := range refs {
		raw, ok := jsonx.Lookup(ref.Raw(), strings.Split(r.ID, ".")...)
		if !ok || jsonx.IsNull(raw) {
			return nil, c.unexpected(entity, a, http.StatusOK, "a reference has no "+r.ID, nil)
		}
		ids[i] = json.RawMessage(raw)
	}
	if r.Fetch == nil {
		out := make([]tributary.Record, len(refs))
		for i, ref := range refs {
			id := ids[i].(json.RawMessage)
			if r.Text && len(id) > 0 && id[0] != '"' {
				id, _ = json.Marshal(string(id))
			}
			out[i] = tributary.NewRecord(withMember(ref.Raw(), r.As, id))
		}
		return out, nil
	}
	n := r.Max
	if n <= 0 {
		n = max(len(ids), 1)
	}
	out := make([]tributary.Record, 0, len(ids))
	for chunk := range slices.Chunk(ids, n) {
		resp, body, err := c.read(ctx, entity, a, *r.Fetch, tributary.Params{r.Param: chunk})
		if err != nil {
			return nil, err
		}
		split, err := jsonx.Split(body, jsonx.Spec{Key: r.Fetch.Records, Required: true})
		if err != nil {
			return nil, c.unexpected(entity, a, resp.StatusCode, err.Error(), err)
		}
		for _, rec := range split.Records {
			out = append(out, tributary.NewRecord(rec))
		}
	}
	return out, nil
}

// withMember returns the JSON object obj with the member name set to
// value first, unless obj has that member already.
func withMember(obj []byte, name string, value []byte) []byte {
	if _, ok := jsonx.Lookup(obj, name); ok {
		return obj
	}
	key, _ := json.Marshal(name)
	rest := strings.TrimSpace(string(obj))
	rest = strings.TrimSpace(strings.TrimPrefix(rest, "{"))
	out := make([]byte, 0, len(obj)+len(key)+len(value)+3)
	out = append(out, '{')
	out = append(out, key...)
	out = append(out, ':')
	out = append(out, value...)
	if rest != "}" {
		out = append(out, ',')
	}
	return append(out, rest...)
}
