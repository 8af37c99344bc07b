package vendorspec

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// template is a URL or path with "{name}" placeholders, compiled.
type template struct {
	text   string
	re     *regexp.Regexp
	names  []string
	params int // how many placeholders
	lits   int // how many literal characters: more is more specific
}

var placeholder = regexp.MustCompile(`\{([^{}/]+)\}`)

// compileTemplate compiles text: each placeholder matches one path
// segment or host label (one or more characters other than "/" and, in a
// host, "."), or the rest of the path when tail is set and it ends text;
// prefix lets text match the start of a longer string, up to a "/".
func compileTemplate(text string, prefix, tail bool) (*template, error) {
	t := &template{text: text}
	var re strings.Builder
	re.WriteString("^")
	hostEnd := 0 // placeholders before it are host labels
	if i := strings.Index(text, "://"); i >= 0 {
		hostEnd = len(text)
		if j := strings.Index(text[i+3:], "/"); j >= 0 {
			hostEnd = i + 3 + j
		}
	}
	last := 0
	locs := placeholder.FindAllStringSubmatchIndex(text, -1)
	for i, loc := range locs {
		lit := text[last:loc[0]]
		re.WriteString(regexp.QuoteMeta(lit))
		t.lits += len(lit)
		t.names = append(t.names, text[loc[2]:loc[3]])
		t.params++
		switch {
		case tail && i == len(locs)-1 && loc[1] == len(text):
			re.WriteString("(.+)")
		case loc[0] < hostEnd:
			re.WriteString("([^/.]+)")
		default:
			re.WriteString("([^/]+)")
		}
		last = loc[1]
	}
	re.WriteString(regexp.QuoteMeta(text[last:]))
	t.lits += len(text) - last
	if prefix {
		re.WriteString("(/.*)?")
	}
	re.WriteString("$")
	var err error
	t.re, err = regexp.Compile(re.String())
	return t, err
}

// match matches s, returning the placeholders' values (unescaped) and,
// for a prefix template, the rest of s.
func (t *template) match(s string) (params map[string]string, rest string, ok bool) {
	m := t.re.FindStringSubmatch(s)
	if m == nil {
		return nil, "", false
	}
	params = map[string]string{}
	for i, name := range t.names {
		v, err := url.PathUnescape(m[i+1])
		if err != nil {
			v = m[i+1]
		}
		params[name] = v
	}
	if len(m) > len(t.names)+1 {
		rest = m[len(t.names)+1]
	}
	return params, rest, true
}

// router maps request URLs onto the description's path templates.
type router struct {
	bases  []*template
	paths  []*template // the most specific first
	greedy []*template // the same, their last placeholder taking slashes
}

func newRouter(bases []string, paths []string, slashTails []string) (*router, error) {
	r := &router{}
	for _, b := range bases {
		t, err := compileTemplate(strings.TrimSuffix(b, "/"), true, false)
		if err != nil {
			return nil, fmt.Errorf("base URL %s: %w", b, err)
		}
		r.bases = append(r.bases, t)
	}
	for _, p := range paths {
		t, err := compileTemplate(p, false, false)
		if err != nil {
			return nil, fmt.Errorf("path %s: %w", p, err)
		}
		r.paths = append(r.paths, t)
	}
	for _, p := range slashTails {
		if !slices.Contains(paths, p) {
			return nil, fmt.Errorf("no path %s (its last parameter was to hold slashes)", p)
		}
		g, err := compileTemplate(p, false, true)
		if err != nil {
			return nil, fmt.Errorf("path %s: %w", p, err)
		}
		r.greedy = append(r.greedy, g)
	}
	specific := func(ts []*template) {
		sort.SliceStable(ts, func(i, j int) bool {
			if ts[i].params != ts[j].params {
				return ts[i].params < ts[j].params
			}
			if ts[i].lits != ts[j].lits {
				return ts[i].lits > ts[j].lits
			}
			return ts[i].text < ts[j].text
		})
	}
	specific(r.paths)
	specific(r.greedy)
	return r, nil
}

// match is a path template a URL is an instance of, with its parameters.
type match struct {
	tmpl   string
	params map[string]string
}

// route finds the path templates u is an instance of, the most specific
// first (a description may have two, e.g. Jira's /field/{id} and
// /field/{fieldId}, each with its own methods).
func (r *router) route(u *url.URL) ([]match, error) {
	root := u.Scheme + "://" + u.Host + u.EscapedPath()
	rest, found := "", false
	for _, b := range r.bases {
		if _, s, ok := b.match(root); ok {
			rest, found = s, true
			break
		}
	}
	if !found {
		texts := make([]string, len(r.bases))
		for i, b := range r.bases {
			texts[i] = b.text
		}
		return nil, fmt.Errorf("%s is outside the API (its root is %s)", root, strings.Join(texts, " or "))
	}
	if rest == "" {
		rest = "/"
	}
	var out []match
	for _, set := range [][]*template{r.paths, r.greedy} {
		for _, t := range set {
			if p, _, ok := t.match(rest); ok {
				out = append(out, match{t.text, p})
			}
		}
		if len(out) > 0 {
			return out, nil
		}
	}
	return nil, fmt.Errorf("the description has no path %s", rest)
}
