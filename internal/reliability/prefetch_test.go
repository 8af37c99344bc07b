package reliability

import (
	"slices"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/internal/race"
)

// TestPrefetchKeepsRecordsAndHidesLatency walks every kind's main list at
// 20 ms a response twice: one page ahead (WithPrefetch(1)) and with the
// default prefetch. The records and their order are the same; no more
// requests are in flight than the prefetch allows; and where the paging
// names the pages ahead (GitHub's Link rel="last", Mailchimp's total_items)
// the default walk has pages in flight at once and takes at most 0.6 of
// the page-by-page time (checked with TRIBUTARY_STRICT_TIMING, without
// -race).
func TestPrefetchKeepsRecordsAndHidesLatency(t *testing.T) {
	parallelWhenWaiting(t)
	if testing.Short() {
		t.Skip("walks every kind twice at 20 ms a page")
	}
	planned := map[string]bool{"github": true, "mailchimp": true}
	forKinds(t, kindCases(), func(t testing.TB, kc kindCase) {
		f := kc.start(t, 2_500)
		f.srv.SetFaults(fakeserver.Faults{Latency: 20 * time.Millisecond})
		walk := func(prefetch int) ([]recKey, time.Duration, int) {
			c := open(t, kc, f, nil, tributary.WithPrefetch(prefetch))
			f.srv.ResetRequests()
			start := time.Now()
			got, err := walkAll(c, kc, true)
			if err != nil {
				t.Fatalf("prefetch %d: %v", prefetch, err)
			}
			return got, time.Since(start), f.srv.MostInFlight()
		}
		seq, seqTime, seqMost := walk(1)
		par, parTime, parMost := walk(0)
		if !slices.Equal(seq, par) {
			t.Errorf("the default prefetch walked %d records, one page ahead %d, or in another order", len(par), len(seq))
		}
		if seqMost > 1 {
			t.Errorf("one page ahead: %d requests at once", seqMost)
		}
		if parMost > tributary.DefaultPrefetch {
			t.Errorf("default prefetch: %d requests at once, want at most %d", parMost, tributary.DefaultPrefetch)
		}
		ratio := float64(parTime) / float64(seqTime)
		t.Logf("%d records: one page ahead %v, default %v (%.2f×), at most %d at once",
			len(par), seqTime.Round(time.Millisecond), parTime.Round(time.Millisecond), ratio, parMost)
		// The ratio measures the machine as well: under -race, or beside
		// other tests, the fakes' own CPU time swamps the 20 ms latency. CI
		// checks it in a step of its own (TRIBUTARY_STRICT_TIMING); here
		// the pages in flight show that they were fetched at once.
		if planned[kc.typ] && parMost < 2 {
			t.Errorf("the default prefetch never had two requests in flight")
		}
		if planned[kc.typ] && ratio > 0.6 && strictTiming() && !race.Enabled {
			t.Errorf("the default prefetch took %.2f of the page-by-page time, want at most 0.6", ratio)
		}
	})
}
