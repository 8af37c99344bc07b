package googledrive

import (
	"context"
	"iter"
	"net/http"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/pagination"
)

// notTrashed is the query of a copy's walks: the changes feed makes a
// trashed file a deletion, so the walk leaves the trash out too.
const notTrashed = "trashed = false"

// changesRoute reads GET /changes from a page token, a page of up to 1000
// changes after another (nextPageToken), the last page naming the token
// to go on from (newStartPageToken). driveId and supportsAllDrives also
// go to GET /changes/startPageToken: one token per shared drive.
func changesRoute() *engine.Route {
	return &engine.Route{Path: "/changes", Records: "changes", Query: []string{"driveId", "supportsAllDrives"},
		Paging: pagination.Token{Param: "pageToken", Field: "nextPageToken", Keep: []string{"newStartPageToken"}}}
}

// fileFeed is Drive's changes feed: a token from changes.getStartPageToken,
// then changes.list from it; a removed change (a file deleted, or no
// longer visible) and a trashed file are deletions. The copy's part (My
// Drive and what is shared with the user, or one shared drive) gives the
// feed its scope: driveId for a shared drive.
func fileFeed() *tributary.Feed {
	return &tributary.Feed{
		Doc: "Drive's changes: GET /changes/startPageToken, then GET /changes?pageToken=… (one token for My Drive and files shared with the user, one per shared drive with driveId); " +
			"removed changes and trashed files are deletions; a token Drive refuses walks the copy in full again",
		Params: func(base tributary.Params, _ time.Time) tributary.Params {
			p := tributary.Params{"pageSize": int64(MaxFiles), "includeRemoved": true, "fields": "*"}
			for _, k := range []string{"driveId", "includeItemsFromAllDrives", "supportsAllDrives", "spaces"} {
				if v, ok := base[k]; ok {
					p[k] = v
				}
			}
			return p
		},
		Check: func(base tributary.Params) (string, string) {
			if q, ok := base["q"]; ok && q != notTrashed {
				return "q", "Drive's changes feed cannot filter by a query: copy files without q (or with q = \"" + notTrashed + "\"), and search the copy"
			}
			for _, k := range []string{"orderBy", "fields"} {
				if _, ok := base[k]; ok {
					return k, "Drive's changes feed returns every field of every changed file in its own order: copy files without " + k
				}
			}
			if c, ok := base["corpora"]; ok && c != "user" && c != "drive" {
				return "corpora", "Drive's changes feed reads My Drive (corpora user) or one shared drive (corpora drive with driveId)"
			}
			return "", ""
		},
		Token: &tributary.TokenFeed{Start: &tributary.Zone{Path: "/changes/startPageToken", Field: "startPageToken"},
			Param: "pageToken", New: "newStartPageToken", Expired: []int{http.StatusBadRequest}},
		Unwrap: "file", DeletedID: "fileId",
		Deleted: func(r tributary.Record) bool {
			removed, _ := r.Field("removed")
			trashed, _ := r.Field("file.trashed")
			return removed == true || trashed == true
		},
	}
}

// filesScope copies My Drive and the files shared with the user, then
// each shared drive the user is a member of, each part with a changes
// token of its own.
func filesScope() *tributary.Scope {
	return &tributary.Scope{
		Doc: "My Drive and the files shared with the user (corpora user), then every shared drive the user is a member of (corpora drive, one part each), trash left out; " +
			"each part kept current from a changes token of its own",
		Parts: func(ctx context.Context, c tributary.Connector, _ map[string]any) iter.Seq2[tributary.Part, error] {
			return func(yield func(tributary.Part, error) bool) {
				if !yield(tributary.Part{Key: "user", Params: tributary.Params{"q": notTrashed}}, nil) {
					return
				}
				for d, err := range tributary.All(ctx, c, "drives", tributary.Params{"pageSize": int64(MaxOther), "fields": "nextPageToken,drives(id)"}) {
					if err != nil {
						yield(tributary.Part{}, err)
						return
					}
					id, ok := d.StringAt("id")
					if !ok {
						continue
					}
					p := tributary.Params{"q": notTrashed, "corpora": "drive", "driveId": id, "includeItemsFromAllDrives": true, "supportsAllDrives": true}
					if !yield(tributary.Part{Key: "drive " + id, Params: p}, nil) {
						return
					}
				}
			}
		},
	}
}
