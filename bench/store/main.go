// Command store measures the durable store: it synchronizes N Zendesk
// tickets from the fake into SQLite (and PostgreSQL when -postgres gives a
// DSN), then times searches, and the in-memory replica at 100k beside
// them.
//
//	cd bench && go run ./store -n 1000000
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/search"
)

func main() {
	n := flag.Int("n", 100_000, "tickets")
	dir := flag.String("dir", "", "directory for the SQLite file (default: a temporary one)")
	pg := flag.String("postgres", "", "a PostgreSQL DSN to measure too")
	reps := flag.Int("reps", 200, "repetitions of each query")
	memN := flag.Int("mem", 100_000, "tickets for the in-memory replica (0: skip)")
	reuse := flag.Bool("reuse", false, "search the SQLite file in -dir as it is (no sync)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the syncs to this file")
	memprofile := flag.String("memprofile", "", "write a profile of what the syncs allocated to this file")
	flag.Parse()
	ctx := context.Background()
	srv := zendesktest.New(zendesktest.WithTickets(*n))
	defer srv.Close()
	srv.SetResponseCache(false)
	// The fake does not limit its incremental exports: no pacing (a real
	// account's 10 requests a minute would make this a 100-minute sync).
	conn, err := kinds.Open("zendesk-support", map[string]any{"subdomain": "acme", "email": zendesktest.DefaultEmail, "api_token": zendesktest.DefaultAPIToken},
		tributary.WithBaseURL(srv.URL), zendesk.WithExportRateLimit(0, 0), zendesk.WithAPIRateLimit(0, 0))
	if err != nil {
		log.Fatal(err)
	}
	d := *dir
	if d == "" {
		d, _ = os.MkdirTemp("", "tributary-store-bench")
		defer os.RemoveAll(d)
	}
	file := filepath.Join(d, "tickets.db")
	if !*reuse {
		os.Remove(file)
	}

	rawBytes := int64(0)
	backends := []struct {
		name string
		b    replica.Backend
	}{{"sqlite", replica.SQLite(file)}}
	if *pg != "" {
		backends = append(backends, struct {
			name string
			b    replica.Backend
		}{"postgres", replica.Postgres(*pg)})
	}
	for _, be := range backends {
		r, err := replica.Open(ctx, conn, be.b)
		if err != nil {
			log.Fatal(err)
		}
		var prof *os.File
		if *cpuprofile != "" {
			prof, err = os.Create(*cpuprofile + "." + be.name)
			if err != nil {
				log.Fatal(err)
			}
			if err := pprof.StartCPUProfile(prof); err != nil {
				log.Fatal(err)
			}
		}
		start, cpu0 := time.Now(), cpuTime()
		if !*reuse || be.name != "sqlite" {
			if _, err := r.Sync(ctx, "tickets"); err != nil {
				log.Fatal(err)
			}
		}
		took, cpu := time.Since(start), cpuTime()-cpu0
		// The sync's peak: before Stats (whose count fills a reader's
		// cache) and the raw-size walk below.
		syncRSS := peakRSS()
		if prof != nil {
			pprof.StopCPUProfile()
			prof.Close()
		}
		if *memprofile != "" {
			f, err := os.Create(*memprofile + "." + be.name)
			if err != nil {
				log.Fatal(err)
			}
			if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
				log.Fatal(err)
			}
			f.Close()
		}
		st, err := r.Store().Stats(ctx)
		if err != nil {
			log.Fatal(err)
		}
		if rawBytes == 0 && !*reuse {
			rawBytes = measureRaw(ctx, conn)
		}
		fmt.Printf("%s: synced %d tickets in %v: %.0f records/s; size %.1f MiB (%.2f× the raw JSON, %.1f MiB); peak RSS %.1f MiB\n",
			be.name, r.Len("tickets"), took.Round(time.Millisecond), float64(*n)/took.Seconds(), mib(st.SizeBytes+walSize(file, be.name)),
			float64(st.SizeBytes+walSize(file, be.name))/float64(rawBytes), mib(rawBytes), mib(syncRSS))
		fmt.Printf("%s: sync CPU time (this process, fake server included) %v: %.1f µs/record\n", be.name, cpu.Round(time.Millisecond), float64(cpu.Microseconds())/float64(*n))
		queries(ctx, be.name, r.Search, *reps)
		fmt.Printf("%s: peak RSS of the process after the searches %.1f MiB\n", be.name, mib(peakRSS()))
		r.Close()
		if be.name == "sqlite" {
			start := time.Now()
			r2, err := replica.Open(ctx, conn, replica.SQLite(file))
			if err != nil {
				log.Fatal(err)
			}
			res, err := r2.Search(ctx, "tickets", eqReq)
			if err != nil {
				log.Fatal(err)
			}
			fmt.Printf("sqlite: open the file and answer a first query (%d hits): %v\n", len(res.Hits), time.Since(start).Round(time.Microsecond))
			r2.Close()
		}
	}
	if *memN > 0 {
		msrv := zendesktest.New(zendesktest.WithTickets(*memN))
		defer msrv.Close()
		mconn, _ := kinds.Open("zendesk-support", map[string]any{"subdomain": "acme", "email": zendesktest.DefaultEmail, "api_token": zendesktest.DefaultAPIToken},
			tributary.WithBaseURL(msrv.URL), zendesk.WithExportRateLimit(0, 0), zendesk.WithAPIRateLimit(0, 0))
		r := replica.New(mconn)
		start := time.Now()
		if _, err := r.Sync(ctx, "tickets"); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("memory (%d tickets): synced in %v\n", *memN, time.Since(start).Round(time.Millisecond))
		queries(ctx, "memory", r.Search, *reps)
	}
}

var eqReq = search.Request{Query: search.Query{Filter: search.Eq("status", "open").Ptr()}, Limit: 50}

func queries(ctx context.Context, name string, run func(context.Context, string, search.Request) (*search.Result, error), reps int) {
	cases := []struct {
		name string
		q    search.Request
	}{
		{"eq status, limit 50", eqReq},
		{"date range + in, sorted by updated_at, limit 50", search.Request{Query: search.Query{
			Filter: search.And(search.Gte("created_at", "2024-01-01T00:00:00Z"), search.Lt("created_at", "2024-07-01T00:00:00Z"), search.In("status", "open", "pending")).Ptr(),
			Sort:   []search.SortItem{search.Desc("updated_at")}}, Limit: 50}},
		{"keyword", search.Request{Query: search.Query{Filter: search.Keyword("subject", "printer").Ptr()}, Limit: 50}},
		{"fuzzy \"pasword reset\"", search.Request{Query: search.Query{Filter: search.Fuzzy("subject", "pasword reset").Ptr()}, Limit: 50}},
	}
	for _, c := range cases {
		var ds []time.Duration
		hits := 0
		for range reps {
			start := time.Now()
			res, err := run(ctx, "tickets", c.q)
			if err != nil {
				log.Fatal(err)
			}
			ds = append(ds, time.Since(start))
			hits = len(res.Hits)
		}
		slices.Sort(ds)
		fmt.Printf("%s: %-50s p50 %8.2f ms  p99 %8.2f ms  (%d hits)\n", name, c.name, ms(ds[len(ds)/2]), ms(ds[len(ds)*99/100]), hits)
	}
}

func measureRaw(ctx context.Context, c tributary.Connector) int64 {
	var n int64
	for rec, err := range tributary.All(ctx, c, "tickets", nil) {
		if err != nil {
			log.Fatal(err)
		}
		n += int64(len(rec.Raw()))
	}
	return n
}

func walSize(file, backend string) int64 {
	if backend != "sqlite" {
		return 0
	}
	fi, err := os.Stat(file + "-wal")
	if err != nil {
		return 0
	}
	return fi.Size()
}

func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			f := strings.Fields(l)
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// cpuTime is the process's user and system CPU time so far: on a shared
// machine, steadier than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
func mib(n int64) float64        { return float64(n) / (1 << 20) }

var _ = runtime.GC
