package salesforce_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/benchmark"
	"github.com/tributary-dev/tributary/kinds/salesforce"
	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
)

// benchAccounts is the number of accounts walked per iteration, in query
// batches of 200.
const (
	benchAccounts = 10_000
	benchQuery    = "SELECT FIELDS(STANDARD) FROM Account"
)

// benchServer starts a fake whose responses are recorded and replayed: the
// first walk's query locators (nextRecordsUrl) are then the ones every
// later walk follows.
func benchServer(tb testing.TB, accounts int) *salesforcetest.Server {
	srv := salesforcetest.New(salesforcetest.WithAccounts(accounts))
	// Pages are rendered once and replayed, so the fake costs next to
	// nothing and what is measured is the clients.
	srv.SetResponseCache(true)
	tb.Cleanup(srv.Close)
	return srv
}

func benchClient(tb testing.TB, srv *salesforcetest.Server) *salesforce.Client {
	c, err := salesforce.New(salesforce.Credentials{ClientID: salesforcetest.DefaultClientID, ClientSecret: salesforcetest.DefaultClientSecret,
		RefreshToken: salesforcetest.DefaultRefreshToken, AccessToken: salesforcetest.DefaultAccessToken}, tributary.WithBaseURL(srv.URL))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// walkTyped lists every account through the typed handle.
func walkTyped(tb testing.TB, c *salesforce.Client) int {
	return benchmark.Count(tb, c.Accounts().All(context.Background(), salesforce.QueryParams{Q: benchQuery}))
}

// walkNetHTTP is the baseline: a plain net/http + encoding/json loop over
// the query pages the library asks for (batchSize=200, following
// nextRecordsUrl until done), with the same headers, into the same struct.
func walkNetHTTP(tb testing.TB, hc *http.Client, base string) int {
	n := 0
	// Spaces as %20, as the library sends them (either is valid).
	next := "/services/data/v67.0/query?q=" + strings.ReplaceAll(url.QueryEscape(benchQuery), "+", "%20")
	for next != "" {
		req, _ := http.NewRequest(http.MethodGet, base+next, nil)
		req.Header.Set("Authorization", "Bearer "+salesforcetest.DefaultAccessToken)
		req.Header.Set("Sforce-Query-Options", "batchSize=200")
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			tb.Fatal(err)
		}
		var page struct {
			Done           bool                 `json:"done"`
			NextRecordsURL string               `json:"nextRecordsUrl"`
			Records        []salesforce.Account `json:"records"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			tb.Fatal(resp.Status, err)
		}
		n += len(page.Records)
		next = ""
		if !page.Done {
			next = page.NextRecordsURL
		}
	}
	return n
}

// BenchmarkListAccountsTyped walks 10,000 accounts (every standard field)
// into salesforce.Account.
func BenchmarkListAccountsTyped(b *testing.B) {
	c := benchClient(b, benchServer(b, benchAccounts))
	benchmark.Walk(b, benchAccounts, func() int { return walkTyped(b, c) })
}

// BenchmarkListAccountsGeneric walks 10,000 accounts as raw Records.
func BenchmarkListAccountsGeneric(b *testing.B) {
	c := benchClient(b, benchServer(b, benchAccounts))
	benchmark.Walk(b, benchAccounts, func() int {
		return benchmark.Count(b, tributary.All(context.Background(), c, "accounts", tributary.Params{"q": benchQuery}))
	})
}

// BenchmarkListAccountsNetHTTP walks the same 10,000 accounts with
// walkNetHTTP.
func BenchmarkListAccountsNetHTTP(b *testing.B) {
	srv := benchServer(b, benchAccounts)
	hc := benchmark.Client(b)
	benchmark.Walk(b, benchAccounts, func() int { return walkNetHTTP(b, hc, srv.URL) })
}

// The baseline is a fair one: it sends what the typed listing sends (paths,
// queries, headers but User-Agent) and counts the same records. The
// response cache replays the typed walk's query locators to the baseline.
func TestNetHTTPBaselineMatchesTyped(t *testing.T) {
	const accounts = 500
	srv := benchServer(t, accounts)
	c := benchClient(t, srv)
	benchmark.Baseline(t, srv, accounts, func() int { return walkTyped(t, c) }, func(hc *http.Client) int { return walkNetHTTP(t, hc, srv.URL) })
}
