package replica_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/internal/testmain"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/intercom/intercomtest"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/search"
)

func TestMain(m *testing.M) {
	testmain.WaitingParallel(4)
	goleak.VerifyTestMain(pgtest.Main(m))
}

// open connects to the Zendesk fake without pacing: at the exports'
// default of 10 requests a minute, each sync after the first would wait
// 6 s on the real clock for a limit the fake does not enforce.
func open(t testing.TB, srv *zendesktest.Server) tributary.Connector {
	t.Helper()
	c, err := kinds.Open("zendesk-support", map[string]any{"subdomain": "acme", "email": zendesktest.DefaultEmail, "api_token": zendesktest.DefaultAPIToken},
		tributary.WithBaseURL(srv.URL), tributary.WithoutPacing())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// ticketsByStatus counts the fake's tickets per status with a plain walk.
func ticketsByStatus(t *testing.T, c tributary.Connector) map[string]int {
	out := map[string]int{}
	for rec, err := range tributary.All(context.Background(), c, "tickets", nil) {
		if err != nil {
			t.Fatal(err)
		}
		s, _ := rec.StringAt("status")
		out[s]++
	}
	return out
}

func TestSearchInDirectModeThroughExecute(t *testing.T) {
	t.Parallel()
	srv := zendesktest.New(zendesktest.WithTickets(500))
	defer srv.Close()
	c := open(t, srv)
	want := ticketsByStatus(t, c)
	r := replica.New(c)
	ctx := context.Background()
	if _, err := r.Sync(ctx, "tickets"); err != nil {
		t.Fatal(err)
	}
	if r.Len("tickets") != 500 {
		t.Fatalf("%d tickets synchronized", r.Len("tickets"))
	}
	res, err := tributary.Execute(ctx, r.Connector(), tributary.Request{Entity: "tickets", Action: tributary.ActionSearch, Params: tributary.Params{
		"query": map[string]any{"filter": map[string]any{"eq": map[string]any{"status": "open"}}, "sort": []any{map[string]any{"id": "desc"}}},
		"limit": 1000, "fields": []any{"id", "status"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	hits := res.Search.Hits
	if len(hits) != want["open"] || want["open"] == 0 {
		t.Fatalf("%d hits, want %d open tickets", len(hits), want["open"])
	}
	var prev int64 = 1 << 62
	for _, h := range hits {
		var d struct {
			ID     int64  `json:"id"`
			Status string `json:"status"`
		}
		if err := json.Unmarshal(h.Data, &d); err != nil || d.Status != "open" || d.ID >= prev {
			t.Fatalf("hit %s: %+v %v", h.Data, d, err)
		}
		prev = d.ID
	}
	// The generic connector without a replica refuses search.
	if _, err := tributary.Execute(ctx, c, tributary.Request{Entity: "tickets", Action: tributary.ActionSearch, Params: tributary.Params{"query": map[string]any{}}}); !errors.Is(err, tributary.ErrUnsupportedAction) {
		t.Fatalf("search without a replica: %v", err)
	}
}

func TestSearchErrorsNameTheField(t *testing.T) {
	t.Parallel()
	srv := zendesktest.New(zendesktest.WithTickets(10))
	defer srv.Close()
	r := replica.New(open(t, srv))
	ctx := context.Background()
	_, err := r.Search(ctx, "tickets", search.Request{Query: search.Query{Filter: ptr(search.Eq("status", "open"))}})
	if !errors.Is(err, tributary.ErrUnsupportedAction) {
		t.Fatalf("before Sync: %v", err)
	}
	if _, err := r.Sync(ctx, "tickets"); err != nil {
		t.Fatal(err)
	}
	for field, q := range map[string]search.Request{
		"colour":        {Query: search.Query{Filter: ptr(search.Eq("colour", "red"))}},
		"has_incidents": {Query: search.Query{Filter: ptr(search.Gt("has_incidents", true))}},
	} {
		_, err := r.Search(ctx, "tickets", q)
		var te *tributary.Error
		if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) || te.Param != field {
			t.Errorf("%s: %v (param %q)", field, err, te.Param)
		}
	}
	if _, err := r.Sync(ctx, "macros"); !errors.Is(err, tributary.ErrUnsupportedAction) {
		t.Errorf("an entity without search: %v", err)
	}
}

// A search during re-synchronization sees the old copy or the new one,
// never a mix.
func TestResyncWhileSearching(t *testing.T) {
	t.Parallel()
	srv := zendesktest.New(zendesktest.WithTickets(300))
	defer srv.Close()
	r := replica.New(open(t, srv))
	ctx := context.Background()
	if _, err := r.Sync(ctx, "tickets"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, err := r.Search(ctx, "tickets", search.Request{Limit: 1000})
				if err != nil {
					t.Error(err)
					return
				}
				if len(res.Hits) != 300 {
					t.Errorf("a search saw %d records", len(res.Hits))
					return
				}
			}
		})
	}
	for range 3 {
		if _, err := r.Sync(ctx, "tickets"); err != nil {
			t.Error(err)
		}
	}
	close(stop)
	wg.Wait()
}

// A failed walk keeps the old copy.
func TestFailedSyncKeepsTheOldCopy(t *testing.T) {
	t.Parallel()
	srv := zendesktest.New(zendesktest.WithTickets(250))
	defer srv.Close()
	r := replica.New(open(t, srv), replica.WithParams("tickets", tributary.Params{"per_page": 100}))
	ctx := context.Background()
	if _, err := r.Sync(ctx, "tickets"); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := r.Sync(cancelled, "tickets"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled sync: %v", err)
	}
	if r.Len("tickets") != 250 {
		t.Fatalf("%d records after a failed sync", r.Len("tickets"))
	}
}

func ptr(f search.Filter) *search.Filter { return &f }

// A walk that ends because the source expired its cursor is started again
// by Sync: here Intercom's company scroll idles out at each of the walk's
// first four scroll requests, so the first walk ends with ErrCursorExpired
// and the second one completes.
func TestSyncRestartsAWalkWhoseCursorExpired(t *testing.T) {
	t.Parallel()
	const companies = intercomtest.CompanyListLimit + 60
	var mu sync.Mutex
	reads, now := 0, time.Unix(1_800_000_000, 0)
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		reads++
		if reads <= 8 { // open, expired page, four times over
			now = now.Add(intercomtest.ScrollIdleTimeout + time.Second)
		}
		return now
	}
	srv := intercomtest.New(intercomtest.WithCompanies(companies), intercomtest.WithScrollClock(clock))
	defer srv.Close()
	c, err := kinds.Open("intercom", map[string]any{"access_token": intercomtest.DefaultAccessToken}, tributary.WithBaseURL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	r := replica.New(c)
	if _, err := r.Sync(context.Background(), "companies"); err != nil {
		t.Fatalf("sync: %v", err)
	}
	ids := map[string]bool{}
	req := search.Request{Limit: 1000}
	for {
		res, err := r.Search(context.Background(), "companies", req)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			ids[h.ID] = true
		}
		if res.NextCursor == nil {
			break
		}
		req.Cursor = *res.NextCursor
	}
	if len(ids) != companies {
		t.Errorf("%d companies in the copy, want %d", len(ids), companies)
	}
	lists := 0
	for _, q := range srv.Requests() {
		if q.Path == "/companies" && q.Query.Get("starting_after") == "" {
			lists++
		}
	}
	if lists != 2 {
		t.Errorf("the company list was walked %d times, want 2 (the walk and its restart)", lists)
	}
}
