package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Statements of different copies' tables, index columns and arguments
// are one kind; a waiting one is told apart; the shares are of every
// active statement seen, most first.
func TestActivityKinds(t *testing.T) {
	var a activity
	a.counts = map[string]int{}
	for _, s := range []struct{ q, wait string }{
		{`CREATE INDEX "tributary_t12_k3" ON "tributary_t12" (k3, idkey)`, "IO"},
		{`CREATE INDEX "tributary_t907_k11" ON "tributary_t907" (k11, idkey)`, ""},
		{"SELECT pg_advisory_xact_lock(7)", "Lock"},
		{"UPDATE tributary_entities\n\tSET lease_owner = $1 WHERE connector = $12", ""},
	} {
		a.counts[statementKind(s.q, s.wait)]++
		a.samples++
	}
	got := a.top(1)
	if len(got) != 1 || got[0].Share != 0.5 || got[0].Statement != "CREATE INDEX tributary_tN_kN ON tributary_tN (kN, idkey)" {
		t.Fatalf("top(1) = %+v; want the two index builds, half the samples", got)
	}
	if diff := cmp.Diff([]string{
		"CREATE INDEX tributary_tN_kN ON tributary_tN (kN, idkey)",
		"(waiting for a lock) SELECT pg_advisory_xact_lock(7)",
		"UPDATE tributary_entities SET lease_owner = $ WHERE connector = $",
	}, statements(a.top(10))); diff != "" {
		t.Fatalf("kinds (-want +got):\n%s", diff)
	}
}

func statements(as []activityShare) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Statement)
	}
	return out
}
