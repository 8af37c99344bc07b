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

// entityMembers is the catalogue entity of the first list's members.
const entityMembers = "list_members"

// mutList is the list (audience) member mutations act on: the first one.
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

// mutations holds what tests changed on top of the generated world,
// stamped with the fake's clock: created, updated and archived members of
// the first list, and the overlay of created, updated and deleted lists
// and campaigns.
type mutations struct {
	clock   *fakeserver.Clock
	touched atomic.Bool // members changed

	mu      sync.Mutex
	members map[int]*memberMod // by member index, generated or created
	created int                // created members: indexes members ... members+created-1

	ov atomic.Pointer[overlay] // replaced, never changed, under mu
}

// memberMod is what changed about one member of the first list.
type memberMod struct {
	lastChanged time.Time
	fname       string // "" keeps the generated first name
	archived    bool
	isNew       bool
}

func newMutations(c *fakeserver.Clock) *mutations {
	m := &mutations{clock: c, members: map[int]*memberMod{}}
	m.ov.Store(&overlay{})
	return m
}

// Clock returns the fake's clock: what "now" is for mutations.
func (s *Server) Clock() *fakeserver.Clock { return s.m.clock }

// MutableEntities lists the entities whose records Create, Update and
// Delete change: lists, campaigns, and list_members of the first list.
func (s *Server) MutableEntities() []string {
	return []string{entityLists, entityCampaigns, entityMembers}
}

// IDs returns the ids of entity's live records in index order: lists and
// campaigns not deleted, and the subscriber hashes of the first list's
// members that are not archived (none once the first list is deleted).
func (s *Server) IDs(entity string) []string {
	v := s.view()
	var out []string
	switch entity {
	case entityLists:
		for l := range v.listCount() {
			if v.listLive(l) {
				out = append(out, s.cfg.listID(l))
			}
		}
	case entityCampaigns:
		for i := range v.campaignCount() {
			if v.campaignLive(i) {
				out = append(out, hexID(i, campaignMask))
			}
		}
	case entityMembers:
		if !v.listLive(mutList) {
			return nil
		}
		for m := range s.memberCount(mutList) {
			if mod, ok := s.memberMod(mutList, m); ok && mod.archived {
				continue
			}
			out = append(out, SubscriberHash(memberEmail(m)))
		}
	}
	return out
}

// Create adds a record and returns its id:
//
//   - lists: a list (audience) named like the generated ones, date_created
//     now. Like every list of the fake it holds the synthetic members,
//     segments, interests and tags;
//   - campaigns: a draft (status "save", no send time, no report) with
//     create_time now, sent to the live lists in turn (the k-th created
//     campaign to the k-th live list, modulo their number; no list when
//     there is none);
//   - list_members: a member subscribed to the first list, changed now.
func (s *Server) Create(entity string) (string, error) {
	switch entity {
	case entityLists:
		s.m.mu.Lock()
		defer s.m.mu.Unlock()
		o := s.m.ov.Load().clone()
		l := s.cfg.lists + o.newLists
		o.newLists++
		o.lists[l] = listMod{created: s.now()}
		s.m.ov.Store(o)
		return s.cfg.listID(l), nil
	case entityCampaigns:
		s.m.mu.Lock()
		defer s.m.mu.Unlock()
		o := s.m.ov.Load().clone()
		v := view{c: &s.cfg, o: o}
		i := s.cfg.campaigns + o.newCampaigns
		list := -1
		if n := v.liveLists(); n > 0 {
			k := o.newCampaigns % n
			for l := range v.listCount() {
				if v.listLive(l) {
					if k == 0 {
						list = l
						break
					}
					k--
				}
			}
		}
		o.newCampaigns++
		o.campaigns[i] = campaignMod{created: s.now(), list: list}
		s.m.ov.Store(o)
		return hexID(i, campaignMask), nil
	case entityMembers:
		if !s.view().listLive(mutList) {
			return "", fmt.Errorf("%w: create %s: the first list is deleted", ErrUnsupported, entity)
		}
		s.m.mu.Lock()
		defer s.m.mu.Unlock()
		m := s.cfg.members + s.m.created
		s.m.created++
		s.m.members[m] = &memberMod{lastChanged: s.now(), isNew: true}
		s.m.touched.Store(true)
		return SubscriberHash(memberEmail(m)), nil
	}
	return "", fmt.Errorf("%w: create %s", ErrUnsupported, entity)
}

// Update changes a record's searchable fields:
//
//   - lists: the name (" (rev n)" appended, n counting the updates), which
//     the campaigns, reports and automations that use the list show too;
//   - campaigns: settings.subject_line and settings.title (" (rev n)"
//     appended), which the campaign's report shows too. Mailchimp's
//     campaigns and lists have no last-modified field, so no time changes;
//   - list_members: the first name (merge field FNAME, and full_name),
//     and last_changed to now.
func (s *Server) Update(entity, id string) error {
	switch entity {
	case entityLists, entityCampaigns:
		return s.mutateOverlay(entity, id, func(l *listMod) { l.rev++ }, func(c *campaignMod) { c.rev++ })
	}
	return s.mutate(entity, id, func(mod *memberMod, m int) {
		base := firstNames[m%len(firstNames)]
		if mod.fname != "" {
			base = mod.fname
		}
		mod.fname = base + "x"
	})
}

// Delete deletes a record as Mailchimp's DELETE does:
//
//   - lists: the list is gone (from /lists, whose total_items and
//     constraints count one less, 404 on get) and so is everything under
//     it (members, segments, interests, tags: 404). Its campaigns, their
//     reports, email activity and unsubscribes, and its automations stay,
//     with list_is_active false (Mailchimp's "whether the list is deleted
//     or disabled") and the list's id and last name;
//   - campaigns: the campaign is gone from /campaigns and 404 on get; a
//     sent one's report, email activity and unsubscribes go with it;
//   - list_members: archived: the member stays in the list with status
//     "archived" and last_changed now (so the members list, its filters
//     and the change feed show it), and leaves IDs.
func (s *Server) Delete(entity, id string) error {
	switch entity {
	case entityLists, entityCampaigns:
		return s.mutateOverlay(entity, id, func(l *listMod) { l.deleted = true }, func(c *campaignMod) { c.deleted = true })
	}
	return s.mutate(entity, id, func(mod *memberMod, _ int) { mod.archived = true })
}

// mutateOverlay applies a change to the live list or campaign id.
func (s *Server) mutateOverlay(entity, id string, list func(*listMod), camp func(*campaignMod)) error {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	o := s.m.ov.Load().clone()
	v := view{c: &s.cfg, o: o}
	switch entity {
	case entityLists:
		l, ok := v.listIndex(id)
		if !ok {
			return fmt.Errorf("%w: list %s", ErrUnknownRecord, id)
		}
		mod := o.lists[l]
		list(&mod)
		if mod.deleted {
			o.goneLists++
		}
		o.lists[l] = mod
	case entityCampaigns:
		i, ok := v.campaignIndex(id)
		if !ok {
			return fmt.Errorf("%w: campaign %s", ErrUnknownRecord, id)
		}
		mod, ok := o.campaigns[i]
		if !ok {
			mod.list = -1
		}
		camp(&mod)
		if mod.deleted {
			o.goneCamps++
		}
		o.campaigns[i] = mod
	}
	s.m.ov.Store(o)
	return nil
}

func (s *Server) mutate(entity, id string, change func(*memberMod, int)) error {
	if entity != entityMembers || !s.view().listLive(mutList) {
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
