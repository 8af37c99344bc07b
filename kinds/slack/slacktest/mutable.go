package slacktest

import (
	"errors"
	"fmt"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// ErrNoRecord is returned by Update, Delete, Post and Reply for an id
// with no live record, and by Create for an entity that is not mutable.
var ErrNoRecord = errors.New("slacktest: no such record")

// MutableEntities implements fakeserver.Mutable: channels and files.
// Messages are not among them (an edit or a deletion of a message is
// invisible to polling, as at Slack: Post and Reply add messages), nor
// users (Slack deletes none: Deactivate sets deleted: true).
func (s *Server) MutableEntities() []string { return []string{"channels", "files"} }

// Clock implements fakeserver.Mutable.
func (s *Server) Clock() *fakeserver.Clock { return s.clock }

// IDs implements fakeserver.Mutable: the ids of the live records, in
// creation order (a deactivated user and an archived channel are live).
func (s *Server) IDs(entity string) []string {
	switch entity {
	case "users":
		return s.users.IDs()
	case "channels":
		return s.channels.IDs()
	case "files":
		return s.files.IDs()
	}
	return nil
}

func (s *Server) now() time.Time { return s.clock.Now().Truncate(time.Microsecond) }

// Create implements fakeserver.Mutable: a new user, channel or file.
func (s *Server) Create(entity string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	// A new record's number is never one a record had before, deleted or
	// not: an id used again would make a deleted record come back.
	s.created++
	switch entity {
	case "users":
		u := s.newUser(s.cfg.users+1000+s.created, now)
		s.users.Put(u.ID, u, now)
		return u.ID, nil
	case "channels":
		c := s.newChannel(s.cfg.channels+1000+s.created, now)
		s.channels.Put(c.ID, c, now)
		return c.ID, nil
	case "files":
		f := s.newFile(s.cfg.files+1000+s.created, now)
		s.files.Put(f.ID, f, now)
		return f.ID, nil
	}
	return "", fmt.Errorf("%w: %s is not mutable", ErrNoRecord, entity)
}

// Update implements fakeserver.Mutable: a user's title, a channel's
// topic, a file's title, with the record's updated time.
func (s *Server) Update(entity, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	var found bool
	switch entity {
	case "users":
		found = s.users.Update(id, now, func(u *user) { u.Profile.Title, u.Updated = "Updated at "+now.Format(time.RFC3339Nano), now.Unix() })
	case "channels":
		found = s.channels.Update(id, now, func(c *channel) {
			c.Topic = topic{Value: "Updated at " + now.Format(time.RFC3339Nano), Creator: UserID(0), LastSet: now.Unix()}
		})
	case "files":
		found = s.files.Update(id, now, func(f *file) { f.Title = "Updated at " + now.Format(time.RFC3339Nano) })
	}
	if !found {
		return fmt.Errorf("%w: %s %s", ErrNoRecord, entity, id)
	}
	return nil
}

// Delete implements fakeserver.Mutable as Slack does: a channel is
// deleted (admin.conversations.delete: gone from every list), a file too
// (files.delete).
func (s *Server) Delete(entity, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var found bool
	switch entity {
	case "channels":
		found = s.channels.Delete(id, s.now())
	case "files":
		found = s.files.Delete(id, s.now())
	}
	if !found {
		return fmt.Errorf("%w: %s %s", ErrNoRecord, entity, id)
	}
	return nil
}

// Deactivate deactivates a user: still listed, with deleted: true.
func (s *Server) Deactivate(userID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if !s.users.Update(userID, now, func(u *user) { u.Deleted, u.Updated = true, now.Unix() }) {
		return fmt.Errorf("%w: user %s", ErrNoRecord, userID)
	}
	return nil
}

// Archive archives a channel: still listed, with is_archived: true.
func (s *Server) Archive(channelID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.channels.Update(channelID, s.now(), func(c *channel) { c.IsArchived = true }) {
		return fmt.Errorf("%w: channel %s", ErrNoRecord, channelID)
	}
	return nil
}

// Post adds a message to channel at the fake's clock and returns its ts.
func (s *Server) Post(channel, text string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.channels.Live(channel); !ok {
		return "", fmt.Errorf("%w: channel %s", ErrNoRecord, channel)
	}
	now := s.now()
	m := message{Type: "message", User: UserID(0), Text: text, TS: ts(now), Team: TeamID, channel: channel}
	s.messages.Put(channel+"/"+m.TS, m, now)
	return m.TS, nil
}

// Reply adds a reply to the thread of the message threadTS of channel,
// which changes the parent's reply_count and latest_reply; it returns the
// reply's ts.
func (s *Server) Reply(channel, threadTS, text string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	rep := message{Type: "message", User: UserID(1 % s.cfg.users), Text: text, TS: ts(now), Team: TeamID, ThreadTS: threadTS, channel: channel}
	found := s.messages.Update(channel+"/"+threadTS, now, func(m *message) {
		rep.ParentUser = m.User
		m.ThreadTS, m.ReplyCount, m.LatestReply, m.ReplyUsers = m.TS, m.ReplyCount+1, rep.TS, appendNew(m.ReplyUsers, rep.User)
		m.ReplyUsersN, m.Subscribed = len(m.ReplyUsers), new(bool)
	})
	if !found {
		return "", fmt.Errorf("%w: message %s of %s", ErrNoRecord, threadTS, channel)
	}
	s.replies.Put(channel+"/"+threadTS+"/"+rep.TS, rep, now)
	return rep.TS, nil
}

// ThreadTS returns the ts of the first message of channel that has
// replies ("" when none has).
func (s *Server) ThreadTS(channel string) string {
	for _, m := range rowsOf(&s.messages, func(m message) bool { return m.channel == channel && m.ReplyCount > 0 }) {
		return m.TS
	}
	return ""
}
