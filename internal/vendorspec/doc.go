// Package vendorspec checks recorded fixtures and fakes against the
// vendors' own API descriptions, for tests only. The descriptions are in
// testdata/vendor-specs, byte for byte as published (SOURCES.md says where
// each comes from, its licence and its SHA-256, which a test checks):
// OpenAPI 3 (GitHub, Intercom, Jira, Stripe, Google Drive, Notion, Asana),
// Swagger 2.0 (Slack, converted with kin-openapi's openapi2conv) and a
// GraphQL schema (Linear, checked with gqlparser).
//
// # A kind's fixtures
//
// Next to the kind's fixture test, one test checks every exchange of every
// fixture of testdata/<kind>: the operation must exist for its method and
// URL, the request (path, query, the headers the fixture records, body)
// and the answer (status, headers, body) must agree with it:
//
//	func TestFixturesAgreeWithTheDescription(t *testing.T) {
//		vendorspec.OpenAPI(t, "jira").ValidateFixtures(t, "../../testdata/jira")
//	}
//
// A GraphQL kind is checked the same way, each exchange's query and
// variables against the schema and its answer against the query:
//
//	vendorspec.GraphQL(t, "linear").ValidateFixtures(t, "../../testdata/linear")
//
// Each difference fails the test with one line naming the operation and
// the place, e.g.
//
//	exchange 1: GET /repos/{owner}/{repo}/issues: response 200 body: /0/user/login: expected string (not nullable), got null
//
// An error answer (4xx, 5xx) is checked against the response the
// operation declares for its status; where it declares none, or one
// without a body, against the vendor's error schema (GitHub's basic-error,
// Intercom's error, Jira's ErrorCollection), and the test log says so.
// A difference that is the description's fault, not the fixture's, goes
// into testdata/vendor-specs/allow-<vendor>.txt with its reason, one line
// each:
//
//	<fixture or glob>[#<exchange, from 1>] | <text of the difference> | <reason>
//
// An entry that no longer allows anything fails ValidateFixtures, so the
// list cannot go stale. ValidateFixture(t, f) checks one fixture.File.
//
// # A fake
//
// A fake's test puts Transport between the client and the fake: every
// request the client sends and every answer the fake gives is checked,
// the fake's URL standing for the vendor's API root:
//
//	srv := jiratest.NewServer(t)
//	hc := &http.Client{Transport: vendorspec.OpenAPI(t, "jira").Transport(t, http.DefaultTransport, srv.URL)}
//
// and for a GraphQL fake, Transport of vendorspec.GraphQL(t, "linear").
// The fake's query texts can be checked one by one too:
//
//	vendorspec.GraphQL(t, "linear").ValidateQuery(t, query, vars)
//	vendorspec.GraphQL(t, "linear").ValidateResponse(t, query, vars, body)
//
// The Check* methods return the differences instead of failing a test.
//
// # Where requests go
//
// A request's URL is mapped onto the description's paths from the API's
// root: the description's servers (GitHub https://api.github.com;
// Intercom's three regions), or for Jira either root a client uses:
// https://{site}.atlassian.net (basic auth) and
// https://api.atlassian.com/ex/jira/{cloudid} (OAuth 2.0), both onto the
// description's /rest/api/3/... paths. Linear's one endpoint is
// https://api.linear.app/graphql. A URL outside the root (a signed
// download URL on a storage host) is a difference, to allow with its
// reason.
//
// # Cost
//
// A description is read once per test binary (GitHub's 3.6 MB: 0.3 to 0.9 s
// on the shared 2-core machine, BenchmarkParse); kin-openapi reads only the
// operations the exchanges use, each with the components it reaches and
// without the examples (all of GitHub's would take kin-openapi about 4 s).
// ValidateFixtures makes all of a directory's operations ready at once
// (GitHub's 40: 0.5 to 1.9 s there). CI loads every operation of every
// description (TRIBUTARY_VENDORSPEC_ALL, about a minute).
//
// # The vendors' defects
//
// Some descriptions break their own rules; the parsed copy is patched in
// memory (patches.go, each patch with its reason, each failing if its
// defect is gone), never the file: Intercom 2.11's dangling
// custom_attributes schema and its nullable written next to $ref (which
// OpenAPI 3.0 ignores), Slack's JSON Schema draft 4 alternatives, Asana's
// back-reference patterns. Description.Patches lists them.
package vendorspec
