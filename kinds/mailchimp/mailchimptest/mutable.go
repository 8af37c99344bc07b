package mailchimptest

import (
	"crypto/md5"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// entityMembers is the catalogue entity Create, Update and Delete change.
const entityMembers = "list_members"

// mutList is the list (audience) mutations act on: the first one.
const mutList = 0

// ErrUnsupported is returned by mutations of an entity that is not mutable.
var ErrUnsupported = errors.New("mailchimptest: mutation not supported")

// ErrUnknownRecord is returned by Update and Delete for an id that is not a
// live record of the entity.
var ErrUnknownRecord = errors.New("mailchimptest: no such record")

// WithClock sets the clock of mutations and change feeds (default: a clock
// started at the time New ran, truncated to the second, that moves only
// when advanced). Generated records all lie before it.
func WithClock(c *fakeserver.Clock) Option { return func(cfg *config) { cfg.clock = c } }

// mutations is the overlay of created, updated and archived members of the
// first list on top of the generated ones, stamped with the fake's clock.
type mutations struct {
	clock   *fakeserver.Clock
	touched atomic.Bool

	mu      sync.Mutex
	members map[int]*memberMod // by member index, generated or created
	created int                // created members: indexes members ... members+created-1
}

// memberMod is what changed about one member of the first list.
type memberMod struct {
	lastChanged time.Time
	fname       string // "" keeps the generated first name
	archived    bool
	isNew       bool
}

func newMutations(c *fakeserver.Clock) *mutations {
	return &mutations{clock: c, members: map[int]*memberMod{}}
}

// Clock returns the fake's clock: what "now" is for mutations.
func (s *Server) Clock() *fakeserver.Clock { return s.m.clock }

// MutableEntities lists the entities whose records Create, Update and
// Delete change: list_members, of the first list.
func (s *Server) MutableEntities() []string { return []string{entityMembers} }

// IDs returns the ids (subscriber hashes) of the first list's members that
// are not archived, by member index.
func (s *Server) IDs(entity string) []string {
	if entity != entityMembers || s.cfg.lists == 0 {
		return nil
	}
	n := s.memberCount(mutList)
	var out []string
	for m := range n {
		if mod, ok := s.memberMod(mutList, m); ok && mod.archived {
			continue
		}
		out = append(out, SubscriberHash(memberEmail(m)))
	}
	return out
}

// Create subscribes a new member to the first list, changed now, and
// returns its subscriber hash.
func (s *Server) Create(entity string) (string, error) {
	if entity != entityMembers || s.cfg.lists == 0 {
		return "", fmt.Errorf("%w: create %s", ErrUnsupported, entity)
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	m := s.cfg.members + s.m.created
	s.m.created++
	s.m.members[m] = &memberMod{lastChanged: s.now(), isNew: true}
	s.m.touched.Store(true)
	return SubscriberHash(memberEmail(m)), nil
}

// Update changes a member's first name (merge field FNAME, and full_name)
// and its last_changed to now.
func (s *Server) Update(entity, id string) error {
	return s.mutate(entity, id, func(mod *memberMod, m int) {
		base := firstNames[m%len(firstNames)]
		if mod.fname != "" {
			base = mod.fname
		}
		mod.fname = base + "x"
	})
}

// Delete archives a member as Mailchimp's DELETE does: it stays in the
// list with status "archived" and last_changed now (so the members list,
// its filters and the change feed show it), and leaves IDs.
func (s *Server) Delete(entity, id string) error {
	return s.mutate(entity, id, func(mod *memberMod, _ int) { mod.archived = true })
}

func (s *Server) mutate(entity, id string, change func(*memberMod, int)) error {
	if entity != entityMembers || s.cfg.lists == 0 {
		return fmt.Errorf("%w: %s", ErrUnsupported, entity)
	}
	m, ok := s.memberByHash(id)
	if !ok {
		return fmt.Errorf("%w: member %s", ErrUnknownRecord, id)
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	mod := s.m.members[m]
	if mod == nil {
		mod = &memberMod{}
		s.m.members[m] = mod
	}
	if mod.archived {
		return fmt.Errorf("%w: member %s is archived", ErrUnknownRecord, id)
	}
	change(mod, m)
	mod.lastChanged = s.now()
	s.m.touched.Store(true)
	return nil
}

// now reads the clock at Mailchimp's precision (seconds).
func (s *Server) now() time.Time { return s.m.clock.Now().UTC().Truncate(time.Second) }

// memberCount is the number of member indexes of list l.
func (s *Server) memberCount(l int) int {
	if l != mutList || !s.m.touched.Load() {
		return s.cfg.members
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	return s.cfg.members + s.m.created
}

// memberMod returns a copy of member m's overlay entry in list l.
func (s *Server) memberMod(l, m int) (memberMod, bool) {
	if l != mutList || !s.m.touched.Load() {
		return memberMod{}, false
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	mod := s.m.members[m]
	if mod == nil {
		return memberMod{}, false
	}
	return *mod, true
}

// memberOf renders member m of list l as it is now.
func (s *Server) memberOf(l, m int, ln links) member {
	mem := s.cfg.member(l, m, ln)
	mod, ok := s.memberMod(l, m)
	if !ok {
		return mem
	}
	if mod.fname != "" {
		mem.MergeFields.FName = mod.fname
		mem.FullName = mod.fname + " Placeholder"
	}
	if mod.archived {
		mem.Status = "archived"
		mem.UnsubscribeReason = ""
	}
	if mod.isNew {
		t := mod.lastChanged
		mem.Status = "subscribed"
		mem.UnsubscribeReason = ""
		mem.TimestampSignup, mem.TimestampOpt = ts(t), ts(t)
		if mod.archived {
			mem.Status = "archived"
		}
	}
	mem.LastChanged = ts(mod.lastChanged)
	return mem
}

// memberTimes returns the status and times of member m of list l as they
// are now, for filters and sorting.
func (s *Server) memberTimes(l, m int) (status string, opt, signup, changed time.Time) {
	status, opt, signup, changed = memberStatus(m), memberOptTime(m), memberSignupTime(m), memberLastChanged(m)
	mod, ok := s.memberMod(l, m)
	if !ok {
		return
	}
	if mod.isNew {
		status, opt, signup = "subscribed", mod.lastChanged, mod.lastChanged
	}
	if mod.archived {
		status = "archived"
	}
	return status, opt, signup, mod.lastChanged
}

// createdMemberByHash finds a created member by subscriber hash.
func (s *Server) createdMemberByHash(key [md5.Size]byte) (int, bool) {
	if !s.m.touched.Load() {
		return 0, false
	}
	s.m.mu.Lock()
	n := s.m.created
	s.m.mu.Unlock()
	for k := range n {
		m := s.cfg.members + k
		if md5.Sum([]byte(memberEmail(m))) == key {
			return m, true
		}
	}
	return 0, false
}

// memberOrder returns the member indexes of list l sorted by field
// (timestamp_opt, timestamp_signup or last_changed) ascending, ties by
// index; nil for an unknown field (index order).
func (s *Server) memberOrder(l int, field string) []int {
	n := s.memberCount(l)
	key := func(m int) time.Time {
		_, opt, signup, changed := s.memberTimes(l, m)
		switch field {
		case "timestamp_opt":
			return opt
		case "timestamp_signup":
			return signup
		}
		return changed
	}
	switch field {
	case "timestamp_opt", "timestamp_signup", "last_changed":
	default:
		return nil
	}
	out := make([]int, n)
	keys := make([]time.Time, n)
	for m := range n {
		out[m], keys[m] = m, key(m)
	}
	slices.SortStableFunc(out, func(a, b int) int { return keys[a].Compare(keys[b]) })
	return out
}
