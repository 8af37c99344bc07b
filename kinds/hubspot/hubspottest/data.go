package hubspottest

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Every record is a pure function of its object type and index, so any
// volume costs no memory: nothing is stored, pages are generated on demand.

// Identity of the fake account.
const (
	// PortalID is the fake HubSpot account (portal / hub) id.
	PortalID = 12345678
	// CustomObjectName is the internal name of the fake account's one custom
	// object type.
	CustomObjectName = "cars"
	// CustomObjectTypeID is its object type id, usable as objectType.
	CustomObjectTypeID = "2-1234567"
	// CustomObjectFullyQualifiedName is its fully qualified name, usable as
	// objectType.
	CustomObjectFullyQualifiedName = "p12345678_cars"
	// ArchivedPerType is how many archived records each object type has
	// (listed with archived=true).
	ArchivedPerType = 3
	// ArchivedOwners is how many archived owners the account has.
	ArchivedOwners = 2
)

// Default volumes, changed with the With... options.
const (
	DefaultContacts      = 50
	DefaultCompanies     = 20
	DefaultDeals         = 30
	DefaultTickets       = 25
	DefaultEngagements   = 15 // each of notes, calls, emails, meetings, tasks
	DefaultOwners        = 8
	DefaultCustomObjects = 12
)

const (
	archivedOffset = 90_000_000
	ownerIDBase    = 70_000_000
	userIDBase     = 9_000_000
	timeLayout     = "2006-01-02T15:04:05.000Z"
)

var epoch = time.Date(2018, 1, 1, 0, 0, 0, 0, time.UTC)

// propFn computes one property of record i; nil means the property exists
// but has no value (HubSpot's null).
type propFn func(d *dataset, r ref) *string

type propDef struct {
	name string
	fn   propFn
}

// objectType describes one CRM object type of the fake account.
type objectType struct {
	name       string // plural API name, e.g. "contacts"; FQN for the custom object
	short      string // also accepted in paths (custom object's plain name)
	singular   string // used in association labels
	typeID     string // "0-1" ...
	idBase     int64
	ord        int // spreads creation times of different types apart
	createProp string
	modifyProp string
	defaults   []string // returned when the request names no properties
	queryProps []string // searched by the search body's query text
	uniqueProp string   // the property usable as idProperty besides hs_object_id
	props      []propDef
	index      map[string]propFn // with the values Update sets
	raw        map[string]propFn // as generated
}

// ref points at one record: index i of a type, live or archived.
type ref struct {
	t        *objectType
	i        int
	archived bool
}

// dataset holds the volumes and the object types; it is read-only after New.
type dataset struct {
	counts map[string]int // by objectType.name
	owners int
	// grain, when positive, rounds every modification time up to a multiple
	// of it (since the epoch), so that many records share one.
	grain time.Duration

	ov overlay // what Create, Update and Delete did

	mu     sync.Mutex
	gen    uint64         // mutations so far: part of the cache key
	cache  []cachedSearch // recent searches' matches, oldest first
	types  []*objectType
	byName map[string]*objectType
	links  []link
}

func (d *dataset) count(t *objectType) int { return d.counts[t.name] }

func (d *dataset) typ(name string) *objectType { return d.byName[name] }

// resolve finds an object type by the names HubSpot accepts in paths:
// plural name, object type id, and for custom objects the plain and fully
// qualified names. Case-insensitive.
func (d *dataset) resolve(name string) *objectType {
	return d.byName[strings.ToLower(name)]
}

func (r ref) id() string {
	if r.archived {
		return strconv.FormatInt(r.t.idBase+archivedOffset+int64(r.i)+1, 10)
	}
	return strconv.FormatInt(r.t.idBase+int64(r.i)+1, 10)
}

// seed is the index the generators use: archived records get values from
// beyond any live range so they differ from live ones.
func (r ref) seed() int {
	if r.archived {
		return 900_000 + r.i
	}
	return r.i
}

func (d *dataset) created(r ref) time.Time {
	if ch, ok := d.change(r); ok && !ch.created.IsZero() {
		return ch.created
	}
	s := r.seed()
	if r.archived {
		s = r.i * 997
	}
	return epoch.Add(time.Duration(r.t.ord)*time.Hour +
		time.Duration(s)*4*time.Minute +
		time.Duration(mix(s, 11)%60_000)*time.Millisecond)
}

func (d *dataset) updated(r ref) time.Time {
	if ch, ok := d.change(r); ok && !ch.updated.IsZero() {
		return ch.updated
	}
	s := r.seed()
	t := d.created(r).Add(time.Duration(mix(s, 13)%(30*24*60))*time.Minute + 1234*time.Millisecond)
	if d.grain > 0 {
		since := t.Sub(epoch)
		t = epoch.Add((since + d.grain - 1) / d.grain * d.grain)
	}
	return t
}

func (d *dataset) archivedAt(r ref) time.Time {
	if ch, ok := d.change(r); ok && !ch.deletedAt.IsZero() {
		return ch.deletedAt
	}
	return d.updated(r).Add(time.Hour)
}

func stamp(t time.Time) string { return t.UTC().Format(timeLayout) }

// mix is a small deterministic hash (splitmix64) of i and a salt.
func mix(i, salt int) int {
	z := uint64(i)*0x9e3779b97f4a7c15 + uint64(salt)*0xbf58476d1ce4e5b9
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return int(z >> 1)
}

func pick(list []string, i, salt int) string { return list[mix(i, salt)%len(list)] }

func sp(s string) *string { return &s }

func ownerID(i int) string { return strconv.Itoa(ownerIDBase + i + 1) }

// linkedID returns the id of record (i mod n) of type t, or nil when t has
// no records.
func (d *dataset) linkedID(name string, i int) *string {
	t := d.typ(name)
	n := d.count(t)
	if n == 0 {
		return nil
	}
	return sp(ref{t: t, i: i % n}.id())
}

func (d *dataset) ownerOf(r ref, salt int) *string {
	if d.owners == 0 || mix(r.seed(), salt)%9 == 8 {
		return nil
	}
	return sp(ownerID(mix(r.seed(), salt+1) % d.owners))
}

var (
	firstNames = []string{"Ada", "Sam", "Robin", "Kim", "Alex", "Jordan", "Taylor", "Casey", "Riley", "Morgan", "Jamie", "Avery", "Quinn", "Drew", "Rowan", "Sky"}
	lastNames  = []string{"Example", "Sample", "Placeholder", "Testperson", "Fixture", "Mockley", "Dummyson", "Stubbs", "Demo", "Synthetic"}
	tlds       = []string{"com", "org", "net"}
	jobTitles  = []string{"Placeholder Engineer", "Sample Manager", "Test Analyst", "Demo Director", "Example Consultant", "Fixture Specialist"}
	lifecycle  = []string{"subscriber", "lead", "marketingqualifiedlead", "salesqualifiedlead", "opportunity", "customer", "evangelist", "other"}
	leadStatus = []string{"NEW", "OPEN", "IN_PROGRESS", "OPEN_DEAL", "UNQUALIFIED", "ATTEMPTED_TO_CONTACT", "CONNECTED", "BAD_TIMING"}
	cities     = []string{"Springfield", "Riverton", "Lakeside", "Fairview", "Greenville", "Oakridge"}
	countries  = []string{"United States", "Canada", "United Kingdom", "Germany"}
	coPrefix   = []string{"Example", "Sample", "Placeholder", "Fixture", "Demo", "Testbed"}
	coSuffix   = []string{"Holdings", "Industries", "Labs", "Systems", "Partners", "Group"}
	industries = []string{"COMPUTER_SOFTWARE", "FINANCIAL_SERVICES", "HOSPITAL_HEALTH_CARE", "RETAIL", "LOGISTICS_AND_SUPPLY_CHAIN", "EDUCATION_MANAGEMENT"}
	dealTypes  = []string{"newbusiness", "existingbusiness"}
	subjects   = []string{"Cannot sign in", "Invoice question", "Feature idea", "Export fails", "Password reset", "Data looks wrong"}
	ticketCats = []string{"PRODUCT_ISSUE", "BILLING_ISSUE", "FEATURE_REQUEST", "GENERAL_INQUIRY"}
	priorities = []string{"LOW", "MEDIUM", "HIGH", "URGENT"}
	sources    = []string{"EMAIL", "CHAT", "PHONE", "FORM"}
	callStatus = []string{"COMPLETED", "NO_ANSWER", "BUSY", "FAILED", "CANCELED"}
	directions = []string{"INBOUND", "OUTBOUND"}
	emailDirs  = []string{"EMAIL", "INCOMING_EMAIL", "FORWARDED_EMAIL"}
	emailStat  = []string{"SENT", "SENT", "SENT", "BOUNCED", "FAILED"}
	outcomes   = []string{"SCHEDULED", "COMPLETED", "RESCHEDULED", "NO_SHOW", "CANCELED"}
	taskStatus = []string{"NOT_STARTED", "IN_PROGRESS", "WAITING", "COMPLETED", "DEFERRED"}
	taskPrio   = []string{"NONE", "LOW", "MEDIUM", "HIGH"}
	taskTypes  = []string{"EMAIL", "CALL", "LINKED_IN", "TODO"}
	carMakes   = []string{"Placeholder Motors", "Sample Autos", "Example Vehicles", "Demo Cars"}
	carModels  = []string{"Model A", "Model B", "Model C", "Roadster", "Wagon"}
	conditions = []string{"new", "used"}
	callDispos = []string{"f240bbac-87c9-4f6e-bf70-924b57d47db7", "73a0d17f-1163-4015-bdd5-ec830791da20", "9d9162e7-6cf3-4944-bf63-4dff82258764"}
)

// Deal pipelines: the default one and a second "Renewals" pipeline.
var (
	defaultDealStages = []string{"appointmentscheduled", "qualifiedtobuy", "presentationscheduled", "decisionmakerboughtin", "contractsent", "closedwon", "closedlost"}
	renewalStages     = []string{"31000002", "31000003", "31000004"}
)

func contactEmail(i int) string {
	f := strings.ToLower(firstNames[i%len(firstNames)])
	l := strings.ToLower(lastNames[(i/len(firstNames))%len(lastNames)])
	return fmt.Sprintf("%s.%s%d@example.%s", f, l, i, tlds[i%len(tlds)])
}

// contactIndexByEmail inverts contactEmail.
func contactIndexByEmail(email string) (int, bool) {
	at := strings.IndexByte(email, '@')
	if at < 0 {
		return 0, false
	}
	local := email[:at]
	j := len(local)
	for j > 0 && local[j-1] >= '0' && local[j-1] <= '9' {
		j--
	}
	i, err := strconv.Atoi(local[j:])
	if err != nil || i < 0 || !strings.EqualFold(contactEmail(i), email) {
		return 0, false
	}
	return i, true
}

func companyName(i int) string {
	n := coPrefix[i%len(coPrefix)] + " " + coSuffix[(i/len(coPrefix))%len(coSuffix)]
	if i >= len(coPrefix)*len(coSuffix) {
		n += " " + strconv.Itoa(i)
	}
	return n
}

func carVIN(i int) string { return fmt.Sprintf("TESTVIN%010d", i) }

func carIndexByVIN(v string) (int, bool) {
	if !strings.HasPrefix(v, "TESTVIN") || len(v) != 17 {
		return 0, false
	}
	i, err := strconv.Atoi(v[7:])
	return i, err == nil
}

func (d *dataset) dealStage(r ref) (pipeline, stage string) {
	s := r.seed()
	if mix(s, 31)%5 == 4 {
		return "31000001", renewalStages[mix(s, 32)%len(renewalStages)]
	}
	return "default", defaultDealStages[mix(s, 33)%len(defaultDealStages)]
}

func newDataset(counts map[string]int, owners int, grain time.Duration) *dataset {
	d := &dataset{counts: counts, owners: owners, grain: grain, byName: map[string]*objectType{}, links: defaultLinks(),
		ov: overlay{extra: map[*objectType]int{}, recs: map[*objectType]map[int]change{}, dead: map[*objectType][]int{}}}
	idProp := propDef{"hs_object_id", func(_ *dataset, r ref) *string { return sp(r.id()) }}
	created := func(name string) propDef {
		return propDef{name, func(d *dataset, r ref) *string { return sp(stamp(d.created(r))) }}
	}
	modified := func(name string) propDef {
		return propDef{name, func(d *dataset, r ref) *string { return sp(stamp(d.updated(r))) }}
	}
	owner := func(salt int) propDef {
		return propDef{"hubspot_owner_id", func(d *dataset, r ref) *string { return d.ownerOf(r, salt) }}
	}
	str := func(name string, f func(s int) string) propDef {
		return propDef{name, func(_ *dataset, r ref) *string { return sp(f(r.seed())) }}
	}
	opt := func(name string, every, salt int, f func(s int) string) propDef {
		return propDef{name, func(_ *dataset, r ref) *string {
			if mix(r.seed(), salt)%every == 0 {
				return nil
			}
			return sp(f(r.seed()))
		}}
	}
	at := func(name string, days int, salt int) propDef { // a time after creation
		return propDef{name, func(d *dataset, r ref) *string {
			return sp(d.created(r).Add(time.Duration(mix(r.seed(), salt)%(days*24)) * time.Hour).Format(time.RFC3339))
		}}
	}

	contacts := &objectType{
		name: "contacts", singular: "contact", typeID: "0-1", idBase: 10_100_000_000, ord: 0,
		createProp: "createdate", modifyProp: "lastmodifieddate",
		defaults:   []string{"createdate", "email", "firstname", "hs_object_id", "lastmodifieddate", "lastname"},
		queryProps: []string{"firstname", "lastname", "email", "phone", "company"},
		uniqueProp: "email",
		props: []propDef{
			str("firstname", func(s int) string { return firstNames[s%len(firstNames)] }),
			str("lastname", func(s int) string { return lastNames[(s/len(firstNames))%len(lastNames)] }),
			{"email", func(_ *dataset, r ref) *string {
				if r.archived {
					return sp(fmt.Sprintf("archived%d@example.com", r.i))
				}
				if r.i%17 == 16 {
					return nil
				}
				return sp(contactEmail(r.i))
			}},
			opt("phone", 5, 1, func(s int) string { return fmt.Sprintf("+1-555-01%02d", s%100) }),
			opt("mobilephone", 2, 2, func(s int) string { return fmt.Sprintf("+1-555-02%02d", s%100) }),
			{"company", func(d *dataset, r ref) *string {
				n := d.count(d.typ("companies"))
				if n == 0 {
					return nil
				}
				return sp(companyName(r.seed() % n))
			}},
			opt("jobtitle", 7, 3, func(s int) string { return pick(jobTitles, s, 4) }),
			str("lifecyclestage", func(s int) string { return pick(lifecycle, s, 5) }),
			opt("hs_lead_status", 3, 6, func(s int) string { return pick(leadStatus, s, 7) }),
			str("city", func(s int) string { return pick(cities, s, 8) }),
			str("country", func(s int) string { return pick(countries, s, 9) }),
			{"associatedcompanyid", func(d *dataset, r ref) *string {
				if r.archived {
					return nil
				}
				return d.linkedID("companies", r.i)
			}},
			owner(10),
			idProp, created("createdate"), modified("lastmodifieddate"), modified("hs_lastmodifieddate"),
		},
	}
	companies := &objectType{
		name: "companies", singular: "company", typeID: "0-2", idBase: 20_100_000_000, ord: 1,
		createProp: "createdate", modifyProp: "hs_lastmodifieddate",
		defaults:   []string{"createdate", "domain", "hs_lastmodifieddate", "hs_object_id", "name"},
		queryProps: []string{"name", "domain", "website", "phone"},
		props: []propDef{
			str("name", companyName),
			str("domain", func(s int) string { return fmt.Sprintf("co%d.example.com", s) }),
			str("website", func(s int) string { return fmt.Sprintf("https://co%d.example.com", s) }),
			opt("phone", 4, 1, func(s int) string { return fmt.Sprintf("+1-555-03%02d", s%100) }),
			str("industry", func(s int) string { return pick(industries, s, 2) }),
			opt("numberofemployees", 6, 3, func(s int) string { return strconv.Itoa(5 + mix(s, 4)%5000) }),
			opt("annualrevenue", 5, 5, func(s int) string { return strconv.Itoa((1 + mix(s, 6)%500) * 10000) }),
			str("city", func(s int) string { return pick(cities, s, 7) }),
			str("country", func(s int) string { return pick(countries, s, 8) }),
			str("lifecyclestage", func(s int) string { return pick(lifecycle, s, 9) }),
			opt("description", 3, 10, func(s int) string { return "Placeholder company record number " + strconv.Itoa(s) + "." }),
			owner(11),
			idProp, created("createdate"), modified("hs_lastmodifieddate"),
		},
	}
	deals := &objectType{
		name: "deals", singular: "deal", typeID: "0-3", idBase: 30_100_000_000, ord: 2,
		createProp: "createdate", modifyProp: "hs_lastmodifieddate",
		defaults:   []string{"amount", "closedate", "createdate", "dealname", "dealstage", "hs_lastmodifieddate", "hs_object_id", "pipeline"},
		queryProps: []string{"dealname", "pipeline", "dealstage", "description", "dealtype"},
		props: []propDef{
			str("dealname", func(s int) string {
				return fmt.Sprintf("Deal %d - %s", s, pick([]string{"annual plan", "pilot", "expansion", "renewal"}, s, 1))
			}),
			{"amount", func(_ *dataset, r ref) *string {
				s := r.seed()
				if mix(s, 2)%9 == 4 {
					return nil
				}
				return sp(fmt.Sprintf("%d.%02d", 500+mix(s, 3)%99500, mix(s, 4)%100))
			}},
			{"dealstage", func(d *dataset, r ref) *string { _, st := d.dealStage(r); return sp(st) }},
			{"pipeline", func(d *dataset, r ref) *string { p, _ := d.dealStage(r); return sp(p) }},
			{"hs_is_closed", func(d *dataset, r ref) *string {
				_, st := d.dealStage(r)
				return sp(strconv.FormatBool(st == "closedwon" || st == "closedlost" || st == "31000003"))
			}},
			at("closedate", 120, 5),
			str("dealtype", func(s int) string { return pick(dealTypes, s, 6) }),
			str("deal_currency_code", func(int) string { return "USD" }),
			opt("description", 3, 7, func(s int) string { return "Placeholder deal notes " + strconv.Itoa(s) + "." }),
			owner(12),
			idProp, created("createdate"), modified("hs_lastmodifieddate"),
		},
	}
	tickets := &objectType{
		name: "tickets", singular: "ticket", typeID: "0-5", idBase: 40_100_000_000, ord: 3,
		createProp: "createdate", modifyProp: "hs_lastmodifieddate",
		defaults:   []string{"content", "createdate", "hs_lastmodifieddate", "hs_object_id", "hs_pipeline", "hs_pipeline_stage", "hs_ticket_category", "hs_ticket_priority", "subject"},
		queryProps: []string{"subject", "content", "hs_pipeline_stage", "hs_ticket_category"},
		props: []propDef{
			str("subject", func(s int) string { return pick(subjects, s, 1) }),
			opt("content", 6, 2, func(s int) string { return "Placeholder description of ticket " + strconv.Itoa(s) + "." }),
			str("hs_pipeline", func(int) string { return "0" }),
			str("hs_pipeline_stage", func(s int) string { return strconv.Itoa(1 + mix(s, 3)%4) }),
			opt("hs_ticket_category", 5, 4, func(s int) string { return pick(ticketCats, s, 5) }),
			opt("hs_ticket_priority", 6, 6, func(s int) string { return pick(priorities, s, 7) }),
			str("source_type", func(s int) string { return pick(sources, s, 8) }),
			owner(13),
			idProp, created("createdate"), modified("hs_lastmodifieddate"),
		},
	}
	engagement := func(name, singular, typeID string, base int64, ord int, query []string, props ...propDef) *objectType {
		props = append(props, owner(20+ord), at("hs_timestamp", 20, 40+ord), idProp, created("hs_createdate"), modified("hs_lastmodifieddate"))
		return &objectType{
			name: name, singular: singular, typeID: typeID, idBase: base, ord: ord,
			createProp: "hs_createdate", modifyProp: "hs_lastmodifieddate",
			defaults:   []string{"hs_createdate", "hs_lastmodifieddate", "hs_object_id"},
			queryProps: query, props: props,
		}
	}
	notes := engagement("notes", "note", "0-46", 50_100_000_000, 4, []string{"hs_note_body"},
		str("hs_note_body", func(s int) string { return fmt.Sprintf("<p>Placeholder note %d: follow up next week.</p>", s) }),
		propDef{"hs_attachment_ids", func(_ *dataset, r ref) *string { // one note in four has files
			if mix(r.seed(), 1)%4 != 0 {
				return nil
			}
			return sp(strconv.Itoa(90_000 + r.seed()))
		}},
	)
	calls := engagement("calls", "call", "0-48", 51_100_000_000, 5, []string{"hs_call_title", "hs_call_body"},
		opt("hs_call_title", 8, 1, func(s int) string { return "Placeholder call " + strconv.Itoa(s) }),
		str("hs_call_body", func(s int) string { return "Synthetic call notes " + strconv.Itoa(s) + "." }),
		str("hs_call_direction", func(s int) string { return pick(directions, s, 2) }),
		str("hs_call_disposition", func(s int) string { return pick(callDispos, s, 3) }),
		str("hs_call_duration", func(s int) string { return strconv.Itoa(mix(s, 4) % 3_600_000) }),
		str("hs_call_from_number", func(s int) string { return fmt.Sprintf("+1-555-04%02d", s%100) }),
		str("hs_call_to_number", func(s int) string { return fmt.Sprintf("+1-555-05%02d", s%100) }),
		opt("hs_call_recording_url", 2, 5, func(s int) string { return fmt.Sprintf("https://recordings.example.com/calls/%d.mp3", s) }),
		str("hs_call_status", func(s int) string { return pick(callStatus, s, 6) }),
	)
	emails := engagement("emails", "email", "0-49", 52_100_000_000, 6, []string{"hs_email_subject", "hs_email_text"},
		str("hs_email_subject", func(s int) string { return "Placeholder proposal " + strconv.Itoa(s) }),
		str("hs_email_text", func(s int) string { return "Hello, this is synthetic email " + strconv.Itoa(s) + "." }),
		str("hs_email_html", func(s int) string { return "<p>Hello, this is synthetic email " + strconv.Itoa(s) + ".</p>" }),
		str("hs_email_direction", func(s int) string { return pick(emailDirs, s, 1) }),
		str("hs_email_status", func(s int) string { return pick(emailStat, s, 2) }),
		str("hs_email_headers", func(s int) string {
			return fmt.Sprintf(`{"from":{"email":"owner%d@example.com"},"to":[{"email":"%s"}],"cc":[],"bcc":[]}`, 1+s%DefaultOwners, contactEmail(s))
		}),
	)
	meetings := engagement("meetings", "meeting", "0-47", 53_100_000_000, 7, []string{"hs_meeting_title", "hs_meeting_body"},
		str("hs_meeting_title", func(s int) string { return "Placeholder demo " + strconv.Itoa(s) }),
		opt("hs_meeting_body", 3, 1, func(s int) string { return "Agenda for synthetic meeting " + strconv.Itoa(s) + "." }),
		opt("hs_internal_meeting_notes", 2, 2, func(s int) string { return "Internal notes " + strconv.Itoa(s) + "." }),
		opt("hs_meeting_location", 3, 3, func(s int) string { return pick(cities, s, 4) + " office" }),
		str("hs_meeting_external_url", func(s int) string { return fmt.Sprintf("https://calendar.example.com/event/%d", s) }),
		str("hs_meeting_outcome", func(s int) string { return pick(outcomes, s, 5) }),
		at("hs_meeting_start_time", 14, 6),
		propDef{"hs_meeting_end_time", func(d *dataset, r ref) *string {
			start := d.created(r).Add(time.Duration(mix(r.seed(), 6)%(14*24)) * time.Hour)
			return sp(start.Add(30 * time.Minute).Format(time.RFC3339))
		}},
	)
	tasks := engagement("tasks", "task", "0-27", 54_100_000_000, 8, []string{"hs_task_subject", "hs_task_body"},
		str("hs_task_subject", func(s int) string { return "Send placeholder contract " + strconv.Itoa(s) }),
		opt("hs_task_body", 2, 1, func(s int) string { return "Synthetic task notes " + strconv.Itoa(s) + "." }),
		str("hs_task_status", func(s int) string { return pick(taskStatus, s, 2) }),
		str("hs_task_priority", func(s int) string { return pick(taskPrio, s, 3) }),
		str("hs_task_type", func(s int) string { return pick(taskTypes, s, 4) }),
	)
	cars := &objectType{
		name: CustomObjectFullyQualifiedName, short: CustomObjectName, singular: CustomObjectName,
		typeID: CustomObjectTypeID, idBase: 60_100_000_000, ord: 9,
		createProp: "hs_createdate", modifyProp: "hs_lastmodifieddate",
		defaults:   []string{"hs_createdate", "hs_lastmodifieddate", "hs_object_id"},
		queryProps: []string{"model", "make", "vin"},
		uniqueProp: "vin",
		props: []propDef{
			str("make", func(s int) string { return pick(carMakes, s, 1) }),
			str("model", func(s int) string { return pick(carModels, s, 2) }),
			str("vin", carVIN),
			str("year", func(s int) string { return strconv.Itoa(2005 + mix(s, 3)%20) }),
			str("condition", func(s int) string { return pick(conditions, s, 4) }),
			owner(14),
			idProp, created("hs_createdate"), modified("hs_lastmodifieddate"),
		},
	}
	d.types = []*objectType{contacts, companies, deals, tickets, notes, calls, emails, meetings, tasks, cars}
	for _, t := range d.types {
		t.index = make(map[string]propFn, len(t.props))
		t.raw = make(map[string]propFn, len(t.props))
		for _, p := range t.props {
			t.index[p.name] = overridable(p.name, p.fn)
			t.raw[p.name] = p.fn
		}
		d.byName[t.name] = t
		d.byName[t.typeID] = t
		if t.short != "" {
			d.byName[t.short] = t
		}
	}
	return d
}

// link says that record i of from is associated with record i mod n(to) of
// to; the reverse direction follows from it.
type link struct{ from, to string }

func defaultLinks() []link {
	return []link{
		{"contacts", "companies"},
		{"deals", "contacts"}, {"deals", "companies"},
		{"tickets", "contacts"}, {"tickets", "companies"},
		{"notes", "contacts"}, {"notes", "deals"},
		{"calls", "contacts"}, {"emails", "contacts"}, {"meetings", "contacts"},
		{"tasks", "contacts"}, {"tasks", "deals"},
		{CustomObjectFullyQualifiedName, "contacts"},
	}
}

// maxAssociations caps the associated ids listed per record and type.
const maxAssociations = 100

type associatedID struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

type associationList struct {
	Results []associatedID `json:"results"`
}

// associations lists the records of type to associated with r.
func (d *dataset) associations(r ref, to *objectType) []associatedID {
	if r.archived || d.deleted(r) {
		return nil
	}
	label := r.t.singular + "_to_" + to.singular
	nFrom, nTo := d.count(r.t), d.count(to)
	var out []associatedID
	for _, l := range d.links {
		switch {
		case l.from == r.t.name && l.to == to.name && nTo > 0:
			id := ref{t: to, i: r.i % nTo}.id()
			out = append(out, associatedID{id, label})
			if to.name == "companies" { // the primary company is listed twice, labelled and unlabelled
				out = append(out, associatedID{id, label + "_unlabeled"})
			}
		case l.from == to.name && l.to == r.t.name && nFrom > 0:
			for k := r.i; k < nTo && len(out) < maxAssociations; k += nFrom {
				out = append(out, associatedID{ref{t: to, i: k}.id(), label})
			}
		}
	}
	return out
}

// Owners.

type team struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Primary bool   `json:"primary"`
}

type ownerJSON struct {
	ID                      string  `json:"id"`
	Email                   *string `json:"email,omitempty"`
	Type                    string  `json:"type"`
	FirstName               *string `json:"firstName,omitempty"`
	LastName                *string `json:"lastName,omitempty"`
	UserID                  *int64  `json:"userId,omitempty"`
	UserIDIncludingInactive *int64  `json:"userIdIncludingInactive,omitempty"`
	CreatedAt               string  `json:"createdAt"`
	UpdatedAt               string  `json:"updatedAt"`
	Archived                bool    `json:"archived"`
	Teams                   []team  `json:"teams"`
}

// owner returns owner i; archived owners follow the live ones in numbering.
func (d *dataset) owner(i int, archived bool) ownerJSON {
	n := i
	if archived {
		n = d.owners + i
	}
	created := epoch.Add(-time.Duration(400-n%400) * 24 * time.Hour).Add(time.Duration(mix(n, 1)%86_400_000) * time.Millisecond)
	o := ownerJSON{
		ID:        ownerID(n),
		Type:      "PERSON",
		CreatedAt: stamp(created),
		UpdatedAt: stamp(created.Add(time.Duration(mix(n, 2)%(500*24)) * time.Hour)),
		Archived:  archived,
		Teams:     []team{},
	}
	if !archived && n%10 == 9 {
		o.Type = "QUEUE"
		o.FirstName = sp("Queue")
		o.LastName = sp(strconv.Itoa(n + 1))
		return o
	}
	uid := int64(userIDBase + n + 1)
	o.Email = sp(fmt.Sprintf("owner%d@example.com", n+1))
	o.FirstName = sp("Owner")
	o.LastName = sp(lastNames[n%len(lastNames)] + strconv.Itoa(n+1))
	o.UserIDIncludingInactive = &uid
	if !archived {
		o.UserID = &uid
	}
	switch n % 3 {
	case 0:
		o.Teams = []team{{ID: "410001", Name: "Placeholder Sales", Primary: true}}
	case 1:
		o.Teams = []team{{ID: "410002", Name: "Sample Support", Primary: true}, {ID: "410001", Name: "Placeholder Sales", Primary: false}}
	}
	return o
}

// ownerCursor encodes an owner index as HubSpot-style opaque cursor.
func ownerCursor(i int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(i)))
}

func parseOwnerCursor(s string) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return 0, false
	}
	i, err := strconv.Atoi(string(b))
	return i, err == nil && i >= 0
}

// Pipelines.

type stageJSON struct {
	ID               string            `json:"id"`
	Label            string            `json:"label"`
	DisplayOrder     int               `json:"displayOrder"`
	Metadata         map[string]string `json:"metadata"`
	CreatedAt        string            `json:"createdAt"`
	UpdatedAt        string            `json:"updatedAt"`
	Archived         bool              `json:"archived"`
	WritePermissions string            `json:"writePermissions"`
}

type pipelineJSON struct {
	ID           string      `json:"id"`
	Label        string      `json:"label"`
	DisplayOrder int         `json:"displayOrder"`
	Stages       []stageJSON `json:"stages"`
	CreatedAt    string      `json:"createdAt"`
	UpdatedAt    string      `json:"updatedAt"`
	Archived     bool        `json:"archived"`
}

func pipelines(objectType string) []pipelineJSON {
	created := stamp(epoch.Add(-200 * 24 * time.Hour))
	stages := func(ids, labels []string, meta func(k int) map[string]string) []stageJSON {
		out := make([]stageJSON, len(ids))
		for k := range ids {
			out[k] = stageJSON{ID: ids[k], Label: labels[k], DisplayOrder: k, Metadata: meta(k),
				CreatedAt: created, UpdatedAt: created, WritePermissions: "CRM_PERMISSIONS_ENFORCEMENT"}
		}
		return out
	}
	switch objectType {
	case "deals":
		prob := []string{"0.2", "0.4", "0.6", "0.8", "0.9", "1.0", "0.0"}
		renewProb := []string{"0.5", "1.0", "0.0"}
		return []pipelineJSON{
			{ID: "default", Label: "Sales Pipeline", DisplayOrder: 0, CreatedAt: created, UpdatedAt: created,
				Stages: stages(defaultDealStages,
					[]string{"Appointment Scheduled", "Qualified To Buy", "Presentation Scheduled", "Decision Maker Bought-In", "Contract Sent", "Closed Won", "Closed Lost"},
					func(k int) map[string]string {
						return map[string]string{"isClosed": strconv.FormatBool(k >= 5), "probability": prob[k]}
					})},
			{ID: "31000001", Label: "Renewals", DisplayOrder: 1, CreatedAt: created, UpdatedAt: created,
				Stages: stages(renewalStages, []string{"Renewal due", "Renewed", "Churned"},
					func(k int) map[string]string {
						return map[string]string{"isClosed": strconv.FormatBool(k >= 1), "probability": renewProb[k]}
					})},
		}
	case "tickets":
		return []pipelineJSON{
			{ID: "0", Label: "Support Pipeline", DisplayOrder: 0, CreatedAt: created, UpdatedAt: created,
				Stages: stages([]string{"1", "2", "3", "4"}, []string{"New", "Waiting on contact", "Waiting on us", "Closed"},
					func(k int) map[string]string {
						if k == 3 {
							return map[string]string{"ticketState": "CLOSED"}
						}
						return map[string]string{"ticketState": "OPEN"}
					})},
		}
	}
	return []pipelineJSON{}
}

// Schemas: the one custom object type.

func carSchema() map[string]any {
	created := stamp(epoch.Add(100 * 24 * time.Hour))
	prop := func(name, label, typ, field string, unique bool, options []map[string]any) map[string]any {
		if options == nil {
			options = []map[string]any{}
		}
		return map[string]any{
			"name": name, "label": label, "type": typ, "fieldType": field, "groupName": "car_information",
			"description": "", "options": options, "displayOrder": -1, "calculated": false,
			"externalOptions": false, "hasUniqueValue": unique, "hidden": false, "hubspotDefined": false,
			"formField": false, "createdAt": created, "updatedAt": created, "archived": false,
			"modificationMetadata": map[string]any{"archivable": true, "readOnlyDefinition": false, "readOnlyValue": false},
		}
	}
	return map[string]any{
		"id":                         strings.TrimPrefix(CustomObjectTypeID, "2-"),
		"name":                       CustomObjectName,
		"labels":                     map[string]string{"singular": "Car", "plural": "Cars"},
		"objectTypeId":               CustomObjectTypeID,
		"fullyQualifiedName":         CustomObjectFullyQualifiedName,
		"description":                "Synthetic fleet vehicles",
		"primaryDisplayProperty":     "model",
		"secondaryDisplayProperties": []string{"make"},
		"requiredProperties":         []string{"model", "vin"},
		"searchableProperties":       []string{"model", "make", "vin"},
		"properties": []map[string]any{
			prop("make", "Make", "string", "text", false, nil),
			prop("model", "Model", "string", "text", false, nil),
			prop("vin", "VIN", "string", "text", true, nil),
			prop("year", "Year", "number", "number", false, nil),
			prop("condition", "Condition", "enumeration", "select", false, []map[string]any{
				{"label": "New", "value": "new", "displayOrder": 0, "hidden": false},
				{"label": "Used", "value": "used", "displayOrder": 1, "hidden": false},
			}),
		},
		"associations": []map[string]any{{
			"id": "75", "name": CustomObjectName + "_to_contact", "fromObjectTypeId": CustomObjectTypeID,
			"toObjectTypeId": "0-1", "createdAt": created, "updatedAt": created,
		}},
		"metaType":                  "PORTAL_SPECIFIC",
		"allowsSensitiveProperties": false,
		"archived":                  false,
		"restorable":                true,
		"createdByUserId":           userIDBase + 1,
		"updatedByUserId":           userIDBase + 1,
		"createdAt":                 created,
		"updatedAt":                 created,
	}
}
