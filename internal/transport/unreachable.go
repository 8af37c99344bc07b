package transport

import (
	"errors"
	"fmt"
	"net"
	"strings"
)

// permanent reports whether a transport error is an answer that the same
// request cannot change by being sent again: a DNS name that does not
// exist.
func permanent(err error) bool {
	var de *net.DNSError
	return errors.As(err, &de) && de.IsNotFound
}

// Unreachable describes a transport error that means the host could not be
// reached at all (no DNS answer, no connection), for a user: which host,
// what happened and the likely cause. host is the host (and port) the
// request was for. ok is false for every other error; retryable is false
// when the answer is permanent (the name does not resolve).
func Unreachable(err error, host string) (msg string, retryable, ok bool) {
	tries := ""
	if n := Attempts(err); n > 1 {
		tries = fmt.Sprintf(" (%d attempts)", n)
	}
	var de *net.DNSError
	if errors.As(err, &de) {
		name := de.Name
		if name == "" {
			name = host
		}
		if de.IsNotFound {
			return fmt.Sprintf("cannot reach %s: the DNS name %q does not resolve (no such host); check the subdomain or instance URL, or the network", host, name), false, true
		}
		return fmt.Sprintf("cannot reach %s: looking up %q failed (%s)%s; check the network and its DNS resolver", host, name, de.Err, tries), true, true
	}
	var te *TimeoutError
	if errors.As(err, &te) && te.Limit == LimitConnect {
		return fmt.Sprintf("cannot reach %s: no connection within %v%s; check the network, a firewall or a proxy", host, te.After, tries), true, true
	}
	var oe *net.OpError
	if errors.As(err, &oe) && (oe.Op == "dial" || oe.Op == "proxyconnect") {
		what := "cannot reach " + host
		if oe.Op == "proxyconnect" {
			what = "cannot reach the proxy for " + host
		}
		cause := "the connection failed"
		if oe.Err != nil {
			cause = oe.Err.Error()
			if i := strings.LastIndex(cause, ": "); i >= 0 { // "connect: connection refused"
				cause = cause[i+2:]
			}
		}
		if oe.Timeout() {
			cause = "the connection timed out"
		}
		return fmt.Sprintf("%s: %s%s; check the address, the network, a firewall or a proxy", what, cause, tries), true, true
	}
	return "", false, false
}
