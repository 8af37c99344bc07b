package hubspot_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/hubspot"
	"github.com/tributary-dev/tributary/kinds/hubspot/hubspottest"
)

// searchBody is what the fake received in one search request.
type filterJSON struct {
	PropertyName string `json:"propertyName"`
	Operator     string `json:"operator"`
	Value        any    `json:"value"`
}

type searchBody struct {
	FilterGroups []struct {
		Filters []filterJSON `json:"filters"`
	} `json:"filterGroups"`
	Sorts      []map[string]string `json:"sorts"`
	Properties []string            `json:"properties"`
	Limit      int                 `json:"limit"`
	After      string              `json:"after"`
}

func searchBodies(t *testing.T, srv *hubspottest.Server) []searchBody {
	t.Helper()
	var out []searchBody
	for _, r := range srv.Requests() {
		var b searchBody
		if err := json.Unmarshal(r.Body, &b); err != nil {
			t.Fatalf("search body %s: %v", r.Body, err)
		}
		out = append(out, b)
	}
	return out
}

// More than 10,000 matches: SearchAll re-windows on lastmodifieddate and
// yields every contact exactly once, in modification order, never asking
// HubSpot for an offset at or past the cap. Modification times are
// rounded to the day, so the window boundary falls inside a run of equal
// times that straddles the cap.
func TestSearchAllPastTheCap(t *testing.T) {
	const n = 10_300
	srv := hubspottest.New(hubspottest.WithContacts(n), hubspottest.WithModifiedGranularity(24*time.Hour))
	defer srv.Close()
	c := open(t, srv)
	half := []string{"subscriber", "lead", "marketingqualifiedlead", "salesqualifiedlead"}
	req := hubspot.SearchRequest{
		// Two groups whose union is every contact: the window filter must
		// go into each.
		FilterGroups: []hubspot.FilterGroup{
			{Filters: []hubspot.Filter{{PropertyName: "lifecyclestage", Operator: "IN", Values: half}}},
			{Filters: []hubspot.Filter{{PropertyName: "lifecyclestage", Operator: "NOT_IN", Values: half}}},
		},
		Properties: []string{"email"},
	}
	seen := make(map[string]bool, n)
	var times []time.Time
	for ct, err := range c.Contacts().SearchAll(context.Background(), req) {
		if err != nil {
			t.Fatalf("after %d contacts: %v", len(seen), err)
		}
		if seen[ct.ID] {
			t.Fatalf("contact %s yielded twice", ct.ID)
		}
		seen[ct.ID] = true
		tm, ok := ct.LastModifiedDate()
		if !ok {
			t.Fatalf("contact %s has no lastmodifieddate: %v", ct.ID, ct.Properties)
		}
		times = append(times, tm)
	}
	if len(seen) != n {
		t.Fatalf("yielded %d contacts, want %d", len(seen), n)
	}
	if !slices.IsSortedFunc(times, func(a, b time.Time) int { return a.Compare(b) }) {
		t.Error("contacts are not in modification order")
	}
	edge := times[hubspot.SearchResultCap-1]
	if !times[hubspot.SearchResultCap].Equal(edge) {
		t.Errorf("the test data does not straddle the cap with equal times (%v, %v)", edge, times[hubspot.SearchResultCap])
	}

	bodies := searchBodies(t, srv)
	windows := 0
	for i, b := range bodies {
		if after, _ := strconv.Atoi(b.After); after+b.Limit > hubspot.SearchResultCap {
			t.Fatalf("request %d asked for %d records after %s", i, b.Limit, b.After)
		}
		if len(b.Sorts) != 1 || b.Sorts[0]["propertyName"] != "lastmodifieddate" || b.Sorts[0]["direction"] != "ASCENDING" ||
			!slices.Contains(b.Properties, "lastmodifieddate") || !slices.Contains(b.Properties, "email") || len(b.FilterGroups) != 2 {
			t.Fatalf("request %d: %+v", i, b)
		}
		g0, g1 := b.FilterGroups[0].Filters, b.FilterGroups[1].Filters
		if len(g0) != len(g1) {
			t.Fatalf("request %d: the window filter is not in both groups: %+v", i, b.FilterGroups)
		}
		if len(g0) == 2 && b.After == "" {
			windows++
			for _, f := range []filterJSON{g0[1], g1[1]} {
				if f.PropertyName != "lastmodifieddate" || f.Operator != "GTE" || f.Value != strconv.FormatInt(edge.UnixMilli(), 10) {
					t.Errorf("window filter %+v, want lastmodifieddate GTE %d (the last time yielded)", f, edge.UnixMilli())
				}
			}
		}
	}
	if windows != 1 || bodies[0].Limit != hubspot.MaxSearchLimit {
		t.Errorf("%d re-windows, first limit %d", windows, bodies[0].Limit)
	}
}

// When re-windowing cannot work, SearchAll says so instead of stopping
// silently at the cap.
func TestSearchAllRefusesToStopSilently(t *testing.T) {
	const n = 10_050
	ctx := context.Background()

	// Another sort order: the first page's total already shows it.
	srv := hubspottest.New(hubspottest.WithContacts(n))
	defer srv.Close()
	c := open(t, srv)
	got := 0
	var err error
	for _, e := range c.SearchAll(ctx, "contacts", tributary.Params{"sorts": []any{map[string]any{"propertyName": "createdate", "direction": "DESCENDING"}}}) {
		if e != nil {
			err = e
			break
		}
		got++
	}
	if !errors.Is(err, tributary.ErrPaging) || got != 0 || !strings.Contains(err.Error(), "10050") || len(srv.Requests()) != 1 {
		t.Errorf("sorted by createdate: %v after %d records and %d requests", err, got, len(srv.Requests()))
	}

	// Every contact modified at the same instant: no window can advance.
	same := hubspottest.New(hubspottest.WithContacts(n), hubspottest.WithModifiedGranularity(100*365*24*time.Hour))
	defer same.Close()
	c = open(t, same)
	got, err = 0, nil
	for _, e := range c.SearchAll(ctx, "contacts", nil) {
		if e != nil {
			err = e
			break
		}
		got++
	}
	if !errors.Is(err, tributary.ErrPaging) || got != hubspot.SearchResultCap || !strings.Contains(err.Error(), "lastmodifieddate") {
		t.Errorf("one instant: %v after %d records", err, got)
	}

	// A filter group with no room for the window filter.
	srv.ResetRequests()
	full := make([]any, hubspot.MaxFiltersPerGroup)
	for i := range full {
		full[i] = map[string]any{"propertyName": "createdate", "operator": "GTE", "value": "0"}
	}
	c = open(t, srv)
	got, err = 0, nil
	for _, e := range c.SearchAll(ctx, "contacts", tributary.Params{"filterGroups": []any{map[string]any{"filters": full}}}) {
		if e != nil {
			err = e
			break
		}
		got++
	}
	if !errors.Is(err, tributary.ErrPaging) || got != hubspot.SearchResultCap || !strings.Contains(err.Error(), "no room") {
		t.Errorf("full filter group: %v after %d records", err, got)
	}
}

// Fewer matches than the cap: plain paging, the caller's sort kept, and
// the caller's after and limit respected.
func TestSearchAllUnderTheCap(t *testing.T) {
	srv := hubspottest.New(hubspottest.WithDeals(250))
	defer srv.Close()
	c := open(t, srv)
	var ids []string
	for d, err := range c.Deals().SearchAll(context.Background(), hubspot.SearchRequest{
		Sorts: []hubspot.Sort{{PropertyName: "createdate", Direction: "DESCENDING"}}, Limit: 100, After: "10",
	}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, d.ID)
	}
	if len(ids) != 240 || ids[0] != srv.ObjectID("deals", 239) || ids[239] != srv.ObjectID("deals", 0) {
		t.Fatalf("%d deals, first %s last %s", len(ids), ids[0], ids[len(ids)-1])
	}
	bodies := searchBodies(t, srv)
	if len(bodies) != 3 || bodies[0].After != "10" || bodies[1].After != "110" || bodies[0].Limit != 100 || bodies[0].Sorts[0]["propertyName"] != "createdate" {
		t.Errorf("requests %+v", bodies)
	}
	for _, err := range c.SearchAll(context.Background(), "deals", tributary.Params{"after": "abc"}) {
		if !errors.Is(err, tributary.ErrInvalidParams) {
			t.Errorf("after abc: %v", err)
		}
	}
}
