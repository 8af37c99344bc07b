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
	// credentials); nil uses the library's own transport with a 30 s
	// timeout.
	HTTPClient *http.Client
	// Timeouts bound each token request, as they bound the connector's.
	Timeouts Timeouts
	// JSONBody sends each token request as a JSON object instead of a
	// form (see JSONTokenRequests).
	JSONBody bool
	// OnRefresh receives every token the endpoint issues to this process,
	// so a caller can save rotated refresh tokens; it is called before the
	// token is used. A token adopted from Store (another process's) is not
	// passed to it.
	OnRefresh func(*oauth2.Token)
	// OnToken, when set, receives every token this process starts using,
	// its own (after OnRefresh) and those adopted from Store, before it is
	// used: a kind reads what the token response says about the account
	// (Gong's api_base_url_for_customer) there.
	OnToken func(*oauth2.Token)
	// Store, when set, takes every refresh, so that processes holding the
	// same credentials spend each refresh token once (see TokenStore).
	Store TokenStore
	// Grant, when set, obtains each new access token in place of the
	// refresh token: a grant that needs none, such as a service account's
	// signed JWT (golang.org/x/oauth2/jwt's Config.TokenSource). ctx is
	// the request's, carrying HTTPClient as oauth2.HTTPClient; the token
	// is cached, serialized, retried and its failures classified as a
	// refresh's.
	Grant func(ctx context.Context) oauth2.TokenSource
}

// TokenStore shares OAuth tokens between processes that hold the same
// credentials, so that a refresh token is spent once across all of them.
// It has the shape of tributary.TokenStore, which the kinds pass here.
type TokenStore interface {
	// Refresh is called in place of every refresh. Holding a lock that
	// every process sharing the credentials respects, it loads the newest
	// saved token; when that token differs from stale and has not expired,
	// it returns it without refreshing; otherwise it calls refresh with the
	// saved refresh token ("" when nothing is saved: the process's own is
	// used), saves what refresh returns and returns it. stale is the token
	// this process holds (nil if none). refresh must be called before
	// Refresh returns. Its errors are returned as they are (or wrapped with
	// %w); others, the store's own, become ErrTokenUnavailable, wrapped as
	// they are: they must not carry token values.
	Refresh(ctx context.Context, stale *oauth2.Token, refresh func(ctx context.Context, refreshToken string) (*oauth2.Token, error)) (*oauth2.Token, error)
}

// OAuth returns an Auth that sends `Bearer <access token>` and refreshes the
// token through the token endpoint when it expires. Refreshes are
// serialized, so a single-use refresh token is never spent twice by the
// process; cfg.Store extends that to every process sharing the credentials.
func OAuth(cfg OAuthConfig) (Auth, TokenSource) {
	hc := HTTPClient(cfg.HTTPClient, cfg.Timeouts, tokenTimeout)
	if cfg.JSONBody {
		hc.Transport = JSONTokenRequests(hc.Transport)
	}
	conf := &oauth2.Config{
		ClientID:     cfg.ClientID,
		ClientSecret: cfg.ClientSecret,
		Endpoint:     oauth2.Endpoint{TokenURL: cfg.TokenURL, AuthStyle: cfg.AuthStyle},
	}
	refresher := &rotating{conf: conf, hc: hc, refresh: cfg.RefreshToken, onRefresh: cfg.OnRefresh, onToken: cfg.OnToken, store: cfg.Store, grant: cfg.Grant}
	c := &tokenCache{src: refresher, now: time.Now, turn: make(chan struct{}, 1)}
	if cfg.AccessToken != "" {
		c.tok = &oauth2.Token{AccessToken: cfg.AccessToken, RefreshToken: cfg.RefreshToken, Expiry: cfg.Expiry, TokenType: "Bearer"}
		c.given = true
		c.last = c.tok
	}
	return &oauthAuth{cache: c}, c
}

// TokenSource is the token source of an OAuth Auth: TokenContext refreshes
// under a context (cancelled with it); Token uses none.
type TokenSource interface {
	oauth2.TokenSource
	TokenContext(ctx context.Context) (*oauth2.Token, error)
}

// Rejecter is implemented by an Auth whose credentials can be renewed: when
// the connector's origin answers 401, the transport calls Reject with the
// Authorization the request carried, and retries once with fresh
// credentials when it returns true.
type Rejecter interface {
	Reject(authorization string) bool
}

// Accepter is implemented by an Auth that learns which credentials work:
// the transport calls Accept with the Authorization of every request the
// connector's origin answered with a 2xx.
type Accepter interface {
	Accept(authorization string)
}

// oauthAuth sends the cache's tokens and lets the transport reject them.
type oauthAuth struct{ cache *tokenCache }

func (a *oauthAuth) Apply(req *http.Request) error {
	tok, err := a.cache.TokenContext(req.Context())
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	return nil
}

func (a *oauthAuth) Reject(authorization string) bool { return a.cache.reject(authorization) }

func (a *oauthAuth) Accept(authorization string) { a.cache.accept(authorization) }

// freshFor is how long a token just obtained from the endpoint is trusted:
// a 401 to it is final, not a reason to refresh again.
const freshFor = 30 * time.Second

// tokenCache hands out the current token and refreshes it when it has
// expired or was rejected. Refreshes are serialized (one at a time, and a
// caller waiting for its turn gives up when its context ends): a
// single-use refresh token is never spent twice.
type tokenCache struct {
	turn     chan struct{} // held while a refresh runs
	mu       sync.Mutex    // guards tok, last, given, proven, obtained
	src      *rotating
	tok      *oauth2.Token
	last     *oauth2.Token // the newest token held, kept when tok is dropped
	given    bool          // tok is the caller's or another process's, of unknown age
	proven   bool          // a request with tok has succeeded
	obtained time.Time
	now      func() time.Time
}

// Token implements oauth2.TokenSource.
func (c *tokenCache) Token() (*oauth2.Token, error) { return c.TokenContext(context.Background()) }

func (c *tokenCache) current() *oauth2.Token {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok != nil && c.tok.Valid() {
		return c.tok
	}
	return nil
}

// TokenContext returns a valid token, refreshing it under ctx if needed.
func (c *tokenCache) TokenContext(ctx context.Context) (*oauth2.Token, error) {
	if tok := c.current(); tok != nil {
		return tok, nil
	}
	select {
	case c.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-c.turn }()
	if tok := c.current(); tok != nil {
		return tok, nil // refreshed by the caller before us
	}
	c.mu.Lock()
	stale := c.last
	c.mu.Unlock()
	tok, adopted, err := c.src.obtain(ctx, stale)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	// A token adopted from the store is of unknown standing, like the
	// caller's: a 401 to it leads to a refresh.
	c.tok, c.last, c.given, c.proven, c.obtained = tok, tok, adopted, false, c.now()
	c.mu.Unlock()
	return tok, nil
}

// reject drops the current token when the rejected request carried it and
// it is the caller's, or has worked before, or is not fresh; it reports
// whether a retry can succeed. A token fresh from the endpoint that has
// never worked is not refreshed again: the credentials are wrong, and a
// refresh would loop.
func (c *tokenCache) reject(authorization string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok == nil {
		return true // another request dropped it: the retry refreshes
	}
	if authorization != "Bearer "+c.tok.AccessToken {
		return true // another request already replaced it
	}
	if !c.given && !c.proven && c.now().Sub(c.obtained) < freshFor {
		return false
	}
	c.tok = nil
	return true
}

// accept records that the current token worked, when the request carried it.
func (c *tokenCache) accept(authorization string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok != nil && !c.proven && authorization == "Bearer "+c.tok.AccessToken {
		c.proven = true
	}
}

// TokenAuth sends the tokens of ts as Bearer credentials; a source with
// TokenContext refreshes under the request's context.
func TokenAuth(ts oauth2.TokenSource) Auth {
	return AuthFunc(func(req *http.Request) error {
		var tok *oauth2.Token
		var err error
		if cts, ok := ts.(interface {
			TokenContext(context.Context) (*oauth2.Token, error)
		}); ok {
			tok, err = cts.TokenContext(req.Context())
		} else {
			tok, err = ts.Token()
		}
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		return nil
	})
}

// ErrTokenUnavailable wraps a token refresh that failed for a reason that
// may pass (the endpoint's 5xx or 429, a dropped connection), after the
// refresher's own retries: it is not a credentials problem.
var ErrTokenUnavailable = errors.New("the token endpoint is unavailable")

// rotating refreshes with the newest refresh token it has seen and reports
// each new token. tokenCache serializes its calls.
type rotating struct {
	mu        sync.Mutex // guards refresh; held during a refresh
	conf      *oauth2.Config
	hc        *http.Client
	refresh   string
	onRefresh func(*oauth2.Token)
	onToken   func(*oauth2.Token)
	store     TokenStore
	grant     func(context.Context) oauth2.TokenSource
}

// obtain returns the token to use in place of stale: refreshed by this
// process, or, with a store, perhaps adopted from another process (adopted
// true), whose refresh token this process then holds too.
func (r *rotating) obtain(ctx context.Context, stale *oauth2.Token) (tok *oauth2.Token, adopted bool, err error) {
	if r.store == nil {
		tok, err = r.refreshContext(ctx)
	} else {
		tok, adopted, err = r.viaStore(ctx, stale)
	}
	if err != nil {
		return nil, false, err
	}
	if r.onToken != nil {
		r.onToken(tok)
	}
	return tok, adopted, nil
}

// viaStore refreshes through the store.
func (r *rotating) viaStore(ctx context.Context, stale *oauth2.Token) (*oauth2.Token, bool, error) {
	var own *oauth2.Token // the token this process obtained, if it refreshed
	var refreshErr error
	tok, err := r.store.Refresh(ctx, stale, func(ctx context.Context, refreshToken string) (*oauth2.Token, error) {
		t, err := r.refreshWith(ctx, refreshToken)
		if err != nil {
			refreshErr = err
			return nil, err
		}
		own = t
		return t, nil
	})
	switch {
	case err != nil && refreshErr != nil && errors.Is(err, refreshErr):
		return nil, false, err
	case err != nil && ctx.Err() != nil:
		return nil, false, ctx.Err()
	case err != nil:
		// The store's own failure (its database, its lock) says nothing
		// about the credentials: it may pass.
		return nil, false, fmt.Errorf("%w: the token store failed: %w", ErrTokenUnavailable, err)
	case tok == nil || tok.AccessToken == "":
		return nil, false, fmt.Errorf("%w: the token store returned no access token", ErrTokenUnavailable)
	}
	adopted := own == nil || own.AccessToken != tok.AccessToken
	if adopted && tok.RefreshToken != "" {
		r.mu.Lock()
		r.refresh = tok.RefreshToken
		r.mu.Unlock()
	}
	return tok, adopted, nil
}

// Token implements oauth2.TokenSource.
func (r *rotating) Token() (*oauth2.Token, error) { return r.refreshContext(context.Background()) }

// tokenTimeout bounds one token request of the library's own client.
const tokenTimeout = 30 * time.Second

// tokenAttempts bounds the tries of one refresh when the endpoint fails
// transiently; tokenBackoff is the first wait between them.
const (
	tokenAttempts = 3
	tokenBackoff  = 250 * time.Millisecond
)

// refreshContext obtains a new token, under ctx: the request is cancelled
// with it, and a transient failure is tried again (at most tokenAttempts
// times), never past ctx.
func (r *rotating) refreshContext(ctx context.Context) (*oauth2.Token, error) {
	return r.refreshWith(ctx, "")
}

// refreshWith is refreshContext with the refresh token rt ("": the newest
// this process holds), which it then holds.
func (r *rotating) refreshWith(ctx context.Context, rt string) (*oauth2.Token, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rt != "" {
		r.refresh = rt
	}
	if r.refresh == "" && r.grant == nil {
		return nil, errors.New("the access token expired and no refresh token was given")
	}
	hctx := context.WithValue(ctx, oauth2.HTTPClient, r.hc)
	var tok *oauth2.Token
	var err error
	for attempt := range tokenAttempts {
		if r.grant != nil {
			tok, err = r.grant(hctx).Token()
		} else {
			tok, err = r.conf.TokenSource(hctx, &oauth2.Token{RefreshToken: r.refresh}).Token()
		}
		if err == nil || !transientTokenError(ctx, err) || attempt == tokenAttempts-1 {
			break
		}
		t := time.NewTimer(tokenBackoff << attempt)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
	}
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		basic := base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(r.conf.ClientID) + ":" + url.QueryEscape(r.conf.ClientSecret)))
		serr := sanitizeTokenError(err, r.conf.ClientSecret, r.refresh, basic, url.QueryEscape(r.conf.ClientSecret), url.QueryEscape(r.refresh))
		if transientTokenError(ctx, err) {
			return nil, fmt.Errorf("%w: %w", ErrTokenUnavailable, serr)
		}
		return nil, serr
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

// transientTokenError reports whether a refresh failed for a reason that
// may pass: the endpoint answered 5xx or 429, or the connection failed.
func transientTokenError(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if re.Response == nil {
			return false
		}
		return re.Response.StatusCode >= 500 || re.Response.StatusCode == http.StatusTooManyRequests
	}
	var ue *url.Error
	return errors.As(err, &ue)
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
