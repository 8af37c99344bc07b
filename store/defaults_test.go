package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/tributary-dev/tributary/search"
	"github.com/tributary-dev/tributary/store"
)

// A field that every record of a load's first page has with one value (an
// array's kind, a flag) is left out of the INSERTs of the batches that
// all have it, to take its column's default: records of later pages that
// lack the field, have it null, or have another value are found by
// searches as what they hold, never as the first page's value.
func TestConstantFieldsOfTheFirstPage(t *testing.T) {
	ctx := context.Background()
	st, err := store.OpenSQLite(ctx, t.TempDir()+"/defaults.db")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	spec := store.Spec{Connector: "c", Entity: "tickets", IDField: "id",
		Schema: search.Schema{"id": search.TypeInteger, "tags": search.TypeArray, "flag": search.TypeBoolean, "via": search.TypeAny}}
	l, err := st.BeginFull(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	var first [][]byte
	for id := range 20 {
		first = append(first, fmt.Appendf(nil, `{"id":%d,"tags":["a"],"flag":true,"via":{"channel":"email"}}`, id))
	}
	if err := l.WritePage(ctx, l.Prepare(first), nil); err != nil {
		t.Fatal(err)
	}
	second := [][]byte{
		[]byte(`{"id":20,"flag":true,"via":{}}`),                // no tags
		[]byte(`{"id":21,"tags":null,"flag":true,"via":{}}`),    // null tags
		[]byte(`{"id":22,"tags":[],"flag":false,"via":{}}`),     // another flag
		[]byte(`{"id":23,"tags":[],"via":{}}`),                  // no flag
		[]byte(`{"id":24,"tags":[],"flag":true}`),               // no via
		[]byte(`{"id":25,"tags":"x","flag":true,"via":"mail"}`), // other kinds
	}
	if err := l.Write(ctx, second, nil); err != nil {
		t.Fatal(err)
	}
	// A batch whose rows all have the first page's values.
	if err := l.Write(ctx, [][]byte{[]byte(`{"id":26,"tags":["b"],"flag":true,"via":{"channel":"web"}}`)}, nil); err != nil {
		t.Fatal(err)
	}
	// A batch whose rows have the first page's values or none.
	if err := l.Write(ctx, [][]byte{[]byte(`{"id":27,"tags":["c"],"via":{}}`), []byte(`{"id":28,"tags":["d"],"flag":true}`)}, nil); err != nil {
		t.Fatal(err)
	}
	if err := l.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	all := func(ids ...int) []int { return ids }
	upTo20 := make([]int, 0, 27)
	for id := range 20 {
		upTo20 = append(upTo20, id)
	}
	for _, c := range []struct {
		filter string
		want   []int
	}{
		{`{"contains":{"tags":"a"}}`, upTo20},
		{`{"eq":{"flag":false}}`, all(22)},
		{`{"eq":{"flag":null}}`, all(23, 27)},
		{`{"eq":{"via":null}}`, all(24, 28)},
		{`{"eq":{"via":"mail"}}`, all(25)},
		{`{"eq":{"flag":true}}`, append(slices.Clone(upTo20), 20, 21, 24, 25, 26, 28)},
		{`{"neq":{"via":null}}`, append(slices.Clone(upTo20), 20, 21, 22, 23, 25, 26, 27)},
	} {
		if got := idsOf(t, st, "c", "tickets", c.filter, false); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.filter, got, c.want)
		}
	}
}
