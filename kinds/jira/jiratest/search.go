package jiratest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// TokenLifetime is how long a nextPageToken is accepted (Jira: 7 days).
const TokenLifetime = 7 * 24 * time.Hour

var (
	orderRE  = regexp.MustCompile(`(?i)\s*\bORDER\s+BY\s+(\w+)(?:\s+(ASC|DESC))?\s*$`)
	andRE    = regexp.MustCompile(`(?i)\s+AND\s+`)
	clauseRE = regexp.MustCompile(`^\(?\s*(\w+)\s*(>=|<=|!=|=|>|<)\s*(?:"([^"]*)"|'([^']*)'|([^\s()"']+))\s*\)?$`)
)

// query is a parsed JQL query.
type query struct {
	where []func(issue) bool
	order string
	desc  bool
}

type jqlError string

func (e jqlError) Error() string { return string(e) }

// parseJQL reads the subset of JQL the fake serves (see the package doc).
func (s *Server) parseJQL(jql string) (query, error) {
	q := query{order: "id"}
	if m := orderRE.FindStringSubmatch(jql); m != nil {
		q.order, q.desc = strings.ToLower(m[1]), strings.EqualFold(m[2], "DESC")
		jql = jql[:len(jql)-len(m[0])]
		if !slices.Contains([]string{"updated", "created", "key", "id"}, q.order) {
			return q, jqlError(fmt.Sprintf("Error in the JQL Query: the fake cannot order by '%s'.", m[1]))
		}
	}
	if strings.TrimSpace(jql) == "" {
		return q, jqlError("Unbounded JQL queries are not allowed here. Please add a search restriction to your query.")
	}
	for _, c := range andRE.Split(strings.TrimSpace(jql), -1) {
		m := clauseRE.FindStringSubmatch(strings.TrimSpace(c))
		if m == nil {
			return q, jqlError(fmt.Sprintf("Error in the JQL Query: the fake cannot read '%s'.", c))
		}
		field, op, val := strings.ToLower(m[1]), m[2], m[3]+m[4]+m[5]
		pred, err := s.clause(field, op, val)
		if err != nil {
			return q, err
		}
		q.where = append(q.where, pred)
	}
	return q, nil
}

func (s *Server) clause(field, op, val string) (func(issue) bool, error) {
	cmp := func(c int) bool {
		return map[string]bool{"=": c == 0, "!=": c != 0, ">=": c >= 0, ">": c > 0, "<=": c <= 0, "<": c < 0}[op]
	}
	switch field {
	case "updated", "created", "updateddate", "createddate":
		var at time.Time
		var err error
		for _, layout := range []string{"2006/01/02 15:04", "2006-01-02 15:04", "2006/01/02", "2006-01-02"} {
			if at, err = time.ParseInLocation(layout, val, s.zone); err == nil {
				break
			}
		}
		if err != nil {
			return nil, jqlError(fmt.Sprintf("Date value '%s' for field '%s' is invalid. Valid formats include: 'yyyy/MM/dd HH:mm', 'yyyy-MM-dd HH:mm', 'yyyy/MM/dd', 'yyyy-MM-dd'.", val, field))
		}
		return func(is issue) bool {
			t := is.Updated
			if strings.HasPrefix(field, "created") {
				t = is.Created
			}
			return cmp(t.Truncate(time.Millisecond).Compare(at))
		}, nil
	case "project":
		return func(is issue) bool {
			return cmp(map[bool]int{true: 0, false: 1}[strings.EqualFold(val, projectKey(is.Project)) || val == strconv.Itoa(10000+is.Project)])
		}, nil
	case "key", "issuekey", "id":
		return func(is issue) bool {
			return cmp(map[bool]int{true: 0, false: 1}[strings.EqualFold(val, s.key(is)) || val == strconv.Itoa(is.ID)])
		}, nil
	case "status":
		return func(is issue) bool {
			return cmp(map[bool]int{true: 0, false: 1}[strings.EqualFold(val, statuses[is.Status]["name"].(string))])
		}, nil
	}
	return nil, jqlError(fmt.Sprintf("Field '%s' does not exist or you do not have permission to view it.", field))
}

// sortKey is an issue's place in an order: the ordered value, then the id.
func sortKey(is issue, order string) [2]int64 {
	switch order {
	case "updated":
		return [2]int64{is.Updated.UnixMilli(), int64(is.ID)}
	case "created":
		return [2]int64{is.Created.UnixMilli(), int64(is.ID)}
	}
	return [2]int64{int64(is.ID), 0}
}

// searchParams are the params of a search, from the query or the body.
type searchParams struct {
	JQL        string   `json:"jql"`
	Token      string   `json:"nextPageToken"`
	MaxResults *int     `json:"maxResults"`
	Fields     []string `json:"fields"`
}

// search answers GET and POST /rest/api/3/search/jql.
func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	var p searchParams
	if r.Method == http.MethodPost {
		if err := fakeserver.ReadJSON(r, &p); err != nil {
			writeErr(w, http.StatusBadRequest, "Invalid request payload. Refer to the REST API documentation and try again.")
			return
		}
	} else {
		q := r.URL.Query()
		p.JQL, p.Token = q.Get("jql"), q.Get("nextPageToken")
		if v := q.Get("maxResults"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				writeErr(w, http.StatusBadRequest, "maxResults must be an integer")
				return
			}
			p.MaxResults = &n
		}
		for _, f := range q["fields"] {
			p.Fields = append(p.Fields, strings.Split(f, ",")...)
		}
	}
	q, err := s.parseJQL(p.JQL)
	if err != nil {
		writeErr(w, http.StatusBadRequest, err.Error())
		return
	}
	sel, size := selection(p.Fields), s.cfg.fullPageSize
	if sel != nil && len(sel) == 0 {
		size = 5000
	}
	if p.MaxResults != nil {
		size = min(max(*p.MaxResults, 1), size)
	} else {
		size = min(50, size)
	}
	bound := tokenHash(p.JQL, p.Fields)
	var after *[2]int64
	if p.Token != "" {
		k, issued, ok := readToken(p.Token, bound)
		if !ok || s.clock.Now().Sub(issued) > TokenLifetime {
			writeErr(w, http.StatusBadRequest, "The provided next page token is invalid or expired.")
			return
		}
		after = &k
	}
	hits, dir := s.hits(q)
	start := 0
	if after != nil {
		start, _ = slices.BinarySearchFunc(hits, *after, func(is issue, k [2]int64) int {
			if dir*less(sortKey(is, q.order), k) <= 0 {
				return -1
			}
			return 1
		})
	}
	page, next := fakeserver.PageOf(hits, start, size)
	out := map[string]any{"isLast": next < 0}
	list := make([]any, len(page))
	for i, is := range page {
		list[i] = s.issueJSON(is, sel)
	}
	out["issues"] = list
	if next >= 0 {
		out["nextPageToken"] = makeToken(sortKey(page[len(page)-1], q.order), s.clock.Now(), bound)
	}
	fakeserver.JSON(w, http.StatusOK, out)
}

// hits returns the issues q finds, in its order, and the order's
// direction.
func (s *Server) hits(q query) ([]issue, int) {
	rows := s.issues.Rows(nil)
	hits := make([]issue, 0, len(rows))
	for _, row := range rows {
		if all(q.where, row.Rec) {
			hits = append(hits, row.Rec)
		}
	}
	dir := map[bool]int{false: 1, true: -1}[q.desc]
	slices.SortFunc(hits, func(a, b issue) int { return dir * less(sortKey(a, q.order), sortKey(b, q.order)) })
	return hits, dir
}

func less(a, b [2]int64) int {
	c := a[0] - b[0]
	if c == 0 {
		c = a[1] - b[1]
	}
	return int(max(min(c, 1), -1))
}

// searchV2 answers the deprecated GET /rest/api/2/search (startAt,
// maxResults, total; rich text as plain strings), which older clients
// still call.
func (s *Server) searchV2(w http.ResponseWriter, r *http.Request) {
	q, err := s.parseJQL(r.URL.Query().Get("jql"))
	if err != nil {
		writeErr(w, http.StatusBadRequest, err.Error())
		return
	}
	start, size, ok := s.startAndSize(w, r, 50, s.cfg.fullPageSize)
	if !ok {
		return
	}
	var sel map[string]bool // the old search's default: every field
	if f := r.URL.Query().Get("fields"); f != "" {
		sel = selection(strings.Split(f, ","))
	}
	hits, _ := s.hits(q)
	page, _ := fakeserver.PageOf(hits, start, size)
	list := make([]any, len(page))
	for i, is := range page {
		m := s.issueJSON(is, sel)
		if f, ok := m["fields"].(map[string]any); ok && f["description"] != nil {
			f["description"] = "Details of " + is.Summary
		}
		list[i] = m
	}
	fakeserver.JSON(w, http.StatusOK, map[string]any{"expand": "schema,names", "startAt": start, "maxResults": size, "total": len(hits), "issues": list})
}

func all(preds []func(issue) bool, is issue) bool {
	for _, p := range preds {
		if !p(is) {
			return false
		}
	}
	return true
}

// selection reads the fields param: nil for every field, empty for the id
// alone (Jira's default), else the fields named.
func selection(fields []string) map[string]bool {
	sel := map[string]bool{}
	for _, f := range fields {
		switch f = strings.TrimSpace(f); f {
		case "*all", "*navigable":
			return nil
		case "id", "key", "":
		default:
			sel[f] = true
		}
	}
	return sel
}

func tokenHash(jql string, fields []string) string {
	h := sha256.Sum256([]byte(jql + "\x00" + strings.Join(fields, ",")))
	return hex.EncodeToString(h[:6])
}

// makeToken encodes where the next page starts (after key), when the token
// was issued, and the query it belongs to.
func makeToken(key [2]int64, issued time.Time, bound string) string {
	return base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "%s|%d|%d|%d", bound, key[0], key[1], issued.Unix()))
}

func readToken(tok, bound string) (k [2]int64, issued time.Time, ok bool) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	var h string
	var at int64
	n, _ := fmt.Sscanf(strings.ReplaceAll(string(b), "|", " "), "%s %d %d %d", &h, &k[0], &k[1], &at)
	return k, time.Unix(at, 0), err == nil && n == 4 && h == bound
}
