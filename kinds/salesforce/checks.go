package salesforce

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Checks that need more than the generic parameter types, run before
// anything is sent (see Client.check).

// suffixAlphabet maps a five-bit mask to the character of an 18-character
// id's case-safety suffix.
const suffixAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"

// canonicalID returns id in its case-sensitive 15-character form: a
// 15-character id as it is, an 18-character id with the case of its letters
// restored from its three-character suffix (so that ids that went through
// a case-insensitive system still name the right record). ok is false when
// id is not a Salesforce id: 15 or 18 ASCII letters and digits, with a
// well-formed suffix.
func canonicalID(id string) (string, bool) {
	if len(id) != 15 && len(id) != 18 {
		return "", false
	}
	for i := 0; i < len(id); i++ {
		if !isAlnum(id[i]) {
			return "", false
		}
	}
	if len(id) == 15 {
		return id, true
	}
	b := []byte(id[:15])
	for block := range 3 {
		mask := strings.IndexByte(suffixAlphabet, upper(id[15+block]))
		if mask < 0 {
			return "", false
		}
		for j := range 5 {
			k := block*5 + j
			if mask&(1<<j) != 0 {
				b[k] = upper(b[k])
			} else {
				b[k] = lower(b[k])
			}
		}
	}
	return string(b), true
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c - 'A' + 'a'
	}
	return c
}

// checkID reports why id cannot be a record of o, or "" when it can.
func checkID(o sobject, id string) string {
	canon, ok := canonicalID(id)
	if !ok {
		return fmt.Sprintf("%q is not a Salesforce record id (15 or 18 letters and digits)", id)
	}
	if canon[:3] != o.prefix {
		msg := fmt.Sprintf("id %q has the key prefix %s", id, canon[:3])
		for _, other := range sobjects() {
			if other.prefix == canon[:3] && other.name != "" {
				msg += fmt.Sprintf(" (%s, the %s entity)", other.name, other.entity)
			}
		}
		return msg + fmt.Sprintf(", but %s ids start with %s (%s)", o.entity, o.prefix, o.name)
	}
	return ""
}

// A small scanner over SOQL and SOSL text: it skips string literals
// ('...' with backslash escapes) and SOSL search terms ({...} with
// backslash escapes), tracks parentheses, and yields words.

type scanner struct {
	src   string
	pos   int
	depth int
}

// word returns the next word at any depth (letters, digits, _ and . for
// paths), or "" at the end. Punctuation other than parentheses is skipped.
func (s *scanner) word() string {
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch {
		case c == '\'' || c == '{':
			s.skipLiteral(c)
		case c == '(':
			s.depth++
			s.pos++
		case c == ')':
			s.depth--
			s.pos++
		case isAlnum(c) || c == '_':
			start := s.pos
			for s.pos < len(s.src) && (isAlnum(s.src[s.pos]) || s.src[s.pos] == '_' || s.src[s.pos] == '.') {
				s.pos++
			}
			return s.src[start:s.pos]
		default:
			s.pos++
		}
	}
	return ""
}

// skipLiteral skips a literal opened by open ('\” or '{').
func (s *scanner) skipLiteral(open byte) {
	closing := open
	if open == '{' {
		closing = '}'
	}
	s.pos++
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		s.pos++
		if c == '\\' {
			s.pos++
			continue
		}
		if c == closing {
			return
		}
	}
}

// skipParens skips a parenthesized group that starts at the current
// position, nested groups and literals included.
func (s *scanner) skipParens() {
	depth := 0
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch c {
		case '\'', '{':
			s.skipLiteral(c)
			continue
		case '(':
			depth++
		case ')':
			depth--
		}
		s.pos++
		if depth == 0 {
			return
		}
	}
}

// skipSpace skips white space and reports the next byte (0 at the end).
func (s *scanner) skipSpace() byte {
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return s.src[s.pos]
		}
	}
	return 0
}

// soqlFrom returns the object of the outermost FROM clause of a SOQL query
// (sub-queries in the SELECT list and semi-joins in WHERE are nested in
// parentheses and do not count), or "" when there is none.
func soqlFrom(q string) string {
	s := &scanner{src: q}
	for {
		w := s.word()
		if w == "" {
			return ""
		}
		if s.depth == 0 && strings.EqualFold(w, "FROM") {
			return s.word()
		}
	}
}

// soslReturning returns the objects named in the RETURNING clause of a SOSL
// query, and whether the query has one.
func soslReturning(q string) ([]string, bool) {
	s := &scanner{src: q}
	for {
		w := s.word()
		if w == "" {
			return nil, false
		}
		if s.depth == 0 && strings.EqualFold(w, "RETURNING") {
			break
		}
	}
	var objs []string
	for {
		if s.skipSpace() == 0 {
			break
		}
		name := s.word()
		if name == "" {
			break
		}
		objs = append(objs, name)
		if s.skipSpace() == '(' {
			s.skipParens()
		}
		if s.skipSpace() != ',' {
			break
		}
		s.pos++
	}
	return objs, true
}

// checkQuery reports why q cannot list the records of o, or "".
func checkQuery(o sobject, q string) string {
	from := soqlFrom(q)
	if from == "" {
		return "the SOQL query has no FROM clause; " + o.entity + " lists take SELECT <fields> FROM " + o.name + " ..."
	}
	if !strings.EqualFold(from, o.name) {
		return fmt.Sprintf("the query reads %s, not %s: %s lists take SELECT <fields> FROM %s ...; use the query entity for other objects",
			from, o.name, o.entity, o.name)
	}
	return ""
}

// checkSearch reports why q cannot search the records of o, or "".
func checkSearch(o sobject, q string) string {
	objs, ok := soslReturning(q)
	if !ok || len(objs) == 0 {
		return "the SOSL query needs RETURNING " + o.name + "(<fields>), so that only " + o.entity + " come back"
	}
	for _, name := range objs {
		if !strings.EqualFold(name, o.name) {
			return fmt.Sprintf("the SOSL query returns %s: %s searches return only %s (RETURNING %s(<fields>))", name, o.entity, o.name, o.name)
		}
	}
	return ""
}

// nextRecordsPath matches the path of a nextRecordsUrl (a query locator);
// a base-URL path prefix is allowed before /services.
var nextRecordsPath = regexp.MustCompile(`^(/[^?#]*)?/services/data/v[0-9]+\.[0-9]+/query(All)?/[A-Za-z0-9_-]+$`)

// checkNextRecordsURL reports why raw is not a nextRecordsUrl, or "". The
// engine checks that it stays on the instance.
func checkNextRecordsURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.RawQuery != "" || u.Fragment != "" || !nextRecordsPath.MatchString(u.Path) {
		return "must be the nextRecordsUrl of a previous page (/services/data/vNN.0/query/<locator>)"
	}
	return ""
}
