package server_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/server"
)

// envelope checks that a is an error answer in the one envelope: status
// "error", and an error object with the type, the message, this answer's
// status and request id, and retryable, plus only the optional fields
// the envelope names. It returns the error object.
func envelope(t *testing.T, what string, a answer, status int, typ string) map[string]any {
	t.Helper()
	if a.status != status || a.json["status"] != "error" || a.header.Get("Content-Type") != "application/json" {
		t.Fatalf("%s: %d %s %s, want %d and the error envelope", what, a.status, a.header.Get("Content-Type"), a.body, status)
	}
	e, _ := a.json["error"].(map[string]any)
	if e["type"] != typ || e["status"] != float64(status) || str(e["message"]) == "" {
		t.Errorf("%s: error %v, want type %s and status %d", what, e, typ, status)
	}
	if id := str(e["request_id"]); id == "" || id != a.header.Get("X-Request-Id") {
		t.Errorf("%s: request_id %q, want the X-Request-Id %q", what, id, a.header.Get("X-Request-Id"))
	}
	if _, ok := e["retryable"].(bool); !ok {
		t.Errorf("%s: no retryable: %v", what, e)
	}
	known := []string{"type", "message", "status", "request_id", "retryable", "param", "code", "retry_after_seconds", "source_status", "source_request_id"}
	for k := range e {
		if !slices.Contains(known, k) {
			t.Errorf("%s: field %q is not in the envelope: %s", what, k, a.body)
		}
	}
	for _, k := range []string{"param", "code", "source_request_id"} {
		if v, ok := e[k]; ok && v == "" {
			t.Errorf("%s: empty %s sent", what, k)
		}
	}
	return e
}

func str(v any) string { s, _ := v.(string); return s }

// Every error path answers in one envelope: the service's own errors
// (auth, an unknown connector, a bad body), validation and the vendor's.
func TestOneErrorEnvelope(t *testing.T) {
	s := start(t, sqliteStore(t), nil, nil)
	tok := s.token(t, clientA, "user-1")
	id := s.create(t, tok, "user-1")
	exec := "/api/v1/connectors/sources/" + id + "/execute"

	envelope(t, "no token", s.do(t, "POST", exec, "", map[string]any{"entity": "tickets", "action": "list"}), http.StatusUnauthorized, "unauthorized")
	envelope(t, "bad client secret", s.do(t, "POST", "/api/v1/account/applications/token", "", map[string]any{"client_id": clientA.ID, "client_secret": "wrong-secret-0123456789"}), http.StatusUnauthorized, "unauthorized")
	envelope(t, "unknown connector", s.execute(t, tok, "nope", map[string]any{"entity": "tickets", "action": "list"}), http.StatusNotFound, "not_found")
	envelope(t, "no such endpoint", s.do(t, "GET", "/api/v2/elsewhere", tok, nil), http.StatusNotFound, "not_found")
	envelope(t, "malformed body", s.do(t, "POST", exec, tok, "{"), http.StatusBadRequest, "invalid_params")

	e := envelope(t, "validation", s.execute(t, tok, id, map[string]any{"entity": "tickets", "action": "get", "params": map[string]any{"ticket_id": "abc"}}), http.StatusBadRequest, "invalid_params")
	if e["param"] != "ticket_id" || e["message"] != `must be an integer, got a string "abc"` || e["retryable"] != false {
		t.Errorf("validation: %v", e)
	}
	if _, ok := e["source_status"]; ok {
		t.Errorf("validation: a source_status though nothing was sent: %v", e)
	}

	e = envelope(t, "vendor 404", s.execute(t, tok, id, map[string]any{"entity": "tickets", "action": "get", "params": map[string]any{"ticket_id": 999999999}}), http.StatusNotFound, "not_found")
	if e["source_status"] != float64(404) {
		t.Errorf("vendor 404: %v", e)
	}

	// The hosted client reads the envelope back: the vendor's status,
	// else the service's, and the service's request id for its own errors.
	c, err := hosted.New(hosted.Config{BaseURL: s.url, ClientID: clientA.ID, ClientSecret: clientA.Secret, ExternalUserID: "user-1"})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := c.Connector(id, zendesk.Type)
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Get(context.Background(), "tickets", tributary.Params{"ticket_id": 999999999})
	var te *tributary.Error
	if !errors.Is(err, tributary.ErrNotFound) || !errors.As(err, &te) || te.StatusCode != 404 || te.Retryable {
		t.Errorf("hosted, vendor 404: %v", err)
	}
	bad, err := hosted.New(hosted.Config{BaseURL: s.url, Token: "not-a-token-of-this-service"})
	if err != nil {
		t.Fatal(err)
	}
	badConn, err := bad.Connector(id, zendesk.Type)
	if err != nil {
		t.Fatal(err)
	}
	_, err = badConn.List(context.Background(), "tickets", nil)
	if !errors.Is(err, tributary.ErrUnauthorized) || !errors.As(err, &te) || te.StatusCode != 401 || te.RequestID == "" || te.Retryable {
		t.Errorf("hosted, bad token: %v (%+v)", err, te)
	}
}

// A vendor whose host does not resolve is a 502 of type "unreachable",
// not retryable, naming the host; the hosted client reads it back as
// ErrUnreachable.
func TestUnreachableVendor(t *testing.T) {
	s := start(t, sqliteStore(t), nil, func(c *server.Config) {
		c.ConnectorOptions = map[string][]tributary.Option{zendesk.Type: {tributary.WithBaseURL("https://acme.zendesk.invalid")}}
	})
	tok := s.token(t, clientA, "user-1")
	id := s.create(t, tok, "user-1")
	e := envelope(t, "unreachable", s.execute(t, tok, id, map[string]any{"entity": "tickets", "action": "list"}), http.StatusBadGateway, "unreachable")
	if e["retryable"] != false || !strings.Contains(str(e["message"]), `the DNS name "acme.zendesk.invalid" does not resolve`) {
		t.Errorf("unreachable: %v", e)
	}

	c, err := hosted.New(hosted.Config{BaseURL: s.url, ClientID: clientA.ID, ClientSecret: clientA.Secret, ExternalUserID: "user-1"})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := c.Connector(id, zendesk.Type)
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.List(context.Background(), "tickets", nil)
	var te *tributary.Error
	if !errors.Is(err, tributary.ErrUnreachable) || !errors.As(err, &te) || te.Retryable || te.StatusCode != http.StatusBadGateway ||
		!strings.Contains(te.Message, "acme.zendesk.invalid") {
		t.Errorf("hosted: %v (%+v)", err, te)
	}
}
