package intercom_test

import (
	"cmp"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/intercom"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/search"
)

// A durable replica given the connector's replication_config copies the
// contacts and conversations updated at or after its start_date, and no
// other: after the first sync (a walk) and after the next (the change
// feed; TestStartDateLimitsTheCopy reads it from a checkpoint on the
// start's day).
func TestReplicaHonoursStartDate(t *testing.T) {
	srv := feedServer()
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	starts := map[string]time.Time{}
	for _, entity := range feedEntities {
		all := walkRecords(t, c, entity, nil)
		slices.SortFunc(all, func(a, b feedRecord) int { return cmp.Compare(a.updated, b.updated) })
		starts[entity] = time.Unix(all[len(all)/2].updated+1, 0).UTC()
	}
	// One start for both: the later of the two medians.
	start := starts["contacts"]
	if starts["conversations"].After(start) {
		start = starts["conversations"]
	}
	config, err := kinds.NormalizeReplicationConfig(intercom.Type, intercom.ReplicationConfig(start))
	if err != nil {
		t.Fatal(err)
	}
	r, err := replica.Open(ctx, c, replica.SQLite(t.TempDir()+"/x.db"), replica.WithConfig(config))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for pass := range 2 {
		for _, entity := range feedEntities {
			if _, err := r.Sync(ctx, entity); err != nil {
				t.Fatal(err)
			}
			var want int
			for _, rec := range walkRecords(t, c, entity, nil) {
				if rec.updated >= start.Unix() {
					want++
				}
			}
			all, err := r.Search(ctx, entity, search.Request{Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			if len(all.Hits) != want || want == 0 {
				t.Errorf("sync %d: %d %s in the copy, want the %d updated since %v", pass+1, len(all.Hits), entity, want, start)
			}
			before, err := r.Search(ctx, entity, search.Request{Query: search.Query{Filter: search.Lt("updated_at", start.Unix()).Ptr()}})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range before.Hits {
				u, _ := tributary.NewRecord(h.Data).IntAt("updated_at")
				t.Errorf("sync %d: %s %s updated at %d, before the start %d", pass+1, entity, h.ID, u, start.Unix())
			}
		}
		srv.Clock().Advance(time.Hour)
	}
}
