package salesforcetest

import (
	"crypto/md5"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// kind is the SOAP type family of a field, which decides how the fake
// renders it and how SOQL compares it.
type kind uint8

const (
	kID       kind = iota // reference or record id (string)
	kString               // string, picklist, textarea, url, email, phone
	kInt                  // int
	kDouble               // double, currency, percent
	kBool                 // boolean
	kDate                 // date, "2006-01-02"
	kDateTime             // datetime, rendered "2006-01-02T15:04:05.000+0000"
	kAddress              // compound address
)

// Search scopes of a field (SOSL IN ... FIELDS).
const (
	inAll   = 1 << iota // IN ALL FIELDS
	inName              // IN NAME FIELDS
	inEmail             // IN EMAIL FIELDS
	inPhone             // IN PHONE FIELDS
)

// gctx is what a field generator may depend on besides the record index.
type gctx struct {
	d       *dataset
	s       *schema
	version string   // API version of the request, e.g. "67.0", for URLs
	ov      *overlay // the records created, changed and deleted; nil: none
}

type field struct {
	name   string
	kind   kind
	search uint8
	gen    func(c *gctx, i int) any
}

// object is one sObject type the fake serves.
type object struct {
	idx     int
	name    string // API name, e.g. "Account"
	prefix  string // key prefix, e.g. "001"
	fields  []field
	byName  map[string]int // lower-case field name -> index in fields
	nameFld string         // the field lists show as the record's name
	blob    string         // blob field name ("VersionData", "Body"), if any
}

func (o *object) field(name string) (int, bool) {
	k, ok := o.byName[strings.ToLower(name)]
	return k, ok
}

// Object indexes.
const (
	objAccount = iota
	objContact
	objLead
	objOpportunity
	objTask
	objEvent
	objCampaign
	objCase
	objNote
	objContentVersion
	objAttachment
	objUser // record owners; not a catalogue entity, served for Owner.* paths and get
	numObjects
)

// dataset is the configured volume of every object plus file settings.
type dataset struct {
	counts   [numObjects]int
	fileSize int // when positive, the size of every file
}

func (c *gctx) count(obj int) int { return c.d.counts[obj] }

// schema is the table of served objects; built once per server (it holds no
// mutable state).
type schema struct {
	objects  [numObjects]*object
	byName   map[string]*object // lower-case API name
	byPrefix map[string]*object // key prefix
}

func newSchema() *schema {
	s := &schema{byName: map[string]*object{}, byPrefix: map[string]*object{}}
	defs := [numObjects]*object{
		objAccount:        {name: "Account", prefix: "001", nameFld: "Name", fields: accountFields()},
		objContact:        {name: "Contact", prefix: "003", nameFld: "Name", fields: contactFields()},
		objLead:           {name: "Lead", prefix: "00Q", nameFld: "Name", fields: leadFields()},
		objOpportunity:    {name: "Opportunity", prefix: "006", nameFld: "Name", fields: opportunityFields()},
		objTask:           {name: "Task", prefix: "00T", nameFld: "Subject", fields: taskFields()},
		objEvent:          {name: "Event", prefix: "00U", nameFld: "Subject", fields: eventFields()},
		objCampaign:       {name: "Campaign", prefix: "701", nameFld: "Name", fields: campaignFields()},
		objCase:           {name: "Case", prefix: "500", nameFld: "CaseNumber", fields: caseFields()},
		objNote:           {name: "Note", prefix: "002", nameFld: "Title", fields: noteFields()},
		objContentVersion: {name: "ContentVersion", prefix: "068", nameFld: "Title", blob: "VersionData", fields: contentVersionFields()},
		objAttachment:     {name: "Attachment", prefix: "00P", nameFld: "Name", blob: "Body", fields: attachmentFields()},
		objUser:           {name: "User", prefix: "005", nameFld: "Name", fields: userFields()},
	}
	for i, o := range defs {
		o.idx = i
		o.byName = make(map[string]int, len(o.fields))
		for k, f := range o.fields {
			o.byName[strings.ToLower(f.name)] = k
		}
		s.objects[i] = o
		s.byName[strings.ToLower(o.name)] = o
		s.byPrefix[o.prefix] = o
	}
	return s
}

// ---- shared generators ----

func createdAt(obj, i int) time.Time {
	return epoch.Add(time.Duration(obj)*13*time.Minute + time.Duration(i)*recordSpacing)
}

// modifiedAt and stampAt increase with i, like CreatedDate, so that ORDER BY
// on any of the three is the index order.
func modifiedAt(obj, i int) time.Time {
	return createdAt(obj, i).Add(2*time.Hour + time.Duration(i%50)*time.Second)
}

func stampAt(obj, i int) time.Time {
	return modifiedAt(obj, i).Add(time.Duration(1+i%3) * time.Second)
}

func userID(i int, salt uint64) string { return makeID("005", pickN(userCount, i, salt)) }

// refIndex picks the index of a record of obj that record i refers to, or
// -1 when there are none.
func refIndex(c *gctx, obj, i int, salt uint64) int {
	n := c.count(obj)
	if n == 0 {
		return -1
	}
	return pickN(n, i, salt)
}

func refID(c *gctx, obj, prefix string, i int, salt uint64) any {
	k := refIndex(c, objIndexOf(obj), i, salt)
	if k < 0 {
		return nil
	}
	return makeID(prefix, k)
}

// objIndexOf maps the object names used by refID to indexes.
func objIndexOf(name string) int {
	switch name {
	case "Account":
		return objAccount
	case "Contact":
		return objContact
	case "Lead":
		return objLead
	case "Opportunity":
		return objOpportunity
	case "Campaign":
		return objCampaign
	case "Case":
		return objCase
	}
	return objAccount
}

func id(prefix string) func(*gctx, int) any {
	return func(_ *gctx, i int) any { return makeID(prefix, i) }
}

func constant(v any) func(*gctx, int) any { return func(*gctx, int) any { return v } }

func null(*gctx, int) any { return nil }

// system appends the audit fields every object has.
func system(obj int, fs ...field) []field {
	return append(fs,
		field{"CreatedDate", kDateTime, 0, func(_ *gctx, i int) any { return createdAt(obj, i) }},
		field{"CreatedById", kID, 0, func(_ *gctx, i int) any { return userID(i, 901) }},
		field{"LastModifiedDate", kDateTime, 0, func(_ *gctx, i int) any { return modifiedAt(obj, i) }},
		field{"LastModifiedById", kID, 0, func(_ *gctx, i int) any { return userID(i, 902) }},
		field{"SystemModstamp", kDateTime, 0, func(_ *gctx, i int) any { return stampAt(obj, i) }},
	)
}

func lastActivity(obj int) func(*gctx, int) any {
	return func(_ *gctx, i int) any {
		if i%3 == 0 {
			return nil
		}
		return date(createdAt(obj, i).AddDate(0, 0, 1+pickN(60, i, 903)))
	}
}

func lastViewed(obj int) func(*gctx, int) any {
	return func(_ *gctx, i int) any {
		if i%4 != 0 {
			return nil
		}
		return modifiedAt(obj, i).Add(time.Hour)
	}
}

func companyName(i int, salt uint64) string {
	return pick(companyWords, i, salt) + " " + pick(companyNouns, i, salt+1) + " " + strconv.Itoa(i+1)
}

// slugReplacer is read-only after initialisation (a Replacer is safe for
// concurrent use).
var slugReplacer = strings.NewReplacer(" ", "-", "&", "and", "/", "-", ".", "")

func slug(s string) string { return strings.ToLower(slugReplacer.Replace(s)) }

// ---- Account ----

func accountName(i int) string { return companyName(i, 101) }

func billing(i int) *address { return placeAddress(i, 111) }

func shipping(i int) *address {
	if i%2 == 0 {
		return billing(i)
	}
	return placeAddress(i, 123)
}

func addressFields(prefix string, addr func(int) *address, compound string) []field {
	return []field{
		{prefix + "Street", kString, inAll, func(_ *gctx, i int) any { return addr(i).street }},
		{prefix + "City", kString, inAll, func(_ *gctx, i int) any { return addr(i).city }},
		{prefix + "State", kString, inAll, func(_ *gctx, i int) any { return nilIfEmpty(addr(i).state) }},
		{prefix + "PostalCode", kString, inAll, func(_ *gctx, i int) any { return addr(i).postal }},
		{prefix + "Country", kString, inAll, func(_ *gctx, i int) any { return addr(i).country }},
		{prefix + "Latitude", kDouble, 0, null},
		{prefix + "Longitude", kDouble, 0, null},
		{prefix + "GeocodeAccuracy", kString, 0, null},
		{compound, kAddress, 0, func(_ *gctx, i int) any { return addr(i) }},
	}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func accountFields() []field {
	fs := []field{
		{"Id", kID, 0, id("001")},
		{"IsDeleted", kBool, 0, constant(false)},
		{"MasterRecordId", kID, 0, null},
		{"Name", kString, inAll | inName, func(_ *gctx, i int) any { return accountName(i) }},
		{"Type", kString, 0, func(_ *gctx, i int) any { return pick(accountTypes, i, 102) }},
		{"ParentId", kID, 0, func(_ *gctx, i int) any {
			if i%10 == 9 {
				return makeID("001", i-9)
			}
			return nil
		}},
	}
	fs = append(fs, addressFields("Billing", billing, "BillingAddress")...)
	fs = append(fs, addressFields("Shipping", shipping, "ShippingAddress")...)
	fs = append(fs,
		field{"Phone", kString, inAll | inPhone, func(_ *gctx, i int) any { return phone(i, 104) }},
		field{"Fax", kString, inAll | inPhone, func(_ *gctx, i int) any {
			if i%4 != 0 {
				return nil
			}
			return phone(i, 105)
		}},
		field{"AccountNumber", kString, inAll, func(_ *gctx, i int) any {
			return "CD" + strconv.Itoa(100000+pickN(900000, i, 106))
		}},
		field{"Website", kString, inAll, func(_ *gctx, i int) any {
			return "www." + slug(pick(companyWords, i, 101)+pick(companyNouns, i, 102)) + ".example.com"
		}},
		field{"PhotoUrl", kString, 0, func(_ *gctx, i int) any { return "/services/images/photo/" + makeID("001", i) }},
		field{"Sic", kString, inAll, func(_ *gctx, i int) any { return strconv.Itoa(1000 + pickN(9000, i, 107)) }},
		field{"Industry", kString, 0, func(_ *gctx, i int) any { return pick(industries, i, 108) }},
		field{"AnnualRevenue", kDouble, 0, func(_ *gctx, i int) any {
			if i%5 == 0 {
				return nil
			}
			return float64(100000 * (1 + pickN(5000, i, 109)))
		}},
		field{"NumberOfEmployees", kInt, 0, func(_ *gctx, i int) any { return int64(5 + pickN(20000, i, 110)) }},
		field{"Ownership", kString, 0, func(_ *gctx, i int) any { return pick(ownerships, i, 112) }},
		field{"TickerSymbol", kString, inAll, func(_ *gctx, i int) any {
			if i%6 != 0 {
				return nil
			}
			return strings.ToUpper(pick(companyWords, i, 101)[:3]) + strconv.Itoa(i%10)
		}},
		field{"Description", kString, inAll, func(_ *gctx, i int) any {
			return "Placeholder account in " + pick(industries, i, 108) + " for testing."
		}},
		field{"Rating", kString, 0, func(_ *gctx, i int) any { return pick(ratings, i, 113) }},
		field{"Site", kString, inAll, null},
		field{"OwnerId", kID, 0, func(_ *gctx, i int) any { return userID(i, 114) }},
	)
	fs = system(objAccount, fs...)
	return append(fs,
		field{"LastActivityDate", kDate, 0, lastActivity(objAccount)},
		field{"LastViewedDate", kDateTime, 0, lastViewed(objAccount)},
		field{"LastReferencedDate", kDateTime, 0, lastViewed(objAccount)},
		field{"AccountSource", kString, 0, func(_ *gctx, i int) any { return pick(leadSources, i, 115) }},
	)
}

// ---- Contact ----

func personFirst(i int, salt uint64) string { return pick(firstNames, i, salt) }
func personLast(i int, salt uint64) string  { return pick(lastNames, i, salt+1) }

func personEmail(i int, salt uint64) string {
	return strings.ToLower(personFirst(i, salt)+"."+personLast(i, salt)) + "." + strconv.Itoa(i+1) + "@example.com"
}

func contactAccount(c *gctx, ci int) any { return refID(c, "Account", "001", ci, 201) }
func contactPhone(ci int) string         { return phone(ci, 202) }
func contactMobile(ci int) string        { return phone(ci, 203) }
func contactEmail(ci int) string         { return personEmail(ci, 204) }

func contactFields() []field {
	fs := []field{
		{"Id", kID, 0, id("003")},
		{"IsDeleted", kBool, 0, constant(false)},
		{"MasterRecordId", kID, 0, null},
		{"AccountId", kID, 0, func(c *gctx, i int) any { return contactAccount(c, i) }},
		{"LastName", kString, inAll | inName, func(_ *gctx, i int) any { return personLast(i, 204) }},
		{"FirstName", kString, inAll | inName, func(_ *gctx, i int) any { return personFirst(i, 204) }},
		{"Salutation", kString, 0, func(_ *gctx, i int) any { return pick(salutations, i, 206) }},
		{"Name", kString, inAll | inName, func(_ *gctx, i int) any { return personFirst(i, 204) + " " + personLast(i, 204) }},
	}
	fs = append(fs, addressFields("Mailing", func(i int) *address { return placeAddress(i, 207) }, "MailingAddress")...)
	fs = append(fs,
		field{"Phone", kString, inAll | inPhone, func(_ *gctx, i int) any { return contactPhone(i) }},
		field{"Fax", kString, inAll | inPhone, null},
		field{"MobilePhone", kString, inAll | inPhone, func(_ *gctx, i int) any { return contactMobile(i) }},
		field{"HomePhone", kString, inAll | inPhone, null},
		field{"OtherPhone", kString, inAll | inPhone, null},
		field{"AssistantPhone", kString, inAll | inPhone, null},
		field{"ReportsToId", kID, 0, func(_ *gctx, i int) any {
			if i%5 == 0 {
				return nil
			}
			return makeID("003", i-i%5)
		}},
		field{"Email", kString, inAll | inEmail, func(_ *gctx, i int) any { return contactEmail(i) }},
		field{"Title", kString, inAll, func(_ *gctx, i int) any { return pick(titles, i, 208) }},
		field{"Department", kString, inAll, func(_ *gctx, i int) any { return pick(departments, i, 209) }},
		field{"AssistantName", kString, inAll, null},
		field{"LeadSource", kString, 0, func(_ *gctx, i int) any { return pick(leadSources, i, 210) }},
		field{"Birthdate", kDate, 0, func(_ *gctx, i int) any {
			if i%3 != 0 {
				return nil
			}
			return date(time.Date(1960+pickN(40, i, 211), time.Month(1+pickN(12, i, 212)), 1+pickN(28, i, 213), 0, 0, 0, 0, time.UTC))
		}},
		field{"Description", kString, inAll, null},
		field{"OwnerId", kID, 0, func(_ *gctx, i int) any { return userID(i, 214) }},
		field{"HasOptedOutOfEmail", kBool, 0, func(_ *gctx, i int) any { return i%11 == 0 }},
		field{"DoNotCall", kBool, 0, func(_ *gctx, i int) any { return i%13 == 0 }},
	)
	fs = system(objContact, fs...)
	return append(fs,
		field{"LastActivityDate", kDate, 0, lastActivity(objContact)},
		field{"LastViewedDate", kDateTime, 0, lastViewed(objContact)},
		field{"LastReferencedDate", kDateTime, 0, lastViewed(objContact)},
		field{"EmailBouncedReason", kString, 0, null},
		field{"EmailBouncedDate", kDateTime, 0, null},
		field{"IsEmailBounced", kBool, 0, constant(false)},
		field{"PhotoUrl", kString, 0, func(_ *gctx, i int) any { return "/services/images/photo/" + makeID("003", i) }},
	)
}

// ---- Lead ----

func leadConverted(i int) bool { return pick(leadStatuses, i, 301) == "Closed - Converted" }

func leadFields() []field {
	conv := func(obj, prefix string, salt uint64) func(*gctx, int) any {
		return func(c *gctx, i int) any {
			if !leadConverted(i) {
				return nil
			}
			return refID(c, obj, prefix, i, salt)
		}
	}
	addr := func(i int) *address { return placeAddress(i, 305) }
	fs := []field{
		{"Id", kID, 0, id("00Q")},
		{"IsDeleted", kBool, 0, constant(false)},
		{"MasterRecordId", kID, 0, null},
		{"LastName", kString, inAll | inName, func(_ *gctx, i int) any { return personLast(i, 302) }},
		{"FirstName", kString, inAll | inName, func(_ *gctx, i int) any { return personFirst(i, 302) }},
		{"Salutation", kString, 0, func(_ *gctx, i int) any { return pick(salutations, i, 303) }},
		{"Name", kString, inAll | inName, func(_ *gctx, i int) any { return personFirst(i, 302) + " " + personLast(i, 302) }},
		{"Title", kString, inAll, func(_ *gctx, i int) any { return pick(titles, i, 304) }},
		{"Company", kString, inAll | inName, func(_ *gctx, i int) any { return companyName(i, 306) }},
		{"Street", kString, inAll, func(_ *gctx, i int) any { return addr(i).street }},
		{"City", kString, inAll, func(_ *gctx, i int) any { return addr(i).city }},
		{"State", kString, inAll, func(_ *gctx, i int) any { return nilIfEmpty(addr(i).state) }},
		{"PostalCode", kString, inAll, func(_ *gctx, i int) any { return addr(i).postal }},
		{"Country", kString, inAll, func(_ *gctx, i int) any { return addr(i).country }},
		{"Latitude", kDouble, 0, null},
		{"Longitude", kDouble, 0, null},
		{"GeocodeAccuracy", kString, 0, null},
		{"Address", kAddress, 0, func(_ *gctx, i int) any { return addr(i) }},
		{"Phone", kString, inAll | inPhone, func(_ *gctx, i int) any { return phone(i, 307) }},
		{"MobilePhone", kString, inAll | inPhone, func(_ *gctx, i int) any { return phone(i, 308) }},
		{"Fax", kString, inAll | inPhone, null},
		{"Email", kString, inAll | inEmail, func(_ *gctx, i int) any { return personEmail(i, 302) }},
		{"Website", kString, inAll, func(_ *gctx, i int) any {
			return "www." + slug(pick(companyWords, i, 306)+pick(companyNouns, i, 307)) + ".example.com"
		}},
		{"PhotoUrl", kString, 0, null},
		{"Description", kString, inAll, null},
		{"LeadSource", kString, 0, func(_ *gctx, i int) any { return pick(leadSources, i, 309) }},
		{"Status", kString, 0, func(_ *gctx, i int) any { return pick(leadStatuses, i, 301) }},
		{"Industry", kString, 0, func(_ *gctx, i int) any { return pick(industries, i, 310) }},
		{"Rating", kString, 0, func(_ *gctx, i int) any { return pick(ratings, i, 311) }},
		{"AnnualRevenue", kDouble, 0, func(_ *gctx, i int) any {
			if i%3 == 0 {
				return nil
			}
			return float64(50000 * (1 + pickN(2000, i, 312)))
		}},
		{"NumberOfEmployees", kInt, 0, func(_ *gctx, i int) any { return int64(1 + pickN(5000, i, 313)) }},
		{"OwnerId", kID, 0, func(_ *gctx, i int) any { return userID(i, 314) }},
		{"HasOptedOutOfEmail", kBool, 0, func(_ *gctx, i int) any { return i%17 == 0 }},
		{"IsConverted", kBool, 0, func(_ *gctx, i int) any { return leadConverted(i) }},
		{"ConvertedDate", kDate, 0, func(_ *gctx, i int) any {
			if !leadConverted(i) {
				return nil
			}
			return date(modifiedAt(objLead, i))
		}},
		{"ConvertedAccountId", kID, 0, conv("Account", "001", 315)},
		{"ConvertedContactId", kID, 0, conv("Contact", "003", 316)},
		{"ConvertedOpportunityId", kID, 0, conv("Opportunity", "006", 317)},
		{"IsUnreadByOwner", kBool, 0, func(_ *gctx, i int) any { return i%7 == 0 }},
	}
	fs = system(objLead, fs...)
	return append(fs,
		field{"LastActivityDate", kDate, 0, lastActivity(objLead)},
		field{"DoNotCall", kBool, 0, func(_ *gctx, i int) any { return i%19 == 0 }},
		field{"LastViewedDate", kDateTime, 0, lastViewed(objLead)},
		field{"LastReferencedDate", kDateTime, 0, lastViewed(objLead)},
		field{"EmailBouncedReason", kString, 0, null},
		field{"EmailBouncedDate", kDateTime, 0, null},
		field{"IsEmailBounced", kBool, 0, constant(false)},
	)
}

// ---- Opportunity ----

func oppStage(i int) stage    { return stages[pickN(len(stages), i, 401)] }
func oppAmount(i int) float64 { return float64(1000 * (5 + pickN(500, i, 402))) }
func oppCloseDate(i int) time.Time {
	return createdAt(objOpportunity, i).AddDate(0, 0, 30+pickN(90, i, 403))
}

func opportunityFields() []field {
	fs := []field{
		{"Id", kID, 0, id("006")},
		{"IsDeleted", kBool, 0, constant(false)},
		{"AccountId", kID, 0, func(c *gctx, i int) any { return refID(c, "Account", "001", i, 404) }},
		{"IsPrivate", kBool, 0, constant(false)},
		{"Name", kString, inAll | inName, func(c *gctx, i int) any {
			a := refIndex(c, objAccount, i, 404)
			base := companyName(i, 405)
			if a >= 0 {
				base = accountName(a)
			}
			return base + " - " + strconv.Itoa(10*(1+pickN(50, i, 406))) + " Units"
		}},
		{"Description", kString, inAll, func(_ *gctx, i int) any {
			if i%2 == 0 {
				return nil
			}
			return "Placeholder opportunity " + strconv.Itoa(i+1) + "."
		}},
		{"StageName", kString, 0, func(_ *gctx, i int) any { return oppStage(i).name }},
		{"Amount", kDouble, 0, func(_ *gctx, i int) any { return oppAmount(i) }},
		{"Probability", kDouble, 0, func(_ *gctx, i int) any { return oppStage(i).probability }},
		{"ExpectedRevenue", kDouble, 0, func(_ *gctx, i int) any { return oppAmount(i) * oppStage(i).probability / 100 }},
		{"TotalOpportunityQuantity", kDouble, 0, null},
		{"CloseDate", kDate, 0, func(_ *gctx, i int) any { return date(oppCloseDate(i)) }},
		{"Type", kString, 0, func(_ *gctx, i int) any { return pick(oppTypes, i, 407) }},
		{"NextStep", kString, inAll, func(_ *gctx, i int) any {
			if oppStage(i).closed {
				return nil
			}
			return pick(nextSteps, i, 408)
		}},
		{"LeadSource", kString, 0, func(_ *gctx, i int) any { return pick(leadSources, i, 409) }},
		{"IsClosed", kBool, 0, func(_ *gctx, i int) any { return oppStage(i).closed }},
		{"IsWon", kBool, 0, func(_ *gctx, i int) any { return oppStage(i).won }},
		{"ForecastCategory", kString, 0, func(_ *gctx, i int) any { return oppStage(i).category }},
		{"ForecastCategoryName", kString, 0, func(_ *gctx, i int) any { return oppStage(i).catName }},
		{"CampaignId", kID, 0, func(c *gctx, i int) any {
			if i%3 != 0 {
				return nil
			}
			return refID(c, "Campaign", "701", i, 410)
		}},
		{"HasOpportunityLineItem", kBool, 0, constant(false)},
		{"Pricebook2Id", kID, 0, null},
		{"OwnerId", kID, 0, func(_ *gctx, i int) any { return userID(i, 411) }},
	}
	fs = system(objOpportunity, fs...)
	return append(fs,
		field{"LastActivityDate", kDate, 0, lastActivity(objOpportunity)},
		field{"LastStageChangeDate", kDateTime, 0, func(_ *gctx, i int) any { return modifiedAt(objOpportunity, i) }},
		field{"FiscalQuarter", kInt, 0, func(_ *gctx, i int) any { return int64((int(oppCloseDate(i).Month())-1)/3 + 1) }},
		field{"FiscalYear", kInt, 0, func(_ *gctx, i int) any { return int64(oppCloseDate(i).Year()) }},
		field{"Fiscal", kString, 0, func(_ *gctx, i int) any {
			t := oppCloseDate(i)
			return strconv.Itoa(t.Year()) + " " + strconv.Itoa((int(t.Month())-1)/3+1)
		}},
		field{"ContactId", kID, 0, func(c *gctx, i int) any {
			if i%2 != 0 {
				return nil
			}
			return refID(c, "Contact", "003", i, 412)
		}},
		field{"LastViewedDate", kDateTime, 0, lastViewed(objOpportunity)},
		field{"LastReferencedDate", kDateTime, 0, lastViewed(objOpportunity)},
		field{"HasOpenActivity", kBool, 0, func(_ *gctx, i int) any { return i%3 == 1 }},
		field{"HasOverdueTask", kBool, 0, func(_ *gctx, i int) any { return i%9 == 4 }},
	)
}

// ---- Task and Event (activities) ----

// activityWho returns the index of the contact an activity is about, or -1.
func activityWho(c *gctx, obj, i int) int { return refIndex(c, objContact, i, uint64(500+obj)) }

// activityWhat returns the id of the opportunity (odd records) or account
// (even records) an activity relates to.
func activityWhat(c *gctx, obj, i int) any {
	if i%2 == 1 {
		return refID(c, "Opportunity", "006", i, uint64(510+obj))
	}
	return refID(c, "Account", "001", i, uint64(520+obj))
}

func activityAccount(c *gctx, obj, i int) any {
	if w := activityWho(c, obj, i); w >= 0 {
		return contactAccount(c, w)
	}
	return nil
}

func countOf(v any) int64 {
	if v == nil {
		return 0
	}
	return 1
}

func taskStatus(i int) string   { return pick(taskStatuses, i, 601) }
func taskSubtype(i int) string  { return pick(taskSubtypes, i, 602) }
func taskPriority(i int) string { return pick(priorities, i, 603) }

func taskFields() []field {
	who := func(c *gctx, i int) any {
		if w := activityWho(c, objTask, i); w >= 0 {
			return makeID("003", w)
		}
		return nil
	}
	fs := []field{
		{"Id", kID, 0, id("00T")},
		{"WhoId", kID, 0, who},
		{"WhatId", kID, 0, func(c *gctx, i int) any { return activityWhat(c, objTask, i) }},
		{"WhoCount", kInt, 0, func(c *gctx, i int) any { return countOf(who(c, i)) }},
		{"WhatCount", kInt, 0, func(c *gctx, i int) any { return countOf(activityWhat(c, objTask, i)) }},
		{"Subject", kString, inAll | inName, func(_ *gctx, i int) any {
			if taskSubtype(i) == "Call" {
				return "Call"
			}
			if taskSubtype(i) == "Email" {
				return "Email: " + pick(nextSteps, i, 604)
			}
			return pick(taskSubjects, i, 605)
		}},
		{"ActivityDate", kDate, 0, func(_ *gctx, i int) any { return date(createdAt(objTask, i).AddDate(0, 0, pickN(14, i, 606))) }},
		{"Status", kString, 0, func(_ *gctx, i int) any { return taskStatus(i) }},
		{"Priority", kString, 0, func(_ *gctx, i int) any { return taskPriority(i) }},
		{"IsHighPriority", kBool, 0, func(_ *gctx, i int) any { return taskPriority(i) == "High" }},
		{"OwnerId", kID, 0, func(_ *gctx, i int) any { return userID(i, 607) }},
		{"Description", kString, inAll, func(_ *gctx, i int) any {
			if i%2 == 0 {
				return nil
			}
			return "Placeholder task notes " + strconv.Itoa(i+1) + "."
		}},
		{"IsDeleted", kBool, 0, constant(false)},
		{"AccountId", kID, 0, func(c *gctx, i int) any { return activityAccount(c, objTask, i) }},
		{"IsClosed", kBool, 0, func(_ *gctx, i int) any { return taskStatus(i) == "Completed" }},
	}
	fs = system(objTask, fs...)
	return append(fs,
		field{"IsArchived", kBool, 0, constant(false)},
		field{"CallDurationInSeconds", kInt, 0, func(_ *gctx, i int) any {
			if taskSubtype(i) != "Call" {
				return nil
			}
			return int64(30 + pickN(1800, i, 608))
		}},
		field{"CallType", kString, 0, func(_ *gctx, i int) any {
			if taskSubtype(i) != "Call" {
				return nil
			}
			return pick(callTypes, i, 609)
		}},
		field{"CallDisposition", kString, inAll, func(_ *gctx, i int) any {
			if taskSubtype(i) != "Call" {
				return nil
			}
			return pick(dispositions, i, 610)
		}},
		field{"CallObject", kString, 0, null},
		field{"ReminderDateTime", kDateTime, 0, func(_ *gctx, i int) any {
			if i%5 != 0 {
				return nil
			}
			return createdAt(objTask, i).Add(24 * time.Hour)
		}},
		field{"IsReminderSet", kBool, 0, func(_ *gctx, i int) any { return i%5 == 0 }},
		field{"RecurrenceActivityId", kID, 0, null},
		field{"IsRecurrence", kBool, 0, constant(false)},
		field{"TaskSubtype", kString, 0, func(_ *gctx, i int) any { return taskSubtype(i) }},
		field{"CompletedDateTime", kDateTime, 0, func(_ *gctx, i int) any {
			if taskStatus(i) != "Completed" {
				return nil
			}
			return modifiedAt(objTask, i)
		}},
		field{"Type", kString, 0, func(_ *gctx, i int) any {
			switch taskSubtype(i) {
			case "Call":
				return "Call"
			case "Email":
				return "Email"
			}
			return pick(activityTypes, i, 611)
		}},
	)
}

func eventStart(i int) time.Time {
	t := createdAt(objEvent, i).AddDate(0, 0, 1+pickN(30, i, 701)).Truncate(time.Hour)
	return t
}

func eventAllDay(i int) bool { return i%10 == 0 }

func eventDuration(i int) int {
	if eventAllDay(i) {
		return 1440
	}
	return 30 * (1 + pickN(4, i, 702))
}

func eventFields() []field {
	who := func(c *gctx, i int) any {
		if w := activityWho(c, objEvent, i); w >= 0 {
			return makeID("003", w)
		}
		return nil
	}
	start := func(i int) time.Time {
		if eventAllDay(i) {
			s := eventStart(i)
			return time.Date(s.Year(), s.Month(), s.Day(), 0, 0, 0, 0, time.UTC)
		}
		return eventStart(i)
	}
	end := func(i int) time.Time { return start(i).Add(time.Duration(eventDuration(i)) * time.Minute) }
	fs := []field{
		{"Id", kID, 0, id("00U")},
		{"WhoId", kID, 0, who},
		{"WhatId", kID, 0, func(c *gctx, i int) any { return activityWhat(c, objEvent, i) }},
		{"WhoCount", kInt, 0, func(c *gctx, i int) any { return countOf(who(c, i)) }},
		{"WhatCount", kInt, 0, func(c *gctx, i int) any { return countOf(activityWhat(c, objEvent, i)) }},
		{"Subject", kString, inAll | inName, func(_ *gctx, i int) any { return pick(eventSubjects, i, 703) }},
		{"Location", kString, inAll, func(_ *gctx, i int) any { return pick(locations, i, 704) }},
		{"IsAllDayEvent", kBool, 0, func(_ *gctx, i int) any { return eventAllDay(i) }},
		{"ActivityDateTime", kDateTime, 0, func(_ *gctx, i int) any {
			if eventAllDay(i) {
				return nil
			}
			return start(i)
		}},
		{"ActivityDate", kDate, 0, func(_ *gctx, i int) any { return date(start(i)) }},
		{"DurationInMinutes", kInt, 0, func(_ *gctx, i int) any { return int64(eventDuration(i)) }},
		{"StartDateTime", kDateTime, 0, func(_ *gctx, i int) any { return start(i) }},
		{"EndDateTime", kDateTime, 0, func(_ *gctx, i int) any { return end(i) }},
		{"EndDate", kDate, 0, func(_ *gctx, i int) any {
			if eventAllDay(i) {
				return date(start(i))
			}
			return date(end(i))
		}},
		{"Description", kString, inAll, func(_ *gctx, i int) any {
			if i%3 != 0 {
				return nil
			}
			return "Placeholder agenda " + strconv.Itoa(i+1) + "."
		}},
		{"AccountId", kID, 0, func(c *gctx, i int) any { return activityAccount(c, objEvent, i) }},
		{"OwnerId", kID, 0, func(_ *gctx, i int) any { return userID(i, 705) }},
		{"Type", kString, 0, func(_ *gctx, i int) any { return pick(activityTypes, i, 706) }},
		{"IsPrivate", kBool, 0, constant(false)},
		{"ShowAs", kString, 0, func(_ *gctx, i int) any { return pick(showAs, i, 707) }},
		{"IsDeleted", kBool, 0, constant(false)},
		{"IsChild", kBool, 0, constant(false)},
		{"IsGroupEvent", kBool, 0, constant(false)},
		{"GroupEventType", kString, 0, constant("0")},
	}
	fs = system(objEvent, fs...)
	return append(fs,
		field{"IsArchived", kBool, 0, constant(false)},
		field{"RecurrenceActivityId", kID, 0, null},
		field{"IsRecurrence", kBool, 0, constant(false)},
		field{"ReminderDateTime", kDateTime, 0, func(_ *gctx, i int) any {
			if i%4 != 0 {
				return nil
			}
			return start(i).Add(-15 * time.Minute)
		}},
		field{"IsReminderSet", kBool, 0, func(_ *gctx, i int) any { return i%4 == 0 }},
		field{"EventSubtype", kString, 0, constant("Event")},
	)
}

// ---- Campaign ----

func campaignStart(i int) time.Time {
	return createdAt(objCampaign, i).AddDate(0, 0, 7+pickN(60, i, 801))
}

func campaignFields() []field {
	leads := func(i int) int64 { return int64(pickN(500, i, 802)) }
	converted := func(i int) int64 { return leads(i) / 5 }
	opps := func(i int) int64 { return int64(pickN(40, i, 803)) }
	won := func(i int) int64 { return opps(i) / 3 }
	fs := []field{
		{"Id", kID, 0, id("701")},
		{"IsDeleted", kBool, 0, constant(false)},
		{"Name", kString, inAll | inName, func(_ *gctx, i int) any {
			return strconv.Itoa(campaignStart(i).Year()) + " " + pick(campaignTypes, i, 804) + " " + strconv.Itoa(i+1)
		}},
		{"ParentId", kID, 0, null},
		{"Type", kString, 0, func(_ *gctx, i int) any { return pick(campaignTypes, i, 804) }},
		{"Status", kString, 0, func(_ *gctx, i int) any { return pick(campaignStatuses, i, 805) }},
		{"StartDate", kDate, 0, func(_ *gctx, i int) any { return date(campaignStart(i)) }},
		{"EndDate", kDate, 0, func(_ *gctx, i int) any { return date(campaignStart(i).AddDate(0, 0, 14+pickN(60, i, 806))) }},
		{"ExpectedRevenue", kDouble, 0, func(_ *gctx, i int) any { return float64(10000 * (1 + pickN(100, i, 807))) }},
		{"BudgetedCost", kDouble, 0, func(_ *gctx, i int) any { return float64(1000 * (1 + pickN(50, i, 808))) }},
		{"ActualCost", kDouble, 0, func(_ *gctx, i int) any {
			if i%2 == 0 {
				return nil
			}
			return float64(1000 * (1 + pickN(50, i, 809)))
		}},
		{"ExpectedResponse", kDouble, 0, func(_ *gctx, i int) any { return float64(1 + pickN(20, i, 810)) }},
		{"NumberSent", kDouble, 0, func(_ *gctx, i int) any { return float64(100 * (1 + pickN(100, i, 811))) }},
		{"IsActive", kBool, 0, func(_ *gctx, i int) any { return pick(campaignStatuses, i, 805) == "In Progress" }},
		{"Description", kString, inAll, func(_ *gctx, i int) any { return "Placeholder campaign " + strconv.Itoa(i+1) + "." }},
		{"NumberOfLeads", kInt, 0, func(_ *gctx, i int) any { return leads(i) }},
		{"NumberOfConvertedLeads", kInt, 0, func(_ *gctx, i int) any { return converted(i) }},
		{"NumberOfContacts", kInt, 0, func(_ *gctx, i int) any { return int64(pickN(300, i, 812)) }},
		{"NumberOfResponses", kInt, 0, func(_ *gctx, i int) any { return int64(pickN(200, i, 813)) }},
		{"NumberOfOpportunities", kInt, 0, func(_ *gctx, i int) any { return opps(i) }},
		{"NumberOfWonOpportunities", kInt, 0, func(_ *gctx, i int) any { return won(i) }},
		{"AmountAllOpportunities", kDouble, 0, func(_ *gctx, i int) any { return float64(opps(i) * 25000) }},
		{"AmountWonOpportunities", kDouble, 0, func(_ *gctx, i int) any { return float64(won(i) * 25000) }},
		{"OwnerId", kID, 0, func(_ *gctx, i int) any { return userID(i, 814) }},
	}
	fs = system(objCampaign, fs...)
	return append(fs,
		field{"LastActivityDate", kDate, 0, lastActivity(objCampaign)},
		field{"LastViewedDate", kDateTime, 0, lastViewed(objCampaign)},
		field{"LastReferencedDate", kDateTime, 0, lastViewed(objCampaign)},
		field{"CampaignMemberRecordTypeId", kID, 0, null},
	)
}

// ---- Case ----

func caseStatus(i int) string { return pick(caseStatuses, i, 901) }

func caseFields() []field {
	contact := func(c *gctx, i int) int { return refIndex(c, objContact, i, 902) }
	fromContact := func(f func(int) string) func(*gctx, int) any {
		return func(c *gctx, i int) any {
			if k := contact(c, i); k >= 0 {
				return f(k)
			}
			return nil
		}
	}
	fs := []field{
		{"Id", kID, 0, id("500")},
		{"IsDeleted", kBool, 0, constant(false)},
		{"MasterRecordId", kID, 0, null},
		{"CaseNumber", kString, inAll | inName, func(_ *gctx, i int) any {
			s := strconv.Itoa(1001 + i)
			for len(s) < 8 {
				s = "0" + s
			}
			return s
		}},
		{"ContactId", kID, 0, func(c *gctx, i int) any {
			if k := contact(c, i); k >= 0 {
				return makeID("003", k)
			}
			return nil
		}},
		{"AccountId", kID, 0, func(c *gctx, i int) any {
			if k := contact(c, i); k >= 0 {
				return contactAccount(c, k)
			}
			return nil
		}},
		{"AssetId", kID, 0, null},
		{"ParentId", kID, 0, null},
		{"SuppliedName", kString, inAll, null},
		{"SuppliedEmail", kString, inAll | inEmail, null},
		{"SuppliedPhone", kString, inAll | inPhone, null},
		{"SuppliedCompany", kString, inAll, null},
		{"Type", kString, 0, func(_ *gctx, i int) any { return pick(caseTypes, i, 903) }},
		{"Status", kString, 0, func(_ *gctx, i int) any { return caseStatus(i) }},
		{"Reason", kString, 0, func(_ *gctx, i int) any { return pick(caseReasons, i, 904) }},
		{"Origin", kString, 0, func(_ *gctx, i int) any { return pick(caseOrigins, i, 905) }},
		{"Subject", kString, inAll, func(_ *gctx, i int) any { return pick(caseSubjects, i, 906) }},
		{"Priority", kString, 0, func(_ *gctx, i int) any { return pick(casePrios, i, 907) }},
		{"Description", kString, inAll, func(_ *gctx, i int) any {
			return "Placeholder case description " + strconv.Itoa(i+1) + "."
		}},
		{"IsClosed", kBool, 0, func(_ *gctx, i int) any { return caseStatus(i) == "Closed" }},
		{"ClosedDate", kDateTime, 0, func(_ *gctx, i int) any {
			if caseStatus(i) != "Closed" {
				return nil
			}
			return modifiedAt(objCase, i)
		}},
		{"IsEscalated", kBool, 0, func(_ *gctx, i int) any { return caseStatus(i) == "Escalated" }},
		{"OwnerId", kID, 0, func(_ *gctx, i int) any { return userID(i, 908) }},
	}
	fs = system(objCase, fs...)
	return append(fs,
		field{"ContactPhone", kString, 0, fromContact(contactPhone)},
		field{"ContactMobile", kString, 0, fromContact(contactMobile)},
		field{"ContactEmail", kString, 0, fromContact(contactEmail)},
		field{"ContactFax", kString, 0, null},
		field{"Comments", kString, 0, null},
		field{"LastViewedDate", kDateTime, 0, lastViewed(objCase)},
		field{"LastReferencedDate", kDateTime, 0, lastViewed(objCase)},
	)
}

// ---- Note ----

func noteFields() []field {
	fs := []field{
		{"Id", kID, 0, id("002")},
		{"IsDeleted", kBool, 0, constant(false)},
		{"ParentId", kID, 0, func(c *gctx, i int) any {
			if i%2 == 1 && c.count(objOpportunity) > 0 {
				return refID(c, "Opportunity", "006", i, 1001)
			}
			return refID(c, "Account", "001", i, 1002)
		}},
		{"Title", kString, inAll | inName, func(_ *gctx, i int) any { return pick(noteTitles, i, 1003) + " " + strconv.Itoa(i+1) }},
		{"IsPrivate", kBool, 0, constant(false)},
		{"Body", kString, inAll, func(_ *gctx, i int) any {
			return "Placeholder note body " + strconv.Itoa(i+1) + ".\nNext step: " + pick(nextSteps, i, 1004) + "."
		}},
		{"OwnerId", kID, 0, func(_ *gctx, i int) any { return userID(i, 1005) }},
	}
	return system(objNote, fs...)
}

// ---- Files: ContentVersion and Attachment ----

func fileKindOf(obj, i int) fileKind { return fileKinds[pickN(len(fileKinds), i, uint64(1100+obj))] }

func fileSize(c *gctx, obj, i int) int {
	if c.d.fileSize > 0 {
		return c.d.fileSize
	}
	return 512 + pickN(32*1024, i, uint64(1110+obj))
}

// fileContent is the deterministic content of the file of record i: a
// type-appropriate magic header, then numbered placeholder lines, cut to
// size bytes.
func fileContent(size int, id string, fk fileKind) []byte {
	b := make([]byte, 0, size+64)
	switch fk.fileType {
	case "PDF":
		b = append(b, "%PDF-1.7\n"...)
	case "PNG":
		b = append(b, "\x89PNG\r\n\x1a\n"...)
	case "WORD_X", "EXCEL_X":
		b = append(b, "PK\x03\x04"...)
	case "CSV":
		b = append(b, "line,record,text\n"...)
	}
	for n := 1; len(b) < size; n++ {
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, ',')
		b = append(b, id...)
		b = append(b, ",placeholder content of a synthetic file\n"...)
	}
	return b[:size]
}

func fileChecksum(c *gctx, obj int, prefix string, i int) string {
	sum := md5.Sum(fileContent(fileSize(c, obj, i), makeID(prefix, i), fileKindOf(obj, i)))
	return hex.EncodeToString(sum[:])
}

func contentVersionTitle(i int) string { return "Placeholder document " + strconv.Itoa(i+1) }

func contentVersionFields() []field {
	const obj = objContentVersion
	fs := []field{
		{"Id", kID, 0, id("068")},
		{"ContentDocumentId", kID, 0, id("069")},
		{"IsLatest", kBool, 0, constant(true)},
		{"ContentUrl", kString, 0, null},
		{"ContentBodyId", kID, 0, id("05T")},
		{"VersionNumber", kString, 0, constant("1")},
		{"Title", kString, inAll | inName, func(_ *gctx, i int) any { return contentVersionTitle(i) }},
		{"Description", kString, inAll, func(_ *gctx, i int) any {
			if i%2 == 0 {
				return nil
			}
			return "Synthetic file for download tests."
		}},
		{"ReasonForChange", kString, 0, null},
		{"SharingOption", kString, 0, constant("A")},
		{"SharingPrivacy", kString, 0, constant("N")},
		{"PathOnClient", kString, 0, func(_ *gctx, i int) any { return contentVersionTitle(i) + "." + fileKindOf(obj, i).ext }},
		{"RatingCount", kInt, 0, null},
		{"IsDeleted", kBool, 0, constant(false)},
		{"ContentModifiedDate", kDateTime, 0, func(_ *gctx, i int) any { return createdAt(obj, i) }},
		{"ContentModifiedById", kID, 0, func(_ *gctx, i int) any { return userID(i, 1120) }},
		{"PositiveRatingCount", kInt, 0, null},
		{"NegativeRatingCount", kInt, 0, null},
		{"OwnerId", kID, 0, func(_ *gctx, i int) any { return userID(i, 1120) }},
	}
	fs = system(obj, fs...)
	return append(fs,
		field{"TagCsv", kString, 0, null},
		field{"FileType", kString, 0, func(_ *gctx, i int) any { return fileKindOf(obj, i).fileType }},
		field{"PublishStatus", kString, 0, constant("R")},
		field{"VersionData", kString, 0, func(c *gctx, i int) any {
			return "/services/data/v" + c.version + "/sobjects/ContentVersion/" + makeID("068", i) + "/VersionData"
		}},
		field{"ContentSize", kInt, 0, func(c *gctx, i int) any { return int64(fileSize(c, obj, i)) }},
		field{"FileExtension", kString, 0, func(_ *gctx, i int) any { return fileKindOf(obj, i).ext }},
		field{"FirstPublishLocationId", kID, 0, func(c *gctx, i int) any { return refID(c, "Account", "001", i, 1121) }},
		field{"Origin", kString, 0, constant("C")},
		field{"ContentLocation", kString, 0, constant("S")},
		field{"Checksum", kString, 0, func(c *gctx, i int) any { return fileChecksum(c, obj, "068", i) }},
		field{"IsMajorVersion", kBool, 0, constant(true)},
	)
}

func attachmentFields() []field {
	const obj = objAttachment
	fs := []field{
		{"Id", kID, 0, id("00P")},
		{"IsDeleted", kBool, 0, constant(false)},
		{"ParentId", kID, 0, func(c *gctx, i int) any {
			switch {
			case i%3 == 1 && c.count(objOpportunity) > 0:
				return refID(c, "Opportunity", "006", i, 1131)
			case i%3 == 2 && c.count(objCase) > 0:
				return refID(c, "Case", "500", i, 1132)
			}
			return refID(c, "Account", "001", i, 1133)
		}},
		{"Name", kString, inAll | inName, func(_ *gctx, i int) any {
			return "attachment-" + strconv.Itoa(i+1) + "." + fileKindOf(obj, i).ext
		}},
		{"IsPrivate", kBool, 0, constant(false)},
		{"ContentType", kString, 0, func(_ *gctx, i int) any { return fileKindOf(obj, i).mime }},
		{"BodyLength", kInt, 0, func(c *gctx, i int) any { return int64(fileSize(c, obj, i)) }},
		{"Body", kString, 0, func(c *gctx, i int) any {
			return "/services/data/v" + c.version + "/sobjects/Attachment/" + makeID("00P", i) + "/Body"
		}},
		{"OwnerId", kID, 0, func(_ *gctx, i int) any { return userID(i, 1134) }},
	}
	fs = system(obj, fs...)
	return append(fs, field{"Description", kString, inAll, null})
}

// ---- User ----

func userFields() []field {
	first := func(i int) string { return personFirst(i, 1201) }
	last := func(i int) string { return personLast(i, 1201) }
	fs := []field{
		{"Id", kID, 0, id("005")},
		{"Username", kString, inAll, func(_ *gctx, i int) any {
			return strings.ToLower(first(i)+"."+last(i)) + "@acme.example.com"
		}},
		{"LastName", kString, inAll | inName, func(_ *gctx, i int) any { return last(i) }},
		{"FirstName", kString, inAll | inName, func(_ *gctx, i int) any { return first(i) }},
		{"Name", kString, inAll | inName, func(_ *gctx, i int) any { return first(i) + " " + last(i) }},
		{"Title", kString, inAll, func(_ *gctx, i int) any { return pick(titles, i, 1202) }},
		{"Email", kString, inAll | inEmail, func(_ *gctx, i int) any {
			return strings.ToLower(first(i)+"."+last(i)) + "@example.com"
		}},
		{"Alias", kString, inAll, func(_ *gctx, i int) any { return strings.ToLower(first(i)[:1] + last(i)[:4]) }},
		{"IsActive", kBool, 0, constant(true)},
		{"UserType", kString, 0, constant("Standard")},
		{"TimeZoneSidKey", kString, 0, constant("America/Los_Angeles")},
		{"LocaleSidKey", kString, 0, constant("en_US")},
		{"LanguageLocaleKey", kString, 0, constant("en_US")},
	}
	fs = system(objUser, fs...)
	return append(fs, field{"LastLoginDate", kDateTime, 0, func(_ *gctx, i int) any {
		return epoch.AddDate(2, 0, 0).Add(time.Duration(i) * time.Hour)
	}})
}
