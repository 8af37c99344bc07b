// Package benchmark holds what every listing benchmark shares: one way to
// time a walk and to report it per record, so that the figures of every
// kind and every peer comparison mean the same thing.
package benchmark

import (
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// Walk runs walk b.N times, after one walk that is not measured (it warms
// the fake's response cache and the connection), and fails unless every
// walk visits want records. It reports records/s, and allocations and
// bytes per record: the client's and the in-process fake's together, the
// same for every client measured on the same fake.
func Walk(b *testing.B, want int, walk func() int) {
	b.Helper()
	b.ReportAllocs()
	if got := walk(); got != want {
		b.Fatalf("walked %d records, want %d", got, want)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n := 0
	for b.Loop() {
		if got := walk(); got != want {
			b.Fatalf("walked %d records, want %d", got, want)
		}
		n += want
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(n), "allocs/record")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n), "B/record")
}

// SameRequests fails t unless two request logs hold the same requests, in
// any order (a walk may fetch pages at once): method, path, query, every
// header but User-Agent, and body. A baseline that sends what the library
// sends is a fair one.
func SameRequests(t testing.TB, library, baseline []fakeserver.Request) {
	t.Helper()
	key := func(rs []fakeserver.Request) []string {
		keys := make([]string, len(rs))
		for i, r := range rs {
			h := r.Header.Clone()
			h.Del("User-Agent")
			keys[i] = fmt.Sprintf("%s %s %s %v %q", r.Method, r.Path, r.Query.Encode(), h, r.Body)
		}
		slices.Sort(keys)
		return keys
	}
	if w, g := key(library), key(baseline); !slices.Equal(w, g) {
		t.Errorf("baseline requests differ from the library's:\nlibrary:  %q\nbaseline: %q", w, g)
	}
}
