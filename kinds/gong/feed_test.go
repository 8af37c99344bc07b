package gong_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/gong"
	"github.com/tributary-dev/tributary/kinds/gong/gongtest"
)

var _ fakeserver.Mutable = (*gongtest.Server)(nil)

func feedPass(t *testing.T, c *gong.Client, entity string, base tributary.Params, from tributary.Checkpoint) []*tributary.Changes {
	t.Helper()
	var out []*tributary.Changes
	for ch, err := range c.Changes(context.Background(), entity, base, from) {
		if err != nil {
			t.Fatalf("%s changes: %v", entity, err)
		}
		out = append(out, ch)
	}
	return out
}

// recordIDs reads the id at path of every record.
func recordIDs(t *testing.T, recs []tributary.Record, path string) []string {
	t.Helper()
	var out []string
	for _, r := range recs {
		id, ok := r.StringAt(path)
		if !ok {
			t.Fatalf("record without %s: %s", path, r.Raw())
		}
		out = append(out, id)
	}
	return out
}

func sortedIDs(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func allIDs(t *testing.T, c *gong.Client, entity string, p tributary.Params, path string) []string {
	t.Helper()
	var out []string
	for r, err := range tributary.All(context.Background(), c, entity, p) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, recordIDs(t, []tributary.Record{r}, path)...)
	}
	return out
}

// The calls feed: a first pass reads every call (oldest first), a later
// pass reads the new calls and the calls that started within the lookback
// (an edited one with its new title) in one request; an edit older than
// the lookback and deletions are not reported; the checkpoint never moves
// backwards.
func TestCallsFeed(t *testing.T) {
	srv := gongtest.New(gongtest.WithCalls(250))
	defer srv.Close()
	c := open(t, srv, gong.WithFeedLookback(24*time.Hour))

	first := feedPass(t, c, "calls", nil, tributary.Checkpoint{})
	var got []string
	var starts []time.Time
	for _, ch := range first {
		got = append(got, recordIDs(t, ch.Records, "id")...)
		for _, r := range ch.Records {
			s, _ := r.StringAt("started")
			st, err := time.Parse(time.RFC3339, s)
			if err != nil {
				t.Fatal(err)
			}
			starts = append(starts, st)
		}
	}
	if want := allIDs(t, c, "calls", nil, "id"); len(got) != 250 || !slices.Equal(got, want) {
		t.Fatalf("first pass: %d calls, a full walk %d; they differ", len(got), len(want))
	}
	if !slices.IsSortedFunc(starts, func(a, b time.Time) int { return a.Compare(b) }) {
		t.Error("first pass not oldest first")
	}
	if len(first) != 3 {
		t.Errorf("first pass: %d pages, want 3 of up to 100", len(first))
	}
	cp := first[len(first)-1].Checkpoint
	if cp.Next != nil || !cp.Since.Equal(starts[len(starts)-1]) {
		t.Fatalf("final checkpoint %+v, want Since = the last call's start %v", cp, starts[len(starts)-1])
	}
	// The calls the lookback (a day and a minute) reads again.
	var window []string
	for k, st := range starts {
		if !st.Before(cp.Since.Add(-24*time.Hour - time.Minute)) {
			window = append(window, got[k])
		}
	}

	srv.Clock().Advance(time.Hour)
	live := srv.IDs("calls")
	var created []string
	for range 2 {
		id, err := srv.Create("calls")
		if err != nil {
			t.Fatal(err)
		}
		created = append(created, id)
	}
	recent, old := window[len(window)-3], live[10]
	for _, id := range []string{recent, old} {
		if err := srv.Update("calls", id); err != nil {
			t.Fatal(err)
		}
	}
	gone := window[len(window)-2]
	if err := srv.Delete("calls", gone); err != nil {
		t.Fatal(err)
	}
	srv.ResetRequests()
	second := feedPass(t, c, "calls", nil, cp)
	var recs []tributary.Record
	for _, ch := range second {
		recs = append(recs, ch.Records...)
		if len(ch.Deleted) != 0 {
			t.Errorf("the calls feed reported %d deletions; Gong reports none", len(ch.Deleted))
		}
	}
	ids := recordIDs(t, recs, "id")
	want := slices.Concat(slices.DeleteFunc(slices.Clone(window), func(id string) bool { return id == gone }), created)
	if !slices.Equal(sortedIDs(ids), sortedIDs(want)) {
		t.Errorf("second pass %v\nwant the lookback window without the deleted call, and the new calls %v", ids, want)
	}
	for _, r := range recs {
		id, _ := r.StringAt("id")
		title, _ := r.StringAt("title")
		if id == recent && !strings.Contains(title, "(updated") {
			t.Errorf("edited call in the lookback: title %q, want the new one", title)
		}
	}
	if slices.Contains(ids, old) {
		t.Error("an edit older than the lookback was read; it should need a full walk")
	}
	if n := len(apiRequests(srv)); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	end := second[len(second)-1].Checkpoint
	if end.Since.Before(cp.Since) || !end.Since.Equal(srv.Clock().Now()) {
		t.Errorf("checkpoint %v → %v, want the new calls' start %v", cp.Since, end.Since, srv.Clock().Now())
	}
	// What a user sees: the deleted call is gone from the list and get.
	if after := allIDs(t, c, "calls", nil, "id"); len(after) != 251 || slices.Contains(after, gone) {
		t.Errorf("list after the changes: %d calls", len(after))
	}
	if _, err := c.Get(context.Background(), "calls", tributary.Params{"id": gone}); !errors.Is(err, tributary.ErrNotFound) {
		t.Errorf("get of a deleted call: %v", err)
	}
}

// A pass stopped after its first page goes on from that page's cursor and
// reads the rest once.
func TestCallsFeedResumes(t *testing.T) {
	srv := gongtest.New(gongtest.WithCalls(250))
	defer srv.Close()
	c := open(t, srv)
	var page1 *tributary.Changes
	for ch, err := range c.Changes(context.Background(), "calls", nil, tributary.Checkpoint{}) {
		if err != nil {
			t.Fatal(err)
		}
		page1 = ch
		break
	}
	if page1.Checkpoint.Next == nil || len(page1.Records) != 100 {
		t.Fatalf("page 1: %d records, checkpoint %+v", len(page1.Records), page1.Checkpoint)
	}
	srv.ResetRequests()
	rest := feedPass(t, c, "calls", nil, page1.Checkpoint)
	ids := recordIDs(t, page1.Records, "id")
	for _, ch := range rest {
		ids = append(ids, recordIDs(t, ch.Records, "id")...)
	}
	if len(ids) != 250 || len(slices.Compact(sortedIDs(ids))) != 250 {
		t.Errorf("page 1 and the resumed pass: %d calls, want 250 distinct", len(ids))
	}
	reqs := apiRequests(srv)
	if len(reqs) != 2 || !strings.Contains(reqs[0].Query, "cursor=") {
		t.Errorf("resumed with %d requests, first %+v; want 2 by cursor", len(reqs), reqs)
	}
}

// The requests Gong receives: GET /v2/calls?fromDateTime=<checkpoint less
// the overlap and the lookback>, the caller's workspaceId kept, and the
// next page by cursor with the same inputs.
func TestCallsFeedRequests(t *testing.T) {
	srv := gongtest.New(gongtest.WithCalls(2000))
	defer srv.Close()
	c := open(t, srv)
	ws := srv.WorkspaceID(1)
	since := time.Date(2024, 2, 20, 12, 0, 0, 0, time.UTC)
	feedPass(t, c, "calls", tributary.Params{"workspaceId": ws, "toDateTime": "2024-03-01T00:00:00Z"}, tributary.Checkpoint{Since: since})
	reqs := apiRequests(srv)
	if len(reqs) < 2 {
		t.Fatalf("%d requests, want at least 2 pages", len(reqs))
	}
	from := "fromDateTime=2024-02-13T11%3A59%3A00Z"
	if reqs[0].Method != "GET" || reqs[0].Path != "/v2/calls" || reqs[0].Query != from+"&workspaceId="+ws {
		t.Errorf("first request %s %s?%s", reqs[0].Method, reqs[0].Path, reqs[0].Query)
	}
	if !strings.HasPrefix(reqs[1].Query, "cursor=") || !strings.HasSuffix(reqs[1].Query, "&"+from+"&workspaceId="+ws) {
		t.Errorf("second request %s?%s, want the cursor and the same inputs", reqs[1].Path, reqs[1].Query)
	}
}

// The calls_extensive feed sends the caller's filter and content selector
// with filter.fromDateTime, reads every call from the zero checkpoint,
// and its second page repeats the body with the cursor.
func TestCallsExtensiveFeed(t *testing.T) {
	srv := gongtest.New(gongtest.WithCalls(250))
	defer srv.Close()
	c := open(t, srv)
	base := tributary.Params{"filter": map[string]any{"toDateTime": "2030-01-01T00:00:00Z"},
		"contentSelector": map[string]any{"exposedFields": map[string]any{"parties": true}}}
	pages := feedPass(t, c, "calls_extensive", base, tributary.Checkpoint{})
	var ids []string
	for _, ch := range pages {
		ids = append(ids, recordIDs(t, ch.Records, "metaData.id")...)
	}
	if want := allIDs(t, c, "calls_extensive", tributary.Params{"filter": map[string]any{}}, "metaData.id"); len(ids) != 250 || !slices.Equal(ids, want) {
		t.Fatalf("full pass: %d calls, full walk %d", len(ids), len(want))
	}
	if _, ok := base["filter"].(map[string]any)["toDateTime"]; !ok {
		t.Error("the feed modified the caller's params")
	}
	cp := pages[len(pages)-1].Checkpoint
	srv.ResetRequests()
	feedPass(t, c, "calls_extensive", base, cp)
	// A week of calls, an hour apart: 169 calls in two pages.
	reqs := apiRequests(srv)
	if len(reqs) != 2 || reqs[0].Method != "POST" || reqs[0].Path != "/v2/calls/extensive" {
		t.Fatalf("incremental pass: %d requests, want 2", len(reqs))
	}
	body := bodyOf(t, reqs[0])
	filter, _ := body["filter"].(map[string]any)
	wantFrom := cp.Since.Add(-gong.DefaultFeedLookback - time.Minute).UTC().Format(time.RFC3339)
	if filter["fromDateTime"] != wantFrom || filter["toDateTime"] != nil || body["contentSelector"] == nil || body["cursor"] != nil {
		t.Errorf("body %s, want filter.fromDateTime %s, no toDateTime, the content selector", reqs[0].Body, wantFrom)
	}
	next := bodyOf(t, reqs[1])
	cursor, _ := next["cursor"].(string)
	delete(next, "cursor")
	delete(body, "cursor")
	if cursor == "" || !cmp.Equal(next, body) {
		t.Errorf("second page body %s, want the first page's with a cursor", reqs[1].Body)
	}
}

// Users have no change feed: Gong documents none.
func TestUsersHaveNoFeed(t *testing.T) {
	srv := gongtest.New()
	defer srv.Close()
	c := open(t, srv)
	for _, err := range c.Changes(context.Background(), "users", nil, tributary.Checkpoint{}) {
		if !errors.Is(err, tributary.ErrUnsupportedAction) {
			t.Errorf("users feed: %v", err)
		}
	}
}
