package fakeserver

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"html/template"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// DefaultCodeTTL is how long an authorization code stays exchangeable
// when OAuthConfig.CodeTTL is zero (GitHub's and Zendesk's ten minutes).
const DefaultCodeTTL = 10 * time.Minute

// OAuthConfig configures the OAuth 2.0 authorization server a fake serves
// on its API origin (NewOAuthServer). The fake supplies the vendor's paths
// and what its token answer carries (Issue); the mechanics are the same for
// every vendor.
type OAuthConfig struct {
	// Vendor names the vendor on the consent page.
	Vendor string
	// AuthorizePath serves the consent page (GET) and takes its form
	// (POST to the same URL, query included, with decision=approve or
	// decision=deny).
	AuthorizePath string
	// TokenPath takes grant_type=authorization_code; requests with another
	// grant type go on to the fake's own handler (its refreshes).
	TokenPath string
	// ClientID and ClientSecret are the only client the server knows.
	ClientID, ClientSecret string
	// BasicOnly requires the client in HTTP Basic (Gong); otherwise the
	// form body or Basic are both accepted.
	BasicOnly bool
	// JSONBody makes the token endpoint read its requests as JSON objects
	// of strings and refuse a form (Notion's): the refresh grants that go
	// on to the fake's own handler have the same body.
	JSONBody bool
	// PKCE makes the server honour a code_challenge (S256 only; "plain"
	// is refused): the code is then exchangeable only with the verifier.
	// Without it a challenge is ignored, as vendors without PKCE do.
	PKCE bool
	// CodeTTL is how long a code lives (DefaultCodeTTL when zero).
	CodeTTL time.Duration
	// Now reads the fake's clock (time.Now when nil), so that a test
	// expires codes by advancing it.
	Now func() time.Time
	// FormUnlessJSON answers the token request form-encoded unless it
	// asks for JSON in Accept, and errors with status 200 (GitHub).
	FormUnlessJSON bool
	// Issue returns the fields of a successful token answer, the vendor's
	// extras included; r is the token request.
	Issue func(r *http.Request, g Grant) map[string]any
}

// Grant is what a consent granted, as the token endpoint redeems it.
type Grant struct {
	ClientID    string
	RedirectURI string
	// Scope is the scope parameter of the consent request.
	Scope string
}

// OAuthServer is a fake vendor's authorization server: a consent page with
// Approve and Deny, and a token endpoint that checks the client, an exact
// redirect_uri, single-use codes that expire and the PKCE verifier. It is
// safe for concurrent use.
type OAuthServer struct {
	cfg OAuthConfig

	mu    sync.Mutex
	codes map[string]*authCode
}

type authCode struct {
	grant     Grant
	challenge string
	expires   time.Time
	used      bool
}

// NewOAuthServer returns an authorization server configured by cfg.
func NewOAuthServer(cfg OAuthConfig) *OAuthServer {
	if cfg.CodeTTL <= 0 {
		cfg.CodeTTL = DefaultCodeTTL
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &OAuthServer{cfg: cfg, codes: map[string]*authCode{}}
}

// Wrap serves the consent page and the authorization-code grant, and
// passes every other request to next.
func (o *OAuthServer) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == o.cfg.AuthorizePath && o.cfg.AuthorizePath != "":
			o.authorize(w, r)
		case r.URL.Path == o.cfg.TokenPath && o.cfg.TokenPath != "" && r.Method == http.MethodPost:
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			r.Body = io.NopCloser(bytes.NewReader(body))
			params := url.Values{}
			ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
			switch {
			case o.cfg.JSONBody && ct != "application/json":
				o.tokenError(w, r, http.StatusBadRequest, "invalid_request", "The request body must be JSON (Content-Type: application/json).")
				return
			case o.cfg.JSONBody:
				if params = JSONValues(body); params == nil {
					o.tokenError(w, r, http.StatusBadRequest, "invalid_request", "The request body is not a JSON object.")
					return
				}
			case ct == "application/x-www-form-urlencoded":
				params, _ = url.ParseQuery(string(body))
			}
			for k, v := range r.URL.Query() {
				if _, ok := params[k]; !ok {
					params[k] = v
				}
			}
			if params.Get("grant_type") != "authorization_code" {
				next.ServeHTTP(w, r)
				return
			}
			o.token(w, r, params)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

var consentPage = template.Must(template.New("consent").Parse(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Authorize {{.Client}} – {{.Vendor}} (fake)</title></head>
<body>
<main>
<h1>Authorize access to your {{.Vendor}} account</h1>
<p>The application <strong>{{.Client}}</strong> asks to read your data.</p>
{{if .Scopes}}<p>Permissions requested:</p>
<ul>{{range .Scopes}}<li><code>{{.}}</code></li>{{end}}</ul>{{end}}
<p>After your answer you will be sent to <code>{{.Redirect}}</code>.</p>
<form method="post" action="{{.Action}}">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>
</main>
</body>
</html>
`))

// pageError answers a consent request that cannot be redirected (unknown
// client, bad redirect_uri): a page, never a redirect to an unchecked URI.
func pageError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Authorization error</title></head><body><main><h1>Authorization error</h1><p>`+
		template.HTMLEscapeString(msg)+`</p></main></body></html>`)
}

// redirect sends the browser back to the client with params and the state.
func redirect(w http.ResponseWriter, r *http.Request, redirectURI, state string, params url.Values) {
	u, _ := url.Parse(redirectURI)
	q := u.Query()
	for k, v := range params {
		q[k] = v
	}
	if state != "" {
		q.Set("state", state)
	}
	u.RawQuery = q.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
}

func (o *OAuthServer) authorize(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodPost {
		w.Header().Set("Allow", "GET, POST")
		pageError(w, http.StatusMethodNotAllowed, "Use GET to ask for consent.")
		return
	}
	q := r.URL.Query()
	redirectURI := q.Get("redirect_uri")
	if q.Get("client_id") != o.cfg.ClientID {
		pageError(w, http.StatusBadRequest, "Unknown client_id: no such OAuth application.")
		return
	}
	if u, err := url.Parse(redirectURI); err != nil || !u.IsAbs() || u.Fragment != "" {
		pageError(w, http.StatusBadRequest, "The redirect_uri is missing or not an absolute URL.")
		return
	}
	state := q.Get("state")
	if rt := q.Get("response_type"); rt != "" && rt != "code" {
		redirect(w, r, redirectURI, state, url.Values{"error": {"unsupported_response_type"}})
		return
	}
	challenge := ""
	if o.cfg.PKCE && q.Get("code_challenge") != "" {
		if q.Get("code_challenge_method") != "S256" {
			redirect(w, r, redirectURI, state, url.Values{"error": {"invalid_request"},
				"error_description": {"code_challenge_method must be S256"}})
			return
		}
		challenge = q.Get("code_challenge")
	}
	if r.Method == http.MethodGet {
		var scopes []string
		if s := q.Get("scope"); s != "" {
			scopes = strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' })
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_ = consentPage.Execute(w, map[string]any{
			"Vendor": o.cfg.Vendor, "Client": o.cfg.ClientID, "Scopes": scopes,
			"Redirect": redirectURI, "Action": r.URL.RequestURI(),
		})
		return
	}
	_ = r.ParseForm()
	switch r.PostForm.Get("decision") {
	case "approve":
	case "deny":
		redirect(w, r, redirectURI, state, url.Values{"error": {"access_denied"},
			"error_description": {"The user denied the request."}})
		return
	default:
		pageError(w, http.StatusBadRequest, "Answer with Approve or Deny.")
		return
	}
	var b [20]byte
	_, _ = rand.Read(b[:])
	code := hex.EncodeToString(b[:])
	o.mu.Lock()
	o.codes[code] = &authCode{
		grant:     Grant{ClientID: o.cfg.ClientID, RedirectURI: redirectURI, Scope: q.Get("scope")},
		challenge: challenge,
		expires:   o.cfg.Now().Add(o.cfg.CodeTTL),
	}
	o.mu.Unlock()
	redirect(w, r, redirectURI, state, url.Values{"code": {code}})
}

func (o *OAuthServer) tokenError(w http.ResponseWriter, r *http.Request, status int, code, desc string) {
	w.Header().Set("Cache-Control", "no-store")
	if o.cfg.FormUnlessJSON && !wantsJSON(r) {
		v := url.Values{"error": {code}, "error_description": {desc}}
		body := []byte(v.Encode())
		w.Header().Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
		return
	}
	if o.cfg.FormUnlessJSON {
		status = http.StatusOK
	}
	JSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func wantsJSON(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "application/json")
}

func (o *OAuthServer) token(w http.ResponseWriter, r *http.Request, p url.Values) {
	id, secret, basic := r.BasicAuth()
	if !basic && !o.cfg.BasicOnly {
		id, secret = p.Get("client_id"), p.Get("client_secret")
	}
	if subtle.ConstantTimeCompare([]byte(id), []byte(o.cfg.ClientID)) != 1 ||
		subtle.ConstantTimeCompare([]byte(secret), []byte(o.cfg.ClientSecret)) != 1 {
		o.tokenError(w, r, http.StatusUnauthorized, "invalid_client", "Client authentication failed: unknown client or wrong client secret.")
		return
	}
	code := p.Get("code")
	o.mu.Lock()
	c := o.codes[code]
	var fail string
	switch {
	case c == nil:
		fail = "The authorization code is not known."
	case c.used:
		fail = "The authorization code has already been used."
	case !o.cfg.Now().Before(c.expires):
		fail = "The authorization code has expired."
	case c.grant.ClientID != id:
		fail = "The authorization code was issued to another client."
	case p.Get("redirect_uri") != c.grant.RedirectURI:
		fail = "The redirect_uri does not match the one of the authorization request."
	case c.challenge != "" && p.Get("code_verifier") == "":
		fail = "The code_verifier is missing (the authorization request had a code_challenge)."
	case c.challenge != "" && subtle.ConstantTimeCompare([]byte(s256(p.Get("code_verifier"))), []byte(c.challenge)) != 1:
		fail = "The code_verifier does not match the code_challenge."
	}
	if c != nil {
		c.used = true // a code is spent by any attempt, so it cannot be guessed at
	}
	o.mu.Unlock()
	if fail != "" {
		o.tokenError(w, r, http.StatusBadRequest, "invalid_grant", fail)
		return
	}
	fields := o.cfg.Issue(r, c.grant)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	if o.cfg.FormUnlessJSON && !wantsJSON(r) {
		v := url.Values{}
		for k, x := range fields {
			b, _ := json.Marshal(x)
			s := string(b)
			if str, ok := x.(string); ok {
				s = str
			}
			v.Set(k, s)
		}
		w.Header().Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
		_, _ = io.WriteString(w, v.Encode())
		return
	}
	JSON(w, http.StatusOK, fields)
}

// s256 is PKCE's S256 code challenge of verifier.
func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// JSONValues reads a JSON object's string members as url.Values (a token
// request sent as JSON); nil when body is not a JSON object.
func JSONValues(body []byte) url.Values {
	var m map[string]any
	if json.Unmarshal(body, &m) != nil || m == nil {
		return nil
	}
	v := url.Values{}
	for k, x := range m {
		if s, ok := x.(string); ok {
			v.Set(k, s)
		}
	}
	return v
}
