package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/sandbox"
)

func TestServeKeygen(t *testing.T) {
	r := cli(t, "serve", "keygen")
	id, b64, ok := strings.Cut(strings.TrimSpace(r.stdout), ":")
	key, err := base64.StdEncoding.DecodeString(b64)
	if r.code != 0 || !ok || id == "" || err != nil || len(key) != 32 {
		t.Fatalf("keygen: exit %d, %q", r.code, r.stdout)
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
func TestServeSandbox(t *testing.T) {
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan result, 1)
	live := &syncBuffer{}
	go func() {
		done <- invocation{ctx: ctx, stderr: live}.run(t, "serve", "--sandbox", "--store", filepath.Join(t.TempDir(), "serve.db"), "--listen", addr, "--sync-every", "-1s")
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("serve never answered: %v; %s", err, (<-done).stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
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
	cancel()
	r := <-done
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
