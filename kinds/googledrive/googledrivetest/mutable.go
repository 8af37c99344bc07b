package googledrivetest

import (
	"errors"
	"fmt"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// ErrNoRecord is returned by Update, Delete and Trash for an id with no
// live file, and by Create for an entity that is not mutable.
var ErrNoRecord = errors.New("googledrivetest: no such record")

// MutableEntities implements fakeserver.Mutable.
func (s *Server) MutableEntities() []string { return []string{"files"} }

// Clock implements fakeserver.Mutable.
func (s *Server) Clock() *fakeserver.Clock { return s.clock }

// IDs implements fakeserver.Mutable: the ids of the files (trashed ones
// included: they are still files) or shared drives, in creation order.
func (s *Server) IDs(entity string) []string {
	switch entity {
	case "files":
		return s.files.IDs()
	case "drives":
		return s.drives.IDs()
	}
	return nil
}

func (s *Server) now() time.Time { return s.clock.Now().Truncate(time.Millisecond) }

// logChange appends a change of f to the log; s.mu is held.
func (s *Server) logChange(f file, at time.Time, removed bool) {
	s.log = append(s.log, change{FileID: f.ID, Drive: f.Drive, At: at, Removed: removed})
}

// Create implements fakeserver.Mutable: a new binary file in My Drive.
func (s *Server) Create(entity string) (string, error) {
	return s.CreateIn(entity, "")
}

// CreateIn creates a new binary file in the shared drive driveID ("" for
// My Drive) and returns its id.
func (s *Server) CreateIn(entity, driveID string) (string, error) {
	if entity != "files" {
		return "", fmt.Errorf("%w: %s is not mutable", ErrNoRecord, entity)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	parent := driveID
	if driveID == "" {
		parent = "0AFakeRootFolderUk9PVA"
	} else if _, ok := s.drives.Live(driveID); !ok {
		return "", fmt.Errorf("%w: shared drive %s", ErrNoRecord, driveID)
	}
	now := s.now()
	n := s.nextID
	s.nextID++
	f := file{ID: FileID(n), Num: n, Name: fmt.Sprintf("new %d.txt", n), Mime: "text/plain", Parent: parent, Drive: driveID, Version: 1, Created: now, Modified: now}
	s.files.Put(f.ID, f, now)
	s.logChange(f, now, false)
	return f.ID, nil
}

// Update implements fakeserver.Mutable: a file's name and bytes change (a
// new version), and so does its modifiedTime.
func (s *Server) Update(entity, id string) error {
	return s.change(entity, id, func(f *file) { f.Name = "edited " + f.Name; f.Version++ })
}

// Trash moves a file to the trash: the changes feed shows it with
// trashed true.
func (s *Server) Trash(id string) error {
	return s.change("files", id, func(f *file) { f.Trashed = true })
}

func (s *Server) change(entity, id string, fn func(*file)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	var f file
	if entity != "files" || !s.files.Update(id, now, func(x *file) { fn(x); x.Modified = now; f = *x }) {
		return fmt.Errorf("%w: %s %s", ErrNoRecord, entity, id)
	}
	s.logChange(f, now, false)
	return nil
}

// Delete implements fakeserver.Mutable: the file is deleted for good (the
// trash emptied): the changes feed shows it removed, with no file.
func (s *Server) Delete(entity, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	f, ok := s.files.Live(id)
	if entity != "files" || !ok || !s.files.Delete(id, now) {
		return fmt.Errorf("%w: %s %s", ErrNoRecord, entity, id)
	}
	s.logChange(f, now, true)
	return nil
}

// ForgetTokens makes every page token handed out so far invalid: changes
// answers them with 400, as Drive answers a token it no longer accepts.
func (s *Server) ForgetTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forgot = len(s.log) + 1
}

// LeaveDrive takes the user out of the shared drive id: it and its files
// are no longer listed, and its changes and start token answer 404.
func (s *Server) LeaveDrive(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.drives.Delete(id, s.now()) {
		return fmt.Errorf("%w: shared drive %s", ErrNoRecord, id)
	}
	return nil
}
