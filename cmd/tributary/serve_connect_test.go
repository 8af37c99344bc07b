package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
)

// serve --sandbox runs the whole connect flow offline: a session from the
// hosted client, the connect page, the fake's consent page (Zendesk's
// subdomain filled in by the sandbox), and the callback's redirect to the
// return URL with a connector that lists. Restarted on the same store,
// the service still opens a HubSpot connector so connected, against a new
// fake that issued none of its tokens (it refreshes them). The Zendesk
// fake rotates its refresh tokens in memory, as Zendesk does: the
// restarted fake refuses the old one, and the connector is reported
// needs_reconnect, never healthy.
func TestServeSandboxConnect(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "serve.db")
	srv := startServe(t, "--sandbox", "--store", db, "--sync-every", "-1s")
	ids := map[string]string{}
	probes := map[string]string{"zendesk-support": "tickets", "hubspot": "contacts"}
	list := func(addr, kind string) error {
		c, err := hosted.New(hosted.Config{BaseURL: "http://" + addr, ClientID: "sandbox", ClientSecret: "sandbox-client-secret", ExternalUserID: "u1"})
		if err != nil {
			t.Fatal(err)
		}
		conn, err := c.Connector(ids[kind], kind)
		if err != nil {
			t.Fatal(err)
		}
		page, err := conn.List(ctx, probes[kind], tributary.Params{})
		if err == nil && len(page.Records) == 0 {
			err = errors.New("no records")
		}
		return err
	}
	for kind := range probes {
		ids[kind] = connectThroughServe(t, srv.addr, kind)
		if err := list(srv.addr, kind); err != nil {
			t.Errorf("list on the %s connector just connected: %v", kind, err)
		}
	}
	if r := srv.stop(); r.code != 0 {
		t.Errorf("serve after Ctrl-C: exit %d, %s", r.code, r.stderr)
	}

	srv = startServe(t, "--sandbox", "--store", db, "--sync-every", "-1s")
	if err := list(srv.addr, "hubspot"); err != nil {
		t.Errorf("list on the hubspot connector after a restart: %v", err)
	}
	if err := list(srv.addr, "zendesk-support"); !errors.Is(err, tributary.ErrUnauthorized) {
		t.Errorf("list on the zendesk-support connector after a restart: %v, want unauthorized", err)
	}
	c, err := hosted.New(hosted.Config{BaseURL: "http://" + srv.addr, ClientID: "sandbox", ClientSecret: "sandbox-client-secret"})
	if err != nil {
		t.Fatal(err)
	}
	for kind, want := range map[string]string{"hubspot": "healthy", "zendesk-support": "needs_reconnect"} {
		if info, err := c.GetConnector(ctx, ids[kind]); err != nil || info.Status != want {
			t.Errorf("%s after a restart: %+v, %v; want %s", kind, info, err, want)
		}
	}
}

// connectThroughServe connects a kind through the connect flow of the
// sandbox service at addr, as a user in a browser would, and returns the
// connector's id.
func connectThroughServe(t *testing.T, addr, kind string) string {
	t.Helper()
	ctx := context.Background()
	c, err := hosted.New(hosted.Config{BaseURL: "http://" + addr, ClientID: "sandbox", ClientSecret: "sandbox-client-secret", ExternalUserID: "u1"})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := c.CreateConnectSession(ctx, hosted.ConnectSessionRequest{ReturnURL: "https://app.example/done", AllowedKinds: []string{kind}})
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
	consent, _ := step("POST", sess.ConnectURL, url.Values{"csrf": {m[1]}, "kind": {kind}}, http.StatusSeeOther)
	step("GET", consent, nil, http.StatusOK)
	callback, _ := step("POST", consent, url.Values{"decision": {"approve"}}, http.StatusFound)
	back, _ := step("GET", callback, nil, http.StatusSeeOther)
	u, err := url.Parse(back)
	if err != nil || !strings.HasPrefix(back, "https://app.example/done?") || u.Query().Get("connector_id") == "" {
		t.Fatalf("the return URL: %q", back)
	}
	return u.Query().Get("connector_id")
}
