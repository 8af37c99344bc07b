package hubspot_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/hubspot"
	"github.com/tributary-dev/tributary/kinds/hubspot/hubspottest"
)

var feedEntities = []string{"contacts", "companies", "deals", "tickets"}

// feedServer is a fake with n records of every feed entity.
func feedServer(n int, opts ...hubspottest.Option) *hubspottest.Server {
	return hubspottest.New(append([]hubspottest.Option{hubspottest.WithContacts(n), hubspottest.WithCompanies(n),
		hubspottest.WithDeals(n), hubspottest.WithTickets(n)}, opts...)...)
}

// pass is what one run of Changes returned.
type pass struct {
	records, deleted []string // ids, in the order read
	pages            []*tributary.Changes
	final            tributary.Checkpoint
	err              error
}

func readChanges(ctx context.Context, c *hubspot.Client, entity string, from tributary.Checkpoint, stopAfter int) pass {
	var p pass
	p.final = from
	for ch, err := range c.Changes(ctx, entity, nil, from) {
		if err != nil {
			p.err = err
			return p
		}
		p.pages = append(p.pages, ch)
		for _, r := range ch.Records {
			id, _ := r.StringAt("id")
			p.records = append(p.records, id)
		}
		for _, r := range ch.Deleted {
			id, _ := r.StringAt("id")
			p.deleted = append(p.deleted, id)
		}
		if ch.Checkpoint.Since.Before(p.final.Since) {
			p.err = errors.New("the checkpoint's Since moved backwards: " + ch.Checkpoint.Since.String() + " after " + p.final.Since.String())
			return p
		}
		p.final = ch.Checkpoint
		if stopAfter > 0 && len(p.pages) == stopAfter {
			return p
		}
	}
	return p
}

// unique returns ids sorted, each once.
func unique(ids []string) []string { return slices.Compact(sorted(ids)) }

func sorted(ids []string) []string {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

func listIDs(t *testing.T, c *hubspot.Client, entity string, p tributary.Params) []string {
	t.Helper()
	var ids []string
	for r, err := range tributary.All(context.Background(), c, entity, p) {
		if err != nil {
			t.Fatalf("list %s: %v", entity, err)
		}
		id, _ := r.StringAt("id")
		ids = append(ids, id)
	}
	return ids
}

// archivedIDs are the records HubSpot lists with archived=true.
func archivedIDs(t *testing.T, c *hubspot.Client, entity string) []string {
	return listIDs(t, c, entity, tributary.Params{"archived": true, "limit": 100})
}

// A first pass reads every live record once; a pass from its checkpoint
// after creates, updates and deletes reads exactly those, in two requests,
// and the archived record among the deletions.
func TestFeedFullPassThenChanges(t *testing.T) {
	for _, entity := range feedEntities {
		t.Run(entity, func(t *testing.T) {
			srv := feedServer(450)
			defer srv.Close()
			c := open(t, srv)
			ctx := context.Background()

			first := readChanges(ctx, c, entity, tributary.Checkpoint{}, 0)
			if first.err != nil {
				t.Fatal(first.err)
			}
			// A page's last instant is read again by the next query
			// (Keyset): the set of records is what counts.
			if d := cmp.Diff(sorted(listIDs(t, c, entity, tributary.Params{"limit": 100})), unique(first.records)); d != "" {
				t.Fatalf("first pass vs a list walk (-list +feed):\n%s", d)
			}
			if d := cmp.Diff(archivedIDs(t, c, entity), first.deleted); d != "" {
				t.Errorf("first pass deletions vs the archived list (-list +feed):\n%s", d)
			}
			if first.final.Next != nil || first.final.Since.IsZero() || !first.final.Since.Before(srv.Clock().Now()) {
				t.Fatalf("final checkpoint %+v: want no Next and a Since before the clock", first.final)
			}

			srv.Clock().Advance(time.Hour)
			ids := srv.IDs(entity)
			created1, err := srv.Create(entity)
			if err != nil {
				t.Fatal(err)
			}
			srv.Clock().Advance(time.Second)
			mustDo(t, srv.Update(entity, ids[7]))
			srv.Clock().Advance(time.Second)
			mustDo(t, srv.Update(entity, created1))
			mustDo(t, srv.Delete(entity, ids[3]))
			srv.Clock().Advance(time.Second)
			created2, err := srv.Create(entity)
			if err != nil {
				t.Fatal(err)
			}
			srv.Clock().Advance(time.Second)
			mustDo(t, srv.Update(entity, ids[200]))
			last := srv.Clock().Now()

			srv.ResetRequests()
			second := readChanges(ctx, c, entity, first.final, 0)
			if second.err != nil {
				t.Fatal(second.err)
			}
			// The changes, oldest first, after the records of the
			// first pass that the overlap reads again.
			want := append(overlapped(t, entity, first.pages, first.final.Since), ids[7], created1, created2, ids[200])
			if d := cmp.Diff(want, second.records); d != "" {
				t.Errorf("changed records (-want +got):\n%s", d)
			}
			if !slices.Contains(second.deleted, ids[3]) {
				t.Errorf("deletions %v lack the archived record %s", second.deleted, ids[3])
			}
			if d := cmp.Diff(archivedIDs(t, c, entity), second.deleted); d != "" {
				t.Errorf("deletions vs the archived list (-list +feed):\n%s", d)
			}
			if !second.final.Since.Equal(last.Truncate(time.Millisecond)) {
				t.Errorf("Since = %v, want the latest change %v", second.final.Since, last)
			}
			// Two requests to the feed: one search page, one archived list
			// page (the archived lists above were sent after them).
			reqs := srv.Requests()
			if len(reqs) < 2 || reqs[0].Method != "POST" || reqs[1].Query.Get("archived") != "true" {
				t.Fatalf("requests %v: want a search then the archived list", reqs)
			}
			if got := len(reqs) - 1; got != 2 { // less the archivedIDs walk above
				t.Errorf("the sync sent %d requests, want 2", got)
			}

			// The updated record carries its new values; the deleted one is gone.
			rec, err := c.Get(ctx, entity, tributary.Params{idParam(entity): ids[7]})
			if err != nil {
				t.Fatal(err)
			}
			prop := map[string]string{"contacts": "firstname", "companies": "name", "deals": "dealname", "tickets": "subject"}[entity]
			got := findRecord(t, second.pages, ids[7])
			for _, path := range []string{"properties." + prop, "properties." + hubspot.ModifiedProperty(entity), "updatedAt"} {
				want, _ := rec.StringAt(path)
				if v, _ := got.StringAt(path); v != want || v == "" {
					t.Errorf("feed's %s = %q, get's %q", path, v, want)
				}
			}
			if _, err := c.Get(ctx, entity, tributary.Params{idParam(entity): ids[3]}); !errors.Is(err, tributary.ErrNotFound) {
				t.Errorf("get of the archived record: %v, want ErrNotFound", err)
			}

			// Nothing changed since: the feed reads only the overlap again.
			third := readChanges(ctx, c, entity, second.final, 0)
			if third.err != nil {
				t.Fatal(third.err)
			}
			if d := cmp.Diff(overlapped(t, entity, second.pages, second.final.Since), third.records); d != "" {
				t.Errorf("a pass with no changes (-want +got):\n%s", d)
			}
			if !third.final.Since.Equal(second.final.Since) {
				t.Errorf("Since moved from %v to %v without changes", second.final.Since, third.final.Since)
			}
		})
	}
}

// overlapped returns the ids of the records read in pages that were
// modified within the feed's overlap before since, in the order read.
func overlapped(t *testing.T, entity string, pages []*tributary.Changes, since time.Time) []string {
	t.Helper()
	var out []string
	for _, p := range pages {
		for _, r := range p.Records {
			v, _ := r.StringAt("properties." + hubspot.ModifiedProperty(entity))
			at, err := time.Parse(time.RFC3339, v)
			if err != nil {
				t.Fatalf("record modified at %q: %v", v, err)
			}
			if !at.Before(since.Add(-hubspot.FeedOverlap)) {
				id, _ := r.StringAt("id")
				out = append(out, id)
			}
		}
	}
	return out
}

func findRecord(t *testing.T, pages []*tributary.Changes, id string) tributary.Record {
	t.Helper()
	for _, p := range pages {
		for _, r := range p.Records {
			if v, _ := r.StringAt("id"); v == id {
				return r
			}
		}
	}
	t.Fatalf("record %s not read", id)
	return tributary.Record{}
}

func idParam(entity string) string {
	return map[string]string{"contacts": "contactId", "companies": "companyId", "deals": "dealId", "tickets": "ticketId"}[entity]
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A sync stopped after its first page goes on from that page's checkpoint
// and reads the rest once.
func TestFeedResumesFromAPageCheckpoint(t *testing.T) {
	for _, entity := range feedEntities {
		t.Run(entity, func(t *testing.T) {
			srv := feedServer(450)
			defer srv.Close()
			c := open(t, srv)
			ctx := context.Background()
			head := readChanges(ctx, c, entity, tributary.Checkpoint{}, 1)
			if head.err != nil {
				t.Fatal(head.err)
			}
			if head.final.Next == nil || len(head.records) != hubspot.MaxSearchLimit {
				t.Fatalf("first page: %d records, checkpoint %+v; want a full page and a Next", len(head.records), head.final)
			}
			// The checkpoint is saved as JSON between runs.
			b, err := json.Marshal(head.final)
			if err != nil {
				t.Fatal(err)
			}
			var saved tributary.Checkpoint
			if err := json.Unmarshal(b, &saved); err != nil {
				t.Fatal(err)
			}
			rest := readChanges(ctx, c, entity, saved, 0)
			if rest.err != nil {
				t.Fatal(rest.err)
			}
			all := append(slices.Clone(head.records), rest.records...)
			if d := cmp.Diff(sorted(srv.IDs(entity)), unique(all)); d != "" {
				t.Errorf("records read across the two runs (-want +got):\n%s", d)
			}
			if rest.final.Next != nil || rest.final.Since.IsZero() {
				t.Errorf("final checkpoint %+v: want a Since and no Next", rest.final)
			}
		})
	}
}

// The vendor receives HubSpot's documented search: last-modified property
// ascending, 200 a page, each later page a query GTE the latest time read
// (Keyset), an incremental pass GTE the checkpoint less the overlap, in
// epoch milliseconds; then the archived list.
func TestFeedRequests(t *testing.T) {
	srv := feedServer(450, hubspottest.WithClock(fakeserver.NewClock(time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC))))
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	first := readChanges(ctx, c, "tickets", tributary.Checkpoint{}, 0)
	if first.err != nil {
		t.Fatal(first.err)
	}
	reqs := srv.Requests()
	sorts := []any{map[string]any{"propertyName": "hs_lastmodifieddate", "direction": "ASCENDING"}}
	gte := func(t time.Time) []any {
		return []any{map[string]any{"filters": []any{
			map[string]any{"propertyName": "hs_lastmodifieddate", "operator": "GTE", "value": strconv.FormatInt(t.UnixMilli(), 10)},
		}}}
	}
	wantBodies := []map[string]any{
		{"sorts": sorts, "limit": 200.0},
		{"sorts": sorts, "limit": 200.0, "filterGroups": gte(first.pages[0].Checkpoint.High)},
		{"sorts": sorts, "limit": 200.0, "filterGroups": gte(first.pages[1].Checkpoint.High)},
	}
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 3 search pages and one archived page: %v", len(reqs), reqs)
	}
	for i, want := range wantBodies {
		r := reqs[i]
		if r.Method != "POST" || r.Path != "/crm/v3/objects/tickets/search" {
			t.Errorf("request %d: %s %s, want POST /crm/v3/objects/tickets/search", i, r.Method, r.Path)
		}
		var got map[string]any
		if err := json.Unmarshal(r.Body, &got); err != nil {
			t.Fatalf("request %d body %s: %v", i, r.Body, err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("request %d body (-want +got):\n%s", i, d)
		}
	}
	if r := reqs[3]; r.Method != "GET" || r.Path != "/crm/v3/objects/tickets" || r.Query.Encode() != "archived=true&limit=100" {
		t.Errorf("deletions request: %s %s?%s, want GET /crm/v3/objects/tickets?archived=true&limit=100", r.Method, r.Path, r.Query.Encode())
	}

	srv.Clock().Advance(time.Hour)
	mustDo(t, srv.Update("tickets", srv.IDs("tickets")[0]))
	srv.ResetRequests()
	second := readChanges(ctx, c, "tickets", first.final, 0)
	if second.err != nil {
		t.Fatal(second.err)
	}
	from := first.final.Since.Add(-hubspot.FeedOverlap).UnixMilli()
	want := map[string]any{"sorts": sorts, "limit": 200.0, "filterGroups": []any{map[string]any{"filters": []any{
		map[string]any{"propertyName": "hs_lastmodifieddate", "operator": "GTE", "value": strconv.FormatInt(from, 10)},
	}}}}
	var got map[string]any
	if err := json.Unmarshal(srv.Requests()[0].Body, &got); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("incremental request body (-want +got):\n%s", d)
	}
}

// Past HubSpot's 10,000-result cap the feed starts a new query from the
// latest modification time read, and still reads every record; a saved
// page the search refuses (an offset past the cap) resumes from the
// checkpoint's High.
func TestFeedPastTheSearchCap(t *testing.T) {
	const n = hubspot.SearchResultCap + 450
	srv := hubspottest.New(hubspottest.WithContacts(n))
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	all := readChanges(ctx, c, "contacts", tributary.Checkpoint{}, 0)
	if all.err != nil {
		t.Fatal(all.err)
	}
	if d := cmp.Diff(sorted(srv.IDs("contacts")), sorted(slices.Compact(sorted(all.records)))); d != "" {
		t.Fatalf("records read (-want +got):\n%s", d)
	}
	windows, searches := 0, 0
	for _, r := range srv.Requests() {
		if r.Method == "POST" {
			searches++
		}
		var body struct {
			FilterGroups []any `json:"filterGroups"`
			After        string
		}
		_ = json.Unmarshal(r.Body, &body)
		if len(body.FilterGroups) > 0 && body.After == "" {
			windows++
		}
		if n, _ := strconv.Atoi(body.After); n >= hubspot.SearchResultCap {
			t.Errorf("a request asked for after=%s, past the cap", body.After)
		}
	}
	if windows != searches-1 {
		t.Errorf("%d new queries after the first of %d searches: want every later page a new query (Keyset)", windows, searches)
	}

	// A checkpoint saved at page 40 whose page HubSpot now refuses.
	head := readChanges(ctx, c, "contacts", tributary.Checkpoint{}, 40)
	if head.err != nil {
		t.Fatal(head.err)
	}
	cp := head.final
	cp.Next = cp.Next.Clone()
	cp.Next["after"] = strconv.Itoa(hubspot.SearchResultCap)
	rest := readChanges(ctx, c, "contacts", cp, 0)
	if rest.err != nil {
		t.Fatal(rest.err)
	}
	got := sorted(slices.Compact(sorted(append(slices.Clone(head.records), rest.records...))))
	if d := cmp.Diff(sorted(srv.IDs("contacts")), got); d != "" {
		t.Errorf("records read across the refused page (-want +got):\n%s", d)
	}
	if len(rest.records) > n-len(head.records)+hubspot.MaxSearchLimit {
		t.Errorf("the resumed run read %d records: it started the pass again instead of going on from High", len(rest.records))
	}
}

// A record changed while a pass is under way moves to the end of the
// oldest-first order and shifts every later one back a place; the pass
// still reads every record (Keyset: each page is a query from the latest
// time read, not an offset that the shift would skip one past).
func TestFeedChangesDuringPassLoseNothing(t *testing.T) {
	srv := feedServer(450)
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	want := sorted(srv.IDs("contacts"))
	head := readChanges(ctx, c, "contacts", tributary.Checkpoint{}, 1)
	if head.err != nil || head.final.Next == nil {
		t.Fatalf("first page: %v, %+v", head.err, head.final)
	}
	srv.Clock().Advance(time.Minute)
	mustDo(t, srv.Update("contacts", head.records[0]))
	rest := readChanges(ctx, c, "contacts", head.final, 0)
	if rest.err != nil {
		t.Fatal(rest.err)
	}
	if d := cmp.Diff(want, unique(append(slices.Clone(head.records), rest.records...))); d != "" {
		t.Errorf("records read across a change during the pass (-want +got):\n%s", d)
	}
}

// More than 10,000 records modified in one millisecond cannot be paged
// past: the pass fails with ErrPaging rather than loop or stop silently.
func TestFeedCapOnOneInstantFails(t *testing.T) {
	srv := hubspottest.New(hubspottest.WithContacts(hubspot.SearchResultCap+10), hubspottest.WithModifiedGranularity(24*365*100*time.Hour))
	defer srv.Close()
	c := open(t, srv)
	p := readChanges(context.Background(), c, "contacts", tributary.Checkpoint{}, 0)
	if !errors.Is(p.err, tributary.ErrPaging) {
		t.Fatalf("err = %v, want ErrPaging", p.err)
	}
}

// Entities without a vendor feed say so.
func TestFeedUnsupported(t *testing.T) {
	srv := hubspottest.New()
	defer srv.Close()
	c := open(t, srv)
	for _, entity := range []string{"notes", "owners", "pipelines"} {
		for _, err := range c.Changes(context.Background(), entity, nil, tributary.Checkpoint{}) {
			if !errors.Is(err, tributary.ErrUnsupportedAction) {
				t.Errorf("%s: %v, want ErrUnsupportedAction", entity, err)
			}
		}
	}
	var _ tributary.Changer = c
}
