package mailchimp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/tributary-dev/tributary/kinds/mailchimp"
)

// fixtureRecord returns the first record of the response of a fixture in
// testdata/mailchimp: the first element under key, or the whole body when
// key is "".
func fixtureRecord(t *testing.T, file, key string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "mailchimp", file))
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Exchanges []struct {
			Response struct {
				Body json.RawMessage `json:"body"`
			} `json:"response"`
		} `json:"exchanges"`
	}
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	body := fx.Exchanges[0].Response.Body
	if key == "" {
		return body
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var recs []json.RawMessage
	if err := json.Unmarshal(env[key], &recs); err != nil || len(recs) == 0 {
		t.Fatalf("%s: no records under %q (%v)", file, key, err)
	}
	return recs[0]
}

func decode[T any](t *testing.T, file, key string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(fixtureRecord(t, file, key), &v); err != nil {
		t.Fatalf("%s: decoding %T: %v", file, v, err)
	}
	return v
}

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

func TestRecordsDecodeFixtures(t *testing.T) {
	c := decode[mailchimp.Campaign](t, "campaigns.get.json", "")
	if c.ID != "c0ffee0a01" || str(c.Status) != "sent" || c.WebID == nil || *c.WebID != 900001 ||
		len(c.Recipients) == 0 || c.Resendable == nil || !*c.Resendable {
		t.Errorf("Campaign = %+v", c)
	}

	l := decode[mailchimp.List](t, "lists.list.json", "lists")
	if l.ID != "1a2b3c4d5e" || str(l.Name) != "Placeholder Newsletter" || l.ListRating == nil || *l.ListRating != 3 ||
		len(l.Stats) == 0 {
		t.Errorf("List = %+v", l)
	}

	m := decode[mailchimp.ListMember](t, "list_members.get.json", "")
	if m.ID != "5cb5448a581c45373b3c83868e5e11c2" || str(m.EmailAddress) != "ada.placeholder@example.com" ||
		m.VIP == nil || *m.VIP || len(m.Tags) != 1 || str(m.ListID) != "1a2b3c4d5e" {
		t.Errorf("ListMember = %+v", m)
	}

	r := decode[mailchimp.Report](t, "reports.list.json", "reports")
	if r.ID != "c0ffee0a02" || r.EmailsSent == nil || *r.EmailsSent != 102 || len(r.Opens) == 0 || len(r.Timeseries) != 1 {
		t.Errorf("Report = %+v", r)
	}

	e := decode[mailchimp.EmailActivity](t, "email_activity.list.json", "emails")
	if str(e.EmailID) != "5cb5448a581c45373b3c83868e5e11c2" || len(e.Activity) != 2 || e.ListIsActive == nil || !*e.ListIsActive {
		t.Errorf("EmailActivity = %+v", e)
	}

	a := decode[mailchimp.Automation](t, "automations.list.json", "automations")
	if a.ID != "a0a0a0a001" || str(a.Status) != "sending" || a.EmailsSent == nil || *a.EmailsSent != 250 {
		t.Errorf("Automation = %+v", a)
	}

	tg := decode[mailchimp.Tag](t, "tags.list.json", "tags")
	if tg.ID != 410001 || str(tg.Name) != "customer" {
		t.Errorf("Tag = %+v", tg)
	}

	ic := decode[mailchimp.InterestCategory](t, "interest_categories.get.json", "")
	if ic.ID != "0c1d2e3f40" || str(ic.Type) != "checkboxes" || ic.DisplayOrder == nil || *ic.DisplayOrder != 0 {
		t.Errorf("InterestCategory = %+v", ic)
	}

	in := decode[mailchimp.Interest](t, "interests.get.json", "")
	if in.ID != "9a8b7c6d52" || str(in.SubscriberCount) != "31" || str(in.CategoryID) != "0c1d2e3f40" {
		t.Errorf("Interest = %+v", in)
	}

	sg := decode[mailchimp.Segment](t, "segments.get.json", "")
	if sg.ID != 310001 || sg.MemberCount == nil || *sg.MemberCount != 48 || len(sg.Options) == 0 {
		t.Errorf("Segment = %+v", sg)
	}

	sm := decode[mailchimp.SegmentMember](t, "segment_members.list.json", "members")
	if sm.ID != "5cb5448a581c45373b3c83868e5e11c2" || str(sm.Status) != "subscribed" || len(sm.LastNote) == 0 {
		t.Errorf("SegmentMember = %+v", sm)
	}

	u := decode[mailchimp.Unsubscribe](t, "unsubscribes.list.json", "unsubscribes")
	if u.EmailID != "b787d905beae1318fd1b58cad04e82c3" || str(u.Reason) != "I no longer want to receive these emails" ||
		str(u.CampaignID) != "c0ffee0a02" {
		t.Errorf("Unsubscribe = %+v", u)
	}
}
