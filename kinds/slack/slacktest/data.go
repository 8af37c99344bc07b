package slacktest

import (
	"fmt"
	"strings"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// user is a member as users.list writes it.
type user struct {
	ID                string  `json:"id"`
	TeamID            string  `json:"team_id"`
	Name              string  `json:"name"`
	Deleted           bool    `json:"deleted"`
	Color             string  `json:"color"`
	RealName          string  `json:"real_name"`
	TZ                string  `json:"tz"`
	TZLabel           string  `json:"tz_label"`
	TZOffset          int     `json:"tz_offset"`
	Profile           profile `json:"profile"`
	IsAdmin           bool    `json:"is_admin"`
	IsOwner           bool    `json:"is_owner"`
	IsPrimaryOwner    bool    `json:"is_primary_owner"`
	IsRestricted      bool    `json:"is_restricted"`
	IsUltraRestricted bool    `json:"is_ultra_restricted"`
	IsBot             bool    `json:"is_bot"`
	IsAppUser         bool    `json:"is_app_user"`
	Updated           int64   `json:"updated"`
	Has2FA            bool    `json:"has_2fa"`
}

type profile struct {
	AvatarHash            string `json:"avatar_hash"`
	StatusText            string `json:"status_text"`
	StatusEmoji           string `json:"status_emoji"`
	RealName              string `json:"real_name"`
	DisplayName           string `json:"display_name"`
	RealNameNormalized    string `json:"real_name_normalized"`
	DisplayNameNormalized string `json:"display_name_normalized"`
	Email                 string `json:"email"`
	Image72               string `json:"image_72"`
	Team                  string `json:"team"`
	Title                 string `json:"title"`
	Phone                 string `json:"phone"`
	Skype                 string `json:"skype"`
	Fields                any    `json:"fields"`
}

type topic struct {
	Value   string `json:"value"`
	Creator string `json:"creator"`
	LastSet int64  `json:"last_set"`
}

// channel is a conversation as conversations.list writes it.
type channel struct {
	ID                 string   `json:"id"`
	Name               string   `json:"name"`
	IsChannel          bool     `json:"is_channel"`
	IsGroup            bool     `json:"is_group"`
	IsIM               bool     `json:"is_im"`
	IsMPIM             bool     `json:"is_mpim"`
	IsPrivate          bool     `json:"is_private"`
	Created            int64    `json:"created"`
	IsArchived         bool     `json:"is_archived"`
	IsGeneral          bool     `json:"is_general"`
	Unlinked           int      `json:"unlinked"`
	NameNormalized     string   `json:"name_normalized"`
	IsShared           bool     `json:"is_shared"`
	IsOrgShared        bool     `json:"is_org_shared"`
	IsPendingExtShared bool     `json:"is_pending_ext_shared"`
	PendingShared      []string `json:"pending_shared"`
	Creator            string   `json:"creator"`
	IsExtShared        bool     `json:"is_ext_shared"`
	SharedTeamIDs      []string `json:"shared_team_ids"`
	IsMember           bool     `json:"is_member"`
	Topic              topic    `json:"topic"`
	Purpose            topic    `json:"purpose"`
	PreviousNames      []string `json:"previous_names"`
	NumMembers         int      `json:"num_members"`
	members            []string
}

// message is a message as conversations.history writes it.
type message struct {
	Type        string   `json:"type"`
	User        string   `json:"user"`
	Text        string   `json:"text"`
	TS          string   `json:"ts"`
	Team        string   `json:"team"`
	ThreadTS    string   `json:"thread_ts,omitempty"`
	ParentUser  string   `json:"parent_user_id,omitempty"`
	ReplyCount  int      `json:"reply_count,omitempty"`
	ReplyUsers  []string `json:"reply_users,omitempty"`
	ReplyUsersN int      `json:"reply_users_count,omitempty"`
	Subscribed  *bool    `json:"subscribed,omitempty"`
	LatestReply string   `json:"latest_reply,omitempty"`
	channel     string
}

// file is a file as files.list writes it.
type file struct {
	ID                 string   `json:"id"`
	Created            int64    `json:"created"`
	Timestamp          int64    `json:"timestamp"`
	Name               string   `json:"name"`
	Title              string   `json:"title"`
	Mimetype           string   `json:"mimetype"`
	Filetype           string   `json:"filetype"`
	PrettyType         string   `json:"pretty_type"`
	User               string   `json:"user"`
	Editable           bool     `json:"editable"`
	Size               int      `json:"size"`
	Mode               string   `json:"mode"`
	IsExternal         bool     `json:"is_external"`
	ExternalType       string   `json:"external_type"`
	IsPublic           bool     `json:"is_public"`
	PublicURLShared    bool     `json:"public_url_shared"`
	DisplayAsBot       bool     `json:"display_as_bot"`
	Username           string   `json:"username"`
	URLPrivate         string   `json:"url_private"`
	URLPrivateDownload string   `json:"url_private_download"`
	Permalink          string   `json:"permalink"`
	PermalinkPublic    string   `json:"permalink_public"`
	Channels           []string `json:"channels"`
	Groups             []string `json:"groups"`
	IMs                []string `json:"ims"`
	CommentsCount      int      `json:"comments_count"`
}

// UserID, ChannelID and FileID are the ids of the fake's i-th (from 0)
// user, channel and file.
func UserID(i int) string    { return fmt.Sprintf("U%08d", i+1) }
func ChannelID(i int) string { return fmt.Sprintf("C%08d", i+1) }
func FileID(i int) string    { return fmt.Sprintf("F%08d", i+1) }

// ts writes t as a message's ts.
func ts(t time.Time) string { return fmt.Sprintf("%d.%06d", t.Unix(), t.Nanosecond()/1000) }

// dataStart is when the generated data begins: a fixed date, so that two
// fakes started at different times serve the same records.
var dataStart = time.Date(2025, 1, 6, 9, 0, 0, 0, time.UTC)

// generate makes the fake's data, from dataStart.
func (s *Server) generate() {
	start := dataStart
	for i := range s.cfg.users {
		u := s.newUser(i, start)
		u.Deleted = i > 0 && i%10 == 0
		s.users.Put(u.ID, u, start)
	}
	for c := range s.cfg.channels {
		ch := s.newChannel(c, start)
		ch.IsArchived = c > 0 && c%7 == 0
		s.channels.Put(ch.ID, ch, start)
		for m := range s.cfg.messages {
			at := start.Add(time.Duration(m)*time.Minute + time.Duration(c)*time.Microsecond)
			msg := s.newMessage(ch.ID, m, at)
			if m%5 == 4 {
				for r := range 3 {
					rep := s.newMessage(ch.ID, m*10+r, at.Add(time.Duration(r+1)*time.Second))
					rep.ThreadTS, rep.ParentUser = msg.TS, msg.User
					s.replies.Put(ch.ID+"/"+msg.TS+"/"+rep.TS, rep, at)
					msg.ReplyUsers = appendNew(msg.ReplyUsers, rep.User)
					msg.ReplyUsersN, msg.Subscribed = len(msg.ReplyUsers), new(bool)
					msg.ThreadTS, msg.ReplyCount, msg.LatestReply = msg.TS, msg.ReplyCount+1, rep.TS
				}
			}
			s.messages.Put(ch.ID+"/"+msg.TS, msg, at)
		}
	}
	for i := range s.cfg.files {
		f := s.newFile(i, start.Add(time.Duration(i)*time.Minute))
		s.files.Put(f.ID, f, start)
	}
}

func appendNew(list []string, v string) []string {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}

func (s *Server) newUser(i int, at time.Time) user {
	name := fmt.Sprintf("user%d", i+1)
	real := fmt.Sprintf("User %d", i+1)
	return user{ID: UserID(i), TeamID: TeamID, Name: name, Color: "9f69e7", RealName: real, TZ: "Europe/Paris", TZLabel: "Central European Time",
		TZOffset: 3600, IsAdmin: i == 0, IsOwner: i == 0, IsPrimaryOwner: i == 0, Updated: at.Unix(),
		Profile: profile{AvatarHash: fmt.Sprintf("ge%010d", i), RealName: real, DisplayName: name, RealNameNormalized: real, DisplayNameNormalized: name,
			Email: name + "@example.com", Image72: "https://a.slack-edge.com/80588/img/avatars/ava_0001-72.png", Team: TeamID, Fields: nil}}
}

func (s *Server) newChannel(c int, at time.Time) channel {
	name := fmt.Sprintf("channel-%d", c+1)
	if c == 0 {
		name = "general"
	}
	var members []string
	for i := range min(s.cfg.users, 5+c) {
		members = append(members, UserID(i))
	}
	return channel{ID: ChannelID(c), Name: name, IsChannel: true, IsPrivate: c%5 == 3, Created: at.Unix(), IsGeneral: c == 0,
		NameNormalized: name, Creator: UserID(0), IsMember: true, PendingShared: []string{},
		SharedTeamIDs: []string{TeamID}, PreviousNames: []string{}, NumMembers: len(members), members: members,
		Topic: topic{Value: "Talk about " + name, Creator: UserID(0), LastSet: at.Unix()}, Purpose: topic{Value: "The " + name + " channel", Creator: UserID(0), LastSet: at.Unix()}}
}

func (s *Server) newMessage(ch string, m int, at time.Time) message {
	return message{Type: "message", User: UserID(m % s.cfg.users), Text: fmt.Sprintf("Message %d of %s: the quarterly plan", m+1, ch), TS: ts(at), Team: TeamID, channel: ch}
}

func (s *Server) newFile(i int, at time.Time) file {
	id := FileID(i)
	name := fmt.Sprintf("report-%d.pdf", i+1)
	host := strings.TrimRight(s.cfg.fileHost, "/")
	return file{ID: id, Created: at.Unix(), Timestamp: at.Unix(), Name: name, Title: fmt.Sprintf("Report %d", i+1), Mimetype: "application/pdf",
		Filetype: "pdf", PrettyType: "PDF", User: UserID(i % s.cfg.users), Size: s.cfg.fileSize, Mode: "hosted", ExternalType: "", Username: "",
		URLPrivate:         host + "/files-pri/" + TeamID + "-" + id + "/" + name,
		URLPrivateDownload: host + "/files-pri/" + TeamID + "-" + id + "/download/" + name,
		Permalink:          "https://" + TeamDomain + ".slack.com/files/" + UserID(i%s.cfg.users) + "/" + id + "/" + name,
		PermalinkPublic:    "https://slack-files.com/" + TeamID + "-" + id + "-0a1b2c3d4e",
		Channels:           []string{ChannelID(i % max(s.cfg.channels, 1))}, Groups: []string{}, IMs: []string{}}
}

// FileContent returns the bytes of the file id.
func (s *Server) FileContent(id string) ([]byte, bool) {
	f, ok := s.files.Live(id)
	if !ok {
		return nil, false
	}
	b := make([]byte, f.Size)
	for i := range b {
		b[i] = byte((i*31 + len(id)*7 + int(id[len(id)-1])) % 251)
	}
	return b, true
}

// rowsOf returns the live records of t, in creation order.
func rowsOf[T any](t *fakeserver.Table[T], keep func(T) bool) []T {
	var out []T
	for _, r := range t.Rows(nil) {
		if keep == nil || keep(r.Rec) {
			out = append(out, r.Rec)
		}
	}
	return out
}
