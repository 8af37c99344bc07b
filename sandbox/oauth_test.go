package sandbox_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/connect"
	"github.com/tributary-dev/tributary/sandbox"
)

// Every kind's fake knows the OAuth app OAuthClient names: its consent
// page shows it and its token endpoint accepts it.
func TestOAuthClientEveryKind(t *testing.T) {
	sb := sandbox.New()
	defer sb.Close()
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, kind := range sb.Types() {
		oc, err := sb.OAuthClient(kind)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		base, err := sb.URL(kind)
		if err != nil {
			t.Fatal(err)
		}
		const cb = "http://127.0.0.1:9/callback"
		flow, err := connect.New(kind, connect.Config{ClientID: oc.ClientID, ClientSecret: oc.ClientSecret,
			RedirectURL: cb, BaseURL: base, Inputs: oc.Inputs, HTTPClient: hc})
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		auth := flow.AuthCodeURL()
		res, err := hc.PostForm(auth.URL, url.Values{"decision": {"approve"}})
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		loc, _ := url.Parse(res.Header.Get("Location"))
		if res.StatusCode != http.StatusFound || !strings.HasPrefix(loc.String(), cb) {
			t.Fatalf("%s: consent answer %s, Location %s", kind, res.Status, loc)
		}
		code, err := flow.Callback(loc.Query(), auth.State)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if _, err := flow.Exchange(context.Background(), code, auth.Verifier); err != nil {
			t.Errorf("%s: the fake refuses its own OAuth app: %v", kind, err)
		}
	}
	if _, err := sb.OAuthClient("nope"); !errors.Is(err, tributary.ErrUnknownKind) {
		t.Errorf("unknown kind: %v", err)
	}
}
