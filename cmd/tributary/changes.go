package main

import (
	"bufio"
	"context"
	"encoding/json"

	"github.com/spf13/cobra"
	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/store"
)

func (a *app) changesCmd() *cobra.Command {
	var (
		storeFlag string
		name      string
		since     int64
		limit     int
	)
	cmd := &cobra.Command{
		Use:   "changes <type> <entity>",
		Short: "Print what synchronizations changed in a durable copy since a cursor (NDJSON)",
		Long: `changes prints the change feed of an entity's copy in a store that
'tributary sync' fills: every record each synchronization inserted, updated
or deleted, after the cursor --since (0, the default: from the start of the
feed), in the order they were made. One change per line (NDJSON):

  {"seq": 12, "op": "insert"|"update"|"delete", "id": "…", "data": {…}, "at": "…"}

data is the record as the change left it (for a deletion, its last bytes).
The last line's seq is the cursor to pass as --since next time; nothing is
printed when there is no change. Replaying the changes from --since 0 in
order onto an empty table gives the copy.

The store keeps a copy's changes for seven days: a cursor older than that
fails (exit status 1, "change cursor expired"): read the copy again
('tributary search … --all'), then follow the feed from a cursor taken
before that read.

` + storeHelp + `

` + exitHelp,
		Example: `  tributary sync zendesk-support tickets --sandbox --store tributary.db
  tributary changes zendesk-support tickets --store tributary.db --since 0 > changes.ndjson
  tributary changes zendesk-support tickets --store tributary.db --since 250 --page-size 100`,
		Args:              exactArgs(2),
		ValidArgsFunction: completeTypeEntity(func(e tributary.Entity) bool { return e.Supports(tributary.ActionSearch) }),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			kind, entity := args[0], args[1]
			es, err := kinds.Catalogue(kind)
			if err != nil {
				return err
			}
			if err := checkCopy(kind, es, entity, ""); err != nil {
				return err
			}
			if since < 0 {
				return usageErr(cmd, "--since must be a change's seq (0 or more), got %d", since)
			}
			// No action: reading the feed is not one of the contract's.
			op := operation{kind: kind, entities: es, entity: entity}
			return a.withCopy(cmd, storeFlag, name, op, func(ctx context.Context, _ *store.Store, r *replica.Replica, _ string) error {
				out := bufio.NewWriter(a.stdout)
				enc := json.NewEncoder(out)
				enc.SetEscapeHTML(false)
				cursor := since
				for {
					page, err := r.Changes(ctx, entity, cursor, limit)
					if err != nil {
						return err
					}
					for _, c := range page.Changes {
						if err := enc.Encode(c); err != nil {
							return err
						}
					}
					cursor = page.Next
					if !page.More {
						break
					}
				}
				return out.Flush()
			})
		}),
	}
	fs := cmd.Flags()
	fs.StringVar(&storeFlag, "store", "", "the store: a SQLite file, or a postgres:// URL (default $"+envStore+")")
	fs.StringVar(&name, "name", "", "the connector name the copies were synchronized under (default: the type)")
	fs.Int64Var(&since, "since", 0, "print the changes after this cursor (a change's seq; 0: from the start)")
	fs.IntVar(&limit, "page-size", 1000, "how many changes to read from the store at a time")
	return cmd
}
