package server

import (
	"strings"
	"testing"
	"time"
)

// The sync history's plots: one point per synchronization for the
// records, one per synchronization after an entity's first for the lag,
// in time order, with tooltips escaped.
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
	if r, l := historyPlots(h[:1]); r != "" || l != "" {
		t.Errorf("one synchronization plots %q and %q", r, l)
	}
}
