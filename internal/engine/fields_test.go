package engine

import (
	"slices"
	"testing"

	"github.com/tributary-dev/tributary"
)

// DateTimes retypes the named string fields of every entity, leaves
// integers (Unix times) and other names alone, and does not write through
// a slice entities share.
func TestDateTimes(t *testing.T) {
	shared := []tributary.Field{{Name: "created_at", Type: tributary.TypeString}, {Name: "updated_at", Type: tributary.TypeInteger}, {Name: "name", Type: tributary.TypeString}}
	es := []Entity{{Entity: tributary.Entity{Name: "a", Searchable: shared}}, {Entity: tributary.Entity{Name: "b", Searchable: shared}}, {Entity: tributary.Entity{Name: "c"}}}
	es = DateTimes(es, "created_at", "updated_at")
	for _, e := range es[:2] {
		got := map[string]tributary.Type{}
		for _, f := range e.Searchable {
			got[f.Name] = f.Type
		}
		if got["created_at"] != tributary.TypeDateTime || got["updated_at"] != tributary.TypeInteger || got["name"] != tributary.TypeString {
			t.Errorf("%s: %v", e.Name, got)
		}
	}
	if shared[0].Type != tributary.TypeString {
		t.Error("DateTimes wrote through the shared slice")
	}
	if es[2].Searchable != nil {
		t.Errorf("an entity without searchable fields got %v", es[2].Searchable)
	}
}

// NewEntity: the actions of the routes given, in the catalogue's order,
// search added with the record's fields (an extra field replacing one of
// the same name) only for a record type.
func TestNewEntity(t *testing.T) {
	type rec struct {
		ID   string `json:"id"`
		Size string `json:"size"`
	}
	rt := []Route{{Path: "/x"}}
	e := NewEntity("xs", "Xs.", rec{}, map[tributary.Action][]Route{tributary.ActionDownload: rt, tributary.ActionGet: rt, tributary.ActionList: rt},
		map[tributary.Action][]tributary.Param{tributary.ActionList: nil}, tributary.Field{Name: "size", Type: tributary.TypeInteger})
	want := []tributary.Action{tributary.ActionList, tributary.ActionGet, tributary.ActionDownload, tributary.ActionSearch}
	if !slices.Equal(e.Actions, want) || len(e.Params[tributary.ActionSearch]) == 0 || len(e.Searchable) != 2 || e.Searchable[1].Type != tributary.TypeInteger {
		t.Errorf("%+v", e)
	}
	if e := NewEntity("ys", "Ys.", nil, map[tributary.Action][]Route{tributary.ActionGet: rt}, nil); !slices.Equal(e.Actions, []tributary.Action{tributary.ActionGet}) || e.Searchable != nil {
		t.Errorf("without a record: %+v", e)
	}
}
