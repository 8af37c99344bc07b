//go:build !race

// Without the race detector (its step in CI skips it): about 16,000
// records (77,000 with TRIBUTARY_LONG=1).
//
// The GitHub fan-out (issue 27, "Performance"): a full sync of every
// searchable GitHub entity, with no params, of an account whose token
// reads 50 repositories of 200 issues and pull requests with 5 comments
// each, into a SQLite file, against a fake enforcing GitHub's primary
// rate limit (5,000 requests an hour); a fifth of both in the README's
// test command (fanScale). The test runs in a
// testing/synctest bubble, on the bubble's clock, which the fake's
// window and the connector's pacing both read: the hours of budget the
// sync needs take seconds, and are measured exactly.

package replica_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"text/tabwriter"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/github"
	"github.com/tributary-dev/tributary/kinds/github/githubtest"
	"github.com/tributary-dev/tributary/replica"
)

// The fan-out's data set: 50 repositories, each with 200 numbers (100
// issues and 100 pull requests: GitHub's issue list returns both), every
// one with 5 comments; the fake's defaults for the rest (commits,
// branches, releases, labels, stargazers, organizations and teams).
const (
	fanRepos    = 50
	fanIssues   = 100
	fanPulls    = 100
	fanComments = 5
	// ghPerPage is GitHub's largest page, and ghHourly its primary rate
	// limit for a token.
	ghPerPage = 100
	ghHourly  = 5000
)

// fanScale is the fan-out the budget test syncs: fanRepos repositories
// against GitHub's 5,000 requests an hour with TRIBUTARY_LONG=1 (CI's
// step of the sync at length, and the figures of docs/performance.md),
// and otherwise a fifth of both, 10 repositories against 1,000 requests
// an hour: the same work for each hour of budget, so the sync still runs
// through one hour's budget into the next, in a fifth of the time.
func fanScale() (repos, hourly int) {
	if os.Getenv("TRIBUTARY_LONG") != "" {
		return fanRepos, ghHourly
	}
	return fanRepos / 5, ghHourly / 5
}

// fanServer starts the fan-out's fake with repos repositories; with
// hourly > 0, it refuses requests over hourly an hour on clock (GitHub's
// primary limit).
func fanServer(clock *fakeserver.Clock, repos, hourly int) *githubtest.Server {
	opts := []githubtest.Option{githubtest.WithRepos(repos), githubtest.WithIssues(fanIssues), githubtest.WithPulls(fanPulls),
		githubtest.WithCommentsPerIssue(fanComments)}
	if clock != nil {
		opts = append(opts, githubtest.WithClock(clock))
	}
	if hourly > 0 {
		opts = append(opts, githubtest.WithCoreLimit(hourly), githubtest.WithCoreWindow(time.Hour))
	}
	return githubtest.New(opts...)
}

// wire counts what the connector sent and what the fake answered: the
// requests of each endpoint (the path with its owner, repo and numbers
// generalized), the throttled answers, and the requests answered in each
// rate-limit window (by x-ratelimit-reset).
type wire struct {
	next http.RoundTripper

	mu        sync.Mutex
	endpoints map[string]int
	windows   map[int64]int
	throttled int
}

func newWire(next http.RoundTripper) *wire {
	return &wire{next: next, endpoints: map[string]int{}, windows: map[int64]int{}}
}

// endpointOf generalizes a request path: /repos/octo/repo-7/pulls/12/reviews
// becomes /repos/{o}/{r}/pulls/{n}/reviews.
var (
	repoPathRE = regexp.MustCompile(`^/repos/[^/]+/[^/]+`)
	orgPathRE  = regexp.MustCompile(`^/(orgs|users)/[^/]+`)
	numberRE   = regexp.MustCompile(`/[0-9]+(/|$)`)
)

func endpointOf(r *http.Request) string {
	p := repoPathRE.ReplaceAllString(r.URL.Path, "/repos/{o}/{r}")
	p = orgPathRE.ReplaceAllString(p, "/$1/{x}")
	p = numberRE.ReplaceAllString(p, "/{n}$1")
	return r.Method + " " + p
}

func (w *wire) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := w.next.RoundTrip(r)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.endpoints[endpointOf(r)]++
	if err != nil {
		return resp, err
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusForbidden && resp.Header.Get("X-RateLimit-Remaining") == "0" {
		w.throttled++
		return resp, nil
	}
	if reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil && resp.Header.Get("X-RateLimit-Resource") == "core" {
		w.windows[reset]++
	}
	return resp, nil
}

// fanRun is one full sync of the fan-out.
type fanRun struct {
	rep  *replica.Report
	took time.Duration
	wire *wire
}

// syncFanOut syncs every syncable GitHub entity of the fake at url, through
// rt, into a new SQLite file in dir.
func syncFanOut(tb testing.TB, url string, rt http.RoundTripper, dir string, opts ...tributary.Option) fanRun {
	tb.Helper()
	w := newWire(rt)
	c, err := github.New(github.Credentials{Token: githubtest.DefaultToken}, append([]tributary.Option{tributary.WithBaseURL(url),
		tributary.WithHTTPClient(&http.Client{Transport: w})}, opts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	r, err := replica.Open(context.Background(), c, replica.SQLite(dir+"/github.db"))
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	start := time.Now()
	rep, err := r.Sync(context.Background(), replica.Syncable(c.Entities())...)
	took := time.Since(start)
	if err != nil {
		tb.Fatal(err)
	}
	return fanRun{rep: rep, took: took, wire: w}
}

// fanCost is one entity's requests per record, and the fewest GitHub's
// best endpoint for it allows.
type fanCost struct {
	entity            string
	records, requests int64
	best              int64
}

func (c fanCost) perRecord() float64     { return float64(c.requests) / float64(max(c.records, 1)) }
func (c fanCost) bestPerRecord() float64 { return float64(c.best) / float64(max(c.records, 1)) }

// costs computes each entity's requests per record and the best
// possible: GitHub's best list for each, at 100 records a page, one walk
// per part (repository, organization, pull request), with the parts
// themselves known for free (listing the repositories is the
// repositories entity's cost, listing the pull requests the
// pull_requests entity's). Repository-level lists read each repository's
// records in ceil(n/100) pages; the issue list returns pull requests too,
// so its pages hold both; reviews have no list but a pull request's (one
// request each); members and teams one list per organization.
func (run fanRun) costs() []fanCost {
	inserted := map[string]int64{}
	for _, e := range run.rep.Entities {
		inserted[e.Entity] = e.Inserted
	}
	pages := func(parts, records int64) int64 {
		if parts == 0 {
			return 0
		}
		per := (records + parts - 1) / parts
		return parts * max(1, (per+ghPerPage-1)/ghPerPage)
	}
	var out []fanCost
	for _, e := range run.rep.Entities {
		c := fanCost{entity: e.Entity, records: e.Inserted, requests: e.Usage.Requests}
		switch e.Entity {
		case "repositories", "organizations":
			c.best = pages(1, e.Inserted)
		case "users", "teams":
			c.best = pages(inserted["organizations"], e.Inserted)
		case "reviews":
			c.best = inserted["pull_requests"]
		case "issues":
			c.best = pages(inserted["repositories"], e.Inserted+inserted["pull_requests"])
		default:
			c.best = pages(inserted["repositories"], e.Inserted)
		}
		out = append(out, c)
	}
	return out
}

// table formats the costs, then the requests of each endpoint.
func (run fanRun) table() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "entity\trecords\trequests\trequests/record\tbest\tbest/record\t")
	var recs, reqs, best int64
	for _, c := range run.costs() {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.4f\t%d\t%.4f\t\n", c.entity, c.records, c.requests, c.perRecord(), c.best, c.bestPerRecord())
		recs, reqs, best = recs+c.records, reqs+c.requests, best+c.best
	}
	fmt.Fprintf(tw, "all\t%d\t%d\t%.4f\t%d\t%.4f\t\n", recs, reqs, float64(reqs)/float64(recs), best, float64(best)/float64(recs))
	tw.Flush()
	b.WriteString("\nrequests by endpoint:\n")
	for _, k := range slices.Sorted(maps.Keys(run.wire.endpoints)) {
		fmt.Fprintf(&b, "%6d  %s\n", run.wire.endpoints[k], k)
	}
	return b.String()
}

// TestGitHubFanOutBudget: a full sync of every searchable GitHub entity of
// 50 repositories × 200 issues and pull requests × 5 comments, against a
// fake enforcing 5,000 requests an hour, into SQLite: not one throttled
// answer, and at least 90% of every hour's budget the sync waited on
// used; each entity at no more than twice the requests of GitHub's best
// endpoint for it. The table (-v) gives requests per record. The README's
// test command syncs a fifth of it against a fifth of the budget
// (fanScale); the whole one:
//
//	TRIBUTARY_LONG=1 go test -run GitHubFanOutBudget -v ./replica/
func TestGitHubFanOutBudget(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("16,000 records (77,000 with TRIBUTARY_LONG)")
	}
	// The fake is started outside the bubble (a goroutine waiting on a
	// socket would keep its clock from moving); the connector reaches its
	// handlers in-process, inside the bubble, so the fake's window and
	// the connector's pacing read one clock.
	repos, hourly := fanScale()
	fake := fanServer(fakeserver.NewRealClock(), repos, hourly)
	defer fake.Close()
	dir := t.TempDir()
	realNow := time.Now()
	synctest.Test(t, func(t *testing.T) {
		// The bubble's clock starts in 2000; move it past now (the fake's
		// data was made now), to the start of an hour: the sync's first
		// window is a whole one.
		time.Sleep(time.Until(realNow.Truncate(time.Hour).Add(time.Hour)))
		run := syncFanOut(t, fake.URL, fake.Transport(), dir)
		t.Logf("%s of the bubble's clock\n%s", run.took.Round(time.Second), run.table())

		var n, throttled int64
		for _, e := range run.rep.Entities {
			n += e.Usage.Requests
			throttled += e.Usage.Throttled + e.Usage.Retries
		}
		if throttled != 0 || run.wire.throttled != 0 {
			t.Errorf("%d throttled answers or retries counted by the connector, %d rate-limit answers on the wire", throttled, run.wire.throttled)
		}
		// Each hour the sync ran through to the next is a budget it had
		// to wait on: it should have used nearly all of it. The last
		// hour's is what the sync needed to finish.
		resets := slices.Sorted(maps.Keys(run.wire.windows))
		if len(resets) < 2 {
			t.Fatalf("%d requests in %d window(s): the sync never waited on the budget, nothing measured", n, len(resets))
		}
		for _, reset := range resets[:len(resets)-1] {
			used := float64(run.wire.windows[reset]) / float64(hourly)
			t.Logf("the hour ending %s: %d requests, %.1f%% of the budget", time.Unix(reset, 0).UTC().Format(time.TimeOnly), run.wire.windows[reset], 100*used)
			if used < 0.9 {
				t.Errorf("the hour ending %s: %.1f%% of the budget used, want at least 90%%", time.Unix(reset, 0).UTC().Format(time.TimeOnly), 100*used)
			}
		}
		rate := float64(n-1) / run.took.Hours() / float64(hourly)
		t.Logf("%d requests in %s: %.0f%% of the allowed rate", n, run.took.Round(time.Second), 100*rate)

		// The data set, whole: every repository, issue, pull request and
		// comment the token can read.
		want := map[string]int64{"repositories": int64(repos), "issues": int64(repos * fanIssues), "pull_requests": int64(repos * fanPulls),
			"comments": int64(repos * (fanIssues + fanPulls) * fanComments)}
		for _, e := range run.rep.Entities {
			if w, ok := want[e.Entity]; ok && e.Inserted != w {
				t.Errorf("%s: %d records copied, the account has %d", e.Entity, e.Inserted, w)
			}
		}
		for _, c := range run.costs() {
			if c.records == 0 {
				t.Errorf("%s: nothing copied", c.entity)
			}
			if c.requests > 2*c.best {
				t.Errorf("%s: %d requests for %d records, GitHub's best endpoint needs %d", c.entity, c.requests, c.records, c.best)
			}
		}
	})
}

// BenchmarkGitHubFanOut: the same full sync, on the real clock, against a
// fake that does not enforce the hourly limit and with the connector's
// budget pacing off (on the real clock it would spread the sync's 6,000
// requests over the hour, as it should): what the sync itself costs, in
// time and in requests per record. TestGitHubFanOutBudget measures the
// sync against the budget.
//
//	go test -run '^$' -bench GitHubFanOut -benchtime 3x ./replica/
func BenchmarkGitHubFanOut(b *testing.B) {
	fake := fanServer(nil, fanRepos, 0)
	defer fake.Close()
	var run fanRun
	for b.Loop() {
		run = syncFanOut(b, fake.URL, http.DefaultTransport, b.TempDir(), github.WithBudgetPacing(false))
	}
	var recs, reqs, best int64
	for _, c := range run.costs() {
		recs, reqs, best = recs+c.records, reqs+c.requests, best+c.best
		b.ReportMetric(c.perRecord(), c.entity+"-req/record")
	}
	b.ReportMetric(float64(recs), "records")
	b.ReportMetric(float64(reqs), "requests")
	b.ReportMetric(float64(reqs)/float64(recs), "req/record")
	b.ReportMetric(float64(best)/float64(recs), "best-req/record")
	b.ReportMetric(float64(recs)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
	if os.Getenv("TRIBUTARY_FANOUT_TABLE") != "" {
		b.Log("\n" + run.table())
	}
}
