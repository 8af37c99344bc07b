package server_test

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/salesforce"
	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/server"
	"github.com/tributary-dev/tributary/store"
)

// Two service processes on one store hold the same OAuth connector whose
// refresh tokens are single-use (Zendesk rotates them). Their access
// tokens expire again and again under concurrent executes: every execute
// succeeds, each refresh token is spent once (the fake refuses a second
// use), and a third process started afterwards opens the newest pair from
// the store.
func TestOAuthRefreshSharedAcrossProcesses(t *testing.T) {
	t.Parallel()
	for _, b := range []struct {
		name string
		open func(t *testing.T) (*store.Store, *store.Store)
	}{
		{"sqlite", func(t *testing.T) (*store.Store, *store.Store) {
			path := filepath.Join(t.TempDir(), "serve.db")
			return openSQLiteAt(t, path), openSQLiteAt(t, path)
		}},
		{"postgres", func(t *testing.T) (*store.Store, *store.Store) {
			dsn := pgDSNFor(t)
			return openPostgresAt(t, dsn), openPostgresAt(t, dsn)
		}},
	} {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			st1, st2 := b.open(t)
			zd := zendesktest.New()
			defer zd.Close()
			keys := newKeys(t, "k1")
			withKeys := func(c *server.Config) { c.Keys = keys }
			s1 := start(t, st1, zd, withKeys)
			s2 := start(t, st2, zd, withKeys)
			tok1, tok2 := s1.token(t, clientA, ""), s2.token(t, clientA, "")
			a := s1.do(t, "POST", "/v1/integrations/connectors", tok1, map[string]any{"external_user_id": "u", "connector_type": "zendesk-support",
				"credentials": map[string]any{"subdomain": zendesktest.DefaultSubdomain, "access_token": zendesktest.DefaultAccessToken,
					"refresh_token": zendesktest.DefaultRefreshToken, "client_id": zendesktest.DefaultClientID, "client_secret": zendesktest.DefaultClientSecret}})
			id, _ := a.json["id"].(string)
			if a.status != 201 {
				t.Fatalf("create: %d %s", a.status, a.body)
			}
			list := map[string]any{"entity": "groups", "action": "list"}
			for round := range 5 {
				zd.ExpireAccessTokens()
				var wg sync.WaitGroup
				for i := range 16 {
					s, tok := s1, tok1
					if i%2 == 1 {
						s, tok = s2, tok2
					}
					wg.Go(func() {
						if a := s.execute(t, tok, id, list); a.status != 200 {
							t.Errorf("round %d: %d %s", round, a.status, a.body)
						}
					})
				}
				wg.Wait()
			}
			// A process that starts now reads the newest pair from the store.
			zd.ExpireAccessTokens()
			s3 := start(t, st1, zd, withKeys)
			if a := s3.execute(t, s3.token(t, clientA, ""), id, list); a.status != 200 {
				t.Errorf("a new process after the rotations: %d %s", a.status, a.body)
			}
			leaks(t, "the logs", s1.logs.String()+s2.logs.String()+s3.logs.String(), zd.RefreshToken(), zd.AccessToken(), zendesktest.DefaultClientSecret)
		})
	}
}

// A Salesforce connector created with a refresh token alone works from a
// second process that never refreshed: it adopts the first's token from
// the store. (With WithBaseURL the instance is the fake's either way; that
// the token response's instance_url travels with an adopted token is
// TestSavedTokenKeepsExtras.)
func TestSecondProcessAdoptsToken(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "serve.db")
	sf := salesforcetest.New()
	defer sf.Close()
	keys := newKeys(t, "k1")
	cfg := func(c *server.Config) {
		c.Keys = keys
		c.ConnectorOptions = map[string][]tributary.Option{salesforce.Type: {tributary.WithBaseURL(sf.URL)}}
	}
	s1 := start(t, openSQLiteAt(t, path), nil, cfg)
	tok1 := s1.token(t, clientA, "")
	id := s1.createSalesforce(t, tok1)
	list := map[string]any{"entity": "accounts", "action": "list", "params": map[string]any{"q": "SELECT Id, Name FROM Account"}}
	if a := s1.execute(t, tok1, id, list); a.status != 200 {
		t.Fatalf("first process: %d %.300s", a.status, a.body)
	}
	s2 := start(t, openSQLiteAt(t, path), nil, cfg)
	if a := s2.execute(t, s2.token(t, clientA, ""), id, list); a.status != 200 {
		t.Fatalf("second process, adopting the first's token: %d %.300s", a.status, a.body)
	}
}

// createSalesforce creates a Salesforce connector with the fake's client
// and a refresh token alone, and returns its id.
func (s *service) createSalesforce(t *testing.T, token string) string {
	t.Helper()
	a := s.do(t, "POST", "/v1/integrations/connectors", token, map[string]any{"external_user_id": "u", "connector_type": salesforce.Type,
		"credentials": map[string]any{"client_id": salesforcetest.DefaultClientID, "client_secret": salesforcetest.DefaultClientSecret,
			"refresh_token": salesforcetest.DefaultRefreshToken}})
	id, _ := a.json["id"].(string)
	if a.status != 201 || id == "" {
		t.Fatalf("create: %d %s", a.status, a.body)
	}
	return id
}
