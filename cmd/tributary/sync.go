package main

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/store"
)

func (a *app) syncCmd() *cobra.Command {
	var (
		conn      connFlags
		pf        paramFlags
		storeFlag string
		name      string
	)
	cmd := &cobra.Command{
		Use:   "sync <type> [entity...]",
		Short: "Synchronize entities into a durable store (SQLite or PostgreSQL) to search later",
		Long: `sync walks every page of each entity, with the kind's own paging, into a
durable copy in a store, which 'tributary search --store' then searches
without reading the source again. Without entities it synchronizes every
entity of the kind that has searchable fields, can be listed and needs no
list params; name the others, with their params (-p, --params; GitHub's
owner and repo, a Salesforce SOQL query), which apply to every entity named.

Each entity's copy is replaced at once when its walk has finished: a search
meanwhile sees the previous copy or the new one, never a mix. If the walk
fails, or Ctrl-C stops it, the store keeps the previous copy. Entities are
synchronized one after the other, and a line per entity is printed on
stdout as it completes. Progress (records, records/s, pages, and the time
left where the source gives a total) goes to stderr when it is a terminal.

Copies are kept under the connector's name, by default the type; --name
tells two accounts of one kind apart in one store (search with the same
--name).

` + storeHelp + `

` + exitHelp,
		Example: `  tributary sync zendesk-support --sandbox --store tributary.db
  tributary sync zendesk-support tickets users --sandbox --store tributary.db
  tributary sync github issues pull_requests --sandbox -p owner=octo -p repo=hello --store tributary.db
  tributary sync salesforce accounts --sandbox -p q='SELECT Id, Name, Industry FROM Account' --store tributary.db

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
				entities = syncable(es)
				if len(entities) == 0 {
					return usageErr(cmd, "every searchable entity of %s needs list params: name the entities and give them with -p", kind)
				}
			}
			params := map[string]tributary.Params{}
			for _, entity := range entities {
				if _, err := checkOperation(kind, es, entity, tributary.ActionList); err != nil {
					return err
				}
				if _, err := checkOperation(kind, es, entity, tributary.ActionSearch); err != nil {
					return err
				}
				op := operation{kind: kind, entities: es, entity: entity, action: tributary.ActionList}
				p, err := a.params(op, pf)
				if err != nil {
					return err
				}
				if _, err := tributary.Validate(kind, es, entity, tributary.ActionList, p); err != nil {
					return err
				}
				params[entity] = p
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
			return a.sync(cmd.Context(), s, target, name, entities, params)
		}),
	}
	conn.add(cmd, false)
	// sync reads the source directly: the hosted flags are refused.
	_ = cmd.Flags().MarkHidden("hosted")
	_ = cmd.Flags().MarkHidden("hosted-paths")
	addParamFlags(cmd, &pf)
	cmd.Flags().StringVar(&storeFlag, "store", "", "the store: a SQLite file (created if needed), or a postgres:// URL (default $"+envStore+")")
	cmd.Flags().StringVar(&name, "name", "", "keep the copies under this connector name (default: the type)")
	return cmd
}

// syncable lists the entities sync takes by default: searchable, listable,
// and with no required list params.
func syncable(es []tributary.Entity) []string {
	var out []string
	for _, e := range es {
		if !e.Supports(tributary.ActionSearch) || len(e.Searchable) == 0 || !e.Supports(tributary.ActionList) {
			continue
		}
		needs := false
		for _, p := range e.Params[tributary.ActionList] {
			needs = needs || p.Required
		}
		if !needs {
			out = append(out, e.Name)
		}
	}
	return out
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

// sync synchronizes entities one after the other into the store, with a
// line on stdout per entity done.
func (a *app) sync(ctx context.Context, s *session, target storeTarget, name string, entities []string, params map[string]tributary.Params) error {
	counting := &countingConnector{Connector: s.conn}
	opts := []replica.Option{}
	if name != "" {
		opts = append(opts, replica.WithName(name))
	} else {
		name = s.conn.Type()
	}
	for entity, p := range params {
		opts = append(opts, replica.WithParams(entity, p))
	}
	r, err := replica.Open(ctx, counting, target.backend(), opts...)
	if err != nil {
		return target.wrap(err)
	}
	defer r.Close()
	for _, entity := range entities {
		before, err := copyStats(ctx, r.Store(), name, entity)
		if err != nil {
			return target.wrap(err)
		}
		m := a.recordMeter("syncing "+entity, "records", true, false)
		if m != nil {
			// One page first for the total the source reports, for the
			// time left; only when progress is shown.
			if page, err := s.conn.List(ctx, entity, params[entity]); err == nil {
				m.setTotal(total(page.Meta))
			}
		}
		var pages pageTally
		s.counter.set(func() { pages.add(); m.page() })
		counting.set(m.add)
		start := time.Now()
		err = r.Sync(ctx, entity)
		took := time.Since(start)
		counting.set(nil)
		s.counter.set(nil)
		m.done()
		if err != nil {
			if ctx.Err() != nil && errors.Is(err, context.Canceled) {
				kept := "it had no copy yet"
				if !before.SyncedAt.IsZero() {
					kept = fmt.Sprintf("the store keeps its previous copy, %d records synchronized %s", before.Records, before.SyncedAt.UTC().Format(time.RFC3339))
				}
				return &interrupted{done: fmt.Sprintf("%s/%s not synchronized (%s)", name, entity, kept), err: err}
			}
			return err
		}
		after, err := copyStats(ctx, r.Store(), name, entity)
		if err != nil {
			return target.wrap(err)
		}
		n := int(after.Records)
		fmt.Fprintf(a.stdout, "%s/%s: %d %s, %d %s in %s (%s records/s)\n", name, entity,
			n, plural(int64(n), "record"), pages.n(), plural(pages.n(), "page"), took.Round(time.Millisecond), rate(n, took))
	}
	return nil
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

// pageTally counts pages from the transport's goroutines.
type pageTally struct {
	mu    sync.Mutex
	count int64
}

func (p *pageTally) add() { p.mu.Lock(); p.count++; p.mu.Unlock() }
func (p *pageTally) n() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.count
}

// total reads the number of records a first page says the walk has, under
// the names the kinds give it (Zendesk count, Mailchimp total_items,
// Salesforce totalSize, Gong pagination.totalRecords, HubSpot total,
// GitHub total_count); 0 when the page does not say.
func total(meta map[string]any) int64 {
	for _, path := range []string{"total_items", "totalSize", "count", "total", "total_count", "pagination.totalRecords"} {
		var v any = meta
		for k := range strings.SplitSeq(path, ".") {
			m, ok := v.(map[string]any)
			if !ok {
				v = nil
				break
			}
			v = m[k]
		}
		if n, ok := asCount(v); ok && n > 0 {
			return n
		}
	}
	return 0
}

// asCount reads a JSON number that is a whole count.
func asCount(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int64:
		return n, true
	case float64:
		if n == float64(int64(n)) {
			return int64(n), true
		}
	case interface{ Int64() (int64, error) }: // json.Number
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}

// countingConnector is a connector whose walks count their records as
// they come, for the progress of a sync (replica.Sync walks with
// tributary.All and reports nothing until it is done). It implements
// tributary.Walker by walking the underlying connector with tributary.All,
// so the kind's own best walk (a cursor mode, Intercom's scroll) is kept.
type countingConnector struct {
	tributary.Connector

	mu       sync.Mutex
	onRecord func(n int)
}

// set sets the function each record is counted with (nil: none).
func (c *countingConnector) set(f func(n int)) {
	c.mu.Lock()
	c.onRecord = f
	c.mu.Unlock()
}

// Walk implements tributary.Walker.
func (c *countingConnector) Walk(ctx context.Context, entity string, p tributary.Params) iter.Seq2[tributary.Record, error] {
	return func(yield func(tributary.Record, error) bool) {
		for rec, err := range tributary.All(ctx, c.Connector, entity, p) {
			if err == nil {
				c.mu.Lock()
				f := c.onRecord
				c.mu.Unlock()
				if f != nil {
					f(1)
				}
			}
			if !yield(rec, err) {
				return
			}
		}
	}
}
