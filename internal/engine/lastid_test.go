package engine_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/transport"
	"github.com/tributary-dev/tributary/pagination"
)

// A list shaped as Stripe's: objects and arrays in the query in deepObject
// style, the next page asked with starting_after = the id of the last
// record of the page, until has_more is false.
func TestLastIDAndDeepObjectQuery(t *testing.T) {
	var sent []url.Values
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sent = append(sent, r.URL.Query())
		if r.URL.Query().Get("starting_after") == "" {
			return reply(200, nil, `{"object":"list","url":"/v1/customers","has_more":true,"data":[{"id":"cus_1"},{"id":"cus_2"}]}`), nil
		}
		return reply(200, nil, `{"object":"list","url":"/v1/customers","has_more":false,"data":[{"id":"cus_3"}]}`), nil
	})
	k := &engine.Kind{Type: "stripe-like", Entities: []engine.Entity{{
		Entity: tributary.Entity{Name: "customers", Actions: []tributary.Action{tributary.ActionList},
			Params: map[tributary.Action][]tributary.Param{tributary.ActionList: {
				{Name: "created", Type: tributary.TypeObject, Fields: []tributary.Param{{Name: "gt", Type: tributary.TypeInteger}}},
				{Name: "expand", Type: tributary.TypeArray, Items: &tributary.Param{Type: tributary.TypeString}},
				{Name: "limit", Type: tributary.TypeInteger},
				{Name: "starting_after", Type: tributary.TypeString},
			}}},
		Routes: map[tributary.Action][]engine.Route{tributary.ActionList: {{Path: "/v1/customers", Records: "data", DeepObject: true,
			Paging: pagination.LastID{Param: "starting_after", ID: "id", More: "has_more"}}}},
	}}}
	c, err := engine.Open(engine.Setup{Kind: k, Options: tributary.NewOptions(tributary.WithHTTPClient(&http.Client{Transport: rt})),
		DefaultBaseURL: "https://api.example.com", Auth: transport.Bearer(secret)})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	p := tributary.Params{"created": map[string]any{"gt": int64(1700000000)}, "expand": []any{"data.default_source", "data.tax"}, "limit": int64(2)}
	for r, err := range c.Walk(context.Background(), "customers", p) {
		if err != nil {
			t.Fatal(err)
		}
		id, _ := r.StringAt("id")
		ids = append(ids, id)
	}
	if d := cmp.Diff([]string{"cus_1", "cus_2", "cus_3"}, ids); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
	want := []url.Values{
		{"created[gt]": {"1700000000"}, "expand[]": {"data.default_source", "data.tax"}, "limit": {"2"}},
		{"created[gt]": {"1700000000"}, "expand[]": {"data.default_source", "data.tax"}, "limit": {"2"}, "starting_after": {"cus_2"}},
	}
	if d := cmp.Diff(want, sent); d != "" {
		t.Errorf("queries sent (-want +got):\n%s", d)
	}
}
