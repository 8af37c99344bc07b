package zendesk_test

import (
	"context"
	"os"
	"runtime"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

// TestWalkHeapIsFlat walks many tickets and checks that the live heap does
// not grow with the walk: only the current page (and the one fetched
// ahead) is kept. By default 100,000 tickets against the heap at 50,000 (after warm-up);
// TRIBUTARY_LONG=1 walks 1,000,000 against 100,000.
func TestWalkHeapIsFlat(t *testing.T) {
	total, early := 100_000, 50_000
	if os.Getenv("TRIBUTARY_LONG") != "" {
		total, early = 1_000_000, 100_000
	}
	srv := zendesktest.New(zendesktest.WithTickets(total))
	defer srv.Close()
	c := open(t, srv)
	var ms runtime.MemStats
	var peakEarly, peak uint64
	n := 0
	for _, err := range tributary.All(context.Background(), c, "tickets", nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if n%5000 == 0 {
			srv.ResetRequests() // the fake's request log is the fake's memory, not the client's
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			if n == early {
				peakEarly = peak
			}
		}
	}
	if n != total {
		t.Fatalf("walked %d of %d tickets", n, total)
	}
	t.Logf("peak live heap after %d tickets: %.1f MiB; after %d: %.1f MiB", early, float64(peakEarly)/(1<<20), total, float64(peak)/(1<<20))
	// At this scale a page or two in flight (about 170 KiB each, one fetched
	// ahead) moves the peak by more than 10%, so a MiB of slack is allowed;
	// a heap that grows with the walk passes it within a few hundred pages.
	if float64(peak) > 1.10*float64(peakEarly)+(1<<20) {
		t.Errorf("the heap grew with the walk: %.1f MiB at %d tickets, %.1f MiB at %d", float64(peakEarly)/(1<<20), early, float64(peak)/(1<<20), total)
	}
}
