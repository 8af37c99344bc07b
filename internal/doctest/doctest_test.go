package doctest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	doc := strings.Join([]string{
		"# Title",
		"```sh",
		"$ not run",
		"```",
		"```console",
		"$ tributary kinds",
		"TYPE ...",
		"...",
		"",
		"$ tributary exec x \\",
		"  --flag      # exits 2",
		"$ echo done",
		"```",
		"````markdown",
		"```console",
		"$ inside a longer fence: not a block",
		"```",
		"````",
		"```console",
		"$ true",
		"```",
	}, "\n")
	want := []Block{
		{Line: 5, Commands: []Command{
			{Line: 6, Text: "tributary kinds", Output: []string{"TYPE ...", "..."}},
			{Line: 10, Text: "tributary exec x \\\n  --flag      # exits 2", Exit: 2},
			{Line: 12, Text: "echo done"},
		}},
		{Line: 19, Commands: []Command{{Line: 20, Text: "true"}}},
	}
	if diff := cmp.Diff(want, Parse(doc)); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		want []string
		got  string
		ok   bool
	}{
		{nil, "", true},
		{nil, "x\n", false},
		{[]string{"a", "b"}, "a\nb\n", true},
		{[]string{"a", "b"}, "a  \nb", true},
		{[]string{"a"}, "a\nb\n", false},
		{[]string{"a", "..."}, "a\nb\nc\n", true},
		{[]string{"a", "...", "c"}, "a\nc\n", true},
		{[]string{"...", "c"}, "a\nb\n", false},
		{[]string{"took ... ms"}, "took 12 ms", true},
		{[]string{"took ... ms"}, "took 12 s", false},
		{[]string{"...x...y..."}, "axbyc", true},
		{[]string{"...y...x..."}, "axbyc", false},
		{[]string{"ab...ba"}, "aba", false},
	} {
		if ok := Match(tc.want, tc.got); ok != tc.ok {
			t.Errorf("Match(%q, %q) = %v", tc.want, tc.got, ok)
		}
	}
}
