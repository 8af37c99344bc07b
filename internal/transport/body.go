package transport

import (
	"errors"
	"fmt"
	"io"
)

// ErrTooLarge is returned by ReadBody for a body longer than its limit.
var ErrTooLarge = errors.New("the response is too large")

// TooLarge returns ErrTooLarge with the limit in its message.
func TooLarge(limit int64) error {
	return fmt.Errorf("%w: larger than %s", ErrTooLarge, Bytes(limit))
}

// Bytes formats a byte count for messages: "64 MiB", "1500 bytes".
func Bytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// firstChunk is the first buffer of a body of unknown length.
const firstChunk = 64 << 10

// ReadBody reads r to its end and returns its bytes, or ErrTooLarge (see
// TooLarge) as soon as it has more than limit bytes, or the read error.
// size is the body's declared length (-1: unknown); a declared length
// above limit fails before anything is read.
//
// It never holds much more than limit: a body of known length is read into
// one buffer of that length; a body of unknown length is read into chunks
// of doubling size until they hold a fifth of limit, and then into one
// buffer of limit+1 bytes. So the memory a body costs while it is read is
// at most 1.2 × limit (an endless body included), and the bytes returned
// are one contiguous slice.
func ReadBody(r io.Reader, size, limit int64) ([]byte, error) {
	if limit <= 0 {
		return nil, TooLarge(limit)
	}
	if size > limit {
		return nil, TooLarge(limit)
	}
	small := max(limit/5, firstChunk) // chunks past this: one buffer of limit+1
	first := int64(firstChunk)
	if size >= 0 {
		first = size + 1 // room to see EOF without another buffer
	}
	first = min(first, limit+1)
	var done [][]byte // full chunks, in order
	var held int64    // bytes in done
	cur := make([]byte, 0, first)
	for {
		if len(cur) == cap(cur) {
			n := held + int64(len(cur))
			if n > limit {
				return nil, TooLarge(limit)
			}
			next := min(2*int64(cap(cur)), limit+1-n)
			if n+next > small {
				big := make([]byte, 0, limit+1)
				for _, c := range done {
					big = append(big, c...)
				}
				big = append(big, cur...)
				done, held, cur = nil, 0, big
			} else {
				done, held = append(done, cur), n
				cur = make([]byte, 0, next)
			}
		}
		m, err := r.Read(cur[len(cur):cap(cur)])
		cur = cur[:len(cur)+m]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	n := held + int64(len(cur))
	if n > limit {
		return nil, TooLarge(limit)
	}
	if len(done) == 0 {
		return cur, nil
	}
	out := make([]byte, 0, n)
	for _, c := range done {
		out = append(out, c...)
	}
	return append(out, cur...), nil
}
