package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// report is a fleet run's measures, as the table and -json give them.
type report struct {
	Config        string  `json:"config"`
	Created       int     `json:"connectors_created"`
	CreateSeconds float64 `json:"create_seconds"`
	Copies        int     `json:"copies"`
	RunSeconds    float64 `json:"run_seconds"`
	DrainSeconds  float64 `json:"drain_seconds"`

	Staleness stats `json:"staleness_seconds"`
	// StalenessByKind is the staleness of each kind's copies over the run.
	StalenessByKind   map[string]stats `json:"staleness_by_kind_seconds"`
	StalenessAfter    stats            `json:"staleness_after_first_round_seconds"`
	FirstRoundSeconds float64          `json:"first_round_seconds"` // -1: never
	NeverSynchronized int              `json:"never_synchronized"`
	// Unsynchronized and Failing name the copies never synchronized and
	// those whose last sync failed, at the end: kind, entity, failure.
	Unsynchronized     map[string]int `json:"never_synchronized_by_copy"`
	Failing            map[string]int `json:"failing_by_copy"`
	SyncsPerSecond     float64        `json:"syncs_per_second"`
	Syncs              int64          `json:"syncs"`
	Samples            int            `json:"samples"`
	DoubleClaimSamples int            `json:"double_claim_samples"`
	Overlaps           int64          `json:"overlapping_requests"`

	Kinds []kindReport `json:"kinds"`

	PGCommitsPerSecond float64 `json:"pg_commits_per_second"`
	PGConnectionsMax   int     `json:"pg_connections_max"`
	PGConnectionsMean  float64 `json:"pg_connections_mean"`
	PGSizeBytes        int64   `json:"pg_size_bytes"`
	// PGCPUPercent is PostgreSQL's CPU over the run, in percent of one
	// core (-1: a server the fleet cannot read, -postgres elsewhere).
	PGCPUPercent float64 `json:"pg_cpu_percent_of_one_core"`
	// PGBusyWith is what PostgreSQL's active backends were running, the
	// kinds of statement seen most in samples every second (activity).
	PGBusyWith []activityShare `json:"pg_busy_with"`

	Procs []procReport `json:"processes"`

	Webhooks       map[string]int `json:"webhook_events"`
	WebhookRepeats int            `json:"webhook_repeated_deliveries"`
	WebhookDelay   stats          `json:"webhook_delay_seconds"` // commit to receipt

	Mutations       int      `json:"mutations"`
	MutationErrors  int      `json:"mutation_errors"`
	MutationsNoCopy int      `json:"mutations_without_copy"`
	Reached         int      `json:"mutations_reached_copy"`
	NeverHeld       int      `json:"mutations_deleted_before_copy_held_them"`
	Pending         []string `json:"mutations_pending"`
	Lost            []string `json:"mutations_lost"`
	Hooked          int      `json:"mutations_reached_webhook"`
	Unhooked        []string `json:"mutations_without_webhook"`
	ToCopy          stats    `json:"mutation_to_copy_seconds"`
	ToHook          stats    `json:"mutation_to_webhook_seconds"`

	Console stats `json:"console_list_seconds"`

	Kill *killMeasure `json:"kill,omitempty"`
}

// stats are percentiles of a measure.
type stats struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

func statsOf(xs []float64) stats {
	if len(xs) == 0 {
		return stats{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	at := func(p int) float64 { return s[(len(s)-1)*p/100] }
	return stats{N: len(s), P50: at(50), P95: at(95), P99: at(99), Max: s[len(s)-1]}
}

func seconds(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = d.Seconds()
	}
	return out
}

type kindReport struct {
	Kind              string  `json:"kind"`
	Budget            string  `json:"budget"`
	Accounts          int     `json:"accounts"`
	Requests          int64   `json:"requests"`
	RequestsPerSecond float64 `json:"requests_per_second"`
	Throttled         int64   `json:"throttled"`
	Unmarked          int64   `json:"unmarked"`
}

type procReport struct {
	Process       int     `json:"process"`
	Killed        bool    `json:"killed"`
	CPUSeconds    float64 `json:"cpu_seconds"`
	Syncs         float64 `json:"syncs"`
	CPUPerSyncMS  float64 `json:"cpu_ms_per_sync"`
	CPUPercentRun float64 `json:"cpu_percent_of_one_core"`
}

type killMeasure struct {
	Process        int     `json:"process"`
	AtSeconds      float64 `json:"at_seconds"`
	Held           int     `json:"copies_held"`
	WorstStaleness float64 `json:"worst_staleness_seconds"`
	ResyncMax      float64 `json:"resync_max_seconds"`
	NotResynced    int     `json:"not_resynced"`
}

func (c config) describe() string {
	workers := "serve's default"
	if c.syncWorkers > 0 {
		workers = strconv.Itoa(c.syncWorkers)
	}
	return fmt.Sprintf("%d connectors, %d processes, %d tenants, --sync-every %v, --sync-workers %s, pool_max_conns %d, %v run, %d records an entity (%d accounts of %d), latency median %v, a change per account every %v, kill %v",
		c.connectors, c.procs, c.tenants, c.syncEvery, workers, c.poolSize(), c.duration, c.records, c.large, c.largeN, c.latency, c.mutateEvery, c.kill)
}

// fill computes the report from what the run gathered.
func (r *report) fill(f *fleet, samples []*sample, start, end, drained time.Time, t0, t1 pgTotals, syncs int64, console []time.Duration, kill killReport, check *mutationCheck) {
	r.RunSeconds, r.DrainSeconds = end.Sub(start).Seconds(), drained.Sub(end).Seconds()
	r.Samples = len(samples)
	kindOf := map[string]string{}
	f.connsMu.RLock()
	for i, id := range f.conns {
		kindOf[id] = f.fronts[i%len(f.fronts)].spec.kind
	}
	f.connsMu.RUnlock()
	r.FirstRoundSeconds = -1
	var all, after []float64
	byKind := map[string][]float64{}
	var conns []float64
	for _, s := range samples {
		// The first full round: every copy synchronized, or failed (a
		// copy whose first sync failed is counted apart, below).
		never := 0
		for _, c := range s.copies {
			if c.started == 0 && c.failure == "" {
				never++
			}
		}
		if r.FirstRoundSeconds < 0 && r.Created == f.cfg.connectors && len(s.copies) > 0 && never == 0 {
			r.FirstRoundSeconds = s.at.Sub(start).Seconds()
		}
		for _, c := range s.copies {
			if c.started == 0 {
				continue
			}
			x := float64(s.nowMS-c.started) / 1000
			all = append(all, x)
			byKind[kindOf[c.connector]] = append(byKind[kindOf[c.connector]], x)
			if r.FirstRoundSeconds >= 0 {
				after = append(after, x)
			}
		}
		if len(s.doubleClaims) > 0 {
			r.DoubleClaimSamples++
		}
		conns = append(conns, float64(s.connections))
		r.PGConnectionsMax = max(r.PGConnectionsMax, s.connections)
	}
	r.Staleness, r.StalenessAfter = statsOf(all), statsOf(after)
	r.StalenessByKind = map[string]stats{}
	for k, xs := range byKind {
		r.StalenessByKind[k] = statsOf(xs)
	}
	if n := len(samples); n > 0 {
		last := samples[n-1]
		r.Copies = len(last.copies)
		r.Unsynchronized, r.Failing = map[string]int{}, map[string]int{}
		for _, c := range last.copies {
			what := kindOf[c.connector] + " " + c.entity
			if c.failure != "" {
				what += " (" + c.failure + ")"
				r.Failing[what]++
			}
			if c.started == 0 {
				r.NeverSynchronized++
				r.Unsynchronized[what]++
			}
		}
		var sum float64
		for _, c := range conns {
			sum += c
		}
		r.PGConnectionsMean = sum / float64(len(conns))
	}
	el := drained.Sub(start).Seconds()
	r.Syncs, r.SyncsPerSecond = syncs, float64(syncs)/el
	r.PGCommitsPerSecond, r.PGSizeBytes = float64(t1.commits-t0.commits)/el, t1.size
	r.PGCPUPercent = -1
	// Only the fleet's own server: a -postgres elsewhere has backends
	// whose process ids mean nothing on this machine.
	if f.cfg.postgres == "" && t0.cpu >= 0 && t1.cpu >= 0 {
		r.PGCPUPercent = 100 * (t1.cpu - t0.cpu).Seconds() / el
	}
	for _, fr := range f.fronts {
		r.Overlaps += fr.overlaps.Load()
		r.Kinds = append(r.Kinds, kindReport{Kind: fr.spec.kind, Budget: fr.spec.limit, Accounts: len(fr.started()),
			Requests: fr.requests.Load(), RequestsPerSecond: float64(fr.requests.Load()) / el, Throttled: fr.throttled.Load(), Unmarked: fr.unmarked.Load()})
	}
	for _, p := range f.procs {
		pr := procReport{Process: p.n, Killed: p.killed, CPUSeconds: p.cpu.Seconds(), Syncs: p.syncs}
		if p.syncs > 0 {
			pr.CPUPerSyncMS = p.cpu.Seconds() * 1000 / p.syncs
		}
		span := el
		if p.killed {
			span = kill.At.Sub(start).Seconds()
		}
		pr.CPUPercentRun = 100 * p.cpu.Seconds() / span
		r.Procs = append(r.Procs, pr)
	}
	events, types, repeats := f.hooks.snapshot()
	r.Webhooks, r.WebhookRepeats = types, repeats
	var delays []float64
	for _, e := range events {
		delays = append(delays, e.got.Sub(e.committed).Seconds())
	}
	r.WebhookDelay = statsOf(delays)
	r.Mutations, r.MutationsNoCopy, r.Reached, r.NeverHeld, r.Hooked = check.total, check.noCopy, check.reached, check.never, check.hooked
	r.Lost, r.Pending, r.Unhooked = describe(check.lost, start), describe(check.pending, start), describe(check.unhooked, start)
	for i, why := range check.why {
		r.Lost[i] += ": " + why
	}
	r.ToCopy, r.ToHook = statsOf(seconds(check.toCopy)), statsOf(seconds(check.toHook))
	r.Console = statsOf(seconds(console))
	if !kill.At.IsZero() {
		km := &killMeasure{Process: kill.Process, AtSeconds: kill.At.Sub(start).Seconds(), Held: len(kill.held)}
		held := map[copyKey]bool{}
		for _, k := range kill.held {
			held[k] = true
		}
		resynced := map[copyKey]float64{}
		for _, s := range samples {
			if s.at.Before(kill.At) {
				continue
			}
			for _, c := range s.copies {
				k := copyKey{c.connector, c.entity}
				if !held[k] {
					continue
				}
				if c.started > 0 {
					km.WorstStaleness = max(km.WorstStaleness, float64(s.nowMS-c.started)/1000)
				}
				if _, done := resynced[k]; !done && c.synced > kill.At.UnixMilli() {
					resynced[k] = float64(c.synced-kill.At.UnixMilli()) / 1000
				}
			}
		}
		for _, x := range resynced {
			km.ResyncMax = max(km.ResyncMax, x)
		}
		km.NotResynced = len(kill.held) - len(resynced)
		r.Kill = km
	}
}

// markdown writes the report as one table, a row a measure.
func (r *report) markdown(w io.Writer) {
	fmt.Fprintf(w, "%s\n\n| measure | value |\n|---|---|\n", r.Config)
	row := func(name, format string, args ...any) {
		fmt.Fprintf(w, "| %s | %s |\n", name, fmt.Sprintf(format, args...))
	}
	st := func(s stats) string {
		if s.N == 0 {
			return "none"
		}
		return fmt.Sprintf("p50 %.1f s, p99 %.1f s, max %.1f s (%d values)", s.P50, s.P99, s.Max, s.N)
	}
	row("connectors created (through the API)", "%d in %.1f s", r.Created, r.CreateSeconds)
	row("copies", "%d", r.Copies)
	row("run, then drain", "%.0f s, %.0f s", r.RunSeconds, r.DrainSeconds)
	row("staleness over the run", "%s", st(r.Staleness))
	if r.FirstRoundSeconds >= 0 {
		row("first full round (every copy synchronized or failed)", "at %.0f s", r.FirstRoundSeconds)
	} else {
		row("first full round (every copy synchronized or failed)", "not reached")
	}
	row("staleness after the first full round", "%s", st(r.StalenessAfter))
	for _, k := range r.Kinds {
		row("staleness of "+k.Kind+"'s copies over the run", "%s", st(r.StalenessByKind[k.Kind]))
	}
	row("copies never synchronized (at the end)", "%d%s", r.NeverSynchronized, byCopy(r.Unsynchronized))
	n := 0
	for _, k := range r.Failing {
		n += k
	}
	row("copies whose last sync failed (at the end)", "%d%s", n, byCopy(r.Failing))
	row("syncs", "%d, %.2f a second", r.Syncs, r.SyncsPerSecond)
	for _, k := range r.Kinds {
		row("requests to "+k.Kind+" ("+k.Budget+")", "%.1f/s (%d, %d accounts), %d throttled (429)%s", k.RequestsPerSecond, k.Requests, k.Accounts, k.Throttled,
			map[bool]string{true: fmt.Sprintf(", %d without an account marker", k.Unmarked), false: ""}[k.Unmarked > 0])
	}
	row("PostgreSQL commits", "%.0f a second", r.PGCommitsPerSecond)
	row("PostgreSQL connections", "max %d, mean %.1f", r.PGConnectionsMax, r.PGConnectionsMean)
	row("PostgreSQL database size", "%.1f MiB", float64(r.PGSizeBytes)/(1<<20))
	if r.PGCPUPercent >= 0 {
		row("PostgreSQL CPU", "%.0f%% of a core", r.PGCPUPercent)
	}
	for _, a := range r.PGBusyWith {
		row("PostgreSQL busy with "+strings.ReplaceAll(a.Statement, "|", `\|`), "%.0f%% of its active backends' samples", 100*a.Share)
	}
	for _, p := range r.Procs {
		killed := ""
		if p.Killed {
			killed = " (killed: to its kill)"
		}
		row(fmt.Sprintf("serve %d CPU%s", p.Process, killed), "%.1f s, %.0f syncs, %.0f ms a sync, %.0f%% of a core", p.CPUSeconds, p.Syncs, p.CPUPerSyncMS, p.CPUPercentRun)
	}
	var types []string
	for t, n := range r.Webhooks {
		types = append(types, fmt.Sprintf("%s %d", t, n))
	}
	slices.Sort(types)
	row("webhook events received (each once)", "%s; %d repeated deliveries", strings.Join(types, ", "), r.WebhookRepeats)
	row("webhook delay (commit to receipt)", "%s", st(r.WebhookDelay))
	row("changes made by the fakes", "%d (%d failed to apply; %d of entities without a copy)", r.Mutations, r.MutationErrors, r.MutationsNoCopy)
	row("changes in their copy (a record judged by its last change)", "%d (%d records deleted before their copy held them); %d not yet due; %d lost", r.Reached, r.NeverHeld, len(r.Pending), len(r.Lost))
	row("change to copy", "%s", st(r.ToCopy))
	row("changes in a webhook event", "%d; %d in their copy without one", r.Hooked, len(r.Unhooked))
	row("change to webhook receipt", "%s", st(r.ToHook))
	row("console connector list (GET /console/connectors)", "p50 %.0f ms, p95 %.0f ms (%d reads)", r.Console.P50*1000, r.Console.P95*1000, r.Console.N)
	row("two processes at one vendor account at once", "%d requests", r.Overlaps)
	row("samples with two copies of a connector claimed", "%d of %d", r.DoubleClaimSamples, r.Samples)
	if k := r.Kill; k != nil {
		row(fmt.Sprintf("serve %d SIGKILLed", k.Process), "at %.0f s, holding %d copies", k.AtSeconds, k.Held)
		row("its copies: worst staleness, resynchronized after", "%.1f s; %.1f s at most, %d not resynchronized", k.WorstStaleness, k.ResyncMax, k.NotResynced)
	}
	for _, l := range []struct {
		what string
		ms   []string
	}{{"lost", r.Lost}, {"not yet due", r.Pending}, {"no webhook", r.Unhooked}} {
		for i, m := range l.ms {
			if i == 10 {
				fmt.Fprintf(w, "\n%s: %d more", l.what, len(l.ms)-i)
				break
			}
			fmt.Fprintf(w, "\n%s: %s", l.what, m)
		}
	}
	fmt.Fprintln(w)
}

func (r *report) json(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(r)
}

// describe names changes for the report: connector, entity, record,
// operation and time since the run's start.
func describe(ms []mutation, start time.Time) []string {
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%s %s %s %s %s at %.1f s", m.kind, m.connector, m.entity, m.id, m.op, m.at.Sub(start).Seconds()))
	}
	return out
}

// byCopy lists the counts of m, most first, for a table cell.
func byCopy(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for i, k := range keys {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("%d more", len(keys)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("%d %s", m[k], strings.ReplaceAll(k, "|", "/")))
	}
	return ": " + strings.Join(parts, "; ")
}
