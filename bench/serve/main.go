// Command serve measures `tributary serve` (package server) on loopback
// against the Zendesk fake: what an execute costs over direct mode, one at
// a time, and how many executes of get it sustains with many callers, with
// their latency percentiles.
//
//	cd bench && go run ./serve
//	cd bench && go run ./serve -postgres postgres://…   # the store on PostgreSQL
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/server"
	"github.com/tributary-dev/tributary/store"
)

func main() {
	seq := flag.Int("n", 2000, "sequential executes for the overhead")
	callers := flag.Int("c", 32, "concurrent callers for the throughput")
	dur := flag.Duration("d", 10*time.Second, "how long the throughput run lasts")
	pg := flag.String("postgres", "", "a PostgreSQL DSN for the store (default: a SQLite file)")
	check := flag.Bool("check", false, "exit 1 unless the targets are met: serve adds at most 2 ms p50, and sustains 1,000 gets/s with p99 at most 50 ms")
	flag.Parse()
	ctx := context.Background()

	zd := zendesktest.New(zendesktest.WithTickets(1000))
	defer zd.Close()
	creds := map[string]any{"subdomain": zendesktest.DefaultSubdomain, "email": zendesktest.DefaultEmail, "api_token": zendesktest.DefaultAPIToken}
	opts := []tributary.Option{tributary.WithBaseURL(zd.URL), zendesk.WithAPIRateLimit(0, 0), zendesk.WithExportRateLimit(0, 0)}

	var st *store.Store
	var err error
	backend := "sqlite"
	if *pg != "" {
		backend = "postgres"
		st, err = store.OpenPostgres(ctx, *pg)
	} else {
		dir, derr := os.MkdirTemp("", "bench-serve-")
		if derr != nil {
			log.Fatal(derr)
		}
		defer os.RemoveAll(dir)
		st, err = store.OpenSQLite(ctx, filepath.Join(dir, "serve.db"))
	}
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	keys, err := server.GenerateKey("bench")
	if err != nil {
		log.Fatal(err)
	}
	client := server.Client{ID: "bench", Secret: "bench-client-secret-0123"}
	srv, err := server.New(server.Config{Store: st, Keys: keys, Clients: []server.Client{client}, SyncEvery: -1,
		ConnectorOptions: map[string][]tributary.Option{zendesk.Type: opts}})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(sctx, ln) }()
	defer func() { stop(); <-done }()

	direct, err := kinds.Open(zendesk.Type, creds, opts...)
	if err != nil {
		log.Fatal(err)
	}
	hc, err := hosted.New(hosted.Config{BaseURL: "http://" + ln.Addr().String(), ClientID: client.ID, ClientSecret: client.Secret, ExternalUserID: "bench"},
		tributary.WithMaxConcurrency(*callers))
	if err != nil {
		log.Fatal(err)
	}
	id, err := hc.CreateConnector(ctx, hosted.CreateRequest{ConnectorType: zendesk.Type, Credentials: creds})
	if err != nil {
		log.Fatal(err)
	}
	viaServe, err := hc.Connector(id, zendesk.Type)
	if err != nil {
		log.Fatal(err)
	}

	ids := zd.IDs("tickets")
	get := func(c tributary.Connector, i int) error {
		_, err := c.Get(ctx, "tickets", tributary.Params{"ticket_id": ids[i%len(ids)]})
		return err
	}
	sequential := func(c tributary.Connector) []time.Duration {
		for i := range 200 { // warm up connections and caches
			if err := get(c, i); err != nil {
				log.Fatal(err)
			}
		}
		out := make([]time.Duration, *seq)
		for i := range out {
			t0 := time.Now()
			if err := get(c, i); err != nil {
				log.Fatal(err)
			}
			out[i] = time.Since(t0)
		}
		return out
	}
	// Interleave the two so that a noisy neighbour slows both alike.
	var d, s []time.Duration
	for range 3 {
		d = append(d, sequential(direct)...)
		s = append(s, sequential(viaServe)...)
	}
	pd, ps := pct(d, 50), pct(s, 50)
	fmt.Printf("store: %s\n\n", backend)
	fmt.Println("| measure | direct | through serve | serve adds |")
	fmt.Println("|---|---|---|---|")
	fmt.Printf("| get, one at a time, p50 | %s | %s | %s |\n", ms(pd), ms(ps), ms(ps-pd))
	fmt.Printf("| get, one at a time, p99 | %s | %s | %s |\n", ms(pct(d, 99)), ms(pct(s, 99)), ms(pct(s, 99)-pct(d, 99)))

	var n, failed atomic.Int64
	lat := make([][]time.Duration, *callers)
	var wg sync.WaitGroup
	end := time.Now().Add(*dur)
	t0 := time.Now()
	for w := range *callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; time.Now().Before(end); i += *callers {
				t := time.Now()
				if err := get(viaServe, i); err != nil {
					failed.Add(1)
				}
				lat[w] = append(lat[w], time.Since(t))
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	el := time.Since(t0)
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	fmt.Printf("\n| %d callers for %s | executes/s | p50 | p99 | failed |\n|---|---|---|---|---|\n", *callers, *dur)
	rate, p99 := float64(n.Load())/el.Seconds(), pct(all, 99)
	fmt.Printf("| get through serve | %.0f | %s | %s | %d |\n", rate, ms(pct(all, 50)), ms(p99), failed.Load())
	if *check {
		var missed []string
		if ps-pd > 2*time.Millisecond {
			missed = append(missed, "serve adds "+ms(ps-pd)+" p50 (target 2 ms)")
		}
		if rate < 1000 || p99 > 50*time.Millisecond || failed.Load() > 0 {
			missed = append(missed, fmt.Sprintf("%.0f gets/s, p99 %s, %d failed (target 1,000/s, 50 ms, none)", rate, ms(p99), failed.Load()))
		}
		if missed != nil {
			fmt.Println("targets missed:", missed)
			os.Exit(1)
		}
		fmt.Println("targets met")
	}
}

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d.Microseconds())/1000) }
