package doctest

import (
	"fmt"
	"strings"
)

// Snippet is a region of a Go file that a Markdown page shows as a go
// block: the lines between a comment "// doc: <page>" and the comment
// "// end doc", without their common indentation.
type Snippet struct {
	Page string // the page, relative to the repository's top: docs/search.md
	Line int    // the line of the "// doc:" comment, from 1
	Text string // the lines, each ending in a newline
	// Output is the Example's "// Output:" lines when the region is in an
	// Example function that has them (nil otherwise); a region that ends
	// in comment lines shows that output, and must show it exactly.
	Output []string
}

// Snippets returns the regions of a Go source file, in order.
func Snippets(src string) ([]Snippet, error) {
	var (
		out   []Snippet
		cur   *Snippet
		lines []string
		fn    int // the index in out of the current function's first region
	)
	all := strings.Split(src, "\n")
	for i, line := range all {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "func "):
			fn = len(out)
		case strings.HasPrefix(t, "// doc: "):
			if cur != nil {
				return nil, fmt.Errorf("line %d: a region starts inside the one of line %d", i+1, cur.Line)
			}
			out = append(out, Snippet{Page: strings.TrimSpace(strings.TrimPrefix(t, "// doc: ")), Line: i + 1})
			cur, lines = &out[len(out)-1], nil
		case t == "// end doc":
			if cur == nil {
				return nil, fmt.Errorf("line %d: // end doc outside a region", i+1)
			}
			cur.Text = dedent(lines)
			cur = nil
		case cur != nil:
			lines = append(lines, line)
		case t == "// Output:":
			var want []string
			for _, l := range all[i+1:] {
				l = strings.TrimSpace(l)
				if !strings.HasPrefix(l, "//") {
					break
				}
				want = append(want, strings.TrimSpace(strings.TrimPrefix(l, "//")))
			}
			for j := fn; j < len(out); j++ {
				out[j].Output = want
			}
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("line %d: the region does not end (// end doc)", cur.Line)
	}
	return out, nil
}

// dedent removes the tabs all non-blank lines start with.
func dedent(lines []string) string {
	n := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		k := len(l) - len(strings.TrimLeft(l, "\t"))
		if n < 0 || k < n {
			n = k
		}
	}
	var b strings.Builder
	for _, l := range lines {
		if len(l) >= n && n > 0 {
			l = l[n:]
		}
		b.WriteString(strings.TrimRight(l, " \t") + "\n")
	}
	return b.String()
}

// ShownOutput returns the comment lines a snippet ends with, without "//":
// the output it says it prints.
func (s Snippet) ShownOutput() []string {
	lines := strings.Split(strings.TrimRight(s.Text, "\n"), "\n")
	i := len(lines)
	for i > 0 && strings.HasPrefix(strings.TrimSpace(lines[i-1]), "//") {
		i--
	}
	var out []string
	for _, l := range lines[i:] {
		out = append(out, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "//")))
	}
	return out
}
