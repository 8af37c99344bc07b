package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/pagination"
	"github.com/tributary-dev/tributary/replica"
)

func (a *app) execCmd() *cobra.Command {
	var (
		conn connFlags
		pf   paramFlags
		all  bool
	)
	cmd := &cobra.Command{
		Use:   "exec <type> <entity> <action>",
		Short: "Run one operation (list, get, api_search, search, download)",
		Long: `exec runs one operation {entity, action, params} and prints its result as
JSON on stdout: for list and api_search the page's records, meta and next
(the params of the following page, null on the last); for get the record
(in records); for search the hits; for download the file's bytes.

Params come from --params (a JSON object; - reads stdin, @file a file) and
from repeated -p key=value, applied on top. A dotted key sets a member of a
nested object (-p filter.callIds=1,2). Values are typed by the catalogue:
integers (digits), numbers and booleans (true, false) are parsed, arrays
split on commas (or given as a JSON array), objects read as JSON; in --params
an integer or boolean may be a string that spells one ("35436", "true").
'tributary describe <type> <entity>' lists the parameters.

With --all, list and api_search walk every page from the params on and print
one record per line (NDJSON) as they go, in constant memory; search walks
every page of hits. Ctrl-C stops cleanly after the last whole line.

` + exitHelp,
		Example: `  tributary exec zendesk-support tickets list --sandbox -p per_page=5
  tributary exec zendesk-support tickets get --sandbox -p ticket_id=35436
  tributary exec zendesk-support tickets list --sandbox --all > tickets.ndjson
  tributary exec gong calls_extensive list --sandbox -p filter.fromDateTime=2024-01-01T00:00:00Z
  tributary exec salesforce accounts list --sandbox --params '{"q": "SELECT Id, Name FROM Account"}'

  # the next page, from the previous page's next
  tributary exec zendesk-support tickets list --sandbox -p per_page=5 | jq .next \
    | tributary exec zendesk-support tickets list --sandbox --params -

  # with your credentials, from the environment
  export TRIBUTARY_ZENDESK_SUPPORT_SUBDOMAIN=acme TRIBUTARY_ZENDESK_SUPPORT_EMAIL=agent@acme.com
  export TRIBUTARY_ZENDESK_SUPPORT_API_TOKEN=...
  tributary exec zendesk-support users list -p role=agent --all`,
		Args:              exactArgs(3),
		ValidArgsFunction: completeTypeEntity(nil),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			kind, entity, action := args[0], args[1], tributary.Action(args[2])
			es, err := kinds.Catalogue(kind)
			if err != nil {
				return err
			}
			if _, err := checkOperation(kind, es, entity, action); err != nil {
				return err
			}
			op := operation{kind: kind, entities: es, entity: entity, action: action}
			params, err := a.params(op, pf)
			if err != nil {
				return err
			}
			if all && action != tributary.ActionList && action != tributary.ActionAPISearch && action != tributary.ActionSearch {
				return usageErr(cmd, "--all walks the pages of list, api_search and search, not %s", action)
			}
			if action == tributary.ActionSearch && conn.hosted == "" {
				return usageErr(cmd, "search runs in hosted mode (--hosted) or over a local replica: use 'tributary search %s %s --sync'", kind, entity)
			}
			s, err := a.open(cmd, &conn, kind)
			if err != nil {
				return err
			}
			defer s.close()
			ctx := cmd.Context()
			switch {
			case action == tributary.ActionDownload:
				return a.download(ctx, s, op, params, downloadTarget{})
			case action == tributary.ActionSearch:
				return a.runSearch(ctx, s.conn, op, params, all, nil)
			case all:
				return a.walk(ctx, s, op, params)
			}
			res, err := tributary.Execute(ctx, s.conn, tributary.Request{Entity: entity, Action: action, Params: params})
			if err != nil {
				return err
			}
			out := pageOutput{Records: res.Records, Meta: res.Meta, Next: res.Next}
			if out.Records == nil {
				out.Records = []tributary.Record{}
			}
			if out.Meta == nil {
				out.Meta = map[string]any{}
			}
			return writeJSON(a.stdout, out)
		}),
	}
	conn.add(cmd, true)
	addParamFlags(cmd, &pf)
	cmd.Flags().BoolVar(&all, "all", false, "walk every page and print one record per line (NDJSON)")
	return cmd
}

// addParamFlags registers --params and -p.
func addParamFlags(cmd *cobra.Command, pf *paramFlags) {
	cmd.Flags().StringVar(&pf.json, "params", "", "the params as a JSON object (- reads stdin, @file reads a file)")
	cmd.Flags().StringArrayVarP(&pf.pairs, "param", "p", nil, "a parameter as key=value, typed by the catalogue; repeat for more")
	_ = cmd.RegisterFlagCompletionFunc("param", completeParam)
}

// exactArgs is cobra.ExactArgs with the arguments named in the error.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErr(cmd, "%s takes %d arguments (%s), got %d", cmd.Name(), n, cmd.Use[len(cmd.Name())+1:], len(args))
		}
		return nil
	}
}

// checkOperation checks entity and action against the catalogue before
// anything is opened, with the library's own error.
func checkOperation(kind string, es []tributary.Entity, entity string, action tributary.Action) (tributary.Entity, error) {
	e, ok := tributary.FindEntity(es, entity)
	if !ok || !e.Supports(action) {
		_, err := tributary.Validate(kind, es, entity, action, nil)
		if err == nil {
			err = &tributary.Error{Kind: kind, Entity: entity, Action: action, Err: tributary.ErrUnsupportedAction}
		}
		return e, err
	}
	return e, nil
}

// checkCopy checks, before anything is opened, that entity can have a copy
// (replica.CheckCopy), for the commands that read or make one (sync,
// search, changes); an entity that cannot is told how to read it
// instead. a is the action the error names ("" for none).
func checkCopy(kind string, es []tributary.Entity, entity string, a tributary.Action) error {
	err := replica.CheckCopy(kind, es, entity, a)
	var te *tributary.Error
	if !errors.Is(err, replica.ErrNoCopy) || !errors.As(err, &te) {
		return err
	}
	how := "read it with 'tributary exec " + kind + " " + entity + " list --all'"
	var le *tributary.Error
	if _, err := tributary.Validate(kind, es, entity, tributary.ActionList, nil); errors.As(err, &le) && errors.Is(err, tributary.ErrUnsupportedAction) {
		how = le.Message // it cannot be listed: "attachments offers get, download"
	}
	te.Message += "; " + how
	return te
}

// walk prints every record of every page as NDJSON: list through
// tributary.All (the kind's best walk), api_search through a pager over
// Next (which stops on a page that does not advance).
func (a *app) walk(ctx context.Context, s *session, op operation, params tributary.Params) error {
	m := a.recordMeter(op.entity, "records", true, true)
	s.counter.set(m.page)
	out := newNDJSON(a.stdout)
	records := tributary.All(ctx, s.conn, op.entity, params)
	if op.action == tributary.ActionAPISearch {
		records = pagination.New(map[string]any(params), func(ctx context.Context, p map[string]any) (*pagination.Page[tributary.Record], error) {
			page, err := s.conn.APISearch(ctx, op.entity, p)
			if err != nil {
				return nil, err
			}
			return &pagination.Page[tributary.Record]{Items: page.Records, Meta: page.Meta, Next: page.Next}, nil
		}).All(ctx)
	}
	var err error
	for rec, rerr := range records {
		if err = rerr; err == nil {
			err = out.write(rec.Raw())
		}
		if err != nil {
			break
		}
		m.add(1)
	}
	if ferr := out.close(); err == nil {
		err = ferr
	}
	m.done()
	if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return &interrupted{done: fmt.Sprintf("%d records written, each on a whole line", out.n), err: err}
	}
	return err
}
