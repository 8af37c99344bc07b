package lineartest

import (
	"fmt"
	"maps"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

var _ fakeserver.Mutable = (*Server)(nil)

// MutableEntities lists the catalogue entities Create, Update and Delete
// change: all of them.
func (s *Server) MutableEntities() []string {
	out := make([]string, len(s.d.kinds))
	for i, k := range s.d.kinds {
		out[i] = k.entity
	}
	return out
}

func (s *Server) mutable(entity string) (*kind, error) {
	k := s.d.kind(entity)
	if k == nil || k.entity != entity {
		return nil, fmt.Errorf("lineartest: no entity %q (%v)", entity, s.MutableEntities())
	}
	return k, nil
}

// IDs returns the ids of an entity's live records (neither archived,
// trashed, deleted nor suspended), in creation order.
func (s *Server) IDs(entity string) []string {
	k, err := s.mutable(entity)
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range k.table.Rows(nil) {
		if r.Rec["archivedAt"] == nil && r.Rec["active"] != false {
			out = append(out, r.ID)
		}
	}
	return out
}

// Create adds a record to entity, created now, and returns its id.
func (s *Server) Create(entity string) (string, error) {
	k, err := s.mutable(entity)
	if err != nil {
		return "", err
	}
	now := s.clock.Now()
	s.d.mu.Lock()
	i := k.count
	k.count++
	s.d.mu.Unlock()
	rec := k.gen(s.d, i, now)
	rec["updatedAt"], rec["archivedAt"] = stamp(now), nil
	if rec["trashed"] == true {
		rec["trashed"] = nil
	}
	k.table.Put(rec["id"].(string), rec, now)
	k.changed()
	return rec["id"].(string), nil
}

// Update changes the record's main text (an issue's title, a comment's
// body, ...) and sets its updatedAt to now.
func (s *Server) Update(entity, id string) error {
	return s.change(entity, id, func(r record) { r[s.d.kind(entity).text] = fmt.Sprint(r[s.d.kind(entity).text], " (edited)") })
}

// Delete deletes a record as Linear does: an issue or a project goes to
// the trash (trashed, archived), a comment, an attachment or a label is
// deleted outright (gone from every list and get), a user is suspended
// (active false: listed only with includeDisabled), another record is
// archived. updatedAt moves to now.
func (s *Server) Delete(entity, id string) error {
	if entity == "comments" || entity == "attachments" || entity == "labels" {
		k, err := s.mutable(entity)
		if err != nil {
			return err
		}
		if r, ok := k.table.Live(id); !ok || r["archivedAt"] != nil {
			return fmt.Errorf("lineartest: no live %s %q", entity, id)
		}
		k.table.Delete(id, s.clock.Now())
		k.changed()
		return nil
	}
	return s.change(entity, id, func(r record) {
		switch entity {
		case "users":
			r["active"] = false
			return
		case "issues", "projects":
			r["trashed"] = true
		}
		r["archivedAt"] = r["updatedAt"]
	})
}

// change replaces a live record with a changed copy (readers of the old
// one are not disturbed), updated now.
func (s *Server) change(entity, id string, fn func(record)) error {
	k, err := s.mutable(entity)
	if err != nil {
		return err
	}
	now := s.clock.Now()
	live := false
	k.table.Update(id, now, func(r *record) {
		if (*r)["archivedAt"] != nil || (*r)["active"] == false {
			return
		}
		live = true
		c := maps.Clone(*r)
		c["updatedAt"] = stamp(now)
		fn(c)
		*r = c
	})
	if !live {
		return fmt.Errorf("lineartest: no live %s %q", entity, id)
	}
	k.changed()
	return nil
}

// changed moves the kind's version on: the cached orders are stale.
func (k *kind) changed() {
	k.mu.Lock()
	k.version++
	k.mu.Unlock()
}
