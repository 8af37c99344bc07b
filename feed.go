package tributary

import (
	"context"
	"iter"
	"strconv"
	"strings"
	"time"
)

// Feed declares how an entity's changes are read from the source, so that
// a copy of it (package replica) can be kept current without walking every
// record again. It is one row of a kind's catalogue (Entity.Feed); the
// mechanism that reads it is written once, for every kind.
//
// A feed asks the source for the records changed at or after a time, by
// params of an action the entity offers (GitHub's since, HubSpot's CRM
// search on the last-modified property) or by a route of its own (Zendesk's
// incremental exports, Salesforce's queryAll). The time comes from the
// copy's checkpoint: the latest Changed value seen so far, less Overlap
// (and Lookback). Records are upserted by id, so what an overlap reads
// twice is written once.
type Feed struct {
	// Doc says in a few words what the feed is, for people: the endpoint
	// or filter and how deletions are found ("incremental ticket export;
	// deleted tickets arrive with status deleted").
	Doc string
	// Action is the action whose routes read the feed: ActionList (the
	// default) or ActionAPISearch. A kind may give the feed a route of its
	// own instead (see the engine's Entity.FeedRoute).
	Action Action
	// Params returns the params of the feed's first request for the
	// records changed at or after since. base holds the params the caller
	// walks the entity with (a GitHub owner and repo); Params must not
	// modify it. A zero since asks for every record.
	Params func(base Params, since time.Time) Params
	// Check, when set, reports why base cannot be read as the feed (a
	// Salesforce query with GROUP BY cannot), as the offending param and
	// the reason, or "" when it can. Changes then fails with
	// ErrInvalidParams before anything is sent, rather than Params
	// building a request the source would refuse or misread.
	Check func(base Params) (param, reason string)
	// Changed is the dot path of the record's last-modified time, an RFC
	// 3339 string or Unix seconds (updated_at, SystemModstamp,
	// properties.hs_lastmodifieddate). The checkpoint moves to the latest
	// value read.
	Changed string
	// Overlap is read again before the checkpoint on every sync, so that
	// clock skew and records that share the boundary second are not lost.
	Overlap time.Duration
	// Lookback is read again on every sync as well: records keep changing
	// after the time the feed filters on (a Gong call gains its transcript
	// after it took place).
	Lookback time.Duration
	// Delay keeps since at least this far in the past (Zendesk refuses a
	// start_time less than a minute old).
	Delay time.Duration
	// Deleted reports whether a record the feed returns stands for a
	// deletion (Zendesk's status "deleted", Salesforce's IsDeleted); nil
	// means the feed returns none.
	Deleted func(Record) bool
	// Cap, when positive, is how many records one query of the feed can
	// page through (HubSpot's search refuses to page past 10,000 results).
	// A capped feed must be sorted oldest-first on Changed, and Params must
	// ask for the records changed at or after since (inclusive): when a
	// query has returned Cap records and has more, the pass goes on with a
	// new query, Params(base, t), from the latest Changed value t read so
	// far, and the records changed at t are read again. A saved page that
	// the source refuses resumes the same way, from the checkpoint's High.
	// More than Cap records changed at one instant end the pass with an
	// error matching ErrPaging.
	Cap int
	// Keyset makes a feed sorted oldest-first that pages by offset (HubSpot's
	// search: after=200, 400, ...) start a new query from the latest
	// Changed value read after every page, as Cap does past the cap, instead
	// of asking for the next offset. A record changed during a pass moves
	// to the end of an oldest-first order and shifts every later record
	// back one place, so that an offset skips one; a query from the
	// latest time read skips none. Records changed at that time are read
	// again; when a whole page shares one time, the pass follows the offset.
	Keyset bool
	// Deletions, when set, is a second feed that lists deleted records
	// (HubSpot's archived=true, Jira's deleted worklogs), read after the
	// changes on every sync; each record it returns is a deletion. Its
	// Params gets the time the changes were read from (zero on a full
	// read), which it may ignore to list every deleted record.
	Deletions *Feed
	// Descending says that the feed has no time filter the source applies
	// and reads the records newest-first on Changed (Notion's search
	// sorted by last_edited_time, descending): a pass reads from the top
	// and stops at the first record changed before the checkpoint (less
	// Overlap and Lookback), which it leaves out, with no further request;
	// the records changed at the checkpoint itself (ties) are read again.
	// A record changed during the pass moves to the top, which only makes
	// a later page repeat a record, never skip one: the next pass reads
	// it. Params gets since, which it may ignore.
	Descending bool
	// Whole says that the feed reads every record of the entity, though
	// the entity's copy scope walks it in parts (Jira's worklogs changed
	// in any issue, while a worklog list is of one issue): a durable copy
	// is then made and kept current from the feed alone, in one pass
	// (from the beginning for a full copy), not part after part nor by
	// following a parent's feed. The feed's records should carry what the
	// parts would set on them (Part.Fields) by themselves.
	Whole bool
	// Precision, when set, is the resolution of the source's time filter
	// (a JQL date is read to the minute): the time Params gets is
	// truncated to it, so that the records changed in the checkpoint's
	// minute are read again (and found unchanged), never skipped.
	Precision time.Duration
	// Zone, when set, says where the source names the time zone in which
	// it reads the feed's times (a JQL date is read in the API user's
	// zone, which GET /rest/api/3/myself names): Params gets since in that
	// zone, to write the wall time the source expects. Near a change of
	// the zone's offset (daylight saving) since is moved back by the
	// change, so that no record falls into an hour the change repeats.
	Zone *Zone
	// Token, when set, makes the feed one of opaque tokens the source
	// hands out (Google Drive's changes, Asana's sync tokens) rather than
	// one of times: see TokenFeed. Params then gives the params of the
	// feed's route (its token added by the engine) and of the first full
	// walk, and Changed, Overlap, Precision, Zone, Cap and Keyset are not
	// used.
	Token *TokenFeed
	// Unwrap, when set, is the dot path of the entity's record inside each
	// record the feed's route returns (a Drive change holds its "file", a
	// Stripe event its "data.object").
	Unwrap string
	// DeletedID, when set, is the dot path of the id of a deleted record
	// in a record the feed returns, for feeds whose deletions carry no
	// record to unwrap (a removed Drive change has only its fileId): the
	// deletion is then the entity's IDField set to it.
	DeletedID string
	// Stream, when set, says that the feed is read from an event stream
	// that carries the changes of several entities at once (Stripe's
	// /v1/events): the list of the stream's entity, not a route of this
	// entity. Params gives the stream's params for a time (the same for
	// every entity that shares the stream); Changed is the event's time;
	// Unwrap the entity's record in an event; Deleted the events that are
	// deletions. The stream is walked forward, oldest first, one page at a
	// time (Stream.Newer), each page a Changes of its own whose checkpoint
	// holds its newest event: its time (Since) and its id (Token), from
	// which the next page is read. The copies of a connector share the
	// stream's reads: the pages read last are kept a while (the engine's
	// StreamFresh, and a bound on their number) and feed every other copy
	// whose checkpoint lies among them, each its own events, the latest
	// state of a record in a page winning; a copy they have fed reads the
	// stream again. A copy's first read (a zero checkpoint) notes the
	// stream's newest event, then walks the entity's list in full. A
	// checkpoint with a time and no id (a copy made before ids were kept)
	// finds its first page by reading the stream back to that time, one
	// page held at a time. An event id the source no longer knows fails
	// with ErrCursorExpired.
	Stream *Stream
	// Retention, when positive, is how long the source keeps its changes
	// (Stripe's events: 30 days): a checkpoint older than that cannot be
	// read on from, and the feed fails with ErrCursorExpired instead, so
	// that the copy is walked in full again, never left incomplete.
	Retention time.Duration
	// Sweep, when set, finds the deletions the feed cannot show: a cheap
	// walk of every id the source still has, now and then, whose absent
	// ids become deletions of the copy (Jira's search never shows a
	// deleted issue; a walk of the ids alone reads 5,000 a request).
	Sweep *Sweep
	// Reread, when set, says that a feed of tokens only names the records
	// that changed (an Asana event carries a task's gid and name, not the
	// task): the records of a pass's changes are read again with the
	// entity's list (see Reread), never kept as the feed wrote them.
	Reread *Reread
}

// Reread reads again, with one walk of the entity's list, the records the
// pages of a feed of tokens name as changed (Feed.Reread): the copy's
// params, with Param set to the earliest time at At among the changes
// (a "modified since" filter), so that the walk reads every record they
// name, and perhaps a few more changed since. The pages a pass reads are
// read again together, up to the engine's RereadPages (50) a walk, so
// that a backlog of changes costs its pages of changes and one walk.
type Reread struct {
	// Param is the list's param of the earliest modification time
	// ("modified_since"), sent in RFC 3339.
	Param string
	// At is the dot path of the time of the change in a record of the
	// feed ("created_at").
	At string
	// Get, when set, is the param of the entity's get action that takes a
	// record's id (IDField): a record the changes name that the walk did
	// not return is then read with it, one request each, unless their
	// last word on it is a deletion; one the source no longer
	// has is left to the feed's deletion that follows. A source that does
	// not move a record's modification time for every change needs it
	// (Asana's task moved or added into a project keeps its modified_at).
	Get string
	// Member, when set, says whether a record read by Get belongs to the
	// copy's params (base): one that does not is left out (an Asana
	// project's events also tell of subtasks, which are in no project).
	Member func(base Params, r Record) bool
}

// Zone names an endpoint whose JSON answer says an account's time zone
// (Feed.Zone).
type Zone struct {
	// Path is the endpoint under the connector's base URL, read with GET
	// once per connector.
	Path string
	// Field is the dot path of an IANA zone name in the answer
	// ("timeZone"); an answer without one means UTC.
	Field string
}

// TokenFeed is a change feed that resumes from an opaque token the source
// hands out (Feed.Token), read from the entity's feed route (the engine's
// Entity.FeedRoute). A copy's first read asks for a token first (Start),
// then walks the entity in full with its list action and keeps that
// token, so that what changes during the walk is read by the next pass; a
// pass reads the route with the checkpoint's token as Param, page after
// page, and keeps the token its last page names at New. A token the source
// no longer accepts (an answer of a status in Expired) makes the copy walk
// in full again, from a new token: never a stale copy.
type TokenFeed struct {
	// Start, when set, is the endpoint that hands out a token for the
	// changes from now (Drive: GET /drive/v3/changes/startPageToken,
	// "startPageToken"); its params are the feed's Params. Without it the
	// token comes from the feed's route asked with no token, which answers
	// a status of Expired with a fresh token at ExpiredToken (Asana's
	// first /events call: 412 and a "sync" token).
	Start *Zone
	// Param is the route's param that takes the token ("pageToken",
	// "sync").
	Param string
	// New is the dot path, in the body of a pass's last page, of the token
	// to keep ("newStartPageToken"; Asana's "sync").
	New string
	// Expired are the statuses that mean the token is no longer accepted
	// (Asana's 412).
	Expired []int
	// ExpiredToken, when set, is the dot path of a fresh token in the body
	// of such an answer ("sync").
	ExpiredToken string
}

// Stream names an event stream shared by several entities' feeds
// (Feed.Stream) and which of its events are an entity's.
type Stream struct {
	// Entity is the entity whose list is the stream ("events"); the feeds
	// that name one entity share its reads.
	Entity string
	// Field is the dot path, in an event, of what says whose event it is
	// ("data.object.object"), and Value this entity's value there
	// ("customer"); an empty Field takes every event.
	Field, Value string
	// Newer is the param of the stream's list that takes an event's id
	// (at the stream entity's IDField) and answers the page of events
	// just newer than it, newest first inside the page, with the list's
	// sign of more to come when newer ones remain (Stripe's
	// "ending_before"). An id the source no longer knows is answered as
	// not found. Required: a feed of a stream without it fails with
	// ErrUnsupportedAction.
	Newer string
}

// Sweep is a walk of every id an entity still has at the source
// (Feed.Sweep), for a copy read in one walk.
type Sweep struct {
	// Params returns the list params of the walk from the copy's: the
	// fewest fields and the largest page the source allows. It must not
	// modify base.
	Params func(base Params) Params
	// Every is how long a copy goes between sweeps (a full walk counts as
	// one); 0 sweeps on every sync.
	Every time.Duration
	// Settle: a record of the copy that the sweep does not find is kept
	// when its Changed value is less than Settle before the sweep began (a
	// search index that has not caught up yet: the next sweep decides).
	Settle time.Duration
}

// ChangedAt reads a record's Changed value (see ParseChanged).
func (f *Feed) ChangedAt(r Record) (time.Time, bool) {
	if f == nil || f.Changed == "" {
		return time.Time{}, false
	}
	v, ok := r.Field(f.Changed)
	if !ok {
		return time.Time{}, false
	}
	return ParseChanged(v)
}

// ParseChanged reads a last-modified value as the sources write it: an RFC
// 3339 string (with or without a colon in the offset: Salesforce's and
// Jira's +0000), or Unix seconds or milliseconds as a number or a string
// of digits, or Unix seconds with a decimal fraction (Slack's ts,
// "1700000000.000100").
func ParseChanged(v any) (time.Time, bool) {
	switch x := v.(type) {
	case string:
		if n, err := strconv.ParseInt(x, 10, 64); err == nil {
			return unixOf(n), true
		}
		if t, ok := decimalSeconds(x); ok {
			return t, true
		}
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z0700"} {
			if t, err := time.Parse(layout, x); err == nil {
				return t.UTC(), true
			}
		}
	case float64:
		return unixOf(int64(x)), true
	case int64:
		return unixOf(x), true
	case interface{ Int64() (int64, error) }:
		if n, err := x.Int64(); err == nil {
			return unixOf(n), true
		}
	}
	return time.Time{}, false
}

// decimalSeconds reads Unix seconds with a decimal fraction, to the
// microsecond: Slack's ts, "1700000000.000100".
func decimalSeconds(x string) (time.Time, bool) {
	sec, frac, ok := strings.Cut(x, ".")
	if !ok || frac == "" || len(frac) > 9 {
		return time.Time{}, false
	}
	n, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || n < 0 {
		return time.Time{}, false
	}
	f, err := strconv.ParseUint(frac, 10, 32)
	if err != nil {
		return time.Time{}, false
	}
	for range 9 - len(frac) {
		f *= 10
	}
	return time.Unix(n, int64(f)).UTC(), true
}

// unixOf reads n as seconds, or as milliseconds when it is too large to be
// seconds of this millennium.
func unixOf(n int64) time.Time {
	if n > 1e11 {
		return time.UnixMilli(n).UTC()
	}
	return time.Unix(n, 0).UTC()
}

// FindsDeletions reports whether the feed reports deletions on its own
// (in its records, a second feed, or a sweep); when it does not, a copy
// finds them only by a full walk.
func (f *Feed) FindsDeletions() bool {
	return f != nil && (f.Deleted != nil || f.Deletions != nil || (f.Sweep != nil && f.Sweep.Params != nil))
}

// Checkpoint is where an entity's change feed resumes. It is saved with
// every page of changes, in the same transaction as the page's records.
type Checkpoint struct {
	// Since is the time from which changes are still to be read: the
	// latest Changed value of the last completed pass over the feed.
	Since time.Time `json:"since,omitzero"`
	// High is the latest Changed value read so far in the pass under way;
	// it becomes Since when the pass completes.
	High time.Time `json:"high,omitzero"`
	// Next holds the params of the next page of the pass under way, so
	// that a sync that was stopped goes on from there; nil between passes.
	Next Params `json:"next,omitempty"`
	// Token is where a feed of tokens (Feed.Token) resumes: the token the
	// source handed out for the changes after the last pass. For a feed of
	// an event stream (Feed.Stream) it is the id of the newest event
	// read, whose time is Since; empty when none was read yet.
	Token string `json:"token,omitempty"`
	// Walking says that a feed of tokens is in its first, full read of the
	// entity (Next holds the list's next params), after which its changes
	// are read from Token.
	Walking bool `json:"walking,omitempty"`
	// Zone is the time zone a feed with a Zone reads its times in, as the
	// source named it at ZoneAt; it is read again once it is older than
	// ZoneTTL, and on every full read.
	Zone   string    `json:"zone,omitempty"`
	ZoneAt time.Time `json:"zone_at,omitzero"`
}

// ZoneTTL is how long a checkpoint's Zone is used before the source is
// asked again: a profile's zone that changes is followed within it.
const ZoneTTL = time.Hour

// Changes is one page of an entity's change feed.
type Changes struct {
	// Records are records created or changed at the source.
	Records []Record
	// Deleted are records deleted at the source, as the feed returned
	// them (at least their id).
	Deleted []Record
	// Checkpoint is where the feed resumes after this page.
	Checkpoint Checkpoint
}

// Changer is a connector that reads the change feeds of its entities.
// Direct-mode connectors of every kind implement it.
type Changer interface {
	// Changes reads entity's change feed from a checkpoint (the zero
	// Checkpoint reads every record), a page at a time. The last page's
	// Checkpoint has no Next. base holds the params the entity is walked
	// with. An entity without a feed is an error matching
	// ErrUnsupportedAction.
	Changes(ctx context.Context, entity string, base Params, from Checkpoint) iter.Seq2[*Changes, error]
}

// Usage counts the HTTP requests a connector sent to its source.
type Usage struct {
	// Requests is the number of requests sent, retries included.
	Requests int64 `json:"requests"`
	// Retries is the number of requests that repeated an earlier one.
	Retries int64 `json:"retries"`
	// Throttled is the number of answers that asked the client to slow
	// down (429, or the vendor's own rate-limit answer).
	Throttled int64 `json:"throttled"`
}

// Sub returns u less v: the usage between two readings.
func (u Usage) Sub(v Usage) Usage {
	return Usage{Requests: u.Requests - v.Requests, Retries: u.Retries - v.Retries, Throttled: u.Throttled - v.Throttled}
}

// Metered is a connector that counts its requests. Direct-mode connectors
// of every kind implement it.
type Metered interface {
	// Usage returns the counts since the connector was made.
	Usage() Usage
}

// PageTotal reads the number of records a list says it has in all, from
// a page's Meta, under the names the kinds give it (Mailchimp total_items,
// Salesforce totalSize, Zendesk count, HubSpot total, GitHub total_count,
// Intercom total_count, Gong records.totalRecords); false when the page
// does not say.
func PageTotal(meta map[string]any) (int64, bool) {
	for _, path := range []string{"total_items", "totalSize", "count", "total", "total_count", "pagination.totalRecords", "records.totalRecords"} {
		var v any = meta
		for k := range strings.SplitSeq(path, ".") {
			m, ok := v.(map[string]any)
			if !ok {
				v = nil
				break
			}
			v = m[k]
		}
		if n, ok := wholeCount(v); ok && n >= 0 {
			return n, true
		}
	}
	return 0, false
}

// wholeCount reads a JSON number that is a whole count.
func wholeCount(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int64:
		return n, true
	case float64:
		if n == float64(int64(n)) {
			return int64(n), true
		}
	case interface{ Int64() (int64, error) }: // json.Number
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}
