package googledrive

import (
	"context"

	"github.com/tributary-dev/tributary"
)

// FileParams are the params of files.list and api_search: a query in
// Drive's q language, the corpus, paging and the fields to return (the
// default: every field). Zero fields are not sent.
type FileParams struct {
	Q                         string `param:"q"`
	PageSize                  int    `param:"pageSize"`
	PageToken                 string `param:"pageToken"`
	OrderBy                   string `param:"orderBy"`
	Corpora                   string `param:"corpora"`
	DriveID                   string `param:"driveId"`
	IncludeItemsFromAllDrives bool   `param:"includeItemsFromAllDrives"`
	SupportsAllDrives         bool   `param:"supportsAllDrives"`
	Spaces                    string `param:"spaces"`
	Fields                    string `param:"fields"`
}

// FileChildParams are the params of the lists of one file's permissions,
// comments and revisions.
type FileChildParams struct {
	// FileID is required.
	FileID    string `param:"fileId"`
	PageSize  int    `param:"pageSize"`
	PageToken string `param:"pageToken"`
	Fields    string `param:"fields"`
}

// DriveParams are the params of drives.list.
type DriveParams struct {
	Q                    string `param:"q"`
	PageSize             int    `param:"pageSize"`
	PageToken            string `param:"pageToken"`
	UseDomainAdminAccess bool   `param:"useDomainAdminAccess"`
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

// Files is the typed handle on files (api_search: Client.APISearch;
// the bytes: Client.Download).
func (c *Client) Files() Entity[File, FileParams] {
	return entityOf[File, FileParams](c, "files", "fileId")
}

// Drives is the typed handle on shared drives.
func (c *Client) Drives() Entity[Drive, DriveParams] {
	return entityOf[Drive, DriveParams](c, "drives", "driveId")
}

// Permissions is the typed handle on one file's permissions.
func (c *Client) Permissions() tributary.Handle[Permission, FileChildParams] {
	return tributary.Handle[Permission, FileChildParams]{Conn: c, Entity: "permissions"}
}

// Comments is the typed handle on one file's comments.
func (c *Client) Comments() tributary.Handle[Comment, FileChildParams] {
	return tributary.Handle[Comment, FileChildParams]{Conn: c, Entity: "comments"}
}

// Revisions is the typed handle on one file's revisions.
func (c *Client) Revisions() tributary.Handle[Revision, FileChildParams] {
	return tributary.Handle[Revision, FileChildParams]{Conn: c, Entity: "revisions"}
}

// About reads the user, their quota and the export formats.
func (c *Client) About(ctx context.Context) (About, error) {
	return tributary.Handle[About, tributary.Params]{Conn: c, Entity: "about"}.Get(ctx, nil)
}
