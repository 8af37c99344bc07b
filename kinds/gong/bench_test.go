package gong_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/benchmark"
	"github.com/tributary-dev/tributary/kinds/gong"
	"github.com/tributary-dev/tributary/kinds/gong/gongtest"
)

// benchCalls is the number of calls walked per iteration, in Gong's fixed
// pages of 100.
const benchCalls = 10_000

func benchServer(tb testing.TB, calls int) (*gongtest.Server, *gong.Client) {
	tb.Helper()
	srv := gongtest.New(gongtest.WithCalls(calls))
	// Pages are rendered once and replayed, so the fake costs next to
	// nothing and what is measured is the clients.
	srv.SetResponseCache(true)
	tb.Cleanup(srv.Close)
	// A benchmark measures the client, not Gong's rate limit: the pacing
	// to it is off (as in the sandbox), or a walk of 100 pages would take
	// 35 s at 3 requests a second.
	c, err := gong.New(keyPair, tributary.WithBaseURL(srv.URL), tributary.WithoutPacing())
	if err != nil {
		tb.Fatal(err)
	}
	return srv, c
}

// walkTyped lists every call through the typed handle.
func walkTyped(tb testing.TB, c *gong.Client) int {
	n := 0
	for call, err := range c.Calls().All(context.Background(), gong.CallListParams{}) {
		if err != nil || call.ID == "" {
			tb.Fatal(err)
		}
		n++
	}
	return n
}

// walkNetHTTP is the baseline: a plain net/http + encoding/json loop over
// the pages the library asks for (GET /v2/calls, then ?cursor= the previous
// page's records.cursor until there is none), with the same headers, into
// the same struct.
func walkNetHTTP(tb testing.TB, hc *http.Client, base string) int {
	n := 0
	cursor := ""
	for {
		u := base + "/v2/calls"
		if cursor != "" {
			u += "?cursor=" + url.QueryEscape(cursor)
		}
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		req.SetBasicAuth(gongtest.DefaultAccessKey, gongtest.DefaultAccessKeySecret)
		req.Header.Set("Accept", "application/json")
		res, err := hc.Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		var page struct {
			Records struct {
				Cursor string `json:"cursor"`
			} `json:"records"`
			Calls []gong.Call `json:"calls"`
		}
		err = json.NewDecoder(res.Body).Decode(&page)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK {
			tb.Fatal(res.Status, err)
		}
		for i := range page.Calls {
			if page.Calls[i].ID == "" {
				tb.Fatal("call without an id")
			}
		}
		n += len(page.Calls)
		if page.Records.Cursor == "" {
			return n
		}
		cursor = page.Records.Cursor
	}
}

// BenchmarkListCalls walks 10,000 calls (100 pages of GET /v2/calls) from
// the fake: typed, generic, and a plain net/http + encoding/json loop.
func BenchmarkListCalls(b *testing.B) {
	b.Run("typed", func(b *testing.B) {
		_, c := benchServer(b, benchCalls)
		benchmark.Walk(b, benchCalls, func() int { return walkTyped(b, c) })
	})
	b.Run("generic", func(b *testing.B) {
		_, c := benchServer(b, benchCalls)
		benchmark.Walk(b, benchCalls, func() int {
			n := 0
			for rec, err := range tributary.All(context.Background(), c, "calls", nil) {
				if err != nil || rec.IsZero() {
					b.Fatal(err)
				}
				n++
			}
			return n
		})
	})
	b.Run("net_http", func(b *testing.B) {
		srv, _ := benchServer(b, benchCalls)
		hc := benchmark.Client(b)
		benchmark.Walk(b, benchCalls, func() int { return walkNetHTTP(b, hc, srv.URL) })
	})
}

// The baseline is a fair one: it sends what the typed listing sends (paths,
// queries, headers but User-Agent) and counts the same records.
func TestNetHTTPBaselineMatchesTyped(t *testing.T) {
	const calls = 250
	srv, c := benchServer(t, calls)
	benchmark.Baseline(t, srv, calls, func() int { return walkTyped(t, c) }, func(hc *http.Client) int { return walkNetHTTP(t, hc, srv.URL) })
}
