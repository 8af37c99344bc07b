package server_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/sandbox"
	"github.com/tributary-dev/tributary/server"
	"github.com/tributary-dev/tributary/store"
)

// createNamed creates a connector of kind for user with creds and name.
func (s *service) createNamed(t *testing.T, token, user, kind, name string, creds map[string]any) string {
	t.Helper()
	a := s.do(t, "POST", "/v1/integrations/connectors", token, map[string]any{
		"external_user_id": user, "connector_type": kind, "name": name, "credentials": creds})
	id, _ := a.json["id"].(string)
	if a.status != http.StatusCreated || id == "" {
		t.Fatalf("create %s: %d %s", name, a.status, a.body)
	}
	return id
}

// names are the names of a list answer's connectors, in order.
func names(t *testing.T, a answer) []string {
	t.Helper()
	if a.status != http.StatusOK {
		t.Fatalf("list: %d %s", a.status, a.body)
	}
	var out []string
	data, _ := a.json["data"].([]any)
	for _, d := range data {
		m, _ := d.(map[string]any)
		out = append(out, m["name"].(string))
	}
	return out
}

// The list endpoint: a tenant's connectors newest first with their public
// fields and status, never their credentials; filtered by end user and
// kind; paged with an opaque cursor; a user's token sees its user's only;
// another tenant sees none; bad parameters are 400 naming them; every path
// set answers alike; the hosted client reads it page by page.
func TestListConnectors(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			sb := sandbox.New()
			t.Cleanup(sb.Close)
			ghOpts, err := sb.Options("github")
			if err != nil {
				t.Fatal(err)
			}
			svc := start(t, b.open(t), nil, func(c *server.Config) { c.ConnectorOptions["github"] = ghOpts })
			tok := svc.token(t, clientA, "")
			svc.createNamed(t, tok, "u1", zendesk.Type, "z1", zdCreds)
			svc.createNamed(t, tok, "u2", zendesk.Type, "z2", zdCreds)
			g1 := svc.createNamed(t, tok, "u1", "github", "g1", sb.Credentials("github"))
			svc.createNamed(t, tok, "u1", zendesk.Type, "z3", zdCreds)
			svc.createNamed(t, svc.token(t, clientB, ""), "u1", zendesk.Type, "b1", zdCreds)

			for _, p := range []string{"/v1/integrations/connectors", "/api/v1/integrations/connectors", "/api/v1/connectors/sources"} {
				a := svc.do(t, "GET", p, tok, nil)
				if got := names(t, a); !slices.Equal(got, []string{"z3", "g1", "z2", "z1"}) {
					t.Fatalf("%s: %v", p, got)
				}
				if a.json["has_more"] != false || a.json["next_cursor"] != nil {
					t.Fatalf("%s: one page: %s", p, a.body)
				}
			}
			a := svc.do(t, "GET", "/v1/integrations/connectors?connector_type=github", tok, nil)
			item := a.json["data"].([]any)[0].(map[string]any)
			created, _ := time.Parse(time.RFC3339, item["created_at"].(string))
			if len(item) != 7 || item["last_used_at"] != nil || item["id"] != g1 || item["connector_type"] != "github" || item["external_user_id"] != "u1" ||
				item["status"] != "healthy" || time.Since(created) > time.Minute {
				t.Fatalf("an item: %v", item)
			}
			leaks(t, "the list", string(a.body), append(zdSecrets(), "TEST_TOKEN")...)

			for q, want := range map[string][]string{
				"?external_user_id=u1":                                {"z3", "g1", "z1"},
				"?connector_type=zendesk-support":                     {"z3", "z2", "z1"},
				"?external_user_id=u1&connector_type=zendesk-support": {"z3", "z1"},
				"?external_user_id=nobody":                            nil,
			} {
				if got := names(t, svc.do(t, "GET", "/v1/integrations/connectors"+q, tok, nil)); !slices.Equal(got, want) {
					t.Errorf("%s: %v, want %v", q, got, want)
				}
			}

			// Pages of 3 then 1, following the cursor.
			a = svc.do(t, "GET", "/v1/integrations/connectors?limit=3", tok, nil)
			cursor, _ := a.json["next_cursor"].(string)
			if got := names(t, a); !slices.Equal(got, []string{"z3", "g1", "z2"}) || a.json["has_more"] != true || cursor == "" {
				t.Fatalf("first page: %s", a.body)
			}
			a = svc.do(t, "GET", "/v1/integrations/connectors?limit=3&cursor="+cursor, tok, nil)
			if got := names(t, a); !slices.Equal(got, []string{"z1"}) || a.json["has_more"] != false || a.json["next_cursor"] != nil {
				t.Fatalf("second page: %s", a.body)
			}

			// A user's token: its own connectors, and no other user's.
			u2 := svc.token(t, clientA, "u2")
			if got := names(t, svc.do(t, "GET", "/v1/integrations/connectors", u2, nil)); !slices.Equal(got, []string{"z2"}) {
				t.Fatalf("u2's token: %v", got)
			}
			if a := svc.do(t, "GET", "/v1/integrations/connectors?external_user_id=u1", u2, nil); a.status != http.StatusForbidden {
				t.Fatalf("u2's token asking for u1's: %d %s", a.status, a.body)
			}
			if got := names(t, svc.do(t, "GET", "/v1/integrations/connectors", svc.token(t, clientB, ""), nil)); !slices.Equal(got, []string{"b1"}) {
				t.Fatalf("tenant B: %v", got)
			}
			if a := svc.do(t, "GET", "/v1/integrations/connectors", "", nil); a.status != http.StatusUnauthorized {
				t.Fatalf("no token: %d", a.status)
			}
			for q, param := range map[string]string{"?limit=0": "limit", "?limit=101": "limit", "?limit=x": "limit",
				"?cursor=bm90LWEtY3Vyc29y": "cursor", "?cursor=%25": "cursor", "?connector_type=zendsk": "connector_type"} {
				a := svc.do(t, "GET", "/v1/integrations/connectors"+q, tok, nil)
				e, _ := a.json["error"].(map[string]any)
				if a.status != http.StatusBadRequest || e["param"] != param {
					t.Errorf("%s: %d %s", q, a.status, a.body)
				}
			}

			// The hosted client, two at a time, on both path sets.
			for _, paths := range []hosted.Paths{hosted.DefaultPaths, hosted.IntegrationsPaths} {
				c, err := hosted.New(hosted.Config{BaseURL: svc.url, ClientID: clientA.ID, ClientSecret: clientA.Secret, Paths: paths})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for ci, err := range c.ListConnectors(context.Background(), hosted.ListOptions{PageSize: 2}) {
					if err != nil {
						t.Fatal(err)
					}
					if ci.Status != "healthy" || ci.CreatedAt.IsZero() || ci.ID == "" {
						t.Fatalf("hosted item: %+v", ci)
					}
					got = append(got, ci.Name)
				}
				if !slices.Equal(got, []string{"z3", "g1", "z2", "z1"}) {
					t.Fatalf("hosted list: %v", got)
				}
				for _, err := range c.ListConnectors(context.Background(), hosted.ListOptions{PageSize: 500}) {
					if !errors.Is(err, tributary.ErrInvalidParams) {
						t.Fatalf("page size 500: %v", err)
					}
				}
			}
		})
	}
}

// recorder records the method and path of every request to the vendor.
type recorder struct {
	mu    sync.Mutex
	paths []string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.paths = append(r.paths, req.Method+" "+req.URL.Path)
	r.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.paths
	r.paths = nil
	return out
}

// countEvents counts the events in the SQLite store at path.
func countEvents(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM tributary_events").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Credentials the vendor refuses are refused at creation: 400
// invalid_credentials naming credentials, after one request to Zendesk's
// GET /api/v2/users/me.json, and no connector nor event is stored; the
// hosted client reads it as ErrInvalidCredentials. A credentials update
// the vendor refuses changes nothing: the old credentials still work. A
// vendor that cannot be reached is 502, and nothing is stored either.
func TestCreateRefusesBadCredentials(t *testing.T) {
	const wrong = "WRONG_TOKEN_0123456789abcdef"
	path := filepath.Join(t.TempDir(), "serve.db")
	st := openSQLiteAt(t, path)
	rec := &recorder{}
	svc := start(t, st, nil, func(c *server.Config) {
		c.ConnectorOptions[zendesk.Type] = append(c.ConnectorOptions[zendesk.Type], tributary.WithHTTPClient(&http.Client{Transport: rec}))
	})
	tok := svc.token(t, clientA, "")
	bad := map[string]any{"subdomain": zendesktest.DefaultSubdomain, "email": zendesktest.DefaultEmail, "api_token": wrong}
	for _, p := range []string{"/v1/integrations/connectors", "/api/v1/integrations/connectors"} {
		a := svc.do(t, "POST", p, tok, map[string]any{"external_user_id": "u1", "connector_type": zendesk.Type, "credentials": bad})
		e, _ := a.json["error"].(map[string]any)
		if a.status != http.StatusBadRequest || a.errType() != "invalid_credentials" || e["param"] != "credentials" ||
			!strings.Contains(str(e["message"]), "refused by zendesk-support") {
			t.Fatalf("%s: %d %s", p, a.status, a.body)
		}
		leaks(t, "the answer", string(a.body), wrong)
		if got := rec.take(); !slices.Equal(got, []string{"GET " + zendeskCheckPath}) {
			t.Fatalf("requests to the vendor: %q", got)
		}
	}
	c, err := hosted.New(hosted.Config{BaseURL: svc.url, ClientID: clientA.ID, ClientSecret: clientA.Secret, ExternalUserID: "u1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.CreateConnector(context.Background(), hosted.CreateRequest{ConnectorType: zendesk.Type, Credentials: bad})
	var te *tributary.Error
	if !errors.Is(err, tributary.ErrInvalidCredentials) || !errors.As(err, &te) || te.Param != "credentials" || te.StatusCode != http.StatusBadRequest {
		t.Fatalf("hosted create: %v", err)
	}
	leaks(t, "the hosted error", err.Error(), wrong)
	if rows, err := st.ListConnectors(context.Background(), ""); err != nil || len(rows) != 0 {
		t.Fatalf("stored: %v %v", rows, err)
	}
	if n := countEvents(t, path); n != 0 {
		t.Fatalf("%d events after refused creations", n)
	}

	// A refused credentials update changes nothing.
	id := svc.create(t, tok, "u1")
	rec.take()
	a := svc.do(t, "PATCH", "/api/v1/connectors/sources/"+id, tok, map[string]any{"credentials": bad})
	if e, _ := a.json["error"].(map[string]any); a.status != http.StatusBadRequest || a.errType() != "invalid_credentials" || e["param"] != "credentials" {
		t.Fatalf("refused update: %d %s", a.status, a.body)
	}
	if got := rec.take(); !slices.Equal(got, []string{"GET " + zendeskCheckPath}) {
		t.Fatalf("requests of the update: %q", got)
	}
	if row, err := st.Connector(context.Background(), id); err != nil || row.Version != 1 {
		t.Fatalf("after the refused update: %v %v", row, err)
	}
	if a := svc.execute(t, tok, id, map[string]any{"entity": "groups", "action": "list"}); a.status != http.StatusOK {
		t.Fatalf("the old credentials: %d %s", a.status, a.body)
	}
	leaks(t, "the log", svc.logs.String(), wrong)

	// A vendor that cannot be reached: 502, nothing stored.
	st2 := sqliteStore(t)
	far := start(t, st2, nil, func(c *server.Config) {
		c.ConnectorOptions = map[string][]tributary.Option{zendesk.Type: {tributary.WithBaseURL("https://acme.zendesk.invalid"),
			tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 0})}}
	})
	a = far.do(t, "POST", "/v1/integrations/connectors", far.token(t, clientA, ""), map[string]any{"external_user_id": "u1", "connector_type": zendesk.Type, "credentials": zdCreds})
	if e, _ := a.json["error"].(map[string]any); a.status != http.StatusBadGateway || a.errType() != "unreachable" || e["param"] != "credentials" {
		t.Fatalf("unreachable vendor: %d %s", a.status, a.body)
	}
	if rows, err := st2.ListConnectors(context.Background(), ""); err != nil || len(rows) != 0 {
		t.Fatalf("stored: %v %v", rows, err)
	}
}

// PATCH with a name renames the connector: alone it leaves the version
// (and so the open connector and its copies) as they are; with
// credentials both change. A name that is not printable, or too long, is
// 400 naming name. The hosted client renames too.
func TestRenameConnector(t *testing.T) {
	st := sqliteStore(t)
	svc := start(t, st, nil, nil)
	tok := svc.token(t, clientA, "")
	id := svc.create(t, tok, "u1")
	path := "/api/v1/integrations/connectors/" + id
	a := svc.do(t, "PATCH", path, tok, map[string]any{"name": "Support desk"})
	if a.status != http.StatusOK || a.json["name"] != "Support desk" || a.json["id"] != id {
		t.Fatalf("rename: %d %s", a.status, a.body)
	}
	if a := svc.do(t, "GET", path, tok, nil); a.json["name"] != "Support desk" {
		t.Fatalf("status after the rename: %s", a.body)
	}
	if row, err := st.Connector(context.Background(), id); err != nil || row.Version != 1 || row.Name != "Support desk" {
		t.Fatalf("stored: %v %v", row, err)
	}
	for name, v := range map[string]string{"control character": "a\x00b", "too long": strings.Repeat("n", 257)} {
		a := svc.do(t, "PATCH", path, tok, map[string]any{"name": v})
		if e, _ := a.json["error"].(map[string]any); a.status != http.StatusBadRequest || e["param"] != "name" {
			t.Errorf("%s: %d %s", name, a.status, a.body)
		}
	}
	a = svc.do(t, "PATCH", path, tok, map[string]any{"name": "Desk", "credentials": zdCreds})
	if a.status != http.StatusOK || a.json["name"] != "Desk" {
		t.Fatalf("rename with credentials: %d %s", a.status, a.body)
	}
	if row, err := st.Connector(context.Background(), id); err != nil || row.Version != 2 || row.Name != "Desk" {
		t.Fatalf("stored: %v %v", row, err)
	}
	c, err := hosted.New(hosted.Config{BaseURL: svc.url, ClientID: clientA.ID, ClientSecret: clientA.Secret})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.UpdateConnector(context.Background(), id, hosted.UpdateRequest{Name: new("CRM")}); err != nil {
		t.Fatal(err)
	}
	ci, err := c.GetConnector(context.Background(), id)
	if err != nil || ci.Name != "CRM" || ci.ConnectorType != zendesk.Type || ci.Status != "healthy" {
		t.Fatalf("hosted get: %+v %v", ci, err)
	}
}

// copiesOf returns the copies of a status answer.
func copiesOf(a answer) []map[string]any {
	var out []map[string]any
	cs, _ := a.json["copies"].([]any)
	for _, c := range cs {
		if m, ok := c.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// An OAuth connector whose refresh token the vendor refuses: once its
// access token expires, its status is needs_reconnect (its copies fail
// with class auth); PATCH with working credentials (a refresh token the
// vendor takes, tried there first), while other copies are still being
// synchronized with the refused ones, makes it healthy again, every copy
// synchronizes and executes work.
func TestReconnectAfterRefusedRefresh(t *testing.T) {
	zd := zendesktest.New(zendesktest.WithTickets(20)) // a small account: the test is about the status, not the walk
	t.Cleanup(zd.Close)
	st := sqliteStore(t)
	svc := start(t, st, zd, func(c *server.Config) { c.SyncEvery, c.SyncWorkers = 100*time.Millisecond, 1 })
	tok := svc.token(t, clientA, "")
	creds := func(refresh string) map[string]any {
		return map[string]any{"subdomain": zendesktest.DefaultSubdomain, "refresh_token": refresh,
			"client_id": zendesktest.DefaultClientID, "client_secret": zendesktest.DefaultClientSecret}
	}
	// A working access token, and a refresh token the vendor does not know.
	withAccess := creds("NOT_A_REFRESH_TOKEN_0123456789")
	withAccess["access_token"] = zendesktest.DefaultAccessToken
	id := svc.createNamed(t, tok, "u1", zendesk.Type, "oauth desk", withAccess)
	path := "/v1/integrations/connectors/" + id
	zd.ExpireAccessTokens()
	// The first copy fails with class auth; others are still syncing with
	// the refused credentials when the PATCH comes: their failures, found
	// after it, must not stick (the PATCH revokes their claims).
	svc.waitStatus(t, tok, id, "not needs_reconnect", func(a answer) bool { return a.json["status"] == "needs_reconnect" })
	if got := names(t, svc.do(t, "GET", "/v1/integrations/connectors", tok, nil)); len(got) != 1 {
		t.Fatalf("list: %v", got)
	} else if a := svc.do(t, "GET", "/v1/integrations/connectors", tok, nil); a.json["data"].([]any)[0].(map[string]any)["status"] != "needs_reconnect" {
		t.Fatalf("the list's status: %s", a.body)
	}
	before := time.Now()

	a := svc.do(t, "PATCH", path, tok, map[string]any{"credentials": creds(zd.RefreshToken())})
	if a.status != http.StatusOK {
		t.Fatalf("reconnect: %d %s", a.status, a.body)
	}
	a = svc.waitStatus(t, tok, id, "not healthy and every copy synchronized after the reconnect", func(a answer) bool {
		if a.json["status"] != "healthy" {
			return false
		}
		for _, c := range copiesOf(a) {
			at, _ := time.Parse(time.RFC3339Nano, str(c["synced_at"]))
			if !at.After(before.Add(-time.Second)) || c["failure"] != nil {
				return false
			}
		}
		return true
	})
	if x := svc.execute(t, tok, id, map[string]any{"entity": "groups", "action": "list"}); x.status != http.StatusOK {
		t.Fatalf("execute after the reconnect: %d %s", x.status, x.body)
	}
	leaks(t, "the status and the log", string(a.body)+svc.logs.String(), zd.RefreshToken(), zendesktest.DefaultClientSecret)
}

// grepStore reports whether the SQLite store file at path or its log holds
// b.
func grepStore(t *testing.T, path string, b []byte) bool {
	t.Helper()
	for _, p := range []string{path, path + "-wal"} {
		raw, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(raw, b) {
			return true
		}
	}
	return false
}

// Deleting a connector deletes its sealed credentials and its copies: the
// store answers not found and lists no copy. On SQLite neither the
// database file nor its log holds the sealed bytes, the copies' records
// or the token any more (they did before the delete); on PostgreSQL the
// rows are gone. The hosted client deletes too.
func TestDeleteRemovesCredentialsAndCopies(t *testing.T) {
	parallelUnlessRace(t)
	const token = "RECOGNISABLE_TOKEN_7f3a9c5e1d"
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "serve.db")
			var st *store.Store
			if b.name == "sqlite" {
				st = openSQLiteAt(t, path)
			} else {
				st = b.open(t)
			}
			zd := zendesktest.New(zendesktest.WithCredentials(zendesktest.DefaultEmail, token), zendesktest.WithTickets(20))
			t.Cleanup(zd.Close)
			svc := start(t, st, zd, func(c *server.Config) { c.SyncEvery, c.SyncWorkers = time.Hour, 1 })
			tok := svc.token(t, clientA, "")
			creds := map[string]any{"subdomain": zendesktest.DefaultSubdomain, "email": zendesktest.DefaultEmail, "api_token": token}
			id := svc.createNamed(t, tok, "u1", zendesk.Type, "to delete", creds)
			svc.waitStatus(t, tok, id, "tickets not synchronized", func(a answer) bool {
				for _, c := range copiesOf(a) {
					if c["entity"] == "tickets" && c["synced_at"] != nil {
						return true
					}
				}
				return false
			})
			row, err := st.Connector(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			sealed := row.Sealed
			x := svc.execute(t, tok, id, map[string]any{"entity": "tickets", "action": "list", "params": map[string]any{"per_page": 1}})
			subject := []byte(firstString(t, x, "subject"))
			if b.name == "sqlite" {
				if err := st.Scrub(ctx); err != nil {
					t.Fatal(err)
				}
				if !grepStore(t, path, sealed) || !grepStore(t, path, subject) {
					t.Fatal("before the delete the store does not hold the sealed credentials and the copy: the test cannot tell")
				}
				if grepStore(t, path, []byte(token)) {
					t.Fatal("the token is in the store in clear")
				}
			}

			c, err := hosted.New(hosted.Config{BaseURL: svc.url, ClientID: clientA.ID, ClientSecret: clientA.Secret})
			if err != nil {
				t.Fatal(err)
			}
			if err := c.DeleteConnector(ctx, id); err != nil {
				t.Fatal(err)
			}
			if err := c.DeleteConnector(ctx, id); !errors.Is(err, tributary.ErrNotFound) {
				t.Fatalf("deleting again: %v", err)
			}
			if _, err := st.Connector(ctx, id); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("the connector after the delete: %v", err)
			}
			if _, err := c.GetConnector(ctx, id); !errors.Is(err, tributary.ErrNotFound) {
				t.Fatalf("hosted get after the delete: %v", err)
			}
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				copies, err := st.ConnectorCopies(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if len(copies) == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("copies left: %v", copies)
				}
			}
			if _, err := st.Count(ctx, id, "tickets"); !errors.Is(err, store.ErrNotSynced) {
				t.Fatalf("the tickets copy after the delete: %v", err)
			}
			if b.name == "sqlite" {
				if err := st.Scrub(ctx); err != nil {
					t.Fatal(err)
				}
				for what, v := range map[string][]byte{"the sealed credentials": sealed, "a copied record": subject, "the token": []byte(token)} {
					if grepStore(t, path, v) {
						t.Errorf("the store file still holds %s", what)
					}
				}
			}
		})
	}
}

// firstString returns field of the first record of an execute answer.
func firstString(t *testing.T, a answer, field string) string {
	t.Helper()
	res, _ := a.json["result"].([]any)
	if a.status != http.StatusOK || len(res) == 0 {
		t.Fatalf("execute: %d %s", a.status, a.body)
	}
	rec, _ := res[0].(map[string]any)
	s, _ := rec[field].(string)
	if len(s) < 12 {
		t.Fatalf("the first record's %s is %q: too short to look for", field, s)
	}
	return s
}

// copyNamed returns the copy of entity in a status answer (nil: none).
func copyNamed(a answer, entity string) map[string]any {
	for _, c := range copiesOf(a) {
		if c["entity"] == entity {
			return c
		}
	}
	return nil
}

// The status of a connector whose copies synchronize: healthy, and each
// copy's last synchronization with its mode, counts and duration: first a
// full one that inserted every ticket of the vendor, then, once a ticket
// changes at the vendor, an incremental one that updated it. The hosted
// client reads the same.
func TestConnectorStatusLastSync(t *testing.T) {
	parallelUnlessRace(t)
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			zd := zendesktest.New(zendesktest.WithTickets(20))
			t.Cleanup(zd.Close)
			svc := start(t, b.open(t), zd, func(c *server.Config) { c.SyncEvery, c.SyncWorkers = 200*time.Millisecond, 1 })
			tok := svc.token(t, clientA, "")
			id := svc.create(t, tok, "u1")
			a := svc.waitStatus(t, tok, id, "tickets not synchronized", func(a answer) bool {
				c := copyNamed(a, "tickets")
				return c != nil && c["last_sync"] != nil
			})
			last := copyNamed(a, "tickets")["last_sync"].(map[string]any)
			if a.json["status"] != "healthy" || last["mode"] != "full" || last["inserted"] != float64(zd.Total("tickets")) ||
				last["updated"] != 0.0 || last["deleted"] != 0.0 || last["duration_ms"].(float64) < 0 {
				t.Fatalf("after the first sync: %s", a.body)
			}
			zd.Clock().Advance(5 * time.Minute)
			ids := zd.IDs("tickets")
			if err := zd.Update("tickets", ids[0]); err != nil {
				t.Fatal(err)
			}
			zd.Clock().Advance(2 * time.Minute) // past the export's last minute
			a = svc.waitStatus(t, tok, id, "no incremental sync of the changed ticket", func(a answer) bool {
				l, _ := copyNamed(a, "tickets")["last_sync"].(map[string]any)
				return l["mode"] == "incremental" && l["updated"].(float64) >= 1
			})
			if copyNamed(a, "tickets")["failure"] != nil || copyNamed(a, "tickets")["synced_at"] == nil {
				t.Fatalf("after the incremental sync: %s", a.body)
			}
			c, err := hosted.New(hosted.Config{BaseURL: svc.url, ClientID: clientA.ID, ClientSecret: clientA.Secret})
			if err != nil {
				t.Fatal(err)
			}
			ci, err := c.GetConnector(context.Background(), id)
			if err != nil || ci.Status != "healthy" || ci.ExternalUserID != "u1" {
				t.Fatalf("hosted get: %+v %v", ci, err)
			}
			found := false
			for _, cp := range ci.Copies {
				if cp.Entity == "tickets" {
					found = cp.LastSync != nil && cp.LastSync.Mode != "" && cp.SyncedAt != nil
				}
			}
			if !found {
				t.Fatalf("hosted get: the tickets copy: %+v", ci.Copies)
			}
		})
	}
}
