package fakeserver

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestTable(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var tb Table[string]
	tb.Put("a", "A", t0)
	tb.Put("b", "B", t0.Add(time.Minute))
	tb.Put("c", "C", t0.Add(2*time.Minute))
	if !tb.Update("a", t0.Add(3*time.Minute), func(s *string) { *s = "A2" }) || tb.Update("zz", t0, func(*string) {}) {
		t.Fatal("Update")
	}
	if !tb.Delete("b", t0.Add(4*time.Minute)) || tb.Delete("b", t0) {
		t.Fatal("Delete")
	}
	if d := cmp.Diff([]string{"a", "c"}, tb.IDs()); d != "" {
		t.Errorf("IDs (-want +got):\n%s", d)
	}
	if _, ok := tb.Live("b"); ok {
		t.Error("a tombstone is live")
	}
	if r, ok := tb.Get("b"); !ok || !r.Deleted || !r.Modified.Equal(t0.Add(4*time.Minute)) {
		t.Errorf("tombstone %+v", r)
	}
	all := tb.Rows(func(Row[string]) bool { return true })
	ByModified(all)
	var order []string
	for _, r := range all {
		order = append(order, r.ID+"="+r.Rec)
	}
	if d := cmp.Diff([]string{"c=C", "a=A2", "b=B"}, order); d != "" {
		t.Errorf("by modified (-want +got):\n%s", d)
	}
	// Put on a tombstone revives it in its place.
	tb.Put("b", "B2", t0.Add(5*time.Minute))
	if d := cmp.Diff([]string{"a", "b", "c"}, tb.IDs()); d != "" {
		t.Errorf("revived (-want +got):\n%s", d)
	}
}

func TestWindowAndCursor(t *testing.T) {
	items := []int{1, 2, 3, 4, 5}
	for _, c := range []struct {
		off, n   int
		want     []int
		wantNext int
	}{{0, 2, []int{1, 2}, 2}, {4, 2, []int{5}, -1}, {3, 2, []int{4, 5}, -1}, {9, 2, []int{}, -1}, {-3, 0, []int{1}, 1}} {
		got, next := PageOf(items, c.off, c.n)
		if !cmp.Equal(c.want, got) || next != c.wantNext {
			t.Errorf("PageOf(%d,%d) = %v %d", c.off, c.n, got, next)
		}
	}
	tok := Cursor("issues", 250)
	if off, ok := FromCursor("issues", tok); !ok || off != 250 {
		t.Errorf("round trip %d %v", off, ok)
	}
	for _, bad := range []string{Cursor("teams", 250), "!!", "", tok + "x"} {
		if _, ok := FromCursor("issues", bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}
