package slacktest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/internal/fixture"
	"github.com/tributary-dev/tributary/internal/vendorspec"
	"github.com/tributary-dev/tributary/kinds/slack"
	"github.com/tributary-dev/tributary/kinds/slack/slacktest"
)

// described checks each exchange of the fake against Slack's description,
// with its URL standing for https://slack.com/api, and keeps the
// differences that are not the description's known faults (the allow
// list of testdata/vendor-specs/allow-slack.txt, by text).
type described struct {
	d    *vendorspec.Description
	fake string

	mu       sync.Mutex
	problems []string
}

var descriptionFaults = []string{"query parameter token: value is required", "header parameter token: value is required", `property "response_metadata" is unsupported`}

func (c *described) RoundTrip(req *http.Request) (*http.Response, error) {
	reqBody, resp, body, err := fixture.Capture(http.DefaultTransport, req)
	if err != nil {
		return nil, err
	}
	q := map[string]any{}
	for k, v := range req.URL.Query() {
		q[k] = v[0]
	}
	ex := fixture.Exchange{
		Request:  fixture.Request{Method: req.Method, URL: "https://slack.com/api" + req.URL.Path, Query: q, Headers: map[string]string{}, Body: reqBody},
		Response: fixture.Response{Status: resp.StatusCode, Headers: map[string]string{"Content-Type": resp.Header.Get("Content-Type")}, Body: json.RawMessage(body)},
	}
	if len(reqBody) == 0 {
		ex.Request.Body = nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
next:
	for _, p := range c.d.CheckExchange(ex) {
		for _, f := range descriptionFaults {
			if strings.Contains(p, f) {
				continue next
			}
		}
		c.problems = append(c.problems, p)
	}
	return resp, nil
}

// TestFakeAgreesWithTheDescription: every method the kind calls, answered
// by the fake, agrees with Slack's description.
func TestFakeAgreesWithTheDescription(t *testing.T) {
	s := slacktest.New(slacktest.WithUsers(3), slacktest.WithChannels(2), slacktest.WithMessages(6), slacktest.WithFiles(3))
	defer s.Close()
	chk := &described{d: vendorspec.OpenAPI(t, "slack"), fake: s.URL}
	c, err := slack.New(slack.Credentials{Token: slacktest.DefaultBotToken, UserToken: slacktest.DefaultUserToken},
		tributary.WithBaseURL(s.URL), tributary.WithoutPacing(), tributary.WithHTTPClient(&http.Client{Transport: chk}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ch := slacktest.ChannelID(0)
	for _, op := range []tributary.Request{
		{Entity: "users", Action: tributary.ActionList, Params: tributary.Params{"limit": 2}},
		{Entity: "users", Action: tributary.ActionGet, Params: tributary.Params{"user": slacktest.UserID(1)}},
		{Entity: "channels", Action: tributary.ActionList, Params: tributary.Params{"types": slack.DefaultChannels}},
		{Entity: "channels", Action: tributary.ActionGet, Params: tributary.Params{"channel": ch}},
		{Entity: "channel_members", Action: tributary.ActionList, Params: tributary.Params{"channel": ch}},
		{Entity: "channel_messages", Action: tributary.ActionList, Params: tributary.Params{"channel": ch}},
		{Entity: "threads", Action: tributary.ActionList, Params: tributary.Params{"channel": ch, "ts": s.ThreadTS(ch)}},
		{Entity: "files", Action: tributary.ActionList, Params: tributary.Params{"count": 2}},
		{Entity: "files", Action: tributary.ActionGet, Params: tributary.Params{"file": slacktest.FileID(0)}},
		{Entity: "team", Action: tributary.ActionGet},
		{Entity: "channel_messages", Action: tributary.ActionAPISearch, Params: tributary.Params{"query": "plan", "count": 2}},
	} {
		if _, err := tributary.Execute(ctx, c, op); err != nil {
			t.Errorf("%s.%s: %v", op.Entity, op.Action, err)
		}
	}
	if err := c.CheckCredentials(ctx); err != nil {
		t.Errorf("auth.test: %v", err)
	}
	for _, p := range chk.problems {
		t.Error(p)
	}
}

// TestMutations: users are deactivated and channels archived, both kept
// in their lists; a deleted file is gone; each change at the fake's clock.
func TestMutations(t *testing.T) {
	clock := fakeserver.NewClock(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC))
	s := slacktest.New(slacktest.WithClock(clock), slacktest.WithUsers(3), slacktest.WithChannels(2), slacktest.WithFiles(2))
	defer s.Close()
	c, err := slack.New(slack.Credentials{Token: slacktest.DefaultBotToken}, tributary.WithBaseURL(s.URL), tributary.WithoutPacing())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	clock.Advance(time.Hour)
	if err := s.Deactivate(slacktest.UserID(1)); err != nil {
		t.Fatal(err)
	}
	if err := s.Archive(slacktest.ChannelID(1)); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete("users", slacktest.UserID(2)); err == nil {
		t.Error("deleted a user: Slack deletes none")
	}
	if err := s.Delete("files", slacktest.FileID(1)); err != nil {
		t.Fatal(err)
	}
	u, err := c.Users().Get(ctx, slacktest.UserID(1))
	if err != nil || !u.Deleted || u.Updated != clock.Now().Unix() {
		t.Errorf("deactivated user: %+v, %v", u, err)
	}
	ch, err := c.Channels().Get(ctx, slacktest.ChannelID(1))
	if err != nil || !ch.IsArchived {
		t.Errorf("archived channel: %+v, %v", ch, err)
	}
	if _, err := c.Files().Get(ctx, slacktest.FileID(1)); err == nil || !strings.Contains(err.Error(), "file_not_found") {
		t.Errorf("deleted file: %v", err)
	}
	if got := len(s.IDs("users")); got != 3 {
		t.Errorf("%d users, want 3 (a deactivated one stays)", got)
	}
	id, err := s.Create("users")
	if err != nil || len(s.IDs("users")) != 4 {
		t.Errorf("create: %s, %v", id, err)
	}
	if err := s.Update("users", id); err != nil {
		t.Error(err)
	}
}
