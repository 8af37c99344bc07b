package gong_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/gong/gongtest"
)

// calls_extensive is copied with no filter from the caller: the scope's
// params read every call, with the parts its searchable fields name, in
// one walk of POST /v2/calls/extensive (the same body on every page, plus
// the cursor).
func TestCallsExtensiveScopeReadsEveryCall(t *testing.T) {
	srv := gongtest.New()
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	want := allIDs(t, c, "calls", nil, "id")
	srv.ResetRequests()

	e, _ := tributary.FindEntity(c.Entities(), "calls_extensive")
	p := e.CopyParams(nil)
	if p == nil || e.CopiedInParts() {
		t.Fatalf("calls_extensive: copy params %v, in parts %v", p, e.CopiedInParts())
	}
	var ids []string
	for r, err := range tributary.All(ctx, c, "calls_extensive", p) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, recordIDs(t, []tributary.Record{r}, "metaData.id")...)
		for _, part := range []string{"context", "parties", "content", "interaction", "collaboration"} {
			if _, ok := r.Lookup(part); !ok {
				t.Fatalf("call %s has no %s", ids[len(ids)-1], part)
			}
		}
		if _, ok := r.Lookup("media"); ok {
			t.Fatalf("call %s has media URLs, which expire", ids[len(ids)-1])
		}
	}
	if len(want) != gongtest.DefaultCalls {
		t.Fatalf("%d calls listed, want %d", len(want), gongtest.DefaultCalls)
	}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("calls (-GET /v2/calls +copy):\n%s", diff)
	}
	reqs := apiRequests(srv)
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 pages of 100", len(reqs))
	}
	first, _ := json.Marshal(p)
	var wantBody map[string]any
	if err := json.Unmarshal(first, &wantBody); err != nil {
		t.Fatal(err)
	}
	for i, r := range reqs {
		if r.Method != "POST" || r.Path != "/v2/calls/extensive" {
			t.Errorf("request %d: %s %s", i, r.Method, r.Path)
		}
		body := bodyOf(t, r)
		if i > 0 {
			if body["cursor"] == nil {
				t.Errorf("request %d has no cursor", i)
			}
			delete(body, "cursor")
		}
		if diff := cmp.Diff(wantBody, body); diff != "" {
			t.Errorf("request %d body (-want +got):\n%s", i, diff)
		}
	}
}
