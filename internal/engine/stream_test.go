package engine_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/transport"
	"github.com/tributary-dev/tributary/pagination"
)

// A stream shaped as Stripe's events, newest first, two pages: every
// entity of the stream is fed from one read; the latest state of a record
// wins; *.deleted events are deletions; a copy served once reads again; a
// checkpoint older than the retention is ErrCursorExpired; a first read
// notes the newest event and walks the list.
func TestStreamFeedsEveryEntityFromOneRead(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	at := func(d time.Duration) int64 { return now.Add(-d).Unix() }
	ev := func(id, typ string, created int64, obj string) string {
		return fmt.Sprintf(`{"id":%q,"object":"event","type":%q,"created":%d,"data":{"object":%s}}`, id, typ, created, obj)
	}
	// Newest first, as the stream lists them.
	events := []string{
		ev("evt_6", "customer.deleted", at(1*time.Minute), `{"id":"cus_2","object":"customer","deleted":true}`),
		ev("evt_5", "customer.discount.created", at(2*time.Minute), `{"id":"di_1","object":"discount"}`),
		ev("evt_4", "customer.updated", at(3*time.Minute), `{"id":"cus_1","object":"customer","name":"v2"}`),
		ev("evt_3", "invoice.created", at(4*time.Minute), `{"id":"in_1","object":"invoice"}`),
		ev("evt_2", "customer.created", at(5*time.Minute), `{"id":"cus_2","object":"customer","name":"two"}`),
		ev("evt_1", "customer.created", at(6*time.Minute), `{"id":"cus_1","object":"customer","name":"v1"}`),
	}
	var sent []string
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sent = append(sent, r.URL.Path+"?"+r.URL.RawQuery)
		q := r.URL.Query()
		switch {
		case r.URL.Path == "/v1/customers":
			return reply(200, nil, `{"object":"list","has_more":false,"data":[{"id":"cus_1","object":"customer","name":"v2"}]}`), nil
		case q.Get("starting_after") == "evt_4":
			return reply(200, nil, `{"object":"list","has_more":false,"data":[`+strings.Join(events[3:], ",")+`]}`), nil
		}
		return reply(200, nil, `{"object":"list","has_more":true,"data":[`+strings.Join(events[:3], ",")+`]}`), nil
	})
	stream := func(object string) *tributary.Feed {
		return &tributary.Feed{
			Params: func(_ tributary.Params, since time.Time) tributary.Params {
				if since.IsZero() {
					return tributary.Params{}
				}
				return tributary.Params{"created": map[string]any{"gt": since.Unix()}}
			},
			Changed: "created", Overlap: time.Second, Retention: 30 * 24 * time.Hour, Unwrap: "data.object",
			Stream: &tributary.Stream{Entity: "events", Field: "data.object.object", Value: object},
			Deleted: func(r tributary.Record) bool {
				typ, _ := r.StringAt("type")
				return strings.HasSuffix(typ, ".deleted")
			},
		}
	}
	paging := pagination.LastID{Param: "starting_after", ID: "id", More: "has_more"}
	entity := func(name, path string, f *tributary.Feed, params ...tributary.Param) engine.Entity {
		return engine.Entity{Entity: tributary.Entity{Name: name, Actions: []tributary.Action{tributary.ActionList}, Feed: f,
			Params: map[tributary.Action][]tributary.Param{tributary.ActionList: append(params, tributary.Param{Name: "starting_after", Type: tributary.TypeString})}},
			Routes: map[tributary.Action][]engine.Route{tributary.ActionList: {{Path: path, Records: "data", DeepObject: true, Paging: paging}}}}
	}
	k := &engine.Kind{Type: "stripe-like", Entities: []engine.Entity{
		entity("events", "/v1/events", nil, tributary.Param{Name: "created", Type: tributary.TypeObject}),
		entity("customers", "/v1/customers", stream("customer")),
		entity("invoices", "/v1/invoices", stream("invoice")),
	}}
	c, err := engine.Open(engine.Setup{Kind: k, Options: tributary.NewOptions(tributary.WithHTTPClient(&http.Client{Transport: rt})),
		DefaultBaseURL: "https://api.example.com", Auth: transport.Bearer(secret)})
	if err != nil {
		t.Fatal(err)
	}
	read := func(entity string, from tributary.Checkpoint) (recs, dels []string, cp tributary.Checkpoint, err error) {
		return readFeed(c, entity, tributary.Params{}, from)
	}
	from := tributary.Checkpoint{Since: now.Add(-10 * time.Minute)}
	recs, dels, cp, err := read("customers", from)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{`{"id":"cus_1","object":"customer","name":"v2"}`}, recs); d != "" {
		t.Errorf("customers (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{`{"id":"cus_2","object":"customer","deleted":true}`}, dels); d != "" {
		t.Errorf("deleted customers (-want +got):\n%s", d)
	}
	if want := now.Add(-time.Minute); !cp.Since.Equal(want) || cp.Next != nil || cp.Walking {
		t.Errorf("checkpoint %+v, want since %s", cp, want)
	}
	wantSent := []string{
		fmt.Sprintf("/v1/events?created%%5Bgt%%5D=%d", from.Since.Add(-time.Second).Unix()),
		fmt.Sprintf("/v1/events?created%%5Bgt%%5D=%d&starting_after=evt_4", from.Since.Add(-time.Second).Unix()),
	}
	if d := cmp.Diff(wantSent, sent); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}

	// The invoices' copy is fed from the same read: no request.
	sent = nil
	recs, _, _, err = read("invoices", from)
	if err != nil || len(sent) != 0 {
		t.Fatalf("invoices: %v, %d requests", err, len(sent))
	}
	if d := cmp.Diff([]string{`{"id":"in_1","object":"invoice"}`}, recs); d != "" {
		t.Errorf("invoices (-want +got):\n%s", d)
	}

	// The customers' copy asks again: a new read.
	if _, _, _, err = read("customers", cp); err != nil || len(sent) == 0 {
		t.Errorf("second read of customers: %v, %d requests", err, len(sent))
	}

	// A checkpoint older than the stream keeps: walked in full instead.
	sent = nil
	_, _, _, err = read("customers", tributary.Checkpoint{Since: now.Add(-31 * 24 * time.Hour)})
	if !errors.Is(err, tributary.ErrCursorExpired) || len(sent) != 0 {
		t.Errorf("a checkpoint of 31 days: %v, %d requests", err, len(sent))
	}

	// A first read: the newest event's time, then the list.
	sent = nil
	recs, _, cp, err = read("customers", tributary.Checkpoint{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{`{"id":"cus_1","object":"customer","name":"v2"}`}, recs); d != "" {
		t.Errorf("walk (-want +got):\n%s", d)
	}
	if want := now.Add(-time.Minute); !cp.Since.Equal(want) || cp.Walking || cp.Next != nil {
		t.Errorf("walk's checkpoint %+v, want since %s", cp, want)
	}
}
