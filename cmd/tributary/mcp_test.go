package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/sandbox"
)

// callTool calls a tool and returns its structured content; isError fails
// the test unless wantError.
func callTool(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any, wantError bool) (map[string]any, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	text := ""
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text += tc.Text
		}
	}
	if res.IsError != wantError {
		t.Fatalf("%s %v: isError %v: %s", name, args, res.IsError, text)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out, text
}

func recordIDs(out map[string]any) []string {
	var ids []string
	recs, _ := out["records"].([]any)
	for _, r := range recs {
		b, _ := json.Marshal(r.(map[string]any)["id"])
		ids = append(ids, string(b))
	}
	return ids
}

// TestMCPOverStdio drives `tributary mcp --sandbox` as a client does:
// initialize, list the tools, call each one, continue a cut answer.
func TestMCPOverStdio(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cmd := exec.Command(binary, "mcp", "--sandbox", "--download-dir", dir)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if info := cs.InitializeResult().ServerInfo; info.Name != "tributary" {
		t.Errorf("server info %+v", info)
	}

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if want := []string{"describe", "download", "execute", "list_connectors", "validate"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v", names)
	}

	out, _ := callTool(t, cs, "list_connectors", nil, false)
	if n := len(out["connectors"].([]any)); n != len(sandbox.New().Types()) {
		t.Errorf("%d connectors", n)
	}
	out, _ = callTool(t, cs, "describe", map[string]any{"connector": "github", "entity": "issues"}, false)
	if out["entity"].(map[string]any)["name"] != "issues" {
		t.Errorf("describe %v", out)
	}
	out, _ = callTool(t, cs, "validate", map[string]any{"connector": "github", "entity": "issues", "action": "list", "params": map[string]any{"owner": "octo"}}, false)
	if out["valid"] != false || out["error"].(map[string]any)["param"] != "repo" {
		t.Errorf("validate %v", out)
	}
	_, text := callTool(t, cs, "execute", map[string]any{"connector": "github", "entity": "issues", "action": "get", "params": map[string]any{"owner": "octo"}}, true)
	if !strings.Contains(text, `"repo"`) {
		t.Errorf("error %q", text)
	}

	// A page cut at 4 records, continued with next, is the library's page.
	sb := sandbox.New()
	defer sb.Close()
	conn, err := sb.Open("github")
	if err != nil {
		t.Fatal(err)
	}
	params := tributary.Params{"owner": "octo", "repo": "hello", "per_page": 10}
	page, err := conn.List(ctx, "issues", params)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range page.Records {
		raw, _ := r.Lookup("id")
		want = append(want, string(raw))
	}
	args := map[string]any{"connector": "github", "entity": "issues", "action": "list", "params": map[string]any(params), "limit": 4}
	var got []string
	for i := 0; ; i++ {
		out, _ := callTool(t, cs, "execute", args, false)
		got = append(got, recordIDs(out)...)
		if out["truncated"] != true {
			break
		}
		args = out["next"].(map[string]any)
		if i > 10 {
			t.Fatal("no end")
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("through next: %v\nwant %v", got, want)
	}

	// api_search: the source's own search, as the library runs it.
	q := tributary.Params{"q": "repo:octo/hello is:open", "per_page": 5}
	apage, err := conn.APISearch(ctx, "issues", q)
	if err != nil {
		t.Fatal(err)
	}
	out, _ = callTool(t, cs, "execute", map[string]any{"connector": "github", "entity": "issues", "action": "api_search", "params": map[string]any(q)}, false)
	want = nil
	for _, r := range apage.Records {
		raw, _ := r.Lookup("id")
		want = append(want, string(raw))
	}
	if got := recordIDs(out); len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("api_search %v, want %v", got, want)
	}

	out, _ = callTool(t, cs, "download", map[string]any{"connector": "zendesk-support", "entity": "attachments", "params": map[string]any{"attachment_id": 30000000000000}}, false)
	st, err := os.Stat(out["path"].(string))
	if err != nil || st.Size() != int64(out["size"].(float64)) || !strings.HasPrefix(out["path"].(string), dir) {
		t.Errorf("download %v: %v", out, err)
	}

	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "tributary://connectors/hubspot/catalogue"})
	if err != nil || !strings.Contains(res.Contents[0].Text, `"name":"contacts"`) {
		t.Errorf("resource: %v", err)
	}
}

// bearer adds a token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// startHTTP runs `tributary mcp --sandbox --http 127.0.0.1:0` and returns
// its URL; the process is stopped at the end of the test.
func startHTTP(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"mcp", "--sandbox", "--download-dir", t.TempDir(), "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	urls := make(chan string, 1)
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "tributary mcp: serving "); ok {
				urls <- u
			}
		}
		_ = cmd.Wait()
	}()
	select {
	case u := <-urls:
		return u
	case <-exited:
		t.Fatal("tributary mcp --http exited")
	case <-time.After(60 * time.Second):
		t.Fatal("tributary mcp --http did not start")
	}
	return ""
}

// TestMCPOverHTTP: a bearer token is required, and 100 concurrent calls
// over streamable HTTP all succeed.
func TestMCPOverHTTP(t *testing.T) {
	ctx := context.Background()
	const token = "e2e-token-5f1b"
	url := startHTTP(t, []string{envMCPToken + "=" + token})

	for _, tok := range []string{"", "wrong"} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("token %q: status %d, want 401", tok, resp.StatusCode)
		}
	}

	tr := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token}}, DisableStandaloneSSE: true}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 5 {
		t.Fatalf("tools: %v", err)
	}

	const calls = 100
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for i := range calls {
		wg.Go(func() {
			id := 35436 + i%50
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "execute", Arguments: map[string]any{
				"connector": "zendesk-support", "entity": "tickets", "action": "get", "params": map[string]any{"ticket_id": id}, "fields": []string{"id"}}})
			switch {
			case err != nil:
				errs <- err
			case res.IsError:
				errs <- fmt.Errorf("call %d: isError", i)
			default:
				b, _ := json.Marshal(res.StructuredContent)
				if !strings.Contains(string(b), fmt.Sprintf(`{"id":%d}`, id)) {
					errs <- fmt.Errorf("call %d: %s", i, b)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	n := 0
	for err := range errs {
		n++
		if n <= 5 {
			t.Error(err)
		}
	}
	if n > 0 {
		t.Errorf("%d of %d concurrent calls failed", n, calls)
	}
}

// TestMCPHTTPAuthRules: a token is required unless the address is loopback
// and --no-auth is given explicitly.
func TestMCPHTTPAuthRules(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--http", "127.0.0.1:0"}, nil, "needs a bearer token in TRIBUTARY_MCP_TOKEN"},
		{[]string{"--http", "0.0.0.0:0", "--no-auth"}, nil, "only allowed on a loopback address"},
		{[]string{"--http", ":0", "--no-auth"}, nil, "only allowed on a loopback address"},
		{[]string{"--http", "127.0.0.1:0", "--no-auth"}, map[string]string{envMCPToken: "x"}, "exclude each other"},
		{[]string{"--no-auth"}, nil, "--no-auth goes with --http"},
		{nil, nil, "give --config FILE"},
	} {
		args := append([]string{"mcp"}, c.args...)
		if c.args != nil {
			args = append(args, "--sandbox")
		}
		r := invocation{env: c.env}.run(t, args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
	// On loopback, --no-auth serves without a token.
	url := startHTTP(t, nil, "--no-auth")
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil).Connect(context.Background(),
		&sdk.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Error(err)
	}
}
