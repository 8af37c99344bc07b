package mailchimp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/mailchimp"
	"github.com/tributary-dev/tributary/kinds/mailchimp/mailchimptest"
)

// benchMembers is the number of members listed per iteration, in pages of
// benchCount (Mailchimp's maximum).
const benchMembers, benchCount = 10_000, 1000

// BenchmarkListMembers lists 10,000 members of one audience from the fake:
// through the typed handle, through the generic connector, and with a
// plain net/http + encoding/json loop on the same fake. The fake runs in
// the same process, so its own work (encoding the pages) is part of every
// figure, equally.
func BenchmarkListMembers(b *testing.B) {
	srv := mailchimptest.New(mailchimptest.WithListMembers(benchMembers), mailchimptest.WithLists(1))
	defer srv.Close()
	c, err := mailchimp.New(mailchimp.Credentials{APIKey: mailchimptest.DefaultAPIKey}, tributary.WithBaseURL(srv.URL))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	lists, err := c.Lists().List(ctx, mailchimp.ListListParams{})
	if err != nil {
		b.Fatal(err)
	}
	list := lists.Items[0].ID

	b.Run("typed", func(b *testing.B) {
		measure(b, func() int {
			n := 0
			for m, err := range c.ListMembers().All(ctx, mailchimp.ListMemberListParams{ListID: list, Paging: mailchimp.Paging{Count: benchCount}}) {
				if err != nil {
					b.Fatal(err)
				}
				if m.ID != "" {
					n++
				}
			}
			return n
		})
	})
	b.Run("generic", func(b *testing.B) {
		measure(b, func() int {
			n := 0
			for rec, err := range tributary.All(ctx, c, "list_members", tributary.Params{"list_id": list, "count": benchCount}) {
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
		hc := &http.Client{}
		measure(b, func() int {
			n := 0
			for offset := 0; ; offset += benchCount {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet,
					fmt.Sprintf("%s/3.0/lists/%s/members?count=%d&offset=%d", srv.URL, list, benchCount, offset), nil)
				req.SetBasicAuth("tributary", mailchimptest.DefaultAPIKey)
				resp, err := hc.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				var page struct {
					Members    []mailchimp.ListMember `json:"members"`
					TotalItems int                    `json:"total_items"`
				}
				err = json.NewDecoder(resp.Body).Decode(&page)
				resp.Body.Close()
				if err != nil || resp.StatusCode != 200 {
					b.Fatal(resp.StatusCode, err)
				}
				n += len(page.Members)
				if len(page.Members) == 0 || offset+len(page.Members) >= page.TotalItems {
					return n
				}
			}
		})
	})
}

// measure runs walk b.N times and reports records/s and allocations and
// bytes per record.
func measure(b *testing.B, walk func() int) {
	b.Helper()
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	records := 0
	for b.Loop() {
		if n := walk(); n != benchMembers {
			b.Fatalf("walked %d records, want %d", n, benchMembers)
		}
		records += benchMembers
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(records), "allocs/record")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(records), "B/record")
}
