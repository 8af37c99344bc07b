package hosted

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strconv"
	"strings"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/download"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/jsonx"
	"github.com/tributary-dev/tributary/internal/transport"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/pagination"
	"github.com/tributary-dev/tributary/search"
)

// Connector runs operations on one hosted connector. It implements
// tributary.Connector, tributary.Searcher and tributary.Walker.
type Connector struct {
	c       *Client
	id      string
	kind    string
	catalog []tributary.Entity
}

// Connector returns the hosted connector id of kind connectorType. Nothing
// is sent until an operation runs.
func (c *Client) Connector(id, connectorType string) (*Connector, error) {
	cat, err := kinds.Catalogue(connectorType)
	if err != nil {
		return nil, err
	}
	if id == "" || strings.ContainsAny(id, "/?#") {
		return nil, &tributary.Error{Kind: connectorType, Err: tributary.ErrInvalidCredentials, Message: fmt.Sprintf("connector id %q is not an id", id)}
	}
	return &Connector{c: c, id: id, kind: connectorType, catalog: cat}, nil
}

// ID returns the connector's id.
func (h *Connector) ID() string { return h.id }

// Type implements tributary.Connector.
func (h *Connector) Type() string { return h.kind }

// Entities implements tributary.Connector.
func (h *Connector) Entities() []tributary.Entity { return h.catalog }

// Format prints the connector.
func (h *Connector) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "hosted.Connector{id: %s, type: %s}", h.id, h.kind)
}

// List implements tributary.Connector.
func (h *Connector) List(ctx context.Context, entity string, p tributary.Params) (*tributary.Page, error) {
	page, _, err := h.page(ctx, entity, tributary.ActionList, p, 0)
	return page, err
}

// APISearch implements tributary.Connector.
func (h *Connector) APISearch(ctx context.Context, entity string, p tributary.Params) (*tributary.Page, error) {
	page, _, err := h.page(ctx, entity, tributary.ActionAPISearch, p, 0)
	return page, err
}

// Walk implements tributary.Walker: pages follow Next as in direct mode,
// and where the entity's paging names later pages (see pagination.Planner)
// up to Options.Prefetch pages are asked for at once, as in direct mode.
func (h *Connector) Walk(ctx context.Context, entity string, p tributary.Params) iter.Seq2[tributary.Record, error] {
	prefetch := h.c.prefetch
	return pagination.New(map[string]any(p), func(ctx context.Context, params map[string]any) (*pagination.Page[tributary.Record], error) {
		page, later, err := h.page(ctx, entity, tributary.ActionList, params, prefetch-1)
		if err != nil {
			return nil, err
		}
		return &pagination.Page[tributary.Record]{Items: page.Records, Meta: page.Meta, Next: page.Next, Later: later}, nil
	}).Window(prefetch).All(ctx)
}

// page runs a paged action; with later above zero it also returns the
// params of up to later pages after Next that the page names.
func (h *Connector) page(ctx context.Context, entity string, a tributary.Action, p tributary.Params, later int) (*tributary.Page, []map[string]any, error) {
	norm, err := tributary.Validate(h.kind, h.catalog, entity, a, p)
	if err != nil {
		return nil, nil, err
	}
	env, err := h.execute(ctx, entity, a, norm)
	if err != nil {
		return nil, nil, err
	}
	recs, err := records(env.result)
	if err != nil {
		return nil, nil, h.unexpected(entity, a, err.Error())
	}
	page := &tributary.Page{Records: recs, Meta: env.meta}
	e, _ := tributary.FindEntity(h.catalog, entity)
	var more []map[string]any
	if r, ok := e.Paging[a].(pagination.Resumer); ok {
		next, err := pagination.NextFromMeta(r, norm, env.meta, len(recs))
		if err != nil {
			return nil, nil, &tributary.Error{Kind: h.kind, Entity: entity, Action: a, Err: tributary.ErrPaging, Message: err.Error()}
		}
		page.Next = next
		if next != nil {
			more = pagination.Later(e.Paging[a], norm, env.meta, len(recs), later)
		}
	}
	return page, more, nil
}

// Get implements tributary.Connector.
func (h *Connector) Get(ctx context.Context, entity string, p tributary.Params) (tributary.Record, error) {
	a := tributary.ActionGet
	norm, err := tributary.Validate(h.kind, h.catalog, entity, a, p)
	if err != nil {
		return tributary.Record{}, err
	}
	env, err := h.execute(ctx, entity, a, norm)
	if err != nil {
		return tributary.Record{}, err
	}
	raw := env.result
	if recs, err := records(raw); err == nil && len(recs) == 1 && strings.HasPrefix(strings.TrimSpace(string(raw)), "[") {
		return recs[0], nil
	}
	rec, err := jsonx.Object(raw, "")
	if err != nil {
		return tributary.Record{}, h.unexpected(entity, a, "the result: "+err.Error())
	}
	return tributary.NewRecord(rec), nil
}

// Search implements tributary.Searcher.
func (h *Connector) Search(ctx context.Context, entity string, q search.Request) (*search.Result, error) {
	a := tributary.ActionSearch
	if e, ok := tributary.FindEntity(h.catalog, entity); ok {
		q = q.Canonical(tributary.SearchSchema(e)) // "42" is sent as 42
	}
	b, err := json.Marshal(q)
	if err != nil {
		return nil, &tributary.Error{Kind: h.kind, Entity: entity, Action: a, Err: tributary.ErrInvalidParams, Message: err.Error()}
	}
	var params tributary.Params
	_ = json.Unmarshal(b, &params)
	norm, err := tributary.Validate(h.kind, h.catalog, entity, a, params)
	if err != nil {
		return nil, err
	}
	if err := tributary.ValidateSearch(h.kind, h.catalog, entity, q); err != nil {
		return nil, err
	}
	env, err := h.execute(ctx, entity, a, norm)
	if err != nil {
		return nil, err
	}
	var res search.Result
	if err := json.Unmarshal(env.result, &res); err != nil {
		return nil, h.unexpected(entity, a, "the search result does not decode: "+err.Error())
	}
	return &res, nil
}

// Download implements tributary.Connector: the service streams the file;
// a dropped connection is resumed with a ranged execute call.
func (h *Connector) Download(ctx context.Context, entity string, p tributary.Params) (*download.Stream, error) {
	a := tributary.ActionDownload
	norm, err := tributary.Validate(h.kind, h.catalog, entity, a, p)
	if err != nil {
		return nil, err
	}
	var rng *download.Range
	if v, ok := norm["range_header"].(string); ok {
		r, err := download.ParseRange(v)
		if err != nil {
			return nil, &tributary.Error{Kind: h.kind, Entity: entity, Action: a, Param: "range_header", Err: tributary.ErrInvalidParams, Message: err.Error()}
		}
		rng = &r
	}
	fetch := func(ctx context.Context, hdr http.Header) (*http.Response, error) {
		params := norm.Clone()
		delete(params, "range_header")
		if r := hdr.Get("Range"); r != "" {
			params["range_header"] = r
		}
		extra := http.Header{"Accept": {"*/*"}}
		if v := hdr.Get("If-Range"); v != "" {
			extra.Set("If-Range", v)
		}
		resp, err := h.c.post(ctx, h.executePath(), tributary.Request{Entity: entity, Action: a, Params: params}, extra)
		if err != nil {
			return nil, h.c.wrap(h.kind, entity, a, err)
		}
		if err := h.otherKind(entity, a, resp); err != nil {
			resp.Body.Close()
			return nil, err
		}
		if resp.StatusCode/100 != 2 {
			defer resp.Body.Close()
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
			return nil, h.c.statusError(h.kind, entity, a, resp, body)
		}
		return resp, nil
	}
	s, err := download.Open(transport.Unbounded(ctx), fetch, rng, download.Options{})
	if err != nil {
		if _, ok := err.(*tributary.Error); ok {
			return nil, err
		}
		return nil, h.unexpected(entity, a, err.Error())
	}
	return s, nil
}

// ConnectorTypeHeader is the header in which the service's execute
// answers name the connector's kind: a Connector opened as another kind
// fails with an error that says which kind the connector is.
const ConnectorTypeHeader = "Tributary-Connector-Type"

// otherKind returns the error of an answer from a connector of another
// kind than h's, or nil.
func (h *Connector) otherKind(entity string, a tributary.Action, resp *http.Response) error {
	k := resp.Header.Get(ConnectorTypeHeader)
	if k == "" || k == h.kind {
		return nil
	}
	if _, err := kinds.Catalogue(k); err != nil {
		k = strconv.Quote(k[:min(len(k), 64)]) // a kind this build does not know
	}
	return &tributary.Error{Kind: h.kind, Entity: entity, Action: a, Err: tributary.ErrInvalidParams,
		Message: fmt.Sprintf("connector %s is a %s connector, not %s: give the id of a %s connector, or run the operation as %s", h.id, k, h.kind, h.kind, k)}
}

func (h *Connector) executePath() string {
	return strings.ReplaceAll(h.c.paths.Execute, "{id}", h.id)
}

// envelope is a decoded execute response.
type envelope struct {
	result json.RawMessage
	meta   map[string]any
}

// execute runs one operation and decodes the response envelope {status,
// result, connector_metadata, execution_metadata}, or a bare result.
//
// A body that breaks off or stalls while it is read is asked for again
// under the retry policy, as in direct mode; one larger than the page size
// cap (WithMaxPageBytes) is ErrUnexpectedResponse.
func (h *Connector) execute(ctx context.Context, entity string, a tributary.Action, params tributary.Params) (*envelope, error) {
	var resp *http.Response
	var body []byte
	err := engine.RetryBody(ctx, h.c.retry, func() (bool, error) {
		r, err := h.c.post(ctx, h.executePath(), tributary.Request{Entity: entity, Action: a, Params: params}, nil)
		if err != nil {
			return false, h.c.wrap(h.kind, entity, a, err)
		}
		defer r.Body.Close()
		b, err := transport.ReadBody(r.Body, r.ContentLength, h.c.maxBody)
		if errors.Is(err, transport.ErrTooLarge) {
			return false, h.unexpected(entity, a, "the response is larger than "+transport.Bytes(h.c.maxBody)+" (the page size cap, WithMaxPageBytes)")
		}
		if err != nil {
			return true, h.c.wrap(h.kind, entity, a, fmt.Errorf("reading the response: %w", err))
		}
		resp, body = r, b
		return false, nil
	})
	if err != nil {
		var te *tributary.Error
		if !errors.As(err, &te) {
			err = h.c.wrap(h.kind, entity, a, err) // the context ended during a backoff
		}
		return nil, err
	}
	if err := h.otherKind(entity, a, resp); err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, h.c.statusError(h.kind, entity, a, resp, body)
	}
	env := &envelope{meta: map[string]any{}}
	m, err := jsonx.Members(body)
	if err != nil {
		if _, aerr := jsonx.SplitArray(body); aerr == nil {
			env.result = body // a bare list of records
			return env, nil
		}
		return nil, h.unexpected(entity, a, "the response: "+err.Error())
	}
	result, wrapped := m["result"]
	if !wrapped {
		env.result = body // a bare result
		if data, ok := m["data"]; ok && a != tributary.ActionGet && a != tributary.ActionSearch {
			env.result = data // {data, meta}
			if meta, ok := m["meta"]; ok {
				if v, err := jsonx.Value(meta); err == nil {
					if mm, ok := v.(map[string]any); ok {
						env.meta = mm
					}
				}
			}
		}
		return env, nil
	}
	if st, ok := jsonx.String(m["status"]); ok && st == "error" {
		return nil, h.c.statusError(h.kind, entity, a, resp, body)
	}
	env.result = result
	if raw, ok := m["connector_metadata"]; ok && !jsonx.IsNull(raw) {
		v, err := jsonx.Value(raw)
		if err != nil {
			return nil, h.unexpected(entity, a, "connector_metadata: expected JSON, got malformed JSON")
		}
		if mm, ok := v.(map[string]any); ok {
			env.meta = mm
		}
	}
	return env, nil
}

// records reads a list result: an array of records, or an object holding
// one under "records" or "data".
func records(raw json.RawMessage) ([]tributary.Record, error) {
	if jsonx.IsNull(raw) {
		return []tributary.Record{}, nil
	}
	elems, err := jsonx.SplitArray(raw)
	if err != nil {
		for _, key := range []string{"records", "data"} {
			p, perr := jsonx.SplitPage(raw, key)
			if perr == nil && p.Found {
				elems, err = p.Records, nil
				break
			}
		}
		if err != nil {
			return nil, fmt.Errorf("the result: %w", err)
		}
	}
	out := make([]tributary.Record, len(elems))
	for i, e := range elems {
		out[i] = tributary.NewRecord(e)
	}
	return out, nil
}

func (h *Connector) unexpected(entity string, a tributary.Action, msg string) error {
	return &tributary.Error{Kind: h.kind, Entity: entity, Action: a, Err: tributary.ErrUnexpectedResponse, Message: h.c.redact(msg)}
}
