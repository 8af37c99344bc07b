package notiontest

import (
	"errors"
	"fmt"
	"slices"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// ErrNoRecord is returned by Update and Delete for an id with no live
// record, and by Create for an entity that is not mutable.
var ErrNoRecord = errors.New("notiontest: no such record")

// MutableEntities implements fakeserver.Mutable.
func (s *Server) MutableEntities() []string { return []string{"pages", "data_source_rows"} }

// Clock implements fakeserver.Mutable.
func (s *Server) Clock() *fakeserver.Clock { return s.clock }

// IDs implements fakeserver.Mutable: the ids of the pages (or of the rows
// of data sources) not in the trash, in creation order.
func (s *Server) IDs(entity string) []string {
	var out []string
	for _, row := range s.pages.Rows(nil) {
		isRow := row.Rec.parentType == "data_source_id"
		if !row.Rec.trash && ((entity == "pages") || (entity == "data_source_rows" && isRow)) {
			out = append(out, row.ID)
		}
	}
	return out
}

// Create implements fakeserver.Mutable: a new page at the workspace's top
// level with its content, or a new row of the first data source.
func (s *Server) Create(entity string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.nextID
	p := page{title: fmt.Sprintf("New page %d", n), parentType: "workspace"}
	switch entity {
	case "pages":
	case "data_source_rows":
		if s.sources.Len() == 0 {
			return "", ErrNoRecord
		}
		p = page{title: fmt.Sprintf("New task %d", n), parentType: "data_source_id", parent: s.sources.IDs()[0], status: statuses[0]}
	default:
		return "", ErrNoRecord
	}
	s.nextID++
	s.putPage(n, p, s.clock.Now())
	s.version.Add(1)
	return PageID(n), nil
}

// Update implements fakeserver.Mutable: the page's title changes, and
// its last_edited_time.
func (s *Server) Update(entity, id string) error {
	if !slices.Contains(s.IDs(entity), id) {
		return ErrNoRecord
	}
	s.pages.Update(id, s.clock.Now(), func(p *page) { p.title += " (edited)" })
	s.version.Add(1)
	return nil
}

// Delete implements fakeserver.Mutable: the page moves to the trash
// (in_trash; it leaves search and data source queries, a get still
// answers it).
func (s *Server) Delete(entity, id string) error {
	if !slices.Contains(s.IDs(entity), id) {
		return ErrNoRecord
	}
	s.pages.Update(id, s.clock.Now(), func(p *page) { p.trash = true })
	s.version.Add(1)
	return nil
}

// AppendBlock adds a paragraph under a page or block, and moves the
// page's edit time, as editing a page's content does.
func (s *Server) AppendBlock(parent, text string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pageID, kind := parent, "page_id"
	if _, ok := s.pages.Live(parent); !ok {
		b, ok := s.blocks.Live(parent)
		if !ok {
			return "", ErrNoRecord
		}
		kind = "block_id"
		for b.parentType == "block_id" {
			b, _ = s.blocks.Live(b.parent)
		}
		pageID = b.parent
	}
	now := s.clock.Now()
	id := s.putBlock(block{parentType: kind, parent: parent, typ: "paragraph", text: text}, now)
	s.pages.Update(pageID, now, func(*page) {})
	s.version.Add(1)
	return id, nil
}

// FileBlocks returns the ids of the file (pdf) blocks, in creation order.
func (s *Server) FileBlocks() []string {
	var out []string
	for _, row := range s.blocks.Rows(nil) {
		if row.Rec.typ == "pdf" {
			out = append(out, row.ID)
		}
	}
	return out
}
