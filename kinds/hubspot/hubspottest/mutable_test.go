package hubspottest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/hubspot/hubspottest"
)

func search(t *testing.T, srv *hubspottest.Server, objectType, body string) page {
	t.Helper()
	resp, b := send(t, http.MethodPost, srv.URL+"/crm/v3/objects/"+objectType+"/search", hubspottest.DefaultPrivateAppToken, body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("search: %d %s", resp.StatusCode, b)
	}
	return decode[page](t, b)
}

// listAll walks a list with limit 100 and returns the raw results.
func listAll(t *testing.T, srv *hubspottest.Server, path string) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	after := ""
	for {
		u := path + "limit=100"
		if after != "" {
			u += "&after=" + after
		}
		resp, b := get(t, srv, u)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", u, resp.StatusCode, b)
		}
		var p struct {
			Results []json.RawMessage `json:"results"`
			Paging  *struct {
				Next struct{ After string } `json:"next"`
			} `json:"paging"`
		}
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p.Results...)
		if p.Paging == nil {
			return out
		}
		after = p.Paging.Next.After
	}
}

func ids(t *testing.T, raw []json.RawMessage) []string {
	t.Helper()
	var out []string
	for _, r := range raw {
		out = append(out, decode[object](t, r).ID)
	}
	return out
}

// Create, Update and Delete show in every list, get and search, at the
// fake's clock; the search renders a record as the list does.
func TestMutations(t *testing.T) {
	start := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	srv := hubspottest.New(hubspottest.WithDeals(250), hubspottest.WithClock(fakeserver.NewClock(start)))
	defer srv.Close()
	if srv.Clock().Now() != start {
		t.Fatal("Clock is not the clock given")
	}
	for _, r := range listAll(t, srv, "/crm/v3/objects/deals?") {
		if o := decode[object](t, r); o.UpdatedAt >= start.Format(time.RFC3339) {
			t.Fatalf("generated deal %s modified at %s, not before the clock's start", o.ID, o.UpdatedAt)
		}
	}
	before := srv.IDs("deals")
	if len(before) != 250 || srv.Count("deals") != 250 {
		t.Fatalf("IDs: %d, Count: %d, want 250", len(before), srv.Count("deals"))
	}

	srv.Clock().Advance(time.Minute)
	id, err := srv.Create("deals")
	if err != nil {
		t.Fatal(err)
	}
	srv.Clock().Advance(time.Minute)
	edited := before[120]
	if err := srv.Update("deals", edited); err != nil {
		t.Fatal(err)
	}
	gone := before[100]
	if err := srv.Delete("deals", gone); err != nil {
		t.Fatal(err)
	}
	if err := srv.Update("deals", gone); !errors.Is(err, hubspottest.ErrNoRecord) {
		t.Errorf("Update of a deleted record: %v, want ErrNoRecord", err)
	}
	if _, err := srv.Create("notes"); !errors.Is(err, hubspottest.ErrNoRecord) {
		t.Errorf("Create of notes: %v, want ErrNoRecord", err)
	}

	live := listAll(t, srv, "/crm/v3/objects/deals?")
	want := append(slices.DeleteFunc(slices.Clone(before), func(s string) bool { return s == gone }), id)
	if got := ids(t, live); !slices.Equal(got, want) || !slices.Equal(srv.IDs("deals"), want) || srv.Count("deals") != 250 {
		t.Fatalf("live deals: list %d, IDs %d, Count %d; want %d, the deleted one out and the created one last", len(got), len(srv.IDs("deals")), srv.Count("deals"), len(want))
	}
	archived := listAll(t, srv, "/crm/v3/objects/deals?archived=true&")
	if got := ids(t, archived); len(got) != hubspottest.ArchivedPerType+1 || got[0] != gone {
		t.Fatalf("archived deals %v: want %s first, then the %d generated ones", got, gone, hubspottest.ArchivedPerType)
	}
	a := decode[object](t, archived[0])
	if !a.Archived || a.ArchivedAt != "2026-11-02T10:02:00.000Z" {
		t.Errorf("archived deal: archived %v at %q, want true at 10:02", a.Archived, a.ArchivedAt)
	}
	resp, b := get(t, srv, "/crm/v3/objects/deals/"+gone)
	wantError(t, resp, b, http.StatusNotFound, "OBJECT_NOT_FOUND")
	if resp, b := get(t, srv, "/crm/v3/objects/deals/"+gone+"?archived=true"); resp.StatusCode != http.StatusOK || !decode[object](t, b).Archived {
		t.Errorf("get archived=true: %d %s", resp.StatusCode, b)
	}

	resp, b = get(t, srv, "/crm/v3/objects/deals/"+edited)
	o := decode[object](t, b)
	if resp.StatusCode != http.StatusOK || o.UpdatedAt != "2026-11-02T10:02:00.000Z" || *o.Properties["hs_lastmodifieddate"] != o.UpdatedAt ||
		!strings.Contains(*o.Properties["dealname"], "(edit 1)") {
		t.Errorf("updated deal: %s", b)
	}
	resp, b = get(t, srv, "/crm/v3/objects/deals/"+id)
	c := decode[object](t, b)
	if resp.StatusCode != http.StatusOK || c.CreatedAt != "2026-11-02T10:01:00.000Z" || c.UpdatedAt != c.CreatedAt ||
		c.Properties["dealname"] == nil || c.Properties["amount"] == nil || c.Properties["dealstage"] == nil {
		t.Errorf("created deal: %s", b)
	}

	// The search on the last-modified date finds exactly the two changes,
	// oldest first, rendered as the list renders them.
	p := search(t, srv, "deals", `{"filterGroups":[{"filters":[{"propertyName":"hs_lastmodifieddate","operator":"GTE","value":"`+
		"1793613600000"+`"}]}],"sorts":[{"propertyName":"hs_lastmodifieddate","direction":"ASCENDING"}],"limit":200}`)
	if p.Total == nil || *p.Total != 2 || len(p.Results) != 2 || p.Results[0].ID != id || p.Results[1].ID != edited {
		t.Fatalf("search of the changes: %+v", p)
	}
	_, raw := send(t, http.MethodPost, srv.URL+"/crm/v3/objects/deals/search", hubspottest.DefaultPrivateAppToken,
		`{"filterGroups":[{"filters":[{"propertyName":"hs_lastmodifieddate","operator":"GTE","value":"2026-11-02T10:00:00Z"}]}],"sorts":["hs_lastmodifieddate"]}`)
	var sr struct{ Results []json.RawMessage }
	if err := json.Unmarshal(raw, &sr); err != nil || len(sr.Results) != 2 {
		t.Fatalf("search: %s", raw)
	}
	if !bytes.Equal(sr.Results[0], live[len(live)-1]) {
		t.Errorf("search renders the created deal as\n%s\nthe list as\n%s", sr.Results[0], live[len(live)-1])
	}
	// Without filters the search still leaves the archived deal out.
	if all := search(t, srv, "deals", `{"limit":200}`); *all.Total != 250 || slices.ContainsFunc(all.Results, func(o object) bool { return o.ID == gone }) {
		t.Errorf("unfiltered search: total %d", *all.Total)
	}
	if q := search(t, srv, "deals", `{"query":"(edit 1)"}`); len(q.Results) != 1 || q.Results[0].ID != edited {
		t.Errorf("query search for the new name: %+v", q.Results)
	}
}
