package connect_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/connect"
	"github.com/tributary-dev/tributary/internal/fakes"
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/github/githubtest"
	"github.com/tributary-dev/tributary/kinds/gong/gongtest"
	"github.com/tributary-dev/tributary/kinds/hubspot/hubspottest"
	"github.com/tributary-dev/tributary/kinds/intercom/intercomtest"
	"github.com/tributary-dev/tributary/kinds/mailchimp/mailchimptest"
	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

const redirectURL = "http://127.0.0.1:9/callback"

// fake is one kind's fake, as the tests need it.
type fake struct {
	url                    string
	clientID, clientSecret string
	inputs                 map[string]string
	clock                  *fakeserver.Clock
	close                  func()
	// want are fields the credentials must hold with these values;
	// "*" means any non-empty value.
	want map[string]string
	// entity is listed with the credentials produced: a cheap read.
	entity string
	params tributary.Params
	// optional are fields the credentials may also hold.
	optional map[string]bool
}

func start(t *testing.T, kind string) fake {
	t.Helper()
	switch kind {
	case "github":
		s := githubtest.New()
		return fake{url: s.URL, clientID: githubtest.DefaultClientID, clientSecret: githubtest.DefaultClientSecret,
			clock: s.Clock(), close: s.Close, entity: "viewer_repositories",
			want: map[string]string{"access_token": githubtest.DefaultAccessToken}}
	case "hubspot":
		s := hubspottest.New()
		return fake{url: s.URL, clientID: hubspottest.DefaultClientID, clientSecret: hubspottest.DefaultClientSecret,
			clock: s.Clock(), close: s.Close, entity: "contacts",
			want: map[string]string{"client_id": hubspottest.DefaultClientID, "client_secret": hubspottest.DefaultClientSecret,
				"refresh_token": hubspottest.DefaultRefreshToken, "access_token": "*"}}
	case "intercom":
		s := intercomtest.New()
		return fake{url: s.URL, clientID: intercomtest.DefaultClientID, clientSecret: intercomtest.DefaultClientSecret,
			clock: s.Clock(), close: s.Close, entity: "admins",
			want: map[string]string{"access_token": intercomtest.DefaultAccessToken}}
	case "mailchimp":
		s := mailchimptest.New()
		return fake{url: s.URL, clientID: mailchimptest.DefaultClientID, clientSecret: mailchimptest.DefaultClientSecret,
			clock: s.Clock(), close: s.Close, entity: "lists",
			want: map[string]string{"access_token": mailchimptest.DefaultAccessToken, "data_center": "us6"}}
	case "gong":
		s := gongtest.New()
		return fake{url: s.URL, clientID: gongtest.DefaultClientID, clientSecret: gongtest.DefaultClientSecret,
			clock: s.Clock(), close: s.Close, entity: "users",
			want: map[string]string{"access_token": "*", "refresh_token": "*", "client_id": gongtest.DefaultClientID,
				"client_secret": gongtest.DefaultClientSecret, "api_base_url": s.URL}}
	case "salesforce":
		s := salesforcetest.New()
		return fake{url: s.URL, clientID: salesforcetest.DefaultClientID, clientSecret: salesforcetest.DefaultClientSecret,
			clock: s.Clock(), close: s.Close, entity: "query", params: tributary.Params{"q": "SELECT Id FROM Account LIMIT 1"},
			want: map[string]string{"access_token": "*", "refresh_token": salesforcetest.DefaultRefreshToken,
				"client_id": salesforcetest.DefaultClientID, "client_secret": salesforcetest.DefaultClientSecret,
				"instance_url": s.URL}}
	case "zendesk-support":
		s := zendesktest.New()
		return fake{url: s.URL, clientID: zendesktest.DefaultClientID, clientSecret: zendesktest.DefaultClientSecret,
			inputs: map[string]string{"subdomain": zendesktest.DefaultSubdomain},
			clock:  s.Clock(), close: s.Close, entity: "groups",
			want: map[string]string{"subdomain": zendesktest.DefaultSubdomain, "access_token": "*", "refresh_token": "*",
				"client_id": zendesktest.DefaultClientID, "client_secret": zendesktest.DefaultClientSecret}}
	}
	// Every other kind (internal/fakes): its fake's OAuth client and
	// inputs, the fields its OAuth app declares, and its main entity.
	k, ok := fakes.Of(kind)
	if !ok {
		t.Fatalf("no fake for %s", kind)
	}
	app, err := kinds.OAuthApp(kind)
	if err != nil {
		t.Fatal(err)
	}
	s := k.Start(0)
	f := fake{url: s.BaseURL(), clientID: k.OAuth.ClientID, clientSecret: k.OAuth.ClientSecret, inputs: k.OAuth.Inputs,
		clock: s.Clock(), close: s.Close, entity: k.Main, want: map[string]string{}, optional: map[string]bool{}}
	for _, fld := range app.Credentials {
		if fld.Optional {
			f.optional[fld.Name] = true
		} else {
			f.want[fld.Name] = "*"
		}
	}
	return f
}

func (f fake) flow(t *testing.T, kind string, edit func(*connect.Config)) *connect.Flow {
	t.Helper()
	cfg := connect.Config{ClientID: f.clientID, ClientSecret: f.clientSecret, RedirectURL: redirectURL,
		Inputs: f.inputs, BaseURL: f.url}
	if edit != nil {
		edit(&cfg)
	}
	fl, err := connect.New(kind, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return fl
}

// consent answers the fake's consent page as a user would (GET the page,
// submit its form) and returns the query the browser is redirected with.
func consent(t *testing.T, authURL, decision string) url.Values {
	t.Helper()
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := hc.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("consent page: %s %s", res.Status, res.Header.Get("Content-Type"))
	}
	res, err = hc.PostForm(authURL, url.Values{"decision": {decision}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc, err := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != http.StatusFound || err != nil || !strings.HasPrefix(loc.String(), redirectURL) {
		t.Fatalf("consent answer: %s, Location %q", res.Status, res.Header.Get("Location"))
	}
	return loc.Query()
}

// approve runs a flow up to the code.
func approve(t *testing.T, fl *connect.Flow) (code string, auth connect.Authorization) {
	t.Helper()
	auth = fl.AuthCodeURL()
	code, err := fl.Callback(consent(t, auth.URL, "approve"), auth.State)
	if err != nil {
		t.Fatal(err)
	}
	return code, auth
}

// allKinds are every kind of this build.
var allKinds = kinds.Types()

// Every kind's flow produces the credentials its Open takes, with the
// vendor's extras, and they read from the fake.
func TestExchangeEveryKind(t *testing.T) {
	for _, kind := range allKinds {
		t.Run(kind, func(t *testing.T) {
			f := start(t, kind)
			defer f.close()
			fl := f.flow(t, kind, nil)
			code, auth := approve(t, fl)
			if fl.App().PKCE != (auth.Verifier != "") {
				t.Errorf("PKCE %v, verifier given %v", fl.App().PKCE, auth.Verifier != "")
			}
			creds, err := fl.Exchange(context.Background(), code, auth.Verifier)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range f.want {
				got, _ := creds[k].(string)
				if got == "" || (v != "*" && got != v) {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			for k := range creds {
				if _, ok := f.want[k]; !ok && !f.optional[k] {
					t.Errorf("credentials have fields %v, want %d", keys(creds), len(f.want))
					break
				}
			}
			conn, err := kinds.Open(kind, creds, tributary.WithBaseURL(f.url), tributary.WithRetry(tributary.RetryPolicy{}))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := conn.List(context.Background(), f.entity, f.params); err != nil {
				t.Fatalf("list %s with the new credentials: %v", f.entity, err)
			}
		})
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// checkNoSecret fails when err's text holds any of the secrets.
func checkNoSecret(t *testing.T, err error, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if s != "" && strings.Contains(err.Error(), s) {
			t.Errorf("error %q holds a secret", err)
		}
	}
}

func TestRefusals(t *testing.T) {
	ctx := context.Background()
	for _, kind := range allKinds {
		t.Run(kind, func(t *testing.T) {
			f := start(t, kind)
			defer f.close()
			fl := f.flow(t, kind, nil)
			refused := func(t *testing.T, err error, secrets ...string) {
				t.Helper()
				var ce *connect.Error
				if !errors.Is(err, connect.ErrRefused) || !errors.As(err, &ce) || ce.Code == "" {
					t.Fatalf("err = %v, want ErrRefused with the vendor's code", err)
				}
				checkNoSecret(t, err, append(secrets, f.clientSecret)...)
			}

			t.Run("replayed code", func(t *testing.T) {
				code, auth := approve(t, fl)
				if _, err := fl.Exchange(ctx, code, auth.Verifier); err != nil {
					t.Fatal(err)
				}
				_, err := fl.Exchange(ctx, code, auth.Verifier)
				refused(t, err, code, auth.Verifier)
			})
			t.Run("wrong client secret", func(t *testing.T) {
				code, auth := approve(t, fl)
				bad := f.flow(t, kind, func(c *connect.Config) { c.ClientSecret = "WRONG-SECRET-123" })
				_, err := bad.Exchange(ctx, code, auth.Verifier)
				refused(t, err, code, "WRONG-SECRET-123")
			})
			t.Run("wrong redirect_uri", func(t *testing.T) {
				code, auth := approve(t, fl)
				other := f.flow(t, kind, func(c *connect.Config) { c.RedirectURL = redirectURL + "/other" })
				_, err := other.Exchange(ctx, code, auth.Verifier)
				refused(t, err, code)
			})
			t.Run("expired code", func(t *testing.T) {
				code, auth := approve(t, fl)
				f.clock.Advance(fakeserver.DefaultCodeTTL + time.Second)
				_, err := fl.Exchange(ctx, code, auth.Verifier)
				refused(t, err, code)
			})
			if fl.App().PKCE {
				t.Run("PKCE verifier mismatch", func(t *testing.T) {
					code, _ := approve(t, fl)
					other := fl.AuthCodeURL()
					_, err := fl.Exchange(ctx, code, other.Verifier)
					refused(t, err, code, other.Verifier)
				})
			}
			t.Run("deny", func(t *testing.T) {
				auth := fl.AuthCodeURL()
				_, err := fl.Callback(consent(t, auth.URL, "deny"), auth.State)
				if !errors.Is(err, connect.ErrAccessDenied) {
					t.Fatalf("err = %v, want ErrAccessDenied", err)
				}
			})
			t.Run("foreign state", func(t *testing.T) {
				auth := fl.AuthCodeURL()
				q := consent(t, auth.URL, "approve")
				_, err := fl.Callback(q, fl.AuthCodeURL().State)
				if !errors.Is(err, connect.ErrState) {
					t.Fatalf("err = %v, want ErrState", err)
				}
				checkNoSecret(t, err, q.Get("code"))
			})
		})
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		kind string
		cfg  connect.Config
		want string
	}{
		{"github", connect.Config{ClientSecret: "s3cret", RedirectURL: redirectURL}, "client id"},
		{"github", connect.Config{ClientID: "id", RedirectURL: redirectURL}, "client secret"},
		{"github", connect.Config{ClientID: "id", ClientSecret: "s3cret"}, "redirect URL"},
		{"zendesk-support", connect.Config{ClientID: "id", ClientSecret: "s3cret", RedirectURL: redirectURL}, "subdomain is required"},
		{"zendesk-support", connect.Config{ClientID: "id", ClientSecret: "s3cret", RedirectURL: redirectURL,
			Inputs: map[string]string{"subdomain": "evil.com/x"}}, "DNS label"},
		{"salesforce", connect.Config{ClientID: "id", ClientSecret: "s3cret", RedirectURL: redirectURL,
			Inputs: map[string]string{"login_url": "https://x.my.salesforce.com/path"}}, "origin"},
		{"github", connect.Config{ClientID: "id", ClientSecret: "s3cret", RedirectURL: redirectURL,
			Inputs: map[string]string{"subdomain": "acme"}}, `no input "subdomain"`},
		{"intercom", connect.Config{ClientID: "id", ClientSecret: "s3cret", RedirectURL: redirectURL,
			Inputs: map[string]string{"region": "eu.evil.com"}}, `region "eu.evil.com" is not one of us, eu, au`},
	} {
		_, err := connect.New(tc.kind, tc.cfg)
		if !errors.Is(err, connect.ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: err = %v, want ErrConfig saying %q", tc.kind, tc.cfg, err, tc.want)
		}
		if err != nil {
			checkNoSecret(t, err, "s3cret")
		}
	}
	if _, err := connect.New("nope", connect.Config{}); !errors.Is(err, tributary.ErrUnknownKind) {
		t.Errorf("unknown kind: %v", err)
	}
}

// The vendor's real endpoints, with the inputs filled in.
func TestAuthCodeURL(t *testing.T) {
	for _, tc := range []struct {
		kind   string
		inputs map[string]string
		prefix string
		scope  string
	}{
		{"github", nil, "https://github.com/login/oauth/authorize?", "repo read:org read:user"},
		{"hubspot", nil, "https://app.hubspot.com/oauth/authorize?", "crm.objects.contacts.read"},
		{"intercom", nil, "https://app.intercom.com/oauth?", ""},
		{"intercom", map[string]string{"region": "eu"}, "https://app.eu.intercom.com/oauth?", ""},
		{"intercom", map[string]string{"region": "AU"}, "https://app.au.intercom.com/oauth?", ""},
		{"intercom", map[string]string{"region": "us"}, "https://app.intercom.com/oauth?", ""},
		{"mailchimp", nil, "https://login.mailchimp.com/oauth2/authorize?", ""},
		{"gong", nil, "https://app.gong.io/oauth2/authorize?", "api:calls:read:basic"},
		{"salesforce", nil, "https://login.salesforce.com/services/oauth2/authorize?", "api refresh_token"},
		{"salesforce", map[string]string{"login_url": "https://test.salesforce.com"}, "https://test.salesforce.com/services/oauth2/authorize?", "api"},
		{"zendesk-support", map[string]string{"subdomain": "acme"}, "https://acme.zendesk.com/oauth/authorizations/new?", "read"},
	} {
		fl, err := connect.New(tc.kind, connect.Config{ClientID: "id", ClientSecret: "s3cret", RedirectURL: redirectURL, Inputs: tc.inputs})
		if err != nil {
			t.Fatal(err)
		}
		a := fl.AuthCodeURL()
		u, _ := url.Parse(a.URL)
		q := u.Query()
		if !strings.HasPrefix(a.URL, tc.prefix) || q.Get("state") != a.State || len(a.State) < 20 ||
			q.Get("client_id") != "id" || q.Get("redirect_uri") != redirectURL || !strings.Contains(q.Get("scope"), tc.scope) ||
			q.Get("response_type") != "code" || strings.Contains(a.URL, "s3cret") {
			t.Errorf("%s: %s", tc.kind, a.URL)
		}
		if fl.App().PKCE && (q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || strings.Contains(a.URL, a.Verifier)) {
			t.Errorf("%s: PKCE: %s", tc.kind, a.URL)
		}
		if b := fl.AuthCodeURL(); b.State == a.State || (b.Verifier != "" && b.Verifier == a.Verifier) {
			t.Errorf("%s: state or verifier reused", tc.kind)
		}
	}
}

func TestNoSecretPrinted(t *testing.T) {
	cfg := connect.Config{ClientID: "id", ClientSecret: "s3cret", RedirectURL: redirectURL}
	a := connect.Authorization{URL: "https://x", State: "st", Verifier: "v3rifier"}
	creds := connect.Credentials{"access_token": "t0ken", "refresh_token": "r3fresh", "client_secret": "s3cret", "instance_url": "https://acme.my.salesforce.com"}
	for _, v := range []any{cfg, &cfg, a, creds} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			s := fmt.Sprintf(verb, v)
			for _, secret := range []string{"s3cret", "v3rifier", "t0ken", "r3fresh"} {
				if strings.Contains(s, secret) {
					t.Errorf("%s of %T prints %s: %s", verb, v, secret, s)
				}
			}
		}
	}
	if s := fmt.Sprint(creds); !strings.Contains(s, "acme.my.salesforce.com") {
		t.Errorf("the instance URL is not secret: %s", s)
	}
}

// An Intercom workspace in the EU or Australia consents at its region's
// app host, exchanges the code at its region's API host, and its
// credentials keep the region: the connector they open calls the
// region's API host.
func TestIntercomRegions(t *testing.T) {
	fake := intercomtest.New()
	defer fake.Close()
	to, _ := url.Parse(fake.URL)
	for region, host := range map[string]string{"eu": "eu.intercom", "au": "au.intercom"} {
		t.Run(region, func(t *testing.T) {
			rr := fake.Reroute()
			hc := &http.Client{Transport: rr}
			fl, err := connect.New("intercom", connect.Config{ClientID: intercomtest.DefaultClientID, ClientSecret: intercomtest.DefaultClientSecret, RedirectURL: redirectURL,
				Inputs: map[string]string{"region": region}, HTTPClient: hc})
			if err != nil {
				t.Fatal(err)
			}
			auth := fl.AuthCodeURL()
			if want := "https://app." + host + ".com/oauth?"; !strings.HasPrefix(auth.URL, want) {
				t.Fatalf("consent URL %s, want %s…", auth.URL, want)
			}
			// The user consents on the fake's copy of the page.
			u, _ := url.Parse(auth.URL)
			u.Scheme, u.Host = to.Scheme, to.Host
			code, err := fl.Callback(consent(t, u.String(), "approve"), auth.State)
			if err != nil {
				t.Fatal(err)
			}
			creds, err := fl.Exchange(context.Background(), code, auth.Verifier)
			if err != nil {
				t.Fatal(err)
			}
			if got := rr.Sent(); !slices.Equal(got, []string{"https://api." + host + ".io/auth/eagle/token"}) {
				t.Errorf("the exchange went to %q", got)
			}
			if creds["region"] != region || creds["access_token"] != intercomtest.DefaultAccessToken {
				t.Errorf("credentials %v, want the region %q kept", creds, region)
			}
			conn, err := kinds.Open("intercom", creds, tributary.WithHTTPClient(&http.Client{Transport: rr}), tributary.WithRetry(tributary.RetryPolicy{}))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := conn.List(context.Background(), "admins", nil); err != nil {
				t.Fatal(err)
			}
			if got := rr.Sent(); len(got) != 2 || got[1] != "https://api."+host+".io/admins" {
				t.Errorf("the connector called %q, want https://api.%s.io/admins", got[1:], host)
			}
		})
	}
}
