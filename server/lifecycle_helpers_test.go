package server_test

import (
	"io"
	"net/http"
	"strings"
	"sync/atomic"
)

// zendeskCheckPath is Zendesk's credential check, the request a create or
// a credentials update sends first.
const zendeskCheckPath = "/api/v2/users/me.json"

// acceptedOnce stands for credentials the vendor accepted when the
// connector was created and revoked since: it answers the first
// credential check itself, as Zendesk does for working credentials, and
// sends every other request on (to next, or the default transport).
type acceptedOnce struct {
	next     http.RoundTripper
	answered atomic.Bool
}

func (a *acceptedOnce) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Path == zendeskCheckPath && a.answered.CompareAndSwap(false, true) {
		body := `{"user":{"id":1,"name":"Agent","email":"agent@example.com","role":"admin","active":true}}`
		return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Request: req, ContentLength: int64(len(body)),
			Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body))}, nil
	}
	next := a.next
	if next == nil {
		next = http.DefaultTransport
	}
	return next.RoundTrip(req)
}
