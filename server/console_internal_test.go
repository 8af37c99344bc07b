package server

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// The sync history's plots: one line per entity, with one point per
// synchronization for the records and one per synchronization after an
// entity's first for the lag, in time order, with tooltips escaped. (One
// line ran through every entity's points in time order, joining a
// tickets sync to the users sync after it.)
func TestHistoryPlots(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	h := []historyRow{ // newest first, as the store reads them
		{At: t0.Add(30 * time.Minute), Entity: "tickets", Inserted: 5},
		{At: t0.Add(20 * time.Minute), Entity: "<users>", Updated: 7},
		{At: t0.Add(10 * time.Minute), Entity: "tickets", Deleted: 1},
		{At: t0, Entity: "tickets", Inserted: 250},
	}
	records, lag := historyPlots(h)
	if n := strings.Count(string(records), "<circle"); n != 4 {
		t.Errorf("the records plot has %d points, want 4", n)
	}
	if !strings.Contains(string(records), "&lt;users&gt;: 7 records changed") || strings.Contains(string(records), "<users>") {
		t.Errorf("the records plot's tooltips are not escaped: %s", records)
	}
	if !strings.Contains(string(records), "at most 250.") || !strings.Contains(string(records), `<span class="ymax" aria-hidden="true">250</span>`) {
		t.Errorf("the records plot's scale is not 250: %s", records)
	}
	if n := strings.Count(string(lag), "<circle"); n != 2 {
		t.Errorf("the lag plot has %d points, want 2 (tickets' second and third syncs)", n)
	}
	if !strings.Contains(string(lag), "tickets: 10.0 minutes") || !strings.Contains(string(lag), "tickets: 20.0 minutes") {
		t.Errorf("the lag plot's points: %s", lag)
	}
	series := regexp.MustCompile(`<g class="series" data-entity="([^"]*)">(<polyline points="([^"]*)")?`).FindAllStringSubmatch(string(records), -1)
	if len(series) != 2 || series[0][1] != "&lt;users&gt;" || series[1][1] != "tickets" {
		t.Fatalf("the records plot's series: %q, want <users> and tickets", series)
	}
	if series[0][2] != "" {
		t.Errorf("<users>, synchronized once, is drawn as a line: %q", series[0][2])
	}
	if pts := strings.Fields(series[1][3]); len(pts) != 3 {
		t.Errorf("the tickets line has %d points (%q), want its 3 syncs", len(pts), pts)
	}
	if n := strings.Count(string(records), "<polyline"); n != 1 {
		t.Errorf("the records plot has %d lines, want 1 (tickets)", n)
	}
	if !strings.Contains(string(records), `<ul class="legend" aria-label="Entities">`) || strings.Count(string(records), "<li>") != 2 {
		t.Errorf("the records plot's legend: %s", records)
	}
	if r, l := historyPlots(h[:1]); r != "" || l != "" {
		t.Errorf("one synchronization plots %q and %q", r, l)
	}
}
