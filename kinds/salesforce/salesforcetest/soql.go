package salesforcetest

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The SOQL the fake understands:
//
//	SELECT COUNT() | FIELDS(ALL|STANDARD|CUSTOM) | field | Parent.field, ...
//	FROM Object
//	[WHERE condition]            (=, !=, <>, <, <=, >, >=, LIKE, IN, NOT IN,
//	                              AND, OR, NOT, parentheses)
//	[ORDER BY field [ASC|DESC] [NULLS FIRST|LAST], ...]
//	[LIMIT n] [OFFSET n] [FOR VIEW|REFERENCE]
//
// One-level parent relationship paths (Owner.Name, Account.Industry) may be
// selected; they render as nested records with their own attributes.
// Relationship paths in WHERE and ORDER BY, deeper paths, sub-queries,
// aggregate functions, GROUP BY,
// date constants (TODAY, LAST_N_DAYS:n), bind variables and WITH clauses are
// answered with a 400 that names the construct as unsupported by the fake.

type soqlQuery struct {
	obj       *object
	count     bool     // SELECT COUNT()
	cols      []column // selected fields and relationship paths, in SELECT order
	fieldsFn  bool     // FIELDS(ALL|CUSTOM) used (needs LIMIT <= 200)
	where     cond
	order     []orderKey
	limit     int // -1: none
	offset    int
	hasOffset bool
}

type orderKey struct {
	f         int
	desc      bool
	nullsLast bool
}

type selectItem struct {
	name string
	pos  int
	fn   string // "FIELDS" with name = ALL/STANDARD/CUSTOM
}

const maxOffset = 2000

func parseSOQL(s *schema, src string) (*soqlQuery, *apiError) {
	if strings.TrimSpace(src) == "" {
		return nil, &apiError{400, "MALFORMED_QUERY", "A query string has to be specified"}
	}
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	ps := &parser{src: src, toks: toks}
	q := &soqlQuery{limit: -1}
	if err := ps.expectKw("SELECT"); err != nil {
		return nil, err
	}
	var items []selectItem
	for {
		t := ps.peek()
		switch {
		case t.kind == tPunct && t.text == "(":
			return nil, unsupported("MALFORMED_QUERY", "a relationship sub-query")
		case t.kind != tIdent:
			return nil, ps.unexpected()
		}
		ps.next()
		if ps.isPunct("(") {
			fn := strings.ToUpper(t.text)
			ps.next()
			switch fn {
			case "COUNT":
				if ps.isPunct(")") {
					ps.next()
					q.count = true
					items = append(items, selectItem{pos: t.pos, fn: "COUNT"})
					break
				}
				return nil, unsupported("MALFORMED_QUERY", "the aggregate function COUNT(field)")
			case "FIELDS":
				a := ps.next()
				kind := strings.ToUpper(a.text)
				if a.kind != tIdent || kind != "ALL" && kind != "STANDARD" && kind != "CUSTOM" {
					return nil, malformed(src, a.pos, "unexpected token: "+tokenText(a))
				}
				if err := ps.expectPunct(")"); err != nil {
					return nil, err
				}
				items = append(items, selectItem{name: kind, pos: t.pos, fn: "FIELDS"})
			default:
				return nil, unsupported("MALFORMED_QUERY", "the function "+t.text+"()")
			}
		} else {
			items = append(items, selectItem{name: t.text, pos: t.pos})
		}
		if ps.isPunct(",") {
			ps.next()
			continue
		}
		break
	}
	if err := ps.expectKw("FROM"); err != nil {
		return nil, err
	}
	ot := ps.next()
	if ot.kind != tIdent {
		return nil, malformed(src, ot.pos, "unexpected token: "+tokenText(ot))
	}
	obj, ok := s.byName[strings.ToLower(ot.text)]
	if !ok {
		return nil, &apiError{400, "INVALID_TYPE", positioned(src, ot.pos, "sObject type '"+ot.text+
			"' is not supported. If you are attempting to use a custom object, be sure to append the '__c' after the entity name. Please reference your WSDL or the describe call for the appropriate names.")}
	}
	q.obj = obj
	if err := q.resolveSelect(s, src, items); err != nil {
		return nil, err
	}
	if t := ps.peek(); t.kind == tIdent && !isClauseKeyword(t.text) {
		return nil, unsupported("MALFORMED_QUERY", "an object alias in FROM")
	}
	if ps.isKw("USING") {
		return nil, unsupported("MALFORMED_QUERY", "USING SCOPE")
	}
	if ps.acceptKw("WHERE") {
		c, err := parseCond(ps, obj)
		if err != nil {
			return nil, err
		}
		q.where = c
	}
	if ps.isKw("WITH") {
		return nil, unsupported("MALFORMED_QUERY", "a WITH clause")
	}
	if ps.isKw("GROUP") || ps.isKw("HAVING") {
		return nil, unsupported("MALFORMED_QUERY", "GROUP BY")
	}
	if ps.acceptKw("ORDER") {
		if err := ps.expectKw("BY"); err != nil {
			return nil, err
		}
		keys, err := parseOrder(ps, obj)
		if err != nil {
			return nil, err
		}
		q.order = keys
	}
	if ps.acceptKw("LIMIT") {
		n, err := ps.intLiteral()
		if err != nil {
			return nil, err
		}
		q.limit = n
	}
	if ps.acceptKw("OFFSET") {
		t := ps.peek()
		n, err := ps.intLiteral()
		if err != nil {
			return nil, err
		}
		if n > maxOffset {
			return nil, &apiError{400, "NUMBER_OUTSIDE_VALID_RANGE", positioned(src, t.pos, "Maximum SOQL offset allowed is 2000")}
		}
		q.offset, q.hasOffset = n, true
	}
	if ps.acceptKw("FOR") {
		if !ps.acceptKw("VIEW") && !ps.acceptKw("REFERENCE") {
			return nil, unsupported("MALFORMED_QUERY", "FOR UPDATE")
		}
	}
	if ps.peek().kind != tEOF {
		return nil, ps.unexpected()
	}
	if q.fieldsFn && (q.limit < 0 || q.limit > 200) {
		return nil, malformed(src, items[0].pos, "The SOQL FIELDS function must have a LIMIT of at most 200")
	}
	return q, nil
}

func isClauseKeyword(s string) bool {
	switch strings.ToUpper(s) {
	case "WHERE", "WITH", "GROUP", "HAVING", "ORDER", "LIMIT", "OFFSET", "FOR", "USING", "UPDATE":
		return true
	}
	return false
}

func (q *soqlQuery) resolveSelect(s *schema, src string, items []selectItem) *apiError {
	if q.count {
		if len(items) > 1 {
			return malformed(src, items[1].pos, "COUNT() must be the only element in the SELECT list.")
		}
		return nil
	}
	sel := newSelection(s, q.obj, src)
	for _, it := range items {
		if it.fn == "FIELDS" {
			if it.name != "STANDARD" {
				q.fieldsFn = true
			}
			if it.name == "CUSTOM" {
				continue // the fake's objects have no custom fields
			}
			for k := range q.obj.fields {
				if !sel.seen[k] {
					sel.seen[k] = true
					sel.cols = append(sel.cols, column{f: k})
				}
			}
			continue
		}
		if err := sel.add(it.name, it.pos); err != nil {
			return err
		}
	}
	q.cols = sel.cols
	return nil
}

// selection accumulates the columns of a SELECT list (or of a SOSL
// RETURNING field list).
type selection struct {
	s       *schema
	o       *object
	src     string
	cols    []column
	seen    map[int]bool
	rels    map[string]*relation
	relSeen map[string]bool
}

func newSelection(s *schema, o *object, src string) *selection {
	return &selection{s: s, o: o, src: src, seen: map[int]bool{}, rels: map[string]*relation{}, relSeen: map[string]bool{}}
}

// add selects a field or a one-level relationship path (Owner.Name).
func (sel *selection) add(name string, pos int) *apiError {
	o := sel.o
	if rel, field, ok := strings.Cut(name, "."); ok {
		if _, isLookup := lookupField(o, rel); isLookup || strings.Contains(field, ".") || !strings.EqualFold(rel, o.name) {
			r, sub, err := resolveRelation(sel.s, sel.src, o, name, pos)
			if err != nil {
				return err
			}
			key := strings.ToLower(r.name + "." + sub)
			if sel.relSeen[key] {
				return malformed(sel.src, pos, "duplicate field selected: "+r.name+"."+sub)
			}
			sel.relSeen[key] = true
			if have, ok := sel.rels[strings.ToLower(r.name)]; ok {
				have.sub = append(have.sub, sub)
				return nil
			}
			r.sub = []string{sub}
			sel.rels[strings.ToLower(r.name)] = r
			sel.cols = append(sel.cols, column{rel: r})
			return nil
		}
	}
	k, err := resolveField(sel.src, o, name, pos)
	if err != nil {
		return err
	}
	if sel.seen[k] {
		return malformed(sel.src, pos, "duplicate field selected: "+o.fields[k].name)
	}
	sel.seen[k] = true
	sel.cols = append(sel.cols, column{f: k})
	return nil
}

// lookupField finds the lookup field behind relationship rel (OwnerId for
// Owner).
func lookupField(o *object, rel string) (int, bool) {
	if rel == "" {
		return 0, false
	}
	k, ok := o.field(rel + "Id")
	if !ok || o.fields[k].kind != kID {
		return 0, false
	}
	return k, true
}

// relationTargets returns the object a relationship leads to, or nil with
// poly set when it is polymorphic (the parent's type is read from its id).
func relationTargets(s *schema, o *object, rel string) (target *object, poly bool) {
	switch rel {
	case "Owner", "CreatedBy", "LastModifiedBy", "ContentModifiedBy":
		return s.objects[objUser], false
	case "Account", "ConvertedAccount":
		return s.objects[objAccount], false
	case "Contact", "ConvertedContact", "ReportsTo":
		return s.objects[objContact], false
	case "ConvertedOpportunity":
		return s.objects[objOpportunity], false
	case "Campaign":
		return s.objects[objCampaign], false
	case "MasterRecord":
		return o, false
	case "Parent":
		if o.idx == objAccount || o.idx == objCampaign || o.idx == objCase {
			return o, false
		}
		return nil, true
	case "Who", "What", "FirstPublishLocation":
		return nil, true
	}
	return nil, false // an object the fake does not serve: always null
}

func resolveRelation(s *schema, src string, o *object, path string, pos int) (*relation, string, *apiError) {
	rel, sub, _ := strings.Cut(path, ".")
	if strings.Contains(sub, ".") {
		return nil, "", unsupported("INVALID_FIELD", "the relationship path "+path+" (more than one level)")
	}
	k, ok := lookupField(o, rel)
	if !ok {
		return nil, "", &apiError{400, "INVALID_FIELD", positioned(src, pos, "Didn't understand relationship '"+rel+
			"' in field path. If you are attempting to use a custom relationship, be sure to append the '__r' after the custom relationship name. Please reference your WSDL or the describe call for the appropriate names.")}
	}
	name := strings.TrimSuffix(o.fields[k].name, "Id")
	target, poly := relationTargets(s, o, name)
	switch {
	case target != nil:
		f, ok := target.field(sub)
		if !ok {
			return nil, "", &apiError{400, "INVALID_FIELD", positioned(src, pos, "No such column '"+sub+"' on entity '"+target.name+
				"'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name. Please reference your WSDL or the describe call for the appropriate names.")}
		}
		sub = target.fields[f].name
	case poly:
		found := false
		for _, t := range s.objects {
			if f, ok := t.field(sub); ok {
				sub, found = t.fields[f].name, true
				break
			}
		}
		if !found {
			return nil, "", &apiError{400, "INVALID_FIELD", positioned(src, pos, "No such column '"+sub+"' on entity 'Name'.")}
		}
	}
	return &relation{name: name, idField: k}, sub, nil
}

func resolveField(src string, o *object, name string, pos int) (int, *apiError) {
	if strings.Contains(name, ".") {
		rel := name[:strings.IndexByte(name, '.')]
		if strings.EqualFold(rel, o.name) {
			name = name[len(rel)+1:]
		} else {
			return 0, unsupported("INVALID_FIELD", "the relationship path "+name+" outside the SELECT list")
		}
	}
	k, ok := o.field(name)
	if !ok {
		return 0, &apiError{400, "INVALID_FIELD", positioned(src, pos, "No such column '"+name+"' on entity '"+o.name+
			"'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name. Please reference your WSDL or the describe call for the appropriate names.")}
	}
	return k, nil
}

func (ps *parser) intLiteral() (int, *apiError) {
	t := ps.next()
	if t.kind != tNumber {
		return 0, malformed(ps.src, t.pos, "unexpected token: "+tokenText(t))
	}
	n, err := strconv.Atoi(t.text)
	if err != nil || n < 0 {
		return 0, malformed(ps.src, t.pos, "unexpected token: "+t.text)
	}
	return n, nil
}

func parseOrder(ps *parser, o *object) ([]orderKey, *apiError) {
	var keys []orderKey
	for {
		t := ps.next()
		if t.kind != tIdent {
			return nil, malformed(ps.src, t.pos, "unexpected token: "+tokenText(t))
		}
		k, err := resolveField(ps.src, o, t.text, t.pos)
		if err != nil {
			return nil, err
		}
		if o.fields[k].kind == kAddress {
			return nil, &apiError{400, "INVALID_FIELD", positioned(ps.src, t.pos, "field '"+o.fields[k].name+"' can not be sorted in a query call")}
		}
		key := orderKey{f: k}
		if ps.acceptKw("DESC") {
			key.desc = true
		} else {
			ps.acceptKw("ASC")
		}
		key.nullsLast = key.desc // Salesforce's default: nulls first ascending, last descending
		if ps.acceptKw("NULLS") {
			switch {
			case ps.acceptKw("FIRST"):
				key.nullsLast = false
			case ps.acceptKw("LAST"):
				key.nullsLast = true
			default:
				return nil, ps.unexpected()
			}
		}
		keys = append(keys, key)
		if ps.isPunct(",") {
			ps.next()
			continue
		}
		return keys, nil
	}
}

// ---- conditions ----

type cond interface {
	eval(c *gctx, i int) bool
}

type andCond []cond
type orCond []cond
type notCond struct{ c cond }

func (a andCond) eval(c *gctx, i int) bool {
	for _, x := range a {
		if !x.eval(c, i) {
			return false
		}
	}
	return true
}

func (o orCond) eval(c *gctx, i int) bool {
	for _, x := range o {
		if x.eval(c, i) {
			return true
		}
	}
	return false
}

func (n notCond) eval(c *gctx, i int) bool { return !n.c.eval(c, i) }

// literal is a typed SOQL value.
type literal struct {
	null bool
	s    string // strings, ids (18-character form), dates
	f    float64
	b    bool
	t    time.Time
}

type cmpCond struct {
	o    *object
	f    *field
	fk   int
	op   string // = != < <= > >= LIKE IN NOTIN
	vals []literal
	like *regexp.Regexp
}

func parseCond(ps *parser, o *object) (cond, *apiError) {
	first, err := parseUnary(ps, o)
	if err != nil {
		return nil, err
	}
	parts := []cond{first}
	joiner := ""
	for ps.isKw("AND") || ps.isKw("OR") {
		t := ps.next()
		op := strings.ToUpper(t.text)
		if joiner != "" && op != joiner {
			return nil, malformed(ps.src, t.pos, "unexpected token: "+t.text)
		}
		joiner = op
		c, err := parseUnary(ps, o)
		if err != nil {
			return nil, err
		}
		parts = append(parts, c)
	}
	switch joiner {
	case "AND":
		return andCond(parts), nil
	case "OR":
		return orCond(parts), nil
	}
	return first, nil
}

func parseUnary(ps *parser, o *object) (cond, *apiError) {
	if ps.acceptKw("NOT") {
		c, err := parseUnary(ps, o)
		if err != nil {
			return nil, err
		}
		return notCond{c}, nil
	}
	if ps.isPunct("(") {
		ps.next()
		c, err := parseCond(ps, o)
		if err != nil {
			return nil, err
		}
		if err := ps.expectPunct(")"); err != nil {
			return nil, err
		}
		return c, nil
	}
	return parseComparison(ps, o)
}

func parseComparison(ps *parser, o *object) (cond, *apiError) {
	ft := ps.next()
	if ft.kind != tIdent {
		return nil, malformed(ps.src, ft.pos, "unexpected token: "+tokenText(ft))
	}
	k, err := resolveField(ps.src, o, ft.text, ft.pos)
	if err != nil {
		return nil, err
	}
	f := &o.fields[k]
	if f.kind == kAddress {
		return nil, &apiError{400, "INVALID_FIELD", positioned(ps.src, ft.pos, "field '"+f.name+"' can not be filtered in a query call")}
	}
	c := &cmpCond{o: o, f: f, fk: k}
	opTok := ps.next()
	switch {
	case opTok.kind == tOp:
		c.op = opTok.text
		if c.op == "<>" {
			c.op = "!="
		}
	case opTok.kind == tIdent && strings.EqualFold(opTok.text, "LIKE"):
		c.op = "LIKE"
	case opTok.kind == tIdent && strings.EqualFold(opTok.text, "IN"):
		c.op = "IN"
	case opTok.kind == tIdent && strings.EqualFold(opTok.text, "NOT") && ps.acceptKw("IN"):
		c.op = "NOTIN"
	case opTok.kind == tIdent && (strings.EqualFold(opTok.text, "INCLUDES") || strings.EqualFold(opTok.text, "EXCLUDES")):
		return nil, unsupported("MALFORMED_QUERY", strings.ToUpper(opTok.text))
	default:
		return nil, malformed(ps.src, opTok.pos, "unexpected token: "+tokenText(opTok))
	}
	if c.op == "IN" || c.op == "NOTIN" {
		if err := ps.expectPunct("("); err != nil {
			return nil, err
		}
		for {
			v, err := parseLiteral(ps, f)
			if err != nil {
				return nil, err
			}
			c.vals = append(c.vals, v)
			if ps.isPunct(",") {
				ps.next()
				continue
			}
			break
		}
		if err := ps.expectPunct(")"); err != nil {
			return nil, err
		}
		return c, nil
	}
	v, err := parseLiteral(ps, f)
	if err != nil {
		return nil, err
	}
	c.vals = []literal{v}
	if c.op == "LIKE" {
		if f.kind != kString && f.kind != kID {
			return nil, &apiError{400, "INVALID_FIELD", positioned(ps.src, opTok.pos, "invalid operator on "+kindName(f.kind)+" field")}
		}
		c.like = likeRegexp(v.s)
	}
	if (c.op == "<" || c.op == "<=" || c.op == ">" || c.op == ">=") && f.kind == kBool {
		return nil, &apiError{400, "INVALID_FIELD", positioned(ps.src, opTok.pos, "invalid operator on boolean field")}
	}
	return c, nil
}

func kindName(k kind) string {
	switch k {
	case kID:
		return "id"
	case kInt:
		return "integer"
	case kDouble:
		return "double"
	case kBool:
		return "boolean"
	case kDate:
		return "date"
	case kDateTime:
		return "dateTime"
	case kAddress:
		return "address"
	}
	return "string"
}

func parseLiteral(ps *parser, f *field) (literal, *apiError) {
	t := ps.next()
	if t.kind == tIdent && strings.EqualFold(t.text, "null") {
		return literal{null: true}, nil
	}
	if t.kind == tPunct && t.text == ":" {
		return literal{}, unsupported("MALFORMED_QUERY", "a bind variable")
	}
	typeErr := func() *apiError {
		quoted := "should not be enclosed in quotes"
		if f.kind == kString || f.kind == kID {
			quoted = "should be enclosed in quotes"
		}
		return &apiError{400, "INVALID_FIELD", positioned(ps.src, t.pos, "value of filter criterion for field '"+f.name+
			"' must be of type "+kindName(f.kind)+" and "+quoted)}
	}
	switch f.kind {
	case kString:
		if t.kind != tString {
			return literal{}, typeErr()
		}
		return literal{s: t.text}, nil
	case kID:
		if t.kind != tString {
			return literal{}, typeErr()
		}
		if t.text != "" && !validIDFormat(t.text) {
			return literal{}, &apiError{400, "INVALID_QUERY_FILTER_OPERATOR", positioned(ps.src, t.pos, "invalid ID field: "+t.text)}
		}
		return literal{s: to18(t.text)}, nil
	case kInt, kDouble:
		if t.kind != tNumber {
			return literal{}, typeErr()
		}
		v, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			return literal{}, typeErr()
		}
		return literal{f: v}, nil
	case kBool:
		if t.kind == tIdent && (strings.EqualFold(t.text, "true") || strings.EqualFold(t.text, "false")) {
			return literal{b: strings.EqualFold(t.text, "true")}, nil
		}
		return literal{}, typeErr()
	case kDate:
		if t.kind == tDate {
			if _, err := time.Parse("2006-01-02", t.text); err == nil {
				return literal{s: t.text}, nil
			}
		}
		if t.kind == tIdent {
			return literal{}, unsupported("MALFORMED_QUERY", "the date literal "+t.text)
		}
		return literal{}, typeErr()
	case kDateTime:
		if t.kind == tDateTime {
			for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05.000Z0700"} {
				if tm, err := time.Parse(layout, t.text); err == nil {
					return literal{t: tm}, nil
				}
			}
		}
		if t.kind == tIdent {
			return literal{}, unsupported("MALFORMED_QUERY", "the date literal "+t.text)
		}
		return literal{}, typeErr()
	}
	return literal{}, typeErr()
}

// likeRegexp turns a SOQL LIKE pattern (% any run, _ one character, \ to
// escape) into a case-insensitive regular expression.
func likeRegexp(p string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("(?is)^")
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '%':
			b.WriteString(".*")
		case '_':
			b.WriteString(".")
		case '\\':
			if i+1 < len(p) {
				i++
				b.WriteString(regexp.QuoteMeta(string(p[i])))
			}
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

func (c *cmpCond) eval(g *gctx, i int) bool {
	v := g.value(c.o, c.fk, i)
	switch c.op {
	case "IN":
		for _, l := range c.vals {
			if compare(c.f.kind, v, l) == 0 {
				return true
			}
		}
		return false
	case "NOTIN":
		for _, l := range c.vals {
			if compare(c.f.kind, v, l) == 0 {
				return false
			}
		}
		return true
	case "LIKE":
		s, ok := v.(string)
		return ok && c.like.MatchString(s)
	}
	l := c.vals[0]
	if l.null || v == nil {
		switch c.op {
		case "=":
			return l.null && v == nil
		case "!=":
			return l.null != (v == nil)
		}
		return false
	}
	r := compare(c.f.kind, v, l)
	switch c.op {
	case "=":
		return r == 0
	case "!=":
		return r != 0
	case "<":
		return r < 0
	case "<=":
		return r <= 0
	case ">":
		return r > 0
	case ">=":
		return r >= 0
	}
	return false
}

// compare orders a field value against a literal: -1, 0, 1, or 2 when they
// cannot be compared (null on either side).
func compare(k kind, v any, l literal) int {
	if l.null || v == nil {
		if l.null && v == nil {
			return 0
		}
		return 2
	}
	switch k {
	case kString, kID:
		s, _ := v.(string)
		return cmpFold(s, l.s)
	case kInt, kDouble:
		return cmpFloat(toFloat(v), l.f)
	case kBool:
		b, _ := v.(bool)
		if b == l.b {
			return 0
		}
		if !b {
			return -1
		}
		return 1
	case kDate:
		s, _ := v.(string)
		return strings.Compare(s, l.s)
	case kDateTime:
		t, _ := v.(time.Time)
		return t.Compare(l.t)
	}
	return 2
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpFold(a, b string) int {
	return strings.Compare(strings.ToLower(a), strings.ToLower(b))
}

// compareValues orders two field values of the same kind for ORDER BY;
// nils are handled by the caller.
func compareValues(k kind, a, b any) int {
	switch k {
	case kString, kID, kDate:
		x, _ := a.(string)
		y, _ := b.(string)
		return cmpFold(x, y)
	case kInt, kDouble:
		return cmpFloat(toFloat(a), toFloat(b))
	case kBool:
		x, _ := a.(bool)
		y, _ := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case kDateTime:
		x, _ := a.(time.Time)
		y, _ := b.(time.Time)
		return x.Compare(y)
	}
	return 0
}
