package engine

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/jsonx"
	"github.com/tributary-dev/tributary/pagination"
)

// Changes implements tributary.Changer: it reads entity's change feed
// (Entity.Feed) from a checkpoint, one page at a time, and returns with
// every page the checkpoint that follows it.
//
// A pass starts at from.Since less the feed's Overlap and Lookback (never
// later than now less Delay), or goes on at from.Next when a pass was
// under way. A Next the source no longer accepts (an expired cursor, a
// refused page) starts the pass again at from.Since. The checkpoint's Since
// never moves backwards: it becomes the latest Changed value read when a
// pass completes. The feed's Deletions, if any, are read after the
// changes, from the time the changes were read from (from.Since less the
// feed's Overlap and Lookback; zero, all of them, on a full read); their
// pages carry the final checkpoint.
func (c *Connector) Changes(ctx context.Context, entity string, base tributary.Params, from tributary.Checkpoint) iter.Seq2[*tributary.Changes, error] {
	return func(yield func(*tributary.Changes, error) bool) {
		e, f, err := c.feedOf(entity)
		if err != nil {
			yield(nil, err)
			return
		}
		if f.Check != nil {
			if param, reason := f.Check(base); param != "" {
				yield(nil, &tributary.Error{Kind: c.kind.Type, Entity: entity, Action: tributary.ActionList, Param: param,
					Err: tributary.ErrInvalidParams, Message: reason})
				return
			}
		}
		if f.Token != nil {
			c.tokenChanges(ctx, e, f, base, from, yield)
			return
		}
		if f.Retention > 0 && !from.Since.IsZero() && !from.Walking && c.now().Sub(from.Since) > f.Retention {
			yield(nil, &tributary.Error{Kind: c.kind.Type, Entity: entity, Action: tributary.ActionList, Err: tributary.ErrCursorExpired,
				Message: fmt.Sprintf("the checkpoint (%s) is older than the %s the source keeps its changes", from.Since.Format(time.RFC3339), f.Retention)})
			return
		}
		if f.Stream != nil {
			c.streamChanges(ctx, e, f, base, from, yield)
			return
		}
		cp := from
		resumed := false
		if cp.Next != nil {
			ok, err := c.pass(ctx, e, f, base, cp.Next, time.Time{}, &cp, yield)
			if err != nil && resumable(err) && ctx.Err() == nil && f.Cap > 0 && !cp.High.IsZero() {
				// A capped feed is sorted oldest-first: everything
				// before High has been read, so the pass goes on
				// with a query from there.
				ok, err = c.pass(ctx, e, f, base, f.Params(maps.Clone(base), cp.High), cp.High, &cp, yield)
			}
			switch {
			case err == nil:
				if !ok {
					return
				}
				resumed = true
			case resumable(err) && ctx.Err() == nil:
				// The saved page is no longer served: read the pass
				// again from its start.
				cp.Next = nil
			default:
				yield(nil, err)
				return
			}
		}
		if !resumed && !c.startPass(ctx, e, f, base, &cp, yield) {
			return
		}
		if f.Deletions != nil {
			since := from.Since
			if !since.IsZero() {
				since = since.Add(-f.Overlap - f.Lookback)
			}
			c.deletions(ctx, e, f.Deletions, base, since, cp, yield)
		}
	}
}

// startPass reads a whole pass from cp.Since.
func (c *Connector) startPass(ctx context.Context, e *Entity, f *tributary.Feed, base tributary.Params, cp *tributary.Checkpoint, yield func(*tributary.Changes, error) bool) bool {
	since := cp.Since
	if !since.IsZero() {
		since = since.Add(-f.Overlap - f.Lookback)
		if f.Delay > 0 {
			if latest := c.now().Add(-f.Delay); since.After(latest) {
				since = latest
			}
		}
		loc := time.UTC
		if f.Zone != nil {
			var err error
			if loc, err = c.zoneOf(ctx, e.Name, f.Zone, cp); err != nil {
				yield(nil, err)
				return false
			}
		}
		since = InZone(since, loc, f.Precision)
	} else if f.Zone != nil {
		// A full read: the zone is read now and kept in the checkpoint,
		// so that the next pass, in this process or another, needs no
		// request for it (for ZoneTTL).
		cp.Zone, cp.ZoneAt = "", time.Time{}
		if _, err := c.zoneOf(ctx, e.Name, f.Zone, cp); err != nil {
			yield(nil, err)
			return false
		}
	}
	p := f.Params(maps.Clone(base), since)
	ok, err := c.pass(ctx, e, f, base, p, since, cp, yield)
	if err != nil {
		yield(nil, err)
		return false
	}
	return ok
}

// pass reads pages from p to the end of the feed, updating cp; it reports
// false when yield asked to stop. window is the time p's query starts at
// (zero when unknown): a capped feed (Feed.Cap) that reaches its cap goes
// on with a query from a later time, or fails when it cannot.
func (c *Connector) pass(ctx context.Context, e *Entity, f *tributary.Feed, base, p tributary.Params, window time.Time, cp *tributary.Checkpoint, yield func(*tributary.Changes, error) bool) (bool, error) {
	pg := c.feedPager(e, f, p)
	n := 0 // records read by the current query
	floor := cp.Since
	if !floor.IsZero() {
		floor = floor.Add(-f.Overlap - f.Lookback)
	}
	for pg.More() {
		page, err := pg.Next(ctx)
		if err != nil {
			return false, err
		}
		below := f.Descending && !floor.IsZero() && cut(page, f.Changed, floor)
		n += len(page.Items)
		ch, err := c.unwrap(e, f, page.Items)
		if err != nil {
			return false, err
		}
		for _, r := range page.Items {
			if t, ok := changedAt(r, f.Changed); ok && t.After(cp.High) {
				cp.High = t
			}
		}
		next := tributary.Params(page.Next)
		if below {
			next = nil // the rest of a descending feed is older still
		}
		if next != nil && f.Keyset && cp.High.After(window) && (f.Cap <= 0 || n < f.Cap) {
			// Offsets shift when records change during the pass: a new
			// query from the latest time read instead.
			window, n = cp.High, 0
			next = f.Params(maps.Clone(base), cp.High)
			pg = c.feedPager(e, f, next)
		}
		if next != nil && f.Cap > 0 && n >= f.Cap {
			// The query cannot page further: a new one from the
			// latest time read.
			if !cp.High.After(window) {
				a := f.Action
				if a == "" {
					a = tributary.ActionList
				}
				return false, &tributary.Error{Kind: c.kind.Type, Entity: e.Name, Action: a, Err: tributary.ErrPaging,
					Message: fmt.Sprintf("more than %d records changed at %s: the feed cannot page past them", f.Cap, window.Format(time.RFC3339Nano))}
			}
			window, n = cp.High, 0
			next = f.Params(maps.Clone(base), cp.High)
			pg = c.feedPager(e, f, next)
		}
		if next != nil {
			cp.Next = next
		} else {
			cp.Next = nil
			if cp.High.After(cp.Since) {
				cp.Since = cp.High
			}
			cp.High = time.Time{}
		}
		ch.Checkpoint = *cp
		if !yield(ch, nil) {
			return false, nil
		}
		if below {
			break
		}
	}
	return true, nil
}

// cut leaves out of a page of a descending feed (Feed.Descending) the
// records changed before floor, and every one after the first of them;
// it reports whether it found one: the pass ends there.
func cut(page *pagination.Page[tributary.Record], changed string, floor time.Time) bool {
	i := slices.IndexFunc(page.Items, func(r tributary.Record) bool {
		t, ok := changedAt(r, changed)
		return ok && t.Before(floor)
	})
	if i < 0 {
		return false
	}
	page.Items = page.Items[:i]
	return true
}

// deletions reads a deletions feed from since (from its endpoint,
// Entity.DeletionsRoute, when it has one); every record is a deletion.
func (c *Connector) deletions(ctx context.Context, e *Entity, f *tributary.Feed, base tributary.Params, since time.Time, cp tributary.Checkpoint, yield func(*tributary.Changes, error) bool) {
	rt := e.FeedRoute
	if e.DeletionsRoute != nil {
		rt = e.DeletionsRoute
	}
	pg := c.routePager(e, f, rt, f.Params(maps.Clone(base), since))
	for pg.More() {
		page, err := pg.Next(ctx)
		if err != nil {
			yield(nil, err)
			return
		}
		if !yield(&tributary.Changes{Deleted: page.Items, Checkpoint: cp}, nil) {
			return
		}
	}
}

func (c *Connector) feedOf(entity string) (*Entity, *tributary.Feed, error) {
	e := c.byName[entity]
	if e == nil {
		_, err := tributary.Validate(c.kind.Type, c.catalog, entity, tributary.ActionList, nil)
		if err == nil {
			err = &tributary.Error{Kind: c.kind.Type, Entity: entity, Err: tributary.ErrUnknownEntity, Message: "unknown entity"}
		}
		return nil, nil, err
	}
	if e.Feed == nil || e.Feed.Params == nil {
		return nil, nil, &tributary.Error{Kind: c.kind.Type, Entity: entity, Action: tributary.ActionList, Err: tributary.ErrUnsupportedAction,
			Message: entity + " has no change feed: keep it current with full walks"}
	}
	return e, e.Feed, nil
}

// feedPager pages through a feed: the entity's FeedRoute when it has one
// (params built by the feed, so not checked against the catalogue), else
// the routes of the feed's action.
func (c *Connector) feedPager(e *Entity, f *tributary.Feed, p tributary.Params) *pagination.Pager[tributary.Record] {
	return c.routePager(e, f, e.FeedRoute, p)
}

// routePager pages through a feed from route (nil: the routes of the
// feed's action).
func (c *Connector) routePager(e *Entity, f *tributary.Feed, route *Route, p tributary.Params) *pagination.Pager[tributary.Record] {
	a := f.Action
	if a == "" {
		a = tributary.ActionList
	}
	if route == nil {
		return c.Pager(e.Name, a, p)
	}
	rt := *route
	return pagination.New(map[string]any(p), func(ctx context.Context, params map[string]any) (*pagination.Page[tributary.Record], error) {
		norm := tributary.Params(params)
		if rt.Prepare != nil {
			norm = rt.Prepare(norm)
		}
		page, _, err := c.fetchPage(ctx, e.Name, a, rt, norm, 0)
		if err != nil {
			return nil, err
		}
		return &pagination.Page[tributary.Record]{Items: page.Records, Meta: page.Meta, Next: page.Next}, nil
	})
}

// InZone returns t in loc, truncated to precision there (0: none), and
// moved back by the change of loc's offset when one happens within three
// hours of t: the wall time a source reads in loc then starts no later
// than t, even in the hour that a daylight-saving change repeats (the
// source may read a repeated wall time as its second instance).
func InZone(t time.Time, loc *time.Location, precision time.Duration) time.Time {
	t = t.In(loc)
	_, now := t.Zone()
	_, before := t.Add(-3 * time.Hour).Zone()
	_, after := t.Add(3 * time.Hour).Zone()
	if d := max(abs(now-before), abs(after-now)); d != 0 {
		t = t.Add(-time.Duration(d) * time.Second)
	}
	if precision > 0 {
		_, off := t.Zone()
		// Truncate in wall time: shift by the offset, truncate, shift back.
		shift := time.Duration(off) * time.Second
		t = t.Add(shift).Truncate(precision).Add(-shift).In(loc)
	}
	return t
}

func abs(n int) int { return max(n, -n) }

// zoneRead is a zone as read, and when.
type zoneRead struct {
	loc *time.Location
	at  time.Time
}

// zoneOf returns the zone a feed reads its times in: the checkpoint's
// while younger than ZoneTTL, else the source's (kept in cp).
func (c *Connector) zoneOf(ctx context.Context, entity string, z *tributary.Zone, cp *tributary.Checkpoint) (*time.Location, error) {
	if cp.Zone != "" && c.now().Sub(cp.ZoneAt) < tributary.ZoneTTL {
		if loc, err := time.LoadLocation(cp.Zone); err == nil {
			return loc, nil
		}
	}
	loc, err := c.zone(ctx, entity, z)
	if err != nil {
		return nil, err
	}
	cp.Zone, cp.ZoneAt = loc.String(), c.now()
	return loc, nil
}

// zone reads, once per connector, the time zone an endpoint names.
func (c *Connector) zone(ctx context.Context, entity string, z *tributary.Zone) (*time.Location, error) {
	c.zoneMu.Lock()
	defer c.zoneMu.Unlock()
	if zr, ok := c.zones[z.Path]; ok && c.now().Sub(zr.at) < tributary.ZoneTTL {
		return zr.loc, nil
	}
	resp, body, err := c.read(ctx, entity, tributary.ActionList, Route{Path: z.Path}, tributary.Params{})
	if err != nil {
		return nil, err
	}
	loc := time.UTC
	if raw, ok := jsonx.Lookup(body, strings.Split(z.Field, ".")...); ok {
		if name, ok := jsonx.String(raw); ok && name != "" {
			if loc, err = time.LoadLocation(name); err != nil {
				return nil, c.unexpected(entity, tributary.ActionList, resp.StatusCode, fmt.Sprintf("the source names the time zone %q, which this system does not know", name), err)
			}
		}
	}
	if c.zones == nil {
		c.zones = map[string]zoneRead{}
	}
	c.zones[z.Path] = zoneRead{loc, c.now()}
	return loc, nil
}

// resumable reports whether a failed request for a saved page means the
// page is gone (an expired cursor, a refused or unknown page) rather than
// the source failing.
func resumable(err error) bool {
	return errors.Is(err, tributary.ErrCursorExpired) || errors.Is(err, tributary.ErrInvalidParams) ||
		errors.Is(err, tributary.ErrNotFound) || errors.Is(err, tributary.ErrPaging)
}

// changedAt reads a record's last-modified time at path (see
// tributary.ParseChanged).
func changedAt(r tributary.Record, path string) (time.Time, bool) {
	if path == "" {
		return time.Time{}, false
	}
	v, ok := r.Field(path)
	if !ok {
		return time.Time{}, false
	}
	return tributary.ParseChanged(v)
}

// ParseChanged is tributary.ParseChanged.
func ParseChanged(v any) (time.Time, bool) { return tributary.ParseChanged(v) }

// Usage implements tributary.Metered.
func (c *Connector) Usage() tributary.Usage {
	r, re, t := c.client.Usage()
	return tributary.Usage{Requests: r, Retries: re, Throttled: t}
}
