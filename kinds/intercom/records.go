package intercom

import "encoding/json"

// Timestamps in every record of this kind are Unix times in seconds
// (integers), as Intercom sends them.

// Contact is one record of the contacts entity: a user or a lead, as
// returned by GET /contacts (inside "data") and GET /contacts/{id}.
type Contact struct {
	// Type is always "contact".
	Type *string `json:"type"`
	// ID is Intercom's id of the contact (a 24-character hex string).
	ID string `json:"id"`
	// WorkspaceID is the id of the workspace (app) the contact belongs to.
	WorkspaceID *string `json:"workspace_id"`
	// ExternalID is the id the workspace gave the contact (user_id).
	ExternalID *string `json:"external_id"`
	// Role is "user" or "lead".
	Role  *string `json:"role"`
	Email *string `json:"email"`
	// EmailDomain is the domain part of Email (sent by Intercom; not in the
	// catalogue).
	EmailDomain *string `json:"email_domain,omitempty"`
	Phone       *string `json:"phone"`
	// FormattedPhone is Phone normalised to E.164 (sent by Intercom; not in
	// the catalogue).
	FormattedPhone *string `json:"formatted_phone,omitempty"`
	Name           *string `json:"name"`
	// Avatar is null or, in Intercom 2.11, an object {"type":"avatar",
	// "image_url":"..."}. The catalogue types it as a string; it is kept raw
	// so that both forms decode.
	Avatar json.RawMessage `json:"avatar"`
	// OwnerID is the id of the admin who owns the contact.
	OwnerID *int64 `json:"owner_id"`
	// SocialProfiles is {"type":"list","data":[{"type":"social_profile",
	// "name","url"}]}.
	SocialProfiles         json.RawMessage `json:"social_profiles"`
	HasHardBounced         *bool           `json:"has_hard_bounced"`
	MarkedEmailAsSpam      *bool           `json:"marked_email_as_spam"`
	UnsubscribedFromEmails *bool           `json:"unsubscribed_from_emails"`
	CreatedAt              *int64          `json:"created_at"`
	UpdatedAt              *int64          `json:"updated_at"`
	// SignedUpAt is when the user signed up in the workspace's product.
	SignedUpAt         *int64 `json:"signed_up_at"`
	LastSeenAt         *int64 `json:"last_seen_at"`
	LastRepliedAt      *int64 `json:"last_replied_at"`
	LastContactedAt    *int64 `json:"last_contacted_at"`
	LastEmailOpenedAt  *int64 `json:"last_email_opened_at"`
	LastEmailClickedAt *int64 `json:"last_email_clicked_at"`
	// LanguageOverride is a locale such as "fr" set for the contact.
	LanguageOverride *string `json:"language_override"`
	Browser          *string `json:"browser"`
	BrowserVersion   *string `json:"browser_version"`
	BrowserLanguage  *string `json:"browser_language"`
	OS               *string `json:"os"`
	// Location is {"type":"location","country","region","city",
	// "country_code","continent_code"}.
	Location          json.RawMessage `json:"location"`
	AndroidAppName    *string         `json:"android_app_name"`
	AndroidAppVersion *string         `json:"android_app_version"`
	AndroidDevice     *string         `json:"android_device"`
	AndroidOSVersion  *string         `json:"android_os_version"`
	AndroidSDKVersion *string         `json:"android_sdk_version"`
	AndroidLastSeenAt *int64          `json:"android_last_seen_at"`
	IOSAppName        *string         `json:"ios_app_name"`
	IOSAppVersion     *string         `json:"ios_app_version"`
	IOSDevice         *string         `json:"ios_device"`
	IOSOSVersion      *string         `json:"ios_os_version"`
	IOSSDKVersion     *string         `json:"ios_sdk_version"`
	IOSLastSeenAt     *int64          `json:"ios_last_seen_at"`
	CustomAttributes  json.RawMessage `json:"custom_attributes"`
	// Tags, Notes and Companies are addressable lists: {"type":"list",
	// "data":[{"type","id","url"}],"url","total_count","has_more"}, at most
	// 10 items each; follow "url" for the rest.
	Tags      json.RawMessage `json:"tags"`
	Notes     json.RawMessage `json:"notes"`
	Companies json.RawMessage `json:"companies"`
	// OptedInSubscriptionTypes and OptedOutSubscriptionTypes are
	// addressable lists of subscription types.
	OptedInSubscriptionTypes  json.RawMessage `json:"opted_in_subscription_types"`
	OptedOutSubscriptionTypes json.RawMessage `json:"opted_out_subscription_types"`
	// Referrer is the page the contact came from.
	Referrer    *string `json:"referrer"`
	UTMCampaign *string `json:"utm_campaign"`
	UTMContent  *string `json:"utm_content"`
	UTMMedium   *string `json:"utm_medium"`
	UTMSource   *string `json:"utm_source"`
	UTMTerm     *string `json:"utm_term"`
	// SMSConsent and UnsubscribedFromSMS are in the catalogue's searchable
	// set, but no version of Intercom's REST API documents them on the
	// contact; from the API they are absent (nil).
	SMSConsent          *bool `json:"sms_consent,omitempty"`
	UnsubscribedFromSMS *bool `json:"unsubscribed_from_sms,omitempty"`
}

// Conversation is one record of the conversations entity, as returned by
// GET /conversations (inside "conversations") and GET /conversations/{id}.
// Only the single-conversation read carries ConversationParts.
type Conversation struct {
	// Type is always "conversation".
	Type *string `json:"type"`
	// ID is a numeric string.
	ID    string  `json:"id"`
	Title *string `json:"title"`
	// CreatedAt, UpdatedAt: Unix seconds.
	CreatedAt *int64 `json:"created_at"`
	UpdatedAt *int64 `json:"updated_at"`
	// WaitingSince is when the contact's last reply started waiting for a
	// teammate, null when nobody is waiting.
	WaitingSince *int64 `json:"waiting_since"`
	// SnoozedUntil is when a snoozed conversation reopens.
	SnoozedUntil *int64 `json:"snoozed_until"`
	Open         *bool  `json:"open"`
	// State is "open", "closed" or "snoozed".
	State *string `json:"state"`
	Read  *bool   `json:"read"`
	// Priority is "priority" or "not_priority".
	Priority *string `json:"priority"`
	// AdminAssigneeID is the id of the assigned admin, null when none.
	AdminAssigneeID *int64 `json:"admin_assignee_id"`
	// TeamAssigneeID is the id of the assigned team. The catalogue types it
	// as a string, Intercom 2.11 sends an integer (and later versions 0 for
	// "no team"); json.Number accepts both forms.
	TeamAssigneeID *json.Number `json:"team_assignee_id"`
	// Tags is {"type":"tag.list","tags":[tag]}.
	Tags json.RawMessage `json:"tags"`
	// ConversationRating is {"rating","remark","created_at","contact",
	// "teammate"} or null.
	ConversationRating json.RawMessage `json:"conversation_rating"`
	// Source is the message that started the conversation, with its author
	// and attachments.
	Source json.RawMessage `json:"source"`
	// Contacts is {"type":"contact.list","contacts":[{"type","id",
	// "external_id"}]}.
	Contacts json.RawMessage `json:"contacts"`
	// Teammates is {"type":"admin.list","teammates":[{"type","id"}]}.
	Teammates         json.RawMessage `json:"teammates"`
	FirstContactReply json.RawMessage `json:"first_contact_reply"`
	// SLAApplied is {"type":"conversation_sla_summary","sla_name",
	// "sla_status"} or null.
	SLAApplied json.RawMessage `json:"sla_applied"`
	// Statistics holds the conversation's timing counters or null.
	Statistics json.RawMessage `json:"statistics"`
	// ConversationParts is {"type":"conversation_part.list",
	// "conversation_parts":[...],"total_count"}; only GET
	// /conversations/{id} sends it, with at most the 500 most recent parts.
	ConversationParts json.RawMessage `json:"conversation_parts,omitempty"`
	CustomAttributes  json.RawMessage `json:"custom_attributes"`
	// Topics, LinkedObjects, AIAgent and AIAgentParticipated are sent by
	// Intercom 2.11 and listed among the catalogue's searchable fields.
	Topics              json.RawMessage `json:"topics,omitempty"`
	LinkedObjects       json.RawMessage `json:"linked_objects,omitempty"`
	AIAgent             json.RawMessage `json:"ai_agent,omitempty"`
	AIAgentParticipated *bool           `json:"ai_agent_participated,omitempty"`

	// The fields below are in the catalogue's searchable set but are not
	// part of Intercom 2.11's conversation object: from the API they are
	// absent (nil); a synchronized copy may fill them.
	Assignee            json.RawMessage   `json:"assignee,omitempty"`
	ConversationMessage json.RawMessage   `json:"conversation_message,omitempty"`
	CustomerFirstReply  json.RawMessage   `json:"customer_first_reply,omitempty"`
	Customers           []json.RawMessage `json:"customers,omitempty"`
	Redacted            *bool             `json:"redacted,omitempty"`
	SentAt              *int64            `json:"sent_at,omitempty"`
	User                json.RawMessage   `json:"user,omitempty"`
}

// Company is one record of the companies entity, as returned by
// GET /companies (inside "data"), GET /companies/scroll and
// GET /companies/{id}.
type Company struct {
	// Type is always "company".
	Type *string `json:"type"`
	// ID is Intercom's id of the company (a 24-character hex string).
	ID   string  `json:"id"`
	Name *string `json:"name"`
	// AppID is the workspace the company belongs to (searchable field of
	// the catalogue).
	AppID *string `json:"app_id,omitempty"`
	// CompanyID is the id the workspace gave the company.
	CompanyID *string `json:"company_id"`
	// Plan is {"type":"plan","id","name"} or {}.
	Plan     json.RawMessage `json:"plan"`
	Size     *int64          `json:"size"`
	Industry *string         `json:"industry"`
	Website  *string         `json:"website"`
	// RemoteCreatedAt is when the workspace says the company was created.
	RemoteCreatedAt *int64 `json:"remote_created_at"`
	// CreatedAt is when the company was added to Intercom.
	CreatedAt *int64 `json:"created_at"`
	UpdatedAt *int64 `json:"updated_at"`
	// LastRequestAt is the last time the company made a request; the
	// company list is ordered by it.
	LastRequestAt *int64 `json:"last_request_at"`
	SessionCount  *int64 `json:"session_count"`
	// MonthlySpend is the revenue the company brings, in the workspace's
	// currency.
	MonthlySpend *float64 `json:"monthly_spend"`
	UserCount    *int64   `json:"user_count"`
	// Tags is {"type":"tag.list","tags":[{"type","id","name"}]}.
	Tags json.RawMessage `json:"tags"`
	// Segments is {"type":"segment.list","segments":[segment]}.
	Segments         json.RawMessage `json:"segments"`
	CustomAttributes json.RawMessage `json:"custom_attributes"`
}

// Team is one record of the teams entity, as returned by GET /teams
// (inside "teams") and GET /teams/{id}.
type Team struct {
	// Type is always "team".
	Type *string `json:"type"`
	// ID is a numeric string.
	ID   string  `json:"id"`
	Name *string `json:"name"`
	// AdminIDs are the ids of the team's admins, as integers.
	AdminIDs []int64 `json:"admin_ids"`
	// AdminPriorityLevel is {"primary_admin_ids":[...],
	// "secondary_admin_ids":[...]}.
	AdminPriorityLevel json.RawMessage `json:"admin_priority_level"`
}

// Admin is one record of the admins entity (a teammate account), as
// returned by GET /admins (inside "admins") and GET /admins/{id}.
type Admin struct {
	// Type is always "admin".
	Type *string `json:"type"`
	// ID is a numeric string.
	ID    string  `json:"id"`
	Name  *string `json:"name"`
	Email *string `json:"email"`
	// EmailVerified is listed by the catalogue; Intercom 2.11 documents it
	// only on GET /me, so it is often absent.
	EmailVerified    *bool   `json:"email_verified"`
	JobTitle         *string `json:"job_title"`
	AwayModeEnabled  *bool   `json:"away_mode_enabled"`
	AwayModeReassign *bool   `json:"away_mode_reassign"`
	// HasInboxSeat reports a paid inbox seat.
	HasInboxSeat *bool `json:"has_inbox_seat"`
	// TeamIDs are the ids of the admin's teams, as integers.
	TeamIDs []int64 `json:"team_ids"`
	// Avatar is {"image_url":"..."} or null; GET /admins sends it only with
	// display_avatar=true.
	Avatar json.RawMessage `json:"avatar"`
	// TeamPriorityLevel is {"primary_team_ids","secondary_team_ids"} (sent
	// by Intercom; not in the catalogue).
	TeamPriorityLevel json.RawMessage `json:"team_priority_level,omitempty"`
}

// Tag is one record of the tags entity, as returned by GET /tags (inside
// "data") and GET /tags/{id}.
type Tag struct {
	// Type is always "tag".
	Type *string `json:"type"`
	// ID is a numeric string.
	ID   string  `json:"id"`
	Name *string `json:"name"`
	// AppliedAt and AppliedBy are set only when a tag comes back from a
	// tagging operation; lists and reads send null or nothing.
	AppliedAt *int64          `json:"applied_at"`
	AppliedBy json.RawMessage `json:"applied_by"`
}

// Segment is one record of the segments entity, as returned by
// GET /segments (inside "segments") and GET /segments/{id}.
type Segment struct {
	// Type is always "segment".
	Type *string `json:"type"`
	// ID is Intercom's id of the segment (a 24-character hex string).
	ID        string  `json:"id"`
	Name      *string `json:"name"`
	CreatedAt *int64  `json:"created_at"`
	UpdatedAt *int64  `json:"updated_at"`
	// PersonType is "user" or "contact" (leads).
	PersonType *string `json:"person_type"`
	// Count is the number of contacts in the segment; sent only when the
	// list was asked with include_count=true.
	Count *int64 `json:"count"`
}
