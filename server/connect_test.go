package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/hosted"
	"github.com/tributary-dev/tributary/kinds/hubspot"
	"github.com/tributary-dev/tributary/kinds/hubspot/hubspottest"
	"github.com/tributary-dev/tributary/kinds/intercom"
	"github.com/tributary-dev/tributary/kinds/intercom/intercomtest"
	"github.com/tributary-dev/tributary/kinds/zendesk"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
	"github.com/tributary-dev/tributary/server"
	"github.com/tributary-dev/tributary/store"
	"github.com/tributary-dev/tributary/webhook"
)

// connectService is a running service with connect sessions: the OAuth
// apps of a Zendesk and a HubSpot fake, the events tenant A's webhook
// endpoint received, and the return URL's server, which records the
// queries it receives.
type connectService struct {
	*service
	hs       *hubspottest.Server
	returnTo string

	mu       sync.Mutex
	events   []string // event types received, in order
	returned []url.Values
}

// startConnect runs a connect-enabled service on st; publicURL, when
// set, is its public URL (another process's, behind one address).
func startConnect(t *testing.T, st *store.Store, keys, publicURL string, zd *zendesktest.Server, hs *hubspottest.Server) *connectService {
	t.Helper()
	if zd == nil {
		zd = zendesktest.New()
		t.Cleanup(zd.Close)
	}
	if hs == nil {
		hs = hubspottest.New()
		t.Cleanup(hs.Close)
	}
	if keys == "" {
		keys = newKeys(t, "k1")
	}
	cs := &connectService{hs: hs}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cs.mu.Lock()
		defer cs.mu.Unlock()
		if r.URL.Path == "/back" {
			cs.returned = append(cs.returned, r.URL.Query())
			io.WriteString(w, "back in the application")
			return
		}
		var p struct {
			Type string `json:"type"`
		}
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &p)
		cs.events = append(cs.events, p.Type)
	}))
	t.Cleanup(recv.Close)
	cs.returnTo = recv.URL + "/back"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	own := "http://" + ln.Addr().String()
	if publicURL == "" {
		publicURL = own
	}
	a := clientA
	a.Webhooks = []server.Webhook{{URL: recv.URL + "/hooks", Secret: hookSecret, Events: []string{"connect.*", "connector.*"}}}
	logs := &logBuffer{}
	cfg := server.Config{Store: st, Keys: keys, Clients: []server.Client{a, clientB},
		SyncEvery: -1, Logger: slog.New(slog.NewJSONHandler(logs, nil)),
		Delivery: server.DeliveryConfig{Poll: 20 * time.Millisecond, Backoff: 10 * time.Millisecond},
		ConnectorOptions: map[string][]tributary.Option{
			zendesk.Type: {tributary.WithBaseURL(zd.URL), zendesk.WithAPIRateLimit(0, 0), zendesk.WithExportRateLimit(0, 0), zendesk.WithBudgetPacing(false)},
			hubspot.Type: {tributary.WithBaseURL(hs.URL), hubspot.WithAPIRateLimit(0, 0)},
		},
		PublicURL: publicURL,
		OAuthApps: map[string]server.OAuthApp{
			zendesk.Type: {ClientID: zendesktest.DefaultClientID, ClientSecret: zendesktest.DefaultClientSecret, BaseURL: zd.URL},
			hubspot.Type: {ClientID: hubspottest.DefaultClientID, ClientSecret: hubspottest.DefaultClientSecret, BaseURL: hs.URL},
		}}
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	serveUntilCleanup(t, srv, ln)
	cs.service = &service{srv: srv, url: own, st: st, zd: zd, logs: logs, keys: keys}
	return cs
}

// received returns the event types tenant A's endpoint got.
func (cs *connectService) received() []string {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return slices.Clone(cs.events)
}

// waitEvent waits until tenant A's endpoint got an event of type typ.
func (cs *connectService) waitEvent(t *testing.T, typ string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if slices.Contains(cs.received(), typ) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no %s event; received %q", typ, cs.received())
}

// session creates a connect session for user-1 through the API and returns
// its connect URL and token.
func (cs *connectService) session(t *testing.T, extra map[string]any) (connectURL, token string) {
	t.Helper()
	body := map[string]any{"external_user_id": "user-1", "return_url": cs.returnTo}
	for k, v := range extra {
		body[k] = v
	}
	a := cs.do(t, "POST", "/v1/connect/sessions", cs.token(t, clientA, ""), body)
	connectURL, _ = a.json["connect_url"].(string)
	token, _ = a.json["token"].(string)
	if a.status != http.StatusCreated || connectURL == "" || token == "" || a.json["expires_at"] == nil {
		t.Fatalf("connect session: %d %s", a.status, a.body)
	}
	return connectURL, token
}

// connectors lists tenant A's connectors in the store.
func (cs *connectService) connectors(t *testing.T) []store.Connector {
	t.Helper()
	rows, err := cs.st.ListConnectors(context.Background(), clientA.ID)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// userAgent is a browser without JavaScript: cookies, and redirects
// followed one at a time.
type userAgent struct {
	c *http.Client
}

func newUserAgent(t *testing.T) *userAgent {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &userAgent{c: &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// page is one answer the user agent got.
type page struct {
	status   int
	location string
	body     string
	header   http.Header
}

func (u *userAgent) do(t *testing.T, method, target string, form url.Values) page {
	t.Helper()
	var rd io.Reader
	if form != nil {
		rd = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, target, rd)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := u.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return page{status: resp.StatusCode, location: resp.Header.Get("Location"), body: string(b), header: resp.Header}
}

// acme is the subdomain the user types for Zendesk.
var acme = map[string]string{"subdomain": "acme"}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// pick opens the connect page and submits kind's form with inputs; it
// returns the answer (a 303 to the vendor's consent page when it worked).
func (u *userAgent) pick(t *testing.T, connectURL, kind string, inputs map[string]string) page {
	t.Helper()
	p := u.do(t, "GET", connectURL, nil)
	m := csrfRE.FindStringSubmatch(p.body)
	if p.status != http.StatusOK || m == nil {
		t.Fatalf("the connect page: %d %s", p.status, p.body)
	}
	form := url.Values{"csrf": {m[1]}, "kind": {kind}}
	for k, v := range inputs {
		form.Set(kind+"."+k, v)
	}
	return u.do(t, "POST", connectURL, form)
}

// start picks kind and returns the consent page's URL.
func (u *userAgent) start(t *testing.T, connectURL, kind string, inputs map[string]string) string {
	t.Helper()
	p := u.pick(t, connectURL, kind, inputs)
	if p.status != http.StatusSeeOther || p.location == "" {
		t.Fatalf("picking %s: %d %s", kind, p.status, p.body)
	}
	return p.location
}

// consent answers the fake's consent page and returns the callback URL
// the fake sent the browser to.
func (u *userAgent) consent(t *testing.T, consentURL, decision string) string {
	t.Helper()
	if p := u.do(t, "GET", consentURL, nil); p.status != http.StatusOK || !strings.Contains(p.body, "Approve") {
		t.Fatalf("the consent page: %d %s", p.status, p.body)
	}
	p := u.do(t, "POST", consentURL, url.Values{"decision": {decision}})
	if p.status != http.StatusFound || p.location == "" {
		t.Fatalf("the consent answer: %d %s", p.status, p.body)
	}
	return p.location
}

// errorPage checks that p is the service's error page with code, and no
// redirect.
func errorPage(t *testing.T, what string, p page, status int, code string, words ...string) {
	t.Helper()
	if p.status != status || !strings.Contains(p.body, `<code id="error-code">`+code+`</code>`) || !strings.Contains(p.body, `<html lang="en">`) {
		t.Errorf("%s: %d, want %d with the error page of %s: %s", what, p.status, status, code, p.body)
	}
	for _, w := range words {
		if !strings.Contains(p.body, w) {
			t.Errorf("%s: the page does not say %q: %s", what, w, p.body)
		}
	}
}

// connected checks that p sends the browser back to the return URL with
// a connector id, and returns the id.
func (cs *connectService) connected(t *testing.T, p page) string {
	t.Helper()
	u, err := url.Parse(p.location)
	if p.status != http.StatusSeeOther || err != nil || !strings.HasPrefix(p.location, cs.returnTo+"?") {
		t.Fatalf("the callback: %d %q %s", p.status, p.location, p.body)
	}
	id := u.Query().Get("connector_id")
	if !strings.HasPrefix(id, "conn_") {
		t.Fatalf("the return URL %q has no connector_id", p.location)
	}
	return id
}

// The whole flow without a browser, on both backends: a session, the
// connect page, Zendesk with its subdomain, Approve at the fake, and the
// callback creates user-1's connector, which lists the fake's tickets;
// the events say connect.completed; no secret of the flow is in the store
// or the log.
func TestConnectSessionFlow(t *testing.T) {
	parallelUnlessRace(t)
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			dir := t.TempDir()
			st := b.open(t)
			if b.name == "sqlite" {
				st = openSQLiteAt(t, filepath.Join(dir, "serve.db"))
			}
			cs := startConnect(t, st, "", "", nil, nil)
			connectURL, token := cs.session(t, map[string]any{"allowed_kinds": []string{"zendesk-support"}})
			if !strings.HasPrefix(connectURL, cs.url+"/connect/") {
				t.Fatalf("connect_url %q is not under the public URL", connectURL)
			}
			ua := newUserAgent(t)
			p := ua.do(t, "GET", connectURL, nil)
			for _, want := range []string{`<label for="k0-subdomain">Zendesk subdomain`, "Connect Zendesk Support", `<title>Connect an account</title>`} {
				if !strings.Contains(p.body, want) {
					t.Errorf("the connect page lacks %q", want)
				}
			}
			if strings.Contains(p.body, "HubSpot") {
				t.Error("the connect page offers HubSpot, which the session does not allow")
			}
			if p.header.Get("Referrer-Policy") != "no-referrer" || p.header.Get("Cache-Control") != "no-store" {
				t.Errorf("the page's headers: %v", p.header)
			}
			consentURL := ua.start(t, connectURL, "zendesk-support", map[string]string{"subdomain": "acme"})
			cu, _ := url.Parse(consentURL)
			if cu.Query().Get("redirect_uri") != cs.url+server.CallbackPath || cu.Query().Get("code_challenge_method") != "S256" {
				t.Fatalf("the consent URL: %s", consentURL)
			}
			callback := ua.consent(t, consentURL, "approve")
			id := cs.connected(t, ua.do(t, "GET", callback, nil))
			rows := cs.connectors(t)
			if len(rows) != 1 || rows[0].ID != id || rows[0].ExternalUserID != "user-1" || rows[0].Kind != "zendesk-support" {
				t.Fatalf("the store's connectors: %v", rows)
			}
			tok := cs.token(t, clientA, "user-1")
			a := cs.execute(t, tok, id, map[string]any{"entity": "tickets", "action": "list", "params": map[string]any{"per_page": 3}})
			if recs, _ := a.json["result"].([]any); a.status != 200 || len(recs) != 3 {
				t.Fatalf("list through the connected connector: %d %s", a.status, a.body)
			}
			cs.waitEvent(t, webhook.ConnectCompleted)
			if got := cs.received(); !slices.Contains(got, webhook.ConnectorCreated) {
				t.Errorf("events: %q", got)
			}
			cq, _ := url.Parse(callback)
			code, state := cq.Query().Get("code"), cq.Query().Get("state")
			leaks(t, "the log", cs.logs.String(), token, code, state, cs.zd.AccessToken(), cs.zd.RefreshToken())
			if b.name == "sqlite" {
				raw, err := os.ReadFile(filepath.Join(dir, "serve.db"))
				if err != nil {
					t.Fatal(err)
				}
				leaks(t, "the store file", string(raw), token, state, cs.zd.RefreshToken())
			}
		})
	}
}

// Several processes share the sessions through one PostgreSQL store: the
// page is served by one, the vendor's callback reaches the other.
func TestConnectAcrossProcesses(t *testing.T) {
	parallelUnlessRace(t)
	dsn := pgDSNFor(t)
	zd, hs := zendesktest.New(), hubspottest.New()
	defer zd.Close()
	defer hs.Close()
	a := startConnect(t, openPostgresAt(t, dsn), "", "", zd, hs)
	b := startConnect(t, openPostgresAt(t, dsn), a.keys, a.url, zd, hs)
	connectURL, _ := a.session(t, nil)
	ua := newUserAgent(t)
	callback := ua.consent(t, ua.start(t, connectURL, "hubspot", nil), "approve")
	jar := ua.c.Jar
	cu, _ := url.Parse(callback)
	cu.Host = strings.TrimPrefix(b.url, "http://")
	// The cookie was set for process A's address: the browser holds it for
	// the public address, which is the load balancer's in production.
	ua.c.Jar = hostJar{jar, strings.TrimPrefix(a.url, "http://")}
	id := a.connected(t, ua.do(t, "GET", cu.String(), nil))
	tok := a.token(t, clientA, "")
	if r := b.execute(t, tok, id, map[string]any{"entity": "companies", "action": "list"}); r.status != 200 {
		t.Fatalf("the connector created by process B, through B: %d %s", r.status, r.body)
	}
}

// hostJar answers for any host with the cookies of one.
type hostJar struct {
	http.CookieJar
	host string
}

func (j hostJar) Cookies(u *url.URL) []*http.Cookie {
	v := *u
	v.Host = j.host
	return j.CookieJar.Cookies(&v)
}

// Each refusal is a clear page (or, for Deny, the way back with
// error=access_denied), and creates no connector.
func TestConnectRefusals(t *testing.T) {
	cs := startConnect(t, sqliteStore(t), "", "", nil, nil)
	ctx := context.Background()
	noConnector := func(t *testing.T) {
		t.Helper()
		if rows := cs.connectors(t); len(rows) != 0 {
			t.Errorf("connectors were created: %v", rows)
		}
	}

	t.Run("deny", func(t *testing.T) {
		connectURL, _ := cs.session(t, nil)
		ua := newUserAgent(t)
		callback := ua.consent(t, ua.start(t, connectURL, "hubspot", nil), "deny")
		p := ua.do(t, "GET", callback, nil)
		if p.status != http.StatusSeeOther || p.location != cs.returnTo+"?error=access_denied" {
			t.Fatalf("deny: %d %q %s", p.status, p.location, p.body)
		}
		cs.waitEvent(t, webhook.ConnectFailed)
		errorPage(t, "the link after Deny", ua.do(t, "GET", connectURL, nil), http.StatusGone, "session_used", "already used")
		noConnector(t)
	})

	t.Run("forged state", func(t *testing.T) {
		ua := newUserAgent(t)
		errorPage(t, "a forged state", ua.do(t, "GET", cs.url+server.CallbackPath+"?code=abc&state=forged-state", nil),
			http.StatusBadRequest, "invalid_state", "Nothing was connected")
		errorPage(t, "no state", ua.do(t, "GET", cs.url+server.CallbackPath+"?code=abc", nil), http.StatusBadRequest, "invalid_state")
		noConnector(t)
	})

	t.Run("another browser", func(t *testing.T) {
		first, _ := cs.session(t, nil)
		second, _ := cs.session(t, nil)
		victim, attacker := newUserAgent(t), newUserAgent(t)
		// The attacker starts a session of its own and sends its callback
		// (its code and state) to the victim's browser.
		attackerCallback := attacker.consent(t, attacker.start(t, first, "hubspot", nil), "approve")
		victim.start(t, second, "hubspot", nil)
		errorPage(t, "another browser's state", victim.do(t, "GET", attackerCallback, nil), http.StatusForbidden, "browser_mismatch", "another browser")
		// The session is spent: its own browser cannot finish it now.
		errorPage(t, "the session after the mismatch", attacker.do(t, "GET", attackerCallback, nil), http.StatusGone, "session_used")
		noConnector(t)
	})

	t.Run("expired session", func(t *testing.T) {
		early, _ := cs.session(t, nil)
		ua := newUserAgent(t)
		callback := ua.consent(t, ua.start(t, early, "hubspot", nil), "approve")
		server.AdvanceClock(cs.srv, 31*time.Minute)
		errorPage(t, "the callback of an expired session", ua.do(t, "GET", callback, nil), http.StatusGone, "session_expired", "expired")
		late, _ := cs.session(t, nil)
		server.AdvanceClock(cs.srv, 31*time.Minute)
		errorPage(t, "the page of an expired session", ua.do(t, "GET", late, nil), http.StatusGone, "session_expired", "expired")
		noConnector(t)
	})

	t.Run("bad form", func(t *testing.T) {
		connectURL, _ := cs.session(t, nil)
		ua := newUserAgent(t)
		errorPage(t, "a forged form", ua.do(t, "POST", connectURL, url.Values{"csrf": {"0123"}, "kind": {"hubspot"}}), http.StatusForbidden, "bad_form")
		p := ua.pick(t, connectURL, "zendesk-support", map[string]string{"subdomain": "not a label!"})
		if p.status != http.StatusBadRequest || !strings.Contains(p.body, `role="alert"`) || !strings.Contains(p.body, "DNS label") || !strings.Contains(p.body, `aria-invalid="true"`) {
			t.Errorf("a bad subdomain: %d %s", p.status, p.body)
		}
		errorPage(t, "an unknown link", ua.do(t, "GET", cs.url+"/connect/cst_nothing", nil), http.StatusNotFound, "unknown_session")
		noConnector(t)
	})

	t.Run("redirect_uri mismatch", func(t *testing.T) {
		connectURL, _ := cs.session(t, nil)
		ua := newUserAgent(t)
		consentURL, _ := url.Parse(ua.start(t, connectURL, "zendesk-support", acme))
		q := consentURL.Query()
		q.Set("redirect_uri", cs.url+server.CallbackPath+"?via=elsewhere")
		consentURL.RawQuery = q.Encode()
		callback := ua.consent(t, consentURL.String(), "approve")
		errorPage(t, "a code issued for another redirect_uri", ua.do(t, "GET", callback, nil), http.StatusBadGateway, "exchange_refused", "redirect_uri")
		noConnector(t)
	})

	var used, usedCallback string
	t.Run("used session and replayed state", func(t *testing.T) {
		used, _ = cs.session(t, nil)
		ua := newUserAgent(t)
		usedCallback = ua.consent(t, ua.start(t, used, "hubspot", nil), "approve")
		cs.connected(t, ua.do(t, "GET", usedCallback, nil))
		errorPage(t, "the used link", ua.do(t, "GET", used, nil), http.StatusGone, "session_used")
		errorPage(t, "the callback again", ua.do(t, "GET", usedCallback, nil), http.StatusGone, "session_used")
		if rows := cs.connectors(t); len(rows) != 1 {
			t.Errorf("connectors: %v", rows)
		}
	})

	t.Run("replayed code", func(t *testing.T) {
		before := len(cs.connectors(t))
		connectURL, _ := cs.session(t, nil)
		ua := newUserAgent(t)
		fresh, _ := url.Parse(ua.consent(t, ua.start(t, connectURL, "hubspot", nil), "approve"))
		old, _ := url.Parse(usedCallback)
		q := fresh.Query()
		q.Set("code", old.Query().Get("code")) // the code the first session spent
		fresh.RawQuery = q.Encode()
		errorPage(t, "a replayed code", ua.do(t, "GET", fresh.String(), nil), http.StatusBadGateway, "exchange_refused", "invalid_grant")
		if after := len(cs.connectors(t)); after != before {
			t.Errorf("a connector was created with a replayed code: %d → %d", before, after)
		}
	})

	if _, err := cs.st.ConnectSessionByToken(ctx, "x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a lookup of an unknown token: %v", err)
	}
	leaks(t, "the log", cs.logs.String(), hubspottest.DefaultClientSecret, zendesktest.DefaultClientSecret)
}

// A connector whose refresh token the vendor revoked needs reconnecting;
// a session with its connector_id runs the flow again and the same
// connector works again.
func TestConnectReconnect(t *testing.T) {
	cs := startConnect(t, sqliteStore(t), "", "", nil, nil)
	connectURL, _ := cs.session(t, nil)
	ua := newUserAgent(t)
	id := cs.connected(t, ua.do(t, "GET", ua.consent(t, ua.start(t, connectURL, "zendesk-support", acme), "approve"), nil))

	// The account's tokens are rotated elsewhere: the connector's access
	// and refresh tokens stop working.
	res, err := http.PostForm(cs.zd.URL+"/oauth/tokens", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {cs.zd.RefreshToken()},
		"client_id": {zendesktest.DefaultClientID}, "client_secret": {zendesktest.DefaultClientSecret}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("rotating at the fake: %d", res.StatusCode)
	}
	tok := cs.token(t, clientA, "")
	list := map[string]any{"entity": "tickets", "action": "list", "params": map[string]any{"per_page": 2}}
	if a := cs.execute(t, tok, id, list); a.status == 200 {
		t.Fatalf("the connector works with revoked tokens: %s", a.body)
	}
	cs.waitEvent(t, webhook.ConnectorNeedsReconnect)

	reconnectURL, _ := cs.session(t, map[string]any{"connector_id": id})
	p := ua.do(t, "GET", reconnectURL, nil)
	if !strings.Contains(p.body, "reconnects") || strings.Contains(p.body, "HubSpot") {
		t.Errorf("the reconnect page: %s", p.body)
	}
	again := cs.connected(t, ua.do(t, "GET", ua.consent(t, ua.start(t, reconnectURL, "zendesk-support", acme), "approve"), nil))
	if again != id {
		t.Fatalf("the reconnect returned %s, want the same connector %s", again, id)
	}
	if a := cs.execute(t, tok, id, list); a.status != 200 {
		t.Fatalf("the reconnected connector: %d %s", a.status, a.body)
	}
	if rows := cs.connectors(t); len(rows) != 1 {
		t.Errorf("connectors: %v", rows)
	}
}

// The session API names the offending field of a bad request, keeps a
// user's token to its own user, and hosted.Client creates sessions.
func TestConnectSessionAPI(t *testing.T) {
	cs := startConnect(t, sqliteStore(t), "", "", nil, nil)
	tok := cs.token(t, clientA, "")
	other := cs.create(t, cs.token(t, clientB, ""), "user-1")
	for _, c := range []struct {
		name   string
		token  string
		body   map[string]any
		status int
		param  string
	}{
		{"no user", tok, map[string]any{"return_url": cs.returnTo}, 400, "external_user_id"},
		{"no return URL", tok, map[string]any{"external_user_id": "u"}, 400, "return_url"},
		{"relative return URL", tok, map[string]any{"external_user_id": "u", "return_url": "/back"}, 400, "return_url"},
		{"javascript return URL", tok, map[string]any{"external_user_id": "u", "return_url": "javascript:alert(1)"}, 400, "return_url"},
		{"unconfigured kind", tok, map[string]any{"external_user_id": "u", "return_url": cs.returnTo, "allowed_kinds": []string{"github"}}, 400, "allowed_kinds"},
		{"another tenant's connector", tok, map[string]any{"external_user_id": "user-1", "return_url": cs.returnTo, "connector_id": other}, 400, "connector_id"},
		{"another user", cs.token(t, clientA, "user-2"), map[string]any{"external_user_id": "user-1", "return_url": cs.returnTo}, 403, "external_user_id"},
	} {
		a := cs.do(t, "POST", "/api/v1/connect/sessions", c.token, c.body)
		e, _ := a.json["error"].(map[string]any)
		if a.status != c.status || e["param"] != c.param {
			t.Errorf("%s: %d %s, want %d naming %s", c.name, a.status, a.body, c.status, c.param)
		}
	}
	hc, err := hosted.New(hosted.Config{BaseURL: cs.url, ClientID: clientA.ID, ClientSecret: clientA.Secret, ExternalUserID: "user-9"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := hc.CreateConnectSession(context.Background(), hosted.ConnectSessionRequest{ReturnURL: cs.returnTo, AllowedKinds: []string{"hubspot"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got.ConnectURL, cs.url+"/connect/cst_") || time.Until(got.ExpiresAt) < 29*time.Minute || time.Until(got.ExpiresAt) > 31*time.Minute {
		t.Errorf("the session: %+v (expires %s)", got, got.ExpiresAt)
	}
	if strings.Contains(fmt.Sprint(got, *got), got.Token) {
		t.Error("a printed session shows its token")
	}
	_, err = hc.CreateConnectSession(context.Background(), hosted.ConnectSessionRequest{ReturnURL: "ftp://x"})
	var te *tributary.Error
	if !errors.As(err, &te) || te.Param != "return_url" || !errors.Is(err, tributary.ErrInvalidParams) {
		t.Errorf("a bad return URL through hosted: %v", err)
	}
}

// A connect session for an Intercom workspace in the EU: the connect page
// offers the regions, the user's pick sends the browser to the region's
// consent page, and the code is exchanged at the region's API host.
func TestConnectIntercomRegion(t *testing.T) {
	fake := intercomtest.New()
	defer fake.Close()
	to, _ := url.Parse(fake.URL)
	rr := fake.Reroute()
	hc := &http.Client{Transport: rr}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	own := "http://" + ln.Addr().String()
	srv, err := server.New(server.Config{Store: sqliteStore(t), Keys: newKeys(t, "k1"), Clients: []server.Client{clientA}, SyncEvery: -1,
		ConnectorOptions: map[string][]tributary.Option{intercom.Type: {tributary.WithHTTPClient(hc)}}, PublicURL: own,
		OAuthApps: map[string]server.OAuthApp{intercom.Type: {ClientID: intercomtest.DefaultClientID, ClientSecret: intercomtest.DefaultClientSecret, HTTPClient: hc}}})
	if err != nil {
		t.Fatal(err)
	}
	serveUntilCleanup(t, srv, ln)
	svc := &service{srv: srv, url: own}
	a := svc.do(t, "POST", "/v1/connect/sessions", svc.token(t, clientA, ""), map[string]any{"external_user_id": "user-1", "return_url": own + "/back"})
	connectURL, _ := a.json["connect_url"].(string)
	if a.status != http.StatusCreated {
		t.Fatalf("connect session: %d %s", a.status, a.body)
	}
	ua := newUserAgent(t)
	p := ua.do(t, "GET", connectURL, nil)
	if want := `<select id="k0-region" name="intercom.region" aria-describedby="k0-region-hint"><option selected>us</option><option>eu</option><option>au</option></select>`; !strings.Contains(p.body, want) {
		t.Errorf("the connect page lacks %s:\n%s", want, p.body)
	}
	consentURL := ua.start(t, connectURL, "intercom", map[string]string{"region": "eu"})
	if !strings.HasPrefix(consentURL, "https://app.eu.intercom.com/oauth?") {
		t.Fatalf("the consent URL: %s", consentURL)
	}
	cu, _ := url.Parse(consentURL)
	cu.Scheme, cu.Host = to.Scheme, to.Host // the user consents on the fake's copy of the page
	ua.do(t, "GET", ua.consent(t, cu.String(), "approve"), nil)
	// The exchange went to the region's host. (The connector is not
	// created: Intercom's needs a replication_config, which a connect
	// session cannot give.)
	if got := rr.Sent(); len(got) == 0 || got[0] != "https://api.eu.intercom.io/auth/eagle/token" {
		t.Errorf("the service sent %q, want the code exchanged at https://api.eu.intercom.io/auth/eagle/token", got)
	}
}
