package gong_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"runtime"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/gong"
	"github.com/tributary-dev/tributary/kinds/gong/gongtest"
)

const benchCalls = 10_000

// benchmark runs walk b.N times and reports records/s, and allocations and
// bytes per record (of the whole process: the in-process fake's share is
// the same for every variant).
func benchmark(b *testing.B, walk func(b *testing.B) int) {
	b.Helper()
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	n := 0
	for b.Loop() {
		n += walk(b)
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(n), "allocs/record")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n), "B/record")
}

func benchServer(b *testing.B) (*gongtest.Server, *gong.Client) {
	b.Helper()
	srv := gongtest.New(gongtest.WithCalls(benchCalls))
	b.Cleanup(srv.Close)
	c, err := gong.New(keyPair, tributary.WithBaseURL(srv.URL))
	if err != nil {
		b.Fatal(err)
	}
	return srv, c
}

// BenchmarkListCalls walks 10,000 calls (100 pages of GET /v2/calls) from
// the fake: typed, generic, and a plain net/http + encoding/json loop.
func BenchmarkListCalls(b *testing.B) {
	b.Run("typed", func(b *testing.B) {
		_, c := benchServer(b)
		benchmark(b, func(b *testing.B) int {
			n := 0
			for call, err := range c.Calls().All(context.Background(), gong.CallListParams{}) {
				if err != nil || call.ID == "" {
					b.Fatal(err)
				}
				n++
			}
			return n
		})
	})
	b.Run("generic", func(b *testing.B) {
		_, c := benchServer(b)
		benchmark(b, func(b *testing.B) int {
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
	b.Run("net/http+encoding/json", func(b *testing.B) {
		srv, _ := benchServer(b)
		hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
		b.Cleanup(hc.CloseIdleConnections)
		benchmark(b, func(b *testing.B) int {
			n := 0
			cursor := ""
			for {
				u := srv.URL + "/v2/calls"
				if cursor != "" {
					u += "?cursor=" + url.QueryEscape(cursor)
				}
				req, _ := http.NewRequest(http.MethodGet, u, nil)
				req.SetBasicAuth(gongtest.DefaultAccessKey, gongtest.DefaultAccessKeySecret)
				res, err := hc.Do(req)
				if err != nil {
					b.Fatal(err)
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
					b.Fatal(res.StatusCode, err)
				}
				n += len(page.Calls)
				if page.Records.Cursor == "" {
					return n
				}
				cursor = page.Records.Cursor
			}
		})
	})
}
