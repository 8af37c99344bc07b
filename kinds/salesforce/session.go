package salesforce

import (
	"context"
	"errors"
	"net/url"

	"github.com/tributary-dev/tributary/internal/transport"
)

// session is where a connector's requests go. Its tokens come from the
// shared OAuth machinery (transport.OAuth): refreshes are serialized, each
// rotated refresh token is kept and reported, and a 401 to a token that is
// the caller's or not fresh from the endpoint drops it and retries the
// request once with a refreshed one (transport.Rejecter). Salesforce access
// tokens carry no expiry (their lifetime is the org's session timeout), so
// that 401 INVALID_SESSION_ID is the only sign a session ended.
type session struct {
	ts          transport.TokenSource
	instanceURL string // from the credentials, used until a token names one
	httpsOnly   bool   // the token endpoint is https: so must the instance be
}

// instance returns the instance URL requests go to: the instance_url of the
// current token's response, else the credentials' instance_url. It is the
// engine's ResolveBaseURL.
func (s *session) instance(ctx context.Context) (string, error) {
	tok, err := s.ts.TokenContext(ctx)
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
