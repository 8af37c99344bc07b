package store_test

import (
	"context"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/store"
)

// BenchmarkLoadTickets measures the store alone: Zendesk tickets from the
// fake, fetched once beforehand, written a page at a time into SQLite
// (loads of 10,000 records, committed and indexed).
//
//	go test -run '^$' -bench LoadTickets -benchtime 3x ./store/
func BenchmarkLoadTickets(b *testing.B) {
	const n = 10_000
	srv := zendesktest.New(zendesktest.WithTickets(n))
	defer srv.Close()
	c, err := kinds.Open("zendesk-support", map[string]any{"subdomain": "acme", "email": zendesktest.DefaultEmail, "api_token": zendesktest.DefaultAPIToken},
		tributary.WithBaseURL(srv.URL))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var recs [][]byte
	for rec, err := range tributary.All(ctx, c, "tickets", nil) {
		if err != nil {
			b.Fatal(err)
		}
		recs = append(recs, rec.Raw())
	}
	e, _ := tributary.FindEntity(c.Entities(), "tickets")
	spec := store.Spec{Connector: "zendesk-support", Entity: "tickets", Schema: tributary.SearchSchema(e), IDField: "id"}
	st, err := store.OpenSQLite(ctx, b.TempDir()+"/bench.db")
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	benchLoads(b, st, spec, recs, false)
}

// BenchmarkLoadTicketsNew is BenchmarkLoadTickets with a new copy each
// time (every record an insert: the most a full load writes to the
// change feed), where BenchmarkLoadTickets loads the same records again
// (the copy, and its feed, unchanged).
//
//	go test -run '^$' -bench LoadTicketsNew -benchtime 3x ./store/
func BenchmarkLoadTicketsNew(b *testing.B) {
	const n = 10_000
	srv := zendesktest.New(zendesktest.WithTickets(n))
	defer srv.Close()
	c, err := kinds.Open("zendesk-support", map[string]any{"subdomain": "acme", "email": zendesktest.DefaultEmail, "api_token": zendesktest.DefaultAPIToken},
		tributary.WithBaseURL(srv.URL))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var recs [][]byte
	for rec, err := range tributary.All(ctx, c, "tickets", nil) {
		if err != nil {
			b.Fatal(err)
		}
		recs = append(recs, rec.Raw())
	}
	e, _ := tributary.FindEntity(c.Entities(), "tickets")
	spec := store.Spec{Connector: "zendesk-support", Entity: "tickets", Schema: tributary.SearchSchema(e), IDField: "id"}
	st, err := store.OpenSQLite(ctx, b.TempDir()+"/bench.db")
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	benchLoads(b, st, spec, recs, true)
}

// benchLoads loads recs into st, in full, once per iteration; fresh: each
// time into a new copy.
func benchLoads(b *testing.B, st *store.Store, spec store.Spec, recs [][]byte, fresh bool) {
	ctx := context.Background()
	n := len(recs)
	cpu0 := cpuTime()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		if fresh {
			i++
			spec.Connector = "zendesk-support-" + strconv.Itoa(i)
		}
		l, err := st.BeginFull(ctx, spec)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < len(recs); i += 500 {
			if err := l.Write(ctx, recs[i:min(i+500, len(recs))], nil); err != nil {
				b.Fatal(err)
			}
		}
		if err := l.Commit(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
	// The process's CPU time per record: steadier than the wall clock on
	// a shared machine.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(n*b.N), "cpu-µs/record")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
