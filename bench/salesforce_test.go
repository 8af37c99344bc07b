package bench

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	gosf "github.com/k-capehart/go-salesforce/v3"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/benchmark"
	"github.com/tributary-dev/tributary/kinds/salesforce"
	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
)

// benchAccounts is the number of Accounts the SOQL query returns per walk.
// Both clients read them in pages of salesforcetest.DefaultBatchSize (200):
// Tributary asks for batchSize=200 and go-salesforce asks for no batch
// size, so the fake's default applies, and the pages are the same.
const (
	benchAccounts = 10_000
	benchSOQL     = "SELECT FIELDS(STANDARD) FROM Account"
)

func sfServer(b *testing.B) *salesforcetest.Server {
	srv := salesforcetest.New(salesforcetest.WithAccounts(benchAccounts))
	// Pages (and their query locators) are rendered once and replayed.
	srv.SetResponseCache(true)
	b.Cleanup(srv.Close)
	return srv
}

// checkPages walks once, outside the measurement, and fails unless the
// walk read the query in benchAccounts/DefaultBatchSize pages, so that
// every client is measured on the same pages.
func checkPages(b *testing.B, srv *salesforcetest.Server, walk func() int) {
	b.Helper()
	srv.ResetRequests()
	if got := walk(); got != benchAccounts {
		b.Fatalf("walked %d accounts, want %d", got, benchAccounts)
	}
	pages := 0
	for _, r := range srv.Requests() {
		if strings.Contains(r.Path, "/query") {
			pages++
		}
	}
	if want := benchAccounts / salesforcetest.DefaultBatchSize; pages != want {
		b.Fatalf("walked %d query pages, want %d", pages, want)
	}
	srv.ResetRequests()
}

// firstAccountID is the Id of the first Account the query returns.
var firstAccountID = salesforcetest.RecordID("Account", 0)

// gsAccount is salesforce.Account as go-salesforce users write it: the same
// fields and types, with salesforce tags (the API names, so mapstructure
// finds each field by a map lookup) and the compound addresses as maps.
// TestGoSalesforceAccountMirrorsAccount keeps the two in step.
type gsAccount struct {
	Attributes             gsAttributes   `salesforce:"attributes"`
	ID                     string         `salesforce:"Id"`
	IsDeleted              bool           `salesforce:"IsDeleted"`
	MasterRecordID         string         `salesforce:"MasterRecordId"`
	Name                   string         `salesforce:"Name"`
	Type                   string         `salesforce:"Type"`
	ParentID               string         `salesforce:"ParentId"`
	BillingStreet          string         `salesforce:"BillingStreet"`
	BillingCity            string         `salesforce:"BillingCity"`
	BillingState           string         `salesforce:"BillingState"`
	BillingPostalCode      string         `salesforce:"BillingPostalCode"`
	BillingCountry         string         `salesforce:"BillingCountry"`
	BillingLatitude        *float64       `salesforce:"BillingLatitude"`
	BillingLongitude       *float64       `salesforce:"BillingLongitude"`
	BillingGeocodeAccuracy string         `salesforce:"BillingGeocodeAccuracy"`
	BillingAddress         map[string]any `salesforce:"BillingAddress"`

	ShippingStreet          string         `salesforce:"ShippingStreet"`
	ShippingCity            string         `salesforce:"ShippingCity"`
	ShippingState           string         `salesforce:"ShippingState"`
	ShippingPostalCode      string         `salesforce:"ShippingPostalCode"`
	ShippingCountry         string         `salesforce:"ShippingCountry"`
	ShippingLatitude        *float64       `salesforce:"ShippingLatitude"`
	ShippingLongitude       *float64       `salesforce:"ShippingLongitude"`
	ShippingGeocodeAccuracy string         `salesforce:"ShippingGeocodeAccuracy"`
	ShippingAddress         map[string]any `salesforce:"ShippingAddress"`

	Phone             string   `salesforce:"Phone"`
	Fax               string   `salesforce:"Fax"`
	AccountNumber     string   `salesforce:"AccountNumber"`
	Website           string   `salesforce:"Website"`
	PhotoURL          string   `salesforce:"PhotoUrl"`
	Sic               string   `salesforce:"Sic"`
	Industry          string   `salesforce:"Industry"`
	AnnualRevenue     *float64 `salesforce:"AnnualRevenue"`
	NumberOfEmployees int64    `salesforce:"NumberOfEmployees"`
	Ownership         string   `salesforce:"Ownership"`
	TickerSymbol      string   `salesforce:"TickerSymbol"`
	Description       string   `salesforce:"Description"`
	Rating            string   `salesforce:"Rating"`
	Site              string   `salesforce:"Site"`
	OwnerID           string   `salesforce:"OwnerId"`

	CreatedDate        string `salesforce:"CreatedDate"`
	CreatedByID        string `salesforce:"CreatedById"`
	LastModifiedDate   string `salesforce:"LastModifiedDate"`
	LastModifiedByID   string `salesforce:"LastModifiedById"`
	SystemModstamp     string `salesforce:"SystemModstamp"`
	LastActivityDate   string `salesforce:"LastActivityDate"`
	LastViewedDate     string `salesforce:"LastViewedDate"`
	LastReferencedDate string `salesforce:"LastReferencedDate"`
	AccountSource      string `salesforce:"AccountSource"`
}

// gsAttributes is salesforce.Attributes with salesforce tags.
type gsAttributes struct {
	Type string `salesforce:"type"`
	URL  string `salesforce:"url"`
}

// TestGoSalesforceAccountMirrorsAccount checks that gsAccount has
// salesforce.Account's fields, in order, with the same API names and the
// same types (but for the compound addresses and the attributes).
func TestGoSalesforceAccountMirrorsAccount(t *testing.T) {
	ours, theirs := reflect.TypeFor[salesforce.Account](), reflect.TypeFor[gsAccount]()
	if ours.NumField() != theirs.NumField() {
		t.Fatalf("gsAccount has %d fields, salesforce.Account %d", theirs.NumField(), ours.NumField())
	}
	for i := range ours.NumField() {
		o, g := ours.Field(i), theirs.Field(i)
		name, _, _ := strings.Cut(o.Tag.Get("json"), ",")
		if g.Name != o.Name || g.Tag.Get("salesforce") != name {
			t.Errorf("field %d: gsAccount.%s %q, want %s %q", i, g.Name, g.Tag.Get("salesforce"), o.Name, name)
		}
		switch o.Type {
		case reflect.TypeFor[json.RawMessage](), reflect.TypeFor[salesforce.Attributes]():
		default:
			if g.Type != o.Type {
				t.Errorf("gsAccount.%s is %v, want %v", g.Name, g.Type, o.Type)
			}
		}
	}
}

// BenchmarkSalesforceQueryGoSalesforce runs the query with
// k-capehart/go-salesforce, which follows nextRecordsUrl itself and
// returns every record at once. go-salesforce unmarshals each page into
// maps and copies them into the caller's struct with mapstructure, which
// cannot fill salesforce.Account's json.RawMessage address fields from a
// map; so it decodes into gsAccount, the same struct in go-salesforce's
// natural form.
func BenchmarkSalesforceQueryGoSalesforce(b *testing.B) {
	srv := sfServer(b)
	// Access-token flow: the instance is the fake, and Init checks the
	// session with GET /services/data/v63.0/limits.
	sf, err := gosf.Init(gosf.Creds{Domain: srv.URL, AccessToken: srv.AccessToken()})
	if err != nil {
		b.Fatal(err)
	}
	walk := func() int {
		var accounts []gsAccount
		if err := sf.Query(benchSOQL, &accounts); err != nil {
			b.Fatal(err)
		}
		if len(accounts) > 0 && accounts[0].ID != firstAccountID {
			b.Fatalf("first account %q, want %q", accounts[0].ID, firstAccountID)
		}
		return len(accounts)
	}
	checkPages(b, srv, walk)
	benchmark.Walk(b, benchAccounts, walk)
}

func sfClient(b *testing.B, srv *salesforcetest.Server) *salesforce.Client {
	c, err := salesforce.New(salesforce.Credentials{
		ClientID: salesforcetest.DefaultClientID, ClientSecret: salesforcetest.DefaultClientSecret,
		RefreshToken: salesforcetest.DefaultRefreshToken, AccessToken: salesforcetest.DefaultAccessToken,
	}, tributary.WithBaseURL(srv.URL))
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkSalesforceQueryTributaryTyped runs the same query into
// salesforce.Account with Tributary's typed handle.
func BenchmarkSalesforceQueryTributaryTyped(b *testing.B) {
	srv := sfServer(b)
	c := sfClient(b, srv)
	walk := func() int {
		n := 0
		for a, err := range c.Accounts().All(context.Background(), salesforce.QueryParams{Q: benchSOQL}) {
			if err != nil {
				b.Fatal(err)
			}
			if n == 0 && a.ID != firstAccountID {
				b.Fatalf("first account %q, want %q", a.ID, firstAccountID)
			}
			n++
		}
		return n
	}
	checkPages(b, srv, walk)
	benchmark.Walk(b, benchAccounts, walk)
}

// BenchmarkSalesforceQueryTributaryGeneric runs the same query as raw
// tributary.Records.
func BenchmarkSalesforceQueryTributaryGeneric(b *testing.B) {
	srv := sfServer(b)
	c := sfClient(b, srv)
	walk := func() int {
		n := 0
		for r, err := range tributary.All(context.Background(), c, "accounts", tributary.Params{"q": benchSOQL}) {
			if err != nil {
				b.Fatal(err)
			}
			if n == 0 {
				if id, _ := r.StringAt("Id"); id != firstAccountID {
					b.Fatalf("first account %q, want %q", id, firstAccountID)
				}
			}
			n++
		}
		return n
	}
	checkPages(b, srv, walk)
	benchmark.Walk(b, benchAccounts, walk)
}
