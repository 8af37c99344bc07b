package jira_test

import (
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fixture"
	"github.com/tributary-dev/tributary/internal/vendorspec"
	"github.com/tributary-dev/tributary/kinds/jira"
	"github.com/tributary-dev/tributary/kinds/jira/jiratest"
)

// fixtureCredentials maps the fixtures' credential names to the
// placeholder credentials they were recorded with.
var fixtureCredentials = map[string]jira.Credentials{
	"basic": {Site: "acme", Email: "agent@example.com", APIToken: "TEST_API_TOKEN"},
	"oauth": {CloudID: jiratest.DefaultCloudID, AccessToken: "TEST_ACCESS_TOKEN"},
}

// TestFixtures replays every recorded exchange of testdata/jira: the
// request must be exactly the recorded one and the records, meta, next
// params, downloaded bytes, feed or error exactly the expected ones.
func TestFixtures(t *testing.T) {
	for _, f := range fixture.LoadDir(t, "../../testdata/jira") {
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
			c, err := jira.New(creds, opts...)
			if err != nil {
				t.Fatal(err)
			}
			fixture.Run(t, f, c, replay)
		})
	}
}

// TestFixturesAgreeWithTheDescription checks every exchange of every
// fixture against Atlassian's own description of the v3 API (the agile
// API, which it does not describe, excepted).
func TestFixturesAgreeWithTheDescription(t *testing.T) {
	vendorspec.OpenAPI(t, "jira").ValidateFixtures(t, "../../testdata/jira")
}

// TestFixturesCoverCatalogue proves that every entity/action of the
// catalogue (but search, which runs on a copy) has a fixture, and every
// feed one.
func TestFixturesCoverCatalogue(t *testing.T) {
	have := map[string]bool{}
	for _, f := range fixture.LoadDir(t, "../../testdata/jira") {
		if f.Feed != nil {
			have["feed "+f.Feed.Entity] = true
			continue
		}
		have[f.Operation.Entity+"."+string(f.Operation.Action)] = true
	}
	for _, e := range jira.Catalogue() {
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
