package engine

import (
	"testing"
	"time"
)

// A minute-precision filter read in the account's zone: the wall time is
// the instant's, truncated to the minute, and near a daylight-saving change
// it starts early enough that a repeated hour loses nothing.
func TestInZone(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	kolkata, _ := time.LoadLocation("Asia/Kolkata")
	for _, c := range []struct {
		name string
		t    time.Time
		loc  *time.Location
		want string // the wall time a source would be given
	}{
		{"UTC, truncated", time.Date(2026, 11, 29, 5, 50, 42, 0, time.UTC), time.UTC, "2026/11/29 05:50"},
		{"half-hour offset", time.Date(2026, 11, 29, 5, 50, 42, 0, time.UTC), kolkata, "2026/11/29 11:20"},
		{"Berlin winter", time.Date(2026, 1, 10, 12, 0, 59, 0, time.UTC), berlin, "2026/01/10 13:00"},
		// 2026-10-25 03:00 CEST becomes 02:00 CET: 02:30 happens twice.
		// The first 02:30 (00:30 UTC) is written as 01:30, which is
		// before it whichever way the source reads 01:30.
		{"before the repeated hour", time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC), berlin, "2026/10/25 01:30"},
		// The second 02:30 (01:30 UTC) is written as 02:30: either
		// reading of it is at or before the instant.
		{"after it", time.Date(2026, 10, 25, 1, 30, 0, 0, time.UTC), berlin, "2026/10/25 02:30"},
	} {
		got := InZone(c.t, c.loc, time.Minute)
		if w := got.Format("2006/01/02 15:04"); w != c.want {
			t.Errorf("%s: %s, want %s", c.name, w, c.want)
		}
		if got.After(c.t) {
			t.Errorf("%s: %v is after %v", c.name, got, c.t)
		}
		// Every instant a source could read the wall time as (both, in
		// a repeated hour) is at or before the instant.
		wall := got.Format("2006/01/02 15:04")
		for u := c.t.Add(-4 * time.Hour); u.Before(c.t.Add(4 * time.Hour)); u = u.Add(time.Minute) {
			if u.In(c.loc).Format("2006/01/02 15:04") == wall && u.After(c.t) {
				t.Errorf("%s: the wall time %s may be read as %v, after %v", c.name, wall, u, c.t)
			}
		}
	}
}
