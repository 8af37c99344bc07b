package zendesktest

import (
	"crypto/subtle"
	"encoding/json"
	"mime"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// Lifetimes announced in token responses when no TTL is configured (Zendesk's
// maxima: two days for access tokens, 90 days for refresh tokens).
const (
	defaultExpiresIn        = 172800
	defaultRefreshExpiresIn = 7776000
)

// oauthState holds the OAuth tokens the fake accepts. A refresh rotates: the
// used refresh token and the access token issued with it are deleted.
type oauthState struct {
	mu      sync.Mutex
	access  map[string]time.Time // access token → expiry (zero: none)
	refresh map[string]string    // refresh token → access token issued with it
	seq     int

	curAccess, curRefresh  string
	baseAccess, baseRefr   string
	clientID, clientSecret string
	ttl                    time.Duration
	now                    func() time.Time
}

func newOAuth(cfg config) *oauthState {
	o := &oauthState{
		access:       map[string]time.Time{},
		refresh:      map[string]string{},
		seq:          1,
		curAccess:    cfg.accessToken,
		curRefresh:   cfg.refreshToken,
		baseAccess:   cfg.accessToken,
		baseRefr:     cfg.refreshToken,
		clientID:     cfg.clientID,
		clientSecret: cfg.clientSecret,
		ttl:          cfg.tokenTTL,
		now:          time.Now,
	}
	if cfg.accessToken != "" {
		o.access[cfg.accessToken] = o.expiry(0)
	}
	if cfg.refreshToken != "" {
		o.refresh[cfg.refreshToken] = cfg.accessToken
	}
	return o
}

func (o *oauthState) expiry(requested time.Duration) time.Time {
	ttl := o.ttl
	if requested > 0 {
		ttl = requested
	}
	if ttl <= 0 {
		return time.Time{}
	}
	return o.now().Add(ttl)
}

func (o *oauthState) valid(tok string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	exp, ok := o.access[tok]
	return ok && (exp.IsZero() || o.now().Before(exp))
}

func (o *oauthState) current(refresh bool) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if refresh {
		return o.curRefresh
	}
	return o.curAccess
}

func (o *oauthState) expireAll() {
	o.mu.Lock()
	defer o.mu.Unlock()
	clear(o.access)
}

type tokenResponse struct {
	AccessToken           string `json:"access_token"`
	RefreshToken          string `json:"refresh_token,omitempty"`
	TokenType             string `json:"token_type"`
	Scope                 string `json:"scope"`
	ExpiresIn             int64  `json:"expires_in"`
	RefreshTokenExpiresIn int64  `json:"refresh_token_expires_in,omitempty"`
}

// issue creates a new access token, and a new refresh token when withRefresh.
func (o *oauthState) issue(withRefresh bool, requested time.Duration) (access, refresh string, expiresIn int64) {
	o.seq++
	n := strconv.Itoa(o.seq)
	access = o.baseAccess + "_" + n
	o.access[access] = o.expiry(requested)
	o.curAccess = access
	if withRefresh {
		refresh = o.baseRefr + "_" + n
		o.refresh[refresh] = access
		o.curRefresh = refresh
	}
	expiresIn = defaultExpiresIn
	if ttl := o.expiry(requested); !ttl.IsZero() {
		expiresIn = int64((ttl.Sub(o.now()) + time.Second - 1) / time.Second)
	}
	return access, refresh, expiresIn
}

// exchange is the token answer of the authorization-code grant: a new
// access token and a new refresh token, with their lifetimes. The tokens
// open this fake's account only: Zendesk's are per subdomain.
func (o *oauthState) exchange(_ *http.Request, g fakeserver.Grant) map[string]any {
	o.mu.Lock()
	defer o.mu.Unlock()
	access, refresh, expiresIn := o.issue(true, 0)
	scope := g.Scope
	if scope == "" {
		scope = "read"
	}
	return map[string]any{"access_token": access, "refresh_token": refresh, "token_type": "bearer",
		"scope": scope, "expires_in": expiresIn, "refresh_token_expires_in": defaultRefreshExpiresIn}
}

func oauthError(w http.ResponseWriter, status int, code, desc string) {
	b, _ := json.Marshal(map[string]string{"error": code, "error_description": desc})
	w.Header().Set("Cache-Control", "no-store")
	fakeserver.WriteJSON(w, status, b)
}

// serveToken is POST /oauth/tokens: grant_type=refresh_token (rotating) or
// client_credentials, parameters in a form or JSON body, the client in the
// body or in a Basic header.
func (s *Server) serveToken(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		oauthError(w, http.StatusMethodNotAllowed, "invalid_request", "Use POST to request a token.")
		return
	}
	params := map[string]string{}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == "application/json" {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			oauthError(w, http.StatusBadRequest, "invalid_request", "The request body is not valid JSON.")
			return
		}
		for k, v := range body {
			switch v := v.(type) {
			case string:
				params[k] = v
			case float64:
				params[k] = strconv.FormatInt(int64(v), 10)
			}
		}
	} else {
		if err := r.ParseForm(); err != nil {
			oauthError(w, http.StatusBadRequest, "invalid_request", "The request body could not be parsed.")
			return
		}
		for k, v := range r.PostForm {
			params[k] = firstOf(v)
		}
	}
	id, secret := params["client_id"], params["client_secret"]
	if id == "" {
		id, secret, _ = r.BasicAuth()
	}
	o := s.oauth
	if subtle.ConstantTimeCompare([]byte(id), []byte(o.clientID)) != 1 ||
		subtle.ConstantTimeCompare([]byte(secret), []byte(o.clientSecret)) != 1 {
		oauthError(w, http.StatusUnauthorized, "invalid_client",
			"Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.")
		return
	}
	var requested time.Duration
	if v := params["expires_in"]; v != "" {
		if secs, err := strconv.ParseInt(v, 10, 64); err == nil && secs > 0 {
			requested = time.Duration(secs) * time.Second
		}
	}
	scope := params["scope"]
	if scope == "" {
		scope = "read write"
	}
	resp := tokenResponse{TokenType: "bearer", Scope: scope}
	switch params["grant_type"] {
	case "refresh_token":
		rt := params["refresh_token"]
		if rt == "" {
			oauthError(w, http.StatusBadRequest, "invalid_request", "The request is missing a required parameter: refresh_token.")
			return
		}
		o.mu.Lock()
		old, ok := o.refresh[rt]
		if !ok {
			o.mu.Unlock()
			oauthError(w, http.StatusBadRequest, "invalid_grant",
				"The provided authorization grant is invalid, expired, revoked, or was issued to another client.")
			return
		}
		delete(o.refresh, rt)
		delete(o.access, old)
		resp.AccessToken, resp.RefreshToken, resp.ExpiresIn = o.issue(true, requested)
		resp.RefreshTokenExpiresIn = defaultRefreshExpiresIn
		o.mu.Unlock()
	case "client_credentials":
		o.mu.Lock()
		resp.AccessToken, _, resp.ExpiresIn = o.issue(false, requested)
		o.mu.Unlock()
	case "":
		oauthError(w, http.StatusBadRequest, "invalid_request", "The request is missing a required parameter: grant_type.")
		return
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type",
			"The authorization grant type is not supported by the authorization server.")
		return
	}
	b, _ := json.Marshal(resp)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	fakeserver.WriteJSON(w, http.StatusOK, b)
}
