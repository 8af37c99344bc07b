package download

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrInvalidRange is wrapped by the errors of ParseRange.
var ErrInvalidRange = errors.New("invalid range")

// Range is one byte range of a file, as in an HTTP Range header.
//
// The three forms of the contract's range_header are:
//
//	bytes=<first>-<last>  {Start: first, End: last}
//	bytes=<first>-        {Start: first, End: -1}
//	bytes=-<n>            {Start: -1, End: -1, Suffix: n} (the last n bytes)
type Range struct {
	Start  int64
	End    int64
	Suffix int64
}

// ParseRange parses a range_header value. Only single ranges in bytes are
// accepted; anything else is an error wrapping ErrInvalidRange.
func ParseRange(s string) (Range, error) {
	bad := func(why string) (Range, error) {
		return Range{}, fmt.Errorf("%w: %q: %s (want bytes=<first>-<last>, bytes=<first>- or bytes=-<n>)", ErrInvalidRange, s, why)
	}
	spec, ok := strings.CutPrefix(strings.TrimSpace(s), "bytes=")
	if !ok {
		return bad("unit must be bytes")
	}
	if strings.Contains(spec, ",") {
		return bad("only one range is supported")
	}
	first, last, ok := strings.Cut(spec, "-")
	if !ok {
		return bad("missing '-'")
	}
	first, last = strings.TrimSpace(first), strings.TrimSpace(last)
	num := func(x string) (int64, bool) {
		if x == "" || strings.IndexFunc(x, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
			return 0, false
		}
		n, err := strconv.ParseInt(x, 10, 64)
		return n, err == nil
	}
	if first == "" {
		n, ok := num(last)
		if !ok || n == 0 {
			return bad("suffix length must be a positive integer")
		}
		return Range{Start: -1, End: -1, Suffix: n}, nil
	}
	a, ok := num(first)
	if !ok {
		return bad("first byte must be a non-negative integer")
	}
	if last == "" {
		return Range{Start: a, End: -1}, nil
	}
	b, ok := num(last)
	if !ok {
		return bad("last byte must be a non-negative integer")
	}
	if b < a {
		return bad("last byte is before first byte")
	}
	return Range{Start: a, End: b}, nil
}

// String renders the range as a Range header value.
func (r Range) String() string {
	switch {
	case r.Start < 0:
		return "bytes=-" + strconv.FormatInt(r.Suffix, 10)
	case r.End < 0:
		return "bytes=" + strconv.FormatInt(r.Start, 10) + "-"
	}
	return "bytes=" + strconv.FormatInt(r.Start, 10) + "-" + strconv.FormatInt(r.End, 10)
}

// Served is the byte range a server actually sent, with the file's size.
type Served struct {
	First, Last int64 // inclusive
	// Size is the whole file's size, -1 when the server did not say.
	Size int64
}

// parseContentRange parses "bytes a-b/size" (size may be "*").
func parseContentRange(h string) (Served, bool) {
	spec, ok := strings.CutPrefix(strings.TrimSpace(h), "bytes ")
	if !ok {
		return Served{}, false
	}
	rng, size, ok := strings.Cut(spec, "/")
	if !ok {
		return Served{}, false
	}
	a, b, ok := strings.Cut(rng, "-")
	if !ok {
		return Served{}, false
	}
	first, err1 := strconv.ParseInt(a, 10, 64)
	last, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil || first < 0 || last < first {
		return Served{}, false
	}
	total := int64(-1)
	if size != "*" {
		n, err := strconv.ParseInt(size, 10, 64)
		if err != nil || n <= last {
			return Served{}, false
		}
		total = n
	}
	return Served{First: first, Last: last, Size: total}, true
}
