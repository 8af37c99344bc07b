package salesforcetest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"

	"github.com/tributary-dev/tributary/internal/fakeserver"
)

// handleToken serves POST /services/oauth2/token with the refresh-token
// grant: a form body with grant_type=refresh_token, refresh_token,
// client_id and client_secret (the client may instead authenticate with
// HTTP Basic client_id:client_secret). The answer carries a new access
// token and the instance URL, and no refresh token (Salesforce rotates
// refresh tokens only when the connected app asks for it).
func (s *Server) handleToken(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		oauthError(w, http.StatusBadRequest, "invalid_request", "must use HTTP POST")
		return
	}
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "invalid request body")
		return
	}
	form := r.PostForm
	clientID, clientSecret := form.Get("client_id"), form.Get("client_secret")
	if id, secret, ok := r.BasicAuth(); ok {
		clientID, clientSecret = id, secret
	}
	switch {
	case form.Get("grant_type") != "refresh_token":
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "grant type not supported")
		return
	case clientID != s.cfg.creds.ClientID:
		oauthError(w, http.StatusBadRequest, "invalid_client_id", "client identifier invalid")
		return
	case s.cfg.creds.ClientSecret != "" && clientSecret != s.cfg.creds.ClientSecret:
		oauthError(w, http.StatusBadRequest, "invalid_client", "invalid client credentials")
		return
	case form.Get("refresh_token") == "" || form.Get("refresh_token") != s.cfg.creds.RefreshToken:
		oauthError(w, http.StatusBadRequest, "invalid_grant", "expired access/refresh token")
		return
	}
	w.Header().Set("Cache-Control", "no-cache,must-revalidate,max-age=0,no-store,private")
	fakeserver.WriteJSON(w, http.StatusOK, s.tokenAnswer(r, ""))
}

// tokenAnswer is the token endpoint's answer: an access token, the
// refresh token when given (the code exchange issues one, a refresh does
// not), the signature, scope, instance_url, identity URL, token type and
// issue time.
func (s *Server) tokenAnswer(r *http.Request, refresh string) []byte {
	token := s.issueToken()
	base := fakeserver.BaseURL(r)
	idURL := base + "/id/" + makeID("00D", 0) + "/" + makeID("005", 0)
	issued := strconv.FormatInt(s.clock.Now().UnixMilli(), 10)
	mac := hmac.New(sha256.New, []byte(s.cfg.creds.ClientSecret))
	mac.Write([]byte(idURL + issued))
	sig := base64.StdEncoding.EncodeToString(mac.Sum(nil))

	b := []byte(`{"access_token":`)
	b = appendString(b, token)
	if refresh != "" {
		b = append(b, `,"refresh_token":`...)
		b = appendString(b, refresh)
	}
	b = append(b, `,"signature":`...)
	b = appendString(b, sig)
	b = append(b, `,"scope":"api refresh_token","instance_url":`...)
	b = appendString(b, base)
	b = append(b, `,"id":`...)
	b = appendString(b, idURL)
	b = append(b, `,"token_type":"Bearer","issued_at":`...)
	b = appendString(b, issued)
	b = append(b, '}')
	return b
}

// issueToken returns the current access token, or mints a new one after
// ExpireAccessToken.
func (s *Server) issueToken() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for t := range s.tokens {
		return t
	}
	base := s.cfg.creds.AccessToken
	if base == "" {
		base = DefaultAccessToken
	}
	t := base + "-" + strconv.Itoa(s.tokenGen)
	s.tokens[t] = true
	return t
}

func oauthError(w http.ResponseWriter, status int, code, desc string) {
	b := []byte(`{"error":`)
	b = appendString(b, code)
	b = append(b, `,"error_description":`...)
	b = appendString(b, desc)
	b = append(b, '}')
	fakeserver.WriteJSON(w, status, b)
}
