package googledrive_test

import (
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fixture"
	"github.com/tributary-dev/tributary/internal/vendorspec"
	"github.com/tributary-dev/tributary/kinds/googledrive"
)

// TestFixtures replays every recorded exchange of testdata/google-drive:
// the request must be exactly the recorded one and the records, meta, next
// params, downloaded bytes, feed or error exactly the expected ones.
func TestFixtures(t *testing.T) {
	for _, f := range fixture.LoadDir(t, "../../testdata/google-drive") {
		t.Run(f.Name, func(t *testing.T) {
			if f.Credentials != "oauth" {
				t.Fatalf("unknown credentials %q", f.Credentials)
			}
			replay := fixture.NewReplay(f)
			opts := []tributary.Option{tributary.WithHTTPClient(replay.Client())}
			if !f.RetriesAllowed() {
				opts = append(opts, tributary.WithRetry(tributary.RetryPolicy{}))
			}
			c, err := googledrive.New(googledrive.Credentials{AccessToken: "TEST_ACCESS_TOKEN"}, opts...)
			if err != nil {
				t.Fatal(err)
			}
			fixture.Run(t, f, c, replay)
		})
	}
}

// TestFixturesAgreeWithTheDescription checks every exchange of every
// fixture against Google's description of Drive v3 (APIs.guru's
// conversion of the discovery document).
func TestFixturesAgreeWithTheDescription(t *testing.T) {
	vendorspec.OpenAPI(t, "google-drive").ValidateFixtures(t, "../../testdata/google-drive")
}

// TestFixturesCoverCatalogue proves that every entity/action of the
// catalogue (but search, which runs on a copy) has a fixture, and every
// feed one.
func TestFixturesCoverCatalogue(t *testing.T) {
	have := map[string]bool{}
	for _, f := range fixture.LoadDir(t, "../../testdata/google-drive") {
		if f.Feed != nil {
			have["feed "+f.Feed.Entity] = true
			continue
		}
		have[f.Operation.Entity+"."+string(f.Operation.Action)] = true
	}
	for _, e := range googledrive.Catalogue() {
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
