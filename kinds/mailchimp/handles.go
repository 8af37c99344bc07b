package mailchimp

import (
	"context"

	"github.com/tributary-dev/tributary"
)

// Paging selects a page: Count records (default 10, at most 1000) after
// skipping Offset. Zero fields are not sent.
type Paging struct {
	Count  int `param:"count"`
	Offset int `param:"offset"`
}

// Times in the params below are ISO 8601 strings such as
// 2015-10-21T15:41:36+00:00; FormatTime writes one from a time.Time.

// CampaignListParams are the params of campaigns.list.
type CampaignListParams struct {
	Paging
	// Type is regular, plaintext, absplit, rss or variate.
	Type string `param:"type"`
	// Status is save, paused, schedule, sending or sent.
	Status           string `param:"status"`
	BeforeSendTime   string `param:"before_send_time"`
	SinceSendTime    string `param:"since_send_time"`
	BeforeCreateTime string `param:"before_create_time"`
	SinceCreateTime  string `param:"since_create_time"`
	// ListID lists the campaigns sent to this list.
	ListID   string `param:"list_id"`
	FolderID string `param:"folder_id"`
	// SortField is create_time or send_time.
	SortField string `param:"sort_field"`
	// SortDir is ASC or DESC.
	SortDir string `param:"sort_dir"`
}

// ListListParams are the params of lists.list.
type ListListParams struct {
	Paging
	BeforeDateCreated      string `param:"before_date_created"`
	SinceDateCreated       string `param:"since_date_created"`
	BeforeCampaignLastSent string `param:"before_campaign_last_sent"`
	SinceCampaignLastSent  string `param:"since_campaign_last_sent"`
	// Email lists the lists that include this subscriber address.
	Email string `param:"email"`
	// SortField is date_created.
	SortField string `param:"sort_field"`
	// SortDir is ASC or DESC.
	SortDir string `param:"sort_dir"`
}

// ListMemberListParams are the params of list_members.list.
type ListMemberListParams struct {
	Paging
	// ListID is required.
	ListID string `param:"list_id"`
	// EmailType is html or text.
	EmailType string `param:"email_type"`
	// Status is subscribed, unsubscribed, cleaned, pending, transactional
	// or archived.
	Status             string `param:"status"`
	SinceTimestampOpt  string `param:"since_timestamp_opt"`
	BeforeTimestampOpt string `param:"before_timestamp_opt"`
	SinceLastChanged   string `param:"since_last_changed"`
	BeforeLastChanged  string `param:"before_last_changed"`
	UniqueEmailID      string `param:"unique_email_id"`
	// VIPOnly lists only VIP members.
	VIPOnly bool `param:"vip_only"`
	// InterestCategoryID, InterestIDs (comma-separated) and InterestMatch
	// (any, all or none) filter by interests, together.
	InterestCategoryID string `param:"interest_category_id"`
	InterestIDs        string `param:"interest_ids"`
	InterestMatch      string `param:"interest_match"`
	// SortField is timestamp_opt, timestamp_signup or last_changed.
	SortField string `param:"sort_field"`
	// SortDir is ASC or DESC.
	SortDir string `param:"sort_dir"`
}

// ReportListParams are the params of reports.list.
type ReportListParams struct {
	Paging
	// Type is regular, plaintext, absplit, rss or variate.
	Type           string `param:"type"`
	BeforeSendTime string `param:"before_send_time"`
	SinceSendTime  string `param:"since_send_time"`
}

// EmailActivityListParams are the params of email_activity.list.
type EmailActivityListParams struct {
	Paging
	// CampaignID is required.
	CampaignID string `param:"campaign_id"`
	// Since keeps only the events after this time.
	Since string `param:"since"`
}

// AutomationListParams are the params of automations.list.
type AutomationListParams struct {
	Paging
	BeforeCreateTime string `param:"before_create_time"`
	SinceCreateTime  string `param:"since_create_time"`
	BeforeStartTime  string `param:"before_start_time"`
	SinceStartTime   string `param:"since_start_time"`
	// Status is save, paused or sending.
	Status string `param:"status"`
}

// TagListParams are the params of tags.list (not paged).
type TagListParams struct {
	// ListID is required.
	ListID string `param:"list_id"`
	// Name keeps the tags whose name starts with it.
	Name string `param:"name"`
}

// InterestCategoryListParams are the params of interest_categories.list.
type InterestCategoryListParams struct {
	Paging
	// ListID is required.
	ListID string `param:"list_id"`
}

// InterestListParams are the params of interests.list.
type InterestListParams struct {
	Paging
	// ListID and InterestCategoryID are required.
	ListID             string `param:"list_id"`
	InterestCategoryID string `param:"interest_category_id"`
}

// SegmentListParams are the params of segments.list.
type SegmentListParams struct {
	Paging
	// ListID is required.
	ListID string `param:"list_id"`
	// Type is saved, static or fuzzy.
	Type            string `param:"type"`
	SinceCreatedAt  string `param:"since_created_at"`
	BeforeCreatedAt string `param:"before_created_at"`
	SinceUpdatedAt  string `param:"since_updated_at"`
	BeforeUpdatedAt string `param:"before_updated_at"`
}

// SegmentMemberListParams are the params of segment_members.list.
type SegmentMemberListParams struct {
	Paging
	// ListID and SegmentID are required.
	ListID    string `param:"list_id"`
	SegmentID int64  `param:"segment_id"`
	// Mailchimp leaves out cleaned, transactional and unsubscribed members
	// unless these say otherwise.
	IncludeCleaned       bool `param:"include_cleaned"`
	IncludeTransactional bool `param:"include_transactional"`
	IncludeUnsubscribed  bool `param:"include_unsubscribed"`
}

// UnsubscribeListParams are the params of unsubscribes.list.
type UnsubscribeListParams struct {
	Paging
	// CampaignID is required.
	CampaignID string `param:"campaign_id"`
}

// ByID is a typed handle on an entity read by one id.
type ByID[T, P any] struct {
	tributary.Handle[T, P]
	idParam string
}

// Get reads the record with this id.
func (h ByID[T, P]) Get(ctx context.Context, id string) (T, error) {
	return h.Handle.Get(ctx, tributary.Params{h.idParam: id})
}

// InList is a typed handle on an entity that belongs to a list (audience)
// and is read by the list's id and its own.
type InList[T, P any] struct {
	tributary.Handle[T, P]
	idParam string
}

// Get reads the record with this id in the list listID.
func (h InList[T, P]) Get(ctx context.Context, listID, id string) (T, error) {
	return h.Handle.Get(ctx, tributary.Params{"list_id": listID, h.idParam: id})
}

// SegmentsHandle is the typed handle on segments.
type SegmentsHandle struct {
	tributary.Handle[Segment, SegmentListParams]
}

// Get reads one segment of the list listID.
func (h SegmentsHandle) Get(ctx context.Context, listID string, segmentID int64) (Segment, error) {
	return h.Handle.Get(ctx, tributary.Params{"list_id": listID, "segment_id": segmentID})
}

// InterestsHandle is the typed handle on interests.
type InterestsHandle struct {
	tributary.Handle[Interest, InterestListParams]
}

// Get reads one interest of an interest category of the list listID.
func (h InterestsHandle) Get(ctx context.Context, listID, categoryID, interestID string) (Interest, error) {
	return h.Handle.Get(ctx, tributary.Params{"list_id": listID, "interest_category_id": categoryID, "interest_id": interestID})
}

func handle[T, P any](c *Client, name string) tributary.Handle[T, P] {
	return tributary.Handle[T, P]{Conn: c, Entity: name}
}

// Campaigns is the typed handle on campaigns; Get takes a campaign id.
func (c *Client) Campaigns() ByID[Campaign, CampaignListParams] {
	return ByID[Campaign, CampaignListParams]{handle[Campaign, CampaignListParams](c, "campaigns"), "campaign_id"}
}

// Lists is the typed handle on lists (audiences); Get takes a list id.
func (c *Client) Lists() ByID[List, ListListParams] {
	return ByID[List, ListListParams]{handle[List, ListListParams](c, "lists"), "list_id"}
}

// ListMembers is the typed handle on list_members; Get takes the list id
// and the member's subscriber hash (SubscriberHash), or its email address,
// which is hashed before sending.
func (c *Client) ListMembers() InList[ListMember, ListMemberListParams] {
	return InList[ListMember, ListMemberListParams]{handle[ListMember, ListMemberListParams](c, "list_members"), "subscriber_hash"}
}

// Reports is the typed handle on reports; Get takes a campaign id.
func (c *Client) Reports() ByID[Report, ReportListParams] {
	return ByID[Report, ReportListParams]{handle[Report, ReportListParams](c, "reports"), "campaign_id"}
}

// EmailActivity is the typed handle on email_activity (list only).
func (c *Client) EmailActivity() tributary.Handle[EmailActivity, EmailActivityListParams] {
	return handle[EmailActivity, EmailActivityListParams](c, "email_activity")
}

// Automations is the typed handle on automations (list only).
func (c *Client) Automations() tributary.Handle[Automation, AutomationListParams] {
	return handle[Automation, AutomationListParams](c, "automations")
}

// Tags is the typed handle on tags (list only, not paged).
func (c *Client) Tags() tributary.Handle[Tag, TagListParams] {
	return handle[Tag, TagListParams](c, "tags")
}

// InterestCategories is the typed handle on interest_categories; Get takes
// the list id and the category id.
func (c *Client) InterestCategories() InList[InterestCategory, InterestCategoryListParams] {
	return InList[InterestCategory, InterestCategoryListParams]{handle[InterestCategory, InterestCategoryListParams](c, "interest_categories"), "interest_category_id"}
}

// Interests is the typed handle on interests.
func (c *Client) Interests() InterestsHandle {
	return InterestsHandle{handle[Interest, InterestListParams](c, "interests")}
}

// Segments is the typed handle on segments.
func (c *Client) Segments() SegmentsHandle {
	return SegmentsHandle{handle[Segment, SegmentListParams](c, "segments")}
}

// SegmentMembers is the typed handle on segment_members (list only).
func (c *Client) SegmentMembers() tributary.Handle[SegmentMember, SegmentMemberListParams] {
	return handle[SegmentMember, SegmentMemberListParams](c, "segment_members")
}

// Unsubscribes is the typed handle on unsubscribes (list only).
func (c *Client) Unsubscribes() tributary.Handle[Unsubscribe, UnsubscribeListParams] {
	return handle[Unsubscribe, UnsubscribeListParams](c, "unsubscribes")
}
