package main

import (
	"context"
	"encoding/base64"
	"net"
	"net/http"
	"path/filepath"
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
// Ctrl-C stops it with exit 0.
func TestServeSandbox(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan result, 1)
	go func() {
		done <- invocation{ctx: ctx}.run(t, "serve", "--sandbox", "--store", filepath.Join(t.TempDir(), "serve.db"), "--listen", addr, "--sync-every", "-1s")
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
