// Command fleet runs the service at fleet scale on one machine and
// measures it (issue 43): one PostgreSQL (throwaway, or -postgres), N real
// `tributary serve` processes sharing it, the seven original kinds' fakes
// each serving one account per connector with its own credentials and
// rate budget (the vendors' documented limits, enforced), with a
// log-normal latency per request; C connectors created through the API
// over several tenants, whose webhooks reach a receiver here; a stream of
// changes to every account's records; one process SIGKILLed half-way
// (once it holds a claim, so that its copies are taken over).
//
//	cd bench && go run ./fleet                          # 1,000 connectors, 4 processes, 10 minutes
//	cd bench && go run ./fleet -c 200 -procs 2 -d 1m -sync-every 10s -json fleet.json
//
// It prints one Markdown table: the copies' staleness (now minus the start
// of their last completed sync, sampled from the store every few seconds)
// over the run and after the first full round, the copies never
// synchronized, syncs a second, requests a second to each kind's fakes and
// their 429s, PostgreSQL's commits a second, connections and size, each
// process's CPU a sync, the webhook events and their delay, whether every
// change reached its copy and its webhook, the console's connector list's
// latency, and what the kill cost: the worst staleness of the copies the
// killed process held and when they were synchronized again. It also
// checks that no two processes talked to one vendor account at once (each
// process reaches the fakes on listeners of its own) and that no
// connector had two copies claimed at once (the store's leases).
//
// The fakes run in this process, one per account, reached in process
// through the fronts (fakeserver's Transport): an account holds no open
// file, so 10,000 connectors fit in this machine's 20,000.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

func main() {
	cfg := flags(flag.CommandLine, os.Args[1:])
	jsonFile := flag.Lookup("json").Value.String()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg.log = os.Stderr
	_, err := run(ctx, cfg, func(rep *report) error {
		rep.markdown(os.Stdout)
		if jsonFile == "" {
			return nil
		}
		f, err := os.Create(jsonFile)
		if err == nil {
			err = rep.json(f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			return fmt.Errorf("-json: %w", err)
		}
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleet:", err)
		os.Exit(1)
	}
}

// flags parses args into a config (and -json, read from fs).
func flags(fs *flag.FlagSet, args []string) config {
	var c config
	fs.IntVar(&c.connectors, "c", 1000, "connectors, spread over the seven kinds")
	fs.IntVar(&c.procs, "procs", 4, "tributary serve processes")
	fs.IntVar(&c.tenants, "tenants", 10, "API clients (tenants), each with users of three connectors")
	fs.DurationVar(&c.duration, "d", 10*time.Minute, "how long the fleet runs once started (connector creation included)")
	fs.DurationVar(&c.syncEvery, "sync-every", 15*time.Minute, "serve --sync-every")
	fs.IntVar(&c.syncWorkers, "sync-workers", 0, "serve --sync-workers (0: serve's default)")
	fs.IntVar(&c.pool, "pool", 0, "PostgreSQL connections a process (the store's pool_max_conns; 0: 16 shared by the processes, at least 2 each)")
	fs.DurationVar(&c.sample, "sample", 5*time.Second, "how often the copies' staleness is read from the store")
	fs.StringVar(&c.postgres, "postgres", "", "a PostgreSQL DSN (default: a throwaway server); its database must be empty")
	fs.StringVar(&c.bin, "bin", "", "a tributary binary (default: cmd/tributary built from -root)")
	fs.StringVar(&c.root, "root", "..", "the library's module, from the current directory")
	fs.IntVar(&c.records, "records", 20, "records in each main entity of an account")
	fs.IntVar(&c.large, "large", 10, "accounts that are large")
	fs.IntVar(&c.largeN, "large-records", 2000, "records in each main entity of a large account")
	fs.DurationVar(&c.latency, "latency", 150*time.Millisecond, "median latency of a vendor request (log-normal, sigma 0.45: 80-400 ms for 90%; 1 in 100 four times longer); 0: none")
	fs.DurationVar(&c.mutateEvery, "change-every", 2*time.Minute, "each account changes one record this often (0: no changes)")
	fs.DurationVar(&c.drain, "drain", 0, "after the run, wait up to this long for every change to reach its copy and webhook")
	fs.DurationVar(&c.settle, "settle", 2*time.Minute, "a change not in its copy counts as lost once a sync of the copy started this long after it (Zendesk's exports leave out the last minute)")
	fs.BoolVar(&c.kill, "kill", true, "SIGKILL the last process half-way through the run")
	fs.DurationVar(&c.killAt, "kill-at", 0, "when to kill it (default: half the run), or the first moment after that it holds a claim (until 90% of the run)")
	fs.IntVar(&c.createWorkers, "create-workers", 16, "connectors created at once")
	fs.String("json", "", "also write the measures as JSON to this file")
	_ = fs.Parse(args)
	if c.killAt <= 0 {
		c.killAt = c.duration / 2
	}
	if abs, err := filepath.Abs(c.root); err == nil {
		c.root = abs
	}
	return c
}
