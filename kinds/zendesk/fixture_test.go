package zendesk_test

import (
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fixture"
	"github.com/tributary-dev/tributary/kinds/zendesk"
)

// fixtureCredentials maps the fixtures' credential names to the
// placeholder credentials they were recorded with.
var fixtureCredentials = map[string]zendesk.Credentials{
	"basic": {Subdomain: "acme", Email: "agent@example.com", APIToken: "TEST_TOKEN"},
	"oauth": {Subdomain: "acme", AccessToken: "TEST_ACCESS_TOKEN"},
}

// TestFixtures replays every recorded exchange of testdata/zendesk: the
// request must be exactly the recorded one and the records, meta, next
// params, downloaded bytes or error exactly the expected ones.
func TestFixtures(t *testing.T) {
	for _, f := range fixture.LoadDir(t, "../../testdata/zendesk") {
		t.Run(f.Name, func(t *testing.T) {
			creds, ok := fixtureCredentials[f.Credentials]
			if !ok {
				t.Fatalf("unknown credentials %q", f.Credentials)
			}
			replay := fixture.NewReplay(f)
			// A replay has no rate limit: no pacing of the exports.
			opts := []tributary.Option{tributary.WithHTTPClient(replay.Client()), zendesk.WithExportRateLimit(0, 0), zendesk.WithAPIRateLimit(0, 0)}
			if !f.RetriesAllowed() {
				opts = append(opts, tributary.WithRetry(tributary.RetryPolicy{}))
			}
			c, err := zendesk.New(creds, opts...)
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
	for _, f := range fixture.LoadDir(t, "../../testdata/zendesk") {
		have[f.Operation.Entity+"."+string(f.Operation.Action)] = true
	}
	c, err := zendesk.New(fixtureCredentials["basic"])
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
