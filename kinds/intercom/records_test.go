package intercom

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// fixtureBody returns the response body of the first exchange of
// testdata/intercom/<name>.json.
func fixtureBody(t *testing.T, name string) json.RawMessage {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "intercom", name+".json"))
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
		t.Fatalf("%s: %v", name, err)
	}
	if len(fx.Exchanges) == 0 {
		t.Fatalf("%s: no exchanges", name)
	}
	return fx.Exchanges[0].Response.Body
}

func decode[T any](t *testing.T, name string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(fixtureBody(t, name), &v); err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	return v
}

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

func TestDecodeContact(t *testing.T) {
	c := decode[Contact](t, "contacts.get")
	if c.ID != "6650a1b2c3d4e5f601234501" || str(c.Email) != "person1@example.com" || str(c.Role) != "user" {
		t.Errorf("contact = %q %q %q", c.ID, str(c.Email), str(c.Role))
	}
	if c.CreatedAt == nil || *c.CreatedAt != 1714550400 || c.OwnerID == nil || *c.OwnerID != 7100201 {
		t.Errorf("created_at/owner_id = %v/%v", c.CreatedAt, c.OwnerID)
	}
	if c.LastEmailOpenedAt != nil {
		t.Errorf("last_email_opened_at = %d, want null", *c.LastEmailOpenedAt)
	}
	var avatar struct {
		ImageURL string `json:"image_url"`
	}
	if err := json.Unmarshal(c.Avatar, &avatar); err != nil || avatar.ImageURL == "" {
		t.Errorf("avatar %s: %v", c.Avatar, err)
	}
	if str(c.UTMSource) != "newsletter" || len(c.Tags) == 0 {
		t.Errorf("utm_source %q, tags %s", str(c.UTMSource), c.Tags)
	}
}

func TestDecodeConversation(t *testing.T) {
	c := decode[Conversation](t, "conversations.get")
	if c.ID != "215470000000101" || str(c.State) != "open" || c.Open == nil || !*c.Open {
		t.Errorf("conversation = %q %q %v", c.ID, str(c.State), c.Open)
	}
	if c.TeamAssigneeID == nil || c.TeamAssigneeID.String() != "7100402" {
		t.Errorf("team_assignee_id = %v", c.TeamAssigneeID)
	}
	var parts struct {
		TotalCount int `json:"total_count"`
	}
	if err := json.Unmarshal(c.ConversationParts, &parts); err != nil || parts.TotalCount != 3 {
		t.Errorf("conversation_parts %d: %v", parts.TotalCount, err)
	}

	// The catalogue's string form of team_assignee_id decodes too.
	var s Conversation
	if err := json.Unmarshal([]byte(`{"id":"1","team_assignee_id":"5017691"}`), &s); err != nil || s.TeamAssigneeID.String() != "5017691" {
		t.Errorf("string team_assignee_id: %v %v", s.TeamAssigneeID, err)
	}
}

func TestDecodeCompany(t *testing.T) {
	c := decode[Company](t, "companies.get")
	if c.ID != "6651b2c3d4e5f6a701234603" || str(c.CompanyID) != "cmp-0003" || str(c.Name) != "Sample Company 3" {
		t.Errorf("company = %q %q %q", c.ID, str(c.CompanyID), str(c.Name))
	}
	if c.MonthlySpend == nil || *c.MonthlySpend != 300 || c.Size == nil || *c.Size != 30 {
		t.Errorf("monthly_spend/size = %v/%v", c.MonthlySpend, c.Size)
	}
}

func TestDecodeTeam(t *testing.T) {
	tm := decode[Team](t, "teams.get")
	if tm.ID != "7100401" || str(tm.Name) != "Billing" || len(tm.AdminIDs) != 2 || tm.AdminIDs[1] != 7100202 {
		t.Errorf("team = %q %q %v", tm.ID, str(tm.Name), tm.AdminIDs)
	}
}

func TestDecodeAdmin(t *testing.T) {
	a := decode[Admin](t, "admins.get")
	if a.ID != "7100202" || str(a.Email) != "teammate2@example.com" || a.HasInboxSeat == nil || !*a.HasInboxSeat {
		t.Errorf("admin = %q %q %v", a.ID, str(a.Email), a.HasInboxSeat)
	}
	if len(a.TeamIDs) != 2 || a.TeamIDs[0] != 7100401 {
		t.Errorf("team_ids = %v", a.TeamIDs)
	}
}

func TestDecodeTag(t *testing.T) {
	tg := decode[Tag](t, "tags.get")
	if tg.ID != "7100311" || str(tg.Name) != "Enterprise" || tg.AppliedAt != nil {
		t.Errorf("tag = %q %q %v", tg.ID, str(tg.Name), tg.AppliedAt)
	}
}

func TestDecodeSegment(t *testing.T) {
	s := decode[Segment](t, "segments.get")
	if s.ID != "6652c3d4e5f6a7b801234702" || str(s.PersonType) != "contact" || s.Count != nil {
		t.Errorf("segment = %q %q %v", s.ID, str(s.PersonType), s.Count)
	}
	var list struct {
		Segments []Segment `json:"segments"`
	}
	if err := json.Unmarshal(fixtureBody(t, "segments.list.include_count"), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Segments) != 2 || list.Segments[0].Count == nil || *list.Segments[0].Count != 1250 {
		t.Errorf("segments with count = %+v", list.Segments)
	}
}
