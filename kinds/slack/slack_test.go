package slack_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/slack"
	"github.com/tributary-dev/tributary/kinds/slack/slacktest"
)

func open(t *testing.T, s *slacktest.Server, creds slack.Credentials, opts ...tributary.Option) *slack.Client {
	t.Helper()
	c, err := slack.New(creds, append([]tributary.Option{tributary.WithBaseURL(s.URL), tributary.WithoutPacing()}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func fake(t *testing.T, opts ...slacktest.Option) *slacktest.Server {
	t.Helper()
	s := slacktest.New(opts...)
	t.Cleanup(s.Close)
	return s
}

var bot = slack.Credentials{Token: slacktest.DefaultBotToken}

// requests returns the fake's requests as "path?query", in order.
func requests(s *slacktest.Server) []string {
	var out []string
	for _, r := range s.Requests() {
		out = append(out, r.Path+"?"+r.Query.Encode())
	}
	return out
}

// TestListPagesByCursor: users.list is walked by cursor until
// response_metadata.next_cursor is empty, each request with the bot token
// as Bearer and the previous page's cursor.
func TestListPagesByCursor(t *testing.T) {
	s := fake(t, slacktest.WithUsers(5))
	c := open(t, s, bot)
	var ids []string
	for u, err := range c.Users().All(context.Background(), slack.ListParams{Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, u.ID)
	}
	if want := "U00000001 U00000002 U00000003 U00000004 U00000005"; strings.Join(ids, " ") != want {
		t.Errorf("users %v, want %s", ids, want)
	}
	got := requests(s)
	if len(got) != 3 || got[0] != "/users.list?limit=2" || !strings.HasPrefix(got[1], "/users.list?cursor=") || !strings.HasPrefix(got[2], "/users.list?cursor=") {
		t.Errorf("requests %q, want 3 pages of users.list by cursor", got)
	}
	for _, r := range s.Requests() {
		if a := r.Header.Get("Authorization"); a != "Bearer "+slacktest.DefaultBotToken {
			t.Errorf("Authorization %q", a)
		}
	}
}

// TestGetAndChildren: get reads each entity by its id param; a channel's
// messages come newest first, 15 a page for an app outside the
// Marketplace; a message is read by channel and ts; a thread starts with
// its parent; files page by page number; team reads the workspace.
func TestGetAndChildren(t *testing.T) {
	ctx := context.Background()
	s := fake(t, slacktest.WithMessages(20))
	c := open(t, s, bot)
	u, err := c.Users().Get(ctx, slacktest.UserID(2))
	if err != nil || u.Name != "user3" || u.Profile == nil || u.Profile.Email != "user3@example.com" {
		t.Errorf("users.info: %+v, %v", u, err)
	}
	ch, err := c.Channels().Get(ctx, slacktest.ChannelID(0))
	if err != nil || ch.Name != "general" || !ch.IsGeneral {
		t.Errorf("conversations.info: %+v, %v", ch, err)
	}
	page, err := c.Messages().List(ctx, slack.MessageParams{Channel: slacktest.ChannelID(1)})
	if err != nil || len(page.Items) != 15 || page.Next == nil {
		t.Fatalf("conversations.history: %d messages, next %v, %v; want 15 and more", len(page.Items), page.Next, err)
	}
	if page.Items[0].TS <= page.Items[14].TS {
		t.Errorf("history not newest first: %s then %s", page.Items[0].TS, page.Items[14].TS)
	}
	var n int
	for _, err := range c.Messages().All(ctx, slack.MessageParams{Channel: slacktest.ChannelID(1)}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 20 {
		t.Errorf("walked %d messages, want 20", n)
	}
	m, err := c.Messages().Get(ctx, tributary.Params{"channel": slacktest.ChannelID(1), "ts": page.Items[3].TS})
	if err != nil || m.TS != page.Items[3].TS || m.Text != page.Items[3].Text {
		t.Errorf("get message %s: %+v, %v", page.Items[3].TS, m, err)
	}
	var parent slack.Message
	for _, m := range page.Items {
		if m.ReplyCount > 0 {
			parent = m
			break
		}
	}
	th, err := c.Threads().List(ctx, slack.ThreadParams{Channel: slacktest.ChannelID(1), TS: parent.TS})
	if err != nil || len(th.Items) != 4 || th.Items[0].TS != parent.TS || th.Items[3].TS != parent.LatestReply || th.Items[1].ThreadTS != parent.TS {
		t.Errorf("conversations.replies of %s: %+v, %v", parent.TS, th, err)
	}
	rep, err := c.Threads().Get(ctx, tributary.Params{"channel": slacktest.ChannelID(1), "thread_ts": parent.TS, "ts": th.Items[2].TS})
	if err != nil || rep.TS != th.Items[2].TS {
		t.Errorf("get reply: %+v, %v", rep, err)
	}
	members, err := c.List(ctx, "channel_members", tributary.Params{"channel": slacktest.ChannelID(0)})
	if err != nil || len(members.Records) != 5 {
		t.Errorf("conversations.members: %v, %v", members, err)
	}
	var files []string
	for f, err := range c.Files().All(ctx, slack.FileParams{Count: 5}) {
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f.ID)
	}
	if len(files) != slacktest.DefaultFiles {
		t.Errorf("files %v, want %d", files, slacktest.DefaultFiles)
	}
	var fileReqs []string
	for _, r := range requests(s) {
		if strings.HasPrefix(r, "/files.list") {
			fileReqs = append(fileReqs, r)
		}
	}
	slices.Sort(fileReqs) // the pages after the first are fetched at once (paging.pages names them)
	if want := []string{"/files.list?count=5", "/files.list?count=5&page=2", "/files.list?count=5&page=3"}; fmt.Sprint(fileReqs) != fmt.Sprint(want) {
		t.Errorf("files.list requests %q, want %q", fileReqs, want)
	}
	team, err := c.Team(ctx)
	if err != nil || team.ID != slacktest.TeamID || team.Domain != slacktest.TeamDomain {
		t.Errorf("team.info: %+v, %v", team, err)
	}
}

// TestMessagesGetSendsWindow: a message is read as conversations.history
// between its ts and itself, inclusive, one message.
func TestMessagesGetSendsWindow(t *testing.T) {
	s := fake(t)
	c := open(t, s, bot)
	ts := "1700000000.000100"
	_, err := c.Get(context.Background(), "channel_messages", tributary.Params{"channel": slacktest.ChannelID(0), "ts": ts})
	if !errors.Is(err, tributary.ErrNotFound) {
		t.Errorf("a ts with no message: %v, want ErrNotFound", err)
	}
	r := s.Requests()[0]
	want := url.Values{"channel": {slacktest.ChannelID(0)}, "oldest": {ts}, "latest": {ts}, "inclusive": {"true"}, "limit": {"1"}}
	if r.Path != "/conversations.history" || r.Query.Encode() != want.Encode() {
		t.Errorf("sent %s?%s, want /conversations.history?%s", r.Path, r.Query.Encode(), want.Encode())
	}
}
