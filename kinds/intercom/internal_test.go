package intercom

import (
	"net/http"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
)

func TestRetryAfterReadsTheResetHeader(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	resp := func(status int, remaining, reset string) *http.Response {
		h := http.Header{}
		if remaining != "" {
			h.Set("X-RateLimit-Remaining", remaining)
		}
		if reset != "" {
			h.Set("X-RateLimit-Reset", reset)
		}
		return &http.Response{StatusCode: status, Header: h}
	}
	for _, tc := range []struct {
		r    *http.Response
		want time.Duration
		ok   bool
	}{
		{resp(429, "0", "1800000007"), 7 * time.Second, true},
		{resp(429, "", "1800000003"), 3 * time.Second, true},  // a 429 always reads the reset
		{resp(503, "0", "1800000004"), 4 * time.Second, true}, // remaining 0 on a retryable answer
		{resp(503, "12", "1800000004"), 0, false},             // not rate-limited
		{resp(429, "0", "1799999990"), 0, false},              // reset already past: default backoff
		{resp(429, "0", ""), 0, false},                        // no reset: default backoff
		{resp(429, "0", "soon"), 0, false},
	} {
		d, ok := retryAfter(tc.r, now)
		if d != tc.want || ok != tc.ok {
			t.Errorf("%d remaining %q reset %q: %v %v, want %v %v", tc.r.StatusCode, tc.r.Header.Get("X-RateLimit-Remaining"),
				tc.r.Header.Get("X-RateLimit-Reset"), d, ok, tc.want, tc.ok)
		}
	}
}

func TestParseErrorList(t *testing.T) {
	e := &tributary.Error{}
	parseError(400, http.Header{}, []byte(`{"type":"error.list","request_id":"r-1","errors":[{"code":"parameter_invalid","message":"per_page is bad","field":"per_page"},{"code":"parameter_invalid","message":"page is bad"}]}`), e)
	if e.Code != "parameter_invalid" || e.Message != "per_page is bad; page is bad" || e.RequestID != "r-1" || e.Param != "per_page" {
		t.Errorf("%+v", e)
	}
	e = &tributary.Error{}
	parseError(502, http.Header{"X-Request-Id": {"h-2"}}, []byte(`<html>bad gateway</html>`), e)
	if e.Code != "" || e.Message != "" || e.RequestID != "h-2" {
		t.Errorf("%+v", e)
	}
	e = &tributary.Error{}
	parseError(404, http.Header{}, []byte(`{"type":"error.list","request_id":null,"errors":[{"code":"not_found","message":null}]}`), e)
	if e.Code != "not_found" || e.Message != "not_found" || e.RequestID != "" {
		t.Errorf("%+v", e)
	}
}

func TestIDSet(t *testing.T) {
	s := newIDSet()
	for _, id := range []string{"65a0c0ae0000000000000001", "65a0c0ae0000000000000002", "215470000000101", "65A0C0AE0000000000000001"} {
		if !s.add(id) {
			t.Errorf("%s is new", id)
		}
		if s.add(id) {
			t.Errorf("%s is not new", id)
		}
	}
	for range 2 {
		if !s.add("") {
			t.Error("records without id are always new")
		}
	}
	if len(s.hex) != 2 || len(s.other) != 2 {
		t.Errorf("%d hex, %d other", len(s.hex), len(s.other))
	}
}

func TestBackoff(t *testing.T) {
	for _, tc := range []struct {
		lo, hi  time.Duration
		attempt int
		want    time.Duration
	}{
		{time.Second, 30 * time.Second, 0, time.Second},
		{time.Second, 30 * time.Second, 3, 8 * time.Second},
		{time.Second, 30 * time.Second, 5, 30 * time.Second},
		{time.Hour, 2 * time.Hour, 100, 2 * time.Hour},
		{250 * time.Millisecond, 250 * time.Millisecond, 7, 250 * time.Millisecond},
	} {
		if got := backoff(tc.lo, tc.hi, tc.attempt); got != tc.want {
			t.Errorf("backoff(%v, %v, %d) = %v, want %v", tc.lo, tc.hi, tc.attempt, got, tc.want)
		}
	}
}
