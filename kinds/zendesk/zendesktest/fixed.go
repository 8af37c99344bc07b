package zendesktest

import (
	"strconv"
	"strings"
)

// collection is a list endpoint (and, when index is set, its get endpoint).
type collection struct {
	listKey, oneKey string
	n               func(d *data) int
	// index maps an id to the record index; nil when there is no get.
	index func(d *data, id int64) (int, bool)
	write func(d *data, w *jw, base string, k int)
	// filter returns the record indices matching the request's filters, nil
	// for all; ok is false when it has written an error response.
	filter func(d *data, c *call) (idx []int, ok bool)
	defPer int
}

func (l *collection) hasGet() bool { return l.index != nil }

func fixedIndex(base int64, n func(d *data) int) func(d *data, id int64) (int, bool) {
	return func(d *data, id int64) (int, bool) {
		k := id - base
		if k < 0 || k >= int64(n(d)) {
			return 0, false
		}
		return int(k), true
	}
}

func constN(n int) func(*data) int { return func(*data) int { return n } }

// liveN counts the live records of a mutable entity.
func liveN(name string) func(*data) int {
	return func(d *data) int {
		if live := d.live(name); live != nil {
			return len(live)
		}
		return d.count(name)
	}
}

// liveIndex resolves the id of a live record of a mutable entity.
func liveIndex(name string) func(*data, int64) (int, bool) {
	return func(d *data, id int64) (int, bool) {
		k, ok := mutSpecs[name].index(id)
		return k, ok && d.alive(name, k)
	}
}

func collections() map[string]*collection {
	fixed := func(list, one string, base int64, n int, write func(d *data, w *jw, base string, k int)) *collection {
		return &collection{listKey: list, oneKey: one, n: constN(n), index: fixedIndex(base, constN(n)), write: write, defPer: maxPerPage}
	}
	m := map[string]*collection{
		"tickets":       {listKey: "tickets", oneKey: "ticket", defPer: maxPerPage, n: liveN("tickets"), index: liveIndex("tickets"), write: (*data).ticket},
		"users":         {listKey: "users", oneKey: "user", defPer: maxPerPage, n: liveN("users"), index: liveIndex("users"), write: (*data).user},
		"organizations": {listKey: "organizations", oneKey: "organization", defPer: maxPerPage, n: liveN("organizations"), index: liveIndex("organizations"), write: (*data).organization},
		"ticket_metrics": {listKey: "ticket_metrics", oneKey: "ticket_metric", defPer: maxPerPage,
			n: func(d *data) int { return d.tickets },
			index: func(d *data, id int64) (int, bool) {
				k := id - metricBase
				return int(k), k >= 0 && k < int64(d.tickets)
			},
			write: (*data).ticketMetric},
		"articles": {listKey: "articles", oneKey: "article", defPer: 30,
			n: func(d *data) int { return d.articles },
			index: func(d *data, id int64) (int, bool) {
				k := id - articleBase
				return int(k), k >= 0 && k < int64(d.articles)
			},
			write: (*data).article},
		"groups": {listKey: "groups", oneKey: "group", defPer: maxPerPage, write: (*data).group,
			// Deleted groups stay listed and readable, with "deleted": true.
			n: func(d *data) int { return d.count("groups") },
			index: func(d *data, id int64) (int, bool) {
				k, ok := mutSpecs["groups"].index(id)
				return k, ok && k < d.count("groups")
			}},
		"ticket_fields": fixed("ticket_fields", "ticket_field", fieldBase, len(ticketFields), (*data).ticketField),
		"brands":        fixed("brands", "brand", brandBase, numBrands, (*data).brand),
		"views":         fixed("views", "view", viewBase, numViews, (*data).view),
		"macros":        fixed("macros", "macro", macroBase, numMacros, (*data).macro),
		"triggers":      fixed("triggers", "trigger", triggerBase, numTriggers, (*data).trigger),
		"automations":   fixed("automations", "automation", automationBase, numAutomations, (*data).automation),
		"sla_policies":  fixed("sla_policies", "sla_policy", slaBase, numSLAs, (*data).slaPolicy),
		"ticket_forms":  fixed("ticket_forms", "ticket_form", formBase, numForms, (*data).ticketForm),
		"tags": {listKey: "tags", defPer: maxPerPage, n: constN(len(tagNames)),
			write: (*data).tag},
		"satisfaction_ratings": {listKey: "satisfaction_ratings", oneKey: "satisfaction_rating", defPer: maxPerPage,
			n: func(d *data) int { return min(d.tickets, numRatings) },
			index: func(d *data, id int64) (int, bool) {
				k := id - ratingBase
				return int(k), k >= 0 && k < int64(min(d.tickets, numRatings))
			},
			write: (*data).rating, filter: ratingFilter},
		"group_memberships": {listKey: "group_memberships", oneKey: "group_membership", defPer: maxPerPage,
			n: func(d *data) int { return min(d.nAgents, numGroupMember) },
			index: func(d *data, id int64) (int, bool) {
				k := id - groupMemberBase
				return int(k), k >= 0 && k < int64(min(d.nAgents, numGroupMember))
			},
			write: (*data).groupMembership},
		"organization_memberships": {listKey: "organization_memberships", oneKey: "organization_membership", defPer: maxPerPage,
			n: func(d *data) int { return len(d.orgMembers) },
			index: func(d *data, id int64) (int, bool) {
				k := id - orgMemberBase
				return int(k), k >= 0 && k < int64(len(d.orgMembers))
			},
			write: (*data).orgMembership},
	}
	m["groups"].filter = func(d *data, c *call) ([]int, bool) {
		if c.get("exclude_deleted") != "true" {
			return nil, true
		}
		out := []int{}
		for k := range d.count("groups") {
			if m, _ := d.modOf("groups", k); k != 5 && !m.deleted { // group 5 is deleted
				out = append(out, k)
			}
		}
		return out, true
	}
	m["views"].filter = activeFilter(numViews, func(k int) bool { return k != 4 })
	m["macros"].filter = activeFilter(numMacros, func(k int) bool { return k != 3 })
	m["triggers"].filter = func(d *data, c *call) ([]int, bool) {
		idx, _ := activeFilter(numTriggers, func(k int) bool { return k != 4 })(d, c)
		cat := c.get("category_id")
		if cat == "" {
			return idx, true
		}
		if idx == nil {
			idx = []int{0, 1, 2, 3, 4}
		}
		out := idx[:0:0]
		for _, k := range idx {
			if triggerCategory(k) == cat {
				out = append(out, k)
			}
		}
		return out, true
	}
	m["automations"].filter = activeFilter(numAutomations, func(k int) bool { return k != 3 })
	m["ticket_forms"].filter = func(d *data, c *call) ([]int, bool) {
		var out []int
		act, eu := c.get("active"), c.get("end_user_visible")
		if act == "" && eu == "" {
			return nil, true
		}
		for k := range numForms {
			if (act == "" || (act == "true") == (k != 2)) && (eu == "" || (eu == "true") == (k != 1)) {
				out = append(out, k)
			}
		}
		return out, true
	}
	return m
}

// activeFilter honours active=true|false on a fixed set.
func activeFilter(n int, active func(k int) bool) func(d *data, c *call) ([]int, bool) {
	return func(d *data, c *call) ([]int, bool) {
		v := c.get("active")
		if v != "true" && v != "false" {
			return nil, true
		}
		out := []int{}
		for k := range n {
			if active(k) == (v == "true") {
				out = append(out, k)
			}
		}
		return out, true
	}
}

func (d *data) group(w *jw, base string, k int) {
	id := GroupID(k)
	names := [...]string{"Support", "Billing", "Engineering", "Sales", "VIP Desk", "Legacy Escalations"}
	created := fixedCreated(k)
	updated := created + 3600
	name := names[k%len(names)]
	if k >= len(names) {
		name += " " + strconv.Itoa(k)
	}
	m, changed := d.modOf("groups", k)
	if changed {
		updated = m.at
		if m.created {
			created = m.born
		}
	}
	desc := name + " team (synthetic)"
	if m.rev > 0 {
		name = updatedName(name, m.rev)
	}
	w.ObjElem()
	w.URL("url", base, "/api/v2/groups/", id, ".json")
	w.Int("id", id)
	w.Bool("is_public", k != 4)
	w.Str("name", name)
	w.Str("description", desc)
	w.Bool("default", k == 0)
	w.Bool("deleted", k == 5 || m.deleted)
	w.Time("created_at", created)
	w.Time("updated_at", updated)
	w.End()
}

func (d *data) brand(w *jw, base string, k int) {
	id := brandBase + int64(k)
	sub := d.subdomain + [...]string{"", "-emea", "-labs"}[k]
	created := fixedCreated(k)
	w.ObjElem()
	w.URL("url", base, "/api/v2/brands/", id, ".json")
	w.Int("id", id)
	w.Str("name", [...]string{"Acme", "Acme EMEA", "Acme Labs"}[k])
	w.Str("brand_url", "https://"+sub+".zendesk.com")
	w.Str("subdomain", sub)
	w.StrOr("host_mapping", "support.emea.example.com", k == 1)
	w.Bool("has_help_center", k != 2)
	w.Str("help_center_state", [...]string{"enabled", "restricted", "disabled"}[k])
	w.Bool("active", true)
	w.Bool("default", k == 0)
	w.Bool("is_deleted", false)
	if k == 0 {
		w.key("logo")
		w.comma = false
		d.fileObj(w, base, logoBase, false)
	} else {
		w.Null("logo")
	}
	w.Arr("ticket_form_ids")
	for f := range numForms {
		if k == 0 || f != 1 {
			w.IntElem(formBase + int64(f))
		}
	}
	w.ArrEnd()
	w.Str("signature_template", "{{agent.signature}}")
	w.Time("created_at", created)
	w.Time("updated_at", created+86400)
	w.End()
}

var viewTitles = [...]string{"Your unsolved tickets", "Unassigned tickets", "All unsolved tickets", "Recently updated tickets", "Pending tickets (retired)"}

func (d *data) view(w *jw, base string, k int) {
	id := viewBase + int64(k)
	created := fixedCreated(k)
	w.ObjElem()
	w.URL("url", base, "/api/v2/views/", id, ".json")
	w.Int("id", id)
	w.Str("title", viewTitles[k])
	w.Str("raw_title", viewTitles[k])
	w.Bool("active", k != 4)
	w.Int("position", int64(k))
	w.StrOr("description", "Tickets matching: "+viewTitles[k], k%2 == 0)
	w.Bool("default", k < 3)
	w.Raw("execution", `{"group_by":"status","group_order":"asc","sort_by":"updated","sort_order":"desc","group":{"id":"status","title":"Status","order":"asc"},"sort":{"id":"updated","title":"Updated","order":"desc"},"columns":[{"id":"subject","title":"Subject"},{"id":"requester","title":"Requester"},{"id":"updated","title":"Updated"}],"fields":[{"id":"subject","title":"Subject"},{"id":"requester","title":"Requester"},{"id":"updated","title":"Updated"}],"custom_fields":[]}`)
	w.Raw("conditions", [...]string{
		`{"all":[{"field":"status","operator":"less_than","value":"solved"},{"field":"assignee_id","operator":"is","value":"current_user"}],"any":[]}`,
		`{"all":[{"field":"status","operator":"less_than","value":"solved"},{"field":"assignee_id","operator":"is","value":""}],"any":[]}`,
		`{"all":[{"field":"status","operator":"less_than","value":"solved"}],"any":[]}`,
		`{"all":[{"field":"updated_at","operator":"less_than","value":"24"}],"any":[]}`,
		`{"all":[{"field":"status","operator":"is","value":"pending"}],"any":[]}`,
	}[k])
	if k == 0 && d.nAgents > 0 {
		w.Raw("restriction", `{"type":"User","id":`+strconv.FormatInt(UserID(0), 10)+`}`)
	} else {
		w.Null("restriction")
	}
	w.Time("created_at", created)
	w.Time("updated_at", created+7200)
	w.End()
}

var macroTitles = [...]string{"Close and redirect to help center", "Downgrade and inform", "Customer not responding", "Escalate to engineering", "Request more information"}

func (d *data) macro(w *jw, base string, k int) {
	id := macroBase + int64(k)
	created := fixedCreated(k)
	w.ObjElem()
	w.URL("url", base, "/api/v2/macros/", id, ".json")
	w.Int("id", id)
	w.Str("title", macroTitles[k])
	w.Str("raw_title", macroTitles[k])
	w.Bool("active", k != 3)
	w.Int("position", int64(k))
	w.Str("description", "Applies: "+macroTitles[k])
	w.Bool("default", false)
	w.Raw("actions", [...]string{
		`[{"field":"status","value":"solved"},{"field":"comment_value","value":"See our help center for details."}]`,
		`[{"field":"priority","value":"low"},{"field":"comment_value","value":"We lowered the priority of this request."}]`,
		`[{"field":"status","value":"pending"},{"field":"current_tags","value":"no_response"}]`,
		`[{"field":"group_id","value":"` + strconv.FormatInt(GroupID(2), 10) + `"},{"field":"priority","value":"high"}]`,
		`[{"field":"status","value":"pending"},{"field":"comment_value_html","value":"<p>Could you send us more details?</p>"}]`,
	}[k])
	if k%2 == 1 {
		g := strconv.FormatInt(GroupID(k%5), 10)
		w.Raw("restriction", `{"type":"Group","id":`+g+`,"ids":[`+g+`]}`)
	} else {
		w.Null("restriction")
	}
	w.Time("created_at", created)
	w.Time("updated_at", created+3600)
	w.End()
}

var triggerTitles = [...]string{"Notify requester of received request", "Notify requester of comment update", "Notify assignee of assignment", "Notify group of assignment", "Auto-tag VIP requests (off)"}

func triggerCategory(k int) string { return strconv.FormatInt(triggerCategoryBase+int64(k/3), 10) }

func (d *data) trigger(w *jw, base string, k int) {
	id := triggerBase + int64(k)
	created := fixedCreated(k)
	w.ObjElem()
	w.URL("url", base, "/api/v2/triggers/", id, ".json")
	w.Int("id", id)
	w.Str("title", triggerTitles[k])
	w.Str("raw_title", triggerTitles[k])
	w.Bool("active", k != 4)
	w.Int("position", int64(k))
	w.StrOr("description", "Sends a notification: "+triggerTitles[k], k != 2)
	w.Bool("default", k < 2)
	w.Raw("conditions", `{"all":[{"field":"update_type","operator":"is","value":"Create"}],"any":[]}`)
	w.Raw("actions", `[{"field":"notification_user","value":["requester_id","[{{ticket.account}}] Received: {{ticket.title}}","Your request ({{ticket.id}}) has been received."]}]`)
	w.Str("category_id", triggerCategory(k))
	w.Time("created_at", created)
	w.Time("updated_at", created+3600)
	w.End()
}

var automationTitles = [...]string{"Close ticket 4 days after status is set to solved", "Pending notification 24 hours", "Pending notification 5 days", "Escalate urgent after 8 hours"}

func (d *data) automation(w *jw, base string, k int) {
	id := automationBase + int64(k)
	created := fixedCreated(k)
	w.ObjElem()
	w.URL("url", base, "/api/v2/automations/", id, ".json")
	w.Int("id", id)
	w.Str("title", automationTitles[k])
	w.Str("raw_title", automationTitles[k])
	w.Bool("active", k != 3)
	w.Int("position", int64(k))
	w.Bool("default", k == 0)
	w.Raw("conditions", `{"all":[{"field":"status","operator":"is","value":"solved"},{"field":"SOLVED","operator":"greater_than","value":"96"}],"any":[]}`)
	w.Raw("actions", `[{"field":"status","value":"closed"}]`)
	w.Time("created_at", created)
	w.Time("updated_at", created+3600)
	w.End()
}

func (d *data) slaPolicy(w *jw, base string, k int) {
	id := slaBase + int64(k)
	created := fixedCreated(k)
	titles := [...]string{"Urgent incidents", "High priority", "Standard"}
	prio := [...]string{"urgent", "high", "normal"}[k]
	target := [...]int64{15, 60, 480}[k]
	w.ObjElem()
	w.URL("url", base, "/api/v2/slas/policies/", id, ".json")
	w.Int("id", id)
	w.Str("title", titles[k])
	w.Str("description", "Targets for "+prio+" tickets")
	w.Int("position", int64(k+1))
	w.Raw("filter", `{"all":[{"field":"priority","operator":"is","value":"`+prio+`"}],"any":[]}`)
	w.Arr("policy_metrics")
	for i, metric := range [...]string{"first_reply_time", "next_reply_time", "periodic_update_time"} {
		w.ObjElem()
		w.Str("priority", prio)
		w.Str("metric", metric)
		w.Int("target", target*int64(i+1))
		w.Int("target_in_seconds", target*int64(i+1)*60)
		w.Bool("business_hours", k == 2)
		w.End()
	}
	w.ArrEnd()
	w.Time("created_at", created)
	w.Time("updated_at", created+3600)
	w.End()
}

func (d *data) ticketForm(w *jw, base string, k int) {
	id := formBase + int64(k)
	created := fixedCreated(k)
	names := [...]string{"Default Ticket Form", "Hardware Returns", "Billing Question"}
	display := [...]string{"Submit a request", "Return a device", "Ask about billing"}
	w.ObjElem()
	w.URL("url", base, "/api/v2/ticket_forms/", id, ".json")
	w.Int("id", id)
	w.Str("name", names[k])
	w.Str("raw_name", names[k])
	w.Str("display_name", display[k])
	w.Str("raw_display_name", display[k])
	w.Int("position", int64(k))
	w.Bool("active", k != 2)
	w.Bool("end_user_visible", k != 1)
	w.Bool("default", k == 0)
	w.Bool("in_all_brands", k == 0)
	w.Arr("restricted_brand_ids")
	if k != 0 {
		w.IntElem(brandBase)
		w.IntElem(brandBase + int64(k))
	}
	w.ArrEnd()
	w.Arr("ticket_field_ids")
	for f := range len(ticketFields) {
		if f < 8 || (f-8)%numForms == k || k == 0 {
			w.IntElem(fieldBase + int64(f))
		}
	}
	w.ArrEnd()
	if k == 1 {
		cond := `[{"parent_field_id":` + strconv.FormatInt(fieldBase+9, 10) + `,"value":true,"child_fields":[{"id":` + strconv.FormatInt(fieldBase+8, 10) + `,"is_required":true}]}]`
		w.Raw("agent_conditions", cond)
		w.Raw("end_user_conditions", cond)
	} else {
		w.EmptyArr("agent_conditions")
		w.EmptyArr("end_user_conditions")
	}
	w.Time("created_at", created)
	w.Time("updated_at", created+3600)
	w.End()
}

// ticketFields lists the fields: 8 system fields, then 7 custom fields whose
// values tickets carry in custom_fields (ids fieldBase+8 .. fieldBase+14).
var ticketFields = [...]struct{ typ, title string }{
	{"subject", "Subject"},
	{"description", "Description"},
	{"status", "Status"},
	{"custom_status", "Ticket status"},
	{"tickettype", "Type"},
	{"priority", "Priority"},
	{"group", "Group"},
	{"assignee", "Assignee"},
	{"text", "Order number"},
	{"checkbox", "Refund approved"},
	{"tagger", "Product"},
	{"date", "Purchase date"},
	{"integer", "Quantity"},
	{"regexp", "Serial number"},
	{"textarea", "Notes for engineering"},
}

func (d *data) ticketField(w *jw, base string, k int) {
	id := fieldBase + int64(k)
	f := ticketFields[k]
	custom := k >= 8
	created := fixedCreated(k)
	w.ObjElem()
	w.URL("url", base, "/api/v2/ticket_fields/", id, ".json")
	w.Int("id", id)
	w.Str("type", f.typ)
	w.Str("title", f.title)
	w.Str("raw_title", f.title)
	w.Str("description", f.title+" of the request")
	w.Str("raw_description", f.title+" of the request")
	w.Int("position", int64(k))
	w.Bool("active", k != 14)
	w.Bool("required", k == 0 || k == 1)
	w.Bool("collapsed_for_agents", false)
	w.StrOr("regexp_for_validation", `^[A-Z]{2}-\d{6}$`, f.typ == "regexp")
	w.Str("title_in_portal", f.title)
	w.Str("raw_title_in_portal", f.title)
	w.Bool("visible_in_portal", k <= 2 || custom)
	w.Bool("editable_in_portal", k <= 1 || (custom && k != 14))
	w.Bool("required_in_portal", k <= 1)
	w.StrOr("tag", "refund_approved", f.typ == "checkbox")
	w.Bool("removable", custom)
	w.Null("key")
	w.StrOr("agent_description", "Fill in for every "+f.title+" question", custom)
	w.Int("sub_type_id", 0)
	w.Arr("custom_field_options")
	if f.typ == "tagger" {
		for i, p := range products[:3] {
			w.ObjElem()
			w.Int("id", fieldBase*10+int64(i))
			w.Str("name", "Product "+strconv.Itoa(i+1))
			w.Str("raw_name", "Product "+strconv.Itoa(i+1))
			w.Str("value", p)
			w.Bool("default", i == 0)
			w.End()
		}
	}
	w.ArrEnd()
	w.Arr("system_field_options")
	var opts []string
	switch f.typ {
	case "status":
		opts = []string{"new", "open", "pending", "hold", "solved"}
	case "tickettype":
		opts = []string{"question", "incident", "problem", "task"}
	case "priority":
		opts = []string{"low", "normal", "high", "urgent"}
	}
	for _, o := range opts {
		w.ObjElem()
		w.Str("name", strings.ToUpper(o[:1])+o[1:])
		w.Str("value", o)
		w.End()
	}
	w.ArrEnd()
	w.Arr("custom_statuses")
	if f.typ == "custom_status" || f.typ == "status" {
		for i, st := range [...]string{"new", "open", "pending", "hold", "solved"} {
			w.ObjElem()
			w.Int("id", customStatusBase+int64(i))
			w.Str("status_category", st)
			label := strings.ToUpper(st[:1]) + st[1:]
			w.Str("agent_label", label)
			w.Str("end_user_label", label)
			w.Bool("active", true)
			w.Bool("default", true)
			w.End()
		}
	}
	w.ArrEnd()
	w.Time("created_at", created)
	w.Time("updated_at", created+3600)
	w.End()
}

// tag k's count is the number of tickets carrying it: ticket t has tags
// t%12 and (5t+3)%12.
func (d *data) tag(w *jw, _ string, k int) {
	countRes := func(r int) int {
		n := d.tickets / 12
		if r < d.tickets%12 {
			n++
		}
		return n
	}
	// (5t+3) ≡ k (mod 12) ⇔ t ≡ 5(k-3) (mod 12), since 5·5 ≡ 1.
	r2 := ((5*(k-3))%12 + 12) % 12
	w.ObjElem()
	w.Str("name", tagNames[k])
	w.Int("count", int64(countRes(k)+countRes(r2)))
	w.End()
}

var ratingScores = [numRatings]string{"good", "bad", "offered", "good", "unoffered", "bad", "good", "offered", "good", "bad"}

func ratingHasComment(t int) bool {
	s := ratingScores[t]
	return (s == "good" || s == "bad") && t%3 != 2
}

func ratingComment(t int) string {
	if ratingScores[t] == "good" {
		return "Quick and helpful, thanks!"
	}
	return "It took too long to get an answer."
}

func ratingCreated(t int) int64 { return ticketUpdated(t) + 3600 }

func (d *data) rating(w *jw, base string, t int) {
	id := ratingBase + int64(t)
	score := ratingScores[t]
	a, hasA := d.assignee(t)
	w.ObjElem()
	w.URL("url", base, "/api/v2/satisfaction_ratings/", id, ".json")
	w.Int("id", id)
	w.IntOr("assignee_id", UserID(a), hasA)
	w.IntOr("group_id", GroupID(t%5), statuses[t%10] != "new")
	w.Int("requester_id", UserID(d.requester(t)))
	w.Int("ticket_id", TicketID(t))
	w.Str("score", score)
	w.StrOr("comment", ratingComment(t), ratingHasComment(t))
	if score == "bad" {
		w.Str("reason", "The issue took too long to resolve")
		w.Int("reason_id", reasonBase)
		w.Int("reason_code", 5)
	} else {
		w.Null("reason")
		w.Null("reason_id")
		w.Null("reason_code")
	}
	w.Time("created_at", ratingCreated(t))
	w.Time("updated_at", ratingCreated(t)+60)
	w.End()
}

// ratingFilter honours score, start_time and end_time.
func ratingFilter(d *data, c *call) ([]int, bool) {
	score, st, et := c.get("score"), c.get("start_time"), c.get("end_time")
	if score == "" && st == "" && et == "" {
		return nil, true
	}
	var start, end int64 = 0, 1 << 62
	var err error
	if st != "" {
		if start, err = strconv.ParseInt(st, 10, 64); err != nil {
			invalidValue(c.w, "start_time", "start_time must be a Unix epoch time in seconds")
			return nil, false
		}
	}
	if et != "" {
		if end, err = strconv.ParseInt(et, 10, 64); err != nil {
			invalidValue(c.w, "end_time", "end_time must be a Unix epoch time in seconds")
			return nil, false
		}
	}
	if score != "" {
		if _, known := scoreMatches(score, "good", true); !known {
			invalidValue(c.w, "score", "score must be one of offered, unoffered, received, received_with_comment, received_without_comment, good, good_with_comment, good_without_comment, bad, bad_with_comment, bad_without_comment")
			return nil, false
		}
	}
	out := []int{}
	for t := range min(d.tickets, numRatings) {
		created := ratingCreated(t)
		if created < start || created > end {
			continue
		}
		if score != "" {
			if ok, _ := scoreMatches(score, ratingScores[t], ratingHasComment(t)); !ok {
				continue
			}
		}
		out = append(out, t)
	}
	return out, true
}

func scoreMatches(filter, score string, comment bool) (match, known bool) {
	received := score == "good" || score == "bad"
	switch filter {
	case "offered", "unoffered", "good", "bad":
		return score == filter, true
	case "received":
		return received, true
	case "received_with_comment":
		return received && comment, true
	case "received_without_comment":
		return received && !comment, true
	case "good_with_comment", "bad_with_comment":
		return score == filter[:len(filter)-13] && comment, true
	case "good_without_comment", "bad_without_comment":
		return score == filter[:len(filter)-16] && !comment, true
	}
	return false, false
}

func (d *data) groupMembership(w *jw, base string, k int) {
	id := groupMemberBase + int64(k)
	created := fixedCreated(k)
	w.ObjElem()
	w.URL("url", base, "/api/v2/group_memberships/", id, ".json")
	w.Int("id", id)
	w.Int("user_id", UserID(agentIndex(k)))
	w.Int("group_id", GroupID(k%5))
	w.Bool("default", true)
	w.Time("created_at", created)
	w.Time("updated_at", created+60)
	w.End()
}

func (d *data) orgMembership(w *jw, base string, k int) {
	id := orgMemberBase + int64(k)
	u := d.orgMembers[k]
	o, _ := d.orgOf(u)
	created := userCreated(u) + 600
	w.ObjElem()
	w.URL("url", base, "/api/v2/organization_memberships/", id, ".json")
	w.Int("id", id)
	w.Int("user_id", UserID(u))
	w.Int("organization_id", OrganizationID(o))
	w.Bool("default", true)
	w.Str("organization_name", "Example Org "+strconv.Itoa(o))
	w.Bool("view_tickets", u%2 == 0)
	w.Time("created_at", created)
	w.Time("updated_at", created+60)
	w.End()
}
