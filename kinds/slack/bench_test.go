package slack_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/benchmark"
	"github.com/tributary-dev/tributary/kinds/slack"
	"github.com/tributary-dev/tributary/kinds/slack/slacktest"
)

// benchMessages is the number of messages walked per iteration: one
// channel's history, 200 a page (a Marketplace app: outside it, Slack
// serves 15 a page and one page a minute).
const benchMessages = 10_000

func benchServer(tb testing.TB, messages int) *slacktest.Server {
	srv := slacktest.New(slacktest.WithChannels(1), slacktest.WithMessages(messages), slacktest.WithMarketplace())
	// Pages are rendered once and replayed, so the fake costs next to
	// nothing and what is measured is the clients.
	srv.SetResponseCache(true)
	tb.Cleanup(srv.Close)
	return srv
}

func benchClient(tb testing.TB, srv *slacktest.Server) *slack.Client {
	c, err := slack.New(bot, tributary.WithBaseURL(srv.URL), tributary.WithoutPacing())
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// walkTyped lists the channel's messages through the typed handle.
func walkTyped(tb testing.TB, c *slack.Client) int {
	return benchmark.Count(tb, c.Messages().All(context.Background(), slack.MessageParams{Channel: slacktest.ChannelID(0), ListParams: slack.ListParams{Limit: 200}}))
}

// walkNetHTTP is the baseline: a plain net/http + encoding/json loop over
// the pages the library asks for (conversations.history, then the cursor
// until it is empty), with the same headers, into the same struct.
func walkNetHTTP(tb testing.TB, hc *http.Client, base string) int {
	n := 0
	q := url.Values{"channel": {slacktest.ChannelID(0)}, "limit": {"200"}}
	for {
		req, _ := http.NewRequest(http.MethodGet, base+"/conversations.history?"+q.Encode(), nil)
		req.Header.Set("Authorization", "Bearer "+slacktest.DefaultBotToken)
		resp, err := hc.Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		var page struct {
			OK       bool            `json:"ok"`
			Error    string          `json:"error"`
			Messages []slack.Message `json:"messages"`
			Meta     struct {
				NextCursor string `json:"next_cursor"`
			} `json:"response_metadata"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil || !page.OK {
			tb.Fatal(page.Error, err)
		}
		n += len(page.Messages)
		if page.Meta.NextCursor == "" {
			return n
		}
		q.Set("cursor", page.Meta.NextCursor)
	}
}

// BenchmarkListMessagesTyped walks 10,000 messages into slack.Message.
func BenchmarkListMessagesTyped(b *testing.B) {
	c := benchClient(b, benchServer(b, benchMessages))
	benchmark.Walk(b, benchMessages, func() int { return walkTyped(b, c) })
}

// BenchmarkListMessagesGeneric walks 10,000 messages as raw Records.
func BenchmarkListMessagesGeneric(b *testing.B) {
	c := benchClient(b, benchServer(b, benchMessages))
	p := tributary.Params{"channel": slacktest.ChannelID(0), "limit": 200}
	benchmark.Walk(b, benchMessages, func() int {
		return benchmark.Count(b, tributary.All(context.Background(), c, "channel_messages", p))
	})
}

// BenchmarkListMessagesNetHTTP walks the same 10,000 messages with
// walkNetHTTP.
func BenchmarkListMessagesNetHTTP(b *testing.B) {
	srv := benchServer(b, benchMessages)
	hc := benchmark.Client(b)
	benchmark.Walk(b, benchMessages, func() int { return walkNetHTTP(b, hc, srv.URL) })
}

// The baseline is a fair one: it sends what the typed listing sends (paths,
// queries, headers but User-Agent) and counts the same records.
func TestNetHTTPBaselineMatchesTyped(t *testing.T) {
	const messages = 450
	srv := benchServer(t, messages)
	c := benchClient(t, srv)
	benchmark.Baseline(t, srv, messages, func() int { return walkTyped(t, c) }, func(hc *http.Client) int { return walkNetHTTP(t, hc, srv.URL) })
}
