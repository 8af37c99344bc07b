package stripe_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/stripe"
	"github.com/tributary-dev/tributary/kinds/stripe/stripetest"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
)

func open(t *testing.T, s *stripetest.Server, creds stripe.Credentials, opts ...tributary.Option) *stripe.Client {
	t.Helper()
	c, err := stripe.New(creds, append([]tributary.Option{tributary.WithBaseURL(s.URL), tributary.WithoutPacing(),
		tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond})}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func fake(t *testing.T, opts ...stripetest.Option) *stripetest.Server {
	t.Helper()
	s := stripetest.New(opts...)
	t.Cleanup(s.Close)
	return s
}

var key = stripe.Credentials{APIKey: stripetest.DefaultKey}

// requests returns the fake's requests as "path?query", in order.
func requests(s *stripetest.Server) []string {
	var out []string
	for _, r := range s.Requests() {
		out = append(out, r.Path+"?"+r.Query.Encode())
	}
	return out
}

// TestListPagesByTheLastObjectsID: a list is walked with limit and
// starting_after = the id of the previous page's last object, newest
// first, until has_more is false; every request carries the key as
// Bearer and the pinned Stripe-Version.
func TestListPagesByTheLastObjectsID(t *testing.T) {
	s := fake(t, stripetest.WithCustomers(5))
	c := open(t, s, key)
	var ids []string
	for cu, err := range c.Customers().All(context.Background(), stripe.ListParams{Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, cu.ID)
	}
	want := []string{stripetest.ID("customers", 4), stripetest.ID("customers", 3), stripetest.ID("customers", 2), stripetest.ID("customers", 1), stripetest.ID("customers", 0)}
	if d := cmp.Diff(want, ids); d != "" {
		t.Errorf("customers (-want +got):\n%s", d)
	}
	wantReq := []string{"/v1/customers?limit=2", "/v1/customers?limit=2&starting_after=" + want[1], "/v1/customers?limit=2&starting_after=" + want[3]}
	if d := cmp.Diff(wantReq, requests(s)); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
	for _, r := range s.Requests() {
		if a, v := r.Header.Get("Authorization"), r.Header.Get("Stripe-Version"); a != "Bearer "+stripetest.DefaultKey || v != stripe.Version {
			t.Errorf("Authorization %q, Stripe-Version %q", a, v)
		}
	}
}

// TestWalkAsksForFullPages: a walk of every page with no limit asks for
// Stripe's largest page (100), not its default of 10, which would cost ten
// times the requests; one list with no limit is Stripe's own (no limit
// sent), and a walk from a starting object keeps the caller's paging.
func TestWalkAsksForFullPages(t *testing.T) {
	ctx := context.Background()
	s := fake(t, stripetest.WithCustomers(150))
	c := open(t, s, key)
	n := 0
	for _, err := range c.Customers().All(ctx, stripe.ListParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	last := stripetest.ID("customers", 50) // the 100th, newest first
	want := []string{"/v1/customers?limit=100", "/v1/customers?limit=100&starting_after=" + last}
	if d := cmp.Diff(want, requests(s)); n != 150 || d != "" {
		t.Errorf("%d customers; requests (-want +got):\n%s", n, d)
	}
	s.ResetRequests()
	if _, err := c.List(ctx, "customers", nil); err != nil {
		t.Fatal(err)
	}
	for _, err := range c.Pager("customers", tributary.ActionList, tributary.Params{"starting_after": last}).All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
	}
	want = []string{"/v1/customers?", "/v1/customers?starting_after=" + last}
	if d := cmp.Diff(want, requests(s)[:2]); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
}

// TestFiltersInDeepObjectStyle: created's bounds and expand go as Stripe
// writes them (created[gte]=…, expand[]=…), a filter as itself.
func TestFiltersInDeepObjectStyle(t *testing.T) {
	s := fake(t)
	c := open(t, s, key)
	_, err := c.List(context.Background(), "invoices", tributary.Params{"customer": stripetest.ID("customers", 1), "status": "paid",
		"created": map[string]any{"gte": 1735689600, "lt": 1767225600}, "expand": []any{"data.customer"}})
	if err != nil {
		t.Fatal(err)
	}
	q := s.Requests()[0].Query
	if q.Get("created[gte]") != "1735689600" || q.Get("created[lt]") != "1767225600" || q.Get("expand[]") != "data.customer" || q.Get("status") != "paid" {
		t.Errorf("query %v", q)
	}
}

// TestSearchPagesByNextPage: api_search goes on with page = the previous
// answer's next_page until has_more is false, limit kept.
func TestSearchPagesByNextPage(t *testing.T) {
	s := fake(t)
	c := open(t, s, key)
	var got []string
	for cu, err := range c.Customers().Search().APISearchAll(context.Background(), stripe.SearchParams{Query: "metadata['plan']:'pro'", Limit: 4}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, cu.ID)
	}
	if len(got) != stripetest.DefaultCustomers/3 {
		t.Errorf("%d customers of plan pro, want %d: %v", len(got), stripetest.DefaultCustomers/3, got)
	}
	reqs := s.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 pages of 4: %q", len(reqs), requests(s))
	}
	for i, r := range reqs {
		if r.Path != "/v1/customers/search" || r.Query.Get("limit") != "4" || r.Query.Get("query") != "metadata['plan']:'pro'" || (i == 0) != (r.Query.Get("page") == "") {
			t.Errorf("request %d: %s?%s", i, r.Path, r.Query.Encode())
		}
	}
	// A query Stripe cannot read is the caller's error.
	_, err := c.APISearch(context.Background(), "customers", tributary.Params{"query": "email"})
	if !errors.Is(err, tributary.ErrInvalidParams) {
		t.Errorf("bad query: %v", err)
	}
}

// TestConnectedAccountOnEveryRequest: stripe_account goes as the
// Stripe-Account header on every request, the download from
// files.stripe.com's stand-in included, with the key.
func TestConnectedAccountOnEveryRequest(t *testing.T) {
	ctx := context.Background()
	s := fake(t)
	c := open(t, s, stripe.Credentials{APIKey: stripetest.DefaultKey, StripeAccount: stripetest.ConnectedAccount})
	if _, err := c.List(ctx, "charges", tributary.Params{"limit": 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Balance(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.APISearch(ctx, "invoices", tributary.Params{"query": "status:'paid'"}); err != nil {
		t.Fatal(err)
	}
	st, err := c.Download(ctx, "files", tributary.Params{"file": stripetest.ID("files", 0)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(st)
	st.Close()
	want, _ := s.FileContent(stripetest.ID("files", 0))
	if err != nil || string(b) != string(want) {
		t.Fatalf("download: %v, %d bytes", err, len(b))
	}
	paths := requests(s)
	if !slices.ContainsFunc(paths, func(p string) bool { return strings.HasSuffix(p, "/contents?") }) || len(paths) != 5 {
		t.Errorf("requests %q", paths)
	}
	for _, r := range s.Requests() {
		if r.Header.Get("Stripe-Account") != stripetest.ConnectedAccount || r.Header.Get("Authorization") != "Bearer "+stripetest.DefaultKey {
			t.Errorf("%s: Stripe-Account %q", r.Path, r.Header.Get("Stripe-Account"))
		}
	}
	// An account the key cannot read is refused, as Stripe does.
	c = open(t, s, stripe.Credentials{APIKey: stripetest.DefaultKey, StripeAccount: "acct_unknown"})
	if _, err := c.List(ctx, "charges", nil); !errors.Is(err, tributary.ErrForbidden) {
		t.Errorf("unknown account: %v", err)
	}
}

// TestErrors: a wrong key is ErrUnauthorized without the key in the
// message, a missing object ErrNotFound with Stripe's message and the
// request id, a limit above 100 refused before any request.
func TestErrors(t *testing.T) {
	ctx := context.Background()
	s := fake(t)
	c := open(t, s, stripe.Credentials{APIKey: "sk_test_wrongwrongwrong1234"})
	_, err := c.List(ctx, "customers", nil)
	if !errors.Is(err, tributary.ErrUnauthorized) || strings.Contains(err.Error(), "sk_test_") || strings.Contains(err.Error(), "1234") {
		t.Errorf("wrong key: %v", err)
	}
	c = open(t, s, key)
	_, err = c.Customers().Get(ctx, "cus_nope")
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrNotFound) || te.Code != "resource_missing" || !strings.HasPrefix(te.RequestID, "req_") ||
		!strings.Contains(te.Message, "No such customer: 'cus_nope'") {
		t.Errorf("missing customer: %#v", err)
	}
	s.ResetRequests()
	_, err = c.List(ctx, "customers", tributary.Params{"limit": 101})
	if !errors.As(err, &te) || te.Param != "limit" || len(s.Requests()) != 0 {
		t.Errorf("limit 101: %v, %d requests", err, len(s.Requests()))
	}
	for _, m := range []map[string]any{{}, {"api_key": "pk_test_123"}, {"api_key": "sk_test_1", "stripe_account": "cus_1"}, {"api_key": "sk_test_1", "token": "x"}} {
		if _, err := stripe.Open(m); !errors.Is(err, tributary.ErrInvalidCredentials) {
			t.Errorf("credentials %v: %v", m, err)
		}
	}
	if got := fmt.Sprint(stripe.Credentials{APIKey: "sk_live_secret"}); strings.Contains(got, "sk_live_secret") {
		t.Errorf("credentials print the key: %s", got)
	}
}

// TestShouldRetry: a 429 is retried unless Stripe-Should-Retry says
// false; a 500 with Stripe-Should-Retry: true is retried.
func TestShouldRetry(t *testing.T) {
	for _, tc := range []struct {
		status        int
		header        string
		wantRequests  int
		wantSucceeded bool
	}{
		{429, "", 2, true},
		{429, "false", 1, false},
		{409, "true", 2, true},
	} {
		n := 0
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n++
			if n == 1 {
				if tc.header != "" {
					w.Header().Set("Stripe-Should-Retry", tc.header)
				}
				w.WriteHeader(tc.status)
				fmt.Fprint(w, `{"error":{"type":"invalid_request_error","code":"lock_timeout","message":"busy"}}`)
				return
			}
			fmt.Fprint(w, `{"object":"list","url":"/v1/customers","has_more":false,"data":[]}`)
		}))
		c, err := stripe.New(key, tributary.WithBaseURL(srv.URL), tributary.WithoutPacing(),
			tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.List(context.Background(), "customers", nil)
		srv.Close()
		if n != tc.wantRequests || (err == nil) != tc.wantSucceeded {
			t.Errorf("%d with Stripe-Should-Retry %q: %d requests, %v", tc.status, tc.header, n, err)
		}
	}
}

// syncCopies syncs the copies of entities and returns the report.
func syncCopies(t *testing.T, r *replica.Replica, entities ...string) *replica.Report {
	t.Helper()
	rep, err := r.Sync(context.Background(), entities...)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestOneEventsReadFeedsThreeCopies: after the first full walks, one
// request to /v1/events brings the changes of three copies at once; a
// customer.deleted event tombstones the customer; the copies equal the
// source.
func TestOneEventsReadFeedsThreeCopies(t *testing.T) {
	ctx := context.Background()
	s := fake(t)
	c := open(t, s, key)
	r, err := replica.Open(ctx, c, replica.SQLite(t.TempDir()+"/copy.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	entities := []string{"customers", "invoices", "products"}
	syncCopies(t, r, entities...)

	s.Clock().Advance(time.Minute)
	cus, _ := s.Create("customers")
	if err := s.Update("invoices", stripetest.ID("invoices", 3)); err != nil {
		t.Fatal(err)
	}
	if err := s.Update("products", stripetest.ID("products", 1)); err != nil {
		t.Fatal(err)
	}
	gone := stripetest.ID("customers", 2)
	if err := s.Delete("customers", gone); err != nil {
		t.Fatal(err)
	}
	s.ResetRequests()
	rep := syncCopies(t, r, entities...)
	if got := requests(s); len(got) != 1 || !strings.HasPrefix(got[0], "/v1/events?created%5Bgt%5D=") {
		t.Errorf("requests %q, want one read of the events", got)
	}
	want := map[string][2]int64{"customers": {1, 0}, "invoices": {0, 1}, "products": {0, 1}} // inserted, updated
	for _, er := range rep.Entities {
		if er.Mode != replica.Incremental || er.Inserted != want[er.Entity][0] || er.Updated != want[er.Entity][1] {
			t.Errorf("%s: %+v", er.Entity, er)
		}
	}
	if rep.Entities[0].Deleted != 1 {
		t.Errorf("customers: %d deleted, want 1", rep.Entities[0].Deleted)
	}
	byID := func(id string) search.Request {
		return search.Request{Query: search.Query{Filter: search.Eq("id", id).Ptr()}}
	}
	res, err := r.Search(ctx, "customers", byID(cus))
	if err != nil || len(res.Hits) != 1 {
		t.Errorf("the new customer: %v, %+v", err, res)
	}
	res, err = r.Search(ctx, "customers", byID(gone))
	if err != nil || len(res.Hits) != 0 {
		t.Errorf("the deleted customer is still searchable: %v, %+v", err, res)
	}
	res, err = r.Store().SearchWith(ctx, "stripe", "customers", byID(gone), store.SearchOptions{Deleted: true})
	if err != nil || len(res.Hits) != 1 {
		t.Errorf("the deleted customer is no tombstone: %v, %+v", err, res)
	}
	if n := r.Len("customers"); n != len(s.IDs("customers")) {
		t.Errorf("copy of %d customers, source %d", n, len(s.IDs("customers")))
	}
}

// TestCheckpointOlderThan30DaysWalksInFull: a copy last synced 31 days
// ago (by the events it read) is walked in full, with the reason, and
// holds the changes the forgotten events would have brought.
func TestCheckpointOlderThan30DaysWalksInFull(t *testing.T) {
	ctx := context.Background()
	clock := fakeserver.NewClock(time.Now().UTC().Add(-31 * 24 * time.Hour).Truncate(time.Second))
	s := fake(t, stripetest.WithClock(clock))
	c := open(t, s, key)
	if _, err := s.Create("customers"); err != nil { // the newest event, 31 days ago
		t.Fatal(err)
	}
	r, err := replica.Open(ctx, c, replica.SQLite(t.TempDir()+"/copy.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	syncCopies(t, r, "customers")
	for _, p := range resyncInFull(t, s, r, 0) {
		if strings.HasPrefix(p, "/v1/events?created") {
			t.Errorf("read the events from a checkpoint Stripe no longer covers: %s", p)
		}
	}
}

// resyncInFull changes the customer i, syncs the copy of the customers
// again and checks that it was walked in full, for a checkpoint Stripe no
// longer covers, with the change; it returns the sync's requests.
func resyncInFull(t *testing.T, s *stripetest.Server, r *replica.Replica, i int) []string {
	t.Helper()
	if err := s.Update("customers", stripetest.ID("customers", i)); err != nil {
		t.Fatal(err)
	}
	s.ResetRequests()
	rep := syncCopies(t, r, "customers")
	er := rep.Entities[0]
	if er.Mode != replica.Full || er.Reason != "the copy's checkpoint is older than the changes the source keeps" || er.Updated != 1 {
		t.Errorf("report %+v", er)
	}
	return requests(s)
}
