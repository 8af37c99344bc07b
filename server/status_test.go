package server_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/server"
)

// refusingTransport answers every request 401 while refuse is set, and
// passes it on otherwise.
type refusingTransport struct{ refuse atomic.Bool }

func (rt *refusingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !rt.refuse.Load() {
		return http.DefaultTransport.RoundTrip(req)
	}
	body := `{"error":"Couldn't authenticate you"}`
	return &http.Response{StatusCode: http.StatusUnauthorized, Status: "401 Unauthorized", Request: req, ContentLength: int64(len(body)),
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body))}, nil
}

// copyFailure returns the failure of entity in a status answer (nil: none),
// failing the test when the copy is missing.
func copyFailure(t *testing.T, a answer, entity string) map[string]any {
	t.Helper()
	copies, _ := a.json["copies"].([]any)
	for _, c := range copies {
		c, _ := c.(map[string]any)
		if c["entity"] == entity {
			f, _ := c["failure"].(map[string]any)
			return f
		}
	}
	t.Fatalf("no copy %s in the status: %s", entity, a.body)
	return nil
}

// A connector whose credentials the vendor refuses: the background sync
// tries each copy once, the connector's status shows each copy's failure
// (class auth, no retry time, no credential) and the metric
// tributary_copy_failing is 1; once the credentials work and they are
// entered again (PATCH), the copies synchronize, the status shows no
// failure and the metric is 0. Another tenant sees no status.
func TestConnectorStatusShowsFailures(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			st := b.open(t)
			rt := &refusingTransport{}
			rt.refuse.Store(true)
			svc := start(t, st, nil, func(c *server.Config) {
				c.SyncEvery, c.SyncWorkers = time.Hour, 1
				c.ConnectorOptions[zendesk.Type] = append(c.ConnectorOptions[zendesk.Type],
					// The credentials worked when the connector was created.
					tributary.WithHTTPClient(&http.Client{Transport: &acceptedOnce{next: rt}}), tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
			})
			tok := svc.token(t, clientA, "")
			id := svc.create(t, tok, "u1")
			path := "/api/v1/connectors/sources/" + id
			var a answer
			deadline := time.Now().Add(10 * time.Second)
			for {
				a = svc.do(t, "GET", path, tok, nil)
				if a.status != http.StatusOK {
					t.Fatalf("status: %d %s", a.status, a.body)
				}
				if f := copyFailure(t, a, "tickets"); f != nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no failure recorded: %s", a.body)
				}
				time.Sleep(20 * time.Millisecond)
			}
			f := copyFailure(t, a, "tickets")
			if f["class"] != "auth" || f["failures"] != 1.0 || f["retry_at"] != nil || !strings.Contains(f["message"].(string), "unauthorized") {
				t.Fatalf("the failure: %v", f)
			}
			if a.json["id"] != id || a.json["connector_type"] != "zendesk-support" {
				t.Fatalf("status: %s", a.body)
			}
			leaks(t, "the status", string(a.body), zdSecrets()...)
			svc.metricsHave(t, fmt.Sprintf(`tributary_copy_failing{class="auth",connector=%q,entity="tickets"} 1`, id))
			if other := svc.do(t, "GET", "/api/v1/integrations/connectors/"+id, svc.token(t, clientB, ""), nil); other.status != http.StatusNotFound {
				t.Fatalf("another tenant's status: %d %s", other.status, other.body)
			}
			if a := svc.do(t, "GET", "/api/v1/integrations/connectors/"+id, tok, nil); a.status != http.StatusOK {
				t.Fatalf("the status at the other path: %d %s", a.status, a.body)
			}

			// The copy is not retried, however long the service runs.
			time.Sleep(300 * time.Millisecond)
			if f := copyFailure(t, svc.do(t, "GET", path, tok, nil), "tickets"); f["failures"] != 1.0 {
				t.Fatalf("retried: %v", f)
			}

			// The vendor takes the credentials again; entering them again
			// (PATCH) resets the connector's failures.
			rt.refuse.Store(false)
			if a := svc.do(t, "PATCH", path, tok, map[string]any{"credentials": zdCreds}); a.status != http.StatusOK {
				t.Fatalf("update: %d %s", a.status, a.body)
			}
			for {
				a = svc.do(t, "GET", path, tok, nil)
				if copyFailure(t, a, "tickets") == nil && strings.Contains(string(a.body), `"synced_at":"`) {
					break
				}
				if time.Now().After(deadline.Add(10 * time.Second)) {
					t.Fatalf("not synchronized after the reset: %s", a.body)
				}
				time.Sleep(20 * time.Millisecond)
			}
			svc.metricsHave(t, fmt.Sprintf(`tributary_copy_failing{class="",connector=%q,entity="tickets"} 0`, id))
		})
	}
}

func zdSecrets() []string {
	var out []string
	for _, v := range zdCreds {
		if s, ok := v.(string); ok && len(s) > 8 {
			out = append(out, s)
		}
	}
	return out
}
