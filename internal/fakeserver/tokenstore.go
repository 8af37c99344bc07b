package fakeserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"

	"golang.org/x/oauth2"
)

// TokenStore is an in-memory tributary.TokenStore: one saved token under a
// mutex, as a database row under a lock is for several processes. Give the
// same one to several connectors opened with the same OAuth credentials to
// test a vendor's rotating refresh tokens: a refresh is made once, by the
// first connector that finds the saved token stale; the others adopt its
// result rather than spending the refresh token again.
type TokenStore struct {
	mu    sync.Mutex
	saved *oauth2.Token
}

// Refresh returns the saved token when it is valid and is not the stale
// one; otherwise it refreshes with the saved refresh token ("" the first
// time: the connector's own) and saves the result.
func (s *TokenStore) Refresh(ctx context.Context, stale *oauth2.Token, refresh func(context.Context, string) (*oauth2.Token, error)) (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.saved != nil && s.saved.Valid() && (stale == nil || stale.AccessToken != s.saved.AccessToken) {
		return s.saved, nil
	}
	rt := ""
	if s.saved != nil {
		rt = s.saved.RefreshToken
	}
	tok, err := refresh(ctx, rt)
	if err != nil {
		return nil, err
	}
	s.saved = tok
	return tok, nil
}

// CheckRotatedRefreshes checks the refresh_token grants the fake's token
// endpoint at tokenPath received against what a vendor whose refresh
// tokens rotate accepts from connectors that share a TokenStore: one
// refresh token presented in each of rounds rounds of expired access
// tokens, none presented twice. It returns what differs, or nil.
func (s *Server) CheckRotatedRefreshes(tokenPath string, rounds int) error {
	presented := map[string]int{}
	for _, r := range s.Requests() {
		if r.Path == tokenPath {
			form, _ := url.ParseQuery(string(r.Body))
			presented[form.Get("refresh_token")]++
		}
	}
	var errs []error
	if len(presented) != rounds {
		errs = append(errs, fmt.Errorf("%d refresh tokens presented in %d rounds, want one a round: %v", len(presented), rounds, presented))
	}
	for rt, n := range presented {
		if n != 1 {
			errs = append(errs, fmt.Errorf("refresh token %s presented %d times", rt, n))
		}
	}
	return errors.Join(errs...)
}
