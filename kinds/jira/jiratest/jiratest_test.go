package jiratest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/jira/jiratest"
)

// TestMain fails the package if any test leaves a goroutine running.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var _ fakeserver.Mutable = (*jiratest.Server)(nil)

func get(t *testing.T, srv *jiratest.Server, path string, auth func(*http.Request)) (int, http.Header, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	if auth == nil {
		req.SetBasicAuth(jiratest.DefaultEmail, jiratest.DefaultAPIToken)
	} else {
		auth(req)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, b
}

type page struct {
	Issues []struct {
		ID     string         `json:"id"`
		Fields map[string]any `json:"fields"`
	} `json:"issues"`
	NextPageToken string `json:"nextPageToken"`
	IsLast        bool   `json:"isLast"`
}

func search(t *testing.T, srv *jiratest.Server, q url.Values) (int, page, []byte) {
	t.Helper()
	status, _, b := get(t, srv, "/rest/api/3/search/jql?"+q.Encode(), nil)
	var p page
	_ = json.Unmarshal(b, &p)
	return status, p, b
}

// The JQL the fake reads: a date to the minute in the user's zone, a
// keyset token that skips nothing when an issue changes mid-walk, ids
// alone by default, and Jira's 400 for what it cannot read.
func TestSearch(t *testing.T) {
	clock := fakeserver.NewClock(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC))
	srv := jiratest.New(jiratest.WithIssues(30), jiratest.WithClock(clock), jiratest.WithTimeZone("Asia/Kolkata"))
	defer srv.Close()
	// 10:00 UTC is 15:30 in Kolkata.
	if err := srv.Update("issues", srv.IDs("issues")[3]); err != nil {
		t.Fatal(err)
	}
	for jql, want := range map[string]int{`updated >= "2026/03/02 15:30"`: 1, `updated >= "2026/03/02 15:31"`: 0, `project = ENG AND created >= "2025/01/06"`: 10} {
		status, p, b := search(t, srv, url.Values{"jql": {jql}})
		if status != 200 || len(p.Issues) != min(want, 50) || (want > 0 && p.Issues[0].Fields != nil) {
			t.Errorf("%s: %d %s", jql, status, b)
		}
	}
	for _, jql := range []string{"ORDER BY key", `summary ~ "x"`, `updated >= "yesterday"`} {
		if status, _, b := search(t, srv, url.Values{"jql": {jql}}); status != 400 || !bytes.Contains(b, []byte(`"errorMessages"`)) {
			t.Errorf("%s: %d %s", jql, status, b)
		}
	}
	// A walk by updated, 10 a page, while the first issue changes: each
	// issue once, the changed one once more at its new place.
	q := url.Values{"jql": {`updated >= "1970/01/01 00:00" ORDER BY updated ASC`}, "maxResults": {"10"}, "fields": {"*all"}}
	seen := map[string]int{}
	for n := 0; ; n++ {
		status, p, b := search(t, srv, q)
		if status != 200 {
			t.Fatalf("%d %s", status, b)
		}
		for _, is := range p.Issues {
			seen[is.ID]++
		}
		if n == 0 {
			clock.Advance(time.Minute)
			if err := srv.Update("issues", p.Issues[0].ID); err != nil {
				t.Fatal(err)
			}
		}
		if p.IsLast {
			break
		}
		q.Set("nextPageToken", p.NextPageToken)
	}
	if len(seen) != 30 {
		t.Errorf("%d issues seen, want 30", len(seen))
	}
	q.Set("jql", "project = OPS")
	if status, _, _ := search(t, srv, q); status != 400 {
		t.Errorf("a token of another query: %d", status)
	}
}

// An unchanged issue is the same bytes on every read; credentials are
// checked; WithRateLimit answers Jira's 429 past its window.
func TestRecordsAuthAndLimits(t *testing.T) {
	clock := fakeserver.NewClock(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC))
	srv := jiratest.New(jiratest.WithIssues(5), jiratest.WithClock(clock), jiratest.WithRateLimit(3, time.Minute))
	defer srv.Close()
	_, h, a := get(t, srv, "/rest/api/3/issue/ENG-1", nil)
	_, _, b := get(t, srv, "/rest/api/3/issue/10000", nil)
	if !bytes.Equal(a, b) || h.Get("X-RateLimit-Remaining") != "2" || h.Get("X-RateLimit-Reset") != "2026-03-02T10:01:00Z" {
		t.Errorf("%s\n%s\nheaders %v", a, b, h)
	}
	status, _, body := get(t, srv, "/rest/api/3/myself", func(r *http.Request) { r.SetBasicAuth(jiratest.DefaultEmail, "wrong") })
	if status != 401 || !strings.Contains(string(body), "Client must be authenticated") {
		t.Errorf("wrong token: %d %s", status, body)
	}
	status, h, _ = get(t, srv, "/rest/api/3/myself", nil)
	if status != 429 || h.Get("Retry-After") != "60" || h.Get("X-RateLimit-Remaining") != "0" {
		t.Errorf("past the window: %d %v", status, h)
	}
	clock.Advance(time.Minute)
	if status, _, _ := get(t, srv, "/ex/jira/"+jiratest.DefaultCloudID+"/rest/api/3/myself", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+jiratest.DefaultAccessToken) }); status != 200 {
		t.Errorf("OAuth base: %d", status)
	}
}

// Mutations: a deleted issue leaves gets and takes its worklogs to the
// deleted feed, past the minute Jira keeps back.
func TestMutations(t *testing.T) {
	clock := fakeserver.NewClock(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC))
	srv := jiratest.New(jiratest.WithIssues(6), jiratest.WithClock(clock))
	defer srv.Close()
	is := srv.IDs("issues")[1] // two worklogs
	if err := srv.Delete("issues", is); err != nil {
		t.Fatal(err)
	}
	if status, _, _ := get(t, srv, "/rest/api/3/issue/"+is, nil); status != 404 {
		t.Errorf("deleted issue: %d", status)
	}
	since := "?since=" + "1772445600000"
	if _, _, b := get(t, srv, "/rest/api/3/worklog/deleted"+since, nil); !bytes.Contains(b, []byte(`"values":[]`)) {
		t.Errorf("the last minute's deletions shown: %s", b)
	}
	clock.Advance(2 * time.Minute)
	_, _, b := get(t, srv, "/rest/api/3/worklog/deleted"+since, nil)
	var got struct {
		Values []struct{ WorklogID int64 } `json:"values"`
	}
	if err := json.Unmarshal(b, &got); err != nil || len(got.Values) != 2 {
		t.Errorf("deleted worklogs: %s", b)
	}
	if err := srv.Update("issues", is); err == nil {
		t.Error("a deleted issue updated")
	}
	if _, err := srv.Create("boards"); err == nil {
		t.Error("an entity that is not mutable created")
	}
}
