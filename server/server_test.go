package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/keyring"
	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/internal/testmain"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/server"
	"github.com/tributary-dev/tributary/store"
)

func TestMain(m *testing.M) {
	testmain.WaitingParallel(4)
	goleak.VerifyTestMain(pgtest.Main(m))
}

// The API clients of the tests: two tenants.
var (
	clientA = server.Client{ID: "tenant-a", Secret: "secret-of-tenant-a-0123456789"}
	clientB = server.Client{ID: "tenant-b", Secret: "secret-of-tenant-b-0123456789"}
)

// zdCreds are the fake's credentials; its api_token must never leave the
// service.
var zdCreds = map[string]any{"subdomain": zendesktest.DefaultSubdomain, "email": zendesktest.DefaultEmail, "api_token": zendesktest.DefaultAPIToken}

// backend opens a store of one kind for a test.
type backend struct {
	name string
	open func(t *testing.T) *store.Store
}

func sqliteStore(t *testing.T) *store.Store {
	t.Helper()
	return openSQLiteAt(t, filepath.Join(t.TempDir(), "serve.db"))
}

func postgresStore(t *testing.T) *store.Store {
	t.Helper()
	return openPostgresAt(t, pgDSNFor(t))
}

// openSQLiteAt opens the SQLite store at path until t ends; two calls on
// one path are two processes' handles.
func openSQLiteAt(t *testing.T, path string) *store.Store {
	t.Helper()
	st, err := store.OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func openPostgresAt(t *testing.T, dsn string) *store.Store {
	t.Helper()
	st, err := store.OpenPostgres(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func pgDSNFor(t *testing.T) string { return pgtest.DSN(t) }

var backends = []backend{{"sqlite", sqliteStore}, {"postgres", postgresStore}}

// logBuffer collects the service's log lines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// service is a running `serve` on loopback.
type service struct {
	srv  *server.Server
	url  string
	st   *store.Store
	zd   *zendesktest.Server
	logs *logBuffer
	keys string
}

func newKeys(t *testing.T, ids ...string) string {
	t.Helper()
	var lines []string
	for _, id := range ids {
		l, err := keyring.NewKey(id)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

// start runs a service on st against a Zendesk fake (zd, or a new one),
// until the test ends; mod changes its configuration.
func start(t *testing.T, st *store.Store, zd *zendesktest.Server, mod func(*server.Config)) *service {
	t.Helper()
	if zd == nil {
		zd = zendesktest.New()
		t.Cleanup(zd.Close)
	}
	logs := &logBuffer{}
	// No pacing: the fake enforces no limit, and the 700 requests a minute
	// it announces would make a test of a thousand executes wait a minute
	// for the next window (TestServeBudget covers the pacing).
	cfg := server.Config{Store: st, Keys: newKeys(t, "k1"), Clients: []server.Client{clientA, clientB},
		SyncEvery: -1, Logger: slog.New(slog.NewJSONHandler(logs, nil)),
		ConnectorOptions: map[string][]tributary.Option{zendesk.Type: {tributary.WithBaseURL(zd.URL),
			zendesk.WithAPIRateLimit(0, 0), zendesk.WithExportRateLimit(0, 0), zendesk.WithBudgetPacing(false)}}}
	if mod != nil {
		mod(&cfg)
	}
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveUntilCleanup(t, srv, ln)
	return &service{srv: srv, url: "http://" + ln.Addr().String(), st: st, zd: zd, logs: logs, keys: cfg.Keys}
}

// serveUntilCleanup serves srv on ln until t ends, then stops it, checks
// that Serve returned no error, and closes srv.
func serveUntilCleanup(t *testing.T, srv *server.Server, ln net.Listener) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		srv.Close()
	})
}

// answer is a decoded response.
type answer struct {
	status int
	header http.Header
	body   []byte
	json   map[string]any
}

// errType is the error envelope's type.
func (a answer) errType() string {
	e, _ := a.json["error"].(map[string]any)
	s, _ := e["type"].(string)
	return s
}

func (s *service) do(t *testing.T, method, path, token string, body any) answer {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
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

// token exchanges a client's id and secret (and a user, optionally).
func (s *service) token(t *testing.T, c server.Client, user string) string {
	t.Helper()
	body := map[string]any{"client_id": c.ID, "client_secret": c.Secret}
	if user != "" {
		body["external_user_id"] = user
	}
	a := s.do(t, "POST", "/api/v1/account/applications/token", "", body)
	tok, _ := a.json["access_token"].(string)
	if a.status != 200 || tok == "" {
		t.Fatalf("token: %d %s", a.status, a.body)
	}
	return tok
}

// create creates a Zendesk connector for user and returns its id.
func (s *service) create(t *testing.T, token, user string) string {
	t.Helper()
	a := s.do(t, "POST", "/v1/integrations/connectors", token, map[string]any{
		"external_user_id": user, "connector_type": "zendesk-support", "name": "helpdesk", "credentials": zdCreds})
	id, _ := a.json["id"].(string)
	if a.status != http.StatusCreated || id == "" {
		t.Fatalf("create: %d %s", a.status, a.body)
	}
	return id
}

func (s *service) execute(t *testing.T, token, id string, req map[string]any) answer {
	t.Helper()
	return s.do(t, "POST", "/api/v1/connectors/sources/"+id+"/execute", token, req)
}

// leaks fails the test when any secret appears in text.
func leaks(t *testing.T, where, text string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if s != "" && strings.Contains(text, s) {
			t.Errorf("%s contains a secret (%d characters)", where, len(s))
		}
	}
}

// A connector created through the contract runs list, get and search
// (synchronized on first use) with the records the vendor holds, on both
// backends; the credentials are never returned.
func TestCreateExecuteSearch(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			s := start(t, b.open(t), nil, nil)
			tok := s.token(t, clientA, "")
			id := s.create(t, tok, "user-1")

			a := s.execute(t, tok, id, map[string]any{"entity": "tickets", "action": "list", "params": map[string]any{"per_page": 5}})
			recs, _ := a.json["result"].([]any)
			if a.status != 200 || len(recs) != 5 || a.json["status"] != "success" {
				t.Fatalf("list: %d %s", a.status, a.body)
			}
			first, _ := recs[0].(map[string]any)
			a = s.execute(t, tok, id, map[string]any{"entity": "tickets", "action": "get", "params": map[string]any{"ticket_id": first["id"]}})
			got, _ := a.json["result"].(map[string]any)
			if a.status != 200 || got["id"] != first["id"] || got["subject"] != first["subject"] {
				t.Fatalf("get: %d %s", a.status, a.body)
			}
			a = s.execute(t, tok, id, map[string]any{"entity": "tickets", "action": "search",
				"params": map[string]any{"query": map[string]any{"filter": map[string]any{"eq": map[string]any{"id": first["id"]}}}}})
			res, _ := a.json["result"].(map[string]any)
			hits, _ := res["hits"].([]any)
			if a.status != 200 || len(hits) != 1 {
				t.Fatalf("search: %d %s", a.status, a.body)
			}
			n, err := s.st.Count(context.Background(), id, "tickets")
			if err != nil || n != int64(s.zd.Total("tickets")) {
				t.Errorf("the copy holds %d tickets (%v), the fake %d", n, err, s.zd.Total("tickets"))
			}
			leaks(t, "the log", s.logs.String(), zendesktest.DefaultAPIToken, clientA.Secret, tok)
		})
	}
}

// Execute answers at the contract's path and under every prefix the
// other operations on a connector live at.
func TestExecuteAtEveryPrefix(t *testing.T) {
	t.Parallel()
	s := start(t, sqliteStore(t), nil, nil)
	tok := s.token(t, clientA, "")
	id := s.create(t, tok, "user-1")
	for _, p := range []string{"/api/v1/connectors/sources/", "/api/v1/integrations/connectors/", "/v1/integrations/connectors/"} {
		a := s.do(t, "POST", p+id+"/execute", tok, map[string]any{"entity": "tickets", "action": "list", "params": map[string]any{"per_page": 2}})
		if recs, _ := a.json["result"].([]any); a.status != 200 || len(recs) != 2 {
			t.Errorf("POST %s{id}/execute: %d %s", p, a.status, a.body)
		}
		if a := s.do(t, "GET", p+id, tok, nil); a.status != 200 {
			t.Errorf("GET %s{id}: %d %s", p, a.status, a.body)
		}
	}
}

// A token of one tenant, or of one external user, sees nothing of
// another's connectors: not executing, not searching, and not learning
// that they exist (the answer is the same as for an id that does not).
func TestTenantIsolation(t *testing.T) {
	t.Parallel()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			s := start(t, b.open(t), nil, nil)
			tokA := s.token(t, clientA, "")
			idA1 := s.create(t, tokA, "user-1")
			idA2 := s.create(t, tokA, "user-2")
			tokB := s.token(t, clientB, "")
			tokA1 := s.token(t, clientA, "user-1")

			list := map[string]any{"entity": "tickets", "action": "list"}
			search := map[string]any{"entity": "tickets", "action": "search", "params": map[string]any{"query": map[string]any{}}}
			missing := s.execute(t, tokB, "conn_000000000000000000000000", list)
			for _, c := range []struct {
				name, token, id string
				req             map[string]any
			}{
				{"another tenant lists", tokB, idA1, list},
				{"another tenant searches", tokB, idA1, search},
				{"another user of the tenant", tokA1, idA2, list},
				{"another user searches", tokA1, idA2, search},
			} {
				a := s.execute(t, c.token, c.id, c.req)
				if a.status != http.StatusNotFound || a.errType() != "not_found" {
					t.Errorf("%s: %d %s", c.name, a.status, a.body)
				}
				if strings.ReplaceAll(string(a.body), c.id, "ID") != strings.ReplaceAll(string(missing.body), "conn_000000000000000000000000", "ID") {
					// Only the request id may differ.
					var x, y map[string]any
					_ = json.Unmarshal(a.body, &x)
					_ = json.Unmarshal(missing.body, &y)
					xe, ye := x["error"].(map[string]any), y["error"].(map[string]any)
					if xe["type"] != ye["type"] || xe["status"] != ye["status"] {
						t.Errorf("%s: answered %s, an unknown id %s", c.name, a.body, missing.body)
					}
				}
			}
			if a := s.execute(t, tokA1, idA1, list); a.status != 200 {
				t.Errorf("the user's own connector: %d %s", a.status, a.body)
			}
			if a := s.execute(t, tokA, idA2, list); a.status != 200 {
				t.Errorf("the tenant's token on its user's connector: %d %s", a.status, a.body)
			}
			// A user's token cannot create a connector for another user.
			a := s.do(t, "POST", "/v1/integrations/connectors", tokA1, map[string]any{
				"external_user_id": "user-2", "connector_type": "zendesk-support", "credentials": zdCreds})
			if a.status != http.StatusForbidden || a.errType() != "forbidden" {
				t.Errorf("creating for another user: %d %s", a.status, a.body)
			}
			// Nothing of tenant A was synchronized by B's search.
			if n, _ := s.st.Count(context.Background(), idA1, "tickets"); n != 0 {
				t.Errorf("B's search synchronized A's connector: %d records", n)
			}
		})
	}
}

// Every attack is refused with the contract's error envelope, before the
// store or a vendor is reached, and leaks nothing.
func TestAttacksAreRefused(t *testing.T) {
	t.Parallel()
	// Tokens live a minute here, so that a loaded machine (under -race)
	// never sees one expire mid-test; the expired one is a second
	// service's, whose tokens live a second.
	s := start(t, sqliteStore(t), nil, func(c *server.Config) { c.TokenTTL = time.Minute })
	tok := s.token(t, clientA, "")
	id := s.create(t, tok, "user-1")
	list := map[string]any{"entity": "tickets", "action": "list"}
	short := start(t, sqliteStore(t), nil, func(c *server.Config) { c.TokenTTL = time.Second })
	shortTok := short.token(t, clientA, "")
	shortID := short.create(t, shortTok, "user-1")

	// A token from a service with other keys, and a forged one.
	other := start(t, sqliteStore(t), nil, nil)
	foreign := other.token(t, clientA, "")
	payload, sig, _ := strings.Cut(strings.TrimPrefix(tok, "trb1."), ".")
	// The claims rewritten for tenant B under A's signature, and A's claims
	// with the signature's first byte changed.
	claims, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil || !bytes.Contains(claims, []byte(`"tenant-a"`)) {
		t.Fatalf("token claims %q: %v", claims, err)
	}
	forged := "trb1." + base64.RawURLEncoding.EncodeToString(bytes.ReplaceAll(claims, []byte(`"tenant-a"`), []byte(`"tenant-b"`))) + "." + sig
	rawSig, _ := base64.RawURLEncoding.DecodeString(sig)
	rawSig[0] ^= 0xff
	badSig := "trb1." + payload + "." + base64.RawURLEncoding.EncodeToString(rawSig)

	for _, c := range []struct {
		name, token string
	}{
		{"no token", ""},
		{"a token of another service", foreign},
		{"a forged token", forged},
		{"a token with a changed signature", badSig},
		{"a token cut short", tok[:len(tok)-3]},
		{"garbage", "not-a-token"},
		{"a client secret as a token", clientA.Secret},
	} {
		a := s.execute(t, c.token, id, list)
		if a.status != http.StatusUnauthorized || a.errType() != "unauthorized" {
			t.Errorf("%s: %d %s", c.name, a.status, a.body)
		}
	}

	// Path tricks in ids: never another tenant's connector, never a
	// server error.
	idB := s.create(t, s.token(t, clientB, ""), "user-b")
	for _, bad := range []string{"..", "..%2F..%2Fhealthz", "conn_x%00", strings.Repeat("a", 65), "conn_%E2%80%AE", "%2e%2e", id + "%20",
		id + "/../" + idB, id + "%2F..%2F" + idB, "..%2F" + idB, idB + "%00", "%2e%2e/" + idB} {
		a := s.do(t, "POST", "/api/v1/connectors/sources/"+bad+"/execute", tok, list)
		if a.status != http.StatusNotFound && a.status != http.StatusBadRequest && a.status != http.StatusMethodNotAllowed {
			t.Errorf("id %q: %d %.300s", bad, a.status, a.body)
		}
		if a.status == 200 {
			t.Errorf("id %q reached a connector", bad)
		}
	}

	// An oversized body.
	big := `{"entity": "tickets", "action": "list", "params": {"x": "` + strings.Repeat("x", 2<<20) + `"}}`
	if a := s.do(t, "POST", "/api/v1/connectors/sources/"+id+"/execute", tok, big); a.status != http.StatusRequestEntityTooLarge {
		t.Errorf("a 2 MiB body: %d %.200s", a.status, a.body)
	}
	// Credentials with a field the kind does not take: refused, nothing stored.
	n0, _ := s.st.ListConnectors(context.Background(), "")
	a := s.do(t, "POST", "/v1/integrations/connectors", tok, map[string]any{"external_user_id": "u", "connector_type": "zendesk-support",
		"credentials": map[string]any{"subdomain": "acme", "email": "a@b.c", "api_token": "t0k3n-value", "base_url": "https://evil.example"}})
	if a.status != http.StatusBadRequest || a.errType() != "invalid_credentials" || !strings.Contains(string(a.body), "base_url") {
		t.Errorf("extra credential field: %d %s", a.status, a.body)
	}
	leaks(t, "the answer", string(a.body), "t0k3n-value")
	// Unknown top-level fields, a wrong type, a body that is not JSON.
	for _, body := range []string{
		`{"external_user_id": "u", "connector_type": "zendesk-support", "credentials": {}, "tenant": "tenant-b"}`,
		`{"external_user_id": 7, "connector_type": "zendesk-support", "credentials": {}}`,
		`not json`, ``, `{"external_user_id": "u"} {"x": 1}`,
	} {
		if a := s.do(t, "POST", "/v1/integrations/connectors", tok, body); a.status != http.StatusBadRequest || a.errType() != "invalid_params" {
			t.Errorf("create with %q: %d %s", body, a.status, a.body)
		}
	}
	if n1, _ := s.st.ListConnectors(context.Background(), ""); len(n1) != len(n0) {
		t.Errorf("refused creations stored connectors: %d → %d", len(n0), len(n1))
	}

	// An expired token.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		a := short.execute(t, shortTok, shortID, list)
		if a.status == http.StatusUnauthorized {
			break
		}
		if a.status != http.StatusOK || time.Now().After(deadline) {
			t.Fatalf("a token of a second's life, used until it expires: %d %s", a.status, a.body)
		}
	}
	leaks(t, "the log", s.logs.String(), zendesktest.DefaultAPIToken, clientA.Secret, tok, "t0k3n-value")
}

// A client that holds a connection without finishing its request is
// disconnected after the server's timeouts.
func TestSlowClientIsDisconnected(t *testing.T) {
	t.Parallel()
	s := start(t, sqliteStore(t), nil, func(c *server.Config) {
		c.ReadHeaderTimeout, c.ReadTimeout = 300*time.Millisecond, 600*time.Millisecond
	})
	for _, c := range []struct{ name, sent string }{
		{"headers never finished", "POST /api/v1/account/applications/token HTTP/1.1\r\nHost: x\r\n"},
		{"body never finished", "POST /api/v1/account/applications/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"client_id\""},
	} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(s.url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if _, err := conn.Write([]byte(c.sent)); err != nil {
			t.Fatal(err)
		}
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err = io.ReadAll(conn)
		conn.Close()
		took := time.Since(start)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Errorf("%s: the server kept the connection for 5 s", c.name)
		} else if took > 3*time.Second {
			t.Errorf("%s: closed after %v", c.name, took)
		}
	}
}

// Credentials are sealed at rest: neither the store's row nor the database
// file holds them in clear, and a service with other keys cannot use them.
func TestCredentialsSealedAtRest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st, err := store.OpenSQLite(context.Background(), filepath.Join(dir, "serve.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := start(t, st, nil, nil)
	tok := s.token(t, clientA, "")
	id := s.create(t, tok, "user-1")
	row, err := st.Connector(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(row.Sealed, []byte(zendesktest.DefaultAPIToken)) || bytes.Contains(row.Sealed, []byte(zendesktest.DefaultEmail)) {
		t.Error("the sealed credentials hold the token in clear")
	}
	for _, f := range []string{"serve.db", "serve.db-wal"} {
		raw, _ := os.ReadFile(filepath.Join(dir, f))
		if bytes.Contains(raw, []byte(zendesktest.DefaultAPIToken)) {
			t.Errorf("%s holds the api token in clear", f)
		}
	}
	// Another service on the same store, with other keys: the connector is
	// found but its credentials do not open; the answer says nothing more.
	s2 := start(t, st, s.zd, nil)
	tok2 := s2.token(t, clientA, "")
	a := s2.execute(t, tok2, id, map[string]any{"entity": "tickets", "action": "list"})
	if a.status == 200 {
		t.Fatalf("credentials opened with the wrong keys: %s", a.body)
	}
	leaks(t, "the answer", string(a.body), zendesktest.DefaultAPIToken)
}

// Tokens verify in every process that has the keys, and a token of a client
// removed from a process's configuration is refused there at once.
func TestTokensAcrossProcessesAndRemovedClients(t *testing.T) {
	t.Parallel()
	st := sqliteStore(t)
	keys := newKeys(t, "k")
	s1 := start(t, st, nil, func(c *server.Config) { c.Keys = keys })
	s2 := start(t, st, s1.zd, func(c *server.Config) { c.Keys = keys })
	without := start(t, st, s1.zd, func(c *server.Config) { c.Keys = keys; c.Clients = []server.Client{clientA} })
	tokB := s1.token(t, clientB, "")
	id := s1.create(t, tokB, "user-b")
	list := map[string]any{"entity": "tickets", "action": "list", "params": map[string]any{"per_page": 1}}
	if a := s2.execute(t, tokB, id, list); a.status != 200 {
		t.Errorf("another process with the same keys: %d %s", a.status, a.body)
	}
	if a := without.execute(t, tokB, id, list); a.status != http.StatusUnauthorized {
		t.Errorf("a process without client B: %d %s", a.status, a.body)
	}
	if a := without.do(t, "POST", "/api/v1/account/applications/token", "", map[string]any{"client_id": clientB.ID, "client_secret": clientB.Secret}); a.status != http.StatusUnauthorized {
		t.Errorf("token for a removed client: %d %s", a.status, a.body)
	}
}

// Printing a configuration, a client or a static token shows no secret.
func TestConfigPrintsNoSecret(t *testing.T) {
	t.Parallel()
	keys := newKeys(t, "k1")
	cfg := server.Config{Keys: keys, Clients: []server.Client{clientA}, Tokens: []server.StaticToken{{Token: "static-token-0123456789", Client: "a"}}}
	_, keyB64, _ := strings.Cut(keys, ":")
	for _, v := range []any{cfg, &cfg, clientA, cfg.Tokens[0]} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			leaks(t, "printing "+verb, fmt.Sprintf(verb, v), keyB64, clientA.Secret, "static-token-0123456789")
		}
	}
}
