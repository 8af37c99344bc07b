package zendesktest

import (
	"net/url"
	"strconv"
	"sync/atomic"
	"time"
)

// Ids. Tickets count up from 35436 (Zendesk's documentation examples start
// there). Users and organizations use ids past 2^53 so that a client that
// decodes them as float64 corrupts them.
const (
	// FirstTicketID is the id of ticket index 0; ticket i has id
	// FirstTicketID+i.
	FirstTicketID int64 = 35436
	// ForbiddenTicketID is a reserved ticket id that answers 403 with
	// Zendesk's object-valued error: {"error":{"title","message"}}.
	ForbiddenTicketID int64 = 403
	// FirstUserID is the id of user index 0 (2^53+1); user i has id
	// FirstUserID+2i (16 digits, odd, not representable as float64). User 0
	// is the admin whose email is the configured API-token email.
	FirstUserID int64 = 9_007_199_254_740_993
	// FirstOrganizationID is the id of organization index 0; organization i
	// has id FirstOrganizationID+2i (19 digits, odd).
	FirstOrganizationID int64 = 9_100_000_000_000_000_001
)

// Id bases of the other records (private; the exported functions give ids).
const (
	groupBase           int64 = 360_001_000_001
	brandBase           int64 = 360_002_000_001
	viewBase            int64 = 360_003_000_001
	macroBase           int64 = 360_004_000_001
	triggerBase         int64 = 360_005_000_001
	automationBase      int64 = 360_006_000_001
	slaBase             int64 = 360_007_000_001
	formBase            int64 = 360_008_000_001
	fieldBase           int64 = 360_009_000_001
	ratingBase          int64 = 360_010_000_001
	groupMemberBase     int64 = 360_011_000_001
	orgMemberBase       int64 = 360_012_000_001
	customStatusBase    int64 = 360_013_000_001
	triggerCategoryBase int64 = 360_014_000_001
	reasonBase          int64 = 360_015_000_001
	customRoleBase      int64 = 360_016_000_001
	articleBase         int64 = 360_020_000_001
	sectionBase         int64 = 360_021_000_001
	permissionGroupBase int64 = 360_022_000_001

	commentBase    int64 = 10_000_000_000_000
	auditBase      int64 = 20_000_000_000_000
	attachmentBase int64 = 30_000_000_000_000
	thumbnailBase  int64 = 40_000_000_000_000
	metricBase     int64 = 50_000_000_000_000
	artAttachBase  int64 = 60_000_000_000_000
	photoBase      int64 = 70_000_000_000_000
	logoBase       int64 = 75_000_000_000_000
	eventBase      int64 = 80_000_000_000_000
)

// Sizes of the fixed sets.
const (
	numGroups      = 6 // the last one is deleted
	numBrands      = 3
	numViews       = 5
	numMacros      = 5
	numTriggers    = 5
	numAutomations = 4
	numSLAs        = 3
	numForms       = 3
	numRatings     = 10
	numGroupMember = 8
	numOrgMember   = 10
)

// TicketID returns the id of ticket index i (0-based).
func TicketID(i int) int64 { return FirstTicketID + int64(i) }

// UserID returns the id of user index i.
func UserID(i int) int64 { return FirstUserID + 2*int64(i) }

// OrganizationID returns the id of organization index i.
func OrganizationID(i int) int64 { return FirstOrganizationID + 2*int64(i) }

// GroupID returns the id of group index i (0..5; group 5 is deleted).
func GroupID(i int) int64 { return groupBase + int64(i) }

// ArticleID returns the id of Help Center article index i.
func ArticleID(i int) int64 { return articleBase + int64(i) }

// CommentID returns the id of comment j (0-based) of ticket index t. Ticket t
// has 2 + t%3 comments.
func CommentID(t, j int) int64 { return commentBase + int64(t)*8 + int64(j) }

// AuditID returns the id of the audit that created comment j of ticket t.
func AuditID(t, j int) int64 { return auditBase + int64(t)*8 + int64(j) }

// AttachmentID returns the id of attachment m of comment j of ticket t.
// Comment j of ticket t has 1 + t%2 attachments when (t+j)%3 == 0 and none
// otherwise; so ticket 0's first comment has AttachmentID(0, 0, 0) and
// ticket 3's first comment AttachmentID(3, 0, 0) and AttachmentID(3, 0, 1).
// m == 3 is the comment's inline image, present when (t+j)%5 == 4.
func AttachmentID(t, j, m int) int64 {
	return attachmentBase + int64(t)*32 + int64(j)*4 + int64(m)
}

// ArticleAttachmentID returns the id of attachment m of article a; article a
// has 1 + a%2 attachments.
func ArticleAttachmentID(a, m int) int64 { return artAttachBase + int64(a)*4 + int64(m) }

// Timestamps: everything is anchored at 2024-01-01T00:00:00Z.
const epoch int64 = 1_704_067_200

func ticketCreated(t int) int64     { return epoch + int64(t)*600 }
func commentCreated(t, j int) int64 { return ticketCreated(t) + int64(j)*60 }
func userCreated(u int) int64       { return epoch - 400*86400 + int64(u)*3600 }
func orgCreated(o int) int64        { return epoch - 500*86400 + int64(o)*86400 }
func fixedCreated(k int) int64      { return epoch - 300*86400 + int64(k)*86400 }
func articleCreated(a int) int64    { return epoch - 200*86400 + int64(a)*43200 }

var (
	firstNames = [...]string{"Ada", "Björn", "Chloé", "Dmitri", "Eun-ji", "Farah", "Gonzalo", "Hana", "Ivo", "Jun"}
	lastNames  = [...]string{"Abara", "Bergström", "Castillo", "Dubois", "Eriksen", "Fujita", "García", "Horvat", "Iyer", "Jansen"}
	timeZones  = [...][2]string{
		{"Eastern Time (US & Canada)", "America/New_York"},
		{"London", "Europe/London"},
		{"Berlin", "Europe/Berlin"},
		{"Tokyo", "Asia/Tokyo"},
		{"Pacific Time (US & Canada)", "America/Los_Angeles"},
	}
	locales = [...]struct {
		tag string
		id  int64
	}{{"en-US", 1}, {"de", 8}, {"ja", 67}}
	subjects = [...]string{
		"Cannot log in to the dashboard",
		"Refund request for order",
		"Printer shows error E-102",
		"Feature request: dark mode",
		"Invoice shows the wrong amount",
		"Password reset link expired",
		"Change of shipping address",
		"API returns 500 on export",
	}
	bodies = [...]string{
		"Hello, I can't get this to work since this morning. Steps: open the app, sign in, see an error.",
		"Thanks for the quick reply! I tried that & it still fails with \"error 42\".",
		"Internal note: reproduced on staging; looks like a <cache> issue.",
		"Following up: is there any update on this?",
	}
	statuses   = [...]string{"open", "pending", "solved", "closed", "new", "hold", "open", "solved", "closed", "open"}
	types      = [...]string{"question", "incident", "problem", "task", ""}
	priorities = [...]string{"", "low", "normal", "high", "urgent"}
	tagNames   = [...]string{"billing", "login", "refund", "hardware", "api", "shipping", "vip", "urgent_followup", "feature_request", "invoice", "password", "dark_mode"}
	products   = [...]string{"product_widget", "product_gadget", "product_gizmo", ""}
)

func customStatusID(status string) int64 {
	switch status {
	case "new":
		return customStatusBase
	case "open":
		return customStatusBase + 1
	case "pending":
		return customStatusBase + 2
	case "hold":
		return customStatusBase + 3
	}
	return customStatusBase + 4 // solved, closed
}

// data generates every record from its index.
type data struct {
	tickets, users, orgs, articles int
	subdomain, email               string
	supportAddr                    string // support@{subdomain}.zendesk.com
	attSize                        int

	nAgents, nEnd int   // users with role admin/agent, end-user
	orgMembers    []int // user indices listed by organization_memberships
	collections   map[string]*collection

	// ov holds what Create, Update and Delete changed (nil: nothing).
	ov atomic.Pointer[overlay]
	// cm holds the comments added and redacted and the ticket events
	// logged while the fake runs (nil: none).
	cm atomic.Pointer[commentState]
}

func newData(cfg config) *data {
	d := &data{
		tickets: cfg.tickets, users: cfg.users, orgs: cfg.orgs, articles: cfg.articles,
		subdomain: cfg.subdomain, email: cfg.email, attSize: cfg.attSize,
		supportAddr: "support@" + cfg.subdomain + ".zendesk.com",
	}
	d.nAgents = (d.users/10)*4 + min(d.users%10, 4)
	d.nEnd = d.users - d.nAgents
	for u := 0; u < d.users && len(d.orgMembers) < numOrgMember; u++ {
		if _, ok := d.orgOf(u); ok {
			d.orgMembers = append(d.orgMembers, u)
		}
	}
	d.collections = collections()
	return d
}

// ---- users: role by index%10: 0 admin, 1..3 agent, 4..9 end-user ----

func roleOf(u int) string {
	switch r := u % 10; {
	case r == 0:
		return "admin"
	case r <= 3:
		return "agent"
	}
	return "end-user"
}

// agentIndex returns the user index of the k-th admin or agent.
func agentIndex(k int) int { return 10*(k/4) + k%4 }

// endUserIndex returns the user index of the k-th end-user.
func endUserIndex(k int) int { return 10*(k/6) + 4 + k%6 }

func (d *data) orgOf(u int) (int, bool) {
	if d.orgs == 0 || u%3 == 2 {
		return 0, false
	}
	return u % d.orgs, true
}

// requester returns the user index of ticket t's requester.
func (d *data) requester(t int) int {
	if d.nEnd > 0 {
		return endUserIndex(t % d.nEnd)
	}
	return t % max(d.users, 1)
}

// assignee returns the user index of ticket t's assignee.
func (d *data) assignee(t int) (int, bool) {
	if d.nAgents == 0 || statuses[t%10] == "new" {
		return 0, false
	}
	return agentIndex(t % d.nAgents), true
}

func userName(u int) string {
	n := firstNames[u%10] + " " + lastNames[(u/10)%10]
	if u >= 100 {
		n += " " + strconv.Itoa(u)
	}
	return n
}

func (d *data) user(w *jw, base string, u int) {
	id := UserID(u)
	role := roleOf(u)
	staff := role != "end-user"
	created := userCreated(u)
	updated := created + 86400
	m, changed := d.modOf("users", u)
	if changed {
		updated = m.at
		if m.created {
			created = m.born
		}
	}
	tz := timeZones[u%5]
	loc := locales[u%3]
	w.ObjElem()
	w.Int("id", id)
	w.URL("url", base, "/api/v2/users/", id, ".json")
	name := userName(u)
	if m.rev > 0 {
		name = updatedName(name, m.rev)
	}
	w.Str("name", name)
	switch {
	case u == 0:
		w.Str("email", d.email)
	case u%13 == 12:
		w.Null("email")
	default:
		w.key("email")
		w.b = append(w.b, `"user`...)
		w.b = strconv.AppendInt(w.b, int64(u), 10)
		w.b = append(w.b, `@example.com"`...)
		w.comma = true
	}
	w.StrOr("alias", "Agent "+firstNames[u%10], staff)
	if u%4 == 0 {
		w.key("phone")
		w.b = append(w.b, `"+1555010`...)
		w.b = strconv.AppendInt(w.b, int64(u%10), 10)
		w.b = append(w.b, '"')
		w.comma = true
		w.Bool("shared_phone_number", false)
	} else {
		w.Null("phone")
		w.Null("shared_phone_number")
	}
	w.Str("time_zone", tz[0])
	w.Str("iana_time_zone", tz[1])
	w.Str("locale", loc.tag)
	w.Int("locale_id", loc.id)
	o, ok := d.orgOf(u)
	w.IntOr("organization_id", OrganizationID(o), ok)
	w.Str("role", role)
	switch {
	case role == "admin":
		w.Int("role_type", 4)
		w.Null("custom_role_id")
	case u%10 == 3:
		w.Int("role_type", 0)
		w.Int("custom_role_id", customRoleBase)
	default:
		w.Null("role_type")
		w.Null("custom_role_id")
	}
	w.key("external_id")
	if u%5 != 4 {
		w.b = append(w.b, `"user-ext-`...)
		w.b = strconv.AppendInt(w.b, int64(u), 10)
		w.b = append(w.b, '"')
	} else {
		w.b = append(w.b, "null"...)
	}
	w.comma = true
	w.Arr("tags")
	if staff {
		w.StrElem("staff")
	} else {
		w.StrElem("customer")
		if u%7 == 0 {
			w.StrElem("vip")
		}
	}
	w.ArrEnd()
	w.Bool("active", !m.deleted) // Zendesk: false only for a deleted user
	w.Bool("verified", u%11 != 10)
	w.Bool("shared", false)
	w.Bool("shared_agent", false)
	w.StrOr("signature", "Best regards,\n"+name, staff)
	w.StrOr("details", "Prefers contact by email", u%6 == 0)
	w.StrOr("notes", "Placeholder note for a synthetic user", u%8 == 0)
	w.Bool("suspended", u%31 == 30)
	w.Bool("restricted_agent", !staff || u%10 == 3)
	w.Bool("only_private_comments", false)
	w.Bool("moderator", role == "admin")
	switch {
	case !staff:
		w.Str("ticket_restriction", "requested")
	case u%10 == 3:
		w.Str("ticket_restriction", "groups")
	default:
		w.Null("ticket_restriction")
	}
	w.IntOr("default_group_id", GroupID(u%5), staff)
	w.Bool("report_csv", role == "admin")
	if u%3 == 0 {
		w.key("photo")
		w.comma = false
		d.fileObj(w, base, photoBase+int64(u), false)
	} else {
		w.Null("photo")
	}
	w.Obj("user_fields")
	w.StrOr("plan", [...]string{"basic", "premium", "enterprise"}[u%3], !staff)
	w.Str("account_number", "ACC-"+strconv.Itoa(100000+u))
	w.End()
	w.TimeOr("last_login_at", created+30*86400+int64(u%7)*3600, staff || u%4 == 0)
	if staff {
		w.Bool("two_factor_auth_enabled", u%2 == 0)
	} else {
		w.Null("two_factor_auth_enabled")
	}
	w.Bool("chat_only", false)
	w.Bool("permanently_deleted", false)
	w.Time("created_at", created)
	w.Time("updated_at", updated)
	w.End()
}

// ---- organizations ----

func (d *data) organization(w *jw, base string, o int) {
	id := OrganizationID(o)
	created := orgCreated(o)
	updated := created + 7200
	m, changed := d.modOf("organizations", o)
	if changed {
		updated = m.at
		if m.created {
			created = m.born
		}
	}
	name := "Example Org " + strconv.Itoa(o)
	if m.rev > 0 {
		name = updatedName(name, m.rev)
	}
	w.ObjElem()
	w.Int("id", id)
	w.URL("url", base, "/api/v2/organizations/", id, ".json")
	w.Str("name", name)
	w.StrOr("details", "Synthetic organization for testing", o%2 == 0)
	w.StrOr("notes", "Placeholder notes", o%4 == 0)
	w.IntOr("group_id", GroupID(o%5), o%2 == 0)
	w.Bool("shared_tickets", o%3 == 0)
	w.Bool("shared_comments", o%6 == 0)
	w.StrOr("external_id", "org-ext-"+strconv.Itoa(o), o%3 != 2)
	w.Arr("domain_names")
	w.StrElem("org" + strconv.Itoa(o) + ".example.com")
	w.ArrEnd()
	w.Arr("tags")
	if o%2 == 0 {
		w.StrElem("enterprise")
	} else {
		w.StrElem("smb")
	}
	w.ArrEnd()
	w.Obj("organization_fields")
	w.Str("region", [...]string{"amer", "emea", "apac"}[o%3])
	w.StrOr("tier", "gold", o%5 == 0)
	w.End()
	w.Time("created_at", created)
	w.Time("updated_at", updated)
	w.TimeOr("deleted_at", m.at, m.deleted)
	w.End()
}

// ---- tickets ----

func numComments(t int) int { return 2 + t%3 }

func ticketUpdated(t int) int64 { return commentCreated(t, numComments(t)-1) + 30 }

func (d *data) writeVia(w *jw, t int, j int) {
	w.Obj("via")
	ch := "web"
	if j == 0 {
		ch = [...]string{"email", "web", "api", "web"}[t%4]
	}
	w.Str("channel", ch)
	w.Obj("source")
	if ch == "email" {
		u := d.requester(t)
		w.Obj("from")
		w.Str("address", "user"+strconv.Itoa(u)+"@example.com")
		w.Str("name", userName(u))
		w.End()
		w.Obj("to")
		w.Str("address", d.supportAddr)
		w.Str("name", "Support")
		w.End()
	} else {
		w.Raw("from", "{}")
		w.Raw("to", "{}")
	}
	w.Null("rel")
	w.End()
	w.End()
}

func (d *data) customFields(w *jw, k string, t int) {
	w.Arr(k)
	for f := 8; f <= 14; f++ {
		w.ObjElem()
		w.Int("id", fieldBase+int64(f))
		w.key("value")
		switch f {
		case 8: // text
			if t%2 == 0 {
				w.b = append(w.b, `"ORD-`...)
				w.b = strconv.AppendInt(w.b, int64(100000+t), 10)
				w.b = append(w.b, '"')
			} else {
				w.b = append(w.b, "null"...)
			}
		case 9: // checkbox
			w.b = strconv.AppendBool(w.b, t%5 == 0)
		case 10: // tagger
			if p := products[t%4]; p != "" {
				w.b = appendString(w.b, p)
			} else {
				w.b = append(w.b, "null"...)
			}
		case 11: // date
			if t%3 == 0 {
				w.b = append(w.b, '"')
				w.b = time.Unix(ticketCreated(t)-5*86400, 0).UTC().AppendFormat(w.b, "2006-01-02")
				w.b = append(w.b, '"')
			} else {
				w.b = append(w.b, "null"...)
			}
		case 12: // integer (Zendesk sends the value as a string)
			if t%2 == 1 {
				w.b = append(w.b, '"')
				w.b = strconv.AppendInt(w.b, int64(1+t%9), 10)
				w.b = append(w.b, '"')
			} else {
				w.b = append(w.b, "null"...)
			}
		case 13: // regexp
			if t%7 == 0 {
				w.b = append(w.b, `"AB-`...)
				w.b = strconv.AppendInt(w.b, int64(100000+t%900000), 10)
				w.b = append(w.b, '"')
			} else {
				w.b = append(w.b, "null"...)
			}
		default:
			w.b = append(w.b, "null"...)
		}
		w.comma = true
		w.End()
	}
	w.ArrEnd()
}

func ticketSubject(t int) (string, bool) {
	if t%17 == 16 {
		return "", false
	}
	return subjects[t%8] + " #" + strconv.Itoa(t), true
}

func (d *data) ticket(w *jw, base string, t int) {
	id := TicketID(t)
	created := ticketCreated(t)
	updated := ticketUpdated(t)
	status := statuses[t%10]
	m, changed := d.modOf("tickets", t)
	if changed {
		updated = m.at
		if m.created {
			created = m.born
		}
	}
	typ := types[t%5]
	req := d.requester(t)
	w.ObjElem()
	w.URL("url", base, "/api/v2/tickets/", id, ".json")
	w.Int("id", id)
	w.key("external_id")
	if t%4 != 3 {
		w.b = append(w.b, `"ext-`...)
		w.b = strconv.AppendInt(w.b, int64(t), 10)
		w.b = append(w.b, '"')
	} else {
		w.b = append(w.b, "null"...)
	}
	w.comma = true
	d.writeVia(w, t, 0)
	w.Time("created_at", created)
	w.Time("updated_at", updated)
	w.Int("generated_timestamp", updated)
	w.StrOr("type", typ, typ != "")
	subj, ok := ticketSubject(t)
	if m.rev > 0 {
		subj, ok = updatedName(subj, m.rev), true
	}
	w.StrOr("subject", subj, ok)
	w.StrOr("raw_subject", subj, ok)
	w.Str("description", bodies[0])
	p := priorities[(t/2)%5]
	w.StrOr("priority", p, p != "")
	if m.deleted {
		w.Str("status", "deleted")
	} else {
		w.Str("status", status)
	}
	w.StrOr("recipient", d.supportAddr, t%3 == 0)
	w.Int("requester_id", UserID(req))
	w.Int("submitter_id", UserID(req))
	a, hasA := d.assignee(t)
	w.IntOr("assignee_id", UserID(a), hasA)
	o, hasO := d.orgOf(req)
	w.IntOr("organization_id", OrganizationID(o), hasO)
	w.IntOr("group_id", GroupID(t%5), status != "new")
	w.Arr("collaborator_ids")
	if t%4 == 0 && d.nAgents > 1 {
		w.IntElem(UserID(agentIndex((t + 1) % d.nAgents)))
	}
	w.ArrEnd()
	w.Arr("follower_ids")
	if t%4 == 0 && d.nAgents > 1 {
		w.IntElem(UserID(agentIndex((t + 1) % d.nAgents)))
	}
	w.ArrEnd()
	w.Arr("email_cc_ids")
	if t%6 == 0 && d.nEnd > 1 {
		w.IntElem(UserID(endUserIndex((t + 1) % d.nEnd)))
	}
	w.ArrEnd()
	w.Null("forum_topic_id")
	w.IntOr("problem_id", TicketID(t+1), typ == "incident" && t+1 < d.tickets)
	w.Bool("has_incidents", typ == "problem")
	w.Bool("is_public", t%9 != 8)
	w.TimeOr("due_at", created+3*86400, typ == "task")
	w.Arr("tags")
	w.StrElem(tagNames[t%12])
	w.StrElem(tagNames[(5*t+3)%12])
	w.ArrEnd()
	d.customFields(w, "custom_fields", t)
	w.Obj("satisfaction_rating")
	if t < numRatings {
		score := ratingScores[t]
		w.Int("id", ratingBase+int64(t))
		w.Str("score", score)
		w.StrOr("comment", ratingComment(t), ratingHasComment(t))
	} else {
		w.Str("score", "unoffered")
	}
	w.End()
	w.EmptyArr("sharing_agreement_ids")
	w.Int("custom_status_id", customStatusID(status))
	d.customFields(w, "fields", t)
	w.EmptyArr("followup_ids")
	w.Int("ticket_form_id", formBase+int64(t%numForms))
	w.Int("brand_id", brandBase+int64([...]int{0, 0, 0, 1, 2}[t%5]))
	w.Bool("allow_channelback", false)
	w.Bool("allow_attachments", true)
	w.Bool("from_messaging_channel", t%11 == 10)
	w.End()
}

// ---- comments, attachments, audits ----

func numAttachments(t, j int) int {
	if (t+j)%3 != 0 {
		return 0
	}
	return 1 + t%2
}

func hasInline(t, j int) bool { return (t+j)%5 == 4 }

func (d *data) commentAuthor(t, j int) int {
	if j%2 == 1 {
		if a, ok := d.assignee(t); ok {
			return a
		}
	}
	return d.requester(t)
}

// comment writes comment j of ticket t (generated below numComments(t),
// added from there); event selects the shape of a Comment event inside an
// audit.
func (d *data) comment(w *jw, base string, t, j int, inline, event bool) {
	f := d.commentOf(t, j)
	w.ObjElem()
	w.Int("id", f.id)
	w.Str("type", "Comment")
	w.Int("author_id", UserID(d.commentAuthor(t, j)))
	d.commentBodies(w, f.body, true)
	w.Bool("public", f.public)
	d.commentAttachments(w, base, t, j, f, inline)
	w.Int("audit_id", f.audit)
	if !event {
		d.writeVia(w, t, j)
		d.writeMetadata(w, t, j)
		w.Time("created_at", f.at)
	}
	w.End()
}

// commentBodies writes body, html_body and (with plain) plain_body.
func (d *data) commentBodies(w *jw, body string, plain bool) {
	w.Str("body", body)
	w.key("html_body")
	w.b = append(w.b, '"')
	w.b = appendEscaped(w.b, `<div class="zd-comment" dir="auto"><p>`)
	w.b = appendEscaped(w.b, body)
	w.b = appendEscaped(w.b, `</p></div>`)
	w.b = append(w.b, '"')
	w.comma = true
	if plain {
		w.Str("plain_body", body)
	}
}

func (d *data) commentAttachments(w *jw, base string, t, j int, f commentFacts, inline bool) {
	w.Arr("attachments")
	for m := range f.attachments {
		d.fileObj(w, base, AttachmentID(t, j, m), true)
	}
	if inline && f.inline {
		d.fileObj(w, base, AttachmentID(t, j, 3), true)
	}
	w.ArrEnd()
}

func (d *data) writeMetadata(w *jw, t, j int) {
	w.Obj("metadata")
	w.Obj("system")
	w.Str("client", "Mozilla/5.0 (X11; Linux x86_64) PlaceholderBrowser/1.0")
	w.key("ip_address")
	w.b = append(w.b, `"192.0.2.`...)
	w.b = strconv.AppendInt(w.b, int64((t*8+j)%254+1), 10)
	w.b = append(w.b, '"')
	w.comma = true
	w.Str("location", "Springfield, Example Region")
	w.Raw("latitude", "40.0")
	w.Raw("longitude", "-75.0")
	w.End()
	w.Raw("custom", "{}")
	w.End()
}

// totalAudits is the number of audits over all tickets: one per comment.
func (d *data) totalAudits() int { return cumComments(d.tickets) }

// cumComments is the number of comments of tickets 0..t-1 (2, 3, 4 repeating).
func cumComments(t int) int { return 9*(t/3) + [...]int{0, 2, 5}[t%3] }

// auditAt maps a position in the all-audits list (ascending created_at) to
// ticket t, comment j.
func (d *data) auditAt(k int) (t, j int) {
	b, r := k/9, k%9
	switch {
	case r < 2:
		return 3 * b, r
	case r < 5:
		return 3*b + 1, r - 2
	}
	return 3*b + 2, r - 5
}

func (d *data) audit(w *jw, base string, t, j int) {
	n := numComments(t)
	w.ObjElem()
	w.Int("id", AuditID(t, j))
	w.Int("ticket_id", TicketID(t))
	w.Time("created_at", commentCreated(t, j))
	w.Int("author_id", UserID(d.commentAuthor(t, j)))
	d.writeMetadata(w, t, j)
	d.writeVia(w, t, j)
	w.Arr("events")
	d.comment(w, base, t, j, false, true)
	ev := eventBase + (int64(t)*8+int64(j))*4
	if j == 0 {
		subj, ok := ticketSubject(t)
		w.ObjElem()
		w.Int("id", ev+1)
		w.Str("type", "Create")
		w.StrOr("value", subj, ok)
		w.Str("field_name", "subject")
		w.End()
		w.ObjElem()
		w.Int("id", ev+2)
		w.Str("type", "Create")
		w.Str("value", "new")
		w.Str("field_name", "status")
		w.End()
	} else {
		prev, next := "open", "open"
		if j == 1 {
			prev = "new"
		}
		if j == n-1 {
			next = statuses[t%10]
		}
		w.ObjElem()
		w.Int("id", ev+1)
		if prev != next {
			w.Str("type", "Change")
			w.Str("value", next)
			w.Str("field_name", "status")
			w.Str("previous_value", prev)
		} else {
			w.Str("type", "Notification")
			w.Str("subject", "[{{ticket.account}}] Re: {{ticket.title}}")
			w.Str("body", "Your request ({{ticket.id}}) has been updated.")
			w.Arr("recipients")
			w.IntElem(UserID(d.requester(t)))
			w.ArrEnd()
			w.Raw("via", `{"channel":"rule","source":{"from":{"id":`+strconv.FormatInt(triggerBase+1, 10)+`,"title":"Notify requester of comment update"},"rel":"trigger","to":{}}}`)
		}
		w.End()
	}
	w.ArrEnd()
	w.End()
}

// ---- files: ticket attachments, thumbnails, photos, logos, article attachments ----

type fileKind int

const (
	kindPNG fileKind = iota
	kindPDF
	kindTXT
)

type fileMeta struct {
	name    string
	ctype   string
	kind    fileKind
	size    int
	width   int
	height  int
	inline  bool
	created int64
	thumb   int64 // thumbnail id, 0 if none
	article int   // article index for article attachments, else -1
}

// fileInfo describes any downloadable file by id; ok is false for unknown
// ids.
func (d *data) fileInfo(id int64) (fileMeta, bool) {
	switch {
	case id >= attachmentBase && id < metricBase: // ticket attachments and their thumbnails
		off := id - attachmentBase
		isThumb := false
		if id >= thumbnailBase {
			off = id - thumbnailBase
			isThumb = true
		}
		t, j, m := int(off/32), int(off%32/4), int(off%4)
		if t >= d.tickets || j >= numComments(t) {
			return fileMeta{}, false
		}
		if m >= numAttachments(t, j) && (m != 3 || !hasInline(t, j)) {
			return fileMeta{}, false
		}
		f := fileMeta{size: d.attSize, created: commentCreated(t, j), article: -1}
		kind := fileKind((t + j + m) % 3)
		switch {
		case m == 3:
			f.name, f.kind, f.inline = "image.png", kindPNG, true
		case kind == kindPNG:
			f.name, f.kind = "screenshot-"+strconv.Itoa(t)+"-"+strconv.Itoa(j)+".png", kindPNG
		case kind == kindPDF:
			f.name, f.kind = "invoice "+strconv.Itoa(t)+"-"+strconv.Itoa(j)+".pdf", kindPDF
		default:
			f.name, f.kind = "error-log-"+strconv.Itoa(t)+".txt", kindTXT
		}
		if f.kind == kindPNG {
			f.width, f.height = 800, 600
			f.thumb = thumbnailBase + off
		}
		if isThumb {
			if f.kind != kindPNG {
				return fileMeta{}, false
			}
			f.name = f.name[:len(f.name)-4] + "_thumb.png"
			f.width, f.height, f.thumb, f.inline = 80, 60, 0, false
			f.size = min(d.attSize, 1024)
		}
		f.ctype = contentType(f.kind)
		return f, true
	case id >= photoBase && id < logoBase:
		u := int(id - photoBase)
		if u >= d.users || u%3 != 0 {
			return fileMeta{}, false
		}
		return fileMeta{name: "profile_image_" + strconv.Itoa(u) + ".png", ctype: "image/png", kind: kindPNG,
			size: min(d.attSize, 2048), width: 80, height: 80, created: userCreated(u), article: -1}, true
	case id >= logoBase && id < eventBase:
		k := int(id - logoBase)
		if k != 0 {
			return fileMeta{}, false
		}
		return fileMeta{name: "logo.png", ctype: "image/png", kind: kindPNG, size: min(d.attSize, 2048),
			width: 200, height: 60, created: fixedCreated(0), article: -1}, true
	case id >= artAttachBase && id < photoBase:
		off := id - artAttachBase
		a, m := int(off/4), int(off%4)
		if a >= d.articles || m >= 1+a%2 {
			return fileMeta{}, false
		}
		f := fileMeta{size: d.attSize, created: articleCreated(a) + 600, article: a}
		if m == 0 {
			f.name, f.kind, f.inline = "diagram-"+strconv.Itoa(a)+".png", kindPNG, true
		} else {
			f.name, f.kind = "guide "+strconv.Itoa(a)+".pdf", kindPDF
		}
		f.ctype = contentType(f.kind)
		return f, true
	}
	return fileMeta{}, false
}

func contentType(k fileKind) string {
	switch k {
	case kindPNG:
		return "image/png"
	case kindPDF:
		return "application/pdf"
	}
	return "text/plain"
}

// fileToken is the opaque token in a content_url; it maps back to the file
// id.
const tokenKey uint64 = 0x5bd1e995a1b2c3d4

func fileToken(id int64) string { return strconv.FormatUint(uint64(id)^tokenKey, 36) }

func tokenFileID(tok string) (int64, bool) {
	v, err := strconv.ParseUint(tok, 36, 64)
	if err != nil {
		return 0, false
	}
	return int64(v ^ tokenKey), true
}

func appendContentURL(b []byte, base string, id int64, name string) []byte {
	b = append(b, '"')
	b = appendEscaped(b, base)
	b = append(b, "/attachments/token/"...)
	b = append(b, fileToken(id)...)
	b = append(b, "/?name="...)
	b = appendEscaped(b, url.QueryEscape(name))
	return append(b, '"')
}

// fileObj writes a Zendesk attachment object (tickets' attachments, their
// thumbnails, user photos, brand logos). The caller has written the key or
// the separating comma.
func (d *data) fileObj(w *jw, base string, id int64, withMalware bool) {
	f, _ := d.fileInfo(id)
	w.ObjElem()
	w.URL("url", base, "/api/v2/attachments/", id, ".json")
	w.Int("id", id)
	w.Str("file_name", f.name)
	w.key("content_url")
	w.b = appendContentURL(w.b, base, id, f.name)
	w.comma = true
	// No host mapping in the fake: mapped_content_url equals content_url.
	w.key("mapped_content_url")
	w.b = appendContentURL(w.b, base, id, f.name)
	w.comma = true
	w.Str("content_type", f.ctype)
	w.Int("size", int64(f.size))
	w.IntOr("width", int64(f.width), f.width > 0)
	w.IntOr("height", int64(f.height), f.height > 0)
	w.Bool("inline", f.inline)
	w.Bool("deleted", false)
	if withMalware {
		w.Bool("malware_access_override", false)
		w.Str("malware_scan_result", "malware_not_found")
	}
	w.Arr("thumbnails")
	if f.thumb != 0 {
		d.fileObj(w, base, f.thumb, withMalware)
	}
	w.ArrEnd()
	w.End()
}

// ---- ticket metrics ----

func minutesObj(w *jw, k string, cal int64, ok bool) {
	w.Obj(k)
	w.IntOr("calendar", cal, ok)
	w.IntOr("business", cal*2/3, ok)
	w.End()
}

func (d *data) ticketMetric(w *jw, base string, t int) {
	id := metricBase + int64(t)
	created := ticketCreated(t)
	updated := ticketUpdated(t)
	status := statuses[t%10]
	solved := status == "solved" || status == "closed"
	_, assigned := d.assignee(t)
	reply := int64(1 + t%90)
	w.ObjElem()
	w.URL("url", base, "/api/v2/ticket_metrics/", id, ".json")
	w.Int("id", id)
	w.Int("ticket_id", TicketID(t))
	w.Int("group_stations", int64(min(1+t%2, 2)))
	w.Int("assignee_stations", int64(t%3))
	w.Int("reopens", int64(t%7/6))
	w.Int("replies", int64(numComments(t)/2))
	w.TimeOr("assignee_updated_at", created+120, assigned)
	w.Time("requester_updated_at", created)
	w.Time("status_updated_at", updated)
	w.TimeOr("initially_assigned_at", created+60, assigned)
	w.TimeOr("assigned_at", created+60, assigned)
	w.TimeOr("solved_at", updated, solved)
	w.Time("latest_comment_added_at", commentCreated(t, numComments(t)-1))
	w.Time("custom_status_updated_at", updated)
	minutesObj(w, "reply_time_in_minutes", reply, true)
	w.Obj("reply_time_in_seconds")
	w.Int("calendar", reply*60)
	w.End()
	minutesObj(w, "first_resolution_time_in_minutes", reply*3, solved)
	minutesObj(w, "full_resolution_time_in_minutes", reply*4, solved)
	minutesObj(w, "agent_wait_time_in_minutes", int64(t%30), true)
	minutesObj(w, "requester_wait_time_in_minutes", int64(t%45), true)
	minutesObj(w, "on_hold_time_in_minutes", int64(t%5*10), status == "hold" || t%5 == 0)
	w.Time("created_at", created)
	w.Time("updated_at", updated)
	w.End()
}

// ---- Help Center ----

var articleTopics = [...]string{
	"How to reset your password",
	"Setting up two-factor authentication",
	"Understanding your invoice",
	"Returning a product",
	"Getting started with the API",
	"Troubleshooting error E-102",
	"Managing notification settings",
	"Exporting your data",
}

func (d *data) article(w *jw, base string, a int) {
	id := ArticleID(a)
	created := articleCreated(a)
	updated := created + 86400
	title := articleTopics[a%8] + " (" + strconv.Itoa(a) + ")"
	w.ObjElem()
	w.Int("id", id)
	w.URL("url", base, "/api/v2/help_center/en-us/articles/", id, ".json")
	w.key("html_url")
	w.b = append(w.b, '"')
	w.b = appendEscaped(w.b, base)
	w.b = append(w.b, "/hc/en-us/articles/"...)
	w.b = strconv.AppendInt(w.b, id, 10)
	w.b = append(w.b, "-article-"...)
	w.b = strconv.AppendInt(w.b, int64(a), 10)
	w.b = append(w.b, '"')
	w.comma = true
	w.Str("title", title)
	w.Str("body", "<p>"+title+".</p><p>Follow these steps &amp; contact support if the problem persists.</p>")
	w.Str("locale", "en-us")
	w.Str("source_locale", "en-us")
	w.Int("author_id", UserID(agentIndex(a%max(d.nAgents, 1))))
	w.Bool("comments_disabled", a%6 == 5)
	w.EmptyArr("content_tag_ids")
	w.Bool("outdated", false)
	w.EmptyArr("outdated_locales")
	w.Int("permission_group_id", permissionGroupBase)
	w.Null("user_segment_id")
	w.Int("section_id", sectionBase+int64(a%4))
	w.Time("created_at", created)
	w.Time("updated_at", updated)
	w.Time("edited_at", updated)
	w.Int("vote_sum", int64(a%7-2))
	w.Int("vote_count", int64(a%9))
	w.Arr("label_names")
	w.StrElem([...]string{"faq", "account", "billing", "api"}[a%4])
	if a%3 == 0 {
		w.StrElem("featured")
	}
	w.ArrEnd()
	w.Bool("draft", a%10 == 9)
	w.Bool("promoted", a%10 == 0)
	w.Int("position", int64(a))
	w.End()
}

func (d *data) articleAttachment(w *jw, base string, id int64) {
	f, _ := d.fileInfo(id)
	w.ObjElem()
	w.Int("id", id)
	w.URL("url", base, "/api/v2/help_center/articles/attachments/", id, ".json")
	w.Int("article_id", ArticleID(f.article))
	w.Str("file_name", f.name)
	w.Str("display_file_name", f.name)
	w.Str("content_type", f.ctype)
	w.key("content_url")
	w.b = append(w.b, '"')
	w.b = appendEscaped(w.b, base)
	w.b = append(w.b, "/hc/article_attachments/"...)
	w.b = strconv.AppendInt(w.b, id, 10)
	w.b = append(w.b, '/')
	w.b = appendEscaped(w.b, url.PathEscape(f.name))
	w.b = append(w.b, '"')
	w.comma = true
	w.key("relative_path")
	w.b = append(w.b, `"/hc/article_attachments/`...)
	w.b = strconv.AppendInt(w.b, id, 10)
	w.b = append(w.b, '/')
	w.b = appendEscaped(w.b, url.PathEscape(f.name))
	w.b = append(w.b, '"')
	w.comma = true
	w.Int("size", int64(f.size))
	w.Bool("inline", f.inline)
	w.Time("created_at", f.created)
	w.Time("updated_at", f.created)
	w.End()
}

// updatedName is a name or subject after the rev-th Update.
func updatedName(name string, rev int) string {
	if name == "" {
		return "(update " + strconv.Itoa(rev) + ")"
	}
	return name + " (update " + strconv.Itoa(rev) + ")"
}
