package replica_test

import (
	"context"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/replica"
)

// TestChildrenFollowTheirParentsFeed: a durable copy of Zendesk's
// ticket_comments (one part per ticket) is walked in full once, through
// the tickets' incremental export; after that a sync reads the export
// from the copy's checkpoint and the comments of the tickets it shows
// changed, nothing else: one comments request per changed ticket. The
// comments of a deleted ticket become deletions; the copy equals a fresh
// walk.
func TestChildrenFollowTheirParentsFeed(t *testing.T) {
	ctx := context.Background()
	const tickets = 400
	fake := zendesktest.New(zendesktest.WithTickets(tickets))
	defer fake.Close()
	conn, err := kinds.Open("zendesk-support", crashCreds, append([]tributary.Option{tributary.WithBaseURL(fake.URL)}, zendeskOpts...)...)
	if err != nil {
		t.Fatal(err)
	}
	r, err := replica.Open(ctx, conn, replica.SQLite(t.TempDir()+"/copy.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rep, err := r.Sync(ctx, "ticket_comments")
	if err != nil {
		t.Fatal(err)
	}
	first := rep.Entities[0]
	if first.Mode != replica.Full || first.Inserted == 0 {
		t.Fatalf("first sync: %+v", first)
	}
	// A comments request per ticket, and the export's pages.
	if first.Usage.Requests < tickets || first.Usage.Requests > tickets+10 {
		t.Errorf("first sync sent %d requests for %d tickets", first.Usage.Requests, tickets)
	}

	// Nothing changed: the export alone is read.
	fake.Clock().Advance(2 * time.Minute)
	rep, err = r.Sync(ctx, "ticket_comments")
	if err != nil {
		t.Fatal(err)
	}
	idle := rep.Entities[0]
	if idle.Mode != replica.Incremental || idle.Inserted+idle.Updated+idle.Deleted != 0 || idle.Usage.Requests > 2 {
		t.Errorf("sync with nothing changed: %+v", idle)
	}

	// 1% of the tickets change, one is deleted.
	fake.Clock().Advance(10 * time.Minute)
	ids := fake.IDs("tickets")
	changed := ids[:tickets/100]
	for _, id := range changed {
		if err := fake.Update("tickets", id); err != nil {
			t.Fatal(err)
		}
	}
	victim := ids[len(ids)/2]
	if err := fake.Delete("tickets", victim); err != nil {
		t.Fatal(err)
	}
	before := searchCount(t, r, "ticket_comments", "ticket_id", victim)
	if before == 0 {
		t.Fatalf("ticket %s has no comments in the copy", victim)
	}
	fake.Clock().Advance(2 * time.Minute)
	rep, err = r.Sync(ctx, "ticket_comments")
	if err != nil {
		t.Fatal(err)
	}
	inc := rep.Entities[0]
	if inc.Mode != replica.Incremental {
		t.Fatalf("after changes: %+v", inc)
	}
	// The export's page(s) and a comments request per changed ticket.
	if max := int64(len(changed)) + 3; inc.Usage.Requests > max {
		t.Errorf("incremental sync sent %d requests for %d changed tickets (want at most %d)", inc.Usage.Requests, len(changed), max)
	}
	if ratio := float64(inc.Usage.Requests) / float64(first.Usage.Requests); ratio > 0.02 {
		t.Errorf("incremental sync after 1%% changed cost %.1f%% of a full walk's requests", 100*ratio)
	}
	if inc.Deleted != int64(before) {
		t.Errorf("deleted %d comments, want the %d of ticket %s", inc.Deleted, before, victim)
	}
	if n := searchCount(t, r, "ticket_comments", "ticket_id", victim); n != 0 {
		t.Errorf("ticket %s deleted, %d of its comments still live", victim, n)
	}

	fresh, err := replica.Open(ctx, conn, replica.SQLite(t.TempDir()+"/fresh.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if _, err := fresh.Sync(ctx, "ticket_comments"); err != nil {
		t.Fatal(err)
	}
	sameCopies(t, "zendesk-support", "ticket_comments", r, fresh, nil)
	t.Logf("full walk %d requests; incremental after %d of %d tickets changed and 1 deleted: %d requests (%.2f%%)",
		first.Usage.Requests, len(changed), tickets, inc.Usage.Requests, 100*float64(inc.Usage.Requests)/float64(first.Usage.Requests))
}
