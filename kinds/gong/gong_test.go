package gong_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
	"golang.org/x/oauth2"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/gong"
	"github.com/tributary-dev/tributary/kinds/gong/gongtest"
	"github.com/tributary-dev/tributary/pagination"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// fast retries quickly and does not pace to the vendor's limit, which the
// fake enforces only when told to.
var fast tributary.Option = func(o *tributary.Options) {
	tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 3, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, MaxRateLimitWait: 5 * time.Second})(o)
	gong.WithAPIRateLimit(0, 0)(o)
}

var keyPair = gong.Credentials{AccessKey: gongtest.DefaultAccessKey, AccessKeySecret: gongtest.DefaultAccessKeySecret}

func open(t *testing.T, srv *gongtest.Server, opts ...tributary.Option) *gong.Client {
	t.Helper()
	c, err := gong.New(keyPair, append([]tributary.Option{tributary.WithBaseURL(srv.URL), fast}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// apiRequests returns the fake's log of API requests, without the token
// endpoint's.
func apiRequests(srv *gongtest.Server) []gongtestRequest {
	var out []gongtestRequest
	for _, r := range srv.Requests() {
		if r.Origin == "api" && r.Path != gongtest.TokenPath {
			out = append(out, gongtestRequest{Method: r.Method, Path: r.Path, Query: r.Query.Encode(), Body: r.Body, Auth: r.Header.Get("Authorization"), ContentType: r.Header.Get("Content-Type")})
		}
	}
	return out
}

type gongtestRequest struct {
	Method, Path, Query string
	Body                []byte
	Auth, ContentType   string
}

func bodyOf(t *testing.T, r gongtestRequest) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("%s %s: body %q is not a JSON object: %v", r.Method, r.Path, r.Body, err)
	}
	return m
}

// A full walk of GET /v2/calls delivers every call once, in order, with the
// cursor in the query and the other inputs repeated.
func TestAllCallsInOrder(t *testing.T) {
	const n = 1234
	srv := gongtest.New(gongtest.WithCalls(n))
	defer srv.Close()
	c := open(t, srv)
	since := time.Date(2023, 12, 1, 0, 0, 0, 0, time.UTC)
	i := 0
	for call, err := range c.Calls().All(context.Background(), gong.CallListParams{FromDateTime: since}) {
		if err != nil {
			t.Fatalf("after %d calls: %v", i, err)
		}
		if call.ID != srv.CallID(i) {
			t.Fatalf("call %d has id %s, want %s", i, call.ID, srv.CallID(i))
		}
		i++
	}
	if i != n {
		t.Fatalf("walked %d calls, want %d", i, n)
	}
	reqs := apiRequests(srv)
	if len(reqs) != (n+99)/100 {
		t.Errorf("%d requests for %d calls", len(reqs), n)
	}
	for k, r := range reqs {
		if r.Method != "GET" || r.Path != "/v2/calls" || !strings.Contains(r.Query, "fromDateTime=2023-12-01T00%3A00%3A00Z") ||
			strings.Contains(r.Query, "cursor=") != (k > 0) || len(r.Body) != 0 {
			t.Errorf("request %d: %s %s?%s", k, r.Method, r.Path, r.Query)
		}
	}
}

// POST lists page in the body: the next page repeats filter and
// contentSelector and adds cursor; the body is JSON with its Content-Type.
func TestExtensiveWalkPagesInBody(t *testing.T) {
	srv := gongtest.New(gongtest.WithCalls(260))
	defer srv.Close()
	c := open(t, srv)
	p := gong.CallsExtensiveListParams{
		Filter: &gong.CallFilter{FromDateTime: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)},
		ContentSelector: &gong.ContentSelector{Context: "Basic", ExposedFields: &gong.ExposedFields{Parties: true,
			Content: &gong.ContentFields{Topics: true, Highlights: true}}},
	}
	i := 0
	for call, err := range c.CallsExtensive().All(context.Background(), p) {
		if err != nil {
			t.Fatal(err)
		}
		var meta gong.Call
		if err := json.Unmarshal(call.MetaData, &meta); err != nil || meta.ID != srv.CallID(i) || len(call.Parties) == 0 || call.Content == nil {
			t.Fatalf("call %d: %s (%v), %d parties", i, meta.ID, err, len(call.Parties))
		}
		i++
	}
	if i != 260 {
		t.Fatalf("%d calls", i)
	}
	reqs := apiRequests(srv)
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	first := bodyOf(t, reqs[0])
	for k, r := range reqs {
		if r.Method != "POST" || r.Path != "/v2/calls/extensive" || r.Query != "" || r.ContentType != "application/json" {
			t.Errorf("request %d: %s %s?%s (%s)", k, r.Method, r.Path, r.Query, r.ContentType)
		}
		b := bodyOf(t, r)
		cur, hasCursor := b["cursor"].(string)
		if hasCursor != (k > 0) || (k > 0 && cur == "") {
			t.Errorf("request %d: cursor %v", k, b["cursor"])
		}
		delete(b, "cursor")
		if d := cmp.Diff(first, b); d != "" {
			t.Errorf("request %d does not repeat the first inputs (-first +this):\n%s", k, d)
		}
	}
	want := map[string]any{
		"filter":          map[string]any{"fromDateTime": "2024-01-01T00:00:00Z"},
		"contentSelector": map[string]any{"context": "Basic", "exposedFields": map[string]any{"parties": true, "content": map[string]any{"topics": true, "highlights": true}}},
	}
	if d := cmp.Diff(want, first); d != "" {
		t.Errorf("first body (-want +got):\n%s", d)
	}
}

// One page at a time: Meta "pagination" is Gong's records block, Next the
// params of the following page; the last page has no cursor and no Next.
func TestListMetaAndNext(t *testing.T) {
	srv := gongtest.New(gongtest.WithUsers(150))
	defer srv.Close()
	c := open(t, srv)
	page, err := c.List(context.Background(), "users", nil)
	if err != nil {
		t.Fatal(err)
	}
	pg, _ := page.Meta["pagination"].(map[string]any)
	cur, _ := pg["cursor"].(string)
	if len(page.Records) != 100 || pg["totalRecords"] != int64(150) || pg["currentPageSize"] != int64(100) || pg["currentPageNumber"] != int64(0) || cur == "" {
		t.Fatalf("%d records, meta %v", len(page.Records), page.Meta)
	}
	if d := cmp.Diff(tributary.Params{"cursor": cur}, page.Next); d != "" {
		t.Errorf("next (-want +got):\n%s", d)
	}
	last, err := c.List(context.Background(), "users", page.Next)
	if err != nil {
		t.Fatal(err)
	}
	pg, _ = last.Meta["pagination"].(map[string]any)
	if len(last.Records) != 50 || last.Next != nil || pg["currentPageNumber"] != int64(1) || pg["cursor"] != nil {
		t.Errorf("last page: %d records, next %v, meta %v", len(last.Records), last.Next, last.Meta)
	}
	if id, _ := last.Records[0].StringAt("id"); id != srv.UserID(100) {
		t.Errorf("first id of page 2: %s", id)
	}
}

// Gong ids are numeric strings of up to 20 digits, beyond 2^53: they stay
// exact in Records and typed records.
func TestLargeIDsStayExact(t *testing.T) {
	srv := gongtest.New()
	defer srv.Close()
	c := open(t, srv)
	id := srv.CallID(42)
	call, err := c.Calls().Get(context.Background(), id)
	if err != nil || call.ID != id {
		t.Fatalf("get: %v %q", err, call.ID)
	}
	rec, err := c.Get(context.Background(), "calls", tributary.Params{"id": id})
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ := rec.Lookup("id"); string(raw) != `"`+id+`"` {
		t.Errorf("raw id %s", raw)
	}
	u, err := c.Users().Get(context.Background(), srv.UserID(7))
	if err != nil || u.ID != srv.UserID(7) || u.ManagerID == nil || *u.ManagerID != srv.UserID(1) {
		t.Fatalf("user: %v %+v", err, u)
	}
}

// Params are nested where Gong nests them, from nested maps or dotted keys;
// coaching's hyphenated names go in the query as they are.
func TestNestedAndHyphenatedParams(t *testing.T) {
	srv := gongtest.New()
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	_, err := c.List(ctx, "calls_extensive", tributary.Params{
		"filter.callIds": []string{srv.CallID(1), srv.CallID(2)},
		"contentSelector.exposedFields.content.pointsOfInterest": true,
		"contentSelector": map[string]any{"contextTiming": []string{"TimeOfCall"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.List(ctx, "coaching", tributary.Params{"workspace-id": srv.WorkspaceID(0), "manager-id": srv.UserID(0),
		"from": "2024-01-01T00:00:00Z", "to": "2024-02-01T00:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	reqs := apiRequests(srv)
	want := map[string]any{
		"filter":          map[string]any{"callIds": []any{srv.CallID(1), srv.CallID(2)}},
		"contentSelector": map[string]any{"contextTiming": []any{"TimeOfCall"}, "exposedFields": map[string]any{"content": map[string]any{"pointsOfInterest": true}}},
	}
	if d := cmp.Diff(want, bodyOf(t, reqs[0])); d != "" {
		t.Errorf("extensive body (-want +got):\n%s", d)
	}
	wantQ := "from=2024-01-01T00%3A00%3A00Z&manager-id=" + srv.UserID(0) + "&to=2024-02-01T00%3A00%3A00Z&workspace-id=" + srv.WorkspaceID(0)
	if reqs[1].Path != "/v2/coaching" || reqs[1].Query != wantQ {
		t.Errorf("coaching: %s?%s", reqs[1].Path, reqs[1].Query)
	}
}

// Invalid params are rejected before anything is sent.
func TestValidationBeforeSending(t *testing.T) {
	srv := gongtest.New()
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	cases := []struct {
		entity string
		action tributary.Action
		params tributary.Params
		param  string
	}{
		{"calls_extensive", tributary.ActionList, nil, "filter"},
		{"calls_extensive", tributary.ActionList, tributary.Params{"filter": map[string]any{}, "contentSelector.exposedFields.content.nonsense": true}, "contentSelector.exposedFields.content.nonsense"},
		{"calls_extensive", tributary.ActionList, tributary.Params{"filter": map[string]any{}, "contentSelector.context": "Everything"}, "contentSelector.context"},
		{"call_transcripts", tributary.ActionList, tributary.Params{"filter.fromDateTime": "2024-01-01T00:00:00Z"}, "filter.toDateTime"},
		{"stats_interaction", tributary.ActionList, tributary.Params{"filter.fromDate": "2024-01-01"}, "filter.toDate"},
		{"library_folders", tributary.ActionList, nil, "workspaceId"},
		{"coaching", tributary.ActionList, tributary.Params{"workspace-id": "1", "manager-id": "2", "from": "2024-01-01T00:00:00Z"}, "to"},
		{"call_audio", tributary.ActionDownload, tributary.Params{"filter.callIds": []string{srv.CallID(1)}}, "contentSelector"},
		{"call_audio", tributary.ActionDownload, tributary.Params{"filter.callIds": []string{srv.CallID(1)}, "contentSelector.exposedFields.media": false}, "contentSelector.exposedFields.media"},
		{"call_video", tributary.ActionDownload, tributary.Params{"filter.callIds": []string{srv.CallID(1), srv.CallID(2)}, "contentSelector.exposedFields.media": true}, "filter.callIds"},
		{"call_video", tributary.ActionDownload, tributary.Params{"filter.callIds": []string{}, "contentSelector.exposedFields.media": true}, "filter.callIds"},
		{"call_video", tributary.ActionDownload, tributary.Params{"filter.callIds": []string{srv.CallID(1)}, "contentSelector.exposedFields.media": true, "range_header": "bytes=9-1"}, "range_header"},
	}
	for _, tc := range cases {
		var err error
		switch tc.action {
		case tributary.ActionList:
			_, err = c.List(ctx, tc.entity, tc.params)
			if err == nil {
				for _, e := range tributary.All(ctx, c, tc.entity, tc.params) {
					err = e
				}
			}
		case tributary.ActionDownload:
			s, derr := c.Download(ctx, tc.entity, tc.params)
			if s != nil {
				s.Close()
			}
			err = derr
		}
		var te *tributary.Error
		if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) || te.Param != tc.param || te.StatusCode != 0 {
			t.Errorf("%s.%s %v: err = %v, want ErrInvalidParams on %q before sending", tc.entity, tc.action, tc.params, err, tc.param)
		}
	}
	// The walk of a rule-breaking list fails too.
	for _, err := range c.CallTranscripts().All(ctx, gong.CallTranscriptListParams{Filter: &gong.CallFilter{}}) {
		if !errors.Is(err, tributary.ErrInvalidParams) {
			t.Errorf("transcripts walk: %v", err)
		}
	}
	if n := len(apiRequests(srv)); n != 0 {
		t.Errorf("%d requests were sent", n)
	}
}

// Gong answers 404 "No calls found ..." for a filter that matches nothing:
// a list returns an empty page; a get's 404 stays ErrNotFound.
func TestEmptyWindowIsAnEmptyPage(t *testing.T) {
	srv := gongtest.New()
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	window := tributary.Params{"fromDateTime": "2019-01-01T00:00:00Z", "toDateTime": "2019-02-01T00:00:00Z"}
	for _, tc := range []struct {
		entity string
		params tributary.Params
	}{
		{"calls", window},
		{"calls_extensive", tributary.Params{"filter": window}},
		{"call_transcripts", tributary.Params{"filter": window}},
		{"stats_activity_scorecards", tributary.Params{"filter": window}},
	} {
		page, err := c.List(ctx, tc.entity, tc.params)
		if err != nil || len(page.Records) != 0 || page.Next != nil {
			t.Errorf("%s: %v, %+v", tc.entity, err, page)
		}
		n := 0
		for _, err := range tributary.All(ctx, c, tc.entity, tc.params) {
			if err != nil {
				t.Errorf("%s walk: %v", tc.entity, err)
			}
			n++
		}
		if n != 0 {
			t.Errorf("%s walk: %d records", tc.entity, n)
		}
	}
	for _, tc := range []struct{ entity, id string }{{"calls", "7782342274099999999"}, {"users", "3041859475209999999"}} {
		_, err := c.Get(ctx, tc.entity, tributary.Params{"id": tc.id})
		var te *tributary.Error
		if !errors.As(err, &te) || !errors.Is(err, tributary.ErrNotFound) || te.StatusCode != 404 || te.RequestID == "" || !strings.HasSuffix(te.Message, "not found") {
			t.Errorf("get %s: %v", tc.entity, err)
		}
	}
	_, err := c.List(ctx, "library_folder_content", tributary.Params{"folderId": "1"})
	if !errors.Is(err, tributary.ErrNotFound) {
		t.Errorf("unknown folder: %v", err)
	}
}

func TestErrorsFromGongBodies(t *testing.T) {
	srv := gongtest.New()
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	_, err := c.List(ctx, "calls", tributary.Params{"fromDateTime": "yesterday"})
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) || te.StatusCode != 400 || !strings.Contains(te.Message, "fromDateTime") || te.RequestID == "" {
		t.Errorf("400: %v", err)
	}
	_, err = c.List(ctx, "users", tributary.Params{"cursor": "not-a-cursor"})
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrInvalidParams) || te.Message != gongtest.InvalidCursor {
		t.Errorf("bad cursor: %v", err)
	}
	bad, err := gong.New(gong.Credentials{AccessKey: gongtest.DefaultAccessKey, AccessKeySecret: "wrong-secret"}, tributary.WithBaseURL(srv.URL), fast)
	if err != nil {
		t.Fatal(err)
	}
	_, err = bad.List(ctx, "users", nil)
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrUnauthorized) || te.Message != gongtest.AccessDenied || strings.Contains(err.Error(), "wrong-secret") {
		t.Errorf("401: %v", err)
	}
}

func TestRateLimitAndServerErrorsAreRetried(t *testing.T) {
	srv := gongtest.New(gongtest.WithFaults(gongtest.Faults{RateLimitFirst: 1, ServerErrorFirst: 1, RetryAfter: time.Second}))
	defer srv.Close()
	c := open(t, srv)
	start := time.Now()
	page, err := c.List(context.Background(), "workspaces", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Records) != 3 || len(srv.Requests()) != 3 {
		t.Errorf("%d records after %d requests", len(page.Records), len(srv.Requests()))
	}
	if time.Since(start) < time.Second {
		t.Errorf("Retry-After of 1s was not waited (%v)", time.Since(start))
	}

	// A wait longer than the policy allows comes back as ErrRateLimited
	// with Gong's message and the wait.
	srv.SetFaults(gongtest.Faults{RateLimitFirst: 1, RetryAfter: time.Minute})
	_, err = c.List(context.Background(), "workspaces", nil)
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrRateLimited) || te.RetryAfter != time.Minute || te.Message != gongtest.RateLimitExceeded || !te.Retryable {
		t.Errorf("long 429: %v", err)
	}
}

// call_audio: the URL comes from POST /v2/calls/extensive with media:true;
// the file comes from the media host without credentials, cut every 16 KiB
// and resumed byte-exactly; a range is honoured.
func TestDownloadAcrossHostsWithRangeAndResume(t *testing.T) {
	const size = 100_000
	srv := gongtest.New(gongtest.WithMediaSize(size), gongtest.WithFileCutEvery(16<<10))
	defer srv.Close()
	for _, creds := range []gong.Credentials{keyPair, {AccessToken: gongtest.DefaultAccessToken}} {
		srv.ResetRequests()
		c, err := gong.New(creds, tributary.WithBaseURL(srv.URL), fast)
		if err != nil {
			t.Fatal(err)
		}
		want := fetchDirect(t, srv, 3, "audioUrl")
		s, err := c.CallAudio(context.Background(), srv.CallID(3), "")
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(s)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != size || sha256.Sum256(got) != sha256.Sum256(want) || s.Size != size || s.ContentType != "audio/mpeg" {
			t.Fatalf("downloaded %d bytes (size %d, %s), want %d with the same SHA-256", len(got), s.Size, s.ContentType, size)
		}
		files := 0
		for _, r := range srv.Requests() {
			switch r.Origin {
			case "files":
				files++
				if r.Header.Get("Authorization") != "" {
					t.Errorf("credentials reached the media host: %s", r.Path)
				}
			case "api":
				var b map[string]any
				_ = json.Unmarshal(r.Body, &b)
				want := map[string]any{"filter": map[string]any{"callIds": []any{srv.CallID(3)}}, "contentSelector": map[string]any{"exposedFields": map[string]any{"media": true}}}
				if r.Method != "POST" || r.Path != "/v2/calls/extensive" || !cmp.Equal(want, b) {
					t.Errorf("metadata request %s %s %s", r.Method, r.Path, r.Body)
				}
			}
		}
		if files < 2+size/(16<<10) {
			t.Errorf("%d media requests: the cuts were not resumed", files)
		}

		s, err = c.Download(context.Background(), "call_video", tributary.Params{"filter.callIds": []string{srv.CallID(3)},
			"contentSelector.exposedFields.media": true, "range_header": "bytes=1000-1999"})
		if err != nil {
			t.Fatal(err)
		}
		part, _ := io.ReadAll(s)
		s.Close()
		video := fetchDirect(t, srv, 3, "videoUrl")
		if !bytes.Equal(part, video[1000:2000]) || s.Range == nil || s.Range.First != 1000 || s.Range.Last != 1999 || s.Size != 2*size {
			t.Errorf("range: %d bytes, served %+v of %d", len(part), s.Range, s.Size)
		}
	}
}

// fetchDirect reads call i's media with plain net/http, as a reference.
func fetchDirect(t *testing.T, srv *gongtest.Server, i int, field string) []byte {
	t.Helper()
	body := fmt.Sprintf(`{"filter":{"callIds":[%q]},"contentSelector":{"exposedFields":{"media":true}}}`, srv.CallID(i))
	req, _ := http.NewRequest("POST", srv.URL+"/v2/calls/extensive", strings.NewReader(body))
	req.SetBasicAuth(gongtest.DefaultAccessKey, gongtest.DefaultAccessKeySecret)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var page struct {
		Calls []struct{ Media map[string]string } `json:"calls"`
	}
	err = json.NewDecoder(res.Body).Decode(&page)
	res.Body.Close()
	if err != nil || len(page.Calls) != 1 {
		t.Fatalf("reference metadata: %v", err)
	}
	var out []byte
	for range 100 { // the media host cuts; read ranges until done
		req, _ := http.NewRequest("GET", page.Calls[0].Media[field], nil)
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", len(out)))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		out = append(out, b...)
		if res.StatusCode == http.StatusRequestedRangeNotSatisfiable || (err == nil && res.StatusCode == http.StatusPartialContent && strings.HasSuffix(res.Header.Get("Content-Range"), fmt.Sprintf("-%d/%d", len(out)-1, len(out)))) {
			return out
		}
	}
	t.Fatal("reference download did not finish")
	return nil
}

// An audio-only call has no videoUrl: its video download is ErrNotFound,
// and an unknown call id is Gong's 404.
func TestVideoOfAudioOnlyCallIsNotFound(t *testing.T) {
	srv := gongtest.New()
	defer srv.Close()
	c := open(t, srv)
	_, err := c.CallVideo(context.Background(), srv.CallID(2), "") // call 2 is audio only
	if !errors.Is(err, tributary.ErrNotFound) || !strings.Contains(err.Error(), "video") {
		t.Errorf("video of an audio call: %v", err)
	}
	_, err = c.CallAudio(context.Background(), "7782342274099999999", "")
	var te *tributary.Error
	if !errors.As(err, &te) || !errors.Is(err, tributary.ErrNotFound) || te.StatusCode != 404 {
		t.Errorf("unknown call: %v", err)
	}
}

type rotations struct {
	mu   sync.Mutex
	toks []*oauth2.Token
}

func (r *rotations) save(tok *oauth2.Token) {
	r.mu.Lock()
	r.toks = append(r.toks, tok)
	r.mu.Unlock()
}

func (r *rotations) all() []*oauth2.Token {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*oauth2.Token(nil), r.toks...)
}

func oauthCreds(access, refresh string) gong.Credentials {
	return gong.Credentials{AccessToken: access, RefreshToken: refresh, ClientID: gongtest.DefaultClientID, ClientSecret: gongtest.DefaultClientSecret}
}

func parallelLists(t *testing.T, c tributary.Connector, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			_, err := c.List(context.Background(), "workspaces", nil)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// OAuth with a refresh token only: concurrent first calls refresh exactly
// once (Gong's refresh tokens are single-use), with client credentials in
// Basic; the rotated pair and api_base_url_for_customer reach the callback.
func TestOAuthRefreshOnceAndRotate(t *testing.T) {
	srv := gongtest.New()
	defer srv.Close()
	var rot rotations
	c, err := gong.New(oauthCreds("", gongtest.DefaultRefreshToken), tributary.WithBaseURL(srv.URL), fast, tributary.WithTokenRefresh(rot.save))
	if err != nil {
		t.Fatal(err)
	}
	parallelLists(t, c, 8)
	toks := rot.all()
	if len(toks) != 1 || toks[0].RefreshToken != srv.RefreshToken() || toks[0].RefreshToken == gongtest.DefaultRefreshToken || toks[0].Extra(gong.CustomerBaseURLKey) != srv.URL {
		t.Fatalf("%d rotations (%+v); want exactly one with the fake's new refresh token", len(toks), toks)
	}
	refreshes := 0
	for _, r := range srv.Requests() {
		if r.Path == gongtest.TokenPath {
			refreshes++
			if id, secret, ok := (&http.Request{Header: r.Header}).BasicAuth(); !ok || id != gongtest.DefaultClientID || secret != gongtest.DefaultClientSecret {
				t.Errorf("the token request did not carry the client credentials in Basic")
			}
		} else if r.Header.Get("Authorization") != "Bearer "+toks[0].AccessToken {
			t.Errorf("%s sent %q", r.Path, r.Header.Get("Authorization"))
		}
	}
	if refreshes != 1 {
		t.Errorf("%d refreshes", refreshes)
	}

	// The spent refresh token is refused by Gong: a new connector opened
	// with it fails with ErrUnauthorized and shows no secret.
	stale, err := gong.New(oauthCreds("", gongtest.DefaultRefreshToken), tributary.WithBaseURL(srv.URL), fast)
	if err != nil {
		t.Fatal(err)
	}
	_, err = stale.List(context.Background(), "workspaces", nil)
	if !errors.Is(err, tributary.ErrUnauthorized) || !strings.Contains(err.Error(), "invalid_grant") || strings.Contains(err.Error(), gongtest.DefaultRefreshToken) ||
		strings.Contains(err.Error(), gongtest.DefaultClientSecret) {
		t.Errorf("spent refresh token: %v", err)
	}
}

// A saved access token that Gong no longer accepts is refreshed after its
// 401, once for all concurrent callers, and the request succeeds.
func TestStaleAccessTokenIsRefreshedOn401(t *testing.T) {
	srv := gongtest.New()
	defer srv.Close()
	var rot rotations
	c, err := gong.New(oauthCreds("expired-access-token", gongtest.DefaultRefreshToken), tributary.WithBaseURL(srv.URL), fast, tributary.WithTokenRefresh(rot.save))
	if err != nil {
		t.Fatal(err)
	}
	parallelLists(t, c, 6)
	if toks := rot.all(); len(toks) != 1 {
		t.Fatalf("%d refreshes, want 1", len(toks))
	}
	// With only an access token, a 401 is final.
	plain, _ := gong.New(gong.Credentials{AccessToken: "expired-access-token"}, tributary.WithBaseURL(srv.URL), fast)
	if _, err := plain.List(context.Background(), "workspaces", nil); !errors.Is(err, tributary.ErrUnauthorized) {
		t.Errorf("access token only: %v", err)
	}
}

// After a refresh, requests go to the api_base_url_for_customer the token
// response names (here a second fake, which issued the token): the token
// is obtained before the first request is built, so even that one goes to
// the customer's origin, and the saved api_base_url sees nothing.
func TestCustomerBaseURLFromTokenResponse(t *testing.T) {
	shared := gongtest.New()
	defer shared.Close()
	customer := gongtest.New()
	defer customer.Close()
	creds := oauthCreds("", gongtest.DefaultRefreshToken)
	creds.APIBaseURL = shared.URL
	c, err := gong.New(creds, tributary.WithTokenURL(customer.TokenURL()), fast)
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL() != shared.URL {
		t.Errorf("base before the refresh: %s", c.BaseURL())
	}
	users, err := c.List(context.Background(), "users", nil)
	if err != nil || len(users.Records) == 0 {
		t.Fatalf("users: %v", err)
	}
	if _, err := c.List(context.Background(), "users", users.Next); err != nil {
		t.Fatal(err)
	}
	if n := len(shared.Requests()); n != 0 {
		t.Errorf("the saved origin got %d requests", n)
	}
	if n := len(apiRequests(customer)); n != 2 {
		t.Errorf("the customer origin got %d API requests", n)
	}
	if c.BaseURL() != customer.URL {
		t.Errorf("base after the refresh: %s, want %s", c.BaseURL(), customer.URL)
	}

	// A saved access token with its saved base URL is used as it is: no
	// refresh, no move.
	creds = oauthCreds(gongtest.DefaultAccessToken, "another-refresh-token")
	creds.APIBaseURL = shared.URL
	var rot rotations
	c, err = gong.New(creds, tributary.WithTokenURL(customer.TokenURL()), fast, tributary.WithTokenRefresh(rot.save))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.List(context.Background(), "workspaces", nil); err != nil {
		t.Fatal(err)
	}
	if len(rot.all()) != 0 || len(apiRequests(shared)) != 1 || c.BaseURL() != shared.URL {
		t.Errorf("%d refreshes, %d requests at the saved origin, base %s", len(rot.all()), len(apiRequests(shared)), c.BaseURL())
	}
}

// The api_base_url credential is the base URL when no option overrides it.
func TestAPIBaseURLCredential(t *testing.T) {
	srv := gongtest.New()
	defer srv.Close()
	c, err := gong.Open(map[string]any{"access_key": gongtest.DefaultAccessKey, "access_key_secret": gongtest.DefaultAccessKeySecret, "api_base_url": srv.URL + "/"}, fast)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.List(context.Background(), "workspaces", nil); err != nil {
		t.Fatal(err)
	}
	if n := len(apiRequests(srv)); n != 1 {
		t.Errorf("%d requests reached the fake", n)
	}
}

func TestNoSecretAnywhere(t *testing.T) {
	srv := gongtest.New()
	defer srv.Close()
	const secret = "sup3r-s3cret-key-secret"
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	creds := gong.Credentials{AccessKey: "key-id-1234", AccessKeySecret: secret}
	c, err := gong.New(creds, tributary.WithBaseURL(srv.URL), fast, tributary.WithLogger(logger))
	if err != nil {
		t.Fatal(err)
	}
	_, err1 := c.List(context.Background(), "users", nil)
	_, err2 := c.Get(context.Background(), "calls", tributary.Params{"id": srv.CallID(1)})
	oc := oauthCreds("an-access-token-xyz", "a-refresh-token-xyz")
	oc.ClientSecret = "wrong-client-secret"
	o, err := gong.New(oc, tributary.WithBaseURL(srv.URL), fast, tributary.WithLogger(logger))
	if err != nil {
		t.Fatal(err)
	}
	_, err3 := o.List(context.Background(), "users", nil)
	if !errors.Is(err3, tributary.ErrUnauthorized) {
		t.Errorf("bad client secret: %v", err3)
	}
	for _, s := range []string{fmt.Sprint(err1, err2, err3), fmt.Sprintf("%+v %#v %+v", err1, err2, err3), fmt.Sprintf("%v %+v %#v %v", c, c, c, o),
		fmt.Sprintf("%v %+v %#v %s", creds, creds, creds, oc), logs.String()} {
		for _, sec := range []string{secret, "key-id-1234", "an-access-token-xyz", "a-refresh-token-xyz", "wrong-client-secret"} {
			if strings.Contains(s, sec) {
				t.Fatalf("%q leaked: %s", sec, s)
			}
		}
	}
	if !strings.Contains(logs.String(), `"status":401`) {
		t.Errorf("expected debug lines, got %q", logs.String())
	}
}

func TestCancelMidWalkReturnsPromptly(t *testing.T) {
	srv := gongtest.New(gongtest.WithCalls(5000), gongtest.WithFaults(gongtest.Faults{Latency: 20 * time.Millisecond}))
	defer srv.Close()
	c := open(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	var err error
	var cancelled time.Time
	for _, e := range tributary.All(ctx, c, "calls_extensive", tributary.Params{"filter": map[string]any{}}) {
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
		{"access_key": "k"},
		{"access_key_secret": "s"},
		{"access_key": "k", "access_key_secret": "s", "access_token": "x"},
		{"access_key": "k", "access_key_secret": "s", "client_id": "c", "client_secret": "d"},
		{"refresh_token": "r"},
		{"refresh_token": "r", "client_id": "c"},
		{"access_token": "x", "client_id": "c"},
		{"access_token": 7},
		{"access_token": "x", "password": "p"},
		{"access_token": "x", "api_base_url": "us-12345.api.gong.io"},
		{"access_token": "x", "api_base_url": "https://us-12345.api.gong.io?x=1"},
	}
	for _, creds := range cases {
		_, err := gong.Open(creds)
		if !errors.Is(err, tributary.ErrInvalidCredentials) {
			t.Errorf("%v: err = %v, want ErrInvalidCredentials", creds, err)
		}
	}
	for _, creds := range []map[string]any{
		{"access_key": "k", "access_key_secret": "s"},
		{"access_token": "x"},
		{"refresh_token": "r", "client_id": "c", "client_secret": "d"},
		{"access_token": "x", "refresh_token": "r", "client_id": "c", "client_secret": "d", "api_base_url": "https://us-12345.api.gong.io"},
	} {
		c, err := gong.Open(creds)
		if err != nil || c.Type() != "gong" {
			t.Errorf("%v: %v", creds, err)
		}
	}
	c, _ := gong.Open(map[string]any{"access_token": "x", "api_base_url": "https://us-12345.api.gong.io/"})
	if got := c.(*gong.Client).BaseURL(); got != "https://us-12345.api.gong.io" {
		t.Errorf("base URL %s", got)
	}
}

// first returns a function that takes a typed page and its error and
// returns the page's first item, failing the test when there is none.
func first[T any](t *testing.T, name string) func(*pagination.Page[T], error) T {
	return func(p *pagination.Page[T], err error) T {
		t.Helper()
		var zero T
		if err != nil || len(p.Items) == 0 {
			t.Errorf("%s: %v (no records)", name, err)
			return zero
		}
		return p.Items[0]
	}
}

// Every typed handle lists from the fake and decodes its records.
func TestTypedHandlesEveryEntity(t *testing.T) {
	srv := gongtest.New()
	defer srv.Close()
	c := open(t, srv)
	ctx := context.Background()
	jan := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	stats := gong.StatsListParams{Filter: &gong.StatsFilter{FromDate: "2024-01-01", ToDate: "2024-01-04", UserIDs: []string{srv.UserID(1)}}}
	bad := func(name string, v any) { t.Helper(); t.Errorf("%s: %+v", name, v) }

	if u := first[gong.User](t, "users")(c.Users().List(ctx, gong.UserListParams{})); u.ID != srv.UserID(0) {
		bad("users", u)
	}
	tr := first[gong.CallTranscript](t, "call_transcripts")(c.CallTranscripts().List(ctx, gong.CallTranscriptListParams{Filter: &gong.CallFilter{CallIDs: []string{srv.CallID(5)}}}))
	if tr.CallID != srv.CallID(5) || len(tr.Transcript) == 0 {
		bad("call_transcripts", tr)
	}
	if w := first[gong.Workspace](t, "workspaces")(c.Workspaces().List(ctx, gong.NoParams{})); w.ID != srv.WorkspaceID(0) {
		bad("workspaces", w)
	}
	var agg gong.AggregateActivityStats
	if a := first[gong.StatsActivityAggregate](t, "stats_activity_aggregate")(c.StatsActivityAggregate().List(ctx, stats)); a.UserID != srv.UserID(1) ||
		json.Unmarshal(a.UserAggregateActivityStats, &agg) != nil || agg.CallsAsHost == 0 {
		bad("stats_activity_aggregate", a)
	}
	if d := first[gong.StatsActivityDayByDay](t, "stats_activity_day_by_day")(c.StatsActivityDayByDay().List(ctx, stats)); len(d.UserDailyActivityStats) != 3 {
		bad("stats_activity_day_by_day", d)
	}
	if i := first[gong.StatsInteraction](t, "stats_interaction")(c.StatsInteraction().List(ctx, stats)); len(i.PersonInteractionStats) == 0 {
		bad("stats_interaction", i)
	}
	sc := first[gong.SettingsScorecard](t, "settings_scorecards")(c.SettingsScorecards().List(ctx, gong.WorkspaceParams{WorkspaceID: srv.WorkspaceID(0)}))
	if sc.ScorecardID != srv.ScorecardID(0) || len(sc.Questions) == 0 {
		bad("settings_scorecards", sc)
	}
	if tk := first[gong.SettingsTracker](t, "settings_trackers")(c.SettingsTrackers().List(ctx, gong.WorkspaceParams{})); tk.TrackerID == "" {
		bad("settings_trackers", tk)
	}
	f := first[gong.LibraryFolder](t, "library_folders")(c.LibraryFolders().List(ctx, gong.LibraryFolderListParams{WorkspaceID: srv.WorkspaceID(1)}))
	if f.ID != srv.FolderID(4) || f.ParentFolderID != nil {
		bad("library_folders", f)
	}
	if fc := first[gong.LibraryFolderContent](t, "library_folder_content")(c.LibraryFolderContent().List(ctx, gong.LibraryFolderContentListParams{FolderID: srv.FolderID(4)})); fc.ID == "" || fc.Title == "" {
		bad("library_folder_content", fc)
	}
	var mgr struct{ ID string }
	co := first[gong.Coaching](t, "coaching")(c.Coaching().List(ctx, gong.CoachingListParams{WorkspaceID: srv.WorkspaceID(0), ManagerID: srv.UserID(0), From: jan, To: jan.AddDate(0, 1, 0)}))
	if json.Unmarshal(co.Manager, &mgr) != nil || mgr.ID != srv.UserID(0) || len(co.DirectReportsMetrics) == 0 {
		bad("coaching", co)
	}
	// Gong's own filter names, and the catalogue's, each sent as given.
	for _, f := range []*gong.AnsweredScorecardFilter{
		{CallFromDate: "2024-01-01", CallToDate: "2024-01-05", ScorecardIDs: []string{srv.ScorecardID(0)}},
		{FromDateTime: jan, ToDateTime: jan.AddDate(0, 0, 4), ReviewerUserIDs: []string{srv.UserID(0)}},
	} {
		a := first[gong.StatsActivityScorecard](t, "stats_activity_scorecards")(c.StatsActivityScorecards().List(ctx, gong.AnsweredScorecardListParams{Filter: f}))
		if a.CallID != srv.CallID(0) || len(a.Answers) == 0 {
			bad("stats_activity_scorecards", a)
		}
	}
	reqs := apiRequests(srv)
	want := map[string]any{"filter": map[string]any{"fromDateTime": "2024-01-01T00:00:00Z", "toDateTime": "2024-01-05T00:00:00Z", "reviewerUserIds": []any{srv.UserID(0)}}}
	if d := cmp.Diff(want, bodyOf(t, reqs[len(reqs)-1])); d != "" {
		t.Errorf("answered scorecards body (-want +got):\n%s", d)
	}
}
