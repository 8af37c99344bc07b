package store

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/tributary-dev/tributary/search"
)

// compiler turns a filter into a SQL condition on a records table (alias
// r). Every value is a bound parameter; identifiers are the table's own
// numbered columns. Each condition is exact (true for exactly the records
// the reference semantics match) or a superset of them; the Evaluator
// decides the records of a superset.
type compiler struct {
	ctx   context.Context
	s     *Store
	q     querier
	table int64
	ts    *tableSpec
	args  []any
	// indexed reports that a condition can use an index (a key column's
	// B-tree or the word index).
	indexed bool
	// words is the last word index condition compiled (no date-times).
	words string
}

// cond is a compiled condition; sql "" means "every record" (a superset
// unless exact).
type cond struct {
	sql   string
	exact bool
}

// condNone matches no record.
var condNone = cond{sql: "1 = 0", exact: true}

func (c *compiler) arg(v any) string {
	c.args = append(c.args, v)
	return c.s.d.ph(len(c.args))
}

// classBound is the smallest key of class k.
func classBound(k search.KeyClass) []byte { return []byte{byte(k)} }

func (c *compiler) compile(f *search.Filter) (cond, error) {
	// A condition whose SQL is dropped takes its bound values with it.
	mark := len(c.args)
	drop := func(k cond) (cond, error) {
		c.args = c.args[:mark]
		return k, nil
	}
	switch f.Op {
	case search.OpAnd:
		var parts []string
		exact := true
		// Comparisons of one column within one class of keys become one
		// range: SQLite takes an index's bounds from the first terms it
		// finds, which may be the class's (a scan of every date after the
		// lower bound instead of the dates between the two).
		ranges := c.andRanges(f.Filters)
		for i := range f.Filters {
			if r, ok := ranges[i]; ok {
				if r != nil {
					parts = append(parts, "("+c.rangeSQL(r)+")")
				}
				continue
			}
			k, err := c.compile(&f.Filters[i])
			if err != nil {
				return cond{}, err
			}
			exact = exact && k.exact
			if k.sql == condNone.sql && k.exact {
				return drop(condNone)
			}
			if k.sql != "" {
				parts = append(parts, "("+k.sql+")")
			}
		}
		return cond{sql: strings.Join(parts, " AND "), exact: exact}, nil
	case search.OpOr:
		if len(f.Filters) == 0 {
			return condNone, nil
		}
		var parts []string
		exact := true
		for i := range f.Filters {
			k, err := c.compile(&f.Filters[i])
			if err != nil {
				return cond{}, err
			}
			exact = exact && k.exact
			if k.sql == "" {
				// Something matches every record: the or does too (as a
				// superset when that something is one).
				return drop(cond{sql: "", exact: k.exact})
			}
			parts = append(parts, "("+k.sql+")")
		}
		return cond{sql: strings.Join(parts, " OR "), exact: exact}, nil
	case search.OpNot:
		k, err := c.compile(&f.Filters[0])
		if err != nil {
			return cond{}, err
		}
		if !k.exact {
			// The complement of a superset is no superset of anything.
			return drop(cond{sql: "", exact: false})
		}
		if k.sql == "" {
			return drop(condNone)
		}
		// A comparison on a NULL is NULL, which NOT keeps NULL: the
		// reference's not is two-valued.
		return cond{sql: "NOT COALESCE((" + k.sql + "), FALSE)", exact: true}, nil
	}
	col := c.ts.column(f.Field)
	if f.Op == search.OpKeyword || f.Op == search.OpFuzzy {
		if col < 0 {
			return cond{sql: "", exact: false}, nil
		}
		return c.text(col, f)
	}
	if col < 0 || !c.ts.Fields[col].Key {
		// A path below an object field, or a long text: no key column.
		return cond{sql: "", exact: false}, nil
	}
	c.indexed = c.indexed || c.ts.Fields[col].Index
	k := "r." + keyCol(col)
	switch f.Op {
	case search.OpEq:
		return c.eq(k, f.Value), nil
	case search.OpNeq:
		if f.Value.Kind() == search.KindNull {
			return cond{sql: k + " IS NOT NULL", exact: true}, nil
		}
		return cond{sql: c.s.d.distinct(k, c.arg(f.Value.Key())), exact: true}, nil
	case search.OpIn:
		if len(f.Values) == 0 {
			return condNone, nil
		}
		var parts []string
		for _, v := range f.Values {
			parts = append(parts, c.eq(k, v).sql)
		}
		return cond{sql: strings.Join(parts, " OR "), exact: true}, nil
	case search.OpGt, search.OpGte, search.OpLt, search.OpLte:
		return c.order(col, f.Op, f.Value), nil
	case search.OpLike:
		// Strings (date-times included); the pattern is the Evaluator's.
		return cond{sql: "(" + k + " >= " + c.arg(classBound(search.ClassTime)) + " AND " + k + " < " + c.arg(classBound(search.ClassArray)) + ")", exact: false}, nil
	case search.OpContains, search.OpAny:
		return cond{sql: k + " = " + c.arg(classBound(search.ClassArray)), exact: false}, nil
	}
	return cond{sql: "", exact: false}, nil
}

// eq: the key equals the value's (which is exactly the reference's
// equality), or, for null, the field is null or missing.
func (c *compiler) eq(k string, v search.Value) cond {
	if v.Kind() == search.KindNull {
		return cond{sql: k + " IS NULL", exact: true}
	}
	return cond{sql: k + " = " + c.arg(v.Key()), exact: true}
}

// order compiles gt, gte, lt and lte: numbers with numbers; date-times
// with date-times as instants; strings otherwise byte for byte.
func (c *compiler) order(col int, op search.Op, v search.Value) cond {
	k := "r." + keyCol(col)
	cmp := map[search.Op]string{search.OpGt: ">", search.OpGte: ">=", search.OpLt: "<", search.OpLte: "<="}[op]
	upward := op == search.OpGt || op == search.OpGte
	// within compares keys of one class with the value's key.
	within := func(key []byte, class search.KeyClass) string {
		next := classBound(class + 1)
		if upward {
			return fmt.Sprintf("(%s %s %s AND %s < %s)", k, cmp, c.arg(key), k, c.arg(next))
		}
		return fmt.Sprintf("(%s >= %s AND %s %s %s)", k, c.arg(classBound(class)), k, cmp, c.arg(key))
	}
	field := c.ts.Fields[col]
	mark := len(c.args)
	var parts []string
	switch v.Kind() {
	case search.KindNumber:
		return cond{sql: within(v.Key(), search.ClassNumber), exact: true}
	case search.KindString:
		s := v.Interface().(string)
		strKey := append(classBound(search.ClassString), s...)
		if v.IsDateTime() {
			// Date-times as instants; the field's other strings byte for
			// byte (each band only when the copy has such values).
			if field.Dates {
				parts = append(parts, within(v.Key(), search.ClassTime))
			}
			if field.Strings {
				parts = append(parts, within(strKey, search.ClassString))
			}
		} else {
			// A string that is not a date-time compares byte for byte with
			// every string, the field's date-times (kept as text) included.
			if field.Strings {
				parts = append(parts, within(strKey, search.ClassString))
			}
			if field.Dates {
				if !field.Time {
					// Date-times in a field that keeps no text of them (not
					// typed as a string): the Evaluator decides.
					c.args = c.args[:mark]
					return cond{sql: "", exact: false}
				}
				parts = append(parts, fmt.Sprintf("r.%s %s %s", timeCol(col), cmp, c.arg([]byte(s))))
			}
		}
		if len(parts) == 0 {
			return condNone
		}
		return cond{sql: strings.Join(parts, " OR "), exact: true}
	}
	return condNone // booleans and null have no order
}

// text compiles keyword and fuzzy: the word index finds the records that
// hold the words (keyword: one of them; fuzzy: for every query word, one of
// the vocabulary's words within its edit distance); date-time strings,
// which the word index leaves out, are candidates too.
func (c *compiler) text(col int, f *search.Filter) (cond, error) {
	field := c.ts.Fields[col]
	if !field.Words {
		return cond{sql: "", exact: false}, nil
	}
	// Date-time strings are found through their time column, when the
	// field has one, not through the word index.
	dates := ""
	if field.Time && field.Dates {
		dates = " OR r." + timeCol(col) + " IS NOT NULL"
	}
	words := search.Words(f.Value.Interface().(string))
	var groups [][]string
	if f.Op == search.OpKeyword {
		if len(words) == 0 {
			return condNone, nil
		}
		groups = [][]string{words}
	} else {
		if len(words) == 0 {
			return cond{sql: "", exact: false}, nil
		}
		vocab, err := c.s.vocabulary(c.ctx, c.q, c.table, col)
		if err != nil {
			return cond{}, err
		}
		for _, w := range words {
			if letters(w) <= search.MaxEdits(w) {
				// A word with at most k letters can be near words with
				// none, which the vocabulary leaves out: no constraint.
				continue
			}
			g := vocab.near(w)
			if len(g) == 0 {
				// No word of the copy is near: only date-times can match.
				if dates == "" {
					return condNone, nil
				}
				return cond{sql: "r." + timeCol(col) + " IS NOT NULL", exact: false}, nil
			}
			groups = append(groups, g)
		}
	}
	if len(groups) == 0 {
		return cond{sql: "", exact: false}, nil
	}
	m, ok := c.s.d.wordsMatch(tableName(c.table), col, groups, c.ts.TaggedWords, &c.args)
	if !ok {
		return cond{sql: "", exact: false}, nil
	}
	c.indexed = true
	if dates == "" {
		c.words = m
	}
	return cond{sql: m + dates, exact: false}, nil
}

// letters counts the letters of w.
func letters(w string) int {
	n := 0
	for _, r := range w {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}

// nearBy returns the vocabulary's words within fuzzy's edit distance of
// w, by distance (index 0: w itself when the copy has it).
func (v *vocabEntry) nearBy(w string) [][]string {
	k := search.MaxEdits(w)
	out := make([][]string, k+1)
	for _, x := range v.near(w) {
		d := search.EditDistance(w, x, k)
		out[d] = append(out[d], x)
	}
	return out
}

// near returns the vocabulary's words within fuzzy's edit distance of w.
func (v *vocabEntry) near(w string) []string {
	k := search.MaxEdits(w)
	if k == 0 {
		for _, x := range v.words {
			if x == w {
				return []string{w}
			}
		}
		return nil
	}
	n := len([]rune(w))
	var out []string
	for i, x := range v.words {
		if d := len(v.runes[i]) - n; d > k || -d > k {
			continue
		}
		if search.WithinEdits(w, x, k) {
			out = append(out, x)
		}
	}
	return out
}

// vocabulary returns the distinct words of a word column, cached while
// the column gains none.
func (s *Store) vocabulary(ctx context.Context, q querier, table int64, col int) (*vocabEntry, error) {
	t := quoteIdent(tableName(table) + "_vocab")
	var n int64
	if err := q.QueryRowContext(ctx, "SELECT count(*) FROM "+t+" WHERE col = "+s.d.ph(1), col).Scan(&n); err != nil {
		return nil, s.d.wrap("search", err)
	}
	key := vocabKey{table, col}
	s.mu.Lock()
	e := s.vocab[key]
	s.mu.Unlock()
	if e != nil && e.n == n {
		return e, nil
	}
	rows, err := q.QueryContext(ctx, "SELECT word FROM "+t+" WHERE col = "+s.d.ph(1), col)
	if err != nil {
		return nil, s.d.wrap("search", err)
	}
	defer rows.Close()
	e = &vocabEntry{n: n}
	for rows.Next() {
		var w string
		if err := rows.Scan(&w); err != nil {
			return nil, s.d.wrap("search", err)
		}
		e.words = append(e.words, w)
		e.runes = append(e.runes, []rune(w))
	}
	if err := rows.Err(); err != nil {
		return nil, s.d.wrap("search", err)
	}
	s.mu.Lock()
	s.vocab[key] = e
	s.mu.Unlock()
	return e, nil
}

// keyRange is a range of one key column within one class of keys: lo
// (excluded when loOpen) to hi (excluded when hiOpen).
type keyRange struct {
	col            int
	class          search.KeyClass
	lo, hi         []byte
	loOpen, hiOpen bool
}

// rangeOf returns the range a gt, gte, lt or lte filter compiles to when
// that is one band of keys of one class (as order compiles it), or nil.
func (c *compiler) rangeOf(f *search.Filter) *keyRange {
	switch f.Op {
	case search.OpGt, search.OpGte, search.OpLt, search.OpLte:
	default:
		return nil
	}
	col := c.ts.column(f.Field)
	if col < 0 || !c.ts.Fields[col].Key {
		return nil
	}
	field := c.ts.Fields[col]
	var class search.KeyClass
	var key []byte
	switch v := f.Value; v.Kind() {
	case search.KindNumber:
		class, key = search.ClassNumber, v.Key()
	case search.KindString:
		s := v.Interface().(string)
		switch {
		case v.IsDateTime() && field.Dates && !field.Strings:
			class, key = search.ClassTime, v.Key()
		case !field.Dates && field.Strings:
			class, key = search.ClassString, append(classBound(search.ClassString), s...)
		default:
			return nil // two bands, a time column, or none
		}
	default:
		return nil
	}
	r := &keyRange{col: col, class: class}
	if f.Op == search.OpGt || f.Op == search.OpGte {
		r.lo, r.loOpen = key, f.Op == search.OpGt
		r.hi, r.hiOpen = classBound(class+1), true
	} else {
		r.lo = classBound(class)
		r.hi, r.hiOpen = key, f.Op == search.OpLt
	}
	return r
}

// andRanges finds the comparisons among an and's filters that narrow one
// column within one class more than once: each such filter's index maps
// to the group's intersected range (at its first filter) or to nil (at
// the others, which it stands for).
func (c *compiler) andRanges(fs []search.Filter) map[int]*keyRange {
	type group struct {
		first int
		r     keyRange
		n     int
	}
	var groups []*group
	members := map[int]*group{}
	for i := range fs {
		r := c.rangeOf(&fs[i])
		if r == nil {
			continue
		}
		var g *group
		for _, h := range groups {
			if h.r.col == r.col && h.r.class == r.class {
				g = h
				break
			}
		}
		if g == nil {
			g = &group{first: i, r: *r}
			groups = append(groups, g)
		} else {
			// The higher lower bound, the lower upper bound; at equal
			// bounds the excluding one.
			if d := bytes.Compare(r.lo, g.r.lo); d > 0 || d == 0 && r.loOpen {
				g.r.lo, g.r.loOpen = r.lo, r.loOpen
			}
			if d := bytes.Compare(r.hi, g.r.hi); d < 0 || d == 0 && r.hiOpen {
				g.r.hi, g.r.hiOpen = r.hi, r.hiOpen
			}
		}
		g.n++
		members[i] = g
	}
	out := map[int]*keyRange{}
	for i, g := range members {
		if g.n < 2 {
			continue
		}
		if i == g.first {
			out[i] = &g.r
		} else {
			out[i] = nil
		}
	}
	return out
}

// rangeSQL is the condition of r, which is exact.
func (c *compiler) rangeSQL(r *keyRange) string {
	c.indexed = c.indexed || c.ts.Fields[r.col].Index
	k := "r." + keyCol(r.col)
	lo, hi := ">=", "<="
	if r.loOpen {
		lo = ">"
	}
	if r.hiOpen {
		hi = "<"
	}
	return fmt.Sprintf("%s %s %s AND %s %s %s", k, lo, c.arg(r.lo), k, hi, c.arg(r.hi))
}
