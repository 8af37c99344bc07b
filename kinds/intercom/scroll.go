package intercom

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"time"

	"github.com/tributary-dev/tributary"
)

// List implements tributary.Connector. A page of a scroll over companies
// (scroll_param) takes no other params; it is sent once, never repeated
// after a dropped connection or a 5xx (Intercom moves a scroll on as it
// answers, so a repeat could skip a page): such a failure is an error, and
// the scroll must be started again. A 429 is waited out and sent again.
//
// A scroll_param that Intercom no longer knows (the scroll was left unused
// for over a minute, or it ended) is tributary.ErrCursorExpired, not
// ErrInvalidParams: nothing in the request was wrong, but the scroll is
// gone and must be opened again ("" as scroll_param, or a new walk).
func (c *Client) List(ctx context.Context, entity string, p tributary.Params) (*tributary.Page, error) {
	if err := scrollConflict(entity, p); err != nil {
		return nil, err
	}
	page, err := c.Connector.List(ctx, entity, p)
	if err != nil && entity == "companies" {
		if s, _ := p["scroll_param"].(string); s != "" {
			err = scrollExpired(err)
		}
	}
	return page, err
}

// scrollExpired turns Intercom's refusal of a scroll_param it no longer
// knows (400 parameter_invalid "scroll_param is invalid or has expired",
// or a 404) into tributary.ErrCursorExpired, keeping the status, code,
// message and request id.
func scrollExpired(err error) error {
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(te.Err, tributary.ErrInvalidParams) && !errors.Is(te.Err, tributary.ErrNotFound) {
		return err
	}
	if te.StatusCode != http.StatusBadRequest && te.StatusCode != http.StatusNotFound {
		return err
	}
	out := *te
	out.Err, out.Param = tributary.ErrCursorExpired, ""
	out.Message = "the company scroll has expired or ended at Intercom (a scroll unused for a minute is closed); start the walk again"
	if te.Message != "" {
		out.Message += " (Intercom: " + te.Message + ")"
	}
	return &out
}

// scrollConflict rejects per_page and starting_after beside scroll_param:
// GET /companies/scroll takes neither.
func scrollConflict(entity string, p tributary.Params) error {
	if entity != "companies" || p["scroll_param"] == nil {
		return nil
	}
	for _, k := range []string{"per_page", "starting_after"} {
		if p[k] != nil {
			return &tributary.Error{Kind: Type, Entity: entity, Action: tributary.ActionList, Param: k, Err: tributary.ErrInvalidParams,
				Message: "a scroll (scroll_param) takes no " + k + ": Intercom sets the size and order of scroll pages"}
		}
	}
	return nil
}

// scrollExpiry is how long Intercom keeps an unused scroll open, with a
// margin: opening a scroll waits at most this long for the workspace's
// open scroll to expire.
const scrollExpiry = time.Minute + 5*time.Second

// minScrollPoll is the shortest wait between two attempts to open a scroll
// while another one is open.
const minScrollPoll = 250 * time.Millisecond

// openScroll opens a scroll. While the workspace has another scroll open
// (Intercom's 400 scroll_exists: a scroll this process lost to a dropped
// connection, one an unfinished walk left, or someone else's), it tries
// again with growing waits until that scroll must have expired, unless the
// retry policy allows no retries.
func (c *Client) openScroll(ctx context.Context) (*tributary.Page, error) {
	start := time.Now()
	for attempt := 0; ; attempt++ {
		page, err := c.Connector.List(ctx, "companies", tributary.Params{"scroll_param": ""})
		var te *tributary.Error
		if err == nil || c.retry.MaxRetries == 0 || !errors.As(err, &te) || te.Code != "scroll_exists" {
			return page, err
		}
		poll := max(c.retry.MinBackoff, minScrollPoll)
		wait := backoff(poll, max(c.retry.MaxBackoff, poll), attempt)
		if time.Since(start)+wait > scrollExpiry || !fits(ctx, wait) {
			return page, err
		}
		if err := sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// backoff doubles lo attempt times, without passing hi.
func backoff(lo, hi time.Duration, attempt int) time.Duration {
	d := lo
	for range attempt {
		if d >= hi/2 {
			return hi
		}
		d *= 2
	}
	return min(d, hi)
}

// fits reports whether waiting d stays within ctx's deadline.
func fits(ctx context.Context, d time.Duration) bool {
	dl, ok := ctx.Deadline()
	return !ok || time.Now().Add(d).Before(dl)
}

// sleep waits d, or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return &tributary.Error{Kind: Type, Entity: "companies", Action: tributary.ActionList, Err: ctx.Err(), Message: "request cancelled"}
	case <-t.C:
		return nil
	}
}

// Walk implements tributary.Walker, which tributary.All and the handles'
// All use: it yields every record of entity from p.
//
// Companies are walked with the plain list (GET /companies, per_page 150);
// when that list ends at Intercom's 10,000-company limit, the walk goes on
// with GET /companies/scroll and yields the companies the list did not
// reach. Each company is yielded once: the walk remembers the ids it
// yielded (about 20 bytes each).
//
// Intercom allows one open scroll per workspace, and keeps an unused one
// open for a minute: a walk left unfinished blocks the next scroll for that
// long. While another scroll is open, the walk tries again with growing
// waits (the retry policy's backoff, at least 250ms) for up to a minute
// and five seconds, or the context's deadline, then returns Intercom's
// error (code scroll_exists). With a retry policy of no retries it returns
// that error at once.
//
// When a scroll fails midway (a 5xx, which Intercom answers with "restart
// the scroll operation"; a dropped connection, after which the lost page
// cannot be asked for again; a scroll_param that expired because the loop
// body took over a minute), the walk opens a new scroll, waiting for the
// broken one to expire where Intercom keeps it open, and skips the
// companies already yielded; it does so up to three times in a row
// without a new company in between. A walk whose scroll keeps expiring
// (a loop body slower than Intercom's minute) then ends with
// tributary.ErrCursorExpired: the walk must be started again, and
// replica.Sync does that on its own.
//
// With starting_after the walk goes on from that cursor with the plain
// list only; with scroll_param it scrolls ("" opens a new scroll).
func (c *Client) Walk(ctx context.Context, entity string, p tributary.Params) iter.Seq2[tributary.Record, error] {
	if entity != "companies" {
		return c.Connector.Walk(ctx, entity, p)
	}
	if p["scroll_param"] != nil {
		return func(yield func(tributary.Record, error) bool) {
			if err := scrollConflict(entity, p); err != nil {
				yield(tributary.Record{}, err)
				return
			}
			if _, err := tributary.Validate(Type, c.Entities(), entity, tributary.ActionList, p); err != nil {
				yield(tributary.Record{}, err)
				return
			}
			s, _ := p["scroll_param"].(string)
			c.scroll(ctx, s, s == "", newIDSet(), yield)
		}
	}
	if p["starting_after"] != nil {
		return c.Connector.Walk(ctx, entity, p)
	}
	return func(yield func(tributary.Record, error) bool) {
		seen := newIDSet()
		listed := 0
		for rec, err := range c.Connector.Walk(ctx, entity, p) {
			if err != nil {
				yield(rec, err)
				return
			}
			listed++
			if !seen.add(recordID(rec)) {
				continue
			}
			if !yield(rec, nil) {
				return
			}
		}
		if listed >= companyListLimit {
			c.scroll(ctx, "", true, seen, yield)
		}
	}
}

// maxScrollRestarts bounds how often a walk reopens a failed scroll in a
// row without a new company reached in between (a restart that makes
// progress resets the count, as a resumed download does).
const maxScrollRestarts = 3

// scroll yields the companies of a scroll that are not in seen, from
// scroll_param param ("" opens a new scroll). When restartable, a scroll
// that fails is opened again.
func (c *Client) scroll(ctx context.Context, param string, restartable bool, seen *idSet, yield func(tributary.Record, error) bool) {
	restarts := 0
	for {
		var page *tributary.Page
		var err error
		if param == "" {
			page, err = c.openScroll(ctx)
		} else {
			page, err = c.List(ctx, "companies", tributary.Params{"scroll_param": param})
		}
		if err != nil {
			if restartable && restarts < maxScrollRestarts && ctx.Err() == nil && scrollBroken(err, param == "") {
				restarts++
				param = ""
				continue
			}
			yield(tributary.Record{}, err)
			return
		}
		for _, rec := range page.Records {
			// A cancelled walk stops at once, also in the middle of a page
			// already in memory.
			if err := ctx.Err(); err != nil {
				yield(tributary.Record{}, &tributary.Error{Kind: Type, Entity: "companies", Action: tributary.ActionList, Err: err, Message: "request cancelled"})
				return
			}
			if !seen.add(recordID(rec)) {
				continue
			}
			restarts = 0 // progress: a later break may be restarted again
			if !yield(rec, nil) {
				return
			}
		}
		if page.Next == nil {
			return
		}
		param, _ = page.Next["scroll_param"].(string)
	}
}

// scrollBroken reports whether a failed scroll request means that the
// scroll is gone and a new one is the way on: a 5xx or a dropped
// connection, or, past the opening request, a scroll_param refused as
// unknown or expired (ErrCursorExpired). A 400 to the opening request
// (another scroll is open: scroll_exists) is final.
func scrollBroken(err error, opening bool) bool {
	var te *tributary.Error
	if !errors.As(err, &te) {
		return false
	}
	return errors.Is(te.Err, tributary.ErrServer) || !opening && errors.Is(te.Err, tributary.ErrCursorExpired)
}

// recordID returns a record's "id" ("" when it has none).
func recordID(r tributary.Record) string {
	id, _ := r.StringAt("id")
	return id
}
