package hubspottest

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

var _ fakeserver.Mutable = (*Server)(nil)

// WithClock sets the fake's clock: the time of every Create, Update and
// Delete. The default is a clock that starts at the time New runs,
// truncated to the second, and moves only when advanced. Generated records
// are modified before it (in the years since 2018).
func WithClock(c *fakeserver.Clock) Option { return func(cfg *config) { cfg.clock = c } }

// ErrNoRecord is returned by Update and Delete for an id that is not a
// live record of the entity, and by all three for an entity that is not
// mutable.
var ErrNoRecord = errors.New("hubspottest: no such live record")

// editedProperty is, per mutable object type, the searchable property
// Update changes.
var editedProperty = map[string]string{
	"contacts": "firstname", "companies": "name", "deals": "dealname", "tickets": "subject",
}

// change is what mutations did to one record; it is never modified once
// published (mutations replace it).
type change struct {
	created   time.Time // zero: as generated
	updated   time.Time // zero: as generated
	deletedAt time.Time // zero: live
	props     map[string]*string
	edits     int
}

// overlay holds the mutations of a dataset. Readers check active first,
// so that a fake nobody mutates pays nothing.
type overlay struct {
	active atomic.Bool
	mu     sync.RWMutex
	extra  map[*objectType]int            // records created, by type
	recs   map[*objectType]map[int]change // by type and record index
	dead   map[*objectType][]int          // deleted record indexes, ascending
}

func (d *dataset) change(r ref) (change, bool) {
	if r.archived || !d.ov.active.Load() {
		return change{}, false
	}
	d.ov.mu.RLock()
	ch, ok := d.ov.recs[r.t][r.i]
	d.ov.mu.RUnlock()
	return ch, ok
}

// total is how many records of t exist, generated and created, deleted
// ones included.
func (d *dataset) total(t *objectType) int {
	n := d.count(t)
	if d.ov.active.Load() {
		d.ov.mu.RLock()
		n += d.ov.extra[t]
		d.ov.mu.RUnlock()
	}
	return n
}

// deleted reports whether live record r was deleted (archived).
func (d *dataset) deleted(r ref) bool {
	ch, ok := d.change(r)
	return ok && !ch.deletedAt.IsZero()
}

// anyDeleted reports whether a record of t was deleted.
func (d *dataset) anyDeleted(t *objectType) bool {
	if !d.ov.active.Load() {
		return false
	}
	d.ov.mu.RLock()
	defer d.ov.mu.RUnlock()
	return len(d.ov.dead[t]) > 0
}

// deletedRefs returns t's deleted records in id order.
func (d *dataset) deletedRefs(t *objectType) []ref {
	if !d.ov.active.Load() {
		return nil
	}
	d.ov.mu.RLock()
	defer d.ov.mu.RUnlock()
	out := make([]ref, len(d.ov.dead[t]))
	for k, i := range d.ov.dead[t] {
		out[k] = ref{t: t, i: i}
	}
	return out
}

// overridable wraps a property generator so that Update's values win.
func overridable(name string, fn propFn) propFn {
	return func(d *dataset, r ref) *string {
		if ch, ok := d.change(r); ok {
			if v, ok := ch.props[name]; ok {
				return v
			}
		}
		return fn(d, r)
	}
}

// mutate applies f to the overlay under its lock and forgets cached
// search matches.
func (d *dataset) mutate(f func(o *overlay) error) error {
	d.ov.mu.Lock()
	err := f(&d.ov)
	d.ov.active.Store(true)
	d.ov.mu.Unlock()
	d.mu.Lock()
	d.cache = nil
	d.gen++
	d.mu.Unlock()
	return err
}

// MutableEntities implements fakeserver.Mutable: contacts, companies,
// deals and tickets.
func (s *Server) MutableEntities() []string {
	return []string{"contacts", "companies", "deals", "tickets"}
}

func (s *Server) mutableType(entity string) (*objectType, error) {
	if _, ok := editedProperty[entity]; !ok {
		return nil, fmt.Errorf("%w: %s is not a mutable entity", ErrNoRecord, entity)
	}
	return s.data.typ(entity), nil
}

// IDs implements fakeserver.Mutable: the ids of entity's live records, in
// id order (the order the list serves them in).
func (s *Server) IDs(entity string) []string {
	t := s.data.resolve(entity)
	if t == nil {
		return nil
	}
	var out []string
	for i, n := 0, s.data.total(t); i < n; i++ {
		if r := (ref{t: t, i: i}); !s.data.deleted(r) {
			out = append(out, r.id())
		}
	}
	return out
}

// Create implements fakeserver.Mutable: a new record, with every property
// a generated record has, created and modified now.
func (s *Server) Create(entity string) (string, error) {
	t, err := s.mutableType(entity)
	if err != nil {
		return "", err
	}
	now := s.clock.Now().UTC().Truncate(time.Millisecond)
	var id string
	err = s.data.mutate(func(o *overlay) error {
		i := s.data.count(t) + o.extra[t]
		o.extra[t]++
		if o.recs[t] == nil {
			o.recs[t] = map[int]change{}
		}
		o.recs[t][i] = change{created: now, updated: now}
		id = ref{t: t, i: i}.id()
		return nil
	})
	return id, err
}

// index finds the live record of t with id; false when there is none.
func (s *Server) index(o *overlay, t *objectType, id string) (int, bool) {
	num, err := strconv.ParseInt(id, 10, 64)
	if err != nil || num <= t.idBase || num > t.idBase+int64(s.data.count(t)+o.extra[t]) {
		return 0, false
	}
	i := int(num - t.idBase - 1)
	return i, o.recs[t][i].deletedAt.IsZero()
}

// Update implements fakeserver.Mutable: it changes the record's main text
// property (contacts' firstname, companies' name, deals' dealname,
// tickets' subject) and sets its last-modified time (updatedAt and the
// last-modified property) to now.
func (s *Server) Update(entity, id string) error {
	t, err := s.mutableType(entity)
	if err != nil {
		return err
	}
	now := s.clock.Now().UTC().Truncate(time.Millisecond)
	prop := editedProperty[entity]
	base := t.raw[prop]
	return s.data.mutate(func(o *overlay) error {
		i, ok := s.index(o, t, id)
		if !ok {
			return fmt.Errorf("%w: %s %s", ErrNoRecord, entity, id)
		}
		ch := o.recs[t][i]
		ch.edits++
		ch.updated = now
		ch.props = maps.Clone(ch.props)
		if ch.props == nil {
			ch.props = map[string]*string{}
		}
		v := fmt.Sprintf("Edited %d", ch.edits)
		if orig := base(s.data, ref{t: t, i: i}); orig != nil {
			v = fmt.Sprintf("%s (edit %d)", *orig, ch.edits)
		}
		ch.props[prop] = &v
		if o.recs[t] == nil {
			o.recs[t] = map[int]change{}
		}
		o.recs[t][i] = ch
		return nil
	})
}

// Delete implements fakeserver.Mutable as HubSpot archives: the record is
// gone from lists, searches and gets, and listed (and got) with
// archived=true, with archived true and archivedAt now.
func (s *Server) Delete(entity, id string) error {
	t, err := s.mutableType(entity)
	if err != nil {
		return err
	}
	now := s.clock.Now().UTC().Truncate(time.Millisecond)
	return s.data.mutate(func(o *overlay) error {
		i, ok := s.index(o, t, id)
		if !ok {
			return fmt.Errorf("%w: %s %s", ErrNoRecord, entity, id)
		}
		ch := o.recs[t][i]
		ch.deletedAt = now
		if o.recs[t] == nil {
			o.recs[t] = map[int]change{}
		}
		o.recs[t][i] = ch
		k, _ := slices.BinarySearch(o.dead[t], i)
		o.dead[t] = slices.Insert(o.dead[t], k, i)
		return nil
	})
}

// Clock implements fakeserver.Mutable.
func (s *Server) Clock() *fakeserver.Clock { return s.clock }
