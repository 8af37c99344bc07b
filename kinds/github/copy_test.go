package github_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/search"
)

// copySearch runs a search on the copy of entity and returns every hit's
// record.
func copySearch(t *testing.T, r *replica.Replica, entity string, filter *search.Filter) []tributary.Record {
	t.Helper()
	var out []tributary.Record
	q := search.Request{Query: search.Query{Filter: filter}, Limit: 1000}
	for {
		res, err := r.Search(context.Background(), entity, q)
		if err != nil {
			t.Fatalf("search %s: %v", entity, err)
		}
		for _, h := range res.Hits {
			var rec tributary.Record
			if err := rec.UnmarshalJSON(h.Data); err != nil {
				t.Fatal(err)
			}
			out = append(out, rec)
		}
		if res.NextCursor == nil {
			return out
		}
		q.Cursor = *res.NextCursor
	}
}

// fieldsFilter matches the records a part stamped with its Fields.
func fieldsFilter(fields map[string]any) *search.Filter {
	var fs []search.Filter
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		fs = append(fs, search.Eq(k, fields[k]))
	}
	if len(fs) == 1 {
		return &fs[0]
	}
	return search.And(fs...).Ptr()
}

// A durable replica given nothing but the connector copies every
// searchable GitHub entity through its scope; each copy is searchable, and
// a filter on what scoped the records (repository; org; repository and
// pull_number) returns exactly the records of that part.
func TestReplicaCopiesEverySearchableEntity(t *testing.T) {
	_, c := sandbox(t)
	ctx := context.Background()
	r, err := replica.Open(ctx, c, replica.SQLite(t.TempDir()+"/x.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })

	syncable := replica.Syncable(c.Entities())
	if len(syncable) != 15 {
		t.Fatalf("Syncable = %v, want the 15 searchable entities", syncable)
	}
	if _, err := r.Sync(ctx, syncable...); err != nil {
		t.Fatal(err)
	}
	for _, entity := range syncable {
		t.Run(entity, func(t *testing.T) {
			all := copySearch(t, r, entity, nil)
			if len(all) == 0 {
				t.Fatal("the copy is empty")
			}
			parts := scopeParts(t, c, entity, nil)
			total := 0
			for _, p := range parts {
				var want []tributary.Record
				for rec, err := range tributary.All(ctx, c, entity, p.Params) {
					if err != nil {
						t.Fatal(err)
					}
					want = append(want, rec)
				}
				total += len(want)
				if len(p.Fields) == 0 {
					continue
				}
				got := copySearch(t, r, entity, fieldsFilter(p.Fields))
				if len(got) != len(want) {
					t.Errorf("part %s: a search on %v finds %d records, the part has %d", p.Key, p.Fields, len(got), len(want))
				}
				for _, rec := range got {
					for k, v := range p.Fields {
						if g, _ := rec.Field(k); !equalScalar(g, v) {
							t.Errorf("part %s: a record with %s %v", p.Key, k, g)
						}
					}
				}
			}
			if len(all) != total {
				t.Errorf("the copy holds %d records, its parts %d", len(all), total)
			}
		})
	}
}

func equalScalar(a, b any) bool { return toInt(a) == toInt(b) && toInt(a) != 0 || a == b }
