package hubspot

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// Object is one CRM record as HubSpot's CRM v3 objects API returns it
// (SimplePublicObjectWithAssociations in HubSpot's OpenAPI): the record of
// every list and get on /crm/v3/objects/{objectType}[/{objectId}] and, without
// associations, of every api_search on /crm/v3/objects/{objectType}/search.
// It is also the record of the generic "objects" entity (any object type,
// custom objects included).
//
// HubSpot sends every property value as a JSON string (numbers, dates and
// booleans included) or as null when the property is known but empty, so
// Properties maps names to *string. Which properties are present depends on
// the request: the object type's default set, or the ones named in the
// properties parameter plus hs_object_id and the create/modify dates.
type Object struct {
	// ID is the record id (hs_object_id), a numeric string.
	ID string `json:"id"`
	// Properties holds the requested property values; nil means the property
	// exists but has no value.
	Properties map[string]*string `json:"properties"`
	// PropertiesWithHistory holds, for each property named in the
	// propertiesWithHistory parameter, its values, newest first.
	PropertiesWithHistory map[string][]PropertyValue `json:"propertiesWithHistory,omitempty"`
	// CreatedAt is the creation time, RFC 3339 with milliseconds, UTC.
	CreatedAt string `json:"createdAt"`
	// UpdatedAt is the last modification time, RFC 3339 with milliseconds, UTC.
	UpdatedAt string `json:"updatedAt"`
	// Archived reports whether the record is archived (deleted, restorable).
	Archived bool `json:"archived"`
	// ArchivedAt is the archive time of an archived record.
	ArchivedAt *string `json:"archivedAt,omitempty"`
	// Associations is present when the associations parameter was given: an
	// object keyed by object type ("companies", "deals", ...) whose values are
	// {"results":[{"id":"...","type":"contact_to_company"}],"paging":{...}}.
	Associations json.RawMessage `json:"associations,omitempty"`
	// ObjectWriteTraceID echoes a trace id given when the record was written
	// through a batch endpoint; usually absent.
	ObjectWriteTraceID *string `json:"objectWriteTraceId,omitempty"`
	// URL is a link to the record in HubSpot's web app, present on some
	// API versions.
	URL *string `json:"url,omitempty"`
}

// PropertyValue is one historical value of a property (ValueWithTimestamp in
// HubSpot's OpenAPI), as returned under propertiesWithHistory.
type PropertyValue struct {
	// Value is the property value, always a string.
	Value string `json:"value"`
	// Timestamp is when the value was set, RFC 3339 with milliseconds.
	Timestamp string `json:"timestamp"`
	// SourceType names what set the value, e.g. CRM_UI, API, IMPORT,
	// CALCULATED, AUTOMATION.
	SourceType string `json:"sourceType"`
	// SourceID identifies the source within its type, e.g. "userId:9586504".
	SourceID *string `json:"sourceId,omitempty"`
	// SourceLabel is a human-readable label of the source.
	SourceLabel *string `json:"sourceLabel,omitempty"`
	// UpdatedByUserID is the HubSpot user who set the value, when known.
	UpdatedByUserID *int64 `json:"updatedByUserId,omitempty"`
}

// Property returns the value of the named property and whether it is present
// with a non-null value.
func (o *Object) Property(name string) (string, bool) {
	if o == nil || o.Properties == nil {
		return "", false
	}
	v, ok := o.Properties[name]
	if !ok || v == nil {
		return "", false
	}
	return *v, true
}

// Value returns the value of the named property, or "" when it is absent
// or null.
func (o *Object) Value(name string) string {
	v, _ := o.Property(name)
	return v
}

// Float returns the named property parsed as a number. ok is false when the
// property is absent, null, empty or not a number.
func (o *Object) Float(name string) (float64, bool) {
	v, ok := o.Property(name)
	if !ok || v == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, false
	}
	return f, true
}

// Int returns the named property parsed as an integer. ok is false when the
// property is absent, null, empty or not an integer.
func (o *Object) Int(name string) (int64, bool) {
	v, ok := o.Property(name)
	if !ok || v == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// Bool returns the named property parsed as a boolean ("true"/"false").
// ok is false when the property is absent, null or not a boolean.
func (o *Object) Bool(name string) (bool, bool) {
	v, ok := o.Property(name)
	if !ok {
		return false, false
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, false
	}
	return b, true
}

// Time returns the named property parsed as a point in time. HubSpot sends
// datetime properties as RFC 3339 strings and some (older or custom ones) as
// epoch milliseconds; date-only properties as YYYY-MM-DD. ok is false when
// the property is absent, null or none of these.
func (o *Object) Time(name string) (time.Time, bool) {
	v, ok := o.Property(name)
	if !ok || v == "" {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, true
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, true
	}
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.UnixMilli(ms).UTC(), true
	}
	return time.Time{}, false
}

// List returns the named property split on HubSpot's multi-value separator
// ";" (multiple checkboxes, attachment ids), or nil when it is absent,
// null or empty.
func (o *Object) List(name string) []string {
	v, ok := o.Property(name)
	if !ok || v == "" {
		return nil
	}
	return strings.Split(v, ";")
}

// OwnerID returns hubspot_owner_id, the id of the owner (see Owner) the
// record is assigned to, or "" when unassigned.
func (o *Object) OwnerID() string { return o.Value("hubspot_owner_id") }

// Contact is a record of the contacts entity (object type "contacts", type id
// 0-1): GET /crm/v3/objects/contacts[/{contactId}] and
// POST /crm/v3/objects/contacts/search. Default properties: createdate, email,
// firstname, hs_object_id, lastmodifieddate, lastname.
type Contact struct {
	Object
}

// Email returns the email property.
func (c *Contact) Email() string { return c.Value("email") }

// FirstName returns the firstname property.
func (c *Contact) FirstName() string { return c.Value("firstname") }

// LastName returns the lastname property.
func (c *Contact) LastName() string { return c.Value("lastname") }

// Phone returns the phone property.
func (c *Contact) Phone() string { return c.Value("phone") }

// Company returns the company property (the company name typed on the
// contact, not an association).
func (c *Contact) Company() string { return c.Value("company") }

// JobTitle returns the jobtitle property.
func (c *Contact) JobTitle() string { return c.Value("jobtitle") }

// LifecycleStage returns the lifecyclestage property: subscriber, lead,
// marketingqualifiedlead, salesqualifiedlead, opportunity, customer,
// evangelist or other (or a custom stage id).
func (c *Contact) LifecycleStage() string { return c.Value("lifecyclestage") }

// AssociatedCompanyID returns associatedcompanyid, the id of the contact's
// primary company.
func (c *Contact) AssociatedCompanyID() string { return c.Value("associatedcompanyid") }

// CreateDate returns the createdate property.
func (c *Contact) CreateDate() (time.Time, bool) { return c.Time("createdate") }

// LastModifiedDate returns the lastmodifieddate property (contacts use this
// name; other objects use hs_lastmodifieddate).
func (c *Contact) LastModifiedDate() (time.Time, bool) { return c.Time("lastmodifieddate") }

// Company is a record of the companies entity (object type "companies", type
// id 0-2): GET /crm/v3/objects/companies[/{companyId}] and
// POST /crm/v3/objects/companies/search. Default properties: createdate,
// domain, hs_lastmodifieddate, hs_object_id, name.
type Company struct {
	Object
}

// Name returns the name property.
func (c *Company) Name() string { return c.Value("name") }

// Domain returns the domain property.
func (c *Company) Domain() string { return c.Value("domain") }

// Industry returns the industry property (an enumeration value such as
// COMPUTER_SOFTWARE).
func (c *Company) Industry() string { return c.Value("industry") }

// Phone returns the phone property.
func (c *Company) Phone() string { return c.Value("phone") }

// City returns the city property.
func (c *Company) City() string { return c.Value("city") }

// Country returns the country property.
func (c *Company) Country() string { return c.Value("country") }

// NumberOfEmployees returns numberofemployees parsed as an integer.
func (c *Company) NumberOfEmployees() (int64, bool) { return c.Int("numberofemployees") }

// AnnualRevenue returns annualrevenue parsed as a number (in the account's
// currency).
func (c *Company) AnnualRevenue() (float64, bool) { return c.Float("annualrevenue") }

// CreateDate returns the createdate property.
func (c *Company) CreateDate() (time.Time, bool) { return c.Time("createdate") }

// LastModifiedDate returns the hs_lastmodifieddate property.
func (c *Company) LastModifiedDate() (time.Time, bool) { return c.Time("hs_lastmodifieddate") }

// Deal is a record of the deals entity (object type "deals", type id 0-3):
// GET /crm/v3/objects/deals[/{dealId}] and POST /crm/v3/objects/deals/search.
// Default properties: amount, closedate, createdate, dealname, dealstage,
// hs_lastmodifieddate, hs_object_id, pipeline.
type Deal struct {
	Object
}

// DealName returns the dealname property.
func (d *Deal) DealName() string { return d.Value("dealname") }

// Amount returns the amount property parsed as a number (in the deal's
// currency, deal_currency_code).
func (d *Deal) Amount() (float64, bool) { return d.Float("amount") }

// DealStage returns dealstage, the id of the deal's stage in its pipeline
// (see Pipeline), e.g. appointmentscheduled or closedwon.
func (d *Deal) DealStage() string { return d.Value("dealstage") }

// Pipeline returns pipeline, the id of the deal's pipeline, e.g. "default".
func (d *Deal) Pipeline() string { return d.Value("pipeline") }

// DealType returns dealtype: newbusiness or existingbusiness.
func (d *Deal) DealType() string { return d.Value("dealtype") }

// CloseDate returns the closedate property.
func (d *Deal) CloseDate() (time.Time, bool) { return d.Time("closedate") }

// CreateDate returns the createdate property.
func (d *Deal) CreateDate() (time.Time, bool) { return d.Time("createdate") }

// LastModifiedDate returns the hs_lastmodifieddate property.
func (d *Deal) LastModifiedDate() (time.Time, bool) { return d.Time("hs_lastmodifieddate") }

// Ticket is a record of the tickets entity (object type "tickets", type id
// 0-5): GET /crm/v3/objects/tickets[/{ticketId}] and
// POST /crm/v3/objects/tickets/search. Default properties: content,
// createdate, hs_lastmodifieddate, hs_object_id, hs_pipeline,
// hs_pipeline_stage, hs_ticket_category, hs_ticket_priority, subject.
type Ticket struct {
	Object
}

// Subject returns the subject property.
func (t *Ticket) Subject() string { return t.Value("subject") }

// Content returns the content property (the ticket description).
func (t *Ticket) Content() string { return t.Value("content") }

// Pipeline returns hs_pipeline, the id of the ticket's pipeline, e.g. "0".
func (t *Ticket) Pipeline() string { return t.Value("hs_pipeline") }

// PipelineStage returns hs_pipeline_stage, the id of the ticket's stage
// (see Pipeline), e.g. "1" (New) or "4" (Closed) in the default pipeline.
func (t *Ticket) PipelineStage() string { return t.Value("hs_pipeline_stage") }

// Category returns hs_ticket_category, e.g. PRODUCT_ISSUE, BILLING_ISSUE,
// FEATURE_REQUEST or GENERAL_INQUIRY; several values are joined by ";".
func (t *Ticket) Category() string { return t.Value("hs_ticket_category") }

// Priority returns hs_ticket_priority: LOW, MEDIUM, HIGH or URGENT.
func (t *Ticket) Priority() string { return t.Value("hs_ticket_priority") }

// CreateDate returns the createdate property.
func (t *Ticket) CreateDate() (time.Time, bool) { return t.Time("createdate") }

// LastModifiedDate returns the hs_lastmodifieddate property.
func (t *Ticket) LastModifiedDate() (time.Time, bool) { return t.Time("hs_lastmodifieddate") }

// Note is a record of the notes entity (engagement object type "notes", type
// id 0-46): GET /crm/v3/objects/notes[/{noteId}]. Default properties:
// hs_createdate, hs_lastmodifieddate, hs_object_id.
type Note struct {
	Object
}

// Body returns hs_note_body, the note text (may contain HTML).
func (n *Note) Body() string { return n.Value("hs_note_body") }

// Timestamp returns hs_timestamp, when the note was logged.
func (n *Note) Timestamp() (time.Time, bool) { return n.Time("hs_timestamp") }

// AttachmentIDs returns hs_attachment_ids, the ids of attached files.
func (n *Note) AttachmentIDs() []string { return n.List("hs_attachment_ids") }

// Call is a record of the calls entity (engagement object type "calls", type
// id 0-48): GET /crm/v3/objects/calls[/{callId}]. Default properties:
// hs_createdate, hs_lastmodifieddate, hs_object_id.
type Call struct {
	Object
}

// Title returns hs_call_title.
func (c *Call) Title() string { return c.Value("hs_call_title") }

// Body returns hs_call_body, the call notes.
func (c *Call) Body() string { return c.Value("hs_call_body") }

// Direction returns hs_call_direction: INBOUND or OUTBOUND.
func (c *Call) Direction() string { return c.Value("hs_call_direction") }

// Disposition returns hs_call_disposition, the id of the call outcome.
func (c *Call) Disposition() string { return c.Value("hs_call_disposition") }

// Status returns hs_call_status: BUSY, CALLING_CRM_USER, CANCELED, COMPLETED,
// CONNECTING, FAILED, IN_PROGRESS, NO_ANSWER, QUEUED or RINGING.
func (c *Call) Status() string { return c.Value("hs_call_status") }

// Duration returns hs_call_duration, the call length in milliseconds.
func (c *Call) Duration() (time.Duration, bool) {
	ms, ok := c.Int("hs_call_duration")
	if !ok {
		return 0, false
	}
	return time.Duration(ms) * time.Millisecond, true
}

// FromNumber returns hs_call_from_number.
func (c *Call) FromNumber() string { return c.Value("hs_call_from_number") }

// ToNumber returns hs_call_to_number.
func (c *Call) ToNumber() string { return c.Value("hs_call_to_number") }

// RecordingURL returns hs_call_recording_url.
func (c *Call) RecordingURL() string { return c.Value("hs_call_recording_url") }

// Timestamp returns hs_timestamp, when the call took place.
func (c *Call) Timestamp() (time.Time, bool) { return c.Time("hs_timestamp") }

// Email is a record of the emails entity (engagement object type "emails",
// type id 0-49): GET /crm/v3/objects/emails[/{emailId}]. Default properties:
// hs_createdate, hs_lastmodifieddate, hs_object_id.
type Email struct {
	Object
}

// Subject returns hs_email_subject.
func (e *Email) Subject() string { return e.Value("hs_email_subject") }

// Text returns hs_email_text, the plain-text body.
func (e *Email) Text() string { return e.Value("hs_email_text") }

// HTML returns hs_email_html, the HTML body.
func (e *Email) HTML() string { return e.Value("hs_email_html") }

// Direction returns hs_email_direction: EMAIL (sent from the CRM),
// INCOMING_EMAIL or FORWARDED_EMAIL.
func (e *Email) Direction() string { return e.Value("hs_email_direction") }

// Status returns hs_email_status: BOUNCED, FAILED, SCHEDULED, SENDING or SENT.
func (e *Email) Status() string { return e.Value("hs_email_status") }

// Headers returns hs_email_headers, a JSON string with from/to/cc/bcc.
func (e *Email) Headers() string { return e.Value("hs_email_headers") }

// Timestamp returns hs_timestamp, when the email was sent.
func (e *Email) Timestamp() (time.Time, bool) { return e.Time("hs_timestamp") }

// Meeting is a record of the meetings entity (engagement object type
// "meetings", type id 0-47): GET /crm/v3/objects/meetings[/{meetingId}].
// Default properties: hs_createdate, hs_lastmodifieddate, hs_object_id.
type Meeting struct {
	Object
}

// Title returns hs_meeting_title.
func (m *Meeting) Title() string { return m.Value("hs_meeting_title") }

// Body returns hs_meeting_body, the meeting description.
func (m *Meeting) Body() string { return m.Value("hs_meeting_body") }

// InternalNotes returns hs_internal_meeting_notes.
func (m *Meeting) InternalNotes() string { return m.Value("hs_internal_meeting_notes") }

// Location returns hs_meeting_location.
func (m *Meeting) Location() string { return m.Value("hs_meeting_location") }

// ExternalURL returns hs_meeting_external_url (the calendar event link).
func (m *Meeting) ExternalURL() string { return m.Value("hs_meeting_external_url") }

// Outcome returns hs_meeting_outcome: SCHEDULED, COMPLETED, RESCHEDULED,
// NO_SHOW or CANCELED.
func (m *Meeting) Outcome() string { return m.Value("hs_meeting_outcome") }

// StartTime returns hs_meeting_start_time.
func (m *Meeting) StartTime() (time.Time, bool) { return m.Time("hs_meeting_start_time") }

// EndTime returns hs_meeting_end_time.
func (m *Meeting) EndTime() (time.Time, bool) { return m.Time("hs_meeting_end_time") }

// Timestamp returns hs_timestamp, the meeting's position on the timeline.
func (m *Meeting) Timestamp() (time.Time, bool) { return m.Time("hs_timestamp") }

// Task is a record of the tasks entity (engagement object type "tasks", type
// id 0-27): GET /crm/v3/objects/tasks[/{taskId}]. Default properties:
// hs_createdate, hs_lastmodifieddate, hs_object_id.
type Task struct {
	Object
}

// Subject returns hs_task_subject.
func (t *Task) Subject() string { return t.Value("hs_task_subject") }

// Body returns hs_task_body, the task notes.
func (t *Task) Body() string { return t.Value("hs_task_body") }

// Status returns hs_task_status: NOT_STARTED, IN_PROGRESS, WAITING,
// COMPLETED or DEFERRED.
func (t *Task) Status() string { return t.Value("hs_task_status") }

// Priority returns hs_task_priority: NONE, LOW, MEDIUM or HIGH.
func (t *Task) Priority() string { return t.Value("hs_task_priority") }

// Type returns hs_task_type: EMAIL, CALL, LINKED_IN or TODO.
func (t *Task) Type() string { return t.Value("hs_task_type") }

// DueDate returns hs_timestamp, which for tasks is the due date.
func (t *Task) DueDate() (time.Time, bool) { return t.Time("hs_timestamp") }

// Owner is a record of the owners entity (PublicOwner in HubSpot's OpenAPI):
// GET /crm/v3/owners and GET /crm/v3/owners/{ownerId}. Owners are the users
// and queues CRM records can be assigned to (hubspot_owner_id).
type Owner struct {
	// ID is the owner id, the value used in hubspot_owner_id.
	ID string `json:"id"`
	// Email is the owner's email address.
	Email *string `json:"email,omitempty"`
	// FirstName is the owner's first name.
	FirstName *string `json:"firstName,omitempty"`
	// LastName is the owner's last name.
	LastName *string `json:"lastName,omitempty"`
	// UserID is the id of the HubSpot user behind the owner (for the settings
	// APIs; not valid as hubspot_owner_id). Absent for deactivated users.
	UserID *int64 `json:"userId,omitempty"`
	// UserIDIncludingInactive is the user id, also for deactivated users.
	UserIDIncludingInactive *int64 `json:"userIdIncludingInactive,omitempty"`
	// Type is PERSON or QUEUE.
	Type string `json:"type"`
	// CreatedAt is the creation time, RFC 3339 with milliseconds.
	CreatedAt string `json:"createdAt"`
	// UpdatedAt is the last update of the owner itself (not of team
	// membership), RFC 3339 with milliseconds.
	UpdatedAt string `json:"updatedAt"`
	// Archived reports whether the owner is archived (deactivated user).
	Archived bool `json:"archived"`
	// Teams lists the teams the owner belongs to.
	Teams []OwnerTeam `json:"teams,omitempty"`
}

// OwnerTeam is a team an owner belongs to (PublicTeam in HubSpot's OpenAPI).
type OwnerTeam struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Primary reports whether this is the owner's main team.
	Primary bool `json:"primary"`
}

// Pipeline is a record of the pipelines entity: GET
// /crm/v3/pipelines/{objectType} (unpaged, {"results":[...]}) and GET
// /crm/v3/pipelines/{objectType}/{pipelineId}. Deals and tickets (and some
// other objects) move through the stages of a pipeline.
type Pipeline struct {
	// ID is the pipeline id: "default" for the default deal pipeline, "0" for
	// the default ticket pipeline, a numeric string otherwise.
	ID string `json:"id"`
	// Label is the display name.
	Label string `json:"label"`
	// DisplayOrder orders pipelines in the UI (ties broken by label).
	DisplayOrder int64 `json:"displayOrder"`
	// Stages are the pipeline's stages.
	Stages []PipelineStage `json:"stages"`
	// CreatedAt is the creation time, RFC 3339 with milliseconds.
	CreatedAt string `json:"createdAt"`
	// UpdatedAt is the last update time, RFC 3339 with milliseconds.
	UpdatedAt string `json:"updatedAt"`
	// Archived reports whether the pipeline is archived.
	Archived bool `json:"archived"`
	// ArchivedAt is the archive time of an archived pipeline.
	ArchivedAt *string `json:"archivedAt,omitempty"`
}

// PipelineStage is one stage of a Pipeline.
type PipelineStage struct {
	// ID is the stage id, the value of dealstage / hs_pipeline_stage.
	ID string `json:"id"`
	// Label is the display name.
	Label string `json:"label"`
	// DisplayOrder orders stages within the pipeline.
	DisplayOrder int64 `json:"displayOrder"`
	// Metadata holds string settings: deal stages carry "probability"
	// ("0.0".."1.0") and "isClosed" ("true"/"false"); ticket stages carry
	// "ticketState" (OPEN or CLOSED).
	Metadata map[string]string `json:"metadata"`
	// WritePermissions is CRM_PERMISSIONS_ENFORCEMENT, READ_ONLY or
	// INTERNAL_ONLY.
	WritePermissions *string `json:"writePermissions,omitempty"`
	// CreatedAt is the creation time, RFC 3339 with milliseconds.
	CreatedAt string `json:"createdAt"`
	// UpdatedAt is the last update time, RFC 3339 with milliseconds.
	UpdatedAt string `json:"updatedAt"`
	// Archived reports whether the stage is archived.
	Archived bool `json:"archived"`
	// ArchivedAt is the archive time of an archived stage.
	ArchivedAt *string `json:"archivedAt,omitempty"`
}

// Schema is a record of the schemas entity (ObjectSchema in HubSpot's
// OpenAPI): a custom object type definition, from GET
// /crm-object-schemas/v3/schemas (unpaged, {"results":[...]}) and GET
// /crm-object-schemas/v3/schemas/{objectType}.
type Schema struct {
	// ID is the schema id (the numeric part of the object type id).
	ID string `json:"id"`
	// Name is the object's internal name, e.g. "cars".
	Name string `json:"name"`
	// Labels are the singular and plural display names.
	Labels SchemaLabels `json:"labels"`
	// ObjectTypeID is the object type id, "2-<id>" for custom objects; it can
	// be used as objectType in the objects API.
	ObjectTypeID string `json:"objectTypeId,omitempty"`
	// FullyQualifiedName is "p<portalId>_<name>", also usable as objectType.
	FullyQualifiedName string `json:"fullyQualifiedName,omitempty"`
	// Description is the object's description.
	Description *string `json:"description,omitempty"`
	// PrimaryDisplayProperty names the property used as the record's name.
	PrimaryDisplayProperty *string `json:"primaryDisplayProperty,omitempty"`
	// SecondaryDisplayProperties name properties shown under the name.
	SecondaryDisplayProperties []string `json:"secondaryDisplayProperties,omitempty"`
	// RequiredProperties must be set when creating a record.
	RequiredProperties []string `json:"requiredProperties"`
	// SearchableProperties are indexed for the search query text.
	SearchableProperties []string `json:"searchableProperties,omitempty"`
	// Properties are the object's property definitions.
	Properties []SchemaProperty `json:"properties"`
	// Associations are the object's association definitions.
	Associations []SchemaAssociation `json:"associations"`
	// AllowsSensitiveProperties reports whether sensitive data properties may
	// be created on the object.
	AllowsSensitiveProperties *bool `json:"allowsSensitiveProperties,omitempty"`
	// MetaType is PORTAL_SPECIFIC for custom objects.
	MetaType *string `json:"metaType,omitempty"`
	// Restorable reports whether an archived schema can be restored.
	Restorable *bool `json:"restorable,omitempty"`
	// Archived reports whether the schema is archived.
	Archived bool `json:"archived"`
	// CreatedByUserID is the HubSpot user who created the schema.
	CreatedByUserID *int64 `json:"createdByUserId,omitempty"`
	// UpdatedByUserID is the HubSpot user who last changed the schema.
	UpdatedByUserID *int64 `json:"updatedByUserId,omitempty"`
	// CreatedAt is the creation time, RFC 3339 with milliseconds.
	CreatedAt *string `json:"createdAt,omitempty"`
	// UpdatedAt is the last update time, RFC 3339 with milliseconds.
	UpdatedAt *string `json:"updatedAt,omitempty"`
}

// SchemaLabels are the display names of a custom object type.
type SchemaLabels struct {
	Singular *string `json:"singular,omitempty"`
	Plural   *string `json:"plural,omitempty"`
}

// SchemaAssociation is an association definition of a Schema.
type SchemaAssociation struct {
	// ID is the association type id.
	ID string `json:"id"`
	// Name is the association's internal name, e.g. "cars_to_contact".
	Name *string `json:"name,omitempty"`
	// FromObjectTypeID and ToObjectTypeID are object type ids such as
	// "2-1234567" and "0-1".
	FromObjectTypeID string  `json:"fromObjectTypeId"`
	ToObjectTypeID   string  `json:"toObjectTypeId"`
	CreatedAt        *string `json:"createdAt,omitempty"`
	UpdatedAt        *string `json:"updatedAt,omitempty"`
}

// SchemaProperty is a property definition of a Schema (Property in HubSpot's
// OpenAPI).
type SchemaProperty struct {
	// Name is the internal name, the key in Object.Properties.
	Name string `json:"name"`
	// Label is the display name.
	Label string `json:"label"`
	// Type is the data type: string, number, date, datetime, enumeration,
	// bool, phone_number or object_coordinates.
	Type string `json:"type"`
	// FieldType is the form control: text, textarea, number, date, select,
	// radio, checkbox, booleancheckbox, calculation_equation, file, html,
	// phonenumber.
	FieldType string `json:"fieldType"`
	// GroupName is the property group.
	GroupName string `json:"groupName"`
	// Description is the help text.
	Description string `json:"description"`
	// Options are the allowed values of an enumeration.
	Options []PropertyOption `json:"options"`
	// DisplayOrder orders properties in their group (-1 = last).
	DisplayOrder *int64 `json:"displayOrder,omitempty"`
	// Calculated reports whether the value is computed by HubSpot.
	Calculated *bool `json:"calculated,omitempty"`
	// CalculationFormula is the formula of a calculated property.
	CalculationFormula *string `json:"calculationFormula,omitempty"`
	// ExternalOptions reports whether options come from another source
	// (e.g. owners).
	ExternalOptions *bool `json:"externalOptions,omitempty"`
	// HasUniqueValue reports whether values must be unique (usable as
	// idProperty).
	HasUniqueValue *bool `json:"hasUniqueValue,omitempty"`
	// Hidden reports whether the property is hidden in the UI.
	Hidden *bool `json:"hidden,omitempty"`
	// HubspotDefined reports whether HubSpot created the property.
	HubspotDefined *bool `json:"hubspotDefined,omitempty"`
	// FormField reports whether the property can be used in forms.
	FormField *bool `json:"formField,omitempty"`
	// ShowCurrencySymbol reports whether a number is shown as money.
	ShowCurrencySymbol *bool `json:"showCurrencySymbol,omitempty"`
	// ReferencedObjectType names the object type a reference property
	// points to (e.g. OWNER).
	ReferencedObjectType *string `json:"referencedObjectType,omitempty"`
	// DataSensitivity is non_sensitive, sensitive or highly_sensitive.
	DataSensitivity *string `json:"dataSensitivity,omitempty"`
	// SensitiveDataCategories lists the categories of sensitive data.
	SensitiveDataCategories []string `json:"sensitiveDataCategories,omitempty"`
	// ModificationMetadata tells what may be changed about the property.
	ModificationMetadata *PropertyModificationMetadata `json:"modificationMetadata,omitempty"`
	// CreatedUserID and UpdatedUserID are HubSpot user ids, as strings.
	CreatedUserID *string `json:"createdUserId,omitempty"`
	UpdatedUserID *string `json:"updatedUserId,omitempty"`
	CreatedAt     *string `json:"createdAt,omitempty"`
	UpdatedAt     *string `json:"updatedAt,omitempty"`
	Archived      *bool   `json:"archived,omitempty"`
	ArchivedAt    *string `json:"archivedAt,omitempty"`
}

// PropertyOption is one allowed value of an enumeration property.
type PropertyOption struct {
	Label        string  `json:"label"`
	Value        string  `json:"value"`
	Description  *string `json:"description,omitempty"`
	DisplayOrder *int64  `json:"displayOrder,omitempty"`
	Hidden       bool    `json:"hidden"`
}

// PropertyModificationMetadata tells what may be changed about a property.
type PropertyModificationMetadata struct {
	Archivable         bool  `json:"archivable"`
	ReadOnlyDefinition bool  `json:"readOnlyDefinition"`
	ReadOnlyValue      bool  `json:"readOnlyValue"`
	ReadOnlyOptions    *bool `json:"readOnlyOptions,omitempty"`
}
