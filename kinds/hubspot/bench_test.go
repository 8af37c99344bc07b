package hubspot_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/benchmark"
	"github.com/tributary-dev/tributary/kinds/hubspot"
	"github.com/tributary-dev/tributary/kinds/hubspot/hubspottest"
)

// benchContacts is the number of contacts walked per iteration, 100 a page.
const benchContacts = 10_000

func benchServer(tb testing.TB, contacts int) *hubspottest.Server {
	srv := hubspottest.New(hubspottest.WithContacts(contacts))
	// Pages are rendered once and replayed, so the fake costs next to
	// nothing and what is measured is the clients.
	srv.SetResponseCache(true)
	tb.Cleanup(srv.Close)
	return srv
}

// walkTyped lists every contact through the typed handle (GET list
// endpoint, not search).
func walkTyped(tb testing.TB, c *hubspot.Client) int {
	return benchmark.Count(tb, c.Contacts().All(context.Background(), hubspot.ListParams{Limit: 100}))
}

// walkNetHTTP is the baseline: a plain net/http + encoding/json loop over
// the pages the library asks for (limit=100, then after=paging.next.after
// while there is one), with the same headers, into the same struct.
func walkNetHTTP(tb testing.TB, hc *http.Client, base string) int {
	n := 0
	next := base + "/crm/v3/objects/contacts?limit=100"
	for next != "" {
		req, _ := http.NewRequest(http.MethodGet, next, nil)
		req.Header.Set("Authorization", "Bearer "+hubspottest.DefaultPrivateAppToken)
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			tb.Fatal(err)
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
		if err != nil || resp.StatusCode != http.StatusOK {
			tb.Fatal(resp.Status, err)
		}
		n += len(page.Results)
		next = ""
		if page.Paging != nil && page.Paging.Next.After != "" {
			// The library sorts its query keys: after before limit.
			next = base + "/crm/v3/objects/contacts?after=" + url.QueryEscape(page.Paging.Next.After) + "&limit=100"
		}
	}
	return n
}

// BenchmarkListContactsTyped walks 10,000 contacts into hubspot.Contact.
func BenchmarkListContactsTyped(b *testing.B) {
	srv := benchServer(b, benchContacts)
	c := open(b, srv)
	benchmark.Walk(b, benchContacts, func() int {
		n := walkTyped(b, c)
		srv.ResetRequests()
		return n
	})
}

// BenchmarkListContactsGeneric walks 10,000 contacts as raw Records.
func BenchmarkListContactsGeneric(b *testing.B) {
	srv := benchServer(b, benchContacts)
	c := open(b, srv)
	benchmark.Walk(b, benchContacts, func() int {
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

// BenchmarkListContactsNetHTTP walks the same 10,000 contacts with
// walkNetHTTP.
func BenchmarkListContactsNetHTTP(b *testing.B) {
	srv := benchServer(b, benchContacts)
	hc := benchmark.Client(b)
	benchmark.Walk(b, benchContacts, func() int {
		n := walkNetHTTP(b, hc, srv.URL)
		srv.ResetRequests()
		return n
	})
}

// The baseline is a fair one: it sends what the typed listing sends (paths,
// queries, headers but User-Agent) and counts the same records.
func TestNetHTTPBaselineMatchesTyped(t *testing.T) {
	const contacts = 250
	srv := benchServer(t, contacts)
	c := open(t, srv)
	benchmark.Baseline(t, srv, contacts, func() int { return walkTyped(t, c) }, func(hc *http.Client) int { return walkNetHTTP(t, hc, srv.URL) })
}
