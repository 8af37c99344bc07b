// Package benchmark holds what every listing benchmark shares: one way to
// time a walk and to report it per record, so that the figures of every
// kind and every peer comparison mean the same thing.
package benchmark

import (
	"fmt"
	"iter"
	"net/http"
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

// Log is a fake's request log.
type Log interface {
	Requests() []fakeserver.Request
	ResetRequests()
}

// Baseline checks that a net/http baseline is a fair one: on log, cleared
// first, the typed walk and the baseline each count want records, and the
// baseline sends the requests the library sends (SameRequests).
func Baseline(t *testing.T, log Log, want int, typed func() int, baseline func(hc *http.Client) int) {
	t.Helper()
	log.ResetRequests()
	if n := typed(); n != want {
		t.Fatalf("the typed walk counted %d records, want %d", n, want)
	}
	library := log.Requests()
	log.ResetRequests()
	if n := baseline(Client(t)); n != want {
		t.Fatalf("the baseline counted %d records, want %d", n, want)
	}
	SameRequests(t, library, log.Requests())
}

// Client returns a plain *http.Client with a transport of its own, whose
// idle connections are closed when tb ends: what a baseline walks with.
func Client(tb testing.TB) *http.Client {
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	tb.Cleanup(hc.CloseIdleConnections)
	return hc
}

// Count walks seq to its end and returns how many items it yielded,
// failing tb on the walk's error.
func Count[T any](tb testing.TB, seq iter.Seq2[T, error]) int {
	tb.Helper()
	n := 0
	for _, err := range seq {
		if err != nil {
			tb.Fatal(err)
		}
		n++
	}
	return n
}
