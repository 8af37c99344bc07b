// Command store measures the durable store: it synchronizes N Zendesk
// tickets from the fake into SQLite (and PostgreSQL when -postgres gives a
// DSN), then times searches, and the in-memory replica at 100k beside
// them.
//
//	cd bench && go run ./store -n 1000000
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
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
	dir := flag.String("dir", "", "directory for the SQLite files (default: a temporary one)")
	pg := flag.String("postgres", "", "a PostgreSQL DSN to measure too")
	reps := flag.Int("reps", 200, "repetitions of each query")
	memN := flag.Int("mem", 100_000, "tickets for the in-memory replica (0: skip)")
	fanN := flag.Int("fanout", 2000, "tickets whose comments the fan-out sync reads (0: skip)")
	markdown := flag.String("markdown", "", "write the tables, in Markdown, between the markers of this file (- for standard output)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the syncs to this file")
	memprofile := flag.String("memprofile", "", "write a profile of what the syncs allocated to this file")
	hookN := flag.Int("webhooks", 2000, "events the webhook deliverer sends, against plain POST loops (0: skip)")
	hookSlow := flag.Duration("hookslow", 0, "the webhook receiver holds one request in 16 this long, the plain loops' and the deliverer's alike (0: none)")
	hookprofile := flag.String("hookprofile", "", "write a CPU profile of the webhook deliverer's drain to this file (.sqlite, .postgres)")
	only := flag.String("searches", "eq,range,keyword,fuzzy", "the searches to time, by name (empty: none, the syncs alone)")
	searchprofile := flag.String("searchprofile", "", "write a CPU profile of the searches to this file")
	reuse := flag.Bool("reuse", false, "with -dir: keep the SQLite files, and when an earlier run with -reuse kept them, only time the searches and their best single queries on them")
	flag.Parse()
	ctx := context.Background()
	if *reuse && *dir == "" {
		log.Fatal("-reuse needs -dir")
	}
	if *reuse {
		if ok, err := searchesOnly(ctx, *dir, *reps, *only, *searchprofile); err != nil {
			log.Fatal(err)
		} else if ok {
			return
		}
	}
	srv := zendesktest.New(zendesktest.WithTickets(*n))
	defer srv.Close()
	srv.SetResponseCache(false)
	conn := openZendesk(srv.URL)
	d := *dir
	if d == "" {
		d, _ = os.MkdirTemp("", "tributary-store-bench")
		defer os.RemoveAll(d)
	}
	file := filepath.Join(d, "tickets.db")
	os.Remove(file)
	os.Remove(filepath.Join(d, handFile))
	res := &results{n: *n, reps: *reps, postgres: *pg != "", started: time.Now()}

	// The source alone, first: the walk every sync below repeats.
	read, err := readAlone(ctx, conn)
	if err != nil {
		log.Fatal(err)
	}
	res.read = read
	fmt.Printf("reading alone: %d tickets in %v: %.0f records/s, %.1f µs CPU/record; %.1f MiB of raw JSON; peak RSS %.1f MiB\n",
		read.records, read.wall.Round(time.Millisecond), read.perSecond(), read.cpuPerRecord(), mib(read.bytes), mib(read.peakRSS))

	res.extract, err = readExtract(ctx, conn)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("reading and extracting the search fields and words alone: %v: %.0f records/s, %.1f µs CPU/record\n",
		res.extract.wall.Round(time.Millisecond), res.extract.perSecond(), res.extract.cpuPerRecord())

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
		br := backendResult{name: be.name}
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
		// The sync's peak is taken before Stats (whose count fills a
		// reader's cache).
		br.sync, err = measure(func() (int64, int64, error) {
			_, err := r.Sync(ctx, "tickets")
			return int64(r.Len("tickets")), read.bytes, err
		})
		if err != nil {
			log.Fatal(err)
		}
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
		br.sync.size = st.SizeBytes + walSize(file, be.name)
		fmt.Printf("%s: synced %d tickets in %v: %.0f records/s; size %.1f MiB (%.2f× the raw JSON, %.1f MiB); peak RSS %.1f MiB\n",
			be.name, br.sync.records, br.sync.wall.Round(time.Millisecond), br.sync.perSecond(), mib(br.sync.size),
			float64(br.sync.size)/float64(read.bytes), mib(read.bytes), mib(br.sync.peakRSS))
		fmt.Printf("%s: sync CPU time (this process, fake server included) %v: %.1f µs/record\n", be.name, br.sync.cpu.Round(time.Millisecond), br.sync.cpuPerRecord())
		// SQLite's searches are timed later, each alternately with its
		// best single query (below).
		if be.name != "sqlite" {
			stop := startProfile(*searchprofile, be.name)
			br.searches = queries(ctx, be.name, r.Search, nil, *reps, *only)
			stop()
			fmt.Printf("%s: peak RSS of the process during the searches %.1f MiB\n", be.name, mib(peakRSS()))
		}
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

		// The baselines on this backend.
		if be.name == "sqlite" {
			plainFile := filepath.Join(d, "plain.db")
			br.plain, err = plainSQLite(ctx, conn, plainFile, plainOnly)
			if err != nil {
				log.Fatal(err)
			}
			for _, f := range []struct {
				kind plainKind
				into *phase
			}{{plainFeed, &br.fair}, {plainSearchable, &br.searchable}} {
				file := filepath.Join(d, "fair.db")
				*f.into, err = plainSQLite(ctx, conn, file, f.kind)
				if err != nil {
					log.Fatal(err)
				}
				for _, suffix := range []string{"", "-wal", "-shm"} {
					os.Remove(file + suffix)
				}
			}
			// The hand-made table only for searches to time (-searches ""
			// measures the syncs alone).
			if *only != "" {
				if err := buildHand(ctx, plainFile); err != nil {
					log.Fatal(err)
				}
				db, err := sql.Open("sqlite", sqliteDSN(plainFile, false))
				if err != nil {
					log.Fatal(err)
				}
				rs, err := replica.Open(ctx, conn, replica.SQLite(file))
				if err != nil {
					log.Fatal(err)
				}
				stop := startProfile(*searchprofile, "sqlite")
				br.searches = queries(ctx, "sqlite", rs.Search, db, *reps, *only)
				stop()
				fmt.Printf("sqlite: peak RSS of the process during the searches %.1f MiB\n", mib(peakRSS()))
				rs.Close()
				db.Close()
			}
			if *reuse {
				err = os.Rename(plainFile, filepath.Join(d, handFile))
			} else {
				err = os.Remove(plainFile)
			}
			if err != nil {
				log.Fatal(err)
			}
		} else {
			for _, f := range []struct {
				kind plainKind
				into *phase
			}{{plainOnly, &br.plain}, {plainFeed, &br.fair}, {plainSearchable, &br.searchable}} {
				*f.into, err = plainPostgres(ctx, conn, *pg, f.kind)
				if err != nil {
					log.Fatal(err)
				}
			}
		}
		fmt.Printf("%s: plain persistence of the same records: %v: %.0f records/s, %.1f µs CPU/record; peak RSS %.1f MiB; size %.1f MiB\n",
			be.name, br.plain.wall.Round(time.Millisecond), br.plain.perSecond(), br.plain.cpuPerRecord(), mib(br.plain.peakRSS), mib(br.plain.size))
		fmt.Printf("%s: plain persistence and a change feed's copy of each record: %v: %.0f records/s, %.1f µs CPU/record; size %.1f MiB\n",
			be.name, br.fair.wall.Round(time.Millisecond), br.fair.perSecond(), br.fair.cpuPerRecord(), mib(br.fair.size))
		fmt.Printf("%s: sync against plain persistence %.2f×, against plain persistence and the feed's copy %.2f× (records/s)\n",
			be.name, br.sync.perSecond()/br.plain.perSecond(), br.sync.perSecond()/br.fair.perSecond())
		if h := br.searchable; h.records > 0 {
			fmt.Printf("%s: a copy searchable by hand for the four searches: %v: %.0f records/s (%.2f× plain persistence), %.1f µs CPU/record; size %.1f MiB; sync against it %.2f×\n",
				be.name, h.wall.Round(time.Millisecond), h.perSecond(), h.perSecond()/br.plain.perSecond(), h.cpuPerRecord(), mib(h.size), br.sync.perSecond()/h.perSecond())
		}
		for _, s := range br.searches {
			for _, h := range s.hand {
				fmt.Printf("%s: best single query for %-31s p50 %8.2f ms  p99 %8.2f ms  (%d rows): %s\n", be.name, s.key, ms(h.p50), ms(h.p99), h.rows, h.sql)
			}
		}
		res.backends = append(res.backends, br)
	}
	if *fanN > 0 {
		f, err := fanOut(ctx, *fanN)
		if err != nil {
			log.Fatal(err)
		}
		res.fan = &f
		f.print(os.Stdout)
	}
	if *hookN > 0 {
		names := []string{"sqlite"}
		if *pg != "" {
			names = append(names, "postgres")
		}
		for _, name := range names {
			st, err := openHookStore(ctx, name, d, *pg)
			if err != nil {
				log.Fatal(err)
			}
			var settle func(context.Context) error
			if name == "postgres" {
				settle = func(ctx context.Context) error { return settlePostgres(ctx, *pg) }
			}
			h, err := webhooks(ctx, name, st, *hookN, *hookSlow, *hookprofile, settle)
			st.Close()
			if err != nil {
				log.Fatal(err)
			}
			h.print(os.Stdout)
			res.hooks = append(res.hooks, h)
		}
	}
	if *memN > 0 {
		msrv := zendesktest.New(zendesktest.WithTickets(*memN))
		defer msrv.Close()
		r := replica.New(openZendesk(msrv.URL))
		start := time.Now()
		if _, err := r.Sync(ctx, "tickets"); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("memory (%d tickets): synced in %v\n", *memN, time.Since(start).Round(time.Millisecond))
		queries(ctx, "memory", r.Search, nil, *reps, *only)
	}
	if *markdown != "" {
		if err := writeMarkdown(*markdown, res); err != nil {
			log.Fatal(err)
		}
	}
}

// handFile is the name, in -dir, of the best single queries' file that
// -reuse keeps.
const handFile = "hand.db"

// searchesOnly times the searches and their best single queries on the
// files a run with -reuse kept in dir; ok is false when there are none.
func searchesOnly(ctx context.Context, dir string, reps int, only, profile string) (ok bool, err error) {
	file, hand := filepath.Join(dir, "tickets.db"), filepath.Join(dir, handFile)
	for _, f := range []string{file, hand} {
		if _, err := os.Stat(f); err != nil {
			return false, nil
		}
	}
	srv := zendesktest.New(zendesktest.WithTickets(1))
	defer srv.Close()
	r, err := replica.Open(ctx, openZendesk(srv.URL), replica.SQLite(file))
	if err != nil {
		return false, err
	}
	defer r.Close()
	db, err := sql.Open("sqlite", sqliteDSN(hand, false))
	if err != nil {
		return false, err
	}
	defer db.Close()
	stop := startProfile(profile, "sqlite")
	searches := queries(ctx, "sqlite", r.Search, db, reps, only)
	stop()
	for _, s := range searches {
		for _, h := range s.hand {
			if h.apart {
				fmt.Printf("sqlite: %-50s measured apart p50 %8.2f ms: %s\n", s.name, ms(h.p50), h.sql)
			}
		}
		if b := s.best(); b != nil {
			fmt.Printf("sqlite: %-50s p50 %8.2f ms, best single query p50 %8.2f ms: %.2f×\n", s.name, ms(s.p50), ms(b.p50), float64(s.p50)/float64(b.p50))
		}
	}
	return true, nil
}

// openZendesk opens the Zendesk connector on the fake at url, unpaced: the
// fake does not limit its incremental exports (a real account's 10
// requests a minute would make this a 100-minute sync).
func openZendesk(url string) tributary.Connector {
	conn, err := kinds.Open("zendesk-support", map[string]any{"subdomain": "acme", "email": zendesktest.DefaultEmail, "api_token": zendesktest.DefaultAPIToken},
		tributary.WithBaseURL(url), zendesk.WithExportRateLimit(0, 0), zendesk.WithAPIRateLimit(0, 0))
	if err != nil {
		log.Fatal(err)
	}
	return conn
}

var eqReq = search.Request{Query: search.Query{Filter: search.Eq("status", "open").Ptr()}, Limit: 50}

// minTiming is the least time each search is timed for, beside its best
// single queries: a search of a tenth of a millisecond is run thousands of
// times, not reps, so that a neighbour's burst moves its p50 less. Its
// runs, and its best queries', come in blocks of timingBlock.
const (
	minTiming   = time.Second
	timingBlock = 50 * time.Millisecond
)

// queries times the searches named in only, each at least reps times and
// for minTiming. With db (the hand-made table's file), a block of runs of
// a search is followed by a block of each of its best single queries
// (handQueries), and again, so that the search and its baseline are timed
// in turn under the same conditions, rather than minutes apart, each with
// its caches warm (a run of one, then one of the other, left each to the
// other's caches: the range read 1.61× its best query so).
func queries(ctx context.Context, name string, run func(context.Context, string, search.Request) (*search.Result, error), db *sql.DB, reps int, only string) []searchResult {
	cases := []struct {
		key, name string
		q         search.Request
	}{
		{"eq", "eq status, limit 50", eqReq},
		{"range", "date range + in, sorted by updated_at, limit 50", search.Request{Query: search.Query{
			Filter: search.And(search.Gte("created_at", "2024-01-01T00:00:00Z"), search.Lt("created_at", "2024-07-01T00:00:00Z"), search.In("status", "open", "pending")).Ptr(),
			Sort:   []search.SortItem{search.Desc("updated_at")}}, Limit: 50}},
		{"keyword", "keyword \"printer\"", search.Request{Query: search.Query{Filter: search.Keyword("subject", "printer").Ptr()}, Limit: 50}},
		{"fuzzy", "fuzzy \"pasword reset\"", search.Request{Query: search.Query{Filter: search.Fuzzy("subject", "pasword reset").Ptr()}, Limit: 50}},
	}
	var out []searchResult
	for _, c := range cases {
		if !slices.Contains(strings.Split(only, ","), c.key) {
			continue
		}
		var hand []handQuery
		if db != nil {
			hand = handQueries()[c.key]
		}
		var ds []time.Duration
		hds := make([][]time.Duration, len(hand))
		rows := make([]int, len(hand))
		hits := 0
		// Blocks of runs, each as long as timingBlock (one run at least),
		// the search's then each best query's, in turn: each runs with
		// its caches warm, and both sides see the machine's same moments.
		block := func(f func() error) []time.Duration {
			var out []time.Duration
			for began := time.Now(); len(out) == 0 || time.Since(began) < timingBlock; {
				start := time.Now()
				if err := f(); err != nil {
					log.Fatal(err)
				}
				out = append(out, time.Since(start))
			}
			return out
		}
		for began := time.Now(); len(ds) < reps || time.Since(began) < minTiming; {
			ds = append(ds, block(func() error {
				res, err := run(ctx, "tickets", c.q)
				if err == nil {
					hits = len(res.Hits)
				}
				return err
			})...)
			for i, h := range hand {
				hds[i] = append(hds[i], block(func() (err error) {
					if rows[i], err = h.run(ctx, db); err != nil {
						err = fmt.Errorf("%s: %w", h.sql, err)
					}
					return err
				})...)
			}
		}
		p50, p99 := percentiles(ds)
		s := searchResult{key: c.key, name: c.name, p50: p50, p99: p99, hits: hits, runs: len(ds)}
		for i, h := range hand {
			p50, p99 := percentiles(hds[i])
			s.hand = append(s.hand, handResult{h.sql, p50, p99, rows[i], h.apart})
		}
		fmt.Printf("%s: %-50s p50 %8.2f ms  p99 %8.2f ms  (%d hits)\n", name, c.name, ms(s.p50), ms(s.p99), hits)
		out = append(out, s)
	}
	return out
}

// startProfile starts a CPU profile into file.backend, when file is set;
// the function it returns stops it.
func startProfile(file, backend string) (stop func()) {
	if file == "" {
		return func() {}
	}
	f, err := os.Create(file + "." + backend)
	if err != nil {
		log.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
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
