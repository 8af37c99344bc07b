// Package connect obtains a kind's credentials through the vendor's OAuth
// 2.0 authorization-code flow: send the user to the vendor's consent page,
// take the code the vendor redirects back with, exchange it, run the
// vendor's post-exchange step, and get back the credentials object that
// kinds.Open and the hosted create call take.
//
// The flow is split so that a service can run it across requests: New and
// AuthCodeURL in one (keep the returned State and Verifier, e.g. in the
// user's session), Callback and Exchange in another. Each kind's flow is
// described as data by kinds.OAuthApp.
//
//	flow, err := connect.New("hubspot", connect.Config{ClientID: id, ClientSecret: secret, RedirectURL: cb})
//	auth := flow.AuthCodeURL()          // send the user to auth.URL; keep auth.State, auth.Verifier
//	// ... at the redirect URL:
//	code, err := flow.Callback(r.URL.Query(), auth.State)
//	creds, err := flow.Exchange(ctx, code, auth.Verifier)
//	conn, err := kinds.Open("hubspot", creds)
package connect

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/transport"
	"github.com/tributary-dev/tributary/kinds"
	"golang.org/x/oauth2"
)

// Sentinel errors; every error of this package is an *Error matching one
// of them with errors.Is.
var (
	// ErrConfig: the flow's configuration is incomplete or invalid.
	ErrConfig = errors.New("invalid OAuth configuration")
	// ErrAccessDenied: the user declined at the vendor's consent page.
	ErrAccessDenied = errors.New("access denied by the user")
	// ErrState: the callback's state is missing or is not the one this
	// flow issued (a forged or replayed callback).
	ErrState = errors.New("OAuth state mismatch")
	// ErrRefused: the vendor refused the authorization or the exchange
	// (a used or expired code, a wrong client secret, a redirect_uri or
	// PKCE verifier that does not match).
	ErrRefused = errors.New("refused by the vendor")
	// ErrUnexpected: the vendor's answer lacks what the credentials need,
	// or could not be read or reached.
	ErrUnexpected = errors.New("unexpected answer from the vendor")
)

// Error describes a failed step of the flow. It never contains a secret:
// no client secret, code, verifier or token.
type Error struct {
	// Kind is the connector_type; Op the step: "config", "callback",
	// "exchange" or "metadata".
	Kind, Op string
	// StatusCode is the HTTP status of the vendor's answer (0: none).
	StatusCode int
	// Code is the vendor's OAuth error code (invalid_grant, ...).
	Code string
	// Message explains, in the vendor's words when it gave some.
	Message string
	// Err is the sentinel this error matches.
	Err error
	// cause is the underlying error (a network error), wrapped.
	cause error
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "connect %s: %s: %v", e.Kind, e.Op, e.Err)
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.StatusCode)
	}
	if e.Code != "" {
		fmt.Fprintf(&b, ": %s", e.Code)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.cause != nil {
		fmt.Fprintf(&b, ": %v", e.cause)
	}
	return b.String()
}

// Unwrap returns the sentinel and the underlying error, if any.
func (e *Error) Unwrap() []error {
	if e.cause != nil {
		return []error{e.Err, e.cause}
	}
	return []error{e.Err}
}

// Config is what a flow needs besides the kind's description.
type Config struct {
	// ClientID and ClientSecret identify the OAuth app registered at the
	// vendor; RedirectURL is its registered callback, exactly.
	ClientID, ClientSecret, RedirectURL string
	// Scopes replaces the kind's read-only scopes when non-nil.
	Scopes []string
	// Inputs are the values the kind's OAuthApp.Inputs ask for, by name:
	// "subdomain" for Zendesk, "login_url" for Salesforce
	// (https://test.salesforce.com for a sandbox, or a My Domain),
	// "region" for Intercom ("us", "eu" or "au").
	Inputs map[string]string
	// BaseURL, when set, replaces the scheme and host of every vendor
	// endpoint (consent page, token, metadata), keeping their paths: the
	// flow then runs against a fake (the kinds' <kind>test servers serve
	// these paths) or a proxy.
	BaseURL string
	// HTTPClient sends the token and metadata requests; nil means a
	// client with a 30-second timeout.
	HTTPClient *http.Client
}

// Format prints the configuration with the client secret redacted.
func (c Config) Format(f fmt.State, verb rune) {
	secret := `""`
	if c.ClientSecret != "" {
		secret = "[REDACTED]"
	}
	fmt.Fprintf(f, "connect.Config{ClientID: %q, ClientSecret: %s, RedirectURL: %q, Scopes: %q, Inputs: %v, BaseURL: %q}",
		c.ClientID, secret, c.RedirectURL, c.Scopes, c.Inputs, c.BaseURL)
}

// Flow runs one kind's authorization-code flow for one OAuth app. It holds
// no per-user state and is safe for concurrent use.
type Flow struct {
	app       tributary.OAuthApp
	conf      oauth2.Config
	lookup    *tributary.OAuthLookup // nil: none
	lookupURL string
	inputs    map[string]string // given by the caller
	hc        *http.Client
}

// New returns the flow of connectorType (see kinds.OAuthApp).
func New(connectorType string, cfg Config) (*Flow, error) {
	app, err := kinds.OAuthApp(connectorType)
	if err != nil {
		return nil, err
	}
	return NewFromApp(app, cfg)
}

// NewFromApp returns the flow an OAuthApp describes: a kind's, changed by
// the caller (another login host, fewer scopes).
func NewFromApp(app tributary.OAuthApp, cfg Config) (*Flow, error) {
	app = app.Clone()
	fail := func(format string, args ...any) (*Flow, error) {
		return nil, &Error{Kind: app.Kind, Op: "config", Err: ErrConfig, Message: fmt.Sprintf(format, args...)}
	}
	switch {
	case cfg.ClientID == "":
		return fail("the client id is required")
	case cfg.ClientSecret == "":
		return fail("the client secret is required")
	case cfg.RedirectURL == "":
		return fail("the redirect URL is required")
	}
	if u, err := url.Parse(cfg.RedirectURL); err != nil || !u.IsAbs() || u.Fragment != "" {
		return fail("the redirect URL %q must be absolute, without a fragment", cfg.RedirectURL)
	}
	values := map[string]string{}
	known := map[string]bool{}
	given := map[string]string{}
	for k, v := range cfg.Inputs {
		if v != "" {
			given[k] = v
		}
	}
	for _, in := range app.Inputs {
		known[in.Name] = true
		v := cfg.Inputs[in.Name]
		if v == "" {
			if in.Required {
				return fail("%s is required: %s", in.Name, in.Doc)
			}
			v = in.Default
		}
		values[in.Name] = v
		if len(in.Choices) == 0 {
			continue
		}
		i := slices.IndexFunc(in.Choices, func(c tributary.OAuthChoice) bool { return strings.EqualFold(c.Value, strings.TrimSpace(v)) })
		if i < 0 {
			return fail("%s %q is not one of %s: %s", in.Name, v, strings.Join(in.ChoiceValues(), ", "), in.Doc)
		}
		c := in.Choices[i]
		values[in.Name] = c.Value
		if _, ok := given[in.Name]; ok {
			given[in.Name] = c.Value // as the choice spells it
		}
		for name, fill := range c.Fill {
			values[name] = fill
		}
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Inputs)) {
		if !known[name] {
			return fail("%s takes no input %q", app.Kind, name)
		}
	}
	resolve := func(raw string) (string, error) {
		if raw == "" {
			return "", nil
		}
		for name, v := range values {
			ph := "{" + name + "}"
			if !strings.Contains(raw, ph) {
				continue
			}
			if strings.HasPrefix(raw, ph) {
				u, err := url.Parse(v)
				if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || strings.Trim(u.Path, "/") != "" || u.RawQuery != "" {
					return "", fmt.Errorf("%s %q must be an origin such as https://host", name, v)
				}
				v = strings.TrimRight(v, "/")
			} else if !labelRE.MatchString(v) {
				return "", fmt.Errorf("%s %q must be a DNS label (letters, digits, hyphens)", name, v)
			}
			raw = strings.ReplaceAll(raw, ph, v)
		}
		if strings.Contains(raw, "{") {
			return "", fmt.Errorf("%q has a placeholder no input fills", raw)
		}
		if cfg.BaseURL == "" {
			return raw, nil
		}
		u, err := url.Parse(raw)
		if err != nil {
			return "", err
		}
		b, err := url.Parse(cfg.BaseURL)
		if err != nil || b.Scheme == "" || b.Host == "" {
			return "", fmt.Errorf("base URL %q must be an absolute URL", cfg.BaseURL)
		}
		u.Scheme, u.Host = b.Scheme, b.Host
		u.Path = strings.TrimRight(b.Path, "/") + u.Path
		return u.String(), nil
	}
	authURL, err := resolve(app.AuthURL)
	if err != nil {
		return fail("consent URL: %v", err)
	}
	tokenURL, err := resolve(app.TokenURL)
	if err != nil {
		return fail("token URL: %v", err)
	}
	lookup := app.Lookup
	if lookup == nil && app.MetadataURL != "" {
		lookup = &tributary.OAuthLookup{URL: app.MetadataURL, Scheme: "OAuth"}
	}
	var lookupURL string
	if lookup != nil {
		if lookupURL, err = resolve(lookup.URL); err != nil {
			return fail("lookup URL: %v", err)
		}
	}
	scopes := app.Scopes
	if cfg.Scopes != nil {
		scopes = slices.Clone(cfg.Scopes)
	}
	style := oauth2.AuthStyleInParams
	if app.ClientAuth == tributary.OAuthClientInBasic {
		style = oauth2.AuthStyleInHeader
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	if app.TokenJSON {
		j := *hc
		j.Transport = transport.JSONTokenRequests(hc.Transport)
		hc = &j
	}
	return &Flow{
		app: app,
		conf: oauth2.Config{
			ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, RedirectURL: cfg.RedirectURL, Scopes: scopes,
			Endpoint: oauth2.Endpoint{AuthURL: authURL, TokenURL: tokenURL, AuthStyle: style},
		},
		lookup:    lookup,
		lookupURL: lookupURL,
		inputs:    given,
		hc:        hc,
	}, nil
}

var labelRE = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$`)

// App returns a copy of the description the flow runs.
func (f *Flow) App() tributary.OAuthApp { return f.app.Clone() }

// Authorization is the start of one user's flow: the consent URL to send
// the user to, and what the caller must keep until the callback: State,
// to check the callback with, and Verifier (PKCE; empty when the vendor
// does not support it), to exchange the code with. Printing it redacts the
// verifier.
type Authorization struct {
	URL      string
	State    string
	Verifier string
}

// Format prints the authorization with the verifier redacted.
func (a Authorization) Format(f fmt.State, verb rune) {
	v := `""`
	if a.Verifier != "" {
		v = "[REDACTED]"
	}
	fmt.Fprintf(f, "connect.Authorization{URL: %q, State: %q, Verifier: %s}", a.URL, a.State, v)
}

// AuthCodeURL starts a flow: a fresh random state (crypto/rand) and, where
// the vendor supports PKCE, a fresh verifier whose S256 challenge the URL
// carries.
func (f *Flow) AuthCodeURL() Authorization {
	a := Authorization{State: rand.Text()}
	var opts []oauth2.AuthCodeOption
	for _, k := range slices.Sorted(maps.Keys(f.app.AuthParams)) {
		opts = append(opts, oauth2.SetAuthURLParam(k, f.app.AuthParams[k]))
	}
	if sep := f.app.ScopeSeparator; sep != "" && sep != " " && len(f.conf.Scopes) > 0 {
		opts = append(opts, oauth2.SetAuthURLParam("scope", strings.Join(f.conf.Scopes, sep)))
	}
	if f.app.PKCE {
		a.Verifier = oauth2.GenerateVerifier()
		opts = append(opts, oauth2.S256ChallengeOption(a.Verifier))
	}
	a.URL = f.conf.AuthCodeURL(a.State, opts...)
	return a
}

// Callback reads the query the vendor redirected the user back with: the
// code when state is the one AuthCodeURL issued; an error matching
// ErrAccessDenied when the user declined, ErrRefused for the vendor's
// other errors, ErrState for a missing or foreign state.
func (f *Flow) Callback(query url.Values, state string) (code string, err error) {
	fail := func(sentinel error, code, msg string) (string, error) {
		return "", &Error{Kind: f.app.Kind, Op: "callback", Err: sentinel, Code: code, Message: msg}
	}
	got := query.Get("state")
	if state == "" || subtle.ConstantTimeCompare([]byte(got), []byte(state)) != 1 {
		return fail(ErrState, "", "the callback's state is not the one this flow issued")
	}
	if e := query.Get("error"); e != "" {
		msg := clip(query.Get("error_description"))
		if e == "access_denied" {
			return fail(ErrAccessDenied, e, msg)
		}
		return fail(ErrRefused, clip(e), msg)
	}
	code = query.Get("code")
	if code == "" {
		return fail(ErrUnexpected, "", "the callback carries neither a code nor an error")
	}
	return code, nil
}

// clip bounds a vendor's text put into an error.
func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// Credentials is a credentials object as the exchange produced it: a
// map[string]any that kinds.Open and the hosted create call take as it is.
// Printing it redacts every value but the few that are not secret.
type Credentials map[string]any

// notSecret are the credentials fields printed as they are.
var notSecret = map[string]bool{"subdomain": true, "instance_url": true, "login_url": true,
	"api_base_url": true, "data_center": true, "client_id": true, "region": true}

// Format prints the credentials with the secrets redacted.
func (c Credentials) Format(f fmt.State, verb rune) {
	var b strings.Builder
	b.WriteString("connect.Credentials{")
	for i, k := range slices.Sorted(maps.Keys(c)) {
		if i > 0 {
			b.WriteString(", ")
		}
		if notSecret[k] {
			fmt.Fprintf(&b, "%s: %q", k, fmt.Sprint(c[k]))
		} else {
			fmt.Fprintf(&b, "%s: [REDACTED]", k)
		}
	}
	b.WriteString("}")
	_, _ = io.WriteString(f, b.String())
}

// Exchange trades code for tokens at the vendor's token endpoint (with the
// PKCE verifier AuthCodeURL returned), runs the vendor's post-exchange
// step (Mailchimp's metadata call) and returns the kind's credentials
// object, checked as kinds.Open checks it.
func (f *Flow) Exchange(ctx context.Context, code, verifier string) (Credentials, error) {
	kind := f.app.Kind
	if code == "" {
		return nil, &Error{Kind: kind, Op: "exchange", Err: ErrConfig, Message: "no code to exchange"}
	}
	if f.app.PKCE && verifier == "" {
		return nil, &Error{Kind: kind, Op: "exchange", Err: ErrConfig, Message: "the PKCE verifier of this flow's Authorization is required"}
	}
	var opts []oauth2.AuthCodeOption
	if verifier != "" {
		opts = append(opts, oauth2.VerifierOption(verifier))
	}
	tok, err := f.conf.Exchange(context.WithValue(ctx, oauth2.HTTPClient, f.hc), code, opts...)
	if err != nil {
		return nil, f.exchangeError(err)
	}
	var meta map[string]any
	if f.lookup != nil {
		if meta, err = f.metadata(ctx, tok.AccessToken); err != nil {
			return nil, err
		}
	}
	creds := Credentials{}
	for _, fld := range f.app.Credentials {
		var v string
		switch fld.From {
		case tributary.OAuthFromAccessToken:
			v = tok.AccessToken
		case tributary.OAuthFromRefreshToken:
			v = tok.RefreshToken
		case tributary.OAuthFromClientID:
			v = f.conf.ClientID
		case tributary.OAuthFromClientSecret:
			v = f.conf.ClientSecret
		case tributary.OAuthFromToken:
			top, rest, _ := strings.Cut(fld.Key, ".")
			v = text(at(tok.Extra(top), rest))
		case tributary.OAuthFromMetadata:
			v = text(at(meta, fld.Key))
		case tributary.OAuthFromInput:
			v = f.inputs[fld.Key]
		}
		if v == "" {
			if fld.Optional {
				continue
			}
			return nil, &Error{Kind: kind, Op: "exchange", Err: ErrUnexpected,
				Message: fmt.Sprintf("the vendor's answer has no value for %s (%s)", fld.Name, sourceName(fld))}
		}
		creds[fld.Name] = v
	}
	if err := kinds.CheckCredentials(kind, creds); err != nil && !errors.Is(err, tributary.ErrUnknownKind) {
		return nil, &Error{Kind: kind, Op: "exchange", Err: ErrUnexpected, Message: "the credentials produced are not valid", cause: err}
	}
	return creds, nil
}

func sourceName(f tributary.OAuthField) string {
	switch f.From {
	case tributary.OAuthFromAccessToken:
		return "access_token of the token answer"
	case tributary.OAuthFromRefreshToken:
		return "refresh_token of the token answer"
	case tributary.OAuthFromToken:
		return f.Key + " of the token answer"
	case tributary.OAuthFromMetadata:
		return f.Key + " of the metadata answer"
	case tributary.OAuthFromInput:
		return "input " + f.Key
	}
	return "client"
}

// at follows a dot path into a decoded JSON value ("" is v itself).
func at(v any, path string) any {
	if path == "" {
		return v
	}
	for step := range strings.SplitSeq(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[step]
	}
	return v
}

// text renders a JSON scalar of a vendor's answer as a credentials string.
func text(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case json.Number:
		return v.String()
	}
	return ""
}

// exchangeError turns the oauth2 package's error into an *Error that
// carries the vendor's error code and description, never the body as a
// whole nor the request.
func (f *Flow) exchangeError(err error) error {
	e := &Error{Kind: f.app.Kind, Op: "exchange", Err: ErrUnexpected}
	var re *oauth2.RetrieveError
	switch {
	case errors.As(err, &re):
		e.Err = ErrRefused
		if re.Response != nil {
			e.StatusCode = re.Response.StatusCode
		}
		e.Code, e.Message = clip(re.ErrorCode), clip(re.ErrorDescription)
		if e.Code == "" {
			// A body that is not RFC 6749's (HubSpot's v1 {status, message}).
			var body struct{ Status, Message string }
			if json.Unmarshal(re.Body, &body) == nil {
				e.Code, e.Message = clip(body.Status), clip(body.Message)
			}
		}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		e.cause = err
	default:
		var ue *url.Error
		if errors.As(err, &ue) {
			e.cause = ue // the token URL and the network error; the code is in the body
		} else {
			e.Message = "the token answer could not be read or has no access_token"
		}
	}
	return e
}

// metadata sends the app's lookup with the new access token and returns
// the object it answers, or the element its Pick chooses.
func (f *Flow) metadata(ctx context.Context, token string) (map[string]any, error) {
	fail := func(sentinel error, status int, msg string, cause error) (map[string]any, error) {
		return nil, &Error{Kind: f.app.Kind, Op: "metadata", Err: sentinel, StatusCode: status, Message: msg, cause: cause}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.lookupURL, nil)
	if err != nil {
		return fail(ErrConfig, 0, "bad lookup URL", nil)
	}
	scheme := f.lookup.Scheme
	if scheme == "" {
		scheme = "Bearer"
	}
	req.Header.Set("Authorization", scheme+" "+token)
	req.Header.Set("Accept", "application/json")
	res, err := f.hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			return fail(ErrUnexpected, 0, "", ue)
		}
		return fail(ErrUnexpected, 0, "the lookup request failed", nil)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return fail(ErrUnexpected, res.StatusCode, "the lookup's answer could not be read", nil)
	}
	if res.StatusCode != http.StatusOK {
		return fail(ErrRefused, res.StatusCode, "the lookup endpoint refused the new token", nil)
	}
	if f.lookup.Pick == nil {
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			return fail(ErrUnexpected, res.StatusCode, "the lookup's answer is not a JSON object", nil)
		}
		return m, nil
	}
	var list []map[string]any
	if err := json.Unmarshal(body, &list); err != nil {
		return fail(ErrUnexpected, res.StatusCode, "the lookup's answer is not a JSON array of objects", nil)
	}
	m, msg := pick(f.lookup.Pick, list, f.inputs[f.lookup.Pick.Input])
	if m == nil {
		return fail(ErrUnexpected, res.StatusCode, msg, nil)
	}
	return m, nil
}

// pick chooses the element of a lookup's answer that want names (see
// tributary.OAuthPick), or says why none.
func pick(p *tributary.OAuthPick, list []map[string]any, want string) (map[string]any, string) {
	labels := make([]string, 0, len(list))
	for _, el := range list {
		labels = append(labels, clip(text(el[p.Label])))
	}
	shown := strings.Join(labels, ", ")
	if want == "" {
		switch len(list) {
		case 1:
			return list[0], ""
		case 0:
			return nil, "the token grants access to nothing (the answer lists no " + p.Label + ")"
		}
		return nil, fmt.Sprintf("the token grants access to %d of them (%s): give the input %s to choose one", len(list), shown, p.Input)
	}
	for _, el := range list {
		for _, field := range p.Match {
			if matches(text(el[field]), want) {
				return el, ""
			}
		}
	}
	if len(list) == 0 {
		return nil, fmt.Sprintf("the token grants access to nothing, not %s %q", p.Input, want)
	}
	return nil, fmt.Sprintf("%s %q is not among those the token grants (%s)", p.Input, want, shown)
}

// matches reports whether a field's value is want, or a URL whose host is
// want or begins with want and a dot.
func matches(v, want string) bool {
	if v == "" {
		return false
	}
	if strings.EqualFold(v, want) {
		return true
	}
	u, err := url.Parse(v)
	if err != nil || u.Host == "" {
		return false
	}
	h := strings.ToLower(u.Hostname())
	w := strings.ToLower(want)
	return h == w || strings.HasPrefix(h, w+".")
}
