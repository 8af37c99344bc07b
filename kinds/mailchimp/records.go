package mailchimp

import "encoding/json"

// The typed records of the Mailchimp Marketing API 3.0, one struct per entity
// of the email-marketing catalogue. Every field carries the exact wire name as
// its json tag. Fields the API may omit or send as null are pointers; nested
// objects are kept as raw JSON (json.RawMessage) so that nothing the API sends
// is lost. Times are ISO 8601 strings as Mailchimp sends them
// (e.g. "2024-03-01T12:00:00+00:00"); an unset time is often "".

// Campaign is one email campaign, from GET /3.0/campaigns (envelope key
// "campaigns") and GET /3.0/campaigns/{campaign_id}.
type Campaign struct {
	// ID is the campaign's id (10 hex characters).
	ID string `json:"id"`
	// WebID is the id used in the Mailchimp web application.
	WebID *int64 `json:"web_id"`
	// ParentCampaignID identifies the parent of a child campaign (RSS or
	// automation children).
	ParentCampaignID *string `json:"parent_campaign_id"`
	// Type is one of regular, plaintext, absplit (deprecated), rss, variate.
	Type *string `json:"type"`
	// CreateTime is when the campaign was created (ISO 8601).
	CreateTime *string `json:"create_time"`
	// ArchiveURL is the short link to the campaign's archive page.
	ArchiveURL *string `json:"archive_url"`
	// LongArchiveURL is the original link to the campaign's archive page.
	LongArchiveURL *string `json:"long_archive_url"`
	// Status is one of save, paused, schedule, sending, sent (and, for some
	// accounts, canceled, canceling, archived).
	Status *string `json:"status"`
	// EmailsSent is the total number of emails sent for the campaign.
	EmailsSent *int64 `json:"emails_sent"`
	// SendTime is when the campaign was sent (ISO 8601; "" if unsent).
	SendTime *string `json:"send_time"`
	// ContentType is how the content is put together: template, html, url,
	// multichannel.
	ContentType *string `json:"content_type"`
	// NeedsBlockRefresh is deprecated by Mailchimp and always false.
	NeedsBlockRefresh *bool `json:"needs_block_refresh"`
	// Resendable reports whether the campaign can be resent to non-openers.
	Resendable *bool `json:"resendable"`
	// Recipients: list_id, list_is_active, list_name, segment_text,
	// recipient_count, segment_opts.
	Recipients json.RawMessage `json:"recipients"`
	// Settings: subject_line, preview_text, title, from_name, reply_to,
	// folder_id, template_id, ...
	Settings json.RawMessage `json:"settings"`
	// VariateSettings holds the A/B test options of a variate campaign.
	VariateSettings json.RawMessage `json:"variate_settings"`
	// Tracking holds the tracking options (opens, html_clicks, ...).
	Tracking json.RawMessage `json:"tracking"`
	// RSSOpts holds the options of an RSS campaign.
	RSSOpts json.RawMessage `json:"rss_opts"`
	// ABSplitOpts holds the options of a (deprecated) absplit campaign.
	ABSplitOpts json.RawMessage `json:"ab_split_opts"`
	// SocialCard is the preview rendered by social networks.
	SocialCard json.RawMessage `json:"social_card"`
	// ReportSummary summarises opens, clicks and e-commerce of a sent
	// campaign (opens, unique_opens, open_rate, clicks, subscriber_clicks,
	// click_rate, ecommerce).
	ReportSummary json.RawMessage `json:"report_summary"`
	// DeliveryStatus reports on a campaign that is sending (enabled,
	// can_cancel, status, emails_sent, emails_canceled).
	DeliveryStatus json.RawMessage `json:"delivery_status"`
}

// List is one audience (Mailchimp calls audiences "lists" in the API), from
// GET /3.0/lists (envelope key "lists") and GET /3.0/lists/{list_id}.
type List struct {
	// ID is the list's id (10 hex characters).
	ID string `json:"id"`
	// WebID is the id used in the Mailchimp web application.
	WebID *int64 `json:"web_id"`
	// Name is the audience's name.
	Name *string `json:"name"`
	// Contact is the footer contact information (company, address1, city,
	// state, zip, country, phone).
	Contact json.RawMessage `json:"contact"`
	// PermissionReminder reminds recipients how they signed up.
	PermissionReminder *string `json:"permission_reminder"`
	// UseArchiveBar reports whether campaigns use the archive bar by default.
	UseArchiveBar *bool `json:"use_archive_bar"`
	// CampaignDefaults: from_name, from_email, subject, language.
	CampaignDefaults json.RawMessage `json:"campaign_defaults"`
	// NotifyOnSubscribe is the address that gets subscribe notifications.
	NotifyOnSubscribe *string `json:"notify_on_subscribe"`
	// NotifyOnUnsubscribe is the address that gets unsubscribe notifications.
	NotifyOnUnsubscribe *string `json:"notify_on_unsubscribe"`
	// DateCreated is when the list was created (ISO 8601).
	DateCreated *string `json:"date_created"`
	// ListRating is an activity score from 0 to 5.
	ListRating *int64 `json:"list_rating"`
	// EmailTypeOption reports whether subscribers may choose html or text.
	EmailTypeOption *bool `json:"email_type_option"`
	// SubscribeURLShort is the shortened URL of the signup form.
	SubscribeURLShort *string `json:"subscribe_url_short"`
	// SubscribeURLLong is the full URL of the signup form.
	SubscribeURLLong *string `json:"subscribe_url_long"`
	// BeamerAddress is the list's Email Beamer address.
	BeamerAddress *string `json:"beamer_address"`
	// Visibility is legacy (pub or prv) and no longer used by Mailchimp.
	Visibility *string `json:"visibility"`
	// DoubleOptin reports whether subscribers must confirm by email.
	DoubleOptin *bool `json:"double_optin"`
	// HasWelcome reports whether a welcome automation is connected.
	HasWelcome *bool `json:"has_welcome"`
	// MarketingPermissions reports whether GDPR fields are enabled.
	MarketingPermissions *bool `json:"marketing_permissions"`
	// Modules lists list-specific modules; the API sends JSON strings.
	Modules []json.RawMessage `json:"modules"`
	// Stats: member_count, unsubscribe_count, cleaned_count,
	// campaign_count, open_rate, click_rate, ... (cached by Mailchimp).
	Stats json.RawMessage `json:"stats"`
}

// ListMember is one member (contact) of a list, from
// GET /3.0/lists/{list_id}/members (envelope key "members") and
// GET /3.0/lists/{list_id}/members/{subscriber_hash}.
type ListMember struct {
	// ID is the subscriber hash: the MD5 hex digest of the lower-cased email
	// address.
	ID string `json:"id"`
	// EmailAddress is the member's email address.
	EmailAddress *string `json:"email_address"`
	// UniqueEmailID identifies the address across all of Mailchimp.
	UniqueEmailID *string `json:"unique_email_id"`
	// ContactID identifies the contact independently of an email address.
	ContactID *string `json:"contact_id"`
	// FullName is the contact's full name.
	FullName *string `json:"full_name"`
	// WebID is the id used in the Mailchimp web application.
	WebID *int64 `json:"web_id"`
	// EmailType is html or text.
	EmailType *string `json:"email_type"`
	// Status is one of subscribed, unsubscribed, cleaned, pending,
	// transactional, archived.
	Status *string `json:"status"`
	// UnsubscribeReason is the reason given for unsubscribing.
	UnsubscribeReason *string `json:"unsubscribe_reason"`
	// ConsentsToOneToOneMessaging reports consent to 1:1 messaging.
	ConsentsToOneToOneMessaging *bool `json:"consents_to_one_to_one_messaging"`
	// MergeFields maps merge tags (FNAME, LNAME, ...) to values.
	MergeFields json.RawMessage `json:"merge_fields"`
	// Interests maps interest ids to booleans.
	Interests json.RawMessage `json:"interests"`
	// Stats: avg_open_rate, avg_click_rate, ecommerce_data.
	Stats json.RawMessage `json:"stats"`
	// IPSignup is the IP address the member signed up from.
	IPSignup *string `json:"ip_signup"`
	// TimestampSignup is when the member signed up (ISO 8601, may be "").
	TimestampSignup *string `json:"timestamp_signup"`
	// IPOpt is the IP address the member confirmed opt-in from.
	IPOpt *string `json:"ip_opt"`
	// TimestampOpt is when the member confirmed opt-in (ISO 8601).
	TimestampOpt *string `json:"timestamp_opt"`
	// MemberRating is a star rating from 1 to 5.
	MemberRating *int64 `json:"member_rating"`
	// LastChanged is when the member's data last changed (ISO 8601).
	LastChanged *string `json:"last_changed"`
	// Language is the member's language code, if set or detected.
	Language *string `json:"language"`
	// VIP reports VIP status.
	VIP *bool `json:"vip"`
	// EmailClient is the member's email client.
	EmailClient *string `json:"email_client"`
	// Location: latitude, longitude, gmtoff, dstoff, country_code,
	// timezone, region.
	Location json.RawMessage `json:"location"`
	// Source is how the member was added (e.g. "API - Generic", "Import").
	Source *string `json:"source"`
	// TagsCount is the number of tags applied to the member.
	TagsCount *int64 `json:"tags_count"`
	// Tags holds up to 50 tags applied to the member, each {id, name}.
	Tags []json.RawMessage `json:"tags"`
	// ListID is the id of the list the member belongs to.
	ListID *string `json:"list_id"`
}

// Report is the report of one sent campaign, from GET /3.0/reports
// (envelope key "reports") and GET /3.0/reports/{campaign_id}.
type Report struct {
	// ID is the campaign's id.
	ID string `json:"id"`
	// CampaignTitle is the campaign's title.
	CampaignTitle *string `json:"campaign_title"`
	// Type is the campaign type (regular, plaintext, absplit, rss,
	// automation, variate, auto).
	Type *string `json:"type"`
	// ListID is the id of the list the campaign was sent to.
	ListID *string `json:"list_id"`
	// ListIsActive is false when that list was deleted or disabled.
	ListIsActive *bool `json:"list_is_active"`
	// ListName is the name of that list.
	ListName *string `json:"list_name"`
	// SubjectLine is the campaign's subject line.
	SubjectLine *string `json:"subject_line"`
	// PreviewText is the campaign's preview text.
	PreviewText *string `json:"preview_text"`
	// EmailsSent is the number of emails sent.
	EmailsSent *int64 `json:"emails_sent"`
	// AbuseReports is the number of abuse reports.
	AbuseReports *int64 `json:"abuse_reports"`
	// Unsubscribed is the number of members who unsubscribed.
	Unsubscribed *int64 `json:"unsubscribed"`
	// SendTime is when the campaign was sent (ISO 8601).
	SendTime *string `json:"send_time"`
	// RSSLastSend is, for RSS campaigns, the time of the last send.
	RSSLastSend *string `json:"rss_last_send"`
	// Bounces: hard_bounces, soft_bounces, syntax_errors.
	Bounces json.RawMessage `json:"bounces"`
	// Forwards: forwards_count, forwards_opens.
	Forwards json.RawMessage `json:"forwards"`
	// Opens: opens_total, unique_opens, open_rate (0..1), last_open.
	Opens json.RawMessage `json:"opens"`
	// Clicks: clicks_total, unique_clicks, unique_subscriber_clicks,
	// click_rate (0..1), last_click.
	Clicks json.RawMessage `json:"clicks"`
	// FacebookLikes: recipient_likes, unique_likes, facebook_likes.
	FacebookLikes json.RawMessage `json:"facebook_likes"`
	// IndustryStats: type, open_rate, click_rate, bounce_rate, unopen_rate,
	// unsub_rate, abuse_rate.
	IndustryStats json.RawMessage `json:"industry_stats"`
	// ListStats: sub_rate, unsub_rate, open_rate, click_rate (percentages).
	ListStats json.RawMessage `json:"list_stats"`
	// ABSplit holds the per-variant stats of an absplit campaign.
	ABSplit json.RawMessage `json:"ab_split"`
	// Timewarp is an hourly breakdown when sent with Timewarp.
	Timewarp []json.RawMessage `json:"timewarp"`
	// Timeseries is an hourly breakdown of the first 24 hours.
	Timeseries []json.RawMessage `json:"timeseries"`
	// ShareReport: share_url, share_password.
	ShareReport json.RawMessage `json:"share_report"`
	// Ecommerce: total_orders, total_spent, total_revenue, currency_code.
	Ecommerce json.RawMessage `json:"ecommerce"`
	// DeliveryStatus reports on a campaign that is sending.
	DeliveryStatus json.RawMessage `json:"delivery_status"`
}

// EmailActivity is one recipient's activity in a sent campaign, from
// GET /3.0/reports/{campaign_id}/email-activity (envelope key "emails").
// It has no id of its own; EmailID identifies the member.
type EmailActivity struct {
	// CampaignID is the campaign's id.
	CampaignID *string `json:"campaign_id"`
	// ListID is the id of the list the campaign was sent to.
	ListID *string `json:"list_id"`
	// ListIsActive is false when that list was deleted or disabled.
	ListIsActive *bool `json:"list_is_active"`
	// EmailID is the MD5 hex digest of the lower-cased member address.
	EmailID *string `json:"email_id"`
	// EmailAddress is the member's email address.
	EmailAddress *string `json:"email_address"`
	// Activity holds the events, each {action (open, click or bounce),
	// type (hard or soft, for bounces), timestamp, url (for clicks), ip}.
	Activity []json.RawMessage `json:"activity"`
}

// Automation is one classic automation workflow, from GET /3.0/automations
// (envelope key "automations").
type Automation struct {
	// ID is the automation's id.
	ID string `json:"id"`
	// CreateTime is when the automation was created (ISO 8601).
	CreateTime *string `json:"create_time"`
	// StartTime is when the automation was started (ISO 8601).
	StartTime *string `json:"start_time"`
	// Status is one of save, paused, sending.
	Status *string `json:"status"`
	// EmailsSent is the number of emails sent.
	EmailsSent *int64 `json:"emails_sent"`
	// Recipients: list_id, list_is_active, list_name, segment_opts, store_id.
	Recipients json.RawMessage `json:"recipients"`
	// Settings: title, from_name, reply_to, use_conversation, to_name, ...
	Settings json.RawMessage `json:"settings"`
	// Tracking holds the tracking options.
	Tracking json.RawMessage `json:"tracking"`
	// ReportSummary: opens, unique_opens, open_rate, clicks,
	// subscriber_clicks, click_rate.
	ReportSummary json.RawMessage `json:"report_summary"`
}

// Tag is one tag of a list, from GET /3.0/lists/{list_id}/tag-search
// (envelope key "tags"; the endpoint does not page).
type Tag struct {
	// ID is the tag's numeric id.
	ID int64 `json:"id"`
	// Name is the tag's name.
	Name *string `json:"name"`
}

// InterestCategory is one interest category (group title) of a list, from
// GET /3.0/lists/{list_id}/interest-categories (envelope key "categories")
// and GET /3.0/lists/{list_id}/interest-categories/{interest_category_id}.
type InterestCategory struct {
	// ListID is the id of the list.
	ListID *string `json:"list_id"`
	// ID is the category's id.
	ID string `json:"id"`
	// Title is the category's description, shown on signup forms.
	Title *string `json:"title"`
	// DisplayOrder orders the categories; lower numbers come first.
	DisplayOrder *int64 `json:"display_order"`
	// Type is how the interests appear on forms: checkboxes, dropdown,
	// radio, hidden.
	Type *string `json:"type"`
}

// Interest is one interest (group name) of an interest category, from
// GET /3.0/lists/{list_id}/interest-categories/{interest_category_id}/interests
// (envelope key "interests") and .../interests/{interest_id}.
type Interest struct {
	// CategoryID is the id of the interest category.
	CategoryID *string `json:"category_id"`
	// ListID is the id of the list.
	ListID *string `json:"list_id"`
	// ID is the interest's id.
	ID string `json:"id"`
	// Name is the interest's name.
	Name *string `json:"name"`
	// SubscriberCount is the number of subscribers with the interest; the
	// API sends it as a string.
	SubscriberCount *string `json:"subscriber_count"`
	// DisplayOrder orders the interests.
	DisplayOrder *int64 `json:"display_order"`
}

// Segment is one segment (or tag, which Mailchimp models as a static segment)
// of a list, from GET /3.0/lists/{list_id}/segments (envelope key
// "segments") and GET /3.0/lists/{list_id}/segments/{segment_id}.
type Segment struct {
	// ID is the segment's numeric id.
	ID int64 `json:"id"`
	// Name is the segment's name.
	Name *string `json:"name"`
	// MemberCount is the number of active members in the segment.
	MemberCount *int64 `json:"member_count"`
	// Type is saved, static (a tag) or fuzzy.
	Type *string `json:"type"`
	// CreatedAt is when the segment was created (ISO 8601).
	CreatedAt *string `json:"created_at"`
	// UpdatedAt is when the segment was last updated (ISO 8601).
	UpdatedAt *string `json:"updated_at"`
	// Options holds the match type and conditions of a saved segment.
	Options json.RawMessage `json:"options"`
	// ListID is the id of the list.
	ListID *string `json:"list_id"`
}

// SegmentMember is one member of a segment, from
// GET /3.0/lists/{list_id}/segments/{segment_id}/members (envelope key
// "members"). The catalogue does not show its fields; these are the ones
// Mailchimp documents for the endpoint (a subset of ListMember plus
// last_note).
type SegmentMember struct {
	// ID is the subscriber hash (MD5 of the lower-cased email address).
	ID string `json:"id"`
	// EmailAddress is the member's email address.
	EmailAddress *string `json:"email_address"`
	// UniqueEmailID identifies the address across all of Mailchimp.
	UniqueEmailID *string `json:"unique_email_id"`
	// EmailType is html or text.
	EmailType *string `json:"email_type"`
	// Status is the member's status (subscribed, unsubscribed, cleaned,
	// pending, transactional).
	Status *string `json:"status"`
	// MergeFields maps merge tags to values.
	MergeFields json.RawMessage `json:"merge_fields"`
	// Interests maps interest ids to booleans.
	Interests json.RawMessage `json:"interests"`
	// Stats: avg_open_rate, avg_click_rate.
	Stats json.RawMessage `json:"stats"`
	// IPSignup is the IP address the member signed up from.
	IPSignup *string `json:"ip_signup"`
	// TimestampSignup is when the member signed up (ISO 8601, may be "").
	TimestampSignup *string `json:"timestamp_signup"`
	// IPOpt is the IP address the member confirmed opt-in from.
	IPOpt *string `json:"ip_opt"`
	// TimestampOpt is when the member confirmed opt-in (ISO 8601).
	TimestampOpt *string `json:"timestamp_opt"`
	// MemberRating is a star rating from 1 to 5.
	MemberRating *int64 `json:"member_rating"`
	// LastChanged is when the member's data last changed (ISO 8601).
	LastChanged *string `json:"last_changed"`
	// Language is the member's language code.
	Language *string `json:"language"`
	// VIP reports VIP status.
	VIP *bool `json:"vip"`
	// EmailClient is the member's email client.
	EmailClient *string `json:"email_client"`
	// Location: latitude, longitude, gmtoff, dstoff, country_code, timezone.
	Location json.RawMessage `json:"location"`
	// LastNote is the most recent note about the member (note_id,
	// created_at, created_by, note).
	LastNote json.RawMessage `json:"last_note"`
	// ListID is the id of the list.
	ListID *string `json:"list_id"`
}

// Unsubscribe is one member who unsubscribed from a campaign, from
// GET /3.0/reports/{campaign_id}/unsubscribed (envelope key "unsubscribes").
// The catalogue does not show its fields; these are the ones Mailchimp
// documents. It has no id of its own; EmailID identifies the member.
type Unsubscribe struct {
	// EmailID is the MD5 hex digest of the lower-cased member address.
	EmailID string `json:"email_id"`
	// EmailAddress is the member's email address.
	EmailAddress *string `json:"email_address"`
	// MergeFields maps merge tags to values.
	MergeFields json.RawMessage `json:"merge_fields"`
	// VIP reports VIP status.
	VIP *bool `json:"vip"`
	// Timestamp is when the member opted out (ISO 8601).
	Timestamp *string `json:"timestamp"`
	// Reason is the reason given, if any.
	Reason *string `json:"reason"`
	// CampaignID is the campaign's id.
	CampaignID *string `json:"campaign_id"`
	// ListID is the id of the list.
	ListID *string `json:"list_id"`
	// ListIsActive is false when that list was deleted or disabled.
	ListIsActive *bool `json:"list_is_active"`
}
