package zendesktest

import (
	"strconv"
	"time"
)

// jw appends JSON to a byte slice without reflection. Records are written
// field by field straight into the page buffer, so a page of 100 tickets
// costs one buffer and no per-record allocations.
//
// comma records whether the next key or element needs a separating comma.
type jw struct {
	b     []byte
	comma bool
}

const timeLayout = "2006-01-02T15:04:05Z"

func (w *jw) key(k string) {
	if w.comma {
		w.b = append(w.b, ',')
	}
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
}

func (w *jw) sep() {
	if w.comma {
		w.b = append(w.b, ',')
	}
	w.comma = true
}

// Int writes "k":v.
func (w *jw) Int(k string, v int64) {
	w.key(k)
	w.b = strconv.AppendInt(w.b, v, 10)
	w.comma = true
}

// IntOr writes "k":v when ok, else "k":null.
func (w *jw) IntOr(k string, v int64, ok bool) {
	if !ok {
		w.Null(k)
		return
	}
	w.Int(k, v)
}

// Str writes "k":"v" with JSON escaping.
func (w *jw) Str(k, v string) {
	w.key(k)
	w.b = appendString(w.b, v)
	w.comma = true
}

// StrOr writes "k":"v" when ok, else "k":null.
func (w *jw) StrOr(k, v string, ok bool) {
	if !ok {
		w.Null(k)
		return
	}
	w.Str(k, v)
}

// Bool writes "k":true|false.
func (w *jw) Bool(k string, v bool) {
	w.key(k)
	w.b = strconv.AppendBool(w.b, v)
	w.comma = true
}

// Null writes "k":null.
func (w *jw) Null(k string) {
	w.key(k)
	w.b = append(w.b, "null"...)
	w.comma = true
}

// Raw writes "k":raw where raw is already-encoded JSON.
func (w *jw) Raw(k, raw string) {
	w.key(k)
	w.b = append(w.b, raw...)
	w.comma = true
}

// Time writes "k":"2006-01-02T15:04:05Z" for the Unix time sec.
func (w *jw) Time(k string, sec int64) {
	w.key(k)
	w.b = appendTime(w.b, sec)
	w.comma = true
}

// TimeOr writes the time when ok, else null.
func (w *jw) TimeOr(k string, sec int64, ok bool) {
	if !ok {
		w.Null(k)
		return
	}
	w.Time(k, sec)
}

// URL writes "k":"<base><path><id><suffix>".
func (w *jw) URL(k, base, path string, id int64, suffix string) {
	w.key(k)
	w.b = appendURL(w.b, base, path, id, suffix)
	w.comma = true
}

// Obj opens "k":{ .
func (w *jw) Obj(k string) {
	w.key(k)
	w.b = append(w.b, '{')
	w.comma = false
}

// ObjElem opens an object as an array element.
func (w *jw) ObjElem() {
	w.sep()
	w.b = append(w.b, '{')
	w.comma = false
}

// End closes an object.
func (w *jw) End() {
	w.b = append(w.b, '}')
	w.comma = true
}

// Arr opens "k":[ .
func (w *jw) Arr(k string) {
	w.key(k)
	w.b = append(w.b, '[')
	w.comma = false
}

// ArrEnd closes an array.
func (w *jw) ArrEnd() {
	w.b = append(w.b, ']')
	w.comma = true
}

// IntElem writes an integer array element.
func (w *jw) IntElem(v int64) {
	w.sep()
	w.b = strconv.AppendInt(w.b, v, 10)
}

// StrElem writes a string array element.
func (w *jw) StrElem(v string) {
	w.sep()
	w.b = appendString(w.b, v)
}

// RawElem writes an already-encoded array element.
func (w *jw) RawElem(raw string) {
	w.sep()
	w.b = append(w.b, raw...)
}

// EmptyArr writes "k":[].
func (w *jw) EmptyArr(k string) { w.Raw(k, "[]") }

func appendTime(b []byte, sec int64) []byte {
	b = append(b, '"')
	b = time.Unix(sec, 0).UTC().AppendFormat(b, timeLayout)
	return append(b, '"')
}

func appendURL(b []byte, base, path string, id int64, suffix string) []byte {
	b = append(b, '"')
	b = appendEscaped(b, base)
	b = appendEscaped(b, path)
	b = strconv.AppendInt(b, id, 10)
	b = appendEscaped(b, suffix)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. Like Zendesk (Rails), it escapes
// <, > and & as \u003c, \u003e and \u0026, so clients meet unicode escapes in
// every html_body.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendEscaped(b, s)
	return append(b, '"')
}

func appendEscaped(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
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
	return append(b, s[start:]...)
}
