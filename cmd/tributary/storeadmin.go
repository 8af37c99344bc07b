package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/tributary-dev/tributary/store"
)

// storeFlagUsage is the help of the --store flag of the store commands.
const storeFlagUsage = "the store: a SQLite file, or a postgres:// URL (default $" + envStore + ")"

// notSynced turns the store's ErrNotSynced of a copy into a message that
// names the store and what it holds; other errors are returned as they
// are.
func notSynced(t storeTarget, err error, connector, entity string) error {
	if !errors.Is(err, store.ErrNotSynced) {
		return t.damaged(err)
	}
	what := "no copy of " + connector + " " + entity
	if entity == "" {
		what = "no copy of " + connector
	}
	return fmt.Errorf("--store %s has %s ('tributary store stats --store %s' lists its copies): %w", t.name, what, shellWord(t.name), err)
}

func (a *app) storeExportCmd() *cobra.Command {
	var (
		storeFlag string
		deleted   bool
	)
	cmd := &cobra.Command{
		Use:   "export <connector> <entity>",
		Short: "Print every record of a copy as NDJSON",
		Long: `export prints every live record of a copy, one JSON object per line
(NDJSON), in the order of their ids, from one snapshot of the store: each
line is the vendor's JSON of the record, byte for byte, as the sync stored
it. <connector> is the name the copy was synchronized under: the type, or
sync's --name.

With --deleted the records deleted at the source (tombstones) are printed
too, and every line is then an envelope, so that a live record and a
deleted one have the same shape:
{"id": "…", "deleted": false|true, "deleted_at": null|"RFC 3339", "data": {...}}

` + storeHelp + `

` + exitHelp,
		Example: `  tributary store export zendesk-support tickets --store tributary.db > tickets.ndjson
  tributary store export zendesk-support tickets --store tributary.db --deleted | jq 'select(.deleted) | .id'`,
		Args: exactArgs(2),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			connector, entity := args[0], args[1]
			return a.withExistingStore(cmd, storeFlag, func(ctx context.Context, t storeTarget, st *store.Store) error {
				return a.export(ctx, t, st, connector, entity, deleted)
			})
		}),
	}
	cmd.Flags().StringVar(&storeFlag, "store", "", storeFlagUsage)
	cmd.Flags().BoolVar(&deleted, "deleted", false, `include the tombstones; every line is then {"id", "deleted", "deleted_at", "data"}`)
	return cmd
}

// exportLine is a line of store export --deleted.
type exportLine struct {
	ID        string          `json:"id"`
	Deleted   bool            `json:"deleted"`
	DeletedAt *time.Time      `json:"deleted_at"`
	Data      json.RawMessage `json:"data"`
}

// export prints the records of a copy as NDJSON.
func (a *app) export(ctx context.Context, t storeTarget, st *store.Store, connector, entity string, deleted bool) error {
	out := newNDJSON(a.stdout)
	m := a.recordMeter("exporting "+entity, "records", true, true)
	err := func() error {
		for rec, err := range st.Records(ctx, connector, entity, store.SearchOptions{Deleted: deleted}) {
			if err != nil {
				return notSynced(t, err, connector, entity)
			}
			line := []byte(rec.Data)
			if deleted {
				l := exportLine{ID: rec.ID, Deleted: !rec.DeletedAt.IsZero(), Data: rec.Data}
				if l.Deleted {
					at := rec.DeletedAt.UTC()
					l.DeletedAt = &at
				}
				if line, err = json.Marshal(l); err != nil {
					return err
				}
			}
			if err := out.write(line); err != nil {
				return err
			}
			m.add(1)
		}
		return nil
	}()
	if ferr := out.close(); err == nil {
		err = ferr
	}
	m.done()
	if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return &interrupted{done: fmt.Sprintf("%d records written, each on a whole line", out.n), err: err}
	}
	return err
}

func (a *app) storeDropCmd() *cobra.Command {
	var storeFlag string
	cmd := &cobra.Command{
		Use:   "drop <connector> [entity]",
		Short: "Remove a copy, or every copy of a connector, from a store",
		Long: `drop removes the copy of <connector>'s <entity> from the store, or without
<entity> every copy of <connector>: the records, the tombstones, the
checkpoint the next sync would resume from, the last failure and the change
feed, all in one transaction. <connector> is the name the copies were
synchronized under: the type, or sync's --name. The next sync of the entity
makes a new copy from the start, with a new change feed.

A copy that a sync is writing (its claim has not expired) is not dropped:
stop the sync first. The space is reused by the store; 'tributary store
compact' gives it back to the file system.

It prints one line per copy dropped.

` + storeHelp + `

` + exitHelp,
		Example: `  tributary store drop zendesk-support users --store tributary.db
  tributary store drop zendesk-support --store tributary.db
  tributary store compact --store tributary.db`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usageErr(cmd, "drop takes a connector and, optionally, an entity (got %d arguments)", len(args))
			}
			return nil
		},
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			connector, entity := args[0], ""
			if len(args) == 2 {
				entity = args[1]
			}
			return a.withExistingStore(cmd, storeFlag, func(ctx context.Context, t storeTarget, st *store.Store) error {
				dropped, err := st.Drop(ctx, connector, entity)
				if err != nil {
					return notSynced(t, err, connector, entity)
				}
				for _, e := range dropped {
					if _, err := fmt.Fprintf(a.stdout, "dropped %s/%s\n", connector, e); err != nil {
						return err
					}
				}
				return nil
			})
		}),
	}
	cmd.Flags().StringVar(&storeFlag, "store", "", storeFlagUsage)
	return cmd
}

func (a *app) storeCompactCmd() *cobra.Command {
	var storeFlag string
	cmd := &cobra.Command{
		Use:   "compact",
		Short: "Give the space of dropped and replaced copies back to the file system",
		Long: `compact rewrites the store tightly. SQLite: VACUUM rewrites the file (it needs
as much free disk again, and holds the write lock, so that syncs wait,
while it runs), then the write-ahead log is emptied. PostgreSQL: VACUUM
(ANALYZE) of each of the store's tables, which makes the space of dead rows
reusable and refreshes the planner's statistics without stopping readers
or writers (the server gives space back to the file system only at a
table's end).

It prints the store's size before and after.

` + storeHelp + `

` + exitHelp,
		Example: `  tributary store compact --store tributary.db`,
		Args:    exactArgs(0),
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			return a.withExistingStore(cmd, storeFlag, func(ctx context.Context, t storeTarget, st *store.Store) error {
				c, err := st.Compact(ctx)
				if err != nil {
					return t.damaged(err)
				}
				_, err = fmt.Fprintf(a.stdout, "compacted %s: %s before, %s after\n", t.name, sizeIEC(c.Before), sizeIEC(c.After))
				return err
			})
		}),
	}
	cmd.Flags().StringVar(&storeFlag, "store", "", storeFlagUsage)
	return cmd
}
