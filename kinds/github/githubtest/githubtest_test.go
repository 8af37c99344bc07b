package githubtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

type response struct {
	status int
	header http.Header
	body   []byte
}

func get(t *testing.T, url string, header ...string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+DefaultToken)
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", APIVersion)
	for i := 0; i+1 < len(header); i += 2 {
		switch {
		case header[i] == "User-Agent" && header[i+1] == "":
			req.Header[header[i]] = []string{""} // sends no User-Agent at all
		case header[i+1] == "":
			req.Header.Del(header[i])
		default:
			req.Header.Set(header[i], header[i+1])
		}
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{res.StatusCode, res.Header, body}
}

func decode[T any](t *testing.T, r response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
	return v
}

type basicError struct {
	Message          string `json:"message"`
	DocumentationURL string `json:"documentation_url"`
	Status           string `json:"status"`
	Errors           []struct {
		Resource, Field, Code string
	} `json:"errors"`
}

type numbered struct {
	ID          int64           `json:"id"`
	Number      int             `json:"number"`
	State       string          `json:"state"`
	PullRequest json.RawMessage `json:"pull_request"`
}

var linkRE = regexp.MustCompile(`<([^>]+)>; rel="(\w+)"`)

func links(h http.Header) map[string]string {
	out := map[string]string{}
	for _, m := range linkRE.FindAllStringSubmatch(h.Get("Link"), -1) {
		out[m[2]] = m[1]
	}
	return out
}

func TestAuthentication(t *testing.T) {
	s := New()
	defer s.Close()
	cases := []struct {
		name, auth string
		status     int
		message    string
	}{
		{"bearer", "Bearer " + DefaultToken, 200, ""},
		{"legacy token scheme", "token " + DefaultAccessToken, 200, ""},
		{"wrong token", "Bearer nope", 401, "Bad credentials"},
		{"missing", "", 401, "Requires authentication"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := get(t, s.URL+"/user", "Authorization", c.auth)
			if r.status != c.status {
				t.Fatalf("status %d, want %d: %s", r.status, c.status, r.body)
			}
			if c.status == 401 {
				e := decode[basicError](t, r)
				if e.Message != c.message || e.Status != "401" || e.DocumentationURL == "" {
					t.Errorf("body %+v", e)
				}
				if r.header.Get("X-RateLimit-Limit") != "60" {
					t.Errorf("anonymous limit %q", r.header.Get("X-RateLimit-Limit"))
				}
			}
		})
	}
	s2 := New(WithCredentials("other"))
	defer s2.Close()
	if r := get(t, s2.URL+"/user"); r.status != 401 {
		t.Errorf("replaced credentials: default token accepted")
	}
	if r := get(t, s2.URL+"/user", "Authorization", "Bearer other"); r.status != 200 {
		t.Errorf("replaced credentials: %d", r.status)
	}
	if r := get(t, s.URL+"/user", "X-GitHub-Api-Version", "1999-01-01"); r.status != 400 {
		t.Errorf("unknown API version: %d", r.status)
	}
	if r := get(t, s.URL+"/user", "User-Agent", ""); r.status != 403 {
		t.Errorf("missing User-Agent: %d", r.status)
	}
}

func TestRateLimitHeaders(t *testing.T) {
	s := New()
	defer s.Close()
	r1 := get(t, s.URL+"/repos/octo/hello")
	r2 := get(t, s.URL+"/repos/octo/hello")
	for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Used", "X-RateLimit-Reset", "X-RateLimit-Resource"} {
		if r1.header.Get(h) == "" {
			t.Errorf("missing %s", h)
		}
	}
	u1, _ := strconv.Atoi(r1.header.Get("X-RateLimit-Used"))
	u2, _ := strconv.Atoi(r2.header.Get("X-RateLimit-Used"))
	if r1.header.Get("X-RateLimit-Limit") != "5000" || u2 != u1+1 || r1.header.Get("X-RateLimit-Resource") != "core" {
		t.Errorf("core headers %v / used %d then %d", r1.header, u1, u2)
	}
	rs := get(t, s.URL+"/search/issues?q=widget")
	if rs.header.Get("X-RateLimit-Resource") != "search" || rs.header.Get("X-RateLimit-Limit") != "30" {
		t.Errorf("search headers %v", rs.header)
	}
	reset, _ := strconv.ParseInt(r1.header.Get("X-RateLimit-Reset"), 10, 64)
	if d := time.Until(time.Unix(reset, 0)); d <= 0 || d > time.Hour+time.Second {
		t.Errorf("reset %v away", d)
	}
}

func TestListPaging(t *testing.T) {
	s := New(WithIssues(40), WithPulls(10))
	defer s.Close()
	r := get(t, s.URL+"/repos/octo/hello/issues?state=all&per_page=7&page=2")
	got := decode[[]numbered](t, r)
	if len(got) != 7 || got[0].Number != 43 {
		t.Fatalf("page 2: %d items, first %d", len(got), got[0].Number)
	}
	l := links(r.header)
	want := map[string]string{
		"prev":  s.URL + "/repos/octo/hello/issues?state=all&per_page=7&page=1",
		"next":  s.URL + "/repos/octo/hello/issues?state=all&per_page=7&page=3",
		"last":  s.URL + "/repos/octo/hello/issues?state=all&per_page=7&page=8",
		"first": s.URL + "/repos/octo/hello/issues?state=all&per_page=7&page=1",
	}
	for rel, u := range want {
		if l[rel] != u {
			t.Errorf("rel=%s: %q, want %q", rel, l[rel], u)
		}
	}
	// Walk the Link header to the end: every number once, newest first,
	// pull requests (every fifth number here) included.
	var all []int
	prs := 0
	next := s.URL + "/repos/octo/hello/issues?state=all&per_page=100"
	for next != "" {
		r := get(t, next)
		for _, is := range decode[[]numbered](t, r) {
			all = append(all, is.Number)
			if is.PullRequest != nil {
				prs++
			}
		}
		next = links(r.header)["next"]
	}
	if len(all) != 50 || all[0] != 50 || all[49] != 1 || prs != 10 {
		t.Errorf("walked %d numbers (%d..%d), %d pull requests", len(all), all[0], all[len(all)-1], prs)
	}
	// per_page above 100 is clamped silently.
	s2 := New(WithIssues(300), WithPulls(0))
	defer s2.Close()
	r = get(t, s2.URL+"/repos/octo/hello/issues?state=all&per_page=500")
	if n := len(decode[[]numbered](t, r)); r.status != 200 || n != 100 {
		t.Errorf("per_page=500: status %d, %d items", r.status, n)
	}
	if !strings.Contains(links(r.header)["last"], "page=3") {
		t.Errorf("last link %q", r.header.Get("Link"))
	}
	// Commas in the caller's parameters are escaped in Link URLs.
	r = get(t, s.URL+"/repos/octo/hello/issues?labels=duplicate,good+first+issue&state=all&per_page=1")
	if l := r.header.Get("Link"); !strings.Contains(l, "labels=duplicate%2Cgood+first+issue&state=all&per_page=1&page=2") {
		t.Errorf("Link %q", l)
	}
	// Default page size and no Link when everything fits.
	r = get(t, s.URL+"/repos/octo/hello/labels")
	if n := len(decode[[]json.RawMessage](t, r)); n != 9 || r.header.Get("Link") != "" {
		t.Errorf("labels: %d, Link %q", n, r.header.Get("Link"))
	}
}

// Filtered lists, paged through the scan cache, return exactly the matches a
// direct evaluation of the filter finds.
func TestFilteredPagingMatchesFilter(t *testing.T) {
	s := New(WithIssues(3000), WithPulls(700))
	defer s.Close()
	f := issueFilter{state: "closed", labels: []int{0}, assignee: "*"}
	var want []int
	for x := s.w.numbers; x >= 1; x-- {
		if v, _ := s.issueView(0, x); f.match(s.w, x, v) {
			want = append(want, x)
		}
	}
	var got []int
	for page := 1; ; page++ {
		r := get(t, fmt.Sprintf("%s/repos/octo/hello/issues?state=closed&labels=bug&assignee=*&per_page=100&page=%d", s.URL, page))
		items := decode[[]numbered](t, r)
		for _, is := range items {
			got = append(got, is.Number)
		}
		if links(r.header)["next"] == "" {
			if last := links(r.header)["last"]; last != "" {
				t.Errorf("last page still announces last=%s", last)
			}
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %d matches, want %d", len(got), len(want))
	}
	// A later page directly (checkpoints) agrees with the walk.
	r := get(t, s.URL+"/repos/octo/hello/issues?state=closed&labels=bug&assignee=*&per_page=10&page=7")
	items := decode[[]numbered](t, r)
	if len(items) == 0 || items[0].Number != want[60] {
		t.Errorf("page 7 starts at %v, want %d", items, want[60])
	}
}

func TestPullsAndIssuesShareNumbers(t *testing.T) {
	s := New(WithIssues(13), WithPulls(7))
	defer s.Close()
	seen := map[int]bool{}
	for k := range 7 {
		x := s.w.pullNumber(k)
		if pr, idx, ok := s.w.kindOf(x); !ok || !pr || idx != k {
			t.Errorf("pull %d at %d: kindOf = %v %d %v", k, x, pr, idx, ok)
		}
		seen[x] = true
	}
	issues := 0
	for x := 1; x <= 20; x++ {
		if !seen[x] {
			issues++
			if pr, _, ok := s.w.kindOf(x); !ok || pr {
				t.Errorf("number %d should be an issue", x)
			}
		}
	}
	if issues != 13 {
		t.Errorf("%d issue numbers", issues)
	}
	r := get(t, s.URL+"/repos/octo/hello/pulls?state=all&per_page=100")
	var numbers []int
	for _, p := range decode[[]numbered](t, r) {
		numbers = append(numbers, p.Number)
	}
	if len(numbers) != 7 || !seen[numbers[0]] {
		t.Errorf("pulls %v", numbers)
	}
	if r := get(t, s.URL+"/repos/octo/hello/pulls/1"); r.status != 404 {
		t.Errorf("an issue number as pull: %d", r.status)
	}
}

func TestCommentOrderIsPermutation(t *testing.T) {
	for _, comments := range []int{0, 6, 7, 20} {
		s := New(WithIssues(97), WithPulls(3), WithComments(comments))
		for _, desc := range []bool{true, false} {
			at := s.w.commentOrder(desc)
			seen := map[int]bool{}
			prev := -1
			for p := range s.w.numbers {
				x := at(p)
				if x < 1 || x > s.w.numbers || seen[x] {
					t.Fatalf("comments=%d desc=%v: position %d gives %d", comments, desc, p, x)
				}
				seen[x] = true
				c := s.w.comments(x)
				if prev >= 0 && (desc && c > prev || !desc && c < prev) {
					t.Fatalf("comments=%d desc=%v: not sorted at %d", comments, desc, p)
				}
				prev = c
			}
		}
		s.Close()
	}
}

func TestIDsResolve(t *testing.T) {
	s := New(WithRepos(3), WithIssues(50), WithPulls(20))
	defer s.Close()
	w := s.w
	for x := 1; x <= w.numbers; x++ {
		for j := range w.comments(x) {
			if gx, gj, ok := w.commentIndex(2, w.commentID(2, x, j)); !ok || gx != x || gj != j {
				t.Fatalf("comment %d/%d", x, j)
			}
		}
		if w.isPR(x) {
			for j := range w.prComments(x) {
				if gx, gj, ok := w.prCommentIndex(1, w.prCommentID(1, x, j)); !ok || gx != x || gj != j {
					t.Fatalf("review comment %d/%d", x, j)
				}
			}
		}
	}
	if _, _, ok := w.commentIndex(0, w.commentID(1, 3, 0)); ok {
		t.Error("comment of another repository resolved")
	}
	for k := range w.cfg.commits {
		if got, ok := w.commitIndex(1, commitSHA(1, k)); !ok || got != k {
			t.Fatalf("commit %d", k)
		}
	}
	ri, i, a, ok := w.assetIndex(w.assetID(2, 5, 3))
	if !ok || ri != 2 || i != 5 || a != 3 {
		t.Errorf("asset index %d %d %d %v", ri, i, a, ok)
	}
}

func TestErrors(t *testing.T) {
	s := New()
	defer s.Close()
	r := get(t, s.URL+"/repos/octo/hello/issues/999999")
	e := decode[basicError](t, r)
	if r.status != 404 || e.Message != "Not Found" || e.Status != "404" || !strings.HasPrefix(e.DocumentationURL, "https://docs.github.com/") {
		t.Errorf("404: %d %+v", r.status, e)
	}
	if r := get(t, s.URL+"/repos/octo/nope"); r.status != 404 {
		t.Errorf("unknown repo: %d", r.status)
	}
	r = get(t, s.URL+"/repos/octo/hello/issues?state=bogus")
	e = decode[basicError](t, r)
	if r.status != 422 || e.Message != "Validation Failed" || len(e.Errors) != 1 || e.Errors[0].Field != "state" {
		t.Errorf("invalid state: %d %s", r.status, r.body)
	}
}

func TestSearch(t *testing.T) {
	s := New(WithIssues(4000), WithPulls(1000))
	defer s.Close()
	r := get(t, s.URL+"/search/issues?q=repo:octo/hello+is:issue&per_page=100&page=10")
	res := decode[struct {
		TotalCount        int        `json:"total_count"`
		IncompleteResults bool       `json:"incomplete_results"`
		Items             []numbered `json:"items"`
	}](t, r)
	if r.status != 200 || res.TotalCount != 4000 || len(res.Items) != 100 {
		t.Fatalf("page 10: %d total %d items %d", r.status, res.TotalCount, len(res.Items))
	}
	for _, it := range res.Items {
		if it.PullRequest != nil {
			t.Fatalf("is:issue returned pull request %d", it.Number)
		}
	}
	l := links(r.header)
	if l["next"] != "" || l["last"] != "" || !strings.Contains(l["prev"], "page=9") {
		t.Errorf("links at the cap: %q", r.header.Get("Link"))
	}
	r = get(t, s.URL+"/search/issues?q=repo:octo/hello+is:issue&per_page=100&page=11")
	if e := decode[basicError](t, r); r.status != 422 || e.Message != "Only the first 1000 search results are available" {
		t.Errorf("beyond the cap: %d %s", r.status, r.body)
	}
	r = get(t, s.URL+"/search/issues?q=repo:octo/hello+is:pr&per_page=30")
	if !strings.Contains(links(r.header)["last"], "page=34") {
		t.Errorf("last page of a capped search: %q", r.header.Get("Link"))
	}
	r = get(t, s.URL+"/search/issues?q=repo:octo/missing+bug")
	if e := decode[basicError](t, r); r.status != 422 || e.Message != "Validation Failed" || len(e.Errors) != 1 {
		t.Errorf("unknown repository: %d %s", r.status, r.body)
	}
	r = get(t, s.URL+"/search/issues?q=")
	if r.status != 422 {
		t.Errorf("empty q: %d", r.status)
	}
	r = get(t, s.URL+`/search/issues?q=repo:octo/hello+label:"good+first+issue"+is:open&per_page=5`)
	items := decode[struct {
		Items []struct {
			State  string                  `json:"state"`
			Labels []struct{ Name string } `json:"labels"`
		} `json:"items"`
	}](t, r).Items
	if len(items) == 0 {
		t.Fatal("label search found nothing")
	}
	for _, it := range items {
		if it.State != "open" || !slices.ContainsFunc(it.Labels, func(l struct{ Name string }) bool { return l.Name == "good first issue" }) {
			t.Errorf("label search item %+v", it)
		}
	}
	// user-1 and user-10 ... user-19 of the default 40 users.
	r = get(t, s.URL+"/search/users?q=user-1+type:user")
	if u := decode[struct {
		TotalCount int `json:"total_count"`
	}](t, r); u.TotalCount != 11 {
		t.Errorf("user search total %d", u.TotalCount)
	}
}

func TestReleaseAssetDownload(t *testing.T) {
	s := New(WithAssetSize(1000))
	defer s.Close()
	id := s.w.assetID(0, 2, 1)
	api := fmt.Sprintf("%s/repos/octo/hello/releases/assets/%d", s.URL, id)
	meta := decode[struct {
		Size int `json:"size"`
	}](t, get(t, api))
	r := get(t, api, "Accept", "application/octet-stream")
	loc := r.header.Get("Location")
	if r.status != 302 || !strings.HasPrefix(loc, s.FilesURL+"/") {
		t.Fatalf("redirect: %d %q", r.status, loc)
	}
	// The object store refuses credentials and serves the bytes without them.
	if r := get(t, loc); r.status != 400 {
		t.Errorf("with Authorization: %d", r.status)
	}
	full := get(t, loc, "Authorization", "")
	if full.status != 200 || len(full.body) != meta.Size || full.header.Get("ETag") == "" {
		t.Fatalf("download: %d, %d bytes, size %d", full.status, len(full.body), meta.Size)
	}
	if want, ok := s.AssetContent(id); !ok || string(want) != string(full.body) {
		t.Error("downloaded bytes differ from AssetContent")
	}
	part := get(t, loc, "Authorization", "", "Range", "bytes=100-199")
	if part.status != 206 || string(part.body) != string(full.body[100:200]) ||
		part.header.Get("Content-Range") != fmt.Sprintf("bytes 100-199/%d", meta.Size) {
		t.Errorf("range: %d %q", part.status, part.header.Get("Content-Range"))
	}
	if r := get(t, strings.Replace(loc, "X-Amz-Signature=", "X-Amz-Signature=0", 1), "Authorization", ""); r.status != 403 {
		t.Errorf("tampered signature: %d", r.status)
	}
	if r := get(t, fmt.Sprintf("%s/repos/octo/repo-1/releases/assets/%d", s.URL, id)); r.status != 404 {
		t.Errorf("asset through another repository: %d", r.status)
	}
}

func TestContents(t *testing.T) {
	content := []byte("line one\nline two\n")
	s := New(WithFile("notes/todo.txt", content))
	defer s.Close()
	r := get(t, s.URL+"/repos/octo/hello/contents/notes/todo.txt?ref=develop")
	f := decode[struct {
		Type, Encoding, Content, Path string
		Size                          int
	}](t, r)
	if r.status != 200 || f.Type != "file" || f.Encoding != "base64" || f.Size != len(content) || !strings.HasSuffix(f.Content, "\n") {
		t.Fatalf("file: %d %+v", r.status, f)
	}
	// The file is GitHub's content-file object (api.github.com.json,
	// components/schemas/content-file): every required member, no array.
	var members map[string]json.RawMessage
	if err := json.Unmarshal(r.body, &members); err != nil {
		t.Fatalf("file is not an object: %v", err)
	}
	for _, k := range []string{"_links", "git_url", "html_url", "download_url", "name", "path", "sha", "size", "type", "url", "content", "encoding"} {
		if _, ok := members[k]; !ok {
			t.Errorf("content-file without required %q", k)
		}
	}
	var links map[string]string
	if err := json.Unmarshal(members["_links"], &links); err != nil || links["git"] == "" || links["html"] == "" || links["self"] == "" {
		t.Errorf("content-file _links: %v %v", links, err)
	}
	raw := get(t, s.URL+"/repos/octo/hello/contents/notes/todo.txt", "Accept", "application/vnd.github.raw+json")
	if raw.status != 200 || string(raw.body) != string(content) || !strings.HasPrefix(raw.header.Get("Content-Type"), "text/plain") {
		t.Errorf("raw: %d %q %q", raw.status, raw.body, raw.header.Get("Content-Type"))
	}
	part := get(t, s.URL+"/repos/octo/hello/contents/notes/todo.txt", "Accept", "application/vnd.github.raw+json", "Range", "bytes=5-7")
	if part.status != 206 || string(part.body) != "one" {
		t.Errorf("raw range: %d %q", part.status, part.body)
	}
	dir := decode[[]struct{ Name, Type string }](t, get(t, s.URL+"/repos/octo/hello/contents/docs"))
	if len(dir) != 3 || dir[0].Name != "api.md" || dir[2].Type != "dir" {
		t.Errorf("dir: %+v", dir)
	}
	big := decode[struct{ Encoding, Content string }](t, get(t, s.URL+"/repos/octo/hello/contents/data/large.bin"))
	if big.Encoding != "none" || big.Content != "" {
		t.Errorf("large file inlined: %q", big.Encoding)
	}
	if r := get(t, s.URL+"/repos/octo/hello/contents/README.md?ref=nope"); r.status != 404 {
		t.Errorf("unknown ref: %d", r.status)
	}
}

func TestFaults(t *testing.T) {
	s := New(WithFaults(Faults{RateLimitFirst: 1, ServerErrorFirst: 1, RetryAfter: 7 * time.Second}))
	defer s.Close()
	r := get(t, s.URL+"/user")
	e := decode[basicError](t, r)
	if r.status != 429 || r.header.Get("Retry-After") != "7" || !strings.Contains(e.Message, "secondary rate limit") {
		t.Errorf("secondary: %d %q %s", r.status, r.header.Get("Retry-After"), r.body)
	}
	r = get(t, s.URL+"/user")
	if r.status != 500 || decode[basicError](t, r).Status != "500" {
		t.Errorf("server error: %d %s", r.status, r.body)
	}
	if r := get(t, s.URL+"/user"); r.status != 200 {
		t.Errorf("after the faults: %d", r.status)
	}

	p := New(WithRateLimitStyle(PrimaryRateLimit), WithFaults(Faults{RateLimitFirst: 1, RetryAfter: 30 * time.Second}))
	defer p.Close()
	r = get(t, p.URL+"/user")
	reset, _ := strconv.ParseInt(r.header.Get("X-RateLimit-Reset"), 10, 64)
	if r.status != 403 || r.header.Get("X-RateLimit-Remaining") != "0" || r.header.Get("Retry-After") != "" ||
		time.Until(time.Unix(reset, 0)) < 25*time.Second {
		t.Errorf("primary: %d %v", r.status, r.header)
	}
}

// A large volume costs nothing at start and any page is cheap to reach.
func TestLargeVolume(t *testing.T) {
	heap := allocated()
	s := New(WithIssues(1_000_000), WithPulls(0))
	defer s.Close()
	r := get(t, s.URL+"/repos/octo/hello/issues?state=all&per_page=100&page=10000")
	items := decode[[]numbered](t, r)
	if len(items) != 100 || items[99].Number != 1 {
		t.Fatalf("last page: %d items", len(items))
	}
	if b := allocated() - heap; b > lazyBytes {
		t.Errorf("allocated %d MiB: the volume was not made lazily", b>>20)
	}
	if l := links(r.header); l["next"] != "" || !strings.Contains(l["prev"], "page=9999") {
		t.Errorf("links %q", r.header.Get("Link"))
	}
}

// WithFileCutEvery drops file host connections mid-body; ranged requests
// from the byte reached get the rest.
func TestFileCutEvery(t *testing.T) {
	s := New(WithAssetSize(1000), WithFileCutEvery(300))
	defer s.Close()
	r := get(t, fmt.Sprintf("%s/repos/octo/hello/releases/assets/%d", s.URL, s.w.assetID(0, 0, 0)), "Accept", "application/octet-stream")
	loc := r.header.Get("Location")
	want := assetContent(s.w.assetID(0, 0, 0), s.w.assetSize(0, 0))
	var got []byte
	for len(got) < len(want) {
		req, _ := http.NewRequest(http.MethodGet, loc, nil)
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", len(got)))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body) // ends early where the connection is cut
		res.Body.Close()
		if res.StatusCode != 206 || len(b) == 0 || len(b) > 300 {
			t.Fatalf("status %d, %d bytes", res.StatusCode, len(b))
		}
		got = append(got, b...)
	}
	if string(got) != string(want) {
		t.Error("resumed content differs")
	}
}

// lazyBytes bounds what a fake of a million issues may allocate to start
// and answer a few requests: it keeps a few dozen bytes of state an issue
// (37 MiB measured), where issues made eagerly, rendered, take gigabytes.
const lazyBytes = 128 << 20

// allocated returns the bytes this process has allocated so far, a
// measure of work that no load on the machine can move (unlike a time).
func allocated() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// WithCommentsPerIssue: every issue and pull request has exactly n
// comments, in its own list and in the repository-wide one.
func TestCommentsPerIssue(t *testing.T) {
	s := New(WithIssues(8), WithPulls(2), WithCommentsPerIssue(5))
	defer s.Close()
	for _, x := range []int{1, 5, 10} {
		r := get(t, s.URL+"/repos/octo/hello/issues/"+strconv.Itoa(x)+"/comments")
		if got := len(decode[[]map[string]any](t, r)); got != 5 {
			t.Errorf("#%d: %d comments, want 5", x, got)
		}
	}
	r := get(t, s.URL+"/repos/octo/hello/issues/comments?per_page=100")
	if got := len(decode[[]map[string]any](t, r)); got != 50 {
		t.Errorf("repository-wide: %d comments, want 50", got)
	}
	r = get(t, s.URL+"/repos/octo/hello/issues?state=all&sort=comments&per_page=100")
	if got := len(decode[[]map[string]any](t, r)); got != 10 {
		t.Errorf("sort=comments: %d issues and pull requests, want 10", got)
	}
}

// GET /users/{username}/repos lists public repositories only, as GitHub
// does; the organization's own list includes its private ones.
func TestUserReposArePublic(t *testing.T) {
	s := New(WithRepos(8))
	defer s.Close()
	names := func(path string) []string {
		var out []string
		for _, r := range decode[[]map[string]any](t, get(t, s.URL+path)) {
			out = append(out, r["full_name"].(string))
			if r["private"] == true && strings.HasPrefix(path, "/users/") {
				t.Errorf("%s lists private %s", path, r["full_name"])
			}
		}
		return out
	}
	user, org := names("/users/octo/repos?per_page=100"), names("/orgs/octo/repos?per_page=100")
	if len(org) != 8 || len(user) != 6 {
		t.Errorf("the organization's list has %d repositories (want 8), the user list %d (want the 6 public)", len(org), len(user))
	}
}
