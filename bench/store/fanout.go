package main

// The fan-out: Zendesk's ticket_comments, read one ticket at a time (the
// only list of comments Zendesk has), against the fewest requests Zendesk's
// endpoints allow for the same records.

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/replica"
)

// Zendesk's largest pages: the incremental ticket export's 1,000 records,
// and a ticket's comments list's 100 (page[size]).
const (
	exportPage  = 1000
	commentPage = 100
)

type fanResult struct {
	tickets, changed               int
	fullRecords, fullReqs, fullMin int64
	incRecords, incReqs, incMin    int64
	fullWall, incWall              time.Duration
}

// fanOut syncs the comments of tickets tickets, then, after a comment is
// added to 1% of them, again: each sync's requests against the minimum,
// the export's pages that name the changed parents (all of them, the
// first time) plus, for each changed parent, the pages of its comments.
func fanOut(ctx context.Context, tickets int) (fanResult, error) {
	f := fanResult{tickets: tickets}
	srv := zendesktest.New(zendesktest.WithTickets(tickets))
	defer srv.Close()
	conn := openZendesk(srv.URL)
	dir, err := os.MkdirTemp("", "tributary-fanout")
	if err != nil {
		return f, err
	}
	defer os.RemoveAll(dir)
	r, err := replica.Open(ctx, conn, replica.SQLite(filepath.Join(dir, "comments.db")))
	if err != nil {
		return f, err
	}
	defer r.Close()
	start := time.Now()
	rep, err := r.Sync(ctx, "ticket_comments")
	if err != nil {
		return f, err
	}
	f.fullWall = time.Since(start)
	e := rep.Entities[0]
	f.fullRecords, f.fullReqs = e.Inserted, e.Usage.Requests

	ids := srv.IDs("tickets")
	counts := map[string]int64{}
	for _, id := range ids {
		n, err := comments(ctx, conn, id)
		if err != nil {
			return f, err
		}
		counts[id] = n
		f.fullMin += pages(n, commentPage)
	}
	f.fullMin += pages(int64(len(ids)), exportPage)

	srv.Clock().Advance(10 * time.Minute)
	for i := 0; i < len(ids); i += 100 { // 1% of the parents change
		if _, err := srv.AddComment(ids[i]); err != nil {
			return f, err
		}
		f.changed++
		f.incMin += pages(counts[ids[i]]+1, commentPage)
	}
	f.incMin += pages(int64(f.changed), exportPage)
	srv.Clock().Advance(2 * time.Minute)
	start = time.Now()
	rep, err = r.Sync(ctx, "ticket_comments")
	if err != nil {
		return f, err
	}
	f.incWall = time.Since(start)
	e = rep.Entities[0]
	f.incRecords, f.incReqs = e.Inserted+e.Updated+e.Unchanged, e.Usage.Requests
	if e.Mode != replica.Incremental {
		return f, fmt.Errorf("the second sync of ticket_comments was %s, not incremental: %s", e.Mode, e.Reason)
	}
	return f, nil
}

// comments counts a ticket's comments (read by Tributary, outside the
// measured syncs).
func comments(ctx context.Context, conn tributary.Connector, ticket string) (int64, error) {
	var n int64
	for _, err := range tributary.All(ctx, conn, "ticket_comments", tributary.Params{"ticket_id": ticket}) {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// pages is how many pages of at most per records n records take: at least
// one, which says there are none.
func pages(n, per int64) int64 { return max(1, (n+per-1)/per) }

func (f fanResult) print(w io.Writer) {
	fmt.Fprintf(w, "fan-out ticket_comments, %d tickets: full sync %d comments in %d requests (minimum %d: %.2f×), %v\n",
		f.tickets, f.fullRecords, f.fullReqs, f.fullMin, float64(f.fullReqs)/float64(f.fullMin), f.fullWall.Round(time.Millisecond))
	fmt.Fprintf(w, "fan-out ticket_comments: incremental after a comment on %d tickets: %d comments in %d requests (minimum %d: %.2f×), %v\n",
		f.changed, f.incRecords, f.incReqs, f.incMin, float64(f.incReqs)/float64(f.incMin), f.incWall.Round(time.Millisecond))
}
