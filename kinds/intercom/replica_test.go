package intercom_test

import (
	"context"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/replicatest"
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
	// One start for both: the later of the two medians.
	start, _ := medianStart(t, c, "contacts")
	if s, _ := medianStart(t, c, "conversations"); s.After(start) {
		start = s
	}
	config, err := kinds.NormalizeReplicationConfig(intercom.Type, intercom.ReplicationConfig(start))
	if err != nil {
		t.Fatal(err)
	}
	r := replicatest.Synced(t, c, feedEntities, replica.WithConfig(config))
	for pass := range 2 {
		if pass > 0 {
			srv.Clock().Advance(time.Hour)
			if _, err := r.Sync(ctx, feedEntities...); err != nil {
				t.Fatal(err)
			}
		}
		for _, entity := range feedEntities {
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
	}
}
