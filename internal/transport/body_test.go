package transport

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
)

// endlessReader never ends.
type endlessReader struct{}

func (endlessReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// trickle returns at most n bytes a Read, as a network connection does.
type trickle struct {
	r io.Reader
	n int
}

func (t trickle) Read(p []byte) (int, error) { return t.r.Read(p[:min(len(p), t.n)]) }

func TestReadBody(t *testing.T) {
	const limit = 1 << 20
	body := func(n int) []byte { return bytes.Repeat([]byte("0123456789"), n/10+1)[:n] }
	for _, tc := range []struct {
		name    string
		n       int
		known   bool
		tooBig  bool
		trickle int
	}{
		{name: "empty", n: 0},
		{name: "empty, known", n: 0, known: true},
		{name: "small", n: 1234},
		{name: "small, known", n: 1234, known: true},
		{name: "past the chunks", n: 700 << 10, trickle: 4096},
		{name: "exactly the limit", n: limit},
		{name: "exactly the limit, known", n: limit, known: true},
		{name: "one past the limit", n: limit + 1, tooBig: true},
		{name: "one past the limit, known", n: limit + 1, known: true, tooBig: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := body(tc.n)
			var r io.Reader = bytes.NewReader(want)
			if tc.trickle > 0 {
				r = trickle{r, tc.trickle}
			}
			size := int64(-1)
			if tc.known {
				size = int64(tc.n)
			}
			got, err := ReadBody(r, size, limit)
			if tc.tooBig {
				if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "1 MiB") {
					t.Fatalf("error = %v, want ErrTooLarge naming 1 MiB", err)
				}
				return
			}
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("got %d bytes, %v; want %d bytes", len(got), err, len(want))
			}
		})
	}
}

func TestReadBodyPassesReadErrors(t *testing.T) {
	_, err := ReadBody(io.MultiReader(strings.NewReader("abc"), errReader{io.ErrUnexpectedEOF}), -1, 100)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("error = %v", err)
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// Reading an endless body, or one just under the limit, allocates at most
// 1.25 × the limit in all (so the heap never holds more), where doubling a
// buffer held up to 3 × the limit on the way.
func TestReadBodyMemory(t *testing.T) {
	const limit = 8 << 20
	measure := func(read func()) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		read()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	under := bytes.Repeat([]byte{'y'}, limit-1)
	for _, tc := range []struct {
		name string
		read func() error
	}{
		{"endless", func() error {
			_, err := ReadBody(trickle{endlessReader{}, 32 << 10}, -1, limit)
			if !errors.Is(err, ErrTooLarge) {
				return err
			}
			return nil
		}},
		{"just under the limit, length unknown", func() error {
			_, err := ReadBody(trickle{bytes.NewReader(under), 32 << 10}, -1, limit)
			return err
		}},
		{"just under the limit, length known", func() error {
			_, err := ReadBody(bytes.NewReader(under), int64(len(under)), limit)
			return err
		}},
	} {
		var err error
		alloc := measure(func() { err = tc.read() })
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		ratio := float64(alloc) / limit
		t.Logf("%s: allocated %.2f MiB for an %d MiB limit (%.2f×)", tc.name, float64(alloc)/(1<<20), limit>>20, ratio)
		if ratio > 1.25 {
			t.Errorf("%s: allocated %.2f× the limit, want at most 1.25×", tc.name, ratio)
		}
	}
}
