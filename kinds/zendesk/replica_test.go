package zendesk_test

import (
	"context"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/replicatest"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/search"
)

// A durable replica copies ticket_comments with no params from the
// caller (the scope's part per ticket); a search filtered on ticket_id
// returns that ticket's comments only, all of them.
func TestReplicaCopiesTicketComments(t *testing.T) {
	srv := zendesktest.New()
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	r := replicatest.Synced(t, c, []string{"ticket_comments"})
	if got, want := r.Len("ticket_comments"), srv.Total("ticket_audits"); got != want {
		t.Errorf("%d comments in the copy, want %d (one per audit)", got, want)
	}
	ticket := zendesktest.TicketID(7)
	res, err := r.Search(ctx, "ticket_comments", search.Request{Query: search.Query{Filter: search.Eq("ticket_id", ticket).Ptr()}})
	if err != nil {
		t.Fatal(err)
	}
	var want int
	for _, err := range tributary.All(ctx, c, "ticket_comments", tributary.Params{"ticket_id": ticket}) {
		if err != nil {
			t.Fatal(err)
		}
		want++
	}
	if len(res.Hits) != want || want == 0 {
		t.Fatalf("%d hits for ticket %d, want its %d comments", len(res.Hits), ticket, want)
	}
	for _, h := range res.Hits {
		if id, _ := tributary.NewRecord(h.Data).IntAt("ticket_id"); id != ticket {
			t.Errorf("hit %s has ticket_id %d, want %d", h.ID, id, ticket)
		}
	}
}
