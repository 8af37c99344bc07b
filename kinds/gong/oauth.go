package gong

import (
	"context"
	"net/http"
	"sync"

	"golang.org/x/oauth2"

	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/transport"
)

// CustomerBaseURLKey is the member of Gong's token response that names the
// company's own API base URL. Read it from a refreshed token with
// tok.Extra(CustomerBaseURLKey) and save it as Credentials.APIBaseURL,
// beside the new refresh token.
const CustomerBaseURLKey = "api_base_url_for_customer"

// session is the OAuth state of a connector with a refresh token.
//
// It sends the caller's access token until Gong rejects it (401), then
// tokens refreshed through ts: the shared transport's token source
// serializes refreshes, so one single-use refresh token is never spent
// twice, and renews a refreshed token before it expires; what it cannot
// know is when a token the caller saved expires, so a 401 to that token is
// retried once with a refreshed one (Reject).
//
// It also tells the engine where requests go (engine.Setup.ResolveBaseURL):
// the api_base_url_for_customer of the last token response, which Gong
// requires for OAuth. Without a saved base URL it refreshes before the
// first request, so that even the first one goes to the right host.
type session struct {
	given   string // the caller's access token, "" when none
	saved   string // the caller's api_base_url, "" when none
	initial string // the base URL before any token response
	https   bool   // the initial base is https: refuse an http customer base
	ts      transport.TokenSource
	// refreshed is the shared OAuth Auth whose tokens ts holds; it judges
	// a 401 to a refreshed token (transport.Rejecter).
	refreshed transport.Auth

	probe sync.Once // the refresh that learns the base URL of a caller's token

	mu      sync.Mutex
	stale   bool   // the caller's access token is not used any more
	learned string // api_base_url_for_customer of the last token response
}

// learn reads api_base_url_for_customer from a token response (the OnRefresh
// hook, called before the token is used). A value that is not an http(s)
// URL, or an http one while the connector uses https, is ignored: the
// bearer token must not travel in the clear.
func (s *session) learn(tok *oauth2.Token) {
	raw, _ := tok.Extra(CustomerBaseURLKey).(string)
	if raw == "" {
		return
	}
	u, err := engine.ParseBaseURL(raw)
	if err != nil || (s.https && u.Scheme != "https") {
		return
	}
	s.mu.Lock()
	s.learned = u.String()
	s.mu.Unlock()
}

// usesGiven reports whether requests still carry the caller's access token.
func (s *session) usesGiven() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.given != "" && !s.stale
}

// baseURL is the engine's ResolveBaseURL: the customer's base URL from the
// last token response, else the saved or default one. When refreshed
// tokens are in use it obtains the token first, so that the base URL its
// response names is known before the request is built (the transport then
// reuses that token). When the caller gave an access token but no base
// URL, the first call refreshes once to learn it, and falls back to the
// caller's token on the default base if that refresh fails.
func (s *session) baseURL(ctx context.Context) (string, error) {
	if s.given != "" && s.saved == "" {
		s.probe.Do(func() {
			if _, err := s.ts.TokenContext(ctx); err == nil {
				s.retire()
			}
		})
	}
	if !s.usesGiven() {
		if _, err := s.ts.TokenContext(ctx); err != nil {
			return "", err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.learned != "" {
		return s.learned, nil
	}
	return s.initial, nil
}

// retire stops sending the caller's access token.
func (s *session) retire() {
	s.mu.Lock()
	s.stale = true
	s.mu.Unlock()
}

// Apply implements transport.Auth.
func (s *session) Apply(req *http.Request) error {
	tok := ""
	if s.usesGiven() {
		tok = s.given
	} else {
		t, err := s.ts.TokenContext(req.Context())
		if err != nil {
			return err
		}
		tok = t.AccessToken
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	return nil
}

// Reject implements transport.Rejecter: a 401 to the caller's own access
// token retires it, and the request is retried with a refreshed one; a 401
// to a refreshed token is the shared token cache's to judge.
func (s *session) Reject(authorization string) bool {
	if s.given != "" && authorization == "Bearer "+s.given {
		s.retire()
		return true
	}
	if rej, ok := s.refreshed.(transport.Rejecter); ok {
		return rej.Reject(authorization)
	}
	return false
}

// Accept implements transport.Accepter, for the shared token cache.
func (s *session) Accept(authorization string) {
	if acc, ok := s.refreshed.(transport.Accepter); ok {
		acc.Accept(authorization)
	}
}

var (
	_ transport.Auth     = (*session)(nil)
	_ transport.Rejecter = (*session)(nil)
	_ transport.Accepter = (*session)(nil)
)
