package tributary

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"

	"github.com/tributary-dev/tributary/download"
	"github.com/tributary-dev/tributary/pagination"
	"github.com/tributary-dev/tributary/search"
)

// Request is one operation, exactly the body of the contract's execute call.
type Request struct {
	Entity string `json:"entity"`
	Action Action `json:"action"`
	Params Params `json:"params,omitempty"`
}

// Result is what Execute returns for each action.
type Result struct {
	// Records, Meta and Next are set for list and api_search (one page), and
	// Records holds the one record of a get.
	Records []Record
	Meta    map[string]any
	Next    Params
	// Search is set for search.
	Search *search.Result
	// Download is set for download; the caller must Close it.
	Download *download.Stream
}

// Execute runs one operation on c: it checks the entity and action against
// c's catalogue, then dispatches. Params are validated by the method it
// calls, before anything is sent.
func Execute(ctx context.Context, c Connector, r Request) (*Result, error) {
	e, ok := FindEntity(c.Entities(), r.Entity)
	if !ok {
		_, err := Validate(c.Type(), c.Entities(), r.Entity, r.Action, r.Params)
		return nil, err
	}
	if !e.Supports(r.Action) {
		_, err := Validate(c.Type(), c.Entities(), r.Entity, r.Action, r.Params)
		return nil, err
	}
	switch r.Action {
	case ActionList, ActionAPISearch:
		var page *Page
		var err error
		if r.Action == ActionList {
			page, err = c.List(ctx, r.Entity, r.Params)
		} else {
			page, err = c.APISearch(ctx, r.Entity, r.Params)
		}
		if err != nil {
			return nil, err
		}
		return &Result{Records: page.Records, Meta: page.Meta, Next: page.Next}, nil
	case ActionGet:
		rec, err := c.Get(ctx, r.Entity, r.Params)
		if err != nil {
			return nil, err
		}
		return &Result{Records: []Record{rec}, Meta: map[string]any{}}, nil
	case ActionDownload:
		s, err := c.Download(ctx, r.Entity, r.Params)
		if err != nil {
			return nil, err
		}
		return &Result{Download: s}, nil
	case ActionSearch:
		norm, err := Validate(c.Type(), c.Entities(), r.Entity, r.Action, r.Params)
		if err != nil {
			return nil, err
		}
		s, ok := c.(Searcher)
		if !ok {
			return nil, &Error{Kind: c.Type(), Entity: r.Entity, Action: r.Action, Err: ErrUnsupportedAction,
				Message: "search runs on a synchronized copy of the data: use hosted mode, or attach a local replica in direct mode"}
		}
		q, err := SearchRequest(norm)
		if err != nil {
			return nil, &Error{Kind: c.Type(), Entity: r.Entity, Action: r.Action, Err: ErrInvalidParams, Param: "query", Message: err.Error()}
		}
		res, err := s.Search(ctx, r.Entity, q)
		if err != nil {
			return nil, err
		}
		return &Result{Search: res}, nil
	}
	return nil, &Error{Kind: c.Type(), Entity: r.Entity, Action: r.Action, Err: ErrUnsupportedAction, Message: fmt.Sprintf("unknown action %q", r.Action)}
}

// SearchRequest converts the params of a search action into a search.Request.
func SearchRequest(p Params) (search.Request, error) {
	var q search.Request
	b, err := json.Marshal(p)
	if err != nil {
		return q, err
	}
	err = json.Unmarshal(b, &q)
	return q, err
}

// All walks every page of entity from params p and yields each record in
// order. Connectors that implement Walker choose their best walk (for
// example a cursor mode without a page limit); others are paged with List
// and each page's Next. A repeated page stops the walk with ErrPaging.
// An error is yielded once, last; breaking out of the loop stops fetching.
func All(ctx context.Context, c Connector, entity string, p Params) iter.Seq2[Record, error] {
	if w, ok := c.(Walker); ok {
		return w.Walk(ctx, entity, p)
	}
	return Pages(c, entity, p).All(ctx)
}

// Pages returns a pager over entity's pages, fetched with List.
func Pages(c Connector, entity string, p Params) *pagination.Pager[Record] {
	return pagination.New(map[string]any(p), func(ctx context.Context, params map[string]any) (*pagination.Page[Record], error) {
		page, err := c.List(ctx, entity, Params(params))
		if err != nil {
			return nil, err
		}
		return &pagination.Page[Record]{Items: page.Records, Meta: page.Meta, Next: map[string]any(page.Next)}, nil
	})
}

// SearchSchema returns the searchable fields of e as a search.Schema.
func SearchSchema(e Entity) search.Schema {
	s := make(search.Schema, len(e.Searchable))
	for _, f := range e.Searchable {
		s[f.Name] = search.Type(f.Type)
	}
	return s
}

// ValidateSearch checks a search request against the entity's searchable
// fields and their types before anything is sent; failures are *Error
// values matching ErrInvalidParams that name the field (or ErrUnknownEntity,
// ErrUnsupportedAction).
func ValidateSearch(kind string, entities []Entity, entity string, q search.Request) error {
	if _, err := Validate(kind, entities, entity, ActionSearch, Params{"query": map[string]any{}}); err != nil {
		return err
	}
	e, _ := FindEntity(entities, entity)
	if err := q.Validate(SearchSchema(e)); err != nil {
		te := &Error{Kind: kind, Entity: entity, Action: ActionSearch, Err: ErrInvalidParams, Message: err.Error(), Cause: err}
		var se *search.Error
		if errors.As(err, &se) {
			te.Param = se.Field
		}
		return te
	}
	return nil
}
