package vendorspec_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary/internal/fixture"
	"github.com/tributary-dev/tributary/internal/vendorspec"
)

// exchange builds a fixture exchange from JSON text.
func exchange(t *testing.T, js string) fixture.Exchange {
	t.Helper()
	var ex fixture.Exchange
	dec := json.NewDecoder(strings.NewReader(js))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ex); err != nil {
		t.Fatalf("exchange: %v", err)
	}
	return ex
}

// want checks that got is exactly want (no difference found, or exactly
// these).
func want(t *testing.T, got []string, want ...string) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("differences (-want +got):\n%s", d)
	}
}

const jiraIssue = `{"id": "10001", "key": "KAN-1", "self": "https://acme.atlassian.net/rest/api/3/issue/10001", "fields": {"summary": "Sign-in fails"}}`

// TestJira: requests through either of Jira Cloud's roots (a site's, for
// basic auth; api.atlassian.com/ex/jira/{cloudid}, for OAuth) map onto
// the description's paths; a valid exchange passes and each kind of
// difference is named.
func TestJira(t *testing.T) {
	jira := vendorspec.OpenAPI(t, "jira")
	search := func(query, body, answer string) fixture.Exchange {
		return exchange(t, `{
			"request": {"method": "POST", "url": "https://acme.atlassian.net/rest/api/3/search/jql", "query": {`+query+`}, "body": `+body+`},
			"response": {"status": 200, "headers": {"Content-Type": "application/json;charset=UTF-8"}, "body": `+answer+`}}`)
	}
	okBody := `{"jql": "project = KAN ORDER BY updated ASC", "maxResults": 50, "fields": ["summary", "updated"], "nextPageToken": "CAEaAggD"}`

	t.Run("valid search through the site", func(t *testing.T) {
		want(t, jira.CheckExchange(search(``, okBody, `{"issues": [`+jiraIssue+`], "isLast": true}`)))
	})
	t.Run("valid get through api.atlassian.com", func(t *testing.T) {
		want(t, jira.CheckExchange(exchange(t, `{
			"request": {"method": "GET", "url": "https://api.atlassian.com/ex/jira/11223344-a1b2-3b33-c444-def123456789/rest/api/3/issue/KAN-1", "query": {"fields": "summary"}},
			"response": {"status": 200, "headers": {"Content-Type": "application/json"}, "body": `+jiraIssue+`}}`)))
	})
	t.Run("an answer of the wrong type", func(t *testing.T) {
		want(t, jira.CheckExchange(search(``, okBody, `{"issues": [`+jiraIssue+`], "isLast": "yes"}`)),
			`POST /rest/api/3/search/jql: response 200 body: /isLast: expected boolean, got "yes"`)
	})
	t.Run("a field the description does not have", func(t *testing.T) {
		want(t, jira.CheckExchange(search(``, okBody, `{"issues": [{"id": "10001", "key": "KAN-1", "summary": "x"}], "isLast": true}`)),
			`POST /rest/api/3/search/jql: response 200 body: /issues/0: property "summary" is unsupported`)
	})
	t.Run("a request body of the wrong type", func(t *testing.T) {
		got := jira.CheckExchange(search(``, `{"jql": "project = KAN", "maxResults": "fifty"}`, `{"issues": [], "isLast": true}`))
		want(t, got, `POST /rest/api/3/search/jql: request body: /maxResults: expected integer, got "fifty"`)
	})
	t.Run("an undeclared query parameter", func(t *testing.T) {
		want(t, jira.CheckExchange(search(`"startAt": "0"`, okBody, `{"issues": [], "isLast": true}`)),
			`POST /rest/api/3/search/jql: request query: startAt not declared (the operation declares: )`)
	})
	t.Run("an undeclared success status", func(t *testing.T) {
		ex := search(``, okBody, `{"issues": [], "isLast": true}`)
		ex.Response.Status = 202
		want(t, jira.CheckExchange(ex), `POST /rest/api/3/search/jql: response 202: not declared (the operation declares 200, 400, 401)`)
	})
	t.Run("an operation the description does not have", func(t *testing.T) {
		ex := search(``, okBody, `{}`)
		ex.Request.Method = "DELETE"
		want(t, jira.CheckExchange(ex), `DELETE /rest/api/3/search/jql: the description has no such operation (/rest/api/3/search/jql has GET, POST)`)
		ex.Request.Method, ex.Request.URL = "GET", "https://acme.atlassian.net/rest/api/3/no-such-thing"
		want(t, jira.CheckExchange(ex), `GET https://acme.atlassian.net/rest/api/3/no-such-thing: the description has no path /rest/api/3/no-such-thing`)
	})
	t.Run("another host", func(t *testing.T) {
		ex := search(``, okBody, `{}`)
		ex.Request.URL = "https://acme.atlassian.net.example.com/rest/api/3/search/jql"
		want(t, jira.CheckExchange(ex), `POST https://acme.atlassian.net.example.com/rest/api/3/search/jql: `+
			`https://acme.atlassian.net.example.com/rest/api/3/search/jql is outside the API (its root is https://{site}.atlassian.net or https://api.atlassian.com/ex/jira/{cloudid})`)
	})
	t.Run("an error answer is checked against Jira's error schema", func(t *testing.T) {
		ex := search(``, okBody, `{"errorMessages": "bad JQL"}`)
		ex.Response.Status = 400
		want(t, jira.CheckExchange(ex), `POST /rest/api/3/search/jql: response 400 body: /errorMessages: expected array, got "bad JQL"`)
		ex.Response.Body = json.RawMessage(`{"errorMessages": ["bad JQL"], "errors": {}}`)
		want(t, jira.CheckExchange(ex))
	})
}

const linearIssues = `query Issues($first: Int, $after: String, $since: DateTimeOrDuration) {
  issues(first: $first, after: $after, includeArchived: true, orderBy: updatedAt, filter: {updatedAt: {gt: $since}}) {
    nodes { id title updatedAt archivedAt state { name type } }
    pageInfo { hasNextPage endCursor }
  }
}`

// TestLinear: a query and its variables are validated as Linear's server
// would, and an answer's data against the query's selection.
func TestLinear(t *testing.T) {
	linear := vendorspec.GraphQL(t, "linear")
	vars := map[string]any{"first": 50, "after": "c1", "since": "2026-01-01T00:00:00.000Z"}
	t.Run("valid query", func(t *testing.T) {
		want(t, linear.CheckQuery(linearIssues, vars))
	})
	t.Run("a field the schema does not have", func(t *testing.T) {
		want(t, linear.CheckQuery(strings.Replace(linearIssues, "title", "titel", 1), vars),
			`query: input:3:16: Cannot query field "titel" on type "Issue". Did you mean "title" or "state"?`)
	})
	t.Run("a variable of the wrong type", func(t *testing.T) {
		want(t, linear.CheckQuery(linearIssues, map[string]any{"first": "fifty"}),
			`variables: input: variable.first cannot use string as Int`)
	})
	t.Run("valid answer", func(t *testing.T) {
		want(t, linear.CheckResponse(linearIssues, vars, []byte(`{"data": {"issues": {
			"nodes": [{"id": "a1", "title": "Crash", "updatedAt": "2026-01-02T03:04:05.000Z", "archivedAt": null, "state": {"name": "Todo", "type": "unstarted"}}],
			"pageInfo": {"hasNextPage": false, "endCursor": null}}}}`)))
	})
	t.Run("answers that disagree with the query", func(t *testing.T) {
		want(t, linear.CheckResponse(linearIssues, vars, []byte(`{"data": {"issues": {
			"nodes": [{"id": null, "title": 7, "updatedAt": "yesterday", "archivedAt": null, "state": {"name": "Todo"}, "priority": 1}],
			"pageInfo": {"hasNextPage": "no"}}}}`)),
			"response: data/issues/nodes/0/id: null for the non-null ID!",
			"response: data/issues/nodes/0/title: expected String (a string), got 7",
			`response: data/issues/nodes/0/updatedAt: expected DateTime (an ISO 8601 date-time), got "yesterday"`,
			"response: data/issues/nodes/0/state/type: missing (the query selects it)",
			"response: data/issues/nodes/0/priority: not selected by the query",
			`response: data/issues/pageInfo/hasNextPage: expected Boolean, got "no"`,
			"response: data/issues/pageInfo/endCursor: missing (the query selects it)",
		)
	})
	t.Run("an error answer", func(t *testing.T) {
		want(t, linear.CheckResponse(linearIssues, vars, []byte(`{"errors": [{"message": "ratelimited", "extensions": {"code": "RATELIMITED"}}], "data": null}`)))
		want(t, linear.CheckResponse(linearIssues, vars, []byte(`{"errors": [{"code": "RATELIMITED"}]}`)), "response: errors/0: no message")
	})
	t.Run("an exchange", func(t *testing.T) {
		body, _ := json.Marshal(map[string]any{"query": linearIssues, "variables": vars})
		ex := exchange(t, `{
			"request": {"method": "POST", "url": "https://api.linear.app/graphql", "body": `+string(body)+`},
			"response": {"status": 200, "headers": {"Content-Type": "application/json; charset=utf-8"},
				"body": {"data": {"issues": {"nodes": [], "pageInfo": {"hasNextPage": "no", "endCursor": null}}}}}}`)
		want(t, linear.CheckExchange(ex), `query Issues: 200 response: data/issues/pageInfo/hasNextPage: expected Boolean, got "no"`)
		ex.Request.URL = "https://api.linear.app/graphql/v2"
		want(t, linear.CheckExchange(ex), `POST https://api.linear.app/graphql/v2: the API takes POST https://api.linear.app/graphql`)
	})
	t.Run("through a transport", func(t *testing.T) {
		fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"data": {"issues": {"nodes": [], "pageInfo": {"hasNextPage": false}}}}`))
		}))
		defer fake.Close()
		rec := &recorder{TB: t}
		client := &http.Client{Transport: linear.Transport(rec, http.DefaultTransport, fake.URL+"/graphql")}
		body, _ := json.Marshal(map[string]any{"query": linearIssues, "variables": vars})
		resp, err := client.Post(fake.URL+"/graphql", "application/json", strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want(t, rec.errs, "vendorspec: query Issues: 200 response: data/issues/pageInfo/endCursor: missing (the query selects it)")
	})
}

// TestFixtureDifferencesAreFound: a fixture of GitHub's issues whose
// answer breaks the description (a user without a login) is caught, with
// the operation, status and place named.
func TestFixtureDifferencesAreFound(t *testing.T) {
	gh := vendorspec.OpenAPI(t, "github")
	var f fixture.File
	for _, x := range fixture.LoadDir(t, "../../testdata/github") {
		if x.Name == "issues.list" {
			f = x
		}
	}
	ex := f.Exchanges[0]
	want(t, gh.CheckExchange(ex)) // as recorded: it agrees
	var body []map[string]any
	if err := json.Unmarshal(ex.Response.Body, &body); err != nil {
		t.Fatal(err)
	}
	body[0]["user"].(map[string]any)["login"] = nil
	ex.Response.Body, _ = json.Marshal(body)
	ex.Request.Query["per_page"] = "abc"
	want(t, gh.CheckExchange(ex),
		`GET /repos/{owner}/{repo}/issues: request query parameter per_page: value abc: an invalid integer: invalid syntax`,
		`GET /repos/{owner}/{repo}/issues: response 200 body: /0/user/login: expected string (not nullable), got null`)
}

// recorder is a testing.TB that keeps the errors reported to it.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestTransport: between a client and a fake, every exchange is checked,
// the fake's URL standing for the API's root.
func TestTransport(t *testing.T) {
	gh := vendorspec.OpenAPI(t, "github")
	login := `"octocat"`
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write([]byte(`{"login": ` + login + `, "id": 1, "name": "x", "followers": 0}`))
	}))
	defer fake.Close()
	rec := &recorder{TB: t}
	client := &http.Client{Transport: gh.Transport(rec, http.DefaultTransport, fake.URL)}
	get := func() {
		resp, err := client.Get(fake.URL + "/users/octocat")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	get()
	if len(rec.errs) == 0 || !strings.HasPrefix(rec.errs[0], "vendorspec: GET /users/{username}: response 200 body: ") {
		t.Fatalf("a user without most of its required fields passed: %q", rec.errs)
	}
	login, rec.errs = "null", nil
	get()
	if !strings.Contains(strings.Join(rec.errs, "\n"), "/login: expected string (not nullable), got null") {
		t.Errorf("a null login passed: %q", rec.errs)
	}
}
