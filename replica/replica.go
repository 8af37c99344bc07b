// Package replica gives direct mode the contract's `search` action: it
// synchronizes chosen entities of a connector into memory, walking every
// page through the connector's own paging, and searches them with the
// common filter language of package search.
//
//	r := replica.New(conn)
//	if _, err := r.Sync(ctx, "tickets", "users"); err != nil { ... }
//	c := r.Connector() // conn, plus Search: tributary.Execute runs "search"
//	res, err := tributary.Execute(ctx, c, tributary.Request{Entity: "tickets", Action: "search",
//		Params: tributary.Params{"query": map[string]any{"filter": map[string]any{"eq": map[string]any{"status": "open"}}}}})
//
// Synchronization is explicit (Sync) and safe while searches run: each
// entity's copy is replaced at once when its walk has finished, so a search
// sees the old copy or the new one, never a mix. A walk that fails leaves
// the old copy in place.
//
// A durable replica's copies can be kept current by Workers instead of
// explicit Syncs: each worker claims the most overdue copy registered in
// the store (store.Register), syncs it under the claim (SyncClaimed) and
// goes on; several workers, in one process or many on one database,
// share the copies, and a dead worker's copies are taken over once its
// claims lapse.
package replica

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
)

// Replica is an in-memory, searchable copy of entities of one connector.
// It is safe for concurrent use.
type Replica struct {
	conn    tributary.Connector
	params  map[string]tributary.Params
	config  map[string]any // replication_config, for copy scopes
	idField map[string]string
	auto    bool

	syncMu sync.Mutex // one synchronization at a time
	mu     sync.RWMutex
	copies map[string]*atomic.Pointer[copyOf]

	// Durable replicas (Open) keep their copies in st, under name.
	st     *store.Store
	ownsSt bool
	name   string
	batch  int

	noFeeds   bool
	reconcile time.Duration
	progress  func(Progress)
}

// copyOf is one synchronized copy of an entity.
type copyOf struct {
	index  *search.Index
	synced time.Time
}

// Option configures a Replica.
type Option func(*Replica)

// WithParams sets the list params used to walk entity, and to read its
// change feed (for example a SOQL query of a Salesforce entity, or the
// owner and repo of GitHub issues). Without them, or with none (an empty
// p), an entity whose catalogue row has a copy scope (tributary.Scope) is
// walked with the scope's params: every Salesforce record with every
// searchable field. Params that give the parent of an entity copied one
// part per parent record (ticket_id of a ticket's comments) are set on
// its records, as that copy sets them, so a search can filter on them.
func WithParams(entity string, p tributary.Params) Option {
	return func(r *Replica) { r.params[entity] = p }
}

// WithIDField names the record field that is a hit's id (default: "id",
// else "Id", else the first searchable field).
func WithIDField(entity, field string) Option {
	return func(r *Replica) { r.idField[entity] = field }
}

// WithAutoSync makes Search synchronize an entity on its first search
// instead of refusing it (the hosted test service uses this).
func WithAutoSync() Option { return func(r *Replica) { r.auto = true } }

// WithName sets the name under which a durable replica keeps its copies
// in the store (default: the connector's type), so that two accounts of
// one kind can share a store.
func WithName(name string) Option { return func(r *Replica) { r.name = name } }

// WithBatch sets how many records a durable replica writes in one
// transaction while it synchronizes (default 500).
func WithBatch(n int) Option {
	return func(r *Replica) {
		if n > 0 {
			r.batch = n
		}
	}
}

// New returns an empty in-memory replica of conn: quick to set up, gone
// when the process exits, and bounded by memory (about 7.5 KB a Zendesk
// ticket). For a copy that lasts, use Open.
func New(conn tributary.Connector, opts ...Option) *Replica {
	r := &Replica{conn: conn, params: map[string]tributary.Params{}, idField: map[string]string{}, copies: map[string]*atomic.Pointer[copyOf]{}, batch: 500, reconcile: DefaultReconcile}
	for _, o := range opts {
		o(r)
	}
	if r.name == "" {
		r.name = conn.Type()
	}
	return r
}

// Backend is where a durable replica keeps its copies: SQLite, PostgreSQL,
// or a store the caller opened.
type Backend struct {
	open func(ctx context.Context) (st *store.Store, owned bool, err error)
}

// SQLite keeps the copies in the SQLite file at path (created if needed).
func SQLite(path string) Backend {
	return Backend{open: func(ctx context.Context) (*store.Store, bool, error) {
		st, err := store.OpenSQLite(ctx, path)
		return st, true, err
	}}
}

// Postgres keeps the copies in the PostgreSQL database at dsn
// (postgres://user:password@host:port/db), which many processes can
// share.
func Postgres(dsn string) Backend {
	return Backend{open: func(ctx context.Context) (*store.Store, bool, error) {
		st, err := store.OpenPostgres(ctx, dsn)
		return st, true, err
	}}
}

// Store keeps the copies in st, which the caller opened and closes.
func Store(st *store.Store) Backend {
	return Backend{open: func(context.Context) (*store.Store, bool, error) { return st, false, nil }}
}

// Open returns a durable replica of conn: its copies live in the backend,
// survive restarts and crashes, and are searched there without loading
// them into memory. Close it when done.
//
//	r, err := replica.Open(ctx, conn, replica.SQLite("tickets.db"))
func Open(ctx context.Context, conn tributary.Connector, b Backend, opts ...Option) (*Replica, error) {
	if b.open == nil {
		return nil, errors.New("replica: no backend (use replica.SQLite, replica.Postgres or replica.Store)")
	}
	st, owned, err := b.open(ctx)
	if err != nil {
		return nil, err
	}
	r := New(conn, opts...)
	r.st, r.ownsSt = st, owned
	return r, nil
}

// Close closes the store a durable replica opened. It does nothing for an
// in-memory replica or a store the caller passed.
func (r *Replica) Close() error {
	if r.st != nil && r.ownsSt {
		return r.st.Close()
	}
	return nil
}

// Store returns the store of a durable replica (nil in memory).
func (r *Replica) Store() *store.Store { return r.st }

// ErrNoCopy is the error of an entity that has no copy to read: one never
// synchronized, or one that cannot have any (only searchable entities are
// copied). It matches tributary.ErrUnsupportedAction too, the error type
// of the service and of --json-errors.
var ErrNoCopy error = noCopy{}

type noCopy struct{}

func (noCopy) Error() string { return "no copy" }

// Is makes ErrNoCopy match tributary.ErrUnsupportedAction.
func (noCopy) Is(target error) bool { return target == tributary.ErrUnsupportedAction }

// CheckCopy reports whether entity of a kind can have a copy: nil for a
// searchable entity; for an unknown one, the error of
// tributary.Validate (ErrUnknownEntity with the nearest names); for one
// that is not searchable, an *tributary.Error matching ErrNoCopy that
// says only searchable entities have copies and lists them. a is the
// action the error names ("" for none).
func CheckCopy(kind string, entities []tributary.Entity, entity string, a tributary.Action) error {
	e, ok := tributary.FindEntity(entities, entity)
	if !ok {
		_, err := tributary.Validate(kind, entities, entity, a, nil)
		return err
	}
	if e.Supports(tributary.ActionSearch) && len(e.Searchable) > 0 {
		return nil
	}
	var searchable []string
	for _, x := range entities {
		if x.Supports(tributary.ActionSearch) && len(x.Searchable) > 0 {
			searchable = append(searchable, x.Name)
		}
	}
	they := "none of " + kind + "'s is"
	if len(searchable) > 0 {
		they = "they are " + strings.Join(searchable, ", ")
	}
	return &tributary.Error{Kind: kind, Entity: entity, Action: a, Err: ErrNoCopy,
		Message: fmt.Sprintf("only searchable entities have copies, and %s is not one (%s)", entity, they)}
}

// schemaOf returns the searchable fields of entity as a search.Schema.
func (r *Replica) schemaOf(entity string) (search.Schema, string, error) {
	if err := CheckCopy(r.conn.Type(), r.conn.Entities(), entity, tributary.ActionSearch); err != nil {
		return nil, "", err
	}
	e, _ := tributary.FindEntity(r.conn.Entities(), entity)
	if !e.Supports(tributary.ActionList) {
		return nil, "", &tributary.Error{Kind: r.conn.Type(), Entity: entity, Action: tributary.ActionList, Err: tributary.ErrUnsupportedAction,
			Message: entity + " cannot be listed, so it cannot be synchronized"}
	}
	schema := tributary.SearchSchema(e)
	id := r.idField[entity]
	if id == "" {
		id = sourceID(e, schema)
		if p := r.planFor(e); p.inParts() && e.Scope.PartIDs {
			id = tributary.CopyIDField
			schema[id] = search.TypeString
		}
	}
	return schema, id, nil
}

// sourceID is the field that is a record's id at the source: the
// catalogue's IDField, else "id", else "Id", else the first searchable
// field.
func sourceID(e tributary.Entity, schema search.Schema) string {
	switch {
	case e.IDField != "":
		return e.IDField
	case schema["id"] != "":
		return "id"
	case schema["Id"] != "":
		return "Id"
	}
	return e.Searchable[0].Name
}

func (r *Replica) current(entity string) *copyOf {
	r.mu.RLock()
	p := r.copies[entity]
	r.mu.RUnlock()
	if p == nil {
		return nil
	}
	return p.Load()
}

// Len returns the number of records in entity's copy (0 before a Sync).
func (r *Replica) Len(entity string) int {
	if r.st != nil {
		if e, ok := r.storeStats(entity); ok {
			return int(e.Records)
		}
		return 0
	}
	if c := r.current(entity); c != nil {
		return c.index.Len()
	}
	return 0
}

// SyncedAt returns when entity's copy was last replaced.
func (r *Replica) SyncedAt(entity string) (time.Time, bool) {
	if r.st != nil {
		if e, ok := r.storeStats(entity); ok && !e.SyncedAt.IsZero() {
			return e.SyncedAt, true
		}
		return time.Time{}, false
	}
	if c := r.current(entity); c != nil {
		return c.synced, true
	}
	return time.Time{}, false
}

func (r *Replica) storeStats(entity string) (store.EntityStats, bool) {
	es, err := r.st.Entities(context.Background())
	if err != nil {
		return store.EntityStats{}, false
	}
	for _, e := range es {
		if e.Connector == r.name && e.Entity == entity {
			return e, true
		}
	}
	return store.EntityStats{}, false
}

// Search implements tributary.Searcher over entity's copy. The request is
// validated against the entity's searchable fields first.
func (r *Replica) Search(ctx context.Context, entity string, q search.Request) (*search.Result, error) {
	a := tributary.ActionSearch
	if _, _, err := r.schemaOf(entity); err != nil {
		return nil, err
	}
	if err := tributary.ValidateSearch(r.conn.Type(), r.conn.Entities(), entity, q); err != nil {
		return nil, err
	}
	if r.st != nil {
		return r.searchStore(ctx, entity, q)
	}
	c := r.current(entity)
	if c == nil && r.auto {
		if err := r.syncIfMissing(ctx, entity); err != nil {
			return nil, err
		}
		c = r.current(entity)
	}
	if c == nil {
		return nil, &tributary.Error{Kind: r.conn.Type(), Entity: entity, Action: a, Err: tributary.ErrUnsupportedAction,
			Message: fmt.Sprintf("%s is not synchronized: call Sync(ctx, %q) first", entity, entity)}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res, err := c.index.Search(q)
	if err != nil {
		e := &tributary.Error{Kind: r.conn.Type(), Entity: entity, Action: a, Err: tributary.ErrInvalidParams, Message: err.Error(), Cause: err}
		var se *search.Error
		if errors.As(err, &se) {
			e.Param = se.Field
		}
		return nil, e
	}
	return res, nil
}

func (r *Replica) searchStore(ctx context.Context, entity string, q search.Request) (*search.Result, error) {
	res, err := r.st.Search(ctx, r.name, entity, q)
	if errors.Is(err, store.ErrNotSynced) && r.auto {
		if _, err := r.Sync(ctx, entity); err != nil {
			return nil, err
		}
		res, err = r.st.Search(ctx, r.name, entity, q)
	}
	if err == nil {
		return res, nil
	}
	a := tributary.ActionSearch
	var se *search.Error
	switch {
	case errors.As(err, &se):
		return nil, &tributary.Error{Kind: r.conn.Type(), Entity: entity, Action: a, Param: se.Field, Err: tributary.ErrInvalidParams, Message: err.Error(), Cause: err}
	case errors.Is(err, store.ErrNotSynced):
		return nil, &tributary.Error{Kind: r.conn.Type(), Entity: entity, Action: a, Err: tributary.ErrUnsupportedAction,
			Message: fmt.Sprintf("%s is not synchronized: call Sync(ctx, %q) first", entity, entity), Cause: err}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return nil, &tributary.Error{Kind: r.conn.Type(), Entity: entity, Action: a, Err: ctx.Err(), Message: "search cancelled", Cause: err}
	}
	return nil, &tributary.Error{Kind: r.conn.Type(), Entity: entity, Action: a, Err: tributary.ErrServer, Message: err.Error(), Cause: err}
}

// Connector returns the replica's connector with search added: every
// other method is the underlying connector's.
func (r *Replica) Connector() *Connector { return &Connector{Connector: r.conn, replica: r} }

// Connector is a connector whose search action runs over a Replica. It
// implements tributary.Connector, tributary.Searcher and tributary.Walker.
type Connector struct {
	tributary.Connector
	replica *Replica
}

// Search implements tributary.Searcher.
func (c *Connector) Search(ctx context.Context, entity string, q search.Request) (*search.Result, error) {
	return c.replica.Search(ctx, entity, q)
}

// Walk implements tributary.Walker with the underlying connector's walk.
func (c *Connector) Walk(ctx context.Context, entity string, p tributary.Params) iter.Seq2[tributary.Record, error] {
	return tributary.All(ctx, c.Connector, entity, p)
}

// Changes returns the changes of entity's copy after cursor (0: from the
// start of its change feed), at most limit of them (≤ 0: as many as
// store.MaxChangesPage): each record inserted, updated or deleted, with
// its bytes, in the order the synchronizations made them. Pass the page's
// Next as the cursor of the next call. A cursor older than the changes
// the store keeps (store.Retention) fails with an error matching
// store.ErrCursorExpired: read the copy again (Search), then follow the
// feed from the cursor ChangeCursor returned before that read.
func (r *Replica) Changes(ctx context.Context, entity string, cursor int64, limit int) (*store.ChangePage, error) {
	if r.st == nil {
		return nil, errNoFeed(r.name, entity)
	}
	return r.st.Changes(ctx, r.name, entity, cursor, limit)
}

// ChangeCursor returns the cursor of the last change of entity's copy: a
// reader that starts from it sees every change made after the call.
func (r *Replica) ChangeCursor(ctx context.Context, entity string) (int64, error) {
	if r.st == nil {
		return 0, errNoFeed(r.name, entity)
	}
	return r.st.ChangeCursor(ctx, r.name, entity)
}

// errNoFeed: a replica in memory (New) keeps no change feed.
func errNoFeed(name, entity string) error {
	return &store.Error{Op: "changes", Connector: name, Entity: entity, Err: store.ErrInvalid, Message: "a replica in memory keeps no change feed: open it with Open, on a store"}
}
