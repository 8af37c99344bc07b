package salesforcetest

import (
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// The fake's records are generated from their index; what a test changes
// (fakeserver.Mutable) lives in an overlay on top of them. The overlay is
// copy-on-write: a request takes the current one under the server's lock
// and reads it without locking, and a mutation installs a new one, so that
// a query's pages render the records as they were when it ran.

// overlay holds the records created, updated and deleted at the fake's
// clock.
type overlay struct {
	created [numObjects]int             // records added after the generated ones
	changed [numObjects]map[int]*change // record index -> its changes
	deleted [numObjects]int             // records deleted
	touched [numObjects]bool            // any record of the object changed
}

// change is what a mutation did to one record: field values that replace
// the generated ones, and whether the record is deleted.
type change struct {
	vals    map[int]any // field index -> value
	deleted bool
}

// value returns field k of record i of o as the record reads now.
func (c *gctx) value(o *object, k, i int) any {
	if c.ov != nil {
		if ch := c.ov.changed[o.idx][i]; ch != nil {
			if v, ok := ch.vals[k]; ok {
				return v
			}
		}
	}
	return o.fields[k].gen(c, i)
}

// total returns the number of records of obj, created ones included and
// deleted ones counted too (see live).
func (c *gctx) total(obj int) int {
	n := c.d.counts[obj]
	if c.ov != nil {
		n += c.ov.created[obj]
	}
	return n
}

// live reports whether record i of obj exists and is not deleted.
func (c *gctx) live(obj, i int) bool {
	if i < 0 || i >= c.total(obj) {
		return false
	}
	if c.ov != nil {
		if ch := c.ov.changed[obj][i]; ch != nil && ch.deleted {
			return false
		}
	}
	return true
}

// hasDeleted reports whether obj has deleted records.
func (c *gctx) hasDeleted(obj int) bool { return c.ov != nil && c.ov.deleted[obj] > 0 }

// touched reports whether any record of obj was changed, so that its
// timestamps no longer follow the record index.
func (c *gctx) touched(obj int) bool { return c.ov != nil && c.ov.touched[obj] }

// mutable maps the entities whose records change to their objects, with
// the searchable field an update rewrites.
var mutable = []struct {
	entity string
	obj    int
	field  string
}{
	{"accounts", objAccount, "Description"},
	{"contacts", objContact, "Title"},
	{"leads", objLead, "Title"},
	{"opportunities", objOpportunity, "NextStep"},
	{"tasks", objTask, "Subject"},
}

var _ fakeserver.Mutable = (*Server)(nil)

// MutableEntities implements fakeserver.Mutable: accounts, contacts,
// leads, opportunities and tasks.
func (s *Server) MutableEntities() []string {
	out := make([]string, len(mutable))
	for k, m := range mutable {
		out[k] = m.entity
	}
	return out
}

// Clock implements fakeserver.Mutable: the clock that stamps creates,
// updates and deletes (see WithClock).
func (s *Server) Clock() *fakeserver.Clock { return s.clock }

func (s *Server) mutableObject(entity string) (*object, string, error) {
	for _, m := range mutable {
		if m.entity == entity {
			return s.schema.objects[m.obj], m.field, nil
		}
	}
	return nil, "", fmt.Errorf("salesforcetest: %q is not a mutable entity (%v)", entity, s.MutableEntities())
}

// snapshot returns the overlay requests read now.
func (s *Server) snapshot() *overlay {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ov
}

func (s *Server) ctx(version string) *gctx {
	return &gctx{d: &s.cfg.data, s: s.schema, version: version, ov: s.snapshot()}
}

// IDs implements fakeserver.Mutable: the ids of entity's live records in
// index order (the order of ORDER BY Id).
func (s *Server) IDs(entity string) []string {
	o, _, err := s.mutableObject(entity)
	if err != nil {
		return nil
	}
	c := s.ctx("")
	var out []string
	for i := range c.total(o.idx) {
		if c.live(o.idx, i) {
			out = append(out, makeID(o.prefix, i))
		}
	}
	return out
}

// mutate installs a copy of the overlay in which record i of o has the
// changes f makes; i < 0 appends a new record. It returns the record's
// index.
func (s *Server) mutate(o *object, i int, f func(ov *overlay, ch *change)) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i < 0 {
		i = s.cfg.data.counts[o.idx] + s.ov.created[o.idx]
	}
	ov := &overlay{created: s.ov.created, deleted: s.ov.deleted, touched: s.ov.touched}
	for k := range ov.changed {
		ov.changed[k] = s.ov.changed[k]
	}
	m := maps.Clone(ov.changed[o.idx])
	if m == nil {
		m = map[int]*change{}
	}
	ch := &change{vals: map[int]any{}}
	if old := m[i]; old != nil {
		ch.vals, ch.deleted = maps.Clone(old.vals), old.deleted
	}
	f(ov, ch)
	m[i] = ch
	ov.changed[o.idx] = m
	ov.touched[o.idx] = true
	s.ov = ov
	return i
}

// stamp sets the record's last-modified fields to t.
func stamp(o *object, ch *change, t time.Time, fields ...string) {
	for _, name := range append(fields, "LastModifiedDate", "SystemModstamp") {
		if k, ok := o.field(name); ok {
			ch.vals[k] = t
		}
	}
}

// Create implements fakeserver.Mutable: it adds a record to entity, with
// every field of the object (generated like the others) and CreatedDate,
// LastModifiedDate and SystemModstamp at the clock's time.
func (s *Server) Create(entity string) (string, error) {
	o, _, err := s.mutableObject(entity)
	if err != nil {
		return "", err
	}
	t := s.clock.Now().UTC()
	i := s.mutate(o, -1, func(ov *overlay, ch *change) {
		ov.created[o.idx]++
		stamp(o, ch, t, "CreatedDate")
	})
	return makeID(o.prefix, i), nil
}

// find resolves id to a live record of o.
func (s *Server) find(o *object, id string) (int, error) {
	i, ok := parseID(o.prefix, to18(id))
	if !ok || !s.ctx("").live(o.idx, i) {
		return 0, fmt.Errorf("salesforcetest: no live %s %q", o.name, id)
	}
	return i, nil
}

// Update implements fakeserver.Mutable: it rewrites a searchable field
// (Account Description, Contact and Lead Title, Opportunity NextStep, Task
// Subject) and sets LastModifiedDate and SystemModstamp to the clock's
// time.
func (s *Server) Update(entity, id string) error {
	o, name, err := s.mutableObject(entity)
	if err != nil {
		return err
	}
	i, err := s.find(o, id)
	if err != nil {
		return err
	}
	t := s.clock.Now().UTC()
	k, _ := o.field(name)
	s.mutate(o, i, func(ov *overlay, ch *change) {
		s.updates++
		note := "updated " + strconv.Itoa(s.updates)
		old, _ := (&gctx{d: &s.cfg.data, s: s.schema, ov: s.ov}).value(o, k, i).(string)
		if old != "" {
			note = old + " (" + note + ")"
		}
		ch.vals[k] = note
		stamp(o, ch, t)
	})
	return nil
}

// Delete implements fakeserver.Mutable: the record moves to the recycle
// bin, as Salesforce's delete does: IsDeleted true and SystemModstamp and
// LastModifiedDate at the clock's time; /query, /search and
// /sobjects/{Object}/{id} no longer show it, /queryAll does.
func (s *Server) Delete(entity, id string) error {
	o, _, err := s.mutableObject(entity)
	if err != nil {
		return err
	}
	i, err := s.find(o, id)
	if err != nil {
		return err
	}
	t := s.clock.Now().UTC()
	k, _ := o.field("IsDeleted")
	s.mutate(o, i, func(ov *overlay, ch *change) {
		ch.deleted = true
		ch.vals[k] = true
		ov.deleted[o.idx]++
		stamp(o, ch, t)
	})
	return nil
}

// latestGenerated returns a time after every timestamp of the generated
// records (their audit fields and last-viewed dates), so that a default
// clock starts after them.
func latestGenerated(d *dataset) time.Time {
	var latest time.Time
	for obj := range numObjects {
		if n := d.counts[obj]; n > 0 {
			if t := stampAt(obj, n-1).Add(2 * time.Hour); t.After(latest) {
				latest = t
			}
		}
	}
	return latest.Truncate(time.Second)
}
