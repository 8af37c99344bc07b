package gongtest_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/kinds/gong/gongtest"
)

var basic = "Basic " + base64.StdEncoding.EncodeToString([]byte(gongtest.DefaultAccessKey+":"+gongtest.DefaultAccessKeySecret))

type response struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

// call sends one request with plain net/http. body, when non-nil, is sent as
// JSON; headers may override Authorization ("" removes it).
func call(t *testing.T, method, u string, body any, headers map[string]string) response {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", basic)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := response{status: res.StatusCode, header: res.Header, raw: raw}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &out.body); err != nil {
			t.Fatalf("%s %s: %v: %s", method, u, err, raw)
		}
	}
	return out
}

func (r response) errMessage(t *testing.T) string {
	t.Helper()
	errs, _ := r.body["errors"].([]any)
	if len(errs) != 1 || r.body["requestId"] == "" {
		t.Fatalf("not a Gong error body: %s", r.raw)
	}
	return errs[0].(string)
}

func (r response) records(t *testing.T) map[string]any {
	t.Helper()
	rec, ok := r.body["records"].(map[string]any)
	if !ok {
		t.Fatalf("no records block: %s", r.raw)
	}
	return rec
}

func ids(t *testing.T, r response, key, field string) []string {
	t.Helper()
	items, ok := r.body[key].([]any)
	if !ok {
		t.Fatalf("no %q array: %.300s", key, r.raw)
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		m := it.(map[string]any)
		for _, f := range strings.Split(field, ".") {
			if next, ok := m[f].(map[string]any); ok {
				m = next
				continue
			}
			out = append(out, m[f].(string))
		}
	}
	return out
}

func TestAuthentication(t *testing.T) {
	s := gongtest.New()
	defer s.Close()
	for name, auth := range map[string]string{
		"missing":      "",
		"wrong secret": "Basic " + base64.StdEncoding.EncodeToString([]byte(gongtest.DefaultAccessKey+":nope")),
		"wrong token":  "Bearer nope",
	} {
		r := call(t, "GET", s.URL+"/v2/users", nil, map[string]string{"Authorization": auth})
		if r.status != http.StatusUnauthorized || r.errMessage(t) != gongtest.AccessDenied {
			t.Errorf("%s: %d %s", name, r.status, r.raw)
		}
	}
	for _, auth := range []string{basic, "Bearer " + gongtest.DefaultAccessToken} {
		if r := call(t, "GET", s.URL+"/v2/workspaces", nil, map[string]string{"Authorization": auth}); r.status != 200 {
			t.Errorf("%s: %d %s", auth, r.status, r.raw)
		}
	}
}

func TestUsersPaging(t *testing.T) {
	s := gongtest.New(gongtest.WithUsers(250))
	defer s.Close()
	var got []string
	cursor := ""
	for page := 0; ; page++ {
		u := s.URL + "/v2/users"
		if cursor != "" {
			u += "?cursor=" + url.QueryEscape(cursor)
		}
		r := call(t, "GET", u, nil, nil)
		if r.status != 200 {
			t.Fatalf("page %d: %d %s", page, r.status, r.raw)
		}
		rec := r.records(t)
		got = append(got, ids(t, r, "users", "id")...)
		if rec["totalRecords"] != 250.0 || rec["currentPageNumber"] != float64(page) {
			t.Errorf("page %d records %v", page, rec)
		}
		c, more := rec["cursor"].(string)
		if !more {
			if rec["currentPageSize"] != 50.0 || page != 2 {
				t.Errorf("last page %d records %v", page, rec)
			}
			break
		}
		if rec["currentPageSize"] != 100.0 {
			t.Errorf("page %d records %v", page, rec)
		}
		cursor = c
	}
	if len(got) != 250 || got[0] != s.UserID(0) || got[249] != s.UserID(249) {
		t.Errorf("got %d users, first %s last %s", len(got), got[0], got[len(got)-1])
	}
}

func TestGetUserAndCall(t *testing.T) {
	s := gongtest.New()
	defer s.Close()
	r := call(t, "GET", s.URL+"/v2/users/"+s.UserID(6), nil, nil)
	user, _ := r.body["user"].(map[string]any)
	if r.status != 200 || user["id"] != s.UserID(6) || user["managerId"] != s.UserID(1) {
		t.Errorf("%d %s", r.status, r.raw)
	}
	r = call(t, "GET", s.URL+"/v2/calls/"+s.CallID(7), nil, nil)
	c, _ := r.body["call"].(map[string]any)
	if r.status != 200 || c["id"] != s.CallID(7) || c["primaryUserId"] != s.UserID(7) || c["started"] != "2024-01-01T15:02:00Z" {
		t.Errorf("%d %s", r.status, r.raw)
	}
	for _, p := range []string{"/v2/users/3041859475209999999", "/v2/calls/7782342274099999999"} {
		r := call(t, "GET", s.URL+p, nil, nil)
		if r.status != 404 || r.errMessage(t) == gongtest.NoCallsFound {
			t.Errorf("%s: %d %s", p, r.status, r.raw)
		}
	}
}

func TestCallsWindowAndCursor(t *testing.T) {
	s := gongtest.New(gongtest.WithCalls(1000))
	defer s.Close()
	// Calls 10..249 start within [18:00 on Jan 1, 18:00 on Jan 11).
	q := url.Values{"fromDateTime": {"2024-01-01T18:00:00Z"}, "toDateTime": {"2024-01-11T18:00:00Z"}}
	r := call(t, "GET", s.URL+"/v2/calls?"+q.Encode(), nil, nil)
	got := ids(t, r, "calls", "id")
	rec := r.records(t)
	if rec["totalRecords"] != 240.0 || len(got) != 100 || got[0] != s.CallID(10) {
		t.Fatalf("records %v first %v", rec, got[:1])
	}
	cursor := rec["cursor"].(string)

	next := url.Values{"fromDateTime": q["fromDateTime"], "toDateTime": q["toDateTime"], "cursor": {cursor}}
	r = call(t, "GET", s.URL+"/v2/calls?"+next.Encode(), nil, nil)
	if got := ids(t, r, "calls", "id"); r.status != 200 || got[0] != s.CallID(110) {
		t.Errorf("second page: %d %.200s", r.status, r.raw)
	}
	// The cursor is only valid with the inputs it was issued for.
	bad := url.Values{"fromDateTime": {"2024-01-02T00:00:00Z"}, "toDateTime": q["toDateTime"], "cursor": {cursor}}
	if r := call(t, "GET", s.URL+"/v2/calls?"+bad.Encode(), nil, nil); r.status != 400 || r.errMessage(t) != gongtest.InvalidCursor {
		t.Errorf("changed inputs: %d %s", r.status, r.raw)
	}
	if r := call(t, "GET", s.URL+"/v2/calls?cursor=abc.def.ghi", nil, nil); r.status != 400 {
		t.Errorf("forged cursor: %d %s", r.status, r.raw)
	}

	empty := url.Values{"fromDateTime": {"2019-01-01T00:00:00Z"}, "toDateTime": {"2019-02-01T00:00:00Z"}}
	r = call(t, "GET", s.URL+"/v2/calls?"+empty.Encode(), nil, nil)
	if r.status != 404 || r.errMessage(t) != gongtest.NoCallsFound {
		t.Errorf("empty window: %d %s", r.status, r.raw)
	}
	r = call(t, "GET", s.URL+"/v2/calls?fromDateTime=yesterday", nil, nil)
	if r.status != 400 {
		t.Errorf("bad date: %d %s", r.status, r.raw)
	}
	r = call(t, "GET", s.URL+"/v2/calls?workspaceId="+s.WorkspaceID(1), nil, nil)
	if rec := r.records(t); rec["totalRecords"] != 333.0 || ids(t, r, "calls", "id")[0] != s.CallID(1) {
		t.Errorf("workspace filter: %v", rec)
	}
}

func TestExtensivePagingInBody(t *testing.T) {
	s := gongtest.New(gongtest.WithCalls(250))
	defer s.Close()
	body := map[string]any{
		"filter":          map[string]any{"primaryUserIds": []string{s.UserID(3)}},
		"contentSelector": map[string]any{"exposedFields": map[string]any{"parties": true, "content": map[string]any{"topics": true}}},
	}
	r := call(t, "POST", s.URL+"/v2/calls/extensive", body, nil)
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	got := ids(t, r, "calls", "metaData.id")
	// User 3 of 25 hosts calls 3, 28, 53, ...: 10 of the 250.
	if len(got) != 10 || got[1] != s.CallID(28) {
		t.Errorf("got %v", got)
	}
	first := r.body["calls"].([]any)[0].(map[string]any)
	for _, part := range []string{"metaData", "parties", "content"} {
		if first[part] == nil {
			t.Errorf("missing %s", part)
		}
	}
	for _, part := range []string{"media", "interaction", "collaboration", "context"} {
		if first[part] != nil {
			t.Errorf("unexpected %s", part)
		}
	}

	all := map[string]any{"filter": map[string]any{}}
	r = call(t, "POST", s.URL+"/v2/calls/extensive", all, nil)
	cursor := r.records(t)["cursor"].(string)
	all["cursor"] = cursor
	r = call(t, "POST", s.URL+"/v2/calls/extensive", all, nil)
	if got := ids(t, r, "calls", "metaData.id"); r.status != 200 || got[0] != s.CallID(100) {
		t.Errorf("second page: %d %.200s", r.status, r.raw)
	}
	changed := map[string]any{"filter": map[string]any{"workspaceId": s.WorkspaceID(0)}, "cursor": cursor}
	if r := call(t, "POST", s.URL+"/v2/calls/extensive", changed, nil); r.status != 400 {
		t.Errorf("cursor with other inputs: %d %s", r.status, r.raw)
	}
	if r := call(t, "POST", s.URL+"/v2/calls/extensive", map[string]any{}, nil); r.status != 400 {
		t.Errorf("missing filter: %d %s", r.status, r.raw)
	}
	if r := call(t, "POST", s.URL+"/v2/calls/extensive", all, map[string]string{"Content-Type": "text/plain"}); r.status != 415 {
		t.Errorf("text/plain body: %d %s", r.status, r.raw)
	}
	none := map[string]any{"filter": map[string]any{"callIds": []string{"7782342274099999999"}}}
	if r := call(t, "POST", s.URL+"/v2/calls/transcript", none, nil); r.status != 404 || r.errMessage(t) != gongtest.NoCallsFound {
		t.Errorf("transcripts of unknown call: %d %s", r.status, r.raw)
	}
}

func TestMediaDownload(t *testing.T) {
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	var elapsed atomic.Int64
	clock := func() time.Time { return start.Add(time.Duration(elapsed.Load())) }
	s := gongtest.New(gongtest.WithClock(clock), gongtest.WithMediaSize(4096))
	defer s.Close()
	body := map[string]any{
		"filter":          map[string]any{"callIds": []string{s.CallID(2), s.CallID(3)}},
		"contentSelector": map[string]any{"exposedFields": map[string]any{"media": true}},
	}
	r := call(t, "POST", s.URL+"/v2/calls/extensive", body, nil)
	calls := r.body["calls"].([]any)
	audioOnly := calls[0].(map[string]any)["media"].(map[string]any)
	if _, ok := audioOnly["videoUrl"]; ok || audioOnly["audioUrl"] == nil {
		t.Errorf("call 2 is audio only: %v", audioOnly)
	}
	media := calls[1].(map[string]any)["media"].(map[string]any)
	video := media["videoUrl"].(string)
	if !strings.HasPrefix(video, s.FilesURL+"/calls/"+s.CallID(3)+"/video.mp4?") {
		t.Fatalf("videoUrl %s", video)
	}

	r = call(t, "GET", video, nil, map[string]string{"Authorization": ""})
	if r.status != 200 || len(r.raw) != 8192 || r.header.Get("Content-Type") != "video/mp4" || r.header.Get("ETag") == "" {
		t.Errorf("full: %d %d %v", r.status, len(r.raw), r.header)
	}
	full := r.raw
	r = call(t, "GET", video, nil, map[string]string{"Authorization": "", "Range": "bytes=100-199"})
	if r.status != 206 || r.header.Get("Content-Range") != "bytes 100-199/8192" || !bytes.Equal(r.raw, full[100:200]) {
		t.Errorf("range: %d %v", r.status, r.header)
	}
	if r := call(t, "GET", video, nil, nil); r.status != 400 || !strings.Contains(string(r.raw), "InvalidArgument") {
		t.Errorf("with Authorization: %d %s", r.status, r.raw)
	}
	if r := call(t, "GET", strings.Replace(video, "X-Amz-Signature=", "X-Amz-Signature=0", 1), nil, map[string]string{"Authorization": ""}); r.status != 403 {
		t.Errorf("bad signature: %d %s", r.status, r.raw)
	}
	elapsed.Store(int64(8*time.Hour + time.Second))
	if r := call(t, "GET", video, nil, map[string]string{"Authorization": ""}); r.status != 403 || !strings.Contains(string(r.raw), "expired") {
		t.Errorf("expired: %d %s", r.status, r.raw)
	}
}

func TestFaults(t *testing.T) {
	s := gongtest.New(gongtest.WithFaults(gongtest.Faults{RateLimitFirst: 1, ServerErrorFirst: 1, RetryAfter: 5 * time.Second}))
	defer s.Close()
	r := call(t, "GET", s.URL+"/v2/workspaces", nil, nil)
	if r.status != 429 || r.header.Get("Retry-After") != "5" || r.errMessage(t) != gongtest.RateLimitExceeded {
		t.Errorf("429: %d %v %s", r.status, r.header, r.raw)
	}
	r = call(t, "GET", s.URL+"/v2/workspaces", nil, nil)
	if r.status != 500 || r.errMessage(t) != gongtest.InternalError {
		t.Errorf("500: %d %s", r.status, r.raw)
	}
	r = call(t, "GET", s.URL+"/v2/workspaces", nil, nil)
	if got := ids(t, r, "workspaces", "id"); r.status != 200 || len(got) != 3 || r.body["records"] != nil {
		t.Errorf("after faults: %d %s", r.status, r.raw)
	}
}

func TestOAuthRefreshIsSingleUse(t *testing.T) {
	s := gongtest.New()
	defer s.Close()
	client := "Basic " + base64.StdEncoding.EncodeToString([]byte(gongtest.DefaultClientID+":"+gongtest.DefaultClientSecret))
	refresh := func(token, auth string) response {
		form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {token}}
		req, _ := http.NewRequest("POST", s.TokenURL(), strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Authorization", auth)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		out := response{status: res.StatusCode}
		out.raw, _ = io.ReadAll(res.Body)
		_ = json.Unmarshal(out.raw, &out.body)
		return out
	}
	if r := refresh(gongtest.DefaultRefreshToken, "Basic d3Jvbmc6d3Jvbmc="); r.status != 401 || r.body["error"] != "invalid_client" {
		t.Errorf("wrong client: %d %s", r.status, r.raw)
	}
	r := refresh(gongtest.DefaultRefreshToken, client)
	if r.status != 200 || r.body["api_base_url_for_customer"] != s.URL || r.body["token_type"] != "bearer" {
		t.Fatalf("refresh: %d %s", r.status, r.raw)
	}
	access, next := r.body["access_token"].(string), r.body["refresh_token"].(string)
	if next == gongtest.DefaultRefreshToken || s.RefreshToken() != next {
		t.Errorf("refresh token not rotated: %s", next)
	}
	if r := refresh(gongtest.DefaultRefreshToken, client); r.status != 400 || r.body["error"] != "invalid_grant" {
		t.Errorf("reused refresh token: %d %s", r.status, r.raw)
	}
	if r := call(t, "GET", s.URL+"/v2/users", nil, map[string]string{"Authorization": "Bearer " + access}); r.status != 200 {
		t.Errorf("issued access token: %d %s", r.status, r.raw)
	}
	if r := refresh(next, client); r.status != 200 {
		t.Errorf("rotated refresh token: %d %s", r.status, r.raw)
	}
	s.ExpireAccessTokens()
	if r := call(t, "GET", s.URL+"/v2/users", nil, map[string]string{"Authorization": "Bearer " + access}); r.status != 401 {
		t.Errorf("expired access token: %d %s", r.status, r.raw)
	}
}

func TestStats(t *testing.T) {
	s := gongtest.New()
	defer s.Close()
	body := map[string]any{"filter": map[string]any{"fromDate": "2024-01-01", "toDate": "2024-01-03", "userIds": []string{s.UserID(4), s.UserID(2)}}}
	r := call(t, "POST", s.URL+"/v2/stats/activity/aggregate", body, nil)
	if got := ids(t, r, "usersAggregateActivityStats", "userId"); r.status != 200 || len(got) != 2 || got[0] != s.UserID(2) || r.body["timeZone"] == nil {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	// Calls 0..39 start on Jan 1 and 2 (from 08:00); user 2 hosts 2 and 27.
	st := r.body["usersAggregateActivityStats"].([]any)[0].(map[string]any)["userAggregateActivityStats"].(map[string]any)
	if st["callsAsHost"] != 2.0 {
		t.Errorf("callsAsHost %v", st["callsAsHost"])
	}
	r = call(t, "POST", s.URL+"/v2/stats/activity/day-by-day", body, nil)
	days := r.body["usersDetailedActivities"].([]any)[0].(map[string]any)["userDailyActivityStats"].([]any)
	if len(days) != 2 || len(days[0].(map[string]any)["callsAsHost"].([]any)) != 1 {
		t.Errorf("day by day: %s", r.raw)
	}
	r = call(t, "POST", s.URL+"/v2/stats/interaction", body, nil)
	if got := ids(t, r, "peopleInteractionStats", "userId"); len(got) != 2 {
		t.Errorf("interaction: %s", r.raw)
	}
	if r := call(t, "POST", s.URL+"/v2/stats/activity/aggregate", map[string]any{"filter": map[string]any{"toDate": "2024-01-03"}}, nil); r.status != 400 {
		t.Errorf("missing fromDate: %d %s", r.status, r.raw)
	}
	unknown := map[string]any{"filter": map[string]any{"fromDate": "2024-01-01", "toDate": "2024-01-03", "userIds": []string{"1"}}}
	if r := call(t, "POST", s.URL+"/v2/stats/activity/aggregate", unknown, nil); r.status != 404 {
		t.Errorf("unknown users: %d %s", r.status, r.raw)
	}
}

func TestAnsweredScorecards(t *testing.T) {
	s := gongtest.New(gongtest.WithCalls(100_000))
	defer s.Close()
	// User 6 of 25 hosts every 25th answered scorecard; their manager, user 1, reviews them.
	body := map[string]any{"filter": map[string]any{"reviewedUserIds": []string{s.UserID(6)}, "callFromDate": "2024-01-01"}}
	seen := 0
	for {
		r := call(t, "POST", s.URL+"/v2/stats/activity/scorecards", body, nil)
		if r.status != 200 {
			t.Fatalf("%d %s", r.status, r.raw)
		}
		for _, it := range r.body["answeredScorecards"].([]any) {
			m := it.(map[string]any)
			if m["reviewedUserId"] != s.UserID(6) || m["reviewerUserId"] != s.UserID(1) {
				t.Fatalf("filter not applied: %v", m)
			}
			seen++
		}
		c, more := r.records(t)["cursor"].(string)
		if !more {
			if total := r.records(t)["totalRecords"]; total != float64(seen) {
				t.Errorf("total %v, saw %d", total, seen)
			}
			break
		}
		body["cursor"] = c
	}
	if seen != 1000 {
		t.Errorf("%d answered scorecards, want 1000", seen)
	}
}

func TestSettingsLibraryCoaching(t *testing.T) {
	s := gongtest.New()
	defer s.Close()
	ws := s.WorkspaceID(0)
	if got := ids(t, call(t, "GET", s.URL+"/v2/settings/scorecards?workspaceId="+ws, nil, nil), "scorecards", "scorecardId"); len(got) != 2 {
		t.Errorf("scorecards %v", got)
	}
	if got := ids(t, call(t, "GET", s.URL+"/v2/settings/trackers", nil, nil), "keywordTrackers", "trackerId"); len(got) != 6 {
		t.Errorf("trackers %v", got)
	}
	if got := ids(t, call(t, "GET", s.URL+"/v2/library/folders?workspaceId="+ws, nil, nil), "folders", "id"); len(got) != 4 || got[0] != s.FolderID(0) {
		t.Errorf("folders %v", got)
	}
	r := call(t, "GET", s.URL+"/v2/library/folder-content?folderId="+s.FolderID(1), nil, nil)
	if got := ids(t, r, "calls", "id"); r.status != 200 || len(got) != 4 || r.body["id"] != s.FolderID(1) || r.body["records"] != nil {
		t.Errorf("folder content: %d %s", r.status, r.raw)
	}
	q := url.Values{"workspace-id": {ws}, "manager-id": {s.UserID(0)}, "from": {"2024-01-01T00:00:00Z"}, "to": {"2024-02-01T00:00:00Z"}}
	r = call(t, "GET", s.URL+"/v2/coaching?"+q.Encode(), nil, nil)
	if got := ids(t, r, "coachingData", "manager.id"); r.status != 200 || len(got) != 5 || got[0] != s.UserID(0) {
		t.Errorf("coaching: %d %.300s", r.status, r.raw)
	}
	q.Del("manager-id")
	if r := call(t, "GET", s.URL+"/v2/coaching?"+q.Encode(), nil, nil); r.status != 400 {
		t.Errorf("coaching without manager-id: %d %s", r.status, r.raw)
	}
}

func TestLargeVolumeIsCheap(t *testing.T) {
	s := gongtest.New(gongtest.WithCalls(1_000_000), gongtest.WithUsers(100_000))
	defer s.Close()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	r := call(t, "POST", s.URL+"/v2/calls/extensive", map[string]any{"filter": map[string]any{
		"fromDateTime": "2100-01-01T00:00:00Z", "workspaceId": s.WorkspaceID(2), "primaryUserIds": []string{s.UserID(99_999)},
	}}, nil)
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	for _, id := range ids(t, r, "calls", "metaData.id") {
		var i int
		for _, c := range id[11:] {
			i = i*10 + int(c-'0')
		}
		if i%3 != 2 || i%100_000 != 99_999 {
			t.Errorf("call %s does not match the filter", id)
		}
	}
	// The filter is answered from the calls' ids, not by making each
	// call: what the process allocates (a measure no load on the machine
	// moves, unlike a time) stays far below the hundreds of MiB that a
	// million calls made would take.
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if b := after.TotalAlloc - before.TotalAlloc; b > 32<<20 { // 2 MiB measured
		t.Errorf("the filter allocated %d MiB", b>>20)
	}
}

func TestMediaCutAndResume(t *testing.T) {
	s := gongtest.New(gongtest.WithMediaSize(5000), gongtest.WithFileCutEvery(1500))
	defer s.Close()
	body := map[string]any{
		"filter":          map[string]any{"callIds": []string{s.CallID(0)}},
		"contentSelector": map[string]any{"exposedFields": map[string]any{"media": true}},
	}
	r := call(t, "POST", s.URL+"/v2/calls/extensive", body, nil)
	audio := r.body["calls"].([]any)[0].(map[string]any)["media"].(map[string]any)["audioUrl"].(string)
	var got []byte
	for len(got) < 5000 {
		req, _ := http.NewRequest("GET", audio, nil)
		if len(got) > 0 {
			req.Header.Set("Range", "bytes="+strconv.Itoa(len(got))+"-")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		chunk, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err == nil && len(got)+len(chunk) < 5000 {
			t.Fatalf("short body without an error: %d bytes", len(chunk))
		}
		if len(chunk) == 0 {
			t.Fatalf("no progress at %d (status %d)", len(got), res.StatusCode)
		}
		got = append(got, chunk...)
	}
	if len(got) != 5000 || string(got[:3]) != "ID3" {
		t.Errorf("resumed download: %d bytes, starts %q", len(got), got[:3])
	}
}
