package slack

import (
	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/pagination"
)

// Type is the connector_type of this kind.
const Type = "slack"

type (
	action = tributary.Action
	param  = tributary.Param
)

const (
	list      = tributary.ActionList
	get       = tributary.ActionGet
	search    = tributary.ActionSearch
	apiSearch = tributary.ActionAPISearch
	download  = tributary.ActionDownload
)

// Slack's rate tiers, per method and per workspace (api.slack.com/apis/rate-limits):
// Tier1 about 1 request a minute, Tier2 20, Tier3 50, Tier4 100.
// TierHistory is conversations.history's and conversations.replies': 1
// a minute (and 15 messages a page) for an app that is not in the Slack
// Marketplace since 2025, Tier 3 for one that is (WithMarketplace).
const (
	Tier2       = "tier2"
	Tier3       = "tier3"
	Tier4       = "tier4"
	TierHistory = "history"
)

// Page sizes: the most records a page of a list holds (limit or count).
const (
	MaxLimit        = 999 // conversations.list, .history, .replies, .members
	MaxUsers        = 200 // users.list: "no more than 200" is Slack's advice
	MaxFiles        = 100 // files.list count (page by page number)
	MaxSearch       = 100 // search.messages count
	NonMarketplace  = 15  // messages a page of history or replies for an app outside the Marketplace
	DefaultChannels = "public_channel,private_channel"
)

func str(name, doc string, enum ...string) param {
	return param{Name: name, Type: tributary.TypeString, Enum: enum, Doc: doc}
}

func req(name, doc string) param {
	return param{Name: name, Type: tributary.TypeString, Required: true, Doc: doc}
}

func flag(name, doc string) param { return param{Name: name, Type: tributary.TypeBoolean, Doc: doc} }

func size(name string, max float64, doc string) param {
	return param{Name: name, Type: tributary.TypeInteger, Min: tributary.Bound(1), Max: tributary.Bound(max), PageSize: true, Doc: doc}
}

func num(name, doc string) param {
	return param{Name: name, Type: tributary.TypeInteger, Min: tributary.Bound(1), Doc: doc}
}

var (
	byCursor = pagination.Token{Param: "cursor", Field: "response_metadata.next_cursor"}
	byPage   = pagination.PageNumber{Param: "page", Pages: "paging.pages"}
	cursor   = str("cursor", "the response_metadata.next_cursor of the previous page")
	teamID   = str("team_id", "the workspace, for an org-wide token")
	channel  = req("channel", "the conversation's id (C…, G… or D…)")
	ts       = req("ts", "the message's ts (1700000000.000100)")
	window   = []param{
		str("oldest", "only messages after this ts (Unix seconds, with microseconds)"),
		str("latest", "only messages before this ts (default: now)"),
		flag("inclusive", "include the messages at oldest and latest"),
	}
	locale = flag("include_locale", "add each record's locale")
)

// route is a GET of Slack's method whose records are at records, paged by
// p and paced in tier.
func route(method, records, tier string, p pagination.Style) []engine.Route {
	return []engine.Route{{Path: "/" + method, Records: records, Paging: p, Tier: tier}}
}

// entity builds a catalogue entity (engine.NewEntity).
var entity = engine.NewEntity

// Catalogue returns the chat catalogue: every entity, its actions and
// their parameters, its searchable fields and its paging.
func Catalogue() []tributary.Entity { return engine.Catalogue(catalogue()) }

func catalogue() []engine.Entity {
	users := entity("users", "Members of the workspace, deactivated ones included (deleted: true).", User{},
		map[action][]engine.Route{list: route("users.list", "members", Tier2, byCursor), get: route("users.info", "user", Tier4, nil)},
		map[action][]param{
			list: {cursor, size("limit", MaxUsers, "users per page (at most 200 advised)"), locale, teamID},
			get:  {req("user", "the user's id (U…)"), locale},
		},
		tributary.Field{Name: "profile.email", Type: tributary.TypeString}, tributary.Field{Name: "profile.display_name", Type: tributary.TypeString})

	channels := entity("channels", "Conversations the token can read: public and private channels (types), archived ones included (is_archived: true).", Channel{},
		map[action][]engine.Route{list: route("conversations.list", "channels", Tier2, byCursor), get: route("conversations.info", "channel", Tier3, nil)},
		map[action][]param{
			list: {cursor, size("limit", MaxLimit, "conversations per page (under 1000)"), flag("exclude_archived", "leave archived channels out"),
				str("types", "comma-separated: public_channel, private_channel, mpim, im (default public_channel)"), teamID},
			get: {channel, locale, flag("include_num_members", "add num_members")},
		},
		tributary.Field{Name: "topic.value", Type: tributary.TypeString}, tributary.Field{Name: "purpose.value", Type: tributary.TypeString})
	channels.Scope = &tributary.Scope{Doc: "public and private channels the token can read, archived ones included",
		Params: func() tributary.Params { return tributary.Params{"types": DefaultChannels} }}

	history := []param{channel, cursor, size("limit", MaxLimit, "messages per page (at most 15 for an app outside the Marketplace)")}
	messages := entity("channel_messages", "Messages of one channel, newest first (conversations.history); api_search finds messages in every channel with a user token (search.messages).", Message{},
		map[action][]engine.Route{
			list:      route("conversations.history", "messages", TierHistory, byCursor),
			get:       {{Path: "/conversations.history", Records: "messages.0", Tier: TierHistory, Prepare: oneMessage}},
			apiSearch: {{Path: "/search.messages", Records: "messages.matches", Paging: byPage, Tier: Tier2}},
		},
		map[action][]param{
			list: append(history, append(window, flag("include_all_metadata", "add each message's metadata"))...),
			get:  {channel, ts},
			apiSearch: {req("query", "Slack's search query (in:#general from:@ana before:2026-01-01 …)"), num("page", "page number, from 1"),
				size("count", MaxSearch, "matches per page (at most 100)"), str("sort", "sort by", "score", "timestamp"),
				str("sort_dir", "sort direction", "asc", "desc"), flag("highlight", "mark the matched words"), teamID},
		},
		tributary.Field{Name: "edited.ts", Type: tributary.TypeString})
	messages.IDField = "ts"
	messages.Scope = tributary.Parent{Entity: "channels", IDField: "id", Param: "channel", Key: "channel"}.Scope(
		"the messages of every channel: one walk of conversations.history per channel, then the messages after the last ts read")
	messages.Scope.PartIDs = true
	messages.Feed = messageFeed()

	threads := entity("threads", "Replies of one thread, its parent message first (conversations.replies).", Message{},
		map[action][]engine.Route{
			list: route("conversations.replies", "messages", TierHistory, byCursor),
			get:  {{Path: "/conversations.replies", Records: "messages.0", Tier: TierHistory, Prepare: oneReply}},
		},
		map[action][]param{
			list: append([]param{channel, req("ts", "the ts of the thread's parent message"), cursor,
				size("limit", MaxLimit, "messages per page (at most 15 for an app outside the Marketplace)")}, window...),
			get: {channel, req("thread_ts", "the ts of the thread's parent message"), ts},
		})
	threads.IDField = "ts"
	threads.Scope = threadScope()

	files := entity("files", "Files shared in the workspace: metadata, and their bytes (download, from url_private_download with the token).", File{},
		map[action][]engine.Route{
			list:     route("files.list", "files", Tier3, byPage),
			get:      route("files.info", "file", Tier4, nil),
			download: {{Path: "/files.info", FileURL: []string{"file", "url_private_download"}, Tier: Tier4}},
		},
		map[action][]param{
			list: {num("page", "page number, from 1"), size("count", MaxFiles, "files per page"), str("channel", "only files shared in this channel"),
				str("user", "only files of this user"), str("ts_from", "only files created after this Unix time"), str("ts_to", "only files created before this Unix time"),
				str("types", "comma-separated: all, spaces, snippets, images, gdocs, zips, pdfs"), flag("show_files_hidden_by_limit", "show files hidden by the free plan's limit"), teamID},
			get:      {req("file", "the file's id (F…)")},
			download: {req("file", "the file's id (F…)"), {Name: "range_header", Type: tributary.TypeString, Doc: "byte range to download: bytes=<first>-<last>, bytes=<first>- or bytes=-<n>"}},
		})

	return []engine.Entity{
		users, channels, messages, threads,
		entity("channel_members", "Ids of the members of one channel (conversations.members).", nil,
			map[action][]engine.Route{list: route("conversations.members", "members", Tier4, byCursor)},
			map[action][]param{list: {channel, cursor, size("limit", MaxLimit, "ids per page")}}),
		files,
		entity("team", "The workspace the token belongs to (team.info).", nil,
			map[action][]engine.Route{get: route("team.info", "team", Tier3, nil)},
			map[action][]param{get: {str("team", "another workspace's id, for an org-wide token")}}),
	}
}

// oneMessage reads a message of a channel by its ts: the history between
// ts and ts, both included.
func oneMessage(p tributary.Params) tributary.Params {
	return tributary.Params{"channel": p["channel"], "oldest": p["ts"], "latest": p["ts"], "inclusive": true, "limit": int64(1)}
}

// oneReply reads a reply of a thread by its ts.
func oneReply(p tributary.Params) tributary.Params {
	return tributary.Params{"channel": p["channel"], "ts": p["thread_ts"], "oldest": p["ts"], "latest": p["ts"], "inclusive": true, "limit": int64(1)}
}
