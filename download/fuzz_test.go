package download_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary/download"
)

// FuzzParseRange feeds random strings to download.ParseRange: it never
// panics, every refusal wraps ErrInvalidRange, and every accepted range is
// well formed and survives a round trip through String unchanged.
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"bytes=0-1023", "bytes=100-", "bytes=-500", " bytes= 5 - 10 ", "bytes=0-0",
		"bytes=9223372036854775807-", "bytes=-9223372036854775808", "bytes=5-4", "bytes=1-2,4-5", "items=0-1", "bytes=-0", "bytes=+1-2", "bytes=0x10-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := download.ParseRange(s)
		if err != nil {
			if !errors.Is(err, download.ErrInvalidRange) {
				t.Fatalf("ParseRange(%q): %v does not wrap ErrInvalidRange", s, err)
			}
			if r != (download.Range{}) {
				t.Fatalf("ParseRange(%q) refused but returned %+v", s, r)
			}
			return
		}
		if !strings.HasPrefix(strings.TrimSpace(s), "bytes=") {
			t.Fatalf("ParseRange(%q) accepted a unit other than bytes: %+v", s, r)
		}
		switch {
		case r.Start == -1:
			if r.End != -1 || r.Suffix <= 0 {
				t.Fatalf("ParseRange(%q) = %+v: a suffix range needs End -1 and Suffix > 0", s, r)
			}
		case r.Start >= 0:
			if r.Suffix != 0 || (r.End != -1 && r.End < r.Start) {
				t.Fatalf("ParseRange(%q) = %+v: not a well-formed range", s, r)
			}
		default:
			t.Fatalf("ParseRange(%q) = %+v: negative start", s, r)
		}
		str := r.String()
		back, err := download.ParseRange(str)
		if err != nil {
			t.Fatalf("ParseRange(%q) = %+v, whose String %q is refused: %v", s, r, str, err)
		}
		if back != r {
			t.Fatalf("ParseRange(%q) = %+v, String %q parses as %+v", s, r, str, back)
		}
		if back.String() != str {
			t.Fatalf("String is not canonical: %q then %q", str, back.String())
		}
	})
}
