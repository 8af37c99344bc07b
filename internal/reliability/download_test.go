package reliability

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/download"
	"github.com/tributary-dev/tributary/internal/fakes"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/github/githubtest"
	"github.com/tributary-dev/tributary/kinds/gong/gongtest"
	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

// dlCase is one kind's download: how to start its fake with a file of size
// bytes whose connection is cut every cut bytes, and what to download.
type dlCase struct {
	kc kindCase
	// size and cut are the file's size and the fake's cut interval.
	size, cut int
	// origin is the fake's origin that serves the bytes ("api", "files").
	origin string
	// start returns the fake, the entity and params of the download, and
	// the file's bytes as the fake holds them (nil: unknown, compare with a
	// download from a fake that does not cut).
	start func(t testing.TB, size, cut int) (f fake, entity string, p tributary.Params, want []byte)
}

func kindCaseOf(typ string) kindCase {
	for _, kc := range kindCases() {
		if kc.typ == typ {
			return kc
		}
	}
	panic("no kind " + typ)
}

// dlCases lists every kind with a download action. GitHub's file content
// is generated once by its fake and gets the full 64 MiB cut every MiB. The
// other fakes generate a file's bytes anew for every (ranged) request, so
// that size would cost each of them 4 GiB of generation (minutes under
// -race): by default they get a 2 MiB file cut every 32 KiB, as many
// resumes at a smaller scale; TRIBUTARY_RELIABILITY_FULL=1 gives every kind
// the full 64 MiB.
func dlCases() []dlCase {
	cs := []dlCase{
		{kc: kindCaseOf("github"), size: 64 << 20, cut: 1 << 20, origin: "api",
			start: func(t testing.TB, size, cut int) (fake, string, tributary.Params, []byte) {
				s := githubtest.New(githubtest.WithRepos(1), githubtest.WithIssues(1), githubtest.WithFileSize(size), githubtest.WithFileCutEvery(cut))
				register(t, s)
				want, ok := s.FileContent("data/large.bin")
				if !ok {
					t.Fatalf("github fake has no data/large.bin")
				}
				return fake{srv: s.Server, creds: map[string]any{"token": githubtest.DefaultToken}}, "file_content",
					tributary.Params{"owner": githubtest.Owner, "repo": githubtest.Repo, "path": "data/large.bin"}, want
			}},
		{kc: kindCaseOf("zendesk-support"), size: 2 << 20, cut: 32 << 10, origin: "files",
			start: func(t testing.TB, size, cut int) (fake, string, tributary.Params, []byte) {
				s := zendesktest.New(zendesktest.WithTickets(5), zendesktest.WithAttachmentSize(size), zendesktest.WithFileCutEvery(cut))
				register(t, s)
				id := zendesktest.AttachmentID(0, 0, 0)
				want, ok := s.FileContent(id)
				if !ok {
					t.Fatalf("zendesk fake has no attachment %d", id)
				}
				return fake{srv: s.Server, creds: map[string]any{"subdomain": zendesktest.DefaultSubdomain, "email": zendesktest.DefaultEmail,
					"api_token": zendesktest.DefaultAPIToken}}, "attachments", tributary.Params{"attachment_id": id}, want
			}},
		{kc: kindCaseOf("gong"), size: 2 << 20, cut: 32 << 10, origin: "files",
			start: func(t testing.TB, size, cut int) (fake, string, tributary.Params, []byte) {
				opts := []gongtest.Option{gongtest.WithCalls(3), gongtest.WithMediaSize(size)}
				if cut > 0 {
					opts = append(opts, gongtest.WithFileCutEvery(cut))
				}
				s := gongtest.New(opts...)
				register(t, s)
				return fake{srv: s.Server, creds: map[string]any{"access_key": gongtest.DefaultAccessKey, "access_key_secret": gongtest.DefaultAccessKeySecret}},
					"call_audio", tributary.Params{"filter": map[string]any{"callIds": []any{s.CallID(1)}},
						"contentSelector": map[string]any{"exposedFields": map[string]any{"media": true}}}, nil
			}},
		{kc: kindCaseOf("salesforce"), size: 2 << 20, cut: 32 << 10, origin: "api",
			start: func(t testing.TB, size, cut int) (fake, string, tributary.Params, []byte) {
				s := salesforcetest.New(salesforcetest.WithContentVersions(3), salesforcetest.WithFileSize(size), salesforcetest.WithFileCutEvery(cut))
				register(t, s)
				f := fake{srv: s.Server, creds: map[string]any{"client_id": salesforcetest.DefaultClientID,
					"client_secret": salesforcetest.DefaultClientSecret, "refresh_token": salesforcetest.DefaultRefreshToken}}
				c, err := kinds.Open("salesforce", f.creds, tributary.WithBaseURL(s.URL))
				if err != nil {
					t.Fatalf("open: %v", err)
				}
				page, err := c.List(context.Background(), "content_versions", tributary.Params{"q": "SELECT Id FROM ContentVersion"})
				if err != nil || len(page.Records) == 0 {
					t.Fatalf("content_versions: %v (%d records)", err, len(page.Records))
				}
				id, _ := page.Records[0].StringAt("Id")
				want, ok := s.FileContent(id)
				if !ok {
					t.Fatalf("salesforce fake has no file for %s", id)
				}
				return f, "content_versions", tributary.Params{"id": id}, want
			}},
	}
	// Every other kind whose fake serves a download
	// (fakeserver.Kind.Download).
	for _, k := range fakes.All() {
		if k.Download == nil || slices.ContainsFunc(cs, func(dc dlCase) bool { return dc.kc.typ == k.Type }) {
			continue
		}
		cs = append(cs, dlCase{kc: kindCaseOf(k.Type), size: 2 << 20, cut: 32 << 10, origin: k.DownloadOrigin,
			start: func(t testing.TB, size, cut int) (fake, string, tributary.Params, []byte) {
				f, entity, p, want := k.Download(size, cut)
				register(t, f)
				return fake{srv: f.Core(), creds: k.Credentials}, entity, tributary.Params(p), want
			}})
	}
	for i := range cs {
		if os.Getenv("TRIBUTARY_RELIABILITY_FULL") != "" {
			cs[i].size, cs[i].cut = 64<<20, 1<<20
		}
	}
	return cs
}

// TestDownloadResume downloads, for every kind with a download action, a
// file whose connection the fake cuts every cut bytes: it must arrive with
// the right SHA-256, each cut resumed by a ranged request from the byte
// reached.
func TestDownloadResume(t *testing.T) {
	parallelWhenWaiting(t)
	var mu sync.Mutex
	var rows []string
	cases := dlCases()
	kcs := make([]kindCase, len(cases))
	for i, dc := range cases {
		kcs[i] = dc.kc
	}
	forKinds(t, kcs, func(t testing.TB, kc kindCase) {
		var dc dlCase
		for _, d := range cases {
			if d.kc.typ == kc.typ {
				dc = d
			}
		}
		f, entity, p, want := dc.start(t, dc.size, dc.cut)
		if want == nil {
			// Download from a fake that does not cut, for the reference.
			g, e2, p2, _ := dc.start(t, dc.size, 0)
			c := open(t, kc, g, nil)
			s, err := c.Download(context.Background(), e2, p2)
			if err != nil {
				t.Fatalf("reference download: %v", err)
			}
			want, err = io.ReadAll(s)
			s.Close()
			if err != nil {
				t.Fatalf("reference download: %v", err)
			}
		}
		if len(want) < dc.size {
			t.Fatalf("the fake's file has %d bytes, want at least %d", len(want), dc.size)
		}
		wantSum := sha256.Sum256(want)
		obs := newObserver()
		t.Cleanup(obs.close)
		c := open(t, kc, f, obs, tributary.WithRetry(fastRetry))
		f.srv.ResetRequests()
		start := time.Now()
		s, err := c.Download(context.Background(), entity, p)
		if err != nil {
			t.Fatalf("download: %v", err)
		}
		h := sha256.New()
		n, err := io.Copy(h, s)
		s.Close()
		elapsed := time.Since(start)
		if err != nil {
			t.Fatalf("download: after %d bytes: %v", n, err)
		}
		var got [sha256.Size]byte
		h.Sum(got[:0])
		if n != int64(len(want)) || got != wantSum {
			t.Errorf("downloaded %d bytes with SHA-256 %x, want %d bytes with %x", n, got, len(want), wantSum)
		}
		if s.Size != int64(len(want)) {
			t.Errorf("Stream.Size %d, want %d", s.Size, len(want))
		}
		// Every request after the first resumed exactly where the last
		// one broke: a Range from a multiple of the cut, with If-Range.
		var ranged, fileReqs int
		for _, r := range f.srv.Requests() {
			if r.Origin != dc.origin || r.Method != http.MethodGet {
				continue
			}
			fileReqs++
			rng := r.Header.Get("Range")
			if rng == "" {
				continue
			}
			ranged++
			wantRange := fmt.Sprintf("bytes=%d-%d", ranged*dc.cut, len(want)-1)
			if rng != wantRange {
				t.Errorf("resume %d asked for %s, want %s", ranged, rng, wantRange)
			}
			if r.Header.Get("If-Range") == "" {
				t.Errorf("resume %d (%s) has no If-Range", ranged, rng)
			}
		}
		wantResumes := (len(want) - 1) / dc.cut
		if ranged != wantResumes {
			t.Errorf("%d ranged resumes, want %d (a %d-byte file cut every %d bytes)", ranged, wantResumes, len(want), dc.cut)
		}
		seen := obs.snapshot()
		row := fmt.Sprintf("%-16s %3d MiB cut every %4d KiB: %2d cuts, %2d ranged resumes, sha256 %s…, %v",
			kc.typ, len(want)>>20, dc.cut>>10, seen.cuts, ranged, hex.EncodeToString(got[:6]), elapsed.Round(time.Millisecond))
		t.Log(row)
		mu.Lock()
		rows = append(rows, row)
		mu.Unlock()
	})
	t.Logf("downloads:\n%s", joinSorted(rows))
}

// changingFile serves a file that becomes a new version on every request
// (new content, new ETag and Last-Modified), and cuts every response after
// cut bytes: a download can only finish by splicing versions, which it must
// refuse.
type changingFile struct {
	size, cut int
	// noETag serves Last-Modified as the only validator.
	noETag bool
	// ignoreIfRange serves the range asked for even when If-Range names
	// an old version (a server or cache that ignores If-Range).
	ignoreIfRange bool

	version  atomic.Int64
	requests atomic.Int64
}

func (cf *changingFile) content(v int64) []byte {
	b := make([]byte, cf.size)
	for i := range b {
		b[i] = byte(int64(i)*7 + v*131)
	}
	return b
}

func (cf *changingFile) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	cf.requests.Add(1)
	v := cf.version.Add(1)
	if cf.ignoreIfRange {
		r.Header.Del("If-Range")
	}
	f := fakeserver.File{
		Name: "report.bin", ContentType: "application/octet-stream",
		ModTime: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(v) * time.Second),
		Content: cf.content(v), CutEvery: cf.cut,
	}
	if !cf.noETag {
		f.ETag = `"v` + strconv.FormatInt(v, 10) + `"`
	}
	fakeserver.ServeFile(w, r, f)
}

// TestDownloadChangedFile: a file that changes between attempts (a new
// validator) makes the download fail with download.ErrChanged, after only
// the bytes of the first version, instead of splicing two versions: with an
// ETag, with only Last-Modified, and from a server that ignores If-Range.
// It runs through real kinds (GitHub's file_content, whose raw bytes come
// from the API host; Zendesk's attachments, two steps: the record's
// content_url, then the file) and through download.Open.
func TestDownloadChangedFile(t *testing.T) {
	const size, cut = 256 << 10, 64 << 10
	variants := []struct {
		name string
		file func() *changingFile
	}{
		{"etag", func() *changingFile { return &changingFile{size: size, cut: cut} }},
		{"last-modified", func() *changingFile { return &changingFile{size: size, cut: cut, noETag: true} }},
		{"if-range-ignored", func() *changingFile { return &changingFile{size: size, cut: cut, ignoreIfRange: true} }},
	}
	openers := []struct {
		name string
		open func(t *testing.T, cf *changingFile) (*download.Stream, error)
	}{
		{"github", func(t *testing.T, cf *changingFile) (*download.Stream, error) {
			srv := httptest.NewServer(cf)
			t.Cleanup(srv.Close)
			c, err := kinds.Open("github", map[string]any{"token": githubtest.DefaultToken}, tributary.WithBaseURL(srv.URL), tributary.WithRetry(fastRetry))
			if err != nil {
				t.Fatal(err)
			}
			return c.Download(context.Background(), "file_content", tributary.Params{"owner": "octo", "repo": "hello", "path": "data/report.bin"})
		}},
		{"zendesk-support", func(t *testing.T, cf *changingFile) (*download.Stream, error) {
			files := httptest.NewServer(cf)
			t.Cleanup(files.Close)
			api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/api/v2/attachments/77.json" {
					http.NotFound(w, r)
					return
				}
				fakeserver.WriteJSON(w, http.StatusOK, []byte(`{"attachment":{"id":77,"file_name":"report.bin","content_type":"application/octet-stream",`+
					`"size":`+strconv.Itoa(cf.size)+`,"content_url":"`+files.URL+`/report.bin"}}`))
			}))
			t.Cleanup(api.Close)
			c, err := kinds.Open("zendesk-support", map[string]any{"subdomain": "acme", "email": "agent@example.com", "api_token": "TEST_TOKEN"},
				tributary.WithBaseURL(api.URL), tributary.WithRetry(fastRetry))
			if err != nil {
				t.Fatal(err)
			}
			return c.Download(context.Background(), "attachments", tributary.Params{"attachment_id": 77})
		}},
		{"download.Open", func(t *testing.T, cf *changingFile) (*download.Stream, error) {
			srv := httptest.NewServer(cf)
			t.Cleanup(srv.Close)
			client := srv.Client()
			fetch := func(ctx context.Context, h http.Header) (*http.Response, error) {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/report.bin", nil)
				if err != nil {
					return nil, err
				}
				for k, v := range h {
					req.Header[k] = v
				}
				resp, err := client.Do(req)
				if err != nil {
					return nil, err
				}
				if resp.StatusCode/100 != 2 {
					resp.Body.Close()
					return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
				}
				return resp, nil
			}
			return download.Open(context.Background(), fetch, nil, download.Options{})
		}},
	}
	for _, v := range variants {
		for _, o := range openers {
			t.Run(v.name+"/"+o.name, func(t *testing.T) {
				cf := v.file()
				s, err := o.open(t, cf)
				if err != nil {
					t.Fatalf("open: %v", err)
				}
				defer s.Close()
				got, err := io.ReadAll(s)
				if !errors.Is(err, download.ErrChanged) {
					t.Fatalf("read %d bytes, then %v; want download.ErrChanged", len(got), err)
				}
				if len(got) != cut {
					t.Errorf("delivered %d bytes before failing, want the %d of the first response", len(got), cut)
				}
				if first := cf.content(1)[:cut]; string(got) != string(first[:len(got)]) {
					t.Errorf("the bytes delivered are not the first version's")
				}
				if n := cf.requests.Load(); n != 2 {
					t.Errorf("the file host had %d requests, want 2 (the download, one resume that found a new version)", n)
				}
				// Nothing more comes out, and the error stays.
				if n, err := s.Read(make([]byte, 10)); n != 0 || !errors.Is(err, download.ErrChanged) {
					t.Errorf("Read after the failure: %d, %v", n, err)
				}
			})
		}
	}
}

func joinSorted(rows []string) string {
	out := slices.Clone(rows)
	slices.Sort(out)
	return strings.Join(out, "\n")
}

// TestDownloadRangeResume downloads byte ranges of a file whose connection
// is cut every 64 KiB: each range arrives exactly, and every resume asks for
// the rest of the range, not of the file.
func TestDownloadRangeResume(t *testing.T) {
	const size, cut = 4 << 20, 64 << 10
	s := githubtest.New(githubtest.WithRepos(1), githubtest.WithIssues(1), githubtest.WithFileSize(size), githubtest.WithFileCutEvery(cut))
	defer s.Close()
	content, _ := s.FileContent("data/large.bin")
	f := fake{srv: s.Server, creds: map[string]any{"token": githubtest.DefaultToken}}
	kc := kindCaseOf("github")
	for _, tc := range []struct {
		header      string
		first, last int // the bytes the range designates
	}{
		{"bytes=1000-1049575", 1000, 1049575},
		{"bytes=3000000-", 3000000, size - 1},
		{"bytes=-700000", size - 700000, size - 1},
		{"bytes=4000000-9999999", 4000000, size - 1},
	} {
		t.Run(tc.header, func(t *testing.T) {
			c := open(t, kc, f, nil, tributary.WithRetry(fastRetry))
			f.srv.ResetRequests()
			st, err := c.Download(context.Background(), "file_content", tributary.Params{"owner": githubtest.Owner, "repo": githubtest.Repo,
				"path": "data/large.bin", "range_header": tc.header})
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(st)
			st.Close()
			if err != nil {
				t.Fatalf("after %d bytes: %v", len(got), err)
			}
			want := content[tc.first : tc.last+1]
			if sha256.Sum256(got) != sha256.Sum256(want) {
				t.Errorf("got %d bytes, want bytes %d-%d (%d bytes): content differs", len(got), tc.first, tc.last, len(want))
			}
			if st.Range == nil || st.Range.First != int64(tc.first) || st.Range.Last != int64(tc.last) || st.Size != size {
				t.Errorf("Range %+v, Size %d; want %d-%d of %d", st.Range, st.Size, tc.first, tc.last, size)
			}
			// The first request carries the caller's range; each resume
			// continues from where the cut left off, to the same end.
			var ranges []string
			for _, r := range f.srv.Requests() {
				if r.Method == http.MethodGet {
					ranges = append(ranges, r.Header.Get("Range"))
				}
			}
			if len(ranges) == 0 || ranges[0] != tc.header {
				t.Fatalf("requests' ranges %v, want the first to be %s", ranges, tc.header)
			}
			for i, rng := range ranges[1:] {
				want := fmt.Sprintf("bytes=%d-%d", tc.first+(i+1)*cut, tc.last)
				if rng != want {
					t.Errorf("resume %d asked for %s, want %s", i+1, rng, want)
				}
			}
			if want := (tc.last - tc.first) / cut; len(ranges)-1 != want {
				t.Errorf("%d resumes, want %d", len(ranges)-1, want)
			}
		})
	}
}

// TestDownloadUnderFaults downloads a file served by the API host (GitHub's
// raw file content, Salesforce's VersionData), whose connection is cut
// every so often, while 10% of the API's answers, resumes included, are
// faults (the kind's rate limit, its 5xx, a connection cut): the file
// arrives with the right SHA-256.
func TestDownloadUnderFaults(t *testing.T) {
	parallelWhenWaiting(t)
	var rows cancelRows
	cases := []dlCase{}
	for _, dc := range dlCases() {
		if dc.origin == "api" {
			if dc.kc.typ == "github" {
				dc.size, dc.cut = 16<<20, 256<<10
			}
			cases = append(cases, dc)
		}
	}
	kcs := make([]kindCase, len(cases))
	for i, dc := range cases {
		kcs[i] = dc.kc
	}
	forKinds(t, kcs, func(t testing.TB, kc kindCase) {
		var dc dlCase
		for _, d := range cases {
			if d.kc.typ == kc.typ {
				dc = d
			}
		}
		f, entity, p, want := dc.start(t, dc.size, dc.cut)
		faults := fakeserver.Faults{RateLimitRate: 0.03, ServerErrorRate: 0.035, CutRate: 0.035, Seed: seedOf(kc.typ), RetryAfter: time.Millisecond}
		if kc.rateLimitFatal {
			faults = fakeserver.Faults{ServerErrorRate: 0.05, CutRate: 0.05, Seed: seedOf(kc.typ)}
		}
		obs := newObserver()
		t.Cleanup(obs.close)
		c := open(t, kc, f, obs, tributary.WithRetry(fastRetry))
		// One byte first, without faults, so that one-time requests (an
		// OAuth token: TestTokenRefresh* covers faults there) are done.
		p1 := p.Clone()
		p1["range_header"] = "bytes=0-0"
		if s, err := c.Download(context.Background(), entity, p1); err != nil {
			t.Fatalf("first byte: %v", err)
		} else {
			s.Close()
		}
		obs.reset()
		f.srv.SetFaults(faults)
		start := time.Now()
		s, err := c.Download(context.Background(), entity, p)
		if err != nil {
			t.Fatalf("download: %v", err)
		}
		h := sha256.New()
		n, err := io.Copy(h, s)
		s.Close()
		if err != nil {
			t.Fatalf("download: after %d bytes: %v", n, err)
		}
		if got, wantSum := h.Sum(nil), sha256.Sum256(want); string(got) != string(wantSum[:]) {
			t.Errorf("downloaded %d bytes with SHA-256 %x, want %d bytes with %x", n, got, len(want), wantSum)
		}
		seen := obs.snapshot()
		rl := seen.statuses[http.StatusTooManyRequests] + seen.statuses[kc.rateLimitStatus]
		fiveXX := 0
		for st, k := range seen.statuses {
			if st >= 500 {
				fiveXX += k
			}
		}
		if rl+fiveXX == 0 {
			t.Errorf("no rate-limit or 5xx answer reached the client; the test proves less than it says")
		}
		rows.add("%-16s %2d MiB cut every %3d KiB: %d attempts, %d rate-limit, %d 5xx, %d dropped before the headers (injected cuts), %d bodies cut, %v",
			kc.typ, len(want)>>20, dc.cut>>10, seen.attempts, rl, fiveXX, seen.errs, seen.cuts, time.Since(start).Round(time.Millisecond))
	})
	t.Logf("downloads under faults:\n%s", joinSorted(rows.rows))
}
