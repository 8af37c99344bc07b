package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/jsonx"
	"github.com/tributary-dev/tributary/pagination"
)

// RereadPages is how many pages of a feed of tokens whose changes are
// read again (tributary.Reread) one walk of the entity's list reads them
// for: 50 pages (5,000 of Asana's events) are saved together.
const RereadPages = 50

// tokenChanges reads a feed of tokens (tributary.TokenFeed) from a
// checkpoint: a first full read (a start token, then the entity's list,
// then the token kept) when the checkpoint has no token or a walk was
// under way, else a pass of the feed's route from the checkpoint's token.
func (c *Connector) tokenChanges(ctx context.Context, e *Entity, f *tributary.Feed, base tributary.Params, from tributary.Checkpoint, yield func(*tributary.Changes, error) bool) {
	if e.FeedRoute == nil {
		yield(nil, &tributary.Error{Kind: c.kind.Type, Entity: e.Name, Action: tributary.ActionList, Err: tributary.ErrUnsupportedAction,
			Message: "a feed of tokens needs the entity's feed route"})
		return
	}
	cp := from
	if cp.Token == "" || cp.Walking {
		c.tokenWalk(ctx, e, f, base, cp, yield)
		return
	}
	tf := f.Token
	p := cp.Next
	if p == nil {
		p = f.Params(maps.Clone(base), time.Time{})
		if p == nil {
			p = tributary.Params{}
		}
		p[tf.Param] = cp.Token
	}
	pg := c.feedPager(e, f, p)
	next := func() (*pagination.Page[tributary.Record], error) {
		page, err := pg.Next(ctx)
		var te *tributary.Error
		if err != nil && errors.As(err, &te) && slices.Contains(tf.Expired, te.StatusCode) {
			// The source no longer knows the token: the copy is read in
			// full again, from a new one.
			err = &tributary.Error{Kind: c.kind.Type, Entity: e.Name, Action: tributary.ActionList, StatusCode: te.StatusCode, Code: te.Code,
				Err: tributary.ErrCursorExpired, Message: "the source no longer accepts the feed's token: " + te.Message, Cause: te}
		}
		return page, err
	}
	for pg.More() {
		page, err := next()
		if err != nil {
			yield(nil, err)
			return
		}
		items := page.Items
		// A feed read again (Reread) takes the pages that follow with it,
		// up to RereadPages: one walk reads the changes of them all,
		// where a walk a page would read a later page's changes again.
		for n := 1; f.Reread != nil && page.Next != nil && n < RereadPages && pg.More(); n++ {
			if page, err = next(); err != nil {
				yield(nil, err)
				return
			}
			items = append(items, page.Items...)
		}
		ch, err := c.unwrap(e, f, items)
		if err == nil && f.Reread != nil && len(ch.Records) > 0 {
			ch.Records, err = c.reread(ctx, e, f, base, items, ch)
		}
		if err != nil {
			yield(nil, err)
			return
		}
		if page.Next != nil {
			cp.Next = tributary.Params(page.Next)
		} else {
			tok, _ := lookup(page.Meta, tf.New).(string)
			if tok == "" {
				yield(nil, c.unexpected(e.Name, tributary.ActionList, 0, fmt.Sprintf("the feed's last page names no token to go on from (no %s)", tf.New), nil))
				return
			}
			cp.Next, cp.Token = nil, tok
		}
		ch.Checkpoint = cp
		if !yield(ch, nil) {
			return
		}
	}
}

// tokenWalk is a feed of tokens' first read: a start token, unless the
// checkpoint holds one of a walk under way, then every record of the
// entity's list; the last page's checkpoint keeps the token for the next
// pass.
func (c *Connector) tokenWalk(ctx context.Context, e *Entity, f *tributary.Feed, base tributary.Params, cp tributary.Checkpoint, yield func(*tributary.Changes, error) bool) {
	if cp.Token == "" {
		tok, err := c.startToken(ctx, e, f, base)
		if err != nil {
			yield(nil, err)
			return
		}
		cp.Token, cp.Next = tok, nil
	}
	c.walkList(ctx, e, base, cp, yield)
}

// walkList is a feed's full read from cp (cp.Next, when a walk was under
// way): every record of the entity's list, each page with cp, Walking
// until the last page.
func (c *Connector) walkList(ctx context.Context, e *Entity, base tributary.Params, cp tributary.Checkpoint, yield func(*tributary.Changes, error) bool) {
	cp.Walking = true
	p := cp.Next
	if p == nil {
		p = maps.Clone(base)
	}
	pg := c.Pager(e.Name, tributary.ActionList, p)
	read := false
	for pg.More() {
		page, err := pg.Next(ctx)
		if err != nil {
			yield(nil, err)
			return
		}
		read = true
		cp.Next = tributary.Params(page.Next)
		cp.Walking = page.Next != nil
		if !yield(&tributary.Changes{Records: page.Items, Checkpoint: cp}, nil) {
			return
		}
	}
	if !read { // an empty list still keeps its token
		cp.Next, cp.Walking = nil, false
		yield(&tributary.Changes{Checkpoint: cp}, nil)
	}
}

// startToken asks the source for a token for the changes from now: the
// feed's Start endpoint, or its route asked with no token, which answers
// a status of Expired with a fresh token.
func (c *Connector) startToken(ctx context.Context, e *Entity, f *tributary.Feed, base tributary.Params) (string, error) {
	tf := f.Token
	p := f.Params(maps.Clone(base), time.Time{})
	delete(p, tf.Param)
	rt, field := *e.FeedRoute, tf.ExpiredToken
	rt.Paging = nil
	if tf.Start != nil {
		rt, field = Route{Path: tf.Start.Path}, tf.Start.Field
		for k := range p { // only what the endpoint's path takes, and the feed's scope
			if !strings.Contains(rt.Path, "{"+k+"}") && !strings.Contains(rt.Path, "{+"+k+"}") && !slices.Contains(e.FeedRoute.Query, k) {
				delete(p, k)
			}
		}
	}
	status, body, err := c.readAny(ctx, e.Name, rt, p)
	if err != nil {
		return "", err
	}
	if tf.Start == nil && !slices.Contains(tf.Expired, status) && (status < 200 || status > 299) {
		return "", c.unexpected(e.Name, tributary.ActionList, status, fmt.Sprintf("asked for a token, the source answered HTTP %d", status), nil)
	}
	raw, _ := jsonx.Lookup(body, strings.Split(field, ".")...)
	tok, ok := jsonx.String(raw)
	if !ok || tok == "" {
		return "", c.unexpected(e.Name, tributary.ActionList, status, fmt.Sprintf("asked for a token, the source's answer has none at %s", field), nil)
	}
	return tok, nil
}

// readAny sends a route's request and returns its status and body
// whatever the status: a token may come with an error status. A status
// outside 2xx and the feed's Expired becomes the usual error.
func (c *Connector) readAny(ctx context.Context, entity string, rt Route, p tributary.Params) (int, []byte, error) {
	req, err := c.build(ctx, rt, p)
	if err != nil {
		return 0, nil, c.invalid(entity, tributary.ActionList, err)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, nil, c.transportError(ctx, entity, tributary.ActionList, req, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	if err != nil {
		return 0, nil, c.brokenBody(ctx, entity, tributary.ActionList, resp.StatusCode, err)
	}
	e := c.byName[entity]
	if (resp.StatusCode < 200 || resp.StatusCode > 299) && (e == nil || e.Feed == nil || e.Feed.Token == nil || !slices.Contains(e.Feed.Token.Expired, resp.StatusCode)) {
		return 0, nil, c.httpError(entity, tributary.ActionList, resp, body)
	}
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		if be := c.bodyError(entity, tributary.ActionList, resp, body); be != nil {
			return 0, nil, be
		}
	}
	return resp.StatusCode, body, nil
}

// unwrap splits a feed page's records into the entity's records and its
// deletions (Feed.Deleted), each read at Feed.Unwrap, a deletion without
// a record there becoming its DeletedID under the entity's IDField.
func (c *Connector) unwrap(e *Entity, f *tributary.Feed, items []tributary.Record) (*tributary.Changes, error) {
	ch := &tributary.Changes{}
	for _, r := range items {
		deleted := f.Deleted != nil && f.Deleted(r)
		rec := r
		if f.Unwrap != "" {
			raw, ok := r.Lookup(f.Unwrap)
			if ok && !jsonx.IsNull(raw) {
				rec = tributary.NewRecord(raw)
			} else {
				rec = tributary.Record{}
			}
		}
		if deleted && rec.IsZero() && f.DeletedID != "" {
			id, ok := r.Field(f.DeletedID)
			if !ok {
				continue
			}
			field := e.IDField
			if field == "" {
				field = "id"
			}
			var err error
			if rec, err = tributary.RecordOf(map[string]any{field: id}); err != nil {
				return nil, err
			}
		}
		switch {
		case rec.IsZero():
			// Nothing of the entity (a change of something else).
		case deleted:
			ch.Deleted = append(ch.Deleted, rec)
		default:
			ch.Records = append(ch.Records, rec)
		}
	}
	return ch, nil
}

// reread reads the records pages of references (items) name as changed
// (Feed.Reread): one walk of the entity's list with base and the
// earliest time of their changes, then, with Reread.Get, each record
// ch names (items unwrapped) that the walk did not return and that the
// items do not delete last, by its id, kept if a Member of base.
func (c *Connector) reread(ctx context.Context, e *Entity, f *tributary.Feed, base tributary.Params, items []tributary.Record, ch *tributary.Changes) ([]tributary.Record, error) {
	var first time.Time
	for _, r := range items {
		if f.Deleted != nil && f.Deleted(r) {
			continue
		}
		v, _ := r.Field(f.Reread.At)
		t, ok := tributary.ParseChanged(v)
		if !ok {
			return nil, c.unexpected(e.Name, tributary.ActionList, 0, "a change of the feed has no time at "+f.Reread.At, nil)
		}
		if first.IsZero() || t.Before(first) {
			first = t
		}
	}
	p := maps.Clone(base)
	if p == nil {
		p = tributary.Params{}
	}
	p[f.Reread.Param] = first.UTC().Format(time.RFC3339Nano)
	var out []tributary.Record
	read := map[string]bool{}
	for r, err := range c.Walk(ctx, e.Name, p) {
		if err != nil {
			return nil, err
		}
		out = append(out, r)
		if key, _, ok := recordID(e, r); ok {
			read[key] = true
		}
	}
	if f.Reread.Get == "" {
		return out, nil
	}
	// The items' last word on each record: a change (true) or a
	// deletion (false); events are oldest first.
	last := map[string]bool{}
	for _, item := range items {
		one, err := c.unwrap(e, f, []tributary.Record{item})
		if err != nil {
			return nil, err
		}
		for changed, recs := range map[bool][]tributary.Record{true: one.Records, false: one.Deleted} {
			for _, r := range recs {
				if key, _, ok := recordID(e, r); ok {
					last[key] = changed
				}
			}
		}
	}
	for _, r := range ch.Records {
		key, id, ok := recordID(e, r)
		if !ok || read[key] || !last[key] {
			continue
		}
		read[key] = true
		rec, err := c.Get(ctx, e.Name, tributary.Params{f.Reread.Get: id})
		if errors.Is(err, tributary.ErrNotFound) {
			continue // deleted since: the feed's deletion follows
		}
		if err != nil {
			return nil, err
		}
		if f.Reread.Member == nil || f.Reread.Member(base, rec) {
			out = append(out, rec)
		}
	}
	return out, nil
}

// recordID returns the id of a record of e (at its IDField, "id" when
// unset) as a map key and as the value itself.
func recordID(e *Entity, r tributary.Record) (string, any, bool) {
	field := e.IDField
	if field == "" {
		field = "id"
	}
	v, ok := r.Field(field)
	if !ok || v == nil {
		return "", nil, false
	}
	key, err := json.Marshal(v)
	return string(key), v, err == nil
}

// lookup follows a dot path into decoded meta.
func lookup(m map[string]any, path string) any {
	var v any = m
	for step := range strings.SplitSeq(path, ".") {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[step]
	}
	return v
}
