package mailchimptest

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Synthetic data. Every record is a pure function of its index (and of the
// volumes in config), so nothing is stored and any volume costs nothing up
// front. Ids that Mailchimp writes as 10 hex characters encode the index
// XOR a per-entity mask, so they look arbitrary yet map back to the index.

const (
	listMask     = 0x3c5a9e1f2b
	campaignMask = 0x8d2e47b19c
	autoMask     = 0x5b1f0c3a7e
	categoryMask = 0x2f7d9a4c61
	interestMask = 0x71c3e85b0d
	folderMask   = 0x0f0f0f0f00

	idMask = 1<<40 - 1

	segmentIDBase = 100_000
	tagIDBase     = 900_000_000

	timeLayout = "2006-01-02T15:04:05+00:00" // Mailchimp's ISO 8601 form, always UTC
)

// epoch is the creation time of the first synthetic campaign.
func epoch() time.Time { return time.Date(2023, 1, 2, 0, 0, 0, 0, time.UTC) }

func hexID(i int, mask uint64) string {
	return fmt.Sprintf("%010x", (uint64(i)^mask)&idMask)
}

// parseHexID maps a 10-hex-character id back to its index, if it is one of
// the n ids of that entity.
func parseHexID(id string, mask uint64, n int) (int, bool) {
	if len(id) != 10 || strings.ToLower(id) != id {
		return 0, false
	}
	v, err := strconv.ParseUint(id, 16, 64)
	if err != nil {
		return 0, false
	}
	i := (v ^ mask) & idMask
	if i >= uint64(n) {
		return 0, false
	}
	return int(i), true
}

func ts(t time.Time) string { return t.UTC().Format(timeLayout) }

// countResidue counts m in [0,n) with m%mod == r.
func countResidue(n, mod, r int) int {
	if r >= n {
		return 0
	}
	return (n-1-r)/mod + 1
}

// ---------------------------------------------------------------- shapes

type link struct {
	Rel          string `json:"rel"`
	Href         string `json:"href"`
	Method       string `json:"method"`
	TargetSchema string `json:"targetSchema"`
}

// links builds HATEOAS links against a vendor-like origin (apiOrigin).
type links struct{ origin string }

func (l links) get(rel, path, schema string) link {
	return link{Rel: rel, Href: l.origin + "/3.0" + path, Method: "GET", TargetSchema: l.origin + "/schema/3.0/" + schema}
}

func (l links) self(path, schema string) []link { return []link{l.get("self", path, schema)} }

func (l links) collection(path, schema string) []link {
	return []link{l.get("parent", "/", "Root.json"), l.get("self", path, schema)}
}

type ecommerceSummary struct {
	TotalOrders  int64   `json:"total_orders"`
	TotalSpent   float64 `json:"total_spent"`
	TotalRevenue float64 `json:"total_revenue"`
}

type reportSummary struct {
	Opens            int64             `json:"opens"`
	UniqueOpens      int64             `json:"unique_opens"`
	OpenRate         float64           `json:"open_rate"`
	Clicks           int64             `json:"clicks"`
	SubscriberClicks int64             `json:"subscriber_clicks"`
	ClickRate        float64           `json:"click_rate"`
	Ecommerce        *ecommerceSummary `json:"ecommerce,omitempty"`
}

type deliveryStatus struct {
	Enabled bool `json:"enabled"`
}

type segmentOpts struct {
	SavedSegmentID int64  `json:"saved_segment_id"`
	Match          string `json:"match"`
	Conditions     []any  `json:"conditions"`
}

type recipients struct {
	ListID         string       `json:"list_id"`
	ListIsActive   bool         `json:"list_is_active"`
	ListName       string       `json:"list_name"`
	SegmentText    string       `json:"segment_text,omitempty"`
	RecipientCount int64        `json:"recipient_count"`
	SegmentOpts    *segmentOpts `json:"segment_opts,omitempty"`
}

type campaignSettings struct {
	SubjectLine     string `json:"subject_line"`
	PreviewText     string `json:"preview_text"`
	Title           string `json:"title"`
	FromName        string `json:"from_name"`
	ReplyTo         string `json:"reply_to"`
	UseConversation bool   `json:"use_conversation"`
	ToName          string `json:"to_name"`
	FolderID        string `json:"folder_id"`
	Authenticate    bool   `json:"authenticate"`
	AutoFooter      bool   `json:"auto_footer"`
	InlineCSS       bool   `json:"inline_css"`
	AutoTweet       bool   `json:"auto_tweet"`
	FBComments      bool   `json:"fb_comments"`
	Timewarp        bool   `json:"timewarp"`
	TemplateID      int64  `json:"template_id"`
	DragAndDrop     bool   `json:"drag_and_drop"`
}

type tracking struct {
	Opens           bool   `json:"opens"`
	HTMLClicks      bool   `json:"html_clicks"`
	TextClicks      bool   `json:"text_clicks"`
	GoalTracking    bool   `json:"goal_tracking"`
	Ecomm360        bool   `json:"ecomm360"`
	GoogleAnalytics string `json:"google_analytics"`
	Clicktale       string `json:"clicktale"`
}

type variateSettings struct {
	WinningCriteria string   `json:"winning_criteria"`
	WaitTime        int64    `json:"wait_time"`
	TestSize        int64    `json:"test_size"`
	SubjectLines    []string `json:"subject_lines"`
}

type rssOpts struct {
	FeedURL         string `json:"feed_url"`
	Frequency       string `json:"frequency"`
	ConstrainRSSImg bool   `json:"constrain_rss_img"`
	LastSent        string `json:"last_sent"`
}

type socialCard struct {
	ImageURL    string `json:"image_url"`
	Description string `json:"description"`
	Title       string `json:"title"`
}

type campaign struct {
	ID                string           `json:"id"`
	WebID             int64            `json:"web_id"`
	ParentCampaignID  string           `json:"parent_campaign_id"`
	Type              string           `json:"type"`
	CreateTime        string           `json:"create_time"`
	ArchiveURL        string           `json:"archive_url"`
	LongArchiveURL    string           `json:"long_archive_url"`
	Status            string           `json:"status"`
	EmailsSent        int64            `json:"emails_sent"`
	SendTime          string           `json:"send_time"`
	ContentType       string           `json:"content_type"`
	NeedsBlockRefresh bool             `json:"needs_block_refresh"`
	Resendable        bool             `json:"resendable"`
	Recipients        recipients       `json:"recipients"`
	Settings          campaignSettings `json:"settings"`
	VariateSettings   *variateSettings `json:"variate_settings,omitempty"`
	Tracking          tracking         `json:"tracking"`
	RSSOpts           *rssOpts         `json:"rss_opts,omitempty"`
	SocialCard        socialCard       `json:"social_card"`
	ReportSummary     *reportSummary   `json:"report_summary,omitempty"`
	DeliveryStatus    deliveryStatus   `json:"delivery_status"`
	Links             []link           `json:"_links"`
}

type listContact struct {
	Company  string `json:"company"`
	Address1 string `json:"address1"`
	Address2 string `json:"address2"`
	City     string `json:"city"`
	State    string `json:"state"`
	Zip      string `json:"zip"`
	Country  string `json:"country"`
	Phone    string `json:"phone"`
}

type campaignDefaults struct {
	FromName  string `json:"from_name"`
	FromEmail string `json:"from_email"`
	Subject   string `json:"subject"`
	Language  string `json:"language"`
}

type listStats struct {
	MemberCount               int64   `json:"member_count"`
	UnsubscribeCount          int64   `json:"unsubscribe_count"`
	CleanedCount              int64   `json:"cleaned_count"`
	MemberCountSinceSend      int64   `json:"member_count_since_send"`
	UnsubscribeCountSinceSend int64   `json:"unsubscribe_count_since_send"`
	CleanedCountSinceSend     int64   `json:"cleaned_count_since_send"`
	CampaignCount             int64   `json:"campaign_count"`
	CampaignLastSent          string  `json:"campaign_last_sent"`
	MergeFieldCount           int64   `json:"merge_field_count"`
	AvgSubRate                float64 `json:"avg_sub_rate"`
	AvgUnsubRate              float64 `json:"avg_unsub_rate"`
	TargetSubRate             float64 `json:"target_sub_rate"`
	OpenRate                  float64 `json:"open_rate"`
	ClickRate                 float64 `json:"click_rate"`
	LastSubDate               string  `json:"last_sub_date"`
	LastUnsubDate             string  `json:"last_unsub_date"`
}

type list struct {
	ID                   string           `json:"id"`
	WebID                int64            `json:"web_id"`
	Name                 string           `json:"name"`
	Contact              listContact      `json:"contact"`
	PermissionReminder   string           `json:"permission_reminder"`
	UseArchiveBar        bool             `json:"use_archive_bar"`
	CampaignDefaults     campaignDefaults `json:"campaign_defaults"`
	NotifyOnSubscribe    string           `json:"notify_on_subscribe"`
	NotifyOnUnsubscribe  string           `json:"notify_on_unsubscribe"`
	DateCreated          string           `json:"date_created"`
	ListRating           int64            `json:"list_rating"`
	EmailTypeOption      bool             `json:"email_type_option"`
	SubscribeURLShort    string           `json:"subscribe_url_short"`
	SubscribeURLLong     string           `json:"subscribe_url_long"`
	BeamerAddress        string           `json:"beamer_address"`
	Visibility           string           `json:"visibility"`
	DoubleOptin          bool             `json:"double_optin"`
	HasWelcome           bool             `json:"has_welcome"`
	MarketingPermissions bool             `json:"marketing_permissions"`
	Modules              []string         `json:"modules"`
	Stats                listStats        `json:"stats"`
	Links                []link           `json:"_links"`
}

type mergeFields struct {
	FName string `json:"FNAME"`
	LName string `json:"LNAME"`
	Phone string `json:"PHONE"`
}

type memberStats struct {
	AvgOpenRate  float64 `json:"avg_open_rate"`
	AvgClickRate float64 `json:"avg_click_rate"`
}

type location struct {
	Latitude    float64 `json:"latitude"`
	Longitude   float64 `json:"longitude"`
	GMTOff      int64   `json:"gmtoff"`
	DSTOff      int64   `json:"dstoff"`
	CountryCode string  `json:"country_code"`
	Timezone    string  `json:"timezone"`
	Region      string  `json:"region"`
}

type tag struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

type member struct {
	ID                          string          `json:"id"`
	EmailAddress                string          `json:"email_address"`
	UniqueEmailID               string          `json:"unique_email_id"`
	ContactID                   string          `json:"contact_id"`
	FullName                    string          `json:"full_name"`
	WebID                       int64           `json:"web_id"`
	EmailType                   string          `json:"email_type"`
	Status                      string          `json:"status"`
	UnsubscribeReason           string          `json:"unsubscribe_reason,omitempty"`
	ConsentsToOneToOneMessaging bool            `json:"consents_to_one_to_one_messaging"`
	MergeFields                 mergeFields     `json:"merge_fields"`
	Interests                   map[string]bool `json:"interests,omitempty"`
	Stats                       memberStats     `json:"stats"`
	IPSignup                    string          `json:"ip_signup"`
	TimestampSignup             string          `json:"timestamp_signup"`
	IPOpt                       string          `json:"ip_opt"`
	TimestampOpt                string          `json:"timestamp_opt"`
	MemberRating                int64           `json:"member_rating"`
	LastChanged                 string          `json:"last_changed"`
	Language                    string          `json:"language"`
	VIP                         bool            `json:"vip"`
	EmailClient                 string          `json:"email_client"`
	Location                    location        `json:"location"`
	Source                      string          `json:"source"`
	TagsCount                   int64           `json:"tags_count"`
	Tags                        []tag           `json:"tags"`
	ListID                      string          `json:"list_id"`
	Links                       []link          `json:"_links"`
}

type note struct {
	NoteID    int64  `json:"note_id"`
	CreatedAt string `json:"created_at"`
	CreatedBy string `json:"created_by"`
	Note      string `json:"note"`
}

// segmentMember is the narrower member shape of the segment members endpoint.
type segmentMember struct {
	ID              string          `json:"id"`
	EmailAddress    string          `json:"email_address"`
	UniqueEmailID   string          `json:"unique_email_id"`
	EmailType       string          `json:"email_type"`
	Status          string          `json:"status"`
	MergeFields     mergeFields     `json:"merge_fields"`
	Interests       map[string]bool `json:"interests,omitempty"`
	Stats           memberStats     `json:"stats"`
	IPSignup        string          `json:"ip_signup"`
	TimestampSignup string          `json:"timestamp_signup"`
	IPOpt           string          `json:"ip_opt"`
	TimestampOpt    string          `json:"timestamp_opt"`
	MemberRating    int64           `json:"member_rating"`
	LastChanged     string          `json:"last_changed"`
	Language        string          `json:"language"`
	VIP             bool            `json:"vip"`
	EmailClient     string          `json:"email_client"`
	Location        location        `json:"location"`
	LastNote        note            `json:"last_note"`
	ListID          string          `json:"list_id"`
	Links           []link          `json:"_links"`
}

type bounces struct {
	HardBounces  int64 `json:"hard_bounces"`
	SoftBounces  int64 `json:"soft_bounces"`
	SyntaxErrors int64 `json:"syntax_errors"`
}

type forwards struct {
	ForwardsCount int64 `json:"forwards_count"`
	ForwardsOpens int64 `json:"forwards_opens"`
}

type opens struct {
	OpensTotal  int64   `json:"opens_total"`
	UniqueOpens int64   `json:"unique_opens"`
	OpenRate    float64 `json:"open_rate"`
	LastOpen    string  `json:"last_open"`
}

type clicks struct {
	ClicksTotal            int64   `json:"clicks_total"`
	UniqueClicks           int64   `json:"unique_clicks"`
	UniqueSubscriberClicks int64   `json:"unique_subscriber_clicks"`
	ClickRate              float64 `json:"click_rate"`
	LastClick              string  `json:"last_click"`
}

type facebookLikes struct {
	RecipientLikes int64 `json:"recipient_likes"`
	UniqueLikes    int64 `json:"unique_likes"`
	FacebookLikes  int64 `json:"facebook_likes"`
}

type industryStats struct {
	Type       string  `json:"type"`
	OpenRate   float64 `json:"open_rate"`
	ClickRate  float64 `json:"click_rate"`
	BounceRate float64 `json:"bounce_rate"`
	UnopenRate float64 `json:"unopen_rate"`
	UnsubRate  float64 `json:"unsub_rate"`
	AbuseRate  float64 `json:"abuse_rate"`
}

type reportListStats struct {
	SubRate   float64 `json:"sub_rate"`
	UnsubRate float64 `json:"unsub_rate"`
	OpenRate  float64 `json:"open_rate"`
	ClickRate float64 `json:"click_rate"`
}

type timeseriesPoint struct {
	Timestamp        string `json:"timestamp"`
	EmailsSent       int64  `json:"emails_sent"`
	UniqueOpens      int64  `json:"unique_opens"`
	RecipientsClicks int64  `json:"recipients_clicks"`
}

type shareReport struct {
	ShareURL      string `json:"share_url"`
	SharePassword string `json:"share_password"`
}

type reportEcommerce struct {
	TotalOrders  int64   `json:"total_orders"`
	TotalSpent   float64 `json:"total_spent"`
	TotalRevenue float64 `json:"total_revenue"`
	CurrencyCode string  `json:"currency_code"`
}

type report struct {
	ID             string            `json:"id"`
	CampaignTitle  string            `json:"campaign_title"`
	Type           string            `json:"type"`
	ListID         string            `json:"list_id"`
	ListIsActive   bool              `json:"list_is_active"`
	ListName       string            `json:"list_name"`
	SubjectLine    string            `json:"subject_line"`
	PreviewText    string            `json:"preview_text"`
	EmailsSent     int64             `json:"emails_sent"`
	AbuseReports   int64             `json:"abuse_reports"`
	Unsubscribed   int64             `json:"unsubscribed"`
	SendTime       string            `json:"send_time"`
	RSSLastSend    string            `json:"rss_last_send,omitempty"`
	Bounces        bounces           `json:"bounces"`
	Forwards       forwards          `json:"forwards"`
	Opens          opens             `json:"opens"`
	Clicks         clicks            `json:"clicks"`
	FacebookLikes  facebookLikes     `json:"facebook_likes"`
	IndustryStats  industryStats     `json:"industry_stats"`
	ListStats      reportListStats   `json:"list_stats"`
	Timeseries     []timeseriesPoint `json:"timeseries"`
	ShareReport    shareReport       `json:"share_report"`
	Ecommerce      reportEcommerce   `json:"ecommerce"`
	DeliveryStatus deliveryStatus    `json:"delivery_status"`
	Links          []link            `json:"_links"`
}

type activityEvent struct {
	Action    string `json:"action"`
	Type      string `json:"type,omitempty"`
	Timestamp string `json:"timestamp"`
	URL       string `json:"url,omitempty"`
	IP        string `json:"ip"`
}

type emailActivity struct {
	CampaignID   string          `json:"campaign_id"`
	ListID       string          `json:"list_id"`
	ListIsActive bool            `json:"list_is_active"`
	EmailID      string          `json:"email_id"`
	EmailAddress string          `json:"email_address"`
	Activity     []activityEvent `json:"activity"`
	Links        []link          `json:"_links"`
}

type automationSettings struct {
	Title           string `json:"title"`
	FromName        string `json:"from_name"`
	ReplyTo         string `json:"reply_to"`
	UseConversation bool   `json:"use_conversation"`
	ToName          string `json:"to_name"`
	Authenticate    bool   `json:"authenticate"`
	AutoFooter      bool   `json:"auto_footer"`
	InlineCSS       bool   `json:"inline_css"`
}

type triggerSettings struct {
	WorkflowType        string `json:"workflow_type"`
	WorkflowTitle       string `json:"workflow_title"`
	WorkflowEmailsCount int64  `json:"workflow_emails_count"`
}

type automation struct {
	ID              string             `json:"id"`
	CreateTime      string             `json:"create_time"`
	StartTime       string             `json:"start_time"`
	Status          string             `json:"status"`
	EmailsSent      int64              `json:"emails_sent"`
	Recipients      recipients         `json:"recipients"`
	Settings        automationSettings `json:"settings"`
	Tracking        tracking           `json:"tracking"`
	TriggerSettings triggerSettings    `json:"trigger_settings"`
	ReportSummary   reportSummary      `json:"report_summary"`
	Links           []link             `json:"_links"`
}

type interestCategory struct {
	ListID       string `json:"list_id"`
	ID           string `json:"id"`
	Title        string `json:"title"`
	DisplayOrder int64  `json:"display_order"`
	Type         string `json:"type"`
	Links        []link `json:"_links"`
}

type interest struct {
	CategoryID      string `json:"category_id"`
	ListID          string `json:"list_id"`
	ID              string `json:"id"`
	Name            string `json:"name"`
	SubscriberCount string `json:"subscriber_count"`
	DisplayOrder    int64  `json:"display_order"`
	Links           []link `json:"_links"`
}

type segmentCondition struct {
	ConditionType string `json:"condition_type"`
	Field         string `json:"field"`
	Op            string `json:"op"`
	Value         string `json:"value"`
}

type segmentOptions struct {
	Match      string             `json:"match"`
	Conditions []segmentCondition `json:"conditions"`
}

type segment struct {
	ID          int64           `json:"id"`
	Name        string          `json:"name"`
	MemberCount int64           `json:"member_count"`
	Type        string          `json:"type"`
	CreatedAt   string          `json:"created_at"`
	UpdatedAt   string          `json:"updated_at"`
	Options     *segmentOptions `json:"options,omitempty"`
	ListID      string          `json:"list_id"`
	Links       []link          `json:"_links"`
}

type unsubscribe struct {
	EmailID      string      `json:"email_id"`
	EmailAddress string      `json:"email_address"`
	MergeFields  mergeFields `json:"merge_fields"`
	VIP          bool        `json:"vip"`
	Timestamp    string      `json:"timestamp"`
	Reason       string      `json:"reason"`
	CampaignID   string      `json:"campaign_id"`
	ListID       string      `json:"list_id"`
	ListIsActive bool        `json:"list_is_active"`
	Links        []link      `json:"_links"`
}

// ---------------------------------------------------------------- lists

func (c *config) listID(l int) string { return hexID(l, listMask) }

func listName(l int) string { return fmt.Sprintf("Placeholder Audience %d", l+1) }

func (c *config) listCreated(l int) time.Time {
	return epoch().AddDate(0, 0, -7*(c.lists-l))
}

// campaignLastSent is the send time of the last sent campaign to list l.
func (c *config) campaignLastSent(l int) string {
	if c.lists == 0 || c.campaigns <= l {
		return ""
	}
	i := l + ((c.campaigns-1-l)/c.lists)*c.lists
	for steps := 0; i >= 0 && steps < 10; i, steps = i-c.lists, steps+1 {
		if campaignStatus(i) == "sent" {
			return ts(campaignSendTime(i))
		}
	}
	return ""
}

func (c *config) campaignsOfList(l int) int {
	if c.lists == 0 {
		return 0
	}
	return countResidue(c.campaigns, c.lists, l)
}

func (c *config) list(l int, ln links) list {
	id := c.listID(l)
	lastSub := ""
	if c.members > 0 {
		lastSub = ts(memberOptTime(c.members - 1))
	}
	lastUnsub := ""
	if n := countResidue(c.members, 20, 16); n > 0 {
		lastUnsub = ts(memberLastChanged(16 + 20*(n-1)))
	}
	return list{
		ID: id, WebID: int64(700_000 + l), Name: listName(l),
		Contact: listContact{Company: "Placeholder Co", Address1: "1 Example Street", City: "Exampleton",
			State: "EX", Zip: "00000", Country: "US"},
		PermissionReminder: "You signed up on example.com.",
		UseArchiveBar:      true,
		CampaignDefaults:   campaignDefaults{FromName: "Placeholder Co", FromEmail: "news@example.com", Language: "en"},
		DateCreated:        ts(c.listCreated(l)),
		ListRating:         int64(l % 6),
		SubscribeURLShort:  "https://eepurl.com/placeholder-" + id,
		SubscribeURLLong:   "https://example.us6.list-manage.com/subscribe?u=0123456789abcdef01234567&id=" + id,
		BeamerAddress:      "us6-placeholder-" + id + "@inbound.mailchimp.com",
		Visibility:         "pub",
		DoubleOptin:        l%2 == 1,
		Modules:            []string{},
		Stats: listStats{
			MemberCount:      int64(c.countStatus("subscribed")),
			UnsubscribeCount: int64(c.countStatus("unsubscribed")),
			CleanedCount:     int64(c.countStatus("cleaned")),
			CampaignCount:    int64(c.campaignsOfList(l)),
			CampaignLastSent: c.campaignLastSent(l),
			MergeFieldCount:  2,
			AvgSubRate:       5, TargetSubRate: 3, OpenRate: 31.2, ClickRate: 8.7,
			LastSubDate: lastSub, LastUnsubDate: lastUnsub,
		},
		Links: ln.self("/lists/"+id, "Lists/Instance.json"),
	}
}

// ---------------------------------------------------------------- members

var memberStatuses = [20]string{
	"subscribed", "subscribed", "subscribed", "subscribed", "subscribed", "subscribed", "subscribed", "subscribed",
	"subscribed", "subscribed", "subscribed", "subscribed", "subscribed", "subscribed", "subscribed", "subscribed",
	"unsubscribed", "cleaned", "pending", "transactional",
}

func memberStatus(m int) string { return memberStatuses[m%20] }

// countStatus counts the members (of any list) with that status.
func (c *config) countStatus(status string) int {
	n := 0
	for r, s := range memberStatuses {
		if s == status {
			n += countResidue(c.members, 20, r)
		}
	}
	return n
}

func memberEmail(m int) string { return "member" + strconv.Itoa(m) + "@example.com" }

// memberIndexFromEmail parses the synthetic address form back to its index.
func memberIndexFromEmail(email string) (int, bool) {
	e := strings.ToLower(email)
	rest, ok := strings.CutPrefix(e, "member")
	if !ok {
		return 0, false
	}
	num, ok := strings.CutSuffix(rest, "@example.com")
	if !ok || num == "" || (len(num) > 1 && num[0] == '0') {
		return 0, false
	}
	m, err := strconv.Atoi(num)
	if err != nil || m < 0 {
		return 0, false
	}
	return m, true
}

var firstNames = [...]string{"Ada", "Bo", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lou"}

func memberOptTime(m int) time.Time    { return epoch().Add(time.Duration(m) * 7 * time.Minute) }
func memberSignupTime(m int) time.Time { return memberOptTime(m).Add(-2 * time.Minute) }
func memberLastChanged(m int) time.Time {
	return memberOptTime(m).Add(time.Duration(m%30+1) * 24 * time.Hour)
}
func memberVIP(m int) bool { return m%25 == 0 }
func memberEmailType(m int) string {
	if m%9 == 8 {
		return "text"
	}
	return "html"
}

// uniqueEmailID is the member's id across Mailchimp; it differs per list.
func uniqueEmailID(l, m int) string {
	return fmt.Sprintf("%010x", (uint64(l)<<28^uint64(m)*2654435761^0x9c3e5a7f1d)&idMask)
}

// hasInterest reports whether a member has the interest with global index g.
func hasInterest(m, g int) bool { return (m+g)%3 == 0 }

func (c *config) memberInterests(l, m int) map[string]bool {
	n := c.interestCategories * c.interests
	if n == 0 {
		return nil
	}
	out := make(map[string]bool, n)
	for k := range n {
		g := l*n + k
		out[hexID(g, interestMask)] = hasInterest(m, g)
	}
	return out
}

func (c *config) memberTags(l, m int) []tag {
	if c.tags == 0 {
		return []tag{}
	}
	t := m % c.tags
	return []tag{{ID: c.tagID(l, t), Name: tagName(t)}}
}

func memberLocation(m int) location {
	if m%4 != 0 {
		return location{}
	}
	return location{Latitude: 45.5, Longitude: -122.6, GMTOff: -8, DSTOff: -7, CountryCode: "US",
		Timezone: "America/Los_Angeles", Region: "OR"}
}

func (c *config) member(l, m int, ln links) member {
	email := memberEmail(m)
	hash := SubscriberHash(email)
	listID := c.listID(l)
	status := memberStatus(m)
	tags := c.memberTags(l, m)
	mem := member{
		ID: hash, EmailAddress: email, UniqueEmailID: uniqueEmailID(l, m),
		ContactID:                   SubscriberHash("contact-" + email),
		FullName:                    firstNames[m%len(firstNames)] + " Placeholder",
		WebID:                       int64(500_000_000 + l*1_000_000 + m),
		EmailType:                   memberEmailType(m),
		Status:                      status,
		ConsentsToOneToOneMessaging: true,
		MergeFields:                 mergeFields{FName: firstNames[m%len(firstNames)], LName: "Placeholder"},
		Interests:                   c.memberInterests(l, m),
		Stats:                       memberStats{AvgOpenRate: float64(m%5) / 5, AvgClickRate: float64(m%10) / 20},
		IPSignup:                    "",
		TimestampSignup:             ts(memberSignupTime(m)),
		IPOpt:                       fmt.Sprintf("192.0.2.%d", m%250+1),
		TimestampOpt:                ts(memberOptTime(m)),
		MemberRating:                int64(m%5 + 1),
		LastChanged:                 ts(memberLastChanged(m)),
		Language:                    "en",
		VIP:                         memberVIP(m),
		Location:                    memberLocation(m),
		Source:                      "API - Generic",
		TagsCount:                   int64(len(tags)),
		Tags:                        tags,
		ListID:                      listID,
		Links:                       ln.self("/lists/"+listID+"/members/"+hash, "Lists/Members/Instance.json"),
	}
	if status == "unsubscribed" {
		mem.UnsubscribeReason = unsubscribeReason(m)
	}
	return mem
}

func (c *config) segmentMember(l, m int, ln links) segmentMember {
	full := c.member(l, m, ln)
	return segmentMember{
		ID: full.ID, EmailAddress: full.EmailAddress, UniqueEmailID: full.UniqueEmailID,
		EmailType: full.EmailType, Status: full.Status, MergeFields: full.MergeFields,
		Interests: full.Interests, Stats: full.Stats, IPSignup: full.IPSignup,
		TimestampSignup: full.TimestampSignup, IPOpt: full.IPOpt, TimestampOpt: full.TimestampOpt,
		MemberRating: full.MemberRating, LastChanged: full.LastChanged, Language: full.Language,
		VIP: full.VIP, EmailClient: full.EmailClient, Location: full.Location, ListID: full.ListID,
		Links: full.Links,
	}
}

func unsubscribeReason(m int) string {
	if m%40 == 16 {
		return "N/A (Unsubscribed by admin)"
	}
	return "I no longer want to receive these emails"
}

// ---------------------------------------------------------------- campaigns

func campaignStatus(i int) string {
	switch i % 10 {
	case 7:
		return "save"
	case 8:
		return "schedule"
	case 9:
		return "paused"
	}
	return "sent"
}

func campaignType(i int) string {
	switch {
	case i%10 == 3:
		return "plaintext"
	case i%20 == 6:
		return "variate"
	case i%50 == 8:
		return "rss"
	}
	return "regular"
}

func campaignCreateTime(i int) time.Time { return epoch().Add(time.Duration(i) * 2 * time.Hour) }
func campaignSendTime(i int) time.Time   { return campaignCreateTime(i).Add(26 * time.Hour) }

// campaignSendTimeString is "" for campaigns that have not been sent or
// scheduled.
func campaignSendTimeString(i int) string {
	switch campaignStatus(i) {
	case "sent", "schedule":
		return ts(campaignSendTime(i))
	}
	return ""
}

func folderID(i int) string { return hexID(i%3, folderMask) }

func (c *config) campaignListIndex(i int) (int, bool) {
	if c.lists == 0 {
		return 0, false
	}
	return i % c.lists, true
}

func (c *config) campaignRecipients(i int) recipients {
	l, ok := c.campaignListIndex(i)
	if !ok {
		return recipients{}
	}
	return recipients{ListID: c.listID(l), ListIsActive: true, ListName: listName(l), RecipientCount: int64(c.members)}
}

func (c *config) campaign(i int, ln links) campaign {
	id := hexID(i, campaignMask)
	status := campaignStatus(i)
	typ := campaignType(i)
	title := fmt.Sprintf("Placeholder campaign %d", i+1)
	cp := campaign{
		ID: id, WebID: int64(900_000 + i), Type: typ,
		CreateTime:     ts(campaignCreateTime(i)),
		ArchiveURL:     "https://eepurl.com/placeholder-" + id,
		LongArchiveURL: "https://us6.campaign-archive.com/?u=0123456789abcdef01234567&id=" + id,
		Status:         status,
		SendTime:       campaignSendTimeString(i),
		ContentType:    "template",
		Resendable:     status == "sent" && typ == "regular",
		Recipients:     c.campaignRecipients(i),
		Settings: campaignSettings{
			SubjectLine: fmt.Sprintf("News number %d", i+1), Title: title,
			FromName: "Placeholder Co", ReplyTo: "news@example.com", ToName: "*|FNAME|*",
			FolderID: folderID(i), Authenticate: true, FBComments: true,
			TemplateID: 10_000 + int64(i%7), DragAndDrop: true,
		},
		Tracking:   tracking{Opens: true, HTMLClicks: true, TextClicks: typ == "plaintext"},
		SocialCard: socialCard{Title: title},
		Links:      ln.self("/campaigns/"+id, "Campaigns/Instance.json"),
	}
	if typ == "variate" {
		cp.VariateSettings = &variateSettings{WinningCriteria: "opens", WaitTime: 240, TestSize: 20,
			SubjectLines: []string{"Variant A", "Variant B"}}
	}
	if typ == "rss" {
		cp.RSSOpts = &rssOpts{FeedURL: "https://example.com/feed.xml", Frequency: "daily"}
	}
	if status == "sent" {
		cp.EmailsSent = int64(c.members)
		o, u, cl, sc := c.engagement()
		cp.ReportSummary = &reportSummary{Opens: o, UniqueOpens: u, OpenRate: rate(u, c.members),
			Clicks: cl, SubscriberClicks: sc, ClickRate: rate(sc, c.members), Ecommerce: &ecommerceSummary{}}
	}
	return cp
}

// engagement returns total opens, unique opens, total clicks and unique
// clicking subscribers of a sent campaign, consistent with its email
// activity (members m%4 == 0 open and click, m%4 == 1 open).
func (c *config) engagement() (opens, uniqueOpens, clicks, subscriberClicks int64) {
	n := min(c.emailActivity, c.members)
	o0, o1 := int64(countResidue(n, 4, 0)), int64(countResidue(n, 4, 1))
	return o0 + o1, o0 + o1, o0, o0
}

func rate(k int64, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(k) / float64(n)
}

// ---------------------------------------------------------------- reports

// sentCount is the number of sent campaigns; sentAt maps the j-th sent
// campaign to its campaign index.
func (c *config) sentCount() int {
	n := c.campaigns
	return n/10*7 + min(n%10, 7)
}

func sentAt(j int) int { return j/7*10 + j%7 }

func (c *config) report(i int, ln links) report {
	cp := c.campaign(i, ln)
	o, u, cl, sc := c.engagement()
	n := min(c.emailActivity, c.members)
	hard := int64(countResidue(n, 8, 6)) // bounces are members m%4 == 2: hard when m%8 == 6
	soft := int64(countResidue(n, 8, 2))
	send := cp.SendTime
	return report{
		ID: cp.ID, CampaignTitle: cp.Settings.Title, Type: cp.Type,
		ListID: cp.Recipients.ListID, ListIsActive: cp.Recipients.ListIsActive, ListName: cp.Recipients.ListName,
		SubjectLine: cp.Settings.SubjectLine, EmailsSent: cp.EmailsSent,
		Unsubscribed: int64(c.unsubscribeCount()), SendTime: send,
		Bounces:       bounces{HardBounces: hard, SoftBounces: soft},
		Opens:         opens{OpensTotal: o, UniqueOpens: u, OpenRate: rate(u, c.members), LastOpen: c.lastActivity(i)},
		Clicks:        clicks{ClicksTotal: cl, UniqueClicks: cl, UniqueSubscriberClicks: sc, ClickRate: rate(sc, c.members), LastClick: c.lastActivity(i)},
		IndustryStats: industryStats{Type: "Marketing and Advertising", OpenRate: 0.2, ClickRate: 0.02, BounceRate: 0.01, UnopenRate: 0.8, UnsubRate: 0.003, AbuseRate: 0.0002},
		ListStats:     reportListStats{SubRate: 5, OpenRate: 31.2, ClickRate: 8.7},
		Timeseries:    []timeseriesPoint{{Timestamp: send, EmailsSent: cp.EmailsSent, UniqueOpens: u, RecipientsClicks: sc}},
		ShareReport:   shareReport{ShareURL: "https://us6.campaign-archive.com/placeholder-report-" + cp.ID},
		Ecommerce:     reportEcommerce{CurrencyCode: "USD"},
		Links:         ln.self("/reports/"+cp.ID, "Reports/Instance.json"),
	}
}

// ---------------------------------------------------------------- email activity

func activityTime(i, m int) time.Time {
	return campaignSendTime(i).Add(time.Duration(m+1) * time.Minute)
}

func (c *config) lastActivity(i int) string {
	n := min(c.emailActivity, c.members)
	for m := n - 1; m >= 0; m-- {
		if m%4 <= 1 {
			return ts(activityTime(i, m))
		}
	}
	return ""
}

// activity is recipient m's activity in sent campaign i. Events at or
// before since (when set) are left out.
func (c *config) activity(i, m int, since time.Time, ln links) emailActivity {
	id := hexID(i, campaignMask)
	l, _ := c.campaignListIndex(i)
	email := memberEmail(m)
	hash := SubscriberHash(email)
	at := activityTime(i, m)
	ip := fmt.Sprintf("192.0.2.%d", m%250+1)
	var events []activityEvent
	switch m % 4 {
	case 0:
		events = []activityEvent{
			{Action: "open", Timestamp: ts(at), IP: ip},
			{Action: "click", Timestamp: ts(at.Add(time.Minute)), URL: "https://example.com/offer", IP: ip},
		}
	case 1:
		events = []activityEvent{{Action: "open", Timestamp: ts(at), IP: ip}}
	case 2:
		typ := "soft"
		if m%8 == 6 {
			typ = "hard"
		}
		events = []activityEvent{{Action: "bounce", Type: typ, Timestamp: ts(at)}}
	}
	kept := make([]activityEvent, 0, len(events))
	for _, e := range events {
		if t, _ := time.Parse(time.RFC3339, e.Timestamp); since.IsZero() || t.After(since) {
			kept = append(kept, e)
		}
	}
	return emailActivity{
		CampaignID: id, ListID: c.listID(l), ListIsActive: true, EmailID: hash, EmailAddress: email,
		Activity: kept,
		Links:    ln.self("/reports/"+id+"/email-activity/"+hash, "Reports/EmailActivity/Instance.json"),
	}
}

// ---------------------------------------------------------------- unsubscribes

// unsubscribeCount is the number of unsubscribes reported per sent campaign:
// the first members whose status is unsubscribed (m = 16, 36, 56, ...).
func (c *config) unsubscribeCount() int {
	return min(c.unsubscribes, c.countStatus("unsubscribed"))
}

func (c *config) unsubscribe(i, k int, ln links) unsubscribe {
	id := hexID(i, campaignMask)
	l, _ := c.campaignListIndex(i)
	m := 16 + 20*k
	email := memberEmail(m)
	hash := SubscriberHash(email)
	return unsubscribe{
		EmailID: hash, EmailAddress: email,
		MergeFields: mergeFields{FName: firstNames[m%len(firstNames)], LName: "Placeholder"},
		VIP:         memberVIP(m),
		Timestamp:   ts(campaignSendTime(i).Add(time.Duration(k+1) * time.Hour)),
		Reason:      unsubscribeReason(m),
		CampaignID:  id, ListID: c.listID(l), ListIsActive: true,
		Links: ln.self("/reports/"+id+"/unsubscribed/"+hash, "Reports/Unsubs/Instance.json"),
	}
}

// ---------------------------------------------------------------- automations

var automationStatuses = [3]string{"sending", "paused", "save"}

func automationStatus(a int) string { return automationStatuses[a%3] }

func automationCreateTime(a int) time.Time { return epoch().AddDate(0, 0, 5*a) }

// automationStartTime is zero for automations that never started.
func automationStartTime(a int) time.Time {
	if automationStatus(a) == "save" {
		return time.Time{}
	}
	return automationCreateTime(a).Add(24 * time.Hour)
}

var workflowTypes = [...]struct{ typ, title string }{
	{"emailSeries", "Email series"}, {"welcomeSeries", "Welcome new subscribers"},
	{"dateAdded", "Date added"}, {"specialEvent", "Special event"},
}

func (c *config) automation(a int, ln links) automation {
	id := hexID(a, autoMask)
	start := ""
	if t := automationStartTime(a); !t.IsZero() {
		start = ts(t)
	}
	var rcp recipients
	if c.lists > 0 {
		l := a % c.lists
		rcp = recipients{ListID: c.listID(l), ListIsActive: true, ListName: listName(l),
			SegmentOpts: &segmentOpts{Match: "any", Conditions: []any{}}}
	}
	wf := workflowTypes[a%len(workflowTypes)]
	sent := int64(0)
	if start != "" {
		sent = int64(c.members * (a%4 + 1))
	}
	return automation{
		ID: id, CreateTime: ts(automationCreateTime(a)), StartTime: start, Status: automationStatus(a),
		EmailsSent: sent, Recipients: rcp,
		Settings: automationSettings{Title: fmt.Sprintf("Placeholder automation %d", a+1), FromName: "Placeholder Co",
			ReplyTo: "news@example.com", ToName: "*|FNAME|*", Authenticate: true},
		Tracking:        tracking{Opens: true, HTMLClicks: true},
		TriggerSettings: triggerSettings{WorkflowType: wf.typ, WorkflowTitle: wf.title, WorkflowEmailsCount: int64(a%3 + 1)},
		ReportSummary: reportSummary{Opens: sent / 2, UniqueOpens: sent / 3, OpenRate: rate(sent/3, max(int(sent), 1)),
			Clicks: sent / 8, SubscriberClicks: sent / 10, ClickRate: rate(sent/10, max(int(sent), 1))},
		Links: ln.self("/automations/"+id, "Automations/Instance.json"),
	}
}

// ---------------------------------------------------------------- tags

var tagNames = [...]string{"customer", "newsletter", "vip", "event-attendee", "partner", "beta-tester",
	"webinar", "trial", "lead", "press"}

func tagName(t int) string {
	if t < len(tagNames) {
		return tagNames[t]
	}
	return tagNames[t%len(tagNames)] + "-" + strconv.Itoa(t/len(tagNames))
}

func (c *config) tagID(l, t int) int64 { return int64(tagIDBase + l*c.tags + t) }

// ---------------------------------------------------------------- interests

var categoryTypes = [...]string{"checkboxes", "dropdown", "radio", "hidden"}

func (c *config) categoryID(l, k int) string { return hexID(l*c.interestCategories+k, categoryMask) }

// categoryIndex maps a category id back to its index within list l.
func (c *config) categoryIndex(l int, id string) (int, bool) {
	g, ok := parseHexID(id, categoryMask, (l+1)*c.interestCategories)
	if !ok || g/c.interestCategories != l {
		return 0, false
	}
	return g % c.interestCategories, true
}

func (c *config) interestCategory(l, k int, ln links) interestCategory {
	listID, id := c.listID(l), c.categoryID(l, k)
	return interestCategory{
		ListID: listID, ID: id, Title: fmt.Sprintf("Placeholder question %d", k+1), DisplayOrder: int64(k),
		Type:  categoryTypes[k%len(categoryTypes)],
		Links: ln.self("/lists/"+listID+"/interest-categories/"+id, "Lists/InterestCategories/Instance.json"),
	}
}

// interestGlobal is the account-wide index of interest n of category k of
// list l.
func (c *config) interestGlobal(l, k, n int) int {
	return (l*c.interestCategories+k)*c.interests + n
}

func (c *config) interestID(l, k, n int) string {
	return hexID(c.interestGlobal(l, k, n), interestMask)
}

// interestIndex maps an interest id back to its index within category k of
// list l.
func (c *config) interestIndex(l, k int, id string) (int, bool) {
	g, ok := parseHexID(id, interestMask, (l*c.interestCategories+k+1)*c.interests)
	if !ok || g/c.interests != l*c.interestCategories+k {
		return 0, false
	}
	return g % c.interests, true
}

func (c *config) interest(l, k, n int, ln links) interest {
	listID, catID, id := c.listID(l), c.categoryID(l, k), c.interestID(l, k, n)
	g := c.interestGlobal(l, k, n)
	// members m with (m+g)%3 == 0, i.e. m ≡ -g (mod 3)
	subs := countResidue(c.members, 3, (3-g%3)%3)
	return interest{
		CategoryID: catID, ListID: listID, ID: id, Name: fmt.Sprintf("Placeholder interest %d.%d", k+1, n+1),
		SubscriberCount: strconv.Itoa(subs), DisplayOrder: int64(n + 1),
		Links: ln.self("/lists/"+listID+"/interest-categories/"+catID+"/interests/"+id,
			"Lists/InterestCategories/Interests/Instance.json"),
	}
}

// ---------------------------------------------------------------- segments

var segmentTypes = [...]string{"saved", "static", "fuzzy"}

func (c *config) segmentID(l, s int) int64 { return int64(segmentIDBase + l*c.segments + s) }

func segmentType(s int) string { return segmentTypes[s%len(segmentTypes)] }

func (c *config) segmentCreated(l, s int) time.Time {
	return c.listCreated(l).AddDate(0, 0, s+1)
}

func (c *config) segmentUpdated(l, s int) time.Time {
	return c.segmentCreated(l, s).Add(time.Duration(s%5) * 24 * time.Hour)
}

// segmentSize is the number of members of segment s (m ≡ s mod segments).
func (c *config) segmentSize(s int) int { return countResidue(c.members, c.segments, s) }

// segmentMemberAt maps the j-th member of segment s to its member index.
func (c *config) segmentMemberAt(s, j int) int { return s + j*c.segments }

// segmentActive counts the subscribed members of segment s.
func (c *config) segmentActive(s int) int {
	n := 0
	for j := range c.segmentSize(s) {
		if memberStatus(c.segmentMemberAt(s, j)) == "subscribed" {
			n++
		}
	}
	return n
}

func (c *config) segment(l, s int, ln links) segment {
	listID := c.listID(l)
	id := c.segmentID(l, s)
	seg := segment{
		ID: id, Name: fmt.Sprintf("Placeholder segment %d", s+1), MemberCount: int64(c.segmentActive(s)),
		Type: segmentType(s), CreatedAt: ts(c.segmentCreated(l, s)), UpdatedAt: ts(c.segmentUpdated(l, s)),
		ListID: listID,
		Links:  ln.self("/lists/"+listID+"/segments/"+strconv.FormatInt(id, 10), "Lists/Segments/Instance.json"),
	}
	if seg.Type == "saved" {
		seg.Options = &segmentOptions{Match: "any", Conditions: []segmentCondition{
			{ConditionType: "TextMerge", Field: "EMAIL", Op: "ends", Value: fmt.Sprintf("%d@example.com", s)},
		}}
	}
	return seg
}

// ---------------------------------------------------------------- hashes

// memberByHash finds the member whose subscriber hash is h.
func (s *Server) memberByHash(h string) (int, bool) {
	raw, err := hex.DecodeString(strings.ToLower(h))
	if err != nil || len(raw) != md5.Size {
		return 0, false
	}
	key := [md5.Size]byte(raw)
	const indexed = 200_000 // above this, scan instead of holding a map
	if s.cfg.members <= indexed {
		s.hashOnce.Do(func() {
			s.hashIndex = make(map[[md5.Size]byte]int, s.cfg.members)
			for m := range s.cfg.members {
				s.hashIndex[md5.Sum([]byte(memberEmail(m)))] = m
			}
		})
		if m, ok := s.hashIndex[key]; ok {
			return m, true
		}
		return s.createdMemberByHash(key)
	}
	for m := range s.cfg.members {
		if md5.Sum([]byte(memberEmail(m))) == key {
			return m, true
		}
	}
	return s.createdMemberByHash(key)
}
