package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/internal/keyring"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/sandbox"
	"github.com/tributary-dev/tributary/store"
	"github.com/tributary-dev/tributary/webhook"
)

func TestServeKeygen(t *testing.T) {
	r := cli(t, "serve", "keygen")
	id, b64, ok := strings.Cut(strings.TrimSpace(r.stdout), ":")
	key, err := base64.StdEncoding.DecodeString(b64)
	if r.code != 0 || !ok || id == "" || err != nil || len(key) != 32 {
		t.Fatalf("keygen: exit %d, %q", r.code, r.stdout)
	}
	// Two keys made in the same second have ids of their own: a key file
	// of both parses.
	again, _, _ := strings.Cut(cli(t, "serve", "keygen").stdout, ":")
	if again == id {
		t.Errorf("two keys share the id %q", id)
	}
}

func TestServeRefusesWithoutKeysOrClients(t *testing.T) {
	db := filepath.Join(t.TempDir(), "serve.db")
	key := strings.TrimSpace(cli(t, "serve", "keygen").stdout)
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{nil, "TRIBUTARY_SERVE_KEYS"},
		{map[string]string{"TRIBUTARY_SERVE_KEYS": key}, "TRIBUTARY_SERVE_CLIENTS"},
		{map[string]string{"TRIBUTARY_SERVE_KEYS": "k1:short", "TRIBUTARY_SERVE_CLIENTS": "app:0123456789abcdef0123"}, "line 1"},
		{map[string]string{"TRIBUTARY_SERVE_KEYS": key, "TRIBUTARY_SERVE_CLIENTS": "app"}, "clients, line 1"},
		{map[string]string{"TRIBUTARY_SERVE_KEYS": key, "TRIBUTARY_SERVE_CLIENTS": "app:short"}, "at least 16"},
	} {
		r := invocation{env: c.env}.run(t, "serve", "--store", db, "--listen", "127.0.0.1:0")
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("env %v: exit %d, %s", c.env, r.code, r.stderr)
		}
		if strings.Contains(r.stderr, "0123456789abcdef0123") {
			t.Errorf("a client secret in the error: %s", r.stderr)
		}
	}
}

// serve --sandbox answers the hosted client against the built-in fakes, and
// Ctrl-C stops it with exit 0. At start it prints on stderr every kind's
// sandbox credentials, which create connectors, and a create example
// whose token and create calls, made as printed, create one.
// running is a `tributary serve` run in-process.
type running struct {
	addr string
	live *syncBuffer // stderr, as it is written
	stop func() result
}

// startServe runs `tributary serve args… --listen ADDR` in-process until
// stop (Ctrl-C), once it answers /healthz.
func startServe(t *testing.T, args ...string) *running {
	t.Helper()
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan result, 1)
	live := &syncBuffer{}
	go func() {
		done <- invocation{ctx: ctx, stderr: live}.run(t, append(append([]string{"serve"}, args...), "--listen", addr)...)
	}()
	var once sync.Once
	var r result
	stop := func() result {
		once.Do(func() { cancel(); r = <-done })
		return r
	}
	t.Cleanup(func() { stop() })
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve never answered: %v; %s", err, stop().stderr)
		}
	}
	return &running{addr: addr, live: live, stop: stop}
}

func TestServeSandbox(t *testing.T) {
	srv := startServe(t, "--sandbox", "--store", filepath.Join(t.TempDir(), "serve.db"), "--sync-every", "-1s")
	ctx, addr, live := context.Background(), srv.addr, srv.live
	c, err := hosted.New(hosted.Config{BaseURL: "http://" + addr, ClientID: "sandbox", ClientSecret: "sandbox-client-secret", ExternalUserID: "u1"})
	if err != nil {
		t.Fatal(err)
	}
	sb := sandbox.New()
	defer sb.Close()
	sandboxNoticeWorks(t, ctx, live, "http://"+addr, c, sb)
	id, err := c.CreateConnector(ctx, hosted.CreateRequest{ConnectorType: "zendesk-support", Credentials: sb.Credentials("zendesk-support")})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := c.Connector(id, "zendesk-support")
	if err != nil {
		t.Fatal(err)
	}
	page, err := conn.List(ctx, "tickets", tributary.Params{"per_page": 3})
	if err != nil || len(page.Records) != 3 {
		t.Fatalf("list through serve: %v", err)
	}
	r := srv.stop()
	if r.code != 0 {
		t.Errorf("serve after Ctrl-C: exit %d, %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, `"msg":"request"`) || !strings.Contains(r.stderr, `"endpoint":"execute"`) {
		t.Errorf("no JSON request lines on stderr:\n%s", r.stderr)
	}
}

// sandboxNoticeWorks checks serve --sandbox's notice on stderr: a line per
// kind with the credentials its fake accepts (each creates a connector),
// and the create example, whose calls, made as printed, create one.
func sandboxNoticeWorks(t *testing.T, ctx context.Context, stderr *syncBuffer, base string, c *hosted.Client, sb *sandbox.Sandbox) {
	t.Helper()
	var text string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if text = stderr.String(); strings.Contains(text, "/v1/integrations/connectors -H") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no sandbox notice on stderr:\n%s", text)
		}
	}
	printed := map[string]string{}
	var tokenCmd, createCmd string
	for _, l := range strings.Split(text, "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) == 2 && strings.HasPrefix(f[1], "{"):
			printed[f[0]] = f[1]
		case strings.HasPrefix(strings.TrimSpace(l), "TOKEN=$(curl"):
			tokenCmd = l
		case strings.HasPrefix(strings.TrimSpace(l), "curl -s"):
			createCmd = l
		}
	}
	for _, kind := range sb.Types() {
		var creds map[string]any
		if err := json.Unmarshal([]byte(printed[kind]), &creds); err != nil || !reflect.DeepEqual(creds, sb.Credentials(kind)) {
			t.Fatalf("%s: printed %q, the fake takes %v", kind, printed[kind], sb.Credentials(kind))
		}
		var cfg map[string]any
		if m := regexp.MustCompile(`\(` + kind + ` also needs "replication_config": (\{.*\})\)`).FindStringSubmatch(text); m != nil {
			if err := json.Unmarshal([]byte(m[1]), &cfg); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := c.CreateConnector(ctx, hosted.CreateRequest{ConnectorType: kind, Credentials: creds, ReplicationConfig: cfg}); err != nil {
			t.Errorf("%s: the printed credentials: %v", kind, err)
		}
	}
	// The example, as a shell would run it: the token call's URL and body,
	// then the create call's.
	tokenURL, tokenBody := between(tokenCmd, "curl -s ", " "), strings.ReplaceAll(between(text, `-d "`, `" |`), `\"`, `"`)
	resp, err := http.Post(tokenURL, "application/json", strings.NewReader(tokenBody))
	if err != nil {
		t.Fatal(err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	err = json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	if err != nil || tok.AccessToken == "" || tokenURL != base+"/api/v1/account/applications/token" {
		t.Fatalf("the token call %q %q: %v", tokenURL, tokenBody, err)
	}
	req, err := http.NewRequestWithContext(ctx, "POST", between(createCmd, "curl -s ", " "), strings.NewReader(between(text, "-d '", "'\n")))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("the printed create call: %d", resp.StatusCode)
	}
}

// between returns what s holds after the first from, up to the next to.
func between(s, from, to string) string {
	_, after, _ := strings.Cut(s, from)
	v, _, _ := strings.Cut(after, to)
	return v
}

// serveStore makes, in dir, the store of a service with one connector,
// sealed under key, and one connector.created event to client app's two
// endpoints (evt_0123), as `tributary serve` leaves it, and the clients
// file (YAML) that names the endpoints.
func serveStore(t *testing.T, dir, key string) (clientsFile string) {
	t.Helper()
	ctx := context.Background()
	st, err := store.OpenSQLite(ctx, filepath.Join(dir, "serve.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	clients := `clients:
  - id: app
    secret: "0123456789abcdef0123456789abcdef"
    webhooks:
      - url: https://app.example.com/hooks
        secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
      - url: https://app.example.com/hooks/tributary
        secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
`
	clientsFile = filepath.Join(dir, "clients.yaml")
	if err := os.WriteFile(clientsFile, []byte(clients), 0o600); err != nil {
		t.Fatal(err)
	}
	cs, err := parseClients(clients)
	if err != nil {
		t.Fatal(err)
	}
	var eps []webhook.Endpoint
	for _, w := range cs[0].Webhooks {
		eps = append(eps, webhook.Endpoint{Tenant: "app", URL: w.URL, Secret: w.Secret})
	}
	ring, err := keyring.Parse(key)
	if err != nil {
		t.Fatal(err)
	}
	const id = "conn_0123456789abcdef"
	sealed, err := ring.Seal([]byte(`{"credentials":{"subdomain":"acme","email":"agent@example.com","api_token":"TEST_TOKEN"}}`), []byte(id))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := webhook.NewEvent(webhook.ConnectorCreated, "app", id, time.Now(), map[string]any{"connector_id": id}, eps)
	if err != nil {
		t.Fatal(err)
	}
	ev.ID = "evt_0123"
	if _, err := st.CreateConnector(ctx, store.Connector{ID: id, Tenant: "app", Kind: "zendesk-support", Sealed: sealed}, store.Emit(ev)); err != nil {
		t.Fatal(err)
	}
	return clientsFile
}

// The serve subcommands take serve's store, key and client flags, with
// the same names and environment variables: the examples of `serve replay
// --help` and `serve rotate-keys --help`, and the invocations of
// docs/webhooks.md and docs/service.md, run as written (the keys and
// clients in the environment, as the docs export them, or in files).
func TestServeSubcommandsTakeTheServiceFlags(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir) // the examples name serve.db and keys.txt
	oldKey := strings.TrimSpace(cli(t, "serve", "keygen").stdout)
	clientsFile := serveStore(t, dir, oldKey)
	clients, err := os.ReadFile(clientsFile)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"TRIBUTARY_SERVE_KEYS": oldKey, "TRIBUTARY_SERVE_CLIENTS": string(clients)}
	examples := func(path ...string) [][]string {
		cmd, _, err := (&app{}).root().Find(path)
		if err != nil {
			t.Fatal(err)
		}
		var out [][]string
		for _, l := range strings.Split(cmd.Example, "\n") {
			if f := strings.Fields(l); len(f) > 0 && f[0] == "tributary" {
				out = append(out, f[1:])
			}
		}
		return out
	}
	replays := examples("serve", "replay")
	if len(replays) != 2 {
		t.Fatalf("serve replay's examples: %q", replays)
	}
	for _, args := range append(replays,
		// docs/webhooks.md, with the event's id for its placeholder
		strings.Fields("serve replay --store serve.db --client app --endpoint https://app.example.com/hooks/tributary --event evt_0123"),
		// the clients from a file, the keys from the environment
		strings.Fields("serve replay --store serve.db --clients-file clients.yaml --client app --endpoint ep_1f13ff1ea4baa777 --from 2020-01-01T00:00:00Z")) {
		r := invocation{env: env}.run(t, args...)
		r.want(t, 0)
		if !regexp.MustCompile(`^queued \d+ deliveries\n$`).MatchString(r.stdout) {
			t.Errorf("%q: %q", args, r.stdout)
		}
		if args[len(args)-1] == "evt_0123" && r.stdout != "queued 1 deliveries\n" {
			t.Errorf("%q: %q", args, r.stdout)
		}
	}

	// rotate-keys: the new key first (env, as docs/service.md), then the
	// examples' keys.txt; no client is needed.
	newKey := strings.TrimSpace(cli(t, "serve", "keygen").stdout)
	keys := newKey + "\n" + oldKey + "\n"
	r := invocation{env: map[string]string{"TRIBUTARY_SERVE_KEYS": keys}}.run(t, "serve", "rotate-keys", "--store", "serve.db")
	r.want(t, 0)
	if r.stdout != "re-sealed 1 connectors\n" {
		t.Errorf("rotate-keys: %q", r.stdout)
	}
	if err := os.WriteFile("keys.txt", []byte(keys), 0o600); err != nil {
		t.Fatal(err)
	}
	rotations := examples("serve", "rotate-keys")
	if len(rotations) == 0 || !slices.Equal(rotations[0], strings.Fields("serve rotate-keys --store serve.db --keys-file keys.txt")) {
		t.Fatalf("rotate-keys' examples: %q", rotations)
	}
	r = cli(t, rotations[0]...)
	r.want(t, 0)
	if r.stdout != "re-sealed 0 connectors\n" {
		t.Errorf("rotate-keys again: %q", r.stdout)
	}
	// The old key alone no longer opens what was re-sealed: the file's
	// keys took part, not the environment's.
	r = invocation{env: map[string]string{"TRIBUTARY_SERVE_KEYS": oldKey}}.run(t, "serve", "rotate-keys", "--store", "serve.db")
	if r.code == 0 || !strings.Contains(r.stderr, "not in the keyring") {
		t.Errorf("rotate-keys with the old key only: exit %d, %s", r.code, r.stderr)
	}

	// A subcommand never makes a store, and says what it needs.
	r = invocation{env: env}.run(t, "serve", "rotate-keys", "--store", "nope.db")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--store nope.db: no such file") {
		t.Errorf("a missing store: exit %d, %s", r.code, r.stderr)
	}
	if _, err := os.Stat("nope.db"); err == nil {
		t.Error("rotate-keys made a store")
	}
	r = cli(t, "serve", "replay", "--store", "serve.db", "--client", "app", "--endpoint", "ep_1f13ff1ea4baa777", "--event", "evt_0123")
	if r.code != exitUsage || !strings.Contains(r.stderr, "tributary serve replay needs keys in $TRIBUTARY_SERVE_KEYS or --keys-file") {
		t.Errorf("no keys: exit %d, %s", r.code, r.stderr)
	}
}

// A sandbox service restarted on the same store (the README invites it)
// keeps its connectors: every kind's connector created before the restart
// answers after it, against the new fakes (on other ports), and is
// healthy, with the key kept in the store, never printed.
func TestServeSandboxSurvivesARestart(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "sandbox.db")
	sb := sandbox.New()
	defer sb.Close()
	first := startServe(t, "--sandbox", "--store", db, "--sync-every", "-1s")
	c, err := hosted.New(hosted.Config{BaseURL: "http://" + first.addr, ClientID: sandboxClient, ClientSecret: sandboxClientSecret, ExternalUserID: "u1"})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, kind := range sb.Types() {
		if ids[kind], err = c.CreateConnector(ctx, hosted.CreateRequest{ConnectorType: kind, Credentials: sb.Credentials(kind), ReplicationConfig: sandboxReplicationConfig(kind)}); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
	}
	if r := first.stop(); r.code != 0 || !strings.Contains(r.stderr, "--sandbox key: kept in the store "+db) {
		t.Fatalf("the first run: exit %d, %s", r.code, r.stderr)
	}
	st, err := store.OpenSQLite(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	key, err := st.SandboxKey(ctx, func() (string, error) { return "", errors.New("no key was kept") })
	st.Close()
	if err != nil {
		t.Fatal(err)
	}

	second := startServe(t, "--sandbox", "--store", db, "--sync-every", "-1s")
	if c, err = hosted.New(hosted.Config{BaseURL: "http://" + second.addr, ClientID: sandboxClient, ClientSecret: sandboxClientSecret, ExternalUserID: "u1"}); err != nil {
		t.Fatal(err)
	}
	for _, kind := range sb.Types() {
		info, err := c.GetConnector(ctx, ids[kind])
		if err != nil || info.Status != "healthy" {
			t.Errorf("%s after the restart: %+v, %v", kind, info, err)
		}
		conn, err := c.Connector(ids[kind], kind)
		if err != nil {
			t.Fatal(err)
		}
		entity, params, _ := sb.Probe(kind)
		if page, err := conn.List(ctx, entity, params); err != nil || len(page.Records) == 0 {
			t.Errorf("%s %s list after the restart: %v", kind, entity, err)
		}
	}
	r := second.stop()
	_, secret, _ := strings.Cut(key, ":")
	if r.code != 0 || secret == "" || strings.Contains(r.stderr, secret) {
		t.Errorf("the second run: exit %d (the key printed: %v)", r.code, strings.Contains(r.stderr, secret))
	}
	if !strings.Contains(r.stderr, fmt.Sprintf(`"msg":"every connector's credentials open with this service's keys","connectors":%d`, len(sb.Types()))) {
		t.Errorf("no count at start:\n%s", r.stderr)
	}
}

// The clients file's YAML gives each webhook endpoint its events and
// changes_only (sync.completed only for syncs that changed records).
func TestParseClientsWebhooks(t *testing.T) {
	cs, err := parseClients(`clients:
  - id: app
    secret: "0123456789abcdef0123456789abcdef"
    webhooks:
      - url: https://app.example.com/hooks
        secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
        events: [sync.completed, connector.*]
        changes_only: true
      - url: https://audit.example.com/in
        secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
`)
	if err != nil {
		t.Fatal(err)
	}
	w := cs[0].Webhooks
	if len(w) != 2 || !w[0].ChangesOnly || !slices.Equal(w[0].Events, []string{"sync.completed", "connector.*"}) || w[1].ChangesOnly || w[1].Events != nil {
		t.Errorf("webhooks: %+v", w)
	}
}

// serve --sandbox --sandbox-changes: the fakes change as time passes, the
// background sync reads the changes, and the made-up client's endpoint,
// which the command receives itself, prints the sync.completed of the
// syncs that changed records, deletions included; serve replay --sandbox
// sends one again to that endpoint, which prints it a second time.
func TestServeSandboxChangesReachItsWebhook(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "hooks.db")
	srv := startServe(t, "--sandbox", "--sandbox-changes", "50/s", "--sync-every", "100ms", "--store", db)
	c, err := hosted.New(hosted.Config{BaseURL: "http://" + srv.addr, ClientID: sandboxClient, ClientSecret: sandboxClientSecret, ExternalUserID: "u1"})
	if err != nil {
		t.Fatal(err)
	}
	sb := sandbox.New()
	defer sb.Close()
	if _, err := c.CreateConnector(ctx, hosted.CreateRequest{ConnectorType: "hubspot", Credentials: sb.Credentials("hubspot")}); err != nil {
		t.Fatal(err)
	}
	received := regexp.MustCompile(`(?m)^tributary serve: --sandbox webhook received (evt_[0-9a-f]+) (\S+) (\{.*\})$`)
	var deletion string
	for deadline := time.Now().Add(30 * time.Second); deletion == ""; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no sync.completed with a deletion in 30 s:\n%s", srv.live)
		}
		for _, m := range received.FindAllStringSubmatch(srv.live.String(), -1) {
			var data struct{ Inserted, Updated, Deleted int }
			if err := json.Unmarshal([]byte(m[3]), &data); err != nil {
				t.Fatal(err)
			}
			if m[2] == "sync.completed" && data.Inserted+data.Updated+data.Deleted == 0 {
				t.Fatalf("a no-op sync reached the changes-only endpoint: %s", m[0])
			}
			if m[2] == "sync.completed" && data.Deleted > 0 {
				deletion = m[1]
			}
		}
	}
	if !strings.Contains(srv.live.String(), `"msg":"sandbox change","kind":"hubspot"`) {
		t.Errorf("the changes are not logged:\n%s", srv.live)
	}
	r := cli(t, "serve", "replay", "--sandbox", "--store", db, "--client", sandboxClient, "--endpoint", "http://tributary-sandbox.invalid/hooks", "--event", deletion)
	r.want(t, 0)
	for deadline := time.Now().Add(10 * time.Second); strings.Count(srv.live.String(), "received "+deletion) < 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the replayed %s was not received again:\n%s", deletion, srv.live)
		}
	}
	if r := srv.stop(); r.code != 0 {
		t.Errorf("exit %d", r.code)
	}
	r = invocation{}.run(t, "serve", "--store", db, "--sandbox-changes", "10/min")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--sandbox-changes changes the records of the sandbox's fakes: give --sandbox") {
		t.Errorf("--sandbox-changes without --sandbox: %d %s", r.code, r.stderr)
	}
}

// TestServeVendorURL: --vendor-url KIND=URL sends that kind's requests to
// the URL (here Zendesk's fake): creating a connector verifies its
// credentials there. A malformed value is refused before serving, with an
// error that names the flag and never repeats the URL.
func TestServeVendorURL(t *testing.T) {
	dir := t.TempDir()
	keys, clients := filepath.Join(dir, "keys"), filepath.Join(dir, "clients")
	if err := os.WriteFile(keys, []byte(cli(t, "serve", "keygen").stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(clients, []byte("app:0123456789abcdef0123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "serve.db")
	for _, c := range []struct{ arg, want string }{
		{"zendesk-support", "expected KIND=URL"},
		{"=http://127.0.0.1:1", "expected KIND=URL"},
		{"nosuchkind=http://127.0.0.1:1", `unknown kind "nosuchkind"`},
		{"github=ftp://127.0.0.1:1", "github=…: the URL must be absolute, http:// or https://"},
		{"github=/api/v3", "github=…: the URL must be absolute"},
		{"github=https://user:hunter2secret@127.0.0.1:1", "no user info"},
	} {
		r := cli(t, "serve", "--store", db, "--keys-file", keys, "--clients-file", clients, "--listen", "127.0.0.1:0", "--vendor-url", c.arg)
		if r.code != exitUsage || !strings.Contains(r.stderr, "--vendor-url") || !strings.Contains(r.stderr, c.want) {
			t.Errorf("--vendor-url %s: exit %d, %s", c.arg, r.code, r.stderr)
		}
		if strings.Contains(r.stderr, "hunter2secret") {
			t.Errorf("--vendor-url %s: the URL's password in the error: %s", c.arg, r.stderr)
		}
	}
	r := cli(t, "serve", "--store", db, "--keys-file", keys, "--clients-file", clients, "--listen", "127.0.0.1:0",
		"--vendor-url", "github=http://127.0.0.1:1", "--vendor-url", "github=http://127.0.0.1:2")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--vendor-url: kind github is given twice") {
		t.Errorf("a kind twice: exit %d, %s", r.code, r.stderr)
	}
	r = cli(t, "serve", "--sandbox", "--store", db, "--listen", "127.0.0.1:0", "--vendor-url", "github=http://127.0.0.1:1")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--vendor-url and --sandbox") {
		t.Errorf("with --sandbox: exit %d, %s", r.code, r.stderr)
	}

	zd := zendesktest.New()
	defer zd.Close()
	srv := startServe(t, "--store", db, "--keys-file", keys, "--clients-file", clients, "--sync-every", "-1s", "--vendor-url", "zendesk-support="+zd.URL)
	c, err := hosted.New(hosted.Config{BaseURL: "http://" + srv.addr, ClientID: "app", ClientSecret: "0123456789abcdef0123", ExternalUserID: "u1"})
	if err != nil {
		t.Fatal(err)
	}
	creds := map[string]any{"subdomain": zendesktest.DefaultSubdomain, "email": zendesktest.DefaultEmail, "api_token": zendesktest.DefaultAPIToken}
	if _, err := c.CreateConnector(t.Context(), hosted.CreateRequest{ConnectorType: "zendesk-support", Credentials: creds}); err != nil {
		t.Fatal(err)
	}
	if len(zd.Requests()) == 0 {
		t.Error("creating a Zendesk connector sent nothing to --vendor-url's fake")
	}
}
