package githubtest

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

const (
	// DefaultPerPage is the page size GitHub uses when per_page is absent.
	DefaultPerPage = 30
	// MaxPerPage is the largest page size GitHub honours; larger values are
	// silently clamped to it.
	MaxPerPage = 100
	// SearchResultCap is how many search results GitHub lets a client reach;
	// total_count may be larger.
	SearchResultCap = 1000
)

// pageParams reads per_page and page as GitHub does: missing, malformed or
// non-positive values fall back to the defaults and per_page is clamped to
// MaxPerPage.
func pageParams(q url.Values) (perPage, page int) {
	perPage = DefaultPerPage
	if v, err := strconv.Atoi(q.Get("per_page")); err == nil && v > 0 {
		perPage = min(v, MaxPerPage)
	}
	page = 1
	if v, err := strconv.Atoi(q.Get("page")); err == nil && v > 0 {
		page = v
	}
	return perPage, page
}

// setLink writes GitHub's Link header for page of lastPage, with absolute URLs
// built from the request's host, path and query (page replaced, last).
// Nothing is written when everything fits on one page.
func setLink(w http.ResponseWriter, r *http.Request, page, lastPage int) {
	if lastPage <= 1 && page <= 1 {
		return
	}
	base := fakeserver.BaseURL(r) + r.URL.EscapedPath() + "?"
	// Keep the caller's parameters in their order, re-encoded so that no
	// comma stays raw inside a Link URL.
	var keep []string
	for _, kv := range strings.Split(r.URL.RawQuery, "&") {
		k, v, _ := strings.Cut(kv, "=")
		k, errK := url.QueryUnescape(k)
		v, errV := url.QueryUnescape(v)
		if kv == "" || k == "page" || errK != nil || errV != nil {
			continue
		}
		keep = append(keep, url.QueryEscape(k)+"="+url.QueryEscape(v))
	}
	if len(keep) > 0 {
		base += strings.Join(keep, "&") + "&"
	}
	link := func(p int, rel string) string {
		return "<" + base + "page=" + strconv.Itoa(p) + `>; rel="` + rel + `"`
	}
	var parts []string
	if page > 1 {
		parts = append(parts, link(min(page-1, max(lastPage, 1)), "prev"))
	}
	if page < lastPage {
		parts = append(parts, link(page+1, "next"), link(lastPage, "last"))
	}
	if page > 1 {
		parts = append(parts, link(1, "first"))
	}
	w.Header().Set("Link", strings.Join(parts, ", "))
}

// lastPage is the number of pages total items fill, at least 1.
func lastPage(total, perPage int) int {
	if total <= 0 {
		return 1
	}
	return (total + perPage - 1) / perPage
}

// seq is an ordered sequence of candidate item indexes, optionally filtered.
// at(p) gives the p-th candidate (0 <= p < n); keep, when set, selects the
// candidates that match the request's filters. key identifies the ordering and
// the filter, so that scans of large filtered sequences can be resumed.
type seq struct {
	n    int
	at   func(p int) int
	keep func(i int) bool
	key  string
}

// ident is the identity ordering 0..n-1.
func ident(p int) int { return p }

// reversed is the ordering n-1..0.
func reversed(n int) func(int) int { return func(p int) int { return n - 1 - p } }

// scanCache remembers, per filtered sequence, where every checkpointEvery-th
// match lies and how many matches there are, so paging through a large
// filtered list costs one page of work per request after the first.
type scanCache struct {
	mu      sync.Mutex
	entries map[string]*scanEntry
}

type scanEntry struct {
	// cp[j] is the candidate position just after the (j*checkpointEvery)-th match.
	cp    []int
	total int // -1 until a scan reached the end
}

const (
	checkpointEvery = 256
	maxScanEntries  = 512
)

func (c *scanCache) entry(key string) *scanEntry {
	if e, ok := c.entries[key]; ok {
		return e
	}
	if c.entries == nil || len(c.entries) >= maxScanEntries {
		c.entries = make(map[string]*scanEntry)
	}
	e := &scanEntry{cp: []int{0}, total: -1}
	c.entries[key] = e
	return e
}

// slice returns up to limit item indexes of s starting at match offset, and the
// total number of matches.
func (c *scanCache) slice(s seq, offset, limit int) (items []int, total int) {
	if s.keep == nil {
		total = s.n
		for p := offset; p < s.n && len(items) < limit; p++ {
			items = append(items, s.at(p))
		}
		return items, total
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entry(s.key + "#" + strconv.Itoa(s.n))
	j := min(offset/checkpointEvery, len(e.cp)-1)
	matched, p := j*checkpointEvery, e.cp[j]
	for ; p < s.n; p++ {
		i := s.at(p)
		if !s.keep(i) {
			continue
		}
		if matched >= offset && len(items) < limit {
			items = append(items, i)
		}
		matched++
		if matched%checkpointEvery == 0 && matched/checkpointEvery == len(e.cp) {
			e.cp = append(e.cp, p+1)
		}
		if len(items) >= limit && e.total >= 0 {
			return items, e.total
		}
	}
	e.total = matched
	return items, matched
}
