package zendesktest

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

var _ fakeserver.Mutable = (*Server)(nil)

// mod is what Create, Update and Delete did to one record.
type mod struct {
	at      int64 // Unix seconds of the latest change (the new updated_at)
	born    int64 // Unix seconds of the creation, for created records
	rev     int   // updates so far; rewrites the searchable fields
	created bool
	deleted bool
}

// entOverlay holds the changes of one entity. It is never modified once
// published: a mutation publishes a changed copy.
type entOverlay struct {
	created int         // records created: generated indices gen .. gen+created-1
	mods    map[int]mod // by record index
	deleted []int       // indices of deleted records, sorted
	order   []int       // the indices of mods, sorted by (at, id): the export's tail

	liveOnce sync.Once
	liveIdx  []int // live indices, computed on first use; never modified
}

// overlay is the fake's changes, by entity.
type overlay struct {
	ents map[string]*entOverlay
}

// mutSpec describes one entity Create, Update and Delete change.
type mutSpec struct {
	gen     func(d *data) int          // generated records
	id      func(k int) int64          // id of index k
	index   func(id int64) (int, bool) // index of an id, unbounded
	changed func(k int) int64          // generated last-modified time of index k
}

var mutSpecs = map[string]mutSpec{
	"tickets": {gen: func(d *data) int { return d.tickets }, id: TicketID, changed: ticketUpdated,
		index: func(id int64) (int, bool) { k := id - FirstTicketID; return int(k), k >= 0 }},
	"users": {gen: func(d *data) int { return d.users }, id: UserID, changed: func(k int) int64 { return userCreated(k) + 86400 },
		index: func(id int64) (int, bool) { k := id - FirstUserID; return int(k / 2), k >= 0 && k%2 == 0 }},
	"organizations": {gen: func(d *data) int { return d.orgs }, id: OrganizationID, changed: func(k int) int64 { return orgCreated(k) + 7200 },
		index: func(id int64) (int, bool) { k := id - FirstOrganizationID; return int(k / 2), k >= 0 && k%2 == 0 }},
	"groups": {gen: func(*data) int { return numGroups }, id: GroupID, changed: func(k int) int64 { return fixedCreated(k) + 3600 },
		index: func(id int64) (int, bool) { k := id - groupBase; return int(k), k >= 0 }},
}

// mutableNames lists mutSpecs in a stable order.
var mutableNames = []string{"tickets", "users", "organizations", "groups"}

// ent returns entity name's changes, nil when it has none.
func (d *data) ent(name string) *entOverlay {
	ov := d.ov.Load()
	if ov == nil {
		return nil
	}
	return ov.ents[name]
}

// modOf returns what was done to record k of entity name.
func (d *data) modOf(name string, k int) (mod, bool) {
	e := d.ent(name)
	if e == nil {
		return mod{}, false
	}
	m, ok := e.mods[k]
	return m, ok
}

// count returns the number of records of a mutable entity, generated and
// created, deleted ones included.
func (d *data) count(name string) int {
	n := mutSpecs[name].gen(d)
	if e := d.ent(name); e != nil {
		n += e.created
	}
	return n
}

// alive reports whether record k of a mutable entity exists and is not
// deleted.
func (d *data) alive(name string, k int) bool {
	if k < 0 || k >= d.count(name) {
		return false
	}
	m, ok := d.modOf(name, k)
	return !ok || !m.deleted
}

// live returns the indices of a mutable entity's live records, or nil when
// nothing was created or deleted (then they are 0 .. generated-1). The
// slice is shared: callers must not modify it.
func (d *data) live(name string) []int {
	e := d.ent(name)
	if e == nil || (e.created == 0 && len(e.deleted) == 0) {
		return nil
	}
	e.liveOnce.Do(func() {
		n := d.count(name)
		e.liveIdx = make([]int, 0, n-len(e.deleted))
		j := 0
		for k := range n {
			if j < len(e.deleted) && e.deleted[j] == k {
				j++
				continue
			}
			e.liveIdx = append(e.liveIdx, k)
		}
	})
	return e.liveIdx
}

// all returns the indices of every record of a mutable entity (deleted
// ones too), or nil when nothing was created.
func (d *data) all(name string) []int {
	e := d.ent(name)
	if e == nil || e.created == 0 {
		return nil
	}
	out := make([]int, d.count(name))
	for k := range out {
		out[k] = k
	}
	return out
}

// selectLive applies a predicate on record indices to the live records,
// for filtered lists once records were created or deleted; nil when
// nothing was.
func (d *data) selectLive(name string, keep func(k int) bool) []int {
	live := d.live(name)
	if live == nil {
		return nil
	}
	out := make([]int, 0, len(live))
	for _, k := range live {
		if keep(k) {
			out = append(out, k)
		}
	}
	return out
}

// changedAt returns the last-modified time of record k and its id.
func (d *data) changedAt(name string, k int) (at, id int64) {
	sp := mutSpecs[name]
	if m, ok := d.modOf(name, k); ok {
		return m.at, sp.id(k)
	}
	return sp.changed(k), sp.id(k)
}

// commentsEntity is the mutable entity of ticket comments, which are not
// records of their own on Zendesk but parts of their ticket.
const commentsEntity = "ticket_comments"

// MutableEntities implements fakeserver.Mutable: tickets, users,
// organizations, groups and ticket_comments.
func (s *Server) MutableEntities() []string {
	return append(slices.Clone(mutableNames), commentsEntity)
}

// Clock implements fakeserver.Mutable: the clock that stamps changes and
// that the incremental exports read.
func (s *Server) Clock() *fakeserver.Clock { return s.clock }

// IDs implements fakeserver.Mutable: the ids of the live records in id
// order. Groups that are deleted (the generated group 5 and those Delete
// deleted) are left out, though the groups list shows them with
// "deleted": true unless exclude_deleted=true.
//
// For ticket_comments: the comments of the live tickets (a deleted
// ticket's comments are gone with it), generated ones in ticket order,
// then those added since, in the order they were added: id order.
func (s *Server) IDs(entity string) []string {
	if entity == commentsEntity {
		return s.d.commentIDs()
	}
	sp, ok := mutSpecs[entity]
	if !ok {
		return nil
	}
	d := s.d
	var out []string
	for k := range d.count(entity) {
		if !d.alive(entity, k) || (entity == "groups" && k == 5) {
			continue
		}
		out = append(out, strconv.FormatInt(sp.id(k), 10))
	}
	return out
}

// Create implements fakeserver.Mutable: a record like the generated ones,
// with the next id, created and updated now. A created ticket has its
// comments (two to four, as generated ones) and their audits, stamped now
// in the ticket events export.
//
// For ticket_comments, Create adds a comment with AddComment to the live
// tickets in turn: the n-th comment Create adds (counting from 0) goes to
// the live ticket at position n modulo their number, in id order. Use
// AddComment to choose the ticket.
func (s *Server) Create(entity string) (string, error) {
	if entity == commentsEntity {
		return s.createComment()
	}
	sp, ok := mutSpecs[entity]
	if !ok {
		return "", fmt.Errorf("zendesktest: %q is not a mutable entity (%v)", entity, mutableNames)
	}
	var id int64
	s.mutate(entity, func(e *entOverlay, now int64) {
		k := sp.gen(s.d) + e.created
		e.created++
		e.mods[k] = mod{at: now, born: now, created: true}
		id = sp.id(k)
		if entity == "tickets" {
			s.d.logTicketChange(evCreate, k, now, 0)
		}
	})
	return strconv.FormatInt(id, 10), nil
}

// Update implements fakeserver.Mutable: the record's name (tickets: subject
// and raw_subject) gains " (update N)" and its updated_at (tickets: also
// generated_timestamp) becomes now.
//
// Zendesk's comments cannot be edited, only redacted: for ticket_comments,
// Update redacts the comment (PUT
// /api/v2/tickets/{ticket_id}/comments/{id}/redact): its body, html_body
// and plain_body text becomes ▇ characters, one per character, in the
// comments list and the ticket events export alike, and its ticket's
// updated_at and generated_timestamp become now.
func (s *Server) Update(entity, id string) error {
	if entity == commentsEntity {
		return s.redactComment(id)
	}
	k, err := s.lookup(entity, id)
	if err != nil {
		return err
	}
	s.mutate(entity, func(e *entOverlay, now int64) {
		m := e.mods[k]
		m.at, m.rev = now, m.rev+1
		e.mods[k] = m
		if entity == "tickets" {
			s.d.logTicketChange(evUpdate, k, now, m.rev)
		}
	})
	return nil
}

// Delete implements fakeserver.Mutable as Zendesk deletes: the record
// leaves lists and gets (404), and the incremental exports show it changed
// now: a ticket with status "deleted", a user with active false, an
// organization with deleted_at set. A deleted group stays in the groups
// list and get with "deleted": true, as on Zendesk; exclude_deleted=true
// leaves it out.
//
// Zendesk has no way to delete a comment (redact it, or delete its
// ticket): Delete of ticket_comments fails. A deleted ticket's comments
// go with it: its comments list answers 404, and IDs leaves them out.
func (s *Server) Delete(entity, id string) error {
	if entity == commentsEntity {
		return fmt.Errorf("zendesktest: Zendesk comments cannot be deleted (Update redacts one; deleting its ticket removes it)")
	}
	k, err := s.lookup(entity, id)
	if err != nil {
		return err
	}
	s.mutate(entity, func(e *entOverlay, now int64) {
		m := e.mods[k]
		m.at, m.deleted = now, true
		e.mods[k] = m
		if entity == "tickets" {
			s.d.logTicketChange(evDelete, k, now, 0)
		}
		i, _ := slices.BinarySearch(e.deleted, k)
		e.deleted = slices.Insert(e.deleted, i, k)
	})
	return nil
}

// lookup resolves the id of a live record of a mutable entity.
func (s *Server) lookup(entity, id string) (int, error) {
	sp, ok := mutSpecs[entity]
	if !ok {
		return 0, fmt.Errorf("zendesktest: %q is not a mutable entity (%v)", entity, mutableNames)
	}
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("zendesktest: %s id %q: %w", entity, id, err)
	}
	k, ok := sp.index(n)
	if !ok || !s.d.alive(entity, k) {
		return 0, fmt.Errorf("zendesktest: no live %s with id %s", entity, id)
	}
	return k, nil
}

// mutate publishes a copy of the overlay with entity changed by f at the
// clock's time.
func (s *Server) mutate(entity string, f func(e *entOverlay, now int64)) {
	s.mutMu.Lock()
	defer s.mutMu.Unlock()
	now := s.clock.Now().Unix()
	old := s.d.ov.Load()
	next := &overlay{ents: map[string]*entOverlay{}}
	if old != nil {
		for k, v := range old.ents {
			next.ents[k] = v
		}
	}
	e := &entOverlay{mods: map[int]mod{}}
	if cur := next.ents[entity]; cur != nil {
		e.created = cur.created
		for k, v := range cur.mods {
			e.mods[k] = v
		}
		e.deleted = slices.Clone(cur.deleted)
	}
	f(e, now)
	sp := mutSpecs[entity]
	e.order = e.order[:0]
	for k := range e.mods {
		e.order = append(e.order, k)
	}
	sort.Slice(e.order, func(i, j int) bool {
		a, b := e.mods[e.order[i]], e.mods[e.order[j]]
		if a.at != b.at {
			return a.at < b.at
		}
		return sp.id(e.order[i]) < sp.id(e.order[j])
	})
	next.ents[entity] = e
	s.d.ov.Store(next)
}

// latestGenerated returns the latest last-modified time of the generated
// records of the mutable entities.
func latestGenerated(d *data) int64 {
	var latest int64
	for _, name := range mutableNames {
		sp := mutSpecs[name]
		if n := sp.gen(d); n > 0 {
			latest = max(latest, sp.changed(n-1))
		}
	}
	return latest
}

// defaultClock starts at the current time truncated to the second, or just
// after the newest generated record when that is later.
func defaultClock(d *data) *fakeserver.Clock {
	start := time.Now().UTC().Truncate(time.Second)
	if l := time.Unix(latestGenerated(d)+3600, 0).UTC(); l.After(start) {
		start = l
	}
	return fakeserver.NewClock(start)
}
