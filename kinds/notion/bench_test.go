package notion_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/benchmark"
	"github.com/tributary-dev/tributary/kinds/notion"
	"github.com/tributary-dev/tributary/kinds/notion/notiontest"
)

// benchPages is the number of pages walked per iteration, 100 a page.
const benchPages = 10_000

func benchServer(tb testing.TB, pages int) *notiontest.Server {
	srv := notiontest.New(notiontest.WithPages(pages), notiontest.WithDataSources(0))
	// Pages are rendered once and replayed, so the fake costs next to
	// nothing and what is measured is the clients.
	srv.SetResponseCache(true)
	tb.Cleanup(srv.Close)
	return srv
}

func benchClient(tb testing.TB, srv *notiontest.Server) *notion.Client {
	c, err := notion.New(notion.Credentials{Token: notiontest.DefaultToken}, tributary.WithBaseURL(srv.URL), tributary.WithoutPacing())
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// walkTyped lists every page through the typed handle, 100 a request.
func walkTyped(tb testing.TB, c *notion.Client) int {
	return benchmark.Count(tb, c.Pages().All(context.Background(), notion.SearchParams{PageSize: notion.MaxPageSize}))
}

// walkNetHTTP is the baseline: a plain net/http + encoding/json loop over
// the pages the library asks for (POST /v1/search limited to pages, then
// start_cursor until has_more is false), with the same headers, into the
// same struct.
func walkNetHTTP(tb testing.TB, hc *http.Client, base string) int {
	n := 0
	body := map[string]any{"page_size": notion.MaxPageSize, "filter": map[string]any{"property": "object", "value": "page"}}
	for {
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, base+"/v1/search", bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+notiontest.DefaultToken)
		req.Header.Set("Notion-Version", notion.Version)
		req.Header.Set("Accept", "application/json")
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		var page struct {
			Results    []notion.Page `json:"results"`
			NextCursor string        `json:"next_cursor"`
			HasMore    bool          `json:"has_more"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			tb.Fatal(resp.Status, err)
		}
		n += len(page.Results)
		if !page.HasMore {
			return n
		}
		body["start_cursor"] = page.NextCursor
	}
}

// BenchmarkListPagesTyped walks 10,000 pages into notion.Page.
func BenchmarkListPagesTyped(b *testing.B) {
	c := benchClient(b, benchServer(b, benchPages))
	benchmark.Walk(b, benchPages, func() int { return walkTyped(b, c) })
}

// BenchmarkListPagesGeneric walks 10,000 pages as raw Records.
func BenchmarkListPagesGeneric(b *testing.B) {
	c := benchClient(b, benchServer(b, benchPages))
	benchmark.Walk(b, benchPages, func() int {
		return benchmark.Count(b, tributary.All(context.Background(), c, "pages", tributary.Params{"page_size": notion.MaxPageSize}))
	})
}

// BenchmarkListPagesNetHTTP walks the same 10,000 pages with walkNetHTTP.
func BenchmarkListPagesNetHTTP(b *testing.B) {
	srv := benchServer(b, benchPages)
	hc := benchmark.Client(b)
	benchmark.Walk(b, benchPages, func() int { return walkNetHTTP(b, hc, srv.URL) })
}

// The baseline is a fair one: it sends what the typed listing sends (paths,
// bodies, headers but User-Agent) and counts the same records.
func TestNetHTTPBaselineMatchesTyped(t *testing.T) {
	const pages = 250
	srv := benchServer(t, pages)
	c := benchClient(t, srv)
	benchmark.Baseline(t, srv, pages, func() int { return walkTyped(t, c) }, func(hc *http.Client) int { return walkNetHTTP(t, hc, srv.URL) })
}
