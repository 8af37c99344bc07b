package kinds_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/search"
)

// answer is a RoundTripper that answers every request with a 200 and body.
type answer string

func (a answer) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(string(a))),
		Request: req, ContentLength: int64(len(a)),
	}, nil
}

// TestShapeErrorsOfMainLists: each kind's main list answered with valid
// JSON of another shape than the vendor documents fails with
// ErrUnexpectedResponse saying what was expected and what arrived, never
// "not valid JSON".
func TestShapeErrorsOfMainLists(t *testing.T) {
	cases := []struct {
		typ, entity string
		params      tributary.Params
		body, want  string
	}{
		{"zendesk-support", "tickets", nil, `{"tickets":{"id":1},"count":1}`, `expected an array under "tickets", got an object`},
		{"zendesk-support", "tickets", nil, `{"users":[],"count":0}`, `expected an array under "tickets", got an object with "count", "users"`},
		{"mailchimp", "campaigns", nil, `{"campaigns":"none","total_items":0}`, `expected an array under "campaigns", got a string`},
		{"gong", "users", nil, `[{"id":"1"}]`, `expected an object with an array under "users", got an array`},
		{"intercom", "contacts", nil, `{"type":"list","data":{"id":"1"}}`, `expected an array under "data", got an object`},
		{"salesforce", "accounts", tributary.Params{"q": "SELECT Id FROM Account"}, `{"totalSize":0,"done":true,"records":null}`, ``},
		{"salesforce", "accounts", tributary.Params{"q": "SELECT Id FROM Account"}, `{"totalSize":1,"done":true,"records":1}`, `expected an array under "records", got a number`},
		{"github", "issues", tributary.Params{"owner": "octo", "repo": "hello"}, `{"message":"Moved Permanently","url":"u"}`, `expected an array, got an object`},
		{"hubspot", "contacts", nil, `{"results":true}`, `expected an array under "results", got a boolean`},
		{"hubspot", "contacts", nil, `<html>`, `expected JSON, got malformed JSON at byte 0`},
	}
	for _, c := range cases {
		conn := openRecorded(t, c.typ, answer(c.body))
		_, err := conn.List(context.Background(), c.entity, c.params)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s %s: a null records member is an empty page: %v", c.typ, c.entity, err)
			}
			continue
		}
		var te *tributary.Error
		if !errors.As(err, &te) || !errors.Is(err, tributary.ErrUnexpectedResponse) {
			t.Errorf("%s %s.list: got %v, want ErrUnexpectedResponse", c.typ, c.entity, err)
			continue
		}
		if te.StatusCode != 200 || te.Kind != c.typ || te.Entity != c.entity || te.Action != tributary.ActionList ||
			!strings.Contains(err.Error(), "unexpected response (HTTP 200): "+c.want) {
			t.Errorf("%s %s.list: got %q, want it to say %q", c.typ, c.entity, err, c.want)
		}
	}
}

// TestShapeErrorsOfGet: a get answered with something else than the
// record object says what arrived.
func TestShapeErrorsOfGet(t *testing.T) {
	cases := []struct {
		typ, entity string
		params      tributary.Params
		body, want  string
	}{
		{"zendesk-support", "tickets", tributary.Params{"ticket_id": "35436"}, `{"tickets":[{"id":35436}]}`, `expected an object under "ticket", got an object with "tickets"`},
		{"github", "issues", tributary.Params{"owner": "octo", "repo": "hello", "issue_number": "1"}, `[{"id":1}]`, `expected an object, got an array`},
	}
	for _, c := range cases {
		conn := openRecorded(t, c.typ, answer(c.body))
		_, err := conn.Get(context.Background(), c.entity, c.params)
		if !errors.Is(err, tributary.ErrUnexpectedResponse) || !strings.Contains(err.Error(), "(HTTP 200): "+c.want) {
			t.Errorf("%s %s.get: got %v, want ErrUnexpectedResponse saying %q", c.typ, c.entity, err, c.want)
		}
	}
}

// TestNearestNames: an unknown kind, credentials field, entity, action or
// parameter is named with the nearest valid one, in the error text.
func TestNearestNames(t *testing.T) {
	_, err := kinds.Open("hubspt", map[string]any{})
	if !errors.Is(err, tributary.ErrUnknownKind) || !strings.Contains(err.Error(), `unknown connector_type "hubspt"; did you mean "hubspot"?`) {
		t.Errorf("kind: %v", err)
	}
	_, err = kinds.Open("zendesk-support", map[string]any{"subdomain": "acme", "email": "a@example.com", "api_tokn": "secret-value"})
	if !errors.Is(err, tributary.ErrInvalidCredentials) || !strings.Contains(err.Error(), `unknown credential field "api_tokn"; did you mean "api_token"?`) ||
		strings.Contains(err.Error(), "secret-value") {
		t.Errorf("credentials: %v", err)
	}
	conn := openRecorded(t, "zendesk-support", &guard{})
	for _, c := range []struct {
		entity string
		action tributary.Action
		params tributary.Params
		want   string
	}{
		{"ticket", tributary.ActionList, nil, `has no entity "ticket"; did you mean "tickets"?`},
		{"Tickets", tributary.ActionList, nil, `did you mean "tickets"?`},
		{"tickets", "lsit", nil, `there is no action "lsit"; did you mean "list"?`},
		{"tickets", tributary.ActionList, tributary.Params{"per_pge": 5}, `parameter "per_pge": is not a parameter of this action; did you mean "per_page"?`},
	} {
		_, err := tributary.Execute(context.Background(), conn, tributary.Request{Entity: c.entity, Action: c.action, Params: c.params})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s.%s %v: got %v, want %q", c.entity, c.action, c.params, err, c.want)
		}
	}
	err = tributary.ValidateSearch("zendesk-support", conn.Entities(), "tickets", search.Request{Query: search.Query{Filter: search.Eq("stauts", "open").Ptr()}})
	var te *tributary.Error
	if !errors.As(err, &te) || te.Param != "stauts" || !strings.Contains(err.Error(), `unknown field; did you mean "status"?`) {
		t.Errorf("search field: %v", err)
	}
}
