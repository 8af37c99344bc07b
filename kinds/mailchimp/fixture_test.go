package mailchimp_test

import (
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fixture"
	"github.com/tributary-dev/tributary/kinds/mailchimp"
)

// fixtureCredentials maps the fixtures' credential names to the
// placeholder credentials they were recorded with (data centre us6).
var fixtureCredentials = map[string]mailchimp.Credentials{
	"api_key": {APIKey: "TESTKEY0123456789abcdef-us6"},
	"oauth":   {AccessToken: "TEST_ACCESS_TOKEN", DataCenter: "us6"},
}

// TestFixtures replays every recorded exchange of testdata/mailchimp: the
// request must be exactly the recorded one and the records, meta, next
// params or error exactly the expected ones.
func TestFixtures(t *testing.T) {
	for _, f := range fixture.LoadDir(t, "../../testdata/mailchimp") {
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
			c, err := mailchimp.New(creds, opts...)
			if err != nil {
				t.Fatal(err)
			}
			fixture.Run(t, f, c, replay)
		})
	}
}

// TestFixturesCoverCatalogue proves that every entity/action of the
// catalogue (except search, which runs on a replica) has a fixture.
func TestFixturesCoverCatalogue(t *testing.T) {
	have := map[string]bool{}
	for _, f := range fixture.LoadDir(t, "../../testdata/mailchimp") {
		have[f.Operation.Entity+"."+string(f.Operation.Action)] = true
	}
	c, err := mailchimp.New(fixtureCredentials["api_key"])
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
