package intercomtest

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

var _ fakeserver.Mutable = (*Server)(nil)

// WithClock sets the fake's clock: the time of every Create, Update and
// Delete. The default starts when New runs (truncated to the second), or
// after the last generated timestamp when the volumes reach further, and
// moves only when advanced. The rate-limit windows and the scroll's idle
// timeout keep their own clocks (see WithScrollClock).
func WithClock(c *fakeserver.Clock) Option { return func(cfg *config) { cfg.clock = c } }

// ErrNoRecord is returned by Update and Delete for an id that is not a
// live record of the entity, and by all three for an entity that is not
// mutable.
var ErrNoRecord = errors.New("intercomtest: no such live record")

// Mutable entities.
const (
	contactsEntity      = "contacts"
	conversationsEntity = "conversations"
	companiesEntity     = "companies"
)

// change is what mutations did to one record.
type change struct {
	created, updated int // Unix seconds; 0: as generated
	edits            int
	deleted          bool
}

// overlay holds the mutations. Readers check active first, so that a fake
// nobody mutates pays nothing.
type overlay struct {
	active  atomic.Bool
	version atomic.Int64 // moves on with every mutation
	mu      sync.RWMutex
	extra   map[string]int // records created, by entity
	dead    map[string]int // records deleted, by entity
	recs    map[string]map[int]change
}

func (s *Server) change(entity string, i int) (change, bool) {
	if !s.ov.active.Load() {
		return change{}, false
	}
	s.ov.mu.RLock()
	ch, ok := s.ov.recs[entity][i]
	s.ov.mu.RUnlock()
	return ch, ok
}

func (s *Server) base(entity string) int {
	switch entity {
	case contactsEntity:
		return s.cfg.contacts
	case conversationsEntity:
		return s.cfg.conversations
	case companiesEntity:
		return s.cfg.companies
	}
	return 0
}

// total is how many records of entity exist, generated and created,
// deleted ones included (the range of indexes).
func (s *Server) total(entity string) int {
	n := s.base(entity)
	if s.ov.active.Load() {
		s.ov.mu.RLock()
		n += s.ov.extra[entity]
		s.ov.mu.RUnlock()
	}
	return n
}

func (s *Server) deleted(entity string, i int) bool {
	ch, ok := s.change(entity, i)
	return ok && ch.deleted
}

// exists reports whether record i of entity is live.
func (s *Server) exists(entity string, i int) bool {
	return i >= 0 && i < s.total(entity) && !s.deleted(entity, i)
}

// live narrows v (a view over entity's indexes) to the records not
// deleted.
func (s *Server) live(entity string, v view) view {
	if !s.ov.active.Load() {
		return v
	}
	s.ov.mu.RLock()
	none := s.ov.dead[entity] == 0
	s.ov.mu.RUnlock()
	if none {
		return v
	}
	var idx []int
	pos := map[int]int{}
	for p := 0; p < v.count; p++ {
		if i := v.at(p); !s.deleted(entity, i) {
			pos[i] = len(idx)
			idx = append(idx, i)
		}
	}
	return view{
		count:   len(idx),
		at:      func(p int) int { return idx[p] },
		posOf:   func(i int) (int, bool) { p, ok := pos[i]; return p, ok },
		indexOf: v.indexOf,
	}
}

// contact is contact i as mutations left it.
func (s *Server) contact(i int) contact {
	c := contactAt(i, s.cfg.companies)
	if ch, ok := s.change(contactsEntity, i); ok {
		if ch.created != 0 {
			c.CreatedAt, c.SignedUpAt = ch.created, ptr(ch.created)
		}
		if ch.updated != 0 {
			c.UpdatedAt = ch.updated
		}
		if ch.edits > 0 {
			c.Name = ptr(fmt.Sprintf("%s (edit %d)", personName(i), ch.edits))
		}
	}
	return c
}

// conversation is conversation i as mutations left it.
func (s *Server) conversation(i int, withParts, plain bool) conversation {
	c := conversationAt(i, s.cfg.contacts, AttachmentOrigin, withParts, plain)
	if ch, ok := s.change(conversationsEntity, i); ok {
		if ch.created != 0 {
			c.CreatedAt = ch.created
		}
		if ch.updated != 0 {
			c.UpdatedAt = ch.updated
		}
		if ch.edits > 0 {
			title := "Conversation"
			if c.Title != nil {
				title = *c.Title
			}
			c.Title = ptr(fmt.Sprintf("%s (edit %d)", title, ch.edits))
		}
	}
	return c
}

// company is company i as mutations left it. A created company was last
// requested when it was created, so it heads the company list.
func (s *Server) company(i int) company {
	c := companyAt(i)
	if ch, ok := s.change(companiesEntity, i); ok {
		if ch.created != 0 {
			c.CreatedAt, c.RemoteCreatedAt, c.LastRequestAt = ch.created, ch.created, ch.created
		}
		if ch.updated != 0 {
			c.UpdatedAt = ch.updated
		}
		if ch.edits > 0 {
			c.Name = fmt.Sprintf("%s (edit %d)", companyName(i), ch.edits)
		}
	}
	return c
}

// latestGenerated is a time after every generated timestamp.
func latestGenerated(cfg config) time.Time {
	last := max(
		baseTime+cfg.contacts*3600+2*86400,
		baseTime+cfg.conversations*1800+4*86400,
		baseTime+cfg.companies*600+86400,
	)
	return time.Unix(int64(last), 0).UTC()
}

// MutableEntities implements fakeserver.Mutable: contacts, conversations
// and companies.
func (s *Server) MutableEntities() []string {
	return []string{contactsEntity, conversationsEntity, companiesEntity}
}

// IDs implements fakeserver.Mutable: the ids of entity's live records, in
// index order (the contacts' and conversations' list order; companies list
// most recently requested first, the reverse).
func (s *Server) IDs(entity string) []string {
	var out []string
	for i, n := 0, s.total(entity); i < n; i++ {
		if !s.deleted(entity, i) {
			out = append(out, s.id(entity, i))
		}
	}
	return out
}

func (s *Server) id(entity string, i int) string {
	switch entity {
	case contactsEntity:
		return contactID(i)
	case conversationsEntity:
		return conversationID(i)
	}
	return companyID(i)
}

// index finds the index of a live record by id.
func (s *Server) index(o *overlay, entity, id string) (int, bool) {
	n := s.base(entity) + o.extra[entity]
	var i int
	var ok bool
	switch entity {
	case contactsEntity:
		i, ok = hexIndex(contactIDPrefix, id)
	case conversationsEntity:
		i, ok = numIndex(conversationIDBase, id, n)
	case companiesEntity:
		i, ok = hexIndex(companyIDPrefix, id)
	}
	return i, ok && i < n && !o.recs[entity][i].deleted
}

func (s *Server) mutate(entity string, f func(o *overlay, now int) error) error {
	switch entity {
	case contactsEntity, conversationsEntity, companiesEntity:
	default:
		return fmt.Errorf("%w: %s is not a mutable entity", ErrNoRecord, entity)
	}
	now := int(s.clock.Now().Unix())
	s.ov.mu.Lock()
	defer s.ov.mu.Unlock()
	if s.ov.recs[entity] == nil {
		s.ov.recs[entity] = map[int]change{}
	}
	err := f(&s.ov, now)
	s.ov.version.Add(1)
	s.ov.active.Store(true)
	return err
}

// Create implements fakeserver.Mutable: a new record with every field a
// generated one has, created and updated now.
func (s *Server) Create(entity string) (string, error) {
	var id string
	err := s.mutate(entity, func(o *overlay, now int) error {
		i := s.base(entity) + o.extra[entity]
		o.extra[entity]++
		o.recs[entity][i] = change{created: now, updated: now}
		id = s.id(entity, i)
		return nil
	})
	return id, err
}

// Update implements fakeserver.Mutable: it changes the record's name
// (contacts, companies) or title (conversations) and sets updated_at to
// now.
func (s *Server) Update(entity, id string) error {
	return s.mutate(entity, func(o *overlay, now int) error {
		i, ok := s.index(o, entity, id)
		if !ok {
			return fmt.Errorf("%w: %s %s", ErrNoRecord, entity, id)
		}
		ch := o.recs[entity][i]
		ch.updated = now
		ch.edits++
		o.recs[entity][i] = ch
		return nil
	})
}

// Delete implements fakeserver.Mutable: the record is gone from lists,
// searches and gets (404), as when Intercom deletes (or archives) it.
func (s *Server) Delete(entity, id string) error {
	return s.mutate(entity, func(o *overlay, _ int) error {
		i, ok := s.index(o, entity, id)
		if !ok {
			return fmt.Errorf("%w: %s %s", ErrNoRecord, entity, id)
		}
		ch := o.recs[entity][i]
		ch.deleted = true
		o.recs[entity][i] = ch
		o.dead[entity]++
		return nil
	})
}

// Clock implements fakeserver.Mutable.
func (s *Server) Clock() *fakeserver.Clock { return s.clock }
