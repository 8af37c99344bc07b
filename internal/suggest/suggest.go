// Package suggest finds the valid name closest to a mistyped one, so that
// every "unknown name" error of the library and the CLI can add
// `did you mean "tickets"?` the same way.
package suggest

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Nearest returns the name of names closest to name, or "" when none is
// close. Names are compared case-insensitively, a singular and its plural
// are equal ("ticket", "tickets", "companies", "company"), and otherwise by
// edit distance (insertions, deletions, substitutions and swaps of two
// neighbours): a name is close when the distance is at most a third of the
// longer name's length, and at least 1. Ties go to the earlier name.
func Nearest(name string, names []string) string {
	if name == "" {
		return ""
	}
	n := strings.ToLower(name)
	best, bestDist := "", -1
	for _, cand := range names {
		if cand == name || cand == "" {
			continue
		}
		c := strings.ToLower(cand)
		d := distance(n, c)
		if s := distance(singular(n), singular(c)); s < d {
			d = s
		}
		limit := max(1, max(utf8.RuneCountInString(n), utf8.RuneCountInString(c))/3)
		if d <= limit && (bestDist < 0 || d < bestDist) {
			best, bestDist = cand, d
		}
	}
	return best
}

// Candidates returns the names of names to suggest for name: the nearest
// one (Nearest) when one is close, else every name one of whose words
// (parts between '_', '-' and '.') is name, a singular and its plural
// being equal ("members" gives list_members and segment_members). Nil
// when none.
func Candidates(name string, names []string) []string {
	if s := Nearest(name, names); s != "" {
		return []string{s}
	}
	word := singular(strings.ToLower(name))
	if len(word) < 2 {
		return nil
	}
	var out []string
	for _, cand := range names {
		parts := strings.FieldsFunc(strings.ToLower(cand), func(r rune) bool { return r == '_' || r == '-' || r == '.' })
		if len(parts) < 2 {
			continue
		}
		for _, p := range parts {
			if singular(p) == word {
				out = append(out, cand)
				break
			}
		}
	}
	return out
}

// Hint returns `; did you mean "x"?` (`"x" or "y"`, ...) for the
// Candidates of name, or "" when there are none: the suffix every
// unknown-name message carries.
func Hint(name string, names []string) string {
	c := Candidates(name, names)
	if len(c) == 0 {
		return ""
	}
	q := make([]string, len(c))
	for i, s := range c {
		q[i] = strconv.Quote(s)
	}
	list := q[0]
	if len(q) > 1 {
		list = strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
	}
	return "; did you mean " + list + "?"
}

// singular drops an English plural ending: companies → company,
// addresses → address, tickets → ticket.
func singular(s string) string {
	switch {
	case strings.HasSuffix(s, "ies") && len(s) > 4:
		return s[:len(s)-3] + "y"
	case strings.HasSuffix(s, "sses"), strings.HasSuffix(s, "xes"), strings.HasSuffix(s, "ches"), strings.HasSuffix(s, "shes"):
		return s[:len(s)-2]
	case strings.HasSuffix(s, "s") && !strings.HasSuffix(s, "ss") && len(s) > 2:
		return s[:len(s)-1]
	}
	return s
}

// distance is the optimal string alignment distance between a and b, in
// runes: the edits that turn one into the other, a swap of two neighbouring
// runes counting as one.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) == 0 || len(rb) == 0 {
		return max(len(ra), len(rb))
	}
	// Three rows: two back (for swaps), the previous one and the current.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
