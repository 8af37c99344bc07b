package replica

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
)

// Mode is how Sync brought an entity's copy up to date.
type Mode string

const (
	// Incremental read only what changed, from the entity's change feed
	// and its checkpoint.
	Incremental Mode = "incremental"
	// Full walked every record into a new copy; records of the previous
	// copy that the walk did not see were kept as deletions.
	Full Mode = "full"
)

// DefaultReconcile is how old a durable copy's last full walk may get
// before Sync walks it in full again, for an entity whose change feed does
// not report deletions and whose source gives no count to check against.
const DefaultReconcile = 24 * time.Hour

// EntityReport says what Sync did to one entity's copy.
type EntityReport struct {
	Entity string `json:"entity"`
	// Mode is how the copy was brought up to date; Reason says why a
	// durable copy with a change feed was walked in full.
	Mode   Mode   `json:"mode"`
	Reason string `json:"reason,omitempty"`
	// Inserted records were new to the copy, Updated ones changed,
	// Unchanged ones were read again as they were (a feed's overlap, or
	// a full walk), and Deleted ones became deletions.
	Inserted  int64 `json:"inserted"`
	Updated   int64 `json:"updated"`
	Unchanged int64 `json:"unchanged"`
	Deleted   int64 `json:"deleted"`
	// Pages is the number of pages read.
	Pages int64 `json:"pages"`
	// Usage counts the requests sent for this entity, when the connector
	// counts them (tributary.Metered).
	Usage tributary.Usage `json:"usage"`
	// Since is the copy's checkpoint after the sync: changes at or after
	// it are read next time (zero without a change feed).
	Since time.Time `json:"since,omitzero"`
	// Started is when the entity's sync began, and Took how long it took:
	// it ended at Started plus Took (a worker's claim of the copy is
	// released after that, and WithReport called after the release).
	Started time.Time     `json:"started,omitzero"`
	Took    time.Duration `json:"took"`
	// Swept, when set, says what the sweep for deletions cost (see
	// tributary.Feed.Sweep): the deletions it found are among Deleted.
	Swept *Sweep `json:"swept,omitempty"`
}

// Sweep is what one sweep of a feed's ids read.
type Sweep struct {
	// Requests is the number of requests the walk of the ids sent.
	Requests int64 `json:"requests"`
	// Live is the number of ids the source still has.
	Live int64 `json:"live"`
}

// Report says what Sync did, one entity after the other.
type Report struct {
	Entities []EntityReport `json:"entities"`
}

// Progress is reported after every page a synchronization writes.
type Progress struct {
	Entity string
	Mode   Mode
	// Records and Pages read so far for the entity.
	Records, Pages int64
}

// WithProgress calls f after every page Sync writes (from Sync's
// goroutine; f must not block for long).
func WithProgress(f func(Progress)) Option { return func(r *Replica) { r.progress = f } }

// WithoutFeeds makes Sync walk every entity in full, as if no source had
// a change feed: to compare a copy with a fresh one, or to stop using a
// feed that misbehaves.
func WithoutFeeds() Option { return func(r *Replica) { r.noFeeds = true } }

// WithReconcile sets how old a copy's last full walk may get before Sync
// walks it in full again when its change feed does not report deletions
// and the source gives no count to check them by (default
// DefaultReconcile; 0 or less: never on age alone). A feed with a sweep
// (tributary.Feed.Sweep) sweeps at least this often, whatever its Every.
func WithReconcile(d time.Duration) Option { return func(r *Replica) { r.reconcile = d } }

// maxWalkRestarts is how often Sync starts an entity's walk again after
// the source expired its cursor (tributary.ErrCursorExpired).
const maxWalkRestarts = 3

// state is what a durable copy keeps as its checkpoint.
type state struct {
	// Feed is the change feed's checkpoint (nil: the copy was walked
	// without one, or is read in parts).
	Feed *tributary.Checkpoint `json:"feed,omitempty"`
	// Parts holds the checkpoint of each part's feed, by part key, for a
	// copy read in parts (tributary.Scope.Parts) whose entity has a feed.
	Parts map[string]tributary.Checkpoint `json:"parts,omitempty"`
	// Scope is what the copy covers (plan.scope); empty in copies written
	// before it was recorded.
	Scope string `json:"scope,omitempty"`
	// FullAt is when the last full walk began.
	FullAt time.Time `json:"full_at,omitzero"`
	// Parent is where the parent's change feed was read to, for a copy
	// kept current from its parent's feed (plan.parentFeed).
	Parent *tributary.Checkpoint `json:"parent,omitempty"`
	// Versions holds the Version each part was last read at, for a copy
	// read in parts without a change feed whose parts all have one.
	Versions map[string]string `json:"versions,omitempty"`
	// SweptAt is when the last sweep of the feed's ids began
	// (tributary.Feed.Sweep); a full walk counts as one.
	SweptAt time.Time `json:"swept_at,omitzero"`
}

// sweptAt is when the copy's deletions were last looked for in full: the
// later of its last sweep and its last full walk.
func (s state) sweptAt() time.Time {
	if s.SweptAt.After(s.FullAt) {
		return s.SweptAt
	}
	return s.FullAt
}

// fed reports whether the copy was written with its feed's checkpoints.
func (s state) fed(inParts bool) bool {
	if inParts {
		return s.Parts != nil
	}
	return s.Feed != nil
}

// Sync brings each entity's copy up to date, one entity after the other,
// and reports what it did. A durable copy of an entity whose source has a
// change feed (tributary.Feed) is updated incrementally from its
// checkpoint: only what changed is read, each page is written with the
// checkpoint that follows it in one transaction, and a sync that stopped
// (a crash included) resumes there. Otherwise, and the first time, the
// entity is walked in full into a new copy that replaces the old one at
// once; records the walk did not see are kept as deletions (excluded from
// search unless asked for). A feed that reports no deletions is checked
// against the count the source gives, and the entity walked in full when
// they differ. A walk that ends with tributary.ErrCursorExpired starts
// again, up to three times. The first failure stops Sync; the report
// holds the entities done before it, and the failed entity's copy is as
// the last page written left it (a full walk's: the previous copy).
func (r *Replica) Sync(ctx context.Context, entities ...string) (*Report, error) {
	return r.syncAll(ctx, false, entities)
}

// SyncFull is Sync with every entity walked in full, change feed or not.
func (r *Replica) SyncFull(ctx context.Context, entities ...string) (*Report, error) {
	return r.syncAll(ctx, true, entities)
}

func (r *Replica) syncAll(ctx context.Context, full bool, entities []string) (*Report, error) {
	r.syncMu.Lock()
	defer r.syncMu.Unlock()
	rep := &Report{}
	for _, entity := range entities {
		er, err := r.syncOne(ctx, entity, full, nil)
		if err != nil {
			return rep, err
		}
		rep.Entities = append(rep.Entities, er)
	}
	return rep, nil
}

func (r *Replica) usage() tributary.Usage {
	if m, ok := r.conn.(tributary.Metered); ok {
		return m.Usage()
	}
	return tributary.Usage{}
}

// syncOne brings entity's copy up to date; a durable copy's loads take
// lopts (store.Fenced under a claim).
func (r *Replica) syncOne(ctx context.Context, entity string, full bool, lopts []store.LoadOption) (EntityReport, error) {
	start, u0 := time.Now(), r.usage()
	rep := EntityReport{Entity: entity, Mode: Full, Started: start}
	schema, id, err := r.schemaOf(entity)
	if err != nil {
		return rep, err
	}
	if r.st != nil {
		err = r.syncStore(ctx, entity, schema, id, full, lopts, &rep)
	} else {
		err = r.syncMemory(ctx, entity, schema, id, &rep)
	}
	rep.Usage, rep.Took = r.usage().Sub(u0), time.Since(start)
	return rep, err
}

// syncMemory walks entity into a new in-memory index.
func (r *Replica) syncMemory(ctx context.Context, entity string, schema search.Schema, id string, rep *EntityReport) error {
	var b *search.Builder
	for attempt := 0; ; attempt++ {
		var err error
		if b, err = search.NewBuilder(schema, id); err != nil {
			return &tributary.Error{Kind: r.conn.Type(), Entity: entity, Action: tributary.ActionSearch, Err: tributary.ErrInvalidParams, Message: err.Error(), Cause: err}
		}
		_, err = r.walk(ctx, r.planOf(entity), func(recs [][]byte) error {
			for _, raw := range recs {
				if err := b.Add(raw); err != nil {
					return &tributary.Error{Kind: r.conn.Type(), Entity: entity, Action: tributary.ActionList, Err: tributary.ErrUnexpectedResponse,
						Message: "a record could not be indexed: " + err.Error(), Cause: err}
				}
			}
			return nil
		}, rep)
		if err == nil {
			break
		}
		// A cursor that expired at the source (Intercom's idle scroll)
		// means the walk must start again: a few times, from scratch.
		if !errors.Is(err, tributary.ErrCursorExpired) || attempt >= maxWalkRestarts || ctx.Err() != nil {
			return err
		}
	}
	c := &copyOf{index: b.Build(), synced: time.Now()}
	rep.Inserted = int64(c.index.Len()) // an in-memory copy is built anew
	r.mu.Lock()
	p, ok := r.copies[entity]
	if !ok {
		p = &atomic.Pointer[copyOf]{}
		r.copies[entity] = p
	}
	r.mu.Unlock()
	p.Store(c)
	return nil
}

// walk reads every record of entity with the connector's list, part
// after part (one part unless the entity is copied in parts), a batch at
// a time. For a copy read in parts whose parts all have a Version, it
// returns their versions by key.
func (r *Replica) walk(ctx context.Context, p plan, write func([][]byte) error, rep *EntityReport) (map[string]string, error) {
	entity := p.entity.Name
	versions := map[string]string{}
	var batch [][]byte
	var n int64
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := write(batch); err != nil {
			return err
		}
		n += int64(len(batch))
		rep.Pages++
		r.report(entity, rep.Mode, n, rep.Pages)
		batch = batch[:0]
		return nil
	}
	// Batches are read one ahead of the one being written.
	batches := ahead(ctx, func(ctx context.Context) iter.Seq2[[][]byte, error] {
		return func(yield func([][]byte, error) bool) {
			batch := make([][]byte, 0, r.batch)
			for part, err := range r.parts(ctx, p) {
				if err != nil {
					yield(nil, err)
					return
				}
				stamp := p.stamper(part)
				if versions != nil && part.Version != "" && p.inParts() {
					versions[part.Key] = part.Version
				} else {
					versions = nil // written here, read once the walk is over
				}
				for rec, err := range tributary.All(ctx, r.conn, entity, p.entity.CopyParams(part.Params)) {
					if err != nil && p.parentGone(err) {
						break
					}
					if err != nil {
						yield(nil, err)
						return
					}
					batch = append(batch, stamp(rec.Raw()))
					if len(batch) == r.batch {
						if !yield(batch, nil) {
							return
						}
						batch = make([][]byte, 0, r.batch)
					}
				}
			}
			if len(batch) > 0 {
				yield(batch, nil)
			}
		}
	})
	for b, err := range batches {
		if err != nil {
			return nil, err
		}
		batch = b
		if err := flush(); err != nil {
			return nil, err
		}
	}
	if len(versions) == 0 {
		versions = nil
	}
	return versions, nil
}

func (r *Replica) report(entity string, m Mode, records, pages int64) {
	if r.progress != nil {
		r.progress(Progress{Entity: entity, Mode: m, Records: records, Pages: pages})
	}
}

// feedOf returns entity's change feed, nil when it has none or feeds are
// not used.
func (r *Replica) feedOf(entity string) *tributary.Feed {
	if r.noFeeds {
		return nil
	}
	if _, ok := r.conn.(tributary.Changer); !ok {
		return nil
	}
	e, ok := tributary.FindEntity(r.conn.Entities(), entity)
	if !ok || e.Feed == nil || e.Feed.Params == nil {
		return nil
	}
	return e.Feed
}

// syncStore brings a durable copy up to date.
func (r *Replica) syncStore(ctx context.Context, entity string, schema search.Schema, id string, full bool, lopts []store.LoadOption, rep *EntityReport) error {
	spec := store.Spec{Connector: r.name, Entity: entity, Schema: schema, IDField: id}
	feed := r.feedOf(entity)
	p := r.planOf(entity)
	var st state
	raw, err := r.st.Checkpoint(ctx, r.name, entity)
	switch {
	case errors.Is(err, store.ErrNotSynced):
		full = true // the first time
	case err != nil:
		return err
	default:
		if raw != nil && json.Unmarshal(raw, &st) != nil {
			st = state{}
		}
		if err := r.checkScope(p, st); err != nil {
			return err
		}
	}
	if p.parentFeed != nil {
		return r.syncChildren(ctx, spec, p, st, full, lopts, rep)
	}
	if feed == nil && p.inParts() {
		return r.syncVersioned(ctx, spec, p, st, full, lopts, rep)
	}
	if !full && feed == nil {
		// No feed: every sync walks the source. A small copy read with
		// the same scope is brought up to date in place rather than
		// loaded anew (refresh).
		if st.Scope == p.scope {
			n, err := r.st.Count(ctx, r.name, entity)
			if err != nil {
				return err
			}
			if n <= refreshMax {
				err = r.refresh(ctx, spec, p, lopts, rep)
				if !errors.Is(err, store.ErrNotSynced) {
					return err
				}
				// The copy was made with other searchable fields.
				*rep = EntityReport{Entity: entity, Mode: Full, Reason: "the catalogue's searchable fields changed"}
			}
		}
		full = true
	}
	if !full && st.Scope != "" && st.Scope != p.scope {
		rep.Reason, full = "the copy was read with another scope", true
	}
	if !full && !st.fed(p.inParts()) {
		rep.Reason, full = "the copy was made without the change feed", true
	}
	if full {
		return r.restarting(ctx, func() error { return r.loadFull(ctx, spec, feed, p, lopts, rep) })
	}
	rep.Mode = Incremental
	err = r.update(ctx, spec, feed, p, st, lopts, rep)
	var gone *partsGone
	switch {
	case errors.Is(err, store.ErrNotSynced):
		// The copy was made with other searchable fields.
		*rep = EntityReport{Entity: entity, Mode: Full, Reason: "the catalogue's searchable fields changed"}
		return r.restarting(ctx, func() error { return r.loadFull(ctx, spec, feed, p, lopts, rep) })
	case errors.Is(err, tributary.ErrCursorExpired):
		// A feed of tokens whose token the source no longer accepts, or a
		// checkpoint older than the source keeps its changes
		// (Feed.Retention): the copy is walked in full again.
		reason := "the source no longer accepts the feed's token"
		if feed.Token == nil {
			reason = "the copy's checkpoint is older than the changes the source keeps"
		}
		inc := *rep
		*rep = EntityReport{Entity: entity, Mode: Full, Reason: reason}
		err = r.restarting(ctx, func() error { return r.loadFull(ctx, spec, feed, p, lopts, rep) })
		rep.Pages += inc.Pages
		return err
	case errors.As(err, &gone):
		// Parts left the scope (a repository taken out of the
		// configuration): their records are found and kept as deletions
		// by a full walk.
		inc := *rep
		*rep = EntityReport{Entity: entity, Mode: Full, Reason: gone.Error()}
		err = r.restarting(ctx, func() error { return r.loadFull(ctx, spec, feed, p, lopts, rep) })
		rep.Pages += inc.Pages
		return err
	}
	if err == nil && feed.Sweep != nil && feed.Sweep.Params != nil && !p.inParts() && r.sweepDue(feed.Sweep, st) {
		err = r.sweep(ctx, spec, feed, p, lopts, rep)
	}
	if err != nil || feed.FindsDeletions() {
		return err
	}
	// The feed reports no deletions: a copy that holds more records than
	// the source counts missed some; without a count, a full walk finds
	// them once the last one is old enough.
	var reason string
	if total, ok := r.sourceTotal(ctx, p); ok {
		have, err := r.st.Count(ctx, r.name, entity)
		if err != nil || have == total {
			return err
		}
		reason = fmt.Sprintf("the source counts %d records, the copy %d: deletions to find", total, have)
	} else if r.reconcile > 0 && time.Since(st.FullAt) > r.reconcile {
		reason = "the last full walk, which finds deletions, is older than " + r.reconcile.String()
	} else {
		return nil
	}
	inc := *rep
	*rep = EntityReport{Entity: entity, Mode: Full, Reason: reason}
	err = r.restarting(ctx, func() error { return r.loadFull(ctx, spec, feed, p, lopts, rep) })
	rep.Pages += inc.Pages
	return err
}

// refreshMax is the most records a copy of an entity without a change
// feed may hold for its syncs to refresh it in place (refresh) rather than
// load it anew: beyond, a new table written in bulk costs less than a
// comparison of every record.
const refreshMax = 5000

// refresh brings the copy of an entity without a change feed up to date
// in place: the walk's pages are applied to the live copy as an update,
// each record compared with the copy's and written only when it changed,
// then the records the walk did not return become deletions, with the
// copy's new checkpoint. An unchanged copy costs one read of its rows a
// page and a small transaction a page, where a full load creates four
// tables, copies every record, builds the indexes and swaps them: a
// fleet's many small copies without a feed are mostly that. The counts
// and the change feed are the same as a full load's. A process killed
// midway leaves some pages applied and the checkpoint as it was: the next
// sync walks again and converges.
func (r *Replica) refresh(ctx context.Context, spec store.Spec, p plan, lopts []store.LoadOption, rep *EntityReport) error {
	began := time.Now()
	x, err := search.NewExtractor(spec.Schema, spec.IDField)
	if err != nil {
		return err
	}
	u, err := r.st.BeginUpdate(ctx, spec, lopts...)
	if err != nil {
		return err
	}
	rep.Mode, rep.Pages = Full, 0
	seen := map[string]bool{}
	var e search.Extracted
	// A page read is written whole even when ctx ends meanwhile; each is
	// written once the next is read, and the last with the deletions and
	// the update's end, in one transaction (a copy of one page commits
	// once).
	wctx := context.WithoutCancel(ctx)
	var last [][]byte
	versions, err := r.walk(ctx, p, func(recs [][]byte) error {
		for _, rec := range recs {
			if x.Extract(rec, &e) == nil && e.ID != "" {
				seen[e.ID] = true
			}
		}
		if last != nil {
			if err := u.Apply(wctx, last, nil, nil); err != nil {
				return err
			}
		}
		last = slices.Clone(recs) // the walk reuses its batch
		return nil
	}, rep)
	if err != nil {
		if last != nil {
			err = errors.Join(err, u.Apply(wctx, last, nil, nil))
		}
		return err
	}
	var gone [][]byte
	if err := r.eachRecord(ctx, spec, func(h search.Hit) {
		if !seen[h.ID] {
			gone = append(gone, h.Data)
		}
	}); err != nil {
		return err
	}
	st := state{FullAt: began, Scope: p.scope, Versions: versions}
	if p.parentFeed != nil {
		st.Parent = p.parentCP.Load()
	}
	cp, _ := json.Marshal(st)
	if err := u.FinishWith(wctx, last, gone, cp); err != nil {
		return err
	}
	c := u.Counts()
	rep.Inserted, rep.Updated, rep.Unchanged, rep.Deleted = c.Inserted, c.Updated, c.Unchanged, c.Deleted
	return nil
}

// eachRecord calls fn with each live record of the copy, a thousand read
// at a time.
func (r *Replica) eachRecord(ctx context.Context, spec store.Spec, fn func(search.Hit)) error {
	req := search.Request{Limit: 1000}
	for {
		res, err := r.st.Search(ctx, spec.Connector, spec.Entity, req)
		if err != nil {
			return fmt.Errorf("replica: the records of the copy of %s: %w", spec.Entity, err)
		}
		for _, h := range res.Hits {
			fn(h)
		}
		if res.NextCursor == nil || *res.NextCursor == "" {
			return nil
		}
		req.Cursor = *res.NextCursor
	}
}

// sweepDue reports whether a copy in state st is due for a sweep: its
// last one (or full walk) is older than the sweep's Every, or than the
// replica's WithReconcile when that is shorter.
func (r *Replica) sweepDue(sw *tributary.Sweep, st state) bool {
	every := sw.Every
	if r.reconcile > 0 && (every <= 0 || r.reconcile < every) {
		every = r.reconcile
	}
	return sw.Every <= 0 || time.Since(st.sweptAt()) >= every
}

// sweep walks the ids the source still has (the feed's Sweep) and keeps
// as deletions, in one transaction with the copy's checkpoint, the records
// of the copy it did not find that changed at least Settle before the
// sweep began, by the source's clock when it runs ahead of ours: the
// latest change the feed has read.
func (r *Replica) sweep(ctx context.Context, spec store.Spec, feed *tributary.Feed, p plan, lopts []store.LoadOption, rep *EntityReport) error {
	began := time.Now()
	x, err := search.NewExtractor(spec.Schema, spec.IDField)
	if err != nil {
		return err
	}
	live := map[string]bool{}
	var e search.Extracted
	requests := r.usage()
	for rec, err := range tributary.All(ctx, r.conn, p.entity.Name, feed.Sweep.Params(maps.Clone(p.entity.CopyParams(p.params)))) {
		if err != nil {
			return fmt.Errorf("replica: the sweep of %s: %w", spec.Entity, err)
		}
		if err := x.Extract(rec.Raw(), &e); err == nil && e.ID != "" {
			live[e.ID] = true
		}
	}
	rep.Swept = &Sweep{Requests: r.usage().Sub(requests).Requests, Live: int64(len(live))}
	raw, err := r.st.Checkpoint(ctx, r.name, spec.Entity)
	if err != nil {
		return err
	}
	var st state
	if raw != nil && json.Unmarshal(raw, &st) != nil {
		st = state{}
	}
	settled := began
	if st.Feed != nil && st.Feed.Since.After(settled) {
		settled = st.Feed.Since
	}
	settled = settled.Add(-feed.Sweep.Settle)
	var gone [][]byte
	if err := r.eachRecord(ctx, spec, func(h search.Hit) {
		if live[h.ID] {
			return
		}
		if at, ok := feed.ChangedAt(tributary.NewRecord(h.Data)); ok && at.After(settled) {
			return // too recent to tell: the next sweep decides
		}
		gone = append(gone, h.Data)
	}); err != nil {
		return err
	}
	st.SweptAt = began
	cp, _ := json.Marshal(st)
	u, err := r.st.BeginUpdate(ctx, spec, lopts...)
	if err != nil {
		return err
	}
	if err := u.Apply(context.WithoutCancel(ctx), nil, gone, cp); err != nil {
		return err
	}
	if err := u.Finish(ctx); err != nil {
		return err
	}
	rep.Deleted += u.Counts().Deleted
	return nil
}

// partsGone is what update returns when parts the copy holds have left
// its scope.
type partsGone struct{ keys []string }

func (g *partsGone) Error() string {
	return fmt.Sprintf("%d parts left the copy's scope (%s)", len(g.keys), strings.Join(g.keys[:min(3, len(g.keys))], ", "))
}

// sourceTotal reads the number of records the source says entity has,
// from the first page of its list, when the source says and the copy is
// read in one walk.
func (r *Replica) sourceTotal(ctx context.Context, p plan) (int64, bool) {
	if p.inParts() {
		return 0, false
	}
	page, err := r.conn.List(ctx, p.entity.Name, p.params)
	if err != nil {
		return 0, false
	}
	return tributary.PageTotal(page.Meta)
}

// restarting runs a full walk again, from the beginning, when the source
// expired its cursor.
func (r *Replica) restarting(ctx context.Context, load func() error) error {
	for attempt := 0; ; attempt++ {
		err := load()
		if err == nil || !errors.Is(err, tributary.ErrCursorExpired) || attempt >= maxWalkRestarts || ctx.Err() != nil {
			return err
		}
	}
}

// loadFull walks entity into a new table (through its change feed from
// the beginning when it has one, so that the copy gets a checkpoint),
// and makes it the live copy when the walk is complete, with the previous
// copy's missing records kept as deletions.
func (r *Replica) loadFull(ctx context.Context, spec store.Spec, feed *tributary.Feed, p plan, lopts []store.LoadOption, rep *EntityReport) (err error) {
	began := time.Now()
	l, err := r.st.BeginFull(ctx, spec, append([]store.LoadOption{store.Tombstones()}, lopts...)...)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			// Drop the unfinished table even when ctx is cancelled; a
			// process killed here leaves it to the next synchronization.
			actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			_ = l.Abort(actx)
		}
	}()
	rep.Pages = 0
	if feed == nil {
		var versions map[string]string
		versions, err = r.walk(ctx, p, func(recs [][]byte) error { return l.Write(ctx, recs, nil) }, rep)
		if err == nil {
			st := state{FullAt: began, Scope: p.scope, Versions: versions}
			if p.parentFeed != nil {
				st.Parent = p.parentCP.Load()
			}
			cp, _ := json.Marshal(st)
			err = l.Write(ctx, nil, cp)
		}
	} else {
		var n int64
		// The next page is read, and its fields extracted, while the
		// store writes the current one.
		type prepared struct {
			part    string // the part's key
			ch      *tributary.Changes
			page    *store.Page
			deleted [][]byte
		}
		pages := ahead(ctx, func(ctx context.Context) iter.Seq2[prepared, error] {
			return func(yield func(prepared, error) bool) {
				for part, err := range r.parts(ctx, p) {
					if err != nil {
						yield(prepared{}, err)
						return
					}
					stamp := p.stamper(part)
					for ch, err := range r.conn.(tributary.Changer).Changes(ctx, spec.Entity, p.entity.CopyParams(part.Params), tributary.Checkpoint{}) {
						var pp prepared
						if err == nil {
							pp = prepared{part.Key, ch, l.Prepare(stampAll(raws(ch.Records), stamp)), stampAll(raws(ch.Deleted), stamp)}
						}
						if !yield(pp, err) || err != nil {
							return
						}
					}
				}
			}
		})
		// The checkpoint of every part read so far goes with each page.
		parts := map[string]tributary.Checkpoint{}
		for pp, cerr := range pages {
			if cerr != nil {
				err = cerr
				break
			}
			ch := pp.ch
			cpo := ch.Checkpoint
			cp := p.checkpoint(state{FullAt: began}, parts, pp.part, cpo)
			if err = l.WritePage(ctx, pp.page, cp); err != nil {
				break
			}
			if err = l.WriteDeleted(ctx, pp.deleted); err != nil {
				break
			}
			n += int64(len(ch.Records))
			rep.Pages++
			rep.Since = cpo.Since
			r.report(spec.Entity, Full, n, rep.Pages)
		}
	}
	if err != nil {
		return err
	}
	if err = l.Commit(ctx); err != nil {
		return err
	}
	c := l.Counts()
	rep.Inserted, rep.Updated, rep.Unchanged, rep.Deleted = c.Inserted, c.Updated, c.Unchanged, c.Deleted
	return nil
}

// update reads entity's change feed from the copy's checkpoint into the
// live copy, a page a transaction; a copy read in parts has each part's
// feed read from the part's own checkpoint (a part new to the scope from
// the beginning). Parts the copy holds that have left the scope end it
// with a *partsGone once the rest is read.
func (r *Replica) update(ctx context.Context, spec store.Spec, feed *tributary.Feed, p plan, st state, lopts []store.LoadOption, rep *EntityReport) error {
	u, err := r.st.BeginUpdate(ctx, spec, lopts...)
	if err != nil {
		return err
	}
	var n int64
	if !p.inParts() {
		rep.Since = st.Feed.Since
	}
	parts := maps.Clone(st.Parts)
	if parts == nil {
		parts = map[string]tributary.Checkpoint{}
	}
	seen := map[string]bool{}
	// A page read is written whole even when ctx ends meanwhile (Ctrl-C):
	// the next page is not read.
	wctx := context.WithoutCancel(ctx)
	// Each page is written once the next is read, and the last with the
	// update's end, in one transaction (store.Update.FinishWith): an
	// update that reads one page, most of them, commits once.
	type page struct {
		records, deleted [][]byte
		cp               []byte
	}
	var last *page
	counted := func() {
		c := u.Counts()
		rep.Inserted, rep.Updated, rep.Unchanged, rep.Deleted = c.Inserted, c.Updated, c.Unchanged, c.Deleted
	}
	flush := func() error {
		if last == nil {
			return nil
		}
		err := u.Apply(wctx, last.records, last.deleted, last.cp)
		last = nil
		counted()
		return err
	}
	for part, err := range r.parts(ctx, p) {
		if err != nil {
			return errors.Join(err, flush())
		}
		from := tributary.Checkpoint{}
		switch {
		case !p.inParts():
			from = *st.Feed
		default:
			seen[part.Key] = true
			from = parts[part.Key]
		}
		stamp := p.stamper(part)
		for ch, err := range r.conn.(tributary.Changer).Changes(ctx, spec.Entity, p.entity.CopyParams(part.Params), from) {
			if err != nil {
				return errors.Join(err, flush())
			}
			if err := flush(); err != nil {
				return err
			}
			cpo := ch.Checkpoint
			last = &page{stampAll(raws(ch.Records), stamp), stampAll(raws(ch.Deleted), stamp), p.checkpoint(st, parts, part.Key, cpo)}
			n += int64(len(ch.Records) + len(ch.Deleted))
			rep.Pages++
			rep.Since = cpo.Since
			r.report(spec.Entity, Incremental, n, rep.Pages)
		}
	}
	if last != nil {
		err = u.FinishWith(wctx, last.records, last.deleted, last.cp)
	} else {
		err = u.Finish(ctx)
	}
	counted()
	if err != nil {
		return err
	}
	var gone []string
	for k := range st.Parts {
		if !seen[k] {
			gone = append(gone, k)
		}
	}
	if p.inParts() && len(gone) > 0 {
		slices.Sort(gone)
		return &partsGone{gone}
	}
	return nil
}

func raws(recs []tributary.Record) [][]byte {
	out := make([][]byte, len(recs))
	for i, r := range recs {
		out[i] = r.Raw()
	}
	return out
}

// syncIfMissing synchronizes entity unless a copy appeared meanwhile.
func (r *Replica) syncIfMissing(ctx context.Context, entity string) error {
	r.syncMu.Lock()
	defer r.syncMu.Unlock()
	if r.current(entity) != nil {
		return nil
	}
	_, err := r.syncOne(ctx, entity, false, nil)
	return err
}

// Syncable lists the entities a sync takes when none are named: those that
// offer search, can be listed, and either need no list parameters or have
// a copy scope that supplies them (tributary.Scope: Salesforce's generated
// SOQL). Those whose params must come from the caller (GitHub's owner and
// repo, a ticket's id for its comments) are left out. `tributary sync` and
// `tributary serve` use it.
func Syncable(entities []tributary.Entity) []string {
	var out []string
next:
	for _, e := range entities {
		if !e.Supports(tributary.ActionSearch) || len(e.Searchable) == 0 || !e.Supports(tributary.ActionList) {
			continue
		}
		if len(e.CopyParams(nil)) == 0 && !e.CopiedInParts() { // no scope gives the params
			for _, p := range e.Params[tributary.ActionList] {
				if p.Required {
					continue next
				}
			}
		}
		out = append(out, e.Name)
	}
	return out
}
