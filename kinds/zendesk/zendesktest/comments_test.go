package zendesktest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// commentsOf reads every comment of a ticket, in cursor or offset mode.
func commentsOf(t *testing.T, s *Server, ticket string, cursor bool) ([]string, map[string]json.RawMessage) {
	t.Helper()
	q := "?per_page=100"
	if cursor {
		q = "?page[size]=100"
	}
	resp, body := get(t, s.URL+"/api/v2/tickets/"+ticket+"/comments.json"+q, defaultAuth)
	wantStatus(t, resp, body, http.StatusOK)
	_, body2 := get(t, s.URL+"/api/v2/tickets/"+ticket+"/comments.json"+q, defaultAuth)
	if !bytes.Equal(body, body2) {
		t.Errorf("two reads of ticket %s's comments differ:\n%s\n%s", ticket, body, body2)
	}
	return records(t, body, "comments")
}

// exportedTickets returns the ids the cursor-based ticket export lists
// from since.
func exportedTickets(t *testing.T, s *Server, since int64) []string {
	t.Helper()
	resp, body := get(t, s.URL+"/api/v2/incremental/tickets/cursor.json?start_time="+strconv.FormatInt(since, 10), defaultAuth)
	wantStatus(t, resp, body, http.StatusOK)
	order, _ := records(t, body, "tickets")
	return order
}

// A comment added shows last in its ticket's comments list, in IDs, and
// moves its ticket into the export; a redacted one shows ▇ in place of
// its text; both change the ticket's updated_at.
func TestCommentAddAndRedact(t *testing.T) {
	s, clock := newMutable(t)
	before := s.IDs("ticket_comments")
	tickets := s.IDs("tickets")
	if len(before) != cumComments(30) {
		t.Fatalf("IDs(ticket_comments) has %d, want %d", len(before), cumComments(30))
	}

	clock.Advance(time.Hour)
	since := clock.Now().Unix()
	stamp := clock.Now().UTC().Format(time.RFC3339)
	target := tickets[4]
	id, err := s.AddComment(target)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.IDs("ticket_comments"), append(slices.Clone(before), id); !slices.Equal(got, want) {
		t.Fatalf("IDs after AddComment: %d ids ending %v, want ending %s", len(got), got[len(got)-2:], id)
	}
	for _, cursor := range []bool{false, true} {
		order, byID := commentsOf(t, s, target, cursor)
		if len(order) != numComments(4)+1 || order[len(order)-1] != id {
			t.Fatalf("comments of %s: %v, want the added %s last", target, order, id)
		}
		if !bytes.Contains(byID[id], []byte(`"created_at":"`+stamp+`"`)) || !bytes.Contains(byID[id], []byte(`"public":true`)) {
			t.Errorf("added comment: %s", byID[id])
		}
	}
	_, body := get(t, s.URL+"/api/v2/tickets/"+target+".json", defaultAuth)
	if !bytes.Contains(body, []byte(`"updated_at":"`+stamp+`"`)) || !bytes.Contains(body, []byte(`"generated_timestamp":`+strconv.FormatInt(since, 10))) {
		t.Errorf("the ticket does not show the comment's time: %s", body)
	}

	clock.Advance(time.Minute)
	redact := tickets[7]
	_, comments := commentsOf(t, s, redact, false)
	victim := strconv.FormatInt(CommentID(7, 1), 10)
	if err := s.Update("ticket_comments", victim); err != nil {
		t.Fatal(err)
	}
	order, after := commentsOf(t, s, redact, true)
	if len(order) != numComments(7) {
		t.Errorf("redaction changed the comments list: %v", order)
	}
	want := strings.Repeat("▇", len([]rune(bodies[1])))
	for _, field := range []string{"body", "html_body", "plain_body"} {
		var c map[string]any
		if err := json.Unmarshal(after[victim], &c); err != nil {
			t.Fatal(err)
		}
		if v, _ := c[field].(string); !strings.Contains(v, want) || strings.Contains(v, "Thanks") {
			t.Errorf("redacted %s = %q", field, v)
		}
	}
	for cid, raw := range comments {
		if cid != victim && !bytes.Equal(raw, after[cid]) {
			t.Errorf("comment %s changed with another's redaction", cid)
		}
	}
	if err := s.Update("ticket_comments", id); err != nil { // an added one redacts too
		t.Fatal(err)
	}
	if _, byID := commentsOf(t, s, target, false); !bytes.Contains(byID[id], []byte(`"body":"▇▇▇`)) {
		t.Errorf("added comment after redaction: %s", byID[id])
	}

	clock.Advance(2 * time.Minute)
	// Both redactions were in the same second: the export orders by id.
	if got := exportedTickets(t, s, since); !slices.Equal(got, []string{target, redact}) {
		t.Errorf("tickets exported since the comment: %v, want [%s %s]", got, target, redact)
	}
	if got := s.IDs("ticket_comments"); !slices.Equal(got, append(slices.Clone(before), id)) {
		t.Errorf("redaction changed IDs")
	}
}

// Create adds comments to the live tickets in turn; Delete fails: Zendesk
// comments go only with their ticket, whose comments list then answers
// 404.
func TestCommentCreateDeleteAndDeletedTickets(t *testing.T) {
	s, clock := newMutable(t)
	clock.Advance(time.Hour)
	tickets := s.IDs("tickets")
	if err := s.Delete("tickets", tickets[0]); err != nil {
		t.Fatal(err)
	}
	live := tickets[1:]
	var created []string
	for n := range 3 {
		id, err := s.Create("ticket_comments")
		if err != nil {
			t.Fatal(err)
		}
		created = append(created, id)
		if order, _ := commentsOf(t, s, live[n], false); order[len(order)-1] != id {
			t.Errorf("created comment %d: ticket %s's comments %v", n, live[n], order)
		}
	}
	if err := s.Delete("ticket_comments", created[0]); err == nil {
		t.Error("Delete of a comment succeeded")
	}

	resp, body := get(t, s.URL+"/api/v2/tickets/"+tickets[0]+"/comments.json", defaultAuth)
	wantStatus(t, resp, body, http.StatusNotFound)
	gone := strconv.FormatInt(CommentID(0, 0), 10)
	if err := s.Update("ticket_comments", gone); err == nil {
		t.Error("Update of a deleted ticket's comment succeeded")
	}
	if _, err := s.AddComment(tickets[0]); err == nil {
		t.Error("AddComment on a deleted ticket succeeded")
	}

	// Deleting a ticket with an added comment takes it out of IDs too.
	if err := s.Delete("tickets", live[1]); err != nil {
		t.Fatal(err)
	}
	ids := s.IDs("ticket_comments")
	var want []string
	for _, tk := range s.IDs("tickets") {
		k, _ := strconv.Atoi(tk)
		for j := range numComments(k - int(FirstTicketID)) {
			want = append(want, strconv.FormatInt(CommentID(k-int(FirstTicketID), j), 10))
		}
	}
	want = append(want, created[0], created[2])
	if !slices.Equal(ids, want) {
		t.Errorf("IDs = %v\nwant %v", ids, want)
	}
	for _, id := range ids {
		if err := s.Update("ticket_comments", id); err != nil {
			t.Errorf("Update of listed comment %s: %v", id, err)
		}
	}
}
