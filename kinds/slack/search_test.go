package slack_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/slack"
	"github.com/tributary-dev/tributary/kinds/slack/slacktest"
)

// TestAPISearchNeedsUserToken: search.messages with a bot token alone is
// refused before any request, naming the user token it needs; with a user
// token beside the bot token, that token goes to search.messages and the
// bot token everywhere else; with a user token alone, it goes everywhere.
func TestAPISearchNeedsUserToken(t *testing.T) {
	ctx := context.Background()
	s := fake(t)
	q := tributary.Params{"query": "quarterly plan", "count": 5}
	_, err := open(t, s, bot).APISearch(ctx, "channel_messages", q)
	var te *tributary.Error
	if !errors.Is(err, tributary.ErrInvalidCredentials) || !errors.As(err, &te) || te.Entity != "channel_messages" || te.Action != tributary.ActionAPISearch ||
		!strings.Contains(err.Error(), "xoxp-") || !strings.Contains(err.Error(), "user_token") {
		t.Errorf("bot token: %v, want an error naming the user token (xoxp-) it needs", err)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests sent with a bot token, want none", n)
	}
	// Through the generic contract too (what the CLI and MCP call).
	conn, err := slack.Open(map[string]any{"token": slacktest.DefaultBotToken}, tributary.WithBaseURL(s.URL))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tributary.Execute(ctx, conn, tributary.Request{Entity: "channel_messages", Action: tributary.ActionAPISearch, Params: q}); !errors.Is(err, tributary.ErrInvalidCredentials) {
		t.Errorf("Execute with a bot token: %v", err)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests sent with a bot token, want none", n)
	}

	both := open(t, s, slack.Credentials{Token: slacktest.DefaultBotToken, UserToken: slacktest.DefaultUserToken})
	page, err := both.APISearch(ctx, "channel_messages", q)
	if err != nil || len(page.Records) != 5 {
		t.Fatalf("search with a user token: %v, %v", page, err)
	}
	typed, err := both.SearchMessages().APISearch(ctx, slack.SearchParams{Query: "quarterly plan", Count: 5})
	if err != nil || len(typed.Items) != 5 {
		t.Fatalf("typed search: %v, %v", typed, err)
	}
	if m := typed.Items[0]; m.Channel.ID == "" || !strings.Contains(m.Text, "quarterly plan") || m.Permalink == "" {
		t.Errorf("match %+v", m)
	}
	if _, err := both.Get(ctx, "team", nil); err != nil {
		t.Fatal(err)
	}
	reqs := s.Requests()
	reqs = append(reqs[:1], reqs[2:]...) // the typed search's request
	if a := reqs[0].Header.Get("Authorization"); reqs[0].Path != "/search.messages" || a != "Bearer "+slacktest.DefaultUserToken {
		t.Errorf("search.messages sent with %q", a)
	}
	if a := reqs[1].Header.Get("Authorization"); a != "Bearer "+slacktest.DefaultBotToken {
		t.Errorf("team.info sent with %q, want the bot token", a)
	}
	if _, err := open(t, s, slack.Credentials{Token: slacktest.DefaultUserToken}).APISearch(ctx, "channel_messages", q); err != nil {
		t.Errorf("search with a user token as token: %v", err)
	}
}
