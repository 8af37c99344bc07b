package intercom_test

import (
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fixture"
	"github.com/tributary-dev/tributary/internal/vendorspec"
	"github.com/tributary-dev/tributary/kinds/intercom"
)

// fixtureCredentials maps the fixtures' credential names to the
// placeholder credentials they were recorded with.
var fixtureCredentials = map[string]intercom.Credentials{
	"access_token":    {AccessToken: "TEST_ACCESS_TOKEN"},
	"access_token_eu": {AccessToken: "TEST_ACCESS_TOKEN", Region: intercom.RegionEU},
}

// TestFixtures replays every recorded exchange of testdata/intercom: the
// request must be exactly the recorded one (path, query, Authorization,
// Intercom-Version, Accept) and the records, meta, next params or error
// exactly the expected ones.
func TestFixtures(t *testing.T) {
	for _, f := range fixture.LoadDir(t, "../../testdata/intercom") {
		t.Run(f.Name, func(t *testing.T) {
			creds, ok := fixtureCredentials[f.Credentials]
			if !ok {
				t.Fatalf("unknown credentials %q", f.Credentials)
			}
			replay := fixture.NewReplay(f)
			opts := []tributary.Option{tributary.WithHTTPClient(replay.Client())}
			if !f.RetriesAllowed() {
				opts = append(opts, tributary.WithRetry(tributary.RetryPolicy{}))
			}
			c, err := intercom.New(creds, opts...)
			if err != nil {
				t.Fatal(err)
			}
			fixture.Run(t, f, c, replay)
		})
	}
}

// TestFixturesAgreeWithTheDescription checks every exchange of
// testdata/intercom against Intercom's own API description (testdata/vendor-specs):
// the operation exists, and the request and the answer agree with it. The
// differences that are not the fixtures' fault are listed, each with its
// reason, in testdata/vendor-specs/allow-intercom.txt.
func TestFixturesAgreeWithTheDescription(t *testing.T) {
	vendorspec.OpenAPI(t, "intercom").ValidateFixtures(t, "../../testdata/intercom")
}

// TestFixturesCoverCatalogue proves that every entity/action of the
// catalogue (except search, which runs on a replica) has a fixture.
func TestFixturesCoverCatalogue(t *testing.T) {
	have := map[string]bool{}
	for _, f := range fixture.LoadDir(t, "../../testdata/intercom") {
		have[f.Operation.Entity+"."+string(f.Operation.Action)] = true
	}
	c, err := intercom.New(fixtureCredentials["access_token"])
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range c.Entities() {
		for _, a := range e.Actions {
			if a == tributary.ActionSearch {
				continue
			}
			if !have[e.Name+"."+string(a)] {
				t.Errorf("no fixture for %s.%s", e.Name, a)
			}
		}
	}
}
