package googledrive_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/connect"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/googledrive"
	"github.com/tributary-dev/tributary/kinds/googledrive/googledrivetest"
)

// Google's consent asks for offline access and consent (else no refresh
// token), with PKCE S256 and the drive.readonly scope; the exchange gives
// credentials that open the connector, and an access token Google no
// longer accepts is refreshed at the token endpoint, once.
func TestOAuthConsentAndRefresh(t *testing.T) {
	srv := googledrivetest.New()
	defer srv.Close()
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	flow, err := connect.New(googledrive.Type, connect.Config{ClientID: googledrivetest.DefaultClientID, ClientSecret: googledrivetest.DefaultClientSecret,
		RedirectURL: "http://127.0.0.1:9/callback", BaseURL: srv.URL, HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	auth := flow.AuthCodeURL()
	u, _ := url.Parse(auth.URL)
	q := u.Query()
	if u.Path != "/o/oauth2/v2/auth" || q.Get("access_type") != "offline" || q.Get("prompt") != "consent" || q.Get("code_challenge_method") != "S256" ||
		q.Get("code_challenge") == "" || q.Get("scope") != googledrive.ReadOnlyScope {
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
	if _, err := flow.Exchange(context.Background(), code, "not-the-verifier"); err == nil {
		t.Fatal("an exchange with the wrong PKCE verifier succeeded")
	}
	res, _ = hc.PostForm(auth.URL, url.Values{"decision": {"approve"}})
	res.Body.Close()
	loc, _ = url.Parse(res.Header.Get("Location"))
	code, _ = flow.Callback(loc.Query(), auth.State)
	creds, err := flow.Exchange(context.Background(), code, auth.Verifier)
	if err != nil {
		t.Fatal(err)
	}
	if creds["refresh_token"] == "" || creds["client_id"] != googledrivetest.DefaultClientID || creds["access_token"] == "" {
		t.Fatalf("credentials with fields %d", len(creds))
	}
	refreshed := 0
	conn, err := kinds.Open(googledrive.Type, creds, tributary.WithBaseURL(srv.URL), tributary.WithHTTPClient(&http.Client{Transport: srv.Transport()}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := conn.List(ctx, "files", tributary.Params{"pageSize": 1}); err != nil {
		t.Fatal(err)
	}
	srv.ExpireAccessTokens()
	srv.ResetRequests()
	if _, err := conn.List(ctx, "files", tributary.Params{"pageSize": 1}); err != nil {
		t.Fatalf("after the access token expired: %v", err)
	}
	for _, r := range srv.Requests() {
		if r.Path == googledrivetest.TokenPath {
			refreshed++
			if f, _ := url.ParseQuery(string(r.Body)); f.Get("grant_type") != "refresh_token" || f.Get("refresh_token") != creds["refresh_token"] {
				t.Errorf("token request %s", r.Body)
			}
		}
	}
	if refreshed != 1 {
		t.Errorf("%d refreshes, want 1", refreshed)
	}
}

// A service account's key: the connector signs a JWT for drive.readonly
// (acting as subject), exchanges it at Google's token endpoint (here the
// fake's, following WithBaseURL) and reads with the access token it gets;
// a key Google does not know is refused as credentials, and the key never
// shows in an error.
func TestServiceAccount(t *testing.T) {
	srv := googledrivetest.New()
	defer srv.Close()
	ctx := context.Background()
	open := func(key string) tributary.Connector {
		c, err := googledrive.Open(map[string]any{"service_account_json": key, "subject": googledrivetest.DefaultEmail},
			tributary.WithBaseURL(srv.URL), tributary.WithHTTPClient(&http.Client{Transport: srv.Transport()}),
			tributary.WithRetry(tributary.RetryPolicy{}))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	page, err := open(googledrivetest.ServiceAccountKey()).List(ctx, "files", tributary.Params{"pageSize": 2})
	if err != nil || len(page.Records) != 2 {
		t.Fatalf("%v, %d records", err, len(page.Records))
	}
	var grants, bearer int
	for _, r := range srv.Requests() {
		if r.Path == googledrivetest.TokenPath {
			f, _ := url.ParseQuery(string(r.Body))
			if f.Get("grant_type") == "urn:ietf:params:oauth:grant-type:jwt-bearer" && strings.Count(f.Get("assertion"), ".") == 2 {
				grants++
			}
		} else if strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ya29.fake-access-") {
			bearer++
		}
	}
	if grants != 1 || bearer != 1 {
		t.Errorf("%d JWT grants, %d requests with the token they gave", grants, bearer)
	}
	// The access token expires: the 401 leads to a new JWT, once.
	sa, err := googledrive.Open(map[string]any{"service_account_json": googledrivetest.ServiceAccountKey()},
		tributary.WithBaseURL(srv.URL), tributary.WithHTTPClient(&http.Client{Transport: srv.Transport()}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sa.List(ctx, "drives", nil); err != nil {
		t.Fatal(err)
	}
	srv.ExpireAccessTokens()
	srv.ResetRequests()
	if _, err := sa.List(ctx, "drives", nil); err != nil {
		t.Fatalf("after the access token expired: %v", err)
	}
	if got := len(srv.Requests()); got != 3 { // 401, the grant, the retry
		t.Errorf("%d requests after the token expired, want 3", got)
	}

	other, _ := rsa.GenerateKey(rand.Reader, 1024)
	der, _ := x509.MarshalPKCS8PrivateKey(other)
	var key map[string]string
	_ = json.Unmarshal([]byte(googledrivetest.ServiceAccountKey()), &key)
	key["private_key"] = string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	forged, _ := json.Marshal(key)
	_, err = open(string(forged)).List(ctx, "files", nil)
	if !errors.Is(err, tributary.ErrUnauthorized) || strings.Contains(err.Error(), "PRIVATE KEY") {
		t.Errorf("a key Google does not know: %v", err)
	}
}
