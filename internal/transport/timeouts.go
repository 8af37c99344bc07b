package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Timeouts bound one HTTP attempt. A zero or negative field sets no limit
// (the root package's tributary.Timeouts resolves its defaults first).
type Timeouts struct {
	// Connect bounds dialling and the TLS handshake of the library's own
	// transport.
	Connect time.Duration
	// ResponseHeader bounds the wait from sending a request to its
	// response's headers.
	ResponseHeader time.Duration
	// Stall ends an attempt when no byte of its body arrives for this long
	// while a Read is waiting.
	Stall time.Duration
	// Attempt bounds an attempt as a whole, headers and body, except for
	// requests made under Unbounded.
	Attempt time.Duration
}

// The limits a TimeoutError names.
const (
	LimitConnect        = "connect"
	LimitResponseHeader = "response-header"
	LimitStall          = "stall"
	LimitAttempt        = "attempt"
)

// TimeoutError is the failure of an attempt that hit one of its Timeouts.
// The transport treats it as a dropped connection: it is retried.
type TimeoutError struct {
	// Limit is one of LimitConnect, LimitResponseHeader, LimitStall,
	// LimitAttempt.
	Limit string
	// After is the limit's length.
	After time.Duration
}

// Error says which limit was hit and after how long.
func (e *TimeoutError) Error() string {
	switch e.Limit {
	case LimitConnect:
		return fmt.Sprintf("could not connect within %v (connect timeout)", e.After)
	case LimitResponseHeader:
		return fmt.Sprintf("no response headers within %v (response-header timeout)", e.After)
	case LimitStall:
		return fmt.Sprintf("the body stalled: no bytes for %v (stall timeout)", e.After)
	case LimitAttempt:
		return fmt.Sprintf("the attempt took longer than %v (attempt timeout)", e.After)
	}
	return fmt.Sprintf("%s timeout after %v", e.Limit, e.After)
}

// Timeout reports true, as net.Error's Timeout does.
func (e *TimeoutError) Timeout() bool { return true }

type unboundedKey struct{}

// Unbounded marks the requests made under ctx as ones whose body may be
// read for as long as it keeps coming (downloads): the Attempt limit does
// not apply to them; the others do.
func Unbounded(ctx context.Context) context.Context {
	return context.WithValue(ctx, unboundedKey{}, true)
}

func unbounded(ctx context.Context) bool { v, _ := ctx.Value(unboundedKey{}).(bool); return v }

// timeoutCause returns the TimeoutError that ended ctx, if one did.
func timeoutCause(ctx context.Context) *TimeoutError {
	var te *TimeoutError
	if errors.As(context.Cause(ctx), &te) {
		return te
	}
	return nil
}

// timeoutTransport enforces Timeouts on every attempt through base: each
// attempt runs under a context of its own, which a timer cancels with a
// *TimeoutError as its cause.
type timeoutTransport struct {
	base http.RoundTripper
	t    Timeouts
}

// withTimeouts wraps base, or returns it when t sets no per-attempt limit.
func withTimeouts(base http.RoundTripper, t Timeouts) http.RoundTripper {
	if t.ResponseHeader <= 0 && t.Stall <= 0 && t.Attempt <= 0 {
		return base
	}
	return &timeoutTransport{base: base, t: t}
}

func (tt *timeoutTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	parent := req.Context()
	ctx, cancel := context.WithCancelCause(parent)
	var ceiling *time.Timer
	if d := tt.t.Attempt; d > 0 && !unbounded(parent) {
		ceiling = time.AfterFunc(d, func() { cancel(&TimeoutError{Limit: LimitAttempt, After: d}) })
	}
	var header *time.Timer
	if d := tt.t.ResponseHeader; d > 0 {
		header = time.AfterFunc(d, func() { cancel(&TimeoutError{Limit: LimitResponseHeader, After: d}) })
	}
	resp, err := tt.base.RoundTrip(req.WithContext(ctx))
	headerFired := header != nil && !header.Stop()
	if err == nil && headerFired {
		// The headers came as the limit passed: the body is (or is about
		// to be) cancelled, so the attempt has failed. Stop reported the
		// timer fired, but its function may not have cancelled ctx yet:
		// wait for it, so that the cause is the limit's, never nil.
		resp.Body.Close()
		<-ctx.Done()
		resp, err = nil, context.Cause(ctx)
	}
	if err != nil {
		if te := timeoutCause(ctx); te != nil && parent.Err() == nil {
			err = te
		}
		if ceiling != nil {
			ceiling.Stop()
		}
		cancel(nil)
		return nil, err
	}
	wb := &watchedBody{body: resp.Body, ctx: ctx, cancel: cancel, stall: tt.t.Stall, ceiling: ceiling}
	if d := tt.t.Stall; d > 0 {
		wb.timer = time.AfterFunc(d, func() { cancel(&TimeoutError{Limit: LimitStall, After: d}) })
		wb.timer.Stop()
	}
	resp.Body = wb
	return resp, nil
}

// watchedBody ends the attempt when a Read waits longer than stall for a
// byte, and releases the attempt's context and timers when closed.
type watchedBody struct {
	body    io.ReadCloser
	ctx     context.Context
	cancel  context.CancelCauseFunc
	stall   time.Duration
	ceiling *time.Timer
	timer   *time.Timer // the stall timer, running only while a Read waits
	once    sync.Once
}

func (b *watchedBody) Read(p []byte) (int, error) {
	if b.timer != nil && len(p) > 0 {
		b.timer.Reset(b.stall)
	}
	n, err := b.body.Read(p)
	if b.timer != nil {
		b.timer.Stop()
	}
	if err != nil && err != io.EOF {
		if te := timeoutCause(b.ctx); te != nil {
			err = te
		}
	}
	return n, err
}

func (b *watchedBody) Close() error {
	err := b.body.Close()
	b.once.Do(func() {
		if b.timer != nil {
			b.timer.Stop()
		}
		if b.ceiling != nil {
			b.ceiling.Stop()
		}
		b.cancel(nil)
	})
	return err
}

// dialFunc is the signature of net.Dialer.DialContext.
type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// connectWithin bounds dial by d: a dial still running after d fails with
// a connect *TimeoutError (unless ctx itself ended first).
func connectWithin(d time.Duration, dial dialFunc) dialFunc {
	if d <= 0 {
		return dial
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		dctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		conn, err := dial(dctx, network, addr)
		if err != nil && ctx.Err() == nil && dctx.Err() != nil {
			return nil, &TimeoutError{Limit: LimitConnect, After: d}
		}
		return conn, err
	}
}

// ownTransport is the library's own pooled transport: idle connections
// kept per host, and the connect timeout on dialling and TLS handshakes.
// dial, when set, replaces the network dialer (tests).
func ownTransport(idle int, connect time.Duration, dial dialFunc) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = idle
	if dial == nil {
		dial = (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext
	}
	t.DialContext = connectWithin(connect, dial)
	if connect > 0 {
		t.TLSHandshakeTimeout = connect
	}
	return t
}

// HTTPClient returns a client for requests a connector sends outside its
// Client (an OAuth token endpoint, a service's token exchange), under the
// same Timeouts: base's RoundTripper and timeout (nothing else of it), or the library's own
// transport when base is nil, in which case fallback (if positive) is the
// client's overall timeout.
func HTTPClient(base *http.Client, t Timeouts, fallback time.Duration) *http.Client {
	if base == nil {
		return &http.Client{Transport: withTimeouts(ownTransport(2, t.Connect, nil), t), Timeout: fallback}
	}
	rt := base.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	return &http.Client{Transport: withTimeouts(rt, t), Timeout: base.Timeout}
}
