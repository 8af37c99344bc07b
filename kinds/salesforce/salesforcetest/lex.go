package salesforcetest

import (
	"strconv"
	"strings"
	"unicode"
)

// A small lexer shared by the SOQL and SOSL parsers.

type tokKind uint8

const (
	tEOF tokKind = iota
	tIdent
	tString
	tNumber
	tDate
	tDateTime
	tOp    // = != <> < <= > >=
	tPunct // ( ) , :
)

type token struct {
	kind tokKind
	text string // identifier / operator text, or the decoded string literal
	pos  int    // byte offset in the statement
}

// apiError is a Salesforce error: HTTP status, errorCode and message.
type apiError struct {
	status int
	code   string
	msg    string
}

func (e *apiError) Error() string { return e.code + ": " + e.msg }

func lex(src string) ([]token, *apiError) {
	var toks []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '\'':
			var b strings.Builder
			j := i + 1
			closed := false
			for j < len(src) {
				ch := src[j]
				if ch == '\\' && j+1 < len(src) {
					switch src[j+1] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					case 'r':
						b.WriteByte('\r')
					default:
						b.WriteByte(src[j+1])
					}
					j += 2
					continue
				}
				if ch == '\'' {
					closed = true
					break
				}
				b.WriteByte(ch)
				j++
			}
			if !closed {
				return nil, malformed(src, i, "line 1:"+strconv.Itoa(i)+" mismatched character '<EOF>' expecting '''")
			}
			toks = append(toks, token{tString, b.String(), i})
			i = j + 1
		case c >= '0' && c <= '9' || (c == '-' || c == '+') && i+1 < len(src) && isDigit(src[i+1]) && prevAllowsSign(toks):
			j := i + 1
			for j < len(src) && (isDigit(src[j]) || src[j] == '.') {
				j++
			}
			// A date or datetime literal: 2024-01-31 or 2024-01-31T10:00:00Z.
			if j-i == 4 && j < len(src) && src[j] == '-' {
				k := j
				for k < len(src) && (isDigit(src[k]) || strings.IndexByte("-T:.Z+", src[k]) >= 0) {
					k++
				}
				text := src[i:k]
				if strings.Contains(text, "T") {
					toks = append(toks, token{tDateTime, text, i})
				} else {
					toks = append(toks, token{tDate, text, i})
				}
				i = k
				continue
			}
			toks = append(toks, token{tNumber, src[i:j], i})
			i = j
		case isIdentStart(c):
			j := i + 1
			for j < len(src) && (isIdentPart(src[j])) {
				j++
			}
			toks = append(toks, token{tIdent, src[i:j], i})
			i = j
		case c == '=':
			toks = append(toks, token{tOp, "=", i})
			i++
		case c == '!' && i+1 < len(src) && src[i+1] == '=':
			toks = append(toks, token{tOp, "!=", i})
			i += 2
		case c == '<' || c == '>':
			op := string(c)
			if i+1 < len(src) && (src[i+1] == '=' || (c == '<' && src[i+1] == '>')) {
				op += string(src[i+1])
			}
			toks = append(toks, token{tOp, op, i})
			i += len(op)
		case c == '(' || c == ')' || c == ',' || c == ':':
			toks = append(toks, token{tPunct, string(c), i})
			i++
		default:
			r := []rune(src[i:])[0]
			if unicode.IsSpace(r) {
				i += len(string(r))
				continue
			}
			return nil, malformed(src, i, "line 1:"+strconv.Itoa(i)+" no viable alternative at character '"+string(r)+"'")
		}
	}
	toks = append(toks, token{tEOF, "<EOF>", len(src)})
	return toks, nil
}

// prevAllowsSign reports whether a sign may start a number here (after an
// operator, a comma or an opening parenthesis).
func prevAllowsSign(toks []token) bool {
	if len(toks) == 0 {
		return false
	}
	t := toks[len(toks)-1]
	return t.kind == tOp || t.kind == tPunct && t.text != ")"
}

func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isIdentPart(c byte) bool  { return isIdentStart(c) || isDigit(c) || c == '.' }

// malformed builds a MALFORMED_QUERY error the way Salesforce words it: the
// line of the statement, a caret under the position, the row and column,
// and the detail.
func malformed(src string, pos int, detail string) *apiError {
	return &apiError{400, "MALFORMED_QUERY", positioned(src, pos, detail)}
}

func positioned(src string, pos int, detail string) string {
	if pos > len(src) {
		pos = len(src)
	}
	row := 1 + strings.Count(src[:pos], "\n")
	lineStart := strings.LastIndexByte(src[:pos], '\n') + 1
	lineEnd := strings.IndexByte(src[pos:], '\n')
	if lineEnd < 0 {
		lineEnd = len(src)
	} else {
		lineEnd += pos
	}
	col := pos - lineStart + 1
	return "\n" + src[lineStart:lineEnd] + "\n" + strings.Repeat(" ", col-1) + "^\nERROR at Row:" +
		strconv.Itoa(row) + ":Column:" + strconv.Itoa(col) + "\n" + detail
}

// parser walks a token slice.
type parser struct {
	src  string
	toks []token
	p    int
}

func (ps *parser) peek() token { return ps.toks[ps.p] }
func (ps *parser) next() token {
	t := ps.toks[ps.p]
	if t.kind != tEOF {
		ps.p++
	}
	return t
}

// isKw reports whether the next token is the keyword kw (case-insensitive).
func (ps *parser) isKw(kw string) bool {
	t := ps.peek()
	return t.kind == tIdent && strings.EqualFold(t.text, kw)
}

func (ps *parser) acceptKw(kw string) bool {
	if ps.isKw(kw) {
		ps.p++
		return true
	}
	return false
}

func (ps *parser) isPunct(s string) bool {
	t := ps.peek()
	return t.kind == tPunct && t.text == s
}

func (ps *parser) unexpected() *apiError {
	t := ps.peek()
	return malformed(ps.src, t.pos, "unexpected token: "+tokenText(t))
}

func tokenText(t token) string {
	if t.kind == tString {
		return "'" + t.text + "'"
	}
	return t.text
}

func (ps *parser) expectKw(kw string) *apiError {
	if !ps.acceptKw(kw) {
		return ps.unexpected()
	}
	return nil
}

func (ps *parser) expectPunct(s string) *apiError {
	if !ps.isPunct(s) {
		return ps.unexpected()
	}
	ps.p++
	return nil
}

// unsupported is the error for valid SOQL/SOSL the fake does not implement.
func unsupported(code, what string) *apiError {
	return &apiError{400, code, "salesforcetest: " + what + " is not supported by the fake"}
}
