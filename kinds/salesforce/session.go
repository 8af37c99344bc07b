package salesforce

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"golang.org/x/oauth2"

	"github.com/tributary-dev/tributary/internal/transport"
)

// session holds the OAuth state of one connector: the current access token
// (with the instance_url it came with), the refresh token, and whether a
// 401 on the current token may be answered by a refresh.
//
// Salesforce access tokens carry no expiry (their lifetime is the org's
// session timeout), so an expired one shows up only as 401
// INVALID_SESSION_ID. The transport consults retry (Kind.Retryable) on every
// answer: a 401 on a token that is worth refreshing drops it and asks for a
// retry, and the retried request refreshes through Token. A token fresh from
// the endpoint that the API rejects is not refreshed again until it has
// worked once, so wrong credentials never loop.
type session struct {
	tokenURL     string
	clientID     string
	clientSecret string
	httpClient   *http.Client
	onRefresh    func(*oauth2.Token)
	instanceURL  string // from the credentials, used until a token names one
	httpsOnly    bool   // the token endpoint is https: so must the instance be

	refreshTurn chan struct{} // held while a refresh runs; waiters give up with their context

	mu           sync.Mutex
	refreshToken string
	tok          *oauth2.Token
	refreshable  bool // a 401 on tok may be answered by a refresh
}

// Token implements oauth2.TokenSource: the current token, refreshed at the
// token endpoint when there is none (or it carries an expiry that passed).
func (s *session) Token() (*oauth2.Token, error) { return s.TokenContext(context.Background()) }

// TokenContext is Token under ctx: waiting for another refresh, and the
// refresh itself, end with ctx.
func (s *session) TokenContext(ctx context.Context) (*oauth2.Token, error) {
	if tok := s.current(); tok != nil {
		return tok, nil
	}
	select {
	case s.refreshTurn <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-s.refreshTurn }()
	if tok := s.current(); tok != nil { // refreshed while we waited
		return tok, nil
	}
	s.mu.Lock()
	rt := s.refreshToken
	s.mu.Unlock()
	_, ts := transport.OAuth(transport.OAuthConfig{
		TokenURL: s.tokenURL, AuthStyle: oauth2.AuthStyleInParams,
		ClientID: s.clientID, ClientSecret: s.clientSecret,
		RefreshToken: rt, HTTPClient: s.httpClient, OnRefresh: s.onRefresh,
	})
	tok, err := ts.TokenContext(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if tok.RefreshToken != "" {
		s.refreshToken = tok.RefreshToken
	}
	s.tok, s.refreshable = tok, false
	return tok, nil
}

func (s *session) current() *oauth2.Token {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tok != nil && s.tok.Valid() {
		return s.tok
	}
	return nil
}

// instance returns the instance URL requests go to: the instance_url of the
// current token's response, else the credentials' instance_url. It is the
// engine's ResolveBaseURL.
func (s *session) instance(ctx context.Context) (string, error) {
	tok, err := s.TokenContext(ctx)
	if err != nil {
		return "", err
	}
	if v, ok := tok.Extra("instance_url").(string); ok && v != "" {
		u, err := url.Parse(v)
		if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
			return "", errors.New("the token response named an unusable instance_url")
		}
		if s.httpsOnly && u.Scheme != "https" {
			return "", errors.New("the token response named an instance_url that is not https")
		}
		return v, nil
	}
	if s.instanceURL == "" {
		return "", errors.New("the token response named no instance_url; give instance_url in the credentials")
	}
	return s.instanceURL, nil
}

// retry is the kind's Retryable hook: it watches which tokens work and
// turns a 401 on a stale token into a refresh and a retry.
func (s *session) retry(resp *http.Response) (retry, decided bool) {
	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	if !ok && resp.StatusCode != http.StatusUnauthorized {
		return false, false
	}
	used := ""
	if resp.Request != nil {
		used, _ = strings.CutPrefix(resp.Request.Header.Get("Authorization"), "Bearer ")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ok {
		if s.tok != nil && (used == "" || used == s.tok.AccessToken) {
			s.refreshable = true
		}
		return false, false
	}
	switch {
	case s.tok == nil:
		return true, true // dropped by another request: the retry refreshes
	case used != "" && used != s.tok.AccessToken:
		return true, true // a newer token exists already
	case s.refreshable:
		s.tok = nil
		return true, true
	}
	return false, true
}
