package lineartest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/linear/lineartest"
)

type answer struct {
	status int
	header http.Header
	Data   map[string]json.RawMessage `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

func post(t *testing.T, s *lineartest.Server, auth, query string, vars map[string]any) answer {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/graphql", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, header: resp.Header}
	if err := json.Unmarshal(body, &a); err != nil {
		t.Fatalf("%d %s: %v", resp.StatusCode, body, err)
	}
	return a
}

func code(a answer) string {
	if len(a.Errors) == 0 {
		return ""
	}
	c, _ := a.Errors[0].Extensions["code"].(string)
	return c
}

// The fake embeds Linear's schema byte for byte: the copy the tests check
// the client's queries against.
func TestEmbeddedSchemaIsLinears(t *testing.T) {
	want, err := os.ReadFile("../../../testdata/vendor-specs/linear/schema.graphql")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("schema.graphql")
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("kinds/linear/lineartest/schema.graphql differs from testdata/vendor-specs/linear/schema.graphql (%v)", err)
	}
}

// Linear's authentication: the API key alone, an OAuth token after
// Bearer; anything else a 401 with AUTHENTICATION_ERROR in errors[].
func TestAuthentication(t *testing.T) {
	s := lineartest.New()
	defer s.Close()
	for auth, ok := range map[string]bool{
		lineartest.DefaultAPIKey: true, "Bearer " + lineartest.DefaultAccessToken: true,
		"Bearer " + lineartest.DefaultAPIKey: false, lineartest.DefaultAccessToken: false, "": false, "lin_api_wrong": false,
	} {
		a := post(t, s, auth, `{ viewer { id name } }`, nil)
		if got := a.status == 200 && code(a) == ""; got != ok {
			t.Errorf("%q: %d %s", auth, a.status, code(a))
		}
		if !ok && (a.status != 401 || code(a) != "AUTHENTICATION_ERROR" || a.Errors[0].Message != "Authentication required, not authenticated") {
			t.Errorf("%q: %d %+v", auth, a.status, a.Errors)
		}
	}
}

// A query Linear's schema refuses is refused as Linear refuses it: a 400
// with GRAPHQL_VALIDATION_FAILED, before anything is read.
func TestInvalidQueriesAreRefused(t *testing.T) {
	s := lineartest.New()
	defer s.Close()
	for _, c := range []struct {
		query string
		vars  map[string]any
	}{
		{`{ issues { nodes { id nope } } }`, nil},
		{`{ issues(first: "ten") { nodes { id } } }`, nil},
		{`query Q($f: IssueFilter) { issues(filter: $f) { nodes { id } } }`, map[string]any{"f": map[string]any{"nope": 1}}},
		{`{ issue { id } }`, nil},
		{`{ issues { nodes { id } }`, nil},
	} {
		a := post(t, s, lineartest.DefaultAPIKey, c.query, c.vars)
		if a.status != 400 || code(a) != "GRAPHQL_VALIDATION_FAILED" || a.Data != nil {
			t.Errorf("%s: %d %+v", c.query, a.status, a.Errors)
		}
	}
}

type page struct {
	Nodes []struct {
		ID         string  `json:"id"`
		Title      string  `json:"title"`
		UpdatedAt  string  `json:"updatedAt"`
		ArchivedAt *string `json:"archivedAt"`
		Trashed    *bool   `json:"trashed"`
		Team       *struct {
			Key string `json:"key"`
		} `json:"team"`
	} `json:"nodes"`
	PageInfo struct {
		HasNextPage bool   `json:"hasNextPage"`
		EndCursor   string `json:"endCursor"`
	} `json:"pageInfo"`
}

const issuesQuery = `query Q($first: Int, $after: String, $filter: IssueFilter, $orderBy: PaginationOrderBy, $includeArchived: Boolean) {
  issues(first: $first, after: $after, filter: $filter, orderBy: $orderBy, includeArchived: $includeArchived) {
    nodes { id title updatedAt archivedAt trashed team { key } } pageInfo { hasNextPage endCursor } } }`

func walk(t *testing.T, s *lineartest.Server, vars map[string]any, between func()) []string {
	t.Helper()
	var ids []string
	for {
		a := post(t, s, lineartest.DefaultAPIKey, issuesQuery, vars)
		if code(a) != "" {
			t.Fatalf("%+v", a.Errors)
		}
		var p page
		if err := json.Unmarshal(a.Data["issues"], &p); err != nil {
			t.Fatal(err)
		}
		for _, n := range p.Nodes {
			ids = append(ids, n.ID)
		}
		if !p.PageInfo.HasNextPage {
			return ids
		}
		vars["after"] = p.PageInfo.EndCursor
		if between != nil {
			between()
		}
	}
}

// Relay paging: every live issue once, newest first, with cursors that
// keep their place while issues are created and changed mid-walk.
func TestPagingKeepsItsPlace(t *testing.T) {
	s := lineartest.New(lineartest.WithIssues(300))
	defer s.Close()
	live := s.IDs("issues")
	if len(live) != 300-300/40 {
		t.Fatalf("%d live issues", len(live))
	}
	n := 0
	ids := walk(t, s, map[string]any{"first": 50}, func() {
		s.Clock().Advance(time.Second)
		if _, err := s.Create("issues"); err != nil {
			t.Fatal(err)
		}
		n++
	})
	if len(ids) != len(live) {
		t.Errorf("walked %d issues, want the %d there were", len(ids), len(live))
	}
	seen := map[string]bool{}
	for i, id := range ids {
		if seen[id] {
			t.Errorf("%s twice", id)
		}
		seen[id] = true
		if want := live[len(live)-1-i]; id != want { // newest first
			t.Fatalf("issue %d is %s, want %s", i, id, want)
		}
	}
	// A forged or foreign cursor is refused.
	a := post(t, s, lineartest.DefaultAPIKey, issuesQuery, map[string]any{"after": "bm9wZQ"})
	if code(a) != "INPUT_ERROR" || a.Data["issues"] != nil {
		t.Errorf("forged cursor: %+v", a.Errors)
	}
}

// The change feed as Linear serves it: by updatedAt, after a time,
// archived and trashed records only with includeArchived.
func TestFeedFilterAndArchived(t *testing.T) {
	s := lineartest.New(lineartest.WithIssues(100))
	defer s.Close()
	s.Clock().Advance(time.Hour)
	since := s.Clock().Now()
	s.Clock().Advance(time.Minute)
	ids := s.IDs("issues")
	if err := s.Update("issues", ids[3]); err != nil {
		t.Fatal(err)
	}
	s.Clock().Advance(time.Minute)
	if err := s.Delete("issues", ids[5]); err != nil {
		t.Fatal(err)
	}
	filter := map[string]any{"updatedAt": map[string]any{"gt": since.Format(time.RFC3339)}}
	got := walk(t, s, map[string]any{"filter": filter, "orderBy": "updatedAt", "includeArchived": true}, nil)
	if len(got) != 2 || got[0] != ids[5] || got[1] != ids[3] {
		t.Errorf("changed since: %v, want the deleted %s then the updated %s", got, ids[5], ids[3])
	}
	if got := walk(t, s, map[string]any{"filter": filter, "orderBy": "updatedAt"}, nil); len(got) != 1 || got[0] != ids[3] {
		t.Errorf("without includeArchived: %v", got)
	}
	a := post(t, s, lineartest.DefaultAPIKey, `query Q($id: String!) { issue(id: $id) { id archivedAt trashed } }`, map[string]any{"id": ids[5]})
	if !strings.Contains(string(a.Data["issue"]), `"trashed":true`) || strings.Contains(string(a.Data["issue"]), `"archivedAt":null`) {
		t.Errorf("a deleted issue: %s", a.Data["issue"])
	}
	// A filter on a related record, and or.
	eng := walk(t, s, map[string]any{"filter": map[string]any{"or": []any{
		map[string]any{"team": map[string]any{"key": map[string]any{"eq": "ENG"}}},
		map[string]any{"id": map[string]any{"eq": ids[1]}}}}}, nil)
	if len(eng) == 0 || len(eng) >= len(ids) {
		t.Errorf("team filter: %d of %d", len(eng), len(ids))
	}
}

// A missing record is Linear's "Entity not found" in a 200, data null.
func TestNotFound(t *testing.T) {
	s := lineartest.New()
	defer s.Close()
	a := post(t, s, lineartest.DefaultAPIKey, `{ project(id: "nope") { id } }`, nil)
	if a.status != 200 || code(a) != "INPUT_ERROR" || a.Errors[0].Message != "Entity not found: Project" || string(a.Data["project"]) != "" {
		t.Errorf("%d %+v %s", a.status, a.Errors, a.Data)
	}
	// An issue is found by its identifier too.
	a = post(t, s, lineartest.DefaultAPIKey, `{ issue(id: "ENG-1") { identifier } }`, nil)
	if string(a.Data["issue"]) != `{"identifier":"ENG-1"}` {
		t.Errorf("by identifier: %s %+v", a.Data["issue"], a.Errors)
	}
}

// With a budget enforced, the request over it is a 400 RATELIMITED, with
// the remaining requests 0 and the reset in epoch milliseconds; the window
// ends on the fake's clock.
func TestRateLimit(t *testing.T) {
	clock := fakeserver.NewClock(time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC))
	s := lineartest.New(lineartest.WithClock(clock), lineartest.WithRateLimit(2, 1_000_000, time.Hour))
	defer s.Close()
	for i := range 3 {
		a := post(t, s, lineartest.DefaultAPIKey, `{ teams(first: 10) { nodes { id } } }`, nil)
		reset, _ := strconv.ParseInt(a.header.Get("X-RateLimit-Requests-Reset"), 10, 64)
		if reset != time.Date(2026, 5, 1, 11, 0, 0, 0, time.UTC).UnixMilli() || a.header.Get("X-RateLimit-Requests-Remaining") != strconv.Itoa(max(1-i, 0)) {
			t.Errorf("request %d: headers %v", i, a.header)
		}
		if cost := a.header.Get("X-Complexity"); i < 2 && cost != "12" { // the connection 1, 10 teams of 1.1
			t.Errorf("request %d: complexity %s", i, cost)
		}
		if limited := a.status == 400 && code(a) == "RATELIMITED"; limited != (i == 2) {
			t.Errorf("request %d: %d %+v", i, a.status, a.Errors)
		}
	}
	clock.Advance(time.Hour)
	if a := post(t, s, lineartest.DefaultAPIKey, `{ teams { nodes { id } } }`, nil); a.status != 200 {
		t.Errorf("after the reset: %d %+v", a.status, a.Errors)
	}
}

// Linear's refresh tokens rotate: the one used stops working.
func TestRefreshTokensRotate(t *testing.T) {
	s := lineartest.New()
	defer s.Close()
	refresh := func(token string) (int, map[string]any) {
		resp, err := http.PostForm(s.URL+"/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {token},
			"client_id": {lineartest.DefaultClientID}, "client_secret": {lineartest.DefaultClientSecret}})
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	status, tok := refresh(lineartest.DefaultRefreshToken)
	if status != 200 || tok["refresh_token"] == lineartest.DefaultRefreshToken || tok["access_token"] == nil {
		t.Fatalf("%d %v", status, tok)
	}
	if a := post(t, s, "Bearer "+tok["access_token"].(string), `{ viewer { id } }`, nil); a.status != 200 {
		t.Errorf("the new access token: %d", a.status)
	}
	if status, m := refresh(lineartest.DefaultRefreshToken); status != 400 || m["error"] != "invalid_grant" {
		t.Errorf("the used refresh token again: %d %v", status, m)
	}
	if status, _ := refresh(tok["refresh_token"].(string)); status != 200 {
		t.Errorf("the rotated refresh token: %d", status)
	}
	s.ExpireAccessTokens()
	if a := post(t, s, "Bearer "+tok["access_token"].(string), `{ viewer { id } }`, nil); a.status != 401 {
		t.Errorf("an expired access token: %d", a.status)
	}
}

// Start(n) serves n issues that are not trashed, whatever n.
func TestKindStartsTheIssuesAsked(t *testing.T) {
	for _, n := range []int{1, 39, 40, 41, 117, 1000, 3000} {
		f := lineartest.Kind().Start(n)
		if got := len(f.IDs("issues")); got != n {
			t.Errorf("Start(%d): %d live issues", n, got)
		}
		f.Close()
	}
}

// Delete does what Linear's delete mutations do: a user is suspended
// (listed only with includeDisabled), a comment is gone from every answer,
// a cycle is archived.
func TestDeleteAsLinearDoes(t *testing.T) {
	s := lineartest.New()
	defer s.Close()
	user, comment, cycle := s.IDs("users")[2], s.IDs("comments")[2], s.IDs("cycles")[0]
	for e, id := range map[string]string{"users": user, "comments": comment, "cycles": cycle} {
		if err := s.Delete(e, id); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(e, id); err == nil {
			t.Errorf("%s deleted twice", e)
		}
	}
	count := func(q string) int {
		a := post(t, s, lineartest.DefaultAPIKey, q, nil)
		var conn struct {
			Nodes []struct {
				ID string `json:"id"`
			} `json:"nodes"`
		}
		for _, raw := range a.Data {
			_ = json.Unmarshal(raw, &conn)
		}
		return len(conn.Nodes)
	}
	if a, b := count(`{ users { nodes { id } } }`), count(`{ users(includeDisabled: true) { nodes { id active } } }`); a != 7 || b != 8 {
		t.Errorf("users: %d listed, %d with the disabled", a, b)
	}
	if a, b := count(`{ comments(first: 250) { nodes { id } } }`), count(`{ comments(first: 250, includeArchived: true) { nodes { id } } }`); a != 199 || b != 199 {
		t.Errorf("comments: %d, %d with the archived", a, b)
	}
	if a := post(t, s, lineartest.DefaultAPIKey, `query Q($id: String) { comment(id: $id) { id } }`, map[string]any{"id": comment}); code(a) != "INPUT_ERROR" {
		t.Errorf("a deleted comment: %+v", a.Errors)
	}
	if a, b := count(`{ cycles { nodes { id } } }`), count(`{ cycles(includeArchived: true) { nodes { id archivedAt } } }`); a != 8 || b != 9 {
		t.Errorf("cycles: %d, %d with the archived", a, b)
	}
	if ids := s.IDs("users"); len(ids) != 7 {
		t.Errorf("live users %d", len(ids))
	}
}
