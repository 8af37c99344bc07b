package jira

import (
	"strings"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/pagination"
)

// defaultWhere is the JQL restriction of a walk of every issue: the
// search refuses a query without one ("order by key" alone).
const defaultWhere = `created >= "1970/01/01"`

// defaultJQL is the query of the issues list when the caller gives none.
const defaultJQL = defaultWhere + " ORDER BY created ASC"

// SweepEvery is how long a copy of issues goes between two sweeps of the
// ids Jira still has (a JQL search never shows a deleted issue): each
// costs one request per 5,000 issues.
const SweepEvery = time.Hour

// SweepSettle: an issue of the copy that a sweep does not find is kept
// when it changed less than this before the sweep (the search index has
// not caught up with it yet); the next sweep decides.
const SweepSettle = 5 * time.Minute

// defaultSearch completes the params of the issues list: the default JQL
// when the caller gives none, and every field (the search returns ids
// only by default).
func defaultSearch(p tributary.Params) tributary.Params {
	_, jql := p["jql"]
	_, fields := p["fields"]
	if jql && fields {
		return p
	}
	out := p.Clone()
	if out == nil {
		out = tributary.Params{}
	}
	if !jql {
		out["jql"] = defaultJQL
	}
	if !fields {
		out["fields"] = []any{"*all"}
	}
	return out
}

// attachmentFields asks GET issue for the attachment field alone.
func attachmentFields(p tributary.Params) tributary.Params {
	out := p.Clone()
	out["fields"] = "attachment"
	return out
}

// restriction is the part of base's JQL before its ORDER BY, or the
// default restriction when it has none.
func restriction(base tributary.Params) string {
	jql, _ := base["jql"].(string)
	if i := strings.Index(strings.ToLower(jql), "order by"); i >= 0 {
		jql = jql[:i]
	}
	if jql = strings.TrimSpace(jql); jql == "" {
		return defaultWhere
	}
	return jql
}

// issueFeed reads the issues updated at or after since, oldest first,
// with base's restriction and fields. JQL reads a date to the minute in
// the API user's time zone: the engine gives since in that zone,
// truncated to the minute, and the issues of that minute are read again
// (and found unchanged).
func issueFeed() *tributary.Feed {
	return &tributary.Feed{
		Doc: `JQL search updated >= "yyyy/MM/dd HH:mm" ORDER BY updated ASC, to the minute in the API user's time zone (GET /rest/api/3/myself); ` +
			"deleted issues, which no search shows, are found by a sweep of the ids (fields=id, 5,000 a page) every hour",
		Params: func(base tributary.Params, since time.Time) tributary.Params {
			p := base.Clone()
			if p == nil {
				p = tributary.Params{}
			}
			delete(p, "nextPageToken")
			delete(p, "reconcileIssues")
			cond := `updated >= "1970/01/01 00:00"`
			if !since.IsZero() {
				cond = `updated >= "` + since.Format("2006/01/02 15:04") + `"`
			}
			if w := restriction(base); w != defaultWhere {
				cond = "(" + w + ") AND " + cond
			}
			p["jql"] = cond + " ORDER BY updated ASC"
			if _, ok := p["fields"]; !ok {
				p["fields"] = []any{"*all"}
			}
			return p
		},
		Changed: "fields.updated", Overlap: FeedOverlap, Precision: time.Minute,
		Zone: &tributary.Zone{Path: "/rest/api/3/myself", Field: "timeZone"},
		Sweep: &tributary.Sweep{Every: SweepEvery, Settle: SweepSettle,
			Params: func(base tributary.Params) tributary.Params {
				return tributary.Params{"jql": restriction(base), "fields": []any{"id"}, "maxResults": int64(MaxSearchResults)}
			}},
	}
}

// worklogFeed is Jira's own change feed of worklogs, across every issue:
// the ids of the worklogs updated after since (in ms, 1000 a page, the
// next page from until), read by POST /rest/api/3/worklog/list, and the
// ids of those deleted after since.
func worklogFeed() (*tributary.Feed, *engine.Route, *engine.Route) {
	since := func(_ tributary.Params, t time.Time) tributary.Params {
		return tributary.Params{"since": max(t.UnixMilli(), 0)}
	}
	page := pagination.Token{Param: "since", Field: "until", Last: "lastPage"}
	feed := &tributary.Feed{
		Doc:    "GET /rest/api/3/worklog/updated?since=<ms> (ids), then POST /rest/api/3/worklog/list for the worklogs; deletions from GET /rest/api/3/worklog/deleted",
		Params: since, Changed: "updated", Overlap: FeedOverlap, Whole: true,
		Deletions: &tributary.Feed{Doc: "GET /rest/api/3/worklog/deleted?since=<ms>", Params: since},
	}
	updated := &engine.Route{Path: "/rest/api/3/worklog/updated", Records: "values", Paging: page,
		Refs: &engine.Refs{ID: "worklogId", Param: "ids", Max: MaxWorklogIDs,
			Fetch: &engine.Route{Method: "POST", Path: "/rest/api/3/worklog/list", Body: true}}}
	deleted := &engine.Route{Path: "/rest/api/3/worklog/deleted", Records: "values", Paging: page,
		Refs: &engine.Refs{ID: "worklogId", As: "id", Text: true}}
	return feed, updated, deleted
}
