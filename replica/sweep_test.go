package replica_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/transport"
	"github.com/tributary-dev/tributary/pagination"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/search"
)

// sweepSource is a source whose feed never shows a deletion (as Jira's
// search): its items are listed by updated_since, and a sweep lists ids
// only, many a page. hidden ids are left out of the sweep (an index that
// has not caught up).
type sweepSource struct {
	mu      sync.Mutex
	items   map[int]time.Time // id → updated
	hidden  map[int]bool
	sweeps  int
	feedReq int
}

func (s *sweepSource) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := r.URL.Query()
	size, _ := strconv.Atoi(q.Get("size"))
	off, _ := strconv.Atoi(q.Get("offset"))
	idsOnly := q.Get("fields") == "id"
	if idsOnly {
		s.sweeps++
	} else {
		s.feedReq++
	}
	since, _ := time.Parse(time.RFC3339, q.Get("updated_since"))
	var recs []map[string]any
	for id := 1; id <= 1000; id++ {
		up, ok := s.items[id]
		if !ok || (idsOnly && s.hidden[id]) || (!idsOnly && up.Before(since)) {
			continue
		}
		if idsOnly {
			recs = append(recs, map[string]any{"id": id})
		} else {
			recs = append(recs, map[string]any{"id": id, "updated": up.Format(time.RFC3339), "name": "item " + strconv.Itoa(id)})
		}
	}
	total := len(recs)
	recs = recs[min(off, total):min(off+size, total)]
	_ = json.NewEncoder(w).Encode(map[string]any{"items": recs, "total": total})
}

func sweepConn(t *testing.T, url string) tributary.Connector {
	k := &engine.Kind{Type: "sweep-test", Entities: []engine.Entity{{
		Entity: tributary.Entity{Name: "items", Actions: []tributary.Action{tributary.ActionList, tributary.ActionSearch},
			Params: map[tributary.Action][]tributary.Param{tributary.ActionList: {
				{Name: "size", Type: tributary.TypeInteger, Max: tributary.Bound(1000), PageSize: true},
				{Name: "offset", Type: tributary.TypeInteger}, {Name: "fields", Type: tributary.TypeString},
				{Name: "updated_since", Type: tributary.TypeString}}},
			Searchable: []tributary.Field{{Name: "id", Type: tributary.TypeInteger}, {Name: "name", Type: tributary.TypeString}, {Name: "updated", Type: tributary.TypeDateTime}},
			Feed: &tributary.Feed{
				Params: func(base tributary.Params, since time.Time) tributary.Params {
					p := base.Clone()
					if !since.IsZero() {
						p["updated_since"] = since.UTC().Format(time.RFC3339)
					}
					return p
				},
				Changed: "updated", Overlap: time.Minute,
				Sweep: &tributary.Sweep{Params: func(base tributary.Params) tributary.Params {
					p := base.Clone()
					p["fields"], p["size"] = "id", int64(1000)
					return p
				}, Settle: 10 * time.Minute},
			}},
		Routes: map[tributary.Action][]engine.Route{tributary.ActionList: {{Path: "/items", Records: "items",
			Paging: pagination.OffsetTotal{OffsetParam: "offset", TotalField: "total"}}}},
	}}}
	c, err := engine.Open(engine.Setup{Kind: k, Options: tributary.NewOptions(), DefaultBaseURL: url, Auth: transport.Bearer("x")})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A feed that shows no deletion, with a sweep: the records the sweep no
// longer finds leave the copy, in one request for 120 ids, except one
// changed too recently to tell.
func TestSweepFindsDeletions(t *testing.T) {
	ctx := context.Background()
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	src := &sweepSource{items: map[int]time.Time{}, hidden: map[int]bool{}}
	for id := 1; id <= 120; id++ {
		src.items[id] = old
	}
	srv := httptest.NewServer(src)
	defer srv.Close()
	r, err := replica.Open(ctx, sweepConn(t, srv.URL), replica.SQLite(t.TempDir()+"/s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Sync(ctx, "items"); err != nil {
		t.Fatal(err)
	}
	// A full walk counts as a sweep, and Every is 0: the next sync
	// sweeps. Items 5 and 6 are deleted; item 7, changed a minute ago,
	// is not yet in the sweep's index.
	src.mu.Lock()
	delete(src.items, 5)
	delete(src.items, 6)
	src.items[7] = time.Now().Add(-time.Minute).Truncate(time.Second)
	src.hidden[7] = true
	src.sweeps = 0
	src.mu.Unlock()
	rep, err := r.Sync(ctx, "items")
	if err != nil {
		t.Fatal(err)
	}
	er := rep.Entities[0]
	if er.Mode != replica.Incremental || er.Deleted != 2 || er.Swept == nil || er.Swept.Requests != 1 || er.Swept.Live != 117 || src.sweeps != 1 {
		t.Fatalf("report %+v, swept %+v, sweeps %d", er, er.Swept, src.sweeps)
	}
	for _, c := range []struct {
		id   int
		want bool
	}{{5, false}, {6, false}, {7, true}, {8, true}} {
		res, err := r.Search(ctx, "items", searchID(c.id))
		if err != nil {
			t.Fatal(err)
		}
		if got := len(res.Hits) == 1; got != c.want {
			t.Errorf("item %d in the copy: %v, want %v", c.id, got, c.want)
		}
	}
}

func searchID(id int) search.Request {
	return search.Request{Query: search.Query{Filter: search.Eq("id", id).Ptr()}}
}
