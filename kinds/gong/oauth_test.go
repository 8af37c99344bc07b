package gong

import (
	"context"
	"testing"

	"golang.org/x/oauth2"

	"github.com/tributary-dev/tributary/internal/transport"
	"github.com/tributary-dev/tributary/kinds/gong/gongtest"
)

func testSession(srv *gongtest.Server, given, clientSecret string, https bool) *session {
	s := &session{given: given, initial: "http://127.0.0.1:9", https: https}
	_, s.ts = transport.OAuth(transport.OAuthConfig{TokenURL: srv.TokenURL(), AuthStyle: oauth2.AuthStyleInHeader,
		ClientID: gongtest.DefaultClientID, ClientSecret: clientSecret, RefreshToken: gongtest.DefaultRefreshToken, OnRefresh: s.learn})
	return s
}

func tokenRequests(srv *gongtest.Server) int {
	n := 0
	for _, r := range srv.Requests() {
		if r.Path == gongtest.TokenPath {
			n++
		}
	}
	return n
}

// A caller's access token without a saved base URL: the first request
// refreshes once to learn the customer's base URL and then uses refreshed
// tokens; if that refresh fails, the caller's token goes to the default
// base, and the refresh is not tried again for every request.
func TestSessionLearnsTheBaseOfAGivenToken(t *testing.T) {
	srv := gongtest.New()
	defer srv.Close()
	ctx := context.Background()

	s := testSession(srv, "saved-access-token", gongtest.DefaultClientSecret, false)
	for range 2 {
		base, err := s.baseURL(ctx)
		if err != nil || base != srv.URL || s.usesGiven() {
			t.Fatalf("base %q, %v, still the given token: %v", base, err, s.usesGiven())
		}
	}
	if n := tokenRequests(srv); n != 1 {
		t.Errorf("%d token requests", n)
	}

	srv.ResetRequests()
	s = testSession(srv, "saved-access-token", "wrong-secret", false)
	for range 2 {
		base, err := s.baseURL(ctx)
		if err != nil || base != s.initial || !s.usesGiven() {
			t.Fatalf("failed probe: base %q, %v, given token in use: %v", base, err, s.usesGiven())
		}
	}
	if n := tokenRequests(srv); n != 1 {
		t.Errorf("%d token requests after a failed probe", n)
	}
}

// An https connector ignores an http api_base_url_for_customer.
func TestSessionRefusesAnHTTPCustomerBase(t *testing.T) {
	srv := gongtest.New()
	defer srv.Close()
	s := testSession(srv, "", gongtest.DefaultClientSecret, true)
	s.initial = "https://api.gong.io"
	base, err := s.baseURL(context.Background())
	if err != nil || base != "https://api.gong.io" {
		t.Errorf("base %q, %v", base, err)
	}
}
