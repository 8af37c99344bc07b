package store_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary/internal/race"
	"github.com/tributary-dev/tributary/search"
)

// TestConcurrentSearches: more searches at once than the reader pool has
// connections, each of a shape none ran before (so that its statements
// are prepared while every connection may be held by another search's
// transaction), all answer, and as the reference does. Under the race
// detector each goroutine runs two searches instead of ten: the detector
// makes the pure-Go SQLite ten times slower, and 128 searches of new shapes
// still outnumber the pool's connections.
func TestConcurrentSearches(t *testing.T) {
	rounds := 10
	if race.Enabled {
		rounds = 2
	}
	st := diffSQLite(t, "concurrent")
	ix := loadIDs(t, st, 7, 300, func(i int) int { return i })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan string, 128)
	for g := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				// g+i conditions: a statement of its own.
				var fs []search.Filter
				for range 1 + g + i {
					fs = append(fs, search.Neq("status", "nope"))
				}
				req := search.Request{Limit: 7, Query: search.Query{Filter: search.And(fs...).Ptr()}}
				got, err := st.Search(ctx, "diff", "things", req)
				if err != nil {
					errs <- err.Error()
					return
				}
				want, _ := ix.Search(req)
				want.TookMS, got.TookMS = 0, 0
				if d := cmp.Diff(want, got); d != "" {
					js, _ := json.Marshal(req)
					errs <- string(js) + " differs (-reference +store):\n" + d
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
