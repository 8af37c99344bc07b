package gongtest

import (
	"math/rand/v2"
	"testing"
)

// TestSelectionMatchesBruteForce checks the arithmetic of selection against
// a plain scan.
func TestSelectionMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		n := rng.IntN(400)
		lo, hi := rng.IntN(n+1), rng.IntN(n+1)
		var cons []constraint
		for range rng.IntN(3) {
			mod := 1 + rng.IntN(12)
			keep := map[int]bool{}
			for r := range mod {
				keep[r] = rng.IntN(3) > 0
			}
			cons = append(cons, constraint{mod, func(r int) bool { return keep[r] }})
		}
		var list []int
		if rng.IntN(4) == 0 {
			list = []int{}
			for range rng.IntN(20) {
				list = append(list, rng.IntN(n+5))
			}
		}
		sel := newSelection(lo, hi, cons, list)
		var want []int
		for i := lo; i < hi; i++ {
			ok := true
			for _, c := range cons {
				ok = ok && c.ok(i%c.mod)
			}
			if list != nil {
				found := false
				for _, x := range list {
					found = found || x == i
				}
				ok = ok && found
			}
			if ok {
				want = append(want, i)
			}
		}
		if sel.count() != len(want) {
			t.Fatalf("round %d: count %d, want %d", round, sel.count(), len(want))
		}
		for k, w := range want {
			if got := sel.at(k); got != w {
				t.Fatalf("round %d: at(%d) = %d, want %d", round, k, got, w)
			}
		}
	}
}
