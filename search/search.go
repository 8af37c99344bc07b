// Package search holds the common filter language of the `search` action:
// the request a caller sends and the result it gets back.
//
// Search runs over a synchronized copy of a source's data: in hosted mode on
// the service, in direct mode over a local replica. The request and result
// shapes are those of the platform contract.
package search

import "encoding/json"

// DefaultLimit is the number of hits a search returns when Request.Limit is 0.
const DefaultLimit = 1000

// Request is the params object of a `search` action.
type Request struct {
	// Query holds the filter and sort conditions.
	Query Query `json:"query"`
	// Limit is the maximum number of hits; 0 means DefaultLimit.
	Limit int `json:"limit,omitempty"`
	// Cursor is the NextCursor of the previous result, to fetch the next page.
	Cursor string `json:"cursor,omitempty"`
	// Fields, when set, restricts each hit's data to these field paths.
	Fields []string `json:"fields,omitempty"`
}

// Query is the `query` object of a search request.
type Query struct {
	// Filter is a condition of the shape {<operator>: {<field>: <value>}},
	// kept as the JSON the caller wrote.
	Filter json.RawMessage `json:"filter,omitempty"`
	// Sort lists sort conditions, each {"<field>": "asc"|"desc"}.
	Sort []map[string]string `json:"sort,omitempty"`
}

// Result is what a search returns.
type Result struct {
	Hits []Hit `json:"hits"`
	// NextCursor fetches the next page when non-empty.
	NextCursor *string `json:"next_cursor"`
	// TookMS is the query execution time in milliseconds.
	TookMS float64 `json:"took_ms"`
}

// Hit is one matching record.
type Hit struct {
	ID    string          `json:"id"`
	Score float64         `json:"score"`
	Data  json.RawMessage `json:"data"`
}
