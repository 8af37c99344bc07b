package intercomtest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Synthetic workspace data. Every record is a pure function of its index,
// so a fake with a million contacts costs nothing until a page is asked
// for. Names, emails and URLs are placeholders (example.com, 555 numbers).

const (
	// baseTime is 2024-01-01T00:00:00Z; every timestamp is derived from it.
	baseTime = 1704067200

	contactIDPrefix = "65a0c0de" // + 16 hex digits of the index = 24 hex chars
	companyIDPrefix = "65a0c0ae"
	segmentIDPrefix = "65a0c05e"

	conversationIDBase = 215470000000000
	adminIDBase        = 991267400
	teamIDBase         = 5017690
	tagIDBase          = 7001000
)

var (
	firstNames = []string{"Ada", "Bram", "Cleo", "Dara", "Emil", "Fenna", "Gus", "Hana", "Ivo", "Juno", "Kai", "Lena"}
	lastNames  = []string{"Sample", "Example", "Placeholder", "Testwell", "Mockford", "Fakely"}
	browsers   = []string{"chrome", "firefox", "safari", "edge"}
	systems    = []string{"OS X 14.4", "Windows 11", "Linux", "iOS 17.4"}
	industries = []string{"Software", "Retail", "Education", "Logistics", "Healthcare", "Media"}
	plans      = []string{"Starter", "Growth", "Pro", "Enterprise"}
	issueTypes = []string{"billing", "technical", "account"}
	regions    = []string{"emea", "amer", "apac"}
	topicsText = []string{"an invoice", "my password", "the mobile app", "a refund", "exporting data", "the API"}
	locations  = []location{
		{"location", "Ireland", "Dublin", "Dublin", "IRL", "EU"},
		{"location", "United States", "California", "San Francisco", "USA", "NA"},
		{"location", "Australia", "New South Wales", "Sydney", "AUS", "OC"},
		{"location", "Germany", "Berlin", "Berlin", "DEU", "EU"},
	}

	teamNames  = []string{"Support Tier 1", "Billing", "Sales", "Onboarding"}
	adminJobs  = []string{"Support lead", "Support engineer", "Account manager", "Solutions engineer"}
	tagNames   = []string{"VIP", "Beta tester", "Churn risk", "Enterprise", "Trial", "Partner", "Feedback", "Bug reporter", "Newsletter", "Onboarded"}
	segmentDef = []struct{ name, personType string }{
		{"Active users", "user"}, {"New leads", "contact"}, {"Paying customers", "user"},
		{"Slipping away", "user"}, {"Mobile users", "user"}, {"Newsletter leads", "contact"},
	}
)

const numAdmins = 8

func ptr[T any](v T) *T { return &v }

func hexID(prefix string, i int) string { return fmt.Sprintf("%s%016x", prefix, i) }

// hexIndex inverts hexID; ok is false for ids of another form.
func hexIndex(prefix, id string) (int, bool) {
	if len(id) != 24 || !strings.HasPrefix(id, prefix) {
		return 0, false
	}
	n, err := strconv.ParseUint(id[len(prefix):], 16, 63)
	if err != nil || n > 1<<40 {
		return 0, false
	}
	return int(n), true
}

func numIndex(base int, id string, n int) (int, bool) {
	v, err := strconv.Atoi(id)
	if err != nil || v < base || v-base >= n || strconv.Itoa(v) != id {
		return 0, false
	}
	return v - base, true
}

func contactID(i int) string      { return hexID(contactIDPrefix, i) }
func companyID(i int) string      { return hexID(companyIDPrefix, i) }
func segmentID(i int) string      { return hexID(segmentIDPrefix, i) }
func conversationID(i int) string { return strconv.Itoa(conversationIDBase + i) }
func adminIDNum(i int) int        { return adminIDBase + i%numAdmins }
func teamIDNum(i int) int         { return teamIDBase + i%len(teamNames) }
func tagID(i int) string          { return strconv.Itoa(tagIDBase + i%len(tagNames)) }

func personName(i int) string {
	return firstNames[i%len(firstNames)] + " " + lastNames[(i/len(firstNames))%len(lastNames)]
}

// ---------------------------------------------------------------- shapes

type location struct {
	Type          string `json:"type"`
	Country       string `json:"country"`
	Region        string `json:"region"`
	City          string `json:"city"`
	CountryCode   string `json:"country_code"`
	ContinentCode string `json:"continent_code"`
}

type addressable struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	URL  string `json:"url"`
}

type addressableList struct {
	Type       string        `json:"type"`
	Data       []addressable `json:"data"`
	URL        string        `json:"url"`
	TotalCount int           `json:"total_count"`
	HasMore    bool          `json:"has_more"`
}

type socialProfile struct {
	Type string `json:"type"`
	Name string `json:"name"`
	URL  string `json:"url"`
}

type socialProfiles struct {
	Type string          `json:"type"`
	Data []socialProfile `json:"data"`
}

type avatar struct {
	Type     string `json:"type"`
	ImageURL string `json:"image_url"`
}

type contact struct {
	Type                      string          `json:"type"`
	ID                        string          `json:"id"`
	WorkspaceID               string          `json:"workspace_id"`
	ExternalID                *string         `json:"external_id"`
	Role                      string          `json:"role"`
	Email                     *string         `json:"email"`
	Phone                     *string         `json:"phone"`
	Name                      *string         `json:"name"`
	Avatar                    *avatar         `json:"avatar"`
	OwnerID                   *int            `json:"owner_id"`
	SocialProfiles            socialProfiles  `json:"social_profiles"`
	HasHardBounced            bool            `json:"has_hard_bounced"`
	MarkedEmailAsSpam         bool            `json:"marked_email_as_spam"`
	UnsubscribedFromEmails    bool            `json:"unsubscribed_from_emails"`
	CreatedAt                 int             `json:"created_at"`
	UpdatedAt                 int             `json:"updated_at"`
	SignedUpAt                *int            `json:"signed_up_at"`
	LastSeenAt                *int            `json:"last_seen_at"`
	LastRepliedAt             *int            `json:"last_replied_at"`
	LastContactedAt           *int            `json:"last_contacted_at"`
	LastEmailOpenedAt         *int            `json:"last_email_opened_at"`
	LastEmailClickedAt        *int            `json:"last_email_clicked_at"`
	LanguageOverride          *string         `json:"language_override"`
	Browser                   *string         `json:"browser"`
	BrowserVersion            *string         `json:"browser_version"`
	BrowserLanguage           *string         `json:"browser_language"`
	OS                        *string         `json:"os"`
	Location                  location        `json:"location"`
	AndroidAppName            *string         `json:"android_app_name"`
	AndroidAppVersion         *string         `json:"android_app_version"`
	AndroidDevice             *string         `json:"android_device"`
	AndroidOSVersion          *string         `json:"android_os_version"`
	AndroidSDKVersion         *string         `json:"android_sdk_version"`
	AndroidLastSeenAt         *int            `json:"android_last_seen_at"`
	IOSAppName                *string         `json:"ios_app_name"`
	IOSAppVersion             *string         `json:"ios_app_version"`
	IOSDevice                 *string         `json:"ios_device"`
	IOSOSVersion              *string         `json:"ios_os_version"`
	IOSSDKVersion             *string         `json:"ios_sdk_version"`
	IOSLastSeenAt             *int            `json:"ios_last_seen_at"`
	CustomAttributes          contactAttrs    `json:"custom_attributes"`
	Tags                      addressableList `json:"tags"`
	Notes                     addressableList `json:"notes"`
	Companies                 addressableList `json:"companies"`
	OptedOutSubscriptionTypes addressableList `json:"opted_out_subscription_types"`
	OptedInSubscriptionTypes  addressableList `json:"opted_in_subscription_types"`
	UTMCampaign               *string         `json:"utm_campaign"`
	UTMContent                *string         `json:"utm_content"`
	UTMMedium                 *string         `json:"utm_medium"`
	UTMSource                 *string         `json:"utm_source"`
	UTMTerm                   *string         `json:"utm_term"`
	Referrer                  *string         `json:"referrer"`
}

// contactAt builds contact i of a workspace with nCompanies companies.
func contactAt(i, nCompanies int) contact {
	id := contactID(i)
	created := baseTime + i*3600
	updated := created + 86400 + (i%1000)*60
	lead := i%5 == 4
	c := contact{
		Type:        "contact",
		ID:          id,
		WorkspaceID: WorkspaceID,
		Role:        "user",
		Email:       ptr(fmt.Sprintf("contact%d@example.com", i)),
		Name:        ptr(personName(i)),
		SocialProfiles: socialProfiles{
			Type: "list", Data: []socialProfile{},
		},
		HasHardBounced:         i%50 == 49,
		MarkedEmailAsSpam:      i%97 == 96,
		UnsubscribedFromEmails: i%11 == 10,
		CreatedAt:              created,
		UpdatedAt:              updated,
		Location:               locations[i%len(locations)],
		CustomAttributes:       contactAttrs{PlanTier: plans[i%len(plans)], Seats: 1 + i%40},
		Tags:                   addressableList{Type: "list", Data: []addressable{}, URL: "/contacts/" + id + "/tags"},
		Notes:                  addressableList{Type: "list", Data: []addressable{}, URL: "/contacts/" + id + "/notes"},
		Companies:              addressableList{Type: "list", Data: []addressable{}, URL: "/contacts/" + id + "/companies"},
		OptedOutSubscriptionTypes: addressableList{
			Type: "list", Data: []addressable{}, URL: "/contacts/" + id + "/subscriptions",
		},
		OptedInSubscriptionTypes: addressableList{
			Type: "list", Data: []addressable{}, URL: "/contacts/" + id + "/subscriptions",
		},
	}
	if lead {
		c.Role = "lead"
	} else {
		c.SignedUpAt = ptr(created)
	}
	if i%4 != 3 {
		c.ExternalID = ptr(fmt.Sprintf("usr-%07d", i))
	}
	if i%3 == 0 {
		c.Phone = ptr(fmt.Sprintf("+1555%07d", i%10_000_000))
	}
	if i%7 == 0 {
		c.Avatar = &avatar{Type: "avatar", ImageURL: "https://static.example.com/avatars/" + id + ".png"}
	}
	if i%4 == 0 {
		c.OwnerID = ptr(adminIDNum(i))
	}
	if i%6 == 0 {
		c.SocialProfiles.Data = append(c.SocialProfiles.Data, socialProfile{
			Type: "social_profile", Name: "Twitter", URL: fmt.Sprintf("https://social.example.com/contact%d", i),
		})
	}
	if i%3 != 2 {
		c.LastSeenAt = ptr(updated - 600)
		c.Browser = ptr(browsers[i%len(browsers)])
		c.BrowserVersion = ptr(fmt.Sprintf("%d.0.%d", 110+i%15, i%100))
		c.BrowserLanguage = ptr("en")
		c.OS = ptr(systems[i%len(systems)])
	}
	if i%4 == 1 {
		c.LastRepliedAt = ptr(created + 7200)
	}
	if i%5 == 0 {
		c.LastContactedAt = ptr(created + 3600)
		c.LastEmailOpenedAt = ptr(created + 5400)
	}
	if i%10 == 0 {
		c.LastEmailClickedAt = ptr(created + 5460)
		c.UTMCampaign = ptr("spring-launch")
		c.UTMContent = ptr("hero-banner")
		c.UTMMedium = ptr("email")
		c.UTMSource = ptr("newsletter")
		c.UTMTerm = ptr("pricing")
		c.Referrer = ptr("https://www.example.com/pricing")
	}
	if i%9 == 0 {
		c.LanguageOverride = ptr("fr")
	}
	if i%8 == 1 {
		c.AndroidAppName = ptr("Sample App")
		c.AndroidAppVersion = ptr("3.2.1")
		c.AndroidDevice = ptr("Pixel 8")
		c.AndroidOSVersion = ptr("14")
		c.AndroidSDKVersion = ptr("15.6.0")
		c.AndroidLastSeenAt = ptr(updated - 1200)
	}
	if i%8 == 2 {
		c.IOSAppName = ptr("Sample App")
		c.IOSAppVersion = ptr("3.2.0")
		c.IOSDevice = ptr("iPhone 15")
		c.IOSOSVersion = ptr("17.4")
		c.IOSSDKVersion = ptr("17.1.0")
		c.IOSLastSeenAt = ptr(updated - 1800)
	}
	tid := tagID(i)
	c.Tags.Data = append(c.Tags.Data, addressable{Type: "tag", ID: tid, URL: "/tags/" + tid})
	c.Tags.TotalCount = 1
	if nCompanies > 0 {
		cid := companyID(i % nCompanies)
		c.Companies.Data = append(c.Companies.Data, addressable{Type: "company", ID: cid, URL: "/companies/" + cid})
		c.Companies.TotalCount = 1
	}
	return c
}

// Custom attributes of the fake workspace.
type contactAttrs struct {
	PlanTier string `json:"plan_tier"`
	Seats    int    `json:"seats"`
}

type conversationAttrs struct {
	IssueType string `json:"issue_type"`
}

type companyAttrs struct {
	Region string `json:"region"`
}

type ref struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

type author struct {
	Type  string `json:"type"`
	ID    string `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

type attachment struct {
	Type        string `json:"type"`
	Name        string `json:"name"`
	URL         string `json:"url"`
	ContentType string `json:"content_type"`
	Filesize    int    `json:"filesize"`
	Width       int    `json:"width"`
	Height      int    `json:"height"`
}

type source struct {
	Type        string       `json:"type"`
	ID          string       `json:"id"`
	DeliveredAs string       `json:"delivered_as"`
	Subject     string       `json:"subject"`
	Body        string       `json:"body"`
	Author      author       `json:"author"`
	Attachments []attachment `json:"attachments"`
	URL         *string      `json:"url"`
	Redacted    bool         `json:"redacted"`
}

type contactRef struct {
	Type       string  `json:"type"`
	ID         string  `json:"id"`
	ExternalID *string `json:"external_id"`
}

type conversationContacts struct {
	Type     string       `json:"type"`
	Contacts []contactRef `json:"contacts"`
}

type firstContactReply struct {
	CreatedAt int     `json:"created_at"`
	Type      string  `json:"type"`
	URL       *string `json:"url"`
}

type tagApplied struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	Name      string `json:"name"`
	AppliedAt int    `json:"applied_at"`
	AppliedBy ref    `json:"applied_by"`
}

type tagList struct {
	Type string       `json:"type"`
	Tags []tagApplied `json:"tags"`
}

type slaApplied struct {
	Type      string `json:"type"`
	SLAName   string `json:"sla_name"`
	SLAStatus string `json:"sla_status"`
}

type statistics struct {
	Type                       string  `json:"type"`
	TimeToAssignment           int     `json:"time_to_assignment"`
	TimeToAdminReply           int     `json:"time_to_admin_reply"`
	TimeToFirstClose           *int    `json:"time_to_first_close,omitempty"`
	TimeToLastClose            *int    `json:"time_to_last_close,omitempty"`
	MedianTimeToReply          int     `json:"median_time_to_reply"`
	FirstContactReplyAt        int     `json:"first_contact_reply_at"`
	FirstAssignmentAt          int     `json:"first_assignment_at"`
	FirstAdminReplyAt          int     `json:"first_admin_reply_at"`
	FirstCloseAt               *int    `json:"first_close_at,omitempty"`
	LastAssignmentAt           int     `json:"last_assignment_at"`
	LastAssignmentAdminReplyAt int     `json:"last_assignment_admin_reply_at"`
	LastContactReplyAt         int     `json:"last_contact_reply_at"`
	LastAdminReplyAt           int     `json:"last_admin_reply_at"`
	LastCloseAt                *int    `json:"last_close_at,omitempty"`
	LastClosedByID             *string `json:"last_closed_by_id,omitempty"`
	CountReopens               int     `json:"count_reopens"`
	CountAssignments           int     `json:"count_assignments"`
	CountConversationParts     int     `json:"count_conversation_parts"`
}

type rating struct {
	Rating    int        `json:"rating"`
	Remark    string     `json:"remark"`
	CreatedAt int        `json:"created_at"`
	Contact   contactRef `json:"contact"`
	Teammate  ref        `json:"teammate"`
}

type teammates struct {
	Type      string `json:"type"`
	Teammates []ref  `json:"teammates"`
}

type linkedObjects struct {
	Type       string `json:"type"`
	Data       []any  `json:"data"`
	TotalCount int    `json:"total_count"`
	HasMore    bool   `json:"has_more"`
}

type part struct {
	Type        string       `json:"type"`
	ID          string       `json:"id"`
	PartType    string       `json:"part_type"`
	Body        *string      `json:"body"`
	CreatedAt   int          `json:"created_at"`
	UpdatedAt   int          `json:"updated_at"`
	NotifiedAt  int          `json:"notified_at"`
	AssignedTo  *ref         `json:"assigned_to"`
	Author      author       `json:"author"`
	Attachments []attachment `json:"attachments"`
	ExternalID  *string      `json:"external_id"`
	Redacted    bool         `json:"redacted"`
}

type parts struct {
	Type              string `json:"type"`
	ConversationParts []part `json:"conversation_parts"`
	TotalCount        int    `json:"total_count"`
}

type conversation struct {
	Type                string               `json:"type"`
	ID                  string               `json:"id"`
	CreatedAt           int                  `json:"created_at"`
	UpdatedAt           int                  `json:"updated_at"`
	WaitingSince        *int                 `json:"waiting_since"`
	SnoozedUntil        *int                 `json:"snoozed_until"`
	Source              source               `json:"source"`
	Contacts            conversationContacts `json:"contacts"`
	FirstContactReply   *firstContactReply   `json:"first_contact_reply"`
	AdminAssigneeID     *int                 `json:"admin_assignee_id"`
	TeamAssigneeID      *int                 `json:"team_assignee_id"`
	Open                bool                 `json:"open"`
	State               string               `json:"state"`
	Read                bool                 `json:"read"`
	Tags                tagList              `json:"tags"`
	Priority            string               `json:"priority"`
	SLAApplied          *slaApplied          `json:"sla_applied"`
	Statistics          *statistics          `json:"statistics"`
	ConversationRating  *rating              `json:"conversation_rating"`
	Teammates           teammates            `json:"teammates"`
	Title               *string              `json:"title"`
	CustomAttributes    conversationAttrs    `json:"custom_attributes"`
	Topics              struct{}             `json:"topics"`
	Ticket              *struct{}            `json:"ticket"`
	LinkedObjects       linkedObjects        `json:"linked_objects"`
	AIAgent             *struct{}            `json:"ai_agent"`
	AIAgentParticipated bool                 `json:"ai_agent_participated"`
	ConversationParts   *parts               `json:"conversation_parts,omitempty"`
}

func adminAuthor(i int) author {
	n := adminIDNum(i) - adminIDBase
	return author{Type: "admin", ID: strconv.Itoa(adminIDNum(i)), Name: adminName(n), Email: adminEmail(n)}
}

// attachmentOf is the attachment of the first part of conversation i, if it
// has one; its URL points at the fake's file host.
// AttachmentOrigin is the origin of the attachments' url in records: the
// host Intercom serves uploads from. FilesURL serves the same paths.
const AttachmentOrigin = "https://downloads.intercomcdn.com"

func attachmentOf(i int, origin string) (attachment, bool) {
	if i%10 != 0 {
		return attachment{}, false
	}
	name := fmt.Sprintf("screenshot-%d.png", i)
	return attachment{
		Type:        "upload",
		Name:        name,
		URL:         origin + "/attachments/" + conversationID(i) + "/" + name,
		ContentType: "image/png",
		Filesize:    attachmentSize(i),
		Width:       800,
		Height:      600,
	}, true
}

func attachmentSize(i int) int { return 20_000 + (i*7919)%30_000 }

// conversationAt builds conversation i. withParts adds the conversation
// parts that only GET /conversations/{id} returns; plain renders bodies as
// plain text (display_as=plaintext).
func conversationAt(i, nContacts int, filesURL string, withParts, plain bool) conversation {
	created := baseTime + i*1800
	updated := created + 3600*(1+i%48)
	states := []string{"open", "closed", "snoozed"}
	state := states[i%len(states)]
	ci := i
	if nContacts > 0 {
		ci = i % nContacts
	}
	cid := contactID(ci)
	var ext *string
	if ci%4 != 3 {
		ext = ptr(fmt.Sprintf("usr-%07d", ci))
	}
	body := func(html string) string {
		if plain {
			return strings.TrimSuffix(strings.TrimPrefix(html, "<p>"), "</p>")
		}
		return html
	}
	c := conversation{
		Type:      "conversation",
		ID:        conversationID(i),
		CreatedAt: created,
		UpdatedAt: updated,
		Source: source{
			Type:        "conversation",
			ID:          strconv.Itoa(403918000 + i),
			DeliveredAs: "customer_initiated",
			Subject:     "",
			Body:        body(fmt.Sprintf("<p>Hello, I have a question about %s (ref %d).</p>", topicsText[i%len(topicsText)], i)),
			Author:      author{Type: "user", ID: cid, Name: personName(ci), Email: fmt.Sprintf("contact%d@example.com", ci)},
			Attachments: []attachment{},
		},
		Contacts:          conversationContacts{Type: "contact.list", Contacts: []contactRef{{Type: "contact", ID: cid, ExternalID: ext}}},
		FirstContactReply: &firstContactReply{CreatedAt: created, Type: "conversation"},
		Open:              state != "closed",
		State:             state,
		Read:              i%2 == 0,
		Tags:              tagList{Type: "tag.list", Tags: []tagApplied{}},
		Priority:          "not_priority",
		Teammates:         teammates{Type: "admin.list", Teammates: []ref{}},
		CustomAttributes:  conversationAttrs{IssueType: issueTypes[i%len(issueTypes)]},
		LinkedObjects:     linkedObjects{Type: "list", Data: []any{}},
	}
	if a, ok := attachmentOf(i, filesURL); ok {
		c.Source.Attachments = append(c.Source.Attachments, a)
	}
	if state == "open" {
		c.WaitingSince = ptr(updated)
	}
	if state == "snoozed" {
		c.SnoozedUntil = ptr(updated + 86400)
	}
	if i%5 == 0 {
		c.Priority = "priority"
	}
	if i%3 == 0 {
		c.Title = ptr(fmt.Sprintf("Question about %s", topicsText[i%len(topicsText)]))
	}
	if i%4 != 3 {
		c.AdminAssigneeID = ptr(adminIDNum(i))
		c.Teammates.Teammates = append(c.Teammates.Teammates, ref{Type: "admin", ID: strconv.Itoa(adminIDNum(i))})
	}
	if i%3 == 0 {
		c.TeamAssigneeID = ptr(teamIDNum(i))
	}
	if i%2 == 0 {
		c.Tags.Tags = append(c.Tags.Tags, tagApplied{
			Type: "tag", ID: tagID(i), Name: tagNames[i%len(tagNames)], AppliedAt: created + 600,
			AppliedBy: ref{Type: "admin", ID: strconv.Itoa(adminIDNum(i))},
		})
	}
	if i%6 == 0 {
		c.SLAApplied = &slaApplied{Type: "conversation_sla_summary", SLAName: "Standard response", SLAStatus: []string{"hit", "missed", "active"}[i%3]}
	}
	nParts := 1 + i%4
	st := &statistics{
		Type: "conversation_statistics", TimeToAssignment: 60, TimeToAdminReply: 900, MedianTimeToReply: 900,
		FirstContactReplyAt: created, FirstAssignmentAt: created + 60, FirstAdminReplyAt: created + 900,
		LastAssignmentAt: created + 60, LastAssignmentAdminReplyAt: created + 900,
		LastContactReplyAt: updated - 600, LastAdminReplyAt: created + 900,
		CountAssignments: 1, CountConversationParts: nParts,
	}
	if state == "closed" {
		st.TimeToFirstClose = ptr(updated - created)
		st.TimeToLastClose = ptr(updated - created)
		st.FirstCloseAt = ptr(updated)
		st.LastCloseAt = ptr(updated)
		st.LastClosedByID = ptr(strconv.Itoa(adminIDNum(i)))
		if i%4 == 1 {
			c.ConversationRating = &rating{
				Rating: 1 + i%5, Remark: "Thanks for the help", CreatedAt: updated + 60,
				Contact:  contactRef{Type: "contact", ID: cid, ExternalID: ext},
				Teammate: ref{Type: "admin", ID: strconv.Itoa(adminIDNum(i))},
			}
		}
	}
	c.Statistics = st
	if withParts {
		ps := &parts{Type: "conversation_part.list", ConversationParts: make([]part, 0, nParts), TotalCount: nParts}
		for k := range nParts {
			t := created + 900*(k+1)
			p := part{
				Type: "conversation_part", ID: strconv.Itoa(880000000 + i*8 + k), PartType: "comment",
				CreatedAt: t, UpdatedAt: t, NotifiedAt: t, Attachments: []attachment{},
			}
			if k%2 == 0 {
				p.Author = adminAuthor(i)
				p.Body = ptr(body(fmt.Sprintf("<p>Reply %d from the team.</p>", k+1)))
			} else {
				p.Author = c.Source.Author
				p.Body = ptr(body(fmt.Sprintf("<p>Follow-up %d from the customer.</p>", k+1)))
			}
			if k == 0 && i%4 != 3 {
				p.PartType = "assignment"
				p.Body = nil
				p.AssignedTo = &ref{Type: "admin", ID: strconv.Itoa(adminIDNum(i))}
			}
			ps.ConversationParts = append(ps.ConversationParts, p)
		}
		c.ConversationParts = ps
	}
	return c
}

type plan struct {
	Type string `json:"type,omitempty"`
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
}

type tagBasic struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	Name string `json:"name"`
}

type companyTags struct {
	Type string     `json:"type"`
	Tags []tagBasic `json:"tags"`
}

type companySegments struct {
	Type     string    `json:"type"`
	Segments []segment `json:"segments"`
}

type company struct {
	Type             string          `json:"type"`
	CompanyID        string          `json:"company_id"`
	ID               string          `json:"id"`
	AppID            string          `json:"app_id"`
	Name             string          `json:"name"`
	RemoteCreatedAt  int             `json:"remote_created_at"`
	CreatedAt        int             `json:"created_at"`
	UpdatedAt        int             `json:"updated_at"`
	LastRequestAt    int             `json:"last_request_at"`
	MonthlySpend     int             `json:"monthly_spend"`
	SessionCount     int             `json:"session_count"`
	UserCount        int             `json:"user_count"`
	Size             int             `json:"size"`
	Website          string          `json:"website"`
	Industry         string          `json:"industry"`
	Tags             companyTags     `json:"tags"`
	Segments         companySegments `json:"segments"`
	Plan             plan            `json:"plan"`
	CustomAttributes companyAttrs    `json:"custom_attributes"`
}

func companyName(i int) string {
	words := []string{"Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Wonka", "Stark"}
	return fmt.Sprintf("%s Sample %d", words[i%len(words)], i)
}

// companyAt builds company i. last_request_at grows with i, so the list
// order (most recently requested first) is the reverse of the index.
func companyAt(i int) company {
	created := baseTime + i*600
	c := company{
		Type:             "company",
		CompanyID:        fmt.Sprintf("cmp-%07d", i),
		ID:               companyID(i),
		AppID:            WorkspaceID,
		Name:             companyName(i),
		RemoteCreatedAt:  created - 86400*30,
		CreatedAt:        created,
		UpdatedAt:        created + 3600,
		LastRequestAt:    created + 7200,
		MonthlySpend:     (i % 50) * 100,
		SessionCount:     i % 500,
		UserCount:        1 + i%25,
		Size:             5 * (1 + i%200),
		Website:          fmt.Sprintf("https://company%d.example.com", i),
		Industry:         industries[i%len(industries)],
		Tags:             companyTags{Type: "tag.list", Tags: []tagBasic{{Type: "tag", ID: tagID(i), Name: tagNames[i%len(tagNames)]}}},
		Segments:         companySegments{Type: "segment.list", Segments: []segment{segmentAt(i%len(segmentDef), -1)}},
		CustomAttributes: companyAttrs{Region: regions[i%len(regions)]},
	}
	if i%3 != 2 {
		p := i % len(plans)
		c.Plan = plan{Type: "plan", ID: strconv.Itoa(269300 + p), Name: plans[p]}
	}
	return c
}

type team struct {
	Type               string        `json:"type"`
	ID                 string        `json:"id"`
	Name               string        `json:"name"`
	AdminIDs           []int         `json:"admin_ids"`
	AdminPriorityLevel priorityLevel `json:"admin_priority_level"`
}

type priorityLevel struct {
	PrimaryAdminIDs   []int `json:"primary_admin_ids"`
	SecondaryAdminIDs []int `json:"secondary_admin_ids"`
}

// Admin k belongs to team k%4 and, for even k, also to team (k+1)%4.
func teamAt(t int) team {
	tm := team{Type: "team", ID: strconv.Itoa(teamIDBase + t), Name: teamNames[t], AdminIDs: []int{}}
	for k := range numAdmins {
		if k%len(teamNames) == t || (k%2 == 0 && (k+1)%len(teamNames) == t) {
			tm.AdminIDs = append(tm.AdminIDs, adminIDBase+k)
		}
	}
	if len(tm.AdminIDs) > 0 {
		tm.AdminPriorityLevel.PrimaryAdminIDs = tm.AdminIDs[:1]
		tm.AdminPriorityLevel.SecondaryAdminIDs = tm.AdminIDs[1:]
	}
	return tm
}

type adminAvatar struct {
	ImageURL string `json:"image_url"`
}

type teamPriority struct {
	PrimaryTeamIDs   []int `json:"primary_team_ids"`
	SecondaryTeamIDs []int `json:"secondary_team_ids"`
}

type admin struct {
	Type              string       `json:"type"`
	Email             string       `json:"email"`
	EmailVerified     bool         `json:"email_verified"`
	ID                string       `json:"id"`
	Name              string       `json:"name"`
	AwayModeEnabled   bool         `json:"away_mode_enabled"`
	AwayModeReassign  bool         `json:"away_mode_reassign"`
	HasInboxSeat      bool         `json:"has_inbox_seat"`
	TeamIDs           []int        `json:"team_ids"`
	JobTitle          string       `json:"job_title"`
	Avatar            *adminAvatar `json:"avatar,omitempty"`
	TeamPriorityLevel teamPriority `json:"team_priority_level"`
}

func adminName(k int) string  { return fmt.Sprintf("%s Teammate", firstNames[(k+5)%len(firstNames)]) }
func adminEmail(k int) string { return fmt.Sprintf("admin%d@example.com", k+1) }

func adminAt(k int, withAvatar bool) admin {
	a := admin{
		Type: "admin", Email: adminEmail(k), EmailVerified: true, ID: strconv.Itoa(adminIDBase + k),
		Name: adminName(k), AwayModeEnabled: k%5 == 4, AwayModeReassign: k%5 == 4,
		HasInboxSeat: k != numAdmins-1, TeamIDs: []int{teamIDBase + k%len(teamNames)},
		JobTitle: adminJobs[k%len(adminJobs)],
	}
	if k%2 == 0 {
		a.TeamIDs = append(a.TeamIDs, teamIDBase+(k+1)%len(teamNames))
	}
	a.TeamPriorityLevel.PrimaryTeamIDs = a.TeamIDs[:1]
	a.TeamPriorityLevel.SecondaryTeamIDs = a.TeamIDs[1:]
	if withAvatar {
		a.Avatar = &adminAvatar{ImageURL: fmt.Sprintf("https://static.example.com/admins/%d.png", adminIDBase+k)}
	}
	return a
}

// tagFull is a tag as GET /tags lists it (the tag schema, whose applied_at
// and applied_by are null outside tagging operations).
type tagFull struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	Name      string `json:"name"`
	AppliedAt *int   `json:"applied_at"`
	AppliedBy *ref   `json:"applied_by"`
}

func tagAt(k int) tagFull {
	return tagFull{Type: "tag", ID: strconv.Itoa(tagIDBase + k), Name: tagNames[k]}
}

type segment struct {
	Type       string `json:"type"`
	ID         string `json:"id"`
	Name       string `json:"name"`
	CreatedAt  int    `json:"created_at"`
	UpdatedAt  int    `json:"updated_at"`
	PersonType string `json:"person_type"`
	Count      *int   `json:"count,omitempty"`
}

// segmentAt builds segment k; count < 0 leaves the count out. Contact i is
// in segment i%6.
func segmentAt(k, count int) segment {
	s := segment{
		Type: "segment", ID: segmentID(k), Name: segmentDef[k].name,
		CreatedAt: baseTime - 86400*(30+k), UpdatedAt: baseTime - 86400*k,
		PersonType: segmentDef[k].personType,
	}
	if count >= 0 {
		s.Count = ptr(count)
	}
	return s
}

// membersOf counts the indices i < n with i%m == k.
func membersOf(n, m, k int) int {
	if k >= n {
		return 0
	}
	return (n - k + m - 1) / m
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		// Every value marshalled here is built from plain Go data.
		return []byte("null")
	}
	return b
}
