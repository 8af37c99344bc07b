package sandbox

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// Option configures a Sandbox (New).
type Option func(*Sandbox)

// Changes makes the fakes change their records as time passes, so that an
// incremental sync, a change feed and webhooks have something to report.
// Each running fake makes one change every Every: of its entities that
// change (fakeserver.Mutable; Entities may name fewer), taken in turn, four
// changes each, in the order update, insert, update, delete. Seed picks the
// records, so that a sandbox makes the same changes, in the same order,
// every time.
//
// A change is stamped with the fake's clock, which each change moves on by
// Every: the fake's time runs with the real time while changes are made,
// and feeds that leave out the latest changes (Zendesk's exports, the
// last minute) show a change as late as the vendor would.
type Changes struct {
	// Every is the time between two changes of one fake (0: no change but
	// those Sandbox.Change makes).
	Every time.Duration
	// Seed picks the records changed.
	Seed uint64
	// Entities limits the changes of a kind (the key) to these entities
	// of its fake's; a kind not named changes every entity its fake can.
	Entities map[string][]string
	// Log, when set, is told every change the schedule makes (from the
	// sandbox's own goroutines, one at a time per fake); it must not call
	// the Sandbox.
	Log func(Change)
}

// WithChanges makes the sandbox's fakes change their records (Changes).
func WithChanges(c Changes) Option { return func(s *Sandbox) { s.changes = c } }

// The operations of a Change.
const (
	OpInsert = "insert"
	OpUpdate = "update"
	OpDelete = "delete"
)

// Change is one change a fake made.
type Change struct {
	// Kind is the fake's connector type.
	Kind string
	// Entity and ID name the record.
	Entity, ID string
	// Op is OpInsert, OpUpdate or OpDelete.
	Op string
	// At is the change's time on the fake's clock.
	At time.Time
}

// String describes the change in a few words: "hubspot contacts 101 updated".
func (c Change) String() string {
	done := map[string]string{OpInsert: "inserted", OpUpdate: "updated", OpDelete: "deleted"}[c.Op]
	return fmt.Sprintf("%s %s %s %s", c.Kind, c.Entity, c.ID, done)
}

// mutable is a running fake whose records change.
type mutable interface {
	fake
	fakeserver.Mutable
}

// changer makes one fake's changes, one at a time.
type changer struct {
	kind     string
	m        mutable
	entities []string
	step     time.Duration

	mu  sync.Mutex
	rng *rand.Rand
	n   int // changes made
}

// ops is the order of one entity's changes.
var ops = [...]string{OpUpdate, OpInsert, OpUpdate, OpDelete}

// next makes the changer's next change.
func (c *changer) next() (Change, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	entity := c.entities[(c.n/len(ops))%len(c.entities)]
	op := ops[c.n%len(ops)]
	c.n++
	ids := c.m.IDs(entity)
	// Keep a few records: an entity never runs out.
	if op == OpDelete && len(ids) <= 3 || op == OpUpdate && len(ids) == 0 {
		op = OpInsert
	}
	c.m.Clock().Advance(c.step)
	ch := Change{Kind: c.kind, Entity: entity, Op: op}
	var err error
	switch op {
	case OpInsert:
		ch.ID, err = c.m.Create(entity)
	case OpUpdate:
		ch.ID = ids[c.rng.IntN(len(ids))]
		err = c.m.Update(entity, ch.ID)
	case OpDelete:
		ch.ID = ids[c.rng.IntN(len(ids))]
		err = c.m.Delete(entity, ch.ID)
	}
	ch.At = c.m.Clock().Now()
	if err != nil {
		return Change{}, fmt.Errorf("sandbox: %s: %s of %s %s: %w", c.kind, op, entity, ch.ID, err)
	}
	return ch, nil
}

// newChanger returns the changer of kind's running fake f, nil when it
// changes nothing (the fake is not Mutable, or Changes.Entities names none
// of its entities).
func (s *Sandbox) newChanger(kind string, f fake) *changer {
	m, ok := f.(mutable)
	if !ok {
		return nil
	}
	ents := m.MutableEntities()
	if want, named := s.changes.Entities[kind]; named {
		ents = slices.DeleteFunc(slices.Clone(ents), func(e string) bool { return !slices.Contains(want, e) })
	}
	if len(ents) == 0 {
		return nil
	}
	h := fnv.New64a()
	h.Write([]byte(kind))
	step := s.changes.Every
	if step <= 0 {
		step = time.Second
	}
	return &changer{kind: kind, m: m, entities: ents, step: step, rng: rand.New(rand.NewPCG(s.changes.Seed, h.Sum64()))}
}

// run makes c's changes every Changes.Every until ctx ends.
func (s *Sandbox) run(ctx context.Context, c *changer) {
	t := time.NewTicker(s.changes.Every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		ch, err := c.next()
		if err == nil && s.changes.Log != nil {
			s.changes.Log(ch)
		}
	}
}

// Change makes the next change of connectorType's fake at once (it starts
// the fake if needed), as the sandbox's own schedule would, and returns
// it: a test moves the sandbox on with it, deterministically.
func (s *Sandbox) Change(connectorType string) (Change, error) {
	if _, err := s.URL(connectorType); err != nil {
		return Change{}, err
	}
	s.mu.Lock()
	c := s.changers[connectorType]
	s.mu.Unlock()
	if c == nil {
		return Change{}, fmt.Errorf("%w: %s", ErrNoChanges, connectorType)
	}
	return c.next()
}

// Changeable starts the fake of connectorType if needed and lists the
// entities whose records it can change (Changes).
func (s *Sandbox) Changeable(connectorType string) ([]string, error) {
	if _, err := s.URL(connectorType); err != nil {
		return nil, err
	}
	s.mu.Lock()
	f := s.running[connectorType]
	s.mu.Unlock()
	if m, ok := f.(mutable); ok {
		return m.MutableEntities(), nil
	}
	return nil, nil
}

// ErrNoChanges: a kind's fake changes none of the entities Changes names
// (or no entity at all).
var ErrNoChanges = errors.New("sandbox: the fake changes none of these entities")

// rateRE is a rate: a count, a slash and a unit.
var rateRE = regexp.MustCompile(`^\s*([0-9]+)\s*/\s*(s|sec|second|m|min|minute|h|hour)\s*$`)

// ErrRate: a rate of changes is not "<count>/<unit>".
var ErrRate = errors.New(`a rate of changes is "<count>/<unit>", the unit s, min or h (10/min)`)

// ParseRate reads a rate of changes, "<count>/<unit>" with the unit s, min
// or h ("10/min", "2/s"), and returns the time between two changes: 6s for
// "10/min". "0/min" is no change (0).
func ParseRate(rate string) (time.Duration, error) {
	m := rateRE.FindStringSubmatch(rate)
	if m == nil {
		return 0, fmt.Errorf("%q: %w", rate, ErrRate)
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n > 1000 {
		return 0, fmt.Errorf("%q: at most 1000 changes a unit: %w", rate, ErrRate)
	}
	if n == 0 {
		return 0, nil
	}
	unit := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour}[m[2][0]]
	return unit / time.Duration(n), nil
}
