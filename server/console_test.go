package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary/internal/keyring"
	"github.com/tributary-dev/tributary/server"
	"github.com/tributary-dev/tributary/store"
)

// adminPassword is the operator's password of the tests' consoles.
const adminPassword = "operator-password-0123"

// withConsole gives the service an operator's password.
func withConsole(c *server.Config) { c.Admin = adminPassword }

// operator is a browser-like HTTP client of the console: a cookie jar, no
// redirects followed.
type operator struct {
	t   *testing.T
	s   *service
	hc  *http.Client
	jar *cookiejar.Jar
}

func newOperator(t *testing.T, s *service) *operator {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Jar: jar, Timeout: time.Minute, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &operator{t: t, s: s, hc: hc, jar: jar}
}

// page (connect_test.go) is an answer of the console too.

func (o *operator) do(method, path string, form url.Values, header http.Header) page {
	o.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, o.s.url+path, body)
	if err != nil {
		o.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := o.hc.Do(req)
	if err != nil {
		o.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		o.t.Fatal(err)
	}
	return page{status: resp.StatusCode, location: resp.Header.Get("Location"), body: string(raw), header: resp.Header}
}

func (o *operator) get(path string) page { o.t.Helper(); return o.do("GET", path, nil, nil) }

// csrfRE (connect_test.go) finds the forms' CSRF token.

// csrf is the first CSRF token of a page's forms.
func csrf(t *testing.T, p page) string {
	t.Helper()
	m := csrfRE.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no CSRF token on the page (%d): %.400s", p.status, p.body)
	}
	return m[1]
}

// login signs in with password and returns the answer to the form.
func (o *operator) login(password string) page {
	o.t.Helper()
	p := o.get("/console/login")
	if p.status != http.StatusOK {
		o.t.Fatalf("login page: %d", p.status)
	}
	return o.do("POST", "/console/login", url.Values{"csrf": {csrf(o.t, p)}, "password": {password}, "next": {"/console/connectors"}}, nil)
}

// signedIn is an operator who has signed in.
func signedIn(t *testing.T, s *service) *operator {
	t.Helper()
	o := newOperator(t, s)
	if p := o.login(adminPassword); p.status != http.StatusSeeOther || p.location != "/console/connectors" {
		t.Fatalf("sign in: %d %q %.300s", p.status, p.location, p.body)
	}
	return o
}

// consoleService is a service with a console and one connector of each
// tenant; the first tenant's has a copy whose last sync failed.
func consoleService(t *testing.T, st *store.Store) (s *service, failing, other string) {
	t.Helper()
	s = start(t, st, nil, withConsole)
	failing = s.create(t, s.token(t, clientA, ""), "ada")
	other = s.create(t, s.token(t, clientB, ""), "bob")
	if _, err := st.RecordFailure(context.Background(), failing, "tickets", store.FailureConfig, "the vendor answered 404: no such account", nil); err != nil {
		t.Fatal(err)
	}
	return s, failing, other
}

// Signing in: a wrong password is refused after a delay, the right one
// gives a session cookie (HttpOnly, SameSite=Strict, on /console) and the
// connectors page lists every tenant's connectors; signing out ends it.
func TestConsoleSignInAndOut(t *testing.T) {
	s, failing, other := consoleService(t, sqliteStore(t))
	o := newOperator(t, s)
	start := time.Now()
	p := o.login("not-the-password-at-all")
	if p.status != http.StatusUnauthorized || !strings.Contains(p.body, "Wrong password") {
		t.Fatalf("a wrong password: %d %.300s", p.status, p.body)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("a failed sign-in answered in %v: not slowed down", d)
	}
	p = o.login(adminPassword)
	if p.status != http.StatusSeeOther {
		t.Fatalf("sign in: %d", p.status)
	}
	var cookie *http.Cookie
	for _, c := range (&http.Response{Header: p.header}).Cookies() {
		if c.Name == "tributary_console" {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || cookie.Path != "/console" || cookie.Secure {
		t.Fatalf("the session cookie is %+v, want HttpOnly, SameSite=Strict, Path=/console (not Secure over plain HTTP)", cookie)
	}
	p = o.get("/console/connectors")
	if p.status != http.StatusOK || !strings.Contains(p.body, failing) || !strings.Contains(p.body, other) {
		t.Fatalf("connectors page: %d %.500s", p.status, p.body)
	}
	if !strings.Contains(p.header.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Errorf("no content security policy: %q", p.header.Get("Content-Security-Policy"))
	}
	leaks(t, "the connectors page", p.body, "api_token", "no such account")
	p = o.do("POST", "/console/logout", url.Values{"csrf": {csrf(t, p)}}, nil)
	if p.status != http.StatusSeeOther || p.location != "/console/login" {
		t.Fatalf("sign out: %d %q", p.status, p.location)
	}
	// The cookie of the ended session is refused even when replayed.
	o.jar.SetCookies(mustURL(t, s.url+"/console/"), []*http.Cookie{{Name: "tributary_console", Value: cookie.Value, Path: "/console"}})
	if p := o.get("/console/connectors"); p.status != http.StatusSeeOther || !strings.HasPrefix(p.location, "/console/login") {
		t.Errorf("after signing out, the old cookie gets %d %q", p.status, p.location)
	}
	leaks(t, "the log", s.logs.String(), adminPassword, cookie.Value)
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// Without a session, a page sends the browser to the sign-in page and an
// action is refused; a forged session cookie is no session.
func TestConsoleWithoutSession(t *testing.T) {
	s, failing, _ := consoleService(t, sqliteStore(t))
	o := newOperator(t, s)
	for _, path := range []string{"/console", "/console/connectors", "/console/connectors/" + failing, "/console/search", "/console/webhooks", "/console/keys"} {
		p := o.get(path)
		if p.status != http.StatusSeeOther || p.location != "/console/login?next="+url.QueryEscape(path) {
			t.Errorf("GET %s without a session: %d %q", path, p.status, p.location)
		}
	}
	p := o.do("POST", "/console/connectors/"+failing+"/sync", url.Values{"entity": {"tickets"}}, nil)
	if p.status != http.StatusUnauthorized {
		t.Errorf("sync now without a session: %d", p.status)
	}
	o.jar.SetCookies(mustURL(t, s.url+"/console/"), []*http.Cookie{{Name: "tributary_console", Value: "eyJpIjoieCIsImUiOjk5OTk5OTk5OTksImsiOiJrMSJ9.AAAA", Path: "/console"}})
	if p := o.get("/console/connectors"); p.status != http.StatusSeeOther {
		t.Errorf("a forged session cookie gets %d", p.status)
	}
	notSynced(t, s.st, failing)
}

// notSynced fails the test when a copy of connector was synchronized.
func notSynced(t *testing.T, st *store.Store, connector string) {
	t.Helper()
	copies, err := st.ConnectorCopies(context.Background(), connector)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range copies {
		if !c.SyncedAt.IsZero() {
			t.Errorf("copy %s was synchronized", c.Entity)
		}
	}
}

// An API client's bearer token opens no console page, even with a
// session alongside.
func TestConsoleRefusesAPITokens(t *testing.T) {
	s, failing, _ := consoleService(t, sqliteStore(t))
	tok := s.token(t, clientA, "")
	anon := newOperator(t, s)
	o := signedIn(t, s)
	bearer := http.Header{"Authorization": {"Bearer " + tok}}
	for _, c := range []*operator{anon, o} {
		for _, path := range []string{"/console/connectors", "/console/connectors/" + failing, "/console/keys", "/console/login"} {
			if p := c.do("GET", path, nil, bearer); p.status != http.StatusForbidden {
				t.Errorf("GET %s with an API token: %d", path, p.status)
			}
		}
	}
	// Nor does the console's session open the API.
	if a := s.do(t, "GET", "/api/v1/connectors/sources/"+failing, "", nil); a.status != http.StatusUnauthorized {
		t.Errorf("the API without a token: %d", a.status)
	}
}

// A form posted without its CSRF token, or with a forged one, or with
// another session's, is refused with 403 and does nothing.
func TestConsoleCSRF(t *testing.T) {
	s, failing, _ := consoleService(t, sqliteStore(t))
	o := signedIn(t, s)
	other := signedIn(t, s)
	theirs := csrf(t, other.get("/console/connectors/"+failing))
	for name, form := range map[string]url.Values{
		"missing":         {"entity": {"tickets"}},
		"forged":          {"entity": {"tickets"}, "csrf": {"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}},
		"another session": {"entity": {"tickets"}, "csrf": {theirs}},
	} {
		if p := o.do("POST", "/console/connectors/"+failing+"/sync", form, nil); p.status != http.StatusForbidden {
			t.Errorf("sync now with a %s CSRF token: %d", name, p.status)
		}
		if p := o.do("POST", "/console/logout", url.Values{"csrf": form["csrf"]}, nil); p.status != http.StatusForbidden {
			t.Errorf("sign out with a %s CSRF token: %d", name, p.status)
		}
	}
	notSynced(t, s.st, failing)
	// The sign-in form's token is checked too.
	anon := newOperator(t, s)
	anon.get("/console/login")
	if p := anon.do("POST", "/console/login", url.Values{"password": {adminPassword}, "csrf": {"forged"}}, nil); p.status != http.StatusForbidden {
		t.Errorf("sign in with a forged token: %d", p.status)
	}
	// The right token works: the copy is synchronized, its failure gone.
	p := o.do("POST", "/console/connectors/"+failing+"/sync", url.Values{"entity": {"tickets"}, "csrf": {csrf(t, o.get("/console/connectors/"+failing))}}, nil)
	if p.status != http.StatusSeeOther || p.location != "/console/connectors/"+failing+"?synced=tickets" {
		t.Fatalf("sync now: %d %q %.400s", p.status, p.location, p.body)
	}
	n, err := s.st.Count(context.Background(), failing, "tickets")
	if err != nil || n != int64(s.zd.Total("tickets")) {
		t.Errorf("the copy holds %d tickets (%v), want %d", n, err, s.zd.Total("tickets"))
	}
	if f, err := s.st.CopyFailure(context.Background(), failing, "tickets"); err != nil || f != nil {
		t.Errorf("the copy's failure is %+v (%v) after a sync", f, err)
	}
}

// An operator sees every tenant's connectors, and filters them; ids that
// do not exist are 404, bad parameters 400.
func TestConsoleFiltersAndNotFound(t *testing.T) {
	s, failing, other := consoleService(t, sqliteStore(t))
	o := signedIn(t, s)
	for _, c := range []struct {
		path      string
		status    int
		want, not string
	}{
		{"/console/connectors?status=failing", 200, failing, other},
		{"/console/connectors?status=healthy", 200, other, failing},
		{"/console/connectors?tenant=tenant-b", 200, other, failing},
		{"/console/connectors?tenant=tenant-a&user=ada", 200, failing, other},
		{"/console/connectors?tenant=tenant-a&user=bob", 200, "No connector matches", failing},
		{"/console/connectors/" + other, 200, "bob", failing},
		{"/console/connectors?tenant=tenant-nope", 404, "No tenant", failing},
		{"/console/connectors?status=sleepy", 400, "status must be", failing},
		{"/console/connectors?after=-3", 400, "after must be", failing},
		{"/console/connectors/conn_doesnotexist", 404, "No connector", failing},
		{"/console/connectors/..%2f..%2fetc", 404, "", failing},
		{"/console/search?connector=conn_doesnotexist", 404, "No connector", ""},
		{"/console/search?connector=" + failing + "&entity=nope", 404, "has no copy", ""},
		{"/console/nothing-here", 404, "No such page", ""},
	} {
		p := o.get(c.path)
		if p.status != c.status || !strings.Contains(p.body, c.want) || c.not != "" && strings.Contains(p.body, c.not) {
			t.Errorf("GET %s: %d, want %d with %q and without %q: %.300s", c.path, p.status, c.status, c.want, c.not, p.body)
		}
	}
	p := o.do("POST", "/console/connectors/conn_doesnotexist/sync", url.Values{"entity": {"tickets"}, "csrf": {csrf(t, o.get("/console/keys"))}}, nil)
	if p.status != http.StatusNotFound {
		t.Errorf("sync now of a connector that does not exist: %d", p.status)
	}
}

// Without Config.Admin there is no console; a short password is refused.
func TestConsoleNeedsAnAdminPassword(t *testing.T) {
	s := start(t, sqliteStore(t), nil, nil)
	if a := s.do(t, "GET", "/console/login", "", nil); a.status != http.StatusNotFound {
		t.Errorf("the console without an admin password: %d", a.status)
	}
	_, err := server.New(server.Config{Store: sqliteStore(t), Keys: newKeys(t, "k1"), Admin: "short"})
	if err == nil || !strings.Contains(err.Error(), "Config.Admin") {
		t.Errorf("a short admin password: %v", err)
	}
	cfg := server.Config{Admin: adminPassword}
	if got := fmt.Sprint(cfg); strings.Contains(got, adminPassword) {
		t.Errorf("the configuration prints the admin password: %s", got)
	}
}

// The connectors list pages through thousands of connectors 50 at a
// time, keeping its filters; a connector whose refresh token the vendor
// refused is "needs reconnect", found by its filter.
func TestConsolePagesAndNeedsReconnect(t *testing.T) {
	ctx := context.Background()
	s, failing, other := consoleService(t, sqliteStore(t))
	ring, err := keyring.Parse(s.keys)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 110 {
		id := fmt.Sprintf("conn_page%03d", i)
		sealed, err := ring.Seal([]byte(`{"credentials":{}}`), []byte(id)) // credentials that open: healthy
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.st.CreateConnector(ctx, store.Connector{ID: id, Tenant: clientB.ID, ExternalUserID: "many", Kind: "zendesk-support", Sealed: sealed}); err != nil {
			t.Fatal(err)
		}
	}
	// Mark other as refused by the vendor, as a refused refresh does.
	if _, err := s.st.LockConnectorEvents(ctx, other, func(ctx context.Context, c *store.Connector) ([]byte, []*store.Event, error) {
		c.NeedsReconnect = true
		return nil, nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	o := signedIn(t, s)
	rowRE := regexp.MustCompile(`<th scope="row"><a href="/console/connectors/([^"]+)">`)
	nextRE := regexp.MustCompile(`href="([^"]+)" id="next"`)
	var seen []string
	path := "/console/connectors?tenant=tenant-b&user=many"
	for pages := 0; path != ""; pages++ {
		if pages == 5 {
			t.Fatal("more than 5 pages")
		}
		p := o.get(strings.ReplaceAll(path, "&amp;", "&"))
		if p.status != http.StatusOK {
			t.Fatalf("GET %s: %d", path, p.status)
		}
		ids := rowRE.FindAllStringSubmatch(p.body, -1)
		if want := min(50, 110-len(seen)); len(ids) != want {
			t.Fatalf("page %d lists %d connectors, want %d", pages+1, len(ids), want)
		}
		for _, m := range ids {
			seen = append(seen, m[1])
		}
		path = ""
		if m := nextRE.FindStringSubmatch(p.body); m != nil {
			path = m[1]
			if !strings.Contains(path, "user=many") {
				t.Errorf("the next page's link %q drops the filter", path)
			}
		}
	}
	for i, id := range seen {
		if want := fmt.Sprintf("conn_page%03d", i); id != want {
			t.Fatalf("connector %d is %s, want %s (in creation order, each once)", i, id, want)
		}
	}
	p := o.get("/console/connectors?status=needs_reconnect")
	if ids := rowRE.FindAllStringSubmatch(p.body, -1); p.status != 200 || len(ids) != 1 || ids[0][1] != other {
		t.Errorf("needs reconnect lists %v (%d)", ids, p.status)
	}
	if p := o.get("/console/connectors/" + other); !strings.Contains(p.body, `id="status">needs reconnect<`) {
		t.Errorf("the connector's page does not say it needs reconnecting: %.300s", p.body)
	}
	// The paged connectors have no failing copy: healthy, with the filter
	// in the store's query, a full page at once.
	p = o.get("/console/connectors?status=healthy")
	if ids := rowRE.FindAllStringSubmatch(p.body, -1); len(ids) != 50 || strings.Contains(p.body, failing) || strings.Contains(p.body, other) {
		t.Errorf("healthy lists %d connectors, or one that is not: %.300s", len(ids), p.body)
	}
}

// The keys page shows a rotation's progress: connectors sealed under the
// old key until RotateKeys re-seals them under the new primary.
func TestConsoleKeyRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "serve.db")
	old := start(t, openSQLiteAt(t, path), nil, nil)
	old.create(t, old.token(t, clientA, ""), "ada")
	old.create(t, old.token(t, clientB, ""), "bob")
	k2, err := keyring.NewKey("k2")
	if err != nil {
		t.Fatal(err)
	}
	s := start(t, openSQLiteAt(t, path), old.zd, func(c *server.Config) { withConsole(c); c.Keys = k2 + "\n" + old.keys })
	o := signedIn(t, s)
	p := o.get("/console/keys")
	if !strings.Contains(p.body, "2 of 2 connectors are sealed under another key than the primary") ||
		!regexp.MustCompile(`<th scope="row">k2</th>\s*<td[^>]*>primary[^<]*</td>\s*<td class="num"[^>]*>0</td>`).MatchString(p.body) ||
		!regexp.MustCompile(`<th scope="row">k1</th>\s*<td[^>]*>opens only</td>\s*<td class="num"[^>]*>2</td>`).MatchString(p.body) {
		t.Fatalf("before the rotation the keys page says %.2000s", p.body)
	}
	if n, err := s.srv.RotateKeys(context.Background()); err != nil || n != 2 {
		t.Fatalf("RotateKeys: %d, %v", n, err)
	}
	if p := o.get("/console/keys"); !strings.Contains(p.body, "All 2 connectors are sealed under the primary key.") {
		t.Errorf("after the rotation the keys page says %.2000s", p.body)
	}
}

// The replay and search forms refuse what does not exist or does not
// parse, and say why.
func TestConsoleReplayAndSearchRefusals(t *testing.T) {
	a := clientA
	a.Webhooks = []server.Webhook{{URL: "http://127.0.0.1:1/hooks?token=hidden-query", Secret: hookSecret}}
	s := start(t, sqliteStore(t), nil, func(c *server.Config) {
		withConsole(c)
		c.Clients = []server.Client{a, clientB}
	})
	id := s.create(t, s.token(t, a, ""), "ada")
	o := signedIn(t, s)
	p := o.get("/console/webhooks")
	if p.status != 200 || !strings.Contains(p.body, "http://127.0.0.1:1/hooks") || strings.Contains(p.body, "hidden-query") || strings.Contains(p.body, hookSecret) {
		t.Errorf("the webhooks page: %d %.1000s", p.status, p.body)
	}
	eps, err := s.st.Endpoints(context.Background())
	if err != nil || len(eps) != 1 {
		t.Fatalf("endpoints %+v (%v)", eps, err)
	}
	token := csrf(t, p)
	for _, c := range []struct {
		form   url.Values
		status int
	}{
		{url.Values{"endpoint": {"ep_nope"}, "event": {"evt_1"}, "csrf": {token}}, 404},
		{url.Values{"endpoint": {eps[0].Endpoint}, "event": {"evt_nope"}, "csrf": {token}}, 404},
		{url.Values{"endpoint": {eps[0].Endpoint}, "csrf": {token}}, 400},
		{url.Values{"endpoint": {eps[0].Endpoint}, "event": {"evt_1"}}, 403},
	} {
		if p := o.do("POST", "/console/webhooks/replay", c.form, nil); p.status != c.status {
			t.Errorf("replay %v: %d, want %d", c.form, p.status, c.status)
		}
	}
	p = o.get("/console/search?connector=" + id + "&entity=tickets&run=1&f0=status&op0=eq&v0=open")
	if p.status != http.StatusConflict || !strings.Contains(p.body, "has not been synchronized yet") {
		t.Errorf("a search of a copy never synchronized: %d %.300s", p.status, p.body)
	}
	p = o.get("/console/search?connector=" + id + "&entity=tickets&run=1&f0=status&op0=bogus&v0=open")
	if p.status != http.StatusBadRequest || !strings.Contains(p.body, "Condition 1: unknown operator &#34;bogus&#34;") {
		t.Errorf("an unknown operator: %d %.300s", p.status, p.body)
	}
	p = o.get("/console/search?connector=" + id + "&entity=tickets")
	if p.status != 200 || !strings.Contains(p.body, `<option value="status">status (string)</option>`) {
		t.Errorf("the filter editor does not list the tickets' fields: %.3000s", p.body)
	}
}

// Over TLS the console's cookies are Secure.
func TestConsoleCookiesSecureOverTLS(t *testing.T) {
	s := start(t, sqliteStore(t), nil, withConsole)
	ts := httptest.NewTLSServer(s.srv)
	defer ts.Close()
	o := newOperator(t, &service{url: ts.URL})
	o.hc.Transport = ts.Client().Transport
	p := o.login(adminPassword)
	cookies := (&http.Response{Header: p.header}).Cookies()
	found := false
	for _, c := range cookies {
		if c.Name == "tributary_console" && c.MaxAge > 0 {
			found = true
			if !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode {
				t.Errorf("over TLS the session cookie is %+v", c)
			}
		}
	}
	if p.status != http.StatusSeeOther || !found {
		t.Fatalf("sign in over TLS: %d, cookies %v", p.status, cookies)
	}
}

// Behind a proxy that ends TLS (the public URL is https), the console's
// cookies are Secure too, though the request reached it over plain HTTP.
func TestConsoleCookiesSecureBehindTLSProxy(t *testing.T) {
	s := start(t, sqliteStore(t), nil, func(c *server.Config) { withConsole(c); c.PublicURL = "https://console.example" })
	p := newOperator(t, s).get("/console/login")
	cookies := (&http.Response{Header: p.header}).Cookies()
	if len(cookies) == 0 {
		t.Fatalf("the sign-in page sets no cookie: %d %v", p.status, p.header)
	}
	for _, c := range cookies {
		if !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode {
			t.Errorf("behind a TLS proxy the cookie is %+v", c)
		}
	}
}
