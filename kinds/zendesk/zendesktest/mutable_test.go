package zendesktest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// records returns the raw records of key in an envelope, by id.
func records(t *testing.T, body []byte, key string) ([]string, map[string]json.RawMessage) {
	t.Helper()
	var env map[string]json.RawMessage
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, body)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(env[key], &list); err != nil {
		t.Fatalf("no %q array: %v\n%s", key, err, body)
	}
	var order []string
	byID := map[string]json.RawMessage{}
	for _, r := range list {
		var rec struct {
			ID json.Number `json:"id"`
		}
		d := json.NewDecoder(bytes.NewReader(r))
		d.UseNumber()
		if err := d.Decode(&rec); err != nil {
			t.Fatal(err)
		}
		order = append(order, rec.ID.String())
		byID[rec.ID.String()] = r
	}
	return order, byID
}

func newMutable(t *testing.T, opts ...Option) (*Server, *fakeserver.Clock) {
	t.Helper()
	clock := fakeserver.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	s := New(append([]Option{WithClock(clock), WithTickets(30), WithUsers(20), WithOrganizations(10)}, opts...)...)
	t.Cleanup(s.Close)
	return s, clock
}

var listPaths = map[string]string{
	"tickets": "/api/v2/tickets.json", "users": "/api/v2/users.json",
	"organizations": "/api/v2/organizations.json", "groups": "/api/v2/groups.json",
}

// Create, Update and Delete show in every list (offset and cursor mode),
// get and count of the fake, and IDs agrees with the lists.
func TestMutationsShowInListsAndGets(t *testing.T) {
	s, clock := newMutable(t)
	if got := s.MutableEntities(); !slices.Equal(got, []string{"tickets", "users", "organizations", "groups", "ticket_comments"}) {
		t.Fatalf("MutableEntities = %v", got)
	}
	// ticket_comments: see comments_test.go (they cannot be deleted).
	for _, entity := range []string{"tickets", "users", "organizations", "groups"} {
		t.Run(entity, func(t *testing.T) {
			before := s.IDs(entity)
			clock.Advance(time.Minute)
			created, err := s.Create(entity)
			if err != nil {
				t.Fatal(err)
			}
			victim, changed := before[0], before[1]
			if err := s.Update(entity, changed); err != nil {
				t.Fatal(err)
			}
			if err := s.Delete(entity, victim); err != nil {
				t.Fatal(err)
			}
			if err := s.Update(entity, victim); err == nil {
				t.Error("Update of a deleted record succeeded")
			}
			want := append(slices.Clone(before[1:]), created)
			if got := s.IDs(entity); !slices.Equal(got, want) {
				t.Fatalf("IDs = %v, want %v", got, want)
			}
			listQuery := ""
			if entity == "groups" {
				listQuery = "exclude_deleted=true&" // Zendesk keeps deleted groups listed
			}
			stamp := clock.Now().UTC().Format(time.RFC3339)
			for _, q := range []string{"per_page=100", "page[size]=100"} {
				resp, body := get(t, s.URL+listPaths[entity]+"?"+listQuery+q, defaultAuth)
				wantStatus(t, resp, body, http.StatusOK)
				order, byID := records(t, body, entity)
				if !slices.Equal(order, want) {
					t.Errorf("%s list ids %v, want %v", q, order, want)
				}
				for _, id := range []string{created, changed} {
					if !bytes.Contains(byID[id], []byte(`"updated_at":"`+stamp+`"`)) {
						t.Errorf("%s: record %s does not show updated_at %s: %s", q, id, stamp, byID[id])
					}
				}
				if !bytes.Contains(byID[changed], []byte("(update 1)")) {
					t.Errorf("updated record keeps its searchable values: %s", byID[changed])
				}
				if m := decode(t, body); q == "per_page=100" && m["count"] != json.Number(strconv.Itoa(len(want))) {
					t.Errorf("count %v, want %d", m["count"], len(want))
				}
			}
			resp, body := get(t, s.URL+strings.TrimSuffix(listPaths[entity], ".json")+"/"+created+".json", defaultAuth)
			wantStatus(t, resp, body, http.StatusOK)
			resp, body = get(t, s.URL+strings.TrimSuffix(listPaths[entity], ".json")+"/"+victim+".json", defaultAuth)
			if entity == "groups" {
				wantStatus(t, resp, body, http.StatusOK)
				if !bytes.Contains(body, []byte(`"deleted":true`)) {
					t.Errorf("deleted group: %s", body)
				}
			} else {
				wantStatus(t, resp, body, http.StatusNotFound)
			}
			if n := s.Total(entity); entity != "groups" && n != len(want) {
				t.Errorf("Total = %d, want %d", n, len(want))
			}
		})
	}
}

// The exports render a record byte for byte as the lists do, in order of
// last change, a changed record once at its latest place.
func TestExportRendersAsTheList(t *testing.T) {
	s, clock := newMutable(t)
	for _, entity := range []string{"tickets", "users", "organizations"} {
		ids := s.IDs(entity)
		clock.Advance(time.Minute)
		if err := s.Update(entity, ids[0]); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Minute)
		if err := s.Update(entity, ids[2]); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Second)
		if err := s.Update(entity, ids[0]); err != nil { // again: moves last
			t.Fatal(err)
		}
	}
	clock.Advance(2 * time.Minute)
	for _, tc := range []struct{ entity, path string }{
		{"tickets", "/api/v2/incremental/tickets/cursor.json"},
		{"users", "/api/v2/incremental/users/cursor.json"},
		{"tickets", "/api/v2/incremental/tickets.json"},
		{"users", "/api/v2/incremental/users.json"},
		{"organizations", "/api/v2/incremental/organizations.json"},
	} {
		resp, body := get(t, s.URL+tc.path+"?start_time=0", defaultAuth)
		wantStatus(t, resp, body, http.StatusOK)
		order, exported := records(t, body, tc.entity)
		_, listed := func() ([]string, map[string]json.RawMessage) {
			_, b := get(t, s.URL+listPaths[tc.entity]+"?per_page=100", defaultAuth)
			return records(t, b, tc.entity)
		}()
		ids := s.IDs(tc.entity)
		want := append(slices.Concat(ids[1:2], ids[3:]), ids[2], ids[0])
		if !slices.Equal(order, want) {
			t.Errorf("%s: export order %v, want %v", tc.path, order, want)
		}
		for id, raw := range exported {
			if !bytes.Equal(raw, listed[id]) {
				t.Errorf("%s: record %s differs from the list's:\n%s\n%s", tc.path, id, raw, listed[id])
			}
		}
		if m := decode(t, body); m["end_of_stream"] != true {
			t.Errorf("%s: end_of_stream %v", tc.path, m["end_of_stream"])
		}
	}
}

// start_time must be a minute old (422 otherwise), and changes of the last
// minute are left out until they are a minute old.
func TestExportMinuteDelay(t *testing.T) {
	s, clock := newMutable(t)
	now := clock.Now().Unix()
	resp, body := get(t, s.URL+"/api/v2/incremental/tickets/cursor.json?start_time="+strconv.FormatInt(now-30, 10), defaultAuth)
	wantStatus(t, resp, body, http.StatusUnprocessableEntity)
	if !strings.Contains(string(body), "Too recent start_time") {
		t.Errorf("422 body %s", body)
	}
	resp, body = get(t, s.URL+"/api/v2/incremental/tickets/cursor.json?start_time="+strconv.FormatInt(now+3600, 10), defaultAuth)
	wantStatus(t, resp, body, http.StatusUnprocessableEntity)

	clock.Advance(10 * time.Minute)
	id, _ := s.Create("tickets")
	since := strconv.FormatInt(clock.Now().Unix()-120, 10)
	_, body = get(t, s.URL+"/api/v2/incremental/tickets/cursor.json?start_time="+since, defaultAuth)
	if order, _ := records(t, body, "tickets"); len(order) != 0 {
		t.Errorf("a change 0s old is exported: %v", order)
	}
	clock.Advance(time.Minute)
	_, body = get(t, s.URL+"/api/v2/incremental/tickets/cursor.json?start_time="+since, defaultAuth)
	if order, _ := records(t, body, "tickets"); !slices.Equal(order, []string{id}) {
		t.Errorf("a change a minute old: exported %v, want [%s]", order, id)
	}
}

// Cursor pages follow after_cursor to end_of_stream; a record changed
// while a walk is under way comes at its new place, after the others.
func TestCursorExportPages(t *testing.T) {
	s, clock := newMutable(t)
	clock.Advance(time.Hour)
	var seen []string
	next := s.URL + "/api/v2/incremental/users/cursor.json?start_time=0&per_page=8"
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("no end_of_stream")
		}
		resp, body := get(t, next, defaultAuth)
		wantStatus(t, resp, body, http.StatusOK)
		order, _ := records(t, body, "users")
		seen = append(seen, order...)
		m := decode(t, body)
		if pages == 0 {
			if m["before_cursor"] != nil {
				t.Errorf("first page before_cursor %v", m["before_cursor"])
			}
			if err := s.Update("users", s.IDs("users")[0]); err != nil { // already read
				t.Fatal(err)
			}
			clock.Advance(2 * time.Minute)
		}
		if m["end_of_stream"] == true {
			if len(order) == 8 && pages < 2 {
				t.Errorf("end_of_stream on a full page %d", pages)
			}
			break
		}
		next = m["after_url"].(string)
		if !strings.Contains(next, "cursor="+url.QueryEscape(m["after_cursor"].(string))) || strings.Contains(next, "start_time") {
			t.Errorf("after_url %s", next)
		}
	}
	want := append(s.IDs("users"), s.IDs("users")[0])
	if !slices.Equal(seen, want) {
		t.Errorf("walked %v, want %v", seen, want)
	}
	resp, body := get(t, s.URL+"/api/v2/incremental/users/cursor.json?cursor=bm90LWEtY3Vyc29y", defaultAuth)
	wantStatus(t, resp, body, http.StatusBadRequest)
}

// Time-based pages: the next page starts at end_time, so the records of
// that second come again (Zendesk's boundary duplicates); a full page all
// in one second takes the whole second instead of naming itself again.
func TestTimeBasedExportPages(t *testing.T) {
	s, clock := newMutable(t)
	_, body := get(t, s.URL+"/api/v2/incremental/organizations.json?start_time=0&per_page=4", defaultAuth)
	order, _ := records(t, body, "organizations")
	m := decode(t, body)
	ids := s.IDs("organizations")
	if !slices.Equal(order, ids[:4]) || m["count"] != json.Number("4") || m["end_of_stream"] != false {
		t.Fatalf("first page %v %v", order, m)
	}
	end := m["end_time"].(json.Number).String()
	if next := m["next_page"].(string); !strings.HasSuffix(next, "/api/v2/incremental/organizations.json?start_time="+end) {
		t.Errorf("next_page %s", next)
	}
	_, body = get(t, s.URL+"/api/v2/incremental/organizations.json?start_time="+end+"&per_page=4", defaultAuth)
	if order, _ := records(t, body, "organizations"); !slices.Equal(order, ids[3:7]) {
		t.Errorf("second page %v, want %v (the boundary record again)", order, ids[3:7])
	}

	clock.Advance(time.Hour)
	var created []string
	for range 5 {
		id, _ := s.Create("organizations")
		created = append(created, id)
	}
	at := strconv.FormatInt(clock.Now().Unix(), 10)
	clock.Advance(2 * time.Minute)
	_, body = get(t, s.URL+"/api/v2/incremental/organizations.json?start_time="+at+"&per_page=2", defaultAuth)
	order, _ = records(t, body, "organizations")
	m = decode(t, body)
	if !slices.Equal(order, created) || m["end_time"].(json.Number).String() == at {
		t.Errorf("a page in one second: %v end_time %v, want %v and end_time after %s", order, m["end_time"], created, at)
	}
}

// WithExportRateLimit: the exports answer 429 past n requests a window,
// with Retry-After and Zendesk's body; other endpoints are not limited.
func TestExportRateLimit(t *testing.T) {
	s, clock := newMutable(t, WithExportRateLimit(2, time.Minute))
	clock.Advance(time.Hour)
	u := s.URL + "/api/v2/incremental/tickets/cursor.json?start_time=0"
	for range 2 {
		resp, body := get(t, u, defaultAuth)
		wantStatus(t, resp, body, http.StatusOK)
	}
	clock.Advance(20 * time.Second)
	resp, body := get(t, u, defaultAuth)
	wantStatus(t, resp, body, http.StatusTooManyRequests)
	if resp.Header.Get("Retry-After") != "40" || decode(t, body)["error"] != "APIRateLimitExceeded" || resp.Header.Get("X-Rate-Limit") == "" {
		t.Errorf("429: %v %s", resp.Header, body)
	}
	resp, body = get(t, s.URL+"/api/v2/tickets.json", defaultAuth)
	wantStatus(t, resp, body, http.StatusOK)
	clock.Advance(40 * time.Second)
	resp, body = get(t, u, defaultAuth)
	wantStatus(t, resp, body, http.StatusOK)
}
