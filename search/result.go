package search

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Result is what a search returns, in the contract's shape:
//
//	{"hits": [{"id": "1", "score": 1.0, "data": {...}}], "next_cursor": "…"|null, "took_ms": 0.4}
type Result struct {
	// Hits are the matching records of this page.
	Hits []Hit `json:"hits"`
	// NextCursor fetches the next page (as Request.Cursor); nil on the last
	// page.
	NextCursor *string `json:"next_cursor"`
	// TookMS is the query execution time in milliseconds.
	TookMS float64 `json:"took_ms"`
}

// Hit is one matching record.
type Hit struct {
	// ID is the record's identifier.
	ID string `json:"id"`
	// Score is the relevance score.
	Score float64 `json:"score"`
	// Data is the record (or the requested fields of it), a JSON object.
	Data json.RawMessage `json:"data"`
}

// HasMore reports whether a next page exists.
func (r *Result) HasMore() bool { return r.NextCursor != nil }

// MarshalJSON encodes r in the contract's shape; hits is [] rather than null
// when empty.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	p := plain(r)
	if p.Hits == nil {
		p.Hits = []Hit{}
	}
	return json.Marshal(p)
}

// UnmarshalJSON decodes both result shapes services send into r:
//
//   - the contract's {"hits": [{"id", "score", "data"}], "next_cursor",
//     "took_ms"}, where id may also be a number or null and score and took_ms
//     null;
//   - the newer {"data": [...], "meta": {"has_more", "cursor", "took_ms"}}.
//     An item of data that is a hit ({"data": {...}} with only id, score and
//     data beside) is read as one; any other item is a bare record: its id
//     is the record's "id" (a string, or a number's literal; "" when absent),
//     its score 0, its data the item. NextCursor is meta.cursor, unless
//     has_more is false.
//
// An empty cursor decodes as nil. JSON null leaves r unchanged.
func (r *Result) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return nil
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(b, &probe); err != nil {
		return fmt.Errorf("search: result: %w", err)
	}
	var out Result
	switch {
	case probe["hits"] != nil:
		var hits []json.RawMessage
		if err := unmarshalNullable(probe["hits"], &hits); err != nil {
			return fmt.Errorf("search: result: hits: %w", err)
		}
		for i, h := range hits {
			hit, err := decodeHit(h)
			if err != nil {
				return fmt.Errorf("search: result: hits[%d]: %w", i, err)
			}
			out.Hits = append(out.Hits, hit)
		}
		if err := unmarshalNullable(probe["next_cursor"], &out.NextCursor); err != nil {
			return fmt.Errorf("search: result: next_cursor: %w", err)
		}
		if err := unmarshalNullable(probe["took_ms"], &out.TookMS); err != nil {
			return fmt.Errorf("search: result: took_ms: %w", err)
		}
	case probe["data"] != nil:
		var items []json.RawMessage
		if err := unmarshalNullable(probe["data"], &items); err != nil {
			return fmt.Errorf("search: result: data: %w", err)
		}
		for i, it := range items {
			hit, err := decodeItem(it)
			if err != nil {
				return fmt.Errorf("search: result: data[%d]: %w", i, err)
			}
			out.Hits = append(out.Hits, hit)
		}
		var meta struct {
			HasMore *bool    `json:"has_more"`
			Cursor  *string  `json:"cursor"`
			TookMS  *float64 `json:"took_ms"`
		}
		if err := unmarshalNullable(probe["meta"], &meta); err != nil {
			return fmt.Errorf("search: result: meta: %w", err)
		}
		if meta.HasMore == nil || *meta.HasMore {
			out.NextCursor = meta.Cursor
		}
		if meta.TookMS != nil {
			out.TookMS = *meta.TookMS
		}
	default:
		return errors.New("search: result: neither hits nor data")
	}
	if out.NextCursor != nil && *out.NextCursor == "" {
		out.NextCursor = nil
	}
	*r = out
	return nil
}

func unmarshalNullable(b json.RawMessage, v any) error {
	if b == nil {
		return nil
	}
	return json.Unmarshal(b, v)
}

// decodeHit decodes {"id", "score", "data"} leniently: id a string, a number
// or null; score a number or null.
func decodeHit(b json.RawMessage) (Hit, error) {
	var h struct {
		ID    json.RawMessage `json:"id"`
		Score *float64        `json:"score"`
		Data  json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return Hit{}, err
	}
	id, err := idString(h.ID)
	if err != nil {
		return Hit{}, err
	}
	out := Hit{ID: id, Data: h.Data}
	if h.Score != nil {
		out.Score = *h.Score
	}
	return out, nil
}

// decodeItem decodes an item of the newer shape: a hit, or a bare record.
func decodeItem(b json.RawMessage) (Hit, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return Hit{}, fmt.Errorf("an item must be an object: %w", err)
	}
	if isHit(m) {
		return decodeHit(b)
	}
	id, err := idString(m["id"])
	if err != nil {
		return Hit{}, err
	}
	return Hit{ID: id, Data: append(json.RawMessage(nil), bytes.TrimSpace(b)...)}, nil
}

// isHit reports whether an item is shaped as a hit: a data object, and
// nothing but id and score beside it.
func isHit(m map[string]json.RawMessage) bool {
	d, ok := m["data"]
	if !ok || len(bytes.TrimSpace(d)) == 0 || bytes.TrimSpace(d)[0] != '{' {
		return false
	}
	for k := range m {
		if k != "id" && k != "score" && k != "data" {
			return false
		}
	}
	return true
}

// idString reads an id: a string, a number's literal, or "" for null or
// absent.
func idString(b json.RawMessage) (string, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || bytes.Equal(b, []byte("null")) {
		return "", nil
	}
	if b[0] == '"' {
		var s string
		err := json.Unmarshal(b, &s)
		return s, err
	}
	if isNumberLiteral(string(b)) {
		return string(b), nil
	}
	return "", fmt.Errorf("id must be a string or a number, not %s", strconv.Quote(string(b)))
}
