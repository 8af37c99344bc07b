package main

import (
	"net"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

var unreachableEnv = map[string]string{
	"TRIBUTARY_ZENDESK_SUPPORT_SUBDOMAIN": "acme",
	"TRIBUTARY_ZENDESK_SUPPORT_EMAIL":     zendesktest.DefaultEmail,
	"TRIBUTARY_ZENDESK_SUPPORT_API_TOKEN": zendesktest.DefaultAPIToken,
}

// On a terminal, each retry of a failed connection is a line on stderr as
// it happens, and the error names the host and what to check.
func TestUnreachableRetriesShown(t *testing.T) {
	addr := freeAddr(t)
	args := []string{"exec", "zendesk-support", "tickets", "list", "--base-url", "http://" + addr, "--retries", "2", "--no-progress"}
	r := invocation{env: unreachableEnv, isTerminal: true}.run(t, args...)
	if r.code != exitOther {
		t.Errorf("exit %d, want %d", r.code, exitOther)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != 3 {
		t.Fatalf("stderr has %d lines, want 2 retries and the error:\n%s", len(lines), r.stderr)
	}
	for i, want := range []string{"(attempt 2/3): dial tcp " + addr + ": connect: connection refused", "(attempt 3/3): dial tcp " + addr} {
		if !strings.Contains(lines[i], "retrying in ") || !strings.Contains(lines[i], want) {
			t.Errorf("line %d = %q, want a retry line with %q", i, lines[i], want)
		}
	}
	want := "tickets.list: unreachable host: cannot reach " + addr + ": connection refused (3 attempts); check the address, the network, a firewall or a proxy"
	if !strings.Contains(lines[2], want) {
		t.Errorf("error line %q lacks %q", lines[2], want)
	}

	// Not on a terminal: no retry lines, only the error.
	r = invocation{env: unreachableEnv}.run(t, args...)
	if strings.Contains(r.stderr, "retrying") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Errorf("stderr off a terminal:\n%s", r.stderr)
	}

	// A name that does not resolve: no retries, the likely cause, and the
	// type "unreachable" for --json-errors.
	r = invocation{env: unreachableEnv, isTerminal: true}.run(t, "exec", "zendesk-support", "tickets", "list",
		"--base-url", "https://acme.zendesk.invalid", "--json-errors", "--no-progress")
	if strings.Contains(r.stderr, "retrying") || !strings.Contains(r.stderr, `"type":"unreachable"`) ||
		!strings.Contains(r.stderr, `does not resolve (no such host); check the subdomain or instance URL, or the network`) {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}

// freeAddr returns a loopback address where nothing listens (it did a
// moment ago, which the kernel does not give out again at once).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
