package slack_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/slack"
	"github.com/tributary-dev/tributary/kinds/slack/slacktest"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/search"
)

var _ tributary.Changer = (*slack.Client)(nil)

func durable(t *testing.T, c tributary.Connector) *replica.Replica {
	t.Helper()
	r, err := replica.Open(context.Background(), c, replica.SQLite(t.TempDir()+"/copy.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func syncOne(t *testing.T, r *replica.Replica, entity string) replica.EntityReport {
	t.Helper()
	rep, err := r.Sync(context.Background(), entity)
	if err != nil {
		t.Fatalf("sync %s: %v", entity, err)
	}
	return rep.Entities[0]
}

// historyQueries returns the query of each conversations.history request.
func historyQueries(s *slacktest.Server) []string {
	var out []string
	for _, r := range s.Requests() {
		if r.Path == "/conversations.history" {
			out = append(out, r.Query.Encode())
		}
	}
	return out
}

// TestMessageFeed: a copy of every channel's messages reads each channel's
// history in full once, then only from the last ts it holds (oldest,
// inclusive): new messages arrive, nothing is read twice as a change, and
// a search filters on the channel the copy stamps on each message.
func TestMessageFeed(t *testing.T) {
	clock := fakeserver.NewClock(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC))
	s := fake(t, slacktest.WithClock(clock), slacktest.WithChannels(3), slacktest.WithMessages(20))
	r := durable(t, open(t, s, bot))
	if er := syncOne(t, r, "channel_messages"); er.Inserted != 60 {
		t.Fatalf("full copy: %+v", er)
	}
	clock.Advance(time.Minute)
	ts, err := s.Post(slacktest.ChannelID(1), "a new message about the launch")
	if err != nil {
		t.Fatal(err)
	}
	s.ResetRequests()
	er := syncOne(t, r, "channel_messages")
	if er.Mode != replica.Incremental || er.Inserted != 1 || er.Updated != 0 {
		t.Errorf("incremental: %+v, want the one new message", er)
	}
	qs := historyQueries(s)
	if len(qs) != 3 {
		t.Fatalf("history requests %q, want one per channel", qs)
	}
	for _, q := range qs {
		if !strings.Contains(q, "oldest=") || !strings.Contains(q, "inclusive=true") {
			t.Errorf("history request %q does not start from the last ts", q)
		}
	}
	res, err := r.Search(context.Background(), "channel_messages", search.Request{Query: search.Query{Filter: search.And(
		search.Eq("channel", slacktest.ChannelID(1)), search.Eq("ts", ts)).Ptr()}})
	if err != nil || len(res.Hits) != 1 {
		t.Errorf("search for the new message in its channel: %+v, %v", res, err)
	}
}

// TestThreadsFollowLatestReply: a copy of threads reads every thread once;
// after a reply, a sync reads again only the thread whose latest_reply
// changed.
func TestThreadsFollowLatestReply(t *testing.T) {
	clock := fakeserver.NewClock(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC))
	s := fake(t, slacktest.WithClock(clock), slacktest.WithChannels(2), slacktest.WithMessages(10))
	c := open(t, s, bot)
	r := durable(t, c)
	if er := syncOne(t, r, "threads"); er.Inserted != 2*2*4 {
		t.Fatalf("full copy: %+v, want 4 threads of a parent and 3 replies", er)
	}
	page, err := c.Messages().List(context.Background(), slack.MessageParams{Channel: slacktest.ChannelID(0)})
	if err != nil {
		t.Fatal(err)
	}
	var parent string
	for _, m := range page.Items {
		if m.ReplyCount > 0 {
			parent = m.TS
		}
	}
	clock.Advance(time.Minute)
	if _, err := s.Reply(slacktest.ChannelID(0), parent, "a late reply"); err != nil {
		t.Fatal(err)
	}
	s.ResetRequests()
	er := syncOne(t, r, "threads")
	if er.Inserted != 1 || er.Updated != 1 {
		t.Errorf("after a reply: %+v, want the reply inserted and its parent updated", er)
	}
	var replies int
	for _, q := range s.Requests() {
		if q.Path == "/conversations.replies" {
			replies++
			if q.Query.Get("ts") != parent {
				t.Errorf("read thread %s again, want only %s", q.Query.Get("ts"), parent)
			}
		}
	}
	if replies != 1 {
		t.Errorf("%d conversations.replies requests, want 1", replies)
	}
}

// TestFiftyChannelsUnderTheHistoryTier: a copy of 50 channels' messages,
// for an app outside the Marketplace (conversations.history: 1 request a
// minute, 15 messages a page), against a fake that enforces the tier on
// its clock, converges without one 429: exactly 1 conversations.list and
// 50 history requests (10 messages each: one page), paced a little over a
// minute apart, so about 52 minutes on the bubble's clock.
func TestFiftyChannelsUnderTheHistoryTier(t *testing.T) {
	clock := fakeserver.NewRealClock()
	s := fake(t, slacktest.WithClock(clock), slacktest.WithChannels(50), slacktest.WithMessages(10), slacktest.WithRateLimits())
	realNow := time.Now()
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(time.Until(realNow))
		c, err := slack.New(bot, tributary.WithBaseURL(s.URL), tributary.WithHTTPClient(&http.Client{Transport: s.Transport()}))
		if err != nil {
			t.Fatal(err)
		}
		r, err := replica.Open(context.Background(), c, replica.SQLite(t.TempDir()+"/copy.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		start := time.Now()
		if er := syncOne(t, r, "channel_messages"); er.Inserted != 500 {
			t.Errorf("copy: %+v, want 500 messages", er)
		}
		took := time.Since(start)
		var list, history, throttled int
		for _, q := range s.Requests() {
			switch q.Path {
			case "/conversations.list":
				list++
			case "/conversations.history":
				history++
			}
		}
		if u := c.Usage(); u.Throttled != 0 {
			throttled = int(u.Throttled)
		}
		if list != 1 || history != 50 || throttled != 0 {
			t.Errorf("%d conversations.list, %d conversations.history, %d throttled; want 1, 50, 0", list, history, throttled)
		}
		// 49 waits of 60s/0.95 after the first request.
		if want := 49 * (time.Minute * 100 / 95); took < want || took > want+time.Minute {
			t.Errorf("the copy took %v on the bubble's clock, want about %v", took, want)
		}
		t.Logf("50 channels under 1 request a minute: %v", took.Round(time.Second))
	})
}
