package mailchimp

import (
	"maps"
	"time"

	"github.com/tributary-dev/tributary"
)

// The change feeds of the catalogue (Entity.Feed).
//
// Only list members have one: GET /3.0/lists/{list_id}/members with
// since_last_changed. The other since filters Mailchimp documents filter
// on a creation or send time, not on the last change, so they would miss
// updates: lists (since_date_created), campaigns (since_create_time,
// since_send_time), reports (since_send_time), automations
// (since_create_time, since_start_time) and segments (since_updated_at
// comes with no way to see deleted segments, and segments are not a
// searchable entity here). email_activity's since filters the events
// inside each recipient's record, so a record the feed returns holds only
// the new events: upserted whole it would replace the older ones (see the
// report of the incremental-sync work); it stays with full walks.

// feedTime writes t as Mailchimp's ISO 8601 time parameters.
func feedTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05+00:00") }

// membersFeed reads the members of a list changed since a time, newest
// change first: Mailchimp pages by offset, so in ascending order a member
// that changes during a pass moves to the end and shifts another past the
// page boundary, older than the checkpoint the pass ends with and never
// read again; in descending order the shifted ones are read twice. An
// archived member (Mailchimp's DELETE) stays in the list with status
// archived and a new last_changed: the feed returns it as a change, which
// is what the list shows. A permanently deleted member is gone without a
// trace: full walks find it.
var membersFeed = &tributary.Feed{
	Doc: "list members with since_last_changed, sort_field=last_changed, sort_dir=DESC (offset paging: newest change first); archived members arrive with status archived; permanent deletions only by full walks",
	Params: func(base tributary.Params, since time.Time) tributary.Params {
		p := maps.Clone(base)
		if p == nil {
			p = tributary.Params{}
		}
		delete(p, "offset")
		delete(p, "since_last_changed")
		delete(p, "before_last_changed")
		p["sort_field"] = "last_changed"
		p["sort_dir"] = "DESC"
		p["count"] = int64(MaxCount)
		if !since.IsZero() {
			p["since_last_changed"] = feedTime(since)
		}
		return p
	},
	Changed: "last_changed",
	Overlap: time.Minute,
}
