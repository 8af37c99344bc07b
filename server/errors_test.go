package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
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
	t.Parallel()
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

	e = envelope(t, "a date that is not RFC 3339", s.execute(t, tok, id, map[string]any{"entity": "tickets", "action": "search",
		"params": map[string]any{"query": map[string]any{"filter": map[string]any{"gt": map[string]any{"created_at": "yesterday"}}}}}), http.StatusBadRequest, "invalid_params")
	if e["param"] != "created_at" || !strings.Contains(str(e["message"]), `created_at is a date-time: "yesterday" is not RFC 3339 (e.g. 2024-01-31T00:00:00Z)`) {
		t.Errorf("a date that is not RFC 3339: %v", e)
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
	t.Parallel()
	s := start(t, sqliteStore(t), nil, func(c *server.Config) {
		// The vendor was reachable when the connector was created.
		c.ConnectorOptions = map[string][]tributary.Option{zendesk.Type: {tributary.WithBaseURL("https://acme.zendesk.invalid"),
			tributary.WithHTTPClient(&http.Client{Transport: &acceptedOnce{}})}}
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

// rangeDo sends a download execute with a Range header.
func (s *service) rangeDo(t *testing.T, token, id string, params map[string]any, rng string) answer {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"entity": "attachments", "action": "download", "params": params})
	req, err := http.NewRequest("POST", s.url+"/api/v1/connectors/sources/"+id+"/execute", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	if rng != "" {
		req.Header.Set("Range", rng)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := answer{status: resp.StatusCode, header: resp.Header, body: raw}
	_ = json.Unmarshal(raw, &a.json)
	return a
}

// The HTTP Range header of a download is honoured like
// params.range_header: 206 with Content-Range and the bytes asked for,
// 416 for a range the file cannot satisfy or that is not one.
func TestDownloadRangeHeader(t *testing.T) {
	t.Parallel()
	zd := zendesktest.New(zendesktest.WithAttachmentSize(1000))
	t.Cleanup(zd.Close)
	s := start(t, sqliteStore(t), zd, nil)
	tok := s.token(t, clientA, "user-1")
	id := s.create(t, tok, "user-1")
	att := zendesktest.AttachmentID(0, 0, 0)
	want, ok := zd.FileContent(att)
	if !ok || len(want) < 200 {
		t.Fatalf("no attachment %d (%d bytes)", att, len(want))
	}
	size := strconv.Itoa(len(want))
	p := map[string]any{"attachment_id": att}

	a := s.rangeDo(t, tok, id, p, "")
	if a.status != http.StatusOK || !bytes.Equal(a.body, want) || a.header.Get("Content-Range") != "" {
		t.Fatalf("whole file: %d, %d bytes, Content-Range %q", a.status, len(a.body), a.header.Get("Content-Range"))
	}
	for rng, c := range map[string]struct {
		first, last int
	}{"bytes=100-199": {100, 199}, "bytes=900-": {900, len(want) - 1}, "bytes=-50": {len(want) - 50, len(want) - 1}} {
		a := s.rangeDo(t, tok, id, p, rng)
		wantCR := "bytes " + strconv.Itoa(c.first) + "-" + strconv.Itoa(c.last) + "/" + size
		if a.status != http.StatusPartialContent || a.header.Get("Content-Range") != wantCR || !bytes.Equal(a.body, want[c.first:c.last+1]) ||
			a.header.Get("Content-Length") != strconv.Itoa(c.last-c.first+1) {
			t.Errorf("Range %s: %d, Content-Range %q (want %q), %d bytes", rng, a.status, a.header.Get("Content-Range"), wantCR, len(a.body))
		}
	}
	// The same range twice is fine; two different ones are refused.
	if a := s.rangeDo(t, tok, id, map[string]any{"attachment_id": att, "range_header": "bytes=0-9"}, "bytes=0-9"); a.status != http.StatusPartialContent || !bytes.Equal(a.body, want[:10]) {
		t.Errorf("Range and the same range_header: %d %q", a.status, a.body)
	}
	e := envelope(t, "two ranges", s.rangeDo(t, tok, id, map[string]any{"attachment_id": att, "range_header": "bytes=0-9"}, "bytes=10-19"), http.StatusBadRequest, "invalid_params")
	if e["param"] != "range_header" {
		t.Errorf("two ranges: %v", e)
	}
	envelope(t, "unsatisfiable", s.rangeDo(t, tok, id, p, "bytes=5000-5999"), http.StatusRequestedRangeNotSatisfiable, "invalid_params")
	e = envelope(t, "not a range", s.rangeDo(t, tok, id, p, "bytes=0-1,5-6"), http.StatusRequestedRangeNotSatisfiable, "invalid_params")
	if !strings.Contains(str(e["message"]), "Range header") {
		t.Errorf("not a range: %v", e)
	}
}
