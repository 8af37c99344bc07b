package replica

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	case !p.parentFeed.FindsDeletions() && r.reconcile > 0 && time.Since(st.FullAt) > r.reconcile:
		// The parent's feed does not say which parents were deleted: a
		// full walk finds their children once the last one is old enough.
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
		gone, err := r.notRead(ctx, spec, x, par, part, read)
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

// notRead returns the live records the copy holds for a parent's part
// (those whose par.Param field is the part's) that are not among read.
func (r *Replica) notRead(ctx context.Context, spec store.Spec, x *search.Extractor, par tributary.Parent, part tributary.Part, read [][]byte) ([][]byte, error) {
	ids := make(map[string]bool, len(read))
	var e search.Extracted
	for _, raw := range read {
		if err := x.Extract(raw, &e); err == nil {
			ids[e.ID] = true
		}
	}
	req := search.Request{Query: search.Query{Filter: search.Eq(par.Param, part.Fields[par.Param]).Ptr()}, Limit: 1000}
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
