package store

import (
	"cmp"
	"slices"
	"strings"

	"github.com/tributary-dev/tributary/search"
)

// Ranking by score without reading every candidate. When the filter's one
// scoring condition is a keyword or fuzzy on a field with words (beside
// conditions that do not score), a record's score depends only on which
// query words it holds, and for fuzzy at what distance: keyword scores
// f/n for f of the n words present, fuzzy the mean of 1/(1+d) over the
// words. The store enumerates those patterns, groups them by score,
// highest first, and reads each group's records in id order from the word
// index: the reference's order (score, then id), a page at a time. The
// Evaluator checks every record's score against its group's; a record
// whose words the index saw otherwise (it cannot for ASCII words) sends
// the search to the ranking of every candidate.

// level is the records of one score: the condition that selects them, and
// the filter's bound values followed by the condition's.
type level struct {
	score float64
	cond  string
	args  []any
}

// maxPatterns bounds the word patterns enumerated.
const maxPatterns = 64

// scoringLeaf returns the one scoring condition of f, when f is that
// condition or an and of it and conditions that do not score.
func scoringLeaf(f *search.Filter) *search.Filter {
	if f == nil {
		return nil
	}
	switch f.Op {
	case search.OpKeyword, search.OpFuzzy:
		return f
	case search.OpAnd:
		var leaf *search.Filter
		for i := range f.Filters {
			k := &f.Filters[i]
			switch {
			case k.Op == search.OpKeyword || k.Op == search.OpFuzzy:
				if leaf != nil {
					return nil
				}
				leaf = k
			case scores(k):
				return nil
			}
		}
		return leaf
	}
	return nil
}

// levels returns the score levels of leaf, highest first; ok is false when
// the store cannot rank this way.
func (c *compiler) levels(leaf *search.Filter) ([]level, bool, error) {
	col := c.ts.column(leaf.Field)
	if col < 0 {
		return nil, false, nil
	}
	field := c.ts.Fields[col]
	if !field.Words || field.Dates {
		return nil, false, nil // date-times are not in the word index
	}
	words := search.Words(leaf.Value.Interface().(string))
	if len(words) == 0 {
		return nil, false, nil
	}
	// groups[j][d]: the words of the copy at distance d of query word j.
	groups := make([][][]string, len(words))
	if leaf.Op == search.OpKeyword {
		for j, w := range words {
			groups[j] = [][]string{{w}}
		}
	} else {
		vocab, err := c.s.vocabulary(c.ctx, c.q, c.table, col)
		if err != nil {
			return nil, false, err
		}
		for j, w := range words {
			if letters(w) <= search.MaxEdits(w) {
				return nil, false, nil // near words without letters: not in the vocabulary
			}
			groups[j] = vocab.nearBy(w)
		}
	}
	for _, g := range groups {
		for _, ws := range g {
			for _, w := range ws {
				if !isASCIIWord(w) {
					return nil, false, nil
				}
			}
		}
	}
	// Enumerate the patterns: per word, the distance at which it is found
	// (-1: absent, keyword only).
	type pattern struct {
		dist  []int
		score float64
	}
	var pats []pattern
	cur := make([]int, len(words))
	var walk func(j int) bool
	walk = func(j int) bool {
		if j == len(words) {
			total, found := 0.0, 0
			for _, d := range cur {
				if d >= 0 {
					found++
					total += 1 / float64(1+d)
				}
			}
			if found == 0 {
				return true
			}
			pats = append(pats, pattern{dist: slices.Clone(cur), score: total / float64(len(words))})
			return len(pats) <= maxPatterns
		}
		if leaf.Op == search.OpKeyword {
			cur[j] = -1
			if !walk(j + 1) {
				return false
			}
		}
		for d, ws := range groups[j] {
			if len(ws) == 0 {
				continue
			}
			cur[j] = d
			if !walk(j + 1) {
				return false
			}
		}
		return true
	}
	if !walk(0) {
		return nil, false, nil
	}
	slices.SortStableFunc(pats, func(a, b pattern) int { return cmp.Compare(b.score, a.score) })
	table := tableName(c.table)
	in := func(ws []string, args *[]any) string {
		m, _ := c.s.d.wordsMatch(table, col, [][]string{ws}, c.ts.TaggedWords, args)
		return m
	}
	var out []level
	pm, merge := c.s.d.(patternMatcher)
	for i := 0; i < len(pats); {
		// The level's values follow the filter's, numbered after them.
		lv := level{score: pats[i].score, args: slices.Clone(c.args)}
		if merge {
			// One query of the word index for the whole level.
			var wps []wordPattern
			for ; i < len(pats) && pats[i].score == lv.score; i++ {
				var wp wordPattern
				for j, d := range pats[i].dist {
					if d < 0 {
						wp.none = append(wp.none, groups[j][0])
						continue
					}
					wp.all = append(wp.all, groups[j][d])
					for nearer := range d {
						if len(groups[j][nearer]) > 0 {
							wp.none = append(wp.none, groups[j][nearer])
						}
					}
				}
				wps = append(wps, wp)
			}
			lv.cond = pm.patternsMatch(table, col, wps, c.ts.TaggedWords, &lv.args)
			out = append(out, lv)
			continue
		}
		var ors []string
		for ; i < len(pats) && pats[i].score == lv.score; i++ {
			var ands []string
			for j, d := range pats[i].dist {
				if d < 0 {
					ands = append(ands, "NOT "+in(groups[j][0], &lv.args))
					continue
				}
				ands = append(ands, in(groups[j][d], &lv.args))
				for nearer := range d {
					if len(groups[j][nearer]) > 0 {
						ands = append(ands, "NOT "+in(groups[j][nearer], &lv.args))
					}
				}
			}
			ors = append(ors, "("+strings.Join(ands, " AND ")+")")
		}
		lv.cond = strings.Join(ors, " OR ")
		out = append(out, lv)
	}
	return out, true, nil
}

func isASCIIWord(w string) bool {
	for i := range len(w) {
		if w[i] >= 0x80 {
			return false
		}
	}
	return true
}

// wordPattern is one pattern of words of a score level: for every group
// of all, one of its words; for no group of none, any of its words.
type wordPattern struct {
	all, none [][]string
}

// patternMatcher is a dialect whose word index answers a level's patterns
// in one query.
type patternMatcher interface {
	// patternsMatch returns a condition on the records table (alias r)
	// that holds for the records whose column col has one of the patterns
	// (every pattern has a group in all; every word is ASCII).
	patternsMatch(table string, col int, pats []wordPattern, tagged bool, args *[]any) string
}
