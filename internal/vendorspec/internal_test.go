package vendorspec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	neturl "net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"
)

// TestFilesMatchSources: every description in testdata/vendor-specs is
// listed in SOURCES.md with its size and SHA-256, byte for byte, and
// every vendor the package knows has its file there.
func TestFilesMatchSources(t *testing.T) {
	dir, err := specDir()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(dir, "SOURCES.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z-]+/[^`]+)` \\| ([0-9,]+) \\|.*\\| `([0-9a-f]{64})` \\|$")
	listed := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(string(src), -1) {
		file, size, sum := m[1], strings.ReplaceAll(m[2], ",", ""), m[3]
		listed[file] = true
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(file)))
		if err != nil {
			t.Errorf("SOURCES.md lists %s: %v", file, err)
			continue
		}
		if got := strconv.Itoa(len(b)); got != size {
			t.Errorf("%s: %s bytes, SOURCES.md says %s", file, got, size)
		}
		if h := sha256.Sum256(b); hex.EncodeToString(h[:]) != sum {
			t.Errorf("%s: SHA-256 %x, SOURCES.md says %s: the file is not the published one", file, h, sum)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*"))
	var present []string
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		present = append(present, filepath.ToSlash(rel))
	}
	var wantListed []string
	for f := range listed {
		wantListed = append(wantListed, f)
	}
	sort.Strings(present)
	sort.Strings(wantListed)
	if d := cmp.Diff(wantListed, present); d != "" {
		t.Errorf("files in testdata/vendor-specs (+) and in SOURCES.md (-) differ:\n%s", d)
	}
	for _, name := range Vendors() {
		if !listed[vendors[name].file] {
			t.Errorf("vendor %s: %s is not in SOURCES.md", name, vendors[name].file)
		}
	}
}

// TestAllowList: entries are read with their exchange and reason, match
// by fixture glob, exchange and text, and an entry that allows nothing is
// reported; a malformed line is an error naming it.
func TestAllowList(t *testing.T) {
	file := filepath.Join(t.TempDir(), "allow-x.txt")
	write := func(s string) {
		if err := os.WriteFile(file, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("# comment\n\nissues.*#2 | is outside the API | a CDN\nrepos.get | /x: | a reason\n")
	l, err := readAllowList(file)
	if err != nil {
		t.Fatal(err)
	}
	if why, ok := l.allowed("issues.list", 2, "GET https://cdn: https://cdn is outside the API"); !ok || why != "allow-x.txt:3: a CDN" {
		t.Errorf("allowed = %q, %v", why, ok)
	}
	if _, ok := l.allowed("issues.list", 1, "GET https://cdn: https://cdn is outside the API"); ok {
		t.Error("the entry names exchange 2, yet allowed exchange 1")
	}
	if _, ok := l.allowed("issues.list", 2, "GET /x: response 200 body: /y: bad"); ok {
		t.Error("allowed a difference the entry does not name")
	}
	want := []string{"allow-x.txt:4 (repos.get): allows no difference any more; remove it"}
	if d := cmp.Diff(want, l.unused([]string{"issues.list", "repos.get"})); d != "" {
		t.Errorf("unused (-want +got):\n%s", d)
	}
	if got := l.unused([]string{"users.get"}); len(got) != 0 {
		t.Errorf("an entry for fixtures not validated was reported: %q", got)
	}
	for _, bad := range []string{"a | b\n", "a | | reason\n", "a#0 | b | c\n", "a#x | b | c\n", "[ | b | c\n"} {
		write(bad)
		if _, err := readAllowList(file); err == nil || !strings.HasPrefix(err.Error(), "allow-x.txt:1: ") {
			t.Errorf("%q: error %v, want one naming allow-x.txt:1", bad, err)
		}
	}
}

// TestRouteTemplates: placeholders take one segment (or host label), a
// slash tail takes the rest, literal templates win over parameters, and
// parameters are unescaped.
func TestRouteTemplates(t *testing.T) {
	r, err := newRouter(
		[]string{"https://{site}.atlassian.net", "https://api.atlassian.com/ex/jira/{cloudid}"},
		[]string{"/a/{x}", "/a/b", "/a/{x}/c/{path}", "/f/{id}", "/f/{fieldId}"},
		[]string{"/a/{x}/c/{path}"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ url, want string }{
		{"https://acme.atlassian.net/a/b", "/a/b {} /a/{x} {x:b}"}, // the literal first
		{"https://acme.atlassian.net/a/q%20r", "/a/{x} {x:q r}"},
		{"https://api.atlassian.com/ex/jira/c-1/a/q/c/d/e.md", "/a/{x}/c/{path} {path:d/e.md x:q}"},
		{"https://acme.atlassian.net/f/7", "/f/{fieldId} {fieldId:7} /f/{id} {id:7}"},
		{"https://a.b.atlassian.net/a/b", "outside"},
		{"https://acme.atlassian.net/a/b/c", "no path"},
	} {
		u, _ := neturl.Parse(c.url)
		ms, err := r.route(u)
		got := ""
		switch {
		case err != nil && strings.Contains(err.Error(), "outside the API"):
			got = "outside"
		case err != nil && strings.Contains(err.Error(), "has no path"):
			got = "no path"
		case err != nil:
			got = err.Error()
		}
		for i, m := range ms {
			keys := make([]string, 0, len(m.params))
			for k, v := range m.params {
				keys = append(keys, k+":"+v)
			}
			sort.Strings(keys)
			if i > 0 {
				got += " "
			}
			got += m.tmpl + " {" + strings.Join(keys, " ") + "}"
		}
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.url, got, c.want)
		}
	}
}

// harmless are the complaints of kin-openapi's own check of a whole
// description that do not touch the validation of an exchange, each with
// the reason; any other complaint fails TestEveryOperationLoads.
var harmless = []struct{ text, why string }{
	{"when schema type is 'array', schema 'items' must be non-null",
		"an array without items (GitHub: audit-log-event, package-version, page, …; Intercom: ticket attributes): its items are left unchecked, as the vendor wrote"},
	{"invalid default: value is not one of the allowed values",
		"Jira's parameter defaults of \"\" outside their enums: defaults are never applied (SkipSettingDefaults)"},
	{"conflicting paths",
		"Jira's /field/{id} and /field/{fieldId} (and two more pairs) hold different methods: the router tries each template that matches"},
}

// TestEveryOperationLoads makes every operation of every description
// ready (every $ref resolved, every patch applied) and runs kin-openapi's
// own check of the whole; only the harmless complaints above may remain.
// It takes about a minute (Stripe's is 4 MB), so it runs where
// TRIBUTARY_VENDORSPEC_ALL is set (.ci/run does).
func TestEveryOperationLoads(t *testing.T) {
	if os.Getenv("TRIBUTARY_VENDORSPEC_ALL") == "" {
		t.Skip("set TRIBUTARY_VENDORSPEC_ALL=1 to load every operation of every description (about a minute)")
	}
	for _, name := range Vendors() {
		t.Run(name, func(t *testing.T) {
			if vendors[name].graphql {
				GraphQL(t, name)
				return
			}
			d := OpenAPI(t, name)
			paths, _ := d.tree["paths"].(map[string]any)
			all := make([]string, 0, len(paths))
			for p := range paths {
				all = append(all, p)
			}
			start := time.Now()
			if err := d.prepare(all); err != nil {
				t.Fatal(err)
			}
			t.Logf("%d paths ready in %v", len(all), time.Since(start).Round(time.Millisecond))
			err := d.loaded[all[0]].Validate(context.Background(), openapi3.DisableExamplesValidation(), openapi3.EnableMultiError())
			if err == nil {
				return
			}
		next:
			for _, line := range explain(name, err) {
				for _, h := range harmless {
					if strings.Contains(line, h.text) {
						t.Logf("harmless (%s): %s", h.why, line)
						continue next
					}
				}
				t.Error(line)
			}
		})
	}
}

// BenchmarkParse measures what OpenAPI and GraphQL do once per test
// binary for each vendor: read the file, patch it, index its paths.
func BenchmarkParse(b *testing.B) {
	dir, err := specDir()
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range Vendors() {
		v := vendors[name]
		path := filepath.Join(dir, filepath.FromSlash(v.file))
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				var err error
				if v.graphql {
					_, err = loadGraphQL(name, v, path)
				} else {
					_, err = loadOpenAPI(name, v, path)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
