package intercom

import (
	"context"

	"github.com/tributary-dev/tributary"
)

// ListParams are the params of the contacts and conversations lists: the
// page size (at most 150) and the cursor of the next page (a Meta
// next_page). Zero fields are not sent.
type ListParams struct {
	PerPage       int    `param:"per_page"`
	StartingAfter string `param:"starting_after"`
}

// CompanyListParams are the params of the companies list. ScrollParam
// switches to GET /companies/scroll, which reaches every company (the plain
// list stops at 10,000): a pointer to "" opens a new scroll, a scroll_param
// (a scroll page's Meta next_page) continues one; it goes without PerPage
// and StartingAfter. All scrolls on its own when the list runs out. Page a
// scroll with All, or with List and each page's Next, not with a Pager:
// Intercom keeps one scroll_param for the whole scroll, which a Pager takes
// for paging that does not advance.
type CompanyListParams struct {
	PerPage       int     `param:"per_page"`
	StartingAfter string  `param:"starting_after"`
	ScrollParam   *string `param:"scroll_param"`
}

// SegmentListParams are the params of the segments list.
type SegmentListParams struct {
	// IncludeCount adds each segment's contact count (Segment.Count).
	IncludeCount bool `param:"include_count"`
}

// NoParams is the params type of the lists that take none (teams, admins,
// tags).
type NoParams struct{}

// Entity is a typed handle on one entity: List, Pager and All from the
// embedded tributary.Handle, and Get by id.
type Entity[T, P any] struct {
	tributary.Handle[T, P]
}

// Get reads the record with this id.
func (e Entity[T, P]) Get(ctx context.Context, id string) (T, error) {
	return e.Handle.Get(ctx, tributary.Params{"id": id})
}

func entity[T, P any](c *Client, name string) Entity[T, P] {
	return Entity[T, P]{Handle: tributary.Handle[T, P]{Conn: c, Entity: name}}
}

// Contacts is the typed handle on contacts.
func (c *Client) Contacts() Entity[Contact, ListParams] {
	return entity[Contact, ListParams](c, "contacts")
}

// Conversations is the typed handle on conversations.
func (c *Client) Conversations() Entity[Conversation, ListParams] {
	return entity[Conversation, ListParams](c, "conversations")
}

// Companies is the typed handle on companies. Its All reaches every
// company, past the list's 10,000 limit (see Client.Walk).
func (c *Client) Companies() Entity[Company, CompanyListParams] {
	return entity[Company, CompanyListParams](c, "companies")
}

// Teams is the typed handle on teams.
func (c *Client) Teams() Entity[Team, NoParams] { return entity[Team, NoParams](c, "teams") }

// Admins is the typed handle on admins.
func (c *Client) Admins() Entity[Admin, NoParams] { return entity[Admin, NoParams](c, "admins") }

// Tags is the typed handle on tags.
func (c *Client) Tags() Entity[Tag, NoParams] { return entity[Tag, NoParams](c, "tags") }

// Segments is the typed handle on segments.
func (c *Client) Segments() Entity[Segment, SegmentListParams] {
	return entity[Segment, SegmentListParams](c, "segments")
}
