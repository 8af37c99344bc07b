package hubspottest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/kinds/hubspot/hubspottest"
)

type object struct {
	ID                    string                     `json:"id"`
	Properties            map[string]*string         `json:"properties"`
	PropertiesWithHistory map[string][]any           `json:"propertiesWithHistory"`
	CreatedAt             string                     `json:"createdAt"`
	UpdatedAt             string                     `json:"updatedAt"`
	Archived              bool                       `json:"archived"`
	ArchivedAt            string                     `json:"archivedAt"`
	Associations          map[string]json.RawMessage `json:"associations"`
}

type page struct {
	Total   *int     `json:"total"`
	Results []object `json:"results"`
	Paging  *struct {
		Next struct {
			After string `json:"after"`
			Link  string `json:"link"`
		} `json:"next"`
	} `json:"paging"`
}

type apiError struct {
	Status        string `json:"status"`
	Message       string `json:"message"`
	CorrelationID string `json:"correlationId"`
	Category      string `json:"category"`
	ErrorType     string `json:"errorType"`
	PolicyName    string `json:"policyName"`
}

func send(t *testing.T, method, u, token, body string) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

func get(t *testing.T, srv *hubspottest.Server, path string) (*http.Response, []byte) {
	t.Helper()
	return send(t, http.MethodGet, srv.URL+path, hubspottest.DefaultPrivateAppToken, "")
}

func decode[T any](t *testing.T, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

func wantError(t *testing.T, resp *http.Response, b []byte, status int, category string) apiError {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("status = %d, want %d; body %s", resp.StatusCode, status, b)
	}
	e := decode[apiError](t, b)
	if e.Status != "error" || e.Message == "" || e.CorrelationID == "" || e.Category != category {
		t.Fatalf("error body = %s, want status error, message, correlationId and category %s", b, category)
	}
	return e
}

func TestAuthentication(t *testing.T) {
	srv := hubspottest.New()
	defer srv.Close()
	u := srv.URL + "/crm/v3/objects/contacts"
	for _, token := range []string{"", "wrong"} {
		resp, b := send(t, http.MethodGet, u, token, "")
		wantError(t, resp, b, http.StatusUnauthorized, "INVALID_AUTHENTICATION")
	}
	for _, token := range []string{hubspottest.DefaultPrivateAppToken, hubspottest.DefaultAccessToken} {
		if resp, b := send(t, http.MethodGet, u, token, ""); resp.StatusCode != http.StatusOK {
			t.Errorf("token %s: status %d %s", token, resp.StatusCode, b)
		}
	}
}

func TestOAuthRefresh(t *testing.T) {
	srv := hubspottest.New(hubspottest.WithTokenLifetime(time.Hour))
	defer srv.Close()
	form := url.Values{
		"grant_type": {"refresh_token"}, "client_id": {hubspottest.DefaultClientID},
		"client_secret": {hubspottest.DefaultClientSecret}, "refresh_token": {hubspottest.DefaultRefreshToken},
	}
	resp, err := http.PostForm(srv.URL+"/oauth/v1/token", form)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	tok := decode[struct {
		TokenType    string `json:"token_type"`
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
		ExpiresIn    int    `json:"expires_in"`
	}](t, b)
	if resp.StatusCode != http.StatusOK || tok.TokenType != "bearer" || tok.AccessToken == "" ||
		tok.RefreshToken != hubspottest.DefaultRefreshToken || tok.ExpiresIn != 3600 {
		t.Fatalf("token response %d %s", resp.StatusCode, b)
	}
	if resp, b := send(t, http.MethodGet, srv.URL+"/crm/v3/objects/deals", tok.AccessToken, ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("issued token refused: %d %s", resp.StatusCode, b)
	}
	srv.ExpireAccessTokens()
	resp2, b2 := send(t, http.MethodGet, srv.URL+"/crm/v3/objects/deals", tok.AccessToken, "")
	wantError(t, resp2, b2, http.StatusUnauthorized, "EXPIRED_AUTHENTICATION")

	form.Set("refresh_token", "nope")
	resp, err = http.PostForm(srv.URL+"/oauth/2026-03/token", form)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "BAD_REFRESH_TOKEN") || !strings.Contains(string(b), `"error":"invalid_grant"`) {
		t.Fatalf("bad refresh token (2026-03): %d %s", resp.StatusCode, b)
	}
	// v1 answers in HubSpot's own shape, without the OAuth "error" member.
	resp, err = http.PostForm(srv.URL+"/oauth/v1/token", form)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	v1 := decode[map[string]string](t, b)
	if resp.StatusCode != http.StatusBadRequest || v1["status"] != "BAD_REFRESH_TOKEN" || v1["message"] == "" || v1["correlationId"] == "" || v1["error"] != "" {
		t.Fatalf("bad refresh token (v1): %d %s", resp.StatusCode, b)
	}
}

// WithModifiedGranularity rounds modification times up, so that runs of
// records share one; searches filter and sort on the rounded times.
func TestModifiedGranularity(t *testing.T) {
	srv := hubspottest.New(hubspottest.WithContacts(400), hubspottest.WithModifiedGranularity(24*time.Hour))
	defer srv.Close()
	resp, b := get(t, srv, "/crm/v3/objects/contacts?limit=100&properties=lastmodifieddate,hs_lastmodifieddate,createdate")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
	distinct := map[string]int{}
	for _, o := range decode[page](t, b).Results {
		mod := *o.Properties["lastmodifieddate"]
		if mod != o.UpdatedAt || mod != *o.Properties["hs_lastmodifieddate"] || !strings.HasSuffix(mod, "T00:00:00.000Z") || mod < *o.Properties["createdate"] {
			t.Fatalf("contact %s: modified %s, updatedAt %s, created %s", o.ID, mod, o.UpdatedAt, *o.Properties["createdate"])
		}
		distinct[mod]++
	}
	if len(distinct) > 60 {
		t.Errorf("%d distinct modification days among 100 contacts", len(distinct))
	}
	var day string
	for d := range distinct {
		day = d
		break
	}
	body := `{"filterGroups":[{"filters":[{"propertyName":"lastmodifieddate","operator":"EQ","value":"` + day + `"}]}],"limit":200}`
	resp, b = send(t, http.MethodPost, srv.URL+"/crm/v3/objects/contacts/search", hubspottest.DefaultPrivateAppToken, body)
	if p := decode[page](t, b); resp.StatusCode != http.StatusOK || *p.Total < distinct[day] {
		t.Errorf("search for %s: %d %s", day, resp.StatusCode, b)
	}
}

// TestListPaging walks every contact and checks HubSpot's cursor paging:
// paging.next only while more records follow, an absolute link on the
// request's host, stable ids.
func TestListPaging(t *testing.T) {
	const n = 250
	srv := hubspottest.New(hubspottest.WithContacts(n))
	defer srv.Close()
	seen := map[string]bool{}
	path := "/crm/v3/objects/contacts?limit=100&properties=email,firstname"
	pages := 0
	for {
		resp, b := get(t, srv, path)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, b)
		}
		if resp.Header.Get("X-HubSpot-RateLimit-Remaining") == "" || resp.Header.Get("X-HubSpot-RateLimit-Max") != "190" {
			t.Errorf("missing rate-limit headers: %v", resp.Header)
		}
		p := decode[page](t, b)
		pages++
		for _, o := range p.Results {
			if seen[o.ID] {
				t.Fatalf("duplicate id %s", o.ID)
			}
			seen[o.ID] = true
			if o.Properties["hs_object_id"] == nil || *o.Properties["hs_object_id"] != o.ID {
				t.Fatalf("hs_object_id of %s = %v", o.ID, o.Properties["hs_object_id"])
			}
			if _, ok := o.Properties["email"]; !ok {
				t.Fatalf("requested property email missing: %v", o.Properties)
			}
			if _, ok := o.Properties["lastname"]; ok {
				t.Fatalf("unrequested property lastname present: %v", o.Properties)
			}
		}
		if p.Paging == nil {
			break
		}
		if !strings.HasPrefix(p.Paging.Next.Link, srv.URL+"/crm/v3/objects/contacts?") {
			t.Fatalf("link %q not absolute on %s", p.Paging.Next.Link, srv.URL)
		}
		path = "/crm/v3/objects/contacts?limit=100&properties=email,firstname&after=" + url.QueryEscape(p.Paging.Next.After)
	}
	if len(seen) != n || pages != 3 {
		t.Fatalf("saw %d contacts in %d pages, want %d in 3", len(seen), pages, n)
	}
	if !seen[srv.ObjectID("contacts", 0)] || !seen[srv.ObjectID("contacts", n-1)] {
		t.Fatal("first or last contact missing")
	}
}

func TestListLimitsAndVersions(t *testing.T) {
	srv := hubspottest.New()
	defer srv.Close()
	resp, b := get(t, srv, "/crm/v3/objects/deals?limit=101")
	wantError(t, resp, b, http.StatusBadRequest, "VALIDATION_ERROR")
	resp, b = get(t, srv, "/crm/v3/objects/spaceships")
	wantError(t, resp, b, http.StatusBadRequest, "VALIDATION_ERROR")

	// The date-versioned path serves the same records; repeated and
	// comma-joined array parameters are equivalent.
	_, v3 := get(t, srv, "/crm/v3/objects/deals?limit=3&properties=amount,dealname")
	_, dated := get(t, srv, "/crm/objects/2026-03/deals?limit=3&properties=amount&properties=dealname")
	p3, pd := decode[page](t, v3), decode[page](t, dated)
	if len(p3.Results) != 3 || len(pd.Results) != 3 {
		t.Fatalf("results: %d, %d", len(p3.Results), len(pd.Results))
	}
	for i := range p3.Results {
		a, _ := json.Marshal(p3.Results[i])
		c, _ := json.Marshal(pd.Results[i])
		if !bytes.Equal(a, c) {
			t.Errorf("v3 %s != 2026-03 %s", a, c)
		}
	}
	// Property values are strings or null.
	for _, o := range p3.Results {
		if amt := o.Properties["amount"]; amt != nil {
			if _, err := strconv.ParseFloat(*amt, 64); err != nil {
				t.Errorf("amount %q is not a numeric string", *amt)
			}
		}
	}

	// propertiesWithHistory caps the page at 50.
	_, b = get(t, srv, "/crm/v3/objects/contacts?limit=100&propertiesWithHistory=lifecyclestage")
	if p := decode[page](t, b); len(p.Results) != 50 || p.Results[0].PropertiesWithHistory["lifecyclestage"] == nil {
		t.Errorf("propertiesWithHistory page: %d results", len(p.Results))
	}

	// Archived records are listed only with archived=true.
	_, b = get(t, srv, "/crm/v3/objects/tickets?archived=true")
	p := decode[page](t, b)
	if len(p.Results) != hubspottest.ArchivedPerType || !p.Results[0].Archived || p.Results[0].ArchivedAt == "" || p.Paging != nil {
		t.Errorf("archived tickets: %s", b)
	}
}

func TestGetAndAssociations(t *testing.T) {
	srv := hubspottest.New(hubspottest.WithContacts(40), hubspottest.WithCompanies(10))
	defer srv.Close()
	contact := srv.ObjectID("contacts", 13)
	company := srv.ObjectID("companies", 3)

	resp, b := get(t, srv, "/crm/v3/objects/contacts/"+contact+"?associations=companies&properties=email,associatedcompanyid")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("get: %d %s", resp.StatusCode, b)
	}
	o := decode[object](t, b)
	if o.ID != contact || o.Properties["associatedcompanyid"] == nil || *o.Properties["associatedcompanyid"] != company {
		t.Fatalf("contact %s", b)
	}
	if !strings.Contains(string(o.Associations["companies"]), `"id":"`+company+`","type":"contact_to_company"`) {
		t.Errorf("company association missing: %s", o.Associations["companies"])
	}
	// And the reverse direction.
	_, b = get(t, srv, "/crm/v3/objects/companies/"+company+"?associations=contacts")
	if !strings.Contains(string(decode[object](t, b).Associations["contacts"]), `"id":"`+contact+`"`) {
		t.Errorf("reverse association missing: %s", b)
	}

	// By email.
	_, b = get(t, srv, "/crm/v3/objects/contacts/"+contact+"?properties=email")
	email := *decode[object](t, b).Properties["email"]
	resp, b = get(t, srv, "/crm/v3/objects/contacts/"+url.PathEscape(email)+"?idProperty=email")
	if resp.StatusCode != http.StatusOK || decode[object](t, b).ID != contact {
		t.Errorf("by email %s: %d %s", email, resp.StatusCode, b)
	}

	resp, b = get(t, srv, "/crm/v3/objects/contacts/999")
	wantError(t, resp, b, http.StatusNotFound, "OBJECT_NOT_FOUND")
	resp, b = get(t, srv, "/crm/v3/objects/cars/"+srv.ObjectID("cars", 0))
	if resp.StatusCode != http.StatusOK {
		t.Errorf("custom object by name: %d %s", resp.StatusCode, b)
	}
	resp, b = get(t, srv, "/crm/v3/objects/"+hubspottest.CustomObjectTypeID+"/"+srv.ObjectID("cars", 1))
	if resp.StatusCode != http.StatusOK {
		t.Errorf("custom object by type id: %d %s", resp.StatusCode, b)
	}
}

func TestSearch(t *testing.T) {
	srv := hubspottest.New(hubspottest.WithDeals(500))
	defer srv.Close()
	u := srv.URL + "/crm/v3/objects/deals/search"
	body := func(after string) string {
		return `{"filterGroups":[{"filters":[{"propertyName":"amount","operator":"GTE","value":"50000"}]},` +
			`{"filters":[{"propertyName":"dealstage","operator":"EQ","value":"closedwon"}]}],` +
			`"sorts":[{"propertyName":"createdate","direction":"DESCENDING"}],"properties":["amount","dealstage","createdate"],"limit":200` + after + `}`
	}
	var got []object
	total := -1
	after := ""
	for {
		resp, b := send(t, http.MethodPost, u, hubspottest.DefaultPrivateAppToken, body(after))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("search: %d %s", resp.StatusCode, b)
		}
		if resp.Header.Get("X-HubSpot-RateLimit-Remaining") != "" {
			t.Error("search responses carry no rate-limit headers")
		}
		p := decode[page](t, b)
		if p.Total == nil {
			t.Fatalf("no total: %s", b)
		}
		total = *p.Total
		got = append(got, p.Results...)
		if p.Paging == nil {
			break
		}
		if p.Paging.Next.Link != "" {
			t.Errorf("search paging has no link: %s", b)
		}
		after = `,"after":"` + p.Paging.Next.After + `"`
	}
	if total == 0 || len(got) != total {
		t.Fatalf("collected %d of total %d", len(got), total)
	}
	for k, o := range got {
		amt, _ := strconv.ParseFloat(derefOr(o.Properties["amount"], "0"), 64)
		if amt < 50000 && derefOr(o.Properties["dealstage"], "") != "closedwon" {
			t.Fatalf("deal %s matches no filter group: %v", o.ID, o.Properties)
		}
		if k > 0 && *o.Properties["createdate"] > *got[k-1].Properties["createdate"] {
			t.Fatalf("not sorted by createdate descending at %d", k)
		}
	}

	for _, bad := range []string{
		`{"limit":201}`,
		`{"after":"10000"}`,
		`{"filterGroups":[{"filters":[{"propertyName":"amount","operator":"ROUGHLY","value":"1"}]}]}`,
		`{"filterGroups":[{},{},{},{},{},{}]}`,
		`{"limit":`,
	} {
		resp, b := send(t, http.MethodPost, u, hubspottest.DefaultPrivateAppToken, bad)
		wantError(t, resp, b, http.StatusBadRequest, "VALIDATION_ERROR")
	}

	// CONTAINS_TOKEN with a wildcard, and the query text.
	resp, b := send(t, http.MethodPost, srv.URL+"/crm/v3/objects/contacts/search", hubspottest.DefaultPrivateAppToken,
		`{"filterGroups":[{"filters":[{"propertyName":"email","operator":"CONTAINS_TOKEN","value":"*@example.org"}]}],"properties":["email"],"limit":100}`)
	p := decode[page](t, b)
	if resp.StatusCode != http.StatusOK || len(p.Results) == 0 {
		t.Fatalf("CONTAINS_TOKEN: %d %s", resp.StatusCode, b)
	}
	for _, o := range p.Results {
		if !strings.HasSuffix(*o.Properties["email"], "@example.org") {
			t.Errorf("email %s does not match *@example.org", *o.Properties["email"])
		}
	}
	_, b = send(t, http.MethodPost, srv.URL+"/crm/objects/2026-03/companies/search", hubspottest.DefaultPrivateAppToken, `{"query":"holdings"}`)
	if p := decode[page](t, b); p.Total == nil || *p.Total == 0 {
		t.Errorf("query holdings: %s", b)
	}
}

func derefOr(s *string, def string) string {
	if s == nil {
		return def
	}
	return *s
}

func TestFaults(t *testing.T) {
	srv := hubspottest.New(hubspottest.WithFaults(hubspottest.Faults{RateLimitFirst: 1, ServerErrorFirst: 1, RetryAfter: 2 * time.Second}))
	defer srv.Close()
	resp, b := get(t, srv, "/crm/v3/objects/contacts")
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("first: %d %s", resp.StatusCode, b)
	}
	e := decode[apiError](t, b)
	if e.Status != "error" || e.ErrorType != "RATE_LIMIT" || e.PolicyName != hubspottest.PolicyTenSecondly || e.Message == "" {
		t.Errorf("429 body %s", b)
	}
	if resp.Header.Get("Retry-After") != "2" || resp.Header.Get("X-HubSpot-RateLimit-Remaining") != "0" {
		t.Errorf("429 headers %v", resp.Header)
	}
	resp, b = get(t, srv, "/crm/v3/objects/contacts")
	if resp.StatusCode != http.StatusInternalServerError || decode[apiError](t, b).Status != "error" {
		t.Errorf("second: %d %s", resp.StatusCode, b)
	}
	if resp, _ := get(t, srv, "/crm/v3/objects/contacts"); resp.StatusCode != http.StatusOK {
		t.Errorf("third: %d", resp.StatusCode)
	}
}

func TestOwnersPipelinesSchemas(t *testing.T) {
	srv := hubspottest.New(hubspottest.WithOwners(5))
	defer srv.Close()
	var ids []string
	path := "/crm/v3/owners?limit=2"
	for {
		resp, b := get(t, srv, path)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, b)
		}
		p := decode[page](t, b)
		for _, o := range p.Results {
			ids = append(ids, o.ID)
		}
		if p.Paging == nil {
			break
		}
		path = "/crm/v3/owners?limit=2&after=" + url.QueryEscape(p.Paging.Next.After)
	}
	if len(ids) != 5 || ids[0] != srv.OwnerID(0) {
		t.Fatalf("owners %v", ids)
	}
	if resp, b := get(t, srv, "/crm/v3/owners/"+srv.OwnerID(4)); resp.StatusCode != http.StatusOK {
		t.Errorf("owner get: %d %s", resp.StatusCode, b)
	}
	resp, b := get(t, srv, "/crm/v3/owners/1")
	wantError(t, resp, b, http.StatusNotFound, "OBJECT_NOT_FOUND")

	_, b = get(t, srv, "/crm/v3/pipelines/deals")
	pipes := decode[struct {
		Results []struct {
			ID     string `json:"id"`
			Stages []struct {
				ID       string            `json:"id"`
				Metadata map[string]string `json:"metadata"`
			} `json:"stages"`
		} `json:"results"`
		Paging any `json:"paging"`
	}](t, b)
	if len(pipes.Results) != 2 || pipes.Results[0].ID != "default" || pipes.Paging != nil ||
		pipes.Results[0].Stages[0].Metadata["probability"] == "" {
		t.Errorf("deal pipelines %s", b)
	}
	if resp, b := get(t, srv, "/crm/v3/pipelines/tickets/0"); resp.StatusCode != http.StatusOK {
		t.Errorf("ticket pipeline: %d %s", resp.StatusCode, b)
	}
	resp, b = get(t, srv, "/crm/v3/pipelines/deals/nope")
	wantError(t, resp, b, http.StatusNotFound, "OBJECT_NOT_FOUND")

	for _, p := range []string{"/crm/v3/schemas", "/crm-object-schemas/v3/schemas"} {
		_, b = get(t, srv, p)
		if !strings.Contains(string(b), `"fullyQualifiedName":"`+hubspottest.CustomObjectFullyQualifiedName+`"`) {
			t.Errorf("%s: %s", p, b)
		}
	}
	if resp, b := get(t, srv, "/crm/v3/schemas/"+hubspottest.CustomObjectFullyQualifiedName); resp.StatusCode != http.StatusOK {
		t.Errorf("schema get: %d %s", resp.StatusCode, b)
	}
	resp, b = get(t, srv, "/crm/v3/schemas/p1_boats")
	wantError(t, resp, b, http.StatusNotFound, "OBJECT_NOT_FOUND")
}

// TestLargeVolume checks that a million records cost nothing up front and
// that the last page is reachable directly by cursor.
func TestLargeVolume(t *testing.T) {
	srv := hubspottest.New(hubspottest.WithContacts(1_000_000))
	defer srv.Close()
	_, b := get(t, srv, "/crm/v3/objects/contacts?limit=100&after="+srv.ObjectID("contacts", 999_950))
	p := decode[page](t, b)
	if len(p.Results) != 50 || p.Paging != nil || p.Results[49].ID != srv.ObjectID("contacts", 999_999) {
		t.Fatalf("last page: %d results, paging %v", len(p.Results), p.Paging)
	}
}
