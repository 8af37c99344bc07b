package server_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A request's log line gives its duration in milliseconds, as
// duration_ms: no more than the caller waited, and not in nanoseconds.
func TestLogDurationMilliseconds(t *testing.T) {
	t.Parallel()
	s := start(t, sqliteStore(t), nil, nil)
	tok := s.token(t, clientA, "user-1")
	id := s.create(t, tok, "user-1")
	begin := time.Now()
	if a := s.execute(t, tok, id, map[string]any{"entity": "tickets", "action": "list"}); a.status != 200 {
		t.Fatalf("list: %d %s", a.status, a.body)
	}
	waited := float64(time.Since(begin).Microseconds()) / 1000
	var found bool
	for _, l := range strings.Split(strings.TrimSpace(s.logs.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if rec["msg"] != "request" {
			continue
		}
		if _, ok := rec["took"]; ok {
			t.Errorf("a request line with took: %s", l)
		}
		ms, ok := rec["duration_ms"].(float64)
		if !ok || ms < 0 {
			t.Errorf("a request line without a duration_ms: %s", l)
		}
		if rec["connector"] == id && rec["action"] == "list" {
			found = true
			if ms <= 0 || ms > waited {
				t.Errorf("duration_ms %v, want more than 0 and at most the %v ms the caller waited", ms, waited)
			}
		}
	}
	if !found {
		t.Errorf("no request line for the list:\n%s", s.logs.String())
	}
}

// A request's log line gives the bytes of the body the service wrote, for
// every answer (a list, an error), not only for downloads.
func TestLogBytesWritten(t *testing.T) {
	t.Parallel()
	s := start(t, sqliteStore(t), nil, nil)
	tok := s.token(t, clientA, "user-1")
	id := s.create(t, tok, "user-1")
	list := s.do(t, "POST", "/api/v1/connectors/sources/"+id+"/execute", tok, map[string]any{"entity": "tickets", "action": "list", "params": map[string]any{"per_page": 3}})
	missing := s.do(t, "POST", "/api/v1/connectors/sources/"+id+"/execute", tok, map[string]any{"entity": "tickets", "action": "get", "params": map[string]any{"ticket_id": 1}})
	if list.status != 200 || missing.status != 404 {
		t.Fatalf("list %d, get of a missing ticket %d", list.status, missing.status)
	}
	want := map[string]int{list.header.Get("X-Request-Id"): len(list.body), missing.header.Get("X-Request-Id"): len(missing.body)}
	for _, l := range strings.Split(strings.TrimSpace(s.logs.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		id, _ := rec["request_id"].(string)
		n, ok := want[id]
		if !ok || rec["msg"] != "request" {
			continue
		}
		if rec["bytes"] != float64(n) {
			t.Errorf("request %s: bytes %v in the log, %d written", id, rec["bytes"], n)
		}
		delete(want, id)
	}
	if len(want) != 0 {
		t.Errorf("no request line for %v:\n%s", want, s.logs.String())
	}
}
