package engine

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/tributary-dev/tributary"
)

// StreamFresh is how long one read of an event stream (tributary.Feed.Stream)
// serves the other copies of the connector before the stream is read
// again; a copy that was served by a read asks for a new one.
const StreamFresh = time.Minute

// streamMark is where a copy's first read starts when the stream has no
// event yet: this long before now, so that a clock ahead of the source's
// loses nothing.
const streamMark = time.Hour

// streamRead is one read of an event stream: its events from a time,
// oldest first, and the copies it has served.
type streamRead struct {
	key    string // the stream's entity and params
	from   time.Time
	high   time.Time // the latest event's time
	at     time.Time
	events []tributary.Record
	served map[string]bool
}

// streamChanges reads a feed of a shared event stream (Feed.Stream) from
// a checkpoint: a first full read of the entity when it has none (or one
// was under way), else the stream's events since the checkpoint that
// are the entity's, from a read the connector's copies share.
func (c *Connector) streamChanges(ctx context.Context, e *Entity, f *tributary.Feed, base tributary.Params, from tributary.Checkpoint, yield func(*tributary.Changes, error) bool) {
	if from.Since.IsZero() || from.Walking {
		cp := from
		if cp.Since.IsZero() {
			mark, err := c.streamMark(ctx, e, f, base)
			if err != nil {
				yield(nil, err)
				return
			}
			cp = tributary.Checkpoint{Since: mark}
		}
		c.walkList(ctx, e, base, cp, yield)
		return
	}
	events, high, err := c.streamEvents(ctx, e, f, base, from.Since.Add(-f.Overlap))
	if err != nil {
		yield(nil, err)
		return
	}
	ch, err := c.unwrap(e, f, latestOf(e, f, events))
	if err != nil {
		yield(nil, err)
		return
	}
	ch.Checkpoint = tributary.Checkpoint{Since: from.Since}
	if high.After(from.Since) {
		ch.Checkpoint.Since = high
	}
	yield(ch, nil)
}

// latestOf keeps the events of the feed's entity, the last of each of
// its records (events are oldest first): the latest state wins.
func latestOf(e *Entity, f *tributary.Feed, events []tributary.Record) []tributary.Record {
	id := e.IDField
	if id == "" {
		id = "id"
	}
	if f.Unwrap != "" {
		id = f.Unwrap + "." + id
	}
	last := map[string]int{}
	var out []tributary.Record
	for _, ev := range events {
		if s := f.Stream; s.Field != "" {
			if v, _ := ev.StringAt(s.Field); v != s.Value {
				continue
			}
		}
		k, ok := ev.Field(id)
		key, _ := json.Marshal(k)
		if i, seen := last[string(key)]; ok && seen {
			out[i] = tributary.Record{} // an earlier state of the record
		}
		last[string(key)] = len(out)
		out = append(out, ev)
	}
	return slices.DeleteFunc(out, tributary.Record.IsZero)
}

// streamEvents returns the stream's events at or after since, oldest
// first, and the latest event time of the read they come from: the
// connector's last read when it covers since, is fresh and has not served
// this copy yet, else a new read from since.
func (c *Connector) streamEvents(ctx context.Context, e *Entity, f *tributary.Feed, base tributary.Params, since time.Time) ([]tributary.Record, time.Time, error) {
	key, copyKey := streamKeys(e, f, base)
	c.streamMu.Lock()
	defer c.streamMu.Unlock()
	r := c.streams[f.Stream.Entity]
	if r == nil || r.key != key || r.served[copyKey] || since.Before(r.from) || c.now().Sub(r.at) >= StreamFresh {
		at := c.now()
		var events []tributary.Record
		for rec, err := range c.Pager(f.Stream.Entity, tributary.ActionList, f.Params(maps.Clone(base), since)).All(ctx) {
			if err != nil {
				return nil, time.Time{}, err
			}
			events = append(events, rec)
		}
		r = &streamRead{key: key, from: since, at: at, served: map[string]bool{}}
		// The stream lists the newest first; the same second keeps its
		// order reversed too.
		for i := len(events) - 1; i >= 0; i-- {
			r.events = append(r.events, events[i])
		}
		slices.SortStableFunc(r.events, func(a, b tributary.Record) int {
			ta, _ := changedAt(a, f.Changed)
			tb, _ := changedAt(b, f.Changed)
			return ta.Compare(tb)
		})
		if n := len(r.events); n > 0 {
			r.high, _ = changedAt(r.events[n-1], f.Changed)
		}
		if c.streams == nil {
			c.streams = map[string]*streamRead{}
		}
		c.streams[f.Stream.Entity] = r
	}
	r.served[copyKey] = true
	i, _ := slices.BinarySearchFunc(r.events, since, func(ev tributary.Record, t time.Time) int {
		at, _ := changedAt(ev, f.Changed)
		return at.Compare(t)
	})
	return r.events[i:], r.high, nil
}

// streamKeys are the keys of a feed's stream read (its entity and params)
// and of the copy asking (the entity and its params).
func streamKeys(e *Entity, f *tributary.Feed, base tributary.Params) (string, string) {
	p, _ := json.Marshal(f.Params(maps.Clone(base), time.Time{}))
	b, _ := json.Marshal(base)
	return f.Stream.Entity + " " + string(p), e.Name + " " + string(b)
}

// streamMark is where a copy's first read leaves the stream: its newest
// event's time (from a fresh read, or the stream's first page), or
// streamMark before now when it has none.
func (c *Connector) streamMark(ctx context.Context, e *Entity, f *tributary.Feed, base tributary.Params) (time.Time, error) {
	key, _ := streamKeys(e, f, base)
	c.streamMu.Lock()
	r := c.streams[f.Stream.Entity]
	if r != nil && r.key == key && !r.high.IsZero() && c.now().Sub(r.at) < StreamFresh {
		c.streamMu.Unlock()
		return r.high, nil
	}
	c.streamMu.Unlock()
	page, err := c.List(ctx, f.Stream.Entity, f.Params(maps.Clone(base), time.Time{}))
	if err != nil {
		return time.Time{}, err
	}
	var mark time.Time
	for _, ev := range page.Records {
		if t, ok := changedAt(ev, f.Changed); ok && t.After(mark) {
			mark = t
		}
	}
	if mark.IsZero() {
		mark = c.now().Add(-streamMark)
	}
	return mark, nil
}
