package salesforce

import (
	"context"
	"reflect"
	"strings"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/download"
)

// QueryParams are the params of every list: Q, a SOQL query (an entity's
// list must read its object: SELECT ... FROM Account for accounts), and,
// to fetch a later page by hand, NextRecordsURL, the nextRecordsUrl of the
// previous page (the pager and All fill it in themselves). Zero fields are
// not sent.
type QueryParams struct {
	Q              string `param:"q"`
	NextRecordsURL string `param:"next_records_url"`
}

// Object is a typed handle on an entity with list and get: List, Pager and
// All run SOQL queries (see tributary.Handle), Get reads one record by id.
type Object[T any] struct {
	tributary.Handle[T, QueryParams]
}

// Get reads the record with this id (18 characters, or the 15-character
// case-sensitive form), with only the given fields when any are named.
func (o Object[T]) Get(ctx context.Context, id string, fields ...string) (T, error) {
	p := tributary.Params{"id": id}
	if len(fields) > 0 {
		p["fields"] = strings.Join(fields, ",")
	}
	return o.Handle.Get(ctx, p)
}

// SearchableObject is a typed handle on an entity that also has api_search.
type SearchableObject[T any] struct {
	Object[T]
}

// APISearch runs a SOSL query whose RETURNING clause names the entity's
// object (FIND {Acme} RETURNING Account(Id, Name)) and returns its records.
// SOSL is not paged: Salesforce returns at most 2,000 records.
func (o SearchableObject[T]) APISearch(ctx context.Context, sosl string) ([]T, error) {
	page, err := o.Conn.APISearch(ctx, o.Entity, tributary.Params{"q": sosl})
	if err != nil {
		return nil, err
	}
	out := make([]T, len(page.Records))
	for i, r := range page.Records {
		if err := r.Decode(&out[i]); err != nil {
			return nil, &tributary.Error{Kind: Type, Entity: o.Entity, Action: tributary.ActionAPISearch,
				Err: tributary.ErrUnexpectedResponse, Message: "expected a search record that decodes into " + reflect.TypeFor[T]().String() + ", got: " + err.Error(), Cause: err}
		}
	}
	return out, nil
}

// FileObject is a typed handle on an entity whose records carry a file.
type FileObject[T any] struct {
	Object[T]
}

// Download opens a stream of the whole file of the record with this id.
// The caller closes it.
func (o FileObject[T]) Download(ctx context.Context, id string) (*download.Stream, error) {
	return o.Conn.Download(ctx, o.Entity, tributary.Params{"id": id})
}

// DownloadRange opens a stream of a byte range of the file (rangeHeader as
// in a Range header: bytes=<first>-<last>, bytes=<first>- or bytes=-<n>).
func (o FileObject[T]) DownloadRange(ctx context.Context, id, rangeHeader string) (*download.Stream, error) {
	return o.Conn.Download(ctx, o.Entity, tributary.Params{"id": id, "range_header": rangeHeader})
}

func object[T any](c *Client, entity string) Object[T] {
	return Object[T]{Handle: tributary.Handle[T, QueryParams]{Conn: c, Entity: entity}}
}

// Accounts is the typed handle on accounts.
func (c *Client) Accounts() SearchableObject[Account] {
	return SearchableObject[Account]{object[Account](c, "accounts")}
}

// Contacts is the typed handle on contacts.
func (c *Client) Contacts() SearchableObject[Contact] {
	return SearchableObject[Contact]{object[Contact](c, "contacts")}
}

// Leads is the typed handle on leads.
func (c *Client) Leads() SearchableObject[Lead] {
	return SearchableObject[Lead]{object[Lead](c, "leads")}
}

// Opportunities is the typed handle on opportunities.
func (c *Client) Opportunities() SearchableObject[Opportunity] {
	return SearchableObject[Opportunity]{object[Opportunity](c, "opportunities")}
}

// Tasks is the typed handle on tasks.
func (c *Client) Tasks() SearchableObject[Task] {
	return SearchableObject[Task]{object[Task](c, "tasks")}
}

// Events is the typed handle on events.
func (c *Client) Events() SearchableObject[Event] {
	return SearchableObject[Event]{object[Event](c, "events")}
}

// Campaigns is the typed handle on campaigns.
func (c *Client) Campaigns() SearchableObject[Campaign] {
	return SearchableObject[Campaign]{object[Campaign](c, "campaigns")}
}

// Cases is the typed handle on cases.
func (c *Client) Cases() Object[Case] { return object[Case](c, "cases") }

// Notes is the typed handle on notes.
func (c *Client) Notes() Object[Note] { return object[Note](c, "notes") }

// ContentVersions is the typed handle on content_versions (Download for
// the bytes of VersionData).
func (c *Client) ContentVersions() FileObject[ContentVersion] {
	return FileObject[ContentVersion]{object[ContentVersion](c, "content_versions")}
}

// Attachments is the typed handle on attachments (Download for the bytes
// of Body).
func (c *Client) Attachments() FileObject[Attachment] {
	return FileObject[Attachment]{object[Attachment](c, "attachments")}
}

// Query is the typed handle on the query entity: rows of any SOQL query,
// relationship paths and aggregates included.
func (c *Client) Query() tributary.Handle[QueryRecord, QueryParams] {
	return tributary.Handle[QueryRecord, QueryParams]{Conn: c, Entity: "query"}
}
