// Package fakeserver is the machinery every vendor fake (kinds/<k>/<k>test)
// is built on: two loopback origins (the vendor's API and a separate file
// host), a request log, fault injection (latency, rate limiting, server
// errors, connections cut mid-body, servers that hang, stall, drip or never
// end) and byte-range file serving.
//
// A fake supplies only what is vendor-specific: its routes, its envelopes and
// its error bodies. Everything that is the same for all seven vendors lives
// here, once.
package fakeserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Faults configures the faults a fake injects into its API responses.
// The zero value injects none.
type Faults struct {
	// Latency is added before every API response.
	Latency time.Duration

	// RateLimitFirst answers the first N API requests with the vendor's
	// rate-limit response (see Vendor.RateLimited).
	RateLimitFirst int
	// ServerErrorFirst answers the first N API requests (after any
	// rate-limited ones) with the vendor's 5xx response.
	ServerErrorFirst int
	// CutFirst cuts the connection mid-body on the first N successful API
	// responses (after the rate-limited and failed ones).
	CutFirst int
	// HangFirst answers the first N API requests after the cut ones with
	// nothing at all: the connection stays open and silent until the
	// client gives up.
	HangFirst int
	// StallFirst sends the status, the headers (with the whole body's
	// Content-Length) and the first half of the body of the next N
	// successful responses, then nothing more until the client gives up.
	StallFirst int
	// DripFirst sends the status and headers of the next N successful
	// responses, then their body one byte every DripEvery.
	DripFirst int
	// DripEvery is the pause between the bytes of a dripped body; zero
	// means one second.
	DripEvery time.Duration
	// EndlessFirst answers the next N API requests with a 200 and a JSON
	// body that never ends (an array that is never closed, without a
	// Content-Length).
	EndlessFirst int
	// Skip lets the first Skip API requests through untouched before the
	// "first N" faults above start counting: a fault in the middle of a
	// walk.
	Skip int

	// RateLimitRate, ServerErrorRate and CutRate inject the same faults at
	// random into that fraction (0..1) of API responses, drawn from Seed so
	// that a run can be reproduced.
	RateLimitRate   float64
	ServerErrorRate float64
	CutRate         float64
	Seed            uint64

	// RetryAfter is the wait the rate-limit response announces.
	// Zero means one second.
	RetryAfter time.Duration
}

// Vendor holds the vendor-specific responses the fault injector writes.
type Vendor struct {
	// RateLimited writes the vendor's rate-limit response (status, headers
	// such as Retry-After, body). retryAfter is Faults.RetryAfter.
	RateLimited func(w http.ResponseWriter, r *http.Request, retryAfter time.Duration)
	// ServerError writes the vendor's 5xx response.
	ServerError func(w http.ResponseWriter, r *http.Request)
}

// Request is one request a fake received, as recorded in its log.
type Request struct {
	// Origin is "api" or "files".
	Origin string
	Method string
	// Path is the unescaped URL path; RawPath the escaped form when it differs.
	Path    string
	RawPath string
	Query   url.Values
	Header  http.Header
	Body    []byte
}

// Server is a running pair of loopback origins.
type Server struct {
	// URL is the origin of the fake vendor API, e.g. http://127.0.0.1:41234.
	URL string
	// FilesURL is a second origin that serves file content. Credentials
	// must never arrive here; tests check its log for that.
	FilesURL string

	api   *httptest.Server
	files *httptest.Server
	// apiH and filesH are the handlers the two origins serve, for
	// Transport.
	apiH, filesH http.Handler
	done         chan struct{} // closed by Close: hung handlers return

	mu       sync.Mutex
	log      []Request
	cache    map[string]*cached // nil: responses are not cached
	faults   Faults
	vendor   Vendor
	rng      *rand.Rand
	apiCount int
	inFlight int // API requests being answered now
	most     int // the most API requests answered at once since the log was reset
}

// New starts the two origins. api serves the vendor API (faults are injected
// in front of it); files serves file content (no faults, except those files
// itself injects). Either handler may be nil. Close the server when done.
func New(api, files http.Handler, faults Faults, vendor Vendor) *Server {
	s := &Server{faults: faults, vendor: vendor, done: make(chan struct{})}
	s.rng = rand.New(rand.NewPCG(faults.Seed, faults.Seed^0x9e3779b97f4a7c15))
	if api == nil {
		api = http.NotFoundHandler()
	}
	if files == nil {
		files = http.NotFoundHandler()
	}
	s.apiH = s.record("api", s.inject(s.cached(api)))
	s.filesH = s.record("files", files)
	s.api = httptest.NewServer(s.apiH)
	s.files = httptest.NewServer(s.filesH)
	s.URL = s.api.URL
	s.FilesURL = s.files.URL
	return s
}

// Close shuts both origins down and closes their client connections.
func (s *Server) Close() {
	close(s.done)
	s.api.CloseClientConnections()
	s.files.CloseClientConnections()
	s.api.Close()
	s.files.Close()
}

// CloseListeners stops listening on both origins and keeps the rest: URL
// and FilesURL still name them, and Transport still answers them in
// process. A program that holds thousands of fakes and reaches them only
// through Transport (bench/fleet, one fake per vendor account) calls it
// so that each fake holds no open file. Close is still required.
func (s *Server) CloseListeners() {
	s.api.Close()
	s.files.Close()
}

// Requests returns a copy of the request log, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

// ResetRequests empties the request log and restarts MostInFlight.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	s.log = nil
	s.most = s.inFlight
	s.mu.Unlock()
}

// MostInFlight returns the most API requests the fake was answering at once
// (latency included) since it started or the log was last reset: what a
// client's concurrency looks like from the vendor's side.
func (s *Server) MostInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.most
}

// SetResponseCache makes the API answer a GET it has answered before (same
// URL, same Authorization), or a POST (same URL, Authorization and body:
// a GraphQL query), with the recorded response, without running the
// vendor handler again: benchmarks use it so that a page costs the fake
// next to nothing and the clients' own costs show. Faults still apply.
func (s *Server) SetResponseCache(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on && s.cache == nil {
		s.cache = map[string]*cached{}
	}
	if !on {
		s.cache = nil
	}
}

type cached struct {
	status int
	header http.Header
	body   []byte
}

func (s *Server) cached(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		on := s.cache != nil
		s.mu.Unlock()
		cacheable := on && (r.Method == http.MethodGet || r.Method == http.MethodPost)
		var hit *cached
		key := r.Method + " " + r.URL.RequestURI() + "\x00" + r.Header.Get("Authorization")
		if cacheable && r.Method == http.MethodPost {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
			r.Body = io.NopCloser(bytes.NewReader(body))
			key += "\x00" + string(body)
		}
		if cacheable {
			s.mu.Lock()
			hit = s.cache[key]
			s.mu.Unlock()
		}
		if hit != nil {
			for k, v := range hit.header {
				w.Header()[k] = v
			}
			w.WriteHeader(hit.status)
			_, _ = w.Write(hit.body)
			return
		}
		if !cacheable {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		c := &cached{status: rec.Code, header: rec.Header().Clone(), body: rec.Body.Bytes()}
		s.mu.Lock()
		if s.cache != nil && c.status == http.StatusOK {
			s.cache[key] = c
		}
		s.mu.Unlock()
		for k, v := range c.header {
			w.Header()[k] = v
		}
		w.WriteHeader(c.status)
		_, _ = w.Write(c.body)
	})
}

// SetFaults replaces the fault configuration and restarts the "first N"
// counters and the random sequence.
func (s *Server) SetFaults(f Faults) {
	s.mu.Lock()
	s.faults = f
	s.apiCount = 0
	s.rng = rand.New(rand.NewPCG(f.Seed, f.Seed^0x9e3779b97f4a7c15))
	s.mu.Unlock()
}

func (s *Server) record(origin string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		if r.Body != nil {
			body, _ = io.ReadAll(io.LimitReader(r.Body, 8<<20))
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		s.mu.Lock()
		if origin == "api" {
			s.inFlight++
			s.most = max(s.most, s.inFlight)
			defer func() {
				s.mu.Lock()
				s.inFlight--
				s.mu.Unlock()
			}()
		}
		s.log = append(s.log, Request{
			Origin:  origin,
			Method:  r.Method,
			Path:    r.URL.Path,
			RawPath: r.URL.RawPath,
			Query:   r.URL.Query(),
			Header:  r.Header.Clone(),
			Body:    body,
		})
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

type fault int

const (
	faultNone fault = iota
	faultRateLimit
	faultServerError
	faultCut
	faultHang
	faultStall
	faultDrip
	faultEndless
)

func (s *Server) pick() (fault, Faults) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.faults
	n := s.apiCount - f.Skip
	s.apiCount++
	if n < 0 {
		return faultNone, f
	}
	for _, first := range []struct {
		n     int
		fault fault
	}{
		{f.RateLimitFirst, faultRateLimit}, {f.ServerErrorFirst, faultServerError}, {f.CutFirst, faultCut},
		{f.HangFirst, faultHang}, {f.StallFirst, faultStall}, {f.DripFirst, faultDrip}, {f.EndlessFirst, faultEndless},
	} {
		if n < first.n {
			return first.fault, f
		}
		n -= first.n
	}
	if f.RateLimitRate+f.ServerErrorRate+f.CutRate > 0 {
		x := s.rng.Float64()
		switch {
		case x < f.RateLimitRate:
			return faultRateLimit, f
		case x < f.RateLimitRate+f.ServerErrorRate:
			return faultServerError, f
		case x < f.RateLimitRate+f.ServerErrorRate+f.CutRate:
			return faultCut, f
		}
	}
	return faultNone, f
}

func (s *Server) inject(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		kind, f := s.pick()
		if f.Latency > 0 {
			t := time.NewTimer(f.Latency)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		switch kind {
		case faultRateLimit:
			ra := f.RetryAfter
			if ra <= 0 {
				ra = time.Second
			}
			if s.vendor.RateLimited != nil {
				s.vendor.RateLimited(w, r, ra)
				return
			}
			w.Header().Set("Retry-After", strconv.Itoa(int((ra+time.Second-1)/time.Second)))
			http.Error(w, "rate limited", http.StatusTooManyRequests)
			return
		case faultServerError:
			if s.vendor.ServerError != nil {
				s.vendor.ServerError(w, r)
				return
			}
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		case faultCut:
			CutAfterHalf(w, r, h)
			return
		case faultHang:
			s.wait(r)
			return
		case faultStall:
			s.stallAfterHalf(w, r, h)
			return
		case faultDrip:
			every := f.DripEvery
			if every <= 0 {
				every = time.Second
			}
			s.drip(w, r, h, every)
			return
		case faultEndless:
			s.endless(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// wait returns when the client has gone or the server is closing.
func (s *Server) wait(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.done:
	}
}

// stallAfterHalf sends h's status, headers, a Content-Length for the whole
// body and the first half of the body, then waits for the client to give up.
func (s *Server) stallAfterHalf(w http.ResponseWriter, r *http.Request, h http.Handler) {
	body := writeHead(w, r, h)
	_, _ = w.Write(body[:len(body)/2])
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
	s.wait(r)
	panic(http.ErrAbortHandler)
}

// drip sends h's status and headers at once, then its body one byte every
// pause, until the body is sent or the client gives up.
func (s *Server) drip(w http.ResponseWriter, r *http.Request, h http.Handler, every time.Duration) {
	body := writeHead(w, r, h)
	fl, _ := w.(http.Flusher)
	if fl != nil {
		fl.Flush()
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for i := range body {
		select {
		case <-t.C:
		case <-r.Context().Done():
			panic(http.ErrAbortHandler)
		case <-s.done:
			panic(http.ErrAbortHandler)
		}
		if _, err := w.Write(body[i : i+1]); err != nil {
			panic(http.ErrAbortHandler)
		}
		if fl != nil {
			fl.Flush()
		}
	}
}

// endless answers 200 with a JSON array of records that never closes,
// until the client stops reading or the server closes.
func (s *Server) endless(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	chunk := bytes.Repeat([]byte(`{"id":1,"name":"again"},`), 2730) // about 64 KiB
	if _, err := w.Write([]byte(`{"records":[`)); err != nil {
		return
	}
	for {
		select {
		case <-r.Context().Done():
			panic(http.ErrAbortHandler)
		case <-s.done:
			panic(http.ErrAbortHandler)
		default:
		}
		if _, err := w.Write(chunk); err != nil {
			panic(http.ErrAbortHandler)
		}
	}
}

// CutAfterHalf runs h into a buffer, then sends its status, its headers and a
// Content-Length for the whole body, writes the first half of the body and
// drops the connection: the client sees a body that ends early.
func CutAfterHalf(w http.ResponseWriter, r *http.Request, h http.Handler) {
	body := writeHead(w, r, h)
	_, _ = w.Write(body[:len(body)/2])
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
	panic(http.ErrAbortHandler)
}

// writeHead runs h into a buffer, sends its status and headers with a
// Content-Length for the whole body, and returns the body, for a fault to
// send as it likes.
func writeHead(w http.ResponseWriter, r *http.Request, h http.Handler) []byte {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Length", strconv.Itoa(rec.Body.Len()))
	w.WriteHeader(rec.Code)
	return rec.Body.Bytes()
}

// File is content served by ServeFile.
type File struct {
	Name        string
	ContentType string
	ETag        string // strong validator, quoted, e.g. `"v1-42"`
	ModTime     time.Time
	Content     []byte
	// Body, when set, is served instead of Content: a file too large to
	// hold in memory (a 1 GiB download), generated as it is read.
	Body io.ReadSeeker
	// CutEvery, when positive, drops the connection after this many bytes of
	// every response body, so clients must resume with ranged requests.
	CutEvery int
}

// ServeFile answers r with f, honouring Range, If-Range and conditional
// headers (206 with Content-Range, 416 for unsatisfiable ranges).
func ServeFile(w http.ResponseWriter, r *http.Request, f File) {
	if f.ContentType != "" {
		w.Header().Set("Content-Type", f.ContentType)
	}
	if f.ETag != "" {
		w.Header().Set("ETag", f.ETag)
	}
	w.Header().Set("Accept-Ranges", "bytes")
	if f.CutEvery > 0 {
		w = &cuttingWriter{ResponseWriter: w, left: f.CutEvery}
		defer func() {
			if cw := w.(*cuttingWriter); cw.cut {
				panic(http.ErrAbortHandler)
			}
		}()
	}
	var body io.ReadSeeker = bytes.NewReader(f.Content)
	if f.Body != nil {
		body = f.Body
	}
	http.ServeContent(w, r, f.Name, f.ModTime, body)
}

type cuttingWriter struct {
	http.ResponseWriter
	left int
	cut  bool
}

func (c *cuttingWriter) Write(p []byte) (int, error) {
	if c.cut {
		return 0, io.ErrClosedPipe
	}
	if len(p) > c.left {
		n, _ := c.ResponseWriter.Write(p[:c.left])
		if fl, ok := c.ResponseWriter.(http.Flusher); ok {
			fl.Flush()
		}
		c.cut = true
		return n, io.ErrClosedPipe
	}
	c.left -= len(p)
	return c.ResponseWriter.Write(p)
}

// BaseURL returns the scheme and host the client used to reach r, for
// building absolute next-page URLs the way vendors do.
func BaseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// WriteJSON writes body, already-encoded JSON, as a response with the given
// status and a Content-Length.
func WriteJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// JSON writes v, encoded as JSON, as a response with the given status
// (WriteJSON).
func JSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	WriteJSON(w, status, b)
}

// ReadJSON decodes the JSON body of r, at most 1 MiB of it, into v.
func ReadJSON(r *http.Request, v any) error {
	b, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// Transport returns an http.RoundTripper that serves requests to the two
// origins (URL and FilesURL) in-process, with no socket, and refuses any
// other host (req.URL's; a req.Host of another name is what the handler
// sees as r.Host). A connector given an *http.Client with this transport
// (tributary.WithHTTPClient) reaches the fake as it would over loopback:
// the same handlers, faults, request log and rate limits.
//
// It is for tests in a testing/synctest bubble: there network I/O is not
// durably blocking, so time would not advance while a connection waits,
// whereas a handler run in-process takes none of the bubble's time. A
// sync paced to a rate limit then runs in no real time, and its rate is
// measured exactly on the bubble's clock (the fake's clock, made with
// NewRealClock inside the bubble, reads the same time). The response is
// buffered whole before RoundTrip returns, so a handler that streams
// without end (the Endless fault) must not be used through it.
func (s *Server) Transport() http.RoundTripper { return inProcess{s} }

type inProcess struct{ s *Server }

func (t inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	var h http.Handler
	switch req.URL.Host {
	case strings.TrimPrefix(t.s.URL, "http://"):
		h = t.s.apiH
	case strings.TrimPrefix(t.s.FilesURL, "http://"):
		h = t.s.filesH
	default:
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, fmt.Errorf("fakeserver: in-process transport: no origin %s", req.URL.Host)
	}
	in := req.Clone(req.Context())
	// The handler sees the Host the request names (a proxy in front of
	// the fake forwards its own, so that the absolute URLs the fake
	// writes, next pages and instance URLs, lead back to the proxy),
	// else the origin's.
	if in.Host = req.Host; in.Host == "" {
		in.Host = req.URL.Host
	}
	in.RequestURI = req.URL.RequestURI()
	in.RemoteAddr = "127.0.0.1:1"
	if in.Body == nil {
		in.Body = http.NoBody
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, in)
	if req.Body != nil {
		req.Body.Close()
	}
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	res := rec.Result()
	res.Request = req
	return res, nil
}
