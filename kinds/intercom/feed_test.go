package intercom_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/intercom"
	"github.com/tributary-dev/tributary/kinds/intercom/intercomtest"
)

var feedEntities = []string{"contacts", "conversations"}

// lookback is the Lookback of an entity's feed.
func lookback(entity string) time.Duration {
	if entity == "contacts" {
		return intercom.ContactSearchLookback
	}
	return 0
}

// feedRecord is a record the feed read: its id and updated_at.
type feedRecord struct {
	id      string
	updated int64
}

// feedRecordOf reads id and updated_at of a record.
func feedRecordOf(t *testing.T, r tributary.Record) feedRecord {
	t.Helper()
	var v struct {
		ID        string `json:"id"`
		UpdatedAt int64  `json:"updated_at"`
	}
	if err := r.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return feedRecord{v.ID, v.UpdatedAt}
}

type feedPass struct {
	records []feedRecord
	deleted int
	pages   []*tributary.Changes
	final   tributary.Checkpoint
}

func readFeed(t *testing.T, c tributary.Changer, entity string, from tributary.Checkpoint, stopAfter int) feedPass {
	t.Helper()
	p := feedPass{final: from}
	for ch, err := range c.Changes(context.Background(), entity, nil, from) {
		if err != nil {
			t.Fatalf("%s feed after %d pages: %v", entity, len(p.pages), err)
		}
		p.pages = append(p.pages, ch)
		for _, r := range ch.Records {
			p.records = append(p.records, feedRecordOf(t, r))
		}
		p.deleted += len(ch.Deleted)
		if ch.Checkpoint.Since.Before(p.final.Since) {
			t.Fatalf("the checkpoint's Since moved backwards, from %v to %v", p.final.Since, ch.Checkpoint.Since)
		}
		p.final = ch.Checkpoint
		if stopAfter > 0 && len(p.pages) == stopAfter {
			break
		}
	}
	return p
}

func (p feedPass) ids() []string {
	out := make([]string, len(p.records))
	for i, r := range p.records {
		out[i] = r.id
	}
	return out
}

func sortedIDs(ids []string) []string {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

func walkIDs(t *testing.T, c tributary.Connector, entity string) []string {
	t.Helper()
	return feedPass{records: walkRecords(t, c, entity, nil)}.ids()
}

// dayStart is the start of t's UTC day (the fake's workspace time zone).
func dayStart(t time.Time) int64 { return t.UTC().Truncate(24 * time.Hour).Unix() }

func feedServer(opts ...intercomtest.Option) *intercomtest.Server {
	return intercomtest.New(append([]intercomtest.Option{intercomtest.WithContacts(400), intercomtest.WithConversations(400)}, opts...)...)
}

// A first pass reads every live record once, oldest change first. After
// creates, updates and a delete, a pass from its checkpoint reads the
// changes, after what Intercom's calendar-day matching makes it read again
// (the records changed since the start of the checkpoint's day), in one
// request; it does not report the delete (full walks find those).
func TestFeedFullPassThenChanges(t *testing.T) {
	for _, entity := range feedEntities {
		t.Run(entity, func(t *testing.T) {
			srv := feedServer()
			defer srv.Close()
			c := open(t, srv)

			first := readFeed(t, c, entity, tributary.Checkpoint{}, 0)
			if d := gocmp.Diff(sortedIDs(walkIDs(t, c, entity)), sortedIDs(first.ids())); d != "" {
				t.Fatalf("first pass vs a list walk (-list +feed):\n%s", d)
			}
			if !slices.IsSortedFunc(first.records, func(a, b feedRecord) int { return cmp.Compare(a.updated, b.updated) }) {
				t.Error("the first pass is not oldest change first")
			}
			last := slices.MaxFunc(first.records, func(a, b feedRecord) int { return cmp.Compare(a.updated, b.updated) })
			if first.final.Next != nil || first.final.Since.Unix() != last.updated {
				t.Fatalf("final checkpoint %+v, want Since at the latest updated_at %d", first.final, last.updated)
			}

			srv.Clock().Advance(time.Hour)
			ids := srv.IDs(entity)
			created, err := srv.Create(entity)
			if err != nil {
				t.Fatal(err)
			}
			srv.Clock().Advance(time.Second)
			mustDo(t, srv.Update(entity, ids[5]))
			srv.Clock().Advance(time.Second)
			mustDo(t, srv.Update(entity, created))
			mustDo(t, srv.Delete(entity, ids[3]))
			srv.Clock().Advance(time.Second)
			mustDo(t, srv.Update(entity, ids[300]))
			mustDo(t, srv.Update(entity, ids[301]))
			at := srv.Clock().Now()

			srv.ResetRequests()
			second := readFeed(t, c, entity, first.final, 0)
			// The first pass's records changed since the start of the day of
			// the checkpoint (less overlap and lookback) come again, then
			// the changes, oldest first.
			from := dayStart(first.final.Since.Add(-intercom.FeedOverlap - lookback(entity)))
			var want []string
			for _, r := range first.records {
				if r.updated >= from && r.id != ids[5] && r.id != ids[3] && r.id != ids[300] && r.id != ids[301] {
					want = append(want, r.id)
				}
			}
			want = append(want, ids[5], created, ids[300], ids[301])
			if d := gocmp.Diff(want, second.ids()); d != "" {
				t.Errorf("second pass (-want +got):\n%s", d)
			}
			if second.deleted != 0 {
				t.Errorf("the search reported %d deletions; Intercom's reports none", second.deleted)
			}
			if !second.final.Since.Equal(at.Truncate(time.Second)) {
				t.Errorf("Since = %v, want the latest change %v", second.final.Since, at)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("the sync sent %d requests, want 1", n)
			}
			// The changed records read as a get reads them; the deleted one is gone.
			for _, id := range []string{ids[5], created} {
				got, err := c.Get(context.Background(), entity, tributary.Params{"id": id})
				if err != nil {
					t.Fatal(err)
				}
				for _, pg := range second.pages {
					for _, r := range pg.Records {
						if v, _ := r.StringAt("id"); v == id {
							field := map[string]string{"contacts": "name", "conversations": "title"}[entity]
							a, _ := r.StringAt(field)
							b, _ := got.StringAt(field)
							u, _ := r.Field("updated_at")
							if a != b || a == "" || !gocmp.Equal(u, mustField(t, got, "updated_at")) {
								t.Errorf("feed's %s %q (updated_at %v), get's %q", field, a, u, b)
							}
						}
					}
				}
			}
			if _, err := c.Get(context.Background(), entity, tributary.Params{"id": ids[3]}); !errors.Is(err, tributary.ErrNotFound) {
				t.Errorf("get of the deleted record: %v, want ErrNotFound", err)
			}

			// Without changes, a pass reads the day of its checkpoint again and
			// Since stays.
			third := readFeed(t, c, entity, second.final, 0)
			from = dayStart(second.final.Since.Add(-intercom.FeedOverlap - lookback(entity)))
			want = nil
			for _, r := range second.records {
				if r.updated >= from {
					want = append(want, r.id)
				}
			}
			if d := gocmp.Diff(want, third.ids()); d != "" {
				t.Errorf("a pass without changes (-want +got):\n%s", d)
			}
			if !third.final.Since.Equal(second.final.Since) {
				t.Errorf("Since moved from %v to %v without changes", second.final.Since, third.final.Since)
			}
		})
	}
}

func mustField(t *testing.T, r tributary.Record, path string) any {
	t.Helper()
	v, ok := r.Field(path)
	if !ok {
		t.Fatalf("record lacks %s", path)
	}
	return v
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A sync stopped after its first page goes on from that page's saved
// checkpoint and reads the rest once.
func TestFeedResumesFromAPageCheckpoint(t *testing.T) {
	for _, entity := range feedEntities {
		t.Run(entity, func(t *testing.T) {
			srv := feedServer()
			defer srv.Close()
			c := open(t, srv)
			head := readFeed(t, c, entity, tributary.Checkpoint{}, 1)
			if head.final.Next == nil || len(head.records) != intercom.MaxPerPage {
				t.Fatalf("first page: %d records, checkpoint %+v; want a full page and a Next", len(head.records), head.final)
			}
			b, err := json.Marshal(head.final)
			if err != nil {
				t.Fatal(err)
			}
			var saved tributary.Checkpoint
			if err := json.Unmarshal(b, &saved); err != nil {
				t.Fatal(err)
			}
			rest := readFeed(t, c, entity, saved, 0)
			all := append(head.ids(), rest.ids()...)
			if d := gocmp.Diff(sortedIDs(srv.IDs(entity)), sortedIDs(all)); d != "" {
				t.Errorf("records read across the two runs (-want +got):\n%s", d)
			}
			if rest.final.Next != nil || rest.final.Since.IsZero() {
				t.Errorf("final checkpoint %+v: want a Since and no Next", rest.final)
			}
		})
	}
}

// The vendor receives Intercom's documented search body: the query on
// updated_at with ">" (the only operators Intercom takes on dates are =, <
// and >), the sort, and pagination {per_page, starting_after}.
func TestFeedRequests(t *testing.T) {
	srv := feedServer(intercomtest.WithClock(fakeserver.NewClock(time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC))))
	defer srv.Close()
	c := open(t, srv)
	first := readFeed(t, c, "conversations", tributary.Checkpoint{}, 0)
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests for 400 conversations, want 3", len(reqs))
	}
	query := map[string]any{"field": "updated_at", "operator": ">", "value": 0.0}
	sort := map[string]any{"field": "updated_at", "order": "ascending"}
	for i, r := range reqs {
		if r.Method != "POST" || r.Path != "/conversations/search" || len(r.Query) != 0 {
			t.Errorf("request %d: %s %s?%s, want POST /conversations/search", i, r.Method, r.Path, r.Query.Encode())
		}
		pagination := map[string]any{"per_page": 150.0}
		if i > 0 {
			cur, _ := first.pages[i-1].Checkpoint.Next["starting_after"].(string)
			if cur == "" {
				t.Fatalf("page %d's checkpoint has no starting_after: %v", i, first.pages[i-1].Checkpoint.Next)
			}
			pagination["starting_after"] = cur
		}
		var got map[string]any
		if err := json.Unmarshal(r.Body, &got); err != nil {
			t.Fatal(err)
		}
		if d := gocmp.Diff(map[string]any{"query": query, "sort": sort, "pagination": pagination}, got); d != "" {
			t.Errorf("request %d body (-want +got):\n%s", i, d)
		}
	}

	srv.Clock().Advance(time.Hour)
	mustDo(t, srv.Update("conversations", srv.IDs("conversations")[0]))
	srv.ResetRequests()
	readFeed(t, c, "conversations", first.final, 0)
	var got map[string]any
	if err := json.Unmarshal(srv.Requests()[0].Body, &got); err != nil {
		t.Fatal(err)
	}
	value := float64(first.final.Since.Add(-intercom.FeedOverlap - 24*time.Hour).Unix())
	want := map[string]any{"query": map[string]any{"field": "updated_at", "operator": ">", "value": value}, "sort": sort,
		"pagination": map[string]any{"per_page": 150.0}}
	if d := gocmp.Diff(want, got); d != "" {
		t.Errorf("incremental request body (-want +got):\n%s", d)
	}
}

// Entities without a vendor feed say so.
func TestFeedUnsupported(t *testing.T) {
	srv := intercomtest.New()
	defer srv.Close()
	c := open(t, srv)
	for _, entity := range []string{"companies", "teams", "admins"} {
		for _, err := range c.Changes(context.Background(), entity, nil, tributary.Checkpoint{}) {
			if !errors.Is(err, tributary.ErrUnsupportedAction) {
				t.Errorf("%s: %v, want ErrUnsupportedAction", entity, err)
			}
		}
	}
}
