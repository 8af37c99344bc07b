package tributary

import (
	"context"
	"fmt"
	"iter"
)

// ChildParts returns the Parts of a scope that copies a child entity one
// parent record at a time, for a list that needs its parent's id: a
// ticket's comments, a campaign's email activity. The parent entity is
// walked with All (with its own copy params, CopyParams(nil)); each of its
// records gives one part, in the walk's order, keyed "<key> <id>" (the id
// alone when key is ""), whose
// list param named param holds the record's idField and whose records get
// the same field (param), so a search can filter on the parent:
//
//	Parts: ChildParts("tickets", "id", "ticket_id", "ticket")
//
// A parent record without the id field ends the parts with an error.
func ChildParts(parent, idField, param, key string) func(ctx context.Context, c Connector, config map[string]any) iter.Seq2[Part, error] {
	return Parent{Entity: parent, IDField: idField, Param: param, Key: key}.parts
}

// parts yields a part per record of the parent entity (ChildParts).
func (pr Parent) parts(ctx context.Context, c Connector, _ map[string]any) iter.Seq2[Part, error] {
	return func(yield func(Part, error) bool) {
		var p Params
		if e, ok := FindEntity(c.Entities(), pr.Entity); ok {
			p = e.CopyParams(nil)
		}
		for r, err := range All(ctx, c, pr.Entity, p) {
			if err != nil {
				yield(Part{}, err)
				return
			}
			id, ok := r.Field(pr.IDField)
			if !ok || id == nil {
				yield(Part{}, &Error{Kind: c.Type(), Entity: pr.Entity, Action: ActionList, Err: ErrUnexpectedResponse,
					Message: fmt.Sprintf("a %s record has no %s: its %s cannot be listed", pr.Entity, pr.IDField, pr.Param)})
				return
			}
			if !yield(pr.Part(id), nil) {
				return
			}
		}
	}
}
