package jiratest

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// ErrNoRecord is returned by Update and Delete for an id with no live
// record, and by Create for an entity that is not mutable.
var ErrNoRecord = errors.New("jiratest: no such record")

// MutableEntities implements fakeserver.Mutable.
func (s *Server) MutableEntities() []string {
	return []string{"issues", "issue_comments", "issue_worklogs"}
}

// Clock implements fakeserver.Mutable.
func (s *Server) Clock() *fakeserver.Clock { return s.clock }

// IDs implements fakeserver.Mutable: the live ids, in creation order.
func (s *Server) IDs(entity string) []string {
	switch entity {
	case "issues":
		return s.issues.IDs()
	case "issue_comments":
		return s.comments.IDs()
	case "issue_worklogs":
		return s.worklogs.IDs()
	}
	return nil
}

func (s *Server) now() time.Time { return s.clock.Now().Truncate(time.Millisecond) }

// Create implements fakeserver.Mutable: a new issue (in the first
// project), or a comment or worklog on the first live issue.
func (s *Server) Create(entity string) (string, error) {
	if entity == "issues" {
		s.mu.Lock()
		defer s.mu.Unlock()
		now := s.now()
		num := 0
		for _, row := range s.issues.Rows(func(fakeserver.Row[issue]) bool { return true }) {
			if row.Rec.Project == 0 {
				num = max(num, row.Rec.Num)
			}
		}
		is := issue{ID: s.nextID, Num: num + 1, Summary: fmt.Sprintf("Created issue %d", s.nextID), Assignee: -1, Labels: []string{"new"}, Created: now, Updated: now}
		s.nextID++
		id := strconv.Itoa(is.ID)
		s.issues.Put(id, is, now)
		s.keys[s.key(is)] = id
		return id, nil
	}
	ids := s.issues.IDs()
	if len(ids) == 0 {
		return "", fmt.Errorf("%w: no live issue to add a %s to", ErrNoRecord, entity)
	}
	return s.AddTo(entity, ids[0])
}

// AddTo adds a comment or worklog to the issue issueID, which changes the
// issue; it returns the new record's id.
func (s *Server) AddTo(entity, issueID string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	var id string
	ok := s.issues.Update(issueID, now, func(is *issue) {
		is.Updated = now
		n := s.nextID + 100000
		s.nextID++
		id = strconv.Itoa(n)
		switch entity {
		case "issue_comments":
			s.comments.Put(id, comment{ID: n, Issue: is.ID, Author: 1, Body: "A new comment", Created: now, Updated: now}, now)
			is.Comments = append(is.Comments, id)
		case "issue_worklogs":
			s.worklogs.Put(id, worklog{ID: n, Issue: is.ID, Author: 1, Started: now.Add(-time.Hour), Seconds: 3600, Comment: "Logged", Created: now, Updated: now}, now)
			is.Worklogs = append(is.Worklogs, id)
			is.TimeSpent += 3600
		default:
			id = ""
		}
	})
	if !ok || id == "" {
		return "", fmt.Errorf("%w: %s on issue %s", ErrNoRecord, entity, issueID)
	}
	return id, nil
}

// Update implements fakeserver.Mutable: an issue's summary, a comment's
// body or a worklog's time changes, and so does the issue's updated.
func (s *Server) Update(entity, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	switch entity {
	case "issues":
		if s.issues.Update(id, now, func(is *issue) { is.Summary += " (edited)"; is.Updated = now }) {
			return nil
		}
	case "issue_comments":
		var parent int
		if s.comments.Update(id, now, func(c *comment) { c.Body += " (edited)"; c.Updated, parent = now, c.Issue }) {
			s.touch(parent, now, nil)
			return nil
		}
	case "issue_worklogs":
		var parent int
		if s.worklogs.Update(id, now, func(wl *worklog) { wl.Seconds += 60; wl.Updated, parent = now, wl.Issue }) {
			s.touch(parent, now, func(is *issue) { is.TimeSpent += 60 })
			return nil
		}
	}
	return fmt.Errorf("%w: %s %s", ErrNoRecord, entity, id)
}

// touch marks issue n changed at now, after fn.
func (s *Server) touch(n int, now time.Time, fn func(*issue)) {
	s.issues.Update(strconv.Itoa(n), now, func(is *issue) {
		if fn != nil {
			fn(is)
		}
		is.Updated = now
	})
}

// Delete implements fakeserver.Mutable: a deleted issue is gone from every
// search and get, with its comments and worklogs (the worklogs then in
// worklog/deleted); a deleted comment or worklog changes its issue.
func (s *Server) Delete(entity, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	switch entity {
	case "issues":
		is, ok := s.issues.Live(id)
		if ok && s.issues.Delete(id, now) {
			for _, c := range is.Comments {
				s.comments.Delete(c, now)
			}
			for _, wl := range is.Worklogs {
				s.worklogs.Delete(wl, now)
			}
			return nil
		}
	case "issue_comments":
		if c, ok := s.comments.Live(id); ok && s.comments.Delete(id, now) {
			s.touch(c.Issue, now, func(is *issue) { is.Comments = slices.DeleteFunc(is.Comments, func(x string) bool { return x == id }) })
			return nil
		}
	case "issue_worklogs":
		if wl, ok := s.worklogs.Live(id); ok && s.worklogs.Delete(id, now) {
			s.touch(wl.Issue, now, func(is *issue) {
				is.Worklogs = slices.DeleteFunc(is.Worklogs, func(x string) bool { return x == id })
				is.TimeSpent -= wl.Seconds
			})
			return nil
		}
	}
	return fmt.Errorf("%w: %s %s", ErrNoRecord, entity, id)
}
