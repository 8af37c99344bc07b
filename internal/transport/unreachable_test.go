package transport

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// retriesOf builds a client of origin with three retries and records the
// retries it announces.
func retriesOf(t *testing.T, origin string) (*Client, func() []Retry) {
	t.Helper()
	u, _ := url.Parse(origin)
	var mu sync.Mutex
	var seen []Retry
	c := New(Config{Origin: u, MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond,
		OnRetry: func(r Retry) { mu.Lock(); seen = append(seen, r); mu.Unlock() }})
	return c, func() []Retry { mu.Lock(); defer mu.Unlock(); return append([]Retry(nil), seen...) }
}

func TestUnresolvableHostIsNotRetried(t *testing.T) {
	c, seen := retriesOf(t, "https://acme.zendesk.invalid")
	_, err := get(t, context.Background(), c, "https://acme.zendesk.invalid/api/v2/tickets.json?access_token=s3cr3t")
	var de *net.DNSError
	if !errors.As(err, &de) {
		t.Fatalf("error = %v, want a DNS error", err)
	}
	if n := len(seen()); n != 0 {
		t.Errorf("%d retries of a name that does not resolve, want 0", n)
	}
	msg, retryable, ok := Unreachable(err, "acme.zendesk.invalid")
	if !ok || retryable {
		t.Fatalf("Unreachable = %q %v %v", msg, retryable, ok)
	}
	want := `cannot reach acme.zendesk.invalid: the DNS name "acme.zendesk.invalid" does not resolve (no such host); check the subdomain or instance URL, or the network`
	if msg != want {
		t.Errorf("message\n %s\nwant\n %s", msg, want)
	}
	if strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("error %q leaks the query's secret", err)
	}
}

func TestClosedPortIsRetriedAndAnnounced(t *testing.T) {
	addr := closedPort(t)
	c, seen := retriesOf(t, "http://"+addr)
	_, err := get(t, context.Background(), c, "http://"+addr+"/x")
	if err == nil {
		t.Fatal("no error")
	}
	rs := seen()
	if len(rs) != 3 {
		t.Fatalf("%d retries announced, want 3: %+v", len(rs), rs)
	}
	for i, r := range rs {
		if r.Attempt != i+2 || r.Attempts != 4 || r.Status != 0 || r.Err == nil || !strings.Contains(r.Err.Error(), "connection refused") {
			t.Errorf("retry %d = %+v", i, r)
		}
	}
	if n := Attempts(err); n != 4 {
		t.Errorf("Attempts = %d, want 4", n)
	}
	msg, retryable, ok := Unreachable(err, addr)
	want := "cannot reach " + addr + ": connection refused (4 attempts); check the address, the network, a firewall or a proxy"
	if !ok || !retryable || msg != want {
		t.Errorf("Unreachable = %q %v %v, want %q", msg, retryable, ok, want)
	}
}

// A 5xx answer is announced with its status, and other errors are not
// "unreachable".
func TestServerErrorRetryAnnounced(t *testing.T) {
	srv := newSlowServer(t, func(w http.ResponseWriter, r *http.Request, done <-chan struct{}) {
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	c, seen := retriesOf(t, srv.URL)
	resp, err := get(t, context.Background(), c, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if rs := seen(); len(rs) != 3 || rs[0].Status != 503 || rs[0].Err != nil {
		t.Errorf("retries = %+v", rs)
	}
	if _, _, ok := Unreachable(errors.New("tls: bad certificate"), "x"); ok {
		t.Error("a TLS error is called unreachable")
	}
}

func TestConnectTimeoutIsUnreachable(t *testing.T) {
	err := &AttemptsError{Attempts: 2, Err: &url.Error{Op: "Get", URL: "http://192.0.2.1:81", Err: &TimeoutError{Limit: LimitConnect, After: 100 * time.Millisecond}}}
	msg, retryable, ok := Unreachable(err, "192.0.2.1:81")
	want := "cannot reach 192.0.2.1:81: no connection within 100ms (2 attempts); check the network, a firewall or a proxy"
	if !ok || !retryable || msg != want {
		t.Errorf("Unreachable = %q %v %v, want %q", msg, retryable, ok, want)
	}
}
