package server

import (
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// A token saved for other processes keeps the token response's fields the
// kinds read (Salesforce's instance_url, Gong's customer host), and nothing
// else.
func TestSavedTokenKeepsExtras(t *testing.T) {
	t.Parallel()
	exp := time.Now().Add(time.Hour).Truncate(time.Second)
	tok := (&oauth2.Token{AccessToken: "a1", RefreshToken: "r1", Expiry: exp}).WithExtra(map[string]any{
		"instance_url": "https://acme.my.salesforce.com", "api_base_url_for_customer": "https://us-1.api.gong.io", "signature": "sig"})
	got := saveToken(tok).token()
	if got.AccessToken != "a1" || got.RefreshToken != "r1" || !got.Expiry.Equal(exp) {
		t.Errorf("saved token: %+v", got)
	}
	if v := got.Extra("instance_url"); v != "https://acme.my.salesforce.com" {
		t.Errorf("instance_url: %v", v)
	}
	if v := got.Extra("api_base_url_for_customer"); v != "https://us-1.api.gong.io" {
		t.Errorf("api_base_url_for_customer: %v", v)
	}
	if v := got.Extra("signature"); v != nil {
		t.Errorf("an unneeded field was kept: %v", v)
	}
}
