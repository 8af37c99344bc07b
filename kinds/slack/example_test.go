package slack_test

import (
	"context"
	"fmt"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/slack"
	"github.com/tributary-dev/tributary/kinds/slack/slacktest"
)

// Typed handles decode records into this package's structs: the channels
// the token can read, then one channel's messages, newest first.
func Example() {
	srv := slacktest.New(slacktest.WithChannels(3), slacktest.WithMessages(2))
	defer srv.Close()
	c, err := slack.New(slack.Credentials{Token: slacktest.DefaultBotToken}, tributary.WithBaseURL(srv.URL), tributary.WithoutPacing())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for ch, err := range c.Channels().All(ctx, slack.ChannelParams{Types: slack.DefaultChannels}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(ch.ID, ch.Name, ch.NumMembers)
	}
	for m, err := range c.Messages().All(ctx, slack.MessageParams{Channel: slacktest.ChannelID(0)}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(m.User, m.Text)
	}
	// Output:
	// C00000001 general 5
	// C00000002 channel-2 6
	// C00000003 channel-3 7
	// U00000002 Message 2 of C00000001: the quarterly plan
	// U00000001 Message 1 of C00000001: the quarterly plan
}
