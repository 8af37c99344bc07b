package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/download"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/replica"
	"github.com/tributary-dev/tributary/store"
)

// envStore is the default of --store.
const envStore = "TRIBUTARY_STORE"

// storeHelp explains --store, in the help of every command that takes it.
const storeHelp = `--store is where the durable copies live: a file path is a SQLite store (one
file, created by the first sync), a postgres:// or postgresql:// URL a
PostgreSQL database that many processes can share. It defaults to
$` + envStore + `. A PostgreSQL password is better left out of the URL:
PGPASSWORD and ~/.pgpass are read too. The password is never printed.`

// storeTarget is a resolved --store value.
type storeTarget struct {
	raw      string // as given: a PostgreSQL URL may hold a password, never print it
	postgres bool
	name     string // what messages show: the file, or the URL without its password
	// existing says the store must exist already: it is opened without
	// creating a file or tables.
	existing bool
	// kind is the command's kind argument, if it names one: the kind the
	// hints' sync commands name.
	kind string
}

// urlScheme matches a value that starts with a URL scheme.
var urlScheme = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*)://`)

// storeTarget resolves --store (flag, else $TRIBUTARY_STORE). existing
// says the store must already exist: commands that only read a store do
// not create an empty SQLite file for a mistyped path.
func (a *app) storeTarget(cmd *cobra.Command, flag string, existing bool) (storeTarget, error) {
	v := flag
	if v == "" {
		v = a.env(envStore)
	}
	if v == "" {
		return storeTarget{}, usageErr(cmd, "%s needs --store FILE (SQLite) or --store postgres://… (or $%s)", cmd.Name(), envStore)
	}
	kind := ""
	if args := cmd.Flags().Args(); len(args) > 0 {
		if _, err := kinds.Catalogue(args[0]); err == nil {
			kind = args[0]
		}
	}
	if m := urlScheme.FindStringSubmatch(v); m != nil {
		switch strings.ToLower(m[1]) {
		case "postgres", "postgresql":
			return storeTarget{raw: v, postgres: true, name: redactURL(v), existing: existing, kind: kind}, nil
		}
		return storeTarget{}, usageErr(cmd, "--store: a %s:// URL is not a store: give a file path (SQLite) or a postgres:// URL", m[1])
	}
	if existing {
		fi, err := os.Stat(v)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return storeTarget{}, usageErr(cmd, "--store %s: no such file: %s creates the store", v, syncHint(kind, "", v, ""))
		case err != nil:
			return storeTarget{}, fmt.Errorf("--store: %w", err)
		case fi.IsDir():
			return storeTarget{}, usageErr(cmd, "--store %s is a directory, not a store file", v)
		}
	}
	return storeTarget{raw: v, name: v, existing: existing, kind: kind}, nil
}

// redactURL renders a PostgreSQL URL without its password (in the user
// part or a password= query parameter); a URL that does not parse is
// shown by its scheme only.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if m := urlScheme.FindStringSubmatch(raw); m != nil {
			return m[1] + "://…"
		}
		return "the PostgreSQL URL"
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "REDACTED")
		}
	}
	q := u.Query()
	for k := range q {
		if strings.EqualFold(k, "password") {
			q.Set(k, "REDACTED")
			u.RawQuery = q.Encode()
		}
	}
	return u.String()
}

// backend is the replica backend of the target.
func (t storeTarget) backend() replica.Backend {
	if t.postgres {
		return replica.Postgres(t.raw)
	}
	return replica.SQLite(t.raw)
}

// withExistingStore opens the existing store that --store (or
// $TRIBUTARY_STORE) names, runs f on it with the command's context, and
// closes it.
func (a *app) withExistingStore(cmd *cobra.Command, flag string, f func(ctx context.Context, t storeTarget, st *store.Store) error) error {
	t, err := a.storeTarget(cmd, flag, true)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	st, err := t.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	return f(ctx, t, st)
}

// withCopy opens the existing store and a replica of op's kind over it,
// under name (the kind's own when empty), runs f with the name used, and
// turns store.ErrNotSynced from f into an error that says which sync to
// run first.
func (a *app) withCopy(cmd *cobra.Command, storeFlag, name string, op operation, f func(ctx context.Context, st *store.Store, r *replica.Replica, name string) error) error {
	return a.withExistingStore(cmd, storeFlag, func(ctx context.Context, t storeTarget, st *store.Store) error {
		var opts []replica.Option
		hint := syncHint(op.kind, op.entity, t.name, name)
		under := ""
		if name != "" {
			opts = append(opts, replica.WithName(name))
			under = " under the name " + strconv.Quote(name)
		} else {
			name = op.kind
		}
		// The replica checks the request against the catalogue and maps
		// the store's errors to the library's, as --sync's in-memory one does.
		r, err := replica.Open(ctx, catalogueConnector{kind: op.kind, entities: op.entities}, replica.Store(st), opts...)
		if err != nil {
			return err
		}
		defer r.Close()
		err = t.damaged(f(ctx, st, r, name))
		if errors.Is(err, store.ErrNotSynced) {
			return &tributary.Error{Kind: op.kind, Entity: op.entity, Action: op.action, Err: replica.ErrNoCopy,
				Message: fmt.Sprintf("%s has none%s yet: run %s first", t.name, under, hint), Cause: err}
		}
		return err
	})
}

// open opens the store; one that must exist already is opened without
// creating a file or tables (an empty file is refused, and stays empty).
func (t storeTarget) open(ctx context.Context) (*store.Store, error) {
	var st *store.Store
	var err error
	switch {
	case t.postgres && t.existing:
		st, err = store.OpenPostgresExisting(ctx, t.raw)
	case t.postgres:
		st, err = store.OpenPostgres(ctx, t.raw)
	case t.existing:
		st, err = store.OpenSQLiteExisting(ctx, t.raw)
	default:
		st, err = store.OpenSQLite(ctx, t.raw)
	}
	return st, t.wrap(err)
}

// wrap names the store in an error of opening it.
func (t storeTarget) wrap(err error) error {
	if err == nil {
		return nil
	}
	return &storeError{store: t.name, err: err, recover: t.recoverHint()}
}

// damaged names the store in err when err says the store is damaged, so
// that its message says how to recover; other errors are returned as they
// are.
func (t storeTarget) damaged(err error) error {
	if errors.Is(err, store.ErrCorrupt) {
		return t.wrap(err)
	}
	return err
}

// recoverHint says how to recover from a damaged store: the copies are
// copies, so the store can be made again from the source.
func (t storeTarget) recoverHint() string {
	if t.postgres {
		return "drop the damaged copy ('tributary store drop CONNECTOR ENTITY --store " + shellWord(t.name) + "') and synchronize it again with " + syncHint(t.kind, "", t.name, "")
	}
	return "move the file aside ('mv " + shellWord(t.name) + " " + shellWord(t.name+".damaged") + "') and synchronize again: " + syncHint(t.kind, "", t.name, "") + " makes a new store"
}

// storeError is an error of opening or reading a store, with the store
// named (never with a password) and, when the store is damaged, how to
// recover.
type storeError struct {
	store   string
	err     error
	recover string
}

func (e *storeError) Error() string {
	msg := "--store " + e.store + ": " + e.err.Error()
	if errors.Is(e.err, store.ErrCorrupt) && e.recover != "" {
		msg += "; to recover, " + e.recover
	}
	return msg
}

func (e *storeError) Unwrap() error { return e.err }

// catalogueConnector is a kind's catalogue without a source: what a search
// of a store needs to check requests against, with no credentials and no
// network. Every read of the source fails.
type catalogueConnector struct {
	kind     string
	entities []tributary.Entity
}

func (c catalogueConnector) Type() string                 { return c.kind }
func (c catalogueConnector) Entities() []tributary.Entity { return c.entities }

func (c catalogueConnector) noSource(entity string, a tributary.Action) error {
	return &tributary.Error{Kind: c.kind, Entity: entity, Action: a, Err: tributary.ErrUnsupportedAction,
		Message: "a store answers search only; reading the source needs a connector"}
}

func (c catalogueConnector) List(_ context.Context, entity string, _ tributary.Params) (*tributary.Page, error) {
	return nil, c.noSource(entity, tributary.ActionList)
}

func (c catalogueConnector) Get(_ context.Context, entity string, _ tributary.Params) (tributary.Record, error) {
	return tributary.Record{}, c.noSource(entity, tributary.ActionGet)
}

func (c catalogueConnector) APISearch(_ context.Context, entity string, _ tributary.Params) (*tributary.Page, error) {
	return nil, c.noSource(entity, tributary.ActionAPISearch)
}

func (c catalogueConnector) Download(_ context.Context, entity string, _ tributary.Params) (*download.Stream, error) {
	return nil, c.noSource(entity, tributary.ActionDownload)
}

func (a *app) storeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "store",
		Short: "Inspect, export, drop and compact a store of durable copies ('tributary sync' fills it)",
		Long: `store inspects a store that 'tributary sync' fills: stats shows its copies,
export prints a copy's records, drop removes copies, compact gives their
space back. None of them makes a store: a --store that does not exist, or
an empty file, is refused and left as it was.

` + storeHelp,
		Example: `  tributary sync zendesk-support tickets users --sandbox --store tributary.db
  tributary store stats --store tributary.db
  tributary store stats --store tributary.db --json
  tributary store export zendesk-support tickets --store tributary.db > tickets.ndjson
  tributary store drop zendesk-support users --store tributary.db
  tributary store compact --store tributary.db`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErr(cmd, "unknown store command %q (commands: stats, export, drop, compact)", args[0])
			}
			return usageErr(cmd, "store needs a command: stats, export, drop or compact")
		},
		RunE: func(*cobra.Command, []string) error { return nil },
	}
	cmd.AddCommand(a.storeStatsCmd(), a.storeExportCmd(), a.storeDropCmd(), a.storeCompactCmd())
	return cmd
}

func (a *app) storeStatsCmd() *cobra.Command {
	var (
		storeFlag string
		asJSON    bool
	)
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Show a store's backend, size and copies",
		Long: `stats shows the store's backend, location, size and schema version, and for
each copy its connector, entity, records, deleted records (tombstones), when
its last synchronization completed, and whether one is under way (or was
left unfinished by a process that died: the next sync starts it again).

A copy whose last synchronization failed shows its failure: the class
(config or auth: workers do not try it again until the connector's
configuration or credentials change; transient: tried again after a
back-off), how many syncs in a row failed, when it is tried next, and
the error.

A table on stdout, or with --json one object:
{"backend", "location", "size_bytes", "schema_version",
 "entities": [{"connector", "entity", "records", "deleted", "synced_at",
 "syncing", "fields", "failure": null or {"class", "message", "failures",
 "failed_at", "retry_at"}}]}

` + storeHelp + `

` + exitHelp,
		Example: `  tributary sync zendesk-support tickets users --sandbox --store tributary.db
  tributary store stats --store tributary.db
  tributary store stats --store tributary.db --json | jq '.entities[] | {entity, records}'
  tributary store stats --store postgres://tributary@db.internal/tributary`,
		Args: exactArgs(0),
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			return a.withExistingStore(cmd, storeFlag, func(ctx context.Context, t storeTarget, st *store.Store) error {
				stats, err := st.Stats(ctx)
				if err != nil {
					return t.damaged(err)
				}
				if asJSON {
					return writeJSON(a.stdout, statsJSON(stats))
				}
				return writeStats(a.stdout, stats)
			})
		}),
	}
	cmd.Flags().StringVar(&storeFlag, "store", "", "the store: a SQLite file, or a postgres:// URL (default $"+envStore+")")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object instead of a table")
	return cmd
}

// statsOutput is the --json form of store stats.
type statsOutput struct {
	Backend       string              `json:"backend"`
	Location      string              `json:"location"`
	SizeBytes     int64               `json:"size_bytes"`
	SchemaVersion int                 `json:"schema_version"`
	Entities      []entityStatsOutput `json:"entities"`
}

type entityStatsOutput struct {
	Connector string     `json:"connector"`
	Entity    string     `json:"entity"`
	Records   int64      `json:"records"`
	Deleted   int64      `json:"deleted"`
	SyncedAt  *time.Time `json:"synced_at"` // null: no completed copy yet
	Syncing   bool       `json:"syncing"`
	Fields    int        `json:"fields"`
	// Failure is null when the last synchronization succeeded.
	Failure *failureOutput `json:"failure"`
}

type failureOutput struct {
	Class    string     `json:"class"`
	Message  string     `json:"message"`
	Failures int        `json:"failures"`
	FailedAt time.Time  `json:"failed_at"`
	RetryAt  *time.Time `json:"retry_at"` // null: config or auth, not retried until the connector changes
}

func statsJSON(s *store.Stats) statsOutput {
	out := statsOutput{Backend: s.Backend, Location: s.Location, SizeBytes: s.SizeBytes, SchemaVersion: s.SchemaVersion,
		Entities: []entityStatsOutput{}}
	for _, e := range s.Entities {
		eo := entityStatsOutput{Connector: e.Connector, Entity: e.Entity, Records: e.Records, Deleted: e.Deleted,
			Syncing: e.Syncing, Fields: e.Fields}
		if !e.SyncedAt.IsZero() {
			t := e.SyncedAt.UTC()
			eo.SyncedAt = &t
		}
		if f := e.Failure; f != nil {
			eo.Failure = &failureOutput{Class: string(f.Class), Message: f.Message, Failures: f.Failures, FailedAt: f.FailedAt.UTC()}
			if !f.RetryAt.IsZero() {
				t := f.RetryAt.UTC()
				eo.Failure.RetryAt = &t
			}
		}
		out.Entities = append(out.Entities, eo)
	}
	return out
}

// writeStats prints the stats as a table.
func writeStats(w io.Writer, s *store.Stats) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "backend:\t%s\n", s.Backend)
	fmt.Fprintf(tw, "location:\t%s\n", s.Location)
	fmt.Fprintf(tw, "size:\t%s\n", sizeIEC(s.SizeBytes))
	fmt.Fprintf(tw, "schema version:\t%d\n", s.SchemaVersion)
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(s.Entities) == 0 {
		_, err := fmt.Fprintf(w, "\nno copies yet: %s makes them\n", syncHint("", "", s.Location, ""))
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CONNECTOR\tENTITY\tRECORDS\tDELETED\tLAST SYNC\tSYNCING\tFAILING")
	for _, e := range s.Entities {
		synced := "never"
		if !e.SyncedAt.IsZero() {
			synced = e.SyncedAt.UTC().Format(time.RFC3339)
		}
		syncing := "no"
		if e.Syncing {
			syncing = "yes"
		}
		failing := "no"
		if f := e.Failure; f != nil {
			failing = fmt.Sprintf("%s, %d in a row, retry %s", f.Class, f.Failures, retryText(f))
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\n", e.Connector, e.Entity, e.Records, e.Deleted, synced, syncing, failing)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// The errors, which are long, below the table.
	for _, e := range s.Entities {
		if e.Failure != nil {
			if _, err := fmt.Fprintf(w, "\n%s %s failed at %s: %s\n", e.Connector, e.Entity, e.Failure.FailedAt.UTC().Format(time.RFC3339), e.Failure.Message); err != nil {
				return err
			}
		}
	}
	return nil
}

// retryText says when a failing copy is tried again.
func retryText(f *store.Failure) string {
	if f.Class.Permanent() {
		return "when the connector's configuration or credentials change"
	}
	if f.RetryAt.IsZero() {
		return "at the next sync"
	}
	return "at " + f.RetryAt.UTC().Format(time.RFC3339)
}

// syncHint is the command that fills a store with a copy, as the hints of
// the store commands print it: one that runs as shown (against the fakes,
// --sandbox), followed by how to read the caller's own account instead.
// entity and name may be empty; kind empty means an example kind.
func syncHint(kind, entity, storeName, name string) string {
	if kind == "" {
		kind = "zendesk-support"
	}
	cmd := "tributary sync " + kind
	if entity != "" {
		cmd += " " + entity
	}
	cmd += " --sandbox --store " + shellWord(storeName)
	if name != "" {
		cmd += " --name " + shellWord(name)
	}
	return "'" + cmd + "' (your account: --credentials FILE in place of --sandbox)"
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@=+,%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
