package notion_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/connect"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/notion"
	"github.com/tributary-dev/tributary/kinds/notion/notiontest"
)

// Notion's consent carries owner=user; the exchange goes to the token
// endpoint as JSON with the client in HTTP Basic (a form is refused), and
// keeps workspace_id and bot_id; an access token Notion no longer accepts
// is refreshed, as JSON, and the new refresh token (the old one is spent)
// reaches WithTokenRefresh.
func TestOAuthJSONExchangeAndRotatingRefresh(t *testing.T) {
	srv := notiontest.New()
	defer srv.Close()
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	flow, err := connect.New(notion.Type, connect.Config{ClientID: notiontest.DefaultClientID, ClientSecret: notiontest.DefaultClientSecret,
		RedirectURL: "http://127.0.0.1:9/callback", BaseURL: srv.URL, HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	auth := flow.AuthCodeURL()
	u, _ := url.Parse(auth.URL)
	if q := u.Query(); u.Path != "/v1/oauth/authorize" || q.Get("owner") != "user" || q.Get("response_type") != "code" {
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
	creds, err := flow.Exchange(context.Background(), code, auth.Verifier)
	if err != nil {
		t.Fatal(err)
	}
	if creds["workspace_id"] != notiontest.WorkspaceID || creds["bot_id"] != notiontest.BotID || creds["refresh_token"] == "" || creds["access_token"] == "" {
		t.Fatalf("credentials %v", creds["workspace_id"])
	}
	var exchange map[string]string
	for _, r := range srv.Requests() {
		if r.Path == notiontest.TokenPath {
			id, secret, basic := (&http.Request{Header: r.Header}).BasicAuth()
			if err := json.Unmarshal(r.Body, &exchange); err != nil || !basic || id != notiontest.DefaultClientID || secret != notiontest.DefaultClientSecret {
				t.Fatalf("token request %s (Basic %v): %v", r.Body, basic, err)
			}
		}
	}
	if exchange["grant_type"] != "authorization_code" || exchange["code"] == "" || exchange["client_secret"] != "" {
		t.Errorf("exchange body %v", exchange)
	}

	var rotated []string
	conn, err := kinds.Open(notion.Type, creds, tributary.WithBaseURL(srv.URL), tributary.WithHTTPClient(&http.Client{Transport: srv.Transport()}),
		tributary.WithoutPacing(), tributary.WithTokenRefresh(func(tok *oauth2.Token) { rotated = append(rotated, tok.RefreshToken) }))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := conn.Get(ctx, "users", tributary.Params{"user_id": "me"}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		srv.ExpireAccessTokens()
		if _, err := conn.Get(ctx, "users", tributary.Params{"user_id": "me"}); err != nil {
			t.Fatalf("after the access token expired: %v", err)
		}
	}
	if len(rotated) != 2 || rotated[0] == creds["refresh_token"] || rotated[0] == rotated[1] {
		t.Errorf("refresh tokens handed out %v (first %v)", rotated, creds["refresh_token"])
	}

	// What the token endpoint refuses: a spent refresh token, a form, a
	// client outside HTTP Basic; the last refresh token is good once.
	grant := func(body, contentType string, basic bool) (int, string) {
		req, _ := http.NewRequest("POST", srv.TokenURL(), strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		if basic {
			req.SetBasicAuth(notiontest.DefaultClientID, notiontest.DefaultClientSecret)
		}
		res, err := srv.Transport().RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var e struct{ Error string }
		_ = json.NewDecoder(res.Body).Decode(&e)
		return res.StatusCode, e.Error
	}
	refresh := func(rt string) string { return `{"grant_type": "refresh_token", "refresh_token": "` + rt + `"}` }
	for _, c := range []struct {
		name, body, contentType string
		basic                   bool
		status                  int
		code                    string
	}{
		{"the first, spent", refresh(rotated[0]), "application/json", true, 400, "invalid_grant"},
		{"the last as a form", "grant_type=refresh_token&refresh_token=" + rotated[1], "application/x-www-form-urlencoded", true, 400, "invalid_request"},
		{"the last without Basic", refresh(rotated[1]), "application/json", false, 401, "invalid_client"},
		{"the last", refresh(rotated[1]), "application/json", true, 200, ""},
		{"the last again", refresh(rotated[1]), "application/json", true, 400, "invalid_grant"},
	} {
		if status, code := grant(c.body, c.contentType, c.basic); status != c.status || code != c.code {
			t.Errorf("refresh with %s: %d %q, want %d %q", c.name, status, code, c.status, c.code)
		}
	}
	direct, err := notion.New(notion.Credentials{Token: notiontest.DefaultToken}, tributary.WithBaseURL(srv.URL),
		tributary.WithHTTPClient(&http.Client{Transport: srv.Transport()}), tributary.WithoutPacing())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := direct.Get(ctx, "users", tributary.Params{"user_id": "me"}); err != nil {
		t.Errorf("the integration's token after the OAuth tokens expired: %v", err)
	}
}
