package main

import "testing"

// The output of go test -bench for Zendesk's listing when the client was
// paced to Zendesk's 700 requests a minute (before the benchmarks turned
// the pacing off), and for Gong's at its 3 requests a second: -check must
// fail on both, and pass on the same kinds unpaced.
const (
	pacedZendesk = `pkg: github.com/tributary-dev/tributary/kinds/zendesk
BenchmarkListTicketsTyped-2     	       1	9015829129 ns/op	      3726 B/record	        42.86 allocs/record	      1109 records/s	37263464 B/op	  428583 allocs/op
BenchmarkListTicketsNetHTTP-2   	       1	 609436432 ns/op	      8591 B/record	        51.64 allocs/record	     16409 records/s	85905160 B/op	  516427 allocs/op
`
	pacedGong = `pkg: github.com/tributary-dev/tributary/kinds/gong
BenchmarkListCalls/typed-2         	       1	35089311631 ns/op	      1140 B/record	        17.70 allocs/record	       285.0 records/s	11401224 B/op	  177009 allocs/op
BenchmarkListCalls/net_http-2      	       1	 140000000 ns/op	      3000 B/record	        20.00 allocs/record	     71000 records/s	11401224 B/op	  177009 allocs/op
`
	unpaced = `pkg: github.com/tributary-dev/tributary/kinds/zendesk
BenchmarkListTicketsTyped-2     	       1	 145000000 ns/op	      3726 B/record	        42.86 allocs/record	     69000 records/s	37263464 B/op	  428583 allocs/op
BenchmarkListTicketsNetHTTP-2   	       1	 609436432 ns/op	      8591 B/record	        51.64 allocs/record	     33000 records/s	85905160 B/op	  516427 allocs/op
pkg: github.com/tributary-dev/tributary/kinds/salesforce
BenchmarkListAccountsTyped-2     	       1	 204942510 ns/op	      2966 B/record	        35.96 allocs/record	     21000 records/s	29663480 B/op	  359639 allocs/op
BenchmarkListAccountsNetHTTP-2   	       1	 457814631 ns/op	      8235 B/record	        35.70 allocs/record	     37000 records/s	82346560 B/op	  357028 allocs/op
`
)

func kindRows(out string) []row {
	b := parseBench(out)
	var rows []row
	for _, k := range b.kinds() {
		rows = append(rows, ratioRow(k, b.median(k+".typed", "records/s"), b.median(k+".nethttp", "records/s"), 2, true))
	}
	return rows
}

func TestCheckFailsOnAPacedListing(t *testing.T) {
	for name, out := range map[string]string{"zendesk": pacedZendesk, "gong": pacedGong} {
		rows := kindRows(out)
		if len(rows) != 1 || !rows[0].far() {
			t.Errorf("%s paced: %+v, want one row far off its target", name, rows)
		}
	}
	// A slow run on a busy machine (0.55×, seen on one) is not far.
	for _, r := range kindRows(unpaced) {
		if r.far() {
			t.Errorf("%s unpaced: %s is far off its target", r.what, r.ratio)
		}
	}
	if !(row{what: "no figure"}).far() {
		t.Error("a row without a figure is not far off")
	}
}
