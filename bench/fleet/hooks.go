package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// hookEvent is one sync.completed event the receiver got (the first
// delivery of its id).
type hookEvent struct {
	connector, entity string
	cursor            int64
	changed           int64
	committed, got    time.Time
}

// receiver is the clients' webhook endpoint: it answers 204 at once and
// keeps each event once (deliveries are at least once: a repeated
// webhook-id is counted, not kept again).
type receiver struct {
	url string
	srv *http.Server

	mu       sync.Mutex
	seen     map[string]bool
	events   []hookEvent
	byType   map[string]int
	repeated int
}

func newReceiver() (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &receiver{url: "http://" + ln.Addr().String() + "/hooks", seen: map[string]bool{}, byType: map[string]int{}}
	r.srv = &http.Server{Handler: http.HandlerFunc(r.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

func (r *receiver) close() { _ = r.srv.Close() }

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	got := time.Now()
	b, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var ev struct {
		Type      string    `json:"type"`
		Timestamp time.Time `json:"timestamp"`
		Data      struct {
			Connector                  string `json:"connector_id"`
			Entity                     string `json:"entity"`
			Cursor                     int64  `json:"cursor"`
			Inserted, Updated, Deleted int64
		} `json:"data"`
	}
	if json.Unmarshal(b, &ev) != nil {
		http.Error(w, "not an event", http.StatusBadRequest)
		return
	}
	id := req.Header.Get("webhook-id")
	r.mu.Lock()
	if r.seen[id] {
		r.repeated++
	} else {
		r.seen[id] = true
		r.byType[ev.Type]++
		if ev.Type == "sync.completed" {
			r.events = append(r.events, hookEvent{connector: ev.Data.Connector, entity: ev.Data.Entity, cursor: ev.Data.Cursor,
				changed: ev.Data.Inserted + ev.Data.Updated + ev.Data.Deleted, committed: ev.Timestamp, got: got})
		}
	}
	r.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// snapshot returns the events so far and the counts by type.
func (r *receiver) snapshot() ([]hookEvent, map[string]int, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	types := make(map[string]int, len(r.byType))
	for k, v := range r.byType {
		types[k] = v
	}
	return append([]hookEvent(nil), r.events...), types, r.repeated
}
