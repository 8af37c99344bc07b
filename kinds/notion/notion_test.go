package notion_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/notion"
	"github.com/tributary-dev/tributary/kinds/notion/notiontest"
)

func open(t *testing.T, s *notiontest.Server, opts ...tributary.Option) *notion.Client {
	t.Helper()
	opts = append([]tributary.Option{tributary.WithBaseURL(s.URL), tributary.WithHTTPClient(&http.Client{Transport: s.Transport()}),
		tributary.WithRetry(tributary.RetryPolicy{MaxRetries: 3}), tributary.WithoutPacing()}, opts...)
	c, err := notion.New(notion.Credentials{Token: notiontest.DefaultToken}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// apiRequests lists the fake's API requests as "METHOD path?query body".
func apiRequests(s *notiontest.Server) []fakeserver.Request {
	var out []fakeserver.Request
	for _, r := range s.Requests() {
		if r.Origin == "api" {
			out = append(out, r)
		}
	}
	return out
}

// A walk of pages is POST /v1/search limited to pages, the cursor in the
// JSON body, every request with the pinned Notion-Version and the token.
func TestPagesWalkSendsCursorInBody(t *testing.T) {
	s := notiontest.New(notiontest.WithPages(230), notiontest.WithDataSources(0))
	defer s.Close()
	c := open(t, s)
	var n int
	for p, err := range c.Pages().All(context.Background(), notion.SearchParams{PageSize: 100}) {
		if err != nil {
			t.Fatal(err)
		}
		if p.Object != "page" || p.ID == "" || p.LastEditedTime == "" {
			t.Fatalf("page %+v", p)
		}
		n++
	}
	reqs := apiRequests(s)
	if n != 230 || len(reqs) != 3 {
		t.Fatalf("%d pages in %d requests, want 230 in 3", n, len(reqs))
	}
	for i, r := range reqs {
		var body map[string]any
		if err := json.Unmarshal(r.Body, &body); err != nil || r.Method != "POST" || r.Path != "/v1/search" || len(r.Query) != 0 {
			t.Fatalf("request %d: %s %s?%s %s", i, r.Method, r.Path, r.Query.Encode(), r.Body)
		}
		if f, _ := body["filter"].(map[string]any); f["property"] != "object" || f["value"] != "page" || body["page_size"] != float64(100) {
			t.Errorf("request %d body %s", i, r.Body)
		}
		if _, has := body["start_cursor"]; has != (i > 0) {
			t.Errorf("request %d body %s: start_cursor only after the first page", i, r.Body)
		}
		if r.Header.Get("Notion-Version") != notion.Version || r.Header.Get("Authorization") != "Bearer "+notiontest.DefaultToken {
			t.Errorf("request %d headers %v", i, r.Header)
		}
	}
}

// A GET list carries its cursor in the query: users, comments.
func TestGetListCursorInQuery(t *testing.T) {
	s := notiontest.New()
	defer s.Close()
	c := open(t, s)
	page, err := c.List(context.Background(), "users", tributary.Params{"page_size": 2})
	if err != nil || len(page.Records) != 2 || page.Next == nil {
		t.Fatalf("users: %v, %v", page, err)
	}
	if _, err := c.List(context.Background(), "users", page.Next); err != nil {
		t.Fatal(err)
	}
	reqs := apiRequests(s)
	if q := reqs[1].Query; reqs[1].Path != "/v1/users" || q.Get("start_cursor") == "" || q.Get("page_size") != "2" || len(reqs[1].Body) != 0 {
		t.Errorf("second request %s?%s", reqs[1].Path, q.Encode())
	}
}

// A page's blocks are read to the depth asked: the children alone, two
// levels, three; the default reads all of them; each nested block names
// its parent block.
func TestBlocksToDepth(t *testing.T) {
	s := notiontest.New(notiontest.WithPages(3), notiontest.WithDataSources(0))
	defer s.Close()
	c := open(t, s)
	page := notiontest.PageID(0) // heading, paragraph, toggle → toggle → toggle → paragraph, pdf
	count := func(depth int) (int, map[string]bool) {
		n, parents := 0, map[string]bool{}
		for b, err := range c.Blocks().All(context.Background(), notion.ChildParams{BlockID: page, Depth: depth}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			parents[b.Parent.Type+" "+b.Parent.PageID+b.Parent.BlockID] = true
		}
		return n, parents
	}
	for depth, want := range map[int]int{1: 4, 2: 5, 3: 6, 4: 7, 0: 7} {
		s.ResetRequests()
		n, parents := count(depth)
		if n != want {
			t.Errorf("depth %d: %d blocks, want %d", depth, n, want)
		}
		if depth != 0 && len(parents) != depth { // the page, then one toggle a level
			t.Errorf("depth %d: parents %v", depth, parents)
		}
		for _, r := range apiRequests(s) {
			if r.Query.Has("depth") || r.Query.Has("pending") || !strings.HasSuffix(r.Path, "/children") {
				t.Errorf("depth %d sent %s?%s", depth, r.Path, r.Query.Encode())
			}
		}
	}
	if _, err := c.List(context.Background(), "blocks", tributary.Params{"block_id": page, "depth": 21}); !errors.Is(err, tributary.ErrInvalidParams) {
		t.Errorf("depth 21: %v", err)
	}
}

// A file block downloads through its signed URL, on the file host with
// no credentials; when the URL has expired by the time a cut download
// resumes, the block is read again for a fresh one.
func TestFileDownloadRereadsExpiredURL(t *testing.T) {
	const size, cut = 30_000, 10_000
	s := notiontest.New(notiontest.WithPages(4), notiontest.WithDataSources(0), notiontest.WithFileSize(size), notiontest.WithFileCutEvery(cut))
	defer s.Close()
	// Over loopback: the fake cuts connections, which the in-process
	// transport cannot.
	c, err := notion.New(notion.Credentials{Token: notiontest.DefaultToken}, tributary.WithBaseURL(s.URL), tributary.WithoutPacing())
	if err != nil {
		t.Fatal(err)
	}
	id := s.FileBlocks()[0]
	want, _ := s.FileContent(id)
	st, err := c.Download(context.Background(), "files", tributary.Params{"block_id": id})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got := make([]byte, cut)
	if _, err := io.ReadFull(st, got); err != nil {
		t.Fatal(err)
	}
	s.Clock().Advance(2 * time.Hour) // the first URL has expired
	rest, err := io.ReadAll(st)
	if err != nil || !slices.Equal(append(got, rest...), want) {
		t.Fatalf("read %d bytes of %d: %v", cut+len(rest), size, err)
	}
	var gets, files int
	for _, r := range s.Requests() {
		switch {
		case r.Origin == "api" && r.Path == "/v1/blocks/"+id:
			gets++
		case r.Origin == "files":
			files++
			if r.Header.Get("Authorization") != "" || r.Header.Get("Notion-Version") != "" {
				t.Errorf("the file host received %v", r.Header)
			}
		}
	}
	if gets != 3 || files != 3 {
		t.Errorf("%d reads of the block for %d file requests, want 3 and 3", gets, files)
	}
}

// Notion's errors: a missing page is ErrNotFound with Notion's code; a
// bad token ErrUnauthorized, the token not in the message. (A 429's
// Retry-After is read by the fixture pages.list.rate_limited; Notion's
// are whole seconds, too long for a test to wait.)
func TestErrors(t *testing.T) {
	s := notiontest.New()
	defer s.Close()
	c := open(t, s)
	_, err := c.Pages().Get(context.Background(), "00000000-0000-4000-8000-000000000000")
	var te *tributary.Error
	if !errors.Is(err, tributary.ErrNotFound) || !errors.As(err, &te) || te.Code != "object_not_found" {
		t.Errorf("missing page: %v", err)
	}
	bad, err := notion.New(notion.Credentials{Token: "ntn_wrong"}, tributary.WithBaseURL(s.URL), tributary.WithHTTPClient(&http.Client{Transport: s.Transport()}))
	if err != nil {
		t.Fatal(err)
	}
	if err := bad.CheckCredentials(context.Background()); !errors.Is(err, tributary.ErrUnauthorized) || strings.Contains(err.Error(), "ntn_wrong") {
		t.Errorf("bad token: %v", err)
	}
}
