package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/sandbox"
	"github.com/tributary-dev/tributary/store"
)

func (a *app) syncCmd() *cobra.Command {
	var (
		conn       connFlags
		pf         paramFlags
		storeFlag  string
		name       string
		configFlag string
		full       bool
		every      time.Duration
		changes    string
	)
	cmd := &cobra.Command{
		Use:   "sync <type> [entity...]",
		Short: "Synchronize entities into a durable store (SQLite or PostgreSQL) to search later",
		Long: `sync brings durable copies of entities up to date in a store, which
'tributary search --store' then searches without reading the source again.
Without entities it synchronizes every entity of the kind that has
searchable fields, can be listed, and needs no list params or has a copy
scope that supplies them ('describe' shows it as copy: Salesforce's objects
are read with a SOQL query of every searchable field; an entity read in
parts, one per repository or per parent record, has each record carry what
scoped it). --replication-config sets what the scopes cover, checked against
the keys 'describe' lists for the type (GitHub's repositories and
start_date). Name the entities with params of your own (-p, --params, which
apply to every entity named) to copy only what they read; a copy read with
some params is never synced with others, which would keep every record the
new params do not read as a deletion: give such a copy a --name of its own.

The first sync of an entity walks every record. After that, sync is
incremental where the source has a change feed (Zendesk's incremental
exports, HubSpot's and Intercom's searches on the modification time,
Salesforce's queryAll, GitHub's since, ...): only what changed is read, each
page is written with its checkpoint in one transaction, and an interrupted
sync resumes where it stopped. Other entities are walked in full into a new
copy that replaces the previous one at once; records the walk no longer sees
are kept as deletions, which search leaves out. --full walks every entity
in full. When a sync fails or Ctrl-C stops it, the store keeps what the last
page written left (a full walk: the previous copy).

A table says, per entity, the mode used, records inserted, updated,
unchanged and deleted, pages, requests, retries, throttled answers and the
time taken. Progress (records, records/s, pages, and the time left where the
source gives a total) goes to stderr when it is a terminal. --every keeps the
copies current, syncing again every DURATION until interrupted; each round's
table follows a line "round N at TIME" (RFC 3339, UTC), and Ctrl-C ends the
command with exit code 130 (interrupted), between rounds too.

Copies are kept under the connector's name, by default the type; --name
tells two accounts of one kind apart in one store (search with the same
--name).

` + storeHelp + `

` + exitHelp,
		Example: `  tributary sync zendesk-support --sandbox --store tributary.db
  tributary sync zendesk-support tickets users --sandbox --store tributary.db
  tributary sync zendesk-support tickets --sandbox --store tributary.db --every 5m
  # a sandbox whose contacts change: updates, inserts and deletes for the change feed
  tributary sync hubspot contacts --sandbox --sandbox-changes 10/min --every 30s --store tributary.db
  tributary sync github issues pull_requests --sandbox -p owner=octo -p repo=hello --store tributary.db
  tributary sync salesforce --sandbox --store tributary.db
  # a copy of the caller's own query keeps a name of its own: a sync never deletes what it did not read
  tributary sync salesforce accounts --sandbox -p q='SELECT Id, Name, Industry FROM Account' --name sf-brief --store tributary.db
  tributary sync github --sandbox --replication-config '{"repositories": ["octo/*"]}' --store tributary.db

  # your account, into PostgreSQL (password from PGPASSWORD or ~/.pgpass)
  tributary sync zendesk-support tickets --credentials zendesk.json --store postgres://tributary@db.internal/tributary`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr(cmd, "sync takes a type and, optionally, entities (<type> [entity...])")
			}
			return nil
		},
		ValidArgsFunction: completeSyncArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			kind := args[0]
			es, err := kinds.Catalogue(kind)
			if err != nil {
				return err
			}
			if conn.hosted != "" {
				return usageErr(cmd, "sync reads the source in direct mode (your credentials, or --sandbox); the hosted service keeps its own copy ('tributary search --hosted')")
			}
			var entities []string
			for _, e := range args[1:] {
				if !slices.Contains(entities, e) {
					entities = append(entities, e)
				}
			}
			given := pf.json != "" || len(pf.pairs) > 0
			if len(entities) == 0 {
				if given {
					return usageErr(cmd, "-p and --params need the entities named: the params of one entity's list rarely fit another's")
				}
				entities = replica.Syncable(es)
				if len(entities) == 0 {
					return usageErr(cmd, "every searchable entity of %s needs list params: name the entities and give them with -p", kind)
				}
			}
			params := map[string]tributary.Params{}
			for _, entity := range entities {
				if err := checkCopy(kind, es, entity, ""); err != nil {
					return err
				}
				if _, err := checkOperation(kind, es, entity, tributary.ActionList); err != nil {
					return err
				}
				op := operation{kind: kind, entities: es, entity: entity, action: tributary.ActionList}
				p, err := a.params(op, pf)
				if err != nil {
					return err
				}
				// None given: the entity's copy scope, where it has one;
				// a scope read in parts gives each part its params.
				e, _ := tributary.FindEntity(es, entity)
				if len(p) == 0 && e.CopiedInParts() {
					continue
				}
				if _, err := tributary.Validate(kind, es, entity, tributary.ActionList, e.CopyParams(p)); err != nil {
					return err
				}
				if len(p) > 0 {
					params[entity] = p
				}
			}
			config, err := a.replicationConfig(kind, configFlag)
			if err != nil {
				return err
			}
			if changes != "" {
				if !conn.sandbox {
					return usageErr(cmd, "--sandbox-changes changes the records of the sandbox's fakes: give --sandbox")
				}
				if conn.changes.Every, err = sandbox.ParseRate(changes); err != nil {
					return usageErr(cmd, "--sandbox-changes: %v", err)
				}
				conn.changes.Seed, conn.changes.Entities = 1, map[string][]string{kind: entities}
				var mu sync.Mutex
				conn.changes.Log = func(c sandbox.Change) {
					mu.Lock()
					defer mu.Unlock()
					fmt.Fprintf(a.stderr, "tributary sync: --sandbox-changes: %s\n", c)
				}
			}
			target, err := a.storeTarget(cmd, storeFlag, false)
			if err != nil {
				return err
			}
			s, err := a.open(cmd, &conn, kind)
			if err != nil {
				return err
			}
			defer s.close()
			if conn.changes.Every > 0 {
				changeable, err := s.sandbox.Changeable(kind)
				if err != nil {
					return err
				}
				if !slices.ContainsFunc(entities, func(e string) bool { return slices.Contains(changeable, e) }) {
					return usageErr(cmd, "--sandbox-changes: the sandbox's %s fake changes none of %s; it changes %s", kind, strings.Join(entities, ", "), strings.Join(changeable, ", "))
				}
			}
			return a.sync(cmd.Context(), s, target, name, entities, params, config, full, every)
		}),
	}
	conn.add(cmd, false)
	// sync reads the source directly: the hosted flags are refused.
	_ = cmd.Flags().MarkHidden("hosted")
	_ = cmd.Flags().MarkHidden("hosted-paths")
	addParamFlags(cmd, &pf)
	cmd.Flags().StringVar(&storeFlag, "store", "", "the store: a SQLite file (created if needed), or a postgres:// URL (default $"+envStore+")")
	cmd.Flags().StringVar(&name, "name", "", "keep the copies under this connector name (default: the type)")
	cmd.Flags().StringVar(&configFlag, "replication-config", "", "the connector's replication_config, as JSON or @FILE: what its copies cover (GitHub repositories, a start date; 'tributary describe TYPE' lists the keys)")
	cmd.Flags().BoolVar(&full, "full", false, "walk every entity in full, even those with a change feed (the first round, with --every)")
	cmd.Flags().DurationVar(&every, "every", 0, "sync again every DURATION (e.g. 5m) until interrupted, each round under a line with its start time; Ctrl-C finishes the page under way and exits 130")
	cmd.Flags().StringVar(&changes, "sandbox-changes", "", "with --sandbox: the fake changes the entities synced at this RATE (10/min, 2/s): updates, inserts and deletes, the same every run, each said on stderr")
	return cmd
}

// completeSyncArgs completes the type, then any number of searchable
// entities.
func completeSyncArgs(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	keep := func(e tributary.Entity) bool {
		return e.Supports(tributary.ActionSearch) && e.Supports(tributary.ActionList)
	}
	if len(args) <= 1 {
		return completeTypeEntity(keep)(cmd, args, toComplete)
	}
	return completeTypeEntity(keep)(cmd, args[:1], toComplete)
}

// sync brings entities up to date in the store, one after the other, and
// prints a table of what it did; with every above zero it does so again
// every that long, each round under a line with its number and start time,
// until ctx ends (Ctrl-C), which finishes the page under way and returns
// an interrupted error (exit 130) whether a round was under way or not.
func (a *app) sync(ctx context.Context, s *session, target storeTarget, name string, entities []string, params map[string]tributary.Params, config map[string]any, full bool, every time.Duration) error {
	var mu sync.Mutex
	var m *meter
	var seen int64
	opts := []replica.Option{replica.WithProgress(func(p replica.Progress) {
		mu.Lock()
		defer mu.Unlock()
		if m != nil {
			m.add(int(p.Records - seen))
		}
		seen = p.Records
	})}
	if name != "" {
		opts = append(opts, replica.WithName(name))
	} else {
		name = s.conn.Type()
	}
	for entity, p := range params {
		opts = append(opts, replica.WithParams(entity, p))
	}
	if config != nil {
		opts = append(opts, replica.WithConfig(config))
	}
	r, err := replica.Open(ctx, s.conn, target.backend(), opts...)
	if err != nil {
		return target.wrap(err)
	}
	defer r.Close()
	for round := 0; ; round++ {
		rep := &replica.Report{}
		if every > 0 {
			fmt.Fprintf(a.stdout, "round %d at %s\n", round+1, time.Now().UTC().Format(time.RFC3339))
		}
		for _, entity := range entities {
			before, err := copyStats(ctx, r.Store(), name, entity)
			if err != nil && ctx.Err() != nil {
				// Ctrl-C between two entities of a round.
				return &interrupted{done: fmt.Sprintf("stopped before %s/%s; every copy is whole, as the last page written left it", name, entity), err: ctx.Err()}
			}
			if err != nil {
				return target.wrap(err)
			}
			mu.Lock()
			m, seen = a.recordMeter("syncing "+entity, "records", true, false), 0
			shown := m != nil
			mu.Unlock()
			if shown && (full || before.SyncedAt.IsZero()) {
				// A full walk: one page first for the total the source
				// reports, for the time left; only when progress is shown.
				e, _ := tributary.FindEntity(s.conn.Entities(), entity)
				if page, err := s.conn.List(ctx, entity, e.CopyParams(params[entity])); err == nil && !e.CopiedInParts() {
					if n, ok := tributary.PageTotal(page.Meta); ok {
						mu.Lock()
						m.setTotal(n)
						mu.Unlock()
					}
				}
			}
			// The pages are the source's answers, counted by the session.
			s.counter.set(func() { mu.Lock(); m.page(); mu.Unlock() })
			var er *replica.Report
			if full && round == 0 {
				er, err = r.SyncFull(ctx, entity)
			} else {
				er, err = r.Sync(ctx, entity)
			}
			s.counter.set(nil)
			mu.Lock()
			m.done()
			m = nil
			mu.Unlock()
			if err != nil {
				a.printReport(name, rep)
				if ctx.Err() != nil && errors.Is(err, context.Canceled) {
					kept := "it had no copy yet"
					if !before.SyncedAt.IsZero() {
						kept = fmt.Sprintf("the store keeps its copy as the last page written left it, %d records, last completed %s", before.Records, before.SyncedAt.UTC().Format(time.RFC3339))
					}
					return &interrupted{done: fmt.Sprintf("%s/%s not synchronized to the end (%s)", name, entity, kept), err: err}
				}
				return err
			}
			rep.Entities = append(rep.Entities, er.Entities...)
		}
		a.printReport(name, rep)
		if every <= 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			// Ctrl-C between rounds: everything written is whole, but the
			// command was stopped, as the exit code says (130).
			return &interrupted{done: fmt.Sprintf("--every stopped after %d %s; every copy is whole, as the last round left it", round+1, plural(int64(round+1), "round")), err: ctx.Err()}
		case <-time.After(every):
		}
	}
}

// printReport prints a sync's report as a table on stdout.
func (a *app) printReport(name string, rep *replica.Report) {
	if len(rep.Entities) == 0 {
		return
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "copy\tmode\tinserted\tupdated\tunchanged\tdeleted\tpages\trequests\tretries\tthrottled\ttook\trecords/s\t")
	for _, e := range rep.Entities {
		n := int(e.Inserted + e.Updated + e.Unchanged + e.Deleted)
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t\n", name+"/"+e.Entity, e.Mode, e.Inserted, e.Updated, e.Unchanged, e.Deleted,
			e.Pages, e.Usage.Requests, e.Usage.Retries, e.Usage.Throttled, e.Took.Round(time.Millisecond), rate(n, e.Took))
	}
	tw.Flush()
	for _, e := range rep.Entities {
		if e.Reason != "" {
			fmt.Fprintf(a.stdout, "%s/%s: %s walk: %s\n", name, e.Entity, e.Mode, e.Reason)
		}
	}
}

// copyStats returns the stats of one copy in st (zero when it has none).
func copyStats(ctx context.Context, st *store.Store, connector, entity string) (store.EntityStats, error) {
	es, err := st.Entities(ctx)
	if err != nil {
		return store.EntityStats{}, err
	}
	for _, e := range es {
		if e.Connector == connector && e.Entity == entity {
			return e, nil
		}
	}
	return store.EntityStats{}, nil
}

// rate renders n per d.
func rate(n int, d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	r := float64(n) / d.Seconds()
	if r >= 100 {
		return fmt.Sprintf("%.0f", r)
	}
	return fmt.Sprintf("%.1f", r)
}

// replicationConfig reads --replication-config (JSON, @FILE or - for
// stdin) and checks it against the kind's declared keys; nil when unset.
func (a *app) replicationConfig(kind, flag string) (map[string]any, error) {
	if flag == "" {
		return nil, nil
	}
	b, err := a.readArg("--replication-config", flag)
	if err != nil {
		return nil, err
	}
	var config map[string]any
	if err := json.Unmarshal(b, &config); err != nil {
		return nil, &tributary.Error{Kind: kind, Param: "replication_config", Err: tributary.ErrInvalidParams,
			Message: "--replication-config is not a JSON object: " + err.Error()}
	}
	return kinds.NormalizeReplicationConfig(kind, config)
}
