package asanatest

import (
	"fmt"
	"slices"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// MutableEntities implements fakeserver.Mutable.
func (s *Server) MutableEntities() []string { return []string{"projects", "tasks"} }

// Clock implements fakeserver.Mutable.
func (s *Server) Clock() *fakeserver.Clock { return s.clock }

// IDs implements fakeserver.Mutable: the gids of the live projects, or
// of the live tasks in projects (subtasks left out), in creation order.
func (s *Server) IDs(entity string) []string {
	switch entity {
	case "projects":
		return s.projects.IDs()
	case "tasks":
		var out []string
		for _, r := range s.tasks.Rows(nil) {
			if r.Rec["parent"] == nil {
				out = append(out, r.ID)
			}
		}
		return out
	}
	return nil
}

// Create implements fakeserver.Mutable: a project (with three sections),
// or a task in the first project, with an attachment, an "added" event
// of it.
func (s *Server) Create(entity string) (string, error) {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	switch entity {
	case "projects":
		team, _ := s.teams.Live(gid(kTeam, 0))
		return s.putProject(len(s.projects.Rows(func(rowOf) bool { return true })), team, now)["gid"].(string), nil
	case "tasks":
		ps := s.projects.Rows(nil)
		if len(ps) == 0 {
			return "", fmt.Errorf("asanatest: no project to add a task to")
		}
		p := ps[0].Rec
		secs := s.sections.Rows(func(r rowOf) bool { return !r.Deleted && r.Rec["project"].(obj)["gid"] == p["gid"] })
		t := s.newTask(gid(kTask, s.nextTask), "New task", p, secs[0].Rec, now)
		s.nextTask++
		s.tasks.Put(t["gid"].(string), t, now)
		// With an attachment, so that the copies of attachments have
		// something to hold after their first tasks are deleted.
		s.putAttachment(t, len(s.attachments.Rows(func(rowOf) bool { return true })), now)
		s.event(t, "added", nil)
		return t["gid"].(string), nil
	}
	return "", fmt.Errorf("asanatest: cannot create %s", entity)
}

// Update implements fakeserver.Mutable: a project's or task's name (and
// a task's notes) change, modified now; a task's, a "changed" event.
func (s *Server) Update(entity, id string) error {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	t := &s.tasks
	if entity == "projects" {
		t = &s.projects
	} else if entity != "tasks" {
		return fmt.Errorf("asanatest: cannot update %s", entity)
	}
	var rec obj
	ok := t.Update(id, now, func(r *obj) {
		c := clone(*r)
		c["name"], c["modified_at"] = fmt.Sprintf("%s (edited %s)", c["name"], now.Format("15:04:05")), stamp(now)
		if entity == "tasks" {
			c["notes"] = fmt.Sprintf("Edited at %s.", stamp(now))
		}
		*r, rec = c, c
	})
	if !ok {
		return fmt.Errorf("asanatest: no %s %s", entity, id)
	}
	if entity == "tasks" {
		s.event(rec, "changed", obj{"field": "name", "action": "changed"})
	}
	return nil
}

// Delete implements fakeserver.Mutable: a task is deleted with its
// subtasks (a "deleted" event in each of its projects); a project is
// deleted with the tasks that were only in it, as Asana does, and leaves
// the other projects of the tasks it shared (their modified_at does not
// move: Asana's does not for a change of container).
func (s *Server) Delete(entity, id string) error {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	switch entity {
	case "tasks":
		rec, ok := s.tasks.Live(id)
		if !ok {
			return fmt.Errorf("asanatest: no task %s", id)
		}
		s.deleteTask(id, now)
		s.event(rec, "deleted", nil)
		return nil
	case "projects":
		if !s.projects.Delete(id, now) {
			return fmt.Errorf("asanatest: no project %s", id)
		}
		for _, r := range s.tasks.Rows(nil) {
			ps := r.Rec["projects"].([]any)
			in := slices.IndexFunc(ps, func(p any) bool { return p.(obj)["gid"] == id })
			switch {
			case in < 0:
			case len(ps) == 1:
				s.deleteTask(r.ID, now)
			default:
				s.tasks.Update(r.ID, r.Modified, func(t *obj) {
					c := clone(*t)
					c["projects"] = slices.Delete(slices.Clone(ps), in, in+1)
					c["memberships"] = slices.DeleteFunc(slices.Clone(c["memberships"].([]any)), func(m any) bool { return m.(obj)["project"].(obj)["gid"] == id })
					*t = c
				})
			}
		}
		delete(s.events, id)
		return nil
	}
	return fmt.Errorf("asanatest: cannot delete %s", entity)
}

// AddToProject adds task to project, in its first section, as a person
// moving or multi-homing a task in Asana: an "added" event of the
// project, and, as in Asana, the task's modified_at does not move (a
// change of container is not an edit of the task).
func (s *Server) AddToProject(task, project string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.projects.Live(project)
	if !ok {
		return fmt.Errorf("asanatest: no project %s", project)
	}
	row, ok := s.tasks.Get(task)
	if !ok || row.Deleted {
		return fmt.Errorf("asanatest: no task %s", task)
	}
	rec := row.Rec
	if slices.ContainsFunc(rec["projects"].([]any), func(x any) bool { return x.(obj)["gid"] == project }) {
		return fmt.Errorf("asanatest: task %s is in project %s already", task, project)
	}
	secs := s.sections.Rows(func(r rowOf) bool { return !r.Deleted && r.Rec["project"].(obj)["gid"] == project })
	var sec any
	if len(secs) > 0 {
		sec = ref(secs[0].Rec)
	}
	s.tasks.Update(task, row.Modified, func(t *obj) {
		c := clone(*t)
		c["projects"] = append(slices.Clone(c["projects"].([]any)), ref(p))
		c["memberships"] = append(slices.Clone(c["memberships"].([]any)), obj{"project": ref(p), "section": sec})
		*t, rec = c, c
	})
	s.logEvent(project, rec, "added", ref(p), nil)
	return nil
}

// RemoveFromProject takes task out of project (it stays in its other
// projects, or in none): a "removed" event of the project, the task's
// modified_at unmoved, as in Asana.
func (s *Server) RemoveFromProject(task, project string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	row, ok := s.tasks.Get(task)
	if !ok || row.Deleted {
		return fmt.Errorf("asanatest: no task %s", task)
	}
	rec := row.Rec
	in := func(x any) bool { return x.(obj)["gid"] == project }
	i := slices.IndexFunc(rec["projects"].([]any), in)
	if i < 0 {
		return fmt.Errorf("asanatest: task %s is not in project %s", task, project)
	}
	p := rec["projects"].([]any)[i]
	s.tasks.Update(task, row.Modified, func(t *obj) {
		c := clone(*t)
		c["projects"] = slices.DeleteFunc(slices.Clone(c["projects"].([]any)), in)
		c["memberships"] = slices.DeleteFunc(slices.Clone(c["memberships"].([]any)), func(m any) bool { return in(m.(obj)["project"]) })
		*t, rec = c, c
	})
	s.logEvent(project, rec, "removed", p, nil)
	return nil
}

// MoveToProject moves task from one project to another, as Asana's "move
// to project": "added" on the new project, "removed" on the old one,
// and the task's modified_at unmoved.
func (s *Server) MoveToProject(task, from, to string) error {
	if err := s.AddToProject(task, to); err != nil {
		return err
	}
	return s.RemoveFromProject(task, from)
}

// deleteTask deletes task id and, as Asana does, its subtasks; s.mu held.
func (s *Server) deleteTask(id string, now time.Time) {
	s.tasks.Delete(id, now)
	for _, r := range s.tasks.Rows(nil) {
		if p, _ := r.Rec["parent"].(obj); p != nil && p["gid"] == id {
			s.deleteTask(r.ID, now)
		}
	}
}

// event logs an event of task t in each of its projects; s.mu held.
func (s *Server) event(t obj, action string, change obj) {
	for _, p := range t["projects"].([]any) {
		var parent any = p
		if action == "deleted" {
			parent = nil
		}
		s.logEvent(p.(obj)["gid"].(string), t, action, parent, change)
	}
}

// logEvent appends an event of task t to project pg's log; s.mu held.
func (s *Server) logEvent(pg string, t obj, action string, parent any, change obj) {
	me := s.me()
	e := obj{"user": obj{"gid": me["gid"], "resource_type": "user", "name": me["name"]}, "created_at": stamp(s.clock.Now()), "type": "task",
		"action": action, "resource": obj{"gid": t["gid"], "resource_type": "task", "name": t["name"]}, "parent": parent}
	if change != nil {
		e["change"] = change
	}
	s.events[pg] = append(s.events[pg], e)
}
