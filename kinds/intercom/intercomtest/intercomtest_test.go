package intercomtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// do sends one request to the fake with Intercom's headers and decodes the
// JSON answer into a generic map.
func do(t *testing.T, s *Server, method, path string, q url.Values, hdr map[string]string) (*http.Response, map[string]any) {
	t.Helper()
	u := s.URL + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+DefaultAccessToken)
	req.Header.Set("Intercom-Version", "2.11")
	req.Header.Set("Accept", "application/json")
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("%s %s: body is not a JSON object: %v\n%s", method, path, err, body)
	}
	return resp, m
}

func get(t *testing.T, s *Server, path string, q url.Values) (*http.Response, map[string]any) {
	t.Helper()
	return do(t, s, http.MethodGet, path, q, nil)
}

// wantError checks an error.list answer.
func wantError(t *testing.T, resp *http.Response, body map[string]any, status int, code string) {
	t.Helper()
	if resp.StatusCode != status {
		t.Errorf("status = %d, want %d (%v)", resp.StatusCode, status, body)
	}
	if body["type"] != "error.list" {
		t.Errorf("type = %v, want error.list", body["type"])
	}
	if id, _ := body["request_id"].(string); len(id) != 36 {
		t.Errorf("request_id = %q, want a uuid", id)
	}
	errs, _ := body["errors"].([]any)
	if len(errs) != 1 {
		t.Fatalf("errors = %v", body["errors"])
	}
	if got := errs[0].(map[string]any)["code"]; got != code {
		t.Errorf("code = %v, want %s", got, code)
	}
}

func wantRateHeaders(t *testing.T, resp *http.Response) {
	t.Helper()
	for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
		if _, err := strconv.Atoi(resp.Header.Get(h)); err != nil {
			t.Errorf("%s = %q", h, resp.Header.Get(h))
		}
	}
}

func ids(t *testing.T, list any) []string {
	t.Helper()
	items, ok := list.([]any)
	if !ok {
		t.Fatalf("list is %T", list)
	}
	out := make([]string, len(items))
	for k, it := range items {
		out[k] = it.(map[string]any)["id"].(string)
	}
	return out
}

func TestAuthentication(t *testing.T) {
	s := New(WithCredentials("secret-1"))
	defer s.Close()

	for _, auth := range []string{"", "Bearer wrong", "Basic secret-1", "Bearer " + DefaultAccessToken} {
		resp, body := do(t, s, http.MethodGet, "/contacts", nil, map[string]string{"Authorization": auth})
		wantError(t, resp, body, http.StatusUnauthorized, "unauthorized")
		wantRateHeaders(t, resp)
		if msg := body["errors"].([]any)[0].(map[string]any)["message"]; msg != "Access Token Invalid" {
			t.Errorf("message = %v", msg)
		}
	}
	resp, _ := do(t, s, http.MethodGet, "/contacts", nil, map[string]string{"Authorization": "Bearer secret-1"})
	if resp.StatusCode != http.StatusOK {
		t.Errorf("right token: status %d", resp.StatusCode)
	}
}

func TestVersionHeader(t *testing.T) {
	s := New(WithAppVersion("2.9"))
	defer s.Close()

	resp, _ := do(t, s, http.MethodGet, "/admins", nil, map[string]string{"Intercom-Version": ""})
	if resp.StatusCode != 200 || resp.Header.Get("Intercom-Version") != "2.9" {
		t.Errorf("no header: status %d, version %q; want the app's 2.9", resp.StatusCode, resp.Header.Get("Intercom-Version"))
	}
	resp, _ = get(t, s, "/admins", nil)
	if resp.Header.Get("Intercom-Version") != "2.11" {
		t.Errorf("echoed version = %q", resp.Header.Get("Intercom-Version"))
	}
	resp, body := do(t, s, http.MethodGet, "/admins", nil, map[string]string{"Intercom-Version": "9.99"})
	wantError(t, resp, body, http.StatusBadRequest, "intercom_version_invalid")
}

func TestContactsCursorPaging(t *testing.T) {
	s := New(WithContacts(250), WithCompanies(7))
	defer s.Close()

	// Default page size.
	resp, body := get(t, s, "/contacts", nil)
	wantRateHeaders(t, resp)
	if body["type"] != "list" || body["total_count"] != 250.0 || len(body["data"].([]any)) != DefaultContactsPerPage {
		t.Fatalf("first page: type %v total %v len %d", body["type"], body["total_count"], len(body["data"].([]any)))
	}

	seen := map[string]bool{}
	q := url.Values{"per_page": {"100"}}
	for page := 1; ; page++ {
		_, body := get(t, s, "/contacts", q)
		for _, id := range ids(t, body["data"]) {
			if seen[id] {
				t.Fatalf("id %s served twice", id)
			}
			seen[id] = true
		}
		pg := body["pages"].(map[string]any)
		if pg["page"] != float64(page) || pg["per_page"] != 100.0 || pg["total_pages"] != 3.0 || pg["type"] != "pages" {
			t.Errorf("page %d: pages = %v", page, pg)
		}
		next, has := pg["next"]
		if page == 3 {
			if has {
				t.Errorf("last page has next: %v", next)
			}
			break
		}
		n := next.(map[string]any)
		if n["page"] != float64(page+1) || n["per_page"] != 100.0 {
			t.Errorf("next = %v", n)
		}
		q.Set("starting_after", n["starting_after"].(string))
	}
	if len(seen) != 250 {
		t.Errorf("saw %d contacts, want 250", len(seen))
	}

	resp, body = get(t, s, "/contacts", url.Values{"per_page": {"151"}})
	wantError(t, resp, body, http.StatusBadRequest, "parameter_invalid")
	resp, body = get(t, s, "/contacts", url.Values{"starting_after": {"not-a-cursor"}})
	wantError(t, resp, body, http.StatusBadRequest, "parameter_invalid")

	// A page far past the end is empty, not an error.
	resp, body = get(t, s, "/contacts", url.Values{"page": {"9223372036854775807"}})
	if resp.StatusCode != 200 || len(body["data"].([]any)) != 0 {
		t.Errorf("huge page: %d %v", resp.StatusCode, body["data"])
	}

	// page= also works for contacts.
	_, body = get(t, s, "/contacts", url.Values{"per_page": {"100"}, "page": {"3"}})
	if got := ids(t, body["data"]); len(got) != 50 || got[0] != ContactID(200) {
		t.Errorf("page 3: %d records from %v", len(got), got[:1])
	}
}

func TestConversations(t *testing.T) {
	s := New(WithConversations(45))
	defer s.Close()

	_, body := get(t, s, "/conversations", nil)
	if body["type"] != "conversation.list" || body["data"] != nil {
		t.Errorf("envelope: type %v, data %v", body["type"], body["data"])
	}
	got := ids(t, body["conversations"])
	if len(got) != DefaultConversationsPerPage || got[0] != ConversationID(0) {
		t.Errorf("first page: %d, first %s", len(got), got[0])
	}
	first := body["conversations"].([]any)[0].(map[string]any)
	if _, ok := first["conversation_parts"]; ok {
		t.Error("list items carry conversation_parts")
	}

	_, one := get(t, s, "/conversations/"+ConversationID(10), url.Values{"display_as": {"plaintext"}})
	parts := one["conversation_parts"].(map[string]any)
	if one["id"] != ConversationID(10) || parts["type"] != "conversation_part.list" || parts["total_count"] != 3.0 {
		t.Errorf("get: id %v parts %v", one["id"], parts)
	}
	src := one["source"].(map[string]any)
	if b := src["body"].(string); b[0] == '<' {
		t.Errorf("plaintext body = %q", b)
	}

	resp, body := get(t, s, "/conversations/"+ConversationID(45), nil)
	wantError(t, resp, body, http.StatusNotFound, "not_found")
}

func TestCompaniesListStopsAtTenThousand(t *testing.T) {
	s := New(WithCompanies(CompanyListLimit + 70))
	defer s.Close()

	n, pages := 0, 0
	q := url.Values{"per_page": {"150"}}
	last := ""
	for {
		_, body := get(t, s, "/companies", q)
		pages++
		if body["total_count"] != float64(CompanyListLimit+70) {
			t.Fatalf("total_count = %v", body["total_count"])
		}
		got := ids(t, body["data"])
		n += len(got)
		if pages == 1 && got[0] != CompanyID(CompanyListLimit+69) {
			t.Errorf("first company %s: want the most recently requested", got[0])
		}
		if len(got) > 0 {
			last = got[len(got)-1]
		}
		pg := body["pages"].(map[string]any)
		next, has := pg["next"]
		if !has {
			t.Fatal("companies pages must carry next (null on the last page)")
		}
		if next == nil {
			break
		}
		q.Set("starting_after", next.(map[string]any)["starting_after"].(string))
	}
	if n != CompanyListLimit || last != CompanyID(70) {
		t.Errorf("listed %d companies ending with %s, want %d ending with %s", n, last, CompanyListLimit, CompanyID(70))
	}

	// POST /companies/list: page numbers, ascending order on request.
	resp, body := do(t, s, http.MethodPost, "/companies/list", url.Values{"page": {"2"}, "per_page": {"5"}, "order": {"asc"}}, nil)
	if resp.StatusCode != 200 || ids(t, body["data"])[0] != CompanyID(5) {
		t.Errorf("POST /companies/list page 2: %d %v", resp.StatusCode, body["data"])
	}

	// Filters on GET /companies.
	_, body = get(t, s, "/companies", url.Values{"company_id": {"cmp-0000042"}})
	if got := ids(t, body["data"]); len(got) != 1 || got[0] != CompanyID(42) {
		t.Errorf("company_id filter: %v", got)
	}
	resp, body = get(t, s, "/companies", url.Values{"company_id": {"cmp-9999999"}})
	wantError(t, resp, body, http.StatusNotFound, "company_not_found")
	_, body = get(t, s, "/companies", url.Values{"tag_id": {strconv.Itoa(tagIDBase + 3)}, "per_page": {"2"}})
	for _, id := range ids(t, body["data"]) {
		if i, _ := hexIndex(companyIDPrefix, id); i%len(tagNames) != 3 {
			t.Errorf("tag filter returned company %d", i)
		}
	}
}

func TestCompaniesScroll(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	var mu sync.Mutex
	s := New(WithCompanies(CompanyListLimit + 70))
	s.cfg.scrollNow = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	defer s.Close()
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }

	_, body := get(t, s, "/companies/scroll", nil)
	param, _ := body["scroll_param"].(string)
	if param == "" || body["pages"] != nil || body["total_count"] != nil {
		t.Fatalf("first scroll page: %v %v %v", param, body["pages"], body["total_count"])
	}
	seen := len(ids(t, body["data"]))

	// A second scroll cannot be opened while this one is in use.
	resp, errBody := get(t, s, "/companies/scroll", nil)
	wantError(t, resp, errBody, http.StatusBadRequest, "scroll_exists")

	for {
		_, body = get(t, s, "/companies/scroll", url.Values{"scroll_param": {param}})
		got := ids(t, body["data"])
		if len(got) == 0 {
			break
		}
		seen += len(got)
		if body["scroll_param"] != param {
			t.Fatalf("scroll_param changed: %v", body["scroll_param"])
		}
	}
	if seen != CompanyListLimit+70 {
		t.Errorf("scroll reached %d companies, want %d", seen, CompanyListLimit+70)
	}
	// The end of the scroll expires the parameter.
	resp, errBody = get(t, s, "/companies/scroll", url.Values{"scroll_param": {param}})
	wantError(t, resp, errBody, http.StatusBadRequest, "parameter_invalid")

	// A scroll left idle for over a minute expires; a new one can start.
	_, body = get(t, s, "/companies/scroll", nil)
	param2 := body["scroll_param"].(string)
	if param2 == param {
		t.Error("new scroll reused the old scroll_param")
	}
	advance(ScrollIdleTimeout + time.Second)
	resp, errBody = get(t, s, "/companies/scroll", url.Values{"scroll_param": {param2}})
	wantError(t, resp, errBody, http.StatusBadRequest, "parameter_invalid")
	if resp, _ := get(t, s, "/companies/scroll", nil); resp.StatusCode != 200 {
		t.Errorf("restart after expiry: %d", resp.StatusCode)
	}

	// A 500 mid-scroll ends the scroll, so the client can start again.
	s.SetFaults(Faults{ServerErrorFirst: 1})
	resp, errBody = get(t, s, "/companies/scroll", url.Values{"scroll_param": {"whatever"}})
	wantError(t, resp, errBody, http.StatusInternalServerError, "server_error")
	if resp, _ := get(t, s, "/companies/scroll", nil); resp.StatusCode != 200 {
		t.Errorf("restart after 500: %d", resp.StatusCode)
	}
}

func TestGetsAndNotFound(t *testing.T) {
	s := New(WithContacts(10), WithCompanies(10), WithConversations(10))
	defer s.Close()

	cases := []struct {
		path, wantID string
	}{
		{"/contacts/" + ContactID(3), ContactID(3)},
		{"/companies/" + CompanyID(4), CompanyID(4)},
		{"/teams/" + strconv.Itoa(teamIDBase+1), strconv.Itoa(teamIDBase + 1)},
		{"/admins/" + strconv.Itoa(adminIDBase+2), strconv.Itoa(adminIDBase + 2)},
		{"/tags/" + strconv.Itoa(tagIDBase+5), strconv.Itoa(tagIDBase + 5)},
		{"/segments/" + segmentID(1), segmentID(1)},
	}
	for _, c := range cases {
		resp, body := get(t, s, c.path, nil)
		if resp.StatusCode != 200 || body["id"] != c.wantID {
			t.Errorf("GET %s: %d id %v", c.path, resp.StatusCode, body["id"])
		}
		wantRateHeaders(t, resp)
	}

	missing := []struct{ path, code string }{
		{"/contacts/" + ContactID(10), "not_found"},
		{"/contacts/nope", "not_found"},
		{"/companies/" + CompanyID(10), "company_not_found"},
		{"/teams/1", "team_not_found"},
		{"/admins/1", "admin_not_found"},
		{"/tags/1", "not_found"},
		{"/segments/" + segmentID(99), "not_found"},
		{"/no/such/path", "not_found"},
	}
	for _, m := range missing {
		resp, body := get(t, s, m.path, nil)
		wantError(t, resp, body, http.StatusNotFound, m.code)
	}
}

func TestUnpagedLists(t *testing.T) {
	s := New(WithContacts(60))
	defer s.Close()

	for _, c := range []struct{ path, typ, key string }{
		{"/teams", "team.list", "teams"},
		{"/admins", "admin.list", "admins"},
		{"/tags", "list", "data"},
		{"/segments", "segment.list", "segments"},
	} {
		_, body := get(t, s, c.path, nil)
		if body["type"] != c.typ || len(ids(t, body[c.key])) == 0 || body["pages"] != nil {
			t.Errorf("%s: type %v, %s %v", c.path, body["type"], c.key, body[c.key])
		}
	}

	_, body := get(t, s, "/segments", url.Values{"include_count": {"true"}})
	total := 0.0
	for _, sg := range body["segments"].([]any) {
		total += sg.(map[string]any)["count"].(float64)
	}
	if total != 60 {
		t.Errorf("segment counts add up to %v, want 60", total)
	}
	_, body = get(t, s, "/segments", nil)
	if _, ok := body["segments"].([]any)[0].(map[string]any)["count"]; ok {
		t.Error("count present without include_count")
	}

	_, body = get(t, s, "/admins", url.Values{"display_avatar": {"true"}})
	if _, ok := body["admins"].([]any)[0].(map[string]any)["avatar"]; !ok {
		t.Error("no avatar with display_avatar=true")
	}
}

func TestInjectedRateLimit(t *testing.T) {
	s := New(WithFaults(Faults{RateLimitFirst: 1, RetryAfter: 3 * time.Second}))
	defer s.Close()

	resp, body := get(t, s, "/contacts", nil)
	wantError(t, resp, body, http.StatusTooManyRequests, "rate_limit_exceeded")
	if resp.Header.Get("X-RateLimit-Remaining") != "0" || resp.Header.Get("Retry-After") != "" {
		t.Errorf("429 headers: %v", resp.Header)
	}
	reset, _ := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64)
	if wait := reset - time.Now().Unix(); wait < 2 || wait > 4 {
		t.Errorf("X-RateLimit-Reset is %ds away, want about 3", wait)
	}
	if resp, _ := get(t, s, "/contacts", nil); resp.StatusCode != 200 {
		t.Errorf("second request: %d", resp.StatusCode)
	}
}

func TestEnforcedRateLimit(t *testing.T) {
	s := New(WithRateLimit(2))
	defer s.Close()
	s.cfg.now = func() time.Time { return time.Unix(1_800_000_003, 0) }

	for k, want := range []int{200, 200, 429} {
		resp, _ := get(t, s, "/tags", nil)
		if resp.StatusCode != want {
			t.Errorf("request %d: %d, want %d", k, resp.StatusCode, want)
		}
		if resp.Header.Get("X-RateLimit-Limit") != "2" || resp.Header.Get("X-RateLimit-Reset") != "1800000010" {
			t.Errorf("request %d headers: %v", k, resp.Header)
		}
		if wantRem := strconv.Itoa(max(1-k, 0)); resp.Header.Get("X-RateLimit-Remaining") != wantRem {
			t.Errorf("request %d remaining %s, want %s", k, resp.Header.Get("X-RateLimit-Remaining"), wantRem)
		}
	}
}

func TestAttachmentDownload(t *testing.T) {
	s := New(WithConversations(20))
	defer s.Close()

	_, conv := get(t, s, "/conversations/"+ConversationID(10), nil)
	att := conv["source"].(map[string]any)["attachments"].([]any)[0].(map[string]any)
	u, ok := strings.CutPrefix(att["url"].(string), AttachmentOrigin)
	if !ok {
		t.Fatalf("attachment url %q, want it on %s", att["url"], AttachmentOrigin)
	}
	req, _ := http.NewRequest(http.MethodGet, s.FilesURL+u, nil)
	req.Header.Set("Range", "bytes=100-199")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(got, AttachmentContent(10)[100:200]) {
		t.Errorf("range download: %d, %d bytes", resp.StatusCode, len(got))
	}
	if float64(len(AttachmentContent(10))) != att["filesize"] {
		t.Errorf("filesize %v, content %d", att["filesize"], len(AttachmentContent(10)))
	}
	for _, r := range s.Requests() {
		if r.Origin == "files" && r.Header.Get("Authorization") != "" {
			t.Error("credentials reached the file host")
		}
	}
}

func TestScrollIdleTimeoutOption(t *testing.T) {
	clock := fakeserver.NewClock(time.Unix(1_800_000_000, 0))
	s := New(WithCompanies(10), WithScrollIdleTimeout(50*time.Millisecond), WithScrollClock(clock.Now))
	defer s.Close()
	if resp, _ := get(t, s, "/companies/scroll", nil); resp.StatusCode != 200 {
		t.Fatalf("open: %d", resp.StatusCode)
	}
	clock.Advance(50 * time.Millisecond) // idle for exactly the timeout: still open
	resp, body := get(t, s, "/companies/scroll", nil)
	wantError(t, resp, body, http.StatusBadRequest, "scroll_exists")
	clock.Advance(51 * time.Millisecond)
	if resp, _ := get(t, s, "/companies/scroll", nil); resp.StatusCode != 200 {
		t.Errorf("open after the idle timeout: %d", resp.StatusCode)
	}
}
