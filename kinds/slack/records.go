package slack

import "encoding/json"

// Records keep Slack's JSON as the Web API returns it; the structs below
// type the fields most callers read. Times are Unix seconds (created,
// updated) or a message's ts, "1700000000.000100": seconds and a
// sequence, unique within its channel.

// User is a member of the workspace (users.list, users.info). A
// deactivated user is kept, with Deleted true.
type User struct {
	ID                string       `json:"id"`
	TeamID            string       `json:"team_id,omitempty"`
	Name              string       `json:"name"`
	RealName          string       `json:"real_name,omitempty"`
	Deleted           bool         `json:"deleted"`
	Color             string       `json:"color,omitempty"`
	TZ                string       `json:"tz,omitempty"`
	TZLabel           string       `json:"tz_label,omitempty"`
	TZOffset          int          `json:"tz_offset,omitempty"`
	IsAdmin           bool         `json:"is_admin,omitempty"`
	IsOwner           bool         `json:"is_owner,omitempty"`
	IsPrimaryOwner    bool         `json:"is_primary_owner,omitempty"`
	IsRestricted      bool         `json:"is_restricted,omitempty"`
	IsUltraRestricted bool         `json:"is_ultra_restricted,omitempty"`
	IsBot             bool         `json:"is_bot"`
	IsAppUser         bool         `json:"is_app_user,omitempty"`
	Updated           int64        `json:"updated"`
	Profile           *UserProfile `json:"profile,omitempty"`
}

// UserProfile is a user's profile (email needs the users:read.email
// scope).
type UserProfile struct {
	RealName    string `json:"real_name"`
	DisplayName string `json:"display_name"`
	Email       string `json:"email,omitempty"`
	Title       string `json:"title"`
	Phone       string `json:"phone"`
	StatusText  string `json:"status_text"`
	StatusEmoji string `json:"status_emoji"`
	Image72     string `json:"image_72,omitempty"`
}

// Channel is a conversation (conversations.list, conversations.info): a
// public or private channel, or a direct message. An archived channel is
// kept, with IsArchived true.
type Channel struct {
	ID                 string   `json:"id"`
	Name               string   `json:"name,omitempty"`
	IsChannel          bool     `json:"is_channel"`
	IsGroup            bool     `json:"is_group"`
	IsIM               bool     `json:"is_im"`
	IsMPIM             bool     `json:"is_mpim"`
	IsPrivate          bool     `json:"is_private"`
	IsArchived         bool     `json:"is_archived"`
	IsGeneral          bool     `json:"is_general"`
	IsShared           bool     `json:"is_shared"`
	IsExtShared        bool     `json:"is_ext_shared"`
	IsOrgShared        bool     `json:"is_org_shared"`
	IsMember           bool     `json:"is_member"`
	Created            int64    `json:"created"`
	Updated            int64    `json:"updated,omitempty"`
	Creator            string   `json:"creator,omitempty"`
	NameNormalized     string   `json:"name_normalized,omitempty"`
	NumMembers         int      `json:"num_members,omitempty"`
	Topic              *Purpose `json:"topic,omitempty"`
	Purpose            *Purpose `json:"purpose,omitempty"`
	PreviousNames      []string `json:"previous_names,omitempty"`
	ContextTeamID      string   `json:"context_team_id,omitempty"`
	User               string   `json:"user,omitempty"`
	Unlinked           int      `json:"unlinked,omitempty"`
	SharedTeamIDs      []string `json:"shared_team_ids,omitempty"`
	PendingShared      []string `json:"pending_shared,omitempty"`
	IsPendingExtShared bool     `json:"is_pending_ext_shared,omitempty"`
}

// Purpose is a channel's topic or purpose.
type Purpose struct {
	Value   string `json:"value"`
	Creator string `json:"creator"`
	LastSet int64  `json:"last_set"`
}

// Message is a message of a channel (conversations.history) or of a
// thread (conversations.replies). Channel is set by the copy (the
// history's messages do not name their channel); a thread's parent has
// ReplyCount and LatestReply, its replies ThreadTS.
type Message struct {
	Type        string          `json:"type"`
	Subtype     string          `json:"subtype,omitempty"`
	TS          string          `json:"ts"`
	User        string          `json:"user,omitempty"`
	BotID       string          `json:"bot_id,omitempty"`
	Text        string          `json:"text"`
	Channel     string          `json:"channel,omitempty"`
	Team        string          `json:"team,omitempty"`
	ThreadTS    string          `json:"thread_ts,omitempty"`
	ParentUser  string          `json:"parent_user_id,omitempty"`
	ReplyCount  int             `json:"reply_count,omitempty"`
	ReplyUsers  []string        `json:"reply_users,omitempty"`
	LatestReply string          `json:"latest_reply,omitempty"`
	Edited      *Edited         `json:"edited,omitempty"`
	Files       []File          `json:"files,omitempty"`
	Reactions   []Reaction      `json:"reactions,omitempty"`
	Blocks      json.RawMessage `json:"blocks,omitempty"`
	Attachments json.RawMessage `json:"attachments,omitempty"`
}

// Edited says who last edited a message, and when.
type Edited struct {
	User string `json:"user"`
	TS   string `json:"ts"`
}

// Reaction is an emoji reaction on a message or file.
type Reaction struct {
	Name  string   `json:"name"`
	Count int      `json:"count"`
	Users []string `json:"users"`
}

// File is a file shared in the workspace (files.list, files.info). Its
// bytes are at URLPrivateDownload, on files.slack.com, read with the
// token (the files entity's download action).
type File struct {
	ID                 string   `json:"id"`
	Created            int64    `json:"created"`
	Timestamp          int64    `json:"timestamp,omitempty"`
	Name               string   `json:"name"`
	Title              string   `json:"title"`
	Mimetype           string   `json:"mimetype"`
	Filetype           string   `json:"filetype"`
	PrettyType         string   `json:"pretty_type,omitempty"`
	User               string   `json:"user"`
	Mode               string   `json:"mode,omitempty"`
	Editable           bool     `json:"editable"`
	IsExternal         bool     `json:"is_external"`
	IsPublic           bool     `json:"is_public"`
	Size               int64    `json:"size"`
	URLPrivate         string   `json:"url_private,omitempty"`
	URLPrivateDownload string   `json:"url_private_download,omitempty"`
	Permalink          string   `json:"permalink,omitempty"`
	Channels           []string `json:"channels,omitempty"`
	Groups             []string `json:"groups,omitempty"`
	IMs                []string `json:"ims,omitempty"`
	CommentsCount      int      `json:"comments_count,omitempty"`
}

// Team is the workspace (team.info).
type Team struct {
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Domain       string          `json:"domain"`
	EmailDomain  string          `json:"email_domain"`
	EnterpriseID string          `json:"enterprise_id,omitempty"`
	Icon         json.RawMessage `json:"icon,omitempty"`
}

// SearchMatch is a message search.messages found (api_search on
// channel_messages): the message with its channel and permalink.
type SearchMatch struct {
	Type      string     `json:"type"`
	TS        string     `json:"ts"`
	User      string     `json:"user,omitempty"`
	Username  string     `json:"username,omitempty"`
	Text      string     `json:"text"`
	Permalink string     `json:"permalink"`
	Channel   ChannelRef `json:"channel"`
}

// ChannelRef is a channel named inside a search match.
type ChannelRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}
