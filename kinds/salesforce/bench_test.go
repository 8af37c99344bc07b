package salesforce_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"runtime"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/salesforce"
	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
)

const (
	benchAccounts = 10_000
	benchQuery    = "SELECT FIELDS(STANDARD) FROM Account"
)

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

func benchServer(b *testing.B) *salesforcetest.Server {
	srv := salesforcetest.New(salesforcetest.WithAccounts(benchAccounts))
	b.Cleanup(srv.Close)
	return srv
}

func benchClient(b *testing.B, srv *salesforcetest.Server) *salesforce.Client {
	c, err := salesforce.New(salesforce.Credentials{ClientID: salesforcetest.DefaultClientID, ClientSecret: salesforcetest.DefaultClientSecret,
		RefreshToken: salesforcetest.DefaultRefreshToken, AccessToken: salesforcetest.DefaultAccessToken}, tributary.WithBaseURL(srv.URL))
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkListAccountsTyped walks 10,000 accounts (every standard field)
// into salesforce.Account.
func BenchmarkListAccountsTyped(b *testing.B) {
	srv := benchServer(b)
	c := benchClient(b, srv)
	measure(b, func() int {
		n := 0
		for _, err := range c.Accounts().All(context.Background(), salesforce.QueryParams{Q: benchQuery}) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		return n
	})
}

// BenchmarkListAccountsGeneric walks 10,000 accounts as raw Records.
func BenchmarkListAccountsGeneric(b *testing.B) {
	srv := benchServer(b)
	c := benchClient(b, srv)
	measure(b, func() int {
		n := 0
		for _, err := range tributary.All(context.Background(), c, "accounts", tributary.Params{"q": benchQuery}) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		return n
	})
}

// BenchmarkListAccountsNetHTTP is the baseline: a plain net/http +
// encoding/json loop over the same query pages (batchSize=200, following
// nextRecordsUrl) into the same struct.
func BenchmarkListAccountsNetHTTP(b *testing.B) {
	srv := benchServer(b)
	hc := &http.Client{}
	measure(b, func() int {
		n := 0
		next := "/services/data/v67.0/query?q=" + url.QueryEscape(benchQuery)
		for next != "" {
			req, _ := http.NewRequest(http.MethodGet, srv.URL+next, nil)
			req.Header.Set("Authorization", "Bearer "+salesforcetest.DefaultAccessToken)
			req.Header.Set("Sforce-Query-Options", "batchSize=200")
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			var page struct {
				Done           bool                 `json:"done"`
				NextRecordsURL string               `json:"nextRecordsUrl"`
				Records        []salesforce.Account `json:"records"`
			}
			err = json.NewDecoder(resp.Body).Decode(&page)
			resp.Body.Close()
			if err != nil {
				b.Fatal(err)
			}
			n += len(page.Records)
			next = ""
			if !page.Done {
				next = page.NextRecordsURL
			}
		}
		return n
	})
}
