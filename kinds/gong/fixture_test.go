package gong_test

import (
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fixture"
	"github.com/tributary-dev/tributary/kinds/gong"
)

// fixtureCredentials maps the fixtures' credential names to the
// placeholder credentials they were recorded with.
var fixtureCredentials = map[string]gong.Credentials{
	"basic": {AccessKey: "TEST_ACCESS_KEY", AccessKeySecret: "TEST_ACCESS_KEY_SECRET"},
	"oauth": {AccessToken: "TEST_ACCESS_TOKEN"},
}

// TestFixtures replays every recorded exchange of testdata/gong: the
// request must be exactly the recorded one and the records, meta, next
// params, downloaded bytes or error exactly the expected ones.
func TestFixtures(t *testing.T) {
	for _, f := range fixture.LoadDir(t, "../../testdata/gong") {
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
			c, err := gong.New(creds, opts...)
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
	for _, f := range fixture.LoadDir(t, "../../testdata/gong") {
		have[f.Operation.Entity+"."+string(f.Operation.Action)] = true
	}
	c, err := gong.New(fixtureCredentials["basic"])
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
