package mailchimptest

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ---------------------------------------------------------------- paging and filters

// pageReq is the paging of a list request.
type pageReq struct {
	count, offset int
	desc          bool
}

// paging reads count, offset and sort_dir, answering 400 when they are not
// acceptable.
func (s *Server) paging(w http.ResponseWriter, r *http.Request, q url.Values) (pageReq, bool) {
	p := pageReq{count: DefaultCount}
	if v := q.Get("count"); v != "" {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil || n < 0:
			s.invalid(w, r, fieldError{Field: "count", Message: "Must be an integer between 0 and 1000."})
			return p, false
		case n > MaxCount:
			s.invalid(w, r, fieldError{Field: "count", Message: "Must be less than or equal to 1000."})
			return p, false
		}
		p.count = n
	}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			s.invalid(w, r, fieldError{Field: "offset", Message: "Must be a non-negative integer."})
			return p, false
		}
		p.offset = n
	}
	p.desc = strings.EqualFold(q.Get("sort_dir"), "DESC")
	return p, true
}

// selectPage picks the page p of a domain of n items, where item j is record
// at(j) (at nil: j itself), keeping only records that match (match nil: all).
// It returns the record indexes of the page and the number of matches.
// Without a filter this costs O(page); with one, a scan of the domain.
func selectPage(n int, at func(int) int, match func(int) bool, p pageReq) ([]int, int) {
	idx := func(k int) int {
		j := k
		if p.desc {
			j = n - 1 - k
		}
		if at != nil {
			return at(j)
		}
		return j
	}
	if match == nil {
		end := min(n, p.offset+p.count)
		out := make([]int, 0, max(end-p.offset, 0))
		for k := p.offset; k < end; k++ {
			out = append(out, idx(k))
		}
		return out, n
	}
	var out []int
	total := 0
	for k := range n {
		i := idx(k)
		if !match(i) {
			continue
		}
		if total >= p.offset && total < p.offset+p.count {
			out = append(out, i)
		}
		total++
	}
	return out, total
}

// filters collects predicates; match is nil when there are none.
type filters []func(int) bool

func (f filters) match() func(int) bool {
	if len(f) == 0 {
		return nil
	}
	return func(i int) bool {
		for _, ok := range f {
			if !ok(i) {
				return false
			}
		}
		return true
	}
}

// window is a since/before time range; zero ends are open.
type window struct{ since, before time.Time }

func (w window) set() bool { return !w.since.IsZero() || !w.before.IsZero() }

// contains reports whether t is in the window; a zero t (no such time) never is.
func (w window) contains(t time.Time) bool {
	if t.IsZero() {
		return false
	}
	return (w.since.IsZero() || !t.Before(w.since)) && (w.before.IsZero() || t.Before(w.before))
}

var timeLayouts = []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"}

func parseTime(v string) (time.Time, bool) {
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, v); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// timeParam reads one ISO 8601 parameter, answering 400 when it does not parse.
func (s *Server) timeParam(w http.ResponseWriter, r *http.Request, q url.Values, key string) (time.Time, bool) {
	v := q.Get(key)
	if v == "" {
		return time.Time{}, true
	}
	t, ok := parseTime(v)
	if !ok {
		s.invalid(w, r, fieldError{Field: key, Message: "This value is not a valid ISO 8601 date-time."})
	}
	return t, ok
}

func (s *Server) window(w http.ResponseWriter, r *http.Request, q url.Values, since, before string) (window, bool) {
	a, ok := s.timeParam(w, r, q, since)
	if !ok {
		return window{}, false
	}
	b, ok := s.timeParam(w, r, q, before)
	return window{since: a, before: b}, ok
}

// boolParam reads a boolean parameter ("true"/"false"), answering 400 when it
// does not parse.
func (s *Server) boolParam(w http.ResponseWriter, r *http.Request, q url.Values, key string) (bool, bool) {
	v := q.Get(key)
	if v == "" {
		return false, true
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		s.invalid(w, r, fieldError{Field: key, Message: "Must be true or false."})
		return false, false
	}
	return b, true
}

// apiOrigin is the origin of the HATEOAS links in records: the data centre
// of DefaultAPIKey, whatever port the fake listens on, so that a record
// reads the same from every fake. No client follows them (lists page by
// offset).
const apiOrigin = "https://us6.api.mailchimp.com"

func origin(*http.Request) links { return links{origin: apiOrigin} }

// ---------------------------------------------------------------- campaigns

type campaignsPage struct {
	Campaigns  []campaign `json:"campaigns"`
	TotalItems int        `json:"total_items"`
	Links      []link     `json:"_links"`
}

func (s *Server) listCampaigns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p, ok := s.paging(w, r, q)
	if !ok {
		return
	}
	created, ok := s.window(w, r, q, "since_create_time", "before_create_time")
	if !ok {
		return
	}
	sent, ok := s.window(w, r, q, "since_send_time", "before_send_time")
	if !ok {
		return
	}
	vw := s.view()
	var f filters
	if vw.o.goneCamps > 0 {
		f = append(f, vw.campaignLive)
	}
	if v := q.Get("type"); v != "" {
		f = append(f, func(i int) bool { return campaignType(i) == v })
	}
	if v := q.Get("status"); v != "" {
		f = append(f, func(i int) bool { return vw.campaignStatus(i) == v })
	}
	if v := q.Get("list_id"); v != "" {
		f = append(f, func(i int) bool { return vw.recipients(i).ListID == v })
	}
	if v := q.Get("folder_id"); v != "" {
		f = append(f, func(i int) bool { return folderID(i) == v })
	}
	if created.set() {
		f = append(f, func(i int) bool { return created.contains(vw.campaignCreateTime(i)) })
	}
	if sent.set() {
		f = append(f, func(i int) bool {
			t, ok := vw.campaignSendTime(i)
			return ok && sent.contains(t)
		})
	}
	idx, total := selectPage(vw.campaignCount(), nil, f.match(), p)
	ln := origin(r)
	out := campaignsPage{Campaigns: make([]campaign, len(idx)), TotalItems: total,
		Links: ln.collection("/campaigns", "Campaigns/Collection.json")}
	for k, i := range idx {
		out.Campaigns[k] = vw.campaign(i, ln)
	}
	s.writeJSON(w, r, out)
}

func (s *Server) getCampaign(w http.ResponseWriter, r *http.Request, id string) {
	v := s.view()
	i, ok := v.campaignIndex(id)
	if !ok {
		s.notFound(w, r)
		return
	}
	s.writeJSON(w, r, v.campaign(i, origin(r)))
}

// ---------------------------------------------------------------- lists

type listsPage struct {
	Lists       []list      `json:"lists"`
	TotalItems  int         `json:"total_items"`
	Constraints constraints `json:"constraints"`
	Links       []link      `json:"_links"`
}

type constraints struct {
	MayCreate             bool `json:"may_create"`
	MaxInstances          int  `json:"max_instances"`
	CurrentTotalInstances int  `json:"current_total_instances"`
}

// listIndex maps the id of a live list to its index.
func (s *Server) listIndex(id string) (int, bool) { return s.view().listIndex(id) }

func (s *Server) listLists(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p, ok := s.paging(w, r, q)
	if !ok {
		return
	}
	created, ok := s.window(w, r, q, "since_date_created", "before_date_created")
	if !ok {
		return
	}
	lastSent, ok := s.window(w, r, q, "since_campaign_last_sent", "before_campaign_last_sent")
	if !ok {
		return
	}
	c := &s.cfg
	vw := s.view()
	var f filters
	if vw.o.goneLists > 0 {
		f = append(f, vw.listLive)
	}
	if created.set() {
		f = append(f, func(l int) bool { return created.contains(vw.listCreated(l)) })
	}
	if lastSent.set() {
		f = append(f, func(l int) bool {
			t, _ := parseTime(vw.campaignLastSent(l))
			return lastSent.contains(t)
		})
	}
	if v := q.Get("email"); v != "" {
		m, ok := memberIndexFromEmail(v)
		on := ok && m < c.members // every list holds the same addresses
		f = append(f, func(int) bool { return on })
	}
	idx, total := selectPage(vw.listCount(), nil, f.match(), p)
	ln := origin(r)
	out := listsPage{Lists: make([]list, len(idx)), TotalItems: total,
		Constraints: constraints{MayCreate: true, MaxInstances: -1, CurrentTotalInstances: vw.liveLists()},
		Links:       ln.collection("/lists", "Lists/Collection.json")}
	for k, l := range idx {
		out.Lists[k] = vw.list(l, ln)
	}
	s.writeJSON(w, r, out)
}

func (s *Server) getList(w http.ResponseWriter, r *http.Request, l int) {
	s.writeJSON(w, r, s.view().list(l, origin(r)))
}

// ---------------------------------------------------------------- members

type membersPage struct {
	Members    []member `json:"members"`
	ListID     string   `json:"list_id"`
	TotalItems int      `json:"total_items"`
	Links      []link   `json:"_links"`
}

func (s *Server) listMembers(w http.ResponseWriter, r *http.Request, l int) {
	q := r.URL.Query()
	p, ok := s.paging(w, r, q)
	if !ok {
		return
	}
	opt, ok := s.window(w, r, q, "since_timestamp_opt", "before_timestamp_opt")
	if !ok {
		return
	}
	changed, ok := s.window(w, r, q, "since_last_changed", "before_last_changed")
	if !ok {
		return
	}
	vipOnly, ok := s.boolParam(w, r, q, "vip_only")
	if !ok {
		return
	}
	c := &s.cfg
	var f filters
	if v := q.Get("status"); v != "" {
		f = append(f, func(m int) bool { st, _, _, _ := s.memberTimes(l, m); return st == v })
	}
	if v := q.Get("email_type"); v != "" {
		f = append(f, func(m int) bool { return memberEmailType(m) == v })
	}
	if vipOnly {
		f = append(f, memberVIP)
	}
	if opt.set() {
		f = append(f, func(m int) bool { _, t, _, _ := s.memberTimes(l, m); return opt.contains(t) })
	}
	if changed.set() {
		f = append(f, func(m int) bool { _, _, _, t := s.memberTimes(l, m); return changed.contains(t) })
	}
	if v := q.Get("unique_email_id"); v != "" {
		f = append(f, func(m int) bool { return uniqueEmailID(l, m) == v })
	}
	if v := q.Get("interest_ids"); v != "" {
		f = append(f, c.interestMatch(l, v, q.Get("interest_match")))
	}
	sortField, ok := s.enumParam(w, r, q, "sort_field", "timestamp_opt", "timestamp_signup", "last_changed")
	if !ok {
		return
	}
	var at func(int) int
	if order := s.memberOrder(l, sortField); order != nil {
		at = func(j int) int { return order[j] }
	}
	idx, total := selectPage(s.memberCount(l), at, f.match(), p)
	ln := origin(r)
	listID := c.listID(l)
	out := membersPage{Members: make([]member, len(idx)), ListID: listID, TotalItems: total,
		Links: ln.collection("/lists/"+listID+"/members", "Lists/Members/Collection.json")}
	for k, m := range idx {
		out.Members[k] = s.memberOf(l, m, ln)
	}
	s.writeJSON(w, r, out)
}

// interestMatch filters members by a comma-separated list of interest ids of
// list l; match is any (default), all or none. Unknown ids match nobody.
func (c *config) interestMatch(l int, ids, match string) func(int) bool {
	perList := c.interestCategories * c.interests
	var gs []int
	for id := range strings.SplitSeq(ids, ",") {
		g, ok := parseHexID(strings.TrimSpace(id), interestMask, (l+1)*perList)
		if !ok || g/perList != l {
			g = -1
		}
		gs = append(gs, g)
	}
	has := func(m, g int) bool { return g >= 0 && hasInterest(m, g) }
	return func(m int) bool {
		switch match {
		case "all":
			for _, g := range gs {
				if !has(m, g) {
					return false
				}
			}
			return true
		case "none":
			for _, g := range gs {
				if has(m, g) {
					return false
				}
			}
			return true
		default:
			for _, g := range gs {
				if has(m, g) {
					return true
				}
			}
			return false
		}
	}
}

func (s *Server) getMember(w http.ResponseWriter, r *http.Request, l int, key string) {
	var (
		m  int
		ok bool
	)
	if strings.Contains(key, "@") {
		m, ok = memberIndexFromEmail(key)
		ok = ok && m < s.memberCount(l)
	} else {
		m, ok = s.memberByHash(key)
		ok = ok && m < s.memberCount(l)
	}
	if !ok {
		s.notFound(w, r)
		return
	}
	s.writeJSON(w, r, s.memberOf(l, m, origin(r)))
}

// ---------------------------------------------------------------- tags

type tagsPage struct {
	Tags       []tag `json:"tags"`
	TotalItems int   `json:"total_items"`
}

// listTags answers tag-search: every tag whose name starts with name
// (compared without regard to case); the endpoint does not page.
func (s *Server) listTags(w http.ResponseWriter, r *http.Request, l int) {
	prefix := strings.ToLower(r.URL.Query().Get("name"))
	out := tagsPage{Tags: []tag{}}
	for t := range s.cfg.tags {
		name := tagName(t)
		if strings.HasPrefix(strings.ToLower(name), prefix) {
			out.Tags = append(out.Tags, tag{ID: s.cfg.tagID(l, t), Name: name})
		}
	}
	out.TotalItems = len(out.Tags)
	s.writeJSON(w, r, out)
}

// ---------------------------------------------------------------- interest categories

type categoriesPage struct {
	ListID     string             `json:"list_id"`
	Categories []interestCategory `json:"categories"`
	TotalItems int                `json:"total_items"`
	Links      []link             `json:"_links"`
}

func (s *Server) listInterestCategories(w http.ResponseWriter, r *http.Request, l int) {
	q := r.URL.Query()
	p, ok := s.paging(w, r, q)
	if !ok {
		return
	}
	var f filters
	if v := q.Get("type"); v != "" {
		f = append(f, func(k int) bool { return categoryTypes[k%len(categoryTypes)] == v })
	}
	c := &s.cfg
	idx, total := selectPage(c.interestCategories, nil, f.match(), p)
	ln := origin(r)
	listID := c.listID(l)
	out := categoriesPage{ListID: listID, Categories: make([]interestCategory, len(idx)), TotalItems: total,
		Links: ln.collection("/lists/"+listID+"/interest-categories", "Lists/InterestCategories/Collection.json")}
	for j, k := range idx {
		out.Categories[j] = c.interestCategory(l, k, ln)
	}
	s.writeJSON(w, r, out)
}

func (s *Server) getInterestCategory(w http.ResponseWriter, r *http.Request, l int, id string) {
	k, ok := s.cfg.categoryIndex(l, id)
	if !ok {
		s.notFound(w, r)
		return
	}
	s.writeJSON(w, r, s.cfg.interestCategory(l, k, origin(r)))
}

// ---------------------------------------------------------------- interests

type interestsPage struct {
	Interests  []interest `json:"interests"`
	ListID     string     `json:"list_id"`
	CategoryID string     `json:"category_id"`
	TotalItems int        `json:"total_items"`
	Links      []link     `json:"_links"`
}

func (s *Server) listInterests(w http.ResponseWriter, r *http.Request, l int, catID string) {
	c := &s.cfg
	k, ok := c.categoryIndex(l, catID)
	if !ok {
		s.notFound(w, r)
		return
	}
	p, ok := s.paging(w, r, r.URL.Query())
	if !ok {
		return
	}
	idx, total := selectPage(c.interests, nil, nil, p)
	ln := origin(r)
	listID := c.listID(l)
	out := interestsPage{Interests: make([]interest, len(idx)), ListID: listID, CategoryID: catID, TotalItems: total,
		Links: ln.collection("/lists/"+listID+"/interest-categories/"+catID+"/interests",
			"Lists/InterestCategories/Interests/Collection.json")}
	for j, n := range idx {
		out.Interests[j] = c.interest(l, k, n, ln)
	}
	s.writeJSON(w, r, out)
}

func (s *Server) getInterest(w http.ResponseWriter, r *http.Request, l int, catID, id string) {
	c := &s.cfg
	k, ok := c.categoryIndex(l, catID)
	if !ok {
		s.notFound(w, r)
		return
	}
	n, ok := c.interestIndex(l, k, id)
	if !ok {
		s.notFound(w, r)
		return
	}
	s.writeJSON(w, r, c.interest(l, k, n, origin(r)))
}

// ---------------------------------------------------------------- segments

type segmentsPage struct {
	Segments   []segment `json:"segments"`
	ListID     string    `json:"list_id"`
	TotalItems int       `json:"total_items"`
	Links      []link    `json:"_links"`
}

// segmentIndex maps a segment id back to its index within list l.
func (c *config) segmentIndex(l int, id string) (int, bool) {
	v, err := strconv.Atoi(id)
	if err != nil || c.segments == 0 || v < segmentIDBase {
		return 0, false
	}
	v -= segmentIDBase
	if v/c.segments != l {
		return 0, false
	}
	return v % c.segments, true
}

func (s *Server) listSegments(w http.ResponseWriter, r *http.Request, l int) {
	q := r.URL.Query()
	p, ok := s.paging(w, r, q)
	if !ok {
		return
	}
	created, ok := s.window(w, r, q, "since_created_at", "before_created_at")
	if !ok {
		return
	}
	updated, ok := s.window(w, r, q, "since_updated_at", "before_updated_at")
	if !ok {
		return
	}
	c := &s.cfg
	var f filters
	if v := q.Get("type"); v != "" {
		f = append(f, func(sg int) bool { return segmentType(sg) == v })
	}
	if created.set() {
		f = append(f, func(sg int) bool { return created.contains(c.segmentCreated(l, sg)) })
	}
	if updated.set() {
		f = append(f, func(sg int) bool { return updated.contains(c.segmentUpdated(l, sg)) })
	}
	idx, total := selectPage(c.segments, nil, f.match(), p)
	ln := origin(r)
	listID := c.listID(l)
	out := segmentsPage{Segments: make([]segment, len(idx)), ListID: listID, TotalItems: total,
		Links: ln.collection("/lists/"+listID+"/segments", "Lists/Segments/Collection.json")}
	for j, sg := range idx {
		out.Segments[j] = c.segment(l, sg, ln)
	}
	s.writeJSON(w, r, out)
}

func (s *Server) getSegment(w http.ResponseWriter, r *http.Request, l int, id string) {
	sg, ok := s.cfg.segmentIndex(l, id)
	if !ok {
		s.notFound(w, r)
		return
	}
	s.writeJSON(w, r, s.cfg.segment(l, sg, origin(r)))
}

type segmentMembersPage struct {
	Members    []segmentMember `json:"members"`
	TotalItems int             `json:"total_items"`
	Links      []link          `json:"_links"`
}

// listSegmentMembers serves a segment's members. Like Mailchimp it leaves out
// cleaned, transactional and unsubscribed members unless include_* says so.
func (s *Server) listSegmentMembers(w http.ResponseWriter, r *http.Request, l int, id string) {
	c := &s.cfg
	sg, ok := c.segmentIndex(l, id)
	if !ok {
		s.notFound(w, r)
		return
	}
	q := r.URL.Query()
	p, ok := s.paging(w, r, q)
	if !ok {
		return
	}
	include := map[string]bool{}
	for _, st := range []string{"cleaned", "transactional", "unsubscribed"} {
		b, ok := s.boolParam(w, r, q, "include_"+st)
		if !ok {
			return
		}
		include[st] = b
	}
	match := func(m int) bool {
		switch st := memberStatus(m); st {
		case "cleaned", "transactional", "unsubscribed":
			return include[st]
		}
		return true
	}
	p.desc = false // the endpoint has no sort parameters
	idx, total := selectPage(c.segmentSize(sg), func(j int) int { return c.segmentMemberAt(sg, j) }, match, p)
	ln := origin(r)
	listID := c.listID(l)
	out := segmentMembersPage{Members: make([]segmentMember, len(idx)), TotalItems: total,
		Links: ln.collection(fmt.Sprintf("/lists/%s/segments/%s/members", listID, id), "Lists/Segments/Members/Collection.json")}
	for j, m := range idx {
		out.Members[j] = c.segmentMember(l, m, ln)
	}
	s.writeJSON(w, r, out)
}

// ---------------------------------------------------------------- automations

type automationsPage struct {
	Automations []automation `json:"automations"`
	TotalItems  int          `json:"total_items"`
	Links       []link       `json:"_links"`
}

func (s *Server) listAutomations(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p, ok := s.paging(w, r, q)
	if !ok {
		return
	}
	created, ok := s.window(w, r, q, "since_create_time", "before_create_time")
	if !ok {
		return
	}
	started, ok := s.window(w, r, q, "since_start_time", "before_start_time")
	if !ok {
		return
	}
	var f filters
	if v := q.Get("status"); v != "" {
		f = append(f, func(a int) bool { return automationStatus(a) == v })
	}
	if created.set() {
		f = append(f, func(a int) bool { return created.contains(automationCreateTime(a)) })
	}
	if started.set() {
		f = append(f, func(a int) bool { return started.contains(automationStartTime(a)) })
	}
	c := &s.cfg
	idx, total := selectPage(c.automations, nil, f.match(), p)
	ln := origin(r)
	out := automationsPage{Automations: make([]automation, len(idx)), TotalItems: total,
		Links: ln.collection("/automations", "Automations/CollectionResponse.json")}
	vw := s.view()
	for j, a := range idx {
		out.Automations[j] = c.automation(a, ln)
		if rc := &out.Automations[j].Recipients; c.lists > 0 {
			_, rc.ListIsActive, rc.ListName = vw.listRef(a % c.lists)
		}
	}
	s.writeJSON(w, r, out)
}

// ---------------------------------------------------------------- reports

type reportsPage struct {
	Reports    []report `json:"reports"`
	TotalItems int      `json:"total_items"`
	Links      []link   `json:"_links"`
}

func (s *Server) listReports(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p, ok := s.paging(w, r, q)
	if !ok {
		return
	}
	sent, ok := s.window(w, r, q, "since_send_time", "before_send_time")
	if !ok {
		return
	}
	vw := s.view()
	var f filters
	if vw.o.goneCamps > 0 {
		f = append(f, vw.campaignLive)
	}
	if v := q.Get("type"); v != "" {
		f = append(f, func(i int) bool { return campaignType(i) == v })
	}
	if sent.set() {
		f = append(f, func(i int) bool { return sent.contains(campaignSendTime(i)) })
	}
	c := &s.cfg
	p.desc = false // the endpoint has no sort parameters
	// Only generated campaigns are sent: created ones are drafts.
	idx, total := selectPage(c.sentCount(), sentAt, f.match(), p)
	ln := origin(r)
	out := reportsPage{Reports: make([]report, len(idx)), TotalItems: total,
		Links: ln.collection("/reports", "Reports/Collection.json")}
	for j, i := range idx {
		out.Reports[j] = vw.report(i, ln)
	}
	s.writeJSON(w, r, out)
}

func (s *Server) getReport(w http.ResponseWriter, r *http.Request, id string) {
	v := s.view()
	i, ok := v.sentCampaign(id)
	if !ok {
		s.notFound(w, r)
		return
	}
	s.writeJSON(w, r, v.report(i, origin(r)))
}

type emailActivityPage struct {
	Emails     []emailActivity `json:"emails"`
	CampaignID string          `json:"campaign_id"`
	TotalItems int             `json:"total_items"`
	Links      []link          `json:"_links"`
}

// listEmailActivity serves one entry per recipient; since drops the events
// at or before that time (recipients stay, possibly with no activity).
func (s *Server) listEmailActivity(w http.ResponseWriter, r *http.Request, id string) {
	vw := s.view()
	i, ok := vw.sentCampaign(id)
	if !ok {
		s.notFound(w, r)
		return
	}
	q := r.URL.Query()
	p, ok := s.paging(w, r, q)
	if !ok {
		return
	}
	since, ok := s.timeParam(w, r, q, "since")
	if !ok {
		return
	}
	c := &s.cfg
	p.desc = false
	n := 0
	if _, ok := c.campaignListIndex(i); ok {
		n = min(c.emailActivity, c.members)
	}
	idx, total := selectPage(n, nil, nil, p)
	ln := origin(r)
	out := emailActivityPage{Emails: make([]emailActivity, len(idx)), CampaignID: id, TotalItems: total,
		Links: ln.collection("/reports/"+id+"/email-activity", "Reports/EmailActivity/Collection.json")}
	l, _ := c.campaignListIndex(i)
	for j, m := range idx {
		out.Emails[j] = c.activity(i, m, since, ln)
		out.Emails[j].ListIsActive = vw.listLive(l)
	}
	s.writeJSON(w, r, out)
}

type unsubscribesPage struct {
	Unsubscribes []unsubscribe `json:"unsubscribes"`
	CampaignID   string        `json:"campaign_id"`
	TotalItems   int           `json:"total_items"`
	Links        []link        `json:"_links"`
}

func (s *Server) listUnsubscribes(w http.ResponseWriter, r *http.Request, id string) {
	vw := s.view()
	i, ok := vw.sentCampaign(id)
	if !ok {
		s.notFound(w, r)
		return
	}
	p, ok := s.paging(w, r, r.URL.Query())
	if !ok {
		return
	}
	c := &s.cfg
	p.desc = false
	n := 0
	if _, ok := c.campaignListIndex(i); ok {
		n = c.unsubscribeCount()
	}
	idx, total := selectPage(n, nil, nil, p)
	ln := origin(r)
	out := unsubscribesPage{Unsubscribes: make([]unsubscribe, len(idx)), CampaignID: id, TotalItems: total,
		Links: ln.collection("/reports/"+id+"/unsubscribed", "Reports/Unsubs/Collection.json")}
	l, _ := c.campaignListIndex(i)
	for j, k := range idx {
		out.Unsubscribes[j] = c.unsubscribe(i, k, ln)
		out.Unsubscribes[j].ListIsActive = vw.listLive(l)
	}
	s.writeJSON(w, r, out)
}

// enumParam reads an enumerated parameter, answering 400 when its value is
// not one of allowed; "" when absent.
func (s *Server) enumParam(w http.ResponseWriter, r *http.Request, q url.Values, key string, allowed ...string) (string, bool) {
	v := q.Get(key)
	if v == "" || slices.Contains(allowed, v) {
		return v, true
	}
	s.invalid(w, r, fieldError{Field: key, Message: "Must be one of " + strings.Join(allowed, ", ") + "."})
	return "", false
}
