package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted/hostedtest"
	"github.com/tributary-dev/tributary/kinds/intercom/intercomtest"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

// hostedWorld is the hosted test service in front of the Zendesk fake, and
// the environment the command reads its token from.
type hostedWorld struct {
	srv *hostedtest.Server
	zd  *zendesktest.Server
	env map[string]string
}

func newHosted(t *testing.T) *hostedWorld {
	t.Helper()
	zd := zendesktest.New()
	t.Cleanup(zd.Close)
	fast := tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond, MaxRateLimitWait: time.Second})
	ic := intercomtest.New()
	t.Cleanup(ic.Close)
	srv := hostedtest.New(hostedtest.WithConnectorOptions("zendesk-support", tributary.WithBaseURL(zd.URL), fast),
		hostedtest.WithConnectorOptions("intercom", tributary.WithBaseURL(ic.URL), fast))
	t.Cleanup(srv.Close)
	return &hostedWorld{srv: srv, zd: zd, env: map[string]string{
		"TRIBUTARY_CLIENT_ID": hostedtest.DefaultClientID, "TRIBUTARY_CLIENT_SECRET": hostedtest.DefaultClientSecret,
		"TRIBUTARY_EXTERNAL_USER_ID": "customer-42",
		// Direct-mode credentials, which create-connector hands to the
		// service.
		"TRIBUTARY_ZENDESK_SUPPORT_SUBDOMAIN": "acme", "TRIBUTARY_ZENDESK_SUPPORT_EMAIL": zendesktest.DefaultEmail,
		"TRIBUTARY_ZENDESK_SUPPORT_API_TOKEN": zendesktest.DefaultAPIToken,
	}}
}

// create makes a connector through the command and returns its id.
func (w *hostedWorld) create(t *testing.T) string {
	t.Helper()
	r := invocation{env: w.env}.run(t, "create-connector", "zendesk-support", "--hosted", w.srv.URL, "--name", "Acme")
	r.want(t, 0)
	id := strings.TrimSpace(r.stdout)
	if id == "" || strings.Contains(id, "\n") {
		t.Fatalf("create-connector printed %q", r.stdout)
	}
	return id
}

func TestHosted(t *testing.T) {
	w := newHosted(t)
	id := w.create(t)
	hosted := []string{"--hosted", w.srv.URL, "--connector-id", id}

	// The same command, the same output, as against the fake directly.
	r := invocation{env: w.env}.run(t, append([]string{"exec", "zendesk-support", "tickets", "list", "-p", "per_page=4"}, hosted...)...)
	r.want(t, 0)
	direct := invocation{env: w.env}.run(t, "exec", "zendesk-support", "tickets", "list", "-p", "per_page=4", "--base-url", w.zd.URL)
	direct.want(t, 0)
	var hp, dp pageOutput
	decode(t, r.stdout, &hp)
	decode(t, direct.stdout, &dp)
	hj, _ := json.Marshal(hp.Records)
	dj, _ := json.Marshal(dp.Records)
	if len(hp.Records) != 4 || string(hj) != string(dj) {
		t.Errorf("hosted records differ from direct:\n%s\n%s", hj, dj)
	}

	// Every page, through the hosted client's walk; the connector id from
	// the environment.
	env := map[string]string{"TRIBUTARY_CONNECTOR_ID": id}
	for k, v := range w.env {
		env[k] = v
	}
	r = invocation{env: env}.run(t, "exec", "zendesk-support", "tickets", "list", "--hosted", w.srv.URL, "--all", "-p", "per_page=100")
	r.want(t, 0)
	if n := len(lines(t, r.stdout)); n != zendesktest.DefaultTickets {
		t.Errorf("hosted --all: %d records", n)
	}

	// The search action, on the service's copy, through exec and search.
	r = invocation{env: w.env}.run(t, append([]string{"exec", "zendesk-support", "tickets", "search",
		"-p", `query={"filter": {"eq": {"status": "open"}}}`, "-p", "limit=5"}, hosted...)...)
	r.want(t, 0)
	var res struct {
		Hits []struct {
			Data map[string]any `json:"data"`
		} `json:"hits"`
		NextCursor *string `json:"next_cursor"`
	}
	decode(t, r.stdout, &res)
	if len(res.Hits) != 5 || res.NextCursor == nil || res.Hits[0].Data["status"] != "open" {
		t.Errorf("hosted search: %.400s", r.stdout)
	}
	r = invocation{env: w.env}.run(t, append([]string{"search", "zendesk-support", "tickets", "--all",
		"--query", `{"filter": {"eq": {"status": "open"}}}`, "--limit", "7"}, hosted...)...)
	r.want(t, 0)
	hits := lines(t, r.stdout)
	if len(hits) == 0 {
		t.Fatal("hosted search --all: no hits")
	}
	for _, h := range hits {
		if h["data"].(map[string]any)["status"] != "open" {
			t.Fatalf("hit %v is not open", h)
		}
	}

	// A download through the service.
	out := filepath.Join(t.TempDir(), "a.png")
	r = invocation{env: w.env}.run(t, append([]string{"download", "zendesk-support", "attachments", "-p", "attachment_id=30000000000000", "-o", out}, hosted...)...)
	r.want(t, 0)
	if fi, err := os.Stat(out); err != nil || fi.Size() != zendesktest.DefaultAttachmentSize {
		t.Errorf("hosted download: %v %v", fi, err)
	}

	// Errors keep their exit codes through the service.
	r = invocation{env: w.env}.run(t, append([]string{"exec", "zendesk-support", "tickets", "get", "-p", "ticket_id=1"}, hosted...)...)
	r.want(t, exitNotFound)
	r = invocation{env: w.env}.run(t, append([]string{"exec", "zendesk-support", "tickets", "get"}, hosted...)...)
	r.want(t, exitUsage)
	bad := map[string]string{"TRIBUTARY_HOSTED_TOKEN": "WRONG"}
	r = invocation{env: bad}.run(t, append([]string{"exec", "zendesk-support", "tickets", "list"}, hosted...)...)
	r.want(t, exitAuth)
	r = invocation{env: w.env}.run(t, "exec", "zendesk-support", "tickets", "list", "--hosted", w.srv.URL)
	r.want(t, exitUsage)
	if !strings.Contains(r.stderr, "--connector-id") {
		t.Errorf("stderr = %q", r.stderr)
	}
	r = invocation{env: w.env}.run(t, append([]string{"search", "zendesk-support", "tickets", "--sync"}, hosted...)...)
	r.want(t, exitUsage)
}

func TestHostedIntegrationsPathsAndToken(t *testing.T) {
	w := newHosted(t)
	r := invocation{env: w.env}.run(t, "create-connector", "zendesk-support", "--hosted", w.srv.URL, "--hosted-paths", "integrations")
	r.want(t, 0)
	id := strings.TrimSpace(r.stdout)
	env := map[string]string{"TRIBUTARY_HOSTED_TOKEN": hostedtest.DefaultToken}
	r = invocation{env: env}.run(t, "exec", "zendesk-support", "tickets", "get", "-p", "ticket_id=35436",
		"--hosted", w.srv.URL, "--hosted-paths", "integrations", "--connector-id", id)
	r.want(t, 0)
	var page pageOutput
	decode(t, r.stdout, &page)
	if len(page.Records) != 1 {
		t.Errorf("get through the integrations paths: %s", r.stdout)
	}
	invocation{env: env}.run(t, "exec", "zendesk-support", "tickets", "list", "--hosted", w.srv.URL, "--hosted-paths", "nope", "--connector-id", id).want(t, exitUsage)
}

func TestCreateConnectorChecksFirst(t *testing.T) {
	w := newHosted(t)
	env := map[string]string{"TRIBUTARY_CLIENT_ID": hostedtest.DefaultClientID, "TRIBUTARY_CLIENT_SECRET": hostedtest.DefaultClientSecret}
	// No credentials for the kind: refused before anything is sent.
	r := invocation{env: env}.run(t, "create-connector", "zendesk-support", "--hosted", w.srv.URL, "--external-user-id", "u1")
	r.want(t, exitAuth)
	// Intercom needs its replication start date.
	env["TRIBUTARY_INTERCOM_ACCESS_TOKEN"] = "not-the-token"
	r = invocation{env: env}.run(t, "create-connector", "intercom", "--hosted", w.srv.URL, "--external-user-id", "u1")
	r.want(t, exitUsage)
	if !strings.Contains(r.stderr, "replication_config") {
		t.Errorf("stderr = %q", r.stderr)
	}
	if n := w.srv.Requests()["create"]; n != 0 {
		t.Errorf("%d create requests sent for refused input", n)
	}
	// The service asks Intercom: a token it refuses creates nothing.
	r = invocation{env: env}.run(t, "create-connector", "intercom", "--hosted", w.srv.URL, "--external-user-id", "u1",
		"--replication-config", `{"start_date": "2024-01-01T00:00:00Z"}`)
	r.want(t, exitAuth)
	if !strings.Contains(r.stderr, "refused by intercom") || !strings.Contains(r.stderr, `"credentials"`) || r.stdout != "" {
		t.Errorf("a refused token: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	env["TRIBUTARY_INTERCOM_ACCESS_TOKEN"] = intercomtest.DefaultAccessToken
	r = invocation{env: env}.run(t, "create-connector", "intercom", "--hosted", w.srv.URL, "--external-user-id", "u1",
		"--replication-config", `{"start_date": "2024-01-01T00:00:00Z"}`)
	r.want(t, 0)
	cli(t, "create-connector", "zendesk-support").want(t, exitUsage)
}
