package server_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/internal/race"
	"github.com/tributary-dev/tributary/kinds/intercom"
	"github.com/tributary-dev/tributary/kinds/intercom/intercomtest"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/server"
)

// parallelUnlessRace runs t beside the package's other parallel tests,
// except under the race detector: there a full synchronization of the
// Zendesk fake takes a good part of the hang guards of the tests that wait
// for one (20 s, 90 s), and several at once on two cores could outlast
// them, so those tests run one at a time, as they did.
func parallelUnlessRace(t *testing.T) {
	if !race.Enabled {
		t.Parallel()
	}
}

// waitStatus polls the status of connector id until ok accepts it.
func (s *service) waitStatus(t *testing.T, token, id, what string, ok func(a answer) bool) answer {
	t.Helper()
	// Generous: a connector's first round syncs its copies one after
	// another, and on a loaded two-core machine twelve of them took more
	// than 20 s. A state that never comes fails all the same.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		a := s.do(t, "GET", "/api/v1/connectors/sources/"+id, token, nil)
		if a.status != http.StatusOK {
			t.Fatalf("status: %d %s", a.status, a.body)
		}
		if ok(a) {
			return a
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s", what, a.body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A connector whose API token the vendor revoked fails with class auth and
// is not tried again. Updates that are not valid (no change, credentials
// of the wrong shape, an unknown field) answer 400 naming the parameter
// and change nothing; another tenant and another external user get 404.
// PATCH with a working token answers 200 with the connector's public
// fields: the failure is gone from the status at once, the metric
// tributary_copy_failing goes to 0, and the copy synchronizes. Neither
// the answers nor the log ever hold a token.
func TestUpdateCredentialsRetriesFailedCopies(t *testing.T) {
	parallelUnlessRace(t)
	const newToken = "NEW_API_TOKEN_0123456789"
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			parallelUnlessRace(t)
			st := b.open(t)
			// The fake accepts only the new token: the connector's is revoked.
			zd := zendesktest.New(zendesktest.WithCredentials(zendesktest.DefaultEmail, newToken))
			t.Cleanup(zd.Close)
			svc := start(t, st, zd, func(c *server.Config) {
				c.SyncEvery, c.SyncWorkers = time.Hour, 1
				c.ConnectorOptions[zendesk.Type] = append(c.ConnectorOptions[zendesk.Type],
					// The token worked when the connector was created.
					tributary.WithHTTPClient(&http.Client{Transport: &acceptedOnce{}}),
					tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
			})
			tok := svc.token(t, clientA, "")
			id := svc.create(t, tok, "u1")
			path := "/api/v1/connectors/sources/" + id
			a := svc.waitStatus(t, tok, id, "no failure recorded", func(a answer) bool { return copyFailure(t, a, "tickets") != nil })
			if f := copyFailure(t, a, "tickets"); f["class"] != "auth" || f["retry_at"] != nil {
				t.Fatalf("the failure: %v", f)
			}
			svc.metricsHave(t, fmt.Sprintf(`tributary_copy_failing{class="auth",connector=%q,entity="tickets"} 1`, id))
			time.Sleep(300 * time.Millisecond)
			if f := copyFailure(t, svc.do(t, "GET", path, tok, nil), "tickets"); f["failures"] != 1.0 {
				t.Fatalf("retried before the update: %v", f)
			}

			good := map[string]any{"credentials": map[string]any{"subdomain": zendesktest.DefaultSubdomain, "email": zendesktest.DefaultEmail, "api_token": newToken}}
			for _, c := range []struct {
				name       string
				body       any
				param, has string
			}{
				{"empty body", map[string]any{}, "credentials", "credentials"},
				{"null fields", `{"credentials":null,"replication_config":null}`, "credentials", "credentials"},
				{"credentials of the wrong shape", map[string]any{"credentials": map[string]any{"subdomain": "acme", "api_token": newToken}}, "credentials", "email"},
				{"replication_config for a kind that takes none", map[string]any{"credentials": good["credentials"], "replication_config": map[string]any{"start_date": "2024-01-01T00:00:00Z"}}, "replication_config", "takes no replication_config"},
				{"unknown field", map[string]any{"credential": good["credentials"]}, "", "credential"},
			} {
				a := svc.do(t, "PATCH", path, tok, c.body)
				e, _ := a.json["error"].(map[string]any)
				param, _ := e["param"].(string) // absent from the envelope when none
				if a.status != http.StatusBadRequest || param != c.param || !strings.Contains(fmt.Sprint(e["message"]), c.has) {
					t.Errorf("%s: %d %s", c.name, a.status, a.body)
				}
				leaks(t, c.name, string(a.body), newToken)
			}
			tokB, tokU2 := svc.token(t, clientB, ""), svc.token(t, clientA, "u2")
			for _, c := range []struct{ name, path, token string }{
				{"another tenant", path, tokB},
				{"another tenant, other path", "/api/v1/integrations/connectors/" + id, tokB},
				{"another external user", path, tokU2},
				{"no such connector", "/api/v1/connectors/sources/conn_000000000000000000000000", tok},
				{"not an id", "/api/v1/connectors/sources/no%20such", tok},
			} {
				if a := svc.do(t, "PATCH", c.path, c.token, good); a.status != http.StatusNotFound || a.errType() != "not_found" {
					t.Errorf("%s: %d %s", c.name, a.status, a.body)
				}
			}
			if a := svc.do(t, "PATCH", path, "", good); a.status != http.StatusUnauthorized {
				t.Errorf("without a token: %d %s", a.status, a.body)
			}
			// Nothing changed: the connector is at version 1, still failing.
			if row, err := st.Connector(context.Background(), id); err != nil || row.Version != 1 {
				t.Fatalf("after the refused updates: %v %v", row, err)
			}
			if f := copyFailure(t, svc.do(t, "GET", path, tok, nil), "tickets"); f == nil || f["failures"] != 1.0 {
				t.Fatalf("a refused update changed the failure: %v", f)
			}

			// The external user's own token updates it, at the other path.
			a = svc.do(t, "PATCH", "/api/v1/integrations/connectors/"+id, svc.token(t, clientA, "u1"), good)
			if a.status != http.StatusOK || a.json["id"] != id || a.json["connector_type"] != "zendesk-support" || a.json["external_user_id"] != "u1" ||
				a.json["name"] != "helpdesk" || a.json["created_at"] == nil || a.json["credentials"] != nil {
				t.Fatalf("update: %d %s", a.status, a.body)
			}
			leaks(t, "the update's answer", string(a.body), newToken, zendesktest.DefaultAPIToken)
			if f := copyFailure(t, svc.do(t, "GET", path, tok, nil), "tickets"); f != nil && f["failures"] == 1.0 && f["class"] == "auth" {
				// Only a new failure could be here, not the old one.
				t.Fatalf("the failure is still there after the update: %v", f)
			}
			svc.waitStatus(t, tok, id, "not synchronized after the update", func(a answer) bool {
				return copyFailure(t, a, "tickets") == nil && strings.Contains(string(a.body), `"entity":"tickets","synced_at":"`)
			})
			svc.metricsHave(t, fmt.Sprintf(`tributary_copy_failing{class="",connector=%q,entity="tickets"} 0`, id))
			if n, err := st.Count(context.Background(), id, "tickets"); err != nil || n != int64(zd.Total("tickets")) {
				t.Errorf("the copy holds %d tickets (%v), the fake %d", n, err, zd.Total("tickets"))
			}
			// A search answers with the new credentials too (the cached
			// connector was replaced).
			if a := svc.execute(t, tok, id, map[string]any{"entity": "tickets", "action": "list", "params": map[string]any{"per_page": 1}}); a.status != http.StatusOK {
				t.Fatalf("list after the update: %d %s", a.status, a.body)
			}
			logs := svc.logs.String()
			if !strings.Contains(logs, `"msg":"connector updated"`) {
				t.Errorf("no log line of the update")
			}
			leaks(t, "the log", logs, newToken, zendesktest.DefaultAPIToken, clientA.Secret, tok)
		})
	}
}

// Changing an Intercom connector's replication_config.start_date changes
// its copies' scope: the next synchronization walks the new scope in full
// (the replica records the scope in the checkpoint), so the copy of a
// connector created with a start date in the future, empty, holds every
// contact after the start date moves to the past. An unknown key is
// refused with a suggestion, and changes nothing.
func TestUpdateReplicationConfigChangesTheScope(t *testing.T) {
	t.Parallel()
	ic := intercomtest.New()
	t.Cleanup(ic.Close)
	st := sqliteStore(t)
	svc := start(t, st, nil, func(c *server.Config) {
		c.SyncEvery, c.SyncWorkers = 300*time.Millisecond, 1
		c.ConnectorOptions[intercom.Type] = []tributary.Option{tributary.WithBaseURL(ic.URL)}
	})
	tok := svc.token(t, clientA, "")
	a := svc.do(t, "POST", "/v1/integrations/connectors", tok, map[string]any{"external_user_id": "u1", "connector_type": intercom.Type,
		"credentials": map[string]any{"access_token": intercomtest.DefaultAccessToken}, "replication_config": map[string]any{"start_date": "2099-01-01T00:00:00Z"}})
	id, _ := a.json["id"].(string)
	if a.status != http.StatusCreated || id == "" {
		t.Fatalf("create: %d %s", a.status, a.body)
	}
	ctx := context.Background()
	synced := func(a answer) bool { return strings.Contains(string(a.body), `"entity":"contacts","synced_at":"`) }
	svc.waitStatus(t, tok, id, "contacts not synchronized", synced)
	if n, err := st.Count(ctx, id, "contacts"); err != nil || n != 0 {
		t.Fatalf("with a start date in the future the copy holds %d contacts (%v)", n, err)
	}

	path := "/api/v1/connectors/sources/" + id
	a = svc.do(t, "PATCH", path, tok, map[string]any{"replication_config": map[string]any{"start_dte": "2000-01-01T00:00:00Z"}})
	e, _ := a.json["error"].(map[string]any)
	if a.status != http.StatusBadRequest || e["param"] != "replication_config.start_dte" || !strings.Contains(fmt.Sprint(e["message"]), `did you mean "start_date"`) {
		t.Fatalf("unknown key: %d %s", a.status, a.body)
	}
	if row, err := st.Connector(ctx, id); err != nil || row.Version != 1 || !strings.Contains(string(row.Replication), "2099") {
		t.Fatalf("after the refused update: %v %v", row, err)
	}

	a = svc.do(t, "PATCH", path, tok, map[string]any{"replication_config": map[string]any{"start_date": "2000-01-01T00:00:00Z"}})
	if a.status != http.StatusOK || a.json["id"] != id {
		t.Fatalf("update: %d %s", a.status, a.body)
	}
	leaks(t, "the update's answer", string(a.body), intercomtest.DefaultAccessToken)
	row, err := st.Connector(ctx, id)
	if err != nil || row.Version != 2 || !strings.Contains(string(row.Replication), "2000-01-01") {
		t.Fatalf("after the update: %v %v", row, err)
	}
	want := int64(len(ic.IDs("contacts")))
	if want == 0 {
		t.Fatal("the fake has no contacts: the test proves nothing")
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		n, err := st.Count(ctx, id, "contacts")
		if err != nil {
			t.Fatal(err)
		}
		if n == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the copy holds %d contacts after the start date moved, the fake %d", n, want)
		}
	}
	// The credentials were kept: the connector still opens and lists.
	if a := svc.execute(t, tok, id, map[string]any{"entity": "contacts", "action": "list"}); a.status != http.StatusOK {
		t.Fatalf("list after the update: %d %s", a.status, a.body)
	}
	leaks(t, "the log", svc.logs.String(), intercomtest.DefaultAccessToken)
}

// The hosted client's UpdateConnector against the service, on both path
// sets: a working token replaces a revoked one and the copy synchronizes;
// a body the service refuses comes back as ErrInvalidParams naming the
// parameter, an unknown connector as ErrNotFound, a change of nothing is
// refused before sending; no error holds a credential.
func TestHostedUpdateConnector(t *testing.T) {
	parallelUnlessRace(t)
	const newToken = "NEW_API_TOKEN_hosted_0123456789"
	for name, paths := range map[string]hosted.Paths{"default": hosted.DefaultPaths, "integrations": hosted.IntegrationsPaths} {
		t.Run(name, func(t *testing.T) {
			parallelUnlessRace(t)
			zd := zendesktest.New(zendesktest.WithCredentials(zendesktest.DefaultEmail, newToken))
			t.Cleanup(zd.Close)
			st := sqliteStore(t)
			svc := start(t, st, zd, func(c *server.Config) {
				c.SyncEvery, c.SyncWorkers = time.Hour, 1
				// The token worked when the connector was created.
				c.ConnectorOptions[zendesk.Type] = append(c.ConnectorOptions[zendesk.Type], tributary.WithHTTPClient(&http.Client{Transport: &acceptedOnce{}}))
			})
			ctx := context.Background()
			c, err := hosted.New(hosted.Config{BaseURL: svc.url, ClientID: clientA.ID, ClientSecret: clientA.Secret, ExternalUserID: "u1", Paths: paths})
			if err != nil {
				t.Fatal(err)
			}
			id, err := c.CreateConnector(ctx, hosted.CreateRequest{ConnectorType: zendesk.Type, Credentials: zdCreds})
			if err != nil {
				t.Fatal(err)
			}
			tok := svc.token(t, clientA, "")
			svc.waitStatus(t, tok, id, "no failure recorded", func(a answer) bool { return copyFailure(t, a, "tickets") != nil })

			good := map[string]any{"subdomain": zendesktest.DefaultSubdomain, "email": zendesktest.DefaultEmail, "api_token": newToken}
			err = c.UpdateConnector(ctx, id, hosted.UpdateRequest{Credentials: good, ReplicationConfig: map[string]any{"start_date": "2024-01-01T00:00:00Z"}})
			var te *tributary.Error
			if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) || te.Param != "replication_config" || te.StatusCode != http.StatusBadRequest {
				t.Fatalf("a replication_config zendesk does not take: %#v", err)
			}
			leaks(t, "the error", err.Error(), newToken)
			if err := c.UpdateConnector(ctx, "conn_000000000000000000000000", hosted.UpdateRequest{Credentials: good}); !errors.Is(err, tributary.ErrNotFound) {
				t.Fatalf("an unknown connector: %v", err)
			}
			if err := c.UpdateConnector(ctx, id, hosted.UpdateRequest{}); !errors.Is(err, tributary.ErrInvalidParams) {
				t.Fatalf("no change: %v", err)
			}
			err = c.UpdateConnector(ctx, id, hosted.UpdateRequest{ConnectorType: zendesk.Type, Credentials: map[string]any{"subdomain": "acme", "api_token": newToken}})
			if !errors.Is(err, tributary.ErrInvalidCredentials) {
				t.Fatalf("credentials of the wrong shape, checked before sending: %v", err)
			}
			leaks(t, "the error", err.Error(), newToken)
			if s := fmt.Sprintf("%v %+v", hosted.UpdateRequest{Credentials: good}, hosted.UpdateRequest{Credentials: good}); strings.Contains(s, newToken) {
				t.Errorf("printing an UpdateRequest shows the token: %s", s)
			}
			if row, err := st.Connector(ctx, id); err != nil || row.Version != 1 {
				t.Fatalf("after the refused updates: %v %v", row, err)
			}

			if err := c.UpdateConnector(ctx, id, hosted.UpdateRequest{ConnectorType: zendesk.Type, Credentials: good}); err != nil {
				t.Fatal(err)
			}
			svc.waitStatus(t, tok, id, "not synchronized after the update", func(a answer) bool {
				return copyFailure(t, a, "tickets") == nil && strings.Contains(string(a.body), `"entity":"tickets","synced_at":"`)
			})
			conn, err := c.Connector(id, zendesk.Type)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := conn.List(ctx, "tickets", tributary.Params{"per_page": 1}); err != nil {
				t.Fatalf("list through the client after the update: %v", err)
			}
			leaks(t, "the log", svc.logs.String(), newToken, zendesktest.DefaultAPIToken)
		})
	}
}
