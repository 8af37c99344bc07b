package stripe_test

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary/kinds/stripe/stripetest"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/search"
)

// eventCursors returns the ending_before of each request of the events
// the fake received, in order, and the other requests.
func eventCursors(s *stripetest.Server) (cursors, others []string) {
	for _, r := range requests(s) {
		path, query, _ := strings.Cut(r, "?")
		q, _ := url.ParseQuery(query)
		if path == "/v1/events" && q.Get("ending_before") != "" {
			cursors = append(cursors, q.Get("ending_before"))
		} else {
			others = append(others, r)
		}
	}
	return cursors, others
}

// customersOf returns every live customer of a copy, by id.
func customersOf(t *testing.T, r *replica.Replica) map[string]string {
	t.Helper()
	out := map[string]string{}
	res, err := r.Search(context.Background(), "customers", search.Request{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		out[h.ID] = string(h.Data)
	}
	return out
}

// TestAWindowOfEventsIsAppliedPageByPage: 1,000 events since the copy's
// checkpoint are read forward, a page of 100 at a time, each request
// ending_before the newest event applied (ascending ids), each page
// written with its checkpoint: a sync stopped after its third page
// leaves a checkpoint from which a new process reads on without asking
// for those pages again, and the copy ends as a full walk's.
func TestAWindowOfEventsIsAppliedPageByPage(t *testing.T) {
	s := fake(t)
	if _, err := s.Create("customers"); err != nil { // the newest event when the copy is made
		t.Fatal(err)
	}
	db := replica.SQLite(t.TempDir() + "/copy.db")
	r, err := replica.Open(context.Background(), open(t, s, key), db)
	if err != nil {
		t.Fatal(err)
	}
	syncCopies(t, r, "customers")
	r.Close()
	for i := range 1000 {
		if i%7 == 0 {
			_, err = s.Create("customers")
		} else {
			err = s.Update("customers", stripetest.ID("customers", i%25))
		}
		if err != nil {
			t.Fatal(err)
		}
		if i%150 == 0 {
			s.Clock().Advance(time.Second)
		}
	}
	s.ResetRequests()

	// The sync stops once its third page is written.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err = replica.Open(ctx, open(t, s, key), db, replica.WithProgress(func(p replica.Progress) {
		if p.Mode == replica.Incremental && p.Pages == 3 {
			cancel()
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Sync(ctx, "customers"); !errors.Is(err, context.Canceled) {
		t.Fatalf("the stopped sync: %v", err)
	}
	r.Close()
	stopped, others := eventCursors(s)
	if len(stopped) < 3 || len(others) != 0 || !slices.IsSorted(stopped) {
		t.Fatalf("the stopped sync's cursors %q, other requests %q: want three pages or more, in ascending order", stopped, others)
	}

	// A new process goes on after the third page.
	s.ResetRequests()
	r, err = replica.Open(context.Background(), open(t, s, key), db)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rep := syncCopies(t, r, "customers")
	resumed, others := eventCursors(s)
	if len(others) != 0 || !slices.IsSorted(resumed) || len(resumed) == 0 || resumed[0] <= stopped[2] {
		t.Errorf("resumed with cursors %q (the first three pages' %q), other requests %q", resumed, stopped[:3], others)
	}
	if n := len(resumed) + 3; n < 10 || n > 11 {
		t.Errorf("%d pages read in all for 1,000 events, want 10 (11 when the last is full)", n)
	}
	if er := rep.Entities[0]; er.Mode != replica.Incremental {
		t.Errorf("resumed sync %+v", er)
	}

	if d := cmp.Diff(fullWalk(t, s), customersOf(t, r)); d != "" {
		t.Errorf("the copy differs from a full walk (-full +copy):\n%s", d)
	}
}

// fullWalk returns the customers of a copy of s walked in full.
func fullWalk(t *testing.T, s *stripetest.Server) map[string]string {
	t.Helper()
	full, err := replica.Open(context.Background(), open(t, s, key), replica.SQLite(t.TempDir()+"/full.db"), replica.WithoutFeeds())
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	syncCopies(t, full, "customers")
	return customersOf(t, full)
}

// TestAnEventGoneWalksInFull: a copy whose checkpoint holds an event
// Stripe no longer keeps (404 resource_missing on ending_before) is
// walked in full, with the reason, and holds the changes it missed.
func TestAnEventGoneWalksInFull(t *testing.T) {
	s := fake(t)
	if _, err := s.Create("customers"); err != nil {
		t.Fatal(err)
	}
	r, err := replica.Open(context.Background(), open(t, s, key), replica.SQLite(t.TempDir()+"/copy.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	syncCopies(t, r, "customers")
	// Stripe's clock moves 31 days on (the connector's does not): the
	// checkpoint's event is forgotten.
	s.Clock().Advance(31 * 24 * time.Hour)
	got := resyncInFull(t, s, r, 3)
	if len(got) < 2 || !strings.Contains(got[0], "ending_before=evt_") || !strings.HasPrefix(got[1], "/v1/events?") || !strings.HasPrefix(got[len(got)-1], "/v1/customers?") {
		t.Errorf("requests %q: want the cursor refused, the stream's newest event, then the list", got)
	}
	if d := cmp.Diff(fullWalk(t, s), customersOf(t, r)); d != "" {
		t.Errorf("the copy differs from a full walk (-full +copy):\n%s", d)
	}
}
