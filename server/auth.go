package server

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"
)

// scope is what a bearer token may act on: the connectors of one client
// (tenant), and of one external user when user is set.
type scope struct {
	client, user string
}

// allows reports whether the scope covers a connector of this tenant and
// user.
func (sc scope) allows(tenant, user string) bool {
	return sc.client == tenant && (sc.user == "" || sc.user == user)
}

type scopeKey struct{}

func scopeOf(ctx context.Context) (scope, bool) {
	sc, ok := ctx.Value(scopeKey{}).(scope)
	return sc, ok
}

// tokenPrefix starts every token the service issues.
const tokenPrefix = "trb1."

// tokenPurpose separates the token signing key from the keys' other uses.
const tokenPurpose = "tributary/server/token/v1"

// claims are the signed contents of a token.
type claims struct {
	Client  string `json:"c"`
	User    string `json:"u,omitempty"`
	Expires int64  `json:"e"`
	Key     string `json:"k"`
}

// Token issues a bearer token for client (and, when user is set, only that
// external user's connectors), valid for ttl (Config.TokenTTL when zero).
// The token endpoint uses it; operators can too.
func (s *Server) Token(client, user string, ttl time.Duration) (string, time.Time, error) {
	if client == "" {
		return "", time.Time{}, errors.New("server: a token needs a client")
	}
	if ttl <= 0 {
		ttl = s.cfg.TokenTTL
	}
	id, key := s.keys.SigningKey(tokenPurpose)
	exp := time.Now().Add(ttl).Truncate(time.Second).Add(time.Second) // at least ttl
	body, err := json.Marshal(claims{Client: client, User: user, Expires: exp.Unix(), Key: id})
	if err != nil {
		return "", time.Time{}, err
	}
	payload := base64.RawURLEncoding.EncodeToString(body)
	return tokenPrefix + payload + "." + base64.RawURLEncoding.EncodeToString(mac(key, payload)), exp, nil
}

func mac(key []byte, payload string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(tokenPrefix + payload))
	return m.Sum(nil)
}

// errToken: the bearer token is missing, malformed, forged or expired; the
// answer never says which.
var errToken = errors.New("missing, invalid or expired token")

// verify returns the scope of a bearer token.
func (s *Server) verify(tok string) (scope, error) {
	if sc, ok := s.static[sha256.Sum256([]byte(tok))]; ok {
		return sc, nil
	}
	rest, ok := strings.CutPrefix(tok, tokenPrefix)
	if !ok || len(rest) > 4096 {
		return scope{}, errToken
	}
	payload, sig, ok := strings.Cut(rest, ".")
	if !ok {
		return scope{}, errToken
	}
	gotMAC, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil {
		return scope{}, errToken
	}
	body, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return scope{}, errToken
	}
	var c claims
	if err := json.Unmarshal(body, &c); err != nil || c.Client == "" {
		return scope{}, errToken
	}
	key, ok := s.keys.SigningKeyByID(c.Key, tokenPurpose)
	if !ok || !hmac.Equal(gotMAC, mac(key, payload)) {
		return scope{}, errToken
	}
	if time.Now().Unix() >= c.Expires {
		return scope{}, errToken
	}
	if _, ok := s.clients[c.Client]; !ok {
		return scope{}, errToken // the client was removed from the configuration
	}
	return scope{client: c.Client, user: c.User}, nil
}

// authenticated runs next with the scope of the request's bearer token, or
// answers 401.
func (s *Server) authenticated(next func(w http.ResponseWriter, r *http.Request)) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || tok == "" {
			s.fail(w, r, http.StatusUnauthorized, "unauthorized", errToken.Error(), "")
			return
		}
		sc, err := s.verify(strings.TrimSpace(tok))
		if err != nil {
			s.fail(w, r, http.StatusUnauthorized, "unauthorized", errToken.Error(), "")
			return
		}
		info(r).client = sc.client
		next(w, r.WithContext(context.WithValue(r.Context(), scopeKey{}, sc)))
	}
}

// token is the token endpoint: {client_id, client_secret} and optionally
// external_user_id, which limits the token to that user's connectors.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	var body struct {
		ClientID       string `json:"client_id"`
		ClientSecret   string `json:"client_secret"`
		ExternalUserID string `json:"external_user_id"`
	}
	if !s.decode(w, r, &body) {
		return
	}
	want, known := s.clients[body.ClientID]
	got := sha256.Sum256([]byte(body.ClientSecret))
	if !known {
		want = sha256.Sum256(nil) // the same work for unknown ids
	}
	if subtle.ConstantTimeCompare(want[:], got[:]) != 1 || !known {
		s.fail(w, r, http.StatusUnauthorized, "unauthorized", "invalid client credentials", "")
		return
	}
	info(r).client = body.ClientID
	tok, exp, err := s.Token(body.ClientID, body.ExternalUserID, 0)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, "server_error", "could not issue a token", "")
		return
	}
	s.writeJSON(w, http.StatusOK, map[string]any{"access_token": tok, "token_type": "Bearer",
		"expires_in": int(s.cfg.TokenTTL / time.Second), "expires_at": exp.UTC().Format(time.RFC3339)})
}

// randomID returns n random bytes in hex.
func randomID(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
