package notion

import (
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/pagination"
)

// Type is the connector_type of this kind.
const Type = "notion"

// Version is the Notion-Version header every request carries: the API
// version whose shapes this package reads (databases hold data sources).
const Version = "2025-09-03"

// MaxPageSize is the most records a page of any list holds.
const MaxPageSize = 100

// MaxDepth is the most levels of blocks a list of blocks reads below its
// parent (its depth param, whose default it is).
const MaxDepth = 20

type (
	action = tributary.Action
	param  = tributary.Param
)

const (
	list      = tributary.ActionList
	get       = tributary.ActionGet
	apiSearch = tributary.ActionAPISearch
	download  = tributary.ActionDownload
)

func str(name, doc string, enum ...string) param {
	return param{Name: name, Type: tributary.TypeString, Enum: enum, Doc: doc}
}

func req(name, doc string) param {
	return param{Name: name, Type: tributary.TypeString, Required: true, Doc: doc}
}

func obj(name, doc string) param { return param{Name: name, Type: tributary.TypeObject, Doc: doc} }

var (
	paging   = pagination.Token{Param: "start_cursor", Field: "next_cursor", More: "has_more"}
	cursor   = str("start_cursor", "the next_cursor of the previous page")
	pageSize = param{Name: "page_size", Type: tributary.TypeInteger, Min: tributary.Bound(1), Max: tributary.Bound(MaxPageSize), PageSize: true,
		Doc: "records per page (1 to 100)"}
	sortParam = obj("sort", `the order: {"timestamp": "last_edited_time", "direction": "ascending" | "descending"} (default: the most recently edited first)`)
	query     = str("query", "text matched against page and data source titles (default: every one the integration can read)")
	filterP   = obj("filter", `set by the connector to the entity's kind of object ({"property": "object", "value": "page"}): Notion's search returns pages and data sources together`)
	searchP   = []param{query, sortParam, cursor, pageSize, filterP}
	parentID  = param{Name: "block_id", Type: tributary.TypeString, Doc: "the page or block whose children (blocks) or comments to list"}
	byParent  = tributary.Field{Name: "block_id", Type: tributary.TypeString}
)

// objectIs fixes a search's filter to one kind of object: Notion's search
// returns pages and data sources together.
func objectIs(kind string) func(tributary.Params) tributary.Params {
	return func(p tributary.Params) tributary.Params {
		out := p.Clone()
		if out == nil {
			out = tributary.Params{}
		}
		out["filter"] = map[string]any{"property": "object", "value": kind}
		return out
	}
}

// searchOf is POST /v1/search limited to one kind of object.
func searchOf(kind string) engine.Route {
	return engine.Route{Method: "POST", Path: "/v1/search", Records: "results", Paging: paging, Body: true, Prepare: objectIs(kind)}
}

func getOf(path string) []engine.Route { return []engine.Route{{Path: path}} }

func listOf(path string) []engine.Route {
	return []engine.Route{{Path: path, Records: "results", Paging: paging}}
}

// Catalogue returns the documents catalogue: every entity, its actions and
// their parameters, its searchable fields and its paging.
func Catalogue() []tributary.Entity { return engine.Catalogue(catalogue()) }

func catalogue() []engine.Entity {
	users := engine.NewEntity("users", "People and bots of the workspace (no guests).", User{},
		map[action][]engine.Route{list: listOf("/v1/users"), get: getOf("/v1/users/{user_id}")},
		map[action][]param{list: {cursor, pageSize}, get: {req("user_id", "the user's id")}})

	pages := engine.NewEntity("pages", "Pages the integration can read, the rows of data sources included (POST /v1/search, pages only).", Page{},
		map[action][]engine.Route{list: {searchOf("page")}, get: getOf("/v1/pages/{page_id}"), apiSearch: {searchOf("page")}},
		map[action][]param{list: searchP, get: {req("page_id", "the page's id"), {Name: "filter_properties", Type: tributary.TypeArray,
			Items: &param{Type: tributary.TypeString}, Doc: "the ids of the properties to return (default: all)"}}, apiSearch: searchP})
	pages.Feed = scanFeed("page")

	sources := engine.NewEntity("data_sources", "Data sources, the tables of databases (API 2025-09-03), with the schema of their properties.", DataSource{},
		map[action][]engine.Route{list: {searchOf("data_source")}, get: getOf("/v1/data_sources/{data_source_id}"), apiSearch: {searchOf("data_source")}},
		map[action][]param{list: searchP, get: {req("data_source_id", "the data source's id")}, apiSearch: searchP})
	sources.Feed = scanFeed("data_source")

	rows := engine.NewEntity("data_source_rows", "The rows (pages) of one data source, filtered and sorted by its properties.", Page{},
		map[action][]engine.Route{
			list: {{Method: "POST", Path: "/v1/data_sources/{data_source_id}/query", Records: "results", Paging: paging, Body: true}},
			get:  getOf("/v1/pages/{page_id}"),
		},
		map[action][]param{
			list: {req("data_source_id", "the data source's id"), obj("filter", `a filter on its properties or timestamps: {"property": "Status", "status": {"equals": "Done"}}`),
				{Name: "sorts", Type: tributary.TypeArray, Items: &param{Type: tributary.TypeObject}, Doc: `sort criteria: [{"property": "Name", "direction": "ascending"}] or [{"timestamp": "last_edited_time", "direction": "descending"}]`},
				cursor, pageSize, {Name: "in_trash", Type: tributary.TypeBoolean, Doc: "list the rows in the trash"}},
			get: {req("page_id", "the row's (page's) id")},
		}, tributary.Field{Name: "data_source_id", Type: tributary.TypeString})
	rows.Feed = rowsFeed()
	rows.Scope = tributary.Parent{Entity: "data_sources", IDField: "id", Param: "data_source_id", Key: "data_source"}.Scope(
		"the rows of every data source the integration can read: one query per data source, each kept current by its own filter on last_edited_time")
	rows.Scope.Parent = nil // rows change without their data source: each part has a feed of its own

	blocks := engine.NewEntity("blocks", "The content of a page or block: its children, and theirs, to depth levels.", Block{},
		map[action][]engine.Route{
			list: {{Path: "/v1/blocks/{block_id}/children", Records: "results", Paging: paging,
				Tree: &engine.Tree{Param: "block_id", ID: "id", Has: "has_children", Cursor: "start_cursor", Depth: "depth", Max: MaxDepth, Pending: "pending"}}},
			get: getOf("/v1/blocks/{block_id}"),
		},
		map[action][]param{
			list: {req("block_id", "the page or block whose children to list"), cursor, pageSize,
				{Name: "depth", Type: tributary.TypeInteger, Min: tributary.Bound(1), Max: tributary.Bound(MaxDepth),
					Doc: "levels to read: 1 lists the children alone (as Notion does), 2 their children too, ... (default 20: all of them); a nested block's parent names its parent block"},
				{Name: "pending", Type: tributary.TypeArray, Items: &param{Type: tributary.TypeString},
					Doc: "set by paging: the blocks whose children are still to read, each <levels>:<id>"}},
			get: {req("block_id", "the block's id")},
		}, byParent)
	blocks.Scope = tributary.Parent{Entity: "pages", IDField: "id", Param: "block_id", Key: "page"}.Scope(
		"every block of every page, nested blocks included: one walk per page; then only those of pages whose last_edited_time moved")

	comments := engine.NewEntity("comments", "Open comments on a page or block (resolved ones are not returned).", Comment{},
		map[action][]engine.Route{list: {{Path: "/v1/comments", Records: "results", Paging: paging}}, get: getOf("/v1/comments/{comment_id}")},
		map[action][]param{list: {func() param { p := parentID; p.Required = true; return p }(), cursor, pageSize},
			get: {req("comment_id", "the comment's id")}}, byParent)
	comments.Scope = tributary.Parent{Entity: "pages", IDField: "id", Param: "block_id", Key: "page"}.Scope(
		"the comments of every page: one walk per page; then only those of pages whose last_edited_time moved")

	files := engine.NewEntity("files", "The bytes of a file, image, pdf, video or audio block uploaded to Notion, through the signed URL its block names (read again for every request, never kept).", nil,
		map[action][]engine.Route{download: {{Path: "/v1/blocks/{block_id}", FileURL: []string{"{type}", "file", "url"}}}},
		map[action][]param{download: {req("block_id", "the file block's id"),
			{Name: "range_header", Type: tributary.TypeString, Doc: "byte range to download: bytes=<first>-<last>, bytes=<first>- or bytes=-<n>"}}})

	return engine.DateTimes([]engine.Entity{users, pages, sources, rows, blocks, comments, files}, "created_time", "last_edited_time")
}

// scanFeed is the feed of pages or data sources: Notion has none, so it is
// a scan of POST /v1/search sorted by last_edited_time, newest first,
// that stops at the checkpoint. What is moved to the trash leaves the
// search: a daily sweep of the ids finds it, a deletion of the copy (and
// the blocks and comments of a trashed page leave theirs with their next
// full walk, as the feed reports no deletion of its own).
func scanFeed(kind string) *tributary.Feed {
	return &tributary.Feed{
		Doc: "POST /v1/search sorted by last_edited_time descending, stopping at the checkpoint; pages moved to the trash leave the search, and a daily sweep of every id makes them deletions",
		Params: func(base tributary.Params, _ time.Time) tributary.Params {
			p := tributary.Params{"sort": map[string]any{"timestamp": "last_edited_time", "direction": "descending"}, "page_size": int64(MaxPageSize)}
			if q, ok := base["query"]; ok {
				p["query"] = q
			}
			return p
		},
		Check: func(base tributary.Params) (string, string) {
			if _, ok := base["sort"]; ok {
				return "sort", "the copy is kept current by a search sorted by last_edited_time, newest first: copy without sort, and sort the copy"
			}
			return "", ""
		},
		Changed:    "last_edited_time",
		Descending: true,
		Sweep: &tributary.Sweep{Every: 24 * time.Hour, Params: func(base tributary.Params) tributary.Params {
			p := tributary.Params{"page_size": int64(MaxPageSize)}
			if q, ok := base["query"]; ok {
				p["query"] = q
			}
			return p
		}},
	}
}

// editedSince is a data source query of the rows edited at or after
// since (every row when it is zero), oldest first.
func editedSince(base tributary.Params, since time.Time) tributary.Params {
	p := tributary.Params{"data_source_id": base["data_source_id"], "page_size": int64(MaxPageSize),
		"sorts": []any{map[string]any{"timestamp": "last_edited_time", "direction": "ascending"}}}
	if !since.IsZero() {
		p["filter"] = map[string]any{"timestamp": "last_edited_time", "last_edited_time": map[string]any{"on_or_after": since.Format(time.RFC3339)}}
	}
	return p
}

// rowsFeed is a data source's query filtered on last_edited_time, oldest
// first: Notion's times are to the minute, so the checkpoint's minute is
// read again. Rows moved to the trash leave the query: the same query
// with in_trash lists them, as deletions.
func rowsFeed() *tributary.Feed {
	return &tributary.Feed{
		Doc:    `POST /v1/data_sources/{id}/query with {"timestamp": "last_edited_time", "last_edited_time": {"on_or_after": …}}, oldest first; the same query with in_trash lists the rows moved to the trash, deletions`,
		Params: editedSince,
		Deletions: &tributary.Feed{Params: func(base tributary.Params, since time.Time) tributary.Params {
			p := editedSince(base, since.Truncate(time.Minute)) // the feed's Precision: times are to the minute
			p["in_trash"] = true
			return p
		}},
		Check: func(base tributary.Params) (string, string) {
			for _, k := range []string{"filter", "sorts", "in_trash"} {
				if _, ok := base[k]; ok {
					return k, "the copy is kept current by a query filtered and sorted on last_edited_time: copy the rows without " + k + ", and search the copy"
				}
			}
			return "", ""
		},
		Changed:   "last_edited_time",
		Precision: time.Minute,
		Deleted:   trashed,
	}
}

// trashed reports a record in the trash (in_trash; archived before API
// 2024-04).
func trashed(r tributary.Record) bool {
	t, _ := r.Field("in_trash")
	a, _ := r.Field("archived")
	return t == true || a == true
}
