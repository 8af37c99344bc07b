package transport

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// OAuthConfig describes an OAuth 2.0 client with a refresh token.
type OAuthConfig struct {
	// TokenURL is the full URL of the token endpoint.
	TokenURL string
	// AuthStyle says how the client credentials travel (form body or Basic).
	AuthStyle              oauth2.AuthStyle
	ClientID, ClientSecret string
	// AccessToken, when set, is used until it expires (Expiry zero: until
	// the source rejects it).
	AccessToken string
	Expiry      time.Time
	// RefreshToken obtains new access tokens.
	RefreshToken string
	// HTTPClient sends the token requests (never with the connector's
	// credentials); nil uses a plain client with a 30 s timeout.
	HTTPClient *http.Client
	// OnRefresh receives every token the endpoint issues, so a caller can
	// save rotated refresh tokens; it is called before the token is used.
	OnRefresh func(*oauth2.Token)
}

// OAuth returns an Auth that sends `Bearer <access token>` and refreshes the
// token through the token endpoint when it expires. Refreshes are
// serialized, so a single-use refresh token is never spent twice.
func OAuth(cfg OAuthConfig) (Auth, oauth2.TokenSource) {
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	conf := &oauth2.Config{
		ClientID:     cfg.ClientID,
		ClientSecret: cfg.ClientSecret,
		Endpoint:     oauth2.Endpoint{TokenURL: cfg.TokenURL, AuthStyle: cfg.AuthStyle},
	}
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, hc)
	refresher := &rotating{conf: conf, ctx: ctx, refresh: cfg.RefreshToken, onRefresh: cfg.OnRefresh}
	c := &tokenCache{src: refresher, now: time.Now}
	if cfg.AccessToken != "" {
		c.tok = &oauth2.Token{AccessToken: cfg.AccessToken, RefreshToken: cfg.RefreshToken, Expiry: cfg.Expiry, TokenType: "Bearer"}
		c.given = true
	}
	return &oauthAuth{cache: c}, c
}

// Rejecter is implemented by an Auth whose credentials can be renewed: when
// the connector's origin answers 401, the transport calls Reject with the
// Authorization the request carried, and retries once with fresh
// credentials when it returns true.
type Rejecter interface {
	Reject(authorization string) bool
}

// oauthAuth sends the cache's tokens and lets the transport reject them.
type oauthAuth struct{ cache *tokenCache }

func (a *oauthAuth) Apply(req *http.Request) error {
	tok, err := a.cache.Token()
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	return nil
}

func (a *oauthAuth) Reject(authorization string) bool { return a.cache.reject(authorization) }

// freshFor is how long a token just obtained from the endpoint is trusted:
// a 401 to it is final, not a reason to refresh again.
const freshFor = 30 * time.Second

// tokenCache hands out the current token and refreshes it when it has
// expired or was rejected. Refreshes are serialized: a single-use refresh
// token is never spent twice.
type tokenCache struct {
	mu       sync.Mutex
	src      oauth2.TokenSource
	tok      *oauth2.Token
	given    bool // tok is the caller's, of unknown age
	obtained time.Time
	now      func() time.Time
}

// Token implements oauth2.TokenSource.
func (c *tokenCache) Token() (*oauth2.Token, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok != nil && c.tok.Valid() {
		return c.tok, nil
	}
	tok, err := c.src.Token()
	if err != nil {
		return nil, err
	}
	c.tok, c.given, c.obtained = tok, false, c.now()
	return tok, nil
}

// reject drops the current token when the rejected request carried it and
// it is the caller's or not fresh; it reports whether a retry can succeed.
func (c *tokenCache) reject(authorization string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok == nil || authorization != "Bearer "+c.tok.AccessToken {
		return c.tok != nil // another request already replaced it
	}
	if !c.given && c.now().Sub(c.obtained) < freshFor {
		return false
	}
	c.tok = nil
	return true
}

// TokenAuth sends the tokens of ts as Bearer credentials.
func TokenAuth(ts oauth2.TokenSource) Auth {
	return AuthFunc(func(req *http.Request) error {
		tok, err := ts.Token()
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		return nil
	})
}

// rotating refreshes with the newest refresh token it has seen and reports
// each new token. ReuseTokenSource serializes calls to Token.
type rotating struct {
	mu        sync.Mutex
	conf      *oauth2.Config
	ctx       context.Context
	refresh   string
	onRefresh func(*oauth2.Token)
}

func (r *rotating) Token() (*oauth2.Token, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refresh == "" {
		return nil, errors.New("the access token expired and no refresh token was given")
	}
	tok, err := r.conf.TokenSource(r.ctx, &oauth2.Token{RefreshToken: r.refresh}).Token()
	if err != nil {
		basic := base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(r.conf.ClientID) + ":" + url.QueryEscape(r.conf.ClientSecret)))
		return nil, sanitizeTokenError(err, r.conf.ClientSecret, r.refresh, basic, url.QueryEscape(r.conf.ClientSecret), url.QueryEscape(r.refresh))
	}
	if tok.RefreshToken != "" {
		r.refresh = tok.RefreshToken
	} else {
		tok.RefreshToken = r.refresh
	}
	if r.onRefresh != nil {
		r.onRefresh(tok)
	}
	return tok, nil
}

// sanitizeTokenError keeps the endpoint's error code and description and
// drops the raw body, which could echo what was sent; the secrets sent are
// redacted from what is kept.
func sanitizeTokenError(err error, secrets ...string) error {
	hide := func(s string) string {
		for _, sec := range secrets {
			if len(sec) >= 4 {
				s = strings.ReplaceAll(s, sec, "[REDACTED]")
			}
		}
		return s
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		status := 0
		if re.Response != nil {
			status = re.Response.StatusCode
		}
		msg := fmt.Sprintf("token refresh failed (HTTP %d)", status)
		if re.ErrorCode != "" {
			msg += ": " + re.ErrorCode
		}
		if re.ErrorDescription != "" {
			msg += ": " + re.ErrorDescription
		}
		return errors.New(hide(msg))
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = RedactURL(ue.URL)
	}
	return errors.New(hide("token refresh failed: " + err.Error()))
}
