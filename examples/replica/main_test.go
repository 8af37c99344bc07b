package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary/store"
)

// TestReplicaOffline runs the example against the sandbox: it synchronizes,
// searches the reopened file four ways, prints the stats, and leaves no file
// behind.
func TestReplicaOffline(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var out strings.Builder
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"tickets: 250 records\nusers: 50 records\n",
		"== open tickets (a filter): 3 hits",
		"== urgent or high, most recently updated first (a sort): 3 hits",
		`== subject has the word "refund" (a keyword search): `,
		"Password reset link expired",
		"== store: sqlite, schema version " + strconv.Itoa(store.SchemaVersion) + ", ",
		"zendesk-support/tickets: 250 records, 0 deleted, synchronized ",
		"zendesk-support/users: 50 records, 0 deleted, synchronized ",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	// Each search's hits are what it asked for.
	for _, c := range []struct{ heading, hit string }{
		{"== open tickets", `^  #\d+  open `},
		{"== urgent or high", `^  #\d+  \S+ +(urgent|high) `},
		{`== subject has the word "refund"`, `(?i)^  #\d+ .*\brefund\b`},
		{`== subject like "pasword reset"`, `(?i)^  #\d+ .*score 0\.\d+  password reset`},
	} {
		hits := hitLines(section(got, c.heading))
		if len(hits) != 3 {
			t.Errorf("%s: %d hits:\n%s", c.heading, len(hits), got)
		}
		for _, h := range hits {
			if !regexp.MustCompile(c.hit).MatchString(h) {
				t.Errorf("%s: hit %q does not match %s", c.heading, h, c.hit)
			}
		}
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "tributary-replica-*")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Fatal(err)
	}
}

// hitLines returns the hit lines of a section.
func hitLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "  #") {
			out = append(out, l)
		}
	}
	return out
}

// section returns the lines of out from the heading that starts with
// prefix up to the next heading.
func section(out, prefix string) string {
	i := strings.Index(out, prefix)
	if i < 0 {
		return ""
	}
	s := out[i:]
	if j := strings.Index(s[1:], "\n=="); j >= 0 {
		s = s[:j+1]
	}
	return s
}
