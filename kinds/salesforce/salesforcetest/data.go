package salesforcetest

import (
	"strconv"
	"time"
)

// Synthetic, deterministic data. Record i of every object is a pure function
// of i (and of the configured record counts, for references between
// objects); nothing is stored per record. All names, addresses and numbers
// are placeholders: e-mail addresses use example.com, phone numbers use the
// fictional 555-01xx range.

// mix is splitmix64, used to spread indexes over the value lists.
func mix(i int, salt uint64) uint64 {
	z := uint64(i)*0x9e3779b97f4a7c15 + salt*0xbf58476d1ce4e5b9 + 0x94d049bb133111eb
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func pick(list []string, i int, salt uint64) string {
	return list[mix(i, salt)%uint64(len(list))]
}

func pickN(n, i int, salt uint64) int { return int(mix(i, salt) % uint64(n)) }

var (
	companyWords = []string{"Acme", "Bluepeak", "Northwind", "Silverline", "Redwood", "Brightwater",
		"Ironbridge", "Greenfield", "Stonegate", "Clearview", "Oakridge", "Sunrise"}
	companyNouns = []string{"Analytics", "Logistics", "Foods", "Robotics", "Energy", "Health",
		"Media", "Outfitters", "Systems", "Partners", "Labs", "Supply"}
	firstNames = []string{"Alex", "Blair", "Casey", "Devon", "Emery", "Finley", "Gray", "Harper",
		"Indy", "Jordan", "Kai", "Logan", "Morgan", "Noel", "Parker", "Quinn", "Riley", "Sage", "Taylor", "Avery"}
	lastNames = []string{"Adams", "Baker", "Carter", "Diaz", "Evans", "Fischer", "Garcia", "Hughes",
		"Ito", "Jensen", "Kim", "Lopez", "Meyer", "Nakamura", "Okafor", "Patel", "Rossi", "Silva", "Tanaka", "Walsh"}
	salutations = []string{"Mr.", "Ms.", "Mrs.", "Dr.", "Prof."}
	titles      = []string{"CEO", "CFO", "VP Sales", "VP Marketing", "Director of Operations",
		"Procurement Manager", "IT Manager", "Account Executive", "Buyer", "Office Manager"}
	departments = []string{"Executive", "Finance", "Sales", "Marketing", "Operations", "Procurement", "IT", "Support"}
	streets     = []string{"Market Street", "Main Street", "Elm Avenue", "Harbor Road", "Park Lane", "Mill Road", "Station Square"}
	industries  = []string{"Agriculture", "Apparel", "Banking", "Biotechnology", "Chemicals", "Communications",
		"Construction", "Consulting", "Education", "Electronics", "Energy", "Engineering", "Entertainment",
		"Environmental", "Finance", "Food & Beverage", "Government", "Healthcare", "Hospitality", "Insurance",
		"Machinery", "Manufacturing", "Media", "Not For Profit", "Recreation", "Retail", "Shipping",
		"Technology", "Telecommunications", "Transportation", "Utilities", "Other"}
	accountTypes = []string{"Prospect", "Customer - Direct", "Customer - Channel", "Channel Partner / Reseller",
		"Installation Partner", "Technology Partner", "Other"}
	leadSources   = []string{"Web", "Phone Inquiry", "Partner Referral", "Purchased List", "Other"}
	ratings       = []string{"Hot", "Warm", "Cold"}
	ownerships    = []string{"Public", "Private", "Subsidiary", "Other"}
	leadStatuses  = []string{"Open - Not Contacted", "Working - Contacted", "Closed - Converted", "Closed - Not Converted"}
	oppTypes      = []string{"Existing Customer - Upgrade", "Existing Customer - Replacement", "Existing Customer - Downgrade", "New Customer"}
	nextSteps     = []string{"Send proposal", "Schedule demo", "Confirm budget", "Legal review", "Follow-up call"}
	taskStatuses  = []string{"Not Started", "In Progress", "Completed", "Waiting on someone else", "Deferred"}
	priorities    = []string{"High", "Normal", "Low"}
	taskSubtypes  = []string{"Task", "Email", "Call"}
	activityTypes = []string{"Call", "Email", "Meeting", "Other"}
	callTypes     = []string{"Internal", "Inbound", "Outbound"}
	dispositions  = []string{"Left voicemail", "Connected", "No answer", "Meeting booked"}
	taskSubjects  = []string{"Call", "Send Letter", "Send Quote", "Email", "Other", "Follow up"}
	eventSubjects = []string{"Meeting", "Demo", "Kick-off", "Quarterly review", "Lunch", "Site visit"}
	locations     = []string{"Conference Room A", "Customer office", "Video call", "Head office", "Cafe"}
	showAs        = []string{"Busy", "Free", "OutOfOffice"}
	campaignTypes = []string{"Conference", "Webinar", "Trade Show", "Public Relations", "Partners",
		"Referral Program", "Advertisement", "Banner Ads", "Direct Mail", "Email", "Telemarketing", "Other"}
	campaignStatuses = []string{"Planned", "In Progress", "Completed", "Aborted"}
	caseStatuses     = []string{"New", "Working", "Escalated", "Closed"}
	caseOrigins      = []string{"Phone", "Email", "Web"}
	caseReasons      = []string{"Installation", "Equipment Complexity", "Performance", "Breakdown",
		"Equipment Design", "Feedback", "Other"}
	caseTypes    = []string{"Mechanical", "Electrical", "Electronic", "Structural", "Other"}
	casePrios    = []string{"High", "Medium", "Low"}
	caseSubjects = []string{"Unit does not start", "Invoice question", "Replacement part request",
		"Login problem", "Shipment delayed", "Performance degraded"}
	noteTitles = []string{"Call notes", "Meeting summary", "Pricing discussion", "Renewal plan", "Contact preferences"}
)

// stage is a standard opportunity stage with its default probability and
// forecast category.
type stage struct {
	name        string
	probability float64
	category    string // ForecastCategory
	catName     string // ForecastCategoryName
	closed, won bool
}

var stages = []stage{
	{"Prospecting", 10, "Pipeline", "Pipeline", false, false},
	{"Qualification", 10, "Pipeline", "Pipeline", false, false},
	{"Needs Analysis", 20, "Pipeline", "Pipeline", false, false},
	{"Value Proposition", 50, "Pipeline", "Pipeline", false, false},
	{"Id. Decision Makers", 60, "Pipeline", "Pipeline", false, false},
	{"Perception Analysis", 70, "Pipeline", "Pipeline", false, false},
	{"Proposal/Price Quote", 75, "BestCase", "Best Case", false, false},
	{"Negotiation/Review", 90, "Commit", "Commit", false, false},
	{"Closed Won", 100, "Closed", "Closed", true, true},
	{"Closed Lost", 0, "Omitted", "Omitted", true, false},
}

// place is a placeholder postal location.
type place struct{ city, state, postal, country string }

var places = []place{
	{"San Francisco", "CA", "94105", "United States"},
	{"Austin", "TX", "78701", "United States"},
	{"Chicago", "IL", "60601", "United States"},
	{"New York", "NY", "10001", "United States"},
	{"Seattle", "WA", "98101", "United States"},
	{"Denver", "CO", "80202", "United States"},
	{"Toronto", "ON", "M5H 2N2", "Canada"},
	{"London", "", "EC1A 1BB", "United Kingdom"},
	{"Berlin", "", "10115", "Germany"},
	{"Sydney", "NSW", "2000", "Australia"},
}

// fileKind is a file type of ContentVersion and Attachment records.
type fileKind struct{ fileType, ext, mime string }

var fileKinds = []fileKind{
	{"PDF", "pdf", "application/pdf"},
	{"TEXT", "txt", "text/plain"},
	{"CSV", "csv", "text/csv"},
	{"PNG", "png", "image/png"},
	{"WORD_X", "docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
	{"EXCEL_X", "xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
}

// address is a compound address field (BillingAddress, MailingAddress, ...).
type address struct{ street, city, state, postal, country string }

func placeAddress(i int, salt uint64) *address {
	p := places[pickN(len(places), i, salt)]
	street := strconv.Itoa(1+pickN(9000, i, salt+1)) + " " + pick(streets, i, salt+2)
	return &address{street: street, city: p.city, state: p.state, postal: p.postal, country: p.country}
}

// epoch is the creation time of record 0 of every object; records are
// created 97 seconds apart, so a million records span about three years.
var epoch = time.Date(2023, time.January, 2, 9, 0, 0, 0, time.UTC)

const recordSpacing = 97 * time.Second

// phone returns a fictional number in the 555-01xx range.
func phone(i int, salt uint64) string {
	n := mix(i, salt)
	return "(555) 01" + strconv.Itoa(int(n%10)) + "-" + pad4(int((n/10)%10000))
}

func pad4(n int) string {
	s := strconv.Itoa(n)
	for len(s) < 4 {
		s = "0" + s
	}
	return s
}

func date(t time.Time) string { return t.Format("2006-01-02") }

// userCount is the number of synthetic users that own records (ids 005...).
const userCount = 8
