package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"golang.org/x/oauth2"
)

// A refresh with JSONBody reaches the token endpoint as a JSON object,
// the client in HTTP Basic, and the rotated refresh token is kept
// (Notion's token endpoint).
func TestRefreshAsJSON(t *testing.T) {
	var got []map[string]string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, secret, ok := r.BasicAuth()
		var body map[string]string
		err := json.NewDecoder(r.Body).Decode(&body)
		if r.Header.Get("Content-Type") != "application/json" || err != nil || !ok || id != "cid" || secret != "csecret" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		got = append(got, body)
		w.Header().Set("Content-Type", "application/json")
		n := len(got)
		json.NewEncoder(w).Encode(map[string]any{"access_token": "at" + string(rune('0'+n)), "token_type": "bearer",
			"refresh_token": "rt" + string(rune('0'+n)), "workspace_id": "ws1", "expires_in": 3600})
	}))
	defer srv.Close()
	var rotated []string
	_, ts := OAuth(OAuthConfig{TokenURL: srv.URL, AuthStyle: oauth2.AuthStyleInHeader, ClientID: "cid", ClientSecret: "csecret",
		RefreshToken: "rt0", JSONBody: true, OnRefresh: func(tok *oauth2.Token) { rotated = append(rotated, tok.RefreshToken) }})
	tok, err := ts.TokenContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if tok.AccessToken != "at1" || tok.Extra("workspace_id") != "ws1" {
		t.Errorf("token %q, workspace_id %v", tok.AccessToken, tok.Extra("workspace_id"))
	}
	if len(got) != 1 || got[0]["grant_type"] != "refresh_token" || got[0]["refresh_token"] != "rt0" || got[0]["client_secret"] != "" {
		t.Fatalf("the endpoint received %v", got)
	}
	if len(rotated) != 1 || rotated[0] != "rt1" {
		t.Errorf("rotated refresh tokens %v, want [rt1]", rotated)
	}
}

// Requests that are not form POSTs pass through unchanged.
func TestJSONTokenRequestsLeavesOthers(t *testing.T) {
	var ct string
	rt := JSONTokenRequests(roundTrip(func(r *http.Request) (*http.Response, error) {
		ct = r.Header.Get("Content-Type")
		return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
	}))
	req, _ := http.NewRequest(http.MethodGet, "https://example.com/x", nil)
	req.Header.Set("Content-Type", "text/plain")
	if _, err := rt.RoundTrip(req); err != nil || ct != "text/plain" {
		t.Errorf("a GET was changed: %q, %v", ct, err)
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
