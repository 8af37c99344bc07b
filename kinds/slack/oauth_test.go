package slack_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/connect"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/slack/slacktest"
)

// TestOAuthInstall: Slack's OAuth v2 install asks the bot scopes in scope
// and search:read in user_scope, comma-separated; the exchange's nested
// extras become the credentials (the user token from
// authed_user.access_token, the workspace from team.id), and the user
// token is the one search.messages is sent with.
func TestOAuthInstall(t *testing.T) {
	s := fake(t)
	const redirect = "http://127.0.0.1:9/callback"
	fl, err := connect.New("slack", connect.Config{ClientID: slacktest.DefaultClientID, ClientSecret: slacktest.DefaultClientSecret,
		RedirectURL: redirect, BaseURL: s.URL})
	if err != nil {
		t.Fatal(err)
	}
	auth := fl.AuthCodeURL()
	u, _ := url.Parse(auth.URL)
	q := u.Query()
	if u.Path != "/oauth/v2/authorize" || q.Get("user_scope") != "search:read" || !strings.Contains(q.Get("scope"), "channels:history,groups:history") {
		t.Errorf("consent URL %s", auth.URL)
	}
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := hc.PostForm(auth.URL, url.Values{"decision": {"approve"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc, _ := url.Parse(res.Header.Get("Location"))
	code, err := fl.Callback(loc.Query(), auth.State)
	if err != nil {
		t.Fatal(err)
	}
	creds, err := fl.Exchange(context.Background(), code, auth.Verifier)
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := creds["token"].(string)
	user, _ := creds["user_token"].(string)
	if !strings.HasPrefix(tok, "xoxb-") || !strings.HasPrefix(user, "xoxp-") || creds["team_id"] != slacktest.TeamID {
		t.Fatalf("credentials token %q, user_token %q, team_id %v", tok, user, creds["team_id"])
	}
	c, err := kinds.Open("slack", creds, tributary.WithBaseURL(s.URL), tributary.WithoutPacing())
	if err != nil {
		t.Fatal(err)
	}
	s.ResetRequests()
	if _, err := c.APISearch(context.Background(), "channel_messages", tributary.Params{"query": "plan"}); err != nil {
		t.Fatal(err)
	}
	if a := s.Requests()[0].Header.Get("Authorization"); a != "Bearer "+user {
		t.Errorf("search.messages sent with %q, want the installed user token", a)
	}
}
