package asana_test

import (
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fixture"
	"github.com/tributary-dev/tributary/internal/vendorspec"
	"github.com/tributary-dev/tributary/kinds/asana"
)

// TestFixtures replays every recorded exchange of testdata/asana: the
// request must be exactly the recorded one and the records, meta, next
// params or error exactly the expected ones.
func TestFixtures(t *testing.T) {
	for _, f := range fixture.LoadDir(t, "../../testdata/asana") {
		t.Run(f.Name, func(t *testing.T) {
			if f.Credentials != "pat" {
				t.Fatalf("unknown credentials %q", f.Credentials)
			}
			replay := fixture.NewReplay(f)
			opts := []tributary.Option{tributary.WithHTTPClient(replay.Client()), tributary.WithoutPacing()}
			if !f.RetriesAllowed() {
				opts = append(opts, tributary.WithRetry(tributary.RetryPolicy{}))
			}
			c, err := asana.New(asana.Credentials{Token: "TEST-ASANA-PAT"}, opts...)
			if err != nil {
				t.Fatal(err)
			}
			fixture.Run(t, f, c, replay)
		})
	}
}

// TestFixturesAgreeWithTheDescription checks every exchange of every
// fixture against Asana's own OpenAPI description.
func TestFixturesAgreeWithTheDescription(t *testing.T) {
	vendorspec.OpenAPI(t, "asana").ValidateFixtures(t, "../../testdata/asana")
}
