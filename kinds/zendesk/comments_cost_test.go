package zendesk_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

// Issue 27: ticket_comments over tickets (one comments request per
// ticket), or through the ticket events export, whichever costs fewer
// requests. These read every comment of a fake both ways, then again
// after 1% of the tickets got a comment, and count the requests.
//
//	go test ./kinds/zendesk/ -run TestCommentReadCost -v
//	go test ./kinds/zendesk/ -run '^$' -bench BenchmarkCommentRead

// costClient reads the fake with raw requests and counts them.
type costClient struct {
	tb   testing.TB
	srv  *zendesktest.Server
	hc   *http.Client
	auth string
}

func newCostClient(tb testing.TB, srv *zendesktest.Server) *costClient {
	return &costClient{tb: tb, srv: srv, hc: &http.Client{Transport: srv.Transport()},
		auth: "Basic " + base64.StdEncoding.EncodeToString([]byte(zendesktest.DefaultEmail+"/token:"+zendesktest.DefaultAPIToken))}
}

func (c *costClient) get(u string, v any) {
	c.tb.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("Authorization", c.auth)
	resp, err := c.hc.Do(req)
	if err != nil {
		c.tb.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		c.tb.Fatalf("GET %s: %d %s", u, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		c.tb.Fatalf("GET %s: %v", u, err)
	}
}

type cursorPage struct {
	Meta struct {
		HasMore bool `json:"has_more"`
	} `json:"meta"`
	Links struct {
		Next string `json:"next"`
	} `json:"links"`
}

// comments reads every comment of one ticket, 100 a page.
func (c *costClient) comments(ticket int64, into map[int64]bool) {
	u := c.srv.URL + "/api/v2/tickets/" + strconv.FormatInt(ticket, 10) + "/comments.json?page[size]=100"
	for {
		var p struct {
			cursorPage
			Comments []struct {
				ID int64 `json:"id"`
			} `json:"comments"`
		}
		c.get(u, &p)
		for _, cm := range p.Comments {
			into[cm.ID] = true
		}
		if !p.Meta.HasMore {
			return
		}
		u = p.Links.Next
	}
}

// perTicket reads the tickets list, 100 a page, then each ticket's
// comments: the copy's ChildParts over tickets.
func (c *costClient) perTicket() map[int64]bool {
	out := map[int64]bool{}
	u := c.srv.URL + "/api/v2/tickets.json?page[size]=100"
	for {
		var p struct {
			cursorPage
			Tickets []struct {
				ID int64 `json:"id"`
			} `json:"tickets"`
		}
		c.get(u, &p)
		for _, t := range p.Tickets {
			c.comments(t.ID, out)
		}
		if !p.Meta.HasMore {
			return out
		}
		u = p.Links.Next
	}
}

// changedTickets reads the cursor-based ticket export from start, then
// the comments of each ticket in it that is not deleted.
func (c *costClient) changedTickets(start int64) map[int64]bool {
	out := map[int64]bool{}
	u := c.srv.URL + "/api/v2/incremental/tickets/cursor.json?start_time=" + strconv.FormatInt(start, 10)
	for {
		var p struct {
			AfterURL    string `json:"after_url"`
			EndOfStream bool   `json:"end_of_stream"`
			Tickets     []struct {
				ID     int64  `json:"id"`
				Status string `json:"status"`
			} `json:"tickets"`
		}
		c.get(u, &p)
		for _, t := range p.Tickets {
			if t.Status != "deleted" {
				c.comments(t.ID, out)
			}
		}
		if p.EndOfStream {
			return out
		}
		u = p.AfterURL
	}
}

// events reads the ticket events export with comment events from start.
func (c *costClient) events(start int64) (comments map[int64]bool, events int) {
	comments = map[int64]bool{}
	seen := map[int64]bool{}
	u := c.srv.URL + "/api/v2/incremental/ticket_events.json?include=comment_events&start_time=" + strconv.FormatInt(start, 10)
	for {
		var p struct {
			NextPage     string `json:"next_page"`
			EndOfStream  bool   `json:"end_of_stream"`
			TicketEvents []struct {
				ID          int64 `json:"id"`
				ChildEvents []struct {
					ID        int64  `json:"id"`
					EventType string `json:"event_type"`
				} `json:"child_events"`
			} `json:"ticket_events"`
		}
		c.get(u, &p)
		for _, e := range p.TicketEvents {
			if seen[e.ID] {
				continue // a boundary duplicate of the time-based pages
			}
			seen[e.ID] = true
			events++
			for _, ch := range e.ChildEvents {
				if ch.EventType == "Comment" {
					comments[ch.ID] = true
				}
			}
		}
		if p.EndOfStream {
			return comments, events
		}
		u = p.NextPage
	}
}

// requests returns the API requests since the last call and resets the
// count.
func (c *costClient) requests() int {
	n := len(c.srv.Requests())
	c.srv.ResetRequests()
	return n
}

// commentCost is what reading a fake's comments costs each way.
type commentCost struct {
	tickets, comments, changed int
	fullTickets, fullEvents    int // requests for every comment
	events                     int
	incTickets, incEvents      int // requests after 1% got a comment
}

func measureComments(tb testing.TB, tickets int) commentCost {
	srv := zendesktest.New(zendesktest.WithTickets(tickets))
	defer srv.Close()
	c := newCostClient(tb, srv)
	want := map[int64]bool{}
	for _, id := range srv.IDs("ticket_comments") {
		n, _ := strconv.ParseInt(id, 10, 64)
		want[n] = true
	}
	cost := commentCost{tickets: tickets, comments: len(want)}
	c.requests()

	got := c.perTicket()
	cost.fullTickets = c.requests()
	if len(got) != len(want) {
		tb.Fatalf("per ticket: %d comments, want %d", len(got), len(want))
	}
	got, cost.events = c.events(0)
	cost.fullEvents = c.requests()
	if len(got) != len(want) {
		tb.Fatalf("ticket events: %d comments, want %d", len(got), len(want))
	}

	// 1% of the tickets get a comment, after a checkpoint.
	clock := srv.Clock()
	checkpoint := clock.Now().Unix()
	clock.Advance(time.Minute)
	ids := srv.IDs("tickets")
	var added []int64
	for i := 0; i < len(ids); i += 100 {
		id, err := srv.AddComment(ids[i])
		if err != nil {
			tb.Fatal(err)
		}
		n, _ := strconv.ParseInt(id, 10, 64)
		added = append(added, n)
	}
	cost.changed = len(added)
	clock.Advance(2 * time.Minute)
	c.requests()
	got = c.changedTickets(checkpoint)
	cost.incTickets = c.requests()
	if !containsAll(got, added) {
		tb.Fatalf("changed tickets: the added comments are not all read")
	}
	got, _ = c.events(checkpoint)
	cost.incEvents = c.requests()
	if !containsAll(got, added) || len(got) != len(added) {
		tb.Fatalf("ticket events since the checkpoint: %d comments, want the %d added", len(got), len(added))
	}
	return cost
}

func containsAll(m map[int64]bool, ids []int64) bool {
	return !slices.ContainsFunc(ids, func(id int64) bool { return !m[id] })
}

// minutes is how long n requests take at limit a minute, the first
// minute's worth going at once (a fresh window) and the rest paced.
func minutes(n, limit int) string {
	if n <= limit {
		return "<1 min"
	}
	return fmt.Sprintf("%.1f min", float64(n-limit)/float64(limit)+1)
}

// TestCommentReadCost logs the requests each way of reading comments
// costs, and their time under Zendesk's limits: 700 API requests a
// minute on Enterprise, 200 on Team, and the incremental exports' own 10
// a minute (which also count against the account's).
func TestCommentReadCost(t *testing.T) {
	sizes := []int{zendesktest.DefaultTickets, 2000}
	if !testing.Short() {
		sizes = append(sizes, 20000)
	}
	for _, n := range sizes {
		c := measureComments(t, n)
		if c.fullEvents >= c.fullTickets || c.incEvents > c.incTickets {
			t.Errorf("%d tickets: the events export costs more requests: %+v", n, c)
		}
		t.Logf("%d tickets, %d comments (%d events):", c.tickets, c.comments, c.events)
		t.Logf("  full read, over tickets:   %6d requests  (Enterprise 700/min: %s; Team 200/min: %s)",
			c.fullTickets, minutes(c.fullTickets, 700), minutes(c.fullTickets, 200))
		t.Logf("  full read, ticket events:  %6d requests  (exports 10/min: %s)", c.fullEvents, minutes(c.fullEvents, 10))
		t.Logf("  after %d tickets got a comment: tickets export + comments: %d requests (1 export; %d at 700/min: %s, 200/min: %s); ticket events: %d",
			c.changed, c.incTickets, c.incTickets-1, minutes(c.incTickets-1, 700), minutes(c.incTickets-1, 200), c.incEvents)
	}
}

// BenchmarkCommentRead reports the requests per full and incremental read
// each way (requests/op), for the sandbox's 250 tickets and 2,000.
func BenchmarkCommentRead(b *testing.B) {
	for _, n := range []int{zendesktest.DefaultTickets, 2000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			var c commentCost
			for range b.N {
				c = measureComments(b, n)
			}
			b.ReportMetric(float64(c.fullTickets), "full-over-tickets-req")
			b.ReportMetric(float64(c.fullEvents), "full-events-req")
			b.ReportMetric(float64(c.incTickets), "inc-over-tickets-req")
			b.ReportMetric(float64(c.incEvents), "inc-events-req")
		})
	}
}
