package replica_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakes"
	"github.com/tributary-dev/tributary/internal/pgtest"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/store"
)

// latency delays every request by d before it goes on: a vendor far away.
type latency struct {
	d    time.Duration
	next http.RoundTripper
}

func (l latency) RoundTrip(req *http.Request) (*http.Response, error) {
	t := time.NewTimer(l.d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
	return l.next.RoundTrip(req)
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// BenchmarkWorkerFleet measures one process's workers keeping many small
// copies current on PostgreSQL: TRIBUTARY_FLEET_CONNECTORS Zendesk
// connectors (default 100; each 20 tickets and five copies) behind a
// vendor 100 ms away, synchronized by TRIBUTARY_FLEET_RUNS workers
// (default 1) of TRIBUTARY_FLEET_WORKERS syncs at once each (default 2). It reports the first round (every copy full) and a
// second (every copy incremental, nothing changed): copies a second, the
// database's transactions a copy, and CPU milliseconds a copy.
//
//	go test -run '^$' -bench WorkerFleet -benchtime 1x ./replica/
func BenchmarkWorkerFleet(b *testing.B) {
	n := envInt("TRIBUTARY_FLEET_CONNECTORS", 100)
	workers := envInt("TRIBUTARY_FLEET_WORKERS", 2)
	procs := envInt("TRIBUTARY_FLEET_RUNS", 1)
	ctx := context.Background()
	k, _ := fakes.Of("zendesk-support")
	fake := k.Start(20)
	defer fake.Close()
	kc := kindCaseOf("zendesk-support")
	dsn := pgtest.DSN(b)
	st, err := store.OpenPostgres(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	tr := latency{d: 100 * time.Millisecond, next: http.DefaultTransport}
	var mu sync.Mutex
	conns := map[string]tributary.Connector{}
	open := func(_ context.Context, name string) (tributary.Connector, error) {
		mu.Lock()
		defer mu.Unlock()
		if c, ok := conns[name]; ok {
			return c, nil
		}
		opts := append([]tributary.Option{tributary.WithBaseURL(fake.BaseURL()), tributary.WithHTTPClient(&http.Client{Transport: tr})}, kc.opts...)
		c, err := kinds.Open(kc.kind, kc.creds, opts...)
		if err == nil {
			conns[name] = c
		}
		return c, err
	}
	copies := 0
	for i := range n {
		if err := st.Register(ctx, fmt.Sprintf("zd-%05d", i), kc.entities...); err != nil {
			b.Fatal(err)
		}
		copies += len(kc.entities)
	}
	var ropts []replica.Option
	for e, p := range kc.params(nil, nil) {
		ropts = append(ropts, replica.WithParams(e, p))
	}
	round := func(name string) {
		var xact0, xact1 int64
		q := "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()"
		_ = db.QueryRowContext(ctx, q).Scan(&xact0)
		cpu0 := cpuTime()
		t0 := time.Now()
		rctx, stop := context.WithCancel(ctx)
		var left sync.WaitGroup
		var failures atomic.Int64
		left.Add(copies)
		var wg sync.WaitGroup
		for i := range procs {
			w := replica.NewWorker(st, open, replica.WithOwner("w"+strconv.Itoa(i)), replica.WithEvery(time.Hour), replica.WithConcurrency(workers),
				replica.WithReplicaOptionsFor(func(string) []replica.Option { return ropts }),
				replica.WithReport(func(c string, rep replica.EntityReport, err error) {
					if err == nil {
						left.Done()
					} else if failures.Add(1) <= 3 {
						b.Logf("%s %s: %v", c, rep.Entity, err)
					}
				}))
			wg.Go(func() { _ = w.Run(rctx) })
		}
		left.Wait()
		el := time.Since(t0)
		cpu := cpuTime() - cpu0
		stop()
		wg.Wait()
		time.Sleep(600 * time.Millisecond) // pg_stat_database's counters lag
		_ = db.QueryRowContext(ctx, q).Scan(&xact1)
		b.Logf("%s: %d failed syncs", name, failures.Load())
		b.Logf("%s: %d copies in %v: %.1f copies/s, %.1f transactions/copy, %.1f CPU ms/copy",
			name, copies, el.Round(time.Millisecond), float64(copies)/el.Seconds(), float64(xact1-xact0)/float64(copies),
			float64(cpu.Milliseconds())/float64(copies))
		b.ReportMetric(float64(copies)/el.Seconds(), name+"-copies/s")
	}
	for b.Loop() {
		round("full")
		// Every copy due again: synchronized, as far as the workers can
		// tell, an hour ago.
		if _, err := db.ExecContext(ctx, "UPDATE tributary_entities SET synced_at = synced_at - 3600000"); err != nil {
			b.Fatal(err)
		}
		round("incremental")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
