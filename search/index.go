package search

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Index is an in-process evaluator of search requests over a fixed set of
// JSON records, for direct mode over a local replica and for tests of the
// filter language. Build it once (NewIndex or a Builder); each record is
// parsed once and kept as a column per top-level searchable field. An Index
// is immutable and safe for concurrent use. On first use, and under a lock,
// it builds and keeps the helpers of a field: the sort ranks of a sorted
// field, the word index of a field searched with keyword or fuzzy, and the
// string postings of a field compared with eq or in at the top of a filter
// (which then only visits the records those give).
//
// # Semantics
//
// Values. A field value missing from a record and a JSON null are the same:
// absent. Numbers compare by exact decimal value, whatever their literal
// (3, 3.0 and 3e0 are equal; integers beyond 2^53 stay exact). Strings
// compare byte for byte (case-sensitive, UTF-8 order), except that when both
// sides parse as RFC 3339 date-times (time.Parse with time.RFC3339,
// fractional seconds allowed, or a numeric offset without its colon as
// Salesforce writes it, +0000) they compare as instants, so
// "2024-01-05T12:00:00+02:00" equals "2024-01-05T10:00:00Z". A field of
// type date-time compares only with date-times and plain dates (2024-01-05,
// midnight UTC, as Canonical rewrites them): Validate refuses any other
// value. A string never
// equals a number, nor a boolean anything but a boolean: there is no
// coercion.
//
//   - eq: the field equals the value. With null, eq tests absence (the
//     field is null or missing).
//   - neq: the negation of eq: true when the field is missing, unless the
//     value is null (then neq tests presence).
//   - gt, gte, lt, lte: both sides are numbers, or both strings (instants
//     when both are date-times); anything else, including a missing field,
//     does not match.
//   - in: eq with one of the values (null among them matches absence); an
//     empty list matches nothing.
//   - like: the field is a string matching the pattern, case-insensitively
//     (Unicode simple lowercase mapping): % matches any run of characters
//     (possibly empty), _ exactly one character, \ escapes the next
//     character; everything else is literal, so a pattern without wildcard
//     is a case-insensitive equality.
//   - keyword: the field is a string holding at least one of the words of
//     the query.
//   - fuzzy: the field is a string and every word of the query matches some
//     word of the field, in any order, within an edit distance that depends
//     on the query word's length in characters: 0 for 1–3, 1 for 4–7, 2 for
//     8 or more. The distance is the optimal string alignment distance
//     (insertion, deletion, substitution, or transposition of two adjacent
//     characters, each 1).
//   - Words (keyword, fuzzy) are maximal runs of letters, digits and
//     combining marks, lowercased; every other character (punctuation,
//     spaces, symbols) separates words and is ignored. Repeated query words
//     count once.
//   - contains: the field is an array with an element equal (eq rules) to
//     the value.
//   - any: the field is an array with an element that matches the
//     condition, evaluated with the element as the record (paths relative to
//     it; an element that is not an object has no fields).
//   - not negates, and holds when every operand does (an empty and always),
//     or when one does (an empty or never).
//   - Dot paths go through objects only; a path through an array or a
//     scalar is missing.
//
// Score. Keyword and fuzzy conditions that are not inside a not are scoring
// conditions. A keyword condition scores f/n, n the number of distinct query
// words and f how many are in the field. A fuzzy condition scores the mean,
// over the query words, of 1/(1+d), d the smallest distance to a word of the
// field (1.0 when every word is found exactly, 0.5 when each is one edit
// away). An any condition scores the best score of its matching elements. A
// hit's score is the sum of the scores of the scoring conditions it matches;
// when the filter has no scoring condition every hit scores 1.0.
//
// Order. With sort items, hits are ordered by the first key, then the next,
// then by id; within a key, false < true < numbers < date-time strings (as
// instants) < other strings < arrays < objects (arrays and objects tie), and
// absent values come last whatever the direction. Without sort items, hits
// are ordered by score, highest first, then id, when the filter has a
// scoring condition, else by id. Ids order as sort keys do (numeric ids
// numerically).
//
// Paging. Limit 0 means DefaultLimit. A page that is not the last carries a
// NextCursor: an opaque token holding the offset of the next page and a hash
// of the filter and sort, refused (ErrInvalidQuery, Field "cursor") with a
// different filter or sort; limit and fields may change between pages.
// Cursors stay valid for the same Index.
//
// Data. Without fields, hits[].data is the record as given to the index.
// With fields, it is an object holding only those paths, nested as in the
// record ("requester.name" gives {"requester":{"name":…}}) and in the order
// given; a path the record lacks is left out, a null is kept.
type Index struct {
	schema    Schema
	idPath    Path
	colOf     map[string]int
	cols      [][]node // cols[c][ord]: the value of top-level key c in record ord
	raw       []string
	ids       []string
	byID      []int32 // ordinals in id order
	idRank    []int32 // ordinal → position in byID
	idOrdered bool    // the records were added in id order

	mu    sync.Mutex
	texts map[string]*lazyText
	ranks map[string]*lazyRank
	termm map[string]*lazyTerms

	noPack bool // tests: always sort with the comparator
}

// NewIndex builds an Index over records, each one JSON object, whose
// searchable fields are schema and whose id is at the dot path idField (a
// string or a number, unique). The records are copied.
func NewIndex(schema Schema, idField string, records [][]byte) (*Index, error) {
	b, err := NewBuilder(schema, idField)
	if err != nil {
		return nil, err
	}
	b.grow(len(records))
	for i, r := range records {
		if err := b.Add(r); err != nil {
			return nil, fmt.Errorf("search: record %d: %w", i, errors.Unwrap(err))
		}
	}
	return b.Build(), nil
}

// Builder builds an Index one record at a time.
type Builder struct {
	schema   Schema
	idPath   Path
	colOf    map[string]int
	colNames []string
	cols     [][]node
	raw      []string
	ids      []string
	idNodes  []node
	seen     map[string]struct{}
	p        parser
}

// NewBuilder starts an Index over the searchable fields schema (which must
// name at least one field) with ids at the dot path idField.
func NewBuilder(schema Schema, idField string) (*Builder, error) {
	if len(schema) == 0 {
		return nil, errors.New("search: the schema names no field")
	}
	if err := schema.Check(); err != nil {
		return nil, err
	}
	idPath, err := ParsePath(idField)
	if err != nil {
		return nil, fmt.Errorf("search: bad id field %q", idField)
	}
	schema = maps.Clone(schema)
	b := &Builder{schema: schema, idPath: idPath, colOf: map[string]int{}}
	names := make([]string, 0, len(schema)+1)
	for name := range schema {
		top, _, _ := strings.Cut(name, ".")
		names = append(names, top)
	}
	names = append(names, idPath[0])
	slices.Sort(names)
	for _, n := range slices.Compact(names) {
		b.colOf[n] = len(b.colNames)
		b.colNames = append(b.colNames, n)
	}
	b.reset()
	return b, nil
}

func (b *Builder) reset() {
	b.cols = make([][]node, len(b.colNames))
	b.raw, b.ids, b.idNodes = nil, nil, nil
	b.seen = map[string]struct{}{}
}

func (b *Builder) grow(n int) {
	for c := range b.cols {
		b.cols[c] = slices.Grow(b.cols[c], n)
	}
	b.raw = slices.Grow(b.raw, n)
	b.ids = slices.Grow(b.ids, n)
	b.idNodes = slices.Grow(b.idNodes, n)
}

// Len returns the number of records added since the last Build.
func (b *Builder) Len() int { return len(b.raw) }

// Add parses record, a JSON object, and adds it. It fails, adding nothing,
// when the record is not a JSON object or its id is missing, not a string
// or number, or already added.
func (b *Builder) Add(record []byte) error {
	s := string(record)
	b.p = parser{s: s, dates: true, vstack: b.p.vstack[:0], kstack: b.p.kstack[:0]}
	root, err := b.p.parseAll()
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	if root.k != kObj {
		return fmt.Errorf("search: %w", errors.New("the record is not a JSON object"))
	}
	idn := root.walk(b.idPath)
	var id string
	switch idn.k {
	case kStr:
		id = idn.s
	case kNum:
		id = idn.s
	default:
		return fmt.Errorf("search: %w", fmt.Errorf("the id field %q is missing or not a string or number", b.idPath.String()))
	}
	if _, dup := b.seen[id]; dup {
		return fmt.Errorf("search: %w", fmt.Errorf("duplicate id %q", id))
	}
	b.seen[id] = struct{}{}
	for c, name := range b.colNames {
		b.cols[c] = append(b.cols[c], *root.member(name))
	}
	b.raw = append(b.raw, s)
	b.ids = append(b.ids, id)
	b.idNodes = append(b.idNodes, *idn)
	return nil
}

// Build returns the Index of the records added so far and empties the
// Builder, which can then build another Index.
func (b *Builder) Build() *Index {
	n := len(b.raw)
	ix := &Index{
		schema: b.schema,
		idPath: b.idPath,
		colOf:  b.colOf,
		cols:   make([][]node, len(b.cols)),
		raw:    slices.Clip(b.raw),
		ids:    slices.Clip(b.ids),
		byID:   make([]int32, n),
		idRank: make([]int32, n),
		texts:  map[string]*lazyText{},
		ranks:  map[string]*lazyRank{},
		termm:  map[string]*lazyTerms{},
	}
	for c, col := range b.cols {
		if cap(col) > len(col)+len(col)/16 {
			col = append([]node(nil), col...)
		}
		ix.cols[c] = col
	}
	for i := range ix.byID {
		ix.byID[i] = int32(i)
	}
	idNodes := b.idNodes
	slices.SortFunc(ix.byID, func(x, y int32) int {
		if c := sortCmp(&idNodes[x], &idNodes[y]); c != 0 {
			return c
		}
		return int(x) - int(y)
	})
	ix.idOrdered = true
	for pos, ord := range ix.byID {
		ix.idRank[ord] = int32(pos)
		ix.idOrdered = ix.idOrdered && int(ord) == pos
	}
	b.colOf = maps.Clone(b.colOf)
	b.p = parser{}
	b.reset()
	return ix
}

// Len returns the number of records.
func (ix *Index) Len() int { return len(ix.raw) }

// Schema returns a copy of the searchable fields of the index.
func (ix *Index) Schema() Schema { return maps.Clone(ix.schema) }

type lazyText struct {
	once sync.Once
	ti   *textIndex
}

type lazyRank struct {
	once     sync.Once
	rank     []int32 // rank of each record's value; -1 when absent
	distinct int32
}

type lazyTerms struct {
	once  sync.Once
	terms map[string][]int32
}

// terms returns the records holding each string value of path p, building
// the map on first use.
func (ix *Index) terms(p Path) map[string][]int32 {
	key := p.String()
	ix.mu.Lock()
	lt := ix.termm[key]
	if lt == nil {
		lt = &lazyTerms{}
		ix.termm[key] = lt
	}
	ix.mu.Unlock()
	lt.once.Do(func() {
		lt.terms = map[string][]int32{}
		col, rest := ix.column(p)
		for i := range ix.raw {
			if v := ix.value(col, rest, int32(i)); v.k == kStr {
				lt.terms[v.s] = append(lt.terms[v.s], int32(i))
			}
		}
		for k, l := range lt.terms {
			lt.terms[k] = slices.Clip(l)
		}
	})
	return lt.terms
}

// textIndex maps the words of one string field to the records holding them.
type textIndex struct {
	dict  map[string]int32
	runes [][]rune
	post  [][]int32 // word → ascending ordinals
	byLen [][]int32 // rune length → word ids
}

// column returns the column and the rest of path p, or -1.
func (ix *Index) column(p Path) (int, Path) {
	c, ok := ix.colOf[p[0]]
	if !ok {
		return -1, nil
	}
	return c, p[1:]
}

func (ix *Index) value(col int, rest Path, ord int32) *node {
	if col < 0 {
		return &missing
	}
	v := &ix.cols[col][ord]
	if len(rest) > 0 {
		v = v.walk(rest)
	}
	return v
}

// text returns the word index of path p, building it on first use.
func (ix *Index) text(p Path) *textIndex {
	key := p.String()
	ix.mu.Lock()
	lt := ix.texts[key]
	if lt == nil {
		lt = &lazyText{}
		ix.texts[key] = lt
	}
	ix.mu.Unlock()
	lt.once.Do(func() { lt.ti = ix.buildText(p) })
	return lt.ti
}

func (ix *Index) buildText(p Path) *textIndex {
	ti := &textIndex{dict: map[string]int32{}}
	col, rest := ix.column(p)
	for i := range ix.raw {
		ord := int32(i)
		v := ix.value(col, rest, ord)
		if v.k != kStr {
			continue
		}
		words(v.s, func(w string) {
			id, ok := ti.dict[w]
			if !ok {
				id = int32(len(ti.runes))
				ti.dict[w] = id
				r := []rune(w)
				ti.runes = append(ti.runes, r)
				ti.post = append(ti.post, nil)
				for len(ti.byLen) <= len(r) {
					ti.byLen = append(ti.byLen, nil)
				}
				ti.byLen[len(r)] = append(ti.byLen[len(r)], id)
			}
			if ps := ti.post[id]; len(ps) == 0 || ps[len(ps)-1] != ord {
				ti.post[id] = append(ps, ord)
			}
		})
	}
	for i, ps := range ti.post {
		ti.post[i] = slices.Clip(ps)
	}
	return ti
}

// rank returns the sort ranks of path p, building them on first use.
func (ix *Index) rank(p Path) *lazyRank {
	key := p.String()
	ix.mu.Lock()
	lr := ix.ranks[key]
	if lr == nil {
		lr = &lazyRank{}
		ix.ranks[key] = lr
	}
	ix.mu.Unlock()
	lr.once.Do(func() {
		col, rest := ix.column(p)
		n := len(ix.raw)
		lr.rank = make([]int32, n)
		ords := make([]int32, 0, n)
		for i := range n {
			v := ix.value(col, rest, int32(i))
			if v.k == kMissing || v.k == kNull {
				lr.rank[i] = -1
				continue
			}
			ords = append(ords, int32(i))
		}
		slices.SortFunc(ords, func(a, b int32) int {
			return sortCmp(ix.value(col, rest, a), ix.value(col, rest, b))
		})
		r := int32(-1)
		for j, ord := range ords {
			if j == 0 || sortCmp(ix.value(col, rest, ords[j-1]), ix.value(col, rest, ord)) != 0 {
				r++
			}
			lr.rank[ord] = r
		}
		lr.distinct = r + 1
	})
	return lr
}
