package hubspot_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/oauth2"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/hubspot"
	"github.com/tributary-dev/tributary/kinds/hubspot/hubspottest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// fast retries quickly and does not pace to the vendor's limit, which the
// fake enforces only when told to.
var fast tributary.Option = func(o *tributary.Options) {
	tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, MaxRateLimitWait: 5 * time.Second})(o)
	hubspot.WithAPIRateLimit(0, 0)(o)
}

// open connects to the fake with the private-app token, without search
// pacing (tests that need it set their own).
func open(t testing.TB, srv *hubspottest.Server, opts ...tributary.Option) *hubspot.Client {
	t.Helper()
	c, err := hubspot.New(hubspot.Credentials{PrivateAppToken: hubspottest.DefaultPrivateAppToken},
		append([]tributary.Option{tributary.WithBaseURL(srv.URL), fast, hubspot.WithSearchRateLimit(0, 0)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Every contact exactly once, in order, typed and generic.
func TestAllWalksEveryRecordInOrder(t *testing.T) {
	const n = 1_050
	srv := hubspottest.New(hubspottest.WithContacts(n))
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	i := 0
	for ct, err := range c.Contacts().All(ctx, hubspot.ListParams{Limit: 100, Properties: []string{"email", "firstname"}}) {
		if err != nil {
			t.Fatalf("after %d contacts: %v", i, err)
		}
		if ct.ID != srv.ObjectID("contacts", i) {
			t.Fatalf("contact %d has id %s, want %s", i, ct.ID, srv.ObjectID("contacts", i))
		}
		if _, ok := ct.Properties["email"]; !ok {
			t.Fatalf("contact %d lacks the email property: %v", i, ct.Properties)
		}
		i++
	}
	if i != n {
		t.Fatalf("walked %d contacts, want %d", i, n)
	}
	if got := len(srv.Requests()); got != 11 {
		t.Errorf("%d requests for %d contacts at 100 a page", got, n)
	}
	for _, r := range srv.Requests() {
		if r.Path != "/crm/v3/objects/contacts" || r.Query.Get("properties") != "email,firstname" || r.Header.Get("Authorization") != "Bearer "+hubspottest.DefaultPrivateAppToken {
			t.Fatalf("request %s %v %q", r.Path, r.Query, r.Header.Get("Authorization"))
		}
	}
	i = 0
	for rec, err := range tributary.All(ctx, c, "tickets", tributary.Params{"limit": 7}) {
		if err != nil {
			t.Fatal(err)
		}
		if id, _ := rec.StringAt("id"); id != srv.ObjectID("tickets", i) {
			t.Fatalf("ticket %d: id %s", i, id)
		}
		i++
	}
	if i != srv.Count("tickets") {
		t.Errorf("walked %d tickets, want %d", i, srv.Count("tickets"))
	}
}

// One page: Meta next_cursor from paging.next.after, Next carries after;
// the last page has neither.
func TestListPageMetaAndNext(t *testing.T) {
	srv := hubspottest.New(hubspottest.WithDeals(5))
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	page, err := c.List(ctx, "deals", tributary.Params{"limit": 3, "associations": []string{"contacts"}})
	if err != nil {
		t.Fatal(err)
	}
	want := srv.ObjectID("deals", 3)
	if len(page.Records) != 3 || page.Meta["next_cursor"] != want || page.Next["after"] != want || page.Next["limit"] != int64(3) {
		t.Fatalf("%d records, meta %v, next %v", len(page.Records), page.Meta, page.Next)
	}
	if _, ok := page.Records[0].Lookup("associations.contacts.results"); !ok {
		t.Errorf("associations missing: %s", page.Records[0].Raw())
	}
	last, err := c.List(ctx, "deals", page.Next)
	if err != nil {
		t.Fatal(err)
	}
	if len(last.Records) != 2 || last.Next != nil || last.Meta["next_cursor"] != nil {
		t.Errorf("last page: %d records, next %v, meta %v", len(last.Records), last.Next, last.Meta)
	}
	// Validated before sending: nothing reaches the fake.
	srv.ResetRequests()
	for _, p := range []tributary.Params{{"limit": 101}, {"limit": 0}, {"archived": "yes"}, {"properties": "email"}, {"page": 2}} {
		if _, err := c.List(ctx, "deals", p); !errors.Is(err, tributary.ErrInvalidParams) {
			t.Errorf("%v: %v", p, err)
		}
	}
	if _, err := c.Get(ctx, "deals", nil); !errors.Is(err, tributary.ErrInvalidParams) {
		t.Errorf("get without dealId: %v", err)
	}
	if _, err := c.APISearch(ctx, "notes", nil); !errors.Is(err, tributary.ErrUnsupportedAction) {
		t.Errorf("notes.api_search: %v", err)
	}
	bad := tributary.Params{"filterGroups": []any{map[string]any{"filters": []any{map[string]any{"propertyName": "email", "operator": "LIKE", "value": "x"}}}}}
	if _, err := c.APISearch(ctx, "contacts", bad); !errors.Is(err, tributary.ErrInvalidParams) || !strings.Contains(err.Error(), "operator") {
		t.Errorf("bad operator: %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests were sent for invalid params", n)
	}
}

func TestTypedRecordsAndHandles(t *testing.T) {
	srv := hubspottest.New()
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()

	id := srv.ObjectID("contacts", 3)
	ct, err := c.Contacts().GetWith(ctx, id, hubspot.GetParams{Properties: []string{"email", "lifecyclestage", "phone"}, Associations: []string{"companies"}})
	if err != nil {
		t.Fatal(err)
	}
	if ct.ID != id || ct.Email() == "" || ct.LifecycleStage() == "" || len(ct.Associations) == 0 {
		t.Errorf("contact %+v", ct)
	}
	if _, ok := ct.CreateDate(); !ok {
		t.Errorf("createdate not a time: %v", ct.Properties["createdate"])
	}
	byEmail, err := c.Contacts().GetWith(ctx, ct.Email(), hubspot.GetParams{IDProperty: "email"})
	if err != nil || byEmail.ID != id {
		t.Errorf("by email: %v %s", err, byEmail.ID)
	}
	d, err := c.Deals().Get(ctx, srv.ObjectID("deals", 0))
	if err != nil || d.DealStage() == "" || d.Pipeline() == "" {
		t.Errorf("deal: %v %+v", err, d)
	}
	notes, err := c.Notes().List(ctx, hubspot.ListParams{Limit: 2, Properties: []string{"hs_note_body"}})
	if err != nil || len(notes.Items) != 2 || notes.Items[0].Body() == "" {
		t.Errorf("notes: %v %+v", err, notes)
	}
	o, err := c.Owners().Get(ctx, srv.OwnerID(0))
	if err != nil || o.ID != srv.OwnerID(0) || o.Email == nil {
		t.Errorf("owner: %v %+v", err, o)
	}
	if o.UserID != nil {
		byUser, err := c.Owners().GetByUserID(ctx, fmt.Sprint(*o.UserID))
		if err != nil || byUser.ID != o.ID {
			t.Errorf("owner by user id: %v %+v", err, byUser)
		}
	}
	pls, err := c.Pipelines().List(ctx, hubspot.PipelineListParams{ObjectType: "deals"})
	if err != nil || len(pls.Items) == 0 || len(pls.Items[0].Stages) == 0 || pls.Next != nil {
		t.Fatalf("pipelines: %v %+v", err, pls)
	}
	pl, err := c.Pipelines().Get(ctx, "deals", pls.Items[0].ID)
	if err != nil || pl.ID != pls.Items[0].ID {
		t.Errorf("pipeline: %v %+v", err, pl)
	}
	schemas, err := c.Schemas().List(ctx, hubspot.SchemaListParams{})
	if err != nil || len(schemas.Items) != 1 || schemas.Items[0].FullyQualifiedName != hubspottest.CustomObjectFullyQualifiedName {
		t.Fatalf("schemas: %v %+v", err, schemas)
	}
	sc, err := c.Schemas().Get(ctx, hubspottest.CustomObjectTypeID)
	if err != nil || len(sc.Properties) == 0 {
		t.Errorf("schema: %v %+v", err, sc)
	}
	cars, err := c.Objects().List(ctx, hubspot.ObjectListParams{ObjectType: sc.ObjectTypeID, ListParams: hubspot.ListParams{Limit: 2, Properties: []string{"vin"}}})
	if err != nil || len(cars.Items) != 2 || cars.Items[0].Value("vin") == "" || cars.Next["objectType"] != sc.ObjectTypeID {
		t.Fatalf("cars: %v %+v", err, cars)
	}
	car, err := c.Objects().Get(ctx, hubspottest.CustomObjectName, cars.Items[1].ID)
	if err != nil || car.ID != cars.Items[1].ID {
		t.Errorf("car: %v %+v", err, car)
	}
}

// One page of HubSpot's search: the body is sent as given, Meta has total
// and next_cursor (an offset), Next carries after in the body.
func TestAPISearchPage(t *testing.T) {
	srv := hubspottest.New(hubspottest.WithContacts(300))
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	req := hubspot.SearchRequest{
		FilterGroups: []hubspot.FilterGroup{{Filters: []hubspot.Filter{{PropertyName: "lifecyclestage", Operator: "EQ", Value: "customer"}}}},
		Sorts:        []hubspot.Sort{{PropertyName: "createdate", Direction: "DESCENDING"}},
		Properties:   []string{"email", "lifecyclestage"},
		Limit:        20,
	}
	page, err := c.Contacts().Search(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	total, _ := page.Meta["total"].(int64)
	if len(page.Items) != 20 || total <= 20 || page.Meta["next_cursor"] != "20" || page.Next["after"] != "20" {
		t.Fatalf("%d items, meta %v, next %v", len(page.Items), page.Meta, page.Next)
	}
	for _, ct := range page.Items {
		if ct.LifecycleStage() != "customer" {
			t.Fatalf("%s is %q", ct.ID, ct.LifecycleStage())
		}
	}
	r := srv.Requests()[0]
	if r.Method != "POST" || r.Path != "/crm/v3/objects/contacts/search" || r.Header.Get("Content-Type") != "application/json" ||
		!strings.Contains(string(r.Body), `"operator":"EQ"`) || len(r.Query) != 0 {
		t.Errorf("request %s %s %v %s", r.Method, r.Path, r.Query, r.Body)
	}
	n := len(page.Items)
	for p := page.Next; p != nil; {
		next, err := c.APISearch(ctx, "contacts", p)
		if err != nil {
			t.Fatal(err)
		}
		n += len(next.Records)
		p = next.Next
	}
	if int64(n) != total {
		t.Errorf("paged %d of %d", n, total)
	}
}

// TestSearchIsPaced runs in a testing/synctest bubble with the fake reached
// in-process: the pacing waits on the bubble's clock, so the times below
// are exact, whatever else the machine is doing.
func TestSearchIsPaced(t *testing.T) {
	srv := hubspottest.New()
	defer srv.Close()
	synctest.Test(t, func(t *testing.T) {
		// 2 searches a second: the lists are not paced at all, and 3
		// searches take exactly one second (the first goes at once).
		c := open(t, srv, hubspot.WithSearchRateLimit(2, 1), tributary.WithHTTPClient(&http.Client{Transport: srv.Transport()}))
		ctx := context.Background()
		start := time.Now()
		for range 10 {
			if _, err := c.List(ctx, "contacts", nil); err != nil {
				t.Fatal(err)
			}
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("lists were paced: %v", d)
		}
		start = time.Now()
		for range 3 {
			if _, err := c.APISearch(ctx, "contacts", nil); err != nil {
				t.Fatal(err)
			}
		}
		if d := time.Since(start); d != time.Second {
			t.Errorf("3 searches at 2/s took %v, want 1s", d)
		}
	})
	if _, err := hubspot.New(hubspot.Credentials{PrivateAppToken: "x"}, tributary.WithSetting(hubspot.SettingSearchRate, "fast")); !errors.Is(err, tributary.ErrInvalidParams) {
		t.Errorf("bad setting: %v", err)
	}
}

func TestRateLimitAndServerErrorsAreRetried(t *testing.T) {
	srv := hubspottest.New(hubspottest.WithFaults(hubspottest.Faults{RateLimitFirst: 1, ServerErrorFirst: 1, RetryAfter: time.Second}))
	defer srv.Close()
	c := open(t, srv)
	start := time.Now()
	page, err := c.APISearch(context.Background(), "deals", tributary.Params{"limit": 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) != 5 || len(srv.Requests()) != 3 {
		t.Errorf("%d records after %d requests", len(page.Records), len(srv.Requests()))
	}
	if time.Since(start) < time.Second {
		t.Errorf("Retry-After of 1s was not waited (%v)", time.Since(start))
	}
	srv.SetFaults(hubspottest.Faults{ServerErrorFirst: 2})
	srv.ResetRequests()
	if _, err := c.List(context.Background(), "companies", nil); err != nil || len(srv.Requests()) != 3 {
		t.Errorf("list after two 500s: %v, %d requests", err, len(srv.Requests()))
	}
	// More 5xx than retries: ErrServer with HubSpot's correlation id.
	srv.SetFaults(hubspottest.Faults{ServerErrorFirst: 10})
	_, err = c.List(context.Background(), "companies", nil)
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrServer) || te.StatusCode != 500 || !te.Retryable || te.RequestID == "" {
		t.Errorf("persistent 500: %v", err)
	}
}

// The daily quota is not retried: HubSpot resets it at midnight.
func TestDailyLimitIsNotRetried(t *testing.T) {
	srv := hubspottest.New(hubspottest.WithRateLimitPolicy(hubspottest.PolicyDaily), hubspottest.WithFaults(hubspottest.Faults{RateLimitFirst: 1}))
	defer srv.Close()
	c := open(t, srv)
	_, err := c.List(context.Background(), "contacts", nil)
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrRateLimited) || te.Code != "RATE_LIMIT" || !strings.Contains(te.Message, "daily") || te.RequestID == "" {
		t.Fatalf("daily limit: %v", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests: the daily limit was retried", n)
	}
}

func TestErrorsFromHubSpotBodies(t *testing.T) {
	srv := hubspottest.New()
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	_, err := c.Get(ctx, "contacts", tributary.Params{"contactId": "1"})
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrNotFound) || te.Code != "OBJECT_NOT_FOUND" || te.StatusCode != 404 || te.Message == "" {
		t.Errorf("404: %v", err)
	}
	if reqs := srv.Requests(); te == nil || te.RequestID == "" || !strings.Contains(err.Error(), te.RequestID) {
		t.Errorf("request id %q not in %v (%d requests)", te.RequestID, err, len(reqs))
	}
	_, err = c.List(ctx, "objects", tributary.Params{"objectType": "spaceships"})
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) || te.Code != "VALIDATION_ERROR" || !strings.Contains(te.Message, "spaceships") {
		t.Errorf("unknown type: %v", err)
	}
	_, err = c.APISearch(ctx, "contacts", tributary.Params{"after": "10000"})
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) || te.Code != "VALIDATION_ERROR" || !strings.Contains(te.Message, "10,000") {
		t.Errorf("past the cap: %v", err)
	}
	bad, _ := hubspot.New(hubspot.Credentials{PrivateAppToken: "wrong-token"}, tributary.WithBaseURL(srv.URL))
	_, err = bad.List(ctx, "contacts", nil)
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrUnauthorized) || te.Code != "INVALID_AUTHENTICATION" || strings.Contains(err.Error(), "wrong-token") {
		t.Errorf("401: %v", err)
	}
}

func oauthCreds(access string) hubspot.Credentials {
	return hubspot.Credentials{ClientID: hubspottest.DefaultClientID, ClientSecret: hubspottest.DefaultClientSecret,
		RefreshToken: hubspottest.DefaultRefreshToken, AccessToken: access}
}

// OAuth: without an access token the connector refreshes first, once for
// concurrent calls, with the client credentials in the form body; each
// issued token reaches the callback.
func TestOAuthRefresh(t *testing.T) {
	srv := hubspottest.New()
	defer srv.Close()
	var mu sync.Mutex
	var issued []*oauth2.Token
	c, err := hubspot.New(oauthCreds(""), tributary.WithBaseURL(srv.URL), fast, tributary.WithTokenRefresh(func(tok *oauth2.Token) {
		mu.Lock()
		issued = append(issued, tok)
		mu.Unlock()
	}))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			_, err := c.List(context.Background(), "contacts", nil)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(issued) != 1 || issued[0].AccessToken == "" || issued[0].RefreshToken != hubspottest.DefaultRefreshToken || issued[0].Expiry.IsZero() {
		t.Fatalf("%d tokens issued: %+v", len(issued), issued)
	}
	tokenCalls := 0
	for _, r := range srv.Requests() {
		switch r.Path {
		case "/oauth/v1/token":
			tokenCalls++
			if r.Method != "POST" || r.Header.Get("Authorization") != "" || !strings.Contains(string(r.Body), "client_secret="+hubspottest.DefaultClientSecret) ||
				!strings.Contains(string(r.Body), "grant_type=refresh_token") {
				t.Errorf("token request %s %q %s", r.Method, r.Header.Get("Authorization"), r.Body)
			}
		default:
			if r.Header.Get("Authorization") != "Bearer "+issued[0].AccessToken {
				t.Errorf("API request with %q", r.Header.Get("Authorization"))
			}
		}
	}
	if tokenCalls != 1 {
		t.Errorf("%d token requests", tokenCalls)
	}
}

// A given access token of unknown age is used until HubSpot rejects it;
// then one refresh, and the request is retried with the new token.
func TestStaleAccessTokenIsRefreshedOnce(t *testing.T) {
	srv := hubspottest.New()
	defer srv.Close()
	issued := 0
	c, err := hubspot.New(oauthCreds("stale-access-token"), tributary.WithBaseURL(srv.URL), fast,
		tributary.WithTokenRefresh(func(*oauth2.Token) { issued++ }))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := c.List(context.Background(), "contacts", nil); err != nil {
			t.Fatal(err)
		}
	}
	var paths []string
	for _, r := range srv.Requests() {
		paths = append(paths, r.Path)
	}
	want := "/crm/v3/objects/contacts /oauth/v1/token /crm/v3/objects/contacts /crm/v3/objects/contacts"
	if strings.Join(paths, " ") != want || issued != 1 {
		t.Errorf("requests %v, %d tokens issued", paths, issued)
	}
	// A refresh token HubSpot refuses: ErrUnauthorized, nothing leaked.
	bad := oauthCreds("")
	bad.RefreshToken = "refused-refresh-token"
	c, _ = hubspot.New(bad, tributary.WithBaseURL(srv.URL), fast)
	_, err = c.List(context.Background(), "contacts", nil)
	if !errors.Is(err, tributary.ErrUnauthorized) || strings.Contains(fmt.Sprintf("%+v", err), "refused-refresh-token") ||
		strings.Contains(err.Error(), hubspottest.DefaultClientSecret) {
		t.Errorf("bad refresh token: %v", err)
	}
}

func TestNoSecretAnywhere(t *testing.T) {
	srv := hubspottest.New()
	defer srv.Close()
	const secret = "sup3r-s3cret-private-app-token"
	var logs bytes.Buffer
	creds := hubspot.Credentials{PrivateAppToken: secret}
	c, err := hubspot.New(creds, tributary.WithBaseURL(srv.URL), fast, tributary.WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	if err != nil {
		t.Fatal(err)
	}
	_, err1 := c.List(context.Background(), "contacts", nil)
	_, err2 := c.Get(context.Background(), "owners", tributary.Params{"ownerId": "1"})
	oauth := oauthCreds("an-access-token-value")
	for _, s := range []string{fmt.Sprint(err1, err2), fmt.Sprintf("%+v %#v", err1, err2), fmt.Sprintf("%v %+v %#v", c, c, c),
		fmt.Sprintf("%v %+v %#v %s", creds, creds, creds, creds), fmt.Sprintf("%v %+v %#v", oauth, oauth, oauth), logs.String()} {
		for _, sec := range []string{secret, hubspottest.DefaultClientSecret, hubspottest.DefaultRefreshToken, "an-access-token-value"} {
			if strings.Contains(s, sec) {
				t.Fatalf("a secret leaked: %s", s)
			}
		}
	}
	if !strings.Contains(logs.String(), `"status":401`) {
		t.Errorf("expected debug lines, got %q", logs.String())
	}
}

func TestCancelMidWalkReturnsPromptly(t *testing.T) {
	srv := hubspottest.New(hubspottest.WithContacts(5000), hubspottest.WithFaults(hubspottest.Faults{Latency: 20 * time.Millisecond}))
	defer srv.Close()
	c := open(t, srv)
	for _, walk := range []func(context.Context) func(func(tributary.Record, error) bool){
		func(ctx context.Context) func(func(tributary.Record, error) bool) {
			return tributary.All(ctx, c, "contacts", tributary.Params{"limit": 100})
		},
		func(ctx context.Context) func(func(tributary.Record, error) bool) {
			return c.SearchAll(ctx, "contacts", nil)
		},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		n := 0
		var err error
		var cancelled time.Time
		for _, e := range walk(ctx) {
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
		cancel()
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
}

func TestCredentialChecks(t *testing.T) {
	cases := []map[string]any{
		{},
		{"access_token": "x"},
		{"client_id": "i", "client_secret": "s"},
		{"client_id": "i", "refresh_token": "r"},
		{"refresh_token": "r"},
		{"private_app_token": "p", "refresh_token": "r", "client_id": "i", "client_secret": "s"},
		{"private_app_token": "p", "access_token": "x"},
		{"private_app_token": 7},
		{"private_app_token": "p", "api_key": "k"},
		{"token": "t"},
	}
	for _, creds := range cases {
		_, err := hubspot.Open(creds)
		if !errors.Is(err, tributary.ErrInvalidCredentials) {
			t.Errorf("%v: err = %v, want ErrInvalidCredentials", creds, err)
		}
	}
	for _, creds := range []map[string]any{
		{"private_app_token": "p"},
		{"client_id": "i", "client_secret": "s", "refresh_token": "r"},
		{"client_id": "i", "client_secret": "s", "refresh_token": "r", "access_token": "a"},
	} {
		c, err := hubspot.Open(creds)
		if err != nil || c.Type() != "hubspot" {
			t.Errorf("%v: %v", creds, err)
		}
	}
}

// The date-versioned API: same records, date-versioned paths.
func TestDateVersionedPaths(t *testing.T) {
	srv := hubspottest.New()
	defer srv.Close()
	c := open(t, srv, hubspot.WithAPIVersion("2026-03"))
	ctx := context.Background()
	for _, op := range []tributary.Request{
		{Entity: "contacts", Action: tributary.ActionList, Params: tributary.Params{"limit": 1}},
		{Entity: "deals", Action: tributary.ActionAPISearch, Params: tributary.Params{"limit": 1}},
		{Entity: "owners", Action: tributary.ActionList},
		{Entity: "pipelines", Action: tributary.ActionList, Params: tributary.Params{"objectType": "tickets"}},
		{Entity: "schemas", Action: tributary.ActionGet, Params: tributary.Params{"objectType": "cars"}},
		{Entity: "objects", Action: tributary.ActionGet, Params: tributary.Params{"objectType": "cars", "objectId": srv.ObjectID("cars", 0)}},
	} {
		if _, err := tributary.Execute(ctx, c, op); err != nil {
			t.Errorf("%s.%s: %v", op.Entity, op.Action, err)
		}
	}
	var paths []string
	for _, r := range srv.Requests() {
		paths = append(paths, r.Path)
	}
	want := []string{"/crm/objects/2026-03/contacts", "/crm/objects/2026-03/deals/search", "/crm/owners/2026-03", "/crm/pipelines/2026-03/tickets",
		"/crm-object-schemas/2026-03/schemas/cars", "/crm/objects/2026-03/cars/" + srv.ObjectID("cars", 0)}
	if strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Errorf("paths\n%v\nwant\n%v", paths, want)
	}
	if _, err := hubspot.New(hubspot.Credentials{PrivateAppToken: "x"}, hubspot.WithAPIVersion("v4")); !errors.Is(err, tributary.ErrInvalidParams) {
		t.Errorf("v4: %v", err)
	}
}
