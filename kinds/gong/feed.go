package gong

import (
	"fmt"
	"maps"
	"time"

	"github.com/tributary-dev/tributary"
)

// DefaultFeedLookback is how far before the checkpoint the calls feeds read
// again on every sync (see WithFeedLookback). Gong's call lists filter on
// when a call started and carry no last-modified time, yet a call changes
// after it took place: it appears once its recording is processed, and its
// parties, CRM context, transcript-derived content and comments are added
// in the following hours and days. Seven days covers that processing and
// the usual follow-up edits at the price of re-reading a week of calls per
// sync (a page per 100 calls); a change made later is found only by a full
// walk.
const DefaultFeedLookback = 7 * 24 * time.Hour

// feedOverlap absorbs clock skew and calls that start in the same second.
const feedOverlap = time.Minute

const settingFeedLookback = "gong.feed_lookback"

// WithFeedLookback sets how far before the checkpoint the change feeds of
// calls and calls_extensive look back on every sync (default
// DefaultFeedLookback); a longer lookback catches later edits of calls at
// the cost of more requests.
func WithFeedLookback(d time.Duration) tributary.Option {
	return tributary.WithSetting(settingFeedLookback, d.String())
}

func feedLookback(o tributary.Options) (time.Duration, error) {
	v := o.Settings[settingFeedLookback]
	if v == "" {
		return DefaultFeedLookback, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, &tributary.Error{Kind: Type, Param: settingFeedLookback, Err: tributary.ErrInvalidParams,
			Message: fmt.Sprintf("feed lookback %q is not a non-negative duration", v)}
	}
	return d, nil
}

// isoSince renders a feed's since as Gong's ISO-8601 date-time.
func isoSince(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// callsFeed is the feed of GET /v2/calls: fromDateTime from the checkpoint,
// no toDateTime (up to now), the caller's workspaceId kept.
func callsFeed(lookback time.Duration) *tributary.Feed {
	return &tributary.Feed{
		Doc: "GET /v2/calls?fromDateTime= (calls that started at or after it, oldest first, records.cursor paging); " +
			"Gong keeps no last-modified time, so every sync reads again the calls that started within the lookback " +
			"(default 7 days) to catch later changes; no deletions are reported",
		Params: func(base tributary.Params, since time.Time) tributary.Params {
			p := tributary.Params{}
			if ws, ok := base["workspaceId"]; ok {
				p["workspaceId"] = ws
			}
			if !since.IsZero() {
				p["fromDateTime"] = isoSince(since)
			}
			return p
		},
		Changed:  "started",
		Overlap:  feedOverlap,
		Lookback: lookback,
	}
}

// callsExtensiveFeed is the feed of POST /v2/calls/extensive: the caller's
// filter and content selector, with filter.fromDateTime from the
// checkpoint and no toDateTime.
func callsExtensiveFeed(lookback time.Duration) *tributary.Feed {
	return &tributary.Feed{
		Doc: "POST /v2/calls/extensive with filter.fromDateTime (the caller's filter and contentSelector kept, " +
			"toDateTime dropped; oldest first, cursor in the body); like calls, it reads again the calls that started " +
			"within the lookback, as Gong keeps no last-modified time; no deletions are reported",
		Params: func(base tributary.Params, since time.Time) tributary.Params {
			p := maps.Clone(base)
			if p == nil {
				p = tributary.Params{}
			}
			delete(p, "cursor")
			filter := map[string]any{}
			if f, ok := base["filter"].(map[string]any); ok {
				filter = maps.Clone(f)
			}
			delete(filter, "toDateTime")
			delete(filter, "fromDateTime")
			if !since.IsZero() {
				filter["fromDateTime"] = isoSince(since)
			}
			p["filter"] = filter
			return p
		},
		Changed:  "metaData.started",
		Overlap:  feedOverlap,
		Lookback: lookback,
	}
}
