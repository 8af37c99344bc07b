package notiontest

import (
	"fmt"
	"strings"
	"time"
)

// Id prefixes: Notion's ids are UUIDs; the fake's say what they name.
const (
	userKind    = 0x05e0
	sourceKind  = 0x0d50
	dbKind      = 0x0db0
	pageKind    = 0x09a0
	blockKind   = 0x0b10
	commentKind = 0x0c00
)

func uid(kind, n int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", 0x0f3b0000|kind, n) }

func userID(n int) string { return uid(userKind, n) }

// PageID is the id of the n-th page the fake generated (rows first).
func PageID(n int) string { return uid(pageKind, n) }

// DataSourceID is the id of the n-th data source.
func DataSourceID(n int) string { return uid(sourceKind, n) }

type user struct {
	id, name, email string
	bot             bool
}

type source struct {
	n     int
	title string
}

type page struct {
	title      string
	parentType string // workspace, page_id, data_source_id
	parent     string
	status     string
	trash      bool
	author     int
}

type block struct {
	parentType, parent string // page_id or block_id
	typ, text          string
}

type comment struct {
	page, discussion, text string
	author                 int
}

var statuses = []string{"Not started", "In progress", "Done"}

// generate makes the default data: users, data sources with ten rows
// each, pages with content, comments; dated a minute apart before the
// clock's start, oldest first.
func (s *Server) generate() {
	s.users = []user{{id: userID(0), name: "Ada Lovelace", email: "ada@example.com"}, {id: userID(1), name: "Grace Hopper", email: "grace@example.com"},
		{id: userID(2), name: "Alan Turing", email: "alan@example.com"}, {id: BotID, name: "Tributary (fake)", bot: true}}
	rows := 10 * s.cfg.sources
	total := rows + s.cfg.pages
	start := s.clock.Now().Add(-time.Duration(total+s.cfg.sources+1) * time.Minute)
	for i := range s.cfg.sources {
		s.sources.Put(DataSourceID(i), source{n: i, title: fmt.Sprintf("Projects %d", i)}, start.Add(time.Duration(i)*time.Minute))
	}
	at := start.Add(time.Duration(s.cfg.sources) * time.Minute)
	for i := range total {
		p := page{title: fmt.Sprintf("Page %d", i), parentType: "workspace", author: i % 3}
		switch {
		case i < rows:
			p.title, p.parentType, p.parent, p.status = fmt.Sprintf("Task %d", i), "data_source_id", DataSourceID(i/10), statuses[i%3]
		case i%7 == 6:
			p.parentType, p.parent = "page_id", PageID(i-1)
		}
		s.putPage(i, p, at.Add(time.Duration(i)*time.Minute))
	}
	s.nextID = total
}

// putPage adds the n-th page with its blocks and comment, at.
func (s *Server) putPage(n int, p page, at time.Time) {
	id := PageID(n)
	s.pages.Put(id, p, at)
	add := func(parentType, parent, typ, text string) string {
		return s.putBlock(block{parentType: parentType, parent: parent, typ: typ, text: text}, at)
	}
	add("page_id", id, "heading_2", "About "+p.title)
	add("page_id", id, "paragraph", "Notes of "+p.title+".")
	t := add("page_id", id, "toggle", "Details")
	c := add("block_id", t, "toggle", "More")
	if n%3 == 0 {
		d := add("block_id", c, "toggle", "Even more")
		add("block_id", d, "paragraph", "The deepest note of "+p.title+".")
	} else {
		add("block_id", c, "paragraph", "A nested note.")
	}
	if n%4 == 0 {
		add("page_id", id, "pdf", "")
	}
	if n%3 == 0 {
		cid := uid(commentKind, n)
		s.comments.Put(cid, comment{page: id, discussion: uid(commentKind, 1_000_000+n), text: "Looks good: " + p.title, author: p.author}, at)
	}
}

// putBlock adds a block as the last child of its parent, at, and returns
// its id: the next of a count, not of the table's rows, which a fake of
// tens of thousands of pages would count again for every block.
func (s *Server) putBlock(b block, at time.Time) string {
	s.nblocks++
	id := uid(blockKind, s.nblocks)
	s.blocks.Put(id, b, at)
	s.children[b.parent] = append(s.children[b.parent], id)
	return id
}

// stamp writes a time as Notion does: UTC, to the minute, milliseconds.
func stamp(t time.Time) string {
	return t.UTC().Truncate(time.Minute).Format("2006-01-02T15:04:05.000Z")
}

func ref(id string) map[string]any { return map[string]any{"object": "user", "id": id} }

func richText(t string) []any {
	return []any{map[string]any{"type": "text", "text": map[string]any{"content": t, "link": nil},
		"annotations": map[string]any{"bold": false, "italic": false, "strikethrough": false, "underline": false, "code": false, "color": "default"},
		"plain_text":  t, "href": nil}}
}

func notionURL(title, id string) string {
	return "https://www.notion.so/" + strings.ReplaceAll(title, " ", "-") + "-" + strings.ReplaceAll(id, "-", "")
}

func (s *Server) renderUser(u user) map[string]any {
	if u.bot {
		return map[string]any{"object": "user", "id": u.id, "type": "bot", "name": u.name, "avatar_url": nil,
			"bot": map[string]any{"owner": map[string]any{"type": "workspace", "workspace": true}, "workspace_name": "Acme (fake)"}}
	}
	return map[string]any{"object": "user", "id": u.id, "type": "person", "name": u.name, "avatar_url": nil, "person": map[string]any{"email": u.email}}
}

func (s *Server) renderSource(id string, src source, created, edited time.Time) map[string]any {
	return map[string]any{"object": "data_source", "id": id, "created_time": stamp(created), "last_edited_time": stamp(edited),
		"created_by": ref(userID(0)), "last_edited_by": ref(userID(0)), "title": richText(src.title), "description": []any{},
		"icon": nil, "cover": nil, "is_inline": false, "archived": false, "in_trash": false,
		"properties": map[string]any{
			"Name": map[string]any{"id": "title", "name": "Name", "type": "title", "description": nil, "title": map[string]any{}},
			"Status": map[string]any{"id": "s%3Ast", "name": "Status", "type": "status", "description": nil, "status": map[string]any{
				"options": []any{map[string]any{"id": "s0", "name": statuses[0], "color": "default", "description": nil},
					map[string]any{"id": "s1", "name": statuses[1], "color": "blue", "description": nil},
					map[string]any{"id": "s2", "name": statuses[2], "color": "green", "description": nil}},
				"groups": []any{}}}},
		"parent":          map[string]any{"type": "database_id", "database_id": uid(dbKind, src.n)},
		"database_parent": map[string]any{"type": "workspace", "workspace": true},
		"url":             notionURL(src.title, uid(dbKind, src.n)), "public_url": nil}
}

func (s *Server) renderPage(id string, p page, created, edited time.Time) map[string]any {
	var parent, props map[string]any
	title := map[string]any{"id": "title", "type": "title", "title": richText(p.title)}
	switch p.parentType {
	case "data_source_id":
		src, _ := s.sources.Live(p.parent)
		parent = map[string]any{"type": "data_source_id", "data_source_id": p.parent, "database_id": uid(dbKind, src.n)}
		st := 0
		for i, x := range statuses {
			if x == p.status {
				st = i
			}
		}
		props = map[string]any{"Name": title, "Status": map[string]any{"id": "s%3Ast", "type": "status",
			"status": map[string]any{"id": fmt.Sprintf("s%d", st), "name": p.status, "color": "default"}}}
	case "page_id":
		parent, props = map[string]any{"type": "page_id", "page_id": p.parent}, map[string]any{"title": title}
	default:
		parent, props = map[string]any{"type": "workspace", "workspace": true}, map[string]any{"title": title}
	}
	return map[string]any{"object": "page", "id": id, "created_time": stamp(created), "last_edited_time": stamp(edited),
		"created_by": ref(userID(p.author)), "last_edited_by": ref(userID(p.author)), "cover": nil, "icon": nil,
		"parent": parent, "archived": p.trash, "in_trash": p.trash, "is_locked": false, "properties": props,
		"url": notionURL(p.title, id), "public_url": nil}
}

func (s *Server) renderBlock(id string, b block, created, edited time.Time) map[string]any {
	hasChildren := false
	for _, c := range s.children[id] {
		if _, ok := s.blocks.Live(c); ok {
			hasChildren = true
		}
	}
	var content map[string]any
	switch b.typ {
	case "pdf":
		u, exp := s.fileURL(id)
		content = map[string]any{"caption": []any{}, "type": "file", "name": "report.pdf",
			"file": map[string]any{"url": u, "expiry_time": exp.UTC().Format("2006-01-02T15:04:05.000Z")}}
	case "heading_2":
		content = map[string]any{"rich_text": richText(b.text), "color": "default", "is_toggleable": false}
	default:
		content = map[string]any{"rich_text": richText(b.text), "color": "default"}
	}
	return map[string]any{"object": "block", "id": id, "parent": map[string]any{"type": b.parentType, b.parentType: b.parent},
		"created_time": stamp(created), "last_edited_time": stamp(edited), "created_by": ref(userID(0)), "last_edited_by": ref(userID(0)),
		"has_children": hasChildren, "archived": false, "in_trash": false, "type": b.typ, b.typ: content}
}

func (s *Server) renderComment(id string, c comment, created, edited time.Time) map[string]any {
	return map[string]any{"object": "comment", "id": id, "parent": map[string]any{"type": "page_id", "page_id": c.page},
		"discussion_id": c.discussion, "created_time": stamp(created), "last_edited_time": stamp(edited),
		"created_by": ref(userID(c.author)), "rich_text": richText(c.text)}
}
