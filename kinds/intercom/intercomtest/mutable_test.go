package intercomtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// raw sends a request and returns the status and the body's bytes.
func raw(t *testing.T, s *Server, method, path, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+DefaultAccessToken)
	req.Header.Set("Content-Type", "application/json")
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

type rawList struct {
	Data          []json.RawMessage `json:"data"`
	Conversations []json.RawMessage `json:"conversations"`
	TotalCount    int               `json:"total_count"`
	Pages         struct {
		Next *struct {
			StartingAfter string `json:"starting_after"`
		} `json:"next"`
	} `json:"pages"`
}

func (l rawList) records() []json.RawMessage { return append(l.Data, l.Conversations...) }

func idOf(t *testing.T, r json.RawMessage) string {
	t.Helper()
	var v struct{ ID string }
	if err := json.Unmarshal(r, &v); err != nil {
		t.Fatal(err)
	}
	return v.ID
}

// walk pages through a list with per_page 150.
func walk(t *testing.T, s *Server, path string) ([]json.RawMessage, int) {
	t.Helper()
	var out []json.RawMessage
	q := url.Values{"per_page": {"150"}}
	for {
		status, b := raw(t, s, http.MethodGet, path+"?"+q.Encode(), "")
		var l rawList
		if status != http.StatusOK || json.Unmarshal(b, &l) != nil {
			t.Fatalf("GET %s: %d %s", path, status, b)
		}
		out = append(out, l.records()...)
		if l.Pages.Next == nil {
			return out, l.TotalCount
		}
		q.Set("starting_after", l.Pages.Next.StartingAfter)
	}
}

func searchAll(t *testing.T, s *Server, entity, query string) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	after := ""
	for {
		pg := `{"per_page":150}`
		if after != "" {
			pg = `{"per_page":150,"starting_after":"` + after + `"}`
		}
		status, b := raw(t, s, http.MethodPost, "/"+entity+"/search",
			`{"query":`+query+`,"sort":{"field":"updated_at","order":"ascending"},"pagination":`+pg+`}`)
		var l rawList
		if status != http.StatusOK || json.Unmarshal(b, &l) != nil {
			t.Fatalf("search %s: %d %s", entity, status, b)
		}
		out = append(out, l.records()...)
		if l.Pages.Next == nil {
			return out
		}
		after = l.Pages.Next.StartingAfter
	}
}

// Create, Update and Delete show in lists, gets and searches, at the
// fake's clock; searches render records as lists do and match timestamps
// by calendar day.
func TestMutations(t *testing.T) {
	start := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	s := New(WithContacts(300), WithConversations(200), WithCompanies(100), WithClock(fakeserver.NewClock(start)))
	defer s.Close()
	var _ fakeserver.Mutable = s
	if !slices.Equal(s.MutableEntities(), []string{"contacts", "conversations", "companies"}) {
		t.Fatalf("MutableEntities = %v", s.MutableEntities())
	}
	for _, entity := range s.MutableEntities() {
		t.Run(entity, func(t *testing.T) {
			path := "/" + entity
			before, _ := walk(t, s, path)
			for _, r := range before {
				var v struct {
					UpdatedAt int64 `json:"updated_at"`
				}
				_ = json.Unmarshal(r, &v)
				if v.UpdatedAt >= start.Unix() {
					t.Fatalf("a generated record was updated at %d, not before the clock's start", v.UpdatedAt)
				}
			}
			ids := s.IDs(entity)
			start := s.Clock().Now() // the subtests share the clock
			s.Clock().Advance(time.Minute)
			created, err := s.Create(entity)
			if err != nil {
				t.Fatal(err)
			}
			s.Clock().Advance(time.Minute)
			if err := s.Update(entity, ids[10]); err != nil {
				t.Fatal(err)
			}
			if err := s.Delete(entity, ids[20]); err != nil {
				t.Fatal(err)
			}
			if err := s.Update(entity, ids[20]); !errors.Is(err, ErrNoRecord) {
				t.Errorf("Update of a deleted record: %v, want ErrNoRecord", err)
			}

			after, total := walk(t, s, path)
			var got []string
			for _, r := range after {
				got = append(got, idOf(t, r))
			}
			want := append(slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == ids[20] }), created)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) || total != len(want) || !slices.Equal(sortedCopy(s.IDs(entity)), want) {
				t.Fatalf("list after mutations: %d records (total_count %d), want %d without the deleted one", len(got), total, len(want))
			}
			if status, _ := raw(t, s, http.MethodGet, path+"/"+ids[20], ""); status != http.StatusNotFound {
				t.Errorf("get of the deleted record: %d, want 404", status)
			}
			_, b := raw(t, s, http.MethodGet, path+"/"+ids[10], "")
			var upd map[string]any
			_ = json.Unmarshal(b, &upd)
			name := map[string]string{"contacts": "name", "conversations": "title", "companies": "name"}[entity]
			if n, _ := upd[name].(string); !strings.HasSuffix(n, "(edit 1)") || upd["updated_at"] != float64(start.Add(2*time.Minute).Unix()) {
				t.Errorf("updated record: %s %v, updated_at %v", name, upd[name], upd["updated_at"])
			}
			_, b = raw(t, s, http.MethodGet, path+"/"+created, "")
			var cr map[string]any
			_ = json.Unmarshal(b, &cr)
			if cr["created_at"] != float64(start.Add(time.Minute).Unix()) || cr["updated_at"] != cr["created_at"] {
				t.Errorf("created record: created_at %v, updated_at %v", cr["created_at"], cr["updated_at"])
			}
			var createdInList json.RawMessage
			for _, r := range after {
				if idOf(t, r) == created {
					createdInList = r
				}
			}
			if entity == "companies" {
				if idOf(t, after[0]) != created {
					t.Errorf("the created company is not first in the list (most recently requested first)")
				}
				return
			}

			// updated_at > the day before start: the two changes, oldest first,
			// as the list renders them.
			found := searchAll(t, s, entity, `{"field":"updated_at","operator":">","value":`+itoa(start.Unix()-86400)+`}`)
			if len(found) != 2 || idOf(t, found[0]) != created || idOf(t, found[1]) != ids[10] {
				t.Fatalf("search of the changes: %d records", len(found))
			}
			if !bytes.Equal(found[0], createdInList) {
				t.Errorf("search renders the created record as\n%s\nthe list as\n%s", found[0], createdInList)
			}
			// The same instant with > matches from the next day: nothing.
			if n := searchAll(t, s, entity, `{"field":"updated_at","operator":">","value":`+itoa(start.Unix())+`}`); len(n) != 0 {
				t.Errorf("updated_at > start matched %d records; Intercom matches from the next day", len(n))
			}
			// >= is refused on dates.
			if status, _ := raw(t, s, http.MethodPost, path+"/search", `{"query":{"field":"updated_at","operator":">=","value":1}}`); status != http.StatusBadRequest {
				t.Errorf(">= on a date: %d, want 400", status)
			}
			// Every live record, by a search that matches all.
			if all := searchAll(t, s, entity, `{"field":"updated_at","operator":">","value":0}`); len(all) != len(want) {
				t.Errorf("search of everything: %d records, want %d", len(all), len(want))
			}
		})
	}
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

func itoa(n int64) string { return strings.TrimSpace(string(mustJSON(n))) }

// A record updated between two pages of a search sorted on updated_at is
// served once at its new place: the cursor holds the position reached.
func TestSearchCursorSurvivesUpdates(t *testing.T) {
	s := New(WithContacts(300))
	defer s.Close()
	ids := s.IDs("contacts")
	status, b := raw(t, s, http.MethodPost, "/contacts/search",
		`{"query":{"field":"updated_at","operator":">","value":0},"sort":{"field":"updated_at","order":"ascending"},"pagination":{"per_page":150}}`)
	var l rawList
	if status != http.StatusOK || json.Unmarshal(b, &l) != nil || l.Pages.Next == nil {
		t.Fatalf("first page: %d %s", status, b)
	}
	s.Clock().Advance(time.Hour)
	// ids[299] is last: it has not been served yet; ids[0] was.
	if err := s.Update("contacts", ids[200]); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range l.records() {
		seen[idOf(t, r)]++
	}
	rest := searchAllFrom(t, s, l.Pages.Next.StartingAfter)
	for _, r := range rest {
		seen[idOf(t, r)]++
	}
	for _, id := range ids {
		if seen[id] != 1 {
			t.Errorf("contact %s served %d times", id, seen[id])
		}
	}
}

func searchAllFrom(t *testing.T, s *Server, after string) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	for after != "" {
		status, b := raw(t, s, http.MethodPost, "/contacts/search",
			`{"query":{"field":"updated_at","operator":">","value":0},"sort":{"field":"updated_at","order":"ascending"},"pagination":{"per_page":150,"starting_after":"`+after+`"}}`)
		var l rawList
		if status != http.StatusOK || json.Unmarshal(b, &l) != nil {
			t.Fatalf("search: %d %s", status, b)
		}
		out = append(out, l.records()...)
		after = ""
		if l.Pages.Next != nil {
			after = l.Pages.Next.StartingAfter
		}
	}
	return out
}
