package zendesk_test

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

var _ tributary.Changer = (*zendesk.Client)(nil)

// feedCase is one entity with a change feed.
type feedCase struct {
	entity    string
	path      string // the export the feed reads
	timeBased bool   // time-based export (start_time = end_time) rather than cursor-based
}

var feedCases = []feedCase{
	{"tickets", "/api/v2/incremental/tickets/cursor.json", false},
	{"users", "/api/v2/incremental/users/cursor.json", false},
	{"organizations", "/api/v2/incremental/organizations.json", true},
}

// perPage is the export page size the tests walk with (base params).
const perPage = 10

var pageBase = tributary.Params{"per_page": perPage}

var idParam = map[string]string{"tickets": "ticket_id", "users": "user_id", "organizations": "organization_id"}

func newFeedFake(t *testing.T, opts ...zendesktest.Option) (*zendesktest.Server, *fakeserver.Clock, *zendesk.Client) {
	t.Helper()
	clock := fakeserver.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	srv := zendesktest.New(append([]zendesktest.Option{zendesktest.WithClock(clock),
		zendesktest.WithTickets(45), zendesktest.WithUsers(30), zendesktest.WithOrganizations(25)}, opts...)...)
	t.Cleanup(srv.Close)
	return srv, clock, open(t, srv)
}

// readFeed reads entity's feed from a checkpoint to its end.
func readFeed(t *testing.T, c *zendesk.Client, entity string, from tributary.Checkpoint) []*tributary.Changes {
	t.Helper()
	var pages []*tributary.Changes
	for ch, err := range c.Changes(context.Background(), entity, pageBase, from) {
		if err != nil {
			t.Fatalf("%s feed after %d pages: %v", entity, len(pages), err)
		}
		pages = append(pages, ch)
		if len(pages) > 100 {
			t.Fatal("the feed does not end")
		}
	}
	if len(pages) == 0 {
		t.Fatalf("%s feed: no page", entity)
	}
	return pages
}

func recID(t *testing.T, r tributary.Record) string {
	t.Helper()
	raw, ok := r.Lookup("id")
	if !ok {
		t.Fatalf("record without id: %s", r.Raw())
	}
	return string(raw)
}

func updatedAt(t *testing.T, r tributary.Record) time.Time {
	t.Helper()
	v, _ := r.Field("updated_at")
	at, ok := engine.ParseChanged(v)
	if !ok {
		t.Fatalf("record without updated_at: %s", r.Raw())
	}
	return at
}

// idsOf returns the ids of the records and of the deletions of pages, in
// order, and the ids a time-based export may repeat: the last record of
// each page but the last, which the next page starts with again.
func idsOf(t *testing.T, pages []*tributary.Changes) (records, deleted []string, boundary map[string]bool) {
	t.Helper()
	boundary = map[string]bool{}
	for i, p := range pages {
		for _, r := range p.Records {
			records = append(records, recID(t, r))
		}
		for _, r := range p.Deleted {
			deleted = append(deleted, recID(t, r))
		}
		all := append(slices.Clone(p.Records), p.Deleted...)
		if i < len(pages)-1 && len(all) > 0 {
			last := all[0]
			for _, r := range all {
				if !updatedAt(t, r).Before(updatedAt(t, last)) {
					last = r
				}
			}
			boundary[recID(t, last)] = true
		}
	}
	return records, deleted, boundary
}

// distinct returns ids without repeats, failing on a repeat that is not
// allowed.
func distinct(t *testing.T, ids []string, allowed map[string]bool) []string {
	t.Helper()
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if seen[id] {
			if !allowed[id] {
				t.Errorf("record %s read twice", id)
			}
			continue
		}
		seen[id] = true
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// listIDs walks the entity's list in full, as a user would.
func listIDs(t *testing.T, c *zendesk.Client, entity string) []string {
	t.Helper()
	var out []string
	for r, err := range tributary.All(context.Background(), c, entity, nil) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, recID(t, r))
	}
	slices.Sort(out)
	return out
}

// A pass from the zero checkpoint returns every live record (the ids of a
// full list walk), page by page, each page with a checkpoint that resumes
// after it; the last one has no Next and Since at the newest change.
func TestFeedFullPass(t *testing.T) {
	for _, fc := range feedCases {
		t.Run(fc.entity, func(t *testing.T) {
			srv, _, c := newFeedFake(t)
			pages := readFeed(t, c, fc.entity, tributary.Checkpoint{})
			records, deleted, boundary := idsOf(t, pages)
			if len(deleted) != 0 {
				t.Errorf("deletions in a world without any: %v", deleted)
			}
			allowed := map[string]bool{}
			if fc.timeBased {
				allowed = boundary
			}
			if d := cmp.Diff(listIDs(t, c, fc.entity), distinct(t, records, allowed)); d != "" {
				t.Errorf("feed ids differ from the list's (-list +feed):\n%s", d)
			}
			var newest time.Time
			for i, p := range pages {
				for _, r := range p.Records {
					if at := updatedAt(t, r); at.After(newest) {
						newest = at
					}
				}
				last := i == len(pages)-1
				if (p.Checkpoint.Next == nil) != last {
					t.Errorf("page %d of %d: Next %v", i, len(pages), p.Checkpoint.Next)
				}
				if !last && !p.Checkpoint.Since.IsZero() {
					t.Errorf("page %d: Since moved mid-pass to %v", i, p.Checkpoint.Since)
				}
			}
			if got := pages[len(pages)-1].Checkpoint.Since; !got.Equal(newest) {
				t.Errorf("final Since %v, want the newest updated_at %v", got, newest)
			}
			exports := 0
			for _, r := range srv.Requests() {
				if strings.HasPrefix(r.Path, "/api/v2/incremental/") {
					exports++
				}
			}
			if exports != len(pages) {
				t.Errorf("%d export requests for %d pages", exports, len(pages))
			}
		})
	}
}

// After creates, updates and deletes at a later time, the feed from the
// last checkpoint returns exactly those records (and the few the overlap
// reads again at the old boundary), reports the deletion, moves Since to
// the newest change, and costs one request.
func TestFeedIncremental(t *testing.T) {
	for _, fc := range feedCases {
		t.Run(fc.entity, func(t *testing.T) {
			srv, clock, c := newFeedFake(t)
			first := readFeed(t, c, fc.entity, tributary.Checkpoint{})
			cp := first[len(first)-1].Checkpoint
			// The records the overlap reads again: changed within a minute
			// of the checkpoint.
			overlap := map[string]bool{}
			for _, p := range first {
				for _, r := range p.Records {
					if !updatedAt(t, r).Before(cp.Since.Add(-time.Minute)) {
						overlap[recID(t, r)] = true
					}
				}
			}

			clock.Advance(time.Hour)
			ids := srv.IDs(fc.entity)
			created1, _ := srv.Create(fc.entity)
			clock.Advance(time.Second)
			updated := []string{ids[3], ids[7]}
			for _, id := range updated {
				if err := srv.Update(fc.entity, id); err != nil {
					t.Fatal(err)
				}
			}
			victim := ids[5]
			if err := srv.Delete(fc.entity, victim); err != nil {
				t.Fatal(err)
			}
			created2, _ := srv.Create(fc.entity)
			mutated := clock.Now()
			clock.Advance(2 * time.Minute) // the exports leave out the last minute
			srv.ResetRequests()

			pages := readFeed(t, c, fc.entity, cp)
			records, deleted, _ := idsOf(t, pages)
			want := []string{created1, created2, updated[0], updated[1]}
			for id := range overlap {
				want = append(want, id)
			}
			slices.Sort(want)
			if d := cmp.Diff(want, distinct(t, records, nil)); d != "" {
				t.Errorf("changed records (-want +got):\n%s", d)
			}
			if !slices.Equal(deleted, []string{victim}) {
				t.Errorf("deleted %v, want [%s]", deleted, victim)
			}
			for _, p := range pages {
				for _, r := range p.Records {
					if id := recID(t, r); slices.Contains(updated, id) && !strings.Contains(string(r.Raw()), "(update 1)") {
						t.Errorf("record %s does not carry its update: %s", id, r.Raw())
					}
				}
			}
			final := pages[len(pages)-1].Checkpoint
			if final.Since.Before(cp.Since) || !final.Since.Equal(mutated.UTC().Truncate(time.Second)) {
				t.Errorf("Since %v after %v, want the time of the changes %v", final.Since, cp.Since, mutated)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests for a handful of changes, want 1", n)
			}

			// Nothing changed since: only what the overlap reads again (here
			// the changes, a second apart), and Since stays.
			again := readFeed(t, c, fc.entity, final)
			for _, p := range again {
				for _, r := range append(slices.Clone(p.Records), p.Deleted...) {
					if updatedAt(t, r).Before(final.Since.Add(-time.Minute)) {
						t.Errorf("a sync with no changes read %s, changed before the overlap", r.Raw())
					}
				}
			}
			if got := again[len(again)-1].Checkpoint.Since; !got.Equal(final.Since) {
				t.Errorf("Since moved from %v to %v without changes", final.Since, got)
			}
		})
	}
}

// A sync stopped after its first page goes on from that page's checkpoint
// and reads the rest: nothing lost, nothing read twice (but the boundary
// record a time-based export repeats).
func TestFeedResumesMidPass(t *testing.T) {
	for _, fc := range feedCases {
		t.Run(fc.entity, func(t *testing.T) {
			srv, _, c := newFeedFake(t)
			var firstPage *tributary.Changes
			for ch, err := range c.Changes(context.Background(), fc.entity, pageBase, tributary.Checkpoint{}) {
				if err != nil {
					t.Fatal(err)
				}
				firstPage = ch
				break
			}
			if firstPage.Checkpoint.Next == nil {
				t.Fatal("the first page ends the pass: nothing to resume")
			}
			srv.ResetRequests()
			rest := readFeed(t, c, fc.entity, firstPage.Checkpoint)
			records, _, boundary := idsOf(t, append([]*tributary.Changes{firstPage}, rest...))
			allowed := map[string]bool{}
			if fc.timeBased {
				allowed = boundary
			}
			if d := cmp.Diff(listIDs(t, c, fc.entity), distinct(t, records, allowed)); d != "" {
				t.Errorf("first page + resumed pass (-list +feed):\n%s", d)
			}
			reqs := srv.Requests()
			if len(reqs) == 0 {
				t.Fatal("no request")
			}
			if q := reqs[0].Query; !fc.timeBased && (q.Get("cursor") == "" || q.Has("start_time")) {
				t.Errorf("the resumed pass did not go on at the saved cursor: %v", q)
			}
			if !rest[len(rest)-1].Checkpoint.Since.After(firstPage.Checkpoint.Since) {
				t.Errorf("Since did not move on: %v", rest[len(rest)-1].Checkpoint.Since)
			}
		})
	}
}

// The exact requests Zendesk receives: the first with start_time (the
// checkpoint less the minute of overlap) and per_page, the next with the
// cursor of the page before and no start_time (cursor-based), or with
// start_time = the page's end_time (time-based).
func TestFeedRequests(t *testing.T) {
	for _, fc := range feedCases {
		t.Run(fc.entity, func(t *testing.T) {
			srv, clock, c := newFeedFake(t)
			// From the third record's change on.
			third, err := c.Get(context.Background(), fc.entity, tributary.Params{idParam[fc.entity]: srv.IDs(fc.entity)[2]})
			if err != nil {
				t.Fatal(err)
			}
			since := updatedAt(t, third).Add(time.Minute)
			clock.Advance(time.Hour)
			srv.ResetRequests()
			var pages []*tributary.Changes
			for ch, err := range c.Changes(context.Background(), fc.entity, tributary.Params{"per_page": 10, "page[size]": 100}, tributary.Checkpoint{Since: since}) {
				if err != nil {
					t.Fatal(err)
				}
				pages = append(pages, ch)
				if len(pages) == 2 {
					break
				}
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests", len(reqs))
			}
			for _, r := range reqs {
				if r.Method != "GET" || r.Path != fc.path || !strings.HasPrefix(r.Header.Get("Authorization"), "Basic ") {
					t.Errorf("request %s %s (auth %t), want GET %s", r.Method, r.Path, r.Header.Get("Authorization") != "", fc.path)
				}
			}
			first := url.Values{"start_time": {strconv.FormatInt(since.Add(-time.Minute).Unix(), 10)}, "per_page": {"10"}}
			if d := cmp.Diff(first, reqs[0].Query); d != "" {
				t.Errorf("first request query (-want +got):\n%s", d)
			}
			var second url.Values
			if fc.timeBased {
				last := pages[0].Records[len(pages[0].Records)-1]
				second = url.Values{"start_time": {strconv.FormatInt(updatedAt(t, last).Unix(), 10)}, "per_page": {"10"}}
			} else {
				cur, _ := pages[0].Checkpoint.Next["cursor"].(string)
				if cur == "" {
					t.Fatalf("page 1 checkpoint %v has no cursor", pages[0].Checkpoint.Next)
				}
				second = url.Values{"cursor": {cur}, "per_page": {"10"}}
			}
			if d := cmp.Diff(second, reqs[1].Query); d != "" {
				t.Errorf("second request query (-want +got):\n%s", d)
			}
		})
	}
}

// An export throttled by Zendesk's own limit on incremental exports is a
// rate-limit error; the sync goes on from its last checkpoint once the
// window has passed, losing nothing.
func TestFeedThrottledResumes(t *testing.T) {
	srv, clock, c := newFeedFake(t, zendesktest.WithExportRateLimit(2, time.Minute))
	cp := tributary.Checkpoint{}
	var got []string
	var err error
	for ch, e := range c.Changes(context.Background(), "tickets", pageBase, cp) {
		if e != nil {
			err = e
			break
		}
		for _, r := range ch.Records {
			got = append(got, recID(t, r))
		}
		cp = ch.Checkpoint
	}
	var te *tributary.Error
	if !errors.Is(err, tributary.ErrRateLimited) || !errors.As(err, &te) || te.RetryAfter <= 0 {
		t.Fatalf("third export request: %v, want a rate-limit error with RetryAfter", err)
	}
	if len(got) != 2*perPage || cp.Next == nil {
		t.Fatalf("before the limit: %d records, checkpoint %v", len(got), cp)
	}
	if u := c.Usage(); u.Throttled == 0 {
		t.Errorf("usage %+v counts no throttled answer", u)
	}
	clock.Advance(time.Minute)
	srv.ResetRequests()
	for ch, e := range c.Changes(context.Background(), "tickets", pageBase, cp) {
		if e != nil {
			t.Fatal(e)
		}
		for _, r := range ch.Records {
			got = append(got, recID(t, r))
		}
		if ch.Checkpoint.Next != nil {
			clock.Advance(30 * time.Second) // two requests a minute
		}
	}
	if d := cmp.Diff(listIDs(t, c, "tickets"), distinct(t, got, nil)); d != "" {
		t.Errorf("tickets after a throttled sync (-list +feed):\n%s", d)
	}
}

// An entity without a vendor feed has no Changes: it is kept by full walks.
func TestFeedNone(t *testing.T) {
	_, _, c := newFeedFake(t)
	for _, err := range c.Changes(context.Background(), "groups", nil, tributary.Checkpoint{}) {
		if !errors.Is(err, tributary.ErrUnsupportedAction) {
			t.Errorf("groups Changes: %v, want ErrUnsupportedAction", err)
		}
		break
	}
	for _, e := range zendesk.Catalogue() {
		if want := slices.Contains([]string{"tickets", "users", "organizations"}, e.Name); (e.Feed != nil) != want {
			t.Errorf("%s: feed %v", e.Name, e.Feed != nil)
		} else if want && (e.Feed.Doc == "" || !e.Feed.FindsDeletions()) {
			t.Errorf("%s feed: doc %q, finds deletions %t", e.Name, e.Feed.Doc, e.Feed.FindsDeletions())
		}
	}
}
