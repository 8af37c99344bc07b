package intercom_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/intercom"
	"github.com/tributary-dev/tributary/kinds/intercom/intercomtest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var fast = tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, MaxRateLimitWait: 5 * time.Second})

func open(t *testing.T, srv *intercomtest.Server, opts ...tributary.Option) *intercom.Client {
	t.Helper()
	c, err := intercom.New(intercom.Credentials{AccessToken: intercomtest.DefaultAccessToken},
		append([]tributary.Option{tributary.WithBaseURL(srv.URL), fast}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// requestsTo returns the logged API requests whose path is path.
func requestsTo(srv *intercomtest.Server, path string) []string {
	var out []string
	for _, r := range srv.Requests() {
		if r.Origin == "api" && r.Path == path {
			out = append(out, r.Query.Encode())
		}
	}
	return out
}

// scrollsUsed counts the scrolls a client went on with (distinct
// scroll_params asked for with credentials).
func scrollsUsed(srv *intercomtest.Server) int {
	seen := map[string]bool{}
	for _, r := range srv.Requests() {
		if r.Path == "/companies/scroll" && r.Query.Get("scroll_param") != "" && r.Header.Get("Authorization") != "" {
			seen[r.Query.Get("scroll_param")] = true
		}
	}
	return len(seen)
}

// allCompanies checks that ids holds every company of a fake with n
// companies exactly once.
func allCompanies(t *testing.T, ids []string, n int) {
	t.Helper()
	seen := make(map[string]int, len(ids))
	for _, id := range ids {
		seen[id]++
	}
	for i := range n {
		if k := seen[intercomtest.CompanyID(i)]; k != 1 {
			t.Fatalf("company %d (%s) came %d times", i, intercomtest.CompanyID(i), k)
		}
	}
	if len(ids) != n {
		t.Fatalf("walked %d companies, want %d", len(ids), n)
	}
}

// All over companies goes past the list's 10,000 limit with one scroll and
// yields every company exactly once.
func TestAllCompaniesPastTheListLimit(t *testing.T) {
	const n = 10_500
	srv := intercomtest.New(intercomtest.WithCompanies(n))
	defer srv.Close()
	c := open(t, srv)

	var ids []string
	for co, err := range c.Companies().All(context.Background(), intercom.CompanyListParams{}) {
		if err != nil {
			t.Fatalf("after %d companies: %v", len(ids), err)
		}
		ids = append(ids, co.ID)
	}
	allCompanies(t, ids, n)
	// The first 10,000 come from the list, most recently requested first.
	if ids[0] != intercomtest.CompanyID(n-1) || ids[intercomtest.CompanyListLimit-1] != intercomtest.CompanyID(n-intercomtest.CompanyListLimit) {
		t.Errorf("list phase out of order: first %s, 10,000th %s", ids[0], ids[intercomtest.CompanyListLimit-1])
	}
	list := requestsTo(srv, "/companies")
	for _, q := range list {
		if !strings.Contains(q, "per_page=150") {
			t.Fatalf("a list request without per_page=150: %s", q)
		}
	}
	if len(list) != 67 {
		t.Errorf("%d list requests, want 67", len(list))
	}
	opened := 0
	for _, q := range requestsTo(srv, "/companies/scroll") {
		if q == "" {
			opened++
		}
	}
	if opened != 1 || scrollsUsed(srv) != 1 {
		t.Errorf("%d scrolls opened, %d used, want 1", opened, scrollsUsed(srv))
	}
}

// Below the limit no scroll is opened.
func TestAllCompaniesBelowTheLimitListsOnly(t *testing.T) {
	srv := intercomtest.New(intercomtest.WithCompanies(400))
	defer srv.Close()
	c := open(t, srv)
	var ids []string
	for rec, err := range tributary.All(context.Background(), c, "companies", nil) {
		if err != nil {
			t.Fatal(err)
		}
		id, _ := rec.StringAt("id")
		ids = append(ids, id)
	}
	allCompanies(t, ids, 400)
	if s := requestsTo(srv, "/companies/scroll"); len(s) != 0 {
		t.Errorf("%d scroll requests for 400 companies", len(s))
	}
}

// A scroll that breaks midway (a 500, a body cut short, an expired
// scroll_param) is reopened, and no company is yielded twice or lost. After
// a cut the broken scroll stays open on Intercom's side: the walk waits for
// it to expire (shortened here to 1.5s) before it opens a new one.
func TestAllCompaniesReopensABrokenScroll(t *testing.T) {
	const n = 10_300
	for _, tc := range []struct {
		name        string
		breakScroll func(srv *intercomtest.Server)
	}{
		{"server error", func(srv *intercomtest.Server) { srv.SetFaults(intercomtest.Faults{ServerErrorFirst: 1}) }},
		{"cut body", func(srv *intercomtest.Server) { srv.SetFaults(intercomtest.Faults{CutFirst: 1}) }},
		{"expired scroll_param", func(srv *intercomtest.Server) {
			// Someone else's failed scroll request ends the open scroll:
			// the walk's next scroll_param is refused with a 400.
			srv.SetFaults(intercomtest.Faults{ServerErrorFirst: 1})
			req, _ := http.NewRequest(http.MethodGet, srv.URL+"/companies/scroll?scroll_param=x", nil)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The scroll clock moves 45s at each scroll request, whatever the
			// speed of the machine: the walk's scroll, read at every request,
			// never idles for a minute; one a cut connection left open
			// expires by the walk's second attempt to open a new one.
			clock := fakeserver.NewClock(time.Unix(1_800_000_000, 0))
			clock.SetStep(45 * time.Second)
			srv := intercomtest.New(intercomtest.WithCompanies(n), intercomtest.WithScrollClock(clock.Now))
			defer srv.Close()
			c := open(t, srv)
			var ids []string
			for co, err := range c.Companies().All(context.Background(), intercom.CompanyListParams{}) {
				if err != nil {
					t.Fatalf("after %d companies: %v", len(ids), err)
				}
				ids = append(ids, co.ID)
				if len(ids) == intercomtest.CompanyListLimit+120 {
					tc.breakScroll(srv)
				}
			}
			allCompanies(t, ids, n)
			if k := scrollsUsed(srv); k != 2 {
				t.Errorf("%d scrolls used, want 2", k)
			}
		})
	}
}

// Intercom allows one scroll per workspace: a walk that needs one while
// another is open waits for it to expire (shortened here to 300ms), or,
// with no retries allowed, returns Intercom's scroll_exists error at once.
func TestAllCompaniesWhileAnotherScrollIsOpen(t *testing.T) {
	ctx := context.Background()
	srv := intercomtest.New(intercomtest.WithCompanies(10_100))
	defer srv.Close()
	c := open(t, srv, tributary.WithRetry(tributary.RetryPolicy{}))
	if _, err := c.List(ctx, "companies", tributary.Params{"scroll_param": ""}); err != nil {
		t.Fatal(err)
	}
	k := 0
	var err error
	for _, e := range tributary.All(ctx, c, "companies", nil) {
		if e != nil {
			err = e
			break
		}
		k++
	}
	var te *tributary.Error
	if !errors.As(err, &te) || te.Code != "scroll_exists" || te.StatusCode != 400 || k != intercomtest.CompanyListLimit {
		t.Fatalf("no retries: after %d companies: %v", k, err)
	}

	// The scroll clock moves 45s at each scroll request: the scroll the
	// test opens has idled out (over a minute) by the walk's second
	// attempt to open one, and the walk's own scroll, read at every
	// request, never does.
	clock := fakeserver.NewClock(time.Unix(1_800_000_000, 0))
	clock.SetStep(45 * time.Second)
	srv2 := intercomtest.New(intercomtest.WithCompanies(120), intercomtest.WithScrollClock(clock.Now))
	defer srv2.Close()
	c = open(t, srv2)
	if _, err := c.List(ctx, "companies", tributary.Params{"scroll_param": ""}); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for co, err := range c.Companies().All(ctx, intercom.CompanyListParams{ScrollParam: new(string)}) {
		if err != nil {
			t.Fatalf("after %d companies: %v", len(ids), err)
		}
		ids = append(ids, co.ID)
	}
	allCompanies(t, ids, 120)
	opens := 0
	for _, r := range srv2.Requests() {
		if r.Path == "/companies/scroll" && r.Query.Get("scroll_param") == "" {
			opens++
		}
	}
	if opens != 3 {
		t.Errorf("%d requests opening a scroll, want 3 (the test's, the walk's refused one, the walk's after the expiry)", opens)
	}
}

// A scroll paged by hand: scroll_param "" opens it, Next continues it,
// the first empty page ends it; per_page does not go with it.
func TestScrollPageByPage(t *testing.T) {
	srv := intercomtest.New(intercomtest.WithCompanies(120))
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	if _, err := c.List(ctx, "companies", tributary.Params{"scroll_param": "", "per_page": 10}); !errors.Is(err, tributary.ErrInvalidParams) {
		t.Fatalf("scroll with per_page: %v", err)
	}
	if len(srv.Requests()) != 0 {
		t.Fatal("an invalid scroll was sent")
	}
	p := tributary.Params{"scroll_param": ""}
	var ids []string
	pages := 0
	for p != nil {
		page, err := c.List(ctx, "companies", p)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, r := range page.Records {
			id, _ := r.StringAt("id")
			ids = append(ids, id)
		}
		if (page.Next == nil) != (page.Meta["next_page"] == nil) || (page.Next != nil && page.Next["scroll_param"] != page.Meta["next_page"]) {
			t.Fatalf("meta %v, next %v", page.Meta, page.Next)
		}
		p = page.Next
	}
	allCompanies(t, ids, 120)
	if pages != 4 { // 50 + 50 + 20 + the empty end
		t.Errorf("%d scroll pages", pages)
	}
	// All with scroll_param "" scrolls from the start.
	ids = ids[:0]
	for co, err := range c.Companies().All(ctx, intercom.CompanyListParams{ScrollParam: new(string)}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, co.ID)
	}
	allCompanies(t, ids, 120)
}

// A 500 on a scroll request is not repeated with the same scroll_param:
// the scroll is gone, the walk opens a new one.
func TestScrollServerErrorIsNotRetried(t *testing.T) {
	srv := intercomtest.New(intercomtest.WithCompanies(120))
	defer srv.Close()
	c := open(t, srv)
	page, err := c.List(context.Background(), "companies", tributary.Params{"scroll_param": ""})
	if err != nil {
		t.Fatal(err)
	}
	srv.SetFaults(intercomtest.Faults{ServerErrorFirst: 1})
	srv.ResetRequests()
	_, err = c.List(context.Background(), "companies", page.Next)
	if !errors.Is(err, tributary.ErrServer) || len(srv.Requests()) != 1 {
		t.Fatalf("err %v after %d requests", err, len(srv.Requests()))
	}
}

// A rate-limited scroll page is asked for again with the same scroll_param
// once X-RateLimit-Reset has passed: Intercom refused it before touching
// the scroll.
func TestScrollPageWaitsOutARateLimit(t *testing.T) {
	t.Parallel()
	srv := intercomtest.New(intercomtest.WithCompanies(120))
	defer srv.Close()
	c := open(t, srv)
	first, err := c.List(context.Background(), "companies", tributary.Params{"scroll_param": ""})
	if err != nil {
		t.Fatal(err)
	}
	srv.SetFaults(intercomtest.Faults{RateLimitFirst: 1, RetryAfter: time.Second})
	srv.ResetRequests()
	start := time.Now()
	page, err := c.List(context.Background(), "companies", first.Next)
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := page.Records[0].StringAt("id"); id != intercomtest.CompanyID(50) {
		t.Errorf("second scroll page starts with %s", id)
	}
	reqs := requestsTo(srv, "/companies/scroll")
	if len(reqs) != 2 || reqs[0] != reqs[1] {
		t.Errorf("scroll requests %v", reqs)
	}
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Errorf("the reset was not waited for (%v)", d)
	}
}

// Cursor paging as the contract describes it, and All in order.
func TestContactsPagingAndWalk(t *testing.T) {
	srv := intercomtest.New(intercomtest.WithContacts(320))
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	page, err := c.List(ctx, "contacts", tributary.Params{"per_page": 2})
	if err != nil {
		t.Fatal(err)
	}
	cur, _ := page.Meta["next_page"].(string)
	if len(page.Records) != 2 || cur == "" || page.Next["starting_after"] != cur || page.Next["per_page"] != int64(2) {
		t.Fatalf("first page: %d records, meta %v, next %v", len(page.Records), page.Meta, page.Next)
	}
	second, err := c.Contacts().List(ctx, intercom.ListParams{PerPage: 2, StartingAfter: cur})
	if err != nil || second.Items[0].ID != intercomtest.ContactID(2) {
		t.Fatalf("second page: %v", err)
	}
	if q := srv.Requests()[1].Query; q.Get("starting_after") != cur || q.Get("per_page") != "2" {
		t.Errorf("second request query %v", q)
	}

	srv.ResetRequests()
	i := 0
	for ct, err := range c.Contacts().All(ctx, intercom.ListParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		if ct.ID != intercomtest.ContactID(i) {
			t.Fatalf("contact %d is %s", i, ct.ID)
		}
		i++
	}
	if i != 320 || len(srv.Requests()) != 3 {
		t.Errorf("walked %d contacts in %d requests", i, len(srv.Requests()))
	}
	if _, err := c.List(ctx, "contacts", tributary.Params{"per_page": 151}); !errors.Is(err, tributary.ErrInvalidParams) {
		t.Errorf("per_page 151: %v", err)
	}
}

func TestConversationsAndUnpagedLists(t *testing.T) {
	srv := intercomtest.New(intercomtest.WithConversations(45), intercomtest.WithContacts(60))
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	n := 0
	for cv, err := range c.Conversations().All(ctx, intercom.ListParams{PerPage: 20}) {
		if err != nil {
			t.Fatal(err)
		}
		if cv.ID != intercomtest.ConversationID(n) {
			t.Fatalf("conversation %d is %s", n, cv.ID)
		}
		n++
	}
	if n != 45 {
		t.Errorf("%d conversations", n)
	}
	cv, err := c.Conversations().Get(ctx, intercomtest.ConversationID(7))
	if err != nil || cv.ConversationParts == nil || cv.TeamAssigneeID != nil {
		t.Errorf("conversation 7: %v, parts %s, team %v", err, cv.ConversationParts, cv.TeamAssigneeID)
	}

	for _, e := range []string{"teams", "admins", "tags", "segments"} {
		page, err := c.List(ctx, e, nil)
		if err != nil || len(page.Records) == 0 || page.Next != nil || len(page.Meta) != 1 || page.Meta["next_page"] != nil {
			t.Errorf("%s: %v, %d records, meta %v, next %v", e, err, len(page.Records), page.Meta, page.Next)
		}
	}
	segs, err := c.Segments().List(ctx, intercom.SegmentListParams{IncludeCount: true})
	if err != nil {
		t.Fatal(err)
	}
	total := int64(0)
	for _, s := range segs.Items {
		total += *s.Count
	}
	if total != 60 {
		t.Errorf("segment counts add up to %d", total)
	}
	teams, err := c.Teams().List(ctx, intercom.NoParams{})
	if err != nil || len(teams.Items[0].AdminIDs) == 0 {
		t.Fatalf("teams: %v", err)
	}
	a, err := c.Admins().Get(ctx, fmt.Sprint(teams.Items[0].AdminIDs[0]))
	if err != nil || a.Email == nil {
		t.Errorf("admin of team: %v", err)
	}
}

// Every request carries Intercom-Version (2.11 unless chosen), Accept and
// the bearer token.
func TestHeadersAndVersion(t *testing.T) {
	srv := intercomtest.New()
	defer srv.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		opts []tributary.Option
		want string
	}{{nil, "2.11"}, {[]tributary.Option{intercom.WithAPIVersion("2.14")}, "2.14"}} {
		srv.ResetRequests()
		c := open(t, srv, tc.opts...)
		if _, err := c.Get(ctx, "tags", tributary.Params{"id": "7001001"}); err != nil {
			t.Fatal(err)
		}
		h := srv.Requests()[0].Header
		if h.Get("Intercom-Version") != tc.want || h.Get("Accept") != "application/json" || h.Get("Authorization") != "Bearer "+intercomtest.DefaultAccessToken {
			t.Errorf("headers %v, want version %s", h, tc.want)
		}
	}
	for _, v := range []string{"", "latest", "2.x"} {
		if _, err := intercom.New(intercom.Credentials{AccessToken: "t"}, intercom.WithAPIVersion(v)); !errors.Is(err, tributary.ErrInvalidCredentials) {
			t.Errorf("version %q: %v", v, err)
		}
	}
}

func TestRegions(t *testing.T) {
	for _, tc := range []struct {
		creds intercom.Region
		opts  []tributary.Option
		want  string
	}{
		{"", nil, "https://api.intercom.io"},
		{intercom.RegionUS, nil, "https://api.intercom.io"},
		{intercom.RegionEU, nil, "https://api.eu.intercom.io"},
		{intercom.RegionAU, nil, "https://api.au.intercom.io"},
		{"", []tributary.Option{intercom.WithRegion(intercom.RegionEU)}, "https://api.eu.intercom.io"},
		{intercom.RegionAU, []tributary.Option{intercom.WithRegion(intercom.RegionAU)}, "https://api.au.intercom.io"},
		{intercom.RegionEU, []tributary.Option{tributary.WithBaseURL("http://127.0.0.1:9")}, "http://127.0.0.1:9"},
	} {
		c, err := intercom.New(intercom.Credentials{AccessToken: "t", Region: tc.creds}, tc.opts...)
		if err != nil || c.BaseURL() != tc.want {
			t.Errorf("region %q %d opts: %v %v, want %s", tc.creds, len(tc.opts), err, c, tc.want)
		}
	}
	for _, bad := range []struct {
		creds intercom.Region
		opt   tributary.Option
	}{
		{"eu-west", nil},
		{"", intercom.WithRegion("ca")},
		{intercom.RegionEU, intercom.WithRegion(intercom.RegionAU)},
		{"", tributary.WithSetting("intercom.regoin", "eu")},
	} {
		if _, err := intercom.New(intercom.Credentials{AccessToken: "t", Region: bad.creds}, bad.opt); !errors.Is(err, tributary.ErrInvalidCredentials) {
			t.Errorf("%q: %v", bad.creds, err)
		}
	}
}

// A 429 waits until X-RateLimit-Reset (Intercom sends no Retry-After); 5xx
// are retried.
func TestRateLimitWaitsForTheReset(t *testing.T) {
	t.Parallel()
	srv := intercomtest.New(intercomtest.WithFaults(intercomtest.Faults{RateLimitFirst: 1, ServerErrorFirst: 1, RetryAfter: time.Second}))
	defer srv.Close()
	c := open(t, srv)
	start := time.Now()
	page, err := c.List(context.Background(), "admins", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) == 0 || len(srv.Requests()) != 3 {
		t.Errorf("%d records after %d requests", len(page.Records), len(srv.Requests()))
	}
	// The reset is the next whole second at least one second away.
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Errorf("the reset was not waited for (%v)", d)
	}
}

// A reset further away than the retry policy allows is returned at once
// as ErrRateLimited with RetryAfter.
func TestRateLimitBeyondThePolicy(t *testing.T) {
	srv := intercomtest.New(intercomtest.WithFaults(intercomtest.Faults{RateLimitFirst: 1, RetryAfter: 30 * time.Second}))
	defer srv.Close()
	c := open(t, srv)
	start := time.Now()
	_, err := c.List(context.Background(), "tags", nil)
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrRateLimited) || te.Code != "rate_limit_exceeded" || te.RetryAfter < 28*time.Second || !te.Retryable {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > 10*time.Second || te.RequestID == "" { // not the 30s wait
		t.Errorf("took %v; request id %q", time.Since(start), te.RequestID)
	}
}

func TestErrorsFromIntercomBodies(t *testing.T) {
	srv := intercomtest.New()
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	for _, tc := range []struct {
		entity, id, code string
	}{
		{"contacts", "65a0c0de00000000000fffff", "not_found"},
		{"conversations", "1", "not_found"},
		{"companies", "nope", "company_not_found"},
		{"teams", "1", "team_not_found"},
		{"admins", "1", "admin_not_found"},
		{"tags", "1", "not_found"},
		{"segments", "1", "not_found"},
	} {
		_, err := c.Get(ctx, tc.entity, tributary.Params{"id": tc.id})
		var te *tributary.Error
		if !errors.As(err, &te) || !errors.Is(err, tributary.ErrNotFound) || te.Code != tc.code || te.StatusCode != 404 || te.RequestID == "" || te.Entity != tc.entity {
			t.Errorf("%s %s: %v", tc.entity, tc.id, err)
		}
	}
	if _, err := c.Get(ctx, "contacts", tributary.Params{}); !errors.Is(err, tributary.ErrInvalidParams) {
		t.Errorf("get without id: %v", err)
	}
	bad, _ := intercom.New(intercom.Credentials{AccessToken: "wrong-token"}, tributary.WithBaseURL(srv.URL))
	_, err := bad.List(ctx, "contacts", nil)
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrUnauthorized) || te.Code != "unauthorized" || te.Message != "Access Token Invalid" || strings.Contains(err.Error(), "wrong-token") {
		t.Errorf("401: %v", err)
	}
}

func TestNoSecretAnywhere(t *testing.T) {
	srv := intercomtest.New(intercomtest.WithCredentials("right-token"))
	defer srv.Close()
	const secret = "dG9rOjEyMzQ1Njc4OTA6c2VjcmV0"
	var logs bytes.Buffer
	creds := intercom.Credentials{AccessToken: secret, Region: intercom.RegionEU}
	c, err := intercom.New(creds, tributary.WithBaseURL(srv.URL), fast, tributary.WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	if err != nil {
		t.Fatal(err)
	}
	_, err1 := c.List(context.Background(), "contacts", nil)
	_, err2 := c.Get(context.Background(), "admins", tributary.Params{"id": "1"})
	for _, s := range []string{fmt.Sprint(err1, err2), fmt.Sprintf("%+v %#v", err1, err2), fmt.Sprintf("%v %+v %#v", c, c, c),
		fmt.Sprintf("%v %+v %#v %s", creds, creds, creds, creds), logs.String()} {
		if strings.Contains(s, secret) {
			t.Fatalf("the access token leaked: %s", s)
		}
	}
	if !strings.Contains(logs.String(), `"status":401`) {
		t.Errorf("expected debug lines, got %q", logs.String())
	}
}

func TestCancelMidWalkReturnsPromptly(t *testing.T) {
	srv := intercomtest.New(intercomtest.WithContacts(3000), intercomtest.WithFaults(intercomtest.Faults{Latency: 20 * time.Millisecond}))
	defer srv.Close()
	c := open(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	var err error
	var cancelled time.Time
	for _, e := range tributary.All(ctx, c, "contacts", nil) {
		if e != nil {
			err = e
			break
		}
		n++
		if n == 200 {
			cancel()
			cancelled = time.Now()
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v after %d records", err, n)
	}
	// The walk stops at the cancel, mid-page: not one record more. (Time
	// is only a guard against a hang: a loaded machine may be slow.)
	if n != 200 {
		t.Errorf("%d records yielded, want 200: the walk went on after the cancel", n)
	}
	if d := time.Since(cancelled); d > 10*time.Second {
		t.Errorf("the walk took %v to stop", d)
	}
}

func TestCredentialChecks(t *testing.T) {
	cases := []map[string]any{
		{},
		{"access_token": ""},
		{"access_token": 7},
		{"access_token": "tok en"},
		{"access_token": "tok\n"},
		{"access_token": "t", "region": "eu-west-1"},
		{"access_token": "t", "region": true},
		{"access_token": "t", "api_key": "k"},
		{"token": "t"},
	}
	for _, creds := range cases {
		_, err := intercom.Open(creds)
		if !errors.Is(err, tributary.ErrInvalidCredentials) {
			t.Errorf("%v: err = %v, want ErrInvalidCredentials", creds, err)
		}
	}
	for region, base := range map[string]string{"us": "https://api.intercom.io", "eu": "https://api.eu.intercom.io", "au": "https://api.au.intercom.io"} {
		c, err := intercom.Open(map[string]any{"access_token": "t", "region": region})
		if err != nil || c.Type() != "intercom" || c.(*intercom.Client).BaseURL() != base {
			t.Errorf("region %s: %v", region, err)
		}
	}
	creds, err := intercom.CredentialsFromMap(map[string]any{"access_token": "t"})
	if err != nil || creds.AccessToken != "t" || creds.Region != "" {
		t.Errorf("%v %v", creds, err)
	}
}

// The catalogue: entity names, actions, params and searchable fields as
// the contract's catalogue gives them.
func TestCatalogue(t *testing.T) {
	c, err := intercom.New(intercom.Credentials{AccessToken: "t"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"contacts": "list,get,search", "conversations": "list,get,search", "companies": "list,get,search",
		"teams": "list,get,search", "admins": "list,get", "tags": "list,get", "segments": "list,get",
	}
	if len(c.Entities()) != len(want) {
		t.Errorf("%d entities", len(c.Entities()))
	}
	for _, e := range c.Entities() {
		var acts []string
		for _, a := range e.Actions {
			acts = append(acts, string(a))
		}
		if strings.Join(acts, ",") != want[e.Name] {
			t.Errorf("%s offers %v", e.Name, acts)
		}
		if p, ok := e.Param(tributary.ActionGet, "id"); !ok || !p.Required {
			t.Errorf("%s.get has no required id", e.Name)
		}
		if e.Supports(tributary.ActionSearch) != (len(e.Searchable) > 0) {
			t.Errorf("%s: search %v with %d fields", e.Name, e.Supports(tributary.ActionSearch), len(e.Searchable))
		}
	}
	ent, _ := tributary.FindEntity(c.Entities(), "contacts")
	if p, _ := ent.Param(tributary.ActionList, "per_page"); p.Max == nil || *p.Max != 150 {
		t.Errorf("per_page %+v", p)
	}
	ent, _ = tributary.FindEntity(c.Entities(), "teams")
	if len(ent.Params[tributary.ActionList]) != 0 || len(ent.Searchable) != 4 {
		t.Errorf("teams: %v params, %v", ent.Params[tributary.ActionList], ent.Searchable)
	}
}

// The typed records carry every searchable field of the catalogue.
func TestRecordsCarryTheSearchableFields(t *testing.T) {
	c, err := intercom.New(intercom.Credentials{AccessToken: "t"})
	if err != nil {
		t.Fatal(err)
	}
	records := map[string]any{"contacts": intercom.Contact{}, "conversations": intercom.Conversation{}, "companies": intercom.Company{}, "teams": intercom.Team{}}
	for _, e := range c.Entities() {
		if len(e.Searchable) == 0 {
			continue
		}
		rec, ok := records[e.Name]
		if !ok {
			t.Errorf("%s is searchable but has no record type here", e.Name)
			continue
		}
		tags := map[string]bool{}
		rt := reflect.TypeOf(rec)
		for i := range rt.NumField() {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			tags[name] = true
		}
		seen := map[string]bool{}
		for _, f := range e.Searchable {
			if !tags[f.Name] {
				t.Errorf("%s: searchable field %s is not in %T", e.Name, f.Name, rec)
			}
			if seen[f.Name] {
				t.Errorf("%s: searchable field %s listed twice", e.Name, f.Name)
			}
			seen[f.Name] = true
		}
	}
}

// A scroll_param Intercom no longer knows (the scroll idled out) is
// ErrCursorExpired, not the caller's invalid params; a walk whose scroll
// keeps expiring opens it again a few times, then ends with that error.
func TestExpiredScrollIsErrCursorExpired(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := fakeserver.NewClock(time.Unix(1_800_000_000, 0))
	srv := intercomtest.New(intercomtest.WithCompanies(120), intercomtest.WithScrollClock(clock.Now))
	defer srv.Close()
	c := open(t, srv)
	first, err := c.List(ctx, "companies", tributary.Params{"scroll_param": ""})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(intercomtest.ScrollIdleTimeout + time.Second)
	_, err = c.List(ctx, "companies", first.Next)
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrCursorExpired) || errors.Is(err, tributary.ErrInvalidParams) ||
		te.StatusCode != 400 || te.Code != "parameter_invalid" || te.Param != "" || !strings.Contains(te.Message, "start the walk again") {
		t.Fatalf("expired scroll: %v", err)
	}

	// Every scroll request finds the scroll idle for over a minute.
	clock.SetStep(intercomtest.ScrollIdleTimeout + time.Second)
	srv.ResetRequests()
	n := 0
	for _, err = range c.Companies().All(ctx, intercom.CompanyListParams{ScrollParam: new(string)}) {
		if err != nil {
			break
		}
		n++
	}
	if !errors.Is(err, tributary.ErrCursorExpired) || n != intercomtest.ScrollPageSize {
		t.Fatalf("after %d companies: %v", n, err)
	}
	if opens := len(requestsTo(srv, "/companies/scroll")); opens != 8 {
		t.Errorf("%d scroll requests, want 8 (4 opens, each followed by an expired page)", opens)
	}
}
