package hubspot_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"runtime"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/hubspot"
	"github.com/tributary-dev/tributary/kinds/hubspot/hubspottest"
)

const benchContacts = 10_000

// measure runs walk b.N times and reports records/s, bytes and
// allocations per record (the client's and the in-process fake's together,
// as for the baseline).
func measure(b *testing.B, walk func() int) {
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n := 0
	for b.Loop() {
		n += walk()
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(n), "allocs/record")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n), "B/record")
}

func benchServer(b *testing.B) *hubspottest.Server {
	srv := hubspottest.New(hubspottest.WithContacts(benchContacts))
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkListContactsTyped walks 10,000 contacts into hubspot.Contact.
func BenchmarkListContactsTyped(b *testing.B) {
	srv := benchServer(b)
	c := open(b, srv)
	measure(b, func() int {
		n := 0
		for _, err := range c.Contacts().All(context.Background(), hubspot.ListParams{Limit: 100}) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		srv.ResetRequests()
		return n
	})
}

// BenchmarkListContactsGeneric walks 10,000 contacts as raw Records.
func BenchmarkListContactsGeneric(b *testing.B) {
	srv := benchServer(b)
	c := open(b, srv)
	measure(b, func() int {
		n := 0
		for _, err := range tributary.All(context.Background(), c, "contacts", tributary.Params{"limit": 100}) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		srv.ResetRequests()
		return n
	})
}

// BenchmarkListContactsNetHTTP is the baseline: a plain net/http +
// encoding/json loop over the same pages into the same struct.
func BenchmarkListContactsNetHTTP(b *testing.B) {
	srv := benchServer(b)
	hc := &http.Client{}
	measure(b, func() int {
		n := 0
		next := srv.URL + "/crm/v3/objects/contacts?limit=100"
		for next != "" {
			req, _ := http.NewRequest(http.MethodGet, next, nil)
			req.Header.Set("Authorization", "Bearer "+hubspottest.DefaultPrivateAppToken)
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			var page struct {
				Results []hubspot.Contact `json:"results"`
				Paging  *struct {
					Next struct {
						After string `json:"after"`
					} `json:"next"`
				} `json:"paging"`
			}
			err = json.NewDecoder(resp.Body).Decode(&page)
			resp.Body.Close()
			if err != nil {
				b.Fatal(err)
			}
			n += len(page.Results)
			next = ""
			if page.Paging != nil && page.Paging.Next.After != "" {
				next = srv.URL + "/crm/v3/objects/contacts?limit=100&after=" + url.QueryEscape(page.Paging.Next.After)
			}
		}
		srv.ResetRequests()
		return n
	})
}
