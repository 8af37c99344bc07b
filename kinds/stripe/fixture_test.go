package stripe_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fixture"
	"github.com/tributary-dev/tributary/internal/vendorspec"
	"github.com/tributary-dev/tributary/kinds/stripe"
)

// fixtureCredentials maps the fixtures' credential names to the
// placeholder credentials they were recorded with.
var fixtureCredentials = map[string]stripe.Credentials{
	"secret":    {APIKey: "sk_test_TEST_KEY"},
	"connected": {APIKey: "sk_test_TEST_KEY", StripeAccount: "acct_1032D82eZvKYlo2C"},
}

// TestFixtures replays every recorded exchange of testdata/stripe: the
// request must be exactly the recorded one and the records, meta, next
// params, downloaded bytes, feed or error exactly the expected ones. A
// feed is read on a clock a day after its checkpoint (synctest), within
// the 30 days Stripe keeps events.
func TestFixtures(t *testing.T) {
	for _, f := range fixture.LoadDir(t, "../../testdata/stripe") {
		t.Run(f.Name, func(t *testing.T) {
			creds, ok := fixtureCredentials[f.Credentials]
			if !ok {
				t.Fatalf("unknown credentials %q", f.Credentials)
			}
			run := func(t *testing.T) {
				replay := fixture.NewReplay(f)
				opts := []tributary.Option{tributary.WithHTTPClient(replay.Client()), tributary.WithoutPacing()}
				if !f.RetriesAllowed() {
					opts = append(opts, tributary.WithRetry(tributary.RetryPolicy{}))
				}
				c, err := stripe.New(creds, opts...)
				if err != nil {
					t.Fatal(err)
				}
				fixture.Run(t, f, c, replay)
			}
			if f.Feed == nil {
				run(t)
				return
			}
			synctest.Test(t, func(t *testing.T) {
				time.Sleep(time.Until(f.Feed.From.Since.Add(24 * time.Hour)))
				run(t)
			})
		})
	}
}

// TestFixturesAgreeWithTheDescription checks every exchange of every
// fixture against Stripe's own description of its API (2023-08-16).
func TestFixturesAgreeWithTheDescription(t *testing.T) {
	vendorspec.OpenAPI(t, "stripe").ValidateFixtures(t, "../../testdata/stripe")
}

// TestFixturesCoverCatalogue proves that every entity/action of the
// catalogue (but search, which runs on a copy) has a fixture, and every
// feed one.
func TestFixturesCoverCatalogue(t *testing.T) {
	have := map[string]bool{}
	for _, f := range fixture.LoadDir(t, "../../testdata/stripe") {
		if f.Feed != nil {
			have["feed "+f.Feed.Entity] = true
			continue
		}
		have[f.Operation.Entity+"."+string(f.Operation.Action)] = true
	}
	for _, e := range stripe.Catalogue() {
		for _, a := range e.Actions {
			if a != tributary.ActionSearch && !have[e.Name+"."+string(a)] {
				t.Errorf("no fixture for %s.%s", e.Name, a)
			}
		}
		if e.Feed != nil && !have["feed "+e.Name] {
			t.Errorf("no fixture for the feed of %s", e.Name)
		}
	}
}
