package main

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
)

// serve --sandbox runs the whole connect flow offline: a session from the
// hosted client, the connect page, the Zendesk fake's consent page (its
// subdomain filled in by the sandbox), and the callback's redirect to the
// return URL with a connector that lists tickets.
func TestServeSandboxConnect(t *testing.T) {
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan result, 1)
	go func() {
		done <- invocation{ctx: ctx}.run(t, "serve", "--sandbox", "--store", filepath.Join(t.TempDir(), "serve.db"), "--listen", addr, "--sync-every", "-1s")
	}()
	defer func() {
		cancel()
		if r := <-done; r.code != 0 {
			t.Errorf("serve after Ctrl-C: exit %d, %s", r.code, r.stderr)
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve never answered: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	c, err := hosted.New(hosted.Config{BaseURL: "http://" + addr, ClientID: "sandbox", ClientSecret: "sandbox-client-secret", ExternalUserID: "u1"})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := c.CreateConnectSession(ctx, hosted.ConnectSessionRequest{ReturnURL: "https://app.example/done", AllowedKinds: []string{"zendesk-support"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(sess.ConnectURL, "http://"+addr+"/connect/") {
		t.Fatalf("connect_url %q is not under the listening address", sess.ConnectURL)
	}
	jar, _ := cookiejar.New(nil)
	ua := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	step := func(method, target string, form url.Values, want int) (string, string) {
		t.Helper()
		var resp *http.Response
		var err error
		if form != nil {
			resp, err = ua.PostForm(target, form)
		} else {
			resp, err = ua.Get(target)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			t.Fatalf("%s %s: %d, want %d: %s", method, target, resp.StatusCode, want, b)
		}
		return resp.Header.Get("Location"), string(b)
	}
	_, body := step("GET", sess.ConnectURL, nil, http.StatusOK)
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no form on the connect page: %s", body)
	}
	consent, _ := step("POST", sess.ConnectURL, url.Values{"csrf": {m[1]}, "kind": {"zendesk-support"}}, http.StatusSeeOther)
	step("GET", consent, nil, http.StatusOK)
	callback, _ := step("POST", consent, url.Values{"decision": {"approve"}}, http.StatusFound)
	back, _ := step("GET", callback, nil, http.StatusSeeOther)
	u, err := url.Parse(back)
	if err != nil || !strings.HasPrefix(back, "https://app.example/done?") {
		t.Fatalf("the return URL: %q", back)
	}
	conn, err := c.Connector(u.Query().Get("connector_id"), "zendesk-support")
	if err != nil {
		t.Fatal(err)
	}
	page, err := conn.List(ctx, "tickets", tributary.Params{"per_page": 2})
	if err != nil || len(page.Records) != 2 {
		t.Fatalf("list on the connected connector: %v", err)
	}
}
