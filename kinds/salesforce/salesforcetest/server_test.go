package salesforcetest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"
)

type queryPage struct {
	TotalSize      int               `json:"totalSize"`
	Done           bool              `json:"done"`
	NextRecordsURL string            `json:"nextRecordsUrl"`
	Records        []json.RawMessage `json:"records"`
}

type sfError struct {
	Message   string `json:"message"`
	ErrorCode string `json:"errorCode"`
}

// do sends a GET to the fake with the default token (unless hdr overrides
// Authorization) and returns status, headers and body.
func do(t *testing.T, s *Server, path string, hdr ...string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+DefaultAccessToken)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
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
	return resp.StatusCode, resp.Header, b
}

func query(soql string) string {
	return "/services/data/v67.0/query?q=" + url.QueryEscape(soql)
}

func decode[T any](t *testing.T, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

func wantError(t *testing.T, status int, body []byte, wantStatus int, wantCode string) sfError {
	t.Helper()
	if status != wantStatus {
		t.Fatalf("status = %d, want %d (body %s)", status, wantStatus, body)
	}
	errs := decode[[]sfError](t, body)
	if len(errs) != 1 || errs[0].ErrorCode != wantCode || errs[0].Message == "" {
		t.Fatalf("error body = %s, want one %s", body, wantCode)
	}
	return errs[0]
}

func recordID(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var r struct {
		Attributes struct{ Type, URL string } `json:"attributes"`
		ID         string                     `json:"Id"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	if r.Attributes.Type == "" || !strings.HasSuffix(r.Attributes.URL, "/"+r.ID) {
		t.Fatalf("record without proper attributes: %s", raw)
	}
	return r.ID
}

func TestAuth(t *testing.T) {
	s := New()
	defer s.Close()
	for _, auth := range []string{"", "Bearer wrong", "Basic " + DefaultAccessToken} {
		st, _, b := do(t, s, query("SELECT Id FROM Account LIMIT 1"), "Authorization", auth)
		e := wantError(t, st, b, 401, "INVALID_SESSION_ID")
		if e.Message != "Session expired or invalid" {
			t.Errorf("message = %q", e.Message)
		}
	}
	st, h, _ := do(t, s, query("SELECT Id FROM Account LIMIT 1"))
	if st != 200 || h.Get("Sforce-Limit-Info") != "api-usage=1/15000" {
		t.Fatalf("status %d, Sforce-Limit-Info %q", st, h.Get("Sforce-Limit-Info"))
	}
}

func TestQueryPaging(t *testing.T) {
	s := New(WithAccounts(450))
	defer s.Close()
	var ids []string
	path := query("SELECT Id, Name FROM Account")
	var sizes []int
	for path != "" {
		st, _, b := do(t, s, path)
		if st != 200 {
			t.Fatalf("%s: %d %s", path, st, b)
		}
		p := decode[queryPage](t, b)
		if p.TotalSize != 450 {
			t.Fatalf("totalSize = %d", p.TotalSize)
		}
		for _, r := range p.Records {
			ids = append(ids, recordID(t, r))
		}
		sizes = append(sizes, len(p.Records))
		if p.Done != (p.NextRecordsURL == "") {
			t.Fatalf("done %v with nextRecordsUrl %q", p.Done, p.NextRecordsURL)
		}
		if !p.Done && !strings.HasPrefix(p.NextRecordsURL, "/services/data/v67.0/query/01g") {
			t.Fatalf("nextRecordsUrl = %q", p.NextRecordsURL)
		}
		path = p.NextRecordsURL
	}
	if got := len(sizes); got != 3 || sizes[0] != 200 || sizes[2] != 50 {
		t.Fatalf("page sizes = %v", sizes)
	}
	for i, id := range ids {
		if id != RecordID("Account", i) {
			t.Fatalf("record %d id %s, want %s", i, id, RecordID("Account", i))
		}
	}

	// Sforce-Query-Options sets the batch size (clamped to 200..2000).
	st, _, b := do(t, s, query("SELECT Id FROM Account"), "Sforce-Query-Options", "batchSize=300")
	if p := decode[queryPage](t, b); st != 200 || len(p.Records) != 300 {
		t.Fatalf("batchSize=300: %d records", len(p.Records))
	}
	_, _, b = do(t, s, query("SELECT Id FROM Account"), "Sforce-Query-Options", "batchSize=5")
	if p := decode[queryPage](t, b); len(p.Records) != 200 {
		t.Fatalf("batchSize=5: %d records, want the minimum 200", len(p.Records))
	}
}

func TestQueryClauses(t *testing.T) {
	s := New(WithOpportunities(1000))
	defer s.Close()

	_, _, b := do(t, s, query("SELECT Id FROM Opportunity ORDER BY LastModifiedDate DESC LIMIT 3"))
	p := decode[queryPage](t, b)
	if p.TotalSize != 3 || !p.Done || len(p.Records) != 3 || recordID(t, p.Records[0]) != RecordID("Opportunity", 999) {
		t.Fatalf("ORDER BY DESC LIMIT: %s", b)
	}

	_, _, b = do(t, s, query("SELECT Id, Amount, IsWon FROM Opportunity WHERE IsWon = true AND Amount >= 250000 ORDER BY Amount DESC"))
	p = decode[queryPage](t, b)
	if p.TotalSize == 0 {
		t.Fatal("no won opportunities over 250000")
	}
	last := 1e18
	for _, raw := range p.Records {
		var r struct {
			Amount float64
			IsWon  bool
		}
		_ = json.Unmarshal(raw, &r)
		if !r.IsWon || r.Amount < 250000 || r.Amount > last {
			t.Fatalf("record out of filter or order: %s", raw)
		}
		last = r.Amount
	}

	id := RecordID("Opportunity", 42)
	_, _, b = do(t, s, query("SELECT Id, Name FROM Opportunity WHERE Id = '"+id[:15]+"'"))
	if p = decode[queryPage](t, b); p.TotalSize != 1 || recordID(t, p.Records[0]) != id {
		t.Fatalf("WHERE Id = 15-char id: %s", b)
	}

	_, _, b = do(t, s, query("SELECT Id, Owner.Name, Account.Name, Account.Industry, Owner.Email FROM Opportunity LIMIT 1"))
	rel := decode[struct {
		Records []struct {
			Owner struct {
				Attributes struct{ Type string } `json:"attributes"`
				Name       string
				Email      string
			}
			Account *struct {
				Attributes struct{ Type string } `json:"attributes"`
				Name       string
				Industry   string
			}
		}
	}](t, b)
	if r := rel.Records[0]; r.Owner.Attributes.Type != "User" || r.Owner.Name == "" || r.Owner.Email == "" ||
		r.Account == nil || r.Account.Attributes.Type != "Account" || r.Account.Industry == "" {
		t.Fatalf("relationship paths: %s", b)
	}
	st, _, b := do(t, s, query("SELECT Id, Owner.Nope FROM Opportunity"))
	wantError(t, st, b, 400, "INVALID_FIELD")
	st, _, b = do(t, s, query("SELECT Id, Nobody.Name FROM Opportunity"))
	wantError(t, st, b, 400, "INVALID_FIELD")

	_, _, b = do(t, s, query("SELECT COUNT() FROM Opportunity"))
	if p = decode[queryPage](t, b); p.TotalSize != 1000 || len(p.Records) != 0 || !p.Done {
		t.Fatalf("COUNT(): %s", b)
	}

	for soql, code := range map[string]string{
		"SELECT Id FRM Opportunity":                     "MALFORMED_QUERY",
		"SELECT Id, Nope FROM Opportunity":              "INVALID_FIELD",
		"SELECT Id FROM Widget":                         "INVALID_TYPE",
		"SELECT Id FROM Opportunity WHERE Amount = 'x'": "INVALID_FIELD",
		"SELECT Id FROM Opportunity WHERE IsWon = true AND IsClosed = true OR Amount > 5": "MALFORMED_QUERY",
		"SELECT FIELDS(ALL) FROM Opportunity":                                             "MALFORMED_QUERY",
		"SELECT Id FROM Opportunity OFFSET 2001":                                          "NUMBER_OUTSIDE_VALID_RANGE",
		"":                                                                                "MALFORMED_QUERY",
	} {
		st, _, b = do(t, s, query(soql))
		wantError(t, st, b, 400, code)
	}
}

func TestGet(t *testing.T) {
	s := New()
	defer s.Close()
	id := RecordID("Contact", 7)
	st, _, b := do(t, s, "/services/data/v67.0/sobjects/Contact/"+id)
	if st != 200 {
		t.Fatalf("%d %s", st, b)
	}
	var full map[string]any
	_ = json.Unmarshal(b, &full)
	for _, f := range []string{"attributes", "Id", "AccountId", "Email", "MailingAddress", "LastName", "SystemModstamp"} {
		if _, ok := full[f]; !ok {
			t.Errorf("record lacks %s", f)
		}
	}
	_, _, b = do(t, s, "/services/data/v67.0/sobjects/Contact/"+id+"?fields=Email,LastName")
	var part map[string]any
	_ = json.Unmarshal(b, &part)
	if len(part) != 4 || part["Id"] != id || part["Email"] != full["Email"] {
		t.Fatalf("fields=Email,LastName: %s", b)
	}

	st, _, b = do(t, s, "/services/data/v67.0/sobjects/Contact/"+RecordID("Contact", 500))
	wantError(t, st, b, 404, "NOT_FOUND")
	st, _, b = do(t, s, "/services/data/v67.0/sobjects/Contact/"+RecordID("Account", 1))
	wantError(t, st, b, 404, "NOT_FOUND")
	st, _, b = do(t, s, "/services/data/v67.0/sobjects/Contact/"+id+"?fields=Bogus")
	wantError(t, st, b, 400, "INVALID_FIELD")
}

func TestSearch(t *testing.T) {
	s := New()
	defer s.Close()
	sosl := "FIND {Acme} IN NAME FIELDS RETURNING Account(Id, Name LIMIT 3), Lead(Id, Company)"
	st, _, b := do(t, s, "/services/data/v67.0/search?q="+url.QueryEscape(sosl))
	if st != 200 {
		t.Fatalf("%d %s", st, b)
	}
	res := decode[struct {
		SearchRecords []json.RawMessage `json:"searchRecords"`
	}](t, b)
	accounts := 0
	for _, raw := range res.SearchRecords {
		recordID(t, raw)
		if !bytes.Contains(raw, []byte("Acme")) {
			t.Errorf("record does not match the term: %s", raw)
		}
		if bytes.Contains(raw, []byte(`"type":"Account"`)) {
			accounts++
		}
	}
	if accounts != 3 || len(res.SearchRecords) <= 3 {
		t.Fatalf("%d accounts, %d records", accounts, len(res.SearchRecords))
	}
	st, _, b = do(t, s, "/services/data/v67.0/search?q="+url.QueryEscape("FIND {a}"))
	wantError(t, st, b, 400, "INVALID_SEARCH")
	st, _, b = do(t, s, "/services/data/v67.0/search?q="+url.QueryEscape("FIND Acme"))
	wantError(t, st, b, 400, "MALFORMED_SEARCH")
}

func TestLimitsAndFaults(t *testing.T) {
	s := New(WithQuotaExhausted())
	defer s.Close()
	st, h, b := do(t, s, query("SELECT Id FROM Account"))
	e := wantError(t, st, b, 403, "REQUEST_LIMIT_EXCEEDED")
	if h.Get("Retry-After") != "" || h.Get("Sforce-Limit-Info") != "api-usage=15000/15000" || e.Message != "TotalRequests Limit exceeded." {
		t.Fatalf("headers %v, message %q", h, e.Message)
	}
	s.SetAPIUsage(0)
	if st, _, _ := do(t, s, query("SELECT Id FROM Account")); st != 200 {
		t.Fatalf("after SetAPIUsage(0): %d", st)
	}

	s.SetFaults(Faults{RateLimitFirst: 1, ServerErrorFirst: 1})
	st, _, b = do(t, s, query("SELECT Id FROM Account"))
	wantError(t, st, b, 403, "REQUEST_LIMIT_EXCEEDED")
	st, _, b = do(t, s, query("SELECT Id FROM Account"))
	wantError(t, st, b, 500, "UNKNOWN_EXCEPTION")
	if st, _, _ := do(t, s, query("SELECT Id FROM Account")); st != 200 {
		t.Fatalf("after faults: %d", st)
	}
}

func TestCursorRelease(t *testing.T) {
	s := New(WithMaxOpenCursors(1))
	defer s.Close()
	_, _, b := do(t, s, query("SELECT Id FROM Contact"))
	first := decode[queryPage](t, b).NextRecordsURL
	_, _, b = do(t, s, query("SELECT Id FROM Task"))
	second := decode[queryPage](t, b).NextRecordsURL
	st, _, b := do(t, s, first)
	wantError(t, st, b, 400, "INVALID_QUERY_LOCATOR")
	if st, _, _ := do(t, s, second); st != 200 {
		t.Fatalf("newest locator: %d", st)
	}
}

func TestBlob(t *testing.T) {
	s := New(WithFileSize(1000))
	defer s.Close()
	path := "/services/data/v67.0/sobjects/ContentVersion/" + RecordID("ContentVersion", 3) + "/VersionData"
	st, _, full := do(t, s, path)
	if st != 200 || len(full) != 1000 {
		t.Fatalf("full: %d, %d bytes", st, len(full))
	}
	if want, ok := s.FileContent(RecordID("ContentVersion", 3)); !ok || !bytes.Equal(want, full) {
		t.Fatalf("FileContent differs from VersionData (%v)", ok)
	}
	if _, ok := s.FileContent(RecordID("Account", 0)); ok {
		t.Fatal("FileContent of an account")
	}
	st, h, part := do(t, s, path, "Range", "bytes=100-199")
	if st != 206 || h.Get("Content-Range") != "bytes 100-199/1000" || !bytes.Equal(part, full[100:200]) {
		t.Fatalf("range: %d %q", st, h.Get("Content-Range"))
	}
	st, _, b := do(t, s, path, "Authorization", "")
	wantError(t, st, b, 401, "INVALID_SESSION_ID")

	// A connection cut mid-body is resumed with Range and If-Range on the
	// Last-Modified validator.
	cut := New(WithFileSize(1000), WithFileCutEvery(300))
	defer cut.Close()
	req, _ := http.NewRequest(http.MethodGet, cut.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+DefaultAccessToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil || len(got) != 300 || resp.Header.Get("Last-Modified") == "" {
		t.Fatalf("cut: %d bytes, err %v", len(got), err)
	}
	st, h, rest := do(t, cut, path, "Range", "bytes=300-599", "If-Range", resp.Header.Get("Last-Modified"))
	if st != 206 || !bytes.Equal(rest, full[300:600]) {
		t.Fatalf("resume: %d %q", st, h.Get("Content-Range"))
	}

	body := "/services/data/v67.0/sobjects/Attachment/" + RecordID("Attachment", 0) + "/Body"
	if st, h, b := do(t, s, body); st != 200 || len(b) != 1000 || h.Get("Content-Type") == "" {
		t.Fatalf("attachment body: %d, %d bytes", st, len(b))
	}
	for _, r := range s.Requests() {
		if r.Origin != "api" {
			t.Errorf("request to %s origin", r.Origin)
		}
	}
}

func TestTokenRefresh(t *testing.T) {
	s := New()
	defer s.Close()
	refresh := func(form url.Values) (int, map[string]string) {
		resp, err := http.PostForm(s.TokenURL(), form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]string
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	good := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {DefaultRefreshToken},
		"client_id": {DefaultClientID}, "client_secret": {DefaultClientSecret}}

	s.ExpireAccessToken()
	st, _, b := do(t, s, query("SELECT Id FROM Account LIMIT 1"))
	wantError(t, st, b, 401, "INVALID_SESSION_ID")

	st, tok := refresh(good)
	if st != 200 || tok["access_token"] == "" || tok["instance_url"] != s.URL || tok["token_type"] != "Bearer" || tok["refresh_token"] != "" {
		t.Fatalf("refresh: %d %v", st, tok)
	}
	if st, _, _ := do(t, s, query("SELECT Id FROM Account LIMIT 1"), "Authorization", "Bearer "+tok["access_token"]); st != 200 {
		t.Fatalf("new token refused: %d", st)
	}

	bad := url.Values{}
	for k, v := range good {
		bad[k] = v
	}
	bad.Set("refresh_token", "stale")
	if st, m := refresh(bad); st != 400 || m["error"] != "invalid_grant" {
		t.Fatalf("stale refresh token: %d %v", st, m)
	}
	bad.Set("refresh_token", DefaultRefreshToken)
	bad.Set("client_secret", "nope")
	if st, m := refresh(bad); st != 400 || m["error"] != "invalid_client" {
		t.Fatalf("wrong secret: %d %v", st, m)
	}
}

func TestLargeVolumeIsLazy(t *testing.T) {
	heap := allocated()
	s := New(WithAccounts(1_000_000))
	defer s.Close()
	st, _, b := do(t, s, query("SELECT Id FROM Account"))
	if p := decode[queryPage](t, b); st != 200 || p.TotalSize != 1_000_000 || len(p.Records) != 200 {
		t.Fatalf("%d, totalSize %d", st, p.TotalSize)
	}
	if st, _, _ := do(t, s, "/services/data/v58.0/sobjects/Account/"+RecordID("Account", 999_999)); st != 200 {
		t.Fatalf("last record: %d", st)
	}
	if b := allocated() - heap; b > lazyBytes {
		t.Errorf("allocated %d MiB: the volume was not made lazily", b>>20)
	}
}

func TestDeterministic(t *testing.T) {
	a, b := New(), New()
	defer a.Close()
	defer b.Close()
	q := query("SELECT FIELDS(ALL) FROM Opportunity LIMIT 200")
	_, _, x := do(t, a, q)
	_, _, y := do(t, b, q)
	if !bytes.Equal(x, y) {
		t.Fatal("two fakes returned different data")
	}
}

// lazyBytes bounds what a fake of a million records may allocate to start
// and answer a few requests (under 1 MiB measured): made eagerly they take
// hundreds of MiB.
const lazyBytes = 16 << 20

// allocated returns the bytes this process has allocated so far, a
// measure of work that no load on the machine can move (unlike a time).
func allocated() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}
