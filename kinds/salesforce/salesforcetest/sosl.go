package salesforcetest

import (
	"net/http"
	"regexp"
	"strings"
	"unicode"
)

// The SOSL the fake understands:
//
//	FIND {term} [IN ALL|NAME|EMAIL|PHONE FIELDS]
//	[RETURNING Object [(field, ... [WHERE condition] [ORDER BY ...] [LIMIT n] [OFFSET n])], ...]
//	[LIMIT n]
//
// The term is one or more words or "quoted phrases" joined by AND (the
// default), OR or AND NOT; a trailing * is a prefix wildcard, ? one
// character. A word matches a field when it equals the whole value or one
// of its words, case-insensitively. Without RETURNING every object is
// searched and only Id is returned. Results follow the RETURNING order, then
// record order; at most 2,000 records are returned.

const maxSearchResults = 2000

type soslQuery struct {
	terms   []searchTerm
	scope   uint8 // inAll, inName, inEmail, inPhone
	targets []*soslTarget
	limit   int
}

type searchTerm struct {
	op      string // "", "AND", "OR", "AND NOT" (how it joins the terms before it)
	text    string // lower-case word or phrase
	phrase  bool
	pattern *regexp.Regexp // for words with * or ?
}

type soslTarget struct {
	obj    *object
	cols   []column
	where  cond
	order  []orderKey
	limit  int
	offset int
}

func parseSOSL(s *schema, src string) (*soslQuery, *apiError) {
	trim := strings.TrimSpace(src)
	if trim == "" {
		return nil, &apiError{400, "MALFORMED_SEARCH", "No search term found. The search term must be enclosed in braces."}
	}
	if len(trim) < 4 || !strings.EqualFold(trim[:4], "FIND") {
		return nil, &apiError{400, "MALFORMED_SEARCH", positioned(src, 0, "unexpected token: "+firstWord(trim))}
	}
	start := strings.IndexByte(src, '{')
	if start < 0 || strings.TrimSpace(src[strings.Index(src, trim)+4:start]) != "" {
		return nil, &apiError{400, "MALFORMED_SEARCH", "No search term found. The search term must be enclosed in braces."}
	}
	end := -1
	for i := start + 1; i < len(src); i++ {
		if src[i] == '\\' {
			i++
			continue
		}
		if src[i] == '}' {
			end = i
			break
		}
	}
	if end < 0 {
		return nil, &apiError{400, "MALFORMED_SEARCH", "No search term found. The search term must be enclosed in braces."}
	}
	q := &soslQuery{scope: inAll, limit: maxSearchResults}
	terms, err := parseTerm(src[start+1 : end])
	if err != nil {
		return nil, err
	}
	q.terms = terms
	rest := src[end+1:]
	toks, err := lex(rest)
	if err != nil {
		err.code = "MALFORMED_SEARCH"
		return nil, err
	}
	ps := &parser{src: rest, toks: toks}
	bad := func(e *apiError) *apiError {
		if e.code == "MALFORMED_QUERY" {
			e.code = "MALFORMED_SEARCH"
		}
		return e
	}
	if ps.acceptKw("IN") {
		t := ps.next()
		switch strings.ToUpper(t.text) {
		case "ALL":
			q.scope = inAll
		case "NAME":
			q.scope = inName
		case "EMAIL":
			q.scope = inEmail
		case "PHONE":
			q.scope = inPhone
		case "SIDEBAR":
			q.scope = inAll
		default:
			return nil, bad(malformed(rest, t.pos, "unexpected token: "+tokenText(t)))
		}
		if err := ps.expectKw("FIELDS"); err != nil {
			return nil, bad(err)
		}
	}
	if ps.acceptKw("RETURNING") {
		for {
			t := ps.next()
			if t.kind != tIdent {
				return nil, bad(malformed(rest, t.pos, "unexpected token: "+tokenText(t)))
			}
			o, ok := s.byName[strings.ToLower(t.text)]
			if !ok {
				return nil, &apiError{400, "INVALID_TYPE", positioned(rest, t.pos, "sObject type '"+t.text+
					"' is not supported. If you are attempting to use a custom object, be sure to append the '__c' after the entity name. Please reference your WSDL or the describe call for the appropriate names.")}
			}
			tg := &soslTarget{obj: o, limit: -1}
			if ps.isPunct("(") {
				ps.next()
				if err := parseTarget(s, ps, tg); err != nil {
					return nil, bad(err)
				}
			} else {
				k, _ := o.field("Id")
				tg.cols = []column{{f: k}}
			}
			q.targets = append(q.targets, tg)
			if ps.isPunct(",") {
				ps.next()
				continue
			}
			break
		}
	} else {
		for _, o := range s.objects {
			k, _ := o.field("Id")
			q.targets = append(q.targets, &soslTarget{obj: o, cols: []column{{f: k}}, limit: -1})
		}
	}
	if ps.isKw("WITH") {
		return nil, unsupported("MALFORMED_SEARCH", "a WITH clause")
	}
	if ps.acceptKw("LIMIT") {
		n, err := ps.intLiteral()
		if err != nil {
			return nil, bad(err)
		}
		q.limit = min(n, maxSearchResults)
	}
	if ps.peek().kind != tEOF {
		return nil, bad(ps.unexpected())
	}
	return q, nil
}

func firstWord(s string) string {
	if i := strings.IndexFunc(s, unicode.IsSpace); i > 0 {
		return s[:i]
	}
	return s
}

func parseTarget(s *schema, ps *parser, tg *soslTarget) *apiError {
	o := tg.obj
	sel := newSelection(s, o, ps.src)
	defer func() { tg.cols = sel.cols }()
	for {
		t := ps.next()
		if t.kind != tIdent || isClauseKeyword(t.text) {
			return malformed(ps.src, t.pos, "unexpected token: "+tokenText(t))
		}
		if err := sel.add(t.text, t.pos); err != nil {
			return err
		}
		if ps.isPunct(",") {
			ps.next()
			continue
		}
		break
	}
	if ps.acceptKw("WHERE") {
		c, err := parseCond(ps, o)
		if err != nil {
			return err
		}
		tg.where = c
	}
	if ps.acceptKw("ORDER") {
		if err := ps.expectKw("BY"); err != nil {
			return err
		}
		keys, err := parseOrder(ps, o)
		if err != nil {
			return err
		}
		tg.order = keys
	}
	if ps.acceptKw("LIMIT") {
		n, err := ps.intLiteral()
		if err != nil {
			return err
		}
		tg.limit = n
	}
	if ps.acceptKw("OFFSET") {
		n, err := ps.intLiteral()
		if err != nil {
			return err
		}
		tg.offset = n
	}
	return ps.expectPunct(")")
}

// parseTerm splits the text between the braces into words, phrases and
// operators.
func parseTerm(s string) ([]searchTerm, *apiError) {
	var out []searchTerm
	op := ""
	i := 0
	for i < len(s) {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' {
			i++
			continue
		}
		var text string
		phrase := false
		if c == '"' {
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				return nil, &apiError{400, "MALFORMED_SEARCH", "mismatched quotes in search term: " + s}
			}
			text = s[i+1 : i+1+j]
			phrase = true
			i += j + 2
		} else {
			var b strings.Builder
			for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				b.WriteByte(s[i])
				i++
			}
			text = b.String()
			switch strings.ToUpper(text) {
			case "AND", "OR":
				if op == "" && len(out) > 0 {
					op = strings.ToUpper(text)
					continue
				}
			case "NOT":
				if op == "AND" || op == "" && len(out) > 0 {
					op = "AND NOT"
					continue
				}
			}
		}
		if op == "" && len(out) > 0 {
			op = "AND"
		}
		t := searchTerm{op: op, text: strings.ToLower(text), phrase: phrase}
		if !phrase && strings.ContainsAny(text, "*?") {
			t.pattern = wildcardRegexp(t.text)
		}
		if len(strings.Trim(text, "*? ")) < 2 {
			return nil, &apiError{400, "INVALID_SEARCH", "search term must be longer than one character: " + text}
		}
		out = append(out, t)
		op = ""
	}
	if len(out) == 0 {
		return nil, &apiError{400, "MALFORMED_SEARCH", "No search term found. The search term must be enclosed in braces."}
	}
	return out, nil
}

// wildcardRegexp turns a search word with * (any run) and ? (one character)
// into an anchored regular expression.
func wildcardRegexp(w string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for _, r := range w {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func (t *searchTerm) matches(values []string) bool {
	for _, v := range values {
		lv := strings.ToLower(v)
		if t.phrase {
			if strings.Contains(" "+strings.Join(words(lv), " ")+" ", " "+strings.Join(words(t.text), " ")+" ") {
				return true
			}
			continue
		}
		if t.pattern != nil {
			if t.pattern.MatchString(lv) {
				return true
			}
			for _, w := range words(lv) {
				if t.pattern.MatchString(w) {
					return true
				}
			}
			continue
		}
		if lv == t.text {
			return true
		}
		tw := words(t.text)
		if len(tw) == 1 {
			for _, w := range words(lv) {
				if w == tw[0] {
					return true
				}
			}
		} else if len(tw) > 1 && strings.Contains(" "+strings.Join(words(lv), " ")+" ", " "+strings.Join(tw, " ")+" ") {
			return true
		}
	}
	return false
}

func (q *soslQuery) matches(values []string) bool {
	ok := false
	for k := range q.terms {
		t := &q.terms[k]
		m := t.matches(values)
		switch t.op {
		case "":
			ok = m
		case "AND":
			ok = ok && m
		case "OR":
			ok = ok || m
		case "AND NOT":
			ok = ok && !m
		}
	}
	return ok
}

// searchValues collects the text of record i in the searched scope.
func searchValues(c *gctx, o *object, i int, scope uint8, buf []string) []string {
	buf = buf[:0]
	for k := range o.fields {
		f := &o.fields[k]
		if f.search&scope == 0 {
			continue
		}
		if s, ok := c.value(o, k, i).(string); ok {
			buf = append(buf, s)
		}
	}
	return buf
}

// handleSearch serves GET /search?q=.
func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request, version string) {
	q, err := parseSOSL(s.schema, r.URL.Query().Get("q"))
	if err != nil {
		s.writeError(w, err)
		return
	}
	c := s.ctx(version)
	b := []byte(`{"searchRecords":[`)
	left := q.limit
	first := true
	var buf []string
	for _, tg := range q.targets {
		if left <= 0 {
			break
		}
		n := c.total(tg.obj.idx)
		var hits []int32
		want := left
		if tg.limit >= 0 {
			want = min(want, tg.limit)
		}
		for i := 0; i < n; i++ {
			if len(tg.order) == 0 && len(hits) >= want+tg.offset {
				break
			}
			if !c.live(tg.obj.idx, i) {
				continue
			}
			buf = searchValues(c, tg.obj, i, q.scope, buf)
			if !q.matches(buf) {
				continue
			}
			if tg.where != nil && !tg.where.eval(c, i) {
				continue
			}
			hits = append(hits, int32(i))
		}
		if len(tg.order) > 0 {
			sortRows(c, tg.obj, hits, tg.order)
		}
		if tg.offset > 0 {
			hits = hits[min(tg.offset, len(hits)):]
		}
		if len(hits) > want {
			hits = hits[:want]
		}
		for _, i := range hits {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendRecord(b, c, tg.obj, int(i), tg.cols)
		}
		left -= len(hits)
	}
	b = append(b, "]}"...)
	s.writeJSON(w, http.StatusOK, b)
}
