package connect_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/connect"
)

// An app in Atlassian's shape: static consent params, comma-joined scopes,
// a nested token field, and a lookup after the exchange whose array answer
// is picked by an input. The vendor here is a small test server.
func lookupApp() tributary.OAuthApp {
	return tributary.OAuthApp{
		Kind: "lookup-test", AuthURL: "https://auth.example.com/authorize", TokenURL: "https://auth.example.com/oauth/token",
		Scopes: []string{"read:jira-work", "offline_access"}, ScopeSeparator: ",",
		AuthParams: map[string]string{"audience": "api.atlassian.com", "prompt": "consent"},
		Lookup: &tributary.OAuthLookup{URL: "https://api.example.com/oauth/token/accessible-resources",
			Pick: &tributary.OAuthPick{Input: "site", Match: []string{"name", "url"}, Label: "url"}},
		Inputs: []tributary.OAuthInput{{Name: "site", Doc: "the site"}},
		Credentials: []tributary.OAuthField{
			{Name: "access_token", From: tributary.OAuthFromAccessToken},
			{Name: "cloud_id", From: tributary.OAuthFromMetadata, Key: "id"},
			{Name: "team", From: tributary.OAuthFromToken, Key: "team.id"},
		},
	}
}

func vendor(t *testing.T, sites string) (*httptest.Server, *[]string) {
	var auths []string
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/oauth/token":
			_, _ = w.Write([]byte(`{"access_token":"at-1","token_type":"Bearer","expires_in":3600,"team":{"id":"T123","name":"x"}}`))
		case "/oauth/token/accessible-resources":
			auths = append(auths, r.Header.Get("Authorization"))
			_, _ = w.Write([]byte(sites))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s, &auths
}

func TestLookupPicksASite(t *testing.T) {
	const two = `[{"id":"c-1","url":"https://acme.atlassian.net","name":"acme","scopes":["read:jira-work"]},{"id":"c-2","url":"https://beta.atlassian.net","name":"beta"}]`
	for _, c := range []struct {
		name, sites, site string
		want              string // cloud_id, or the error's text
	}{
		{"one site, no input", `[{"id":"c-9","url":"https://only.atlassian.net","name":"only"}]`, "", "c-9"},
		{"two sites, by name", two, "beta", "c-2"},
		{"two sites, by host label", two, "acme", "c-1"},
		{"two sites, by host", two, "beta.atlassian.net", "c-2"},
		{"two sites, none chosen", two, "", "the token grants access to 2 of them (https://acme.atlassian.net, https://beta.atlassian.net): give the input site to choose one"},
		{"two sites, a third asked", two, "gamma", `site "gamma" is not among those the token grants (https://acme.atlassian.net, https://beta.atlassian.net)`},
		{"no site", `[]`, "", "the token grants access to nothing (the answer lists no url)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, auths := vendor(t, c.sites)
			flow, err := connect.NewFromApp(lookupApp(), connect.Config{ClientID: "cid", ClientSecret: "csecret", RedirectURL: "http://127.0.0.1:9/cb",
				BaseURL: s.URL, Inputs: map[string]string{"site": c.site}})
			if err != nil {
				t.Fatal(err)
			}
			creds, err := flow.Exchange(context.Background(), "code-1", "")
			if strings.HasPrefix(c.want, "c-") {
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(connect.Credentials{"access_token": "at-1", "cloud_id": c.want, "team": "T123"}, creds); d != "" {
					t.Errorf("credentials (-want +got):\n%s", d)
				}
			} else if err == nil || !errors.Is(err, connect.ErrUnexpected) || !strings.HasSuffix(err.Error(), c.want) {
				t.Errorf("error %v, want one ending %q", err, c.want)
			}
			if d := cmp.Diff([]string{"Bearer at-1"}, *auths); d != "" {
				t.Errorf("lookup's Authorization (-want +got):\n%s", d)
			}
		})
	}
}

func TestConsentURLParams(t *testing.T) {
	flow, err := connect.NewFromApp(lookupApp(), connect.Config{ClientID: "cid", ClientSecret: "csecret", RedirectURL: "http://127.0.0.1:9/cb"})
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(flow.AuthCodeURL().URL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	for k, want := range map[string]string{"audience": "api.atlassian.com", "prompt": "consent", "scope": "read:jira-work,offline_access", "response_type": "code", "client_id": "cid"} {
		if got := q.Get(k); got != want {
			t.Errorf("%s = %q, want %q (URL %s)", k, got, want, u)
		}
	}
	// The app given is not changed by the flow, and Clone copies deeply.
	app := lookupApp()
	cl := app.Clone()
	cl.AuthParams["prompt"] = "none"
	cl.Lookup.Pick.Match[0] = "x"
	if app.AuthParams["prompt"] != "consent" || app.Lookup.Pick.Match[0] != "name" {
		t.Error("Clone shares maps or slices with the original")
	}
}
