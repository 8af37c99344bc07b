package engine_test

import (
	"context"
	"errors"
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

// cappedSource serves /items?since=&after= like a search that pages by
// offset, two records a page, and refuses offsets of 4 or more (its cap),
// records oldest first.
type cappedSource struct {
	mu      sync.Mutex
	changed []int // record i was changed at second changed[i]
	queries []string
}

var epochFeed = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (s *cappedSource) RoundTrip(r *http.Request) (*http.Response, error) {
	q := r.URL.Query()
	s.mu.Lock()
	s.queries = append(s.queries, q.Encode())
	s.mu.Unlock()
	since := time.Time{}
	if v := q.Get("since"); v != "" {
		since, _ = time.Parse(time.RFC3339, v)
	}
	after, _ := strconv.Atoi(q.Get("after"))
	if after >= 4 {
		return reply(http.StatusBadRequest, nil, "past the cap"), nil
	}
	var match []int
	for i, c := range s.changed {
		if !epochFeed.Add(time.Duration(c) * time.Second).Before(since) {
			match = append(match, i)
		}
	}
	slices.SortStableFunc(match, func(a, b int) int { return s.changed[a] - s.changed[b] })
	end := min(after+2, len(match))
	var recs []string
	for _, i := range match[min(after, end):end] {
		recs = append(recs, fmt.Sprintf(`{"id":"r%d","changed":%q}`, i, epochFeed.Add(time.Duration(s.changed[i])*time.Second).Format(time.RFC3339)))
	}
	paging := ""
	if end < len(match) {
		paging = fmt.Sprintf(`,"paging":{"next":{"after":"%d"}}`, end)
	}
	return reply(http.StatusOK, nil, `{"results":[`+strings.Join(recs, ",")+`]`+paging+`}`), nil
}

func openCapped(t *testing.T, src *cappedSource) *engine.Connector {
	t.Helper()
	k := engine.Kind{Type: "capped", Entities: []engine.Entity{{
		Entity: tributary.Entity{Name: "items", Actions: []tributary.Action{tributary.ActionList},
			Feed: &tributary.Feed{
				Params: func(_ tributary.Params, since time.Time) tributary.Params {
					if since.IsZero() {
						return tributary.Params{}
					}
					return tributary.Params{"since": since.Format(time.RFC3339)}
				},
				Changed: "changed",
				Cap:     4,
			}},
		Routes:    map[tributary.Action][]engine.Route{tributary.ActionList: {{Path: "/items", Records: "results", Paging: pagination.PagingNextAfter{}}}},
		FeedRoute: &engine.Route{Path: "/items", Records: "results", Paging: pagination.PagingNextAfter{}},
	}}, ParseError: func(_ int, _ http.Header, body []byte, e *tributary.Error) { e.Message = string(body) }}
	c, err := engine.Open(engine.Setup{Kind: &k, Options: tributary.NewOptions(tributary.WithHTTPClient(&http.Client{Transport: src}),
		tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 0})), DefaultBaseURL: "https://api.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A capped feed goes on past the cap with a query from the latest time
// read: every record is read, no request pages past the cap.
func TestCappedFeedRewindows(t *testing.T) {
	src := &cappedSource{changed: []int{1, 2, 3, 3, 4, 5, 6, 7, 8, 9, 9}}
	c := openCapped(t, src)
	seen := map[string]bool{}
	var last tributary.Checkpoint
	for ch, err := range c.Changes(context.Background(), "items", nil, tributary.Checkpoint{}) {
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range ch.Records {
			id, _ := r.StringAt("id")
			seen[id] = true
		}
		last = ch.Checkpoint
	}
	if len(seen) != len(src.changed) {
		t.Errorf("read %d distinct records, want %d", len(seen), len(src.changed))
	}
	if want := epochFeed.Add(9 * time.Second); !last.Since.Equal(want) || last.Next != nil {
		t.Errorf("final checkpoint %+v, want Since %v", last, want)
	}
	for _, q := range src.queries {
		if strings.Contains(q, "after=4") {
			t.Errorf("a request paged past the cap: %s", q)
		}
	}
	if !slices.Contains(src.queries, "since=2026-01-01T00%3A00%3A03Z") {
		t.Errorf("queries %v: want a new query from the 4th record's time", src.queries)
	}
}

// A saved page the source refuses resumes from the checkpoint's High,
// not from the start of the pass.
func TestCappedFeedResumesFromHigh(t *testing.T) {
	src := &cappedSource{changed: []int{1, 2, 3, 4, 5, 6}}
	c := openCapped(t, src)
	high := epochFeed.Add(2 * time.Second)
	cp := tributary.Checkpoint{High: high, Next: tributary.Params{"after": "4"}}
	var ids []string
	for ch, err := range c.Changes(context.Background(), "items", nil, cp) {
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range ch.Records {
			id, _ := r.StringAt("id")
			ids = append(ids, id)
		}
	}
	// r4, at the second re-window's boundary, comes twice; r0, before
	// High, not at all.
	if want := []string{"r1", "r2", "r3", "r4", "r4", "r5"}; !slices.Equal(ids, want) {
		t.Errorf("read %v, want %v (from High on)", ids, want)
	}
}

// More records at one instant than the cap cannot be paged past.
func TestCappedFeedStuckOnOneInstant(t *testing.T) {
	src := &cappedSource{changed: []int{1, 2, 2, 2, 2, 2, 3}}
	c := openCapped(t, src)
	var err error
	for _, e := range c.Changes(context.Background(), "items", nil, tributary.Checkpoint{}) {
		if e != nil {
			err = e
		}
	}
	if !errors.Is(err, tributary.ErrPaging) {
		t.Fatalf("err = %v, want ErrPaging", err)
	}
}
