package intercom_test

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/intercom"
)

// walkRecords walks entity with p and returns id and updated_at of each record.
func walkRecords(t *testing.T, c tributary.Connector, entity string, p tributary.Params) []feedRecord {
	t.Helper()
	var out []feedRecord
	for r, err := range tributary.All(context.Background(), c, entity, p) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, feedRecordOf(t, r))
	}
	return out
}

// byUpdated orders records by updated_at.
func byUpdated(a, b feedRecord) int { return cmp.Compare(a.updated, b.updated) }

// medianStart is a start date that splits entity's records in two, a
// second after the updated_at of the middle one (so not at a day's start),
// and the records sorted by updated_at.
func medianStart(t *testing.T, c tributary.Connector, entity string) (time.Time, []feedRecord) {
	t.Helper()
	all := walkRecords(t, c, entity, nil)
	slices.SortFunc(all, byUpdated)
	return time.Unix(all[len(all)/2].updated+1, 0).UTC(), all
}

// With replication_config.start_date, the copy of contacts and
// conversations is one part listed with updated_since: POST
// /{entity}/search on updated_at from the day before the start (Intercom
// matches by day), oldest first, 150 a page, and no record updated before
// the start is returned, although the search answers with the records of
// the start's day. Every record updated at or after it is.
func TestStartDateLimitsTheCopy(t *testing.T) {
	for _, entity := range feedEntities {
		t.Run(entity, func(t *testing.T) {
			srv := feedServer()
			defer srv.Close()
			c := open(t, srv)
			ctx := context.Background()

			start, all := medianStart(t, c, entity)
			var want []string
			sameDay := 0
			for _, r := range all {
				switch {
				case r.updated >= start.Unix():
					want = append(want, r.id)
				case r.updated >= dayStart(start):
					sameDay++
				}
			}
			if sameDay == 0 {
				t.Fatalf("no record of the start's day before %v: the test proves nothing", start)
			}

			config, err := kinds.NormalizeReplicationConfig(intercom.Type, intercom.ReplicationConfig(start))
			if err != nil {
				t.Fatal(err)
			}
			e, _ := tributary.FindEntity(c.Entities(), entity)
			var parts []tributary.Part
			for part, err := range e.Scope.Parts(ctx, c, config) {
				if err != nil {
					t.Fatal(err)
				}
				parts = append(parts, part)
			}
			wantParts := []tributary.Part{{Key: "updated since " + intercom.NewStartDate(start).String(), Params: tributary.Params{"updated_since": start.Unix()}}}
			if d := gocmp.Diff(wantParts, parts); d != "" {
				t.Fatalf("parts (-want +got):\n%s", d)
			}

			srv.ResetRequests()
			got := walkRecords(t, c, entity, parts[0].Params)
			if !slices.IsSortedFunc(got, byUpdated) {
				t.Error("the walk is not oldest change first")
			}
			var ids []string
			for _, r := range got {
				if r.updated < start.Unix() {
					t.Errorf("record %s updated at %d, before the start %d", r.id, r.updated, start.Unix())
				}
				ids = append(ids, r.id)
			}
			if d := gocmp.Diff(sortedIDs(want), sortedIDs(ids)); d != "" {
				t.Errorf("records (-want +got):\n%s", d)
			}
			reqs := srv.Requests()
			if len(reqs) == 0 {
				t.Fatal("no request")
			}
			query := map[string]any{"operator": "AND", "value": []any{
				map[string]any{"field": "updated_at", "operator": ">", "value": float64(start.Unix() - 86400)}}}
			for i, r := range reqs {
				if r.Method != "POST" || r.Path != "/"+entity+"/search" {
					t.Fatalf("request %d: %s %s", i, r.Method, r.Path)
				}
				var body map[string]any
				if err := json.Unmarshal(r.Body, &body); err != nil {
					t.Fatal(err)
				}
				pg := map[string]any{"per_page": float64(intercom.MaxPerPage)}
				if i > 0 {
					if body["pagination"].(map[string]any)["starting_after"] == nil {
						t.Errorf("request %d has no starting_after", i)
					}
					pg["starting_after"] = body["pagination"].(map[string]any)["starting_after"]
				}
				wantBody := map[string]any{"query": query, "sort": map[string]any{"field": "updated_at", "order": "ascending"}, "pagination": pg}
				if d := gocmp.Diff(wantBody, body); d != "" {
					t.Errorf("request %d body (-want +got):\n%s", i, d)
				}
			}

			// The change feed of the part, from nothing and from a
			// checkpoint on the start's day, asks from the start too.
			for _, cp := range []tributary.Checkpoint{{}, {Since: start.Add(time.Hour)}} {
				for ch, err := range c.Changes(ctx, entity, parts[0].Params, cp) {
					if err != nil {
						t.Fatal(err)
					}
					for _, r := range ch.Records {
						if u, _ := r.IntAt("updated_at"); u < start.Unix() {
							id, _ := r.StringAt("id")
							t.Errorf("feed from %v: record %s updated at %d, before the start", cp.Since, id, u)
						}
					}
				}
			}

			// Without a start date, the copy is every record.
			for part, err := range e.Scope.Parts(ctx, c, nil) {
				if err != nil || part.Key != "all" || part.Params != nil {
					t.Errorf("part without a start date: %+v, %v", part, err)
				}
			}
		})
	}
}
