package mailchimp_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/mailchimp"
	"github.com/tributary-dev/tributary/kinds/mailchimp/mailchimptest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var fast = tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, MaxRateLimitWait: 5 * time.Second})

func open(t *testing.T, srv *mailchimptest.Server, opts ...tributary.Option) *mailchimp.Client {
	t.Helper()
	c, err := mailchimp.New(mailchimp.Credentials{APIKey: mailchimptest.DefaultAPIKey},
		append([]tributary.Option{tributary.WithBaseURL(srv.URL), fast}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// memberHash is the id of the fake's member m (member<m>@example.com).
func memberHash(m int) string {
	return mailchimptest.SubscriberHash(fmt.Sprintf("member%d@example.com", m))
}

func firstListID(t *testing.T, c *mailchimp.Client) string {
	t.Helper()
	page, err := c.Lists().List(context.Background(), mailchimp.ListListParams{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) == 0 {
		t.Fatal("the fake has no lists")
	}
	return page.Items[0].ID
}

// All walks every member exactly once, in order, with the requested page
// size, and stops at total_items without asking for an empty page.
func TestAllWalksEveryMember(t *testing.T) {
	const n = 2345
	srv := mailchimptest.New(mailchimptest.WithListMembers(n))
	defer srv.Close()
	c := open(t, srv)
	list := firstListID(t, c)
	srv.ResetRequests()

	i := 0
	for m, err := range c.ListMembers().All(context.Background(), mailchimp.ListMemberListParams{ListID: list, Paging: mailchimp.Paging{Count: 1000}}) {
		if err != nil {
			t.Fatalf("after %d members: %v", i, err)
		}
		if m.ID != memberHash(i) {
			t.Fatalf("member %d has id %s, want %s", i, m.ID, memberHash(i))
		}
		i++
	}
	if i != n {
		t.Fatalf("walked %d members, want %d", i, n)
	}
	var offsets []string
	for _, r := range srv.Requests() {
		if r.Path != "/3.0/lists/"+list+"/members" || r.Query.Get("count") != "1000" {
			t.Errorf("unexpected request %s %v", r.Path, r.Query)
		}
		offsets = append(offsets, r.Query.Get("offset"))
	}
	// Pages after the first are fetched at once (total_items names them),
	// so they may arrive in any order; each is asked for once.
	slices.Sort(offsets)
	if d := cmp.Diff([]string{"", "1000", "2000"}, offsets); d != "" {
		t.Errorf("offsets (-want +got):\n%s", d)
	}

	// The generic walk with the default page size sees the same records.
	j := 0
	for rec, err := range tributary.All(context.Background(), c, "list_members", tributary.Params{"list_id": list, "count": 500}) {
		if err != nil {
			t.Fatal(err)
		}
		if id, _ := rec.StringAt("id"); id != memberHash(j) {
			t.Fatalf("record %d: id %s", j, id)
		}
		j++
	}
	if j != n {
		t.Fatalf("generic walk: %d records", j)
	}
}

// Paging as the contract describes it: count and offset in, total_items in
// Meta, and Next until offset + records reaches the total.
func TestListPagesByOffset(t *testing.T) {
	srv := mailchimptest.New(mailchimptest.WithCampaigns(25))
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	page, err := c.List(ctx, "campaigns", tributary.Params{"count": 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) != 10 || page.Meta["total_items"] != int64(25) {
		t.Fatalf("%d records, meta %v", len(page.Records), page.Meta)
	}
	if d := cmp.Diff(tributary.Params{"count": int64(10), "offset": int64(10)}, page.Next); d != "" {
		t.Errorf("next (-want +got):\n%s", d)
	}
	page, err = c.List(ctx, "campaigns", tributary.Params{"count": 10, "offset": 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) != 5 || page.Next != nil || page.Meta["total_items"] != int64(25) {
		t.Errorf("last page: %d records, next %v, meta %v", len(page.Records), page.Next, page.Meta)
	}
	// Typed: the same pages through the typed pager.
	p := c.Campaigns().Pager(mailchimp.CampaignListParams{Paging: mailchimp.Paging{Count: 20}})
	var sizes []int
	for p.More() {
		pg, err := p.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(pg.Items))
	}
	if d := cmp.Diff([]int{20, 5}, sizes); d != "" {
		t.Errorf("typed page sizes (-want +got):\n%s", d)
	}
}

// A count above Mailchimp's maximum is refused before anything is sent.
func TestCountAboveMaximumIsRejectedBeforeSending(t *testing.T) {
	srv := mailchimptest.New()
	defer srv.Close()
	c := open(t, srv)
	for _, p := range []tributary.Params{{"count": 1001}, {"count": 0}, {"offset": -1}, {"count": "100x"}, {"count": "1001"}, {"status": "archived"}} {
		_, err := c.List(context.Background(), "campaigns", p)
		var te *tributary.Error
		if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) || te.Param == "" {
			t.Errorf("%v: err = %v, want ErrInvalidParams naming the parameter", p, err)
		}
	}
	_, err := c.Campaigns().List(context.Background(), mailchimp.CampaignListParams{Paging: mailchimp.Paging{Count: 5000}})
	if !errors.Is(err, tributary.ErrInvalidParams) {
		t.Errorf("typed count 5000: %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests were sent", n)
	}
	if _, err := c.List(context.Background(), "campaigns", tributary.Params{"count": 1000}); err != nil {
		t.Errorf("count 1000: %v", err)
	}
}

// captured answers every request with an empty list and remembers URLs and
// Authorization headers.
type captured struct {
	mu    sync.Mutex
	urls  []string
	auths []string
}

func (c *captured) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.urls = append(c.urls, r.URL.String())
	c.auths = append(c.auths, r.Header.Get("Authorization"))
	c.mu.Unlock()
	body := `{"lists":[],"total_items":0}`
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), Request: r}, nil
}

// The data centre comes from the key's suffix, an explicit data_center
// wins, OAuth needs one; WithBaseURL replaces the origin and keeps /3.0.
func TestDataCenterAndBaseURL(t *testing.T) {
	for _, tc := range []struct {
		creds mailchimp.Credentials
		opts  []tributary.Option
		url   string
		auth  string
	}{
		{creds: mailchimp.Credentials{APIKey: "k-ey-us21"}, url: "https://us21.api.mailchimp.com/3.0/lists",
			auth: "Basic " + base64.StdEncoding.EncodeToString([]byte("tributary:k-ey-us21"))},
		{creds: mailchimp.Credentials{APIKey: "key-us21", DataCenter: "us3"}, url: "https://us3.api.mailchimp.com/3.0/lists"},
		{creds: mailchimp.Credentials{APIKey: "key-without-dc", DataCenter: "us3"}, url: "https://us3.api.mailchimp.com/3.0/lists"},
		{creds: mailchimp.Credentials{AccessToken: "tok", DataCenter: "us9"}, url: "https://us9.api.mailchimp.com/3.0/lists", auth: "Bearer tok"},
		{creds: mailchimp.Credentials{APIKey: "key-us6"}, opts: []tributary.Option{tributary.WithBaseURL("https://proxy.example.com/mailchimp/")},
			url: "https://proxy.example.com/mailchimp/3.0/lists"},
	} {
		rt := &captured{}
		c, err := mailchimp.New(tc.creds, append([]tributary.Option{tributary.WithHTTPClient(&http.Client{Transport: rt})}, tc.opts...)...)
		if err != nil {
			t.Fatalf("%v: %v", tc.creds, err)
		}
		if _, err := c.List(context.Background(), "lists", nil); err != nil {
			t.Fatalf("%v: %v", tc.creds, err)
		}
		if len(rt.urls) != 1 || rt.urls[0] != tc.url {
			t.Errorf("%v: sent to %v, want %s", tc.creds, rt.urls, tc.url)
		}
		if tc.auth != "" && rt.auths[0] != tc.auth {
			t.Errorf("%v: Authorization %q, want %q", tc.creds, rt.auths[0], tc.auth)
		}
	}
}

func TestCredentialChecks(t *testing.T) {
	bad := []map[string]any{
		{},
		{"api_key": "no-data-centre-"},
		{"api_key": "nodatacentre"},
		{"api_key": "key-us6", "access_token": "tok"},
		{"access_token": "tok"},
		{"access_token": "tok", "data_center": "us6.api.mailchimp.com"},
		{"api_key": "key-us6", "data_center": "../evil"},
		{"api_key": "key-evil.example.com"},
		{"api_key": 42},
		{"api_key": "key-us6", "username": "me"},
	}
	for _, creds := range bad {
		if _, err := mailchimp.Open(creds); !errors.Is(err, tributary.ErrInvalidCredentials) {
			t.Errorf("%v: err = %v, want ErrInvalidCredentials", creds, err)
		}
	}
	for _, creds := range []map[string]any{
		{"api_key": "0123456789abcdef-us6"},
		{"api_key": "0123456789abcdef", "data_center": "us6"},
		{"access_token": "tok", "data_center": "us6"},
	} {
		c, err := mailchimp.Open(creds)
		if err != nil || c.Type() != "mailchimp" {
			t.Errorf("%v: %v", creds, err)
		}
	}
	got, err := mailchimp.CredentialsFromMap(map[string]any{"api_key": "abc-us1", "data_center": "us2"})
	if err != nil || got != (mailchimp.Credentials{APIKey: "abc-us1", DataCenter: "us2"}) {
		t.Errorf("CredentialsFromMap = %+v, %v", got, err)
	}
}

// Mailchimp's 429 (no Retry-After) and 5xx are retried with backoff.
func TestRateLimitAndServerErrorsAreRetried(t *testing.T) {
	srv := mailchimptest.New(mailchimptest.WithFaults(mailchimptest.Faults{RateLimitFirst: 2, ServerErrorFirst: 1}))
	defer srv.Close()
	c := open(t, srv)
	page, err := c.List(context.Background(), "lists", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) == 0 || len(srv.Requests()) != 4 {
		t.Errorf("%d records after %d requests", len(page.Records), len(srv.Requests()))
	}
	// Without retries, the 429 surfaces as a retryable ErrRateLimited.
	c = open(t, srv, tributary.WithRetry(tributary.RetryPolicy{}))
	srv.SetFaults(mailchimptest.Faults{RateLimitFirst: 1})
	_, err = c.List(context.Background(), "lists", nil)
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrRateLimited) || !te.Retryable || te.RetryAfter != 0 ||
		te.Code != "Too Many Requests" || te.StatusCode != 429 {
		t.Errorf("429 without retries: %#v", err)
	}
}

func TestErrorsFromProblemDocuments(t *testing.T) {
	srv := mailchimptest.New()
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()

	_, err := c.Campaigns().Get(ctx, "ffffffffff")
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrNotFound) || te.StatusCode != 404 ||
		te.Code != "Resource Not Found" || te.Message != "The requested resource could not be found." || te.RequestID == "" {
		t.Errorf("404: %#v", err)
	}
	_, err = c.List(ctx, "campaigns", tributary.Params{"since_send_time": "last tuesday"})
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) || te.StatusCode != 400 || te.Code != "Invalid Resource" || te.Retryable {
		t.Errorf("400: %#v", err)
	}
	bad, err := mailchimp.New(mailchimp.Credentials{APIKey: "wrong-key-us6"}, tributary.WithBaseURL(srv.URL), fast)
	if err != nil {
		t.Fatal(err)
	}
	_, err = bad.List(ctx, "lists", nil)
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrUnauthorized) || te.Code != "API Key Invalid" || strings.Contains(err.Error(), "wrong-key") {
		t.Errorf("401: %v", err)
	}
	// The request id is the problem's instance, which the fake also sends
	// as X-Request-Id.
	if !strings.Contains(err.Error(), te.RequestID) || !strings.HasPrefix(te.RequestID, "00000000-0000-4000-8000-") {
		t.Errorf("request id %q in %v", te.RequestID, err)
	}
}

// Mailchimp's edge answers very busy clients with a bare HTML 403: that is
// throttling (retried, ErrRateLimited), not ErrForbidden. The API's own
// 403 problem document stays ErrForbidden and is not retried.
func TestEdgeBlockIsThrottlingNotForbidden(t *testing.T) {
	var hits atomic.Int64
	var problem atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if problem.Load() {
			w.Header().Set("Content-Type", "application/problem+json; charset=utf-8")
			w.WriteHeader(403)
			fmt.Fprint(w, `{"type":"https://mailchimp.com/developer/marketing/docs/errors/","title":"Forbidden","status":403,"detail":"You don't have permission to access this resource.","instance":"abc"}`)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(403)
		fmt.Fprint(w, "<html><body>Request Blocked</body></html>")
	}))
	defer srv.Close()
	c, err := mailchimp.New(mailchimp.Credentials{APIKey: "key-us6"}, tributary.WithBaseURL(srv.URL),
		tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 2, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.List(context.Background(), "lists", nil)
	if !errors.Is(err, tributary.ErrRateLimited) || errors.Is(err, tributary.ErrForbidden) || hits.Load() != 3 {
		t.Errorf("edge 403: %v after %d requests", err, hits.Load())
	}
	problem.Store(true)
	hits.Store(0)
	_, err = c.List(context.Background(), "lists", nil)
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrForbidden) || te.Code != "Forbidden" || te.RequestID != "abc" || hits.Load() != 1 {
		t.Errorf("API 403: %v after %d requests", err, hits.Load())
	}
}

// Basic with user name "tributary" for API keys, Bearer for OAuth tokens.
func TestAuthenticationHeaders(t *testing.T) {
	srv := mailchimptest.New()
	defer srv.Close()
	c := open(t, srv)
	if _, err := c.List(context.Background(), "lists", nil); err != nil {
		t.Fatal(err)
	}
	oauth, err := mailchimp.New(mailchimp.Credentials{AccessToken: mailchimptest.DefaultAccessToken, DataCenter: "us6"}, tributary.WithBaseURL(srv.URL), fast)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := oauth.List(context.Background(), "lists", nil); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	want := []string{"Basic " + base64.StdEncoding.EncodeToString([]byte("tributary:"+mailchimptest.DefaultAPIKey)), "Bearer " + mailchimptest.DefaultAccessToken}
	if len(reqs) != 2 || reqs[0].Header.Get("Authorization") != want[0] || reqs[1].Header.Get("Authorization") != want[1] {
		t.Errorf("Authorization headers: %d requests", len(reqs))
	}
}

// An email address given as subscriber_hash is hashed before sending, so
// the address never appears in a URL.
func TestGetMemberByEmail(t *testing.T) {
	srv := mailchimptest.New()
	defer srv.Close()
	c := open(t, srv)
	list := firstListID(t, c)
	srv.ResetRequests()
	m, err := c.ListMembers().Get(context.Background(), list, "Member7@Example.COM")
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != memberHash(7) || mailchimp.SubscriberHash("Member7@Example.COM") != memberHash(7) {
		t.Errorf("member id %s", m.ID)
	}
	if r := srv.Requests(); len(r) != 1 || r[0].Path != "/3.0/lists/"+list+"/members/"+memberHash(7) {
		t.Errorf("requests %+v", r)
	}
	if _, err := c.ListMembers().Get(context.Background(), list, mailchimp.SubscriberHash("nobody@example.com")); !errors.Is(err, tributary.ErrNotFound) {
		t.Errorf("unknown member: %v", err)
	}
}

// Every entity of the catalogue, through its typed handle, against the fake.
func TestEveryEntityThroughTypedHandles(t *testing.T) {
	srv := mailchimptest.New()
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}

	camps, err := c.Campaigns().List(ctx, mailchimp.CampaignListParams{Status: "sent", SortDir: "DESC"})
	must("campaigns", err)
	if len(camps.Items) == 0 || *camps.Items[0].Status != "sent" {
		t.Fatalf("campaigns %+v", camps.Items)
	}
	camp, err := c.Campaigns().Get(ctx, camps.Items[0].ID)
	must("campaign", err)
	rep, err := c.Reports().Get(ctx, camp.ID)
	must("report", err)
	reps, err := c.Reports().List(ctx, mailchimp.ReportListParams{})
	must("reports", err)
	if rep.ID != camp.ID || len(reps.Items) == 0 {
		t.Errorf("report %s of %s; %d reports", rep.ID, camp.ID, len(reps.Items))
	}
	acts, err := c.EmailActivity().List(ctx, mailchimp.EmailActivityListParams{CampaignID: camp.ID, Paging: mailchimp.Paging{Count: 5}})
	must("email activity", err)
	if len(acts.Items) != 5 || *acts.Items[0].EmailID != memberHash(0) || acts.Next == nil {
		t.Errorf("email activity %d, next %v", len(acts.Items), acts.Next)
	}
	unsubs, err := c.Unsubscribes().List(ctx, mailchimp.UnsubscribeListParams{CampaignID: camp.ID})
	must("unsubscribes", err)
	if len(unsubs.Items) == 0 || unsubs.Items[0].EmailID == "" {
		t.Errorf("unsubscribes %+v", unsubs.Items)
	}
	autos, err := c.Automations().List(ctx, mailchimp.AutomationListParams{Status: "sending"})
	must("automations", err)
	if len(autos.Items) == 0 || *autos.Items[0].Status != "sending" {
		t.Errorf("automations %+v", autos.Items)
	}

	lst, err := c.Lists().Get(ctx, firstListID(t, c))
	must("list", err)
	members, err := c.ListMembers().List(ctx, mailchimp.ListMemberListParams{ListID: lst.ID, Status: "subscribed", Paging: mailchimp.Paging{Count: 3}})
	must("members", err)
	if len(members.Items) != 3 || members.Meta["total_items"] == nil {
		t.Errorf("members %d, meta %v", len(members.Items), members.Meta)
	}
	tags, err := c.Tags().List(ctx, mailchimp.TagListParams{ListID: lst.ID, Name: "news"})
	must("tags", err)
	if len(tags.Items) != 1 || *tags.Items[0].Name != "newsletter" || tags.Next != nil || tags.Meta["total_items"] != int64(1) {
		t.Errorf("tags %+v meta %v", tags.Items, tags.Meta)
	}
	cats, err := c.InterestCategories().List(ctx, mailchimp.InterestCategoryListParams{ListID: lst.ID})
	must("interest categories", err)
	if len(cats.Items) == 0 {
		t.Fatal("no interest categories")
	}
	cat, err := c.InterestCategories().Get(ctx, lst.ID, cats.Items[0].ID)
	must("interest category", err)
	ints, err := c.Interests().List(ctx, mailchimp.InterestListParams{ListID: lst.ID, InterestCategoryID: cat.ID})
	must("interests", err)
	if len(ints.Items) == 0 {
		t.Fatal("no interests")
	}
	in, err := c.Interests().Get(ctx, lst.ID, cat.ID, ints.Items[0].ID)
	must("interest", err)
	if in.ID != ints.Items[0].ID || *in.CategoryID != cat.ID {
		t.Errorf("interest %+v", in)
	}
	segs, err := c.Segments().List(ctx, mailchimp.SegmentListParams{ListID: lst.ID})
	must("segments", err)
	if len(segs.Items) == 0 {
		t.Fatal("no segments")
	}
	seg, err := c.Segments().Get(ctx, lst.ID, segs.Items[0].ID)
	must("segment", err)
	sms, err := c.SegmentMembers().List(ctx, mailchimp.SegmentMemberListParams{ListID: lst.ID, SegmentID: seg.ID, IncludeUnsubscribed: true})
	must("segment members", err)
	if len(sms.Items) == 0 || sms.Meta["total_items"] == nil {
		t.Errorf("segment members %d, meta %v", len(sms.Items), sms.Meta)
	}
	for _, r := range srv.Requests() {
		if r.Path == "/3.0/lists/"+lst.ID+"/segments/"+fmt.Sprint(seg.ID)+"/members" && r.Query.Get("include_unsubscribed") != "true" {
			t.Errorf("segment members query %v", r.Query)
		}
	}
}

// 30 goroutines share one Client and list at once: the fake, which answers
// 429 beyond 10 requests in flight, never sees more than 10, and every call
// succeeds without a single 429 (retries are off, so one would fail a call).
// A caller's WithMaxConcurrency cannot raise the cap above Mailchimp's 10.
func TestConcurrentListingStaysUnderMailchimpLimit(t *testing.T) {
	srv := mailchimptest.New(mailchimptest.WithListMembers(200), mailchimptest.WithProcessingTime(2*time.Millisecond))
	defer srv.Close()
	var attempts, tooMany atomic.Int64
	counting := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := http.DefaultTransport.RoundTrip(r)
		attempts.Add(1)
		if err == nil && resp.StatusCode == http.StatusTooManyRequests {
			tooMany.Add(1)
		}
		return resp, err
	})}
	c := open(t, srv, tributary.WithHTTPClient(counting), tributary.WithRetry(tributary.RetryPolicy{}), tributary.WithMaxConcurrency(64))
	list := firstListID(t, c)

	const goroutines, calls = 30, 8
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*calls)
	for g := range goroutines {
		wg.Go(func() {
			for i := range calls {
				page, err := c.List(context.Background(), "list_members", tributary.Params{"list_id": list, "count": 20, "offset": (g*calls + i) % 180})
				if err == nil && len(page.Records) != 20 {
					err = fmt.Errorf("%d records", len(page.Records))
				}
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if err != nil {
			failed++
			if failed <= 3 {
				t.Error(err)
			}
		}
	}
	if failed > 0 || tooMany.Load() != 0 || srv.TooManyRequests() != 0 {
		t.Fatalf("%d calls failed, the client saw %d 429s, the fake refused %d", failed, tooMany.Load(), srv.TooManyRequests())
	}
	if got := srv.MaxInFlight(); got > mailchimp.MaxConcurrency || got < 2 {
		t.Errorf("the fake saw %d requests in flight at once, want 2..10", got)
	}
	if attempts.Load() != goroutines*calls+1 {
		t.Errorf("%d HTTP attempts for %d calls", attempts.Load(), goroutines*calls+1)
	}
	t.Logf("peak in flight at the fake: %d", srv.MaxInFlight())
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestNoSecretAnywhere(t *testing.T) {
	srv := mailchimptest.New()
	defer srv.Close()
	const secret = "sup3r-s3cret-api-key-us6"
	var logs bytes.Buffer
	creds := mailchimp.Credentials{APIKey: secret}
	c, err := mailchimp.New(creds, tributary.WithBaseURL(srv.URL), fast,
		tributary.WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	if err != nil {
		t.Fatal(err)
	}
	_, err1 := c.List(context.Background(), "campaigns", nil)
	_, err2 := c.Get(context.Background(), "lists", tributary.Params{"list_id": "x"})
	oauth := mailchimp.Credentials{AccessToken: secret, DataCenter: "us6"}
	for _, s := range []string{fmt.Sprint(err1, err2), fmt.Sprintf("%+v %#v", err1, err2), fmt.Sprintf("%v %+v %#v", c, c, c),
		fmt.Sprintf("%v %+v %#v %s", creds, creds, creds, creds), fmt.Sprintf("%v %+v %#v", oauth, oauth, oauth), logs.String()} {
		if strings.Contains(s, secret) || strings.Contains(s, base64.StdEncoding.EncodeToString([]byte("tributary:"+secret))) {
			t.Fatalf("the API key leaked: %s", s)
		}
	}
	if !errors.Is(err1, tributary.ErrUnauthorized) || !strings.Contains(logs.String(), `"status":401`) {
		t.Errorf("expected a 401 and debug lines, got %v and %q", err1, logs.String())
	}
}

func TestCancelMidWalkReturnsPromptly(t *testing.T) {
	srv := mailchimptest.New(mailchimptest.WithCampaigns(5000), mailchimptest.WithFaults(mailchimptest.Faults{Latency: 20 * time.Millisecond}))
	defer srv.Close()
	c := open(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	var err error
	var cancelled time.Time
	for _, e := range tributary.All(ctx, c, "campaigns", tributary.Params{"count": 100}) {
		if e != nil {
			err = e
			break
		}
		n++
		if n == 150 {
			cancel()
			cancelled = time.Now()
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v after %d records", err, n)
	}
	// The walk stops at the cancel, mid-page: not one record more. (Time
	// is only a guard against a hang: a loaded machine may be slow.)
	if n != 150 {
		t.Errorf("%d records yielded, want 150: the walk went on after the cancel", n)
	}
	if d := time.Since(cancelled); d > 10*time.Second {
		t.Errorf("the walk took %v to stop", d)
	}
}

// Time filters reach Mailchimp intact: the + of the UTC offset is escaped,
// not turned into a space.
func TestTimeFiltersTravelIntact(t *testing.T) {
	srv := mailchimptest.New(mailchimptest.WithCampaigns(25))
	defer srv.Close()
	c := open(t, srv)
	since := mailchimp.FormatTime(time.Date(2023, 1, 3, 0, 0, 0, 0, time.FixedZone("CET", 3600)))
	if since != "2023-01-02T23:00:00+00:00" {
		t.Fatalf("FormatTime = %s", since)
	}
	page, err := c.Campaigns().List(context.Background(), mailchimp.CampaignListParams{SinceCreateTime: since})
	if err != nil {
		t.Fatal(err)
	}
	// The fake creates campaign i at 2023-01-02T00:00Z + 2h·i: i ≥ 12 qualify.
	if page.Meta["total_items"] != int64(13) {
		t.Errorf("total_items %v, want 13", page.Meta["total_items"])
	}
	if r := srv.Requests(); len(r) != 1 || r[0].Query.Get("since_create_time") != since {
		t.Errorf("query %v", r[0].Query)
	}
}
