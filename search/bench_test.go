package search

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

const benchRecords = 100_000

// synthTickets generates n ticket-like records, record i a pure function of
// i: id, status, priority, subject text, tags, created_at, requester.
func synthTickets(n int) [][]byte {
	statuses := []string{"new", "open", "pending", "hold", "solved", "closed"}
	vocab := strings.Fields(`password reset refund invoice login error billing account email printer
		shipping delayed order cancel upgrade plan broken link charge duplicate payment card declined
		subscription renewal missing package tracking number address change update profile photo upload
		failed timeout slow dashboard report export import data sync mobile app crash notification
		settings permission access denied team member invite remove license key expired trial discount`)
	tags := []string{"vip", "billing", "urgent", "mobile", "web", "enterprise", "trial", "churn-risk"}
	base := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	out := make([][]byte, n)
	var b strings.Builder
	for i := range n {
		x := uint64(i)*0x9E3779B97F4A7C15 + 1
		rnd := func() uint64 { // splitmix64
			x += 0x9E3779B97F4A7C15
			z := x
			z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
			z = (z ^ z>>27) * 0x94D049BB133111EB
			return z ^ z>>31
		}
		b.Reset()
		fmt.Fprintf(&b, `{"id":%d,"status":%q,"priority":%d,"subject":"`, i+1, statuses[rnd()%6], 1+rnd()%4)
		for w := range 4 + rnd()%5 {
			if w > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(vocab[rnd()%uint64(len(vocab))])
		}
		b.WriteString(`","tags":[`)
		for t := range rnd() % 4 {
			if t > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%q", tags[rnd()%uint64(len(tags))])
		}
		created := base.Add(time.Duration(i)*5*time.Minute + time.Duration(rnd()%300)*time.Second)
		fmt.Fprintf(&b, `],"created_at":%q,"requester":{"name":"User %d","email":"user%d@example.com"}}`,
			created.Format(time.RFC3339), rnd()%5000, i%5000)
		out[i] = []byte(b.String())
	}
	return out
}

var benchSchema = Schema{
	"id": TypeInteger, "status": TypeString, "priority": TypeInteger, "subject": TypeString,
	"tags": TypeArray, "created_at": TypeString, "requester": TypeObject,
}

var benchIndex = sync.OnceValues(func() (*Index, error) {
	return NewIndex(benchSchema, "id", synthTickets(benchRecords))
})

func benchSearch(b *testing.B, req Request) {
	ix, err := benchIndex()
	if err != nil {
		b.Fatal(err)
	}
	res, err := ix.Search(req) // builds lazy ranks and word indexes
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := ix.Search(req); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(res.Hits)), "hits")
}

// BenchmarkIndexBuild builds the index of 100,000 records (ns/op) and
// reports the heap it holds per record, just built (B/record) and once the
// benchmark queries have built their lazy helpers (warm-B/record: ranks of
// created_at and priority, word index of subject, postings of status).
func BenchmarkIndexBuild(b *testing.B) {
	recs := synthTickets(benchRecords)
	size := 0
	for _, r := range recs {
		size += len(r)
	}
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var perRecord, warm float64
	for b.Loop() {
		b.StopTimer()
		before := heap()
		b.StartTimer()
		ix, err := NewIndex(benchSchema, "id", recs)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		perRecord = float64(heap()-before) / benchRecords
		for _, req := range benchRequests {
			if _, err := ix.Search(req); err != nil {
				b.Fatal(err)
			}
		}
		warm = float64(heap()-before) / benchRecords
		runtime.KeepAlive(ix)
		b.StartTimer()
	}
	b.ReportMetric(perRecord, "B/record")
	b.ReportMetric(warm, "warm-B/record")
	b.ReportMetric(float64(size)/benchRecords, "JSON-B/record")
}

var benchRequests = map[string]Request{
	"eq":         {Query: Query{Filter: Eq("status", "open").Ptr()}},
	"eq-sorted":  {Query: Query{Filter: Eq("status", "open").Ptr(), Sort: []SortItem{Desc("created_at")}}},
	"range-sort": {Query: Query{Filter: And(Gte("created_at", "2023-03-01T00:00:00Z"), Lt("created_at", "2023-08-01T00:00:00Z"), Lte("priority", 2)).Ptr(), Sort: []SortItem{Asc("priority"), Desc("created_at")}}, Limit: 100},
	"fuzzy":      {Query: Query{Filter: Fuzzy("subject", "pasword rset").Ptr()}, Limit: 100},
	"like":       {Query: Query{Filter: Like("subject", "%refund%invoice%").Ptr()}, Limit: 100},
}

// BenchmarkSearchEq: {"eq": {"status": "open"}}, default limit (1000 hits
// in id order).
func BenchmarkSearchEq(b *testing.B) { benchSearch(b, benchRequests["eq"]) }

// BenchmarkSearchEqSorted: the same, sorted by created_at desc (every match
// ranked).
func BenchmarkSearchEqSorted(b *testing.B) { benchSearch(b, benchRequests["eq-sorted"]) }

// BenchmarkSearchRangeSort: a created_at range and priority <= 2, sorted by
// priority then created_at desc, 100 hits.
func BenchmarkSearchRangeSort(b *testing.B) { benchSearch(b, benchRequests["range-sort"]) }

// BenchmarkSearchFuzzy: {"fuzzy": {"subject": "pasword rset"}}, 100 hits by
// score.
func BenchmarkSearchFuzzy(b *testing.B) { benchSearch(b, benchRequests["fuzzy"]) }

// BenchmarkSearchLike: {"like": {"subject": "%refund%invoice%"}}, a full
// scan, 100 hits in id order.
func BenchmarkSearchLike(b *testing.B) { benchSearch(b, benchRequests["like"]) }
