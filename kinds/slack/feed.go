package slack

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/tributary-dev/tributary"
)

// FeedOverlap is read again before a channel's last ts on every sync:
// messages posted while the last sync read the channel.
const FeedOverlap = 10 * time.Second

// TS writes t as Slack writes a message's ts: Unix seconds with
// microseconds ("1700000000.000100").
func TS(t time.Time) string { return fmt.Sprintf("%d.%06d", t.Unix(), t.Nanosecond()/1000) }

// messageFeed reads a channel's messages posted at or after since: its
// history with oldest = since, inclusive.
func messageFeed() *tributary.Feed {
	return &tributary.Feed{
		Doc: "conversations.history of each channel with oldest = the last ts read; edits and deletions of messages are not visible to polling " +
			"(only Slack's Events API sends message_changed and message_deleted)",
		Params: func(base tributary.Params, since time.Time) tributary.Params {
			p := base.Clone()
			if p == nil {
				p = tributary.Params{}
			}
			delete(p, "cursor")
			if !since.IsZero() {
				p["oldest"], p["inclusive"] = TS(since), true
			}
			return p
		},
		Changed: "ts", Overlap: FeedOverlap,
	}
}

// threadScope copies the replies of every thread: a part per message of
// every channel that has replies, whose Version is its latest_reply, so
// that a sync reads again only the threads with a new reply.
func threadScope() *tributary.Scope {
	return &tributary.Scope{
		Doc: "the replies of every thread of every channel: the channels' histories, then conversations.replies of each message with replies " +
			"whose latest_reply changed since the last sync",
		PartIDs: true,
		Parts: func(ctx context.Context, c tributary.Connector, _ map[string]any) iter.Seq2[tributary.Part, error] {
			return func(yield func(tributary.Part, error) bool) {
				for ch, err := range tributary.All(ctx, c, "channels", tributary.Params{"types": DefaultChannels}) {
					if err != nil {
						yield(tributary.Part{}, err)
						return
					}
					id, _ := ch.StringAt("id")
					for m, err := range tributary.All(ctx, c, "channel_messages", tributary.Params{"channel": id}) {
						if err != nil {
							yield(tributary.Part{}, err)
							return
						}
						ts, _ := m.StringAt("ts")
						latest, _ := m.StringAt("latest_reply")
						if latest == "" {
							continue
						}
						part := tributary.Part{Key: "thread " + id + " " + ts, Params: tributary.Params{"channel": id, "ts": ts},
							Fields: map[string]any{"channel": id}, Version: latest}
						if !yield(part, nil) {
							return
						}
					}
				}
			}
		},
	}
}
