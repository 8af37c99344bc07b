// Command replica keeps a durable copy of a source on disk and searches it.
// It synchronizes the sandbox's helpdesk tickets and users into a SQLite
// file in a temporary directory, stops the source, opens the file again as
// a later run of a program would, and searches the copy there: a filter, a
// sort, a keyword and a fuzzy search. It ends with the store's stats and
// removes the file. Everything runs offline, against the built-in fakes.
//
//	go run ./examples/replica
//
// The command-line tool does the same with 'tributary sync', 'tributary
// search --store' and 'tributary store stats'.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/sandbox"
	"github.com/tributary-dev/tributary/search"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "replica:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	dir, err := os.MkdirTemp("", "tributary-replica-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "tributary.db")

	// 1. Synchronize: every page of each entity, walked with the kind's own
	// paging, into the file. Each entity's copy replaces the previous one
	// at once when its walk has finished.
	sb := sandbox.New()
	defer sb.Close()
	conn, err := sb.Open("zendesk-support")
	if err != nil {
		return err
	}
	r, err := replica.Open(ctx, conn, replica.SQLite(path))
	if err != nil {
		return err
	}
	start := time.Now()
	if _, err := r.Sync(ctx, "tickets", "users"); err != nil {
		r.Close()
		return err
	}
	fmt.Fprintf(out, "== synchronized into %s in %s\n", filepath.Base(path), time.Since(start).Round(time.Millisecond))
	for _, e := range []string{"tickets", "users"} {
		fmt.Fprintf(out, "%s: %d records\n", e, r.Len(e))
	}
	if err := r.Close(); err != nil {
		return err
	}

	// 2. Later, and with the source gone: open the file again. Searches run
	// in the store; nothing is read from the source.
	sb.Close()
	r, err = replica.Open(ctx, conn, replica.SQLite(path))
	if err != nil {
		return err
	}
	defer r.Close()
	fields := []search.Path{{"id"}, {"status"}, {"priority"}, {"subject"}}

	searches := []struct {
		title string
		req   search.Request
	}{
		{"open tickets (a filter)", search.Request{
			Query: search.Query{Filter: search.Eq("status", "open").Ptr()}, Limit: 3, Fields: fields}},
		{"urgent or high, most recently updated first (a sort)", search.Request{
			Query: search.Query{Filter: search.In("priority", "urgent", "high").Ptr(), Sort: []search.SortItem{search.Desc("updated_at")}},
			Limit: 3, Fields: fields}},
		{`subject has the word "refund" (a keyword search)`, search.Request{
			Query: search.Query{Filter: search.Keyword("subject", "refund").Ptr()}, Limit: 3, Fields: fields}},
		{`subject like "pasword reset", typo and all (a fuzzy search)`, search.Request{
			Query: search.Query{Filter: search.Fuzzy("subject", "pasword reset").Ptr()}, Limit: 3, Fields: fields}},
	}
	for _, s := range searches {
		res, err := r.Search(ctx, "tickets", s.req)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "== %s: %d hits in %.1f ms", s.title, len(res.Hits), res.TookMS)
		if res.HasMore() {
			fmt.Fprint(out, ", more on the next page")
		}
		fmt.Fprintln(out)
		for _, h := range res.Hits {
			var t struct {
				Status, Priority, Subject string
			}
			if err := json.Unmarshal(h.Data, &t); err != nil {
				return err
			}
			if t.Priority == "" {
				t.Priority = "-"
			}
			fmt.Fprintf(out, "  #%s  %-7s %-7s score %.2f  %s\n", h.ID, t.Status, t.Priority, h.Score, t.Subject)
		}
	}

	// 3. What the store holds.
	st, err := r.Store().Stats(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "== store: %s, schema version %d, %d KiB\n", st.Backend, st.SchemaVersion, st.SizeBytes/1024)
	for _, e := range st.Entities {
		fmt.Fprintf(out, "%s/%s: %d records, %d deleted, synchronized %s\n", e.Connector, e.Entity, e.Records, e.Deleted, e.SyncedAt.Format(time.RFC3339))
	}
	return nil
}
