package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
)

func (a *app) searchCmd() *cobra.Command {
	var (
		conn   connFlags
		pf     paramFlags
		query  string
		limit  int
		cursor string
		fields []string
		all    bool
		sync   bool

		storeFlag string
		name      string
		deleted   bool
	)
	cmd := &cobra.Command{
		Use:   "search <type> <entity>",
		Short: "Search an entity with the common filter language (a store, hosted, or a local replica)",
		Long: `search runs the search action: a filter and sort over a synchronized copy of
the source's data, in the same language for every kind. With --store it
searches the durable copy 'tributary sync' keeps there, without reading the
source (no credentials needed; --name as given to sync). In hosted mode the
service holds the copy. In direct mode and with --sandbox, --sync first walks
every page of the entity into a local, in-memory replica (-p and --params are
then the list params of that walk, e.g. a Salesforce SOQL query; without them,
the entity's copy scope where 'describe' shows one) and searches it.

--query is the query object {"filter": ..., "sort": [...]} (or a whole search
request {"query": ..., "limit": ..., "fields": [...]}); without it every
record matches. Operators: eq, neq, gt, gte, lt, lte, in, like, fuzzy,
keyword, contains, any, not, and, or. 'tributary describe <type> <entity>'
lists the searchable fields.

The result is {"hits": [{"id", "score", "data"}], "next_cursor", "took_ms"};
with --all, one hit per line (NDJSON) over every page. With --store,
--deleted searches the records deleted at the source (tombstones) too, and
every hit then has "deleted": true (a tombstone) or false (a live record).

` + storeHelp + `

` + exitHelp,
		Example: `  tributary sync zendesk-support tickets --sandbox --store tributary.db
  tributary search zendesk-support tickets --store tributary.db \
    --query '{"filter": {"fuzzy": {"subject": "pasword reset"}}}' --limit 5 --fields id,subject

  tributary search zendesk-support tickets --sandbox --sync \
    --query '{"filter": {"eq": {"status": "open"}}, "sort": [{"created_at": "desc"}]}' --limit 5 --fields id,subject

  tributary search zendesk-support tickets --sandbox --sync --all \
    --query '{"filter": {"keyword": {"subject": "printer"}}}' | wc -l

  tributary search salesforce accounts --sandbox --sync -p q='SELECT Id, Name, Industry FROM Account' \
    --query '{"filter": {"eq": {"Industry": "Energy"}}}'

  tributary search zendesk-support tickets --hosted https://api.example.com --connector-id conn_123 \
    --query '{"filter": {"gte": {"created_at": "2024-01-01T00:00:00Z"}}}'`,
		Args:              exactArgs(2),
		ValidArgsFunction: completeTypeEntity(func(e tributary.Entity) bool { return e.Supports(tributary.ActionSearch) }),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			kind, entity := args[0], args[1]
			es, err := kinds.Catalogue(kind)
			if err != nil {
				return err
			}
			if err := checkCopy(kind, es, entity, tributary.ActionSearch); err != nil {
				return err
			}
			op := operation{kind: kind, entities: es, entity: entity, action: tributary.ActionSearch}
			if cmd.Flags().Changed("limit") && limit < 1 {
				// The contract's rule, the same as the limit param's: a
				// page holds 1 to 2147483647 hits, 1000 when none is given.
				return usageErr(cmd, "--limit %d: the most hits per page is at least 1 (leave --limit out for the default, %d; --all follows every page)", limit, search.DefaultLimit)
			}
			params, err := a.searchParams(op, query, limit, cursor, fields)
			if err != nil {
				return err
			}
			if storeFlag != "" || (a.env(envStore) != "" && !sync && conn.hosted == "") {
				if sync || conn.hosted != "" {
					return usageErr(cmd, "--store searches the copy 'tributary sync' keeps; it does not go with --sync or --hosted")
				}
				if conn.sandbox || conn.credentials != "" || conn.baseURL != "" {
					return usageErr(cmd, "--store searches the copy 'tributary sync' keeps, without reading the source: drop --sandbox, --credentials and --base-url")
				}
				if pf.json != "" || len(pf.pairs) > 0 {
					return usageErr(cmd, "-p and --params are the list params of a sync; a search of --store takes --query")
				}
				return a.searchStore(cmd, storeFlag, name, op, params, all, deleted)
			}
			if deleted {
				return usageErr(cmd, "--deleted searches the tombstones of a store's copy: it goes with --store")
			}
			if name != "" {
				return usageErr(cmd, "--name names the copies of a store: it goes with --store")
			}
			if conn.hosted != "" && sync {
				return usageErr(cmd, "--sync builds a local replica; in hosted mode the service searches its own copy")
			}
			if conn.hosted == "" && !sync {
				return usageErr(cmd, "search needs a synchronized copy: add --sync to walk %s into a local replica first, --store to search a store 'tributary sync' filled, or use --hosted", entity)
			}
			if conn.hosted != "" && (pf.json != "" || len(pf.pairs) > 0) {
				return usageErr(cmd, "-p and --params are the list params of --sync, which hosted mode does not use")
			}
			listOp := operation{kind: kind, entities: es, entity: entity, action: tributary.ActionList}
			listParams, err := a.params(listOp, pf)
			if err != nil {
				return err
			}
			s, err := a.open(cmd, &conn, kind)
			if err != nil {
				return err
			}
			defer s.close()
			ctx := cmd.Context()
			c := s.conn
			if sync {
				r := replica.New(s.conn, replica.WithParams(entity, listParams))
				m := a.recordMeter("syncing "+entity, "records", false, false)
				s.counter.set(m.page)
				_, err := r.Sync(ctx, entity)
				s.counter.set(nil)
				m.setCount(r.Len(entity))
				m.done()
				if err != nil {
					if ctx.Err() != nil && errors.Is(err, context.Canceled) {
						return &interrupted{done: "nothing written", err: err}
					}
					return err
				}
				c = r.Connector()
			}
			return a.runSearch(ctx, c, op, params, all, nil)
		}),
	}
	conn.add(cmd, true)
	addParamFlags(cmd, &pf)
	fs := cmd.Flags()
	fs.StringVar(&query, "query", "", `the query object {"filter": ..., "sort": ...} or a whole search request, as JSON (- reads stdin, @file a file)`)
	fs.IntVar(&limit, "limit", 0, "at most this many hits per page, at least 1 (default 1000; --all follows every page)")
	fs.StringVar(&cursor, "cursor", "", "continue from a previous result's next_cursor")
	fs.StringSliceVar(&fields, "fields", nil, "return only these fields of each record (comma-separated dot paths)")
	fs.BoolVar(&all, "all", false, "follow next_cursor over every page and print one hit per line (NDJSON)")
	fs.BoolVar(&sync, "sync", false, "direct mode: walk the entity into a local replica first, then search it")
	fs.StringVar(&storeFlag, "store", "", "search the durable copy in this store (a SQLite file, or a postgres:// URL; default $"+envStore+" unless --sync or --hosted)")
	fs.StringVar(&name, "name", "", "with --store: the connector name the copies were synchronized under (default: the type)")
	fs.BoolVar(&deleted, "deleted", false, `with --store: include the records deleted at the source, each hit marked "deleted": true or false`)
	return cmd
}

// searchStore runs the search over the copy of the entity in a store.
func (a *app) searchStore(cmd *cobra.Command, storeFlag, name string, op operation, params tributary.Params, all, deleted bool) error {
	return a.withCopy(cmd, storeFlag, name, op, func(ctx context.Context, st *store.Store, r *replica.Replica, name string) error {
		var c tributary.Connector = r.Connector()
		var mark marker
		if deleted {
			c = &tombstoneSearcher{Connector: r.Connector(), st: st, name: name}
			mark = func(ctx context.Context, hits []search.Hit) (map[string]bool, error) {
				ids := make([]string, len(hits))
				for i, h := range hits {
					ids[i] = h.ID
				}
				return st.Tombstones(ctx, name, op.entity, ids)
			}
		}
		return a.runSearch(ctx, c, op, params, all, mark)
	})
}

// searchParams builds the params of a search action from the flags.
func (a *app) searchParams(op operation, query string, limit int, cursor string, fields []string) (tributary.Params, error) {
	p := tributary.Params{}
	if query != "" {
		b, err := a.readArg("--query", query)
		if err != nil {
			return nil, op.paramError("query", "%v", err)
		}
		var m map[string]any
		if err := decodeJSON(string(b), &m); err != nil || m == nil {
			msg := "not a JSON object"
			if err != nil {
				msg = err.Error()
			}
			return nil, op.paramError("query", "--query: %s", msg)
		}
		if _, whole := m["query"]; whole {
			p = m
		} else {
			p["query"] = m
		}
	}
	if _, ok := p["query"]; !ok {
		p["query"] = map[string]any{}
	}
	if limit != 0 {
		p["limit"] = int64(limit)
	}
	if cursor != "" {
		p["cursor"] = cursor
	}
	if len(fields) > 0 {
		fs := make([]any, len(fields))
		for i, f := range fields {
			fs[i] = f
		}
		p["fields"] = fs
	}
	return p, nil
}

// tombstoneSearcher is a replica's connector over a store whose searches
// include the tombstones (store.SearchOptions.Deleted).
type tombstoneSearcher struct {
	*replica.Connector
	st   *store.Store
	name string // the copies' connector name
}

// Search implements tributary.Searcher: the request is checked against the
// catalogue as the replica checks it, and an invalid one is the same
// error.
func (c *tombstoneSearcher) Search(ctx context.Context, entity string, q search.Request) (*search.Result, error) {
	if err := tributary.ValidateSearch(c.Type(), c.Entities(), entity, q); err != nil {
		return nil, err
	}
	res, err := c.st.SearchWith(ctx, c.name, entity, q, store.SearchOptions{Deleted: true})
	var se *search.Error
	if errors.As(err, &se) {
		return nil, &tributary.Error{Kind: c.Type(), Entity: entity, Action: tributary.ActionSearch, Param: se.Field,
			Err: tributary.ErrInvalidParams, Message: err.Error(), Cause: err}
	}
	return res, err
}

// marker says which of a page's hits are tombstones.
type marker func(ctx context.Context, hits []search.Hit) (map[string]bool, error)

// markedHit is a hit of search --deleted.
type markedHit struct {
	search.Hit
	Deleted bool `json:"deleted"`
}

// markedResult is a page of search --deleted.
type markedResult struct {
	Hits       []markedHit `json:"hits"`
	NextCursor *string     `json:"next_cursor"`
	TookMS     float64     `json:"took_ms"`
}

// markHits returns the hits of res, each marked deleted or not.
func markHits(ctx context.Context, mark marker, res *search.Result) ([]markedHit, error) {
	dead, err := mark(ctx, res.Hits)
	if err != nil {
		return nil, err
	}
	out := make([]markedHit, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = markedHit{Hit: h, Deleted: dead[h.ID]}
	}
	return out, nil
}

// runSearch runs the search and prints the result, or with all every hit
// of every page as NDJSON. With mark, every hit says whether it is a
// tombstone.
func (a *app) runSearch(ctx context.Context, c tributary.Connector, op operation, params tributary.Params, all bool, mark marker) error {
	req := tributary.Request{Entity: op.entity, Action: tributary.ActionSearch, Params: params}
	if !all {
		res, err := tributary.Execute(ctx, c, req)
		if err != nil {
			return err
		}
		if mark != nil {
			hits, err := markHits(ctx, mark, res.Search)
			if err != nil {
				return err
			}
			return writeJSON(a.stdout, markedResult{Hits: hits, NextCursor: res.Search.NextCursor, TookMS: res.Search.TookMS})
		}
		return writeJSON(a.stdout, res.Search)
	}
	out := newNDJSON(a.stdout)
	m := a.recordMeter("searching "+op.entity, "hits", true, true)
	err := func() error {
		for {
			res, err := tributary.Execute(ctx, c, req)
			if err != nil {
				return err
			}
			m.page()
			hits := make([]any, len(res.Search.Hits))
			for i, h := range res.Search.Hits {
				hits[i] = h
			}
			if mark != nil {
				marked, err := markHits(ctx, mark, res.Search)
				if err != nil {
					return err
				}
				for i, h := range marked {
					hits[i] = h
				}
			}
			for _, h := range hits {
				b, err := json.Marshal(h)
				if err != nil {
					return err
				}
				if err := out.write(b); err != nil {
					return err
				}
				m.add(1)
			}
			if !res.Search.HasMore() {
				return nil
			}
			if cur, _ := req.Params["cursor"].(string); cur == *res.Search.NextCursor {
				return &tributary.Error{Kind: op.kind, Entity: op.entity, Action: op.action, Err: tributary.ErrPaging,
					Message: "the search answered the same next_cursor twice"}
			}
			req.Params = req.Params.Clone()
			req.Params["cursor"] = *res.Search.NextCursor
		}
	}()
	if ferr := out.close(); err == nil {
		err = ferr
	}
	m.done()
	if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return &interrupted{done: fmt.Sprintf("%d hits written, each on a whole line", out.n), err: err}
	}
	return err
}
