package replica_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/search"
)

// BenchmarkReplica100k synchronizes 100,000 Zendesk tickets from the fake
// once, reports the replica's memory per record, then measures searches.
//
//	go test -run '^$' -bench Replica100k -benchtime 20x ./replica/
func BenchmarkReplica100k(b *testing.B) {
	const n = 100_000
	srv := zendesktest.New(zendesktest.WithTickets(n))
	defer srv.Close()
	r := replica.New(open(b, srv))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := r.Sync(context.Background(), "tickets"); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perRecord := float64(after.HeapAlloc-before.HeapAlloc) / n
	if r.Len("tickets") != n {
		b.Fatalf("%d records", r.Len("tickets"))
	}
	cases := []struct {
		name string
		q    search.Request
	}{
		{"eq", search.Request{Query: search.Query{Filter: ptr(search.Eq("status", "open"))}, Limit: 100}},
		{"range_sorted", search.Request{Query: search.Query{Filter: ptr(search.And(search.Gte("created_at", "2024-01-01T00:00:00Z"), search.In("status", "open", "pending"))),
			Sort: []search.SortItem{search.Desc("updated_at")}}, Limit: 100}},
		{"fuzzy_text", search.Request{Query: search.Query{Filter: ptr(search.Fuzzy("subject", "pasword reset"))}, Limit: 100}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			hits := 0
			for b.Loop() {
				res, err := r.Search(context.Background(), "tickets", tc.q)
				if err != nil {
					b.Fatal(err)
				}
				hits = len(res.Hits)
			}
			b.ReportMetric(float64(hits), "hits")
			b.ReportMetric(perRecord, "replica-B/record")
		})
	}
}
