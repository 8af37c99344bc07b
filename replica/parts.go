package replica

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/jsonx"
)

// WithConfig sets the connector's replication_config (the object the
// hosted create call takes), which the copy scopes of its entities read:
// GitHub's repositories, a start date. It should be in normal form
// (kinds.NormalizeReplicationConfig), as the service and the command keep
// it.
func WithConfig(config map[string]any) Option {
	return func(r *Replica) { r.config = maps.Clone(config) }
}

// scopeWhole is the scope recorded with a copy read without the caller's
// params: the entity's catalogue scope, or its param-less list.
const scopeWhole = "whole"

// plan is how a copy of an entity is read.
type plan struct {
	entity tributary.Entity
	// explicit: the caller gave the list params (WithParams).
	explicit bool
	params   tributary.Params
	// scope names what the copy covers, recorded in its checkpoint:
	// scopeWhole, or "params:" and the caller's params as JSON.
	scope string
	// fields are set on the records of a copy read with the caller's
	// params (the one part's Fields): see parentFields.
	fields map[string]any
	// parent is the parent entity of a durable copy read one part per
	// parent record (tributary.Scope.Parent) whose parent has a change
	// feed, parentFeed: its parts come from that feed, and an incremental
	// sync reads the children of the parents it shows changed.
	parent     tributary.Entity
	parentFeed *tributary.Feed
	// parentCP is where the parent's feed ended when the parts were last
	// listed in full (set by parts).
	parentCP *atomic.Pointer[tributary.Checkpoint]
	// whole: a durable copy read from the entity's own feed in one pass,
	// whatever its scope's parts (tributary.Feed.Whole).
	whole bool
}

// notScope are list params that page, sort or shape what a walk returns
// but not which records it reads: they leave a copy's scope as it is.
var notScope = map[string]bool{
	"per_page": true, "page": true, "page[size]": true, "page[after]": true, "limit": true, "count": true, "offset": true,
	"cursor": true, "after": true, "starting_after": true, "next_records_url": true, "next_page": true,
	"sort": true, "sort_by": true, "sort_order": true, "order": true, "direction": true,
	"fields": true, "include": true, "include_inline_images": true, "exclude_fields": true,
}

func (r *Replica) planOf(entity string) plan {
	e, _ := tributary.FindEntity(r.conn.Entities(), entity)
	return r.planFor(e)
}

// planFor is planOf for an entity already looked up.
func (r *Replica) planFor(e tributary.Entity) plan {
	p := r.params[e.Name]
	scope := maps.Clone(p)
	maps.DeleteFunc(scope, func(k string, _ any) bool { return notScope[k] })
	if len(scope) == 0 {
		// Paging params alone: the copy is the entity's whole scope.
		pl := plan{entity: e, params: e.CopyParams(p), scope: scopeWhole}
		if f := r.feedOf(e.Name); f != nil && f.Whole && r.st != nil {
			pl.whole = true
			return pl
		}
		if e.CopiedInParts() && e.Scope.Parent != nil && r.st != nil {
			pl.parent, _ = tributary.FindEntity(r.conn.Entities(), e.Scope.Parent.Entity)
			if pl.parentFeed = r.feedOf(pl.parent.Name); pl.parentFeed != nil {
				pl.parentCP = &atomic.Pointer[tributary.Checkpoint]{}
			}
		}
		return pl
	}
	b, _ := json.Marshal(scope) // map keys sorted: one text per scope
	params := e.CopyParams(p)
	return plan{entity: e, explicit: true, params: params, scope: "params:" + string(b), fields: r.parentFields(e, params)}
}

// parentFields returns what a copy of e read with the caller's params
// stamps on its records: the param of e's parent scope
// (tributary.Scope.Parent: a ticket's comments read with ticket_id) when
// the params give it, in normal form, as the copy read one part per
// parent record stamps it, so that a search on it finds them.
func (r *Replica) parentFields(e tributary.Entity, params tributary.Params) map[string]any {
	if e.Scope == nil || e.Scope.Parent == nil {
		return nil
	}
	name := e.Scope.Parent.Param
	v, ok := params[name]
	if !ok || v == nil {
		return nil
	}
	if norm, err := tributary.Validate(r.conn.Type(), []tributary.Entity{e}, e.Name, tributary.ActionList, params); err == nil {
		v = norm[name]
	}
	return map[string]any{name: v}
}

// inParts reports whether the copy is read in parts (tributary.Scope.Parts).
func (p plan) inParts() bool { return !p.explicit && !p.whole && p.entity.CopiedInParts() }

// parts yields the walks whose union is the copy: the scope's parts, or
// one part, keyed "", with the plan's params and fields.
func (r *Replica) parts(ctx context.Context, p plan) iter.Seq2[tributary.Part, error] {
	if p.parentFeed != nil {
		return r.parentParts(ctx, p)
	}
	if p.inParts() {
		return func(yield func(tributary.Part, error) bool) {
			seen := map[string]bool{}
			for part, err := range p.entity.Scope.Parts(ctx, r.conn, r.config) {
				if err == nil && (part.Key == "" || seen[part.Key]) {
					err = &tributary.Error{Kind: r.conn.Type(), Entity: p.entity.Name, Action: tributary.ActionList, Err: tributary.ErrUnexpectedResponse,
						Message: fmt.Sprintf("the copy scope gave a part with an empty or repeated key %q", part.Key)}
				}
				if err != nil {
					yield(tributary.Part{}, err)
					return
				}
				seen[part.Key] = true
				if !yield(part, nil) {
					return
				}
			}
		}
	}
	return func(yield func(tributary.Part, error) bool) {
		yield(tributary.Part{Params: p.params, Fields: p.fields}, nil)
	}
}

// parentParts yields a part per live record of the parent's change feed,
// read from the beginning, and keeps where the feed ended in p.parentCP
// once it has been read to the end. A parent the feed shows twice (an
// export's overlap) is one part; a deleted one is none.
func (r *Replica) parentParts(ctx context.Context, p plan) iter.Seq2[tributary.Part, error] {
	par := *p.entity.Scope.Parent
	return func(yield func(tributary.Part, error) bool) {
		p.parentCP.Store(nil)
		seen := map[string]bool{}
		var last tributary.Checkpoint
		for ch, err := range r.conn.(tributary.Changer).Changes(ctx, par.Entity, p.parent.CopyParams(nil), tributary.Checkpoint{}) {
			if err != nil {
				yield(tributary.Part{}, err)
				return
			}
			for _, rec := range ch.Records {
				part, err := r.parentPart(p, rec)
				if err != nil {
					yield(tributary.Part{}, err)
					return
				}
				if seen[part.Key] {
					continue
				}
				seen[part.Key] = true
				if !yield(part, nil) {
					return
				}
			}
			last = ch.Checkpoint
		}
		p.parentCP.Store(&last)
	}
}

// parentPart is the part of a parent record.
func (r *Replica) parentPart(p plan, rec tributary.Record) (tributary.Part, error) {
	par := *p.entity.Scope.Parent
	id, ok := rec.Field(par.IDField)
	if !ok || id == nil {
		return tributary.Part{}, &tributary.Error{Kind: r.conn.Type(), Entity: par.Entity, Action: tributary.ActionList, Err: tributary.ErrUnexpectedResponse,
			Message: fmt.Sprintf("a %s record has no %s: its %s cannot be listed", par.Entity, par.IDField, p.entity.Name)}
	}
	return par.Part(id), nil
}

// checkScope refuses a sync with the caller's params into a copy that was
// read with other params, or whole: its full walk would keep every record
// it did not read as a deletion. Copies written before scopes were
// recorded (an empty scope) are taken as they are.
func (r *Replica) checkScope(p plan, st state) error {
	if !p.explicit || st.Scope == "" || st.Scope == p.scope {
		return nil
	}
	was := "whole"
	if s, ok := strings.CutPrefix(st.Scope, "params:"); ok {
		was = "with params " + s
	}
	now, _ := strings.CutPrefix(p.scope, "params:")
	return &tributary.Error{Kind: r.conn.Type(), Entity: p.entity.Name, Action: tributary.ActionList, Err: tributary.ErrInvalidParams,
		Message: fmt.Sprintf("the copy of %s in this store was read %s; a sync with params %s would keep every record it does not read as a deletion. "+
			"Keep each in a copy of its own (replica.WithName; tributary sync --name), or sync without params where the entity has a copy scope",
			p.entity.Name, was, now)}
}

// stamp sets fields on a record where it does not have them, so that a
// record of a part carries what scoped it. The names are sorted, so a
// record is stamped the same way every time.
func stamp(raw []byte, fields map[string]any) []byte {
	if len(fields) == 0 {
		return raw
	}
	var add []byte
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		if _, ok := jsonx.Lookup(raw, name); ok {
			continue
		}
		k, _ := json.Marshal(name)
		v, err := json.Marshal(fields[name])
		if err != nil {
			continue
		}
		add = append(append(append(append(add, k...), ':'), v...), ',')
	}
	if len(add) == 0 {
		return raw
	}
	i := bytes.IndexByte(raw, '{')
	if i < 0 {
		return raw
	}
	rest := bytes.TrimLeft(raw[i+1:], " \t\r\n")
	if len(rest) > 0 && rest[0] == '}' {
		add = add[:len(add)-1] // an empty object: no comma after the last
	}
	out := make([]byte, 0, len(raw)+len(add))
	out = append(append(append(out, raw[:i+1]...), add...), raw[i+1:]...)
	return out
}

// stamper returns what a part's records are stamped with: the part's
// Fields and, in a copy keyed per part (Scope.PartIDs), the record's
// copy id.
func (p plan) stamper(part tributary.Part) func(raw []byte) []byte {
	if !p.inParts() || !p.entity.Scope.PartIDs {
		return func(raw []byte) []byte { return stamp(raw, part.Fields) }
	}
	idPath := strings.Split(sourceID(p.entity, tributary.SearchSchema(p.entity)), ".")
	return func(raw []byte) []byte {
		raw = stamp(raw, part.Fields)
		v, _ := jsonx.Lookup(raw, idPath...)
		id, ok := jsonx.String(v)
		if !ok {
			id = string(v)
		}
		return stamp(raw, map[string]any{tributary.CopyIDField: part.Key + " " + id})
	}
}

// stampAll stamps each record of a page.
func stampAll(recs [][]byte, stamp func([]byte) []byte) [][]byte {
	for i, raw := range recs {
		recs[i] = stamp(raw)
	}
	return recs
}

// checkpoint is the state saved with a page of a feed: cp is where part
// resumes; parts (updated here) holds the checkpoint of every part read
// so far, for a copy read in parts.
func (p plan) checkpoint(was state, parts map[string]tributary.Checkpoint, part string, cp tributary.Checkpoint) []byte {
	s := state{FullAt: was.FullAt, SweptAt: was.SweptAt, Scope: p.scope}
	if p.inParts() {
		parts[part] = cp
		s.Parts = parts
	} else {
		s.Feed = &cp
	}
	b, _ := json.Marshal(s)
	return b
}
