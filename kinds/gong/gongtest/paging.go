package gongtest

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// selection is the ordered set of record indices a filtered list returns,
// kept arithmetic so that millions of records cost nothing: either the
// indices in [lo, hi) whose residue modulo period is kept, or an explicit
// sorted list.
type selection struct {
	lo, hi   int
	period   int
	residues []int // kept residues in [0, period), ascending
	prefix   []int // prefix[r] = number of kept residues < r
	explicit []int
	isList   bool
}

// constraint keeps index i when ok(i % mod).
type constraint struct {
	mod int
	ok  func(r int) bool
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// newSelection builds the selection of indices in [lo, hi) that satisfy
// every constraint; when list is non-nil only its members are candidates.
func newSelection(lo, hi int, cons []constraint, list []int) selection {
	keep := func(i int) bool {
		for _, c := range cons {
			if !c.ok(i % c.mod) {
				return false
			}
		}
		return true
	}
	if list != nil {
		out := []int{}
		seen := map[int]bool{}
		for _, i := range list {
			if i >= lo && i < hi && !seen[i] && keep(i) {
				seen[i] = true
				out = append(out, i)
			}
		}
		sort.Ints(out)
		return selection{explicit: out, isList: true}
	}
	p := 1
	for _, c := range cons {
		p = p / gcd(p, c.mod) * c.mod
	}
	s := selection{lo: lo, hi: hi, period: p, prefix: make([]int, p+1)}
	for r := 0; r < p; r++ {
		s.prefix[r] = len(s.residues)
		if keep(r) {
			s.residues = append(s.residues, r)
		}
	}
	s.prefix[p] = len(s.residues)
	return s
}

// below counts the kept indices in [0, x).
func (s selection) below(x int) int {
	return x/s.period*len(s.residues) + s.prefix[x%s.period]
}

func (s selection) count() int {
	if s.isList {
		return len(s.explicit)
	}
	if s.hi <= s.lo || len(s.residues) == 0 {
		return 0
	}
	return s.below(s.hi) - s.below(s.lo)
}

// at returns the k-th selected index (0 ≤ k < count()).
func (s selection) at(k int) int {
	if s.isList {
		return s.explicit[k]
	}
	t := s.below(s.lo) + k
	return t/len(s.residues)*s.period + s.residues[t%len(s.residues)]
}

// records is Gong's paging block.
type records struct {
	TotalRecords      int    `json:"totalRecords"`
	CurrentPageSize   int    `json:"currentPageSize"`
	CurrentPageNumber int    `json:"currentPageNumber"`
	Cursor            string `json:"cursor,omitempty"`
}

// cursorClaims is the payload of the fake's JWT-shaped cursors.
type cursorClaims struct {
	PageSize   int    `json:"pageSize"`
	Total      int    `json:"total"`
	PageNumber int    `json:"pageNumber"`
	Request    string `json:"req"`
}

var cursorHeader = base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256"}`))

func (s *Server) sign(data string) []byte {
	m := hmac.New(sha256.New, s.secret)
	m.Write([]byte(data))
	return m.Sum(nil)
}

func (s *Server) makeCursor(c cursorClaims) string {
	p, _ := json.Marshal(c)
	head := cursorHeader + "." + base64.RawURLEncoding.EncodeToString(p)
	return head + "." + base64.RawURLEncoding.EncodeToString(s.sign(head))
}

func (s *Server) readCursor(cur string) (cursorClaims, bool) {
	var c cursorClaims
	parts := strings.Split(cur, ".")
	if len(parts) != 3 {
		return c, false
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || !hmac.Equal(sig, s.sign(parts[0]+"."+parts[1])) {
		return c, false
	}
	p, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil || json.Unmarshal(p, &c) != nil {
		return c, false
	}
	return c, true
}

// fingerprint identifies a request's inputs other than the cursor, so that a
// cursor is only accepted with the inputs it was issued for.
func fingerprint(path string, inputs []byte) string {
	h := sha256.Sum256(append([]byte(path+"\n"), inputs...))
	return hex.EncodeToString(h[:8])
}

// queryFingerprint fingerprints a GET request: its query without cursor.
func queryFingerprint(r *http.Request) string {
	q := url.Values{}
	for k, v := range r.URL.Query() {
		if k != "cursor" {
			q[k] = v
		}
	}
	return fingerprint(r.URL.Path, []byte(q.Encode()))
}

// bodyFingerprint fingerprints a POST request: its JSON body without cursor.
func bodyFingerprint(r *http.Request, body map[string]any) string {
	rest := make(map[string]any, len(body))
	for k, v := range body {
		if k != "cursor" {
			rest[k] = v
		}
	}
	b, _ := json.Marshal(rest)
	return fingerprint(r.URL.Path, b)
}

// list describes one page request of a paged endpoint.
type list struct {
	key    string          // the records' key in the body
	total  int             // number of records matched
	item   func(k int) any // the k-th record
	fp     string          // fingerprint of the request's inputs
	cursor string          // the cursor the request carried
	empty  string          // when set, a 404 with this message replaces an empty result
	extra  []kv            // members written after the records
}

// servePage answers with one page of up to PageSize records and Gong's
// records block, whose cursor is present only when more pages follow.
func (s *Server) servePage(w http.ResponseWriter, l list) {
	if l.total == 0 && l.empty != "" {
		s.writeError(w, http.StatusNotFound, l.empty)
		return
	}
	page := 0
	if l.cursor != "" {
		c, ok := s.readCursor(l.cursor)
		if !ok || c.Request != l.fp || c.Total != l.total || c.PageNumber*PageSize >= l.total {
			s.writeError(w, http.StatusBadRequest, InvalidCursor)
			return
		}
		page = c.PageNumber
	}
	start := page * PageSize
	end := min(start+PageSize, l.total)
	items := make([]any, 0, end-start)
	for k := start; k < end; k++ {
		items = append(items, l.item(k))
	}
	rec := records{TotalRecords: l.total, CurrentPageSize: end - start, CurrentPageNumber: page}
	if end < l.total {
		rec.Cursor = s.makeCursor(cursorClaims{PageSize: PageSize, Total: l.total, PageNumber: page + 1, Request: l.fp})
	}
	members := append([]kv{{"requestId", s.requestID()}, {"records", rec}, {l.key, items}}, l.extra...)
	fakeserver.WriteJSON(w, http.StatusOK, object(members...))
}

// serveAll answers an unpaged list: all records under key, no records block.
func (s *Server) serveAll(w http.ResponseWriter, key string, items any) {
	fakeserver.WriteJSON(w, http.StatusOK, object(kv{"requestId", s.requestID()}, kv{key, items}))
}

// badRequest is a 400 with a message, raised while reading inputs.
type badRequest string

func (e badRequest) Error() string { return string(e) }

// readBody decodes a POST endpoint's JSON object body. Gong's endpoints only
// take application/json.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) (map[string]any, bool) {
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		s.writeError(w, http.StatusUnsupportedMediaType, fmt.Sprintf("Content type '%s' not supported", ct))
		return nil, false
	}
	var raw bytes.Buffer
	if _, err := raw.ReadFrom(r.Body); err != nil {
		s.writeError(w, http.StatusBadRequest, "Malformed request")
		return nil, false
	}
	dec := json.NewDecoder(&raw)
	dec.UseNumber()
	var body map[string]any
	if err := dec.Decode(&body); err != nil || body == nil {
		s.writeError(w, http.StatusBadRequest, "Malformed request: the body must be a JSON object")
		return nil, false
	}
	return body, true
}

// object members of decoded JSON, with type checks that become 400s.

func objField(m map[string]any, path, key string) (map[string]any, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, nil
	}
	o, ok := v.(map[string]any)
	if !ok {
		return nil, badRequest(path + key + " must be an object")
	}
	return o, nil
}

func strField(m map[string]any, path, key string) (string, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", badRequest(path + key + " must be a string")
	}
	return s, nil
}

func strList(m map[string]any, path, key string) ([]string, bool, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, false, nil
	}
	a, ok := v.([]any)
	if !ok {
		return nil, false, badRequest(path + key + " must be an array of strings")
	}
	out := make([]string, 0, len(a))
	for _, x := range a {
		s, ok := x.(string)
		if !ok {
			return nil, false, badRequest(path + key + " must be an array of strings")
		}
		out = append(out, s)
	}
	return out, true, nil
}

func boolField(m map[string]any, path, key string) (bool, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, badRequest(path + key + " must be a boolean")
	}
	return b, nil
}
