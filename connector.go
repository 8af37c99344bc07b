// Package tributary gives a Go program uniform, read-only access to business
// systems (GitHub, HubSpot, Mailchimp, Gong, Intercom, Salesforce, Zendesk)
// through one contract: every read is an operation {entity, action, params}.
//
// A Connector is opened for one kind of source with the credentials of one
// account, either in direct mode (kinds.Open, or a kind's own constructor such
// as zendesk.New), where this process calls the vendor's API, or in hosted
// mode (package hosted), where a service holds the credentials. Both return
// the same Connector, the same Records and the same errors.
//
//	c, err := kinds.Open("zendesk-support", map[string]any{
//		"subdomain": "acme", "email": "agent@acme.com", "api_token": token,
//	})
//	page, err := c.List(ctx, "tickets", tributary.Params{"page": 1})
//	for rec, err := range tributary.All(ctx, c, "tickets", nil) { ... }
//
// Every request is checked against the kind's catalogue (Entities) before
// anything is sent; failures are *Error values that match the sentinels of
// this package with errors.Is.
package tributary

import (
	"context"
	"iter"

	"github.com/tributary-dev/tributary/download"
	"github.com/tributary-dev/tributary/search"
)

// Action names what an operation does with an entity.
type Action string

// The actions of the contract.
const (
	// ActionList reads one page of an entity's records from the source.
	ActionList Action = "list"
	// ActionGet reads one record from the source.
	ActionGet Action = "get"
	// ActionSearch queries a synchronized copy of the source's data with the
	// common filter language (hosted mode, or a local replica).
	ActionSearch Action = "search"
	// ActionAPISearch runs the source's own search query.
	ActionAPISearch Action = "api_search"
	// ActionDownload streams file content.
	ActionDownload Action = "download"
)

// Params is the params object of an operation, exactly as in the execute
// call of the contract. Values are the Go forms of JSON values (string,
// bool, numbers of any Go numeric type, []any or typed slices, map[string]any).
type Params map[string]any

// Clone returns a shallow copy of p (nil stays nil).
func (p Params) Clone() Params {
	if p == nil {
		return nil
	}
	c := make(Params, len(p))
	for k, v := range p {
		c[k] = v
	}
	return c
}

// Connector is one source account, reached in direct or hosted mode.
type Connector interface {
	// Type is the connector_type, e.g. "zendesk-support".
	Type() string
	// Entities returns the kind's catalogue.
	Entities() []Entity
	// List reads one page of records of entity.
	List(ctx context.Context, entity string, p Params) (*Page, error)
	// Get reads one record of entity.
	Get(ctx context.Context, entity string, p Params) (Record, error)
	// APISearch runs the source's own search and returns one page.
	APISearch(ctx context.Context, entity string, p Params) (*Page, error)
	// Download opens a stream of a file's bytes. The caller closes it.
	Download(ctx context.Context, entity string, p Params) (*download.Stream, error)
}

// Searcher is implemented by connectors that can run the `search` action:
// the hosted client, and a local replica in direct mode.
type Searcher interface {
	Search(ctx context.Context, entity string, q search.Request) (*search.Result, error)
}

// Walker is implemented by connectors that know a better way to walk every
// page of a list than repeated List calls (for example a cursor mode without
// the page-number limit of the source). All uses it when present.
type Walker interface {
	Walk(ctx context.Context, entity string, p Params) iter.Seq2[Record, error]
}

// Page is one page of records with its paging information.
type Page struct {
	// Records are the records of this page, in the source's order.
	Records []Record
	// Meta holds the paging information under the names the catalogue gives
	// for the kind (total_items, pagination, next_page, totalSize, ...).
	Meta map[string]any
	// Next holds the params that fetch the following page; nil on the last page.
	Next Params
}
