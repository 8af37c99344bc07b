package engine

import (
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
