package zendesktest

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

type testEvent struct {
	ID          json.Number      `json:"id"`
	TicketID    json.Number      `json:"ticket_id"`
	Timestamp   int64            `json:"timestamp"`
	CreatedAt   string           `json:"created_at"`
	UpdaterID   json.Number      `json:"updater_id"`
	Via         map[string]any   `json:"via"`
	EventType   string           `json:"event_type"`
	ChildEvents []map[string]any `json:"child_events"`
}

type testEventPage struct {
	TicketEvents []testEvent `json:"ticket_events"`
	NextPage     string      `json:"next_page"`
	Count        int         `json:"count"`
	EndTime      int64       `json:"end_time"`
	EndOfStream  bool        `json:"end_of_stream"`
}

func eventPage(t *testing.T, u string) testEventPage {
	t.Helper()
	resp, body := get(t, u, defaultAuth)
	wantStatus(t, resp, body, http.StatusOK)
	var p testEventPage
	d := json.NewDecoder(strings.NewReader(string(body)))
	d.UseNumber()
	if err := d.Decode(&p); err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	if p.Count != len(p.TicketEvents) {
		t.Errorf("count %d, %d events", p.Count, len(p.TicketEvents))
	}
	return p
}

// walkEvents follows next_page to end_of_stream and returns the events,
// boundary duplicates dropped, and the pages read.
func walkEvents(t *testing.T, u string) ([]testEvent, int) {
	t.Helper()
	var out []testEvent
	seen := map[string]bool{}
	for pages := 1; ; pages++ {
		if pages > 1000 {
			t.Fatal("no end_of_stream")
		}
		p := eventPage(t, u)
		for _, e := range p.TicketEvents {
			if !seen[e.ID.String()] {
				seen[e.ID.String()] = true
				out = append(out, e)
			}
		}
		if p.EndOfStream {
			return out, pages
		}
		u = p.NextPage
	}
}

// commentChildren returns the Comment child events of events by id.
func commentChildren(evs []testEvent) (ids []string, byID map[string]map[string]any) {
	byID = map[string]map[string]any{}
	for _, e := range evs {
		for _, c := range e.ChildEvents {
			if c["event_type"] == "Comment" {
				id := c["id"].(json.Number).String()
				ids = append(ids, id)
				byID[id] = c
			}
		}
	}
	return ids, byID
}

// The ticket events export lists the generated audits, one per comment,
// and every later change: a comment added or redacted, a ticket updated,
// deleted or created; its comment events carry what the comments list
// shows of them.
func TestTicketEventsExport(t *testing.T) {
	s, clock := newMutable(t)
	base := s.URL + "/api/v2/incremental/ticket_events.json?include=comment_events&start_time="
	evs, pages := walkEvents(t, base+"0&per_page=7")
	if len(evs) != cumComments(30) || pages < cumComments(30)/7 {
		t.Fatalf("%d events in %d pages, want %d", len(evs), pages, cumComments(30))
	}
	ids, byID := commentChildren(evs)
	if !slices.Equal(ids, s.IDs("ticket_comments")) {
		t.Errorf("comment events %v\nwant IDs %v", ids, s.IDs("ticket_comments"))
	}
	_, listed := commentsOf(t, s, "35437", false)
	for id, raw := range listed {
		var c map[string]any
		d := json.NewDecoder(strings.NewReader(string(raw)))
		d.UseNumber()
		if err := d.Decode(&c); err != nil {
			t.Fatal(err)
		}
		ev := byID[id]
		for _, k := range []string{"body", "html_body", "public", "author_id", "audit_id", "created_at", "type"} {
			if ev[k] != c[k] {
				t.Errorf("comment %s: event %s %v, list %v", id, k, ev[k], c[k])
			}
		}
		for _, k := range []string{"plain_body", "metadata"} {
			if _, ok := ev[k]; ok {
				t.Errorf("comment event has %s, which Zendesk does not document there", k)
			}
		}
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].Timestamp < evs[i-1].Timestamp {
			t.Fatalf("events out of order at %d", i)
		}
	}

	clock.Advance(time.Hour)
	since := clock.Now().Unix()
	tickets := s.IDs("tickets")
	added, _ := s.AddComment(tickets[2])
	clock.Advance(time.Second)
	if err := s.Update("ticket_comments", added); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	if err := s.Update("tickets", tickets[3]); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete("tickets", tickets[4]); err != nil {
		t.Fatal(err)
	}
	created, _ := s.Create("tickets")
	since2 := strconv.FormatInt(since, 10)
	clock.Advance(2 * time.Minute)
	p := eventPage(t, base+since2)
	if !p.EndOfStream {
		t.Error("no end_of_stream")
	}
	var got []string
	for _, e := range p.TicketEvents {
		kinds := []string{e.TicketID.String()}
		for _, c := range e.ChildEvents {
			switch {
			case c["event_type"] == "Comment" && c["body"] != nil:
				kinds = append(kinds, "comment:"+c["body"].(string)[:3])
			case c["event_type"] == "CommentRedactionEvent":
				kinds = append(kinds, "redact:"+c["comment_id"].(json.Number).String())
			case c["subject"] != nil && c["event_type"] == "Change":
				kinds = append(kinds, "subject:"+c["subject"].(string))
			case c["status"] != nil:
				kinds = append(kinds, "status:"+c["status"].(string))
			}
		}
		got = append(got, strings.Join(kinds, " "))
	}
	subj, _ := ticketSubject(3)
	nNew := numComments(30)
	// "▇" is three bytes: the redacted body's first three bytes are one.
	want := []string{
		tickets[2] + " comment:▇", // redacted since: the event shows it so
		tickets[2] + " redact:" + added,
		// In one second, by id: the created ticket's audits (ids like
		// the generated ones') come before the logged changes.
		created + " comment:" + bodies[0][:3] + " status:new",
	}
	for j := 1; j < nNew; j++ {
		e := created + " comment:" + bodies[j][:3]
		if prev, next := auditStatus(30, j); prev != next {
			e += " status:" + next
		}
		want = append(want, e)
	}
	want = append(want, tickets[3]+" subject:"+subj+" (update 1)", tickets[4]+" status:deleted")
	if !slices.Equal(got, want) {
		t.Errorf("events since %s:\n%q\nwant\n%q", since2, got, want)
	}

	// Without the sideload a comment is only comment_present and
	// comment_public.
	plain := eventPage(t, strings.Replace(base, "include=comment_events&", "", 1)+since2)
	c := plain.TicketEvents[0].ChildEvents[0]
	if c["comment_present"] != true || c["comment_public"] != true || c["body"] != nil {
		t.Errorf("comment event without the sideload: %v", c)
	}
}

// The ticket events export shares the exports' rate limit.
func TestTicketEventsRateLimit(t *testing.T) {
	s, clock := newMutable(t, WithExportRateLimit(2, time.Minute))
	clock.Advance(time.Hour)
	for _, path := range []string{"ticket_events.json?start_time=0", "tickets/cursor.json?start_time=0"} {
		resp, body := get(t, s.URL+"/api/v2/incremental/"+path, defaultAuth)
		wantStatus(t, resp, body, http.StatusOK)
	}
	resp, body := get(t, s.URL+"/api/v2/incremental/ticket_events.json?start_time=0", defaultAuth)
	wantStatus(t, resp, body, http.StatusTooManyRequests)
	resp, body = get(t, s.URL+"/api/v2/incremental/ticket_events.json?start_time="+strconv.FormatInt(clock.Now().Unix(), 10), defaultAuth)
	wantStatus(t, resp, body, http.StatusTooManyRequests)
}
