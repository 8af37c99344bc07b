package main

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"
)

// mutation is one change a fake made to an account's records.
type mutation struct {
	kind, connector, entity, id, op string
	at                              time.Time
}

// The operations, in the order each account makes them (as the sandbox's
// changes do): an entity's records are updated, inserted, updated and
// deleted in turn.
var ops = [...]string{"update", "insert", "update", "delete"}

// mutator changes the accounts' records: one account every every/n, in
// turn, so that each account changes once every every.
type mutator struct {
	mu   sync.Mutex
	done []mutation
	errs int
	// made counts each account's changes: its next entity and operation.
	made map[int]int
	rng  *rand.Rand
}

// run changes accounts until ctx ends. target returns account i's
// connector id and fake ("" while it has none).
func (m *mutator) run(ctx context.Context, n int, every time.Duration, target func(i int) (string, *front)) {
	if n == 0 || every <= 0 {
		return
	}
	t := time.NewTicker(max(every/time.Duration(n), time.Millisecond))
	defer t.Stop()
	for i := 0; ; i = (i + 1) % n {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		conn, f := target(i)
		if conn == "" {
			continue
		}
		m.change(i, conn, f)
	}
}

// change makes account i's next change.
func (m *mutator) change(i int, conn string, f *front) {
	a := f.get(i)
	ents := a.fake.MutableEntities()
	m.mu.Lock()
	k := m.made[i]
	m.made[i]++
	pick := m.rng.IntN(1 << 30)
	m.mu.Unlock()
	entity, op := ents[(k/len(ops))%len(ents)], ops[k%len(ops)]
	ids := a.fake.IDs(entity)
	if op == "delete" && len(ids) <= 3 || op == "update" && len(ids) == 0 {
		op = "insert" // an entity never runs out
	}
	mu := mutation{kind: f.spec.kind, connector: conn, entity: entity, op: op, at: time.Now()}
	var err error
	switch op {
	case "insert":
		mu.id, err = a.fake.Create(entity)
	case "update":
		mu.id = ids[pick%len(ids)]
		err = a.fake.Update(entity, mu.id)
	case "delete":
		mu.id = ids[pick%len(ids)]
		err = a.fake.Delete(entity, mu.id)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		m.errs++
		return
	}
	m.done = append(m.done, mu)
}

func (m *mutator) snapshot() ([]mutation, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]mutation(nil), m.done...), m.errs
}
