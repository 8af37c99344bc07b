package server

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tributary-dev/tributary/connect"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/store"
	"github.com/tributary-dev/tributary/webhook"
)

// OAuthApp is the service's OAuth application at one vendor: connect
// sessions run the vendor's authorization-code flow with it (see package
// connect). Its redirect URL, registered at the vendor, is
// Config.PublicURL + "/v1/connect/callback".
type OAuthApp struct {
	// ClientID and ClientSecret identify the app at the vendor. Required.
	ClientID, ClientSecret string
	// Scopes replace the kind's read-only scopes when not nil.
	Scopes []string
	// Inputs are default values of the kind's inputs (Salesforce's
	// login_url, a Zendesk subdomain): the connect page shows them
	// filled in, and the end user may change them.
	Inputs map[string]string
	// BaseURL, when set, replaces the scheme and host of the vendor's
	// consent, token and metadata endpoints (a fake; see
	// connect.Config.BaseURL).
	BaseURL string
	// HTTPClient sends the token and metadata requests (nil: a client
	// with a 30-second timeout).
	HTTPClient *http.Client
}

// Format prints the app with its client secret redacted.
func (a OAuthApp) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "server.OAuthApp{ClientID: %q, ClientSecret: [REDACTED], Scopes: %q, Inputs: %v, BaseURL: %q}", a.ClientID, a.Scopes, a.Inputs, a.BaseURL)
}

// DefaultConnectSessionTTL is how long a connect session may be used when
// Config.ConnectSessionTTL is zero.
const DefaultConnectSessionTTL = 30 * time.Minute

// CallbackPath is the path of the connect sessions' OAuth redirect URL,
// under Config.PublicURL.
const CallbackPath = "/v1/connect/callback"

// The purposes of the keys derived for connect sessions.
const (
	csrfPurpose   = "tributary/server/connect-csrf/v1"
	sealedPurpose = "tributary/connect-session/"
)

// connectState is the connect sessions' part of a Server.
type connectState struct {
	apps    map[string]OAuthApp // by kind
	appName string              // Config.AppName
	public  *url.URL            // Config.PublicURL
	ttl     time.Duration
	// skew moves the sessions' clock, which is the service's (Server.now):
	// tests expire sessions and age events with it.
	skew atomic.Int64
}

func (c *connectState) now() time.Time {
	return time.Now().Add(time.Duration(c.skew.Load()))
}

// initConnect checks the OAuth apps and the public URL of cfg.
func (s *Server) initConnect(cfg Config) error {
	c := &connectState{apps: map[string]OAuthApp{}, ttl: cfg.ConnectSessionTTL, appName: strings.TrimSpace(cfg.AppName)}
	if c.ttl <= 0 {
		c.ttl = DefaultConnectSessionTTL
	}
	if !printable(c.appName) {
		return fmt.Errorf("Config.AppName %q: at most %d printable characters", cfg.AppName, maxName)
	}
	s.connect = c
	if len(cfg.OAuthApps) == 0 {
		return nil
	}
	u, err := url.Parse(cfg.PublicURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return &ConfigError{Field: "PublicURL", Reason: fmt.Sprintf("%q: OAuth apps need the service's public base URL, http(s)://host[/path], for the redirect URL", cfg.PublicURL)}
	}
	u.Path = strings.TrimRight(u.Path, "/")
	c.public = u
	for _, kind := range slices.Sorted(maps.Keys(cfg.OAuthApps)) {
		app := cfg.OAuthApps[kind]
		if _, err := kinds.OAuthApp(kind); err != nil {
			return &ConfigError{Field: "OAuthApps", Reason: "an unknown kind", Err: err}
		}
		if app.ClientID == "" || app.ClientSecret == "" {
			return &ConfigError{Field: "OAuthApps", Reason: fmt.Sprintf("%s: a client id and a client secret are required", kind)}
		}
		c.apps[kind] = app
	}
	return nil
}

// connectRoutes mounts the connect sessions' endpoints.
func (s *Server) connectRoutes(m *http.ServeMux) {
	for _, p := range []string{"/v1/connect/sessions", "/api/v1/connect/sessions"} {
		m.HandleFunc("POST "+p, s.observe("connect_session", s.authenticated(s.createSession)))
	}
	m.HandleFunc("GET /connect/{token}", s.observe("connect_page", s.connectPage))
	m.HandleFunc("POST /connect/{token}", s.observe("connect_start", s.connectStart))
	m.HandleFunc("GET "+CallbackPath, s.observe("connect_callback", s.connectCallback))
}

// hashOf is the stored form of a session's secret (its token, its OAuth
// state, its browser binding): they are random, so a plain SHA-256 does.
func hashOf(purpose, secret string) string {
	h := sha256.Sum256([]byte(purpose + "\x00" + secret))
	return hex.EncodeToString(h[:])
}

// sessionRequest is the body of POST /v1/connect/sessions.
type sessionRequest struct {
	ExternalUserID string   `json:"external_user_id"`
	AllowedKinds   []string `json:"allowed_kinds"`
	ReturnURL      string   `json:"return_url"`
	ConnectorID    string   `json:"connector_id"`
}

// createSession is POST /v1/connect/sessions: a single-use link to the
// connect page for one external user of the token's tenant.
func (s *Server) createSession(w http.ResponseWriter, r *http.Request) {
	var body sessionRequest
	if !s.decode(w, r, &body) {
		return
	}
	sc, _ := scopeOf(r.Context())
	c := s.connect
	bad := func(param, msg string) { s.fail(w, r, http.StatusBadRequest, "invalid_params", msg, param) }
	switch {
	case body.ExternalUserID == "":
		bad("external_user_id", "external_user_id is required")
		return
	case !printable(body.ExternalUserID):
		bad("external_user_id", fmt.Sprintf("external_user_id must be at most %d printable characters", maxName))
		return
	case sc.user != "" && sc.user != body.ExternalUserID:
		s.fail(w, r, http.StatusForbidden, "forbidden", "this token may only make connect sessions for its own external user", "external_user_id")
		return
	}
	if msg := checkReturnURL(body.ReturnURL); msg != "" {
		bad("return_url", msg)
		return
	}
	if len(c.apps) == 0 {
		bad("allowed_kinds", "this service has no OAuth app configured (tributary serve --oauth-apps-file): no kind can be connected")
		return
	}
	configured := slices.Sorted(maps.Keys(c.apps))
	var allowed []string
	for _, k := range body.AllowedKinds {
		if _, ok := c.apps[k]; !ok {
			bad("allowed_kinds", fmt.Sprintf("allowed_kinds: %q has no OAuth app on this service (configured: %s)", k, strings.Join(configured, ", ")))
			return
		}
		if !slices.Contains(allowed, k) {
			allowed = append(allowed, k)
		}
	}
	if len(allowed) == 0 {
		allowed = configured
	}
	if body.ConnectorID != "" {
		var row *store.Connector
		var err error
		if idRE.MatchString(body.ConnectorID) {
			row, err = s.st.Connector(r.Context(), body.ConnectorID)
		} else {
			err = store.ErrNotFound
		}
		if errors.Is(err, store.ErrNotFound) || err == nil && (row.Tenant != sc.client || row.ExternalUserID != body.ExternalUserID) {
			bad("connector_id", fmt.Sprintf("connector_id: no connector %q of external user %q", body.ConnectorID, body.ExternalUserID))
			return
		}
		if err != nil {
			s.storeFailed(w, r, "connect session", err)
			return
		}
		if _, ok := c.apps[row.Kind]; !ok {
			bad("connector_id", fmt.Sprintf("connector_id: the connector is of kind %q, which has no OAuth app on this service", row.Kind))
			return
		}
		if len(body.AllowedKinds) > 0 && !slices.Contains(allowed, row.Kind) {
			bad("allowed_kinds", fmt.Sprintf("allowed_kinds must include %q, the kind of the connector to reconnect", row.Kind))
			return
		}
		allowed = []string{row.Kind}
		info(r).connector, info(r).kind = row.ID, row.Kind
	}
	token := "cst_" + rand.Text() + rand.Text()
	now := c.now()
	cs := store.ConnectSession{ID: "cs_" + randomID(12), TokenHash: hashOf("token", token), Tenant: sc.client,
		ExternalUserID: body.ExternalUserID, AllowedKinds: allowed, ReturnURL: body.ReturnURL, ConnectorID: body.ConnectorID,
		Created: now, Expires: now.Add(c.ttl).Truncate(time.Second)}
	if err := s.st.CreateConnectSession(r.Context(), cs); err != nil {
		s.storeFailed(w, r, "connect session", err)
		return
	}
	s.log.Info("connect session created", "request_id", info(r).id, "session", cs.ID, "client", sc.client, "kinds", allowed, "reconnect", body.ConnectorID)
	s.writeJSON(w, http.StatusCreated, map[string]any{"id": cs.ID, "token": token,
		"connect_url": c.public.String() + "/connect/" + token, "expires_at": cs.Expires.UTC().Format(time.RFC3339)})
}

// checkReturnURL says what is wrong with a return_url ("" when nothing).
func checkReturnURL(raw string) string {
	if raw == "" {
		return "return_url is required: the URL the end user is sent back to"
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(raw) > 2048 {
		return "return_url must be an absolute http:// or https:// URL (at most 2048 characters)"
	}
	if u.User != nil || u.Fragment != "" {
		return "return_url must have no user info and no fragment"
	}
	return ""
}

// withQuery returns raw with params added to its query.
func withQuery(raw string, params url.Values) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	q := u.Query()
	for k, v := range params {
		q[k] = v
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// csrfToken is the connect page's form token for session id: an HMAC of
// the id, so that only a page the service rendered can start the flow.
func (s *Server) csrfToken(id string) string {
	_, key := s.keys.SigningKey(csrfPurpose)
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	return hex.EncodeToString(m.Sum(nil))
}

// sessionByToken finds the session of the page's path, or answers with an
// error page: unknown, expired (then failed) or used.
func (s *Server) sessionByToken(w http.ResponseWriter, r *http.Request) (*store.ConnectSession, bool) {
	token := r.PathValue("token")
	cs, err := s.st.ConnectSessionByToken(r.Context(), hashOf("token", token))
	if errors.Is(err, store.ErrNotFound) {
		s.errorPage(w, r, http.StatusNotFound, "unknown_session", "This link is not valid",
			"This connect link does not exist. Ask "+s.appLabel()+" for a new one.", "")
		return nil, false
	}
	if err != nil {
		s.log.Error("connect page failed", "request_id", info(r).id, "err", err)
		s.errorPage(w, r, http.StatusServiceUnavailable, "server_error", "Something went wrong", "The service cannot read this link now. Try again in a moment.", "")
		return nil, false
	}
	info(r).client = cs.Tenant
	if !s.usable(w, r, cs) {
		return nil, false
	}
	return cs, true
}

// usable answers an error page for a session that is used or expired
// (marking an expired one failed) and reports false.
func (s *Server) usable(w http.ResponseWriter, r *http.Request, cs *store.ConnectSession) bool {
	switch cs.Status {
	case store.ConnectPending, store.ConnectStarted:
	default:
		s.usedPage(w, r)
		return false
	}
	if !s.connect.now().Before(cs.Expires) {
		s.failSession(r.Context(), cs, "session_expired", "the connect session expired")
		s.errorPage(w, r, http.StatusGone, "session_expired", "This link has expired",
			"Connect links work for a limited time. Ask "+s.appLabel()+" for a new one.", errorReturn(cs, "session_expired"))
		return false
	}
	return true
}

// errorReturn is the return URL of a failed session, with its error.
func errorReturn(cs *store.ConnectSession, code string) string {
	return withQuery(cs.ReturnURL, url.Values{"error": {code}})
}

// flowSecrets are what a started flow seals for its callback.
type flowSecrets struct {
	Verifier string            `json:"verifier,omitempty"`
	Inputs   map[string]string `json:"inputs,omitempty"`
}

// flow builds kind's flow with the service's app and the user's inputs.
func (s *Server) flow(kind string, inputs map[string]string) (*connect.Flow, error) {
	app, ok := s.connect.apps[kind]
	if !ok || s.connect.public == nil {
		// A session made by another process configured otherwise.
		return nil, fmt.Errorf("this process has no OAuth app for %s", kind)
	}
	return connect.New(kind, connect.Config{ClientID: app.ClientID, ClientSecret: app.ClientSecret,
		RedirectURL: s.connect.public.String() + CallbackPath, Scopes: app.Scopes, Inputs: inputs,
		BaseURL: app.BaseURL, HTTPClient: app.HTTPClient})
}

// cookieName is the cookie that binds session id to the browser that
// started its flow.
func cookieName(id string) string { return "tributary_connect_" + id }

// connectStart is POST /connect/{token}: the user picked a kind (and gave
// its inputs); the flow starts and the browser goes to the vendor.
func (s *Server) connectStart(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		s.errorPage(w, r, http.StatusBadRequest, "bad_form", "The form could not be read", "Go back and try again.", "")
		return
	}
	cs, ok := s.sessionByToken(w, r)
	if !ok {
		return
	}
	if !hmac.Equal([]byte(r.PostForm.Get("csrf")), []byte(s.csrfToken(cs.ID))) {
		s.errorPage(w, r, http.StatusForbidden, "bad_form", "The form is not valid",
			"This form was not sent from the connect page. Open the link you were given again.", "")
		return
	}
	kind := r.PostForm.Get("kind")
	info(r).kind = kind
	if !slices.Contains(cs.AllowedKinds, kind) {
		s.errorPage(w, r, http.StatusBadRequest, "bad_form", "This kind cannot be connected here",
			"Pick one of the services the connect page lists.", "")
		return
	}
	app, err := kinds.OAuthApp(kind)
	if err != nil {
		s.errorPage(w, r, http.StatusBadRequest, "bad_form", "This kind cannot be connected here", "Pick one of the services the connect page lists.", "")
		return
	}
	inputs := map[string]string{}
	for _, in := range app.Inputs {
		v := strings.TrimSpace(r.PostForm.Get(inputField(kind, in.Name)))
		if v == "" {
			v = s.connect.apps[kind].Inputs[in.Name] // the service's default
		}
		if v != "" {
			inputs[in.Name] = v
		}
	}
	flow, err := s.flow(kind, inputs)
	if err != nil {
		var ce *connect.Error
		msg := "This service cannot be connected now."
		if errors.As(err, &ce) {
			msg = ce.Message
		}
		s.renderConnect(w, r, http.StatusBadRequest, cs, &formError{kind: kind, msg: msg, values: inputs})
		return
	}
	auth := flow.AuthCodeURL()
	browser := rand.Text() + rand.Text()
	b, err := json.Marshal(flowSecrets{Verifier: auth.Verifier, Inputs: inputs})
	var sealed []byte
	if err == nil {
		sealed, err = s.keys.Seal(b, []byte(sealedPurpose+cs.ID))
	}
	if err != nil {
		s.errorPage(w, r, http.StatusInternalServerError, "server_error", "Something went wrong", "The service could not start the connection. Try again.", "")
		return
	}
	err = s.st.StartConnectSession(r.Context(), cs.ID, kind, hashOf("state", auth.State), hashOf("browser", browser), sealed)
	if errors.Is(err, store.ErrSessionState) {
		s.usedPage(w, r)
		return
	}
	if err != nil {
		s.log.Error("connect start failed", "request_id", info(r).id, "session", cs.ID, "err", err)
		s.errorPage(w, r, http.StatusServiceUnavailable, "server_error", "Something went wrong", "The service cannot start the connection now. Try again in a moment.", "")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName(cs.ID), Value: browser, Path: CallbackPath,
		MaxAge: max(1, int(time.Until(cs.Expires)/time.Second)), HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: s.connect.public.Scheme == "https"})
	s.log.Info("connect flow started", "request_id", info(r).id, "session", cs.ID, "kind", kind)
	pageHeaders(w)
	http.Redirect(w, r, auth.URL, http.StatusSeeOther)
}

// inputField is the form field of kind's input name.
func inputField(kind, name string) string { return kind + "." + name }

// connectCallback is GET /v1/connect/callback: the vendor sends the user
// back with a code (or an error) and the state of the flow.
func (s *Server) connectCallback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	state := q.Get("state")
	cs, err := s.st.ConnectSessionByState(r.Context(), hashOf("state", state))
	if errors.Is(err, store.ErrNotFound) || state == "" {
		s.errorPage(w, r, http.StatusBadRequest, "invalid_state", "This sign-in cannot be completed",
			"The answer from the service you signed in to does not belong to any connection in progress here (it is forged, or from an older attempt). Nothing was connected. Start again from the application.", "")
		return
	}
	if err != nil {
		s.log.Error("connect callback failed", "request_id", info(r).id, "err", err)
		s.errorPage(w, r, http.StatusServiceUnavailable, "server_error", "Something went wrong", "The service cannot complete the connection now.", "")
		return
	}
	info(r).client, info(r).kind = cs.Tenant, cs.Kind
	if !s.usable(w, r, cs) {
		return
	}
	refuse := func(status int, code, title, msg, logMsg string) {
		s.failSession(r.Context(), cs, code, logMsg)
		s.errorPage(w, r, status, code, title, msg, errorReturn(cs, code))
	}
	cookie, cerr := r.Cookie(cookieName(cs.ID))
	if cerr != nil || !hmac.Equal([]byte(hashOf("browser", cookie.Value)), []byte(cs.BrowserHash)) {
		refuse(http.StatusForbidden, "browser_mismatch", "This sign-in cannot be completed",
			"The connection was started in another browser than this one. For your safety nothing was connected, and this link no longer works. Ask "+s.appLabel()+" for a new one.",
			"the callback came from another browser than the one that started the flow")
		return
	}
	if err := s.st.ClaimConnectSession(r.Context(), cs.ID, cs.StateHash); err != nil {
		if errors.Is(err, store.ErrSessionState) {
			s.usedPage(w, r)
			return
		}
		s.log.Error("connect callback failed", "request_id", info(r).id, "session", cs.ID, "err", err)
		s.errorPage(w, r, http.StatusServiceUnavailable, "server_error", "Something went wrong", "The service cannot complete the connection now.", "")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName(cs.ID), Value: "", Path: CallbackPath, MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: s.connect.public.Scheme == "https"})
	var fs flowSecrets
	b, err := s.keys.Open(cs.Sealed, []byte(sealedPurpose+cs.ID))
	if err == nil {
		err = json.Unmarshal(b, &fs)
	}
	var flow *connect.Flow
	if err == nil {
		flow, err = s.flow(cs.Kind, fs.Inputs)
	}
	if err != nil {
		s.log.Error("connect callback: the flow does not open", "request_id", info(r).id, "session", cs.ID, "err", err)
		refuse(http.StatusInternalServerError, "server_error", "Something went wrong", "The service could not complete the connection. Nothing was connected.", "the flow's sealed data does not open")
		return
	}
	code, err := flow.Callback(q, state)
	if errors.Is(err, connect.ErrAccessDenied) {
		s.failSession(r.Context(), cs, "access_denied", "the user declined at the vendor")
		pageHeaders(w)
		http.Redirect(w, r, errorReturn(cs, "access_denied"), http.StatusSeeOther)
		return
	}
	if err != nil {
		refuse(http.StatusBadGateway, "vendor_refused", "The service refused the connection",
			vendorName(cs.Kind)+" did not grant access: "+vendorSays(err)+" Nothing was connected.", err.Error())
		return
	}
	creds, err := flow.Exchange(r.Context(), code, fs.Verifier)
	if err != nil {
		s.log.Warn("connect exchange refused", "request_id", info(r).id, "session", cs.ID, "err", err)
		refuse(http.StatusBadGateway, "exchange_refused", "The service refused the connection",
			vendorName(cs.Kind)+" refused to complete the sign-in: "+vendorSays(err)+" Nothing was connected. Start again from the application.", err.Error())
		return
	}
	id, err := s.connectConnector(r.Context(), cs, creds)
	if err != nil {
		msg := "The account could not be connected. Nothing was connected."
		var rf *refusal
		if errors.As(err, &rf) && rf.status < 500 {
			msg = "The account could not be connected: " + rf.msg + "."
		}
		s.log.Warn("connect: the connector was not made", "request_id", info(r).id, "session", cs.ID, "err", err)
		refuse(http.StatusBadGateway, "connector_refused", "The account could not be connected", msg, err.Error())
		return
	}
	info(r).connector = id
	s.emitted()
	s.log.Info("connect completed", "request_id", info(r).id, "session", cs.ID, "connector", id, "kind", cs.Kind, "reconnected", cs.ConnectorID != "")
	pageHeaders(w)
	http.Redirect(w, r, withQuery(cs.ReturnURL, url.Values{"connector_id": {id}}), http.StatusSeeOther)
}

// vendorSays is the vendor's reason in a connect error, for the page.
func vendorSays(err error) string {
	var ce *connect.Error
	if errors.As(err, &ce) && (ce.Code != "" || ce.Message != "") {
		msg := strings.TrimSpace(strings.TrimSpace(ce.Code) + " " + strings.TrimSpace(ce.Message))
		if ce.Code != "" && ce.Message != "" {
			msg = ce.Code + " (" + ce.Message + ")"
		}
		return strings.TrimRight(msg, ".") + "."
	}
	return "it gave no reason."
}

// connectConnector creates the session's connector, or updates the one it
// reconnects, with creds; it returns the connector id. The session's end
// and its connect.completed event commit in the same transaction as the
// connector: both exist, or neither.
func (s *Server) connectConnector(ctx context.Context, cs *store.ConnectSession, creds connect.Credentials) (string, error) {
	id := cs.ConnectorID
	if id == "" {
		id = newConnectorID()
	}
	ev, err := s.newEvent(webhook.ConnectCompleted, cs.Tenant, id, map[string]any{"session_id": cs.ID, "connector_id": id,
		"connector_type": cs.Kind, "external_user_id": cs.ExternalUserID, "reconnected": cs.ConnectorID != ""})
	if err != nil {
		return "", err
	}
	opts := []store.EventOption{store.Emit(ev), store.FinishingSession(cs.ID, store.ConnectCompleted, id)}
	if cs.ConnectorID == "" {
		created, err := s.createConnector(ctx, scope{client: cs.Tenant, user: cs.ExternalUserID},
			newConnector{ExternalUserID: cs.ExternalUserID, ConnectorType: cs.Kind, Name: vendorName(cs.Kind), Credentials: creds, id: id}, opts...)
		if err != nil {
			return "", err
		}
		return created.ID, nil
	}
	row, err := s.st.Connector(ctx, cs.ConnectorID)
	if err != nil {
		return "", err
	}
	if row.Tenant != cs.Tenant || row.ExternalUserID != cs.ExternalUserID || row.Kind != cs.Kind {
		return "", &refusal{status: http.StatusConflict, typ: "conflict", msg: "the connector to reconnect changed owner or kind"}
	}
	if _, err := s.updateConnector(ctx, row, connectorChange{Credentials: creds}, opts...); err != nil {
		return "", err
	}
	return row.ID, nil
}

// failSession marks cs failed with its connect.failed event; a session
// finished meanwhile is left as it is.
func (s *Server) failSession(ctx context.Context, cs *store.ConnectSession, code, why string) {
	ev, err := s.newEvent(webhook.ConnectFailed, cs.Tenant, cs.ConnectorID, map[string]any{"session_id": cs.ID,
		"connector_type": cs.Kind, "external_user_id": cs.ExternalUserID, "error": code, "message": why})
	if err == nil {
		err = s.st.FinishConnectSession(ctx, cs.ID, store.ConnectFailed, code, store.Emit(ev))
	}
	switch {
	case err == nil:
		s.emitted()
		s.log.Info("connect failed", "session", cs.ID, "kind", cs.Kind, "error", code)
	case !errors.Is(err, store.ErrSessionState):
		s.log.Error("connect: the session's failure was not recorded", "session", cs.ID, "err", err)
	}
}
