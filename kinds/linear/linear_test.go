package linear_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/linear"
	"github.com/tributary-dev/tributary/kinds/linear/lineartest"
)

var fast = tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond, MaxRateLimitWait: time.Minute})

func open(t testing.TB, s *lineartest.Server, opts ...tributary.Option) *linear.Client {
	t.Helper()
	c, err := linear.New(linear.Credentials{APIKey: lineartest.DefaultAPIKey}, append([]tributary.Option{tributary.WithBaseURL(s.URL), fast}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type gqlBody struct {
	Query     string         `json:"query"`
	Variables map[string]any `json:"variables"`
}

// sent returns the GraphQL bodies the fake received, each checked against
// Linear's schema (the copy in testdata, not the fake's).
func sent(t *testing.T, s *lineartest.Server) []gqlBody {
	t.Helper()
	var out []gqlBody
	for _, r := range s.Requests() {
		if r.Path != "/graphql" {
			continue
		}
		var b gqlBody
		if err := json.Unmarshal(r.Body, &b); err != nil {
			t.Fatalf("body %s: %v", r.Body, err)
		}
		validQuery(t, b.Query, b.Variables)
		out = append(out, b)
	}
	return out
}

func queryOf(t *testing.T, c *linear.Client, entity string, a tributary.Action) string {
	t.Helper()
	for _, e := range c.Kind().Entities {
		if e.Name == entity {
			return e.Routes[a][0].GraphQL
		}
	}
	t.Fatalf("no %s", entity)
	return ""
}

// The exact requests Linear receives: one POST of the catalogue's query
// to /graphql, the params as its variables, the API key as the whole
// Authorization header; the next page's cursor in after.
func TestRequestsLinearReceives(t *testing.T) {
	s := lineartest.New()
	defer s.Close()
	c := open(t, s)
	ctx := context.Background()
	page, err := c.List(ctx, "issues", tributary.Params{"first": 2, "filter": map[string]any{"team": map[string]any{"key": map[string]any{"eq": "ENG"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.List(ctx, "issues", page.Next); err != nil {
		t.Fatal(err)
	}
	id, _ := page.Records[0].StringAt("id")
	if _, err := c.Get(ctx, "issues", tributary.Params{"id": id}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.APISearch(ctx, "issues", tributary.Params{"term": "billing", "first": 5}); err != nil {
		t.Fatal(err)
	}
	filter := map[string]any{"team": map[string]any{"key": map[string]any{"eq": "ENG"}}}
	want := []gqlBody{
		{queryOf(t, c, "issues", "list"), map[string]any{"first": 2.0, "filter": filter}},
		{queryOf(t, c, "issues", "list"), map[string]any{"first": 2.0, "filter": filter, "after": page.Meta["pageInfo"].(map[string]any)["endCursor"]}},
		{queryOf(t, c, "issues", "get"), map[string]any{"id": id}},
		{queryOf(t, c, "issues", "api_search"), map[string]any{"term": "billing", "first": 5.0}},
	}
	if d := cmp.Diff(want, sent(t, s)); d != "" {
		t.Errorf("bodies (-want +got):\n%s", d)
	}
	for _, r := range s.Requests() {
		if r.Method != http.MethodPost || r.Header.Get("Authorization") != lineartest.DefaultAPIKey || r.Header.Get("Content-Type") != "application/json" || len(r.Query) != 0 {
			t.Errorf("%s %s Authorization %q Content-Type %q query %v", r.Method, r.Path, r.Header.Get("Authorization"), r.Header.Get("Content-Type"), r.Query)
		}
	}
	if !strings.HasPrefix(queryOf(t, c, "issues", "list"), "query Issues($first: Int, $after: String, $filter: IssueFilter, $orderBy: PaginationOrderBy, $includeArchived: Boolean) { issues(first: $first, after: $after, filter: $filter, orderBy: $orderBy, includeArchived: $includeArchived) { nodes { id createdAt updatedAt archivedAt identifier ") {
		t.Errorf("issues query: %s", queryOf(t, c, "issues", "list"))
	}
}

// Every entity lists, gets and decodes into its record type with every
// field the record declares present in the answer; what the client sends
// is valid against Linear's schema.
func TestEveryEntity(t *testing.T) {
	s := lineartest.New()
	defer s.Close()
	c := open(t, s)
	ctx := context.Background()
	check := func(entity string, n int, err error) {
		t.Helper()
		if err != nil || n == 0 {
			t.Errorf("%s: %d records, %v", entity, n, err)
		}
	}
	for _, e := range c.Entities() {
		page, err := c.List(ctx, e.Name, tributary.Params{"first": 3})
		if err != nil || len(page.Records) == 0 {
			t.Fatalf("%s: %v", e.Name, err)
		}
		id, _ := page.Records[0].StringAt("id")
		rec, err := c.Get(ctx, e.Name, tributary.Params{"id": id})
		if err != nil || string(rec.Raw()) != string(page.Records[0].Raw()) {
			t.Errorf("%s get: %v\n%s\n%s", e.Name, err, rec.Raw(), page.Records[0].Raw())
		}
		var m map[string]json.RawMessage
		_ = json.Unmarshal(rec.Raw(), &m)
		for _, f := range e.Searchable {
			if top, _, _ := strings.Cut(f.Name, "."); m[top] == nil {
				t.Errorf("%s: no %s in %s", e.Name, top, rec.Raw())
			}
		}
	}
	n := 0
	for range c.Projects().All(ctx, linear.ListParams{First: 2}) {
		n++
	}
	check("projects", n, nil)
	for _, f := range []func() (int, error){
		func() (int, error) { p, err := c.Teams().List(ctx, linear.ListParams{}); return len(p.Items), err },
		func() (int, error) {
			p, err := c.Users().List(ctx, linear.UserListParams{IncludeDisabled: true})
			return len(p.Items), err
		},
		func() (int, error) { p, err := c.Comments().List(ctx, linear.ListParams{}); return len(p.Items), err },
		func() (int, error) {
			p, err := c.WorkflowStates().List(ctx, linear.ListParams{})
			return len(p.Items), err
		},
		func() (int, error) { p, err := c.Cycles().List(ctx, linear.ListParams{}); return len(p.Items), err },
		func() (int, error) { p, err := c.Labels().List(ctx, linear.ListParams{}); return len(p.Items), err },
		func() (int, error) {
			p, err := c.Attachments().List(ctx, linear.ListParams{})
			return len(p.Items), err
		},
	} {
		n, err := f()
		check("typed list", n, err)
	}
	is, err := c.Issues().GetID(ctx, "ENG-2")
	if err != nil || is.Identifier != "ENG-2" || is.Team.Key != "ENG" || is.State.Name == "" {
		t.Errorf("issue by identifier: %+v %v", is, err)
	}
	n = 0
	for is, err := range c.Issues().SearchAll(ctx, linear.SearchParams{Term: "billing", ListParams: linear.ListParams{First: 3}}) {
		if err != nil || !strings.Contains(strings.ToLower(is.Title), "billing") {
			t.Fatalf("%+v %v", is, err)
		}
		n++
	}
	if n < 4 {
		t.Errorf("search found %d issues over several pages", n)
	}
	sent(t, s)
}

// Paging through 10,000 issues: every live one once, 250 a page, in 39
// requests (the fake trashes every 40th issue: 9,750 remain).
func TestPagingTenThousandIssues(t *testing.T) {
	s := lineartest.New(lineartest.WithIssues(10_000))
	defer s.Close()
	c := open(t, s, linear.WithBudgetPacing(false))
	seen := map[string]bool{}
	for is, err := range c.Issues().All(context.Background(), linear.ListParams{First: linear.MaxFirst}) {
		if err != nil {
			t.Fatal(err)
		}
		if seen[is.ID] || is.ArchivedAt != nil {
			t.Fatalf("%s twice, or archived", is.ID)
		}
		seen[is.ID] = true
	}
	if len(seen) != 9_750 || len(s.Requests()) != 39 || c.Usage().Requests != 39 {
		t.Errorf("%d issues in %d requests (%d counted), want 9750 in 39", len(seen), len(s.Requests()), c.Usage().Requests)
	}
}

// Linear's errors[] become the shared errors: a missing record, refused
// credentials (401), a query or variables Linear refuses (400), a server
// error; the key never shows.
func TestErrorsAreMapped(t *testing.T) {
	s := lineartest.New()
	defer s.Close()
	ctx := context.Background()
	c := open(t, s)
	_, err := c.Get(ctx, "issues", tributary.Params{"id": "ENG-999999"})
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrNotFound) || te.StatusCode != 200 || te.Code != "INPUT_ERROR" || te.Message != "Entity not found: Issue" || te.Entity != "issues" {
		t.Errorf("not found: %#v", err)
	}
	_, err = c.List(ctx, "issues", tributary.Params{"filter": map[string]any{"nope": map[string]any{"eq": 1}}})
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) || te.StatusCode != 400 || te.Code != "GRAPHQL_VALIDATION_FAILED" || !strings.Contains(te.Message, "nope") {
		t.Errorf("refused filter: %#v", err)
	}
	bad, err := linear.New(linear.Credentials{APIKey: "lin_api_wrong_key"}, tributary.WithBaseURL(s.URL), fast)
	if err != nil {
		t.Fatal(err)
	}
	_, err = bad.List(ctx, "teams", nil)
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrUnauthorized) || te.StatusCode != 401 || te.Code != "AUTHENTICATION_ERROR" || strings.Contains(err.Error(), "lin_api_wrong_key") {
		t.Errorf("refused key: %#v", err)
	}
	if err := bad.CheckCredentials(ctx); !errors.Is(err, tributary.ErrUnauthorized) {
		t.Errorf("check: %v", err)
	}
	if err := c.CheckCredentials(ctx); err != nil {
		t.Errorf("check: %v", err)
	}
	s.SetFaults(lineartest.Faults{ServerErrorFirst: 5})
	_, err = c.List(ctx, "teams", nil)
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrServer) || te.Code != "INTERNAL_SERVER_ERROR" || !te.Retryable {
		t.Errorf("server error: %#v", err)
	}
	// Invalid params never reach Linear.
	s.ResetRequests()
	for _, p := range []tributary.Params{{"first": 251}, {"orderBy": "title"}, {"nope": 1}} {
		if _, err := c.List(ctx, "issues", p); !errors.Is(err, tributary.ErrInvalidParams) {
			t.Errorf("%v: %v", p, err)
		}
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("%d requests for invalid params", n)
	}
}

// Credentials: an API key or OAuth tokens, never both; the secrets never
// printed.
func TestCredentials(t *testing.T) {
	for _, c := range []struct {
		m    map[string]any
		want string
	}{
		{map[string]any{"api_key": "k", "access_token": "a"}, "not both"},
		{map[string]any{}, "give api_key"},
		{map[string]any{"refresh_token": "r"}, "needs client_id and client_secret"},
		{map[string]any{"client_id": "i"}, "OAuth needs access_token"},
		{map[string]any{"apikey": "k"}, `unknown credential field "apikey"; did you mean "api_key"?`},
		{map[string]any{"api_key": 3}, `"api_key" must be a string`},
	} {
		_, err := linear.CredentialsFromMap(c.m)
		if !errors.Is(err, tributary.ErrInvalidCredentials) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v", c.m, err)
		}
	}
	for _, m := range []map[string]any{{"api_key": "k"}, {"access_token": "a"}, {"refresh_token": "r", "client_id": "i", "client_secret": "s"}} {
		if _, err := linear.CredentialsFromMap(m); err != nil {
			t.Errorf("%v: %v", m, err)
		}
	}
	cr := linear.Credentials{APIKey: "lin_api_SECRET", AccessToken: "SECRET2", RefreshToken: "SECRET3", ClientID: "id", ClientSecret: "SECRET4"}
	if s := fmt.Sprintf("%v %+v %#v %s", cr, cr, cr, cr); strings.Contains(s, "SECRET") {
		t.Errorf("printed: %s", s)
	}
}

// OAuth: the token as Bearer; refused once expired, refreshed at Linear's
// token endpoint (following WithBaseURL), and the rotated refresh token
// handed to WithTokenRefresh.
func TestOAuthRefreshes(t *testing.T) {
	s := lineartest.New()
	defer s.Close()
	var got []*oauth2.Token
	c, err := linear.New(linear.Credentials{AccessToken: "stale", RefreshToken: lineartest.DefaultRefreshToken,
		ClientID: lineartest.DefaultClientID, ClientSecret: lineartest.DefaultClientSecret},
		tributary.WithBaseURL(s.URL), fast, tributary.WithTokenRefresh(func(tok *oauth2.Token) { got = append(got, tok) }))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.List(context.Background(), "teams", nil); err != nil {
		t.Fatal(err)
	}
	var auths []string
	for _, r := range s.Requests() {
		auths = append(auths, r.Method+" "+r.Path+" "+r.Header.Get("Authorization"))
	}
	want := []string{"POST /graphql Bearer stale", "POST /oauth/token ", "POST /graphql Bearer lin_oauth_fake_access_1"}
	if d := cmp.Diff(want, auths); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
	if len(got) != 1 || got[0].RefreshToken != "lin_refresh_fake_1" {
		t.Errorf("refreshed tokens %+v", got)
	}
}

// The OAuth app: Linear's URLs, comma-separated scopes, PKCE.
func TestOAuthApp(t *testing.T) {
	app := linear.OAuthApp()
	if app.AuthURL != "https://linear.app/oauth/authorize" || app.TokenURL != "https://api.linear.app/oauth/token" || app.ScopeSeparator != "," || !app.PKCE || !app.Expires {
		t.Errorf("%+v", app)
	}
}

// Linear rotates refresh tokens: each refresh spends the one it used. Two
// connectors opened with the same OAuth credentials, as two processes of
// a service would, share a token store (tributary.WithTokenStore): round
// after round of expired access tokens, every call succeeds, each round
// costs one refresh and no refresh token is presented twice. Without the
// store, the second connector presents the refresh token the first spent,
// and Linear refuses it.
func TestRotatingRefreshTokensAcrossProcesses(t *testing.T) {
	const rounds = 3
	run := func(t *testing.T, store tributary.TokenStore) (*lineartest.Server, []error) {
		s := lineartest.New()
		t.Cleanup(s.Close)
		var errs []error
		var conns []*linear.Client
		for range 2 {
			c, err := linear.New(linear.Credentials{RefreshToken: lineartest.DefaultRefreshToken,
				ClientID: lineartest.DefaultClientID, ClientSecret: lineartest.DefaultClientSecret},
				tributary.WithBaseURL(s.URL), fast, tributary.WithTokenStore(store))
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
		}
		for range rounds {
			for _, c := range conns {
				if _, err := c.List(context.Background(), "teams", nil); err != nil {
					errs = append(errs, err)
				}
			}
			s.ExpireAccessTokens()
		}
		return s, errs
	}
	t.Run("shared store", func(t *testing.T) {
		s, errs := run(t, &fakeserver.TokenStore{})
		if len(errs) > 0 {
			t.Fatalf("%d calls failed, first: %v", len(errs), errs[0])
		}
		if err := s.CheckRotatedRefreshes("/oauth/token", rounds); err != nil {
			t.Error(err)
		}
	})
	t.Run("without a store the second connector fails", func(t *testing.T) {
		_, errs := run(t, nil)
		if len(errs) == 0 {
			t.Fatal("no call failed: the test cannot tell a shared refresh from two")
		}
		if !errors.Is(errs[0], tributary.ErrUnauthorized) {
			t.Errorf("failure %v, want ErrUnauthorized", errs[0])
		}
		if !strings.Contains(errs[0].Error(), "invalid_grant") {
			t.Errorf("failure %v, want Linear's invalid_grant", errs[0])
		}
	})
}
