package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/tributary-dev/tributary/store"
)

// Count while full synchronizations swap the copy and drop the previous
// one: every count is of one copy, whole (it found the copy, then counted
// a table the swap had dropped: "no such table").
func TestCountDuringSwaps(t *testing.T) {
	eachBackend(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		spec := store.Spec{Connector: "swaps", Entity: "things", Schema: changeSchema, IDField: "id"}
		load := func(n int) {
			l, err := st.BeginFull(ctx, spec)
			if err != nil {
				t.Error(err)
				return
			}
			recs := make([][]byte, n)
			for i := range recs {
				recs[i] = fmt.Appendf(nil, `{"id":%d,"status":"open","subject":"s%d"}`, i+1, i)
			}
			if err := l.Write(ctx, recs, nil); err != nil {
				t.Error(err)
				return
			}
			if err := l.Commit(ctx); err != nil {
				t.Error(err)
			}
		}
		load(10)
		const loads = 30
		var wg sync.WaitGroup
		done := make(chan struct{})
		wg.Go(func() {
			defer close(done)
			for i := range loads {
				load(10 + i%2) // 10 and 11 records in turn
			}
		})
		counts := 0
		var failed error
		for running := true; running && failed == nil; counts++ {
			select {
			case <-done:
				running = false
			default:
			}
			n, err := st.Count(ctx, spec.Connector, spec.Entity)
			if err != nil {
				failed = fmt.Errorf("count %d, during the loads: %w", counts, err)
			} else if n != 10 && n != 11 {
				failed = fmt.Errorf("count %d: %d records, neither copy's", counts, n)
			}
		}
		wg.Wait() // the loads end before the test does
		if failed != nil {
			t.Fatal(failed)
		}
		t.Logf("%d counts during %d full loads", counts, loads)
	})
}
