package mailchimp_test

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/mailchimp/mailchimptest"
)

type member struct {
	id, status string
	changed    time.Time
}

func asMember(t *testing.T, r tributary.Record) member {
	t.Helper()
	id, ok := r.StringAt("id")
	if !ok {
		t.Fatalf("member without id: %s", r.Raw())
	}
	st, _ := r.StringAt("status")
	lc, _ := r.StringAt("last_changed")
	at, err := time.Parse(time.RFC3339, lc)
	if err != nil {
		t.Fatalf("last_changed %q: %v", lc, err)
	}
	return member{id, st, at}
}

// membersPass reads the list_members feed from cp to its end.
func membersPass(t *testing.T, c tributary.Changer, base tributary.Params, cp tributary.Checkpoint) ([]member, []tributary.Checkpoint) {
	t.Helper()
	var out []member
	var cps []tributary.Checkpoint
	for ch, err := range c.Changes(context.Background(), "list_members", base, cp) {
		if err != nil {
			t.Fatalf("changes: %v", err)
		}
		if len(ch.Deleted) > 0 {
			t.Errorf("the members feed reports no deletions, got %d", len(ch.Deleted))
		}
		for _, r := range ch.Records {
			out = append(out, asMember(t, r))
		}
		cps = append(cps, ch.Checkpoint)
	}
	if len(cps) == 0 || cps[len(cps)-1].Next != nil {
		t.Fatalf("pass did not end: %d pages", len(cps))
	}
	return out, cps
}

func memberIDs(ms []member) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.id
	}
	slices.Sort(out)
	return out
}

func membersRequests(srv *mailchimptest.Server, listID string) []fakeserver.Request {
	var out []fakeserver.Request
	for _, r := range srv.Requests() {
		if r.Origin == "api" && r.Path == "/3.0/lists/"+listID+"/members" {
			out = append(out, r)
		}
	}
	return out
}

// The list_members feed: a full pass returns every member a full walk
// finds; after changes an hour later, a pass from the final checkpoint
// returns the created, updated and archived members (and besides them only
// members changed within the overlap) in one request; a pass resumed from
// page 1's checkpoint reads the rest without duplicates or losses; the
// requests are Mailchimp's documented ones.
func TestMembersFeed(t *testing.T) {
	srv := mailchimptest.New(mailchimptest.WithListMembers(2300))
	defer srv.Close()
	c := open(t, srv)
	listID := firstListID(t, c)
	base := tributary.Params{"list_id": listID}

	var walked []string
	for r, err := range tributary.All(context.Background(), c, "list_members", base) {
		if err != nil {
			t.Fatal(err)
		}
		walked = append(walked, asMember(t, r).id)
	}
	slices.Sort(walked)
	if len(walked) != 2300 {
		t.Fatalf("full walk: %d members", len(walked))
	}

	// (a) and (d)
	srv.ResetRequests()
	ms, cps := membersPass(t, c, base, tributary.Checkpoint{})
	if got := memberIDs(ms); !slices.Equal(got, walked) {
		t.Fatalf("full pass: %d members, full walk %d", len(got), len(walked))
	}
	reqs := membersRequests(srv, listID)
	if len(reqs) != 3 || len(cps) != 3 {
		t.Fatalf("full pass: %d requests, %d pages; want 3 pages of at most 1000", len(reqs), len(cps))
	}
	want := url.Values{"sort_field": {"last_changed"}, "sort_dir": {"DESC"}, "count": {"1000"}}
	if q := reqs[0].Query; !sameValues(q, want) {
		t.Errorf("first request %v, want %v", q, want)
	}
	want.Set("offset", "1000")
	if q := reqs[1].Query; !sameValues(q, want) {
		t.Errorf("second request %v, want %v", q, want)
	}
	for i := 1; i < len(ms); i++ {
		if ms[i].changed.After(ms[i-1].changed) {
			t.Fatalf("feed not newest change first at %d: %s after %s", i, ms[i].changed, ms[i-1].changed)
		}
	}
	end := cps[len(cps)-1]
	if !end.Since.Equal(ms[0].changed) {
		t.Errorf("checkpoint %s, want the latest last_changed %s", end.Since, ms[0].changed)
	}

	// (b)
	srv.Clock().Advance(time.Hour)
	ids := srv.IDs("list_members")
	created, err := srv.Create("list_members")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Update("list_members", ids[10]); err != nil {
		t.Fatal(err)
	}
	if err := srv.Delete("list_members", ids[20]); err != nil {
		t.Fatal(err)
	}
	srv.ResetRequests()
	ms2, cps2 := membersPass(t, c, base, end)
	changed := map[string]string{created: "subscribed", ids[10]: "", ids[20]: "archived"}
	seen := map[string]bool{}
	for _, m := range ms2 {
		st, ok := changed[m.id]
		switch {
		case ok:
			seen[m.id] = true
			if st != "" && m.status != st {
				t.Errorf("member %s: status %q, want %q", m.id, m.status, st)
			}
		case m.changed.Before(end.Since.Add(-time.Minute)):
			t.Errorf("incremental pass read %s, unchanged since %s", m.id, m.changed)
		}
	}
	if len(seen) != len(changed) {
		t.Errorf("incremental pass read %d of the %d changed members", len(seen), len(changed))
	}
	reqs = membersRequests(srv, listID)
	if len(reqs) != 1 {
		t.Fatalf("incremental pass: %d requests, want 1", len(reqs))
	}
	since, err := time.Parse(time.RFC3339, reqs[0].Query.Get("since_last_changed"))
	if err != nil || !since.Equal(end.Since.Add(-time.Minute)) {
		t.Errorf("since_last_changed=%q, want the checkpoint %s less a minute", reqs[0].Query.Get("since_last_changed"), end.Since)
	}
	if !strings.HasSuffix(reqs[0].Query.Get("since_last_changed"), "+00:00") {
		t.Errorf("since_last_changed=%q: Mailchimp documents +00:00 offsets", reqs[0].Query.Get("since_last_changed"))
	}
	end2 := cps2[len(cps2)-1]
	if !end2.Since.After(end.Since) {
		t.Errorf("checkpoint did not move on: %s then %s", end.Since, end2.Since)
	}
	for _, cp := range cps2 {
		if cp.Since.Before(end.Since) {
			t.Errorf("checkpoint moved back to %s", cp.Since)
		}
	}

	// (c)
	var page1 []member
	var first tributary.Checkpoint
	for ch, err := range c.Changes(context.Background(), "list_members", base, tributary.Checkpoint{}) {
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range ch.Records {
			page1 = append(page1, asMember(t, r))
		}
		first = ch.Checkpoint
		break
	}
	if first.Next == nil {
		t.Fatal("page 1's checkpoint has no Next")
	}
	rest, _ := membersPass(t, c, base, first)
	all := append(page1, rest...)
	if len(all) != 2301 || len(memberIDs(all)) != len(slices.Compact(memberIDs(all))) {
		t.Errorf("page 1 and the resumed rest: %d records, %d distinct; want 2301", len(all), len(slices.Compact(memberIDs(all))))
	}
}

// A member changed while a pass is under way is not lost, nor is any
// other: offsets shift when a member moves in the feed's order.
func TestMembersFeedChangesDuringPass(t *testing.T) {
	srv := mailchimptest.New(mailchimptest.WithListMembers(2300))
	defer srv.Close()
	c := open(t, srv)
	base := tributary.Params{"list_id": firstListID(t, c)}
	read := map[string]bool{}
	var end tributary.Checkpoint
	page := 0
	for ch, err := range c.Changes(context.Background(), "list_members", base, tributary.Checkpoint{}) {
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range ch.Records {
			read[asMember(t, r).id] = true
		}
		if page == 0 {
			srv.Clock().Advance(time.Hour)
			ids := srv.IDs("list_members")
			for _, id := range []string{asMember(t, ch.Records[3]).id, ids[len(ids)/2]} {
				if err := srv.Update("list_members", id); err != nil {
					t.Fatal(err)
				}
			}
		}
		page++
		end = ch.Checkpoint
	}
	ms, _ := membersPass(t, c, base, end)
	for _, m := range ms {
		read[m.id] = true
	}
	for _, id := range srv.IDs("list_members") {
		if !read[id] {
			t.Errorf("member %s never read", id)
		}
	}
}

func sameValues(a, b url.Values) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}
