package kinds_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

// openUnreachable opens a Zendesk connector whose requests go to origin,
// with three quick retries, recording the retries announced.
func openUnreachable(t *testing.T, origin string) (tributary.Connector, func() []tributary.Retrying) {
	t.Helper()
	var mu sync.Mutex
	var seen []tributary.Retrying
	creds := map[string]any{"subdomain": "acme", "email": zendesktest.DefaultEmail, "api_token": zendesktest.DefaultAPIToken}
	conn, err := kinds.Open("zendesk-support", creds, tributary.WithBaseURL(origin),
		tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, MaxRateLimitWait: time.Second}),
		tributary.WithRetryHook(func(r tributary.Retrying) { mu.Lock(); seen = append(seen, r); mu.Unlock() }))
	if err != nil {
		t.Fatal(err)
	}
	return conn, func() []tributary.Retrying {
		mu.Lock()
		defer mu.Unlock()
		return append([]tributary.Retrying(nil), seen...)
	}
}

// A host whose name does not resolve is ErrUnreachable at once: named,
// with the likely cause, not retried, not Retryable.
func TestUnresolvableHost(t *testing.T) {
	conn, seen := openUnreachable(t, "https://acme.zendesk.invalid")
	_, err := conn.List(context.Background(), "tickets", nil)
	var te *tributary.Error
	if !errors.Is(err, tributary.ErrUnreachable) || !errors.As(err, &te) {
		t.Fatalf("error = %v, want ErrUnreachable", err)
	}
	if errors.Is(err, tributary.ErrServer) || te.Retryable {
		t.Errorf("error %v is ErrServer or retryable", err)
	}
	want := `tributary: zendesk-support tickets.list: unreachable host: cannot reach acme.zendesk.invalid: the DNS name "acme.zendesk.invalid" does not resolve (no such host); check the subdomain or instance URL, or the network`
	if err.Error() != want {
		t.Errorf("error\n %s\nwant\n %s", err, want)
	}
	if rs := seen(); len(rs) != 0 {
		t.Errorf("retried a name that does not resolve: %+v", rs)
	}
	if strings.Contains(err.Error(), zendesktest.DefaultAPIToken) {
		t.Error("the error leaks the token")
	}
}

// A port nothing listens on is retried, each retry announced, then
// ErrUnreachable naming the host and the number of attempts.
func TestClosedPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	conn, seen := openUnreachable(t, "http://"+addr)
	_, err = conn.List(context.Background(), "tickets", nil)
	var te *tributary.Error
	if !errors.Is(err, tributary.ErrUnreachable) || !errors.As(err, &te) || !te.Retryable {
		t.Fatalf("error = %v, want a retryable ErrUnreachable", err)
	}
	want := "tributary: zendesk-support tickets.list: unreachable host: cannot reach " + addr + ": connection refused (4 attempts); check the address, the network, a firewall or a proxy"
	if err.Error() != want {
		t.Errorf("error\n %s\nwant\n %s", err, want)
	}
	rs := seen()
	if len(rs) != 3 {
		t.Fatalf("%d retries announced, want 3", len(rs))
	}
	for i, r := range rs {
		if r.Attempt != i+2 || r.Attempts != 4 || !strings.Contains(r.Reason, "connection refused") || !strings.Contains(r.Reason, addr) {
			t.Errorf("retry %d = %+v", i, r)
		}
	}
}
