package githubtest

import (
	"strconv"
	"time"
)

// jw appends JSON to a byte slice. Every value is followed by a comma, which
// the closing bracket of its container replaces; this keeps the record
// builders short and cheap, without reflection.
type jw struct {
	b []byte
}

func (w *jw) key(k string) {
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
}

func (w *jw) obj(k string) {
	if k != "" {
		w.key(k)
	}
	w.b = append(w.b, '{')
}

func (w *jw) arr(k string) {
	if k != "" {
		w.key(k)
	}
	w.b = append(w.b, '[')
}

func (w *jw) end(c byte) {
	if n := len(w.b); n > 0 && w.b[n-1] == ',' {
		w.b[n-1] = c
	} else {
		w.b = append(w.b, c)
	}
	w.b = append(w.b, ',')
}

func (w *jw) endObj() { w.end('}') }
func (w *jw) endArr() { w.end(']') }

// bytes returns the document without the trailing comma.
func (w *jw) bytes() []byte {
	if n := len(w.b); n > 0 && w.b[n-1] == ',' {
		return w.b[:n-1]
	}
	return w.b
}

func (w *jw) str(k, v string) {
	if k != "" {
		w.key(k)
	}
	w.b = appendQuoted(w.b, v)
	w.b = append(w.b, ',')
}

// strOrNull writes v, or null when v is empty.
func (w *jw) strOrNull(k, v string) {
	if v == "" {
		w.null(k)
		return
	}
	w.str(k, v)
}

func (w *jw) int(k string, v int64) {
	if k != "" {
		w.key(k)
	}
	w.b = strconv.AppendInt(w.b, v, 10)
	w.b = append(w.b, ',')
}

func (w *jw) float(k string, v float64) {
	w.key(k)
	w.b = strconv.AppendFloat(w.b, v, 'f', -1, 64)
	w.b = append(w.b, ',')
}

func (w *jw) bool(k string, v bool) {
	w.key(k)
	w.b = strconv.AppendBool(w.b, v)
	w.b = append(w.b, ',')
}

func (w *jw) null(k string) {
	w.key(k)
	w.b = append(w.b, "null,"...)
}

// time writes t as GitHub does: RFC 3339 in UTC with a Z suffix.
func (w *jw) time(k string, t time.Time) {
	w.key(k)
	w.b = append(w.b, '"')
	w.b = t.UTC().AppendFormat(w.b, "2006-01-02T15:04:05Z")
	w.b = append(w.b, '"', ',')
}

const hexDigits = "0123456789abcdef"

// appendQuoted appends s as a JSON string.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
