package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
)

// FuzzCompile runs requests against a small SQLite copy and the reference
// search.Index over the same records: the store must never fail in the
// database, and must return exactly the reference's pages, or refuse
// exactly as it does. An input is a request in JSON (empty: none) and a
// condition on an arbitrary field, operator and value (JSON, or else the
// bytes as a string), combined with the request's filter by how: replacing
// it, and-ed, or-ed, or and-ed under a not.
func FuzzCompile(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 40 {
		js, err := json.Marshal(genRequest(r))
		if err != nil {
			f.Fatal(err)
		}
		field := pick(r, scalarFields)
		op := pick(r, []string{"eq", "neq", "gt", "gte", "lt", "lte", "in", "like", "keyword", "fuzzy", "contains"})
		v, _ := json.Marshal(genValue(r, field))
		if op == "in" {
			v = []byte("[" + string(v) + ",null]")
		}
		f.Add(js, field, op, v, uint8(r.IntN(4)))
	}

	// The copy and the reference: once per process (the fuzzing engine
	// runs this function once in each of its workers), not per input.
	ctx := context.Background()
	st, err := store.OpenSQLite(ctx, filepath.Join(f.TempDir(), "fuzz.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	ix := loadBoth(f, st, 13, 300)

	f.Fuzz(func(t *testing.T, reqJSON []byte, field, op string, value []byte, how uint8) {
		var req search.Request
		if len(reqJSON) > 0 {
			if json.Unmarshal(reqJSON, &req) != nil {
				return // decoding is the search package's (FuzzDecodeFilter)
			}
		}
		if op != "" {
			var v any = json.RawMessage(value)
			if !json.Valid(value) {
				v = string(value)
			}
			js, err := json.Marshal(map[string]map[string]any{op: {field: v}})
			if err != nil {
				return
			}
			var leaf search.Filter
			if json.Unmarshal(js, &leaf) != nil {
				return
			}
			switch old := req.Query.Filter; {
			case old == nil || how%4 == 0:
				req.Query.Filter = &leaf
			case how%4 == 1:
				req.Query.Filter = ptr(search.And(*old, leaf))
			case how%4 == 2:
				req.Query.Filter = ptr(search.Or(*old, leaf))
			default:
				req.Query.Filter = ptr(search.Not(search.And(*old, leaf)))
			}
		}
		for page := 0; page < 3; page++ {
			want, werr := ix.Search(req)
			got, gerr := st.Search(ctx, "diff", "things", req)
			js, _ := json.Marshal(req)
			var se *store.Error
			if errors.As(gerr, &se) {
				t.Fatalf("page %d of %s: the store failed: %v", page, js, gerr)
			}
			if werr != nil || gerr != nil {
				var qe *search.Error
				if werr == nil || gerr == nil || !errors.As(gerr, &qe) || werr.Error() != gerr.Error() {
					t.Fatalf("page %d of %s:\n reference error: %v\n store error:     %v", page, js, werr, gerr)
				}
				return
			}
			want.TookMS, got.TookMS = 0, 0
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("page %d of %s differs (-reference +store):\n%s", page, js, d)
			}
			if want.NextCursor == nil {
				return
			}
			req.Cursor = *want.NextCursor
		}
	})
}
