package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/transport"
	"github.com/tributary-dev/tributary/pagination"
)

// A GraphQL kind, as a catalogue row states it: the query text, the path
// of the nodes, Relay paging, errors inside the body, and the reset
// headers in milliseconds.
var gqlKind = engine.Kind{
	Type: "gql-kind",
	Entities: []engine.Entity{{
		Entity: tributary.Entity{Name: "issues", Actions: []tributary.Action{tributary.ActionList, tributary.ActionGet},
			Params: map[tributary.Action][]tributary.Param{
				tributary.ActionList: {{Name: "first", Type: tributary.TypeInteger}, {Name: "after", Type: tributary.TypeString}},
				tributary.ActionGet:  {{Name: "id", Type: tributary.TypeString, Required: true}},
			}},
		Routes: map[tributary.Action][]engine.Route{
			tributary.ActionList: {{Path: "/graphql", GraphQL: "query Issues($first: Int, $after: String) { issues(first: $first, after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } }",
				Records: "data.issues.nodes", Paging: pagination.Relay{}}},
			tributary.ActionGet: {{Path: "/graphql", GraphQL: "query Issue($id: String!) { issue(id: $id) { id } }", Records: "data.issue"}},
		},
	}},
	Errors: &engine.ErrorRule{List: "errors", Code: "extensions.code", Message: "message",
		Codes:    map[string]error{"RATELIMITED": tributary.ErrRateLimited, "AUTHENTICATION_ERROR": tributary.ErrUnauthorized},
		Messages: map[string]error{"Entity not found": tributary.ErrNotFound}},
	RateLimits: []engine.RateLimitHeaders{{Limit: "X-RateLimit-Requests-Limit", Remaining: "X-RateLimit-Requests-Remaining", Reset: "X-RateLimit-Requests-Reset", Unit: engine.ResetEpochMillis}},
}

func openGQL(t *testing.T, rt http.RoundTripper) *engine.Connector {
	t.Helper()
	k := gqlKind
	c, err := engine.Open(engine.Setup{Kind: &k, Options: tributary.NewOptions(tributary.WithHTTPClient(&http.Client{Transport: rt}),
		tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 3, MinBackoff: time.Second, MaxBackoff: 8 * time.Second, MaxRateLimitWait: time.Minute})),
		DefaultBaseURL: "https://api.example.com", Auth: transport.Bearer(secret), Secrets: []string{secret}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type gqlBody struct {
	Query     string         `json:"query"`
	Variables map[string]any `json:"variables"`
}

// The request is a POST of the query and the params as variables; the
// records and pageInfo come from inside data; Next carries the cursor.
func TestGraphQLRouteAndRelay(t *testing.T) {
	var got []gqlBody
	c := openGQL(t, roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.Method != http.MethodPost || r.URL.Path != "/graphql" || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("request %s %s %q", r.Method, r.URL, r.Header.Get("Content-Type"))
		}
		var b gqlBody
		raw, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(raw, &b); err != nil {
			t.Fatal(err)
		}
		got = append(got, b)
		if b.Variables["after"] == nil {
			return reply(200, nil, `{"data":{"issues":{"nodes":[{"id":"a"},{"id":"b"}],"pageInfo":{"hasNextPage":true,"endCursor":"Yg"}}}}`), nil
		}
		return reply(200, nil, `{"data":{"issues":{"nodes":[{"id":"c"}],"pageInfo":{"hasNextPage":false,"endCursor":"Yw"}}}}`), nil
	}))
	var ids []string
	for rec, err := range tributary.All(context.Background(), c, "issues", tributary.Params{"first": 2}) {
		if err != nil {
			t.Fatal(err)
		}
		id, _ := rec.StringAt("id")
		ids = append(ids, id)
	}
	if d := cmp.Diff([]string{"a", "b", "c"}, ids); d != "" {
		t.Errorf("ids (-want +got):\n%s", d)
	}
	want := []gqlBody{
		{Query: gqlKind.Entities[0].Routes[tributary.ActionList][0].GraphQL, Variables: map[string]any{"first": 2.0}},
		{Query: gqlKind.Entities[0].Routes[tributary.ActionList][0].GraphQL, Variables: map[string]any{"first": 2.0, "after": "Yg"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("bodies (-want +got):\n%s", d)
	}
}

// A failure inside a 200 is an error with the vendor's code, mapped to
// the shared sentinels by code or by message.
func TestErrorsInsideA200(t *testing.T) {
	for _, c := range []struct {
		body     string
		sentinel error
		code     string
		msg      string
	}{
		{`{"data":null,"errors":[{"message":"Entity not found: Issue","extensions":{"code":"INVALID_INPUT"}}]}`, tributary.ErrNotFound, "INVALID_INPUT", "Entity not found: Issue"},
		{`{"errors":[{"message":"Authentication required, not authenticated","extensions":{"code":"AUTHENTICATION_ERROR"}},{"message":"again","extensions":{"code":"X"}}]}`, tributary.ErrUnauthorized, "AUTHENTICATION_ERROR", "Authentication required, not authenticated; again"},
		{`{"errors":[{"message":"something odd","extensions":{"code":"INTERNAL"}}]}`, tributary.ErrUnexpectedResponse, "INTERNAL", "something odd"},
		// The member's name spelled with an escape is the same member.
		{`{"data":{"issue":null},"\u0065rrors":[{"message":"Entity not found: Issue","extensions":{"code":"INVALID_INPUT"}}]}`, tributary.ErrNotFound, "INVALID_INPUT", "Entity not found: Issue"},
	} {
		conn := openGQL(t, roundTripFunc(func(r *http.Request) (*http.Response, error) { return reply(200, nil, c.body), nil }))
		_, err := conn.Get(context.Background(), "issues", tributary.Params{"id": "x"})
		var te *tributary.Error
		if !errors.As(err, &te) || !errors.Is(err, c.sentinel) || te.Code != c.code || te.Message != c.msg || te.Entity != "issues" || te.StatusCode != 200 {
			t.Errorf("%s: %#v", c.body, err)
		}
	}
	// The same body on a 400 is read by the rule too.
	conn := openGQL(t, roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return reply(400, nil, `{"errors":[{"message":"Entity not found: Issue","extensions":{"code":"INVALID_INPUT"}}]}`), nil
	}))
	if _, err := conn.Get(context.Background(), "issues", tributary.Params{"id": "x"}); !errors.Is(err, tributary.ErrNotFound) {
		t.Errorf("400: %v", err)
	}
}

// RATELIMITED in a 400 (or a 200) is waited out until the reset the
// headers announce, in milliseconds, and retried; counted as a throttled
// answer and a retry.
func TestRateLimitInBodyIsWaited(t *testing.T) {
	for _, status := range []int{200, 400} {
		synctest.Test(t, func(t *testing.T) {
			var times []time.Time
			c := openGQL(t, roundTripFunc(func(r *http.Request) (*http.Response, error) {
				times = append(times, time.Now())
				if len(times) == 1 {
					reset := time.Now().Add(12 * time.Second).UnixMilli()
					return reply(status, http.Header{"X-Ratelimit-Requests-Remaining": {"0"}, "X-Ratelimit-Requests-Reset": {strconv.FormatInt(reset, 10)}},
						`{"errors":[{"message":"Rate limit exceeded","extensions":{"code":"RATELIMITED"}}]}`), nil
				}
				return reply(200, http.Header{"X-Ratelimit-Requests-Remaining": {"1499"}, "X-Ratelimit-Requests-Reset": {strconv.FormatInt(time.Now().Add(time.Hour).UnixMilli(), 10)}},
					`{"data":{"issue":{"id":"x"}}}`), nil
			}))
			rec, err := c.Get(context.Background(), "issues", tributary.Params{"id": "x"})
			if err != nil {
				t.Fatalf("%d: %v", status, err)
			}
			if id, _ := rec.StringAt("id"); id != "x" || len(times) != 2 {
				t.Fatalf("%d: %s after %d requests", status, rec, len(times))
			}
			if w := times[1].Sub(times[0]); w != 12*time.Second {
				t.Errorf("%d: waited %v, want the 12s to the reset", status, w)
			}
			if u := c.Usage(); u.Requests != 2 || u.Retries != 1 || u.Throttled != 1 {
				t.Errorf("%d: usage %+v", status, u)
			}
		})
	}
	// A reset beyond MaxRateLimitWait is not waited for: the error says when.
	synctest.Test(t, func(t *testing.T) {
		n := 0
		c := openGQL(t, roundTripFunc(func(r *http.Request) (*http.Response, error) {
			n++
			reset := time.Now().Add(10 * time.Minute).UnixMilli()
			return reply(200, http.Header{"X-Ratelimit-Requests-Remaining": {"0"}, "X-Ratelimit-Requests-Reset": {strconv.FormatInt(reset, 10)}},
				`{"errors":[{"message":"Rate limit exceeded","extensions":{"code":"RATELIMITED"}}]}`), nil
		}))
		_, err := c.Get(context.Background(), "issues", tributary.Params{"id": "x"})
		var te *tributary.Error
		if !errors.As(err, &te) || !errors.Is(err, tributary.ErrRateLimited) || te.RetryAfter != 10*time.Minute || n != 1 || !te.Retryable {
			t.Errorf("after %d requests: %#v", n, err)
		}
	})
}

// The credential check reads the kind's error rule too: credentials
// refused inside a 200 are refused.
func TestCheckCredentialsReadsErrorsInsideA200(t *testing.T) {
	for body, want := range map[string]error{
		`{"data":{"viewer":{"id":"u"}}}`: nil,
		`{"data":null,"errors":[{"message":"Authentication required, not authenticated","extensions":{"code":"AUTHENTICATION_ERROR"}}]}`: tributary.ErrUnauthorized,
	} {
		k := gqlKind
		k.Check = &engine.Route{Path: "/graphql", GraphQL: "query Viewer { viewer { id } }", Records: "data.viewer"}
		c, err := engine.Open(engine.Setup{Kind: &k, Options: tributary.NewOptions(tributary.WithHTTPClient(&http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			return reply(200, nil, body), nil
		})})), DefaultBaseURL: "https://api.example.com", Auth: transport.Bearer(secret)})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.CheckCredentials(context.Background()); !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("%s: %v, want %v", body, err, want)
		}
	}
}

// A wait for a rate limit reported in the body ends with the context: the
// call returns the context's error, not the rate limit it was waiting out.
func TestRateLimitInBodyWaitIsCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := 0
		c := openGQL(t, roundTripFunc(func(r *http.Request) (*http.Response, error) {
			n++
			reset := time.Now().Add(30 * time.Second).UnixMilli()
			return reply(400, http.Header{"X-Ratelimit-Requests-Remaining": {"0"}, "X-Ratelimit-Requests-Reset": {strconv.FormatInt(reset, 10)}},
				`{"errors":[{"message":"Rate limit exceeded","extensions":{"code":"RATELIMITED"}}]}`), nil
		}))
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(time.Second, cancel)
		start := time.Now()
		_, err := c.Get(ctx, "issues", tributary.Params{"id": "x"})
		var te *tributary.Error
		if !errors.Is(err, context.Canceled) || !errors.As(err, &te) || te.Entity != "issues" || time.Since(start) != time.Second || n != 1 {
			t.Errorf("after %v and %d requests: %#v", time.Since(start), n, err)
		}
	})
}
