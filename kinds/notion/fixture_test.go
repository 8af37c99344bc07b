package notion_test

import (
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fixture"
	"github.com/tributary-dev/tributary/internal/vendorspec"
	"github.com/tributary-dev/tributary/kinds/notion"
)

const fixtures = "../../testdata/notion"

// TestFixtures replays every recorded exchange of testdata/notion: the
// request must be exactly the recorded one (the Notion-Version header
// included) and the records, meta, next params, downloaded bytes, feed or
// error exactly the expected ones.
func TestFixtures(t *testing.T) {
	for _, f := range fixture.LoadDir(t, fixtures) {
		t.Run(f.Name, func(t *testing.T) {
			if f.Credentials != "token" {
				t.Fatalf("unknown credentials %q", f.Credentials)
			}
			replay := fixture.NewReplay(f)
			opts := []tributary.Option{tributary.WithHTTPClient(replay.Client()), tributary.WithoutPacing()}
			if !f.RetriesAllowed() {
				opts = append(opts, tributary.WithRetry(tributary.RetryPolicy{}))
			}
			c, err := notion.New(notion.Credentials{Token: "ntn_TEST_TOKEN"}, opts...)
			if err != nil {
				t.Fatal(err)
			}
			fixture.Run(t, f, c, replay)
		})
	}
}

// TestFixturesAgreeWithTheDescription checks every exchange of every
// fixture against Notion's own OpenAPI description (the one its MCP
// server is generated from).
func TestFixturesAgreeWithTheDescription(t *testing.T) {
	vendorspec.OpenAPI(t, "notion").ValidateFixtures(t, fixtures)
}

// TestFixturesCoverCatalogue proves that every entity/action of the
// catalogue (but search, which runs on a copy) has a fixture, and every
// feed one.
func TestFixturesCoverCatalogue(t *testing.T) {
	have := map[string]bool{}
	for _, f := range fixture.LoadDir(t, fixtures) {
		if f.Feed != nil {
			have["feed "+f.Feed.Entity] = true
			continue
		}
		have[f.Operation.Entity+"."+string(f.Operation.Action)] = true
	}
	for _, e := range notion.Catalogue() {
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
