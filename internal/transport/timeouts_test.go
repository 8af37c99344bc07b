package transport

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// A test's limits are short (hundreds of milliseconds) so that the suite
// runs in seconds; its upper bounds on time are generous (seconds), so a
// loaded machine does not fail it. Timers never fire early, so the lower
// bounds are exact.
const within = 5 * time.Second

// slowServer answers every request with h and counts the requests.
type slowServer struct {
	*httptest.Server
	n    atomic.Int32
	done chan struct{}
}

func newSlowServer(t *testing.T, h func(w http.ResponseWriter, r *http.Request, done <-chan struct{})) *slowServer {
	t.Helper()
	s := &slowServer{done: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.n.Add(1)
		h(w, r, s.done)
	}))
	t.Cleanup(func() {
		close(s.done)
		s.CloseClientConnections()
		s.Close()
	})
	return s
}

// hang never answers.
func hang(w http.ResponseWriter, r *http.Request, done <-chan struct{}) {
	select {
	case <-r.Context().Done():
	case <-done:
	}
}

// dripper sends headers, then one byte of an endless body every pause.
func dripper(pause time.Duration) func(w http.ResponseWriter, r *http.Request, done <-chan struct{}) {
	return func(w http.ResponseWriter, r *http.Request, done <-chan struct{}) {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		t := time.NewTicker(pause)
		defer t.Stop()
		for {
			select {
			case <-t.C:
			case <-r.Context().Done():
				return
			case <-done:
				return
			}
			if _, err := w.Write([]byte{'x'}); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}
}

// halfThenStall sends 1000 bytes of a 2000-byte body, then nothing.
func halfThenStall(w http.ResponseWriter, r *http.Request, done <-chan struct{}) {
	w.Header().Set("Content-Length", "2000")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(bytes.Repeat([]byte{'x'}, 1000))
	w.(http.Flusher).Flush()
	hang(w, r, done)
}

func newTimeoutClient(t *testing.T, srv string, to Timeouts, retries int) *Client {
	t.Helper()
	u, _ := url.Parse(srv)
	c := New(Config{Origin: u, MaxRetries: retries, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond, Timeouts: to})
	t.Cleanup(func() { c.http.CloseIdleConnections() })
	return c
}

func get(t *testing.T, ctx context.Context, c *Client, u string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c.Do(req)
}

func wantTimeout(t *testing.T, err error, limit string, after time.Duration) {
	t.Helper()
	var te *TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("error = %v, want a %s TimeoutError", err, limit)
	}
	if te.Limit != limit || te.After != after {
		t.Fatalf("timeout = %s after %v, want %s after %v", te.Limit, te.After, limit, after)
	}
	if !strings.Contains(err.Error(), limit+" timeout") || !strings.Contains(err.Error(), after.String()) {
		t.Fatalf("message %q does not name the %s limit and %v", err, limit, after)
	}
}

func TestNeverAnsweringServerIsRetriedThenTimesOut(t *testing.T) {
	srv := newSlowServer(t, hang)
	c := newTimeoutClient(t, srv.URL, Timeouts{ResponseHeader: 200 * time.Millisecond}, 2)
	start := time.Now()
	_, err := get(t, context.Background(), c, srv.URL)
	took := time.Since(start)
	wantTimeout(t, err, LimitResponseHeader, 200*time.Millisecond)
	if got := srv.n.Load(); got != 3 {
		t.Errorf("server saw %d attempts, want 3 (one and two retries)", got)
	}
	if took < 600*time.Millisecond || took > within {
		t.Errorf("took %v, want between 600ms and %v", took, within)
	}
}

func TestDripWithinStallEndsAtAttemptCeiling(t *testing.T) {
	srv := newSlowServer(t, dripper(20*time.Millisecond))
	c := newTimeoutClient(t, srv.URL, Timeouts{Stall: 2 * time.Second, Attempt: 300 * time.Millisecond}, 0)
	start := time.Now()
	resp, err := get(t, context.Background(), c, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	wantTimeout(t, err, LimitAttempt, 300*time.Millisecond)
	if n == 0 {
		t.Error("no byte arrived before the ceiling: the test did not drip")
	}
	if took < 300*time.Millisecond || took > within {
		t.Errorf("took %v, want between 300ms and %v", took, within)
	}
}

func TestUnboundedHasNoCeilingButStalls(t *testing.T) {
	srv := newSlowServer(t, dripper(10*time.Millisecond))
	c := newTimeoutClient(t, srv.URL, Timeouts{Stall: time.Second, Attempt: 100 * time.Millisecond}, 0)
	resp, err := get(t, Unbounded(context.Background()), c, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// Reading well past the attempt ceiling is fine: the body keeps coming.
	deadline := time.Now().Add(400 * time.Millisecond)
	buf := make([]byte, 1)
	for time.Now().Before(deadline) {
		if _, err := resp.Body.Read(buf); err != nil {
			t.Fatalf("read after %v: %v", 400*time.Millisecond-time.Until(deadline), err)
		}
	}
}

func TestStallHalfwayEndsTheBody(t *testing.T) {
	srv := newSlowServer(t, halfThenStall)
	c := newTimeoutClient(t, srv.URL, Timeouts{Stall: 200 * time.Millisecond}, 0)
	resp, err := get(t, context.Background(), c, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	wantTimeout(t, err, LimitStall, 200*time.Millisecond)
	if n != 1000 {
		t.Errorf("read %d bytes before the stall, want 1000", n)
	}
	if took < 200*time.Millisecond || took > within {
		t.Errorf("took %v, want between 200ms and %v", took, within)
	}
}

// The stall timer runs only while a Read waits: a caller that pauses
// between reads longer than the stall limit is not cut off.
func TestStallCountsOnlyWhileReading(t *testing.T) {
	srv := newSlowServer(t, func(w http.ResponseWriter, r *http.Request, done <-chan struct{}) {
		w.Header().Set("Content-Length", "2")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("a"))
		w.(http.Flusher).Flush()
		time.Sleep(200 * time.Millisecond) // "b" waits in the socket while the caller pauses
		_, _ = w.Write([]byte("b"))
	})
	c := newTimeoutClient(t, srv.URL, Timeouts{Stall: 500 * time.Millisecond}, 0)
	resp, err := get(t, context.Background(), c, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 1)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if b, err := io.ReadAll(resp.Body); err != nil || string(b) != "b" {
		t.Fatalf("after a pause: %q, %v; want \"b\"", b, err)
	}
}

func TestCallerDeadlineWins(t *testing.T) {
	srv := newSlowServer(t, hang)
	c := newTimeoutClient(t, srv.URL, Timeouts{ResponseHeader: time.Minute}, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := get(t, ctx, c, srv.URL)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error = %v, want the context's deadline", err)
	}
	var te *TimeoutError
	if errors.As(err, &te) {
		t.Fatalf("error = %v: the caller's deadline came first", err)
	}
	if took := time.Since(start); took > within {
		t.Errorf("took %v", took)
	}
	if got := srv.n.Load(); got != 1 {
		t.Errorf("server saw %d attempts, want 1: a spent deadline is not retried", got)
	}
}

func TestHTTPClientTimeoutWins(t *testing.T) {
	srv := newSlowServer(t, hang)
	u, _ := url.Parse(srv.URL)
	base := &http.Client{Transport: &http.Transport{}, Timeout: 100 * time.Millisecond}
	defer base.CloseIdleConnections()
	c := New(Config{Origin: u, Base: base, Timeouts: Timeouts{ResponseHeader: time.Minute, Attempt: time.Minute}})
	start := time.Now()
	_, err := get(t, context.Background(), c, srv.URL)
	var te *TimeoutError
	if err == nil || errors.As(err, &te) {
		t.Fatalf("error = %v, want the client's own timeout", err)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("error = %v, want a timeout", err)
	}
	if took := time.Since(start); took > within {
		t.Errorf("took %v", took)
	}
}

func TestConnectTimeout(t *testing.T) {
	var dials atomic.Int32
	u, _ := url.Parse("http://192.0.2.1:81") // never dialled: dial below
	c := New(Config{Origin: u, MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond,
		Timeouts: Timeouts{Connect: 100 * time.Millisecond, ResponseHeader: time.Minute},
		dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			<-ctx.Done() // a host that never answers the SYN
			return nil, ctx.Err()
		}})
	start := time.Now()
	_, err := get(t, context.Background(), c, u.String())
	wantTimeout(t, err, LimitConnect, 100*time.Millisecond)
	if got := dials.Load(); got != 2 {
		t.Errorf("%d dials, want 2 (one and one retry)", got)
	}
	if took := time.Since(start); took < 200*time.Millisecond || took > within {
		t.Errorf("took %v", took)
	}
}

func TestTokenEndpointTimesOut(t *testing.T) {
	srv := newSlowServer(t, hang)
	_, ts := OAuth(OAuthConfig{TokenURL: srv.URL, AuthStyle: oauth2.AuthStyleInParams, ClientID: "id", ClientSecret: "client-secret-value", RefreshToken: "refresh-token-value",
		Timeouts: Timeouts{ResponseHeader: 100 * time.Millisecond}})
	start := time.Now()
	_, err := ts.TokenContext(context.Background())
	if !errors.Is(err, ErrTokenUnavailable) {
		t.Fatalf("error = %v, want ErrTokenUnavailable", err)
	}
	if !strings.Contains(err.Error(), "response-header timeout") {
		t.Errorf("message %q does not name the limit", err)
	}
	if strings.Contains(err.Error(), "client-secret-value") || strings.Contains(err.Error(), "refresh-token-value") {
		t.Errorf("message %q leaks a secret", err)
	}
	if took := time.Since(start); took > within {
		t.Errorf("took %v", took)
	}
	// The last attempt's request was written before its timeout, but on a
	// loaded machine the server may run its handler after the client gave
	// up: wait a little for it to be counted.
	for deadline := time.Now().Add(2 * time.Second); srv.n.Load() < tokenAttempts && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if got := srv.n.Load(); got != tokenAttempts {
		t.Errorf("token endpoint saw %d attempts, want %d", got, tokenAttempts)
	}
}

// A body closed before its end releases the attempt at once: no timer
// fires later into a connection that is back in the pool.
func TestClosedBodyReleasesAttempt(t *testing.T) {
	var mu sync.Mutex
	var served int
	srv := newSlowServer(t, func(w http.ResponseWriter, r *http.Request, done <-chan struct{}) {
		mu.Lock()
		served++
		mu.Unlock()
		w.Header().Set("Content-Length", "2")
		_, _ = w.Write([]byte("ok"))
	})
	c := newTimeoutClient(t, srv.URL, Timeouts{Stall: time.Second, Attempt: time.Second, ResponseHeader: time.Second}, 0)
	for range 2 {
		resp, err := get(t, context.Background(), c, srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || string(b) != "ok" {
			t.Fatalf("%q, %v", b, err)
		}
		time.Sleep(1200 * time.Millisecond) // past every limit
	}
	if served != 2 {
		t.Errorf("served %d", served)
	}
}

// headersAtTheLimit is a RoundTripper whose answer comes as the
// response-header limit passes: it waits until a moment around d, then
// answers 200 with an empty body.
type headersAtTheLimit struct{ d time.Duration }

func (h headersAtTheLimit) RoundTrip(req *http.Request) (*http.Response, error) {
	time.Sleep(h.d)
	return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader("")), Request: req}, nil
}

// Headers that arrive as the response-header limit fires end the attempt
// with that limit's TimeoutError, never with no response and no error:
// the timer's function may not have cancelled the attempt yet when Stop
// reports that it fired (the transport dereferenced a nil response then,
// once in a while on a loaded machine).
func TestHeadersAtTheLimit(t *testing.T) {
	t.Parallel()
	for range 300 {
		rt := withTimeouts(headersAtTheLimit{d: 50 * time.Microsecond}, Timeouts{ResponseHeader: 50 * time.Microsecond})
		req, _ := http.NewRequest(http.MethodGet, "http://example.invalid/", nil)
		resp, err := rt.RoundTrip(req)
		switch {
		case err == nil && resp == nil:
			t.Fatal("no response and no error")
		case err == nil:
			resp.Body.Close()
		default:
			var te *TimeoutError
			if !errors.As(err, &te) || te.Limit != LimitResponseHeader {
				t.Fatalf("error %v, want the response-header TimeoutError", err)
			}
		}
	}
}
