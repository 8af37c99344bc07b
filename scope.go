package tributary

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"

	"github.com/tributary-dev/tributary/internal/suggest"
)

// Scope declares how a complete copy of a searchable entity is built with
// no list params from the caller (the copy's scope is data, read by package
// replica's one mechanism). nil: the entity's list needs no params, or it
// cannot be copied without them.
//
// A scope gives either Params, one walk over the whole entity, or Parts,
// several walks whose union is the copy (one per repository, one per
// parent record).
type Scope struct {
	// Doc says in a few words what the copy covers, for people (describe shows it).
	Doc string
	// Params returns the list params of a walk over the whole entity
	// (Salesforce: a SOQL query generated from the entity's catalogue fields).
	Params func() Params
	// Parts lists the walks whose union is the copy, when no one walk
	// reads it all: GitHub's issues of every repository the connector's
	// configuration names, a ticket's comments for every ticket. c is the
	// connector the parts are read with (a part list may need requests of
	// its own: the repositories a token can read, the parent records);
	// config is the connector's replication_config (nil when none). Each
	// part is walked with the entity's list action and the part's Params;
	// an entity with a change feed has it read per part, from a checkpoint
	// of the part's own. Parts are yielded in a stable order, and their
	// keys are unique.
	Parts func(ctx context.Context, c Connector, config map[string]any) iter.Seq2[Part, error]
	// PartIDs says that records of different parts can share an id (a
	// branch's name is unique only within its repository; one user stars
	// many repositories): the copy then keys each record by its part's key
	// and its id, which it sets on the record as CopyIDField.
	PartIDs bool
	// Parent, when set (ChildScope), says that the parts are the records
	// of a parent entity, one part each: a durable copy whose parent has a
	// change feed is then kept current from that feed, re-reading only the
	// children of parents that changed and keeping those of deleted
	// parents as deletions.
	Parent *Parent
}

// Parent describes a copy read one part per record of a parent entity
// (Scope.Parent): a ticket's comments, a campaign's email activity.
type Parent struct {
	// Entity is the parent entity ("tickets").
	Entity string
	// IDField is the parent record's field whose value lists its children
	// ("id").
	IDField string
	// Param is the children's list param that takes it, and the field set
	// on each child record ("ticket_id"): it should be searchable.
	Param string
	// Key prefixes the part keys ("ticket" gives "ticket 35436"; "" keys
	// a part by the id alone).
	Key string
	// Field, when set, is the field set on each child record instead of
	// Param: one the records may carry by themselves (a Jira worklog's
	// issueId, while its list takes issueIdOrKey).
	Field string
}

// Part returns the part of the parent record whose IDField is id.
func (p Parent) Part(id any) Part {
	k := fmt.Sprint(id)
	if p.Key != "" {
		k = p.Key + " " + k
	}
	field := p.Param
	if p.Field != "" {
		field = p.Field
	}
	return Part{Key: k, Params: Params{p.Param: id}, Fields: map[string]any{field: id}}
}

// Scope returns the Scope of a child entity copied one record of p.Entity
// at a time (see ChildScope), doc saying so for people.
func (p Parent) Scope(doc string) *Scope {
	return &Scope{Doc: doc, Parts: p.parts, Parent: &p}
}

// ChildScope returns the Scope of a child entity copied one parent record
// at a time (Parts is ChildParts(parent, idField, param, key); Parent says
// so, for a copy to follow the parent's change feed):
//
//	ChildScope("the comments of every ticket", "tickets", "id", "ticket_id", "ticket")
func ChildScope(doc, parent, idField, param, key string) *Scope {
	return Parent{Entity: parent, IDField: idField, Param: param, Key: key}.Scope(doc)
}

// CopyIDField is the field a copy read in parts whose records' ids are
// unique only within a part (Scope.PartIDs) sets on each record and keys
// it by: the part's key, a space, and the record's id ("octo/hello main").
// Search hits of such a copy carry it as their id.
const CopyIDField = "copy_id"

// Part is one walk of an entity copied in parts (Scope.Parts).
type Part struct {
	// Key names the part in the copy's checkpoint: stable across syncs
	// and unique within the entity ("octo/hello", "ticket 35436").
	Key string
	// Params are the list params of the part's walk.
	Params Params
	// Fields are set on each record the part reads where the record does
	// not already have them (a ticket comment's ticket_id, an issue's
	// repository), so that a search can filter on what scoped it. Each
	// should be a searchable field of the entity.
	Fields map[string]any
	// Version changes whenever the part's records may have changed (the
	// parent record's updated_at: a review submitted changes its pull
	// request's). When every part of a copy without a change feed has one,
	// a durable copy's sync lists the parts and reads again only those
	// whose Version differs from the last read, writing each in one
	// transaction; the records the copy holds for such a part (matched on
	// Fields) that were not read again become deletions. "" means the part
	// is read on every sync.
	Version string
}

// CopyParams returns the list params a copy of e is walked with: p when the
// caller gave any, else the params of e's Scope when it has one, else p;
// with the list's PageSize parameter set to its Max where none of these
// set it. A change feed reads the copy with the same params (its base).
func (e Entity) CopyParams(p Params) Params {
	if len(p) == 0 && e.Scope != nil && e.Scope.Params != nil {
		p = e.Scope.Params()
	}
	for _, d := range e.Params[ActionList] {
		if !d.PageSize || d.Max == nil {
			continue
		}
		if _, ok := p[d.Name]; !ok {
			p = maps.Clone(p)
			if p == nil {
				p = Params{}
			}
			p[d.Name] = int64(*d.Max)
		}
	}
	return p
}

// CopiedInParts reports whether a copy of e, with no params from the
// caller, is read in parts (Scope.Parts).
func (e Entity) CopiedInParts() bool { return e.Scope != nil && e.Scope.Parts != nil }

// ValidateConfig checks a connector's replication_config against the keys
// its kind declares (the same Param rows as an action's parameters: name,
// type, required, enumeration, doc) and returns it in normal form, as
// Validate does for params. An unknown key is an error that names the
// nearest declared one (did you mean "repositories"?); every error is an
// *Error matching ErrInvalidParams whose Param is "replication_config.<key>".
func ValidateConfig(kind string, decl []Param, config map[string]any) (map[string]any, error) {
	nested, err := expandDots(config)
	if err != nil {
		return nil, &Error{Kind: kind, Param: "replication_config." + err.param, Err: ErrInvalidParams,
			Message: "replication_config." + err.param + " " + err.msg}
	}
	// An unknown key first: a misspelled required key is better named
	// than reported missing.
	names := make([]string, len(decl))
	for i, d := range decl {
		names[i] = d.Name
	}
	for _, k := range slices.Sorted(maps.Keys(nested)) {
		if !slices.Contains(names, k) {
			accepted := "none"
			if len(names) > 0 {
				accepted = strings.Join(names, ", ")
			}
			return nil, &Error{Kind: kind, Param: "replication_config." + k, Err: ErrInvalidParams,
				Message: fmt.Sprintf("replication_config.%s is not a key of %s's replication_config%s (accepted: %s)", k, kind, suggest.Hint(k, names), accepted)}
		}
	}
	out, verr := validateObject(decl, nested, "")
	if verr != nil {
		msg := strings.Replace(verr.msg, "is not a parameter of this action", "is not a key of "+kind+"'s replication_config", 1)
		return nil, &Error{Kind: kind, Param: "replication_config." + verr.param, Err: ErrInvalidParams,
			Message: "replication_config." + verr.param + " " + msg}
	}
	return out, nil
}
