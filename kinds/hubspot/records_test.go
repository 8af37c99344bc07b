package hubspot

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fixtureRecord returns the first record of a fixture's response body: the
// body itself for a get, results[0] for a list.
func fixtureRecord(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "hubspot", name))
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
	body := f.Exchanges[len(f.Exchanges)-1].Response.Body
	var list struct {
		Results []json.RawMessage `json:"results"`
	}
	if json.Unmarshal(body, &list) == nil && len(list.Results) > 0 {
		body = list.Results[0]
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("%s: decode into %T: %v", name, v, err)
	}
}

func TestDecodeFixtureRecords(t *testing.T) {
	var c Contact
	fixtureRecord(t, "contacts.list.associations.json", &c)
	if c.ID != "151" || c.Email() != "ada.example@example.com" || c.LifecycleStage() != "customer" {
		t.Errorf("contact: %+v", c)
	}
	if h := c.PropertiesWithHistory["lifecyclestage"]; len(h) != 2 || h[1].Value != "lead" || h[0].UpdatedByUserID == nil || *h[0].UpdatedByUserID != 9000001 {
		t.Errorf("contact history: %+v", h)
	}
	if len(c.Associations) == 0 {
		t.Error("contact associations missing")
	}
	if d, ok := c.CreateDate(); !ok || !d.Equal(time.Date(2024, 1, 8, 9, 12, 44, 117e6, time.UTC)) {
		t.Errorf("contact createdate %v %v", d, ok)
	}

	var byEmail Contact
	fixtureRecord(t, "contacts.get.by_email.json", &byEmail)
	if v, present := byEmail.Properties["phone"]; !present || v != nil || byEmail.Phone() != "" {
		t.Errorf("null phone: present=%v value=%v", present, v)
	}

	var co Company
	fixtureRecord(t, "companies.get.json", &co)
	if n, ok := co.NumberOfEmployees(); co.Name() != "Example Holdings" || !ok || n != 120 {
		t.Errorf("company: %q %d %v", co.Name(), n, ok)
	}
	if r, ok := co.AnnualRevenue(); !ok || r != 2500000 {
		t.Errorf("annual revenue %v %v", r, ok)
	}

	var d Deal
	fixtureRecord(t, "deals.get.json", &d)
	if amt, ok := d.Amount(); !ok || amt != 24000.50 || d.DealStage() != "contractsent" || d.Pipeline() != "default" {
		t.Errorf("deal: %v %v %q", amt, ok, d.DealStage())
	}
	var archivedDeal Deal
	fixtureRecord(t, "deals.list.json", &archivedDeal)
	if !archivedDeal.Archived || archivedDeal.ArchivedAt == nil {
		t.Errorf("archived deal: %+v", archivedDeal)
	}
	var noAmount Deal
	if err := json.Unmarshal([]byte(`{"id":"1","properties":{"amount":null},"createdAt":"","updatedAt":"","archived":false}`), &noAmount); err != nil {
		t.Fatal(err)
	}
	if _, ok := noAmount.Amount(); ok {
		t.Error("null amount reported as present")
	}

	var tk Ticket
	fixtureRecord(t, "tickets.list.json", &tk)
	if tk.Subject() != "Cannot sign in" || tk.PipelineStage() != "1" || tk.Priority() != "HIGH" {
		t.Errorf("ticket: %+v", tk.Properties)
	}

	var n Note
	fixtureRecord(t, "notes.get.json", &n)
	if ids := n.AttachmentIDs(); len(ids) != 2 || ids[1] != "90002" || n.OwnerID() != "70000001" {
		t.Errorf("note: %v %q", ids, n.OwnerID())
	}

	var call Call
	fixtureRecord(t, "calls.list.json", &call)
	if dur, ok := call.Duration(); !ok || dur != 185*time.Second || call.Direction() != "OUTBOUND" {
		t.Errorf("call: %v %v %q", dur, ok, call.Direction())
	}

	var e Email
	fixtureRecord(t, "emails.list.json", &e)
	if e.Subject() != "Placeholder proposal" || e.Status() != "SENT" {
		t.Errorf("email: %+v", e.Properties)
	}

	var m Meeting
	fixtureRecord(t, "meetings.get.json", &m)
	if st, ok := m.StartTime(); !ok || st.Hour() != 15 || m.Outcome() != "SCHEDULED" {
		t.Errorf("meeting: %v %v %q", st, ok, m.Outcome())
	}

	var task Task
	fixtureRecord(t, "tasks.list.json", &task)
	if task.ID != "8502" || task.Status() != "NOT_STARTED" || task.Priority() != "HIGH" {
		t.Errorf("task: %+v", task.Properties)
	}

	var o Object
	fixtureRecord(t, "objects.get.json", &o)
	if o.ID != "9101" || o.Value("vin") != "TESTVIN0000000001" {
		t.Errorf("object: %+v", o)
	}

	var ow Owner
	fixtureRecord(t, "owners.get.json", &ow)
	if ow.ID != "70000001" || ow.UserID == nil || *ow.UserID != 9000001 || len(ow.Teams) != 1 || !ow.Teams[0].Primary {
		t.Errorf("owner: %+v", ow)
	}

	var p Pipeline
	fixtureRecord(t, "pipelines.get.json", &p)
	if p.ID != "0" || len(p.Stages) != 4 || p.Stages[3].Metadata["ticketState"] != "CLOSED" {
		t.Errorf("pipeline: %+v", p)
	}

	var s Schema
	fixtureRecord(t, "schemas.get.json", &s)
	if s.FullyQualifiedName != "p12345678_cars" || s.ObjectTypeID != "2-1234567" || len(s.Properties) != 5 ||
		len(s.Properties[4].Options) != 2 || s.Labels.Plural == nil || *s.Labels.Plural != "Cars" {
		t.Errorf("schema: %+v", s)
	}
}
