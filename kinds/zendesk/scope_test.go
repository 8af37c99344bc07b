package zendesk_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

// ticket_comments is copied one ticket at a time: a part per ticket of the
// tickets list, in its order, each walked with GET
// /api/v2/tickets/{id}/comments; the union is every comment. The request
// count is the cost of the copy: a page of tickets per 100 tickets, then a
// request per ticket.
func TestTicketCommentsScopeReadsEveryTicket(t *testing.T) {
	for _, tickets := range []int{zendesktest.DefaultTickets, 1000} {
		t.Run(fmt.Sprint(tickets), func(t *testing.T) {
			srv := zendesktest.New(zendesktest.WithTickets(tickets))
			defer srv.Close()
			c := open(t, srv)
			ctx := context.Background()
			e, _ := tributary.FindEntity(c.Entities(), "ticket_comments")
			if !e.CopiedInParts() {
				t.Fatal("ticket_comments has no parts")
			}
			var keys, wantKeys, paths, wantPaths []string
			comments := 0
			for part, err := range e.Scope.Parts(ctx, c, nil) {
				if err != nil {
					t.Fatal(err)
				}
				keys = append(keys, part.Key)
				id := part.Params["ticket_id"]
				if diff := cmp.Diff(map[string]any{"ticket_id": id}, part.Fields); diff != "" {
					t.Errorf("part %s fields (-want +got):\n%s", part.Key, diff)
				}
				for _, err := range tributary.All(ctx, c, "ticket_comments", part.Params) {
					if err != nil {
						t.Fatal(err)
					}
					comments++
				}
			}
			for i := range tickets {
				wantKeys = append(wantKeys, fmt.Sprint("ticket ", zendesktest.TicketID(i)))
				wantPaths = append(wantPaths, fmt.Sprintf("/api/v2/tickets/%d/comments.json", zendesktest.TicketID(i)))
			}
			if diff := cmp.Diff(wantKeys, keys); diff != "" {
				t.Errorf("part keys (-want +got):\n%s", diff)
			}
			// Each comment of the fake has its audit.
			if want := srv.Total("ticket_audits"); comments != want {
				t.Errorf("%d comments, want %d", comments, want)
			}
			reqs := srv.Requests()
			pages := 0
			for i, r := range reqs {
				if r.Query.Get("page[size]") != "100" {
					t.Errorf("request %d %s not in cursor mode: %v", i, r.Path, r.Query)
				}
				if r.Path == "/api/v2/tickets.json" {
					pages++
				} else {
					paths = append(paths, r.Path)
				}
			}
			if want := (tickets + 99) / 100; pages != want {
				t.Errorf("%d pages of tickets, want %d", pages, want)
			}
			if diff := cmp.Diff(wantPaths, paths); diff != "" {
				t.Errorf("comment requests (-want +got):\n%s", diff)
			}
			t.Logf("%d tickets, %d comments: %d requests", tickets, comments, len(reqs))
		})
	}
}
