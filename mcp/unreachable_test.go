package mcp_test

import (
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/mcp"
)

// A connector whose host does not resolve fails with the kind
// "unreachable", naming the host and what to check, not "server_error".
func TestUnreachableHost(t *testing.T) {
	conn, err := kinds.Open("zendesk-support", map[string]any{"subdomain": "acme",
		"email": zendesktest.DefaultEmail, "api_token": zendesktest.DefaultAPIToken},
		tributary.WithBaseURL("https://acme.zendesk.invalid"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := mcp.New([]mcp.Source{{Name: "support", Conn: conn}}, mcp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	cs := connect(t, s)
	e := call(t, cs, "execute", map[string]any{"connector": "support", "entity": "tickets", "action": "list"}).
		fails(t, mcp.KindUnreachable, `cannot reach acme.zendesk.invalid`, "does not resolve", "check the subdomain or instance URL")
	if e["retryable"] == true {
		t.Errorf("a name that does not resolve is retryable: %v", e)
	}
}
