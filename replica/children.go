package replica

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
)

// syncChildren brings up to date a durable copy read one part per parent
// record whose parent has a change feed (plan.parentFeed): the first
// time, and whenever its state says it must, the parent's feed is read
// from the beginning and every parent's children walked into a new copy;
// otherwise only the children of the parents the feed shows changed since
// the copy's checkpoint are read again (updateChildren).
func (r *Replica) syncChildren(ctx context.Context, spec store.Spec, p plan, st state, full bool, lopts []store.LoadOption, rep *EntityReport) error {
	switch {
	case full:
	case st.Scope != "" && st.Scope != p.scope:
		rep.Reason, full = "the copy was read with another scope", true
	case st.Parent == nil:
		rep.Reason, full = "the copy was made without its parent's change feed", true
	case p.parentFeed.Deleted == nil && p.parentFeed.Deletions == nil && r.reconcile > 0 && time.Since(st.FullAt) > r.reconcile:
		// The parent's feed does not say which parents were deleted (a
		// sweep finds them for the parent's own copy, not in the feed):
		// a full walk finds their children once the last one is old
		// enough.
		rep.Reason, full = "the last full walk, which finds deleted parents, is older than "+r.reconcile.String(), true
	}
	loadFull := func() error { return r.loadFull(ctx, spec, nil, p, lopts, rep) }
	if full {
		return r.restarting(ctx, loadFull)
	}
	rep.Mode = Incremental
	err := r.updateChildren(ctx, spec, p, st, lopts, rep)
	if errors.Is(err, store.ErrNotSynced) {
		// The copy was made with other searchable fields.
		*rep = EntityReport{Entity: spec.Entity, Mode: Full, Reason: "the catalogue's searchable fields changed"}
		return r.restarting(ctx, loadFull)
	}
	return err
}

// updateChildren reads the parent's change feed from the copy's
// checkpoint. For each parent created or changed, its children are read
// again: those read are written, and those the copy holds for it that
// were not read are kept as deletions; the children of a deleted parent
// all are. Each parent's children are written in one transaction, and the
// feed's checkpoint after each of its pages once the page's parents are
// done: a sync that stops resumes at the page it was in, whose parents it
// reads again (which writes nothing twice).
func (r *Replica) updateChildren(ctx context.Context, spec store.Spec, p plan, st state, lopts []store.LoadOption, rep *EntityReport) error {
	u, err := r.st.BeginUpdate(ctx, spec, lopts...)
	if err != nil {
		return err
	}
	x, err := search.NewExtractor(spec.Schema, spec.IDField)
	if err != nil {
		return err
	}
	par := *p.entity.Scope.Parent
	// A page read is written whole even when ctx ends meanwhile (Ctrl-C):
	// the next page is not read.
	wctx := context.WithoutCancel(ctx)
	rep.Since = st.Parent.Since
	var n int64
	count := func() {
		c := u.Counts()
		rep.Inserted, rep.Updated, rep.Unchanged, rep.Deleted = c.Inserted, c.Updated, c.Unchanged, c.Deleted
	}
	// child reads again the children of a parent created or changed
	// (live), or finds those of a deleted one, and writes them.
	child := func(rec tributary.Record, live bool) error {
		part, err := r.parentPart(p, rec)
		if err != nil {
			return err
		}
		var read [][]byte
		if live {
			if read, err = r.readPart(ctx, p, part); err != nil {
				return err
			}
		}
		gone, err := r.notRead(ctx, spec, x, part, read)
		if err != nil {
			return err
		}
		if err := u.Apply(wctx, read, gone, nil); err != nil {
			return err
		}
		n += int64(len(read) + len(gone))
		return nil
	}
	for ch, err := range r.conn.(tributary.Changer).Changes(ctx, par.Entity, p.parent.CopyParams(nil), *st.Parent) {
		if err != nil {
			return err
		}
		for i, rec := range slices.Concat(ch.Records, ch.Deleted) {
			if err := child(rec, i < len(ch.Records)); err != nil {
				return err
			}
		}
		cp := ch.Checkpoint
		raw, _ := json.Marshal(state{FullAt: st.FullAt, Scope: p.scope, Parent: &cp})
		if err := u.Apply(wctx, nil, nil, raw); err != nil {
			return err
		}
		rep.Pages++
		rep.Since = cp.Since
		count()
		r.report(spec.Entity, Incremental, n, rep.Pages)
	}
	return u.Finish(ctx)
}

// readPart reads every record of a part, stamped. A parent deleted since
// the feed showed it (its children's list answers not found) has none.
func (r *Replica) readPart(ctx context.Context, p plan, part tributary.Part) ([][]byte, error) {
	stamp := p.stamper(part)
	var out [][]byte
	for rec, err := range tributary.All(ctx, r.conn, p.entity.Name, p.entity.CopyParams(part.Params)) {
		if p.parentGone(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, stamp(rec.Raw()))
	}
	return out, nil
}

// notRead returns the live records the copy holds for a part (those
// whose fields are the part's Fields) that are not among read.
func (r *Replica) notRead(ctx context.Context, spec store.Spec, x *search.Extractor, part tributary.Part, read [][]byte) ([][]byte, error) {
	if len(part.Fields) == 0 {
		return nil, fmt.Errorf("replica: the part %s of %s has no fields to find its records by", part.Key, spec.Entity)
	}
	var match []search.Filter
	for _, f := range slices.Sorted(maps.Keys(part.Fields)) {
		match = append(match, search.Eq(f, part.Fields[f]))
	}
	filter := match[0]
	if len(match) > 1 {
		filter = search.And(match...)
	}
	ids := make(map[string]bool, len(read))
	var e search.Extracted
	for _, raw := range read {
		if err := x.Extract(raw, &e); err == nil {
			ids[e.ID] = true
		}
	}
	req := search.Request{Query: search.Query{Filter: filter.Ptr()}, Limit: 1000}
	var gone [][]byte
	for {
		res, err := r.st.Search(ctx, spec.Connector, spec.Entity, req)
		if err != nil {
			return nil, fmt.Errorf("replica: the records of %s in the copy of %s: %w", part.Key, spec.Entity, err)
		}
		for _, h := range res.Hits {
			if !ids[h.ID] {
				gone = append(gone, h.Data)
			}
		}
		if res.NextCursor == nil || *res.NextCursor == "" {
			return gone, nil
		}
		req.Cursor = *res.NextCursor
	}
}

// parentGone reports whether err, from the walk of a part of a copy read
// one part per parent record, says the parent is gone: deleted since it
// was listed (its children's list answers not found). Its part is then
// empty; the parent's deletion is read from its feed, or found by the
// next full walk.
func (p plan) parentGone(err error) bool {
	return err != nil && p.entity.Scope != nil && p.entity.Scope.Parent != nil && errors.Is(err, tributary.ErrNotFound)
}

// syncVersioned brings up to date a durable copy read in parts without a
// change feed: the first time, when its state says so, and once its last
// full walk is older than the reconcile age, every part is walked into a
// new copy; otherwise the parts are listed and only those whose Version
// changed since they were read are read again (updateVersioned). A copy
// whose parts have no versions is walked in full every time.
func (r *Replica) syncVersioned(ctx context.Context, spec store.Spec, p plan, st state, full bool, lopts []store.LoadOption, rep *EntityReport) error {
	switch {
	case full, st.Versions == nil:
		full = true
	case st.Scope != "" && st.Scope != p.scope:
		rep.Reason, full = "the copy was read with another scope", true
	case r.reconcile > 0 && time.Since(st.FullAt) > r.reconcile:
		rep.Reason, full = "the last full walk, which checks every part, is older than "+r.reconcile.String(), true
	}
	loadFull := func() error { return r.loadFull(ctx, spec, nil, p, lopts, rep) }
	if full {
		return r.restarting(ctx, loadFull)
	}
	rep.Mode = Incremental
	err := r.updateVersioned(ctx, spec, p, st, lopts, rep)
	var gone *partsGone
	var unversioned errUnversioned
	switch {
	case errors.Is(err, store.ErrNotSynced):
		*rep = EntityReport{Entity: spec.Entity, Mode: Full, Reason: "the catalogue's searchable fields changed"}
	case errors.As(err, &gone):
		*rep = EntityReport{Entity: spec.Entity, Mode: Full, Reason: gone.Error(), Pages: rep.Pages}
	case errors.As(err, &unversioned):
		*rep = EntityReport{Entity: spec.Entity, Mode: Full, Reason: unversioned.Error(), Pages: rep.Pages}
	default:
		return err
	}
	pages := rep.Pages
	err = r.restarting(ctx, loadFull)
	rep.Pages += pages
	return err
}

// errUnversioned: a part without a Version, which only a full walk reads.
type errUnversioned struct{ key string }

func (e errUnversioned) Error() string { return "the part " + e.key + " has no version" }

// updateVersioned lists the parts of a copy and reads again those whose
// Version is not the one the copy's state holds for them: the records
// read are written, and those the copy holds for the part that were not
// read become deletions, with the part's new version, in one transaction.
// Parts the copy holds that have left the scope end it with a *partsGone.
func (r *Replica) updateVersioned(ctx context.Context, spec store.Spec, p plan, st state, lopts []store.LoadOption, rep *EntityReport) error {
	u, err := r.st.BeginUpdate(ctx, spec, lopts...)
	if err != nil {
		return err
	}
	x, err := search.NewExtractor(spec.Schema, spec.IDField)
	if err != nil {
		return err
	}
	wctx := context.WithoutCancel(ctx)
	versions := maps.Clone(st.Versions)
	seen := map[string]bool{}
	var n int64
	for part, err := range r.parts(ctx, p) {
		if err != nil {
			return err
		}
		if part.Version == "" {
			return errUnversioned{part.Key}
		}
		seen[part.Key] = true
		if st.Versions[part.Key] == part.Version {
			continue
		}
		read, err := r.readPart(ctx, p, part)
		if err != nil {
			return err
		}
		gone, err := r.notRead(ctx, spec, x, part, read)
		if err != nil {
			return err
		}
		versions[part.Key] = part.Version
		cp, _ := json.Marshal(state{FullAt: st.FullAt, Scope: p.scope, Versions: versions})
		if err := u.Apply(wctx, read, gone, cp); err != nil {
			return err
		}
		n += int64(len(read) + len(gone))
		rep.Pages++
		c := u.Counts()
		rep.Inserted, rep.Updated, rep.Unchanged, rep.Deleted = c.Inserted, c.Updated, c.Unchanged, c.Deleted
		r.report(spec.Entity, Incremental, n, rep.Pages)
	}
	if err := u.Finish(ctx); err != nil {
		return err
	}
	var left []string
	for k := range st.Versions {
		if !seen[k] {
			left = append(left, k)
		}
	}
	if len(left) > 0 {
		slices.Sort(left)
		return &partsGone{left}
	}
	return nil
}
