package server

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/tributary-dev/tributary/store"
)

// The operator's console: server-rendered pages at /console for the
// holder of Config.Admin, with a signed session cookie and a CSRF token on
// every form. See docs/console.md.

//go:embed console
var consoleFS embed.FS

// MinAdminPassword is the shortest Config.Admin accepted.
const MinAdminPassword = 12

// consoleSessionTTL is how long a console session lasts.
const consoleSessionTTL = 12 * time.Hour

// consoleLoginDelay is what a failed login waits, holding the login
// turn, so that guesses are slow and serialized.
var consoleLoginDelay = 400 * time.Millisecond

// consolePurpose separates the console's signing key from the keys'
// other uses.
const consolePurpose = "tributary/server/console/v1"

const (
	sessionCookie = "tributary_console"
	loginCookie   = "tributary_console_login"
)

// console holds the console's state.
type console struct {
	s     *Server
	admin [32]byte // sha256 of the admin password
	pages map[string]*template.Template

	loginMu sync.Mutex // one login attempt at a time

	revokedMu sync.Mutex
	revoked   map[string]time.Time // logged-out session ids, until they expire
}

// mountConsole mounts the console on m; without Config.Admin every
// console path answers 404 (New has checked Config.Admin).
func (s *Server) mountConsole(m *http.ServeMux) {
	if s.cfg.Admin == "" {
		return
	}
	c := &console{s: s, admin: sha256.Sum256([]byte(s.cfg.Admin)), revoked: map[string]time.Time{}, pages: consolePages}
	static, _ := fs.Sub(consoleFS, "console/static")
	files := http.StripPrefix("/console/static/", http.FileServerFS(static))
	m.Handle("GET /console/static/", s.observe("console", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=300")
		files.ServeHTTP(w, r)
	}))
	page := func(pattern string, h func(w http.ResponseWriter, r *http.Request)) {
		m.HandleFunc(pattern, s.observe("console", c.guard(h)))
	}
	m.HandleFunc("GET /console/login", s.observe("console", c.loginPage))
	m.HandleFunc("POST /console/login", s.observe("console", c.login))
	page("POST /console/logout", c.logout)
	page("GET /console", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/console/connectors", http.StatusSeeOther)
	})
	page("GET /console/connectors", c.connectors)
	page("GET /console/connectors/{id}", c.connectorPage)
	page("POST /console/connectors/{id}/sync", c.syncCopy)
	page("GET /console/search", c.searchPage)
	page("GET /console/webhooks", c.webhooksPage)
	page("POST /console/webhooks/replay", c.replay)
	page("GET /console/keys", c.keysPage)
	page("/console/", func(w http.ResponseWriter, r *http.Request) {
		c.problem(w, r, http.StatusNotFound, "No such page.")
	})
}

// funcs are the templates' helpers.
var consoleFuncs = template.FuncMap{
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return t.UTC().Format("2006-01-02 15:04:05Z")
	},
	"ago": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return ago(time.Since(t))
	},
	"statusLabel": func(s string) string { return strings.ReplaceAll(s, "_", " ") },
	"inc":         func(i int) int { return i + 1 },
	"pair": func(endpoint string, list []store.DeliveryInfo, csrf string) deliveryList {
		return deliveryList{Endpoint: endpoint, List: list, CSRF: csrf}
	},
}

// deliveryList is what the deliveries template gets.
type deliveryList struct {
	Endpoint string
	List     []store.DeliveryInfo
	CSRF     string
}

// ago says how long d is, roughly.
func ago(d time.Duration) string {
	switch {
	case d < 0:
		return "in " + ago(-d)
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// consolePages are the pages, each parsed with the layout.
var consolePages = parsePages()

// parsePages parses every page with the layout; the templates are part of
// the binary, so a failure is a bug the tests catch.
func parsePages() map[string]*template.Template {
	pages := map[string]*template.Template{}
	names, _ := fs.Glob(consoleFS, "console/*.html")
	for _, n := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(n, "console/"), ".html")
		if base == "layout" {
			continue
		}
		pages[base] = template.Must(template.New("layout.html").Funcs(consoleFuncs).ParseFS(consoleFS, "console/layout.html", n))
	}
	return pages
}

// view is what every page's template gets.
type view struct {
	Title  string
	Nav    string // the current section
	CSRF   string // "" on the login page's layout (no session)
	Notice string
	Error  string
	Data   any
}

// render writes page with status.
func (c *console) render(w http.ResponseWriter, r *http.Request, status int, page string, v view) {
	if sess, ok := sessionOf(r.Context()); ok && v.CSRF == "" {
		v.CSRF = c.csrfFor(sess.ID)
	}
	var buf bytes.Buffer
	if err := c.pages[page].Execute(&buf, v); err != nil {
		c.s.log.Error("console: rendering", "page", page, "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// problem answers an error page.
func (c *console) problem(w http.ResponseWriter, r *http.Request, status int, msg string) {
	info(r).errType = strings.ToLower(strings.ReplaceAll(http.StatusText(status), " ", "_"))
	c.render(w, r, status, "problem", view{Title: http.StatusText(status), Error: msg})
}

// session is a signed console session.
type session struct {
	ID      string `json:"i"`
	Expires int64  `json:"e"`
	Key     string `json:"k"`
}

type sessionKey struct{}

func sessionOf(ctx context.Context) (session, bool) {
	s, ok := ctx.Value(sessionKey{}).(session)
	return s, ok
}

// key is the console's MAC key of key id kid ("": the primary's), bound
// to the admin password, so that a new password ends every session.
func (c *console) key(kid string) (string, []byte, bool) {
	var k []byte
	if kid == "" {
		kid, k = c.s.keys.SigningKey(consolePurpose)
	} else {
		var ok bool
		if k, ok = c.s.keys.SigningKeyByID(kid, consolePurpose); !ok {
			return "", nil, false
		}
	}
	m := hmac.New(sha256.New, k)
	m.Write(c.admin[:])
	return kid, m.Sum(nil), true
}

func macOf(key []byte, parts ...string) []byte {
	m := hmac.New(sha256.New, key)
	for _, p := range parts {
		m.Write([]byte(p))
		m.Write([]byte{0})
	}
	return m.Sum(nil)
}

// newSession signs a new session.
func (c *console) newSession() (session, string, error) {
	kid, key, _ := c.key("")
	sess := session{ID: randomID(16), Expires: time.Now().Add(consoleSessionTTL).Unix(), Key: kid}
	body, err := json.Marshal(sess)
	if err != nil {
		return session{}, "", err
	}
	payload := base64.RawURLEncoding.EncodeToString(body)
	return sess, payload + "." + base64.RawURLEncoding.EncodeToString(macOf(key, "session", payload)), nil
}

// sessionFrom verifies the request's session cookie.
func (c *console) sessionFrom(r *http.Request) (session, bool) {
	ck, err := r.Cookie(sessionCookie)
	if err != nil || len(ck.Value) > 1024 {
		return session{}, false
	}
	payload, sig, ok := strings.Cut(ck.Value, ".")
	if !ok {
		return session{}, false
	}
	body, err1 := base64.RawURLEncoding.DecodeString(payload)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	var sess session
	if err1 != nil || err2 != nil || json.Unmarshal(body, &sess) != nil || sess.ID == "" {
		return session{}, false
	}
	_, key, ok := c.key(sess.Key)
	if !ok || !hmac.Equal(got, macOf(key, "session", payload)) || time.Now().Unix() >= sess.Expires {
		return session{}, false
	}
	c.revokedMu.Lock()
	_, out := c.revoked[sess.ID]
	c.revokedMu.Unlock()
	return sess, !out
}

// csrfFor is the CSRF token of a session's forms.
func (c *console) csrfFor(sid string) string {
	_, key, _ := c.key("")
	return base64.RawURLEncoding.EncodeToString(macOf(key, "csrf", sid))
}

// csrfOK checks a form's CSRF token against the session (every key of the
// ring is tried, so a rotation does not break an open page).
func (c *console) csrfOK(r *http.Request, sid string) bool {
	got, err := base64.RawURLEncoding.DecodeString(r.PostFormValue("csrf"))
	if err != nil || len(got) == 0 {
		return false
	}
	for _, kid := range c.s.keys.IDs() {
		if _, key, ok := c.key(kid); ok && hmac.Equal(got, macOf(key, "csrf", sid)) {
			return true
		}
	}
	return false
}

// setCookie sets a console cookie: HttpOnly, SameSite=Strict, on
// /console only, and Secure over TLS or when the service's public URL
// (Config.PublicURL) is https (TLS ended by a proxy in front).
func (c *console) setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	secure := r.TLS != nil || strings.HasPrefix(strings.ToLower(c.s.cfg.PublicURL), "https://")
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/console", MaxAge: maxAge,
		HttpOnly: true, Secure: secure, SameSite: http.SameSiteStrictMode})
}

// guard runs next for a request with a valid session; a request with an
// API token is refused, one without a session is sent to the login page,
// and a POST without the session's CSRF token is refused (403) before
// anything is done.
func (c *console) guard(next func(w http.ResponseWriter, r *http.Request)) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			c.problem(w, r, http.StatusForbidden, "The console takes an operator's session, not an API token: sign in at /console/login.")
			return
		}
		sess, ok := c.sessionFrom(r)
		if !ok {
			if r.Method != http.MethodGet {
				c.problem(w, r, http.StatusUnauthorized, "Your session has ended: sign in again.")
				return
			}
			http.Redirect(w, r, "/console/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		info(r).client = "console"
		ctx := context.WithValue(r.Context(), sessionKey{}, sess)
		r = r.WithContext(ctx)
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, c.s.cfg.MaxBody)
			if !c.csrfOK(r, sess.ID) {
				c.problem(w, r, http.StatusForbidden, "The form's security token is missing or wrong: reload the page and try again.")
				return
			}
		}
		next(w, r)
	}
}

// safeNext is where a login goes on: a console path, or the connectors.
func safeNext(next string) string {
	if strings.HasPrefix(next, "/console/") && !strings.HasPrefix(next, "/console//") && !strings.ContainsAny(next, "\\\r\n") &&
		!strings.HasPrefix(next, "/console/login") {
		return next
	}
	return "/console/connectors"
}

type loginData struct {
	Next, LoginCSRF string
}

// loginPage is the sign-in form; its CSRF token is tied to a cookie of
// its own (there is no session yet).
func (c *console) loginPage(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "" {
		c.problem(w, r, http.StatusForbidden, "The console takes an operator's session, not an API token.")
		return
	}
	c.showLogin(w, r, http.StatusOK, "")
}

func (c *console) showLogin(w http.ResponseWriter, r *http.Request, status int, msg string) {
	nonce := randomID(16)
	c.setCookie(w, r, loginCookie, nonce, 3600)
	_, key, _ := c.key("")
	c.render(w, r, status, "login", view{Title: "Sign in", Error: msg,
		Data: loginData{Next: safeNext(r.FormValue("next")), LoginCSRF: base64.RawURLEncoding.EncodeToString(macOf(key, "login", nonce))}})
}

// login checks the password (in constant time, one attempt at a time, a
// failure waiting consoleLoginDelay) and starts a session.
func (c *console) login(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "" {
		c.problem(w, r, http.StatusForbidden, "The console takes an operator's session, not an API token.")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	ck, err := r.Cookie(loginCookie)
	got, derr := base64.RawURLEncoding.DecodeString(r.PostFormValue("csrf"))
	_, key, _ := c.key("")
	if err != nil || derr != nil || !hmac.Equal(got, macOf(key, "login", ck.Value)) {
		c.problem(w, r, http.StatusForbidden, "The form's security token is missing or wrong: reload the sign-in page.")
		return
	}
	c.loginMu.Lock()
	sum := sha256.Sum256([]byte(r.PostFormValue("password")))
	ok := subtle.ConstantTimeCompare(sum[:], c.admin[:]) == 1
	if !ok {
		t := time.NewTimer(consoleLoginDelay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
		}
	}
	c.loginMu.Unlock()
	if !ok {
		c.s.log.Warn("console: a sign-in failed", "request_id", info(r).id, "remote", r.RemoteAddr)
		info(r).errType = "unauthorized"
		c.showLogin(w, r, http.StatusUnauthorized, "Wrong password.")
		return
	}
	_, value, err := c.newSession()
	if err != nil {
		c.problem(w, r, http.StatusInternalServerError, "The session could not be made.")
		return
	}
	c.setCookie(w, r, loginCookie, "", -1)
	c.setCookie(w, r, sessionCookie, value, int(consoleSessionTTL/time.Second))
	c.s.log.Info("console: signed in", "request_id", info(r).id, "remote", r.RemoteAddr)
	http.Redirect(w, r, safeNext(r.PostFormValue("next")), http.StatusSeeOther)
}

// logout ends the session: its cookie is cleared and its id refused by
// this process until it would have expired.
func (c *console) logout(w http.ResponseWriter, r *http.Request) {
	sess, _ := sessionOf(r.Context())
	now := time.Now()
	c.revokedMu.Lock()
	for id, exp := range c.revoked {
		if now.After(exp) {
			delete(c.revoked, id)
		}
	}
	c.revoked[sess.ID] = time.Unix(sess.Expires, 0)
	c.revokedMu.Unlock()
	c.setCookie(w, r, sessionCookie, "", -1)
	http.Redirect(w, r, "/console/login", http.StatusSeeOther)
}
