package notion

import (
	"context"

	"github.com/tributary-dev/tributary"
)

// SearchParams are the params of the lists of pages and data sources
// (POST /v1/search): the text to match in titles, and paging. Zero fields
// are not sent.
type SearchParams struct {
	Query       string `param:"query"`
	StartCursor string `param:"start_cursor"`
	PageSize    int    `param:"page_size"`
}

// PageParams are the params of a list that only pages (users).
type PageParams struct {
	StartCursor string `param:"start_cursor"`
	PageSize    int    `param:"page_size"`
}

// RowParams are the params of a data source's query.
type RowParams struct {
	// DataSourceID is required.
	DataSourceID string         `param:"data_source_id"`
	Filter       map[string]any `param:"filter"`
	Sorts        []any          `param:"sorts"`
	StartCursor  string         `param:"start_cursor"`
	PageSize     int            `param:"page_size"`
}

// ChildParams are the params of the lists of a page's or block's blocks
// and comments.
type ChildParams struct {
	// BlockID is required: the page or block.
	BlockID     string `param:"block_id"`
	StartCursor string `param:"start_cursor"`
	PageSize    int    `param:"page_size"`
	// Depth is the levels of blocks to read (blocks only): 1 the children
	// alone; 0 all of them (MaxDepth).
	Depth int `param:"depth"`
}

// Entity is a typed handle on one entity with a get by one id.
type Entity[T, P any] struct {
	tributary.Handle[T, P]
	idParam string
}

// Get reads the record with this id.
func (e Entity[T, P]) Get(ctx context.Context, id string) (T, error) {
	return e.Handle.Get(ctx, tributary.Params{e.idParam: id})
}

func entityOf[T, P any](c *Client, name, idParam string) Entity[T, P] {
	return Entity[T, P]{Handle: tributary.Handle[T, P]{Conn: c, Entity: name}, idParam: idParam}
}

// Users is the typed handle on the workspace's users.
func (c *Client) Users() Entity[User, PageParams] {
	return entityOf[User, PageParams](c, "users", "user_id")
}

// Pages is the typed handle on pages (APISearch: a search of titles).
func (c *Client) Pages() Entity[Page, SearchParams] {
	return entityOf[Page, SearchParams](c, "pages", "page_id")
}

// DataSources is the typed handle on data sources.
func (c *Client) DataSources() Entity[DataSource, SearchParams] {
	return entityOf[DataSource, SearchParams](c, "data_sources", "data_source_id")
}

// DataSourceRows is the typed handle on a data source's rows.
func (c *Client) DataSourceRows() Entity[Page, RowParams] {
	return entityOf[Page, RowParams](c, "data_source_rows", "page_id")
}

// Blocks is the typed handle on the content of pages and blocks.
func (c *Client) Blocks() Entity[Block, ChildParams] {
	return entityOf[Block, ChildParams](c, "blocks", "block_id")
}

// Comments is the typed handle on the comments of pages and blocks.
func (c *Client) Comments() Entity[Comment, ChildParams] {
	return entityOf[Comment, ChildParams](c, "comments", "comment_id")
}
