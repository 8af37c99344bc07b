package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"
)

// mutationCheck says, of the changes the fakes made, which reached their
// copy and their webhook. A record's changes are judged by its last one
// (an update followed by a delete leaves nothing of the update to see):
// the copy has it when the copy's change feed has a row of that record
// written after it, a deletion when the record is gone, the rest an
// insertion or an update; a record deleted before the copy ever held it
// needs no row (and sends no event). It reached its webhook when a
// sync.completed event of that copy, with changes, has a cursor at or past
// that row.
type mutationCheck struct {
	total   int
	noCopy  int // of an entity the service keeps no copy of
	reached int
	never   int        // of them: records deleted before their copy ever held them
	pending []mutation // not reached, and no sync of the copy started settle after the change: not yet due
	lost    []mutation
	// why says, of each lost change, when its copy's last sync started
	// and where the copy's feed has the record.
	why      []string
	hooked   int
	unhooked []mutation // reached the copy, no webhook event received
	// toCopy and toHook: change to the feed row's write, and to the
	// event's receipt.
	toCopy, toHook []time.Duration
}

// complete reports whether every change of a kept entity reached its copy
// and its webhook.
func (c *mutationCheck) complete() bool {
	return c.reached == c.total-c.noCopy && c.hooked == c.reached-c.never
}

// recordKey names a record of a copy.
type recordKey struct {
	copyKey
	id string
}

func (f *fleet) checkMutations(ctx context.Context, ms []mutation) (*mutationCheck, error) {
	c := &mutationCheck{total: len(ms)}
	if len(ms) == 0 {
		return c, nil
	}
	last := map[recordKey]mutation{}
	for _, m := range ms {
		k := recordKey{copyKey{m.connector, m.entity}, m.id}
		if l, ok := last[k]; !ok || !m.at.Before(l.at) {
			last[k] = m
		}
	}
	// The copies' syncs first, their feeds after: the services still run,
	// and a sync that commits between the two reads then adds rows to a
	// feed read against an older sync (harmless) rather than a sync
	// whose rows were not read (a change judged lost that was not; at
	// 10,000 connectors reading the feeds takes minutes).
	s, err := take(ctx, f.db)
	if err != nil {
		return nil, err
	}
	changes, err := changeRows(ctx, f.db, slices.Collect(maps.Keys(last)))
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
		k := recordKey{copyKey{m.connector, m.entity}, m.id}
		st, kept := started[k.copyKey]
		if !kept {
			c.noCopy++
			continue
		}
		l := last[k]
		rows := changes[k]
		var row *change
		for _, ch := range rows {
			if ch.at >= l.at.UnixMilli() && (ch.op == opDelete) == (l.op == "delete") {
				row = &ch
				break
			}
		}
		if row == nil && l.op == "delete" && len(rows) == 0 && st > l.at.UnixMilli() {
			c.reached++ // never held by its copy: nothing to delete, no event
			c.never++
			c.toCopy = append(c.toCopy, time.UnixMilli(st).Sub(m.at))
			continue
		}
		if row == nil {
			if st > l.at.Add(f.cfg.settle).UnixMilli() {
				c.lost = append(c.lost, m)
				var desc []string
				for _, ch := range rows {
					desc = append(desc, fmt.Sprintf("op %d seq %d at %+.1f s", ch.op, ch.seq, float64(ch.at-l.at.UnixMilli())/1000))
				}
				c.why = append(c.why, fmt.Sprintf("its record's last change (%s) %+.1f s after it; its copy's last sync started %+.1f s after that; the feed's rows of the record: %v",
					l.op, l.at.Sub(m.at).Seconds(), float64(st-l.at.UnixMilli())/1000, desc))
			} else {
				c.pending = append(c.pending, m)
			}
			continue
		}
		c.reached++
		c.toCopy = append(c.toCopy, time.UnixMilli(row.at).Sub(m.at))
		hs := hooks[k.copyKey]
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
