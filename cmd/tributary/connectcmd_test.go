package main

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
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
	r := &connectRun{stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan int, 1)}
	a := &app{stdin: strings.NewReader(""), stdout: r.stdout, stderr: r.stderr,
		getenv:     func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		isTerminal: func(io.Writer) bool { return false }, openURL: open, sandbox: sb}
	go func() { r.done <- a.run(ctx, append([]string{"connect"}, args...)) }()
	return r
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
// file is the owner's only, and the credentials in it open the kind with
// `exec --credentials` against the same fake.
func TestConnectSandboxEveryKind(t *testing.T) {
	for _, kind := range kinds.Types() {
		t.Run(kind, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), kind+".json")
			sb := sandbox.New()
			defer sb.Close()
			r := startConnectIn(t, context.Background(), sb, nil, nil, kind, "--sandbox", "--no-browser", "--out", out, "--timeout", "30s")
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
			creds := readCreds(t, out)
			if err := kinds.CheckCredentials(kind, creds); err != nil {
				t.Errorf("the file is not %s's credentials object: %v", kind, err)
			}
			stderr := r.stderr.String()
			if !strings.Contains(stderr, "credentials written to "+out) ||
				!regexp.MustCompile(`sandbox check: `+regexp.QuoteMeta(kind)+` \S+ list read [1-9]\d* records? with the new credentials`).MatchString(stderr) {
				t.Errorf("stderr does not say where the credentials went and that they work:\n%s", stderr)
			}
			if r.stdout.String() != "" {
				t.Errorf("stdout: %q", r.stdout)
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
			probe := sandboxProbe[kind]
			args := []string{"exec", kind, probe.entity, "list", "--credentials", out, "--base-url", base}
			for k, v := range probe.params {
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
