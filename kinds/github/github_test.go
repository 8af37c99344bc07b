package github_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/github"
	"github.com/tributary-dev/tributary/kinds/github/githubtest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var fast = tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, MaxRateLimitWait: 5 * time.Second})

func open(t testing.TB, srv *githubtest.Server, opts ...tributary.Option) *github.Client {
	t.Helper()
	c, err := github.New(github.Credentials{Token: githubtest.DefaultToken}, append([]tributary.Option{tributary.WithBaseURL(srv.URL), fast}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var hello = github.RepoRef{Owner: githubtest.Owner, Repo: githubtest.Repo}

// All walks every issue exactly once, newest first, with the pull requests
// GitHub mixes into the issues endpoint left out, 100 a page.
func TestAllIssuesOnceInOrderWithoutPullRequests(t *testing.T) {
	srv := githubtest.New(githubtest.WithIssues(420), githubtest.WithPulls(90))
	defer srv.Close()
	c := open(t, srv)
	numbers := srv.Total("issues") + srv.Total("pull_requests")
	want := make([]int64, 0, srv.Total("issues"))
	for x := numbers; x >= 1; x-- {
		if !srv.IsPullRequest(x) {
			want = append(want, int64(x))
		}
	}
	i := 0
	for is, err := range c.Issues().All(context.Background(), github.IssueListParams{RepoRef: hello, State: "all"}) {
		if err != nil {
			t.Fatalf("after %d issues: %v", i, err)
		}
		if i >= len(want) || is.Number != want[i] || is.ID != srv.IssueID(0, int(want[i])) || is.PullRequest != nil {
			t.Fatalf("issue %d: number %d id %d, want number %d", i, is.Number, is.ID, want[min(i, len(want)-1)])
		}
		i++
	}
	if i != len(want) {
		t.Fatalf("walked %d issues, want %d", i, len(want))
	}
	reqs := srv.Requests()
	if len(reqs) != (numbers+99)/100 {
		t.Errorf("%d requests for %d numbers at 100 a page", len(reqs), numbers)
	}
	for _, r := range reqs {
		if r.Query.Get("per_page") != "100" || r.Path != "/repos/octo/hello/issues" {
			t.Fatalf("walk request %s %v", r.Path, r.Query)
		}
		h := r.Header
		if h.Get("Authorization") != "Bearer "+githubtest.DefaultToken || h.Get("Accept") != "application/vnd.github+json" ||
			h.Get("X-GitHub-Api-Version") != "2022-11-28" || h.Get("User-Agent") == "" {
			t.Fatalf("headers %v", h)
		}
	}
}

// Page-number paging as the caller sees it: Meta next_page and last_page
// from the Link header, Next holding the following page.
func TestListPagesByNumber(t *testing.T) {
	srv := githubtest.New(githubtest.WithCommits(25))
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	page, err := c.List(ctx, "commits", tributary.Params{"owner": "octo", "repo": "hello", "per_page": 10, "page": 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) != 10 {
		t.Fatalf("%d records", len(page.Records))
	}
	if sha, _ := page.Records[0].StringAt("sha"); sha != githubtest.CommitSHA(0, 10) {
		t.Errorf("first sha %s", sha)
	}
	if page.Meta["next_page"] != int64(3) || page.Meta["last_page"] != int64(3) {
		t.Errorf("meta %v", page.Meta)
	}
	if page.Next["page"] != int64(3) || page.Next["per_page"] != int64(10) || page.Next["owner"] != "octo" {
		t.Errorf("next %v", page.Next)
	}
	last, err := c.List(ctx, "commits", page.Next)
	if err != nil {
		t.Fatal(err)
	}
	if len(last.Records) != 5 || last.Next != nil || last.Meta["next_page"] != nil {
		t.Errorf("last page: %d records, next %v, meta %v", len(last.Records), last.Next, last.Meta)
	}
}

// GitHub Enterprise Server lives under /api/v3: the prefix is kept.
func TestEnterpriseBaseURLKeepsPrefix(t *testing.T) {
	srv := githubtest.New()
	defer srv.Close()
	target, _ := url.Parse(srv.URL)
	var seen []string
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.URL.Path)
		http.StripPrefix("/api/v3", httputil.NewSingleHostReverseProxy(target)).ServeHTTP(w, r)
	}))
	defer front.Close()
	c := open(t, srv, tributary.WithBaseURL(front.URL+"/api/v3/"))
	repo, err := c.Repositories().Get(context.Background(), "octo", "hello")
	if err != nil {
		t.Fatal(err)
	}
	if repo.ID != githubtest.RepoID || len(seen) != 1 || seen[0] != "/api/v3/repos/octo/hello" {
		t.Fatalf("repo %d, paths %v", repo.ID, seen)
	}
}

// Typed handles reach every kind of key: numbers, names with spaces or
// slashes, refs, paths with slashes, the repository root.
func TestTypedHandles(t *testing.T) {
	srv := githubtest.New(githubtest.WithIssues(40), githubtest.WithPulls(10))
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	br, err := c.Branches().Get(ctx, "octo", "hello", "release/1.x")
	must(err)
	if br.Name != "release/1.x" || br.Commit.SHA == "" {
		t.Errorf("branch %+v", br)
	}
	lb, err := c.Labels().Get(ctx, "octo", "hello", "good first issue")
	must(err)
	if lb.Name != "good first issue" {
		t.Errorf("label %+v", lb)
	}
	cm, err := c.Commits().Get(ctx, "octo", "hello", "main")
	must(err)
	if cm.SHA != githubtest.CommitSHA(0, 0) || len(cm.Files) == 0 {
		t.Errorf("commit %s, %d files", cm.SHA, len(cm.Files))
	}
	pr := srv.PullNumber(0)
	p, err := c.PullRequests().Get(ctx, "octo", "hello", int64(pr))
	must(err)
	if p.Number != int64(pr) || p.Head == nil || p.Base == nil {
		t.Errorf("pull %+v", p)
	}
	rel, err := c.Releases().Get(ctx, "octo", "hello", githubtest.ReleaseTag(1))
	must(err)
	if rel.ID != srv.ReleaseID(0, 1) || len(rel.Assets) == 0 {
		t.Errorf("release %d with %d assets", rel.ID, len(rel.Assets))
	}
	f, err := c.FileContent(ctx, github.FileParams{RepoRef: hello, Path: "docs/guide.md", Ref: "main"})
	must(err)
	if f.Path != "docs/guide.md" || f.Encoding != "base64" || f.Content == "" {
		t.Errorf("file %+v", f)
	}
	root, err := c.DirectoryContent().List(ctx, github.DirectoryListParams{RepoRef: hello, Path: "/"})
	must(err)
	if len(root.Items) == 0 {
		t.Error("empty root directory")
	}
	for _, e := range root.Items {
		if strings.Contains(e.Path, "/") {
			t.Errorf("root entry %s", e.Path)
		}
	}
	v, err := c.Viewer(ctx)
	must(err)
	if v.Login != githubtest.ViewerLogin {
		t.Errorf("viewer %s", v.Login)
	}
	org, err := c.Organizations().Get(ctx, "octo")
	must(err)
	if org.ID != githubtest.OwnerID {
		t.Errorf("org %d", org.ID)
	}
	members, err := c.Users().List(ctx, github.UserListParams{Org: "octo", Paging: github.Paging{PerPage: 5}})
	must(err)
	if len(members.Items) != 5 || members.Meta["next_page"] != int64(2) {
		t.Errorf("%d members, meta %v", len(members.Items), members.Meta)
	}
	since := time.Date(2022, 1, 15, 0, 0, 0, 0, time.UTC)
	cms, err := c.Commits().List(ctx, github.CommitListParams{RepoRef: hello, Since: since, Paging: github.Paging{PerPage: 3}})
	must(err)
	if len(cms.Items) == 0 {
		t.Error("no commits since mid-January 2022")
	}
	last := srv.Requests()[len(srv.Requests())-1]
	if last.Query.Get("since") != "2022-01-15T00:00:00Z" {
		t.Errorf("since sent as %q", last.Query.Get("since"))
	}
}

// A release asset lives on the object store: the download goes there
// through GitHub's 302 without credentials, honours a range and resumes
// byte-exactly after dropped connections.
func TestReleaseAssetDownloadAcrossHostsWithRangeAndResume(t *testing.T) {
	const size = 300_000
	srv := githubtest.New(githubtest.WithAssetSize(size), githubtest.WithFileCutEvery(64<<10))
	defer srv.Close()
	c := open(t, srv)
	id := srv.AssetID(0, 0, 0)
	want, ok := srv.AssetContent(id)
	if !ok {
		t.Fatal("no asset")
	}
	s, err := c.DownloadReleaseAsset(context.Background(), "octo", "hello", id, "")
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(s)
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	if sha256.Sum256(got) != sha256.Sum256(want) || s.Size != int64(len(want)) {
		t.Fatalf("downloaded %d bytes (size %d), want %d with the same SHA-256", len(got), s.Size, len(want))
	}
	files, api := 0, 0
	for _, r := range srv.Requests() {
		switch r.Origin {
		case "files":
			files++
			if r.Header.Get("Authorization") != "" {
				t.Errorf("credentials reached the object store: %s", r.Path)
			}
		case "api":
			api++
			if r.Header.Get("Accept") != "application/octet-stream" || r.Header.Get("Authorization") == "" {
				t.Errorf("API request headers %v", r.Header)
			}
		}
	}
	if files < 4 || api != files {
		t.Errorf("%d object-store and %d API requests: the cuts were not resumed through fresh redirects", files, api)
	}

	s, err = c.DownloadReleaseAsset(context.Background(), "octo", "hello", id, "bytes=100-199")
	if err != nil {
		t.Fatal(err)
	}
	part, _ := io.ReadAll(s)
	s.Close()
	if !bytes.Equal(part, want[100:200]) || s.Range == nil || s.Range.First != 100 || s.Range.Last != 199 || s.Size != int64(len(want)) {
		t.Errorf("range: %d bytes, served %+v", len(part), s.Range)
	}
}

// Raw file content comes from the API host with the raw media type.
func TestFileDownloadRawWithRangeAndResume(t *testing.T) {
	srv := githubtest.New(githubtest.WithFileSize(200_000), githubtest.WithFileCutEvery(50_000))
	defer srv.Close()
	c := open(t, srv)
	want, _ := srv.FileContent("data/large.bin")
	s, err := c.DownloadFile(context.Background(), github.FileParams{RepoRef: hello, Path: "data/large.bin"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(s)
	s.Close()
	if err != nil || sha256.Sum256(got) != sha256.Sum256(want) {
		t.Fatalf("%d bytes, want %d: %v", len(got), len(want), err)
	}
	reqs := srv.Requests()
	if len(reqs) < 4 {
		t.Errorf("%d requests: the cuts were not resumed", len(reqs))
	}
	for _, r := range reqs {
		if r.Path != "/repos/octo/hello/contents/data/large.bin" || r.Header.Get("Accept") != "application/vnd.github.raw+json" {
			t.Errorf("request %s Accept %q", r.Path, r.Header.Get("Accept"))
		}
	}
	s, err = c.DownloadFile(context.Background(), github.FileParams{RepoRef: hello, Path: "data/large.bin", RangeHeader: "bytes=-10"})
	if err != nil {
		t.Fatal(err)
	}
	tail, _ := io.ReadAll(s)
	s.Close()
	if !bytes.Equal(tail, want[len(want)-10:]) {
		t.Errorf("suffix range: %x", tail)
	}
}

// GitHub's rate limits: the secondary limit's 429 with retry-after and the
// primary limit's 403 with x-ratelimit-remaining 0 are waited out when the
// wait fits; a primary reset beyond MaxRateLimitWait is returned at once
// as ErrRateLimited with RetryAfter; a secondary 403 without retry-after
// is not retried; 5xx are retried.
func TestRateLimits(t *testing.T) {
	ctx := context.Background()
	t.Run("secondary 429 with retry-after is waited", func(t *testing.T) {
		t.Parallel()
		srv := githubtest.New(githubtest.WithFaults(githubtest.Faults{RateLimitFirst: 1, RetryAfter: time.Second}))
		defer srv.Close()
		c := open(t, srv)
		start := time.Now()
		if _, err := c.List(ctx, "labels", tributary.Params{"owner": "octo", "repo": "hello"}); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d < time.Second || len(srv.Requests()) != 2 {
			t.Errorf("%d requests in %v", len(srv.Requests()), d)
		}
	})
	t.Run("primary 403 until reset is waited", func(t *testing.T) {
		t.Parallel()
		srv := githubtest.New(githubtest.WithRateLimitStyle(githubtest.PrimaryRateLimit),
			githubtest.WithFaults(githubtest.Faults{RateLimitFirst: 1, RetryAfter: 2 * time.Second}))
		defer srv.Close()
		c := open(t, srv)
		start := time.Now()
		if _, err := c.Get(ctx, "repositories", tributary.Params{"owner": "octo", "repo": "hello"}); err != nil {
			t.Fatal(err)
		}
		// The reset is announced in whole seconds, two seconds ahead.
		if d := time.Since(start); d < time.Second || len(srv.Requests()) != 2 {
			t.Errorf("%d requests in %v", len(srv.Requests()), d)
		}
	})
	t.Run("primary reset beyond the maximum wait", func(t *testing.T) {
		t.Parallel()
		srv := githubtest.New(githubtest.WithRateLimitStyle(githubtest.PrimaryRateLimitTooMany),
			githubtest.WithFaults(githubtest.Faults{RateLimitFirst: 1, RetryAfter: time.Hour}))
		defer srv.Close()
		c := open(t, srv)
		_, err := c.Get(ctx, "repositories", tributary.Params{"owner": "octo", "repo": "hello"})
		var te *tributary.Error
		if !errors.As(err, &te) || !errors.Is(err, tributary.ErrRateLimited) || te.StatusCode != 429 ||
			te.RetryAfter < 59*time.Minute || te.RetryAfter > time.Hour || !te.Retryable || te.RequestID == "" {
			t.Fatalf("err %v (%+v)", err, te)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("%d requests", n)
		}
	})
	t.Run("secondary 403 without retry-after", func(t *testing.T) {
		t.Parallel()
		srv := githubtest.New(githubtest.WithRateLimitStyle(githubtest.SecondaryRateLimitNoRetryAfter),
			githubtest.WithFaults(githubtest.Faults{RateLimitFirst: 1}))
		defer srv.Close()
		c := open(t, srv)
		_, err := c.List(ctx, "labels", tributary.Params{"owner": "octo", "repo": "hello"})
		var te *tributary.Error
		if !errors.As(err, &te) || !errors.Is(err, tributary.ErrRateLimited) || te.StatusCode != 403 || te.RetryAfter != time.Minute ||
			!strings.Contains(te.Message, "secondary rate limit") {
			t.Fatalf("err %v", err)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("%d requests", n)
		}
	})
	t.Run("secondary 403 with retry-after exhausts the retries", func(t *testing.T) {
		t.Parallel()
		srv := githubtest.New(githubtest.WithRateLimitStyle(githubtest.SecondaryRateLimitForbidden),
			githubtest.WithFaults(githubtest.Faults{RateLimitFirst: 10, RetryAfter: time.Second}))
		defer srv.Close()
		c := open(t, srv, tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 1, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond, MaxRateLimitWait: 5 * time.Second}))
		_, err := c.List(ctx, "labels", tributary.Params{"owner": "octo", "repo": "hello"})
		var te *tributary.Error
		if !errors.As(err, &te) || !errors.Is(err, tributary.ErrRateLimited) || te.RetryAfter != time.Second {
			t.Fatalf("err %v", err)
		}
		if n := len(srv.Requests()); n != 2 {
			t.Errorf("%d requests", n)
		}
	})
	t.Run("server errors and cut pages are retried", func(t *testing.T) {
		t.Parallel()
		srv := githubtest.New(githubtest.WithFaults(githubtest.Faults{ServerErrorFirst: 1, CutFirst: 1}))
		defer srv.Close()
		c := open(t, srv)
		page, err := c.List(ctx, "labels", tributary.Params{"owner": "octo", "repo": "hello"})
		if err != nil || len(page.Records) == 0 || len(srv.Requests()) != 3 {
			t.Fatalf("%v after %d requests", err, len(srv.Requests()))
		}
	})
}

// GitHub's error bodies become sentinels with the message, the validation
// details and the request id; bad params fail before anything is sent.
func TestErrors(t *testing.T) {
	srv := githubtest.New()
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	var te *tributary.Error
	_, err := c.Issues().Get(ctx, "octo", "hello", 999_999)
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrNotFound) || te.StatusCode != 404 || te.Message != "Not Found" || te.RequestID == "" {
		t.Errorf("404: %v", err)
	}
	_, err = c.Issues().Search(ctx, github.SearchParams{Q: "repo:octo/missing crash"})
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) || te.StatusCode != 422 || te.Code != "invalid" ||
		!strings.HasPrefix(te.Message, "Validation Failed: The listed users and repositories cannot be searched") {
		t.Errorf("422: %v", err)
	}
	_, err = c.List(ctx, "issues", tributary.Params{"owner": "octo", "repo": "hello", "sort": "popularity"})
	if !errors.Is(err, tributary.ErrInvalidParams) {
		t.Errorf("bad enum: %v", err)
	}
	_, err = c.List(ctx, "issues", tributary.Params{"owner": "octo", "repo": "hello", "per_page": 101})
	if !errors.As(err, &te) || te.Param != "per_page" {
		t.Errorf("per_page 101: %v", err)
	}
	_, err = c.Get(ctx, "issues", tributary.Params{"owner": "octo", "issue_number": 1})
	if !errors.As(err, &te) || te.Param != "repo" {
		t.Errorf("missing repo: %v", err)
	}
	n := len(srv.Requests())
	if n != 2 {
		t.Errorf("%d requests sent, want the 404 and the 422 only", n)
	}
}

// api_search pages carry total_count and incomplete_results, add is:pr (or
// is:issue) to q on the wire and keep the caller's q in Next.
func TestAPISearchPages(t *testing.T) {
	srv := githubtest.New(githubtest.WithIssues(40), githubtest.WithPulls(10))
	defer srv.Close()
	c := open(t, srv)
	page, err := c.APISearch(context.Background(), "pull_requests", tributary.Params{"q": "repo:octo/hello", "per_page": 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) != 4 || page.Meta["total_count"] != int64(10) || page.Meta["incomplete_results"] != false ||
		page.Meta["next_page"] != int64(2) || page.Meta["last_page"] != int64(3) {
		t.Fatalf("%d records, meta %v", len(page.Records), page.Meta)
	}
	if page.Next["q"] != "repo:octo/hello" || page.Next["page"] != int64(2) {
		t.Errorf("next %v", page.Next)
	}
	if q := srv.Requests()[0].Query.Get("q"); q != "repo:octo/hello is:pr" {
		t.Errorf("q sent: %q", q)
	}
	n := 0
	for pr, err := range c.PullRequests().SearchAll(context.Background(), github.SearchParams{Q: "repo:octo/hello", Paging: github.Paging{PerPage: 3}}) {
		if err != nil {
			t.Fatal(err)
		}
		if pr.PullRequest == nil || pr.Score == 0 {
			t.Errorf("search result %d is not a pull request: %+v", pr.Number, pr)
		}
		n++
	}
	if n != 10 {
		t.Errorf("SearchAll gave %d pull requests, want 10", n)
	}
}

// GitHub's search stops at 1,000 results: SearchAll delivers them and ends
// with an ErrPaging error that says the cap cut the rest, never silently.
func TestSearchAllEndsWithErrorAtTheCap(t *testing.T) {
	srv := githubtest.New(githubtest.WithIssues(1200), githubtest.WithPulls(0))
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	for _, perPage := range []int{0, 30} {
		n := 0
		var last error
		for _, err := range c.Issues().SearchAll(ctx, github.SearchParams{Q: "repo:octo/hello", Paging: github.Paging{PerPage: perPage}}) {
			if err != nil {
				last = err
				break
			}
			n++
		}
		var te *tributary.Error
		if n != github.SearchResultCap || !errors.As(last, &te) || !errors.Is(last, tributary.ErrPaging) ||
			!strings.Contains(te.Message, "1000 of 1200") || !strings.Contains(te.Message, "cap") {
			t.Fatalf("per_page %d: %d results, then %v", perPage, n, last)
		}
	}
	// Starting beyond the cap: GitHub's 422 becomes the same error.
	var last error
	for _, err := range c.SearchAll(ctx, "issues", tributary.Params{"q": "repo:octo/hello", "per_page": 100, "page": 11}) {
		last = err
	}
	if !errors.Is(last, tributary.ErrPaging) || !strings.Contains(last.Error(), "cap") {
		t.Fatalf("past the cap: %v", last)
	}
	// Under the cap the walk ends cleanly.
	n := 0
	for _, err := range c.SearchAll(ctx, "issues", tributary.Params{"q": "repo:octo/hello comments:0"}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n == 0 || n >= github.SearchResultCap {
		t.Errorf("%d results under the cap", n)
	}
}

func TestAPIVersionOption(t *testing.T) {
	srv := githubtest.New()
	defer srv.Close()
	c := open(t, srv, github.WithAPIVersion("2026-03-10"))
	if _, err := c.Viewer(context.Background()); err != nil {
		t.Fatal(err)
	}
	if v := srv.Requests()[0].Header.Get("X-GitHub-Api-Version"); v != "2026-03-10" {
		t.Errorf("version header %q", v)
	}
	for _, o := range []tributary.Option{github.WithAPIVersion("v3"), tributary.WithSetting("github.nope", "x")} {
		if _, err := github.New(github.Credentials{Token: "t"}, o); !errors.Is(err, tributary.ErrInvalidCredentials) {
			t.Errorf("bad setting: %v", err)
		}
	}
}

func TestNoSecretAnywhere(t *testing.T) {
	srv := githubtest.New(githubtest.WithCredentials("right-token"))
	defer srv.Close()
	const secret = "ghp_sup3rS3cretPersonalAccessToken"
	var logs bytes.Buffer
	creds := github.Credentials{Token: secret}
	c, err := github.New(creds, tributary.WithBaseURL(srv.URL), fast, tributary.WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	if err != nil {
		t.Fatal(err)
	}
	_, err1 := c.List(context.Background(), "issues", tributary.Params{"owner": "octo", "repo": "hello"})
	_, err2 := c.Get(context.Background(), "viewer", nil)
	if !errors.Is(err1, tributary.ErrUnauthorized) || !strings.Contains(err1.Error(), "Bad credentials") {
		t.Errorf("401: %v", err1)
	}
	oauth := github.Credentials{AccessToken: secret}
	for _, s := range []string{fmt.Sprint(err1, err2), fmt.Sprintf("%+v %#v", err1, err2), fmt.Sprintf("%v %+v %#v", c, c, c),
		fmt.Sprintf("%v %+v %#v %s", creds, creds, creds, creds), fmt.Sprintf("%v %#v", oauth, oauth), logs.String()} {
		if strings.Contains(s, secret) {
			t.Fatalf("the token leaked: %s", s)
		}
	}
	if !strings.Contains(logs.String(), `"status":401`) {
		t.Errorf("expected debug lines, got %q", logs.String())
	}
}

func TestCancelMidWalkReturnsPromptly(t *testing.T) {
	srv := githubtest.New(githubtest.WithIssues(2000), githubtest.WithFaults(githubtest.Faults{Latency: 20 * time.Millisecond}))
	defer srv.Close()
	c := open(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	var err error
	var cancelled time.Time
	for _, e := range tributary.All(ctx, c, "issues", tributary.Params{"owner": "octo", "repo": "hello", "state": "all"}) {
		if e != nil {
			err = e
			break
		}
		n++
		if n == 150 {
			cancel()
			cancelled = time.Now()
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v after %d records", err, n)
	}
	// The walk stops at the cancel, mid-page: not one record more. (Time
	// is only a guard against a hang: a loaded machine may be slow.)
	if n != 150 {
		t.Errorf("%d records yielded, want 150: the walk went on after the cancel", n)
	}
	if d := time.Since(cancelled); d > 10*time.Second {
		t.Errorf("the walk took %v to stop", d)
	}
}

func TestCredentialChecks(t *testing.T) {
	cases := []map[string]any{
		{},
		{"token": ""},
		{"token": "a", "access_token": "b"},
		{"token": 7},
		{"token": "a b"},
		{"token": "a", "password": "p"},
		{"refresh_token": "r"},
	}
	for _, creds := range cases {
		if _, err := github.Open(creds); !errors.Is(err, tributary.ErrInvalidCredentials) {
			t.Errorf("%v: err = %v, want ErrInvalidCredentials", creds, err)
		}
	}
	for _, creds := range []map[string]any{{"token": "ghp_x"}, {"access_token": "gho_x"}} {
		c, err := github.Open(creds)
		if err != nil || c.Type() != "github" {
			t.Errorf("%v: %v", creds, err)
		}
	}
}

// search runs on a synchronized copy: in direct mode without a replica it
// is refused with a clear error, and nothing is sent.
func TestSearchNeedsHostedOrReplica(t *testing.T) {
	srv := githubtest.New()
	defer srv.Close()
	c := open(t, srv)
	_, err := tributary.Execute(context.Background(), c, tributary.Request{Entity: "issues", Action: tributary.ActionSearch,
		Params: tributary.Params{"query": map[string]any{"filter": map[string]any{"eq": map[string]any{"state": "open"}}}}})
	if !errors.Is(err, tributary.ErrUnsupportedAction) || !strings.Contains(err.Error(), "hosted mode") {
		t.Fatalf("err = %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

// directory_content.list on a file path: GitHub answers with the file's
// content-file object instead of an array, and the list is a page of that
// one entry (generic and typed), as on a directory it is a page of each.
func TestDirectoryContentOfAFile(t *testing.T) {
	content := []byte("line one\nline two\n")
	srv := githubtest.New(githubtest.WithFile("notes/todo.txt", content))
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	page, err := c.List(ctx, "directory_content", tributary.Params{"owner": githubtest.Owner, "repo": githubtest.Repo, "path": "notes/todo.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) != 1 || page.Next != nil {
		t.Fatalf("%d records, next %v; want one entry", len(page.Records), page.Next)
	}
	typ, _ := page.Records[0].StringAt("type")
	path, _ := page.Records[0].StringAt("path")
	if typ != "file" || path != "notes/todo.txt" {
		t.Errorf("entry: type %q path %q", typ, path)
	}
	typed, err := c.DirectoryContent().List(ctx, github.DirectoryListParams{RepoRef: hello, Path: "notes/todo.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if len(typed.Items) != 1 || typed.Items[0].Name != "todo.txt" || typed.Items[0].Size != int64(len(content)) || typed.Items[0].Content == "" {
		t.Errorf("typed entry: %+v", typed.Items)
	}
	dir, err := c.List(ctx, "directory_content", tributary.Params{"owner": githubtest.Owner, "repo": githubtest.Repo, "path": "notes"})
	if err != nil || len(dir.Records) != 1 {
		t.Fatalf("directory: %v %v", dir, err)
	}
	if typ, _ := dir.Records[0].StringAt("type"); typ != "file" {
		t.Errorf("directory entry type %q", typ)
	}
}
