package intercom_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"runtime"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/intercom"
	"github.com/tributary-dev/tributary/kinds/intercom/intercomtest"
)

const benchContacts = 10_000

// measure starts counting heap allocations; the function it returns adds
// records/s and allocations per record to the benchmark. Allocations are
// counted process-wide, so they include the fake server's (the same for
// every variant).
func measure(b *testing.B) func(records int) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	start := ms.Mallocs
	return func(records int) {
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
		b.ReportMetric(float64(ms.Mallocs-start)/float64(records), "allocs/record")
		b.ReportMetric(0, "ns/op")
	}
}

func benchServer(b *testing.B) *intercomtest.Server {
	srv := intercomtest.New(intercomtest.WithContacts(benchContacts))
	b.Cleanup(srv.Close)
	return srv
}

func benchClient(b *testing.B, srv *intercomtest.Server) *intercom.Client {
	c, err := intercom.New(intercom.Credentials{AccessToken: intercomtest.DefaultAccessToken}, tributary.WithBaseURL(srv.URL))
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkListContactsTyped walks 10,000 contacts into intercom.Contact.
func BenchmarkListContactsTyped(b *testing.B) {
	srv := benchServer(b)
	c := benchClient(b, srv)
	b.ReportAllocs()
	report := measure(b)
	n := 0
	for b.Loop() {
		for _, err := range c.Contacts().All(context.Background(), intercom.ListParams{}) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	report(n)
}

// BenchmarkListContactsGeneric walks 10,000 contacts as raw Records.
func BenchmarkListContactsGeneric(b *testing.B) {
	srv := benchServer(b)
	c := benchClient(b, srv)
	b.ReportAllocs()
	report := measure(b)
	n := 0
	for b.Loop() {
		for _, err := range tributary.All(context.Background(), c, "contacts", nil) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	report(n)
}

// BenchmarkListContactsNetHTTP is the baseline: a plain net/http +
// encoding/json loop over the same pages (per_page 150) into the same
// struct.
func BenchmarkListContactsNetHTTP(b *testing.B) {
	srv := benchServer(b)
	hc := &http.Client{}
	b.ReportAllocs()
	report := measure(b)
	n := 0
	for b.Loop() {
		after := ""
		for {
			u := srv.URL + "/contacts?per_page=150"
			if after != "" {
				u += "&starting_after=" + url.QueryEscape(after)
			}
			req, _ := http.NewRequest(http.MethodGet, u, nil)
			req.Header.Set("Authorization", "Bearer "+intercomtest.DefaultAccessToken)
			req.Header.Set("Intercom-Version", "2.11")
			req.Header.Set("Accept", "application/json")
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			var page struct {
				Data  []intercom.Contact `json:"data"`
				Pages struct {
					Next *struct {
						StartingAfter string `json:"starting_after"`
					} `json:"next"`
				} `json:"pages"`
			}
			err = json.NewDecoder(resp.Body).Decode(&page)
			resp.Body.Close()
			if err != nil {
				b.Fatal(err)
			}
			n += len(page.Data)
			if page.Pages.Next == nil {
				break
			}
			after = page.Pages.Next.StartingAfter
		}
	}
	report(n)
}
