package main

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// mutationCheck says, of the changes the fakes made, which reached their
// copy (a row of the copy's change feed for that record, written after the
// change) and their webhook (a sync.completed of that copy, with changes,
// whose cursor is at or past that row), and how long each took.
type mutationCheck struct {
	total    int
	noCopy   int // of an entity the service keeps no copy of
	reached  int
	pending  []mutation // not reached, and no sync of the copy started settle after the change: not yet due
	lost     []mutation
	// why says, of each lost change, when its copy's last sync started
	// and where the copy's feed has the record.
	why []string
	hooked   int
	unhooked []mutation // reached the copy, no webhook event received
	// toCopy and toHook: change to the feed row's write, and to the
	// event's receipt.
	toCopy, toHook []time.Duration
}

// complete reports whether every change of a kept entity reached its copy
// and its webhook.
func (c *mutationCheck) complete() bool {
	return c.reached == c.total-c.noCopy && c.hooked == c.reached
}

func (f *fleet) checkMutations(ctx context.Context, ms []mutation) (*mutationCheck, error) {
	c := &mutationCheck{total: len(ms)}
	if len(ms) == 0 {
		return c, nil
	}
	from := ms[0].at
	for _, m := range ms {
		if m.at.Before(from) {
			from = m.at
		}
	}
	changes, err := changesSince(ctx, f.db, from.UnixMilli())
	if err != nil {
		return nil, err
	}
	s, err := take(ctx, f.db)
	if err != nil {
		return nil, err
	}
	started := map[copyKey]int64{}
	for _, cp := range s.copies {
		started[copyKey{cp.connector, cp.entity}] = cp.started
	}
	events, _, _ := f.hooks.snapshot()
	hooks := map[copyKey][]hookEvent{}
	for _, e := range events {
		if e.changed > 0 {
			k := copyKey{e.connector, e.entity}
			hooks[k] = append(hooks[k], e)
		}
	}
	for k := range hooks {
		slices.SortFunc(hooks[k], func(a, b hookEvent) int { return int(a.cursor - b.cursor) })
	}
	for _, m := range ms {
		k := copyKey{m.connector, m.entity}
		st, kept := started[k]
		if !kept {
			c.noCopy++
			continue
		}
		var row *change
		for _, ch := range changes[k][m.id] {
			if ch.at >= m.at.UnixMilli() {
				row = &ch
				break
			}
		}
		if row == nil {
			if st > m.at.Add(f.cfg.settle).UnixMilli() {
				c.lost = append(c.lost, m)
				var rows []string
				for _, ch := range changes[k][m.id] {
					rows = append(rows, fmt.Sprintf("seq %d at %+.1f s", ch.seq, float64(ch.at-m.at.UnixMilli())/1000))
				}
				c.why = append(c.why, fmt.Sprintf("its copy's last sync started %+.1f s after it; the feed's rows of the record since the first change: %v",
					float64(st-m.at.UnixMilli())/1000, rows))
			} else {
				c.pending = append(c.pending, m)
			}
			continue
		}
		c.reached++
		c.toCopy = append(c.toCopy, time.UnixMilli(row.at).Sub(m.at))
		hs := hooks[k]
		j, _ := slices.BinarySearchFunc(hs, row.seq, func(e hookEvent, seq int64) int { return int(e.cursor - seq) })
		if j < len(hs) {
			c.hooked++
			c.toHook = append(c.toHook, hs[j].got.Sub(m.at))
		} else {
			c.unhooked = append(c.unhooked, m)
		}
	}
	return c, nil
}
