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

// tokenSource is a source with a changes feed of tokens, shaped as Google
// Drive's: GET /start answers {"startPageToken": "<seq>"}; GET /changes
// ?pageToken=<seq> lists the changes after seq, 20 a page, each
// {"fileId", "removed", "file"}, with nextPageToken on every page but the
// last, which names newStartPageToken; a token older than forgot answers
// 404. GET /files lists the live files.
type tokenSource struct {
	mu       sync.Mutex
	files    map[int]int // id → version
	log      []change    // every change, in order; a token is an index
	forgot   int
	requests map[string]int
	onList   func() // called at each /files page (a change during the walk)
}

type change struct {
	id      int
	removed bool
}

func (s *tokenSource) file(id int) map[string]any {
	return map[string]any{"id": strconv.Itoa(id), "name": "file " + strconv.Itoa(id), "version": s.files[id]}
}

func (s *tokenSource) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests[r.URL.Path]++
	q := r.URL.Query()
	var out map[string]any
	switch r.URL.Path {
	case "/start":
		out = map[string]any{"startPageToken": strconv.Itoa(len(s.log))}
	case "/files":
		if s.onList != nil {
			s.mu.Unlock()
			s.onList()
			s.mu.Lock()
		}
		off, _ := strconv.Atoi(q.Get("pageToken"))
		var recs []any
		for id := 1; id <= 1000; id++ {
			if _, ok := s.files[id]; ok {
				recs = append(recs, s.file(id))
			}
		}
		out = map[string]any{"files": recs[min(off, len(recs)):min(off+20, len(recs))]}
		if off+20 < len(recs) {
			out["nextPageToken"] = strconv.Itoa(off + 20)
		}
	case "/changes":
		tok, err := strconv.Atoi(q.Get("pageToken"))
		if err != nil || tok < s.forgot || tok > len(s.log) {
			w.WriteHeader(http.StatusNotFound)
			_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": 404, "message": "Page token is not valid."}})
			return
		}
		end := min(tok+20, len(s.log))
		var chs []any
		for _, c := range s.log[tok:end] {
			ch := map[string]any{"fileId": strconv.Itoa(c.id), "removed": c.removed}
			if !c.removed {
				ch["file"] = s.file(c.id)
			}
			chs = append(chs, ch)
		}
		out = map[string]any{"changes": chs}
		if end < len(s.log) {
			out["nextPageToken"] = strconv.Itoa(end)
		} else {
			out["newStartPageToken"] = strconv.Itoa(end)
		}
	}
	_ = json.NewEncoder(w).Encode(out)
}

func (s *tokenSource) put(id int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[id]++
	s.log = append(s.log, change{id: id})
}

func (s *tokenSource) remove(id int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.files, id)
	s.log = append(s.log, change{id: id, removed: true})
}

func tokenConn(t *testing.T, url string) tributary.Connector {
	paging := pagination.Token{Param: "pageToken", Field: "nextPageToken", Keep: []string{"newStartPageToken"}}
	k := &engine.Kind{Type: "token-test", Entities: []engine.Entity{{
		Entity: tributary.Entity{Name: "files", Actions: []tributary.Action{tributary.ActionList, tributary.ActionSearch},
			Params:     map[tributary.Action][]tributary.Param{tributary.ActionList: {{Name: "pageToken", Type: tributary.TypeString}}},
			Searchable: []tributary.Field{{Name: "id", Type: tributary.TypeString}, {Name: "name", Type: tributary.TypeString}, {Name: "version", Type: tributary.TypeInteger}},
			Feed: &tributary.Feed{
				Params: func(base tributary.Params, _ time.Time) tributary.Params { return base.Clone() },
				Token: &tributary.TokenFeed{Start: &tributary.Zone{Path: "/start", Field: "startPageToken"}, Param: "pageToken",
					New: "newStartPageToken", Expired: []int{http.StatusNotFound}},
				Unwrap: "file", DeletedID: "fileId",
				Deleted: func(r tributary.Record) bool { v, _ := r.Field("removed"); return v == true },
			}},
		Routes:    map[tributary.Action][]engine.Route{tributary.ActionList: {{Path: "/files", Records: "files", Paging: paging}}},
		FeedRoute: &engine.Route{Path: "/changes", Records: "changes", Paging: paging},
	}}}
	c, err := engine.Open(engine.Setup{Kind: k, Options: tributary.NewOptions(), DefaultBaseURL: url, Auth: transport.Bearer("x")})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A feed of tokens: the first sync takes a token, then walks the list;
// what changed during the walk, and later, is read from the token (one
// request), deletions included; a token the source forgot walks the copy
// in full again.
func TestTokenFeed(t *testing.T) {
	ctx := context.Background()
	src := &tokenSource{files: map[int]int{}, requests: map[string]int{}}
	for id := 1; id <= 50; id++ {
		src.put(id)
	}
	pages := 0
	src.onList = func() {
		// Changes made while the first walk reads its second page: file
		// 1 was on the first page already, file 60 is new.
		if pages++; pages == 2 {
			src.put(1)
			src.put(60)
		}
	}
	srv := httptest.NewServer(src)
	defer srv.Close()
	r, err := replica.Open(ctx, tokenConn(t, srv.URL), replica.SQLite(t.TempDir()+"/t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sync := func() replica.EntityReport {
		t.Helper()
		rep, err := r.Sync(ctx, "files")
		if err != nil {
			t.Fatal(err)
		}
		return rep.Entities[0]
	}
	first := sync()
	if first.Mode != replica.Full || first.Inserted < 50 || src.requests["/start"] != 1 {
		t.Fatalf("first sync %+v, %v", first, src.requests)
	}
	src.onList = nil
	src.put(3)
	src.put(4)
	src.remove(7)
	src.remove(8)
	src.put(70)
	src.requests = map[string]int{}
	inc := sync()
	// The pass reads from the token taken before the walk: file 1's
	// change during the walk is read now (updated), with 3 and 4.
	if inc.Mode != replica.Incremental || inc.Updated != 3 || inc.Deleted != 2 || inc.Inserted+first.Inserted != 52 || src.requests["/changes"] != 1 || src.requests["/files"] != 0 {
		t.Fatalf("incremental %+v, first inserted %d, requests %v", inc, first.Inserted, src.requests)
	}
	for id, want := range map[int]bool{3: true, 7: false, 8: false, 60: true, 70: true} {
		res, err := r.Search(ctx, "files", searchEq("id", strconv.Itoa(id)))
		if err != nil {
			t.Fatal(err)
		}
		if got := len(res.Hits) == 1; got != want {
			t.Errorf("file %d in the copy: %v, want %v", id, got, want)
		}
	}
	// Nothing changed: one request, nothing written.
	src.requests = map[string]int{}
	if again := sync(); again.Inserted+again.Updated+again.Deleted != 0 || src.requests["/changes"] != 1 {
		t.Errorf("a sync with nothing changed: %+v, %v", again, src.requests)
	}
	// The source forgets the copy's token: a full walk, from a new token.
	src.mu.Lock()
	src.forgot = len(src.log) + 1
	src.mu.Unlock()
	src.remove(9)
	src.requests = map[string]int{}
	full := sync()
	if full.Mode != replica.Full || full.Reason != "the source no longer accepts the feed's token" || full.Deleted != 1 || src.requests["/start"] != 1 {
		t.Errorf("after the token expired: %+v, %v", full, src.requests)
	}
}

func searchEq(field string, v any) search.Request {
	return search.Request{Query: search.Query{Filter: search.Eq(field, v).Ptr()}}
}
