package engine

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/tributary-dev/tributary"
)

// StreamFresh is how long the pages of an event stream
// (tributary.Feed.Stream) read for one copy serve the other copies of the
// connector before the stream is read again; a copy they have brought to
// the stream's end asks for a new read.
const StreamFresh = time.Minute

// StreamPages and StreamEvents bound what a connector keeps of an event
// stream's pages to share them between its copies: the last StreamPages
// pages read in a row, and no more events than StreamEvents (ten of
// Stripe's pages of 100), the oldest page going first. A copy further
// behind reads its own pages, one at a time, until it reaches them.
const (
	StreamPages  = 10
	StreamEvents = 1000
)

// streamMark is where a copy's first read starts when the stream has no
// event yet: this long before now, so that a clock ahead of the source's
// loses nothing.
const streamMark = time.Hour

// streamEvent is an event of a stream with its id and time.
type streamEvent struct {
	id  string
	at  time.Time
	rec tributary.Record
}

// streamRun is the run of a stream's pages a connector read last, one
// after the other, oldest first, and the copies that took its end as the
// stream's end.
type streamRun struct {
	key    string          // the stream's entity and params
	start  string          // the id of the event the run follows; "" when it follows a time:
	from   time.Time       // the time after which the run's first read took events
	pages  [][]streamEvent // oldest first, each oldest first, none empty
	n      int             // the events of pages
	last   string          // the newest event's id (start while pages are empty)
	lastAt time.Time       // and its time
	more   bool            // whether newer events followed the last page at the last read
	at     time.Time       // the last read
	served map[string]bool // the copies brought to the run's end since the last read
}

// streamChanges reads a feed of a shared event stream (Feed.Stream) from
// a checkpoint: a first full read of the entity when it has none (or one
// was under way), else the stream's events that follow the checkpoint's
// (the event at its Token, or its time less Overlap when it has none), a
// page at a time, each with the checkpoint of its newest event.
func (c *Connector) streamChanges(ctx context.Context, e *Entity, f *tributary.Feed, base tributary.Params, from tributary.Checkpoint, yield func(*tributary.Changes, error) bool) {
	if f.Stream.Newer == "" {
		yield(nil, &tributary.Error{Kind: c.kind.Type, Entity: e.Name, Action: tributary.ActionList, Err: tributary.ErrUnsupportedAction,
			Message: "a feed of an event stream needs the param that reads the events after one (Stream.Newer)"})
		return
	}
	if from.Since.IsZero() || from.Walking {
		cp := from
		if cp.Since.IsZero() {
			at, id, err := c.streamMark(ctx, e, f, base)
			if err != nil {
				yield(nil, err)
				return
			}
			cp = tributary.Checkpoint{Since: at, Token: id}
		}
		c.walkList(ctx, e, base, cp, yield)
		return
	}
	cp := tributary.Checkpoint{Since: from.Since, Token: from.Token}
	for {
		events, more, err := c.streamNext(ctx, e, f, base, cp)
		if err != nil {
			yield(nil, err)
			return
		}
		recs := make([]tributary.Record, len(events))
		for i, ev := range events {
			recs[i] = ev.rec
		}
		ch, err := c.unwrap(e, f, latestOf(e, f, recs))
		if err != nil {
			yield(nil, err)
			return
		}
		if n := len(events); n > 0 {
			cp.Token = events[n-1].id
			if at := events[n-1].at; at.After(cp.Since) {
				cp.Since = at
			}
		}
		ch.Checkpoint = cp
		if !yield(ch, nil) || !more || len(events) == 0 {
			return
		}
	}
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

// streamNext returns the stream's events that follow cp, oldest first,
// one page of them, and whether more follow: from the connector's run of
// pages when cp lies in it (the run's end counts as the stream's for a
// copy it has not brought there yet), read on from the run's end when cp
// is there, else one page read for this copy alone. A read with no fresh
// run (StreamFresh) to go on starts a new one.
func (c *Connector) streamNext(ctx context.Context, e *Entity, f *tributary.Feed, base tributary.Params, cp tributary.Checkpoint) ([]streamEvent, bool, error) {
	key, copyKey := streamKeys(e, f, base)
	since := cp.Since.Add(-f.Overlap)
	c.streamMu.Lock()
	defer c.streamMu.Unlock()
	r := c.streams[f.Stream.Entity]
	if r == nil || r.key != key || c.now().Sub(r.at) >= StreamFresh {
		events, more, err := c.streamRead(ctx, e, f, base, cp.Token, since)
		if err != nil {
			return nil, false, err
		}
		r = &streamRun{key: key, start: cp.Token, last: cp.Token, lastAt: cp.Since}
		if cp.Token == "" {
			r.from = since
		}
		r.add(events, more, c.now(), copyKey)
		if c.streams == nil {
			c.streams = map[string]*streamRun{}
		}
		c.streams[f.Stream.Entity] = r
		return events, more, nil
	}
	pi, ei, ok := r.find(cp.Token, since)
	switch {
	case !ok: // behind the run, or ahead of it
		return c.streamRead(ctx, e, f, base, cp.Token, since)
	case pi < len(r.pages):
		more := pi+1 < len(r.pages) || r.more
		if !more {
			r.served[copyKey] = true
		}
		return r.pages[pi][ei:], more, nil
	case !r.more && !r.served[copyKey]:
		r.served[copyKey] = true
		return nil, false, nil
	}
	events, more, err := c.streamRead(ctx, e, f, base, r.last, r.from)
	if err != nil {
		return nil, false, err
	}
	r.add(events, more, c.now(), copyKey)
	return events, more, nil
}

// find returns where the events after a copy's checkpoint start in the
// run, as a page and an event in it (len(r.pages) at the run's end): after
// the event whose id is token, or, with no token, at the first event at
// or after since when the run follows a time no later than since.
func (r *streamRun) find(token string, since time.Time) (int, int, bool) {
	if token != "" {
		if token == r.start {
			return 0, 0, true
		}
		for pi, p := range r.pages {
			if ei := slices.IndexFunc(p, func(ev streamEvent) bool { return ev.id == token }); ei >= 0 {
				if ei+1 == len(p) {
					return pi + 1, 0, true
				}
				return pi, ei + 1, true
			}
		}
		return 0, 0, false
	}
	if r.start != "" || since.Before(r.from) {
		return 0, 0, false
	}
	for pi, p := range r.pages {
		if ei := slices.IndexFunc(p, func(ev streamEvent) bool { return !ev.at.Before(since) }); ei >= 0 {
			return pi, ei, true
		}
	}
	return len(r.pages), 0, true
}

// add appends a page read at at by the copy reader to the run, and drops
// its oldest pages beyond StreamPages and StreamEvents: the run then
// follows the newest event dropped.
func (r *streamRun) add(events []streamEvent, more bool, at time.Time, reader string) {
	r.at, r.more = at, more
	r.served = map[string]bool{}
	if !more {
		r.served[reader] = true
	}
	if len(events) == 0 {
		return
	}
	r.pages = append(r.pages, events)
	r.n += len(events)
	r.last, r.lastAt = events[len(events)-1].id, events[len(events)-1].at
	for len(r.pages) > StreamPages || r.n > StreamEvents {
		old := r.pages[0]
		r.pages[0] = nil
		r.pages = r.pages[1:]
		r.n -= len(old)
		r.start, r.from = old[len(old)-1].id, time.Time{}
	}
}

// streamRead reads one page of the stream: the events just newer than
// the event whose id is after (Stream.Newer), or, with no id, the oldest
// page of the events since a time, found by reading the stream from its
// newest event back to since, a page at a time, keeping the last page
// alone. It returns the page's events oldest first and whether newer ones
// follow. An id the source no longer knows is ErrCursorExpired.
func (c *Connector) streamRead(ctx context.Context, e *Entity, f *tributary.Feed, base tributary.Params, after string, since time.Time) ([]streamEvent, bool, error) {
	if after != "" {
		// The id alone says where the page starts: no time filter, which
		// the source might apply to the id itself.
		p := f.Params(maps.Clone(base), time.Time{})
		if p == nil {
			p = tributary.Params{}
		}
		p[f.Stream.Newer] = after
		page, err := c.List(ctx, f.Stream.Entity, p)
		if errors.Is(err, tributary.ErrNotFound) && ctx.Err() == nil {
			return nil, false, &tributary.Error{Kind: c.kind.Type, Entity: e.Name, Action: tributary.ActionList, Err: tributary.ErrCursorExpired,
				Message: "the source no longer has the event " + after + " the copy's checkpoint follows", Cause: err}
		}
		if err != nil {
			return nil, false, err
		}
		events, err := c.streamEvents(e, f, page.Records)
		return events, page.Next != nil, err
	}
	var last []tributary.Record
	pages := 0
	pg := c.Pager(f.Stream.Entity, tributary.ActionList, f.Params(maps.Clone(base), since))
	for pg.More() {
		page, err := pg.Next(ctx)
		if err != nil {
			return nil, false, err
		}
		if len(page.Items) > 0 {
			last, pages = page.Items, pages+1
		}
	}
	events, err := c.streamEvents(e, f, last)
	return events, pages > 1, err
}

// streamEvents turns a page of the stream, newest first, into its events
// oldest first, each with its id (at the stream entity's IDField) and
// time (Feed.Changed).
func (c *Connector) streamEvents(e *Entity, f *tributary.Feed, page []tributary.Record) ([]streamEvent, error) {
	field := "id"
	if se := c.byName[f.Stream.Entity]; se != nil && se.IDField != "" {
		field = se.IDField
	}
	out := make([]streamEvent, 0, len(page))
	for i := len(page) - 1; i >= 0; i-- {
		id, ok := page[i].StringAt(field)
		if !ok || id == "" {
			return nil, c.unexpected(e.Name, tributary.ActionList, 0, "an event of the stream has no id at "+field, nil)
		}
		at, _ := changedAt(page[i], f.Changed)
		out = append(out, streamEvent{id: id, at: at, rec: page[i]})
	}
	return out, nil
}

// streamKeys are the keys of a feed's stream read (its entity and params)
// and of the copy asking (the entity and its params).
func streamKeys(e *Entity, f *tributary.Feed, base tributary.Params) (string, string) {
	p, _ := json.Marshal(f.Params(maps.Clone(base), time.Time{}))
	b, _ := json.Marshal(base)
	return f.Stream.Entity + " " + string(p), e.Name + " " + string(b)
}

// streamMark is where a copy's first read leaves the stream: its newest
// event's time and id (the end of a fresh run, or the stream's first
// page), or streamMark before now and no id when it has none.
func (c *Connector) streamMark(ctx context.Context, e *Entity, f *tributary.Feed, base tributary.Params) (time.Time, string, error) {
	key, copyKey := streamKeys(e, f, base)
	c.streamMu.Lock()
	r := c.streams[f.Stream.Entity]
	if r != nil && r.key == key && r.last != "" && c.now().Sub(r.at) < StreamFresh {
		// The copy's next pass reads on from the run's end, whatever it
		// holds by then.
		r.served[copyKey] = true
		at, id := r.lastAt, r.last
		c.streamMu.Unlock()
		return at, id, nil
	}
	c.streamMu.Unlock()
	page, err := c.List(ctx, f.Stream.Entity, f.Params(maps.Clone(base), time.Time{}))
	if err != nil {
		return time.Time{}, "", err
	}
	if len(page.Records) == 0 {
		return c.now().Add(-streamMark), "", nil
	}
	events, err := c.streamEvents(e, f, page.Records[:1])
	if err != nil {
		return time.Time{}, "", err
	}
	at := events[0].at
	if at.IsZero() {
		at = c.now().Add(-streamMark)
	}
	return at, events[0].id, nil
}
