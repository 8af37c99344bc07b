package fakeserver_test

import (
	"testing"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// TakeN counts units (a query's complexity) against the window: what does
// not fit is refused and not counted; a new window starts afresh.
func TestWindowTakeN(t *testing.T) {
	w := &fakeserver.Window{Limit: 100, Per: time.Hour}
	start := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		at        time.Duration
		n, remain int
		ok        bool
	}{
		{0, 60, 40, true}, {time.Minute, 50, 40, false}, {2 * time.Minute, 40, 0, true}, {3 * time.Minute, 1, 0, false},
		{time.Hour, 1, 99, true},
	} {
		rem, reset, ok := w.TakeN(start.Add(c.at), c.n)
		if rem != c.remain || ok != c.ok || !reset.Equal(start.Add(c.at).Truncate(time.Hour).Add(time.Hour)) {
			t.Errorf("at %v take %d: %d left, reset %v, ok %v; want %d, %v", c.at, c.n, rem, reset, ok, c.remain, c.ok)
		}
	}
}
