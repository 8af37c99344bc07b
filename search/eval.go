package search

import (
	"cmp"
	"encoding/json"
	"math/bits"
	"slices"
	"time"
)

// compiled is a filter prepared for evaluation. In record mode (col >= 0 or
// a field outside every column) a field is read from the index columns; in
// element mode (inside any) from the element node, by path.
type compiled struct {
	op      Op
	element bool
	field   Path // the whole path
	col     int
	colv    []node // record mode: the column, nil when the field has none
	path    Path   // record mode: the path below the column; element mode: the whole path
	val     node
	vals    []node
	like    *likePattern
	text    *textQuery
	kids    []*compiled
	scoring bool // a scoring condition is in this subtree (outside not)

	// Record-mode keyword and fuzzy results.
	cnt  []int32 // query words matched, per record
	acc  []float64
	need int32 // cnt needed to match
	hits []int32
}

func (ix *Index) compile(f *Filter, element, negated bool) *compiled {
	c := &compiled{op: f.Op, element: element, col: -1}
	switch {
	case f.Op == OpAnd || f.Op == OpOr:
		for i := range f.Filters {
			k := ix.compile(&f.Filters[i], element, negated)
			c.kids = append(c.kids, k)
			c.scoring = c.scoring || k.scoring
		}
		return c
	case f.Op == OpNot:
		c.kids = []*compiled{ix.compile(&f.Filters[0], element, true)}
		return c
	}
	c.field = f.Field
	if element {
		c.path = f.Field
	} else {
		c.col, c.path = ix.column(f.Field)
		if c.col >= 0 {
			c.colv = ix.cols[c.col]
		}
	}
	c.val = f.Value.n
	if c.val.k == kMissing {
		c.val.k = kNull
	}
	for _, v := range f.Values {
		n := v.n
		if n.k == kMissing {
			n.k = kNull
		}
		c.vals = append(c.vals, n)
	}
	switch f.Op {
	case OpLike:
		c.like, _ = compileLike(c.val.s) // validated
	case OpFuzzy, OpKeyword:
		c.text = compileText(f.Op, c.val.s)
		c.scoring = !negated
		if !element {
			ix.runText(c, f.Field)
		}
	case OpAny:
		k := ix.compile(&f.Filters[0], true, negated)
		c.kids = []*compiled{k}
		c.scoring = k.scoring
	}
	return c
}

// runText evaluates a record-mode keyword or fuzzy condition over the word
// index of its field.
func (ix *Index) runText(c *compiled, field Path) {
	ti := ix.text(field)
	n := len(ix.raw)
	c.cnt = make([]int32, n)
	c.acc = make([]float64, n)
	q := c.text
	nq := int32(len(q.words))
	if q.fuzzy {
		c.need = nq
	} else {
		c.need = 1
	}
	type cand struct{ id, d int32 }
	var cands []cand
	var rows []int
	for qi, w := range q.words {
		cands = cands[:0]
		if id, ok := ti.dict[w]; ok {
			cands = append(cands, cand{id, 0})
		}
		if q.fuzzy && q.edits[qi] > 0 {
			qr, k := q.runes[qi], q.edits[qi]
			if need := 3 * (len(qr) + k + 1); len(rows) < need {
				rows = make([]int, need)
			}
			for l := max(1, len(qr)-k); l <= len(qr)+k && l < len(ti.byLen); l++ {
				for _, id := range ti.byLen[l] {
					if d := editDistance(qr, ti.runes[id], k, rows); d > 0 && d <= k {
						cands = append(cands, cand{id, int32(d)})
					}
				}
			}
			slices.SortFunc(cands, func(a, b cand) int { return cmp.Compare(a.d, b.d) })
		}
		for _, cd := range cands {
			s := 1 / float64(1+cd.d)
			for _, ord := range ti.post[cd.id] {
				if q.fuzzy {
					if c.cnt[ord] != int32(qi) {
						continue // failed an earlier word, or already matched this one
					}
				} else if c.cnt[ord] == 0 {
					c.hits = append(c.hits, ord)
				}
				c.cnt[ord]++
				c.acc[ord] += s
				if q.fuzzy && c.cnt[ord] == nq {
					c.hits = append(c.hits, ord)
				}
			}
		}
	}
	slices.Sort(c.hits)
	for _, ord := range c.hits {
		c.acc[ord] /= float64(nq)
	}
}

// match evaluates a record-mode condition on record ord.
func (ix *Index) match(c *compiled, ord int32) (bool, float64) {
	switch c.op {
	case OpAnd:
		sum := 0.0
		for _, k := range c.kids {
			ok, s := ix.match(k, ord)
			if !ok {
				return false, 0
			}
			sum += s
		}
		return true, sum
	case OpOr:
		matched, sum := false, 0.0
		for _, k := range c.kids {
			if ok, s := ix.match(k, ord); ok {
				if !c.scoring {
					return true, 0
				}
				matched = true
				sum += s
			}
		}
		return matched, sum
	case OpNot:
		ok, _ := ix.match(c.kids[0], ord)
		return !ok, 0
	case OpFuzzy, OpKeyword:
		if c.cnt[ord] < c.need {
			return false, 0
		}
		if c.scoring {
			return true, c.acc[ord]
		}
		return true, 0
	case OpAny:
		return matchAny(c, c.value(ord))
	}
	return leaf(c, c.value(ord)), 0
}

// value returns the field of a record-mode condition in record ord.
func (c *compiled) value(ord int32) *node {
	if c.colv == nil {
		return &missing
	}
	v := &c.colv[ord]
	if len(c.path) > 0 {
		v = v.walk(c.path)
	}
	return v
}

// matchElem evaluates an element-mode condition on node root.
func matchElem(c *compiled, root *node) (bool, float64) {
	switch c.op {
	case OpAnd:
		sum := 0.0
		for _, k := range c.kids {
			ok, s := matchElem(k, root)
			if !ok {
				return false, 0
			}
			sum += s
		}
		return true, sum
	case OpOr:
		matched, sum := false, 0.0
		for _, k := range c.kids {
			if ok, s := matchElem(k, root); ok {
				if !c.scoring {
					return true, 0
				}
				matched = true
				sum += s
			}
		}
		return matched, sum
	case OpNot:
		ok, _ := matchElem(c.kids[0], root)
		return !ok, 0
	case OpFuzzy, OpKeyword:
		v := root.walk(c.path)
		if v.k != kStr {
			return false, 0
		}
		s := c.text.score(v.s)
		if s == 0 {
			return false, 0
		}
		if c.scoring {
			return true, s
		}
		return true, 0
	case OpAny:
		return matchAny(c, root.walk(c.path))
	}
	return leaf(c, root.walk(c.path)), 0
}

func matchAny(c *compiled, v *node) (bool, float64) {
	if v.k != kArr {
		return false, 0
	}
	best := -1.0
	for i := range v.c.vals {
		if ok, s := matchElem(c.kids[0], &v.c.vals[i]); ok {
			if !c.scoring {
				return true, 0
			}
			best = max(best, s)
		}
	}
	if best < 0 {
		return false, 0
	}
	return true, best
}

// leaf evaluates a comparison on value v.
func leaf(c *compiled, v *node) bool {
	switch c.op {
	case OpEq:
		return equal(v, &c.val)
	case OpNeq:
		return !equal(v, &c.val)
	case OpGt:
		x, ok := order(v, &c.val)
		return ok && x > 0
	case OpGte:
		x, ok := order(v, &c.val)
		return ok && x >= 0
	case OpLt:
		x, ok := order(v, &c.val)
		return ok && x < 0
	case OpLte:
		x, ok := order(v, &c.val)
		return ok && x <= 0
	case OpIn:
		for i := range c.vals {
			if equal(v, &c.vals[i]) {
				return true
			}
		}
		return false
	case OpLike:
		return v.k == kStr && c.like.match(v.s)
	case OpContains:
		if v.k != kArr {
			return false
		}
		for i := range v.c.vals {
			if equal(&v.c.vals[i], &c.val) {
				return true
			}
		}
	}
	return false
}

// candidates returns the records that can match root, ascending ordinals:
// the smallest of the hit lists of the record-mode keyword, fuzzy, and
// string eq / in conditions that root requires. ok is false when every
// record can match.
func (ix *Index) candidates(root *compiled) (cand []int32, ok bool) {
	if root == nil {
		return nil, false
	}
	if root.op != OpAnd {
		return ix.required(root)
	}
	for _, k := range root.kids {
		if l, kok := ix.required(k); kok && (!ok || len(l) < len(cand)) {
			cand, ok = l, true
		}
	}
	return cand, ok
}

// required returns the records a record-mode condition can match, when an
// index gives them cheaply.
func (ix *Index) required(c *compiled) ([]int32, bool) {
	if c.element || c.col < 0 {
		return nil, false
	}
	plain := func(v *node) bool { return v.k == kStr && v.f&fTime == 0 }
	switch c.op {
	case OpFuzzy, OpKeyword:
		return c.hits, true
	case OpEq:
		// A string that is not a date-time equals only the same bytes.
		if plain(&c.val) {
			return ix.terms(c.field)[c.val.s], true
		}
	case OpIn:
		seen := map[string]bool{}
		var lists [][]int32
		for i := range c.vals {
			if !plain(&c.vals[i]) {
				return nil, false
			}
			if !seen[c.vals[i].s] {
				seen[c.vals[i].s] = true
				lists = append(lists, ix.terms(c.field)[c.vals[i].s])
			}
		}
		if len(lists) == 1 {
			return lists[0], true
		}
		var out []int32
		for _, l := range lists {
			out = append(out, l...)
		}
		slices.Sort(out)
		return out, true
	}
	return nil, false
}

type hitRef struct {
	ord   int32
	score float64
}

// Search runs req over the index: it validates req against the index's
// schema (an *Error wrapping ErrInvalidQuery on failure), with the values
// of integer and boolean fields written as strings read as Canonical
// reads them, then filters,
// orders, pages and projects as documented on Index.
func (ix *Index) Search(req Request) (*Result, error) {
	start := time.Now()
	offset, err := req.check(ix.schema)
	if err != nil {
		return nil, err
	}
	limit := req.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	limit = min(limit, max(len(ix.raw), 1)) // no page is longer; no overflow
	var root *compiled
	if req.Query.Filter != nil {
		root = ix.compile(req.Query.Filter, false, false)
	}
	scoring := root != nil && root.scoring
	matches := func(ord int32) (bool, float64) {
		if root == nil {
			return true, 0
		}
		return ix.match(root, ord)
	}

	var page []hitRef
	more := false
	cand, useCand := ix.candidates(root)
	if len(req.Query.Sort) == 0 && !scoring && (!useCand || ix.idOrdered) {
		// Id order, and records or candidates in id order: walk them and
		// stop after the page.
		walk := ix.byID
		if useCand {
			walk = cand
		}
		skipped := 0
		for _, ord := range walk {
			if ok, _ := matches(ord); !ok {
				continue
			}
			if skipped < offset {
				skipped++
				continue
			}
			if len(page) == limit {
				more = true
				break
			}
			page = append(page, hitRef{ord: ord})
		}
	} else {
		var all []hitRef
		if useCand {
			for _, ord := range cand {
				if ok, s := matches(ord); ok {
					all = append(all, hitRef{ord, s})
				}
			}
		} else {
			for i := range ix.raw {
				if ok, s := matches(int32(i)); ok {
					all = append(all, hitRef{int32(i), s})
				}
			}
		}
		k := min(len(all), offset+limit) // only the first k need ordering
		var first []hitRef
		switch {
		case len(req.Query.Sort) > 0:
			first = ix.sortHits(all, req.Query.Sort, k)
		case scoring:
			first = smallest(all, k, func(a, b hitRef) int {
				if a.score != b.score {
					return cmp.Compare(b.score, a.score)
				}
				return cmp.Compare(ix.idRank[a.ord], ix.idRank[b.ord])
			})
		default:
			first = smallest(all, k, func(a, b hitRef) int {
				return cmp.Compare(ix.idRank[a.ord], ix.idRank[b.ord])
			})
		}
		if offset < len(first) {
			page = first[offset:]
		}
		more = len(all) > offset+limit
	}

	res := &Result{Hits: make([]Hit, 0, len(page))}
	var proj []*projNode
	if len(req.Fields) > 0 {
		proj = buildProj(req.Fields)
	}
	var buf []byte
	for _, h := range page {
		score := 1.0
		if scoring {
			score = h.score
		}
		var data json.RawMessage
		if proj != nil {
			buf = ix.project(buf[:0], proj, h.ord)
			data = json.RawMessage(append([]byte(nil), buf...))
		} else {
			data = json.RawMessage(ix.raw[h.ord])
		}
		res.Hits = append(res.Hits, Hit{ID: ix.ids[h.ord], Score: score, Data: data})
	}
	if more {
		h, err := req.Query.hash()
		if err != nil {
			return nil, err
		}
		c := encodeCursor(h, offset+limit)
		res.NextCursor = &c
	}
	res.TookMS = float64(time.Since(start).Nanoseconds()) / 1e6
	return res, nil
}

// sortHits returns the first k hits in the order of the sort items, then id
// (all is reordered). When the ranks of every key and the id fit in 64 bits,
// each hit gets one packed key.
func (ix *Index) sortHits(all []hitRef, items []SortItem, k int) []hitRef {
	type key struct {
		rank     []int32
		distinct int32
		desc     bool
		width    int
	}
	keys := make([]key, len(items))
	total := bits.Len(uint(len(ix.raw)))
	for i, it := range items {
		lr := ix.rank(it.Field)
		w := bits.Len32(uint32(lr.distinct)) // values 0..distinct (absent)
		keys[i] = key{lr.rank, lr.distinct, it.Order == OrderDesc, w}
		total += w
	}
	val := func(k *key, ord int32) uint64 {
		r := k.rank[ord]
		switch {
		case r < 0:
			return uint64(k.distinct) // absent: last in both directions
		case k.desc:
			return uint64(k.distinct - 1 - r)
		}
		return uint64(r)
	}
	if total <= 64 && !ix.noPack {
		type packed struct {
			k uint64
			h hitRef
		}
		ps := make([]packed, len(all))
		idw := bits.Len(uint(len(ix.raw)))
		for j, h := range all {
			var p uint64
			for i := range keys {
				p = p<<keys[i].width | val(&keys[i], h.ord)
			}
			ps[j] = packed{p<<idw | uint64(ix.idRank[h.ord]), h}
		}
		ps = smallest(ps, k, func(a, b packed) int { return cmp.Compare(a.k, b.k) })
		for j := range ps {
			all[j] = ps[j].h
		}
		return all[:len(ps)]
	}
	return smallest(all, k, func(a, b hitRef) int {
		for i := range keys {
			if c := cmp.Compare(val(&keys[i], a.ord), val(&keys[i], b.ord)); c != 0 {
				return c
			}
		}
		return cmp.Compare(ix.idRank[a.ord], ix.idRank[b.ord])
	})
}

// smallest returns the k smallest elements of s under cmp (a strict total
// order), in order, reordering s. For small k it keeps a max-heap of the
// best k seen, O(len(s)·log k); else it sorts.
func smallest[T any](s []T, k int, cmp func(a, b T) int) []T {
	if k >= len(s) || k > len(s)/64 {
		slices.SortFunc(s, cmp)
		return s[:min(k, len(s))]
	}
	if k <= 0 {
		return s[:0]
	}
	h := s[:k]
	down := func(i int) {
		for {
			c := 2*i + 1
			if c >= len(h) {
				return
			}
			if c+1 < len(h) && cmp(h[c+1], h[c]) > 0 {
				c++
			}
			if cmp(h[c], h[i]) <= 0 {
				return
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	for i := k; i < len(s); i++ {
		if cmp(s[i], h[0]) < 0 {
			h[0] = s[i]
			down(0)
		}
	}
	slices.SortFunc(h, cmp)
	return h
}

// projNode is one key of a fields projection.
type projNode struct {
	key   string
	whole bool
	kids  []*projNode
}

func buildProj(paths []Path) []*projNode {
	var roots []*projNode
	for _, p := range paths {
		level := &roots
		for i, k := range p {
			var n *projNode
			for _, x := range *level {
				if x.key == k {
					n = x
					break
				}
			}
			if n == nil {
				n = &projNode{key: k}
				*level = append(*level, n)
			}
			if n.whole {
				break
			}
			if i == len(p)-1 {
				n.whole, n.kids = true, nil
				break
			}
			level = &n.kids
		}
	}
	return roots
}

// project appends the projection of record ord.
func (ix *Index) project(b []byte, roots []*projNode, ord int32) []byte {
	b = append(b, '{')
	first := true
	for _, p := range roots {
		c, ok := ix.colOf[p.key]
		if !ok {
			continue
		}
		b, first = appendProj(b, p, &ix.cols[c][ord], first)
	}
	return append(b, '}')
}

// appendProj appends `"key":value` for p when v has something to show.
func appendProj(b []byte, p *projNode, v *node, first bool) ([]byte, bool) {
	if v.k == kMissing {
		return b, first
	}
	mark := len(b)
	if !first {
		b = append(b, ',')
	}
	b = appendString(b, p.key)
	b = append(b, ':')
	if p.whole {
		return v.appendJSON(b), false
	}
	if v.k != kObj {
		return b[:mark], first
	}
	b = append(b, '{')
	inner := true
	for _, k := range p.kids {
		b, inner = appendProj(b, k, v.member(k.key), inner)
	}
	if inner {
		return b[:mark], first
	}
	return append(b, '}'), false
}
