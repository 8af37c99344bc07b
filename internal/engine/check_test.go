package engine

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary"
)

type okFalse struct{}

func (okFalse) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(`{"ok":false,"error":"invalid_auth"}`)), Request: r}, nil
}

// TestCheckCredentialsReadsTheBody: a credential check answered with a
// failure inside a 2xx body (Slack's auth.test: 200, ok false) fails as
// the kind's error rule maps it.
func TestCheckCredentialsReadsTheBody(t *testing.T) {
	c, err := Open(Setup{Kind: &Kind{Type: "chat", Check: &Route{Path: "/auth.test"},
		Errors: &ErrorRule{OK: "ok", Code: "error", Codes: map[string]error{"invalid_auth": tributary.ErrUnauthorized}}},
		DefaultBaseURL: "https://api.example.com", Options: tributary.NewOptions(tributary.WithHTTPClient(&http.Client{Transport: okFalse{}}))})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CheckCredentials(context.Background()); !errors.Is(err, tributary.ErrUnauthorized) {
		t.Errorf("CheckCredentials: %v, want ErrUnauthorized", err)
	}
}
