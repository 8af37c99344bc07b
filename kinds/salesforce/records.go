package salesforce

import (
	"encoding/json"

	"github.com/tributary-dev/tributary/internal/jsonx"
)

// Typed records of the Salesforce (sales CRM) connector. Field names follow
// Go conventions; the json tags are Salesforce's exact API names. Types
// follow the connector catalogue: strings stay strings (a JSON null decodes
// as ""), int is int64, number is float64, compound address fields are kept
// as raw JSON. Fields the catalogue does not list are typed from
// Salesforce's object reference, with pointers where Salesforce sends null
// for numbers. Dates are "2006-01-02" strings and date-times are strings of
// the form "2006-01-02T15:04:05.000+0000".
//
// A query returns only the fields its SELECT names, and a get with the
// fields parameter only the chosen ones; fields that were not returned are
// left at their zero value.

// Attributes is the "attributes" member every record carries: its sObject
// type and the REST URL of the record (relative to the instance). Aggregate
// query rows have a type ("AggregateResult") and no URL.
type Attributes struct {
	Type string `json:"type"`
	URL  string `json:"url,omitempty"`
}

// Account is a record of the accounts entity (sObject Account), returned by
// GET /sobjects/Account/{id}, by SOQL queries FROM Account and by SOSL
// searches.
type Account struct {
	Attributes             Attributes      `json:"attributes"`
	ID                     string          `json:"Id"`
	IsDeleted              bool            `json:"IsDeleted"`
	MasterRecordID         string          `json:"MasterRecordId"` // surviving record after a merge
	Name                   string          `json:"Name"`
	Type                   string          `json:"Type"` // picklist: Prospect, Customer - Direct, ...
	ParentID               string          `json:"ParentId"`
	BillingStreet          string          `json:"BillingStreet"`
	BillingCity            string          `json:"BillingCity"`
	BillingState           string          `json:"BillingState"`
	BillingPostalCode      string          `json:"BillingPostalCode"`
	BillingCountry         string          `json:"BillingCountry"`
	BillingLatitude        *float64        `json:"BillingLatitude"`
	BillingLongitude       *float64        `json:"BillingLongitude"`
	BillingGeocodeAccuracy string          `json:"BillingGeocodeAccuracy"`
	BillingAddress         json.RawMessage `json:"BillingAddress"` // compound: street, city, state, postalCode, country, latitude, longitude, geocodeAccuracy

	ShippingStreet          string          `json:"ShippingStreet"`
	ShippingCity            string          `json:"ShippingCity"`
	ShippingState           string          `json:"ShippingState"`
	ShippingPostalCode      string          `json:"ShippingPostalCode"`
	ShippingCountry         string          `json:"ShippingCountry"`
	ShippingLatitude        *float64        `json:"ShippingLatitude"`
	ShippingLongitude       *float64        `json:"ShippingLongitude"`
	ShippingGeocodeAccuracy string          `json:"ShippingGeocodeAccuracy"`
	ShippingAddress         json.RawMessage `json:"ShippingAddress"` // compound, as BillingAddress

	Phone             string   `json:"Phone"`
	Fax               string   `json:"Fax"`
	AccountNumber     string   `json:"AccountNumber"`
	Website           string   `json:"Website"`
	PhotoURL          string   `json:"PhotoUrl"`
	Sic               string   `json:"Sic"` // Standard Industrial Classification code
	Industry          string   `json:"Industry"`
	AnnualRevenue     *float64 `json:"AnnualRevenue"` // in the org's currency
	NumberOfEmployees int64    `json:"NumberOfEmployees"`
	Ownership         string   `json:"Ownership"`
	TickerSymbol      string   `json:"TickerSymbol"`
	Description       string   `json:"Description"`
	Rating            string   `json:"Rating"` // Hot, Warm, Cold
	Site              string   `json:"Site"`
	OwnerID           string   `json:"OwnerId"`

	CreatedDate        string `json:"CreatedDate"`
	CreatedByID        string `json:"CreatedById"`
	LastModifiedDate   string `json:"LastModifiedDate"`
	LastModifiedByID   string `json:"LastModifiedById"`
	SystemModstamp     string `json:"SystemModstamp"` // last change by a user or an automated process
	LastActivityDate   string `json:"LastActivityDate"`
	LastViewedDate     string `json:"LastViewedDate"`
	LastReferencedDate string `json:"LastReferencedDate"`
	AccountSource      string `json:"AccountSource"`
}

// Contact is a record of the contacts entity (sObject Contact).
type Contact struct {
	Attributes     Attributes `json:"attributes"`
	ID             string     `json:"Id"`
	IsDeleted      bool       `json:"IsDeleted"`
	MasterRecordID string     `json:"MasterRecordId"`
	AccountID      string     `json:"AccountId"`
	LastName       string     `json:"LastName"`
	FirstName      string     `json:"FirstName"`
	Salutation     string     `json:"Salutation"`
	Name           string     `json:"Name"` // full name, read-only

	MailingStreet          string          `json:"MailingStreet"`
	MailingCity            string          `json:"MailingCity"`
	MailingState           string          `json:"MailingState"`
	MailingPostalCode      string          `json:"MailingPostalCode"`
	MailingCountry         string          `json:"MailingCountry"`
	MailingLatitude        *float64        `json:"MailingLatitude"`
	MailingLongitude       *float64        `json:"MailingLongitude"`
	MailingGeocodeAccuracy string          `json:"MailingGeocodeAccuracy"`
	MailingAddress         json.RawMessage `json:"MailingAddress"` // compound address

	Phone              string `json:"Phone"`
	Fax                string `json:"Fax"`
	MobilePhone        string `json:"MobilePhone"`
	HomePhone          string `json:"HomePhone"`
	OtherPhone         string `json:"OtherPhone"`
	AssistantPhone     string `json:"AssistantPhone"`
	ReportsToID        string `json:"ReportsToId"`
	Email              string `json:"Email"`
	Title              string `json:"Title"`
	Department         string `json:"Department"`
	AssistantName      string `json:"AssistantName"`
	LeadSource         string `json:"LeadSource"`
	Birthdate          string `json:"Birthdate"`
	Description        string `json:"Description"`
	OwnerID            string `json:"OwnerId"`
	HasOptedOutOfEmail bool   `json:"HasOptedOutOfEmail"`
	DoNotCall          bool   `json:"DoNotCall"`

	CreatedDate        string `json:"CreatedDate"`
	CreatedByID        string `json:"CreatedById"`
	LastModifiedDate   string `json:"LastModifiedDate"`
	LastModifiedByID   string `json:"LastModifiedById"`
	SystemModstamp     string `json:"SystemModstamp"`
	LastActivityDate   string `json:"LastActivityDate"`
	LastViewedDate     string `json:"LastViewedDate"`
	LastReferencedDate string `json:"LastReferencedDate"`
	EmailBouncedReason string `json:"EmailBouncedReason"`
	EmailBouncedDate   string `json:"EmailBouncedDate"`
	IsEmailBounced     bool   `json:"IsEmailBounced"`
	PhotoURL           string `json:"PhotoUrl"`
}

// Lead is a record of the leads entity (sObject Lead).
type Lead struct {
	Attributes     Attributes `json:"attributes"`
	ID             string     `json:"Id"`
	IsDeleted      bool       `json:"IsDeleted"`
	MasterRecordID string     `json:"MasterRecordId"`
	LastName       string     `json:"LastName"`
	FirstName      string     `json:"FirstName"`
	Salutation     string     `json:"Salutation"`
	Name           string     `json:"Name"`
	Title          string     `json:"Title"`
	Company        string     `json:"Company"`

	Street          string          `json:"Street"`
	City            string          `json:"City"`
	State           string          `json:"State"`
	PostalCode      string          `json:"PostalCode"`
	Country         string          `json:"Country"`
	Latitude        *float64        `json:"Latitude"`
	Longitude       *float64        `json:"Longitude"`
	GeocodeAccuracy string          `json:"GeocodeAccuracy"`
	Address         json.RawMessage `json:"Address"` // compound address

	Phone              string   `json:"Phone"`
	MobilePhone        string   `json:"MobilePhone"`
	Fax                string   `json:"Fax"`
	Email              string   `json:"Email"`
	Website            string   `json:"Website"`
	PhotoURL           string   `json:"PhotoUrl"`
	Description        string   `json:"Description"`
	LeadSource         string   `json:"LeadSource"`
	Status             string   `json:"Status"` // Open - Not Contacted, Working - Contacted, Closed - Converted, ...
	Industry           string   `json:"Industry"`
	Rating             string   `json:"Rating"`
	AnnualRevenue      *float64 `json:"AnnualRevenue"`
	NumberOfEmployees  int64    `json:"NumberOfEmployees"`
	OwnerID            string   `json:"OwnerId"`
	HasOptedOutOfEmail bool     `json:"HasOptedOutOfEmail"`

	IsConverted            bool   `json:"IsConverted"`
	ConvertedDate          string `json:"ConvertedDate"`
	ConvertedAccountID     string `json:"ConvertedAccountId"`
	ConvertedContactID     string `json:"ConvertedContactId"`
	ConvertedOpportunityID string `json:"ConvertedOpportunityId"`
	IsUnreadByOwner        bool   `json:"IsUnreadByOwner"`

	CreatedDate        string `json:"CreatedDate"`
	CreatedByID        string `json:"CreatedById"`
	LastModifiedDate   string `json:"LastModifiedDate"`
	LastModifiedByID   string `json:"LastModifiedById"`
	SystemModstamp     string `json:"SystemModstamp"`
	LastActivityDate   string `json:"LastActivityDate"`
	DoNotCall          bool   `json:"DoNotCall"`
	LastViewedDate     string `json:"LastViewedDate"`
	LastReferencedDate string `json:"LastReferencedDate"`
	EmailBouncedReason string `json:"EmailBouncedReason"`
	EmailBouncedDate   string `json:"EmailBouncedDate"`
	IsEmailBounced     bool   `json:"IsEmailBounced"`
}

// Opportunity is a record of the opportunities entity (sObject
// Opportunity).
type Opportunity struct {
	Attributes  Attributes `json:"attributes"`
	ID          string     `json:"Id"`
	IsDeleted   bool       `json:"IsDeleted"`
	AccountID   string     `json:"AccountId"`
	IsPrivate   bool       `json:"IsPrivate"`
	Name        string     `json:"Name"`
	Description string     `json:"Description"`
	StageName   string     `json:"StageName"`
	// Amount is in the org's currency.
	Amount float64 `json:"Amount"`
	// Probability is a percentage, 0 to 100.
	Probability float64 `json:"Probability"`
	// ExpectedRevenue is Amount × Probability / 100, read-only.
	ExpectedRevenue          float64  `json:"ExpectedRevenue"`
	TotalOpportunityQuantity *float64 `json:"TotalOpportunityQuantity"`
	CloseDate                string   `json:"CloseDate"`
	Type                     string   `json:"Type"`
	NextStep                 string   `json:"NextStep"`
	LeadSource               string   `json:"LeadSource"`
	IsClosed                 bool     `json:"IsClosed"`
	IsWon                    bool     `json:"IsWon"`
	// ForecastCategory is the API value (Omitted, Pipeline, BestCase,
	// Commit, Closed); ForecastCategoryName is its label.
	ForecastCategory       string `json:"ForecastCategory"`
	ForecastCategoryName   string `json:"ForecastCategoryName"`
	CampaignID             string `json:"CampaignId"`
	HasOpportunityLineItem bool   `json:"HasOpportunityLineItem"`
	Pricebook2ID           string `json:"Pricebook2Id"`
	OwnerID                string `json:"OwnerId"`

	CreatedDate         string `json:"CreatedDate"`
	CreatedByID         string `json:"CreatedById"`
	LastModifiedDate    string `json:"LastModifiedDate"`
	LastModifiedByID    string `json:"LastModifiedById"`
	SystemModstamp      string `json:"SystemModstamp"`
	LastActivityDate    string `json:"LastActivityDate"`
	LastStageChangeDate string `json:"LastStageChangeDate"`
	FiscalQuarter       int64  `json:"FiscalQuarter"`
	FiscalYear          int64  `json:"FiscalYear"`
	Fiscal              string `json:"Fiscal"` // "YYYY Q", e.g. "2025 1"
	ContactID           string `json:"ContactId"`
	LastViewedDate      string `json:"LastViewedDate"`
	LastReferencedDate  string `json:"LastReferencedDate"`
	HasOpenActivity     bool   `json:"HasOpenActivity"`
	HasOverdueTask      bool   `json:"HasOverdueTask"`
}

// Task is a record of the tasks entity (sObject Task): a to-do, a logged
// call or a logged e-mail.
type Task struct {
	Attributes Attributes `json:"attributes"`
	ID         string     `json:"Id"`
	// WhoID is the contact or lead the task is about; WhatID the account,
	// opportunity, case or other record it relates to.
	WhoID          string `json:"WhoId"`
	WhatID         string `json:"WhatId"`
	WhoCount       int64  `json:"WhoCount"`
	WhatCount      int64  `json:"WhatCount"`
	Subject        string `json:"Subject"`
	ActivityDate   string `json:"ActivityDate"` // due date
	Status         string `json:"Status"`
	Priority       string `json:"Priority"`
	IsHighPriority bool   `json:"IsHighPriority"`
	OwnerID        string `json:"OwnerId"`
	Description    string `json:"Description"`
	IsDeleted      bool   `json:"IsDeleted"`
	AccountID      string `json:"AccountId"`
	IsClosed       bool   `json:"IsClosed"`

	CreatedDate      string `json:"CreatedDate"`
	CreatedByID      string `json:"CreatedById"`
	LastModifiedDate string `json:"LastModifiedDate"`
	LastModifiedByID string `json:"LastModifiedById"`
	SystemModstamp   string `json:"SystemModstamp"`
	IsArchived       bool   `json:"IsArchived"`

	// CallDurationInSeconds, CallType (Internal, Inbound, Outbound) and
	// CallDisposition are set on logged calls only.
	CallDurationInSeconds int64  `json:"CallDurationInSeconds"`
	CallType              string `json:"CallType"`
	CallDisposition       string `json:"CallDisposition"`
	CallObject            string `json:"CallObject"`
	ReminderDateTime      string `json:"ReminderDateTime"`
	IsReminderSet         bool   `json:"IsReminderSet"`
	RecurrenceActivityID  string `json:"RecurrenceActivityId"`
	IsRecurrence          bool   `json:"IsRecurrence"`
	TaskSubtype           string `json:"TaskSubtype"` // Task, Email, ListEmail, Call, LinkedIn, Cadence
	CompletedDateTime     string `json:"CompletedDateTime"`
	Type                  string `json:"Type"`
}

// Event is a record of the events entity (sObject Event): a calendar event.
type Event struct {
	Attributes       Attributes `json:"attributes"`
	ID               string     `json:"Id"`
	WhoID            string     `json:"WhoId"`
	WhatID           string     `json:"WhatId"`
	WhoCount         int64      `json:"WhoCount"`
	WhatCount        int64      `json:"WhatCount"`
	Subject          string     `json:"Subject"`
	Location         string     `json:"Location"`
	IsAllDayEvent    bool       `json:"IsAllDayEvent"`
	ActivityDateTime string     `json:"ActivityDateTime"` // null for all-day events
	ActivityDate     string     `json:"ActivityDate"`
	// DurationInMinutes is the length of the event (1440 for all-day events).
	DurationInMinutes *int64 `json:"DurationInMinutes"`
	StartDateTime     string `json:"StartDateTime"`
	EndDateTime       string `json:"EndDateTime"`
	EndDate           string `json:"EndDate"`
	Description       string `json:"Description"`
	AccountID         string `json:"AccountId"`
	OwnerID           string `json:"OwnerId"`
	Type              string `json:"Type"`
	IsPrivate         bool   `json:"IsPrivate"`
	ShowAs            string `json:"ShowAs"` // Busy, OutOfOffice, Free
	IsDeleted         bool   `json:"IsDeleted"`
	IsChild           bool   `json:"IsChild"`
	IsGroupEvent      bool   `json:"IsGroupEvent"`
	GroupEventType    string `json:"GroupEventType"` // "0" non-group, "1" group, "2" proposed

	CreatedDate          string `json:"CreatedDate"`
	CreatedByID          string `json:"CreatedById"`
	LastModifiedDate     string `json:"LastModifiedDate"`
	LastModifiedByID     string `json:"LastModifiedById"`
	SystemModstamp       string `json:"SystemModstamp"`
	IsArchived           bool   `json:"IsArchived"`
	RecurrenceActivityID string `json:"RecurrenceActivityId"`
	IsRecurrence         bool   `json:"IsRecurrence"`
	ReminderDateTime     string `json:"ReminderDateTime"`
	IsReminderSet        bool   `json:"IsReminderSet"`
	EventSubtype         string `json:"EventSubtype"`
}

// Campaign is a record of the campaigns entity (sObject Campaign).
// Currency fields are in the org's currency.
type Campaign struct {
	Attributes      Attributes `json:"attributes"`
	ID              string     `json:"Id"`
	IsDeleted       bool       `json:"IsDeleted"`
	Name            string     `json:"Name"`
	ParentID        string     `json:"ParentId"`
	Type            string     `json:"Type"`
	Status          string     `json:"Status"` // Planned, In Progress, Completed, Aborted
	StartDate       string     `json:"StartDate"`
	EndDate         string     `json:"EndDate"`
	ExpectedRevenue *float64   `json:"ExpectedRevenue"`
	BudgetedCost    *float64   `json:"BudgetedCost"`
	ActualCost      *float64   `json:"ActualCost"`
	// ExpectedResponse is a percentage.
	ExpectedResponse *float64 `json:"ExpectedResponse"`
	NumberSent       *float64 `json:"NumberSent"`
	IsActive         bool     `json:"IsActive"`
	Description      string   `json:"Description"`

	NumberOfLeads            int64   `json:"NumberOfLeads"`
	NumberOfConvertedLeads   int64   `json:"NumberOfConvertedLeads"`
	NumberOfContacts         int64   `json:"NumberOfContacts"`
	NumberOfResponses        int64   `json:"NumberOfResponses"`
	NumberOfOpportunities    int64   `json:"NumberOfOpportunities"`
	NumberOfWonOpportunities int64   `json:"NumberOfWonOpportunities"`
	AmountAllOpportunities   float64 `json:"AmountAllOpportunities"`
	AmountWonOpportunities   float64 `json:"AmountWonOpportunities"`
	OwnerID                  string  `json:"OwnerId"`

	CreatedDate                string `json:"CreatedDate"`
	CreatedByID                string `json:"CreatedById"`
	LastModifiedDate           string `json:"LastModifiedDate"`
	LastModifiedByID           string `json:"LastModifiedById"`
	SystemModstamp             string `json:"SystemModstamp"`
	LastActivityDate           string `json:"LastActivityDate"`
	LastViewedDate             string `json:"LastViewedDate"`
	LastReferencedDate         string `json:"LastReferencedDate"`
	CampaignMemberRecordTypeID string `json:"CampaignMemberRecordTypeId"`
}

// Case is a record of the cases entity (sObject Case). A case has no Name
// field; CaseNumber is its auto-numbered identifier.
type Case struct {
	Attributes     Attributes `json:"attributes"`
	ID             string     `json:"Id"`
	IsDeleted      bool       `json:"IsDeleted"`
	MasterRecordID string     `json:"MasterRecordId"`
	CaseNumber     string     `json:"CaseNumber"`
	ContactID      string     `json:"ContactId"`
	AccountID      string     `json:"AccountId"`
	AssetID        string     `json:"AssetId"`
	ParentID       string     `json:"ParentId"`
	// The Supplied* fields hold what a web-to-case or e-mail-to-case
	// submitter entered.
	SuppliedName    string `json:"SuppliedName"`
	SuppliedEmail   string `json:"SuppliedEmail"`
	SuppliedPhone   string `json:"SuppliedPhone"`
	SuppliedCompany string `json:"SuppliedCompany"`
	Type            string `json:"Type"`
	Status          string `json:"Status"`
	Reason          string `json:"Reason"`
	Origin          string `json:"Origin"` // Phone, Email, Web
	Subject         string `json:"Subject"`
	Priority        string `json:"Priority"`
	Description     string `json:"Description"`
	IsClosed        bool   `json:"IsClosed"`
	ClosedDate      string `json:"ClosedDate"`
	IsEscalated     bool   `json:"IsEscalated"`
	OwnerID         string `json:"OwnerId"`

	CreatedDate      string `json:"CreatedDate"`
	CreatedByID      string `json:"CreatedById"`
	LastModifiedDate string `json:"LastModifiedDate"`
	LastModifiedByID string `json:"LastModifiedById"`
	SystemModstamp   string `json:"SystemModstamp"`
	// The Contact* fields mirror the related contact's details.
	ContactPhone       string `json:"ContactPhone"`
	ContactMobile      string `json:"ContactMobile"`
	ContactEmail       string `json:"ContactEmail"`
	ContactFax         string `json:"ContactFax"`
	Comments           string `json:"Comments"`
	LastViewedDate     string `json:"LastViewedDate"`
	LastReferencedDate string `json:"LastReferencedDate"`
}

// Note is a record of the notes entity (sObject Note, the classic note
// attached to a parent record).
type Note struct {
	Attributes       Attributes `json:"attributes"`
	ID               string     `json:"Id"`
	IsDeleted        bool       `json:"IsDeleted"`
	ParentID         string     `json:"ParentId"`
	Title            string     `json:"Title"`
	IsPrivate        bool       `json:"IsPrivate"`
	Body             string     `json:"Body"`
	OwnerID          string     `json:"OwnerId"`
	CreatedDate      string     `json:"CreatedDate"`
	CreatedByID      string     `json:"CreatedById"`
	LastModifiedDate string     `json:"LastModifiedDate"`
	LastModifiedByID string     `json:"LastModifiedById"`
	SystemModstamp   string     `json:"SystemModstamp"`
}

// ContentVersion is a record of the content_versions entity (sObject
// ContentVersion): one version of a Salesforce Files document. Its bytes are
// read with the download action (GET .../sobjects/ContentVersion/{id}/VersionData).
type ContentVersion struct {
	Attributes        Attributes `json:"attributes"`
	ID                string     `json:"Id"`
	ContentDocumentID string     `json:"ContentDocumentId"`
	IsLatest          bool       `json:"IsLatest"`
	ContentURL        string     `json:"ContentUrl"` // for links instead of files
	ContentBodyID     string     `json:"ContentBodyId"`
	VersionNumber     string     `json:"VersionNumber"`
	Title             string     `json:"Title"`
	Description       string     `json:"Description"`
	ReasonForChange   string     `json:"ReasonForChange"`
	// SharingOption: A (allowed) or R (restricted); SharingPrivacy: N (none)
	// or P (private on records).
	SharingOption       string `json:"SharingOption"`
	SharingPrivacy      string `json:"SharingPrivacy"`
	PathOnClient        string `json:"PathOnClient"`
	RatingCount         *int64 `json:"RatingCount"`
	IsDeleted           bool   `json:"IsDeleted"`
	ContentModifiedDate string `json:"ContentModifiedDate"`
	ContentModifiedByID string `json:"ContentModifiedById"`
	PositiveRatingCount *int64 `json:"PositiveRatingCount"`
	NegativeRatingCount *int64 `json:"NegativeRatingCount"`
	OwnerID             string `json:"OwnerId"`

	CreatedByID      string `json:"CreatedById"`
	CreatedDate      string `json:"CreatedDate"`
	LastModifiedByID string `json:"LastModifiedById"`
	LastModifiedDate string `json:"LastModifiedDate"`
	SystemModstamp   string `json:"SystemModstamp"`
	TagCsv           string `json:"TagCsv"`
	FileType         string `json:"FileType"`      // PDF, TEXT, PNG, WORD_X, ...
	PublishStatus    string `json:"PublishStatus"` // P personal, R public (library), U upload interrupted
	// VersionData is the relative URL of the file's bytes.
	VersionData string `json:"VersionData"`
	// ContentSize is the file size in bytes.
	ContentSize            int64  `json:"ContentSize"`
	FileExtension          string `json:"FileExtension"`
	FirstPublishLocationID string `json:"FirstPublishLocationId"`
	Origin                 string `json:"Origin"`          // C content, H Chatter
	ContentLocation        string `json:"ContentLocation"` // S Salesforce, E external, L social
	Checksum               string `json:"Checksum"`        // MD5 of the file, hex
	IsMajorVersion         bool   `json:"IsMajorVersion"`
}

// Attachment is a record of the attachments entity (sObject Attachment, a
// classic file attached to a parent record). Its bytes are read with the
// download action (GET .../sobjects/Attachment/{id}/Body).
type Attachment struct {
	Attributes  Attributes `json:"attributes"`
	ID          string     `json:"Id"`
	IsDeleted   bool       `json:"IsDeleted"`
	ParentID    string     `json:"ParentId"`
	Name        string     `json:"Name"` // file name
	IsPrivate   bool       `json:"IsPrivate"`
	ContentType string     `json:"ContentType"` // MIME type
	// BodyLength is the file size in bytes.
	BodyLength int64 `json:"BodyLength"`
	// Body is the relative URL of the file's bytes.
	Body             string `json:"Body"`
	OwnerID          string `json:"OwnerId"`
	CreatedDate      string `json:"CreatedDate"`
	CreatedByID      string `json:"CreatedById"`
	LastModifiedDate string `json:"LastModifiedDate"`
	LastModifiedByID string `json:"LastModifiedById"`
	SystemModstamp   string `json:"SystemModstamp"`
	Description      string `json:"Description"`
}

// QueryRecord is a record of the query entity: one row of an arbitrary SOQL
// query, whose fields depend on the SELECT. Attributes holds the row's
// "attributes"; Fields holds every other member as raw JSON, including
// related records of relationship paths (Owner.Name arrives as
// {"Owner": {"attributes": ..., "Name": ...}}) and aggregate columns.
type QueryRecord struct {
	Attributes Attributes
	Fields     map[string]json.RawMessage
}

// UnmarshalJSON implements json.Unmarshaler.
func (q *QueryRecord) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := jsonx.Unmarshal(b, &m); err != nil {
		return err
	}
	q.Attributes = Attributes{}
	if a, ok := m["attributes"]; ok {
		if err := jsonx.Unmarshal(a, &q.Attributes); err != nil {
			return err
		}
		delete(m, "attributes")
	}
	q.Fields = m
	return nil
}

// MarshalJSON implements json.Marshaler, writing the record back in the
// wire shape.
func (q QueryRecord) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(q.Fields)+1)
	for k, v := range q.Fields {
		m[k] = v
	}
	m["attributes"] = q.Attributes
	return json.Marshal(m)
}

// ID returns the row's Id, or "" when the query did not select it.
func (q QueryRecord) ID() string {
	var s string
	if raw, ok := q.Fields["Id"]; ok {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}
