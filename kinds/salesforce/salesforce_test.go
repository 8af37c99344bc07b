package salesforce_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/oauth2"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/salesforce"
	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var fast = tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, MaxRateLimitWait: 5 * time.Second})

// creds are the fake's default credentials, with its current access token.
func creds() salesforce.Credentials {
	return salesforce.Credentials{ClientID: salesforcetest.DefaultClientID, ClientSecret: salesforcetest.DefaultClientSecret,
		RefreshToken: salesforcetest.DefaultRefreshToken, AccessToken: salesforcetest.DefaultAccessToken}
}

func open(t *testing.T, srv *salesforcetest.Server, opts ...tributary.Option) *salesforce.Client {
	t.Helper()
	c, err := salesforce.New(creds(), append([]tributary.Option{tributary.WithBaseURL(srv.URL), fast}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// apiRequests returns the fake's data requests (the token endpoint left out).
func apiRequests(srv *salesforcetest.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		if strings.HasPrefix(r.Path, "/services/data/") {
			out = append(out, r.Path)
		}
	}
	return out
}

func wantErr(t *testing.T, err error, sentinel error, param, code string) *tributary.Error {
	t.Helper()
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, sentinel) {
		t.Fatalf("err = %v, want %v", err, sentinel)
	}
	if te.Param != param || te.Code != code {
		t.Fatalf("err = %v: param %q code %q, want %q %q", err, te.Param, te.Code, param, code)
	}
	return te
}

// A SOQL list pages through nextRecordsUrl: 1,000 accounts come as five
// pages of 200 (the client asks for batchSize=200 even though this fake,
// like Salesforce, would send 2,000), and All delivers every record once,
// in order.
func TestAllPagesThroughNextRecordsURL(t *testing.T) {
	const n = 1000
	srv := salesforcetest.New(salesforcetest.WithAccounts(n), salesforcetest.WithBatchSize(2000))
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	q := salesforce.QueryParams{Q: "SELECT Id, Name, Industry FROM Account ORDER BY CreatedDate"}

	i := 0
	for a, err := range c.Accounts().All(ctx, q) {
		if err != nil {
			t.Fatalf("after %d accounts: %v", i, err)
		}
		if want := salesforcetest.RecordID("Account", i); a.ID != want || a.Name == "" || a.Attributes.Type != "Account" {
			t.Fatalf("account %d: id %s name %q type %q, want id %s", i, a.ID, a.Name, a.Attributes.Type, want)
		}
		i++
	}
	if i != n {
		t.Fatalf("walked %d accounts, want %d", i, n)
	}
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	for k, r := range reqs {
		if got := r.Header.Get("Sforce-Query-Options"); got != "batchSize=200" {
			t.Errorf("request %d: Sforce-Query-Options %q", k, got)
		}
		if r.Header.Get("Authorization") != "Bearer "+salesforcetest.DefaultAccessToken {
			t.Errorf("request %d without the bearer token", k)
		}
		switch {
		case k == 0 && (r.Path != "/services/data/v67.0/query" || r.Query.Get("q") != q.Q):
			t.Errorf("first request %s %v", r.Path, r.Query)
		case k > 0 && (!strings.HasPrefix(r.Path, "/services/data/v67.0/query/") || len(r.Query) != 0 ||
			!strings.HasSuffix(r.Path, fmt.Sprintf("-%d", 200*k))):
			t.Errorf("request %d: %s %v, want the nextRecordsUrl of page %d", k, r.Path, r.Query, k)
		}
	}

	// The same walk page by page: five pages of 200.
	pager := c.Pager("accounts", tributary.ActionList, tributary.Params{"q": q.Q})
	var sizes []int
	for pager.More() {
		page, err := pager.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if page != nil {
			sizes = append(sizes, len(page.Items))
		}
	}
	if fmt.Sprint(sizes) != "[200 200 200 200 200]" {
		t.Errorf("page sizes %v", sizes)
	}
}

// Meta and Next as the contract describes them: totalSize, done,
// nextRecordsUrl; Next carries q and next_records_url; a query with its own
// LIMIT is one page.
func TestListMetaAndNext(t *testing.T) {
	srv := salesforcetest.New(salesforcetest.WithContacts(450))
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	const q = "SELECT Id, Name, Email FROM Contact"
	page, err := c.List(ctx, "contacts", tributary.Params{"q": q})
	if err != nil {
		t.Fatal(err)
	}
	next, _ := page.Meta["nextRecordsUrl"].(string)
	if len(page.Records) != 200 || page.Meta["totalSize"] != int64(450) || page.Meta["done"] != false || !strings.HasPrefix(next, "/services/data/v67.0/query/") {
		t.Fatalf("%d records, meta %v", len(page.Records), page.Meta)
	}
	if len(page.Next) != 2 || page.Next["q"] != q || page.Next["next_records_url"] != next {
		t.Fatalf("next %v", page.Next)
	}
	second, err := c.List(ctx, "contacts", page.Next)
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := second.Records[0].StringAt("Id"); id != salesforcetest.RecordID("Contact", 200) {
		t.Errorf("second page starts at %s", id)
	}

	limited, err := c.List(ctx, "contacts", tributary.Params{"q": q + " LIMIT 50"})
	if err != nil {
		t.Fatal(err)
	}
	if len(limited.Records) != 50 || limited.Next != nil || limited.Meta["done"] != true || limited.Meta["nextRecordsUrl"] != nil {
		t.Errorf("LIMIT 50: %d records, next %v, meta %v", len(limited.Records), limited.Next, limited.Meta)
	}
}

// The query entity runs any SOQL, relationship paths included.
func TestQueryEntity(t *testing.T) {
	srv := salesforcetest.New(salesforcetest.WithOpportunities(30))
	defer srv.Close()
	c := open(t, srv)
	page, err := c.Query().List(context.Background(), salesforce.QueryParams{Q: "SELECT Id, Name, Owner.Name FROM Opportunity LIMIT 5"})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 5 {
		t.Fatalf("%d rows", len(page.Items))
	}
	row := page.Items[0]
	if row.Attributes.Type != "Opportunity" || row.ID() != salesforcetest.RecordID("Opportunity", 0) || !bytes.Contains(row.Fields["Owner"], []byte(`"User"`)) {
		t.Errorf("row %+v", row)
	}
}

// next_records_url is followed only on the instance, and only when it is a
// query locator; nothing is sent otherwise.
func TestNextRecordsURLIsChecked(t *testing.T) {
	srv := salesforcetest.New()
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	for _, u := range []string{
		"https://attacker.example/services/data/v67.0/query/01gRO0000000001AAA-200",
		"//attacker.example/services/data/v67.0/query/01gRO0000000001AAA-200",
	} {
		_, err := c.List(ctx, "accounts", tributary.Params{"q": "SELECT Id FROM Account", "next_records_url": u})
		wantErr(t, err, tributary.ErrInvalidParams, "next_records_url", "")
	}
	for _, u := range []string{"/services/data/v67.0/sobjects/User/005RO0000000001YAA", "/services/data/v67.0/query/x-200?q=1", "not a url at all"} {
		_, err := c.List(ctx, "accounts", tributary.Params{"q": "SELECT Id FROM Account", "next_records_url": u})
		wantErr(t, err, tributary.ErrInvalidParams, "next_records_url", "")
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

// Ids are checked against their object's key prefix on every path (generic
// Get, Execute, typed handles, downloads) before anything is sent; the
// 15-character form is accepted.
func TestIDPrefixIsChecked(t *testing.T) {
	srv := salesforcetest.New()
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	contact := salesforcetest.RecordID("Contact", 3)

	_, err := c.Get(ctx, "accounts", tributary.Params{"id": contact})
	te := wantErr(t, err, tributary.ErrInvalidParams, "id", "")
	if !strings.Contains(te.Message, "001") || !strings.Contains(te.Message, "Contact") {
		t.Errorf("message %q", te.Message)
	}
	_, err = tributary.Execute(ctx, c, tributary.Request{Entity: "accounts", Action: tributary.ActionGet, Params: tributary.Params{"id": contact}})
	wantErr(t, err, tributary.ErrInvalidParams, "id", "")
	_, err = c.Accounts().Get(ctx, contact)
	wantErr(t, err, tributary.ErrInvalidParams, "id", "")
	_, err = c.Leads().Get(ctx, "00Qshort")
	wantErr(t, err, tributary.ErrInvalidParams, "id", "")
	_, err = c.Attachments().Download(ctx, salesforcetest.RecordID("ContentVersion", 0))
	wantErr(t, err, tributary.ErrInvalidParams, "id", "")
	_, err = tributary.Execute(ctx, c, tributary.Request{Entity: "content_versions", Action: tributary.ActionDownload, Params: tributary.Params{"id": contact}})
	wantErr(t, err, tributary.ErrInvalidParams, "id", "")
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}

	id := salesforcetest.RecordID("Account", 7)
	for _, given := range []string{id, id[:15]} {
		a, err := c.Accounts().Get(ctx, given)
		if err != nil || a.ID != id || a.Name == "" {
			t.Fatalf("get %s: %v %+v", given, err, a.ID)
		}
	}
	a, err := c.Accounts().Get(ctx, id, "Name", "Industry")
	if err != nil || a.Name == "" || a.Industry == "" || a.Phone != "" || a.BillingCity != "" {
		t.Fatalf("get with fields: %v %+v", err, a)
	}
	last := srv.Requests()[len(srv.Requests())-1]
	if last.Path != "/services/data/v67.0/sobjects/Account/"+id || last.Query.Get("fields") != "Name,Industry" {
		t.Errorf("get sent %s %v", last.Path, last.Query)
	}
}

// An entity's list reads its own object, an entity's api_search returns
// its own object; the query entity takes anything.
func TestQueriesReadTheEntitysObject(t *testing.T) {
	srv := salesforcetest.New()
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	_, err := c.List(ctx, "accounts", tributary.Params{"q": "SELECT Id FROM Contact"})
	wantErr(t, err, tributary.ErrInvalidParams, "q", "")
	for _, err := range tributary.All(ctx, c, "accounts", tributary.Params{"q": "SELECT Id FROM Lead"}) {
		wantErr(t, err, tributary.ErrInvalidParams, "q", "")
	}
	for _, err := range c.Tasks().All(ctx, salesforce.QueryParams{Q: "SELECT Id FROM Event"}) {
		wantErr(t, err, tributary.ErrInvalidParams, "q", "")
	}
	_, err = c.APISearch(ctx, "contacts", tributary.Params{"q": "FIND {Acme} RETURNING Account(Id)"})
	wantErr(t, err, tributary.ErrInvalidParams, "q", "")
	_, err = c.Contacts().APISearch(ctx, "FIND {Acme}")
	wantErr(t, err, tributary.ErrInvalidParams, "q", "")
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
	if _, err := c.List(ctx, "query", tributary.Params{"q": "SELECT Id FROM Contact LIMIT 1"}); err != nil {
		t.Fatal(err)
	}
}

func TestAPISearch(t *testing.T) {
	srv := salesforcetest.New()
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	accounts, err := c.Accounts().APISearch(ctx, "FIND {Acme} IN NAME FIELDS RETURNING Account(Id, Name, Industry)")
	if err != nil {
		t.Fatal(err)
	}
	if len(accounts) == 0 {
		t.Fatal("no accounts found")
	}
	for _, a := range accounts {
		if a.Attributes.Type != "Account" || !strings.HasPrefix(a.ID, "001") || !strings.Contains(a.Name, "Acme") {
			t.Fatalf("search record %+v", a)
		}
	}
	r := srv.Requests()[0]
	if r.Path != "/services/data/v67.0/search" || !strings.HasPrefix(r.Query.Get("q"), "FIND {Acme}") {
		t.Errorf("search sent %s %v", r.Path, r.Query)
	}
	// Execute reaches the same route and returns the same records.
	res, err := tributary.Execute(ctx, c, tributary.Request{Entity: "accounts", Action: tributary.ActionAPISearch,
		Params: tributary.Params{"q": "FIND {Acme} IN NAME FIELDS RETURNING Account(Id, Name, Industry)"}})
	if err != nil || len(res.Records) != len(accounts) || res.Next != nil {
		t.Fatalf("execute: %v, %d records", err, len(res.Records))
	}
}

// VersionData lives on the instance and needs the token; a download cut
// every 64 KiB is resumed with Range and If-Range on Last-Modified until
// every byte arrived once; a range is served as asked.
func TestDownloadResumesWithLastModified(t *testing.T) {
	const size = 300_000
	srv := salesforcetest.New(salesforcetest.WithContentVersions(3), salesforcetest.WithAttachments(3),
		salesforcetest.WithFileSize(size), salesforcetest.WithFileCutEvery(64<<10))
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	id := salesforcetest.RecordID("ContentVersion", 1)
	want, ok := srv.FileContent(id)
	if !ok || len(want) != size {
		t.Fatalf("the fake has no %d-byte file %s", size, id)
	}
	s, err := c.ContentVersions().Download(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(s)
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	if sha256.Sum256(got) != sha256.Sum256(want) || s.Size != size {
		t.Fatalf("downloaded %d bytes (size %d), want %d with the same SHA-256", len(got), s.Size, size)
	}
	cv, err := c.ContentVersions().Get(ctx, id, "Checksum", "ContentSize")
	if sum := md5.Sum(got); err != nil || cv.Checksum != hex.EncodeToString(sum[:]) || cv.ContentSize != size {
		t.Errorf("Checksum %q ContentSize %d (%v) do not match the bytes", cv.Checksum, cv.ContentSize, err)
	}
	var blobs, resumed int
	for _, r := range srv.Requests() {
		if !strings.HasSuffix(r.Path, "/VersionData") {
			continue
		}
		blobs++
		if r.Path != "/services/data/v67.0/sobjects/ContentVersion/"+id+"/VersionData" || r.Header.Get("Authorization") == "" {
			t.Errorf("blob request %s without credentials", r.Path)
		}
		if r.Header.Get("Range") != "" {
			resumed++
			if _, err := http.ParseTime(r.Header.Get("If-Range")); err != nil {
				t.Errorf("resumed with If-Range %q, want the Last-Modified date", r.Header.Get("If-Range"))
			}
		}
	}
	if blobs < 5 || resumed != blobs-1 {
		t.Errorf("%d blob requests, %d resumed: the cuts were not resumed", blobs, resumed)
	}

	att := salesforcetest.RecordID("Attachment", 2)
	wantAtt, _ := srv.FileContent(att)
	s, err = c.Attachments().DownloadRange(ctx, att, "bytes=100-199")
	if err != nil {
		t.Fatal(err)
	}
	part, _ := io.ReadAll(s)
	s.Close()
	if !bytes.Equal(part, wantAtt[100:200]) || s.Range == nil || s.Range.First != 100 || s.Range.Last != 199 {
		t.Errorf("range: %d bytes, served %+v", len(part), s.Range)
	}
}

// The exhausted daily allocation is a 403 REQUEST_LIMIT_EXCEEDED: a rate
// limit, sent once and not retried.
func TestRequestLimitExceededIsNotRetried(t *testing.T) {
	srv := salesforcetest.New(salesforcetest.WithFaults(salesforcetest.Faults{RateLimitFirst: 1}))
	defer srv.Close()
	c := open(t, srv)
	_, err := c.List(context.Background(), "leads", tributary.Params{"q": "SELECT Id FROM Lead"})
	te := wantErr(t, err, tributary.ErrRateLimited, "", "REQUEST_LIMIT_EXCEEDED")
	if te.StatusCode != 403 || te.RetryAfter != 0 || te.Message != "TotalRequests Limit exceeded." {
		t.Errorf("error %+v", te)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}

	quota := salesforcetest.New(salesforcetest.WithQuotaExhausted())
	defer quota.Close()
	_, err = open(t, quota).Get(context.Background(), "accounts", tributary.Params{"id": salesforcetest.RecordID("Account", 0)})
	wantErr(t, err, tributary.ErrRateLimited, "", "REQUEST_LIMIT_EXCEEDED")
}

func TestServerErrorsAndCutsAreRetried(t *testing.T) {
	srv := salesforcetest.New(salesforcetest.WithFaults(salesforcetest.Faults{ServerErrorFirst: 2, CutFirst: 1}))
	defer srv.Close()
	c := open(t, srv)
	page, err := c.List(context.Background(), "cases", tributary.Params{"q": "SELECT Id, Subject FROM Case"})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) != 150 || len(srv.Requests()) != 4 {
		t.Errorf("%d records after %d requests", len(page.Records), len(srv.Requests()))
	}
}

func TestErrorsFromSalesforceBodies(t *testing.T) {
	srv := salesforcetest.New(salesforcetest.WithContacts(10))
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	_, err := c.Contacts().Get(ctx, salesforcetest.RecordID("Contact", 10))
	te := wantErr(t, err, tributary.ErrNotFound, "", "NOT_FOUND")
	if te.StatusCode != 404 || te.Message == "" {
		t.Errorf("404: %+v", te)
	}
	_, err = c.Contacts().Get(ctx, salesforcetest.RecordID("Contact", 1), "Id", "Revenue")
	te = wantErr(t, err, tributary.ErrInvalidParams, "", "INVALID_FIELD")
	if !strings.Contains(te.Message, "Revenue") {
		t.Errorf("400: %+v", te)
	}
	_, err = c.List(ctx, "contacts", tributary.Params{"q": "SELECT Id FROM Contact WHERE"})
	wantErr(t, err, tributary.ErrInvalidParams, "", "MALFORMED_QUERY")
}

// tokenServer is a login host: it answers refresh-token grants with token
// and instance, and counts them.
type tokenServer struct {
	*httptest.Server
	mu       sync.Mutex
	forms    []string
	token    string
	instance string
}

func newTokenServer(t *testing.T, token, instance string) *tokenServer {
	ts := &tokenServer{token: token, instance: instance}
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		ts.mu.Lock()
		ts.forms = append(ts.forms, r.Method+" "+r.URL.Path+" "+r.PostForm.Encode())
		ts.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":%q,"instance_url":%q,"id":"https://login.example/id/00D/005","token_type":"Bearer","issued_at":"1767225600000","signature":"c2ln"}`, ts.token, ts.instance)
	}))
	t.Cleanup(ts.Close)
	return ts
}

func (ts *tokenServer) requests() []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]string(nil), ts.forms...)
}

// Without an instance, the connector refreshes at the login host and sends
// every request to the instance_url of the token response, with the new
// token; with an instance and an access token, it refreshes nothing.
func TestInstanceURLComesFromTheTokenResponse(t *testing.T) {
	srv := salesforcetest.New(salesforcetest.WithAccounts(3))
	defer srv.Close()
	login := newTokenServer(t, salesforcetest.DefaultAccessToken, srv.URL)
	c, err := salesforce.Open(map[string]any{
		"client_id": salesforcetest.DefaultClientID, "client_secret": salesforcetest.DefaultClientSecret,
		"refresh_token": salesforcetest.DefaultRefreshToken, "login_url": login.URL,
	}, fast)
	if err != nil {
		t.Fatal(err)
	}
	page, err := c.List(context.Background(), "accounts", tributary.Params{"q": "SELECT Id FROM Account"})
	if err != nil || len(page.Records) != 3 {
		t.Fatalf("%v, %v", err, page)
	}
	forms := login.requests()
	want := "POST /services/oauth2/token client_id=" + salesforcetest.DefaultClientID + "&client_secret=" + salesforcetest.DefaultClientSecret +
		"&grant_type=refresh_token&refresh_token=" + salesforcetest.DefaultRefreshToken
	if len(forms) != 1 || forms[0] != want {
		t.Fatalf("token requests %q, want [%q]", forms, want)
	}
	if got := c.(*salesforce.Client).BaseURL(); got != srv.URL {
		t.Errorf("base URL %s, want the instance %s", got, srv.URL)
	}
	if n := len(apiRequests(srv)); n != 1 {
		t.Errorf("%d requests reached the instance", n)
	}

	c2, err := salesforce.New(salesforce.Credentials{ClientID: "id", ClientSecret: "secret", RefreshToken: "refresh",
		AccessToken: salesforcetest.DefaultAccessToken, InstanceURL: srv.URL, LoginURL: login.URL}, fast)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c2.List(context.Background(), "accounts", tributary.Params{"q": "SELECT Id FROM Account"}); err != nil {
		t.Fatal(err)
	}
	if n := len(login.requests()); n != 1 {
		t.Errorf("a current access token was refreshed (%d token requests)", n)
	}
}

// Salesforce tokens carry no expiry: when the session ends, the 401 leads
// to one refresh and the request is retried; concurrent requests share the
// refresh and the caller hears of the new token.
func TestExpiredSessionIsRefreshed(t *testing.T) {
	srv := salesforcetest.New()
	defer srv.Close()
	var mu sync.Mutex
	var refreshed []*oauth2.Token
	c := open(t, srv, tributary.WithTokenRefresh(func(tok *oauth2.Token) {
		mu.Lock()
		refreshed = append(refreshed, tok)
		mu.Unlock()
	}))
	ctx := context.Background()
	q := tributary.Params{"q": "SELECT Id FROM Account LIMIT 10"}
	if _, err := c.List(ctx, "accounts", q); err != nil {
		t.Fatal(err)
	}
	srv.ExpireAccessToken()
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for range 6 {
		wg.Go(func() {
			_, err := c.List(ctx, "accounts", q)
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
	tokens := 0
	for _, r := range srv.Requests() {
		if r.Path == "/services/oauth2/token" {
			tokens++
			if r.Header.Get("Authorization") != "" || !strings.Contains(string(r.Body), "client_secret=") {
				t.Errorf("token request: Authorization %q, body without client_secret", r.Header.Get("Authorization"))
			}
		}
	}
	if tokens != 1 || len(refreshed) != 1 || refreshed[0].AccessToken != srv.AccessToken() || refreshed[0].RefreshToken != salesforcetest.DefaultRefreshToken {
		t.Fatalf("%d token requests, %d refreshes; want one with the fake's new token", tokens, len(refreshed))
	}
}

// Credentials that cannot work never loop: a refused refresh token, and a
// fresh token the API rejects, each end in ErrUnauthorized.
func TestBadCredentialsDoNotLoop(t *testing.T) {
	srv := salesforcetest.New()
	defer srv.Close()
	srv.ExpireAccessToken()
	cr := creds()
	cr.RefreshToken = "revoked-refresh-token"
	c, err := salesforce.New(cr, tributary.WithBaseURL(srv.URL), fast)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.List(context.Background(), "accounts", tributary.Params{"q": "SELECT Id FROM Account"})
	te := wantErr(t, err, tributary.ErrUnauthorized, "", "")
	if !strings.Contains(te.Message, "invalid_grant") {
		t.Errorf("message %q", te.Message)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want the 401 and one refresh", n)
	}

	login := newTokenServer(t, "token-the-api-refuses", srv.URL)
	c2, err := salesforce.New(salesforce.Credentials{ClientID: "id", ClientSecret: "secret", RefreshToken: "refresh", LoginURL: login.URL}, fast)
	if err != nil {
		t.Fatal(err)
	}
	srv.ResetRequests()
	_, err = c2.List(context.Background(), "accounts", tributary.Params{"q": "SELECT Id FROM Account"})
	wantErr(t, err, tributary.ErrUnauthorized, "", "INVALID_SESSION_ID")
	if len(login.requests()) != 1 || len(srv.Requests()) != 1 {
		t.Errorf("%d refreshes and %d API requests, want 1 and 1", len(login.requests()), len(srv.Requests()))
	}
}

// recorder answers token requests (POST) with a token for the instance
// acme.my.salesforce.com, and every other request with an empty query
// result; it records the URLs.
type recorder struct {
	mu       sync.Mutex
	urls     []string
	instance string // "" for https://acme.my.salesforce.com
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.urls = append(r.urls, req.Method+" "+req.URL.String())
	r.mu.Unlock()
	body := `{"totalSize":0,"done":true,"records":[]}`
	if req.Method == http.MethodPost {
		instance := r.instance
		if instance == "" {
			instance = "https://acme.my.salesforce.com"
		}
		body = `{"access_token":"fresh","instance_url":"` + instance + `","token_type":"Bearer"}`
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), Request: req}, nil
}

// The login host follows the credentials (sandbox, login_url) or the
// options (WithSandbox, WithLoginURL, WithTokenURL); the API version
// follows WithAPIVersion.
func TestLoginHostAndAPIVersion(t *testing.T) {
	base := salesforce.Credentials{ClientID: "id", ClientSecret: "secret", RefreshToken: "refresh"}
	sandbox, mydomain := base, base
	sandbox.Sandbox = true
	mydomain.LoginURL = "https://acme.my.salesforce.com"
	cases := []struct {
		creds      salesforce.Credentials
		opts       []tributary.Option
		token, api string
	}{
		{base, nil, "https://login.salesforce.com/services/oauth2/token", "v67.0"},
		{base, []tributary.Option{salesforce.WithSandbox()}, "https://test.salesforce.com/services/oauth2/token", "v67.0"},
		{sandbox, []tributary.Option{salesforce.WithAPIVersion("66.0")}, "https://test.salesforce.com/services/oauth2/token", "v66.0"},
		{mydomain, []tributary.Option{salesforce.WithSandbox()}, "https://acme.my.salesforce.com/services/oauth2/token", "v67.0"},
		{base, []tributary.Option{salesforce.WithLoginURL("https://login.example.com"), salesforce.WithAPIVersion("v68.0")}, "https://login.example.com/services/oauth2/token", "v68.0"},
		{sandbox, []tributary.Option{tributary.WithTokenURL("https://auth.example.com/token")}, "https://auth.example.com/token", "v67.0"},
	}
	for k, tc := range cases {
		rec := &recorder{}
		c, err := salesforce.New(tc.creds, append(tc.opts, tributary.WithHTTPClient(&http.Client{Transport: rec}))...)
		if err != nil {
			t.Fatalf("case %d: %v", k, err)
		}
		if _, err := c.List(context.Background(), "query", tributary.Params{"q": "SELECT Id FROM Account"}); err != nil {
			t.Fatalf("case %d: %v", k, err)
		}
		want := []string{"POST " + tc.token, "GET https://acme.my.salesforce.com/services/data/" + tc.api + "/query?q=SELECT%20Id%20FROM%20Account"}
		if fmt.Sprint(rec.urls) != fmt.Sprint(want) || c.APIVersion() != tc.api {
			t.Errorf("case %d: sent %q, want %q", k, rec.urls, want)
		}
	}
	// An https login host must not send the connector to a plain-http
	// instance.
	rec := &recorder{instance: "http://acme.my.salesforce.com"}
	c, err := salesforce.New(base, tributary.WithHTTPClient(&http.Client{Transport: rec}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.List(context.Background(), "query", tributary.Params{"q": "SELECT Id FROM Account"})
	if !errors.Is(err, tributary.ErrUnauthorized) || !strings.Contains(err.Error(), "not https") || len(rec.urls) != 1 {
		t.Errorf("http instance: %v after %q", err, rec.urls)
	}
	for _, v := range []string{"67", "v67.1", "latest"} {
		if _, err := salesforce.New(base, salesforce.WithAPIVersion(v)); !errors.Is(err, tributary.ErrInvalidParams) {
			t.Errorf("version %q: %v", v, err)
		}
	}
}

func TestNoSecretAnywhere(t *testing.T) {
	srv := salesforcetest.New()
	defer srv.Close()
	srv.ExpireAccessToken()
	const secret, refresh, access = "sup3r-s3cret-client-secret", "r3fresh-t0ken-value", "acc3ss-t0ken-value"
	var logs bytes.Buffer
	cr := salesforce.Credentials{ClientID: salesforcetest.DefaultClientID, ClientSecret: secret, RefreshToken: refresh, AccessToken: access}
	c, err := salesforce.New(cr, tributary.WithBaseURL(srv.URL), fast,
		tributary.WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	if err != nil {
		t.Fatal(err)
	}
	_, err1 := c.List(context.Background(), "accounts", tributary.Params{"q": "SELECT Id FROM Account"})
	_, err2 := c.Get(context.Background(), "accounts", tributary.Params{"id": salesforcetest.RecordID("Account", 1)})
	if !errors.Is(err1, tributary.ErrUnauthorized) || !errors.Is(err2, tributary.ErrUnauthorized) {
		t.Fatalf("errors %v / %v", err1, err2)
	}
	for _, s := range []string{fmt.Sprint(err1, err2), fmt.Sprintf("%+v %#v", err1, err2), fmt.Sprintf("%v %+v %#v", c, c, c),
		fmt.Sprintf("%v %+v %#v %s", cr, cr, cr, cr), logs.String()} {
		for _, sec := range []string{secret, refresh, access} {
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
	srv := salesforcetest.New(salesforcetest.WithAccounts(5000), salesforcetest.WithFaults(salesforcetest.Faults{Latency: 20 * time.Millisecond}))
	defer srv.Close()
	c := open(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	var err error
	var cancelled time.Time
	for _, e := range tributary.All(ctx, c, "accounts", tributary.Params{"q": "SELECT Id, Name FROM Account"}) {
		if e != nil {
			err = e
			break
		}
		n++
		if n == 250 {
			cancel()
			cancelled = time.Now()
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v after %d records", err, n)
	}
	// The walk stops at the cancel, mid-page: not one record more. (Time
	// is only a guard against a hang: a loaded machine may be slow.)
	if n != 250 {
		t.Errorf("%d records yielded, want 250: the walk went on after the cancel", n)
	}
	if d := time.Since(cancelled); d > 10*time.Second {
		t.Errorf("the walk took %v to stop", d)
	}
}

func TestCredentialChecks(t *testing.T) {
	good := map[string]any{"client_id": "id", "client_secret": "secret", "refresh_token": "refresh"}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for k, v := range good {
			m[k] = v
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	bad := []map[string]any{
		{},
		with("client_id", nil),
		with("client_secret", nil),
		with("refresh_token", nil),
		with("refresh_token", 7),
		with("password", "p"),
		with("sandbox", "true"),
		with("instance_url", "acme.my.salesforce.com"),
		with("instance_url", "https://acme.my.salesforce.com/services/data"),
		with("login_url", "ftp://login.salesforce.com"),
		{"client_id": "id", "client_secret": "secret", "refresh_token": "refresh", "sandbox": true, "login_url": "https://test.salesforce.com"},
	}
	for _, m := range bad {
		_, err := salesforce.Open(m)
		if !errors.Is(err, tributary.ErrInvalidCredentials) {
			t.Errorf("%v: err = %v, want ErrInvalidCredentials", m, err)
		}
	}
	for _, m := range []map[string]any{good, with("sandbox", true), with("sandbox", false), with("login_url", "https://acme.my.salesforce.com/"),
		with("access_token", "tok"), with("instance_url", "https://acme.my.salesforce.com")} {
		c, err := salesforce.Open(m)
		if err != nil || c.Type() != "salesforce" {
			t.Errorf("%v: %v", m, err)
		}
	}
	cr, err := salesforce.CredentialsFromMap(with("sandbox", true))
	if err != nil || !cr.Sandbox {
		t.Errorf("sandbox: %v %+v", err, cr)
	}
}

// search runs on a synchronized copy: in direct mode without a replica it
// is refused with a clear error, and nothing is sent.
func TestSearchNeedsHostedOrReplica(t *testing.T) {
	srv := salesforcetest.New()
	defer srv.Close()
	c := open(t, srv)
	_, err := tributary.Execute(context.Background(), c, tributary.Request{Entity: "accounts", Action: tributary.ActionSearch,
		Params: tributary.Params{"query": map[string]any{"filter": map[string]any{"eq": map[string]any{"Industry": "Technology"}}}}})
	if !errors.Is(err, tributary.ErrUnsupportedAction) {
		t.Fatalf("err = %v", err)
	}
	_, err = tributary.Execute(context.Background(), c, tributary.Request{Entity: "cases", Action: tributary.ActionAPISearch, Params: tributary.Params{"q": "FIND {x} RETURNING Case"}})
	if !errors.Is(err, tributary.ErrUnsupportedAction) {
		t.Fatalf("cases.api_search: %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}
