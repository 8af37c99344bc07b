package mailchimptest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/mailchimp/mailchimptest"
)

// newMutable starts a small fake whose clock reads now until advanced.
func newMutable(t *testing.T, now time.Time, opts ...mailchimptest.Option) *mailchimptest.Server {
	t.Helper()
	srv := mailchimptest.New(append([]mailchimptest.Option{mailchimptest.WithClock(fakeserver.NewClock(now))}, opts...)...)
	t.Cleanup(srv.Close)
	return srv
}

// rawGet returns the status and body of a GET.
func rawGet(t *testing.T, srv *mailchimptest.Server, path string, q url.Values) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.URL.RawQuery = q.Encode()
	req.SetBasicAuth("tributary", mailchimptest.DefaultAPIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// walk reads every page of a collection (count 3, so that created and
// deleted records cross page boundaries) and returns each record's bytes
// by id, in order, and the last total_items.
func walk(t *testing.T, srv *mailchimptest.Server, path, key string, q url.Values) (ids []string, raw map[string][]byte, totalItems int) {
	t.Helper()
	raw = map[string][]byte{}
	for offset := 0; ; {
		pq := url.Values{"count": {"3"}, "offset": {strconv.Itoa(offset)}}
		for k, v := range q {
			pq[k] = v
		}
		status, body := rawGet(t, srv, path, pq)
		if status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, status, body)
		}
		var page map[string]json.RawMessage
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatal(err)
		}
		var recs []json.RawMessage
		if err := json.Unmarshal(page[key], &recs); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(page["total_items"], &totalItems); err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			var rec struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(r, &rec); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, rec.ID)
			raw[rec.ID] = r
		}
		offset += len(recs)
		if len(recs) == 0 || offset >= totalItems {
			return ids, raw, totalItems
		}
	}
}

// record GETs one record and decodes it.
func record(t *testing.T, srv *mailchimptest.Server, path string) map[string]any {
	t.Helper()
	resp, body := get(t, srv, path, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", path, resp.StatusCode, body)
	}
	return body
}

// sameAsGet checks that every record of a walk renders byte for byte as
// its own GET does.
func sameAsGet(t *testing.T, srv *mailchimptest.Server, base string, raw map[string][]byte) {
	t.Helper()
	for id, r := range raw {
		status, body := rawGet(t, srv, base+"/"+id, nil)
		if status != http.StatusOK || !bytes.Equal(body, r) {
			t.Errorf("GET %s/%s: %d\n%s\nlist renders\n%s", base, id, status, body, r)
		}
	}
}

func settings(t *testing.T, rec map[string]any) map[string]any {
	t.Helper()
	s, ok := rec["settings"].(map[string]any)
	if !ok {
		t.Fatalf("no settings in %v", keys(rec))
	}
	return s
}

func rcpt(t *testing.T, rec map[string]any) map[string]any {
	t.Helper()
	r, ok := rec["recipients"].(map[string]any)
	if !ok {
		t.Fatalf("no recipients in %v", keys(rec))
	}
	return r
}

func TestMutableEntities(t *testing.T) {
	srv := newMutable(t, time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC))
	got := srv.MutableEntities()
	for _, e := range []string{"lists", "campaigns", "list_members"} {
		if !slices.Contains(got, e) {
			t.Errorf("MutableEntities() = %v, want %s in it", got, e)
		}
	}
	if _, err := srv.Create("reports"); !errors.Is(err, mailchimptest.ErrUnsupported) {
		t.Errorf("Create(reports) = %v, want ErrUnsupported", err)
	}
}

// TestMutableLists: a created list is in the list, get and counts, with
// date_created now; a rename shows in the list, get, and everything that
// names the list; a deleted list is gone (404, total_items and
// constraints count one less, its members 404) while its campaigns stay
// with list_is_active false.
func TestMutableLists(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	srv := newMutable(t, now, mailchimptest.WithLists(3), mailchimptest.WithCampaigns(20))
	before := srv.IDs("lists")
	if len(before) != 3 {
		t.Fatalf("IDs(lists) = %v, want 3", before)
	}

	id, err := srv.Create("lists")
	if err != nil {
		t.Fatal(err)
	}
	if len(id) != 10 || slices.Contains(before, id) {
		t.Fatalf("created list id %q: want 10 new hex characters", id)
	}
	if got := srv.IDs("lists"); !slices.Equal(got, append(slices.Clone(before), id)) {
		t.Errorf("IDs(lists) after create = %v", got)
	}
	ids, raw, n := walk(t, srv, "/3.0/lists", "lists", nil)
	if n != 4 || !slices.Equal(ids, srv.IDs("lists")) {
		t.Errorf("lists walk: %v (total %d), want %v", ids, n, srv.IDs("lists"))
	}
	sameAsGet(t, srv, "/3.0/lists", raw)
	rec := record(t, srv, "/3.0/lists/"+id)
	if rec["date_created"] != "2025-06-01T12:00:00+00:00" {
		t.Errorf("date_created = %v, want the clock's now", rec["date_created"])
	}
	for _, f := range []string{"name", "contact", "campaign_defaults", "stats", "subscribe_url_short", "_links"} {
		if _, ok := rec[f]; !ok {
			t.Errorf("created list has no %s", f)
		}
	}
	if ids, _, _ := walk(t, srv, "/3.0/lists", "lists", url.Values{"since_date_created": {"2025-06-01T11:00:00+00:00"}}); !slices.Equal(ids, []string{id}) {
		t.Errorf("since_date_created = %v, want only the created list", ids)
	}
	if ids, _, _ := walk(t, srv, "/3.0/lists", "lists", url.Values{"sort_dir": {"DESC"}}); len(ids) == 0 || ids[0] != id {
		t.Errorf("DESC = %v, want the created list first", ids)
	}
	if resp, _ := get(t, srv, "/3.0/lists/"+id+"/members", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("members of a created list: %d", resp.StatusCode)
	}

	// Rename the first list: its campaigns and reports name it anew.
	first := before[0]
	name := record(t, srv, "/3.0/lists/"+first)["name"]
	if err := srv.Update("lists", first); err != nil {
		t.Fatal(err)
	}
	renamed := record(t, srv, "/3.0/lists/"+first)["name"]
	if renamed == name {
		t.Fatalf("name after Update = %v, unchanged", renamed)
	}
	_, raw, _ = walk(t, srv, "/3.0/lists", "lists", nil)
	sameAsGet(t, srv, "/3.0/lists", raw)
	_, body := get(t, srv, "/3.0/campaigns", url.Values{"list_id": {first}, "count": {"1000"}})
	camps := records(t, body, "campaigns")
	if len(camps) == 0 {
		t.Fatal("no campaigns of the first list")
	}
	for _, c := range camps {
		if r := rcpt(t, c); r["list_name"] != renamed || r["list_is_active"] != true {
			t.Errorf("campaign %v: recipients %v, want list_name %v, active", c["id"], r, renamed)
		}
	}
	sent := camps[0]["id"].(string) // campaign 0 is sent
	if rep := record(t, srv, "/3.0/reports/"+sent); rep["list_name"] != renamed {
		t.Errorf("report list_name = %v, want %v", rep["list_name"], renamed)
	}

	// Delete the first list.
	if err := srv.Delete("lists", first); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/3.0/lists/" + first, "/3.0/lists/" + first + "/members", "/3.0/lists/" + first + "/segments"} {
		resp, body := get(t, srv, p, nil)
		wantProblem(t, resp, body, http.StatusNotFound, "Resource Not Found")
	}
	ids, _, n = walk(t, srv, "/3.0/lists", "lists", nil)
	if n != 3 || slices.Contains(ids, first) || !slices.Equal(ids, srv.IDs("lists")) {
		t.Errorf("lists after delete: %v (total %d), IDs %v", ids, n, srv.IDs("lists"))
	}
	_, body = get(t, srv, "/3.0/lists", nil)
	if c := body["constraints"].(map[string]any)["current_total_instances"]; c != float64(3) {
		t.Errorf("current_total_instances = %v, want 3", c)
	}
	_, body = get(t, srv, "/3.0/campaigns", url.Values{"list_id": {first}, "count": {"1000"}})
	if got := records(t, body, "campaigns"); len(got) != len(camps) {
		t.Errorf("campaigns of the deleted list: %d, want %d (they stay)", len(got), len(camps))
	}
	c := record(t, srv, "/3.0/campaigns/"+sent)
	if r := rcpt(t, c); r["list_is_active"] != false || r["list_id"] != first {
		t.Errorf("campaign of the deleted list: recipients %v, want its id, list_is_active false", r)
	}
	if rep := record(t, srv, "/3.0/reports/"+sent); rep["list_is_active"] != false {
		t.Errorf("report of the deleted list: list_is_active %v", rep["list_is_active"])
	}
	_, body = get(t, srv, "/3.0/reports/"+sent+"/email-activity", nil)
	for _, e := range records(t, body, "emails") {
		if e["list_is_active"] != false {
			t.Errorf("email activity of the deleted list: list_is_active %v", e["list_is_active"])
			break
		}
	}
	if err := srv.Update("lists", first); !errors.Is(err, mailchimptest.ErrUnknownRecord) {
		t.Errorf("Update of a deleted list = %v, want ErrUnknownRecord", err)
	}
	if err := srv.Delete("lists", first); !errors.Is(err, mailchimptest.ErrUnknownRecord) {
		t.Errorf("Delete of a deleted list = %v, want ErrUnknownRecord", err)
	}
	// The first list held the mutable members: they went with it.
	if got := srv.IDs("list_members"); got != nil {
		t.Errorf("IDs(list_members) of a deleted list = %d ids", len(got))
	}
	if _, err := srv.Create("list_members"); err == nil {
		t.Error("Create(list_members) in a deleted list: no error")
	}
}

// TestMutableCampaigns: a created campaign is a draft in the list, get,
// counts, filters and its list's campaign_count; an edit shows in the
// list, get and report; a deleted campaign is gone, and so is its report.
func TestMutableCampaigns(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	clock := fakeserver.NewClock(now)
	srv := mailchimptest.New(mailchimptest.WithClock(clock), mailchimptest.WithLists(3), mailchimptest.WithCampaigns(20))
	t.Cleanup(srv.Close)
	before := srv.IDs("campaigns")
	lists := srv.IDs("lists")
	_, body := get(t, srv, "/3.0/reports", url.Values{"count": {"1000"}})
	reports := total(t, body)

	clock.Advance(time.Hour)
	id, err := srv.Create("campaigns")
	if err != nil {
		t.Fatal(err)
	}
	if len(id) != 10 || slices.Contains(before, id) {
		t.Fatalf("created campaign id %q", id)
	}
	ids, raw, n := walk(t, srv, "/3.0/campaigns", "campaigns", nil)
	if n != 21 || !slices.Equal(ids, srv.IDs("campaigns")) || ids[len(ids)-1] != id {
		t.Errorf("campaigns walk: %d ids (total %d), want IDs with the created one last", len(ids), n)
	}
	sameAsGet(t, srv, "/3.0/campaigns", raw)
	c := record(t, srv, "/3.0/campaigns/"+id)
	if c["create_time"] != "2025-06-01T13:00:00+00:00" || c["status"] != "save" || c["send_time"] != "" {
		t.Errorf("created campaign: create_time %v, status %v, send_time %v; want now, a draft", c["create_time"], c["status"], c["send_time"])
	}
	r := rcpt(t, c)
	if r["list_id"] != lists[0] || r["list_is_active"] != true || r["list_name"] == "" {
		t.Errorf("created campaign's recipients = %v, want the first list", r)
	}
	filtered := func(q url.Values) []string {
		ids, _, _ := walk(t, srv, "/3.0/campaigns", "campaigns", q)
		return ids
	}
	if got := filtered(url.Values{"since_create_time": {"2025-06-01T12:30:00+00:00"}}); !slices.Equal(got, []string{id}) {
		t.Errorf("since_create_time = %v, want the created campaign", got)
	}
	if got := filtered(url.Values{"status": {"save"}}); !slices.Contains(got, id) {
		t.Errorf("status=save = %v, want the created campaign in it", got)
	}
	if got := filtered(url.Values{"status": {"sent"}}); slices.Contains(got, id) {
		t.Error("status=sent lists the created draft")
	}
	if got := filtered(url.Values{"list_id": {lists[0]}}); !slices.Contains(got, id) {
		t.Errorf("list_id = %v, want the created campaign in it", got)
	}
	if got := filtered(url.Values{"sort_dir": {"DESC"}}); got[0] != id {
		t.Errorf("DESC starts with %s, want the created campaign", got[0])
	}
	if resp, body := get(t, srv, "/3.0/reports/"+id, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("report of a draft: %d %v", resp.StatusCode, body)
	}
	_, body = get(t, srv, "/3.0/reports", url.Values{"count": {"1000"}})
	if got := total(t, body); got != reports {
		t.Errorf("reports after creating a draft: %d, want %d", got, reports)
	}
	campaignCount := func(list string) float64 {
		return record(t, srv, "/3.0/lists/"+list)["stats"].(map[string]any)["campaign_count"].(float64)
	}
	if got := campaignCount(lists[0]); got != 8 { // 7 generated (0, 3, ..., 18) + 1
		t.Errorf("campaign_count of the first list = %v, want 8", got)
	}
	// The next created campaign goes to the next list.
	id2, err := srv.Create("campaigns")
	if err != nil {
		t.Fatal(err)
	}
	if r := rcpt(t, record(t, srv, "/3.0/campaigns/"+id2)); r["list_id"] != lists[1] {
		t.Errorf("second created campaign's list = %v, want %s", r["list_id"], lists[1])
	}

	// Edit a sent campaign (campaign 0): its report follows.
	sent := before[0]
	old := settings(t, record(t, srv, "/3.0/campaigns/"+sent))
	if err := srv.Update("campaigns", sent); err != nil {
		t.Fatal(err)
	}
	edited := settings(t, record(t, srv, "/3.0/campaigns/"+sent))
	if edited["subject_line"] == old["subject_line"] || edited["title"] == old["title"] {
		t.Errorf("settings after Update: %v / %v, unchanged", edited["subject_line"], edited["title"])
	}
	rep := record(t, srv, "/3.0/reports/"+sent)
	if rep["campaign_title"] != edited["title"] || rep["subject_line"] != edited["subject_line"] {
		t.Errorf("report: %v / %v, want the edited title and subject", rep["campaign_title"], rep["subject_line"])
	}
	_, raw, _ = walk(t, srv, "/3.0/campaigns", "campaigns", nil)
	sameAsGet(t, srv, "/3.0/campaigns", raw)

	// Delete it: the campaign and its report are gone.
	if err := srv.Delete("campaigns", sent); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/3.0/campaigns/" + sent, "/3.0/reports/" + sent, "/3.0/reports/" + sent + "/email-activity"} {
		resp, body := get(t, srv, p, nil)
		wantProblem(t, resp, body, http.StatusNotFound, "Resource Not Found")
	}
	ids, _, n = walk(t, srv, "/3.0/campaigns", "campaigns", nil)
	if n != 21 || slices.Contains(ids, sent) || !slices.Equal(ids, srv.IDs("campaigns")) {
		t.Errorf("campaigns after delete: %d ids (total %d), IDs %d", len(ids), n, len(srv.IDs("campaigns")))
	}
	repIDs, _, n := walk(t, srv, "/3.0/reports", "reports", nil)
	if n != reports-1 || slices.Contains(repIDs, sent) {
		t.Errorf("reports after deleting a sent campaign: total %d, want %d", n, reports-1)
	}
	if got := campaignCount(lists[0]); got != 7 {
		t.Errorf("campaign_count of the first list = %v, want 7", got)
	}
	if err := srv.Update("campaigns", sent); !errors.Is(err, mailchimptest.ErrUnknownRecord) {
		t.Errorf("Update of a deleted campaign = %v, want ErrUnknownRecord", err)
	}
}

// TestCampaignLastSentSkipsDeleted: a list's campaign_last_sent and the
// filters on it forget a deleted campaign.
func TestCampaignLastSentSkipsDeleted(t *testing.T) {
	srv := newMutable(t, time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC), mailchimptest.WithLists(1), mailchimptest.WithCampaigns(5))
	list := srv.IDs("lists")[0]
	last := func() any { return record(t, srv, "/3.0/lists/"+list)["stats"].(map[string]any)["campaign_last_sent"] }
	was := last()
	camps := srv.IDs("campaigns")
	if err := srv.Delete("campaigns", camps[len(camps)-1]); err != nil { // campaign 4, the last sent
		t.Fatal(err)
	}
	now := last()
	if now == was || now == "" {
		t.Errorf("campaign_last_sent = %v after deleting the last sent campaign (was %v)", now, was)
	}
	ids, _, _ := walk(t, srv, "/3.0/lists", "lists", url.Values{"since_campaign_last_sent": {was.(string)}})
	if len(ids) != 0 {
		t.Errorf("since_campaign_last_sent %v still finds %v", was, ids)
	}
}

// TestCreateCampaignWithoutLists: with every list deleted, a created
// campaign has no recipients.
func TestCreateCampaignWithoutLists(t *testing.T) {
	srv := newMutable(t, time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC), mailchimptest.WithLists(1), mailchimptest.WithCampaigns(2))
	if err := srv.Delete("lists", srv.IDs("lists")[0]); err != nil {
		t.Fatal(err)
	}
	id, err := srv.Create("campaigns")
	if err != nil {
		t.Fatal(err)
	}
	if r := rcpt(t, record(t, srv, "/3.0/campaigns/"+id)); r["list_id"] != "" {
		t.Errorf("recipients = %v, want none", r)
	}
	_, body := get(t, srv, "/3.0/lists", nil)
	if total(t, body) != 0 {
		t.Errorf("lists total_items = %d, want 0", total(t, body))
	}
}

// TestMutationsWhileReading: mutations and reads at once (run with -race).
func TestMutationsWhileReading(t *testing.T) {
	srv := newMutable(t, time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC))
	var wg sync.WaitGroup
	wg.Go(func() {
		for range 20 {
			for _, e := range []string{"lists", "campaigns"} {
				id, err := srv.Create(e)
				if err != nil {
					t.Error(err)
					return
				}
				if err := srv.Update(e, id); err != nil {
					t.Error(err)
				}
				if ids := srv.IDs(e); len(ids) > 3 {
					if err := srv.Delete(e, ids[1]); err != nil {
						t.Error(err)
					}
				}
			}
		}
	})
	for range 2 {
		wg.Go(func() {
			for range 20 {
				for _, p := range []string{"/3.0/lists", "/3.0/campaigns", "/3.0/reports"} {
					if status, body := rawGet(t, srv, p, url.Values{"count": {"1000"}}); status != http.StatusOK {
						t.Errorf("GET %s: %d %s", p, status, body)
					}
				}
			}
		})
	}
	wg.Wait()
}
