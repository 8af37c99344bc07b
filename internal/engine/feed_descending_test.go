package engine_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/pagination"
)

// descendingSource serves /items newest-first on "changed", two records
// a page, paged by a cursor (the offset as text), with no time filter of
// its own: Notion's search sorted by last_edited_time.
type descendingSource struct {
	mu      sync.Mutex
	changed map[string]int // id → minute
	cursors []string       // the cursor of every request ("" for a first page)
}

func (s *descendingSource) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := r.URL.Query().Get("cursor")
	s.cursors = append(s.cursors, cur)
	ids := make([]string, 0, len(s.changed))
	for id := range s.changed {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int {
		if d := s.changed[b] - s.changed[a]; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	at, _ := strconv.Atoi(cur)
	end := min(at+2, len(ids))
	var recs []string
	for _, id := range ids[at:end] {
		recs = append(recs, fmt.Sprintf(`{"id":%q,"changed":%q}`, id, epochFeed.Add(time.Duration(s.changed[id])*time.Minute).Format(time.RFC3339)))
	}
	next := "null"
	if end < len(ids) {
		next = strconv.Quote(strconv.Itoa(end))
	}
	return reply(http.StatusOK, nil, `{"results":[`+strings.Join(recs, ",")+`],"next_cursor":`+next+`}`), nil
}

func openDescending(t *testing.T, src *descendingSource) *engine.Connector {
	t.Helper()
	paging := pagination.Token{Param: "cursor", Field: "next_cursor"}
	k := engine.Kind{Type: "desc", Entities: []engine.Entity{{
		Entity: tributary.Entity{Name: "items", Actions: []tributary.Action{tributary.ActionList},
			Feed: &tributary.Feed{
				Params:     func(tributary.Params, time.Time) tributary.Params { return tributary.Params{} },
				Changed:    "changed",
				Descending: true,
			}},
		Routes:    map[tributary.Action][]engine.Route{tributary.ActionList: {{Path: "/items", Records: "results", Paging: paging}}},
		FeedRoute: &engine.Route{Path: "/items", Records: "results", Paging: paging},
	}}}
	return openNoRetry(t, k, src)
}

// openNoRetry opens kind k against rt, with no retries.
func openNoRetry(t *testing.T, k engine.Kind, rt http.RoundTripper) *engine.Connector {
	t.Helper()
	c, err := engine.Open(engine.Setup{Kind: &k, Options: tributary.NewOptions(tributary.WithHTTPClient(&http.Client{Transport: rt}),
		tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 0})), DefaultBaseURL: "https://api.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// readPass reads a whole pass from cp: the ids read, and the checkpoint.
func readPass(t *testing.T, c *engine.Connector, cp tributary.Checkpoint) ([]string, tributary.Checkpoint) {
	t.Helper()
	var ids []string
	for ch, err := range c.Changes(context.Background(), "items", nil, cp) {
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range ch.Records {
			id, _ := r.StringAt("id")
			ids = append(ids, id)
		}
		cp = ch.Checkpoint
	}
	return ids, cp
}

// A descending feed reads everything the first time, then stops at the
// first record older than the checkpoint: the records that share the
// checkpoint's minute are read again, the older ones are not, and no page
// past the one where it stops is asked for.
func TestDescendingFeedStopsAtCheckpoint(t *testing.T) {
	src := &descendingSource{changed: map[string]int{"a": 1, "b": 2, "c": 3, "d": 5, "e": 5, "f": 6, "g": 7}}
	c := openDescending(t, src)
	ids, cp := readPass(t, c, tributary.Checkpoint{})
	if len(ids) != 7 || !cp.Since.Equal(epochFeed.Add(7*time.Minute)) || cp.Next != nil {
		t.Fatalf("full pass read %v, checkpoint %+v", ids, cp)
	}
	// g's minute is the checkpoint: x shares it, h and d move above it.
	src.mu.Lock()
	src.changed["h"], src.changed["d"], src.changed["x"] = 9, 8, 7
	src.cursors = nil
	src.mu.Unlock()
	ids, cp = readPass(t, c, cp)
	if want := []string{"h", "d", "g", "x"}; !slices.Equal(ids, want) {
		t.Errorf("second pass read %v, want %v (f, changed before the checkpoint, left out)", ids, want)
	}
	if want := []string{"", "2", "4"}; !slices.Equal(src.cursors, want) {
		t.Errorf("second pass asked for pages %q, want %q: the page that holds f ends it", src.cursors, want)
	}
	if !cp.Since.Equal(epochFeed.Add(9 * time.Minute)) {
		t.Errorf("checkpoint %v, want minute 9", cp.Since)
	}
	// Nothing changed: one request, the records of the checkpoint's minute.
	src.mu.Lock()
	src.cursors = nil
	src.mu.Unlock()
	ids, _ = readPass(t, c, cp)
	if !slices.Equal(ids, []string{"h"}) || len(src.cursors) != 1 {
		t.Errorf("an idle pass read %v in %d requests, want [h] in 1", ids, len(src.cursors))
	}
}
