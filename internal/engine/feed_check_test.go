package engine_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/transport"
	"github.com/tributary-dev/tributary/pagination"
)

// A feed whose Check refuses the caller's params fails before anything is
// sent, naming the param; params it accepts are read as usual.
func TestFeedCheckRefusesBeforeSending(t *testing.T) {
	k := engine.Kind{Type: "feed-kind", Entities: []engine.Entity{{
		Entity: tributary.Entity{Name: "rows", Actions: []tributary.Action{tributary.ActionList},
			Params: map[tributary.Action][]tributary.Param{tributary.ActionList: {{Name: "q", Type: tributary.TypeString}}},
			Feed: &tributary.Feed{
				Params: func(base tributary.Params, _ time.Time) tributary.Params { return base },
				Check: func(base tributary.Params) (string, string) {
					if base["q"] == "bad" {
						return "q", "a feed cannot read this query"
					}
					return "", ""
				},
			}},
		Routes: map[tributary.Action][]engine.Route{tributary.ActionList: {{Path: "/rows", Records: "rows", Paging: pagination.None{}}}},
	}}}
	rec := &recorder{}
	c, err := engine.Open(engine.Setup{Kind: &k, Options: tributary.NewOptions(tributary.WithHTTPClient(&http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		rec.add(r)
		return reply(200, nil, `{"rows":[{"id":1}]}`), nil
	})})), DefaultBaseURL: "https://api.example.com", Auth: transport.Bearer(secret)})
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range c.Changes(context.Background(), "rows", tributary.Params{"q": "bad"}, tributary.Checkpoint{}) {
		var te *tributary.Error
		if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) || te.Param != "q" || te.Message != "a feed cannot read this query" {
			t.Fatalf("refused params: %v", err)
		}
	}
	if rec.count() != 0 {
		t.Fatalf("%d requests sent for refused params", rec.count())
	}
	n := 0
	for ch, err := range c.Changes(context.Background(), "rows", tributary.Params{"q": "good"}, tributary.Checkpoint{}) {
		if err != nil {
			t.Fatal(err)
		}
		n += len(ch.Records)
	}
	if n != 1 || rec.count() != 1 {
		t.Fatalf("accepted params: %d records, %d requests; want 1 and 1", n, rec.count())
	}
}
