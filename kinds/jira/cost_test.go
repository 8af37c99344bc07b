//go:build !race

// Without the race detector (its step in CI skips it): 10,000 issues.

package jira_test

import (
	"os"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/jira/jiratest"
	"github.com/tributary-dev/tributary/replica"
)

// After 1% of 10,000 issues changed, an incremental sync of issues reads
// its feed in 2% of a full walk's requests (100 pages of 100 issues): the
// 100 changed issues and the one the checkpoint ended on, read again, two
// pages. A connector reads the user's time zone once, one request more in
// its first incremental sync; a sweep of the ids, when due, costs 2
// requests more (5,000 ids a page), once an hour.
//
// By default 2,000 issues 20 a page, the same 100 pages in a few seconds;
// TRIBUTARY_JIRA_COST_FULL=1 runs it at 10,000 issues 100 a page.
func TestIncrementalCostOfIssues(t *testing.T) {
	n, page := 2_000, 20
	if os.Getenv("TRIBUTARY_JIRA_COST_FULL") != "" {
		n, page = 10_000, 100
	}
	clock := fakeserver.NewClock(time.Now().UTC().Truncate(time.Second))
	srv := jiratest.New(jiratest.WithIssues(n), jiratest.WithClock(clock), jiratest.WithPageSize(page))
	defer srv.Close()
	c := open(t, srv)
	path := t.TempDir() + "/copy.db"
	r := durableAt(t, path, c)
	full := syncOne(t, r, "issues")
	if full.Inserted != int64(n) {
		t.Fatalf("full copy: %+v", full)
	}
	clock.Advance(10 * time.Minute)
	ids := srv.IDs("issues")
	for i := 0; i < n; i += 100 {
		if err := srv.Update("issues", ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	inc := syncOne(t, r, "issues")
	if inc.Updated != int64(n/100) || inc.Swept != nil {
		t.Fatalf("incremental: %+v", inc)
	}
	// The zone is read once per connector, in the first incremental sync.
	if feed := inc.Usage.Requests - 1; 100*feed > 2*full.Usage.Requests {
		t.Errorf("incremental sync: %d feed requests, full walk %d: more than 2%%", feed, full.Usage.Requests)
	}
	again := syncOne(t, r, "issues")
	if again.Usage.Requests != 1 {
		t.Errorf("a sync with nothing changed: %d requests, want the feed's one", again.Usage.Requests)
	}
	r.Close()
	r = durableAt(t, path, c, replica.WithReconcile(time.Nanosecond))
	swept := syncOne(t, r, "issues")
	if swept.Swept == nil || swept.Swept.Requests != int64((n+4999)/5000) || swept.Swept.Live != int64(n) {
		t.Fatalf("sweep: %+v", swept.Swept)
	}
	t.Logf("%d issues: full walk %d requests; incremental after 1%% changed %d; a sweep %d (with its sync's feed %d)", n,
		full.Usage.Requests, inc.Usage.Requests, swept.Swept.Requests, swept.Usage.Requests)
}
