package salesforce

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// fixtureBody returns the first response body of a recorded fixture.
func fixtureBody(t *testing.T, name string) json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "salesforce", name))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Exchanges []struct {
			Response struct {
				Body json.RawMessage `json:"body"`
			} `json:"response"`
		} `json:"exchanges"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return f.Exchanges[0].Response.Body
}

// firstRecord returns records[0] of a recorded query response.
func firstRecord(t *testing.T, name string) json.RawMessage {
	t.Helper()
	var page struct {
		Records []json.RawMessage `json:"records"`
	}
	if err := json.Unmarshal(fixtureBody(t, name), &page); err != nil || len(page.Records) == 0 {
		t.Fatalf("%s: no records (%v)", name, err)
	}
	return page.Records[0]
}

func decodeInto[T any](t *testing.T, raw json.RawMessage) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decode: %v", err)
	}
	return v
}

func check(t *testing.T, what string, got, want any) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func TestDecodeFixtureRecords(t *testing.T) {
	a := decodeInto[Account](t, fixtureBody(t, "accounts.get.json"))
	check(t, "Account.ID", a.ID, "001Hs00001ZqF4TIAV")
	check(t, "Account.Attributes.Type", a.Attributes.Type, "Account")
	check(t, "Account.NumberOfEmployees", a.NumberOfEmployees, int64(420))
	check(t, "Account.AnnualRevenue", *a.AnnualRevenue, 52000000.0)
	var billing struct{ City string }
	if err := json.Unmarshal(a.BillingAddress, &billing); err != nil || billing.City != "Austin" {
		t.Errorf("Account.BillingAddress = %s", a.BillingAddress)
	}

	c := decodeInto[Contact](t, fixtureBody(t, "contacts.get.json"))
	check(t, "Contact.ID", c.ID, "003Hs00002mPq1RIAS")
	check(t, "Contact.Email", c.Email, "avery.sample@example.com")
	check(t, "Contact.AccountID", c.AccountID, a.ID)

	l := decodeInto[Lead](t, fixtureBody(t, "leads.get.json"))
	check(t, "Lead.Company", l.Company, "Redwood Outfitters")
	check(t, "Lead.IsConverted", l.IsConverted, false)
	check(t, "Lead.AnnualRevenue", l.AnnualRevenue == nil, true)

	o := decodeInto[Opportunity](t, fixtureBody(t, "opportunities.get.json"))
	check(t, "Opportunity.Amount", o.Amount, 125000.0)
	check(t, "Opportunity.Probability", o.Probability, 100.0)
	check(t, "Opportunity.FiscalYear", o.FiscalYear, int64(2025))

	tk := decodeInto[Task](t, fixtureBody(t, "tasks.get.json"))
	check(t, "Task.Subject", tk.Subject, "Call")
	check(t, "Task.CallDurationInSeconds", tk.CallDurationInSeconds, int64(312))

	e := decodeInto[Event](t, fixtureBody(t, "events.get.json"))
	check(t, "Event.StartDateTime", e.StartDateTime, "2025-12-02T15:00:00.000+0000")
	check(t, "Event.DurationInMinutes", *e.DurationInMinutes, int64(60))

	cm := decodeInto[Campaign](t, fixtureBody(t, "campaigns.get.json"))
	check(t, "Campaign.NumberOfLeads", cm.NumberOfLeads, int64(312))
	check(t, "Campaign.ActualCost", *cm.ActualCost, 9850.0)

	cs := decodeInto[Case](t, fixtureBody(t, "cases.get.json"))
	check(t, "Case.CaseNumber", cs.CaseNumber, "00001026")
	check(t, "Case.ClosedDate", cs.ClosedDate, "")

	n := decodeInto[Note](t, fixtureBody(t, "notes.get.json"))
	check(t, "Note.Title", n.Title, "Call notes")
	check(t, "Note.ParentID", n.ParentID, a.ID)

	cv := decodeInto[ContentVersion](t, fixtureBody(t, "content_versions.get.json"))
	check(t, "ContentVersion.FileType", cv.FileType, "PDF")
	check(t, "ContentVersion.VersionData", cv.VersionData, "/services/data/v67.0/sobjects/ContentVersion/068Hs00000tUv1WIAS/VersionData")

	at := decodeInto[Attachment](t, fixtureBody(t, "attachments.get.json"))
	check(t, "Attachment.ContentType", at.ContentType, "text/plain")
	check(t, "Attachment.BodyLength", at.BodyLength, int64(59))

	q := decodeInto[QueryRecord](t, firstRecord(t, "query.list.json"))
	check(t, "QueryRecord.Attributes.Type", q.Attributes.Type, "Opportunity")
	check(t, "QueryRecord.ID", q.ID(), o.ID)
	var owner struct {
		Attributes Attributes `json:"attributes"`
		Name       string
	}
	if err := json.Unmarshal(q.Fields["Owner"], &owner); err != nil || owner.Attributes.Type != "User" || owner.Name == "" {
		t.Errorf("QueryRecord.Fields[Owner] = %s", q.Fields["Owner"])
	}
	if _, ok := q.Fields["attributes"]; ok {
		t.Error("QueryRecord.Fields keeps attributes")
	}
	round, err := json.Marshal(q)
	if err != nil {
		t.Fatal(err)
	}
	if back := decodeInto[QueryRecord](t, round); back.ID() != q.ID() || back.Attributes != q.Attributes {
		t.Errorf("QueryRecord round trip: %s", round)
	}

	agg := decodeInto[QueryRecord](t, firstRecord(t, "query.list.aggregate.json"))
	check(t, "aggregate Attributes.Type", agg.Attributes.Type, "AggregateResult")
	check(t, "aggregate ID", agg.ID(), "")

	// A list row carries only the selected fields.
	row := decodeInto[Account](t, firstRecord(t, "accounts.list.json"))
	check(t, "list Account.Name", row.Name, "Acme Robotics")
	check(t, "list Account.Phone", row.Phone, "")
}
