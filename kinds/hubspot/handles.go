package hubspot

import (
	"context"
	"encoding/json"
	"iter"
	"reflect"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/pagination"
)

// ListParams are the params of the lists of CRM objects (contacts,
// companies, deals, tickets, notes, calls, emails, meetings, tasks). Zero
// fields are not sent.
type ListParams struct {
	// Limit is the page size, 1 to 100 (HubSpot's default 10; at most 50
	// with PropertiesWithHistory).
	Limit int `param:"limit"`
	// After is the next_cursor of the previous page.
	After string `param:"after"`
	// Properties to return instead of the object type's defaults.
	Properties []string `param:"properties"`
	// PropertiesWithHistory are properties to return with their history.
	PropertiesWithHistory []string `param:"propertiesWithHistory"`
	// Associations are object types whose associated ids to return.
	Associations []string `param:"associations"`
	// Archived lists the archived records instead of the live ones.
	Archived bool `param:"archived"`
}

// GetParams are the optional params of a get of one CRM object.
type GetParams struct {
	Properties            []string `param:"properties"`
	PropertiesWithHistory []string `param:"propertiesWithHistory"`
	Associations          []string `param:"associations"`
	// IDProperty names a unique property (e.g. email for contacts) whose
	// value the id is; empty means the record id.
	IDProperty string `param:"idProperty"`
	// Archived reads the record among the archived ones.
	Archived bool `param:"archived"`
}

// ObjectListParams are the params of objects.list: records of any object
// type.
type ObjectListParams struct {
	// ObjectType is required: a name (contacts, cars), a fully qualified
	// name (p12345_cars) or an object type id (0-1, 2-12345).
	ObjectType string `param:"objectType"`
	ListParams
}

// OwnerListParams are the params of owners.list.
type OwnerListParams struct {
	// Limit is the page size, 1 to 500 (HubSpot's default 100).
	Limit int    `param:"limit"`
	After string `param:"after"`
	// Email lists only the owner with this address.
	Email string `param:"email"`
	// Archived lists the archived owners (deactivated users) instead.
	Archived bool `param:"archived"`
}

// PipelineListParams are the params of pipelines.list.
type PipelineListParams struct {
	// ObjectType is required: deals, tickets, ...
	ObjectType string `param:"objectType"`
}

// SchemaListParams are the params of schemas.list.
type SchemaListParams struct {
	// Archived lists the archived schemas instead.
	Archived bool `param:"archived"`
}

// SearchRequest is HubSpot's search body, the params of api_search.
type SearchRequest struct {
	// FilterGroups are ORed; the filters of a group are ANDed.
	FilterGroups []FilterGroup `json:"filterGroups,omitempty"`
	// Sorts holds HubSpot's one sort rule.
	Sorts []Sort `json:"sorts,omitempty"`
	// Query is text searched in the default searchable properties.
	Query string `json:"query,omitempty"`
	// Properties to return instead of the object type's defaults.
	Properties []string `json:"properties,omitempty"`
	// Limit is the page size, 1 to 200 (HubSpot's default 10).
	Limit int `json:"limit,omitempty"`
	// After is the next_cursor of the previous page (an offset).
	After string `json:"after,omitempty"`
}

// FilterGroup is a set of filters that must all match.
type FilterGroup struct {
	Filters []Filter `json:"filters"`
}

// Filter is one condition of a search. Operator is one of Operators;
// values are strings as HubSpot stores them (dates as epoch milliseconds
// or ISO 8601). An empty Value is not sent.
type Filter struct {
	PropertyName string   `json:"propertyName"`
	Operator     string   `json:"operator"`
	Value        string   `json:"value,omitempty"`
	HighValue    string   `json:"highValue,omitempty"`
	Values       []string `json:"values,omitempty"`
}

// Sort is a search's sort rule. Direction is ASCENDING (the default) or
// DESCENDING.
type Sort struct {
	PropertyName string `json:"propertyName"`
	Direction    string `json:"direction,omitempty"`
}

// Params returns the request as api_search params.
func (r SearchRequest) Params() (tributary.Params, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	var p tributary.Params
	err = json.Unmarshal(b, &p)
	return p, err
}

// Entity is a typed handle on one CRM object type: List, Pager and All
// from tributary.Handle, plus Get by id.
type Entity[T any] struct {
	tributary.Handle[T, ListParams]
	idParam string
}

// Get reads the record with this id, with its default properties.
func (e Entity[T]) Get(ctx context.Context, id string) (T, error) {
	return e.GetWith(ctx, id, GetParams{})
}

// GetWith reads the record with this id (or IDProperty value).
func (e Entity[T]) GetWith(ctx context.Context, id string, p GetParams) (T, error) {
	params, err := tributary.EncodeParams(p)
	if err != nil {
		var zero T
		return zero, &tributary.Error{Kind: Type, Entity: e.Entity, Action: get, Err: tributary.ErrInvalidParams, Message: err.Error()}
	}
	params[e.idParam] = id
	return e.Handle.Get(ctx, params)
}

// SearchEntity is a typed handle on a CRM object type that HubSpot
// searches: contacts, companies, deals and tickets.
type SearchEntity[T any] struct {
	Entity[T]
	c *Client
}

// Search runs one page of HubSpot's search (api_search). Page.Meta holds
// total and next_cursor; Page.Next the params of the next page.
func (e SearchEntity[T]) Search(ctx context.Context, r SearchRequest) (*pagination.Page[T], error) {
	p, err := e.searchParams(r)
	if err != nil {
		return nil, err
	}
	page, err := e.c.APISearch(ctx, e.Entity.Entity, p)
	if err != nil {
		return nil, err
	}
	items := make([]T, len(page.Records))
	for i, rec := range page.Records {
		if err := rec.Decode(&items[i]); err != nil {
			return nil, e.decodeErr(err)
		}
	}
	return &pagination.Page[T]{Items: items, Meta: page.Meta, Next: page.Next}, nil
}

// SearchAll yields every match of r, decoded, past HubSpot's
// 10,000-result cap; see Client.SearchAll.
func (e SearchEntity[T]) SearchAll(ctx context.Context, r SearchRequest) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		p, err := e.searchParams(r)
		if err != nil {
			yield(zero, err)
			return
		}
		for rec, err := range e.c.SearchAll(ctx, e.Entity.Entity, p) {
			if err != nil {
				yield(zero, err)
				return
			}
			var v T
			if err := rec.Decode(&v); err != nil {
				yield(zero, e.decodeErr(err))
				return
			}
			if !yield(v, nil) {
				return
			}
		}
	}
}

func (e SearchEntity[T]) searchParams(r SearchRequest) (tributary.Params, error) {
	p, err := r.Params()
	if err != nil {
		return nil, &tributary.Error{Kind: Type, Entity: e.Entity.Entity, Action: apiSearch, Err: tributary.ErrInvalidParams, Message: err.Error()}
	}
	return p, nil
}

func (e SearchEntity[T]) decodeErr(err error) error {
	return &tributary.Error{Kind: Type, Entity: e.Entity.Entity, Action: apiSearch, Err: tributary.ErrUnexpectedResponse,
		Message: "expected a record that decodes into " + reflect.TypeFor[T]().String() + ", got: " + err.Error(), Cause: err}
}

func entity[T any](c *Client, name, idParam string) Entity[T] {
	return Entity[T]{Handle: tributary.Handle[T, ListParams]{Conn: c, Entity: name}, idParam: idParam}
}

func searchable[T any](c *Client, name, idParam string) SearchEntity[T] {
	return SearchEntity[T]{Entity: entity[T](c, name, idParam), c: c}
}

// Contacts is the typed handle on contacts.
func (c *Client) Contacts() SearchEntity[Contact] {
	return searchable[Contact](c, "contacts", "contactId")
}

// Companies is the typed handle on companies.
func (c *Client) Companies() SearchEntity[Company] {
	return searchable[Company](c, "companies", "companyId")
}

// Deals is the typed handle on deals.
func (c *Client) Deals() SearchEntity[Deal] { return searchable[Deal](c, "deals", "dealId") }

// Tickets is the typed handle on tickets.
func (c *Client) Tickets() SearchEntity[Ticket] {
	return searchable[Ticket](c, "tickets", "ticketId")
}

// Notes is the typed handle on notes.
func (c *Client) Notes() Entity[Note] { return entity[Note](c, "notes", "noteId") }

// Calls is the typed handle on calls.
func (c *Client) Calls() Entity[Call] { return entity[Call](c, "calls", "callId") }

// Emails is the typed handle on emails.
func (c *Client) Emails() Entity[Email] { return entity[Email](c, "emails", "emailId") }

// Meetings is the typed handle on meetings.
func (c *Client) Meetings() Entity[Meeting] { return entity[Meeting](c, "meetings", "meetingId") }

// Tasks is the typed handle on tasks.
func (c *Client) Tasks() Entity[Task] { return entity[Task](c, "tasks", "taskId") }

// OwnerEntity is the typed handle on owners.
type OwnerEntity struct {
	tributary.Handle[Owner, OwnerListParams]
}

// Get reads the owner with this owner id.
func (e OwnerEntity) Get(ctx context.Context, ownerID string) (Owner, error) {
	return e.Handle.Get(ctx, tributary.Params{"ownerId": ownerID})
}

// GetByUserID reads the owner of the HubSpot user with this user id.
func (e OwnerEntity) GetByUserID(ctx context.Context, userID string) (Owner, error) {
	return e.Handle.Get(ctx, tributary.Params{"ownerId": userID, "idProperty": "userId"})
}

// Owners is the typed handle on owners.
func (c *Client) Owners() OwnerEntity {
	return OwnerEntity{tributary.Handle[Owner, OwnerListParams]{Conn: c, Entity: "owners"}}
}

// PipelineEntity is the typed handle on pipelines.
type PipelineEntity struct {
	tributary.Handle[Pipeline, PipelineListParams]
}

// Get reads one pipeline of an object type.
func (e PipelineEntity) Get(ctx context.Context, objectType, pipelineID string) (Pipeline, error) {
	return e.Handle.Get(ctx, tributary.Params{"objectType": objectType, "pipelineId": pipelineID})
}

// Pipelines is the typed handle on pipelines.
func (c *Client) Pipelines() PipelineEntity {
	return PipelineEntity{tributary.Handle[Pipeline, PipelineListParams]{Conn: c, Entity: "pipelines"}}
}

// SchemaEntity is the typed handle on custom object schemas.
type SchemaEntity struct {
	tributary.Handle[Schema, SchemaListParams]
}

// Get reads the schema of a custom object type (fully qualified name or
// object type id).
func (e SchemaEntity) Get(ctx context.Context, objectType string) (Schema, error) {
	return e.Handle.Get(ctx, tributary.Params{"objectType": objectType})
}

// Schemas is the typed handle on schemas.
func (c *Client) Schemas() SchemaEntity {
	return SchemaEntity{tributary.Handle[Schema, SchemaListParams]{Conn: c, Entity: "schemas"}}
}

// ObjectEntity is the typed handle on records of any object type.
type ObjectEntity struct {
	tributary.Handle[Object, ObjectListParams]
}

// Get reads one record of an object type.
func (e ObjectEntity) Get(ctx context.Context, objectType, objectID string) (Object, error) {
	return e.GetWith(ctx, objectType, objectID, GetParams{})
}

// GetWith reads one record of an object type with get params.
func (e ObjectEntity) GetWith(ctx context.Context, objectType, objectID string, p GetParams) (Object, error) {
	params, err := tributary.EncodeParams(p)
	if err != nil {
		return Object{}, &tributary.Error{Kind: Type, Entity: "objects", Action: get, Err: tributary.ErrInvalidParams, Message: err.Error()}
	}
	params["objectType"], params["objectId"] = objectType, objectID
	return e.Handle.Get(ctx, params)
}

// Objects is the typed handle on records of any object type, custom ones
// included.
func (c *Client) Objects() ObjectEntity {
	return ObjectEntity{tributary.Handle[Object, ObjectListParams]{Conn: c, Entity: "objects"}}
}
