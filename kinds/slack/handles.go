package slack

import (
	"context"

	"github.com/tributary-dev/tributary"
)

// ListParams page a list by cursor: Cursor (the previous page's
// response_metadata.next_cursor) and Limit. Zero fields are not sent.
type ListParams struct {
	Cursor string `param:"cursor"`
	Limit  int    `param:"limit"`
}

// ChannelParams are the params of channels.list.
type ChannelParams struct {
	ListParams
	// Types is comma-separated: public_channel (Slack's default),
	// private_channel, mpim, im.
	Types           string `param:"types"`
	ExcludeArchived bool   `param:"exclude_archived"`
}

// MessageParams are the params of channel_messages.list: Channel is
// required; Oldest and Latest bound the messages by ts.
type MessageParams struct {
	ListParams
	Channel   string `param:"channel"`
	Oldest    string `param:"oldest"`
	Latest    string `param:"latest"`
	Inclusive bool   `param:"inclusive"`
}

// ThreadParams are the params of threads.list: Channel and TS (the
// parent message's) are required.
type ThreadParams struct {
	ListParams
	Channel string `param:"channel"`
	TS      string `param:"ts"`
}

// FileParams are the params of files.list, paged by page number.
type FileParams struct {
	Page    int    `param:"page"`
	Count   int    `param:"count"`
	Channel string `param:"channel"`
	User    string `param:"user"`
	Types   string `param:"types"`
}

// Entity is a typed handle on one entity with a get by one id.
type Entity[T, P any] struct {
	tributary.Handle[T, P]
	idParam string
}

// Get reads the record with this id.
func (e Entity[T, P]) Get(ctx context.Context, id string) (T, error) {
	return e.Handle.Get(ctx, tributary.Params{e.idParam: id})
}

// Users is the typed handle on users (Get by user id).
func (c *Client) Users() Entity[User, ListParams] {
	return Entity[User, ListParams]{Handle: tributary.Handle[User, ListParams]{Conn: c, Entity: "users"}, idParam: "user"}
}

// Channels is the typed handle on channels (Get by channel id).
func (c *Client) Channels() Entity[Channel, ChannelParams] {
	return Entity[Channel, ChannelParams]{Handle: tributary.Handle[Channel, ChannelParams]{Conn: c, Entity: "channels"}, idParam: "channel"}
}

// Messages is the typed handle on channel_messages (get with channel and
// ts; search.messages: SearchMessages).
func (c *Client) Messages() tributary.Handle[Message, MessageParams] {
	return tributary.Handle[Message, MessageParams]{Conn: c, Entity: "channel_messages"}
}

// SearchMessages is the typed handle on search.messages (a user token's):
// its APISearch and APISearchAll decode each match, with SearchParams.
func (c *Client) SearchMessages() tributary.Handle[SearchMatch, SearchParams] {
	return tributary.Handle[SearchMatch, SearchParams]{Conn: c, Entity: "channel_messages"}
}

// SearchParams are the params of search.messages: Query is required.
type SearchParams struct {
	Query   string `param:"query"`
	Page    int    `param:"page"`
	Count   int    `param:"count"`
	Sort    string `param:"sort"`
	SortDir string `param:"sort_dir"`
}

// Threads is the typed handle on threads.
func (c *Client) Threads() tributary.Handle[Message, ThreadParams] {
	return tributary.Handle[Message, ThreadParams]{Conn: c, Entity: "threads"}
}

// Files is the typed handle on files (Get by file id; Download for the
// bytes).
func (c *Client) Files() Entity[File, FileParams] {
	return Entity[File, FileParams]{Handle: tributary.Handle[File, FileParams]{Conn: c, Entity: "files"}, idParam: "file"}
}

// Team reads the workspace.
func (c *Client) Team(ctx context.Context) (Team, error) {
	return tributary.Handle[Team, tributary.Params]{Conn: c, Entity: "team"}.Get(ctx, nil)
}
