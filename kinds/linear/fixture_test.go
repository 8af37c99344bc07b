package linear_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/fixture"
	"github.com/tributary-dev/tributary/kinds/linear"
	"github.com/tributary-dev/tributary/kinds/linear/lineartest"
)

const fixtures = "../../testdata/linear"

// fixtureCredentials maps the fixtures' credential names to the
// placeholder credentials they were recorded with.
var fixtureCredentials = map[string]linear.Credentials{
	"api_key": {APIKey: "lin_api_TEST_API_KEY"},
	"oauth":   {AccessToken: "TEST_ACCESS_TOKEN"},
}

// TestFixtures replays every recorded exchange of testdata/linear: the
// request must be exactly the recorded one and the records, meta, next
// params or error exactly the expected ones.
func TestFixtures(t *testing.T) {
	for _, f := range fixture.LoadDir(t, fixtures) {
		t.Run(f.Name, func(t *testing.T) {
			creds, ok := fixtureCredentials[f.Credentials]
			if !ok {
				t.Fatalf("unknown credentials %q", f.Credentials)
			}
			replay := fixture.NewReplay(f)
			opts := []tributary.Option{tributary.WithHTTPClient(replay.Client()), linear.WithBudgetPacing(false)}
			if !f.RetriesAllowed() {
				opts = append(opts, tributary.WithRetry(tributary.RetryPolicy{}))
			}
			c, err := linear.New(creds, opts...)
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
	for _, f := range fixture.LoadDir(t, fixtures) {
		have[f.Operation.Entity+"."+string(f.Operation.Action)] = true
	}
	for _, e := range linear.Catalogue() {
		for _, a := range e.Actions {
			if a != tributary.ActionSearch && !have[e.Name+"."+string(a)] {
				t.Errorf("no fixture for %s.%s", e.Name, a)
			}
		}
	}
}

// Every fixture agrees with Linear's schema: its request's query and
// variables validate (the refused filter of issues.list.validation_failed
// is refused by the schema too: testdata/vendor-specs/allow-linear.txt),
// and each answer's data is what the query selects, typed as the schema
// types it.
func TestFixturesAgreeWithLinearsSchema(t *testing.T) {
	linearSpec(t).ValidateFixtures(t, fixtures)
}

// The fake answers every query of the catalogue as Linear's schema says:
// each request the client sends and each answer of the fake (lists with
// archived records, gets, search, the credential check) is checked against
// the schema on its way.
func TestFakeAnswersConformToLinearsSchema(t *testing.T) {
	s := lineartest.New()
	defer s.Close()
	c := open(t, s, tributary.WithHTTPClient(&http.Client{Transport: linearSpec(t).Transport(t, http.DefaultTransport, s.URL+"/graphql")}))
	ctx := context.Background()
	for _, e := range c.Entities() {
		if _, err := c.List(ctx, e.Name, tributary.Params{"first": 250, "includeArchived": true}); err != nil {
			t.Fatal(err)
		}
		page, err := c.List(ctx, e.Name, tributary.Params{"first": 1})
		if err != nil {
			t.Fatal(err)
		}
		id, _ := page.Records[0].StringAt("id")
		if _, err := c.Get(ctx, e.Name, tributary.Params{"id": id}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.APISearch(ctx, "issues", tributary.Params{"term": "a", "includeComments": true}); err != nil {
		t.Fatal(err)
	}
	if err := c.CheckCredentials(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(s.Requests()); n != 9*3+2 {
		t.Fatalf("%d requests", n)
	}
}
