// The record types below carry every field the helpdesk section of the
// connector catalogue lists, typed as it types them: T? as *T, int as
// int64, obj as json.RawMessage. Timestamps are ISO 8601 strings.

package zendesk

import "encoding/json"

// Ticket is a record of the helpdesk entity tickets.
type Ticket struct {
	ID          int64   `json:"id"`
	URL         string  `json:"url"`
	ExternalID  *string `json:"external_id"`
	Type        *string `json:"type"`
	Subject     *string `json:"subject"`
	RawSubject  *string `json:"raw_subject"`
	Description string  `json:"description"`
	Priority    *string `json:"priority"`
	// Status: one of: new, open, pending, hold, solved, closed.
	Status               string            `json:"status"`
	Recipient            *string           `json:"recipient"`
	RequesterID          int64             `json:"requester_id"`
	SubmitterID          int64             `json:"submitter_id"`
	AssigneeID           *int64            `json:"assignee_id"`
	OrganizationID       *int64            `json:"organization_id"`
	GroupID              *int64            `json:"group_id"`
	CollaboratorIDs      []int64           `json:"collaborator_ids"`
	FollowerIDs          []int64           `json:"follower_ids"`
	EmailCCIDs           []int64           `json:"email_cc_ids"`
	ForumTopicID         *int64            `json:"forum_topic_id"`
	ProblemID            *int64            `json:"problem_id"`
	HasIncidents         bool              `json:"has_incidents"`
	IsPublic             bool              `json:"is_public"`
	DueAt                *string           `json:"due_at"`
	Tags                 []string          `json:"tags"`
	CustomFields         []json.RawMessage `json:"custom_fields"`
	SatisfactionRating   json.RawMessage   `json:"satisfaction_rating"`
	SharingAgreementIDs  []int64           `json:"sharing_agreement_ids"`
	CustomStatusID       int64             `json:"custom_status_id"`
	Fields               []json.RawMessage `json:"fields"`
	FollowupIDs          []int64           `json:"followup_ids"`
	TicketFormID         int64             `json:"ticket_form_id"`
	BrandID              int64             `json:"brand_id"`
	AllowChannelback     bool              `json:"allow_channelback"`
	AllowAttachments     bool              `json:"allow_attachments"`
	FromMessagingChannel bool              `json:"from_messaging_channel"`
	GeneratedTimestamp   int64             `json:"generated_timestamp"`
	CreatedAt            string            `json:"created_at"`
	UpdatedAt            string            `json:"updated_at"`
	Via                  json.RawMessage   `json:"via"`
}

// User is a record of the helpdesk entity users.
type User struct {
	ID             int64   `json:"id"`
	URL            string  `json:"url"`
	Name           string  `json:"name"`
	Email          *string `json:"email"`
	Alias          *string `json:"alias"`
	Phone          *string `json:"phone"`
	TimeZone       string  `json:"time_zone"`
	Locale         string  `json:"locale"`
	LocaleID       int64   `json:"locale_id"`
	OrganizationID *int64  `json:"organization_id"`
	// Role: one of: end-user, agent, admin.
	Role                 string          `json:"role"`
	RoleType             *int64          `json:"role_type"`
	CustomRoleID         *int64          `json:"custom_role_id"`
	ExternalID           *string         `json:"external_id"`
	Tags                 []string        `json:"tags"`
	Active               bool            `json:"active"`
	Verified             bool            `json:"verified"`
	Shared               bool            `json:"shared"`
	SharedAgent          bool            `json:"shared_agent"`
	SharedPhoneNumber    *bool           `json:"shared_phone_number"`
	Signature            *string         `json:"signature"`
	Details              *string         `json:"details"`
	Notes                *string         `json:"notes"`
	Suspended            bool            `json:"suspended"`
	RestrictedAgent      bool            `json:"restricted_agent"`
	OnlyPrivateComments  bool            `json:"only_private_comments"`
	Moderator            bool            `json:"moderator"`
	TicketRestriction    *string         `json:"ticket_restriction"`
	DefaultGroupID       *int64          `json:"default_group_id"`
	ReportCSV            bool            `json:"report_csv"`
	Photo                json.RawMessage `json:"photo"`
	UserFields           json.RawMessage `json:"user_fields"`
	LastLoginAt          *string         `json:"last_login_at"`
	TwoFactorAuthEnabled *bool           `json:"two_factor_auth_enabled"`
	IANATimeZone         string          `json:"iana_time_zone"`
	PermanentlyDeleted   bool            `json:"permanently_deleted"`
	CreatedAt            string          `json:"created_at"`
	UpdatedAt            string          `json:"updated_at"`
}

// Organization is a record of the helpdesk entity organizations.
type Organization struct {
	ID                 int64           `json:"id"`
	URL                string          `json:"url"`
	Name               string          `json:"name"`
	Details            *string         `json:"details"`
	Notes              *string         `json:"notes"`
	GroupID            *int64          `json:"group_id"`
	SharedTickets      bool            `json:"shared_tickets"`
	SharedComments     bool            `json:"shared_comments"`
	ExternalID         *string         `json:"external_id"`
	DomainNames        []string        `json:"domain_names"`
	Tags               []string        `json:"tags"`
	OrganizationFields json.RawMessage `json:"organization_fields"`
	CreatedAt          string          `json:"created_at"`
	UpdatedAt          string          `json:"updated_at"`
}

// Group is a record of the helpdesk entity groups.
type Group struct {
	ID          int64  `json:"id"`
	URL         string `json:"url"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Default     bool   `json:"default"`
	Deleted     bool   `json:"deleted"`
	IsPublic    bool   `json:"is_public"`
	CreatedAt   string `json:"created_at"`
	UpdatedAt   string `json:"updated_at"`
}

// TicketComment is a record of the helpdesk entity ticket_comments.
type TicketComment struct {
	ID          int64             `json:"id"`
	Type        string            `json:"type"`
	Body        string            `json:"body"`
	HTMLBody    string            `json:"html_body"`
	PlainBody   string            `json:"plain_body"`
	Public      bool              `json:"public"`
	AuthorID    int64             `json:"author_id"`
	Attachments []json.RawMessage `json:"attachments"`
	AuditID     int64             `json:"audit_id"`
	Via         json.RawMessage   `json:"via"`
	// Metadata is the record's metadata object (system and custom metadata).
	Metadata  json.RawMessage `json:"metadata"`
	CreatedAt string          `json:"created_at"`
}

// Attachment is a record of the helpdesk entity attachments.
type Attachment struct {
	ID                    int64             `json:"id"`
	FileName              string            `json:"file_name"`
	ContentURL            string            `json:"content_url"`
	MappedContentURL      string            `json:"mapped_content_url"`
	ContentType           string            `json:"content_type"`
	Size                  int64             `json:"size"`
	Width                 *int64            `json:"width"`
	Height                *int64            `json:"height"`
	Inline                bool              `json:"inline"`
	Deleted               bool              `json:"deleted"`
	MalwareAccessOverride bool              `json:"malware_access_override"`
	MalwareScanResult     string            `json:"malware_scan_result"`
	URL                   string            `json:"url"`
	Thumbnails            []json.RawMessage `json:"thumbnails"`
}

// TicketAudit is a record of the helpdesk entity ticket_audits.
type TicketAudit struct {
	ID       int64 `json:"id"`
	TicketID int64 `json:"ticket_id"`
	AuthorID int64 `json:"author_id"`
	// Metadata is the record's metadata object (system and custom metadata).
	Metadata  json.RawMessage   `json:"metadata"`
	Via       json.RawMessage   `json:"via"`
	Events    []json.RawMessage `json:"events"`
	CreatedAt string            `json:"created_at"`
}

// TicketMetric is a record of the helpdesk entity ticket_metrics.
type TicketMetric struct {
	ID                           int64           `json:"id"`
	URL                          string          `json:"url"`
	TicketID                     int64           `json:"ticket_id"`
	GroupStations                int64           `json:"group_stations"`
	AssigneeStations             int64           `json:"assignee_stations"`
	Reopens                      int64           `json:"reopens"`
	Replies                      int64           `json:"replies"`
	AssigneeUpdatedAt            *string         `json:"assignee_updated_at"`
	RequesterUpdatedAt           string          `json:"requester_updated_at"`
	StatusUpdatedAt              string          `json:"status_updated_at"`
	InitiallyAssignedAt          *string         `json:"initially_assigned_at"`
	AssignedAt                   *string         `json:"assigned_at"`
	SolvedAt                     *string         `json:"solved_at"`
	LatestCommentAddedAt         string          `json:"latest_comment_added_at"`
	ReplyTimeInMinutes           json.RawMessage `json:"reply_time_in_minutes"`
	FirstResolutionTimeInMinutes json.RawMessage `json:"first_resolution_time_in_minutes"`
	FullResolutionTimeInMinutes  json.RawMessage `json:"full_resolution_time_in_minutes"`
	AgentWaitTimeInMinutes       json.RawMessage `json:"agent_wait_time_in_minutes"`
	RequesterWaitTimeInMinutes   json.RawMessage `json:"requester_wait_time_in_minutes"`
	OnHoldTimeInMinutes          json.RawMessage `json:"on_hold_time_in_minutes"`
	CreatedAt                    string          `json:"created_at"`
	UpdatedAt                    string          `json:"updated_at"`
}

// Brand is a record of the helpdesk entity brands.
type Brand struct {
	ID                int64           `json:"id"`
	URL               string          `json:"url"`
	Name              string          `json:"name"`
	BrandURL          string          `json:"brand_url"`
	Subdomain         string          `json:"subdomain"`
	HostMapping       *string         `json:"host_mapping"`
	HasHelpCenter     bool            `json:"has_help_center"`
	HelpCenterState   string          `json:"help_center_state"`
	Active            bool            `json:"active"`
	Default           bool            `json:"default"`
	IsDeleted         bool            `json:"is_deleted"`
	Logo              json.RawMessage `json:"logo"`
	TicketFormIDs     []int64         `json:"ticket_form_ids"`
	SignatureTemplate string          `json:"signature_template"`
	CreatedAt         string          `json:"created_at"`
	UpdatedAt         string          `json:"updated_at"`
}

// View is a record of the helpdesk entity views.
type View struct {
	ID          int64           `json:"id"`
	URL         string          `json:"url"`
	Title       string          `json:"title"`
	Active      bool            `json:"active"`
	Position    int64           `json:"position"`
	Description *string         `json:"description"`
	Execution   json.RawMessage `json:"execution"`
	Conditions  json.RawMessage `json:"conditions"`
	Restriction json.RawMessage `json:"restriction"`
	RawTitle    string          `json:"raw_title"`
	CreatedAt   string          `json:"created_at"`
	UpdatedAt   string          `json:"updated_at"`
}

// Macro is a record of the helpdesk entity macros.
type Macro struct {
	ID          int64             `json:"id"`
	URL         string            `json:"url"`
	Title       string            `json:"title"`
	Active      bool              `json:"active"`
	Position    int64             `json:"position"`
	Description string            `json:"description"`
	Actions     []json.RawMessage `json:"actions"`
	Restriction json.RawMessage   `json:"restriction"`
	RawTitle    string            `json:"raw_title"`
	CreatedAt   string            `json:"created_at"`
	UpdatedAt   string            `json:"updated_at"`
}

// Trigger is a record of the helpdesk entity triggers.
type Trigger struct {
	ID          int64             `json:"id"`
	URL         string            `json:"url"`
	Title       string            `json:"title"`
	Active      bool              `json:"active"`
	Position    int64             `json:"position"`
	Description *string           `json:"description"`
	Conditions  json.RawMessage   `json:"conditions"`
	Actions     []json.RawMessage `json:"actions"`
	RawTitle    string            `json:"raw_title"`
	CategoryID  string            `json:"category_id"`
	CreatedAt   string            `json:"created_at"`
	UpdatedAt   string            `json:"updated_at"`
}

// Automation is a record of the helpdesk entity automations.
type Automation struct {
	ID         int64             `json:"id"`
	URL        string            `json:"url"`
	Title      string            `json:"title"`
	Active     bool              `json:"active"`
	Position   int64             `json:"position"`
	Conditions json.RawMessage   `json:"conditions"`
	Actions    []json.RawMessage `json:"actions"`
	RawTitle   string            `json:"raw_title"`
	CreatedAt  string            `json:"created_at"`
	UpdatedAt  string            `json:"updated_at"`
}

// Tag is a record of the helpdesk entity tags.
type Tag struct {
	Name  string `json:"name"`
	Count int64  `json:"count"`
}

// SatisfactionRating is a record of the helpdesk entity satisfaction_ratings.
type SatisfactionRating struct {
	ID          int64   `json:"id"`
	URL         string  `json:"url"`
	AssigneeID  *int64  `json:"assignee_id"`
	GroupID     *int64  `json:"group_id"`
	RequesterID int64   `json:"requester_id"`
	TicketID    int64   `json:"ticket_id"`
	Score       string  `json:"score"`
	Comment     *string `json:"comment"`
	Reason      *string `json:"reason"`
	ReasonID    *int64  `json:"reason_id"`
	ReasonCode  *int64  `json:"reason_code"`
	CreatedAt   string  `json:"created_at"`
	UpdatedAt   string  `json:"updated_at"`
}

// GroupMembership is a record of the helpdesk entity group_memberships.
type GroupMembership struct {
	ID        int64  `json:"id"`
	URL       string `json:"url"`
	UserID    int64  `json:"user_id"`
	GroupID   int64  `json:"group_id"`
	Default   bool   `json:"default"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
}

// OrganizationMembership is a record of the helpdesk entity organization_memberships.
type OrganizationMembership struct {
	ID               int64  `json:"id"`
	URL              string `json:"url"`
	UserID           int64  `json:"user_id"`
	OrganizationID   int64  `json:"organization_id"`
	Default          bool   `json:"default"`
	OrganizationName string `json:"organization_name"`
	ViewTickets      bool   `json:"view_tickets"`
	CreatedAt        string `json:"created_at"`
	UpdatedAt        string `json:"updated_at"`
}

// SLAPolicy is a record of the helpdesk entity sla_policies.
type SLAPolicy struct {
	ID            int64             `json:"id"`
	URL           string            `json:"url"`
	Title         string            `json:"title"`
	Description   string            `json:"description"`
	Position      int64             `json:"position"`
	Filter        json.RawMessage   `json:"filter"`
	PolicyMetrics []json.RawMessage `json:"policy_metrics"`
	CreatedAt     string            `json:"created_at"`
	UpdatedAt     string            `json:"updated_at"`
}

// TicketForm is a record of the helpdesk entity ticket_forms.
type TicketForm struct {
	ID                 int64             `json:"id"`
	URL                string            `json:"url"`
	Name               string            `json:"name"`
	DisplayName        string            `json:"display_name"`
	RawName            string            `json:"raw_name"`
	RawDisplayName     string            `json:"raw_display_name"`
	Position           int64             `json:"position"`
	Active             bool              `json:"active"`
	EndUserVisible     bool              `json:"end_user_visible"`
	Default            bool              `json:"default"`
	InAllBrands        bool              `json:"in_all_brands"`
	RestrictedBrandIDs []int64           `json:"restricted_brand_ids"`
	TicketFieldIDs     []int64           `json:"ticket_field_ids"`
	AgentConditions    []json.RawMessage `json:"agent_conditions"`
	EndUserConditions  []json.RawMessage `json:"end_user_conditions"`
	CreatedAt          string            `json:"created_at"`
	UpdatedAt          string            `json:"updated_at"`
}

// Article is a record of the helpdesk entity articles.
type Article struct {
	ID         int64    `json:"id"`
	URL        string   `json:"url"`
	HTMLURL    string   `json:"html_url"`
	Title      string   `json:"title"`
	Body       string   `json:"body"`
	Locale     string   `json:"locale"`
	AuthorID   int64    `json:"author_id"`
	SectionID  int64    `json:"section_id"`
	CreatedAt  string   `json:"created_at"`
	UpdatedAt  string   `json:"updated_at"`
	VoteSum    int64    `json:"vote_sum"`
	VoteCount  int64    `json:"vote_count"`
	LabelNames []string `json:"label_names"`
	Draft      bool     `json:"draft"`
	Promoted   bool     `json:"promoted"`
	Position   int64    `json:"position"`
}

// ArticleAttachment is a record of the helpdesk entity article_attachments.
type ArticleAttachment struct {
	ID          int64  `json:"id"`
	URL         string `json:"url"`
	ArticleID   int64  `json:"article_id"`
	FileName    string `json:"file_name"`
	ContentType string `json:"content_type"`
	ContentURL  string `json:"content_url"`
	Size        int64  `json:"size"`
	Inline      bool   `json:"inline"`
	CreatedAt   string `json:"created_at"`
	UpdatedAt   string `json:"updated_at"`
}

// TicketField is a record of the helpdesk entity ticket_fields: the
// definition of a ticket field (system or custom).
type TicketField struct {
	ID  int64  `json:"id"`
	URL string `json:"url"`
	// Type is one of text, textarea, checkbox, date, integer, decimal,
	// regexp, multiselect, tagger and similar.
	Type                string            `json:"type"`
	Key                 *string           `json:"key"`
	Title               string            `json:"title"`
	RawTitle            string            `json:"raw_title"`
	Description         string            `json:"description"`
	RawDescription      string            `json:"raw_description"`
	AgentDescription    *string           `json:"agent_description"`
	Position            int64             `json:"position"`
	Active              bool              `json:"active"`
	Required            bool              `json:"required"`
	CollapsedForAgents  bool              `json:"collapsed_for_agents"`
	RegexpForValidation *string           `json:"regexp_for_validation"`
	TitleInPortal       string            `json:"title_in_portal"`
	RawTitleInPortal    string            `json:"raw_title_in_portal"`
	VisibleInPortal     bool              `json:"visible_in_portal"`
	EditableInPortal    bool              `json:"editable_in_portal"`
	RequiredInPortal    bool              `json:"required_in_portal"`
	Tag                 *string           `json:"tag"`
	Removable           bool              `json:"removable"`
	SubTypeID           *int64            `json:"sub_type_id"`
	CustomFieldOptions  []json.RawMessage `json:"custom_field_options"`
	SystemFieldOptions  []json.RawMessage `json:"system_field_options"`
	CustomStatuses      []json.RawMessage `json:"custom_statuses"`
	CreatedAt           string            `json:"created_at"`
	UpdatedAt           string            `json:"updated_at"`
}
