package github

import (
	"reflect"
	"testing"

	"github.com/tributary-dev/tributary"
)

// Every searchable field names a field of the entity's record (dotted paths
// through nested objects), so the types in the catalogue are the record's.
func TestSearchableFieldsExist(t *testing.T) {
	for _, s := range specs() {
		for _, p := range s.find {
			if _, err := fieldType(reflect.TypeOf(s.record), p); err != nil {
				t.Errorf("%s: %v", s.name, err)
			}
		}
	}
}

// Every route of the catalogue is declared for an action the entity
// offers, and every list or search pages by the Link header.
func TestCatalogueShape(t *testing.T) {
	for _, e := range catalogue() {
		for a, rs := range e.Routes {
			if !e.Supports(a) {
				t.Errorf("%s has a route for %s, which it does not offer", e.Name, a)
			}
			if (a == list || a == apiSearch) && rs[0].Paging == nil {
				t.Errorf("%s.%s has no paging style", e.Name, a)
			}
		}
		for _, a := range e.Actions {
			if a != search && len(e.Routes[a]) == 0 {
				t.Errorf("%s.%s has no route", e.Name, a)
			}
			if a == list && e.Name != "directory_content" {
				if _, ok := e.Param(a, "per_page"); !ok {
					t.Errorf("%s.list takes no per_page", e.Name)
				}
			}
		}
	}
}

func TestAddQualifier(t *testing.T) {
	cases := []struct{ in, want string }{
		{"repo:octo/hello bug", "repo:octo/hello bug is:issue"},
		{"bug is:issue", "bug is:issue"},
		{"bug IS:Issue", "bug IS:Issue"},
		{"bug type:issue", "bug type:issue"},
		{"", "is:issue"},
	}
	for _, c := range cases {
		in := tributary.Params{"q": c.in}
		got := addQualifier(in, "is:issue")
		if got["q"] != c.want {
			t.Errorf("%q: got %q, want %q", c.in, got["q"], c.want)
		}
		if in["q"] != c.in {
			t.Errorf("%q: the argument was modified", c.in)
		}
	}
}
