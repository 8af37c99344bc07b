package vendorspec

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/internal/fixture"
)

// CheckExchange validates one recorded exchange against the description:
// the operation must exist for its method and URL, and the request
// (path, query, headers sent, body) and the response (status, headers,
// body) must agree with it. Each difference is one line naming the
// operation and where, e.g.
//
//	GET /repos/{owner}/{repo}/issues: response 200 body: /0/user/login: Value is not nullable, got null
//
// The allow list is not applied (ValidateFixture applies it).
func (d *Description) CheckExchange(ex fixture.Exchange) []string {
	problems, _ := d.checkFixtureExchange(ex)
	return problems
}

func (d *Description) checkFixtureExchange(ex fixture.Exchange) (problems, notes []string) {
	e, err := fromFixture(ex)
	if err != nil {
		return []string{err.Error()}, nil
	}
	return d.check(e)
}

// ValidateFixture validates every exchange of f, failing t for each
// difference that the vendor's allow list does not allow (those are
// logged with their reason, as are the error answers the description
// does not declare).
func (d *Description) ValidateFixture(t testing.TB, f fixture.File) {
	t.Helper()
	d.ready(t, []fixture.File{f})
	reportFixture(t, d.allow, f, d.checkFixtureExchange)
}

// ready makes every operation the exchanges of files use ready at once:
// the components they share are read once (a second each of Stripe's, one
// by one).
func (d *Description) ready(t testing.TB, files []fixture.File) {
	t.Helper()
	var templates []string
	for _, f := range files {
		for _, ex := range f.Exchanges {
			if e, err := fromFixture(ex); err == nil {
				if ms, err := d.route(e); err == nil {
					for _, m := range ms {
						templates = append(templates, m.tmpl)
					}
				}
			}
		}
	}
	start := time.Now()
	if err := d.prepare(templates); err != nil {
		t.Fatal(err)
	}
	if len(files) > 1 {
		t.Logf("vendorspec: %d operations of %s's description made ready in %v", countDistinct(templates), d.name, time.Since(start).Round(time.Millisecond))
	}
}

// ValidateFixtures validates every fixture of dir (testdata/<kind>), each
// in a subtest named after it, and fails t for each entry of the allow
// list that names one of them but allows nothing any more.
func (d *Description) ValidateFixtures(t *testing.T, dir string) {
	t.Helper()
	files := fixture.LoadDir(t, dir)
	d.ready(t, files)
	reportFixtures(t, d.allow, files, d.ValidateFixture)
}

// reportFixture fails t for each problem check finds in f's exchanges
// that allow does not allow, and logs the rest.
func reportFixture(t testing.TB, allow *allowList, f fixture.File, check func(fixture.Exchange) (problems, notes []string)) {
	t.Helper()
	for i, ex := range f.Exchanges {
		problems, notes := check(ex)
		for _, n := range notes {
			t.Logf("exchange %d: %s", i+1, n)
		}
		for _, p := range problems {
			if why, ok := allow.allowed(f.Name, i+1, p); ok {
				t.Logf("exchange %d: allowed by %s: %s", i+1, why, p)
				continue
			}
			t.Errorf("exchange %d: %s", i+1, p)
		}
	}
}

// reportFixtures validates each file in a subtest, then fails t for each
// entry of allow that names one of them but allowed nothing.
func reportFixtures(t *testing.T, allow *allowList, files []fixture.File, validate func(testing.TB, fixture.File)) {
	t.Helper()
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.Name
		t.Run(f.Name, func(t *testing.T) { validate(t, f) })
	}
	for _, u := range allow.unused(names) {
		t.Error(u)
	}
}

func countDistinct(s []string) int {
	m := map[string]bool{}
	for _, x := range s {
		m[x] = true
	}
	return len(m)
}

// Transport returns a RoundTripper that sends each request through next
// and validates the exchange against the description, failing t for each
// difference (the allow list does not apply): put it between a client and
// a fake to check both. Requests to fakeBase (the fake's URL, e.g. an
// httptest server's) are validated as if sent to the vendor's API root.
func (d *Description) Transport(t testing.TB, next http.RoundTripper, fakeBase string) http.RoundTripper {
	root := placeholder.ReplaceAllString(d.router.bases[0].text, "example")
	check := func(e exchange) []string {
		problems, _ := d.check(e)
		return problems
	}
	return &checkingTransport{t: t, next: next, fake: strings.TrimSuffix(fakeBase, "/"), root: root, check: check}
}

// checkingTransport validates each exchange it carries.
type checkingTransport struct {
	t     testing.TB
	next  http.RoundTripper
	fake  string // requests under it count as sent under root
	root  string
	check func(exchange) []string
}

func (c *checkingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	reqBody, resp, respBody, err := fixture.Capture(c.next, req)
	if err != nil {
		return nil, err
	}
	u := req.URL
	if c.fake != "" && strings.HasPrefix(u.String(), c.fake) {
		if u, err = url.Parse(c.root + strings.TrimPrefix(u.String(), c.fake)); err != nil {
			return nil, fmt.Errorf("vendorspec: %w", err)
		}
	}
	e := exchange{
		method: req.Method, url: u, reqHeader: req.Header.Clone(), status: resp.StatusCode,
		respHeader: resp.Header.Clone(), respBody: respBody,
		respBodyJSON: strings.Contains(resp.Header.Get("Content-Type"), "json"),
	}
	if len(reqBody) > 0 {
		e.reqBody = reqBody
	}
	for _, p := range c.check(e) {
		c.t.Errorf("vendorspec: %s", p)
	}
	return resp, nil
}
