package bench

import (
	"context"
	"testing"

	slackgo "github.com/slack-go/slack"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/benchmark"
	"github.com/tributary-dev/tributary/kinds/slack"
	"github.com/tributary-dev/tributary/kinds/slack/slacktest"
)

// benchSlackMessages is the number of messages of one channel walked per
// iteration, 200 a page (a Marketplace app: outside it Slack serves 15 a
// page, one page a minute).
const benchSlackMessages = 10_000

func slackServer(b *testing.B) *slacktest.Server {
	srv := slacktest.New(slacktest.WithChannels(1), slacktest.WithMessages(benchSlackMessages), slacktest.WithMarketplace())
	srv.SetResponseCache(true)
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkSlackMessagesSlackGo lists the messages with slack-go/slack
// v0.35.0, the most used Go client: conversations.history (a form POST),
// by cursor.
func BenchmarkSlackMessagesSlackGo(b *testing.B) {
	srv := slackServer(b)
	api := slackgo.New(slacktest.DefaultBotToken, slackgo.OptionAPIURL(srv.URL+"/api/"), slackgo.OptionHTTPClient(benchmark.Client(b)))
	ctx := context.Background()
	benchmark.Walk(b, benchSlackMessages, func() int {
		n, cursor := 0, ""
		for {
			resp, err := api.GetConversationHistoryContext(ctx, &slackgo.GetConversationHistoryParameters{ChannelID: slacktest.ChannelID(0), Cursor: cursor, Limit: 200})
			if err != nil {
				b.Fatal(err)
			}
			n += len(resp.Messages)
			if cursor = resp.ResponseMetaData.NextCursor; !resp.HasMore || cursor == "" {
				return n
			}
		}
	})
}

// BenchmarkSlackMessagesTributaryTyped lists the same messages into
// slack.Message with Tributary's typed handle.
func BenchmarkSlackMessagesTributaryTyped(b *testing.B) {
	srv := slackServer(b)
	c, err := slack.New(slack.Credentials{Token: slacktest.DefaultBotToken}, tributary.WithBaseURL(srv.URL), tributary.WithoutPacing())
	if err != nil {
		b.Fatal(err)
	}
	p := slack.MessageParams{Channel: slacktest.ChannelID(0), ListParams: slack.ListParams{Limit: 200}}
	benchmark.Walk(b, benchSlackMessages, func() int {
		return benchmark.Count(b, c.Messages().All(context.Background(), p))
	})
}
