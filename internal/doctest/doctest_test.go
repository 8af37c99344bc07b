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

func TestFences(t *testing.T) {
	doc := strings.Join([]string{
		"# Title",
		"<!-- doctest: file clients.yaml -->",
		"",
		"```yaml",
		"clients: []",
		"```",
		"Text.",
		"````markdown",
		"```sh",
		"inside",
		"```",
		"````",
		"<!-- doctest: background -->",
		"```sh",
		"tributary serve --sandbox",
		"```",
		"- a list item:",
		"",
		"  ```console",
		"  $ true",
		"    indented",
		"  ```",
	}, "\n")
	want := []Fence{
		{Line: 4, Info: "yaml", Text: "clients: []\n", Directive: "file clients.yaml"},
		{Line: 8, Info: "markdown", Text: "```sh\ninside\n```\n"},
		{Line: 14, Info: "sh", Text: "tributary serve --sandbox\n", Directive: "background"},
		{Line: 19, Info: "console", Text: "$ true\n  indented\n"},
	}
	if diff := cmp.Diff(want, Fences(doc)); diff != "" {
		t.Errorf("Fences (-want +got):\n%s", diff)
	}
}

func TestInvocations(t *testing.T) {
	for _, tc := range []struct {
		line string
		want [][]string
	}{
		{`tributary kinds`, [][]string{{"kinds"}}},
		{`tributary exec zendesk-support users list -p role=agent --all > agents.ndjson`,
			[][]string{{"exec", "zendesk-support", "users", "list", "-p", "role=agent", "--all"}}},
		{`export TRIBUTARY_SERVE_KEYS="$(tributary serve keygen)" TRIBUTARY_SERVE_CLIENTS="app:$(openssl rand -hex 24)"`,
			[][]string{{"serve", "keygen"}}},
		{`TRIBUTARY_MCP_TOKEN=$(openssl rand -hex 32) tributary mcp --config tributary-mcp.yaml --http 0.0.0.0:8765`,
			[][]string{{"mcp", "--config", "tributary-mcp.yaml", "--http", "0.0.0.0:8765"}}},
		{`claude mcp add tributary-sandbox -- tributary mcp --sandbox            # offline`, [][]string{{"mcp", "--sandbox"}}},
		{`npx @modelcontextprotocol/inspector --cli tributary mcp --sandbox --method tools/list`, nil},
		{`id=$(tributary create-connector zendesk-support --hosted "$URL" --credentials 'zendesk.json') && echo "$id" 2>&1 | tail -1`,
			[][]string{{"create-connector", "zendesk-support", "--hosted", "1", "--credentials", "zendesk.json"}}},
		{`tributary changes zendesk-support tickets --store t.db --since "$(tail -1 changes.ndjson | jq .seq)" 2>/dev/null`,
			[][]string{{"changes", "zendesk-support", "tickets", "--store", "t.db", "--since", "1"}}},
		{`go test ./...   # tributary`, nil},
	} {
		if diff := cmp.Diff(tc.want, Invocations(tc.line)); diff != "" {
			t.Errorf("Invocations(%q) (-want +got):\n%s", tc.line, diff)
		}
	}
	if got := ShellCommands("a \\\n  b\n\n# c\nd\n"); !cmp.Equal(got, []string{"a    b", "d"}) {
		t.Errorf("ShellCommands: %q", got)
	}
}
