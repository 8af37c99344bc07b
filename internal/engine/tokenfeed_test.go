package engine_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/transport"
	"github.com/tributary-dev/tributary/pagination"
)

// readFeed reads entity's feed from a checkpoint to its end: the raw
// records and deletions, and the last checkpoint.
func readFeed(c *engine.Connector, entity string, base tributary.Params, from tributary.Checkpoint) (recs, dels []string, cp tributary.Checkpoint, err error) {
	for ch, err := range c.Changes(context.Background(), entity, base, from) {
		if err != nil {
			return recs, dels, cp, err
		}
		for _, r := range ch.Records {
			recs = append(recs, string(r.Raw()))
		}
		for _, r := range ch.Deleted {
			dels = append(dels, string(r.Raw()))
		}
		cp = ch.Checkpoint
	}
	return recs, dels, cp, nil
}

// A feed of tokens shaped as Asana's events: the first call, with no
// token, answers 412 with one; a pass pages while has_more; the token of
// the last page is kept; an expired token is ErrCursorExpired.
func TestTokenFeedFromAnExpiredAnswer(t *testing.T) {
	var sent []string
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		q := r.URL.Query()
		sent = append(sent, r.URL.Path+"?"+r.URL.RawQuery)
		switch {
		case r.URL.Path == "/tasks":
			return reply(200, nil, `{"data":[{"gid":"1"},{"gid":"2"}],"next_page":null}`), nil
		case q.Get("sync") == "":
			return reply(412, nil, `{"errors":[{"message":"Sync token invalid or too old."}],"sync":"s1"}`), nil
		case q.Get("sync") == "s1":
			return reply(200, nil, `{"data":[{"action":"changed","resource":{"gid":"2","name":"two"}}],"sync":"s2","has_more":true}`), nil
		case q.Get("sync") == "s2":
			return reply(200, nil, `{"data":[{"action":"deleted","resource":{"gid":"1"}}],"sync":"s3","has_more":false}`), nil
		}
		return reply(412, nil, `{"errors":[{"message":"Sync token invalid or too old."}],"sync":"s9"}`), nil
	})
	k := &engine.Kind{Type: "asana-like", Entities: []engine.Entity{{
		Entity: tributary.Entity{Name: "tasks", Actions: []tributary.Action{tributary.ActionList}, IDField: "gid",
			Params: map[tributary.Action][]tributary.Param{tributary.ActionList: {{Name: "project", Type: tributary.TypeString}}},
			Feed: &tributary.Feed{
				Params: func(base tributary.Params, _ time.Time) tributary.Params {
					return tributary.Params{"resource": base["project"]}
				},
				Token:  &tributary.TokenFeed{Param: "sync", New: "sync", Expired: []int{412}, ExpiredToken: "sync"},
				Unwrap: "resource",
				Deleted: func(r tributary.Record) bool {
					a, _ := r.StringAt("action")
					return a == "deleted"
				},
			}},
		Routes:    map[tributary.Action][]engine.Route{tributary.ActionList: {{Path: "/tasks", Records: "data", Paging: pagination.Token{Param: "offset", Field: "next_page.offset"}}}},
		FeedRoute: &engine.Route{Path: "/events", Records: "data", Paging: pagination.Token{Param: "sync", Field: "sync", More: "has_more"}},
	}}}
	c, err := engine.Open(engine.Setup{Kind: k, Options: tributary.NewOptions(tributary.WithHTTPClient(&http.Client{Transport: rt})),
		DefaultBaseURL: "https://app.example.com", Auth: transport.Bearer(secret)})
	if err != nil {
		t.Fatal(err)
	}
	read := func(from tributary.Checkpoint) (recs, dels []string, cp tributary.Checkpoint, err error) {
		return readFeed(c, "tasks", tributary.Params{"project": "p1"}, from)
	}
	recs, _, cp, err := read(tributary.Checkpoint{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{`{"gid":"1"}`, `{"gid":"2"}`}, recs); d != "" || cp.Token != "s1" || cp.Walking || cp.Next != nil {
		t.Fatalf("first read: %s, checkpoint %+v", d, cp)
	}
	recs, dels, cp, err := read(cp)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal([]string{`{"gid":"2","name":"two"}`}, recs) || !cmp.Equal([]string{`{"gid":"1"}`}, dels) || cp.Token != "s3" {
		t.Errorf("pass: %q %q, checkpoint %+v", recs, dels, cp)
	}
	want := []string{"/events?resource=p1", "/tasks?project=p1", "/events?resource=p1&sync=s1", "/events?resource=p1&sync=s2"}
	if d := cmp.Diff(want, sent); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
	if _, _, _, err := read(tributary.Checkpoint{Token: "old"}); !errors.Is(err, tributary.ErrCursorExpired) {
		t.Errorf("an expired token: %v", err)
	}
}

// A feed read in the account's zone keeps the zone in its checkpoint: a
// pass of another connector (another process) sends no request for it
// while it is younger than ZoneTTL.
func TestZoneKeptInTheCheckpoint(t *testing.T) {
	var sent []string
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sent = append(sent, r.URL.Path+"?"+r.URL.RawQuery)
		if r.URL.Path == "/myself" {
			return reply(200, nil, `{"accountId":"a","timeZone":"Australia/Adelaide"}`), nil
		}
		return reply(200, nil, `{"items":[{"id":"1","updated":"2026-11-29T16:21:00.000+1030"}]}`), nil
	})
	open := func() *engine.Connector {
		k := &engine.Kind{Type: "zone-test", Entities: []engine.Entity{{
			Entity: tributary.Entity{Name: "items", Actions: []tributary.Action{tributary.ActionList},
				Params: map[tributary.Action][]tributary.Param{tributary.ActionList: {{Name: "since", Type: tributary.TypeString}}},
				Feed: &tributary.Feed{
					Params: func(base tributary.Params, since time.Time) tributary.Params {
						p := tributary.Params{}
						if !since.IsZero() {
							p["since"] = since.Format("2006/01/02 15:04")
						}
						return p
					},
					Changed: "updated", Precision: time.Minute, Zone: &tributary.Zone{Path: "/myself", Field: "timeZone"}}},
			Routes: map[tributary.Action][]engine.Route{tributary.ActionList: {{Path: "/items", Records: "items"}}},
		}}}
		c, err := engine.Open(engine.Setup{Kind: k, Options: tributary.NewOptions(tributary.WithHTTPClient(&http.Client{Transport: rt})),
			DefaultBaseURL: "https://x.example.com", Auth: transport.Bearer(secret)})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	last := func(c *engine.Connector, from tributary.Checkpoint) tributary.Checkpoint {
		var cp tributary.Checkpoint
		for ch, err := range c.Changes(context.Background(), "items", nil, from) {
			if err != nil {
				t.Fatal(err)
			}
			cp = ch.Checkpoint
		}
		return cp
	}
	// A full read reads the zone and keeps it.
	cp := last(open(), tributary.Checkpoint{})
	if cp.Zone != "Australia/Adelaide" || cp.ZoneAt.IsZero() {
		t.Fatalf("checkpoint %+v", cp)
	}
	// Another connector's pass: the zone from the checkpoint, no request.
	sent = nil
	last(open(), cp)
	// The checkpoint's 05:51 UTC is 16:21 in Adelaide (+10:30).
	if d := cmp.Diff([]string{"/items?since=2026%2F11%2F29%2016%3A21"}, sent); d != "" {
		t.Fatalf("requests (-want +got):\n%s", d)
	}
	// An old zone is read again.
	cp.ZoneAt = cp.ZoneAt.Add(-2 * tributary.ZoneTTL)
	sent = nil
	if cp = last(open(), cp); len(sent) != 2 || sent[0] != "/myself?" || cp.ZoneAt.Before(time.Now().Add(-time.Minute)) {
		t.Errorf("requests %q, checkpoint %+v", sent, cp)
	}
}

// A feed whose records only name what changed (Asana's events: a task's
// gid and name) has a page's changes read again by one walk of the list,
// from the earliest change of the page; deletions come from the feed.
func TestTokenFeedReread(t *testing.T) {
	var sent []string
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sent = append(sent, r.URL.Path+"?"+r.URL.RawQuery)
		switch {
		case r.URL.Path == "/tasks" && r.URL.Query().Get("modified_since") == "2026-01-02T03:04:00Z":
			return reply(200, nil, `{"data":[{"gid":"2","name":"two","notes":"full"},{"gid":"3","name":"three","notes":"full"}],"next_page":null}`), nil
		case r.URL.Path == "/events" && r.URL.Query().Get("sync") == "s1":
			return reply(200, nil, `{"data":[`+
				`{"action":"changed","created_at":"2026-01-02T03:05:00Z","resource":{"gid":"3","name":"three"}},`+
				`{"action":"changed","created_at":"2026-01-02T03:04:00Z","resource":{"gid":"2","name":"two"}},`+
				`{"action":"deleted","created_at":"2026-01-02T03:01:00Z","resource":{"gid":"1"}}],"sync":"s2","has_more":false}`), nil
		}
		return reply(500, nil, `{}`), nil
	})
	recs, dels, _ := rereadChanges(t, rt, "")
	if d := cmp.Diff([]string{`{"gid":"2","name":"two","notes":"full"}`, `{"gid":"3","name":"three","notes":"full"}`}, recs); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
	if !cmp.Equal([]string{`{"gid":"1"}`}, dels) {
		t.Errorf("deletions %q", dels)
	}
	want := []string{"/events?resource=p1&sync=s1", "/tasks?modified_since=2026-01-02T03%3A04%3A00Z&project=p1"}
	if d := cmp.Diff(want, sent); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
}

// rereadChanges reads the changes of an Asana-like tasks feed with
// Feed.Reread (get, when set, its Get) from the token s1, through rt.
func rereadChanges(t *testing.T, rt http.RoundTripper, get string) (recs, dels []string, cp tributary.Checkpoint) {
	t.Helper()
	member := func(base tributary.Params, r tributary.Record) bool {
		p, ok := r.StringAt("project")
		return !ok || p == base["project"]
	}
	k := &engine.Kind{Type: "asana-like", Entities: []engine.Entity{{
		Entity: tributary.Entity{Name: "tasks", Actions: []tributary.Action{tributary.ActionList, tributary.ActionGet}, IDField: "gid",
			Params: map[tributary.Action][]tributary.Param{
				tributary.ActionList: {{Name: "project", Type: tributary.TypeString}, {Name: "modified_since", Type: tributary.TypeString}},
				tributary.ActionGet:  {{Name: "task_gid", Type: tributary.TypeString, Required: true}}},
			Feed: &tributary.Feed{
				Params: func(base tributary.Params, _ time.Time) tributary.Params {
					return tributary.Params{"resource": base["project"]}
				},
				Token:  &tributary.TokenFeed{Param: "sync", New: "sync", Expired: []int{412}, ExpiredToken: "sync"},
				Unwrap: "resource", Reread: &tributary.Reread{Param: "modified_since", At: "created_at", Get: get, Member: member},
				Deleted: func(r tributary.Record) bool { a, _ := r.StringAt("action"); return a == "deleted" || a == "removed" },
			}},
		Routes: map[tributary.Action][]engine.Route{
			tributary.ActionList: {{Path: "/tasks", Records: "data", Paging: pagination.Token{Param: "offset", Field: "next_page.offset"}}},
			tributary.ActionGet:  {{Path: "/tasks/{task_gid}", Records: "data"}}},
		FeedRoute: &engine.Route{Path: "/events", Records: "data", Paging: pagination.Token{Param: "sync", Field: "sync", More: "has_more"}},
	}}}
	c, err := engine.Open(engine.Setup{Kind: k, Options: tributary.NewOptions(tributary.WithHTTPClient(&http.Client{Transport: rt})),
		DefaultBaseURL: "https://app.example.com", Auth: transport.Bearer(secret)})
	if err != nil {
		t.Fatal(err)
	}
	for ch, err := range c.Changes(context.Background(), "tasks", tributary.Params{"project": "p1"}, tributary.Checkpoint{Token: "s1"}) {
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range ch.Records {
			recs = append(recs, string(r.Raw()))
		}
		for _, r := range ch.Deleted {
			dels = append(dels, string(r.Raw()))
		}
		cp = ch.Checkpoint
	}
	return recs, dels, cp
}

// With Reread.Get, a task the page names that the walk by modified_since
// did not return (added to the project: Asana keeps its modified_at) is
// read by its gid, once; not one the page removes last; one the source
// no longer has is left to its deletion, and one not of the copy's
// params (Member: a subtask, in no project) left out.
func TestTokenFeedRereadGet(t *testing.T) {
	var sent []string
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sent = append(sent, r.URL.Path+"?"+r.URL.RawQuery)
		switch r.URL.Path {
		case "/events":
			return reply(200, nil, `{"data":[`+
				`{"action":"changed","created_at":"2026-01-02T03:04:00Z","resource":{"gid":"2","name":"two"}},`+
				`{"action":"added","created_at":"2026-01-02T03:05:00Z","resource":{"gid":"4","name":"four"}},`+
				`{"action":"changed","created_at":"2026-01-02T03:05:30Z","resource":{"gid":"4","name":"four"}},`+
				`{"action":"added","created_at":"2026-01-02T03:06:00Z","resource":{"gid":"5","name":"five"}},`+
				`{"action":"removed","created_at":"2026-01-02T03:07:00Z","resource":{"gid":"5","name":"five"}},`+
				`{"action":"added","created_at":"2026-01-02T03:08:00Z","resource":{"gid":"6","name":"six"}},`+
				`{"action":"added","created_at":"2026-01-02T03:09:00Z","resource":{"gid":"7","name":"a subtask"}}],"sync":"s2","has_more":false}`), nil
		case "/tasks":
			return reply(200, nil, `{"data":[{"gid":"2","name":"two","notes":"full"}],"next_page":null}`), nil
		case "/tasks/4":
			return reply(200, nil, `{"data":{"gid":"4","name":"four","notes":"full"}}`), nil
		case "/tasks/7":
			return reply(200, nil, `{"data":{"gid":"7","project":"elsewhere"}}`), nil
		case "/tasks/6":
			return reply(404, nil, `{"errors":[{"message":"task: Unknown object: 6"}]}`), nil
		}
		return reply(500, nil, `{}`), nil
	})
	recs, dels, _ := rereadChanges(t, rt, "task_gid")
	if d := cmp.Diff([]string{`{"gid":"2","name":"two","notes":"full"}`, `{"gid":"4","name":"four","notes":"full"}`}, recs); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{`{"gid":"5","name":"five"}`}, dels); d != "" {
		t.Errorf("deletions (-want +got):\n%s", d)
	}
	want := []string{"/events?resource=p1&sync=s1", "/tasks?modified_since=2026-01-02T03%3A04%3A00Z&project=p1", "/tasks/4?", "/tasks/6?", "/tasks/7?"}
	if d := cmp.Diff(want, sent); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
}

// The pages of events a pass reads are read again together: one walk
// from the earliest change of them all, not one a page (which would read
// the second page's tasks twice); the checkpoint is the last page's.
func TestTokenFeedRereadOncePerPages(t *testing.T) {
	var sent []string
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sent = append(sent, r.URL.Path+"?"+r.URL.RawQuery)
		switch q := r.URL.Query(); {
		case r.URL.Path == "/events" && q.Get("sync") == "s1":
			return reply(200, nil, `{"data":[{"action":"changed","created_at":"2026-01-02T03:04:00Z","resource":{"gid":"2"}}],"sync":"s2","has_more":true}`), nil
		case r.URL.Path == "/events" && q.Get("sync") == "s2":
			return reply(200, nil, `{"data":[{"action":"changed","created_at":"2026-01-02T03:06:00Z","resource":{"gid":"3"}}],"sync":"s3","has_more":false}`), nil
		case r.URL.Path == "/tasks" && q.Get("modified_since") == "2026-01-02T03:04:00Z":
			return reply(200, nil, `{"data":[{"gid":"2","notes":"full"},{"gid":"3","notes":"full"}],"next_page":null}`), nil
		}
		return reply(500, nil, `{}`), nil
	})
	recs, _, cp := rereadChanges(t, rt, "task_gid")
	if d := cmp.Diff([]string{`{"gid":"2","notes":"full"}`, `{"gid":"3","notes":"full"}`}, recs); d != "" || cp.Token != "s3" || cp.Next != nil {
		t.Errorf("checkpoint %+v, records (-want +got):\n%s", cp, d)
	}
	want := []string{"/events?resource=p1&sync=s1", "/events?resource=p1&sync=s2", "/tasks?modified_since=2026-01-02T03%3A04%3A00Z&project=p1"}
	if d := cmp.Diff(want, sent); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
}
