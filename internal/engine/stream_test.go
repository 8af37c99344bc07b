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

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/transport"
	"github.com/tributary-dev/tributary/pagination"
)

// eventStream is a stream shaped as Stripe's /v1/events: newest first,
// limit events a page, created[gt] a filter, starting_after and
// ending_before the id of an event (404 for one it does not have),
// has_more. Its customers' and invoices' lists answer one record each.
type eventStream struct {
	mu     sync.Mutex
	events []string // oldest first
	ids    []string
	times  []int64
	limit  int
	sent   []string
}

// add appends an event about obj (JSON) at created.
func (s *eventStream) add(typ string, created int64, obj string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := fmt.Sprintf("evt_%d", len(s.ids)+1)
	s.ids, s.times = append(s.ids, id), append(s.times, created)
	s.events = append(s.events, fmt.Sprintf(`{"id":%q,"object":"event","type":%q,"created":%d,"data":{"object":%s}}`, id, typ, created, obj))
	return id
}

// requests returns the requests sent since the last call.
func (s *eventStream) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.sent
	s.sent = nil
	return out
}

func (s *eventStream) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, r.URL.Path+"?"+r.URL.RawQuery)
	q := r.URL.Query()
	switch r.URL.Path {
	case "/v1/customers":
		return reply(200, nil, `{"object":"list","has_more":false,"data":[{"id":"cus_1","object":"customer","name":"v2"}]}`), nil
	case "/v1/invoices":
		return reply(200, nil, `{"object":"list","has_more":false,"data":[{"id":"in_1","object":"invoice"}]}`), nil
	}
	gt, _ := strconv.ParseInt(q.Get("created[gt]"), 10, 64)
	var items []int // newest first
	for i := len(s.events) - 1; i >= 0; i-- {
		if s.times[i] > gt {
			items = append(items, i)
		}
	}
	page, more := items[:min(s.limit, len(items))], s.limit < len(items)
	for _, param := range []string{"starting_after", "ending_before"} {
		id := q.Get(param)
		if id == "" {
			continue
		}
		at := slices.IndexFunc(items, func(i int) bool { return s.ids[i] == id })
		if at < 0 {
			return reply(404, nil, `{"error":{"type":"invalid_request_error","code":"resource_missing","message":"No such event: '`+id+`'"}}`), nil
		}
		if param == "starting_after" {
			page, more = items[at+1:min(at+1+s.limit, len(items))], at+1+s.limit < len(items)
		} else {
			page, more = items[max(at-s.limit, 0):at], at-s.limit > 0
		}
	}
	data := make([]string, len(page))
	for j, i := range page {
		data[j] = s.events[i]
	}
	return reply(200, nil, fmt.Sprintf(`{"object":"list","has_more":%t,"data":[%s]}`, more, strings.Join(data, ","))), nil
}

// open returns a connector of a kind with a stream of events, as
// Stripe's, and customers and invoices kept current from it.
func (s *eventStream) open(t *testing.T) *engine.Connector {
	t.Helper()
	stream := func(object string) *tributary.Feed {
		return &tributary.Feed{
			Params: func(_ tributary.Params, since time.Time) tributary.Params {
				if since.IsZero() {
					return tributary.Params{}
				}
				return tributary.Params{"created": map[string]any{"gt": since.Unix()}}
			},
			Changed: "created", Overlap: time.Second, Retention: 30 * 24 * time.Hour, Unwrap: "data.object",
			Stream: &tributary.Stream{Entity: "events", Field: "data.object.object", Value: object, Newer: "ending_before"},
			Deleted: func(r tributary.Record) bool {
				typ, _ := r.StringAt("type")
				return strings.HasSuffix(typ, ".deleted")
			},
		}
	}
	paging := pagination.LastID{Param: "starting_after", ID: "id", More: "has_more"}
	entity := func(name, path string, f *tributary.Feed, params ...tributary.Param) engine.Entity {
		return engine.Entity{Entity: tributary.Entity{Name: name, Actions: []tributary.Action{tributary.ActionList}, Feed: f,
			Params: map[tributary.Action][]tributary.Param{tributary.ActionList: append(params, tributary.Param{Name: "starting_after", Type: tributary.TypeString})}},
			Routes: map[tributary.Action][]engine.Route{tributary.ActionList: {{Path: path, Records: "data", DeepObject: true, Paging: paging}}}}
	}
	k := &engine.Kind{Type: "stripe-like", Entities: []engine.Entity{
		entity("events", "/v1/events", nil, tributary.Param{Name: "created", Type: tributary.TypeObject}, tributary.Param{Name: "ending_before", Type: tributary.TypeString}),
		entity("customers", "/v1/customers", stream("customer")),
		entity("invoices", "/v1/invoices", stream("invoice")),
	}}
	c, err := engine.Open(engine.Setup{Kind: k, Options: tributary.NewOptions(tributary.WithHTTPClient(&http.Client{Transport: s})),
		DefaultBaseURL: "https://api.example.com", Auth: transport.Bearer(secret)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A stream of six events, three a page, read from a checkpoint with no
// event id (a copy made before ids were kept): the stream is read back
// to the checkpoint's time, keeping the oldest page alone, then forward
// from its newest event; each page is a Changes of its own, the latest
// state of a record in a page winning, *.deleted events deletions; the
// invoices' copy is fed from the same pages with no request; a copy fed
// to the end reads on; a checkpoint older than the retention is
// ErrCursorExpired; a first read notes the newest event, its time and
// id, then walks the list.
func TestStreamFeedsEveryEntityFromOneRead(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	at := func(d time.Duration) int64 { return now.Add(-d).Unix() }
	s := &eventStream{limit: 3}
	s.add("customer.created", at(6*time.Minute), `{"id":"cus_1","object":"customer","name":"v1"}`)
	s.add("customer.created", at(5*time.Minute), `{"id":"cus_2","object":"customer","name":"two"}`)
	s.add("customer.updated", at(5*time.Minute), `{"id":"cus_2","object":"customer","name":"two, v2"}`)
	s.add("invoice.created", at(4*time.Minute), `{"id":"in_1","object":"invoice"}`)
	s.add("customer.updated", at(3*time.Minute), `{"id":"cus_1","object":"customer","name":"v2"}`)
	s.add("customer.deleted", at(1*time.Minute), `{"id":"cus_2","object":"customer","deleted":true}`)
	c := s.open(t)
	var pages []*tributary.Changes
	from := tributary.Checkpoint{Since: now.Add(-10 * time.Minute)}
	for ch, err := range c.Changes(context.Background(), "customers", tributary.Params{}, from) {
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, ch)
	}
	type page struct {
		Records, Deleted []string
		Checkpoint       tributary.Checkpoint
	}
	var got []page
	for _, ch := range pages {
		p := page{Checkpoint: ch.Checkpoint}
		for _, r := range ch.Records {
			p.Records = append(p.Records, string(r.Raw()))
		}
		for _, r := range ch.Deleted {
			p.Deleted = append(p.Deleted, string(r.Raw()))
		}
		got = append(got, p)
	}
	want := []page{
		{Records: []string{`{"id":"cus_1","object":"customer","name":"v1"}`, `{"id":"cus_2","object":"customer","name":"two, v2"}`},
			Checkpoint: tributary.Checkpoint{Since: now.Add(-5 * time.Minute), Token: "evt_3"}},
		{Records: []string{`{"id":"cus_1","object":"customer","name":"v2"}`}, Deleted: []string{`{"id":"cus_2","object":"customer","deleted":true}`},
			Checkpoint: tributary.Checkpoint{Since: now.Add(-time.Minute), Token: "evt_6"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("pages (-want +got):\n%s", d)
	}
	gt := from.Since.Add(-time.Second).Unix()
	wantSent := []string{
		fmt.Sprintf("/v1/events?created%%5Bgt%%5D=%d", gt),
		fmt.Sprintf("/v1/events?created%%5Bgt%%5D=%d&starting_after=evt_4", gt),
		"/v1/events?ending_before=evt_3",
	}
	if d := cmp.Diff(wantSent, s.requests()); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}

	// The invoices' copy is fed from the same pages: no request.
	recs, _, cp, err := readFeed(c, "invoices", tributary.Params{}, from)
	if sent := s.requests(); err != nil || len(sent) != 0 {
		t.Fatalf("invoices: %v, requests %q", err, sent)
	}
	if d := cmp.Diff([]string{`{"id":"in_1","object":"invoice"}`}, recs); d != "" {
		t.Errorf("invoices (-want +got):\n%s", d)
	}
	if want := (tributary.Checkpoint{Since: now.Add(-time.Minute), Token: "evt_6"}); !cmp.Equal(cp, want) {
		t.Errorf("invoices' checkpoint %+v, want %+v", cp, want)
	}

	// The customers' copy, fed to the stream's end, asks again: it reads
	// on from there.
	_, _, cp, err = readFeed(c, "customers", tributary.Params{}, got[1].Checkpoint)
	wantSent = []string{"/v1/events?ending_before=evt_6"}
	if d := cmp.Diff(wantSent, s.requests()); err != nil || d != "" {
		t.Errorf("second read of customers: %v, requests (-want +got):\n%s", err, d)
	}
	if !cmp.Equal(cp, got[1].Checkpoint) {
		t.Errorf("second read's checkpoint %+v, want %+v", cp, got[1].Checkpoint)
	}

	// A checkpoint older than the stream keeps: walked in full instead.
	_, _, _, err = readFeed(c, "customers", tributary.Params{}, tributary.Checkpoint{Since: now.Add(-31 * 24 * time.Hour), Token: "evt_1"})
	if sent := s.requests(); !errors.Is(err, tributary.ErrCursorExpired) || len(sent) != 0 {
		t.Errorf("a checkpoint of 31 days: %v, requests %q", err, sent)
	}

	// A first read: the newest event's time and id, then the list.
	recs, _, cp, err = readFeed(s.open(t), "customers", tributary.Params{}, tributary.Checkpoint{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{`{"id":"cus_1","object":"customer","name":"v2"}`}, recs); d != "" {
		t.Errorf("walk (-want +got):\n%s", d)
	}
	if want := (tributary.Checkpoint{Since: now.Add(-time.Minute), Token: "evt_6"}); !cp.Since.Equal(want.Since) || cp.Token != want.Token || cp.Walking || cp.Next != nil {
		t.Errorf("walk's checkpoint %+v, want %+v", cp, want)
	}
	if d := cmp.Diff([]string{"/v1/events?", "/v1/customers?"}, s.requests()); d != "" {
		t.Errorf("walk's requests (-want +got):\n%s", d)
	}
}

// customerEvents adds n customer.updated events to s, one a second from
// start, and returns their ids.
func customerEvents(s *eventStream, start time.Time, n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = s.add("customer.updated", start.Add(time.Duration(i)*time.Second).Unix(), fmt.Sprintf(`{"id":"cus_%d","object":"customer"}`, i%50))
	}
	return ids
}

// From a checkpoint with an event id the stream is walked forward a page
// at a time (ending_before the newest event read); a copy that stopped
// after a page goes on from its checkpoint; the pages kept to share stay
// within StreamPages and StreamEvents; a copy behind them reads its own
// pages until it reaches them, then takes the rest from them.
func TestStreamWalksForwardAPageAtATime(t *testing.T) {
	start := time.Now().Add(-2 * time.Hour).Truncate(time.Second)
	s := &eventStream{limit: 150}
	ids := customerEvents(s, start, 1+25*150)
	from := tributary.Checkpoint{Since: start, Token: ids[0]}
	c := s.open(t)

	// Three pages, then the copy stops.
	var cps []tributary.Checkpoint
	for ch, err := range c.Changes(context.Background(), "customers", tributary.Params{}, from) {
		if err != nil {
			t.Fatal(err)
		}
		cps = append(cps, ch.Checkpoint)
		if len(cps) == 3 {
			break
		}
	}
	for i, cp := range cps {
		newest := (i + 1) * 150
		if want := (tributary.Checkpoint{Since: start.Add(time.Duration(newest) * time.Second), Token: ids[newest]}); !cp.Since.Equal(want.Since) || cp.Token != want.Token {
			t.Errorf("page %d's checkpoint %+v, want %+v", i+1, cp, want)
		}
	}
	cursors := func(sent []string) []string {
		var out []string
		for _, r := range sent {
			_, q, _ := strings.Cut(r, "ending_before=")
			out = append(out, q)
		}
		return out
	}
	if d := cmp.Diff([]string{ids[0], ids[150], ids[300]}, cursors(s.requests())); d != "" {
		t.Errorf("cursors (-want +got):\n%s", d)
	}

	// Another process goes on from the third page's checkpoint.
	c = s.open(t)
	_, _, cp, err := readFeed(c, "customers", tributary.Params{}, cps[2])
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := 3; i < 25; i++ {
		want = append(want, ids[i*150])
	}
	if d := cmp.Diff(want, cursors(s.requests())); d != "" {
		t.Errorf("resumed cursors (-want +got):\n%s", d)
	}
	if last := ids[len(ids)-1]; cp.Token != last {
		t.Errorf("final token %s, want %s", cp.Token, last)
	}
	if pages, events := engine.StreamCached(c, "events"); pages > engine.StreamPages || events > engine.StreamEvents || events == 0 {
		t.Errorf("kept %d pages, %d events: more than %d pages or %d events", pages, events, engine.StreamPages, engine.StreamEvents)
	}

	// The invoices' copy, at the first event, is behind the pages kept
	// (six of 150, the last 900 events): it reads its own pages up to
	// them, one at a time, and takes the rest from them.
	pages := 0
	for _, err := range c.Changes(context.Background(), "invoices", tributary.Params{}, from) {
		if err != nil {
			t.Fatal(err)
		}
		pages++
	}
	want = nil
	for i := range 19 {
		want = append(want, ids[i*150])
	}
	if d := cmp.Diff(want, cursors(s.requests())); d != "" || pages != 25 {
		t.Errorf("%d pages; the invoices' cursors (-want +got):\n%s", pages, d)
	}
}

// An event id the stream no longer has (404 on the cursor) is
// ErrCursorExpired, for the copy to be walked in full.
func TestStreamTokenGoneIsExpired(t *testing.T) {
	s := &eventStream{limit: 3}
	customerEvents(s, time.Now().Add(-time.Hour), 4)
	c := s.open(t)
	_, _, _, err := readFeed(c, "customers", tributary.Params{}, tributary.Checkpoint{Since: time.Now().Add(-2 * time.Hour), Token: "evt_gone"})
	var te *tributary.Error
	if !errors.Is(err, tributary.ErrCursorExpired) || !errors.As(err, &te) || te.Entity != "customers" || !strings.Contains(err.Error(), "evt_gone") {
		t.Errorf("a token the stream no longer has: %v", err)
	}
}

// Two copies read the stream at once from the same event: each gets
// every page, ends at the newest event, and the pages read for one feed
// the other (fewer requests than two walks).
func TestStreamSharedBetweenCopiesAtOnce(t *testing.T) {
	start := time.Now().Add(-time.Hour).Truncate(time.Second)
	s := &eventStream{limit: 100}
	ids := customerEvents(s, start, 501)
	c := s.open(t)
	from := tributary.Checkpoint{Since: start, Token: ids[0]}
	var wg sync.WaitGroup
	tokens := make([]string, 2)
	errs := make([]error, 2)
	for i, entity := range []string{"customers", "invoices"} {
		wg.Go(func() {
			_, _, cp, err := readFeed(c, entity, tributary.Params{}, from)
			tokens[i], errs[i] = cp.Token, err
		})
	}
	wg.Wait()
	for i := range tokens {
		if errs[i] != nil || tokens[i] != ids[500] {
			t.Errorf("copy %d: %v, ends at %s, want %s", i, errs[i], tokens[i], ids[500])
		}
	}
	if n := len(s.requests()); n < 5 || n >= 10 {
		t.Errorf("%d requests for two copies of 5 pages, want fewer than two walks' 10", n)
	}
}
