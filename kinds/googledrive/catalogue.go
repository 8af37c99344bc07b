package googledrive

import (
	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/pagination"
)

// Type is the connector_type of this kind.
const Type = "google-drive"

type (
	action = tributary.Action
	param  = tributary.Param
)

const (
	list      = tributary.ActionList
	get       = tributary.ActionGet
	search    = tributary.ActionSearch
	apiSearch = tributary.ActionAPISearch
	download  = tributary.ActionDownload
)

// Page-size maxima: files.list and changes.list take up to 1000 (Drive
// answers at most 100 a page when the fields ask for permissions, as
// fields=* does), the other lists 100.
const (
	MaxFiles = 1000
	MaxOther = 100
)

// Google-native types: their bytes come from file_exports (files.export),
// never from files' download (alt=media).
const (
	Document     = "application/vnd.google-apps.document"
	Spreadsheet  = "application/vnd.google-apps.spreadsheet"
	Presentation = "application/vnd.google-apps.presentation"
	Drawing      = "application/vnd.google-apps.drawing"
	Folder       = "application/vnd.google-apps.folder"
)

// ExportFormats are the formats files.export converts each Google-native
// type to (about.exportFormats, the common ones).
var ExportFormats = map[string][]string{
	Document: {"application/pdf", "text/plain", "text/html", "application/rtf", "application/epub+zip",
		"application/vnd.oasis.opendocument.text", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "text/markdown"},
	Spreadsheet: {"application/pdf", "text/csv", "text/tab-separated-values", "application/vnd.oasis.opendocument.spreadsheet",
		"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "application/zip"},
	Presentation: {"application/pdf", "text/plain", "application/vnd.oasis.opendocument.presentation",
		"application/vnd.openxmlformats-officedocument.presentationml.presentation"},
	Drawing: {"application/pdf", "image/png", "image/jpeg", "image/svg+xml"},
}

func str(name, doc string, enum ...string) param {
	return param{Name: name, Type: tributary.TypeString, Enum: enum, Doc: doc}
}

func req(name, doc string) param {
	return param{Name: name, Type: tributary.TypeString, Required: true, Doc: doc}
}

func flag(name, doc string) param { return param{Name: name, Type: tributary.TypeBoolean, Doc: doc} }

func size(max float64, doc string) param {
	return param{Name: "pageSize", Type: tributary.TypeInteger, Min: tributary.Bound(1), Max: tributary.Bound(max), PageSize: true, Doc: doc}
}

var (
	byToken   = pagination.Token{Param: "pageToken", Field: "nextPageToken"}
	pageToken = str("pageToken", "the nextPageToken of the previous page")
	fields    = str("fields", "the fields to return, in Drive's partial-response syntax (default: every field, *)")
	fileID    = req("fileId", "the file's id")
	allDrives = flag("supportsAllDrives", "the caller supports shared drives (needed to read a file in one)")
	admin     = flag("useDomainAdminAccess", "act as a domain administrator: every shared drive of the domain")
	deleted   = flag("includeDeleted", "include deleted comments and replies (their content left out)")
	fileList  = []param{
		str("q", "a query in Drive's search language: name contains 'report' and mimeType != 'application/vnd.google-apps.folder'"),
		size(MaxFiles, "files per page (1 to 1000; Drive answers at most 100 when the fields ask for permissions, as the default * does)"),
		pageToken,
		str("orderBy", "comma-separated sort keys, desc for descending: createdTime, folder, modifiedByMeTime, modifiedTime, name, quotaBytesUsed, recency, sharedWithMeTime, starred, viewedByMeTime"),
		str("corpora", "the bodies of files to search: user (the default), drive (one shared drive: driveId), domain, allDrives", "user", "drive", "domain", "allDrives"),
		str("driveId", "the shared drive to search (with corpora=drive)"),
		flag("includeItemsFromAllDrives", "include the items of shared drives (with supportsAllDrives)"),
		allDrives, str("spaces", "comma-separated spaces: drive, appDataFolder"), fields,
	}
	rangeHeader = param{Name: "range_header", Type: tributary.TypeString, Doc: "byte range to download: bytes=<first>-<last>, bytes=<first>- or bytes=-<n>"}
)

// everyField asks for every field where the caller names none: Drive
// answers only id, name, mimeType and kind by default, and comments and
// replies refuse a request without fields.
func everyField(p tributary.Params) tributary.Params {
	if _, ok := p["fields"]; ok {
		return p
	}
	out := p.Clone()
	if out == nil {
		out = tributary.Params{}
	}
	out["fields"] = "*"
	return out
}

// media asks files.get for the file's bytes.
func media(p tributary.Params) tributary.Params {
	out := p.Clone()
	out["alt"] = "media"
	return out
}

// route is a GET of path whose records are at records, paged by pageToken
// when records is a list.
func route(path, records string) []engine.Route {
	rt := engine.Route{Path: path, Records: records, Prepare: everyField}
	if records != "" {
		rt.Paging = byToken
	}
	return []engine.Route{rt}
}

// entity builds a catalogue entity (engine.NewEntity): its routes by
// action, search added with the searchable fields when record is not nil.
var entity = engine.NewEntity

// Catalogue returns the files catalogue: every entity, its actions and
// their parameters, its searchable fields and its paging.
func Catalogue() []tributary.Entity { return engine.Catalogue(catalogue()) }

func catalogue() []engine.Entity {
	files := entity("files", "Files and folders of My Drive, shared with the user, and of shared drives; download reads a binary file's bytes (alt=media).", File{},
		map[action][]engine.Route{
			list:      route("/files", "files"),
			get:       route("/files/{fileId}", ""),
			apiSearch: route("/files", "files"),
			download:  {{Path: "/files/{fileId}", Prepare: media}},
		},
		map[action][]param{
			list:      fileList,
			get:       {fileID, allDrives, flag("acknowledgeAbuse", "accept the risk of a file Drive flagged as abusive"), fields},
			apiSearch: append([]param{req("q", fileList[0].Doc)}, fileList[1:]...),
			download:  {fileID, allDrives, flag("acknowledgeAbuse", "accept the risk of downloading a file Drive flagged as abusive"), rangeHeader},
		})
	files.Feed, files.FeedRoute, files.Scope = fileFeed(), changesRoute(), filesScope()

	exports := entity("file_exports", "A Google Doc, Sheet, Slides or Drawing converted to a file format (files.export): PDF, text, CSV, Office formats; at most 10 MB, never by byte range.", nil,
		map[action][]engine.Route{download: {{Path: "/files/{fileId}/export"}}},
		map[action][]param{download: {fileID,
			req("mimeType", "the format to export to: application/pdf, text/plain, text/csv, application/vnd.openxmlformats-officedocument.wordprocessingml.document, ... (about.exportFormats lists them per type)"),
			{Name: "range_header", Type: tributary.TypeString, Doc: "refused: files.export converts the document whole, it takes no byte range"}}})
	exports.Rules = map[action]func(tributary.Params) (string, string){download: func(p tributary.Params) (string, string) {
		if _, ok := p["range_header"]; ok {
			return "range_header", "files.export converts the whole document on every request and takes no byte range: download it from the start (files' download takes a range for binary files)"
		}
		return "", ""
	}}

	perms := entity("permissions", "Who can read, comment on or edit one file.", Permission{},
		map[action][]engine.Route{list: route("/files/{fileId}/permissions", "permissions"), get: route("/files/{fileId}/permissions/{permissionId}", "")},
		map[action][]param{
			list: {fileID, size(MaxOther, "permissions per page (1 to 100)"), pageToken, allDrives, admin, fields},
			get:  {fileID, req("permissionId", "the permission's id"), allDrives, admin, fields},
		})
	perms.Scope = tributary.Parent{Entity: "files", IDField: "id", Param: "fileId", Key: "file"}.Scope(
		"the permissions of every file of the copy: one walk of GET /files/{fileId}/permissions per file, each with its fileId; then only those of files the changes feed shows changed")

	perms.Scope.PartIDs = true // a permission's id is its user's, the same on every file

	comments := entity("comments", "Comments on one file, each with its replies.", Comment{},
		map[action][]engine.Route{list: route("/files/{fileId}/comments", "comments"), get: route("/files/{fileId}/comments/{commentId}", "")},
		map[action][]param{
			list: {fileID, size(MaxOther, "comments per page (1 to 100)"), pageToken, deleted,
				str("startModifiedTime", "only comments modified at or after this RFC 3339 time"), fields},
			get: {fileID, req("commentId", "the comment's id"), deleted, fields},
		})
	comments.Scope = tributary.Parent{Entity: "files", IDField: "id", Param: "fileId", Key: "file"}.Scope(
		"the comments of every file of the copy (their replies inside): one walk of GET /files/{fileId}/comments per file; then only those of files the changes feed shows changed")

	revisions := entity("revisions", "The versions of one file's content.", Revision{},
		map[action][]engine.Route{list: route("/files/{fileId}/revisions", "revisions"), get: route("/files/{fileId}/revisions/{revisionId}", "")},
		map[action][]param{
			list: {fileID, size(MaxFiles, "revisions per page (1 to 1000)"), pageToken, fields},
			get:  {fileID, req("revisionId", "the revision's id"), flag("acknowledgeAbuse", "accept the risk of a revision Drive flagged as abusive"), fields},
		})
	revisions.Scope = tributary.Parent{Entity: "files", IDField: "id", Param: "fileId", Key: "file"}.Scope(
		"the revisions of every file of the copy: one walk of GET /files/{fileId}/revisions per file; then only those of files the changes feed shows changed")

	revisions.Scope.PartIDs = true // a Google Doc's revisions are numbered 1, 2, ... in each file

	return engine.DateTimes([]engine.Entity{
		files, exports,
		entity("drives", "Shared drives the user is a member of (every one of the domain with useDomainAdminAccess).", Drive{},
			map[action][]engine.Route{list: route("/drives", "drives"), get: route("/drives/{driveId}", "")},
			map[action][]param{
				list: {size(MaxOther, "shared drives per page (1 to 100)"), pageToken, str("q", "a query on shared drives: name contains 'eng', hidden = false"), admin, fields},
				get:  {req("driveId", "the shared drive's id"), admin, fields},
			}),
		perms, comments,
		entity("replies", "Replies to one comment (each comment also carries its replies).", nil,
			map[action][]engine.Route{
				list: route("/files/{fileId}/comments/{commentId}/replies", "replies"),
				get:  route("/files/{fileId}/comments/{commentId}/replies/{replyId}", ""),
			},
			map[action][]param{
				list: {fileID, req("commentId", "the comment's id"), size(MaxOther, "replies per page (1 to 100)"), pageToken, deleted, fields},
				get:  {fileID, req("commentId", "the comment's id"), req("replyId", "the reply's id"), deleted, fields},
			}),
		revisions,
		entity("about", "The user, their storage quota, and the formats each type exports to.", nil,
			map[action][]engine.Route{get: route("/about", "")}, map[action][]param{get: {fields}}),
	}, "createdTime", "modifiedTime", "viewedByMeTime", "sharedWithMeTime", "expirationTime")
}
