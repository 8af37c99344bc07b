package linear_test

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/linear"
	"github.com/tributary-dev/tributary/kinds/linear/lineartest"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/store"
)

// RATELIMITED, which Linear answers with a 400 and errors[], is a rate
// limit, not a failure: the client waits for the reset its headers
// announce (epoch milliseconds) and goes on. Keeping to the budget it
// announces, the client is not refused at all and waits as long.
func TestRateLimitedIsWaited(t *testing.T) {
	for _, pacing := range []bool{false, true} {
		s := lineartest.New(lineartest.WithClock(fakeserver.NewRealClock()), lineartest.WithRateLimit(2, 1_000_000, time.Minute))
		realNow := time.Now()
		synctest.Test(t, func(t *testing.T) {
			time.Sleep(time.Until(realNow.Truncate(time.Minute).Add(time.Minute))) // the bubble's clock starts in 2000
			c := open(t, s, tributary.WithHTTPClient(&http.Client{Transport: s.Transport()}), linear.WithBudgetPacing(pacing))
			start := time.Now()
			n := 0
			for _, err := range c.Issues().All(context.Background(), linear.ListParams{First: 40}) {
				if err != nil {
					t.Fatalf("pacing %v: %v", pacing, err)
				}
				n++
			}
			u := c.Usage()
			if n != 117 || time.Since(start) != time.Minute {
				t.Errorf("pacing %v: %d issues in %v, want 117 in the minute to the reset", pacing, n, time.Since(start))
			}
			if want := (tributary.Usage{Requests: 4, Retries: 1, Throttled: 1}); pacing {
				if u != (tributary.Usage{Requests: 3}) {
					t.Errorf("pacing: usage %+v, want 3 requests and no refusal", u)
				}
			} else if u != want {
				t.Errorf("usage %+v, want %+v", u, want)
			}
		})
		s.Close()
	}
}

// A copy of issues, projects, cycles and users: trashed issues are not in
// it; an issue and a project deleted (trashed), a cycle archived and a
// user suspended at Linear become deletions at the next sync, read from
// the feed (updatedAt after the checkpoint, archived and suspended
// included), in one request each.
func TestArchivedTrashedAndSuspendedAreTombstoned(t *testing.T) {
	ctx := context.Background()
	s := lineartest.New()
	defer s.Close()
	c := open(t, s)
	r, err := replica.Open(ctx, c, replica.SQLite(t.TempDir()+"/copy.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	entities := []string{"issues", "projects", "cycles", "users"}
	first, err := r.Sync(ctx, entities...)
	if err != nil {
		t.Fatal(err)
	}
	if n := r.Len("issues"); n != 117 {
		t.Errorf("%d issues in the copy, want the 117 not trashed", n)
	}
	from, err := r.ChangeCursor(ctx, "issues")
	if err != nil {
		t.Fatal(err)
	}
	s.Clock().Advance(10 * time.Minute)
	gone := map[string]string{}
	for _, e := range entities {
		gone[e] = s.IDs(e)[1]
		if err := s.Delete(e, gone[e]); err != nil {
			t.Fatal(err)
		}
	}
	s.Clock().Advance(time.Minute)
	s.ResetRequests()
	rep, err := r.Sync(ctx, entities...)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range rep.Entities {
		if e.Mode != replica.Incremental || e.Deleted != 1 || e.Inserted+e.Updated != 0 || e.Usage.Requests != 1 {
			t.Errorf("%s: %+v", e.Entity, e)
		}
	}
	if n := r.Len("issues"); n != 116 {
		t.Errorf("%d issues in the copy after the deletion", n)
	}
	page, err := r.Changes(ctx, "issues", from, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Changes) != 1 || page.Changes[0].Op != store.OpDelete || page.Changes[0].ID != gone["issues"] {
		t.Errorf("changes %+v", page.Changes)
	}
	// The feed's request: the copy's page size, ordered by updatedAt,
	// archived records included, changed after the checkpoint less the
	// overlap; suspended users too.
	bodies := sent(t, s)
	if len(bodies) != len(entities) {
		t.Fatalf("%d requests", len(bodies))
	}
	vars := bodies[0].Variables
	gt, _ := vars["filter"].(map[string]any)["updatedAt"].(map[string]any)["gt"].(string)
	delete(vars, "filter")
	if d := cmp.Diff(map[string]any{"first": 250.0, "orderBy": "updatedAt", "includeArchived": true}, vars); d != "" {
		t.Errorf("feed variables (-want +got):\n%s", d)
	}
	if want := first.Entities[0].Since.Add(-linear.FeedOverlap).Format("2006-01-02T15:04:05.000Z"); gt != want {
		t.Errorf("updatedAt gt %q, want the checkpoint %v less the overlap", gt, first.Entities[0].Since)
	}
	if v := bodies[3].Variables; v["includeDisabled"] != true || v["includeArchived"] != true {
		t.Errorf("users' feed variables %v", v)
	}
}

// Linear deletes comments (attachments, labels) outright: no feed shows
// it. A sweep of the ids, once a day (the first walk counts as one), finds
// the comment gone and keeps it as a deletion; between sweeps the copy
// still holds it.
func TestDeletedOutrightIsSwept(t *testing.T) {
	s := lineartest.New(lineartest.WithClock(fakeserver.NewRealClock()))
	defer s.Close()
	realNow := time.Now()
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(time.Until(realNow)) // the bubble's clock starts in 2000
		ctx := context.Background()
		c := open(t, s, tributary.WithHTTPClient(&http.Client{Transport: s.Transport()}))
		r, err := replica.Open(ctx, c, replica.SQLite(t.TempDir()+"/copy.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if _, err := r.Sync(ctx, "comments"); err != nil {
			t.Fatal(err)
		}
		id := s.IDs("comments")[4]
		if err := s.Delete("comments", id); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Hour)
		rep, err := r.Sync(ctx, "comments")
		if e := rep.Entities[0]; err != nil || e.Deleted != 0 || e.Swept != nil || r.Len("comments") != 200 {
			t.Fatalf("an hour later: %+v %v", e, err)
		}
		time.Sleep(linear.SweepEvery)
		rep, err = r.Sync(ctx, "comments")
		e := rep.Entities[0]
		if err != nil || e.Deleted != 1 || e.Swept == nil || e.Swept.Requests != 1 || e.Swept.Live != 199 || r.Len("comments") != 199 {
			t.Fatalf("a day later: %+v %+v %v", e, e.Swept, err)
		}
	})
}

// The feed keeps a caller's own filter, and-ed with its time filter.
func TestFeedKeepsTheCallersFilter(t *testing.T) {
	c, err := linear.New(linear.Credentials{APIKey: "lin_api_k"})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := tributary.FindEntity(c.Entities(), "issues")
	own := map[string]any{"team": map[string]any{"key": map[string]any{"eq": "ENG"}}}
	base := tributary.Params{"first": int64(250), "filter": own, "after": "x"}
	since := time.Date(2026, 3, 1, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	got := e.Feed.Params(base, since)
	want := tributary.Params{"first": int64(250), "orderBy": "updatedAt", "includeArchived": true, "filter": map[string]any{"and": []any{
		own, map[string]any{"updatedAt": map[string]any{"gt": "2026-03-01T11:00:00.000Z"}}}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("feed params (-want +got):\n%s", d)
	}
	if _, ok := base["orderBy"]; ok {
		t.Error("the feed changed its base")
	}
	validQuery(t, c.Kind().Entities[0].Routes["list"][0].GraphQL, got)
}
