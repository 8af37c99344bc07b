package main

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serveAt runs `serve` with env and args on a free loopback port until
// ctx ends, and returns its address once it answers, and its result.
func serveAt(t *testing.T, ctx context.Context, env map[string]string, args ...string) (string, <-chan result) {
	t.Helper()
	addr := freeAddr(t)
	done := make(chan result, 1)
	go func() {
		done <- invocation{ctx: ctx, env: env}.run(t, append([]string{"serve", "--listen", addr, "--sync-every", "-1s"}, args...)...)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			return addr, done
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve never answered: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The console is on with TRIBUTARY_ADMIN_PASSWORD, off without it;
// --sandbox makes a password up and says it on stderr.
func TestServeConsolePassword(t *testing.T) {
	for _, c := range []struct {
		name   string
		env    map[string]string
		args   []string
		status int
		notice bool
	}{
		{"env", map[string]string{envAdminPassword: "an-operator-password-0123", envServeKeys: "k1:" + strings.Repeat("A", 43) + "=", envServeClients: "app:app-secret-0123456789abcdef"}, nil, http.StatusOK, false},
		{"none", map[string]string{envServeKeys: "k1:" + strings.Repeat("A", 43) + "=", envServeClients: "app:app-secret-0123456789abcdef"}, nil, http.StatusNotFound, false},
		{"sandbox", nil, []string{"--sandbox"}, http.StatusOK, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			addr, done := serveAt(t, ctx, c.env, append([]string{"--store", filepath.Join(t.TempDir(), "serve.db")}, c.args...)...)
			resp, err := http.Get("http://" + addr + "/console/login")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.status {
				t.Errorf("GET /console/login: %d, want %d", resp.StatusCode, c.status)
			}
			cancel()
			r := <-done
			if r.code != 0 {
				t.Fatalf("serve: exit %d: %s", r.code, r.stderr)
			}
			if got := strings.Contains(r.stderr, "--sandbox console: /console, operator password"); got != c.notice {
				t.Errorf("the sandbox's password notice shown: %v, want %v", got, c.notice)
			}
			if strings.Contains(r.stderr, "an-operator-password-0123") {
				t.Error("the admin password is on stderr")
			}
		})
	}
}
