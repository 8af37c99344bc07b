package intercom_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/benchmark"
	"github.com/tributary-dev/tributary/kinds/intercom"
	"github.com/tributary-dev/tributary/kinds/intercom/intercomtest"
)

// benchContacts is the number of contacts walked per iteration, 150 a page.
const benchContacts = 10_000

func benchServer(tb testing.TB, contacts int) *intercomtest.Server {
	srv := intercomtest.New(intercomtest.WithContacts(contacts))
	// Pages are rendered once and replayed, so the fake costs next to
	// nothing and what is measured is the clients.
	srv.SetResponseCache(true)
	tb.Cleanup(srv.Close)
	return srv
}

func benchClient(tb testing.TB, srv *intercomtest.Server) *intercom.Client {
	c, err := intercom.New(intercom.Credentials{AccessToken: intercomtest.DefaultAccessToken}, tributary.WithBaseURL(srv.URL))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// walkTyped lists every contact through the typed handle.
func walkTyped(tb testing.TB, c *intercom.Client) int {
	return benchmark.Count(tb, c.Contacts().All(context.Background(), intercom.ListParams{}))
}

// walkNetHTTP is the baseline: a plain net/http + encoding/json loop over
// the pages the library asks for (per_page=150, then starting_after=
// pages.next.starting_after while there is a next page), with the same
// headers, into the same struct.
func walkNetHTTP(tb testing.TB, hc *http.Client, base string) int {
	n := 0
	after := ""
	for {
		u := base + "/contacts?per_page=150"
		if after != "" {
			u += "&starting_after=" + url.QueryEscape(after)
		}
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		req.Header.Set("Authorization", "Bearer "+intercomtest.DefaultAccessToken)
		req.Header.Set("Intercom-Version", "2.11")
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			tb.Fatal(err)
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
		if err != nil || resp.StatusCode != http.StatusOK {
			tb.Fatal(resp.Status, err)
		}
		n += len(page.Data)
		if page.Pages.Next == nil {
			return n
		}
		after = page.Pages.Next.StartingAfter
	}
}

// BenchmarkListContactsTyped walks 10,000 contacts into intercom.Contact.
func BenchmarkListContactsTyped(b *testing.B) {
	c := benchClient(b, benchServer(b, benchContacts))
	benchmark.Walk(b, benchContacts, func() int { return walkTyped(b, c) })
}

// BenchmarkListContactsGeneric walks 10,000 contacts as raw Records.
func BenchmarkListContactsGeneric(b *testing.B) {
	c := benchClient(b, benchServer(b, benchContacts))
	benchmark.Walk(b, benchContacts, func() int {
		return benchmark.Count(b, tributary.All(context.Background(), c, "contacts", nil))
	})
}

// BenchmarkListContactsNetHTTP walks the same 10,000 contacts with
// walkNetHTTP.
func BenchmarkListContactsNetHTTP(b *testing.B) {
	srv := benchServer(b, benchContacts)
	hc := benchmark.Client(b)
	benchmark.Walk(b, benchContacts, func() int { return walkNetHTTP(b, hc, srv.URL) })
}

// The baseline is a fair one: it sends what the typed listing sends (paths,
// queries, headers but User-Agent) and counts the same records.
func TestNetHTTPBaselineMatchesTyped(t *testing.T) {
	const contacts = 400
	srv := benchServer(t, contacts)
	c := benchClient(t, srv)
	benchmark.Baseline(t, srv, contacts, func() int { return walkTyped(t, c) }, func(hc *http.Client) int { return walkNetHTTP(t, hc, srv.URL) })
}
