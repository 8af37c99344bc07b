// Package download streams file content: byte ranges, a resumable reader
// that continues after a dropped connection, and the contract's "stream of
// byte chunks" as an iterator.
package download

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// ErrChanged is returned when a download cannot be resumed without risking
// a file spliced from two versions: the server answered a resume request
// with the whole file (its validator changed, or it ignores ranges), or it
// gave no validator to resume against.
var ErrChanged = errors.New("download: file changed or cannot be resumed safely")

// ErrBadResponse is returned when the server's answer does not fit the
// request (a wrong Content-Range, a range that is not the one asked for).
var ErrBadResponse = errors.New("download: unexpected response")

// Fetch performs one request for the file's bytes with the given extra
// headers (Range, If-Range) and returns a 2xx response; it turns any other
// status into an error itself.
type Fetch func(ctx context.Context, header http.Header) (*http.Response, error)

// Options tune a download.
type Options struct {
	// MaxResumes bounds consecutive resume attempts that make no progress.
	// Zero means 3.
	MaxResumes int
}

// Stream is a file being downloaded: an io.ReadCloser with what the server
// said about the content. Close it when done.
type Stream struct {
	// ContentType is the media type the server gave.
	ContentType string
	// FileName is the name from Content-Disposition, when given.
	FileName string
	// Size is the whole file's size in bytes, -1 when unknown.
	Size int64
	// Range is the byte range this stream delivers, nil for the whole file.
	Range *Served
	// Validator is the file's strong ETag, or else its Last-Modified date:
	// what a later ranged request names in If-Range.
	Validator string

	ctx       context.Context
	fetch     Fetch
	opts      Options
	body      io.ReadCloser
	pos       int64 // absolute offset of the next byte to deliver
	end       int64 // absolute offset of the last byte to deliver, -1 unknown
	validator string
	skip      int64 // bytes to discard from body before delivering (server ignored Range)
	failures  int
	closed    bool
	err       error
}

// Open starts a download of the range r (nil: the whole file) through fetch.
func Open(ctx context.Context, fetch Fetch, r *Range, opts Options) (*Stream, error) {
	if opts.MaxResumes <= 0 {
		opts.MaxResumes = 3
	}
	h := http.Header{}
	if r != nil {
		h.Set("Range", r.String())
	}
	resp, err := fetch(ctx, h)
	if err != nil {
		return nil, err
	}
	s := &Stream{ctx: ctx, fetch: fetch, opts: opts, body: resp.Body, Size: -1, end: -1}
	s.ContentType = resp.Header.Get("Content-Type")
	if cd := resp.Header.Get("Content-Disposition"); cd != "" {
		if _, params, err := mime.ParseMediaType(cd); err == nil {
			s.FileName = params["filename"]
		}
	}
	s.validator = validatorOf(resp.Header)
	s.Validator = s.validator
	switch {
	case resp.StatusCode == http.StatusPartialContent:
		sv, ok := parseContentRange(resp.Header.Get("Content-Range"))
		if !ok || (r != nil && r.Start >= 0 && sv.First != r.Start) {
			resp.Body.Close()
			return nil, fmt.Errorf("%w: Content-Range %q does not answer %s", ErrBadResponse, resp.Header.Get("Content-Range"), rangeString(r))
		}
		s.Size = sv.Size
		s.pos, s.end = sv.First, sv.Last
		s.Range = &sv
	default: // 200: the whole file
		s.Size = resp.ContentLength
		s.end = s.Size - 1
		if s.Size < 0 {
			s.end = -1
		}
		if r != nil {
			// The server ignored Range: deliver the asked range ourselves.
			first, last := r.Start, r.End
			if r.Start < 0 {
				if s.Size < 0 {
					resp.Body.Close()
					return nil, fmt.Errorf("%w: server ignored %s and gave no length", ErrBadResponse, r)
				}
				first = max(s.Size-r.Suffix, 0)
				last = s.Size - 1
			}
			if last < 0 || (s.Size >= 0 && last >= s.Size) {
				last = s.end
			}
			s.skip = first
			s.pos, s.end = first, last
			s.Range = &Served{First: first, Last: last, Size: s.Size}
		}
	}
	return s, nil
}

func rangeString(r *Range) string {
	if r == nil {
		return "a whole-file request"
	}
	return r.String()
}

// validatorOf returns the strong validator for If-Range: a strong ETag, or
// else Last-Modified.
func validatorOf(h http.Header) string {
	if et := h.Get("ETag"); et != "" && !strings.HasPrefix(et, "W/") {
		return et
	}
	return h.Get("Last-Modified")
}

// Read reads the next bytes of the file. A connection dropped mid-body is
// resumed transparently with a ranged request from the byte reached,
// conditional on the validator the server first gave (If-Range), so every
// byte is delivered exactly once or Read returns an error. Once the
// context the stream was opened with is done, Read returns its error,
// even when bytes the connection received before are left to read.
func (s *Stream) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.closed {
		return 0, errors.New("download: read from closed stream")
	}
	if err := s.ctx.Err(); err != nil {
		// Not left to the transport, which notices a cancel only when it
		// next waits for the network: megabytes a fast server already
		// sent would be delivered first.
		s.err = err
		return 0, err
	}
	if len(p) == 0 {
		return 0, nil
	}
	for {
		if s.end >= 0 && s.pos > s.end {
			return 0, io.EOF
		}
		if s.skip > 0 {
			if _, err := io.CopyN(io.Discard, s.body, s.skip); err != nil {
				if rerr := s.resume(err); rerr != nil {
					return 0, rerr
				}
				continue
			}
			s.skip = 0
		}
		q := p
		if s.end >= 0 && int64(len(q)) > s.end-s.pos+1 {
			q = q[:s.end-s.pos+1]
		}
		n, err := s.body.Read(q)
		s.pos += int64(n)
		if n > 0 {
			s.failures = 0
		}
		if err == nil {
			return n, nil
		}
		if err == io.EOF && (s.end < 0 || s.pos > s.end) {
			s.err = io.EOF
			return n, io.EOF
		}
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		if n > 0 {
			// Deliver what we have; resume on the next call.
			s.pendingResume(err)
			return n, nil
		}
		if rerr := s.resume(err); rerr != nil {
			return 0, rerr
		}
	}
}

// pendingResume closes the broken body so that the next Read resumes.
func (s *Stream) pendingResume(cause error) {
	s.body.Close()
	s.body = errReader{cause}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
func (e errReader) Close() error             { return nil }

// resume replaces the body with a ranged request from s.pos.
func (s *Stream) resume(cause error) error {
	s.body.Close()
	fail := func(err error) error {
		s.err = err
		s.body = errReader{err}
		return err
	}
	if cerr := s.ctx.Err(); cerr != nil {
		return fail(cerr)
	}
	s.failures++
	if s.failures > s.opts.MaxResumes {
		return fail(fmt.Errorf("download: connection dropped at byte %d, %d resumes made no progress: %w", s.pos, s.opts.MaxResumes, cause))
	}
	if s.validator == "" {
		return fail(fmt.Errorf("%w: connection dropped at byte %d and the server gave no ETag or Last-Modified to resume against: %w", ErrChanged, s.pos, cause))
	}
	h := http.Header{}
	r := Range{Start: s.pos, End: s.end}
	h.Set("Range", r.String())
	h.Set("If-Range", s.validator)
	resp, err := s.fetch(s.ctx, h)
	if err != nil {
		return fail(fmt.Errorf("download: resuming at byte %d: %w", s.pos, err))
	}
	if resp.StatusCode != http.StatusPartialContent {
		resp.Body.Close()
		return fail(fmt.Errorf("%w: resuming at byte %d the server sent HTTP %d instead of the rest", ErrChanged, s.pos, resp.StatusCode))
	}
	sv, ok := parseContentRange(resp.Header.Get("Content-Range"))
	if !ok || sv.First != s.pos {
		resp.Body.Close()
		return fail(fmt.Errorf("%w: resuming at byte %d got Content-Range %q", ErrBadResponse, s.pos, resp.Header.Get("Content-Range")))
	}
	if v := validatorOf(resp.Header); v != "" && v != s.validator {
		resp.Body.Close()
		return fail(fmt.Errorf("%w: validator changed from %s to %s", ErrChanged, s.validator, v))
	}
	if s.end < 0 {
		s.end = sv.Last
	}
	s.body = resp.Body
	return nil
}

// Close releases the connection.
func (s *Stream) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	return s.body.Close()
}

// String describes the stream without its content.
func (s *Stream) String() string {
	r := "whole file"
	if s.Range != nil {
		r = "bytes " + strconv.FormatInt(s.Range.First, 10) + "-" + strconv.FormatInt(s.Range.Last, 10)
	}
	return fmt.Sprintf("download.Stream{%s, %s, size %d}", s.ContentType, r, s.Size)
}

// Chunks reads s in chunks of at most size bytes (0 means 32 KiB) and
// yields them; the slice is reused, valid only until the next iteration.
// It closes s when the loop ends. A read error is yielded once, last.
func Chunks(s *Stream, size int) iter.Seq2[[]byte, error] {
	if size <= 0 {
		size = 32 << 10
	}
	return func(yield func([]byte, error) bool) {
		defer s.Close()
		buf := make([]byte, size)
		for {
			n, err := io.ReadFull(s, buf)
			if n > 0 && !yield(buf[:n], nil) {
				return
			}
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return // ReadFull's way of saying the stream ended
			}
			if err != nil {
				yield(nil, err)
				return
			}
		}
	}
}
