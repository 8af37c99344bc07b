package fakeserver

import (
	"net/http"
	"net/url"
	"slices"
	"sync"
)

// Rerouter is an http.RoundTripper that sends every request to a fake,
// whatever host it names, and records where each was meant to go: a
// client that must call a vendor's own host (an Intercom region's) runs
// against the fake, and the test checks the host it called.
type Rerouter struct {
	to *url.URL

	mu   sync.Mutex
	sent []string
}

// Reroute returns a Rerouter to the fake's API origin.
func (s *Server) Reroute() *Rerouter {
	u, _ := url.Parse(s.URL)
	return &Rerouter{to: u}
}

// RoundTrip implements http.RoundTripper.
func (r *Rerouter) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.sent = append(r.sent, req.URL.Scheme+"://"+req.URL.Host+req.URL.Path)
	r.mu.Unlock()
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host, req.Host = r.to.Scheme, r.to.Host, ""
	return http.DefaultTransport.RoundTrip(req)
}

// Sent returns the URLs the requests were meant for (scheme, host and
// path), in order.
func (r *Rerouter) Sent() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.sent)
}
