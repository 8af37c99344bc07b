package mailchimp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/benchmark"
	"github.com/tributary-dev/tributary/kinds/mailchimp"
	"github.com/tributary-dev/tributary/kinds/mailchimp/mailchimptest"
)

// benchMembers is the number of members listed per iteration, in pages of
// benchCount (Mailchimp's maximum).
const benchMembers, benchCount = 10_000, 1000

// benchServer starts a fake holding one audience of members, with its
// responses recorded and replayed, and returns it with a client and the
// audience's id.
func benchServer(tb testing.TB, members int) (*mailchimptest.Server, *mailchimp.Client, string) {
	srv := mailchimptest.New(mailchimptest.WithListMembers(members), mailchimptest.WithLists(1))
	// Pages are rendered once and replayed, so the fake costs next to
	// nothing and what is measured is the clients.
	srv.SetResponseCache(true)
	tb.Cleanup(srv.Close)
	c, err := mailchimp.New(mailchimp.Credentials{APIKey: mailchimptest.DefaultAPIKey}, tributary.WithBaseURL(srv.URL))
	if err != nil {
		tb.Fatal(err)
	}
	lists, err := c.Lists().List(context.Background(), mailchimp.ListListParams{})
	if err != nil {
		tb.Fatal(err)
	}
	return srv, c, lists.Items[0].ID
}

// walkTyped lists every member of the audience through the typed handle.
func walkTyped(tb testing.TB, c *mailchimp.Client, list string) int {
	n := 0
	for m, err := range c.ListMembers().All(context.Background(), mailchimp.ListMemberListParams{ListID: list, Paging: mailchimp.Paging{Count: benchCount}}) {
		if err != nil {
			tb.Fatal(err)
		}
		if m.ID != "" {
			n++
		}
	}
	return n
}

// walkNetHTTP is the baseline: a plain net/http + encoding/json loop over
// the offset pages the library asks for (count=1000, offset advancing by
// the page until total_items; the first page without an offset), with the
// same headers, into the same struct.
func walkNetHTTP(tb testing.TB, hc *http.Client, base, list string) int {
	n := 0
	for offset := 0; ; offset += benchCount {
		u := fmt.Sprintf("%s/3.0/lists/%s/members?count=%d", base, list, benchCount)
		if offset > 0 {
			u += fmt.Sprintf("&offset=%d", offset)
		}
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		req.SetBasicAuth("tributary", mailchimptest.DefaultAPIKey)
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		var page struct {
			Members    []mailchimp.ListMember `json:"members"`
			TotalItems int                    `json:"total_items"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			tb.Fatal(resp.Status, err)
		}
		for i := range page.Members {
			if page.Members[i].ID != "" {
				n++
			}
		}
		if len(page.Members) == 0 || offset+len(page.Members) >= page.TotalItems {
			return n
		}
	}
}

// BenchmarkListMembers lists 10,000 members of one audience from the fake:
// through the typed handle, through the generic connector, and with a
// plain net/http + encoding/json loop on the same fake.
func BenchmarkListMembers(b *testing.B) {
	b.Run("typed", func(b *testing.B) {
		_, c, list := benchServer(b, benchMembers)
		benchmark.Walk(b, benchMembers, func() int { return walkTyped(b, c, list) })
	})
	b.Run("generic", func(b *testing.B) {
		_, c, list := benchServer(b, benchMembers)
		benchmark.Walk(b, benchMembers, func() int {
			n := 0
			for rec, err := range tributary.All(context.Background(), c, "list_members", tributary.Params{"list_id": list, "count": benchCount}) {
				if err != nil {
					b.Fatal(err)
				}
				if !rec.IsZero() {
					n++
				}
			}
			return n
		})
	})
	b.Run("net_http", func(b *testing.B) {
		srv, _, list := benchServer(b, benchMembers)
		hc := benchmark.Client(b)
		benchmark.Walk(b, benchMembers, func() int { return walkNetHTTP(b, hc, srv.URL, list) })
	})
}

// The baseline is a fair one: it sends what the typed listing sends (paths,
// queries, headers but User-Agent) and counts the same records.
func TestNetHTTPBaselineMatchesTyped(t *testing.T) {
	const members = 2500
	srv, c, list := benchServer(t, members)
	benchmark.Baseline(t, srv, members, func() int { return walkTyped(t, c, list) }, func(hc *http.Client) int { return walkNetHTTP(t, hc, srv.URL, list) })
}
