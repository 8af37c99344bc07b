package zendesktest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// get sends a GET with the default API-token credentials unless auth says
// otherwise ("" for none), without following redirects.
func get(t *testing.T, rawURL, auth string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func basic(email, token string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(email+"/token:"+token))
}

var defaultAuth = basic(DefaultEmail, DefaultAPIToken)

func decode(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, body)
	}
	return m
}

func ids(t *testing.T, m map[string]any, key string) []string {
	t.Helper()
	list, ok := m[key].([]any)
	if !ok {
		t.Fatalf("no %q array in %v", key, m)
	}
	var out []string
	for _, r := range list {
		out = append(out, string(r.(map[string]any)["id"].(json.Number)))
	}
	return out
}

func wantStatus(t *testing.T, resp *http.Response, body []byte, status int) {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("%s: status %d, want %d\n%s", resp.Request.URL, resp.StatusCode, status, body)
	}
}

func TestOffsetWalkAllTickets(t *testing.T) {
	s := New()
	defer s.Close()
	next := s.URL + "/api/v2/tickets.json?per_page=100&sort_by=id"
	var got []string
	pages := 0
	for next != "" {
		resp, body := get(t, next, defaultAuth)
		wantStatus(t, resp, body, http.StatusOK)
		if resp.Header.Get("X-Rate-Limit") != "700" || resp.Header.Get("X-Rate-Limit-Remaining") == "" {
			t.Errorf("rate-limit headers missing: %v", resp.Header)
		}
		m := decode(t, body)
		if c := m["count"].(json.Number).String(); c != "250" {
			t.Errorf("count = %s, want 250", c)
		}
		pages++
		if pages == 2 {
			prev, _ := m["previous_page"].(string)
			if !strings.HasPrefix(prev, s.URL+"/api/v2/tickets.json?") || !strings.Contains(prev, "page=1") ||
				!strings.Contains(prev, "sort_by=id") {
				t.Errorf("previous_page = %q", prev)
			}
		}
		got = append(got, ids(t, m, "tickets")...)
		next, _ = m["next_page"].(string)
	}
	if pages != 3 || len(got) != 250 {
		t.Fatalf("walked %d pages, %d tickets; want 3, 250", pages, len(got))
	}
	for i, id := range got {
		if id != strconv.FormatInt(TicketID(i), 10) {
			t.Fatalf("ticket %d has id %s, want %d", i, id, TicketID(i))
		}
	}
}

func TestCursorWalk(t *testing.T) {
	s := New(WithTickets(1234))
	defer s.Close()
	walk := func(start, link string) []string {
		var got []string
		next := start
		for i := 0; next != ""; i++ {
			if i > 100 {
				t.Fatal("cursor walk does not end")
			}
			resp, body := get(t, next, defaultAuth)
			wantStatus(t, resp, body, http.StatusOK)
			m := decode(t, body)
			if _, ok := m["count"]; ok {
				t.Error("cursor page carries count")
			}
			if _, ok := m["next_page"]; ok {
				t.Error("cursor page carries next_page")
			}
			page := ids(t, m, "tickets")
			if link == "prev" {
				got = append(page, got...)
			} else {
				got = append(got, page...)
			}
			meta := m["meta"].(map[string]any)
			links := m["links"].(map[string]any)
			if len(page) > 0 && links["next"] == nil {
				t.Error("non-empty page without links.next")
			}
			next = ""
			if meta["has_more"].(bool) {
				next = links[link].(string)
			}
		}
		return got
	}
	fwd := walk(s.URL+"/api/v2/tickets?page[size]=100", "next")
	if len(fwd) != 1234 || fwd[0] != "35436" || fwd[1233] != strconv.FormatInt(TicketID(1233), 10) {
		t.Fatalf("forward walk: %d tickets, first %s", len(fwd), fwd[0])
	}
	// Walk back from the last page.
	resp, body := get(t, s.URL+"/api/v2/tickets?page[size]=100&page[before]="+url.QueryEscape(encodeCursor("tickets", 1234)), defaultAuth)
	wantStatus(t, resp, body, http.StatusOK)
	back := walk(s.URL+"/api/v2/tickets?page[size]=100&page[before]="+url.QueryEscape(encodeCursor("tickets", 1234)), "prev")
	if len(back) != 1234 || back[0] != fwd[0] || back[1233] != fwd[1233] {
		t.Fatalf("backward walk: %d tickets", len(back))
	}
	// Descending order in cursor mode: sort=-id.
	resp, body = get(t, s.URL+"/api/v2/tickets?page[size]=2&sort=-id", defaultAuth)
	wantStatus(t, resp, body, http.StatusOK)
	if got := ids(t, decode(t, body), "tickets"); got[0] != fwd[1233] {
		t.Errorf("sort=-id starts at %s", got[0])
	}
}

func TestCursorErrors(t *testing.T) {
	s := New()
	defer s.Close()
	for _, q := range []string{
		"page[size]=101",
		"page[size]=0",
		"page[size]=x",
		"page[size]=10&page[after]=not-a-cursor",
		"page[size]=10&page[after]=" + url.QueryEscape(encodeCursor("users", 3)),
		"page[size]=10&page[after]=" + url.QueryEscape(encodeCursor("tickets", 3)) + "&page[before]=" + url.QueryEscape(encodeCursor("tickets", 9)),
	} {
		resp, body := get(t, s.URL+"/api/v2/tickets.json?"+q, defaultAuth)
		wantStatus(t, resp, body, http.StatusBadRequest)
		if m := decode(t, body); m["error"] != "InvalidPaginationParameter" || m["description"] == nil {
			t.Errorf("%s: body %s", q, body)
		}
	}
}

func TestOffsetDepthLimit(t *testing.T) {
	s := New(WithTickets(10_001))
	defer s.Close()
	resp, body := get(t, s.URL+"/api/v2/tickets.json?page=100", defaultAuth)
	wantStatus(t, resp, body, http.StatusOK)
	m := decode(t, body)
	next, _ := m["next_page"].(string)
	if !strings.Contains(next, "page=101") {
		t.Fatalf("page 100 next_page = %q", next)
	}
	resp, body = get(t, next, defaultAuth)
	wantStatus(t, resp, body, http.StatusBadRequest)
	errs, _ := decode(t, body)["errors"].([]any)
	if len(errs) != 1 || errs[0].(map[string]any)["code"] != "InvalidPaginationDepth" {
		t.Fatalf("body %s", body)
	}
	// per_page above 100 is clamped, and the depth counts page*per_page.
	resp, body = get(t, s.URL+"/api/v2/users.json?per_page=500", defaultAuth)
	wantStatus(t, resp, body, http.StatusOK)
	if n := len(ids(t, decode(t, body), "users")); n != 50 {
		t.Errorf("per_page=500 gave %d users", n)
	}
	resp, body = get(t, s.URL+"/api/v2/users.json?page=101&per_page=1", defaultAuth)
	wantStatus(t, resp, body, http.StatusBadRequest)
}

func TestUnauthorized(t *testing.T) {
	s := New()
	defer s.Close()
	for name, auth := range map[string]string{
		"none":        "",
		"wrong token": basic(DefaultEmail, "nope"),
		"wrong email": basic("other@example.com", DefaultAPIToken),
		"password":    "Basic " + base64.StdEncoding.EncodeToString([]byte(DefaultEmail+":"+DefaultAPIToken)),
		"bearer":      "Bearer nope",
		"garbage":     "Basic ###",
	} {
		resp, body := get(t, s.URL+"/api/v2/tickets.json", auth)
		wantStatus(t, resp, body, http.StatusUnauthorized)
		if string(body) != `{"error":"Couldn't authenticate you"}` {
			t.Errorf("%s: body %s", name, body)
		}
		if resp.Header.Get("Content-Type") != "application/json; charset=utf-8" || resp.Header.Get("X-Rate-Limit") == "" {
			t.Errorf("%s: headers %v", name, resp.Header)
		}
	}
	resp, body := get(t, s.URL+"/api/v2/tickets.json", "Bearer "+DefaultAccessToken)
	wantStatus(t, resp, body, http.StatusOK)
}

func TestNotFoundAndForbidden(t *testing.T) {
	s := New()
	defer s.Close()
	for _, p := range []string{"/api/v2/tickets/999.json", "/api/v2/users/9007199254740994", "/api/v2/tickets/abc",
		"/api/v2/tickets/999/comments", "/api/v2/attachments/1", "/api/v2/help_center/articles/1"} {
		resp, body := get(t, s.URL+p, defaultAuth)
		wantStatus(t, resp, body, http.StatusNotFound)
		if string(body) != `{"error":"RecordNotFound","description":"Not found"}` {
			t.Errorf("%s: body %s", p, body)
		}
	}
	resp, body := get(t, s.URL+"/api/v2/no_such_thing.json", defaultAuth)
	wantStatus(t, resp, body, http.StatusNotFound)
	if decode(t, body)["error"] != "InvalidEndpoint" {
		t.Errorf("unknown endpoint body %s", body)
	}
	resp, body = get(t, s.URL+"/api/v2/tickets/403.json", defaultAuth)
	wantStatus(t, resp, body, http.StatusForbidden)
	e, ok := decode(t, body)["error"].(map[string]any)
	if !ok || e["title"] != "Forbidden" || e["message"] == nil {
		t.Errorf("403 body %s", body)
	}
}

func TestJSONSuffixOptional(t *testing.T) {
	s := New()
	defer s.Close()
	for _, p := range []string{"/api/v2/tickets", "/api/v2/tickets/35440", "/api/v2/tickets/35440/comments",
		"/api/v2/users", "/api/v2/slas/policies", "/api/v2/help_center/articles", "/api/v2/ticket_audits?limit=3"} {
		path, query, _ := strings.Cut(p, "?")
		r1, b1 := get(t, s.URL+path+"?"+query, defaultAuth)
		r2, b2 := get(t, s.URL+path+".json?"+query, defaultAuth)
		wantStatus(t, r1, b1, http.StatusOK)
		wantStatus(t, r2, b2, http.StatusOK)
		// Paging links echo the path as sent; records must be identical.
		norm := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte(path+".json"), []byte(path)) }
		if !bytes.Equal(norm(b1), norm(b2)) {
			t.Errorf("%s: bodies differ with .json", p)
		}
	}
}

func TestLargeIDsStayExact(t *testing.T) {
	s := New()
	defer s.Close()
	_, body := get(t, s.URL+"/api/v2/users.json?per_page=1", defaultAuth)
	if got := ids(t, decode(t, body), "users")[0]; got != "9007199254740993" {
		t.Errorf("first user id %s", got)
	}
	_, body = get(t, s.URL+"/api/v2/organizations/"+strconv.FormatInt(OrganizationID(3), 10)+".json", defaultAuth)
	org := decode(t, body)["organization"].(map[string]any)
	if org["id"].(json.Number).String() != "9100000000000000007" {
		t.Errorf("organization id %v", org["id"])
	}
}

func TestFilters(t *testing.T) {
	s := New()
	defer s.Close()
	count := func(p string) int {
		resp, body := get(t, s.URL+p, defaultAuth)
		wantStatus(t, resp, body, http.StatusOK)
		n, _ := decode(t, body)["count"].(json.Number).Int64()
		return int(n)
	}
	if n := count("/api/v2/users.json?role=agent"); n != 15 {
		t.Errorf("agents: %d", n)
	}
	if n := count("/api/v2/users.json?role[]=agent&role[]=admin"); n != 20 {
		t.Errorf("agents+admins: %d", n)
	}
	if n := count("/api/v2/tickets.json?external_id=ext-4"); n != 1 {
		t.Errorf("external_id: %d", n)
	}
	if n := count("/api/v2/groups.json?exclude_deleted=true"); n != 5 {
		t.Errorf("groups: %d", n)
	}
	if n := count("/api/v2/satisfaction_ratings.json?score=bad"); n != 3 {
		t.Errorf("bad ratings: %d", n)
	}
	resp, body := get(t, s.URL+"/api/v2/satisfaction_ratings.json?score=meh", defaultAuth)
	wantStatus(t, resp, body, http.StatusBadRequest)
	if _, ok := decode(t, body)["details"].(map[string]any)["score"]; !ok {
		t.Errorf("details: %s", body)
	}
	for _, e := range []string{"tickets", "users", "organizations", "groups", "ticket_metrics", "ticket_fields",
		"brands", "views", "macros", "triggers", "automations", "tags", "satisfaction_ratings",
		"group_memberships", "organization_memberships", "ticket_forms"} {
		if got := count("/api/v2/" + e + ".json"); got != s.Total(e) {
			t.Errorf("%s: count %d, Total %d", e, got, s.Total(e))
		}
	}
}

func TestLegacyAuditWalk(t *testing.T) {
	s := New()
	defer s.Close()
	next := s.URL + "/api/v2/ticket_audits.json?limit=100"
	seen := map[string]bool{}
	for i := 0; next != ""; i++ {
		if i > 20 {
			t.Fatal("audit walk does not end")
		}
		resp, body := get(t, next, defaultAuth)
		wantStatus(t, resp, body, http.StatusOK)
		m := decode(t, body)
		if i == 0 && m["after_url"] != nil {
			t.Error("the most recent page has an after_url")
		}
		for _, id := range ids(t, m, "audits") {
			seen[id] = true
		}
		next, _ = m["before_url"].(string)
	}
	if len(seen) != s.Total("ticket_audits") {
		t.Fatalf("walked %d audits, want %d", len(seen), s.Total("ticket_audits"))
	}
}

// onFake returns u, a URL on Zendesk's origin, on the fake's.
func onFake(s *Server, u string) string {
	return s.URL + strings.TrimPrefix(u, s.Origin())
}

func TestAttachmentRedirectAndRange(t *testing.T) {
	s := New(WithAttachmentSize(1000))
	defer s.Close()
	id := AttachmentID(0, 0, 0)
	resp, body := get(t, s.URL+"/api/v2/attachments/"+strconv.FormatInt(id, 10)+".json", defaultAuth)
	wantStatus(t, resp, body, http.StatusOK)
	att := decode(t, body)["attachment"].(map[string]any)
	contentURL := att["content_url"].(string)
	if !strings.HasPrefix(contentURL, "https://acme.zendesk.com/attachments/token/") || !strings.Contains(contentURL, "/?name=") {
		t.Fatalf("content_url %q, want it on Zendesk's origin", contentURL)
	}
	// Zendesk serves content_url without credentials (no secure downloads);
	// the fake serves its path.
	resp, body = get(t, onFake(s, contentURL), "")
	wantStatus(t, resp, body, http.StatusFound)
	loc := resp.Header.Get("Location")
	if !strings.HasPrefix(loc, s.FilesURL+"/files/") {
		t.Fatalf("Location %q", loc)
	}
	req, _ := http.NewRequest(http.MethodGet, loc, nil)
	req.Header.Set("Range", "bytes=100-199")
	fresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	part, _ := io.ReadAll(fresp.Body)
	fresp.Body.Close()
	want, _ := s.FileContent(id)
	if fresp.StatusCode != http.StatusPartialContent || fresp.Header.Get("Content-Range") != "bytes 100-199/1000" ||
		fresp.Header.Get("ETag") == "" || fresp.Header.Get("Accept-Ranges") != "bytes" || !bytes.Equal(part, want[100:200]) {
		t.Fatalf("ranged GET: %d %v", fresp.StatusCode, fresp.Header)
	}
	for _, r := range s.Requests() {
		if r.Origin == "files" && r.Header.Get("Authorization") != "" {
			t.Error("credentials reached the file host")
		}
	}

	// Article attachments: content_url on the API origin, 302 to the file host.
	aid := ArticleAttachmentID(1, 1)
	resp, body = get(t, s.URL+"/api/v2/help_center/articles/"+strconv.FormatInt(ArticleID(1), 10)+"/attachments/"+strconv.FormatInt(aid, 10), defaultAuth)
	wantStatus(t, resp, body, http.StatusOK)
	aatt := decode(t, body)["article_attachment"].(map[string]any)
	resp, body = get(t, onFake(s, aatt["content_url"].(string)), "")
	wantStatus(t, resp, body, http.StatusFound)
	fresp, err = http.Get(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	all, _ := io.ReadAll(fresp.Body)
	fresp.Body.Close()
	want, _ = s.FileContent(aid)
	if fresp.StatusCode != http.StatusOK || !bytes.Equal(all, want) || !bytes.HasPrefix(all, []byte("%PDF")) {
		t.Fatalf("article attachment download: %d, %d bytes", fresp.StatusCode, len(all))
	}
}

func TestTokenRotation(t *testing.T) {
	s := New()
	defer s.Close()
	refresh := func(rt string, asJSON bool) (*http.Response, map[string]any) {
		var req *http.Request
		if asJSON {
			b, _ := json.Marshal(map[string]string{"grant_type": "refresh_token", "refresh_token": rt,
				"client_id": DefaultClientID, "client_secret": DefaultClientSecret})
			req, _ = http.NewRequest(http.MethodPost, s.URL+"/oauth/tokens", bytes.NewReader(b))
			req.Header.Set("Content-Type", "application/json")
		} else {
			form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt},
				"client_id": {DefaultClientID}, "client_secret": {DefaultClientSecret}}
			req, _ = http.NewRequest(http.MethodPost, s.URL+"/oauth/tokens", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, decode(t, body)
	}
	resp, tok := refresh(DefaultRefreshToken, false)
	if resp.StatusCode != http.StatusOK || tok["token_type"] != "bearer" || tok["expires_in"] == nil || tok["scope"] == nil {
		t.Fatalf("refresh: %d %v", resp.StatusCode, tok)
	}
	access, newRefresh := tok["access_token"].(string), tok["refresh_token"].(string)
	if access == DefaultAccessToken || newRefresh == DefaultRefreshToken || s.AccessToken() != access || s.RefreshToken() != newRefresh {
		t.Fatalf("tokens not rotated: %v", tok)
	}
	r, b := get(t, s.URL+"/api/v2/users/me.json", "Bearer "+access)
	wantStatus(t, r, b, http.StatusOK)
	r, b = get(t, s.URL+"/api/v2/users/me.json", "Bearer "+DefaultAccessToken)
	wantStatus(t, r, b, http.StatusUnauthorized)

	resp, e := refresh(DefaultRefreshToken, true)
	if resp.StatusCode != http.StatusBadRequest || e["error"] != "invalid_grant" || e["error_description"] == nil {
		t.Fatalf("reused refresh token: %d %v", resp.StatusCode, e)
	}
	resp, tok = refresh(newRefresh, true)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("second refresh (JSON body): %d %v", resp.StatusCode, tok)
	}
	s.ExpireAccessTokens()
	r, b = get(t, s.URL+"/api/v2/users/me.json", "Bearer "+tok["access_token"].(string))
	wantStatus(t, r, b, http.StatusUnauthorized)
}

func TestVendorFaults(t *testing.T) {
	s := New(WithFaults(Faults{RateLimitFirst: 1, ServerErrorFirst: 1}))
	defer s.Close()
	resp, body := get(t, s.URL+"/api/v2/tickets.json", defaultAuth)
	wantStatus(t, resp, body, http.StatusTooManyRequests)
	if resp.Header.Get("Retry-After") != "1" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") ||
		string(body) != "Number of allowed API requests per minute exceeded" || resp.Header.Get("X-Rate-Limit-Remaining") != "0" {
		t.Errorf("429: %v %q", resp.Header, body)
	}
	resp, body = get(t, s.URL+"/api/v2/tickets.json", defaultAuth)
	wantStatus(t, resp, body, http.StatusServiceUnavailable)
	if decode(t, body)["error"] != "ServiceUnavailable" {
		t.Errorf("503 body %s", body)
	}
	resp, body = get(t, s.URL+"/api/v2/tickets.json", defaultAuth)
	wantStatus(t, resp, body, http.StatusOK)
}

func TestFileCutAndResume(t *testing.T) {
	s := New(WithAttachmentSize(1000), WithFileCutEvery(300))
	defer s.Close()
	id := AttachmentID(3, 0, 1)
	want, ok := s.FileContent(id)
	if !ok {
		t.Fatal("unknown attachment")
	}
	_, body := get(t, s.URL+"/api/v2/attachments/"+strconv.FormatInt(id, 10), defaultAuth)
	resp, _ := get(t, onFake(s, decode(t, body)["attachment"].(map[string]any)["content_url"].(string)), defaultAuth)
	loc := resp.Header.Get("Location")
	var got []byte
	for i := 0; len(got) < len(want); i++ {
		if i > 10 {
			t.Fatal("no progress")
		}
		req, _ := http.NewRequest(http.MethodGet, loc, nil)
		req.Header.Set("Range", "bytes="+strconv.Itoa(len(got))+"-")
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		part, _ := io.ReadAll(r.Body) // ends early: the connection is cut
		r.Body.Close()
		got = append(got, part...)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("resumed download differs")
	}
}

func TestCommentsInlineAndOrder(t *testing.T) {
	s := New()
	defer s.Close()
	// Ticket 4, comment 0: (4+0)%5 == 4, so it has an inline image.
	p := s.URL + "/api/v2/tickets/" + strconv.FormatInt(TicketID(4), 10) + "/comments.json"
	_, body := get(t, p, defaultAuth)
	_, bodyInline := get(t, p+"?include_inline_images=true", defaultAuth)
	first := func(b []byte) []any {
		return decode(t, b)["comments"].([]any)[0].(map[string]any)["attachments"].([]any)
	}
	if len(first(bodyInline)) != len(first(body))+1 {
		t.Errorf("inline image not added: %d vs %d", len(first(bodyInline)), len(first(body)))
	}
	_, desc := get(t, p+"?sort_order=desc", defaultAuth)
	asc := ids(t, decode(t, body), "comments")
	if got := ids(t, decode(t, desc), "comments"); got[0] != asc[len(asc)-1] {
		t.Errorf("sort_order=desc: %v vs %v", got, asc)
	}
}

// The fake's images are PNGs an image decoder reads, of the width and
// height their records give, and of their size: a ticket's screenshot and
// its thumbnail, a user's photo, the brand's logo, an article's diagram.
func TestImagesArePNGs(t *testing.T) {
	s := New()
	defer s.Close()
	for _, c := range []struct {
		id   int64
		w, h int
		size int
	}{
		{30_000_000_000_000, 800, 600, DefaultAttachmentSize}, // screenshot-0-0.png
		{40_000_000_000_000, 80, 60, 1024},                    // its thumbnail
		{70_000_000_000_000, 80, 80, 2048},                    // a user's photo
		{75_000_000_000_000, 200, 60, 2048},                   // the logo
		{ArticleAttachmentID(0, 0), 1, 1, DefaultAttachmentSize},
	} {
		b, ok := s.FileContent(c.id)
		if !ok {
			t.Fatalf("no file %d", c.id)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Errorf("file %d is not a PNG: %v", c.id, err)
			continue
		}
		if got := img.Bounds().Size(); got.X != c.w || got.Y != c.h || len(b) != c.size {
			t.Errorf("file %d: %dx%d, %d bytes; want %dx%d, %d bytes", c.id, got.X, got.Y, len(b), c.w, c.h, c.size)
		}
	}
	// Too small for a whole PNG: the signature still starts it.
	small := New(WithAttachmentSize(64))
	defer small.Close()
	if b, _ := small.FileContent(30_000_000_000_000); len(b) != 64 || !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("a 64-byte image: %q", b)
	}
}

// The fake announces the account's budget as Zendesk does: X-Rate-Limit
// and X-Rate-Limit-Remaining on every answer, ratelimit-limit, -remaining
// and -reset (seconds) on lists, and List Tickets' own in
// zendesk-ratelimit-tickets-index; counted down in windows where a limit
// is enforced.
func TestRateLimitHeaders(t *testing.T) {
	clock := fakeserver.NewClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).Add(30 * time.Hour))
	s := New(WithClock(clock), WithAPIRateLimit(10, time.Minute), WithTicketsIndexRateLimit(4, time.Minute))
	defer s.Close()
	clock.Advance(20 * time.Second) // 40 s left in the window
	for i, c := range []struct {
		path                    string
		remaining, reset, index string
	}{
		{"/api/v2/tickets.json", "9", "40", "total=4; remaining=3; resets=40"},
		{"/api/v2/groups.json", "8", "40", ""},
		{"/api/v2/users/me.json", "7", "", ""},
		{"/api/v2/tickets", "6", "40", "total=4; remaining=2; resets=40"},
	} {
		resp, _ := get(t, s.URL+c.path, defaultAuth)
		h := resp.Header
		if resp.StatusCode != 200 || h.Get("X-Rate-Limit") != "10" || h.Get("X-Rate-Limit-Remaining") != c.remaining ||
			h.Get("Ratelimit-Reset") != c.reset || h.Get("Zendesk-Ratelimit-Tickets-Index") != c.index ||
			(c.reset != "" && (h.Get("Ratelimit-Limit") != "10" || h.Get("Ratelimit-Remaining") != c.remaining)) {
			t.Errorf("answer %d (%s): %d %v", i+1, c.path, resp.StatusCode, h)
		}
	}
}
