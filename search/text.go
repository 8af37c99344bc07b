package search

import (
	"errors"
	"unicode"
	"unicode/utf8"
)

// lowerRune is the case folding of like, fuzzy and keyword: the Unicode
// simple lowercase mapping.
func lowerRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return r
	}
	return unicode.ToLower(r)
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// words calls fn with each word of s, lowercased. A word is a maximal run of
// letters, digits and combining marks; everything else separates words.
func words(s string, fn func(w string)) {
	var buf []byte
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) {
			i += size
			continue
		}
		start, lower := i, true
		for i < len(s) {
			r, size = utf8.DecodeRuneInString(s[i:])
			if !isWordRune(r) {
				break
			}
			if lowerRune(r) != r {
				lower = false
			}
			i += size
		}
		w := s[start:i]
		if !lower {
			buf = buf[:0]
			for _, r := range w {
				buf = utf8.AppendRune(buf, lowerRune(r))
			}
			w = string(buf)
		}
		fn(w)
	}
}

// appendWords appends the words of s, separated by spaces, to b.
func appendWords(b []byte, s string) []byte {
	first := true
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) {
			i += size
			continue
		}
		if !first {
			b = append(b, ' ')
		}
		first = false
		for i < len(s) {
			r, size = utf8.DecodeRuneInString(s[i:])
			if !isWordRune(r) {
				break
			}
			if r < utf8.RuneSelf {
				b = append(b, byte(lowerRune(r)))
			} else {
				b = utf8.AppendRune(b, lowerRune(r))
			}
			i += size
		}
	}
	return b
}

// queryWords returns the distinct words of a fuzzy or keyword text, in order.
func queryWords(s string) []string {
	var out []string
	words(s, func(w string) {
		for _, x := range out {
			if x == w {
				return
			}
		}
		out = append(out, w)
	})
	return out
}

// maxEdits is the edit distance fuzzy allows for a query word of n runes:
// 0 up to 3 runes, 1 from 4 to 7, 2 from 8 on.
func maxEdits(n int) int {
	switch {
	case n <= 3:
		return 0
	case n <= 7:
		return 1
	}
	return 2
}

// editDistance returns the optimal string alignment distance between a and
// b (insertions, deletions, substitutions and transpositions of adjacent
// runes, each costing 1, no substring edited twice), or max+1 when it
// exceeds limit. rows is scratch space, reallocated when shorter than
// 3*(len(b)+1).
func editDistance(a, b []rune, limit int, rows []int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	if len(a) == 0 || len(b) == 0 {
		return max(len(a), len(b))
	}
	m := len(b) + 1
	if len(rows) < 3*m {
		rows = make([]int, 3*m)
	}
	prev2, prev, cur := rows[:m], rows[m:2*m], rows[2*m:3*m]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d = min(d, prev2[j-2]+1)
			}
			cur[j] = d
			best = min(best, d)
		}
		if best > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	if prev[len(b)] > limit {
		return limit + 1
	}
	return prev[len(b)]
}

// textQuery is a compiled fuzzy or keyword text.
type textQuery struct {
	fuzzy bool
	words []string
	runes [][]rune
	edits []int
}

func compileText(op Op, text string) *textQuery {
	q := &textQuery{fuzzy: op == OpFuzzy, words: queryWords(text)}
	for _, w := range q.words {
		r := []rune(w)
		q.runes = append(q.runes, r)
		q.edits = append(q.edits, maxEdits(len(r)))
	}
	return q
}

// score evaluates q on a field value directly (without an index): 0 when it
// does not match. It is the reference the index-backed evaluation follows.
func (q *textQuery) score(s string) float64 {
	var fw [][]rune
	seen := map[string]bool{}
	longest := 0
	words(s, func(w string) {
		if !seen[w] {
			seen[w] = true
			fw = append(fw, []rune(w))
			longest = max(longest, len(fw[len(fw)-1]))
		}
	})
	rows := make([]int, 3*(longest+1))
	total, found := 0.0, 0
	for i, qw := range q.runes {
		best := -1
		if !q.fuzzy {
			if seen[q.words[i]] {
				best = 0
			}
		} else {
			for _, w := range fw {
				if d := editDistance(qw, w, q.edits[i], rows); d <= q.edits[i] && (best < 0 || d < best) {
					best = d
				}
			}
		}
		if best < 0 {
			if q.fuzzy {
				return 0
			}
			continue
		}
		found++
		total += 1 / float64(1+best)
	}
	if found == 0 {
		return 0
	}
	return total / float64(len(q.words))
}

// likeTok is one token of a like pattern: a literal rune (lowercased),
// '_' (any one rune) or '%' (any run of runes).
type likeTok struct {
	r    rune
	kind uint8 // 0 literal, 1 one rune, 2 any run
}

// likePattern is a compiled like pattern.
type likePattern struct {
	toks []likeTok
}

var errTrailingEscape = errors.New(`the pattern ends with an unfinished escape "\"`)

// compileLike compiles a like pattern: % any run of characters, _ exactly
// one, \ escapes the next character; consecutive % collapse.
func compileLike(p string) (*likePattern, error) {
	lp := &likePattern{}
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRuneInString(p[i:])
		i += size
		switch r {
		case '\\':
			if i >= len(p) {
				return nil, errTrailingEscape
			}
			r, size = utf8.DecodeRuneInString(p[i:])
			i += size
			lp.toks = append(lp.toks, likeTok{r: lowerRune(r)})
		case '%':
			if n := len(lp.toks); n == 0 || lp.toks[n-1].kind != 2 {
				lp.toks = append(lp.toks, likeTok{kind: 2})
			}
		case '_':
			lp.toks = append(lp.toks, likeTok{kind: 1})
		default:
			lp.toks = append(lp.toks, likeTok{r: lowerRune(r)})
		}
	}
	return lp, nil
}

// match reports whether s matches the pattern, case-insensitively. It is the
// classic greedy wildcard match with backtracking to the last %, linear in
// practice and O(len(s)·len(pattern)) at worst.
func (lp *likePattern) match(s string) bool {
	toks := lp.toks
	pi, si := 0, 0
	starP, starS := -1, 0
	for si < len(s) {
		r, size := rune(s[si]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[si:])
		}
		if pi < len(toks) {
			t := toks[pi]
			if t.kind == 2 {
				starP, starS = pi, si
				pi++
				continue
			}
			if t.kind == 1 || t.r == lowerRune(r) {
				pi++
				si += size
				continue
			}
		}
		if starP < 0 {
			return false
		}
		_, sz := utf8.DecodeRuneInString(s[starS:])
		starS += sz
		pi, si = starP+1, starS
	}
	for pi < len(toks) && toks[pi].kind == 2 {
		pi++
	}
	return pi == len(toks)
}
