package mailchimptest_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/kinds/mailchimp/mailchimptest"
)

// get sends a GET with the default API key (Basic, user "tributary") and
// decodes the JSON body into a map.
func get(t *testing.T, srv *mailchimptest.Server, path string, q url.Values) (*http.Response, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.URL.RawQuery = q.Encode()
	req.SetBasicAuth("tributary", mailchimptest.DefaultAPIKey)
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (*http.Response, map[string]any) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("%s %s: decoding body: %v", req.Method, req.URL.Path, err)
	}
	return resp, body
}

func records(t *testing.T, body map[string]any, key string) []map[string]any {
	t.Helper()
	raw, ok := body[key].([]any)
	if !ok {
		t.Fatalf("envelope has no %q array: keys %v", key, keys(body))
	}
	out := make([]map[string]any, len(raw))
	for i, r := range raw {
		out[i] = r.(map[string]any)
	}
	return out
}

func keys(m map[string]any) []string {
	var k []string
	for key := range m {
		k = append(k, key)
	}
	slices.Sort(k)
	return k
}

func total(t *testing.T, body map[string]any) int {
	t.Helper()
	n, ok := body["total_items"].(float64)
	if !ok {
		t.Fatalf("no total_items in %v", keys(body))
	}
	return int(n)
}

func wantProblem(t *testing.T, resp *http.Response, body map[string]any, status int, title string) {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("status = %d, want %d (body %v)", resp.StatusCode, status, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json; charset=utf-8" {
		t.Errorf("Content-Type = %q, want problem+json", ct)
	}
	if body["title"] != title || body["status"] != float64(status) {
		t.Errorf("problem = %v, want title %q status %d", body, title, status)
	}
	for _, k := range []string{"type", "detail", "instance"} {
		if s, _ := body[k].(string); s == "" {
			t.Errorf("problem has no %s: %v", k, body)
		}
	}
	if body["instance"] != resp.Header.Get("X-Request-Id") {
		t.Errorf("instance %v != X-Request-Id %q", body["instance"], resp.Header.Get("X-Request-Id"))
	}
}

func TestAuthentication(t *testing.T) {
	srv := mailchimptest.New()
	defer srv.Close()

	for _, tc := range []struct {
		name, header string
		status       int
		title        string
	}{
		{"missing", "", 401, "API Key Missing"},
		{"wrong key", "Basic " + b64("anystring:not-the-key-us6"), 401, "API Key Invalid"},
		{"key without user separator", "Basic " + b64(mailchimptest.DefaultAPIKey), 401, "API Key Invalid"},
		{"wrong token", "Bearer nope", 401, "API Key Invalid"},
		{"any user name", "Basic " + b64("whoever:"+mailchimptest.DefaultAPIKey), 200, ""},
		{"empty user name", "Basic " + b64(":"+mailchimptest.DefaultAPIKey), 200, ""},
		{"oauth token", "Bearer " + mailchimptest.DefaultAccessToken, 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, srv.URL+"/3.0/lists", nil)
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			resp, body := do(t, req)
			if tc.status != 200 {
				wantProblem(t, resp, body, tc.status, tc.title)
				return
			}
			if resp.StatusCode != 200 {
				t.Fatalf("status = %d: %v", resp.StatusCode, body)
			}
		})
	}

	custom := mailchimptest.New(mailchimptest.WithCredentials("OTHERKEY-us1", ""))
	defer custom.Close()
	req, _ := http.NewRequest(http.MethodGet, custom.URL+"/3.0/ping", nil)
	req.Header.Set("Authorization", "Bearer "+mailchimptest.DefaultAccessToken)
	if resp, body := do(t, req); resp.StatusCode != 401 {
		t.Errorf("OAuth disabled: status = %d, %v", resp.StatusCode, body)
	}
	req.SetBasicAuth("u", "OTHERKEY-us1")
	if resp, body := do(t, req); resp.StatusCode != 200 || body["health_status"] != "Everything's Chimpy!" {
		t.Errorf("custom key: status = %d, %v", resp.StatusCode, body)
	}
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func TestOffsetPaging(t *testing.T) {
	srv := mailchimptest.New(mailchimptest.WithCampaigns(25))
	defer srv.Close()

	seen := map[string]bool{}
	offset := 0
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("paging does not end")
		}
		_, body := get(t, srv, "/3.0/campaigns", url.Values{"count": {"10"}, "offset": {fmt.Sprint(offset)}})
		recs := records(t, body, "campaigns")
		if total(t, body) != 25 {
			t.Fatalf("total_items = %d, want 25", total(t, body))
		}
		for _, r := range recs {
			id := r["id"].(string)
			if seen[id] {
				t.Fatalf("campaign %s seen twice", id)
			}
			seen[id] = true
		}
		offset += len(recs)
		if offset >= 25 {
			if len(recs) != 5 {
				t.Errorf("last page has %d records, want 5", len(recs))
			}
			break
		}
	}
	if len(seen) != 25 {
		t.Errorf("saw %d campaigns, want 25", len(seen))
	}

	// Default count is 10; past the end is an empty page with the same total.
	_, body := get(t, srv, "/3.0/campaigns", nil)
	if n := len(records(t, body, "campaigns")); n != 10 {
		t.Errorf("default page size = %d, want 10", n)
	}
	_, body = get(t, srv, "/3.0/campaigns", url.Values{"offset": {"30"}})
	if n := len(records(t, body, "campaigns")); n != 0 || total(t, body) != 25 {
		t.Errorf("past the end: %d records, total %d", n, total(t, body))
	}

	// sort_dir=DESC reverses the order.
	_, asc := get(t, srv, "/3.0/campaigns", url.Values{"count": {"25"}})
	_, desc := get(t, srv, "/3.0/campaigns", url.Values{"count": {"25"}, "sort_field": {"create_time"}, "sort_dir": {"DESC"}})
	a, d := records(t, asc, "campaigns"), records(t, desc, "campaigns")
	if a[0]["id"] != d[24]["id"] || a[24]["id"] != d[0]["id"] {
		t.Error("sort_dir=DESC does not reverse the order")
	}
}

func TestCountLimit(t *testing.T) {
	srv := mailchimptest.New()
	defer srv.Close()

	if resp, _ := get(t, srv, "/3.0/lists", url.Values{"count": {"1000"}}); resp.StatusCode != 200 {
		t.Fatalf("count=1000: status %d", resp.StatusCode)
	}
	for _, q := range []url.Values{{"count": {"1001"}}, {"count": {"ten"}}, {"offset": {"-1"}}} {
		resp, body := get(t, srv, "/3.0/lists", q)
		wantProblem(t, resp, body, 400, "Invalid Resource")
		errs, _ := body["errors"].([]any)
		if len(errs) != 1 {
			t.Fatalf("%v: errors = %v", q, body["errors"])
		}
		if f := errs[0].(map[string]any)["field"]; f != "count" && f != "offset" {
			t.Errorf("%v: field = %v", q, f)
		}
	}
	resp, body := get(t, srv, "/3.0/campaigns", url.Values{"since_send_time": {"last tuesday"}})
	wantProblem(t, resp, body, 400, "Invalid Resource")
}

func TestNotFoundAndMethods(t *testing.T) {
	srv := mailchimptest.New()
	defer srv.Close()

	for _, path := range []string{"/3.0/campaigns/ffffffffff", "/3.0/lists/nope", "/3.0/nothing", "/campaigns",
		"/3.0/lists/" + listID(t, srv, 0) + "/members/" + mailchimptest.SubscriberHash("nobody@example.com")} {
		resp, body := get(t, srv, path, nil)
		wantProblem(t, resp, body, 404, "Resource Not Found")
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/3.0/lists", strings.NewReader(`{}`))
	req.SetBasicAuth("u", mailchimptest.DefaultAPIKey)
	resp, body := do(t, req)
	wantProblem(t, resp, body, 405, "Method Not Allowed")
	if resp.Header.Get("Allow") != "GET" {
		t.Errorf("Allow = %q", resp.Header.Get("Allow"))
	}
}

func listID(t *testing.T, srv *mailchimptest.Server, i int) string {
	t.Helper()
	_, body := get(t, srv, "/3.0/lists", url.Values{"count": {"100"}})
	return records(t, body, "lists")[i]["id"].(string)
}

// TestEveryEndpoint walks every entity of the catalogue through its list and
// get paths and checks the envelopes and ids.
func TestEveryEndpoint(t *testing.T) {
	srv := mailchimptest.New()
	defer srv.Close()

	_, body := get(t, srv, "/3.0/campaigns", url.Values{"status": {"sent"}, "count": {"1"}})
	camp := records(t, body, "campaigns")[0]
	cid := camp["id"].(string)
	lid := listID(t, srv, 0)

	_, body = get(t, srv, "/3.0/lists/"+lid+"/interest-categories", nil)
	cat := records(t, body, "categories")[0]["id"].(string)
	_, body = get(t, srv, "/3.0/lists/"+lid+"/interest-categories/"+cat+"/interests", nil)
	interest := records(t, body, "interests")[0]["id"].(string)
	_, body = get(t, srv, "/3.0/lists/"+lid+"/segments", nil)
	seg := fmt.Sprint(int64(records(t, body, "segments")[0]["id"].(float64)))
	hash := mailchimptest.SubscriberHash("Member3@Example.com")

	lists := []struct{ path, key string }{
		{"/3.0/campaigns", "campaigns"},
		{"/3.0/lists", "lists"},
		{"/3.0/lists/" + lid + "/members", "members"},
		{"/3.0/reports", "reports"},
		{"/3.0/reports/" + cid + "/email-activity", "emails"},
		{"/3.0/automations", "automations"},
		{"/3.0/lists/" + lid + "/tag-search", "tags"},
		{"/3.0/lists/" + lid + "/interest-categories", "categories"},
		{"/3.0/lists/" + lid + "/interest-categories/" + cat + "/interests", "interests"},
		{"/3.0/lists/" + lid + "/segments", "segments"},
		{"/3.0/lists/" + lid + "/segments/" + seg + "/members", "members"},
		{"/3.0/reports/" + cid + "/unsubscribed", "unsubscribes"},
	}
	for _, tc := range lists {
		resp, body := get(t, srv, tc.path, nil)
		if resp.StatusCode != 200 {
			t.Errorf("%s: status %d %v", tc.path, resp.StatusCode, body)
			continue
		}
		recs := records(t, body, tc.key)
		if len(recs) == 0 || total(t, body) < len(recs) {
			t.Errorf("%s: %d records, total_items %d", tc.path, len(recs), total(t, body))
		}
		if tc.key != "tags" {
			links, _ := body["_links"].([]any)
			if len(links) == 0 || !strings.HasPrefix(links[len(links)-1].(map[string]any)["href"].(string), "https://us6.api.mailchimp.com/3.0/") {
				t.Errorf("%s: _links %v not built on Mailchimp's origin", tc.path, body["_links"])
			}
		}
		for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "Retry-After"} {
			if resp.Header.Get(h) != "" {
				t.Errorf("%s: Mailchimp sends no %s", tc.path, h)
			}
		}
	}

	gets := []struct{ path, field, want string }{
		{"/3.0/campaigns/" + cid, "id", cid},
		{"/3.0/lists/" + lid, "id", lid},
		{"/3.0/lists/" + lid + "/members/" + hash, "email_address", "member3@example.com"},
		{"/3.0/lists/" + lid + "/members/MEMBER3@example.com", "id", hash},
		{"/3.0/reports/" + cid, "id", cid},
		{"/3.0/lists/" + lid + "/interest-categories/" + cat, "id", cat},
		{"/3.0/lists/" + lid + "/interest-categories/" + cat + "/interests/" + interest, "id", interest},
		{"/3.0/lists/" + lid + "/segments/" + seg, "id", seg},
	}
	for _, tc := range gets {
		resp, body := get(t, srv, tc.path, nil)
		if resp.StatusCode != 200 {
			t.Errorf("%s: status %d %v", tc.path, resp.StatusCode, body)
			continue
		}
		if got := fmt.Sprint(body[tc.field]); got != tc.want {
			t.Errorf("%s: %s = %s, want %s", tc.path, tc.field, got, tc.want)
		}
	}

	// A draft campaign has no report.
	_, body = get(t, srv, "/3.0/campaigns", url.Values{"status": {"save"}, "count": {"1"}})
	draft := records(t, body, "campaigns")[0]["id"].(string)
	resp, body := get(t, srv, "/3.0/reports/"+draft, nil)
	wantProblem(t, resp, body, 404, "Resource Not Found")
}

func TestFilters(t *testing.T) {
	srv := mailchimptest.New(mailchimptest.WithCampaigns(100), mailchimptest.WithListMembers(200))
	defer srv.Close()
	lid := listID(t, srv, 1)

	_, body := get(t, srv, "/3.0/campaigns", url.Values{"status": {"sent"}, "count": {"1000"}})
	for _, c := range records(t, body, "campaigns") {
		if c["status"] != "sent" {
			t.Fatalf("status filter let through %v", c["status"])
		}
	}
	if total(t, body) != 70 {
		t.Errorf("sent campaigns = %d, want 70", total(t, body))
	}
	_, reports := get(t, srv, "/3.0/reports", url.Values{"count": {"1"}})
	if total(t, reports) != 70 {
		t.Errorf("reports = %d, want one per sent campaign (70)", total(t, reports))
	}

	_, body = get(t, srv, "/3.0/lists/"+lid+"/members", url.Values{"status": {"unsubscribed"}, "count": {"1000"}})
	for _, m := range records(t, body, "members") {
		if m["status"] != "unsubscribed" || m["list_id"] != lid {
			t.Fatalf("member %v", m)
		}
	}
	if total(t, body) != 10 {
		t.Errorf("unsubscribed = %d, want 10", total(t, body))
	}
	_, body = get(t, srv, "/3.0/lists/"+lid+"/members", url.Values{"vip_only": {"true"}})
	if total(t, body) != 8 {
		t.Errorf("vip members = %d, want 8", total(t, body))
	}

	// since_last_changed: everything changed after the last member's time is nothing.
	_, body = get(t, srv, "/3.0/lists/"+lid+"/members", url.Values{"since_last_changed": {"2999-01-01T00:00:00+00:00"}})
	if total(t, body) != 0 {
		t.Errorf("since far future: %d", total(t, body))
	}

	// Segment members leave out unsubscribed, cleaned and transactional unless asked.
	_, body = get(t, srv, "/3.0/lists/"+lid+"/segments", nil)
	seg := fmt.Sprint(int64(records(t, body, "segments")[0]["id"].(float64)))
	_, plain := get(t, srv, "/3.0/lists/"+lid+"/segments/"+seg+"/members", url.Values{"count": {"1000"}})
	_, all := get(t, srv, "/3.0/lists/"+lid+"/segments/"+seg+"/members", url.Values{"count": {"1000"},
		"include_cleaned": {"true"}, "include_transactional": {"true"}, "include_unsubscribed": {"true"}})
	if total(t, all) != 67 || total(t, plain) >= total(t, all) {
		t.Errorf("segment members: %d without include_*, %d with (want 67)", total(t, plain), total(t, all))
	}

	// Tag search is a prefix match.
	_, body = get(t, srv, "/3.0/lists/"+lid+"/tag-search", url.Values{"name": {"news"}})
	tags := records(t, body, "tags")
	if len(tags) != 1 || tags[0]["name"] != "newsletter" {
		t.Errorf("tag-search name=news: %v", tags)
	}
}

func TestConcurrencyLimit(t *testing.T) {
	srv := mailchimptest.New(mailchimptest.WithConcurrencyLimit(2),
		mailchimptest.WithProcessingTime(500*time.Millisecond))
	defer srv.Close()

	statuses := make([]int, 3)
	var wg sync.WaitGroup
	for i := range statuses {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodGet, srv.URL+"/3.0/ping", nil)
			req.SetBasicAuth("u", mailchimptest.DefaultAPIKey)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			statuses[i] = resp.StatusCode
			if resp.StatusCode == 429 && (resp.Header.Get("Retry-After") != "" ||
				resp.Header.Get("Content-Type") != "application/problem+json; charset=utf-8") {
				t.Errorf("429 headers: %v", resp.Header)
			}
		})
	}
	wg.Wait()
	slices.Sort(statuses)
	if !slices.Equal(statuses, []int{200, 200, 429}) {
		t.Errorf("statuses = %v, want two 200 and one 429", statuses)
	}
	if srv.MaxInFlight() != 2 || srv.TooManyRequests() != 1 {
		t.Errorf("MaxInFlight %d, TooManyRequests %d; want 2 and 1", srv.MaxInFlight(), srv.TooManyRequests())
	}
	// Once they finish, the slots are free again.
	if resp, body := get(t, srv, "/3.0/ping", nil); resp.StatusCode != 200 {
		t.Errorf("after: %d %v", resp.StatusCode, body)
	}
}

func TestInjectedFaults(t *testing.T) {
	srv := mailchimptest.New(mailchimptest.WithFaults(mailchimptest.Faults{RateLimitFirst: 1, ServerErrorFirst: 1}))
	defer srv.Close()

	resp, body := get(t, srv, "/3.0/lists", nil)
	wantProblem(t, resp, body, 429, "Too Many Requests")
	if resp.Header.Get("Retry-After") != "" {
		t.Errorf("Mailchimp's 429 has no Retry-After, got %q", resp.Header.Get("Retry-After"))
	}
	resp, body = get(t, srv, "/3.0/lists", nil)
	wantProblem(t, resp, body, 500, "Internal Server Error")
	if resp, _ = get(t, srv, "/3.0/lists", nil); resp.StatusCode != 200 {
		t.Errorf("third request: %d", resp.StatusCode)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("request log has %d entries, want 3", n)
	}
}

func TestLargeVolume(t *testing.T) {
	const n = 1_000_000
	srv := mailchimptest.New(mailchimptest.WithListMembers(n))
	defer srv.Close()
	lid := listID(t, srv, 0)

	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	_, body := get(t, srv, "/3.0/lists/"+lid+"/members", url.Values{"count": {"1000"}, "offset": {fmt.Sprint(n - 10)}})
	if recs := records(t, body, "members"); len(recs) != 10 || total(t, body) != n {
		t.Fatalf("last page: %d records, total %d", len(recs), total(t, body))
	}
	last := fmt.Sprintf("member%d@example.com", n-1)
	_, body = get(t, srv, "/3.0/lists/"+lid+"/members/"+mailchimptest.SubscriberHash(last), nil)
	if body["email_address"] != last {
		t.Errorf("member by hash = %v", body["email_address"])
	}
	// The last page and a member by hash are reached without making the
	// members before them: what the process allocates (a measure no load
	// on the machine moves, unlike a time) stays far below the hundreds of
	// MiB a million members made would take.
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if b := after.TotalAlloc - before.TotalAlloc; b > 64<<20 { // 7 MiB measured
		t.Errorf("allocated %d MiB", b>>20)
	}
}

// TestEmptyAccount checks that zero volumes give empty pages and 404s, never
// a failure.
func TestEmptyAccount(t *testing.T) {
	srv := mailchimptest.New(mailchimptest.WithCampaigns(0), mailchimptest.WithLists(1),
		mailchimptest.WithListMembers(0), mailchimptest.WithAutomations(0), mailchimptest.WithSegments(0),
		mailchimptest.WithInterestCategories(0), mailchimptest.WithTags(0))
	defer srv.Close()
	lid := listID(t, srv, 0)
	for _, tc := range []struct{ path, key string }{
		{"/3.0/campaigns", "campaigns"}, {"/3.0/reports", "reports"}, {"/3.0/automations", "automations"},
		{"/3.0/lists/" + lid + "/members?interest_ids=0000000000&interest_match=all", "members"},
		{"/3.0/lists/" + lid + "/segments", "segments"}, {"/3.0/lists/" + lid + "/interest-categories", "categories"},
		{"/3.0/lists/" + lid + "/tag-search", "tags"},
	} {
		path, query, _ := strings.Cut(tc.path, "?")
		q, _ := url.ParseQuery(query)
		resp, body := get(t, srv, path, q)
		if resp.StatusCode != 200 || len(records(t, body, tc.key)) != 0 || total(t, body) != 0 {
			t.Errorf("%s: %d %v", tc.path, resp.StatusCode, body)
		}
	}
	for _, path := range []string{"/3.0/lists/" + lid + "/segments/100000", "/3.0/lists/" + lid + "/segments/100000/members",
		"/3.0/lists/" + lid + "/interest-categories/2f7d9a4c61", "/3.0/lists/" + lid + "/members/member0@example.com"} {
		resp, body := get(t, srv, path, nil)
		wantProblem(t, resp, body, 404, "Resource Not Found")
	}
	_, body := get(t, srv, "/3.0/lists/"+lid, nil)
	if stats := body["stats"].(map[string]any); stats["member_count"] != float64(0) || stats["campaign_last_sent"] != "" {
		t.Errorf("empty list stats = %v", stats)
	}
}

// TestNoLists checks campaigns, reports and automations of an account
// without audiences.
func TestNoLists(t *testing.T) {
	srv := mailchimptest.New(mailchimptest.WithLists(0))
	defer srv.Close()
	_, body := get(t, srv, "/3.0/campaigns", url.Values{"status": {"sent"}, "list_id": {""}})
	cid := records(t, body, "campaigns")[0]["id"].(string)
	for _, tc := range []struct{ path, key string }{
		{"/3.0/reports", "reports"}, {"/3.0/automations", "automations"}, {"/3.0/lists", "lists"},
		{"/3.0/reports/" + cid + "/email-activity", "emails"}, {"/3.0/reports/" + cid + "/unsubscribed", "unsubscribes"},
	} {
		if resp, body := get(t, srv, tc.path, nil); resp.StatusCode != 200 {
			t.Errorf("%s: %d %v", tc.path, resp.StatusCode, body)
		} else {
			records(t, body, tc.key)
		}
	}
}

// A client that waits for each whole response before sending the next
// request never exceeds the limit, even a limit of one: the fake frees the
// slot when the response starts, not after the last byte has left.
func TestConcurrencySlotFreedWithResponse(t *testing.T) {
	srv := mailchimptest.New(mailchimptest.WithConcurrencyLimit(1), mailchimptest.WithListMembers(500))
	defer srv.Close()
	l := listID(t, srv, 0)
	for i := range 20 {
		resp, body := get(t, srv, "/3.0/lists/"+l+"/members", url.Values{"count": {"100"}})
		if resp.StatusCode != 200 {
			t.Fatalf("request %d: %d %v", i, resp.StatusCode, body["title"])
		}
	}
	if srv.TooManyRequests() != 0 || srv.MaxInFlight() != 1 {
		t.Errorf("TooManyRequests %d, MaxInFlight %d", srv.TooManyRequests(), srv.MaxInFlight())
	}
}
