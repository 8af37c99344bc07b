package jira_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/connect"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/jira"
	"github.com/tributary-dev/tributary/kinds/jira/jiratest"
)

// consent runs the authorization-code flow against the fake, site being
// the flow's input: consent approved, code exchanged, accessible
// resources looked up.
func consent(t *testing.T, srv *jiratest.Server, site string) (connect.Credentials, error) {
	t.Helper()
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	const cb = "http://127.0.0.1:9/callback"
	flow, err := connect.New(jira.Type, connect.Config{ClientID: jiratest.DefaultClientID, ClientSecret: jiratest.DefaultClientSecret,
		RedirectURL: cb, BaseURL: srv.URL, Inputs: map[string]string{"site": site}, HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	auth := flow.AuthCodeURL()
	u, _ := url.Parse(auth.URL)
	if q := u.Query(); u.Path != "/authorize" || q.Get("audience") != "api.atlassian.com" || q.Get("prompt") != "consent" || !strings.Contains(q.Get("scope"), "offline_access") {
		t.Fatalf("consent URL %s", auth.URL)
	}
	res, err := hc.PostForm(auth.URL, url.Values{"decision": {"approve"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc, _ := url.Parse(res.Header.Get("Location"))
	code, err := flow.Callback(loc.Query(), auth.State)
	if err != nil {
		t.Fatal(err)
	}
	return flow.Exchange(context.Background(), code, auth.Verifier)
}

// The flow keeps the cloud id of the site the token opens: the only one,
// the one the input names among several, and none when the token opens
// none or several and none is named. The connector then reads the site
// through https://api.atlassian.com/ex/jira/{cloud_id}.
func TestOAuthPicksTheSitesCloudID(t *testing.T) {
	acme := jiratest.Site{ID: jiratest.DefaultCloudID, URL: "https://acme.atlassian.net", Name: "acme"}
	beta := jiratest.Site{ID: "99887766-5544-4332-8110-ffeeddccbbaa", URL: "https://beta.atlassian.net", Name: "beta"}
	for _, c := range []struct {
		name  string
		sites []jiratest.Site
		input string
		want  string // the cloud id, or a part of the error
	}{
		{"one site", []jiratest.Site{acme}, "", acme.ID},
		{"several, one named", []jiratest.Site{acme, beta}, "beta", beta.ID},
		{"several, one named by its host", []jiratest.Site{acme, beta}, "acme.atlassian.net", acme.ID},
		{"several, none named", []jiratest.Site{acme, beta}, "", "give the input site to choose one"},
		{"none", []jiratest.Site{}, "", "the token grants access to nothing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := jiratest.New(jiratest.WithSites(c.sites...))
			defer srv.Close()
			creds, err := consent(t, srv, c.input)
			if !strings.Contains(c.want, "-") || strings.Contains(c.want, " ") {
				if err == nil || !errors.Is(err, connect.ErrUnexpected) || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("%v, want an error with %q", err, c.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if creds["cloud_id"] != c.want || creds["refresh_token"] == "" || creds["client_id"] != jiratest.DefaultClientID {
				t.Fatalf("credentials %v", creds)
			}
			conn, err := kinds.Open(jira.Type, creds, tributary.WithBaseURL(srv.URL+"/ex/jira/"+c.want), fast)
			if err != nil {
				t.Fatal(err)
			}
			srv.ResetRequests()
			if _, err := conn.List(context.Background(), "projects", nil); err != nil {
				t.Fatal(err)
			}
			r := srv.Requests()[0]
			if r.Path != "/ex/jira/"+c.want+"/rest/api/3/project/search" || !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer fake-access-") {
				t.Errorf("request %s with %q", r.Path, r.Header.Get("Authorization"))
			}
		})
	}
}

// Atlassian's refresh tokens rotate: each refresh spends the one it used.
// Two connectors opened with the same credentials, as two processes of a
// service would, share a token store: round after round of expired access
// tokens, every call succeeds and no refresh token is presented twice.
// Without the store, the second connector presents the refresh token the
// first spent, and fails.
func TestRotatingRefreshTokensAcrossProcesses(t *testing.T) {
	const rounds = 4
	creds := jira.Credentials{CloudID: jiratest.DefaultCloudID, RefreshToken: jiratest.DefaultRefreshToken,
		ClientID: jiratest.DefaultClientID, ClientSecret: jiratest.DefaultClientSecret}
	run := func(t *testing.T, store tributary.TokenStore) (*jiratest.Server, []error) {
		srv := jiratest.New()
		t.Cleanup(srv.Close)
		var conns []*jira.Client
		for range 2 {
			c, err := jira.New(creds, tributary.WithBaseURL(srv.URL), fast, tributary.WithTokenStore(store))
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
		}
		var mu sync.Mutex
		var errs []error
		for range rounds {
			var wg sync.WaitGroup
			for _, c := range conns {
				for range 3 {
					wg.Go(func() {
						if _, err := c.List(context.Background(), "statuses", nil); err != nil {
							mu.Lock()
							errs = append(errs, err)
							mu.Unlock()
						}
					})
				}
			}
			wg.Wait()
			srv.ExpireAccessTokens()
		}
		return srv, errs
	}
	t.Run("shared store", func(t *testing.T) {
		srv, errs := run(t, &fakeserver.TokenStore{})
		if len(errs) > 0 {
			t.Fatalf("%d calls failed, first: %v", len(errs), errs[0])
		}
		if err := srv.CheckRotatedRefreshes(jiratest.TokenPath, rounds); err != nil {
			t.Error(err)
		}
	})
	t.Run("without a store the second connector fails", func(t *testing.T) {
		_, errs := run(t, nil)
		if len(errs) == 0 {
			t.Fatal("no call failed: the test cannot tell a shared refresh from two")
		}
		if !errors.Is(errs[0], tributary.ErrUnauthorized) || !strings.Contains(errs[0].Error(), "unauthorized_client") {
			t.Errorf("failure %v, want ErrUnauthorized with unauthorized_client", errs[0])
		}
	})
}
