package engine

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/transport"
	"github.com/tributary-dev/tributary/pagination"
)

// A feed whose pages are references (ids changed since a time) is read
// with a second request for the records, Max ids at a time; its deletions
// come from an endpoint of their own, from the checkpoint's time less the
// overlap, each reference made a record of its id.
func TestRefsFeed(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got = append(got, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery+" "+string(body))
		switch r.URL.Path {
		case "/changed":
			_, _ = w.Write([]byte(`{"values":[{"wid":1},{"wid":2},{"wid":3}],"last":true}`))
		case "/list":
			var req struct{ IDs []int }
			_ = json.Unmarshal(body, &req)
			out := []map[string]any{}
			for _, id := range req.IDs {
				if id != 2 { // deleted in between
					out = append(out, map[string]any{"id": id, "updated": "2026-03-02T10:00:00Z"})
				}
			}
			_ = json.NewEncoder(w).Encode(out)
		case "/deleted":
			_, _ = w.Write([]byte(`{"values":[{"wid":9,"at":5}],"last":true}`))
		case "/broken":
			_, _ = w.Write([]byte(`{"values":[{"other":1}],"last":true}`))
		}
	}))
	defer srv.Close()
	since := func(_ tributary.Params, t time.Time) tributary.Params {
		return tributary.Params{"since": max(t.Unix(), 0)}
	}
	page := pagination.Token{Param: "since", Field: "next", Last: "last"}
	e := Entity{Entity: tributary.Entity{Name: "logs", Actions: []tributary.Action{tributary.ActionList},
		Feed: &tributary.Feed{Params: since, Changed: "updated", Overlap: time.Minute, Deletions: &tributary.Feed{Params: since}}},
		FeedRoute: &Route{Path: "/changed", Records: "values", Paging: page,
			Refs: &Refs{ID: "wid", Param: "ids", Max: 2, Fetch: &Route{Method: "POST", Path: "/list", Body: true}}},
		DeletionsRoute: &Route{Path: "/deleted", Records: "values", Paging: page, Refs: &Refs{ID: "wid", As: "id", Text: true}},
	}
	c, err := Open(Setup{Kind: &Kind{Type: "refs-test", Entities: []Entity{e}}, Options: tributary.NewOptions(), DefaultBaseURL: srv.URL, Auth: transport.Bearer("x")})
	if err != nil {
		t.Fatal(err)
	}
	var recs, deleted []string
	from := time.Unix(1000, 0)
	for ch, err := range c.Changes(context.Background(), "logs", nil, tributary.Checkpoint{Since: from}) {
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range ch.Records {
			recs = append(recs, string(r.Raw()))
		}
		for _, r := range ch.Deleted {
			deleted = append(deleted, string(r.Raw()))
		}
	}
	want := []string{"GET /changed?since=940 ", `POST /list? {"ids":[1,2]}`, `POST /list? {"ids":[3]}`, "GET /deleted?since=940 "}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{`{"id":1,"updated":"2026-03-02T10:00:00Z"}`, `{"id":3,"updated":"2026-03-02T10:00:00Z"}`}, recs); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{`{"id":"9","wid":9,"at":5}`}, deleted); d != "" {
		t.Errorf("deletions (-want +got):\n%s", d)
	}
	e.FeedRoute.Path = "/broken"
	c, _ = Open(Setup{Kind: &Kind{Type: "refs-test", Entities: []Entity{e}}, Options: tributary.NewOptions(), DefaultBaseURL: srv.URL, Auth: transport.Bearer("x")})
	for _, err := range c.Changes(context.Background(), "logs", nil, tributary.Checkpoint{}) {
		if !errors.Is(err, tributary.ErrUnexpectedResponse) {
			t.Errorf("a reference without its id: %v", err)
		}
		break
	}
}
