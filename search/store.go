package search

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unsafe"
)

// This file is what a store outside the process (package store: SQLite,
// PostgreSQL) needs to run the filter language with exactly the semantics
// documented on Index: order keys that compare, byte for byte, as the
// reference compares values; the words keyword and fuzzy look at; and an
// Evaluator that applies a request to one record at a time. A store uses
// keys and words to find candidates with its own indexes, and the
// Evaluator to decide, so there is one definition of the semantics.

// Order keys. The key of a value is a class byte followed by a payload,
// such that bytes.Compare of two keys is the reference sort order (sortCmp)
// of their values, and two keys are equal exactly when the values sort
// together: false < true < numbers (by exact decimal value) < date-time
// strings (as instants) < other strings (byte for byte) < arrays <
// objects. Null and missing values have no key.
const (
	keyFalse  byte = 1
	keyTrue   byte = 2
	keyNumber byte = 3
	keyTime   byte = 4
	keyString byte = 5
	keyArray  byte = 6
	keyObject byte = 7
)

// KeyClass is the first byte of an order key, for a store that must tell
// the classes apart (a range over numbers only, say).
type KeyClass byte

// The key classes, in order.
const (
	ClassFalse  = KeyClass(keyFalse)
	ClassTrue   = KeyClass(keyTrue)
	ClassNumber = KeyClass(keyNumber)
	ClassTime   = KeyClass(keyTime)
	ClassString = KeyClass(keyString)
	ClassArray  = KeyClass(keyArray)
	ClassObject = KeyClass(keyObject)
)

// appendKey appends the order key of n, or nothing (false) when n is null
// or missing.
func appendKey(b []byte, n *node) ([]byte, bool) {
	switch n.k {
	case kBool:
		if n.f&fTrue != 0 {
			return append(b, keyTrue), true
		}
		return append(b, keyFalse), true
	case kNum:
		return appendNumberKey(append(b, keyNumber), n.s), true
	case kStr:
		if n.f&fTime != 0 {
			t, _, _ := parseDateTime(n.s)
			b = append(b, keyTime)
			b = binary.BigEndian.AppendUint64(b, uint64(t.Unix())^(1<<63))
			return binary.BigEndian.AppendUint32(b, uint32(t.Nanosecond())), true
		}
		return append(append(b, keyString), n.s...), true
	case kArr:
		return append(b, keyArray), true
	case kObj:
		return append(b, keyObject), true
	}
	return b, false
}

// appendNumberKey appends an order-preserving encoding of the exact value
// of a JSON number literal: 0x01 negative, 0x02 zero, 0x03 positive; then,
// for positive numbers, the decimal exponent (biased, big-endian) and the
// significant digits; for negative ones the same, inverted, and 0xff to end
// them (so that a shorter run of digits sorts after a longer one it
// starts).
func appendNumberKey(b []byte, lit string) []byte {
	neg, digits, exp := decimal(lit)
	if len(digits) == 0 {
		return append(b, 0x02)
	}
	e := uint32(int32(exp)) ^ (1 << 31)
	if !neg {
		b = append(b, 0x03)
		b = binary.BigEndian.AppendUint32(b, e)
		return append(b, digits...)
	}
	b = append(b, 0x01)
	b = binary.BigEndian.AppendUint32(b, ^e)
	for _, d := range digits {
		b = append(b, ^d)
	}
	return append(b, 0xff)
}

// Key returns the order key of v, nil for null.
func (v Value) Key() []byte {
	b, ok := appendKey(nil, &v.n)
	if !ok {
		return nil
	}
	return b
}

// IsDateTime reports whether v is a string that is an RFC 3339 date-time
// (or one with a numeric offset without its colon, +0000), which compares
// with other date-times as an instant.
func (v Value) IsDateTime() bool { return v.n.k == kStr && v.n.f&fTime != 0 }

// Words returns the distinct words of text as keyword and fuzzy see them
// (lowercased runs of letters, digits and combining marks), in order.
func Words(text string) []string { return queryWords(text) }

// MaxEdits returns the edit distance fuzzy allows for a query word: 0 for
// 1–3 runes, 1 for 4–7, 2 from 8.
func MaxEdits(word string) int { return maxEdits(len([]rune(word))) }

// WithinEdits reports whether the optimal string alignment distance
// between the words a and b is at most k (fuzzy's rule).
func WithinEdits(a, b string, k int) bool {
	return editDistance([]rune(a), []rune(b), k, nil) <= k
}

// EditDistance returns the optimal string alignment distance between the
// words a and b, or limit+1 when it exceeds limit.
func EditDistance(a, b string, limit int) int {
	return editDistance([]rune(a), []rune(b), limit, nil)
}

// Extractor reads, from the raw JSON of a record, what a store keeps
// beside it to push searches down: its id and id key, and for every
// searchable field its order key, the text of a date-time string, and its
// words. It is not safe for concurrent use.
type Extractor struct {
	idPath Path
	fields []Path
	deep   map[string]bool // top-level members a dotted path goes into
	p      parser
	arena  arena
	isDeep func(string) bool
	starts []int // scratch: where each field's key, then its words, start
}

// Extracted is what Extract found in one record. Its slices are indexed by
// field, in the order of Extractor.Fields, and reused by the next Extract.
type Extracted struct {
	// ID is the hit id (a string id, or a number id's literal); IDKey its
	// order key.
	ID    string
	IDKey []byte
	// Keys holds each field's order key; nil when the field is null or
	// missing.
	Keys [][]byte
	// Times holds the text of each field whose value is a date-time
	// string (which sorts as an instant but compares byte for byte with a
	// string that is not a date-time); nil otherwise.
	Times [][]byte
	// Text holds, for each field whose value is a string, its words as
	// keyword and fuzzy see them, separated by spaces (empty, not nil, for
	// a string without words); nil otherwise.
	Text [][]byte

	buf, tbuf, dbuf []byte
}

// NewExtractor returns an Extractor for the fields of schema, with ids at
// the dot path idField.
func NewExtractor(schema Schema, idField string) (*Extractor, error) {
	if err := schema.Check(); err != nil {
		return nil, err
	}
	idPath, err := ParsePath(idField)
	if err != nil {
		return nil, fmt.Errorf("search: bad id field %q", idField)
	}
	x := &Extractor{idPath: idPath, deep: map[string]bool{}}
	if len(idPath) > 1 {
		x.deep[idPath[0]] = true
	}
	for _, name := range slices.Sorted(maps.Keys(schema)) {
		p, err := ParsePath(name)
		if err != nil {
			return nil, err
		}
		x.fields = append(x.fields, p)
		if len(p) > 1 {
			x.deep[p[0]] = true
		}
	}
	return x, nil
}

// Fields returns the searchable fields, in the order of Extracted's slices
// (sorted by name).
func (x *Extractor) Fields() []Path { return slices.Clone(x.fields) }

// Extract parses record, a JSON object, into e. It fails, as
// Builder.Add does, when the record is not a JSON object or its id is
// missing or not a string or number.
func (x *Extractor) Extract(record []byte, e *Extracted) error {
	// Arrays and objects need only their kind, unless a path goes into
	// them: they are skipped, not parsed.
	// The record is read in place: nothing of the parse outlives this
	// call (strings are copied into e, composites are the arena's).
	if x.isDeep == nil {
		x.isDeep = func(k string) bool { return x.deep[k] }
	}
	x.arena.reset()
	x.p = parser{s: unsafe.String(unsafe.SliceData(record), len(record)), dates: true, vstack: x.p.vstack[:0], kstack: x.p.kstack[:0], deep: x.isDeep, arena: &x.arena}
	root, err := x.p.parseAll()
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	if root.k != kObj {
		return errors.New("search: the record is not a JSON object")
	}
	idn := root.walk(x.idPath)
	if idn.k != kStr && idn.k != kNum {
		return fmt.Errorf("search: the id field %q is missing or not a string or number", x.idPath.String())
	}
	e.ID = strings.Clone(idn.s)
	e.buf = e.buf[:0]
	e.buf, _ = appendKey(e.buf, idn)
	idEnd := len(e.buf)
	n := len(x.fields)
	e.Keys, e.Times, e.Text = resize(e.Keys, n), resize(e.Times, n), resize(e.Text, n)
	x.starts = resize(x.starts, 2*n+2)
	starts, tstarts := x.starts[:n+1], x.starts[n+1:]
	e.tbuf = e.tbuf[:0]
	if cap(e.dbuf) < len(record) {
		e.dbuf = make([]byte, 0, len(record))
	}
	e.dbuf = e.dbuf[:0]
	for i, f := range x.fields {
		v := root.walk(f)
		starts[i] = len(e.buf)
		var ok bool
		e.buf, ok = appendKey(e.buf, v)
		if !ok {
			starts[i] = -1
		}
		e.Times[i] = nil
		tstarts[i] = -1
		if v.k == kStr {
			if v.f&fTime != 0 {
				// A slice of dbuf, sized for the record's text: appending
				// seldom moves it, and a slice taken before stays valid.
				d0 := len(e.dbuf)
				e.dbuf = append(e.dbuf, v.s...)
				e.Times[i] = e.dbuf[d0:len(e.dbuf):len(e.dbuf)]
			}
			tstarts[i] = len(e.tbuf)
			e.tbuf = appendWords(e.tbuf, v.s)
		}
	}
	for i := range x.fields {
		if tstarts[i] < 0 {
			e.Text[i] = nil
			continue
		}
		end := len(e.tbuf)
		for j := i + 1; j < n; j++ {
			if tstarts[j] >= 0 {
				end = tstarts[j]
				break
			}
		}
		e.Text[i] = e.tbuf[tstarts[i]:end:end]
	}
	// Slice the keys out of buf only now: appending may have moved it.
	e.IDKey = e.buf[:idEnd:idEnd]
	for i := range x.fields {
		if starts[i] < 0 {
			e.Keys[i] = nil
			continue
		}
		end := len(e.buf)
		for j := i + 1; j < n; j++ {
			if starts[j] >= 0 {
				end = starts[j]
				break
			}
		}
		e.Keys[i] = e.buf[starts[i]:end:end]
	}
	return nil
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// Evaluator applies one search request to records one at a time, with the
// semantics of Index: a store that finds candidates in its own way, and
// visits them in the request's order (Order keys, then IDKey), gets from
// Match which of them are hits and their scores, from Hit the hit itself
// (id, score, projected data), and from Cursor the next page's cursor.
type Evaluator struct {
	req     Request
	idPath  Path
	tops    map[string]bool
	root    *compiled
	scoring bool
	offset  int
	limit   int
	proj    []*projNode
	p       parser
	arena   arena
	idTop   func(key string) bool // whether key is the id path's first member
}

// NewEvaluator validates req against schema (an *Error wrapping
// ErrInvalidQuery on failure, as Index.Search returns) and prepares it.
// Ids are at the dot path idField.
func NewEvaluator(schema Schema, idField string, req Request) (*Evaluator, error) {
	offset, err := req.check(schema)
	if err != nil {
		return nil, err
	}
	idPath, err := ParsePath(idField)
	if err != nil {
		return nil, fmt.Errorf("search: bad id field %q", idField)
	}
	e := &Evaluator{req: req, idPath: idPath, offset: offset, limit: req.Limit}
	e.idTop = func(key string) bool { return key == idPath[0] }
	if e.limit == 0 {
		e.limit = DefaultLimit
	}
	if req.Query.Filter != nil {
		e.root = (*Index)(nil).compile(req.Query.Filter, true, false)
		e.scoring = e.root.scoring
	}
	if len(req.Fields) > 0 {
		// The top-level members a projection may show: only a request
		// with fields needs them (the map of a 39-field schema was half
		// of NewEvaluator's time).
		e.proj = buildProj(req.Fields)
		e.tops = map[string]bool{idPath[0]: true}
		for name := range schema {
			top, _, _ := strings.Cut(name, ".")
			e.tops[top] = true
		}
	}
	return e, nil
}

// Offset is the number of hits the request's cursor skips.
func (e *Evaluator) Offset() int { return e.offset }

// Limit is the number of hits of a page (DefaultLimit for 0).
func (e *Evaluator) Limit() int { return e.limit }

// Scoring reports whether the filter has a scoring condition (keyword or
// fuzzy outside a not): without sort items, hits are then ordered by
// score, highest first, then id.
func (e *Evaluator) Scoring() bool { return e.scoring }

// Match reports whether record is a hit, and its score. A record that is
// not valid JSON is an error.
func (e *Evaluator) Match(record []byte) (bool, float64, error) {
	if e.root == nil {
		return true, 1, nil
	}
	// Read in place: nothing of the parse outlives the call.
	e.arena.reset()
	e.p = parser{s: unsafe.String(unsafe.SliceData(record), len(record)), dates: true, vstack: e.p.vstack[:0], kstack: e.p.kstack[:0], arena: &e.arena}
	root, err := e.p.parseAll()
	if err != nil {
		return false, 0, fmt.Errorf("search: %w", err)
	}
	ok, s := matchElem(e.root, &root)
	if !e.scoring {
		s = 1
	}
	return ok, s, nil
}

// Hit returns the hit of record with score: its id and its data, the whole
// record or the request's fields.
func (e *Evaluator) Hit(record []byte, score float64) (Hit, error) {
	// Read in place, and without a projection only the id's member in
	// depth (the others' arrays and objects are skipped, not built): a
	// hit parsed whole was two thirds of an indexed search's time.
	// Nothing of the parse outlives the call but the id, copied.
	var deep func(string) bool
	if e.proj == nil {
		deep = e.idTop
	}
	e.arena.reset()
	e.p = parser{s: unsafe.String(unsafe.SliceData(record), len(record)), vstack: e.p.vstack[:0], kstack: e.p.kstack[:0], deep: deep, arena: &e.arena}
	root, err := e.p.parseAll()
	if err != nil {
		return Hit{}, fmt.Errorf("search: %w", err)
	}
	idn := root.walk(e.idPath)
	h := Hit{ID: strings.Clone(idn.s), Score: score, Data: record}
	if e.proj != nil {
		b := []byte{'{'}
		first := true
		for _, p := range e.proj {
			if !e.tops[p.key] {
				continue
			}
			b, first = appendProj(b, p, root.member(p.key), first)
		}
		h.Data = append(b, '}')
	}
	return h, nil
}

// HitOf is Hit for a record whose id the caller knows already (a store
// keeps it beside the record, as Extracted.ID gave it): without fields
// to project, the record is not read again, and its bytes are the hit's
// data as they are.
func (e *Evaluator) HitOf(id string, record []byte, score float64) (Hit, error) {
	if e.proj != nil {
		return e.Hit(record, score)
	}
	return Hit{ID: id, Score: score, Data: record}, nil
}

// Cursor returns the cursor of the page that starts at offset (in hits,
// from the first hit of the query).
func (e *Evaluator) Cursor(offset int) (string, error) {
	h, err := e.req.Query.hash()
	if err != nil {
		return "", err
	}
	return encodeCursor(h, offset), nil
}

// Took returns the milliseconds since start, for Result.TookMS.
func Took(start time.Time) float64 { return float64(time.Since(start).Nanoseconds()) / 1e6 }
