package github

import (
	"maps"
	"time"

	"github.com/tributary-dev/tributary"
)

// The change feeds of the catalogue (Entity.Feed). GitHub reports no
// deletions in any of them: a copy finds deleted issues and comments by a
// full walk.
//
// The feeds are read newest change first (direction=desc), although the
// endpoints can sort oldest first: GitHub pages them by page number, so
// a record that changes while a pass is under way moves to the end of an
// ascending order and shifts every later record one place back: the one
// at the next page's boundary is never read, and since it is older than
// the checkpoint the pass ends with, no later pass reads it either
// (TestFeedChangesDuringPassLoseNothing). In descending order the
// changed record moves to the front, which is read again by the next pass,
// and the records that shift are read twice, never skipped. A record
// deleted during a pass still shifts the rest forward in either order;
// full walks are what find deletions on GitHub.

// feedOverlap is read again before the checkpoint on every sync: GitHub's
// since has one-second precision and its clocks are not the caller's.
const feedOverlap = time.Minute

// feedPerPage is GitHub's largest page.
const feedPerPage = int64(100)

// sinceParam writes t as GitHub's since (ISO 8601, UTC, seconds).
func sinceParam(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// feedParams clones base without the caller's page, sets per_page to
// GitHub's maximum, the given params, and since unless it is zero. A since
// in base (a copy's replication_config.start_date) is a lower bound: it is
// kept when it is later than the checkpoint's.
func feedParams(base tributary.Params, since time.Time, kv ...string) tributary.Params {
	p := maps.Clone(base)
	if p == nil {
		p = tributary.Params{}
	}
	delete(p, "page")
	if s, ok := p["since"].(string); ok {
		if t, err := time.Parse(time.RFC3339, s); err == nil && t.After(since) {
			since = t
		}
	}
	delete(p, "since")
	p["per_page"] = feedPerPage
	for i := 0; i+1 < len(kv); i += 2 {
		p[kv[i]] = kv[i+1]
	}
	if !since.IsZero() {
		p["since"] = sinceParam(since)
	}
	return p
}

// issuesFeed: GET /repos/{owner}/{repo}/issues?state=all&sort=updated&
// direction=desc&since=, newest change first. The endpoint also lists pull
// requests; the list route drops them (they still count in paging).
var issuesFeed = &tributary.Feed{
	Doc: "issues list with since, state=all, sort=updated, direction=desc (newest change first: page numbers shift); GitHub reports no deleted issues: full walks find them",
	Params: func(base tributary.Params, since time.Time) tributary.Params {
		return feedParams(base, since, "state", "all", "sort", "updated", "direction", "desc")
	},
	Changed: "updated_at",
	Overlap: feedOverlap,
}

// commentsFeed: GET /repos/{owner}/{repo}/issues/comments?sort=updated&
// direction=desc&since=, the comments of every issue and pull request of the
// repository (the per-issue list has no sort). base's issue_number is left
// out: the feed covers the whole repository.
var commentsFeed = &tributary.Feed{
	Doc: "repository-wide issue comments with since, sort=updated, direction=desc (every issue of the repository, newest change first); GitHub reports no deleted comments: full walks find them",
	Params: func(base tributary.Params, since time.Time) tributary.Params {
		p := feedParams(base, since, "sort", "updated", "direction", "desc")
		delete(p, "issue_number")
		return p
	},
	Changed: "updated_at",
	Overlap: feedOverlap,
}

// commitsFeed: GET /repos/{owner}/{repo}/commits?since=, newest first
// (GitHub offers no other order; new commits arriving during a pass push
// older ones to later pages, which reads them twice, never skips them).
// Commits do not change: the feed reads new ones. since filters on the
// commit's date, so a commit pushed long after it was made (a merged old
// branch) is found only by a full walk.
var commitsFeed = &tributary.Feed{
	Doc: "commits list with since (commit date), newest first; commits never change, the feed reads new ones; no deletions (a force push is found by full walks)",
	Params: func(base tributary.Params, since time.Time) tributary.Params {
		return feedParams(base, since)
	},
	Changed: "commit.committer.date",
	Overlap: feedOverlap,
}
