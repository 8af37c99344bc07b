package salesforcetest

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"
)

// After a create, an update and a delete: /query counts and lists the live
// records only, /queryAll lists the deleted one too with IsDeleted true,
// SOSL and get no longer find it, and every change carries the clock's
// time in SystemModstamp.
func TestMutationsShowEverywhere(t *testing.T) {
	s := New(WithAccounts(5))
	defer s.Close()
	s.Clock().Advance(time.Hour)
	at := s.Clock().Now().UTC().Format("2006-01-02T15:04:05.000+0000")
	ids := s.IDs("accounts")
	created, err := s.Create("accounts")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Update("accounts", ids[1]); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete("accounts", ids[2]); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete("accounts", ids[2]); err == nil {
		t.Error("deleting a deleted record succeeded")
	}
	read := func(path string) queryPage {
		t.Helper()
		status, _, body := do(t, s, path)
		if status != 200 {
			t.Fatalf("%s: %d %s", path, status, body)
		}
		var p queryPage
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	soql := "SELECT Id, Name, Description, IsDeleted, SystemModstamp FROM Account WHERE SystemModstamp >= 2025-01-01T00:00:00Z ORDER BY SystemModstamp ASC"
	if p := read("/services/data/v67.0/query?q=" + url.QueryEscape("SELECT COUNT() FROM Account")); p.TotalSize != 5 {
		t.Errorf("COUNT() = %d, want 5 (5 - 1 deleted + 1 created)", p.TotalSize)
	}
	live := read("/services/data/v67.0/query?q=" + url.QueryEscape(soql))
	all := read("/services/data/v67.0/queryAll?q=" + url.QueryEscape(soql))
	if live.TotalSize != 2 || all.TotalSize != 3 {
		t.Fatalf("changed since 2025: query %d, queryAll %d; want 2 and 3", live.TotalSize, all.TotalSize)
	}
	type rec struct {
		ID, Description, SystemModstamp string
		IsDeleted                       bool
	}
	var got []rec
	for _, raw := range all.Records {
		var r rec
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
		if r.SystemModstamp != at {
			t.Errorf("%s SystemModstamp %s, want %s", r.ID, r.SystemModstamp, at)
		}
	}
	// Equal stamps keep the index order.
	if got[0].ID != ids[1] || !strings.Contains(got[0].Description, "(updated 1)") || got[1].ID != ids[2] || !got[1].IsDeleted || got[2].ID != created {
		t.Errorf("queryAll rows %+v", got)
	}
	if status, _, _ := do(t, s, "/services/data/v67.0/sobjects/Account/"+ids[2]); status != 404 {
		t.Errorf("get of a deleted account: %d", status)
	}
	if status, _, _ := do(t, s, "/services/data/v67.0/sobjects/Account/"+created); status != 200 {
		t.Errorf("get of a created account: %d", status)
	}
	status, _, body := do(t, s, "/services/data/v67.0/search?q="+url.QueryEscape("FIND {Placeholder} RETURNING Account(Id)"))
	if status != 200 || strings.Contains(string(body), ids[2]) || !strings.Contains(string(body), created) {
		t.Errorf("search after the changes: %d %s", status, body)
	}
	if got := s.IDs("accounts"); len(got) != 5 || got[4] != created {
		t.Errorf("IDs %v", got)
	}
}
