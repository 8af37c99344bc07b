package main

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"io/fs"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/sandbox"
)

// connectRun is one `tributary connect` running in-process, its streams
// readable while it runs.
type connectRun struct {
	stdout, stderr *syncBuffer
	done           chan int
}

// startConnect starts the command with args; open, when set, plays the
// browser the command opens.
func startConnect(t *testing.T, ctx context.Context, env map[string]string, open func(ctx context.Context, url string) error, args ...string) *connectRun {
	t.Helper()
	return startConnectIn(t, ctx, nil, env, open, args...)
}

// startConnectIn is startConnect with --sandbox running against sb.
func startConnectIn(t *testing.T, ctx context.Context, sb *sandbox.Sandbox, env map[string]string, open func(ctx context.Context, url string) error, args ...string) *connectRun {
	t.Helper()
	return startApp(ctx, &app{sandbox: sb}, env, open, args...)
}

// startApp runs `connect args…` on a (its streams, environment and
// browser set here).
func startApp(ctx context.Context, a *app, env map[string]string, open func(ctx context.Context, url string) error, args ...string) *connectRun {
	r := &connectRun{stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan int, 1)}
	a.stdin, a.stdout, a.stderr = strings.NewReader(""), r.stdout, r.stderr
	a.getenv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	a.isTerminal, a.openURL = func(io.Writer) bool { return false }, open
	go func() { r.done <- a.run(ctx, append([]string{"connect"}, args...)) }()
	return r
}

// startOwnApp runs `connect kind args…` as a user with an OAuth app of
// their own: the app is the one kind's fake knows (from the environment,
// with the inputs the fake expects) and the vendor is the fake, so that
// the flow that saves credentials runs offline.
func startOwnApp(t *testing.T, ctx context.Context, env map[string]string, open func(ctx context.Context, url string) error, kind string, args ...string) *connectRun {
	t.Helper()
	sb := sandbox.New()
	t.Cleanup(sb.Close)
	oc, err := sb.OAuthClient(kind)
	if err != nil {
		t.Fatal(err)
	}
	base, err := sb.URL(kind)
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]string{envOAuthClientID: oc.ClientID, envOAuthClientSecret: oc.ClientSecret}
	maps.Copy(all, env)
	cmd := []string{kind}
	for k, v := range oc.Inputs {
		cmd = append(cmd, "--input", k+"="+v)
	}
	return startApp(ctx, &app{vendorURL: base}, all, open, append(cmd, args...)...)
}

var printedURL = regexp.MustCompile(`(?m)^  (http\S+)$`)

// url waits for the consent URL the command prints on stderr.
func (r *connectRun) url(t *testing.T) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if m := printedURL.FindStringSubmatch(r.stderr.String()); m != nil {
			return m[1]
		}
		select {
		case code := <-r.done:
			t.Fatalf("the command ended (%d) before printing a URL; stderr:\n%s", code, r.stderr)
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("no URL on stderr:\n%s", r.stderr)
	return ""
}

// wait waits for the command's exit code.
func (r *connectRun) wait(t *testing.T) int {
	t.Helper()
	select {
	case code := <-r.done:
		return code
	case <-time.After(30 * time.Second):
		t.Fatalf("the command did not end; stderr:\n%s", r.stderr)
	}
	return 0
}

// userClient is the user's browser without a cache of connections, so
// that nothing outlives the test.
func userClient() *http.Client {
	return &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 20 * time.Second}
}

var formAction = regexp.MustCompile(`<form method="post" action="([^"]+)"`)

// consent plays the user: it opens the consent page at authURL, submits its
// form with decision (approve or deny) and follows the redirect back to the
// command; it returns the page the command answered with.
func consent(t *testing.T, authURL, decision string) (status int, page string) {
	t.Helper()
	hc := userClient()
	res, err := hc.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := formAction.FindStringSubmatch(string(body))
	if res.StatusCode != http.StatusOK || m == nil || !strings.Contains(string(body), "Approve") {
		t.Fatalf("consent page: %s\n%s", res.Status, body)
	}
	base, _ := url.Parse(authURL)
	action, err := base.Parse(html.UnescapeString(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	res, err = hc.PostForm(action.String(), url.Values{"decision": {decision}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.HasPrefix(res.Request.URL.String(), "http://127.0.0.1:") || res.Request.URL.Path != "/callback" {
		t.Fatalf("the consent answer ended at %s, not the command's callback", res.Request.URL)
	}
	return res.StatusCode, string(body)
}

// get fetches u as the user's browser would.
func get(t *testing.T, u string) (int, string) {
	t.Helper()
	res, err := userClient().Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// redirectURI is the redirect_uri the consent URL carries.
func redirectURI(t *testing.T, authURL string) string {
	t.Helper()
	u, err := url.Parse(authURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("redirect_uri")
}

// readCreds reads a credentials file and checks it is the owner's only.
func readCreds(t *testing.T, path string) map[string]any {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v, want 0600", path, st.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// noFile fails when path exists.
func noFile(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); err == nil {
		t.Errorf("%s was written", path)
	}
}

// Every kind, with --sandbox: the user follows the printed URL, approves
// on the fake's consent page and sees the command's "Connected" page; the
// credentials (printed with --out -) open the kind with `exec
// --credentials` against the same fake.
func TestConnectSandboxEveryKind(t *testing.T) {
	for _, kind := range kinds.Types() {
		t.Run(kind, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), kind+".json")
			sb := sandbox.New()
			defer sb.Close()
			r := startConnectIn(t, context.Background(), sb, nil, nil, kind, "--sandbox", "--no-browser", "--out", "-", "--timeout", "30s")
			authURL := r.url(t)
			cb := redirectURI(t, authURL)
			if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/callback$`).MatchString(cb) {
				t.Errorf("redirect_uri %q is not a loopback callback", cb)
			}
			status, page := consent(t, authURL, "approve")
			if status != http.StatusOK || !strings.Contains(page, "Connected — you can close this tab") {
				t.Errorf("the browser shows %d:\n%s", status, page)
			}
			if code := r.wait(t); code != 0 {
				t.Fatalf("exit %d\n%s", code, r.stderr)
			}
			var creds map[string]any
			decode(t, r.stdout.String(), &creds)
			if err := kinds.CheckCredentials(kind, creds); err != nil {
				t.Errorf("stdout is not %s's credentials object: %v", kind, err)
			}
			if err := os.WriteFile(out, []byte(r.stdout.String()), 0o600); err != nil {
				t.Fatal(err)
			}
			stderr := r.stderr.String()
			if !strings.Contains(stderr, "the credentials went to stdout") ||
				!regexp.MustCompile(`sandbox check: `+regexp.QuoteMeta(kind)+` \S+ list read [1-9]\d* records? with the new credentials`).MatchString(stderr) {
				t.Errorf("stderr does not say where the credentials went and that they work:\n%s", stderr)
			}
			for _, f := range kindInfos()[kind].fields {
				if v, _ := creds[f.name].(string); f.secret && v != "" && strings.Contains(stderr+page, v) {
					t.Errorf("the %s is printed", f.name)
				}
			}
			// The file is what --credentials takes: it opens the kind
			// against the fake that issued the tokens.
			base, err := sb.URL(kind)
			if err != nil {
				t.Fatal(err)
			}
			entity, params, _ := sb.Probe(kind)
			if entity == "" {
				t.Fatalf("the %s fake states no Probe (fakeserver.Kind.Probe)", kind)
			}
			args := []string{"exec", kind, entity, "list", "--credentials", out, "--base-url", base}
			for k, v := range params {
				args = append(args, "-p", k+"="+v.(string))
			}
			res := cli(t, args...)
			res.want(t, 0)
			var got map[string]any
			decode(t, res.stdout, &got)
			if recs, _ := got["records"].([]any); len(recs) == 0 {
				t.Errorf("exec with the new credentials read nothing: %.300s", res.stdout)
			}
		})
	}
}

// Deny on the consent page: the browser is told access was denied, the
// command fails with the kind and the step, and writes nothing.
func TestConnectDeny(t *testing.T) {
	out := filepath.Join(t.TempDir(), "github.json")
	r := startOwnApp(t, context.Background(), nil, nil, "github", "--no-browser", "--out", out)
	status, page := consent(t, r.url(t), "deny")
	if status != http.StatusForbidden || !strings.Contains(page, "Access denied") || !strings.Contains(page, "nothing was saved") {
		t.Errorf("the browser shows %d:\n%s", status, page)
	}
	if code := r.wait(t); code != exitAuth {
		t.Errorf("exit %d, want %d", code, exitAuth)
	}
	if !strings.Contains(r.stderr.String(), "tributary: connect github: callback: access denied by the user") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	noFile(t, out)

	// For programs: the error's type says the user declined.
	r = startOwnApp(t, context.Background(), nil, nil, "github", "--no-browser", "--out", out, "--json-errors")
	consent(t, r.url(t), "deny")
	if code := r.wait(t); code != exitAuth {
		t.Errorf("exit %d, want %d", code, exitAuth)
	}
	if !strings.Contains(r.stderr.String(), `{"error":{"type":"access_denied","exit_code":3,"message":"tributary: connect github: callback: access denied by the user`) {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	noFile(t, out)
}

// A callback with a state that is not the command's (a forged link, a stale
// tab) gets a refusal page and does not end the wait; stray requests such
// as the favicon neither; the user's own approval then connects.
func TestConnectForgedStateKeepsWaiting(t *testing.T) {
	out := filepath.Join(t.TempDir(), "hubspot.json")
	r := startOwnApp(t, context.Background(), nil, nil, "hubspot", "--no-browser", "--out", out)
	authURL := r.url(t)
	cb := redirectURI(t, authURL)
	status, page := get(t, cb+"?code=forged-code&state=forged-state")
	if status != http.StatusBadRequest || !strings.Contains(page, "Refused: not this command&#39;s request") {
		t.Errorf("forged callback: the browser shows %d:\n%s", status, page)
	}
	if status, _ := get(t, strings.TrimSuffix(cb, "/callback")+"/favicon.ico"); status != http.StatusNotFound {
		t.Errorf("favicon: %d", status)
	}
	if status, _ := get(t, cb); status != http.StatusBadRequest { // no state at all
		t.Errorf("callback without state: %d", status)
	}
	select {
	case code := <-r.done:
		t.Fatalf("a forged callback ended the command (%d):\n%s", code, r.stderr)
	case <-time.After(50 * time.Millisecond):
	}
	noFile(t, out)
	status, page = consent(t, authURL, "approve")
	if status != http.StatusOK || !strings.Contains(page, "Connected") {
		t.Errorf("the browser shows %d:\n%s", status, page)
	}
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit %d\n%s", code, r.stderr)
	}
	if !strings.Contains(r.stderr.String(), "refused a callback whose state is not this command's") {
		t.Errorf("stderr does not report the refused callback:\n%s", r.stderr)
	}
	readCreds(t, out)
	// The command has stopped listening: the code cannot be delivered twice.
	if _, err := userClient().Get(cb); err == nil {
		t.Error("the callback still answers after the command ended")
	}
}

// --timeout ends the wait with a clear error and no file.
func TestConnectTimeout(t *testing.T) {
	out := filepath.Join(t.TempDir(), "intercom.json")
	start := time.Now()
	r := startOwnApp(t, context.Background(), nil, nil, "intercom", "--no-browser", "--out", out, "--timeout", "300ms")
	if code := r.wait(t); code != exitOther {
		t.Errorf("exit %d, want %d", code, exitOther)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("ended after %s", d)
	}
	if !strings.Contains(r.stderr.String(), "tributary: connect intercom: no answer from the browser within 300ms (--timeout); nothing was saved") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	noFile(t, out)
}

// Ctrl-C while waiting exits 130 with no file.
func TestConnectInterrupted(t *testing.T) {
	out := filepath.Join(t.TempDir(), "mailchimp.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := startOwnApp(t, ctx, nil, nil, "mailchimp", "--no-browser", "--out", out)
	r.url(t)
	cancel()
	if code := r.wait(t); code != exitInterrupted {
		t.Errorf("exit %d, want %d", code, exitInterrupted)
	}
	if !strings.Contains(r.stderr.String(), "tributary: interrupted: no credentials were saved") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	noFile(t, out)
}

// An existing --out file is refused before any browser step; --force
// replaces it with a file that is the owner's only.
func TestConnectExistingFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "gong.json")
	if err := os.WriteFile(out, []byte(`{"old": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	opened := false
	open := func(context.Context, string) error { opened = true; return nil }
	r := startOwnApp(t, context.Background(), nil, open, "gong", "--out", out)
	if code := r.wait(t); code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	if !strings.Contains(r.stderr.String(), "--out "+out+" already exists: give --force to replace it") ||
		strings.Contains(r.stderr.String(), "http") || opened {
		t.Errorf("opened %v; stderr:\n%s", opened, r.stderr)
	}
	if b, _ := os.ReadFile(out); string(b) != `{"old": true}` {
		t.Errorf("the file changed: %s", b)
	}

	r = startOwnApp(t, context.Background(), nil, nil, "gong", "--no-browser", "--out", out, "--force")
	if status, _ := consent(t, r.url(t), "approve"); status != http.StatusOK {
		t.Errorf("status %d", status)
	}
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit %d\n%s", code, r.stderr)
	}
	if creds := readCreds(t, out); creds["old"] != nil || creds["access_token"] == nil {
		t.Errorf("the file was not replaced by the new credentials: keys %v", keysOf(creds))
	}
}

func keysOf(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// --out - prints the credentials object on stdout, and only then.
func TestConnectOutStdout(t *testing.T) {
	r := startConnect(t, context.Background(), nil, nil, "salesforce", "--sandbox", "--no-browser", "--out", "-")
	consent(t, r.url(t), "approve")
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit %d\n%s", code, r.stderr)
	}
	var creds map[string]any
	decode(t, r.stdout.String(), &creds)
	if err := kinds.CheckCredentials("salesforce", creds); err != nil || creds["instance_url"] == nil {
		t.Errorf("stdout is not salesforce credentials (%v): keys %v", err, keysOf(creds))
	}
	if !strings.Contains(r.stderr.String(), "the credentials went to stdout") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}

// Without --out the file goes to the user configuration directory, named
// for the kind, in a directory only the owner reads.
func TestConnectDefaultOut(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg) // os.UserConfigDir on Linux
	t.Setenv("HOME", cfg)            // and on macOS
	dir, err := os.UserConfigDir()
	if err != nil {
		t.Fatal(err)
	}
	r := startOwnApp(t, context.Background(), nil, nil, "zendesk-support", "--no-browser")
	consent(t, r.url(t), "approve")
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit %d\n%s", code, r.stderr)
	}
	want := filepath.Join(dir, "tributary", "zendesk-support.json")
	if creds := readCreds(t, want); creds["subdomain"] != "acme" {
		t.Errorf("subdomain %v", creds["subdomain"])
	}
	if st, err := os.Stat(filepath.Dir(want)); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("directory: %v %v", st.Mode(), err)
	}
	if !strings.Contains(r.stderr.String(), "credentials written to "+want) {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}

// connect --sandbox saves nothing: its credentials open only the fake,
// which stops with the command, and anywhere else they would be sent to
// the real vendor. Nothing lands in the configuration directory, and the
// command says why; --out FILE is refused before any browser step; --out
// - prints them (TestConnectSandboxEveryKind).
func TestConnectSandboxSavesNothing(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg) // os.UserConfigDir on Linux
	t.Setenv("HOME", cfg)            // and on macOS
	r := startConnect(t, context.Background(), nil, nil, "zendesk-support", "--sandbox", "--no-browser")
	consent(t, r.url(t), "approve")
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit %d\n%s", code, r.stderr)
	}
	var files []string
	_ = filepath.WalkDir(cfg, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, path)
		}
		return nil
	})
	if len(files) != 0 {
		t.Errorf("connect --sandbox wrote %q", files)
	}
	stderr := r.stderr.String()
	if !strings.Contains(stderr, "tributary: connected zendesk-support in the sandbox; the credentials were not saved: they open only the fake") ||
		strings.Contains(stderr, "--credentials") || strings.Contains(stderr, "written to") || r.stdout.String() != "" {
		t.Errorf("stderr:\n%s\nstdout: %q", stderr, r.stdout)
	}

	out := filepath.Join(cfg, "zendesk.json")
	res := cli(t, "connect", "zendesk-support", "--sandbox", "--no-browser", "--timeout", "2s", "--out", out)
	if res.code != exitUsage || !strings.Contains(res.stderr, "--out "+out+": connect --sandbox saves no credentials") ||
		!strings.Contains(res.stderr, "sent to the real vendor") || strings.Contains(res.stderr, "http") {
		t.Errorf("--sandbox --out FILE: exit %d, %s", res.code, res.stderr)
	}
	noFile(t, out)
}

// With your own OAuth app: the client comes from the environment or the
// flags, the consent URL is the vendor's with a loopback redirect, the
// client secret is never printed, and what is missing is named.
func TestConnectOwnApp(t *testing.T) {
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "secret")
	if err := os.WriteFile(secretFile, []byte("s3cr3t-from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := startConnect(t, context.Background(), map[string]string{envOAuthClientID: "Iv1.env-client"}, nil,
		"github", "--client-secret-file", secretFile, "--no-browser", "--out", filepath.Join(dir, "gh.json"), "--timeout", "200ms")
	authURL := r.url(t)
	u, _ := url.Parse(authURL)
	if u.Host != "github.com" || u.Path != "/login/oauth/authorize" || u.Query().Get("client_id") != "Iv1.env-client" ||
		u.Query().Get("code_challenge_method") != "S256" {
		t.Errorf("consent URL %s", authURL)
	}
	if code := r.wait(t); code != exitOther {
		t.Errorf("exit %d", code)
	}
	if strings.Contains(r.stderr.String(), "s3cr3t") {
		t.Errorf("the client secret is printed:\n%s", r.stderr)
	}

	for _, tc := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, []string{"github"}, "connect needs your OAuth app's client id: --client-id or $TRIBUTARY_OAUTH_CLIENT_ID"},
		{nil, []string{"github", "--client-id", "x"}, "client secret: --client-secret-file FILE or $TRIBUTARY_OAUTH_CLIENT_SECRET"},
		{map[string]string{envOAuthClientID: "x", envOAuthClientSecret: "y"}, []string{"zendesk-support"}, "connect zendesk-support: config: invalid OAuth configuration: subdomain is required"},
		{map[string]string{envOAuthClientID: "x", envOAuthClientSecret: "y"}, []string{"github", "--input", "nope"}, `--input "nope" must be name=value`},
		{map[string]string{envOAuthClientID: "x", envOAuthClientSecret: "y"}, []string{"intercom", "--input", "region=mars"}, `region "mars" is not one of us, eu, au`},
		{nil, []string{"nope", "--sandbox"}, "nope"},
		{nil, []string{"github", "--sandbox", "--client-id", "x"}, "[client-id sandbox] were all set"},
	} {
		res := invocation{env: tc.env}.run(t, append([]string{"connect"}, tc.args...)...)
		if res.code != exitUsage || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, res.code, res.stderr, tc.want)
		}
		if strings.Contains(res.stderr, "http") {
			t.Errorf("%v: a URL was printed before the refusal: %s", tc.args, res.stderr)
		}
	}
}

// $BROWSER opens the consent URL; a browser that cannot start is not
// fatal: the URL is printed anyway.
func TestConnectBrowserVariable(t *testing.T) {
	dir := t.TempDir()
	got := filepath.Join(dir, "url")
	script := filepath.Join(dir, "browser")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s' \"$1\" > "+got+".tmp && mv "+got+".tmp "+got+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	r := startConnect(t, context.Background(), map[string]string{"BROWSER": script}, nil, "github", "--sandbox")
	printed := r.url(t)
	var opened []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if opened, _ = os.ReadFile(got); len(opened) > 0 {
			break
		}
	}
	if string(opened) != printed {
		t.Fatalf("$BROWSER was given %q, the command printed %q", opened, printed)
	}
	consent(t, string(opened), "approve")
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit %d\n%s", code, r.stderr)
	}

	r = startConnect(t, context.Background(), map[string]string{"BROWSER": filepath.Join(dir, "no-such-browser")}, nil,
		"github", "--sandbox")
	consent(t, r.url(t), "approve")
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit %d\n%s", code, r.stderr)
	}
	if !strings.Contains(r.stderr.String(), "could not open a browser") || !strings.Contains(r.stderr.String(), "open the URL above yourself") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}

// connect completes the kind, nothing after it, and --input with the
// kind's flow inputs.
func TestConnectCompletion(t *testing.T) {
	complete := func(args ...string) []string {
		r := cli(t, append([]string{"__complete", "connect"}, args...)...)
		r.want(t, 0)
		var out []string
		for _, l := range strings.Split(r.stdout, "\n") {
			if l != "" && !strings.HasPrefix(l, ":") {
				out = append(out, strings.SplitN(l, "\t", 2)[0])
			}
		}
		return out
	}
	if got := complete(""); !slices.Equal(got, kinds.Types()) {
		t.Errorf("types: %v", got)
	}
	if got := complete("github", ""); len(got) != 0 {
		t.Errorf("after the type: %v", got)
	}
	if got := complete("zendesk-support", "--input", ""); !slices.Equal(got, []string{"subdomain="}) {
		t.Errorf("--input: %v", got)
	}
	if got := complete("salesforce", "--input", "lo"); !slices.Equal(got, []string{"login_url="}) {
		t.Errorf("--input: %v", got)
	}
	if got := complete("intercom", "--input", "region="); !slices.Equal(got, []string{"region=us", "region=eu", "region=au"}) {
		t.Errorf("--input region=: %v", got)
	}
}

// An Intercom workspace outside the US: --input region=eu is kept in the
// credentials, which then read from the fake.
func TestConnectIntercomRegion(t *testing.T) {
	r := startConnect(t, context.Background(), nil, nil, "intercom", "--sandbox", "--no-browser", "--input", "region=eu", "--out", "-")
	authURL := r.url(t)
	consent(t, authURL, "approve")
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit %d\n%s", code, r.stderr)
	}
	var creds map[string]any
	decode(t, r.stdout.String(), &creds)
	if creds["region"] != "eu" || kinds.CheckCredentials("intercom", creds) != nil {
		t.Errorf("credentials with keys %v, region %v: want region eu", keysOf(creds), creds["region"])
	}
	if !regexp.MustCompile(`sandbox check: intercom \S+ list read [1-9]\d* records? with the new credentials`).MatchString(r.stderr.String()) {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}

// --port fixes the loopback port, for vendors that compare the redirect
// URI exactly; a port already taken fails before any browser step.
func TestConnectPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	r := startConnect(t, context.Background(), nil, nil, "mailchimp", "--sandbox", "--no-browser", "--port", port, "--out", "-")
	if code := r.wait(t); code != exitOther || !strings.Contains(r.stderr.String(), "connect mailchimp: listening on 127.0.0.1 for the browser's redirect (--port "+port+")") {
		t.Errorf("port taken: exit %d, stderr:\n%s", code, r.stderr)
	}
	ln.Close()
	r = startConnect(t, context.Background(), nil, nil, "mailchimp", "--sandbox", "--no-browser", "--port", port, "--out", "-")
	authURL := r.url(t)
	if got := redirectURI(t, authURL); got != "http://127.0.0.1:"+port+"/callback" {
		t.Errorf("redirect_uri %s, want port %s", got, port)
	}
	consent(t, authURL, "approve")
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit %d\n%s", code, r.stderr)
	}
	own := map[string]string{envOAuthClientID: "x", envOAuthClientSecret: "y"}
	if res := (invocation{env: own}).run(t, "connect", "mailchimp", "--out", t.TempDir()); res.code != exitUsage || !strings.Contains(res.stderr, "is a directory") {
		t.Errorf("--out a directory: %d %s", res.code, res.stderr)
	}
}
