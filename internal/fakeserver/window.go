package fakeserver

import (
	"net/http"
	"sync"
	"time"
)

// Window is a vendor's rate limit as a fake enforces it: Limit requests
// per fixed window of length Per, on the fake's clock (a NewRealClock for
// a client that paces itself in real time). Windows start at multiples of
// Per, as Intercom's and GitHub's resets fall on whole seconds. The zero
// Limit lets every request through. It is safe for concurrent use.
type Window struct {
	Limit int
	Per   time.Duration

	mu    sync.Mutex
	start time.Time
	used  int
}

// Take counts a request at now. It returns the requests left in the
// window, when the window ends, and whether the request is within the
// limit (a refused request is not counted).
func (w *Window) Take(now time.Time) (remaining int, reset time.Time, ok bool) {
	return w.TakeN(now, 1)
}

// TakeN counts n units at now (a query's complexity points, for a
// vendor that limits them): what is left in the window, when the window
// ends, and whether the n units fit in what was left (units refused are
// not counted).
func (w *Window) TakeN(now time.Time, n int) (remaining int, reset time.Time, ok bool) {
	if w.Limit <= 0 || w.Per <= 0 {
		return 0, time.Time{}, true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if start := now.Truncate(w.Per); !start.Equal(w.start) {
		w.start, w.used = start, 0
	}
	reset = w.start.Add(w.Per)
	if w.used+n > w.Limit {
		return w.Limit - w.used, reset, false
	}
	w.used += n
	return w.Limit - w.used, reset, true
}

// Enforce puts h behind win on the clock now: a request over the limit
// gets the vendor's rate-limit answer, refuse (Vendor.RateLimited), told
// the time left in the window.
func Enforce(win *Window, now func() time.Time, refuse func(w http.ResponseWriter, r *http.Request, retryAfter time.Duration), h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t := now()
		if _, reset, ok := win.Take(t); !ok {
			refuse(w, r, reset.Sub(t))
			return
		}
		h.ServeHTTP(w, r)
	})
}
