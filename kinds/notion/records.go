package notion

import "encoding/json"

// Records keep Notion's JSON as API version 2025-09-03 returns it; the
// structs below type the fields most callers read. Times are RFC 3339
// strings that Notion rounds to the minute ("2026-03-01T12:00:00.000Z");
// rich text, properties and block content stay raw JSON.

// Ref is a user or object named by another record: {"object", "id"}.
type Ref struct {
	Object string `json:"object,omitempty"`
	ID     string `json:"id"`
}

// Parent says where a record lives: its Type names the member that holds
// the parent's id (page_id, block_id, data_source_id, database_id), or
// workspace.
type Parent struct {
	Type         string `json:"type"`
	PageID       string `json:"page_id,omitempty"`
	BlockID      string `json:"block_id,omitempty"`
	DataSourceID string `json:"data_source_id,omitempty"`
	DatabaseID   string `json:"database_id,omitempty"`
	Workspace    bool   `json:"workspace,omitempty"`
}

// User is a person or a bot of the workspace.
type User struct {
	Object    string `json:"object"`
	ID        string `json:"id"`
	Type      string `json:"type,omitempty"`
	Name      string `json:"name,omitempty"`
	AvatarURL string `json:"avatar_url,omitempty"`
	Person    *struct {
		Email string `json:"email,omitempty"`
	} `json:"person,omitempty"`
	Bot json.RawMessage `json:"bot,omitempty"`
}

// Page is a page of the workspace, a data source's row included: its
// properties (the title among them) keyed by name.
type Page struct {
	Object         string          `json:"object"`
	ID             string          `json:"id"`
	CreatedTime    string          `json:"created_time"`
	LastEditedTime string          `json:"last_edited_time"`
	CreatedBy      Ref             `json:"created_by"`
	LastEditedBy   Ref             `json:"last_edited_by"`
	Parent         Parent          `json:"parent"`
	Archived       bool            `json:"archived"`
	InTrash        bool            `json:"in_trash"`
	Properties     json.RawMessage `json:"properties,omitempty"`
	Icon           json.RawMessage `json:"icon,omitempty"`
	Cover          json.RawMessage `json:"cover,omitempty"`
	URL            string          `json:"url,omitempty"`
	PublicURL      string          `json:"public_url,omitempty"`
}

// DataSource is a table of a database (API 2025-09-03: a database holds
// one or more data sources): its title and the schema of its properties.
type DataSource struct {
	Object         string          `json:"object"`
	ID             string          `json:"id"`
	CreatedTime    string          `json:"created_time"`
	LastEditedTime string          `json:"last_edited_time"`
	CreatedBy      Ref             `json:"created_by"`
	LastEditedBy   Ref             `json:"last_edited_by"`
	Parent         Parent          `json:"parent"`
	DatabaseParent *Parent         `json:"database_parent,omitempty"`
	Title          json.RawMessage `json:"title,omitempty"`
	Description    json.RawMessage `json:"description,omitempty"`
	Properties     json.RawMessage `json:"properties,omitempty"`
	Archived       bool            `json:"archived"`
	InTrash        bool            `json:"in_trash"`
	URL            string          `json:"url,omitempty"`
}

// Block is one block of a page's content: its Type names the member that
// holds it (paragraph, heading_1, to_do, image, file, ...), kept raw in
// Content by the typed handle's callers that need it.
type Block struct {
	Object         string `json:"object"`
	ID             string `json:"id"`
	Parent         Parent `json:"parent"`
	Type           string `json:"type"`
	CreatedTime    string `json:"created_time"`
	LastEditedTime string `json:"last_edited_time"`
	CreatedBy      Ref    `json:"created_by"`
	LastEditedBy   Ref    `json:"last_edited_by"`
	HasChildren    bool   `json:"has_children"`
	Archived       bool   `json:"archived"`
	InTrash        bool   `json:"in_trash"`
}

// Comment is a comment on a page or a block, in a discussion thread.
type Comment struct {
	Object         string          `json:"object"`
	ID             string          `json:"id"`
	Parent         Parent          `json:"parent"`
	DiscussionID   string          `json:"discussion_id"`
	CreatedTime    string          `json:"created_time"`
	LastEditedTime string          `json:"last_edited_time"`
	CreatedBy      Ref             `json:"created_by"`
	RichText       json.RawMessage `json:"rich_text,omitempty"`
}
