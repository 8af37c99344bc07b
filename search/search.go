// Package search holds the common filter language of the `search` action:
// the request a caller sends, its validation against an entity's searchable
// fields, the result it gets back, and an in-process evaluator (Index) that
// runs requests over a local copy of the records.
//
// Search runs over a synchronized copy of a source's data: in hosted mode on
// the service, in direct mode over a local replica. The request and result
// shapes are those of the platform contract:
//
//	{"query": {"filter": {"and": [{"eq": {"status": "open"}},
//	                              {"gte": {"created_at": "2024-01-01T00:00:00Z"}}]},
//	           "sort": [{"created_at": "desc"}]},
//	 "limit": 100, "fields": ["id", "subject"]}
//
// and, in Go:
//
//	req := search.Request{
//		Query: search.Query{
//			Filter: search.And(
//				search.Eq("status", "open"),
//				search.Gte("created_at", "2024-01-01T00:00:00Z"),
//			).Ptr(),
//			Sort: []search.SortItem{search.Desc("created_at")},
//		},
//		Limit:  100,
//		Fields: []search.Path{{"id"}, {"subject"}},
//	}
//
// Every error about a request is an *Error wrapping ErrInvalidQuery.
//
// The evaluation rules of Index are the reference semantics of the filter
// language in this library; they are documented on Index.
package search

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"

	"github.com/tributary-dev/tributary/internal/scalar"
	"github.com/tributary-dev/tributary/internal/suggest"
)

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
	Fields []Path `json:"fields,omitempty"`
}

// Query is the `query` object of a search request.
type Query struct {
	// Filter is the condition records must match; nil matches every record.
	Filter *Filter `json:"filter,omitempty"`
	// Sort lists the sort keys, most significant first.
	Sort []SortItem `json:"sort,omitempty"`
}

// Ptr returns a pointer to a copy of f, for Query.Filter.
func (f Filter) Ptr() *Filter { return &f }

// Order is a sort direction.
type Order string

// The sort directions.
const (
	OrderAsc  Order = "asc"
	OrderDesc Order = "desc"
)

// SortItem is one sort key. Its JSON form is a one-member object
// {"<field>": "asc"|"desc"}.
type SortItem struct {
	Field Path
	Order Order

	err string
}

func sortItem(field string, o Order) SortItem {
	p, err := ParsePath(field)
	if err != nil {
		return SortItem{Order: o, err: fmt.Sprintf("bad field name %q", field)}
	}
	return SortItem{Field: p, Order: o}
}

// Asc sorts by field, ascending.
func Asc(field string) SortItem { return sortItem(field, OrderAsc) }

// Desc sorts by field, descending.
func Desc(field string) SortItem { return sortItem(field, OrderDesc) }

// MarshalJSON encodes s as {"<field>": "<order>"}.
func (s SortItem) MarshalJSON() ([]byte, error) {
	if s.err != "" {
		return nil, &Error{Field: "sort", Reason: s.err}
	}
	if err := s.Field.check(); err != nil {
		return nil, &Error{Field: "sort", Reason: "a sort item needs a field"}
	}
	b := append(appendString([]byte{'{'}, s.Field.String()), ':')
	b = appendString(b, string(s.Order))
	return append(b, '}'), nil
}

// UnmarshalJSON decodes {"<field>": "asc"|"desc"}.
func (s *SortItem) UnmarshalJSON(b []byte) error {
	n, err := parseJSON(string(b), false)
	if err != nil {
		return &Error{Field: "sort", Reason: err.Error()}
	}
	it, err := decodeSortItem(&n)
	if err != nil {
		return err
	}
	*s = it
	return nil
}

func decodeSortItem(n *node) (SortItem, error) {
	if n.k != kObj || len(n.c.keys) != 1 {
		return SortItem{}, &Error{Field: "sort", Reason: `a sort item must be an object with one member, {"<field>": "asc"|"desc"}`}
	}
	p, err := ParsePath(n.c.keys[0])
	if err != nil {
		return SortItem{}, err
	}
	v := &n.c.vals[0]
	if v.k != kStr || (v.s != string(OrderAsc) && v.s != string(OrderDesc)) {
		return SortItem{}, &Error{Field: p.String(), Reason: fmt.Sprintf(`sort direction must be "asc" or "desc", not %s`, v.appendJSON(nil))}
	}
	return SortItem{Field: p, Order: Order(v.s)}, nil
}

// UnmarshalJSON decodes a request strictly: unknown parameters, a missing
// query, malformed conditions, sort items, fields, limits and cursors are
// refused with an *Error. An empty sort or fields array decodes as nil.
func (r *Request) UnmarshalJSON(b []byte) error {
	n, err := parseJSON(string(b), true)
	if err != nil {
		return &Error{Field: "query", Reason: err.Error()}
	}
	q, err := decodeRequest(&n)
	if err != nil {
		return err
	}
	*r = q
	return nil
}

// UnmarshalJSON decodes the query object: filter and sort.
func (q *Query) UnmarshalJSON(b []byte) error {
	n, err := parseJSON(string(b), true)
	if err != nil {
		return &Error{Field: "query", Reason: err.Error()}
	}
	x, err := decodeQuery(&n)
	if err != nil {
		return err
	}
	*q = x
	return nil
}

func decodeRequest(n *node) (Request, error) {
	var r Request
	if n.k != kObj {
		return r, &Error{Field: "query", Reason: "the search params must be an object"}
	}
	seenQuery := false
	for i, key := range n.c.keys {
		v := &n.c.vals[i]
		switch key {
		case "query":
			q, err := decodeQuery(v)
			if err != nil {
				return r, err
			}
			r.Query, seenQuery = q, true
		case "limit":
			if v.k == kNull {
				r.Limit = 0
				continue
			}
			if v.k == kStr { // "10", as the catalogue's integer params take it
				if n, err := scalar.Int(v.s); err == nil {
					num := intValue(n).n
					v = &num
				}
			}
			if v.k != kNum || !isIntegral(v) {
				return r, &Error{Field: "limit", Reason: "must be an integer"}
			}
			one := numNode("1")
			maxInt := numNode("2147483647")
			if numCmp(v, &one) < 0 || numCmp(v, &maxInt) > 0 {
				return r, &Error{Field: "limit", Reason: "must be between 1 and 2147483647"}
			}
			r.Limit = int(v.float())
		case "cursor":
			switch v.k {
			case kNull:
				r.Cursor = ""
			case kStr:
				r.Cursor = v.s
			default:
				return r, &Error{Field: "cursor", Reason: "must be a string"}
			}
		case "fields":
			if v.k == kNull {
				r.Fields = nil
				continue
			}
			if v.k != kArr {
				return r, &Error{Field: "fields", Reason: "must be an array of field paths"}
			}
			r.Fields = nil
			for j := range v.c.vals {
				p, err := pathOf(&v.c.vals[j])
				if err != nil {
					return r, err
				}
				r.Fields = append(r.Fields, p)
			}
		default:
			return r, &Error{Field: key, Reason: "unknown search parameter" + suggest.Hint(key, []string{"query", "limit", "cursor", "fields"}) + " (expected query, limit, cursor, fields)"}
		}
	}
	if !seenQuery {
		return r, &Error{Field: "query", Reason: "required"}
	}
	return r, nil
}

func decodeQuery(n *node) (Query, error) {
	var q Query
	if n.k != kObj {
		return q, &Error{Field: "query", Reason: "must be an object {filter, sort}"}
	}
	for i, key := range n.c.keys {
		v := &n.c.vals[i]
		switch key {
		case "filter":
			if v.k == kNull {
				q.Filter = nil
				continue
			}
			f, err := decodeFilter(v)
			if err != nil {
				return q, err
			}
			q.Filter = &f
		case "sort":
			q.Sort = nil
			if v.k == kNull {
				continue
			}
			if v.k != kArr {
				return q, &Error{Field: "sort", Reason: `must be an array of {"<field>": "asc"|"desc"}`}
			}
			for j := range v.c.vals {
				it, err := decodeSortItem(&v.c.vals[j])
				if err != nil {
					return q, err
				}
				q.Sort = append(q.Sort, it)
			}
		default:
			return q, &Error{Field: "query." + key, Reason: "unknown member of query" + suggest.Hint(key, []string{"filter", "sort"}) + " (expected filter, sort)"}
		}
	}
	return q, nil
}

// hash fingerprints the filter and sort of q, for cursors.
func (q *Query) hash() ([8]byte, error) {
	b := []byte{'['}
	if q.Filter != nil {
		var err error
		if b, err = q.Filter.appendJSON(b); err != nil {
			return [8]byte{}, err
		}
	}
	b = append(b, ']')
	for _, it := range q.Sort {
		s, err := it.MarshalJSON()
		if err != nil {
			return [8]byte{}, err
		}
		b = append(b, s...)
	}
	sum := sha256.Sum256(b)
	var h [8]byte
	copy(h[:], sum[:8])
	return h, nil
}

// cursorVersion starts every cursor, so that the format can change.
const cursorVersion = 1

// encodeCursor makes the opaque cursor of the page starting at offset.
func encodeCursor(h [8]byte, offset int) string {
	b := make([]byte, 0, 1+8+binary.MaxVarintLen64)
	b = append(b, cursorVersion)
	b = append(b, h[:]...)
	b = binary.AppendUvarint(b, uint64(offset))
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor returns the offset of a cursor issued for the query hashed h.
func decodeCursor(c string, h [8]byte) (int, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) < 10 || b[0] != cursorVersion {
		return 0, &Error{Field: "cursor", Reason: "malformed cursor"}
	}
	off, n := binary.Uvarint(b[9:])
	if n <= 0 || 9+n != len(b) || off > 1<<40 {
		return 0, &Error{Field: "cursor", Reason: "malformed cursor"}
	}
	if [8]byte(b[1:9]) != h {
		return 0, &Error{Field: "cursor", Reason: "the cursor was issued for a different query (filter or sort)"}
	}
	return int(off), nil
}
