package gongtest

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// What a test changes (fakeserver.Mutable) lives beside the generated
// calls and users: calls created after the generated ones (they start
// when they are created, so start order stays index order), new titles,
// deleted calls; users likewise. Guarded by Server.mu.
type mutations struct {
	callStarts  []time.Time // start of created call k (index calls+k)
	callTitles  map[int]string
	callDeleted map[int]bool
	userCreated []time.Time // creation time of created user k (index users+k)
	userTitles  map[int]string
	userDeleted map[int]bool
	updates     int
}

var _ fakeserver.Mutable = (*Server)(nil)

// WithMutationClock sets the clock of Create, Update and Delete
// (fakeserver.Mutable) and, unless WithClock comes later, of the media
// URLs' expiry. By default it starts at the current time, truncated to the
// second (or after the last generated call, when that is later), and moves
// only when the test advances it.
func WithMutationClock(c *fakeserver.Clock) Option {
	return func(cfg *config) { cfg.clock, cfg.now = c, c.Now }
}

// defaultClock starts after every generated call and user.
func defaultClock(cfg *config) *fakeserver.Clock {
	start := time.Now().UTC().Truncate(time.Second)
	if cfg.calls > 0 {
		if last := callStart(cfg.calls - 1).Add(2 * time.Hour); last.After(start) {
			start = last
		}
	}
	return fakeserver.NewClock(start)
}

// Clock implements fakeserver.Mutable.
func (s *Server) Clock() *fakeserver.Clock { return s.clock }

// MutableEntities implements fakeserver.Mutable: calls and users.
func (s *Server) MutableEntities() []string { return []string{"calls", "users"} }

// numCalls and numUsers count the records, created and deleted ones
// included.
func (s *Server) numCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.calls + len(s.mut.callStarts)
}

func (s *Server) numUsers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.users + len(s.mut.userCreated)
}

// startOf is when call i started.
func (s *Server) startOf(i int) time.Time {
	if i >= s.cfg.calls {
		s.mu.Lock()
		defer s.mu.Unlock()
		if k := i - s.cfg.calls; k < len(s.mut.callStarts) {
			return s.mut.callStarts[k]
		}
	}
	return callStart(i)
}

func (s *Server) callLive(i int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return i >= 0 && i < s.cfg.calls+len(s.mut.callStarts) && !s.mut.callDeleted[i]
}

func (s *Server) userLive(i int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return i >= 0 && i < s.cfg.users+len(s.mut.userCreated) && !s.mut.userDeleted[i]
}

func (s *Server) callsDeleted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.mut.callDeleted) > 0
}

// liveUsers returns the indexes of the users a list shows, or nil when
// they are 0..Users()-1 (nothing created or deleted).
func (s *Server) liveUsers() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.mut.userCreated) == 0 && len(s.mut.userDeleted) == 0 {
		return nil
	}
	out := []int{}
	for i := range s.cfg.users + len(s.mut.userCreated) {
		if !s.mut.userDeleted[i] {
			out = append(out, i)
		}
	}
	return out
}

// patchCall applies the changes of call i to its generated record.
func (s *Server) patchCall(i int, c *callRecord) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if k := i - s.cfg.calls; k >= 0 && k < len(s.mut.callStarts) {
		c.Started = isoTime(s.mut.callStarts[k])
		c.Scheduled = c.Started
	}
	if t, ok := s.mut.callTitles[i]; ok {
		c.Title = t
	}
}

// patchUser applies the changes of user i to its generated record.
func (s *Server) patchUser(i int, u *userRecord) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if k := i - s.cfg.users; k >= 0 && k < len(s.mut.userCreated) {
		u.Created = isoTime(s.mut.userCreated[k])
	}
	if t, ok := s.mut.userTitles[i]; ok {
		u.Title = &t
	}
}

// IDs implements fakeserver.Mutable: the ids of the live calls (in start
// order) or users (in index order).
func (s *Server) IDs(entity string) []string {
	var out []string
	switch entity {
	case "calls":
		for i := range s.numCalls() {
			if s.callLive(i) {
				out = append(out, callID(i))
			}
		}
	case "users":
		for i := range s.numUsers() {
			if s.userLive(i) {
				out = append(out, userID(i))
			}
		}
	}
	return out
}

func notMutable(entity string) error {
	return fmt.Errorf("gongtest: %q is not a mutable entity (calls, users)", entity)
}

// Create implements fakeserver.Mutable: a call that started now (every
// field generated like the others, started and scheduled at the clock's
// time), or a user created now.
func (s *Server) Create(entity string) (string, error) {
	t := s.clock.Now().UTC()
	s.mu.Lock()
	defer s.mu.Unlock()
	switch entity {
	case "calls":
		if n := len(s.mut.callStarts); n > 0 && t.Before(s.mut.callStarts[n-1]) {
			t = s.mut.callStarts[n-1] // calls are created in start order
		}
		s.mut.callStarts = append(s.mut.callStarts, t)
		return callID(s.cfg.calls + len(s.mut.callStarts) - 1), nil
	case "users":
		s.mut.userCreated = append(s.mut.userCreated, t)
		return userID(s.cfg.users + len(s.mut.userCreated) - 1), nil
	}
	return "", notMutable(entity)
}

// Update implements fakeserver.Mutable: a call gets a new title, a user a
// new title. Gong keeps no last-modified time on either: the call's
// started time stays, which is why its change feed looks back.
func (s *Server) Update(entity, id string) error {
	switch entity {
	case "calls":
		i, ok := s.callIndex(id)
		if !ok {
			return fmt.Errorf("gongtest: no live call %q", id)
		}
		title := s.call(i).Title
		s.mu.Lock()
		defer s.mu.Unlock()
		s.mut.updates++
		if s.mut.callTitles == nil {
			s.mut.callTitles = map[int]string{}
		}
		s.mut.callTitles[i] = title + " (updated " + strconv.Itoa(s.mut.updates) + ")"
		return nil
	case "users":
		i, ok := s.userIndex(id)
		if !ok {
			return fmt.Errorf("gongtest: no live user %q", id)
		}
		title := ""
		if t := s.user(i).Title; t != nil {
			title = *t
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.mut.updates++
		if s.mut.userTitles == nil {
			s.mut.userTitles = map[int]string{}
		}
		s.mut.userTitles[i] = title + " (updated " + strconv.Itoa(s.mut.updates) + ")"
		return nil
	}
	return notMutable(entity)
}

// Delete implements fakeserver.Mutable: the call or user is gone from
// lists and gets (404), as Gong reports no deletions.
func (s *Server) Delete(entity, id string) error {
	switch entity {
	case "calls":
		i, ok := s.callIndex(id)
		if !ok {
			return fmt.Errorf("gongtest: no live call %q", id)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.mut.callDeleted == nil {
			s.mut.callDeleted = map[int]bool{}
		}
		s.mut.callDeleted[i] = true
		return nil
	case "users":
		i, ok := s.userIndex(id)
		if !ok {
			return fmt.Errorf("gongtest: no live user %q", id)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.mut.userDeleted == nil {
			s.mut.userDeleted = map[int]bool{}
		}
		s.mut.userDeleted[i] = true
		return nil
	}
	return notMutable(entity)
}

// firstCallAtOrAfter returns the index of the first call starting at or
// after t (the number of calls when none does).
func (s *Server) firstCallAtOrAfter(t time.Time) int {
	return sort.Search(s.numCalls(), func(i int) bool { return !s.startOf(i).Before(t) })
}
