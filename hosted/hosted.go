// Package hosted is the client of the hosted connector execution service:
// the service holds the credentials and runs the operations; this client
// creates connectors and runs operations over HTTP, and returns the same
// tributary.Connector, Records, Pages and errors as direct mode.
//
//	c, err := hosted.New(hosted.Config{BaseURL: "https://api.example.com",
//		ClientID: id, ClientSecret: secret, ExternalUserID: "customer-42"})
//	id, err := c.CreateConnector(ctx, hosted.CreateRequest{ConnectorType: "zendesk-support", Credentials: creds})
//	conn, err := c.Connector(id, "zendesk-support")
//	page, err := conn.List(ctx, "tickets", tributary.Params{"per_page": 50})
//
// Every operation is validated against the kind's catalogue locally before
// it is sent, exactly as in direct mode.
package hosted

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/time/rate"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
	"github.com/tributary-dev/tributary/internal/jsonx"
	"github.com/tributary-dev/tributary/internal/transport"
	"github.com/tributary-dev/tributary/kinds"
)

// Paths are the service's endpoint paths. The service is known to answer
// at two sets (DefaultPaths and IntegrationsPaths); Execute and Update
// contain {id}.
type Paths struct {
	// Token exchanges a client id and secret for a bearer token.
	Token string
	// Create creates a connector (POST) and lists them (GET,
	// ListConnectors).
	Create string
	// Execute runs an operation on connector {id}.
	Execute string
	// Update changes connector {id}'s name, credentials or
	// replication_config (PATCH), describes it (GET, GetConnector) and
	// deletes it (DELETE). When empty and Execute is set and ends in
	// "/execute", it is Execute without that suffix.
	Update string
	// Changes reads the change feed of a copy of connector {id}.
	Changes string
	// ConnectSessions creates connect sessions (POST).
	ConnectSessions string
}

// DefaultPaths are the paths of the platform contract.
var DefaultPaths = Paths{
	Token:           "/api/v1/account/applications/token",
	Create:          "/v1/integrations/connectors",
	Execute:         "/api/v1/connectors/sources/{id}/execute",
	Update:          "/api/v1/connectors/sources/{id}",
	Changes:         "/v1/integrations/connectors/{id}/changes",
	ConnectSessions: "/v1/connect/sessions",
}

// IntegrationsPaths are the other paths the same service answers at.
var IntegrationsPaths = Paths{
	Token:           "/api/v1/account/applications/token",
	Create:          "/api/v1/integrations/connectors",
	Execute:         "/api/v1/integrations/connectors/{id}/execute",
	Update:          "/api/v1/integrations/connectors/{id}",
	Changes:         "/api/v1/integrations/connectors/{id}/changes",
	ConnectSessions: "/api/v1/connect/sessions",
}

// Config configures a Client. Give either Token, or ClientID and
// ClientSecret (exchanged for a token at Paths.Token, cached and renewed
// before it expires).
type Config struct {
	// BaseURL is the service's base URL.
	BaseURL string
	// Token is a bearer token for the service.
	Token string
	// ClientID and ClientSecret obtain tokens.
	ClientID, ClientSecret string
	// ExternalUserID identifies the end user that owns created connectors.
	// With ClientID and ClientSecret it is also sent to the token
	// endpoint, which may then limit the token to that user's connectors
	// (`tributary serve` does).
	ExternalUserID string
	// Paths overrides DefaultPaths (zero fields keep the default).
	Paths Paths
}

// Format prints the configuration without its secrets.
func (c Config) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "hosted.Config{BaseURL: %q, ClientID: %q, ExternalUserID: %q, Token: %s, ClientSecret: %s}",
		c.BaseURL, c.ClientID, c.ExternalUserID, redacted(c.Token), redacted(c.ClientSecret))
}

func redacted(s string) string {
	if s == "" {
		return `""`
	}
	return "[REDACTED]"
}

// Client talks to the hosted service. It is safe for concurrent use.
type Client struct {
	base     *url.URL
	paths    Paths
	user     string
	http     *transport.Client
	secrets  []string
	prefetch int // the most pages a walk asks the service for at once
	retry    tributary.RetryPolicy
	maxBody  int64 // the most bytes of one execute answer read

	mu          sync.Mutex
	credSecrets []string
}

// New builds a Client. Options: tributary.WithHTTPClient, WithLogger,
// WithRetry, WithRateLimit, WithMaxConcurrency, WithPrefetch, WithUserAgent,
// WithTimeouts (also on the token exchange), WithMaxPageBytes (WithBaseURL
// is Config.BaseURL).
func New(cfg Config, opts ...tributary.Option) (*Client, error) {
	bad := func(format string, args ...any) error {
		return &tributary.Error{Kind: "hosted", Err: tributary.ErrInvalidCredentials, Message: fmt.Sprintf(format, args...)}
	}
	base, err := engine.ParseBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, bad("base URL: %v", err)
	}
	switch {
	case cfg.Token != "" && (cfg.ClientID != "" || cfg.ClientSecret != ""):
		return nil, bad("give a token or a client id and secret, not both")
	case cfg.Token == "" && (cfg.ClientID == "" || cfg.ClientSecret == ""):
		return nil, bad("give a token, or both a client id and a client secret")
	}
	paths := DefaultPaths
	if cfg.Paths.Token != "" {
		paths.Token = cfg.Paths.Token
	}
	if cfg.Paths.Create != "" {
		paths.Create = cfg.Paths.Create
	}
	if cfg.Paths.Execute != "" {
		paths.Execute = cfg.Paths.Execute
		if p, ok := strings.CutSuffix(cfg.Paths.Execute, "/execute"); ok {
			paths.Update = p
		}
	}
	if cfg.Paths.Update != "" {
		paths.Update = cfg.Paths.Update
	}
	if cfg.Paths.Changes != "" {
		paths.Changes = cfg.Paths.Changes
	}
	if cfg.Paths.ConnectSessions != "" {
		paths.ConnectSessions = cfg.Paths.ConnectSessions
	}
	if !strings.Contains(paths.Changes, "{id}") {
		return nil, bad("the changes path %q has no {id}", paths.Changes)
	}
	if !strings.Contains(paths.Execute, "{id}") {
		return nil, bad("the execute path %q has no {id}", paths.Execute)
	}
	if !strings.Contains(paths.Update, "{id}") {
		return nil, bad("the update path %q has no {id}", paths.Update)
	}
	o := tributary.NewOptions(opts...)
	c := &Client{base: base, paths: paths, user: cfg.ExternalUserID, secrets: []string{cfg.Token, cfg.ClientSecret},
		retry: o.Retry, maxBody: o.PageLimit()}
	timeouts := engine.Timeouts(o)
	var auth transport.Auth
	if cfg.Token != "" {
		auth = transport.Bearer(cfg.Token)
	} else {
		hc := transport.HTTPClient(o.HTTPClient, timeouts, tokenTimeout)
		src := &tokenSource{hc: hc, url: base.String() + paths.Token, id: cfg.ClientID, secret: cfg.ClientSecret, user: cfg.ExternalUserID}
		auth = transport.TokenAuth(oauth2.ReuseTokenSourceWithExpiry(nil, src, time.Minute))
	}
	tc := transport.Config{
		Origin: &url.URL{Scheme: base.Scheme, Host: base.Host}, Auth: auth,
		Header: http.Header{"Accept": {"application/json"}},
		Base:   o.HTTPClient, Logger: o.Logger, UserAgent: o.UserAgent,
		MaxRetries: o.Retry.MaxRetries, MinBackoff: o.Retry.MinBackoff, MaxBackoff: o.Retry.MaxBackoff, MaxRateLimitWait: o.Retry.MaxRateLimitWait,
		MaxConcurrency: o.MaxConcurrency, Timeouts: timeouts,
	}
	if o.OnRetry != nil {
		tc.OnRetry = engine.RetryHook(o.OnRetry, c.redact)
	}
	if o.RatePerSecond > 0 {
		tc.Limiter = rate.NewLimiter(rate.Limit(o.RatePerSecond), max(o.RateBurst, 1))
	}
	c.http = transport.New(tc)
	c.prefetch = o.PrefetchWithin(o.MaxConcurrency)
	return c, nil
}

// Format prints the client without its secrets.
func (c *Client) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "hosted.Client{base: %s, external_user_id: %q}", c.base, c.user)
}

// tokenTimeout bounds one token exchange.
const tokenTimeout = 30 * time.Second

// tokenSource exchanges the client id and secret for a bearer token.
type tokenSource struct {
	hc         *http.Client
	url        string
	id, secret string
	user       string // asks for a token limited to this external user's connectors
}

func (s *tokenSource) Token() (*oauth2.Token, error) {
	fields := map[string]string{"client_id": s.id, "client_secret": s.secret}
	if s.user != "" {
		fields["external_user_id"] = s.user
	}
	body, _ := json.Marshal(fields)
	ctx, cancel := context.WithTimeout(context.Background(), tokenTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	// A failure that may pass (no connection, a timeout, a 5xx or 429) is
	// transport.ErrTokenUnavailable: a server error, not bad credentials.
	resp, err := s.hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("%w: token request failed: %v", transport.ErrTokenUnavailable, err)
	}
	defer resp.Body.Close()
	raw, err := transport.ReadBody(resp.Body, resp.ContentLength, 64<<10)
	if err != nil && !errors.Is(err, transport.ErrTooLarge) {
		return nil, fmt.Errorf("%w: reading the token response: %v", transport.ErrTokenUnavailable, err)
	}
	if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
		return nil, fmt.Errorf("%w: token request answered HTTP %d", transport.ErrTokenUnavailable, resp.StatusCode)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("token request answered HTTP %d", resp.StatusCode)
	}
	var tr struct {
		AccessToken string  `json:"access_token"`
		Token       string  `json:"token"`
		ExpiresIn   float64 `json:"expires_in"`
	}
	if err := json.Unmarshal(raw, &tr); err != nil {
		return nil, errors.New("token response is not JSON")
	}
	tok := &oauth2.Token{AccessToken: tr.AccessToken, TokenType: "Bearer"}
	if tok.AccessToken == "" {
		tok.AccessToken = tr.Token
	}
	if tok.AccessToken == "" {
		return nil, errors.New("token response has no access_token")
	}
	if tr.ExpiresIn > 0 {
		tok.Expiry = time.Now().Add(time.Duration(tr.ExpiresIn * float64(time.Second)))
	}
	return tok, nil
}

// CreateRequest is the body of a create-connector call.
type CreateRequest struct {
	// ConnectorType is the kind, e.g. "zendesk-support".
	ConnectorType string
	// Name is an optional display name.
	Name string
	// Credentials is the kind's credentials object, checked before sending.
	Credentials map[string]any
	// ReplicationConfig holds the kind's replication settings where it
	// needs them (Intercom: start_date).
	ReplicationConfig map[string]any
}

// Format prints the request without the credentials' values.
func (r CreateRequest) Format(f fmt.State, verb rune) {
	keys := make([]string, 0, len(r.Credentials))
	for k := range r.Credentials {
		keys = append(keys, k)
	}
	fmt.Fprintf(f, "hosted.CreateRequest{ConnectorType: %q, Name: %q, Credentials: %v (values redacted)}", r.ConnectorType, r.Name, keys)
}

// CreateConnector creates a connector for the configured external user and
// returns its id. The credentials are checked against the kind first, as
// kinds.Open checks them; nothing is sent when they are wrong. The service
// then tries them at the vendor (one cheap authenticated call): refused
// ones are an error matching tributary.ErrInvalidCredentials with Param
// "credentials", and no connector is created.
func (c *Client) CreateConnector(ctx context.Context, r CreateRequest) (string, error) {
	if err := kinds.CheckCredentials(r.ConnectorType, r.Credentials); err != nil {
		return "", err
	}
	if err := kinds.CheckReplicationConfig(r.ConnectorType, r.ReplicationConfig); err != nil {
		return "", err
	}
	if c.user == "" {
		return "", &tributary.Error{Kind: r.ConnectorType, Err: tributary.ErrInvalidCredentials, Message: "Config.ExternalUserID is required to create connectors"}
	}
	c.rememberSecrets(r.Credentials)
	body := map[string]any{"external_user_id": c.user, "connector_type": r.ConnectorType, "credentials": r.Credentials}
	if r.Name != "" {
		body["name"] = r.Name
	}
	if r.ReplicationConfig != nil {
		body["replication_config"] = r.ReplicationConfig
	}
	resp, err := c.post(ctx, c.paths.Create, body, nil)
	if err != nil {
		return "", c.wrap(r.ConnectorType, "", "", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", c.wrap(r.ConnectorType, "", "", err)
	}
	if resp.StatusCode/100 != 2 {
		return "", c.statusError(r.ConnectorType, "", "", resp, raw)
	}
	for _, path := range [][]string{{"id"}, {"connector_id"}, {"data", "id"}, {"connector", "id"}} {
		if v, ok := jsonx.Lookup(raw, path...); ok {
			if id, ok := jsonx.String(v); ok && id != "" {
				return id, nil
			}
		}
	}
	return "", &tributary.Error{Kind: r.ConnectorType, StatusCode: resp.StatusCode, Err: tributary.ErrUnexpectedResponse, Message: `expected a connector id under "id", "connector_id", "data.id" or "connector.id" of the create response, got none`}
}

// UpdateRequest is the body of an update-connector call: the fields to
// replace, at least one.
type UpdateRequest struct {
	// ConnectorType, when set, is the connector's kind: Credentials and
	// ReplicationConfig are then checked against it before sending, as
	// the service checks them. It is not sent.
	ConnectorType string
	// Name, when not nil, replaces the connector's display name
	// (new("CRM") in Go 1.26).
	Name *string
	// Credentials, when not nil, replace the connector's credentials
	// (the whole object, as CreateRequest.Credentials).
	Credentials map[string]any
	// ReplicationConfig, when not nil, replaces the connector's
	// replication_config.
	ReplicationConfig map[string]any
}

// Format prints the request without the credentials' values.
func (r UpdateRequest) Format(f fmt.State, verb rune) {
	keys := make([]string, 0, len(r.Credentials))
	for k := range r.Credentials {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	name := "unchanged"
	if r.Name != nil {
		name = strconv.Quote(*r.Name)
	}
	fmt.Fprintf(f, "hosted.UpdateRequest{ConnectorType: %q, Name: %s, Credentials: %v (values redacted), ReplicationConfig: %v}", r.ConnectorType, name, keys, r.ReplicationConfig)
}

// UpdateConnector replaces connector id's name, credentials and/or
// replication_config (Paths.Update, PATCH). The service checks them as at
// creation (new credentials are tried at the vendor: refused ones are an
// error matching tributary.ErrInvalidCredentials with Param
// "credentials", and nothing changes), and makes the connector's copies whose
// synchronization failed with a configuration or authorization error
// eligible again. With r.ConnectorType set, they are checked here first
// and nothing is sent when they are wrong. The credentials' values never
// appear in the errors.
func (c *Client) UpdateConnector(ctx context.Context, id string, r UpdateRequest) error {
	if r.Credentials == nil && r.ReplicationConfig == nil && r.Name == nil {
		return &tributary.Error{Kind: r.ConnectorType, Param: "credentials", Err: tributary.ErrInvalidParams, Message: "give Name, Credentials or ReplicationConfig (or several) to change"}
	}
	if r.ConnectorType != "" {
		if r.Credentials != nil {
			if err := kinds.CheckCredentials(r.ConnectorType, r.Credentials); err != nil {
				return err
			}
		}
		if r.ReplicationConfig != nil {
			if err := kinds.CheckReplicationConfig(r.ConnectorType, r.ReplicationConfig); err != nil {
				return err
			}
		}
	}
	c.rememberSecrets(r.Credentials)
	body := map[string]any{}
	if r.Name != nil {
		body["name"] = *r.Name
	}
	if r.Credentials != nil {
		body["credentials"] = r.Credentials
	}
	if r.ReplicationConfig != nil {
		body["replication_config"] = r.ReplicationConfig
	}
	path := strings.ReplaceAll(c.paths.Update, "{id}", url.PathEscape(id))
	resp, err := c.send(ctx, http.MethodPatch, path, body, nil)
	if err != nil {
		return c.wrap(r.ConnectorType, "", "", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return c.wrap(r.ConnectorType, "", "", err)
	}
	if resp.StatusCode/100 != 2 {
		return c.statusError(r.ConnectorType, "", "", resp, raw)
	}
	return nil
}

func (c *Client) rememberSecrets(creds map[string]any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, v := range creds {
		if s, ok := v.(string); ok && len(s) >= 4 {
			c.credSecrets = append(c.credSecrets, s)
		}
	}
}

func (c *Client) redact(s string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, sec := range append(append([]string{}, c.secrets...), c.credSecrets...) {
		if len(sec) >= 4 {
			s = strings.ReplaceAll(s, sec, "[REDACTED]")
		}
	}
	return s
}

// post sends a JSON body to path.
func (c *Client) post(ctx context.Context, path string, body any, header http.Header) (*http.Response, error) {
	return c.send(ctx, http.MethodPost, path, body, header)
}

// send sends a JSON body to path with method.
func (c *Client) send(ctx context.Context, method, path string, body any, header http.Header) (*http.Response, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base.String()+path, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	return c.http.Do(req)
}

// wrap turns a transport failure into a *tributary.Error.
func (c *Client) wrap(kind, entity string, a tributary.Action, err error) error {
	e := &tributary.Error{Kind: kind, Entity: entity, Action: a}
	switch {
	case ctxErr(err) != nil:
		e.Err, e.Message = ctxErr(err), "request cancelled"
	case errors.Is(err, transport.ErrTokenUnavailable):
		e.Err, e.Retryable, e.Message = tributary.ErrServer, true, c.redact(err.Error())
	case errors.Is(err, transport.ErrAuth):
		e.Err, e.Message = tributary.ErrUnauthorized, c.redact(err.Error())
	default:
		if msg, retryable, ok := transport.Unreachable(err, c.base.Host); ok {
			e.Err, e.Retryable, e.Message, e.Cause = tributary.ErrUnreachable, retryable, c.redact(msg+" (the hosted service)"), err
			break
		}
		e.Err, e.Retryable, e.Message = tributary.ErrServer, true, c.redact(err.Error())
		var te *transport.TimeoutError
		if errors.As(err, &te) {
			e.Cause = te
		}
	}
	return e
}

func ctxErr(err error) error {
	switch {
	case errors.Is(err, context.Canceled):
		return context.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return context.DeadlineExceeded
	}
	return nil
}

// sentinels maps the error types the service reports to the sentinels.
var sentinels = map[string]error{
	"unknown_entity": tributary.ErrUnknownEntity, "unsupported_action": tributary.ErrUnsupportedAction,
	"invalid_params": tributary.ErrInvalidParams, "invalid_credentials": tributary.ErrInvalidCredentials,
	"unknown_kind": tributary.ErrUnknownKind, "not_found": tributary.ErrNotFound, "unauthorized": tributary.ErrUnauthorized,
	"forbidden": tributary.ErrForbidden, "rate_limited": tributary.ErrRateLimited, "server_error": tributary.ErrServer,
	"unreachable":  tributary.ErrUnreachable,
	"paging_error": tributary.ErrPaging, "unexpected_response": tributary.ErrUnexpectedResponse,
	"cursor_expired": tributary.ErrCursorExpired,
}

// ErrorType names a sentinel as the service reports it ("not_found"), the
// inverse of what the client reads; hostedtest uses it.
func ErrorType(err error) string {
	for name, s := range sentinels {
		if errors.Is(err, s) {
			return name
		}
	}
	return "server_error"
}

// statusError reads the service's error envelope: {"status": "error",
// "error": {"type", "message", "status", "request_id", "retryable",
// "param", "code", "retry_after_seconds", "source_status",
// "source_request_id"}}, or {"detail"}/{"message"}; the HTTP status
// decides the sentinel when the body does not. StatusCode and RequestID
// are the vendor's when it answered, else the service's.
func (c *Client) statusError(kind, entity string, a tributary.Action, resp *http.Response, body []byte) error {
	e := &tributary.Error{Kind: kind, Entity: entity, Action: a, StatusCode: resp.StatusCode, Err: tributary.SentinelForStatus(resp.StatusCode)}
	var eb struct {
		Error struct {
			Type            string  `json:"type"`
			Message         string  `json:"message"`
			Code            string  `json:"code"`
			Param           string  `json:"param"`
			RequestID       string  `json:"request_id"`
			Status          int     `json:"status"`
			Retryable       *bool   `json:"retryable"`
			RetryAfter      float64 `json:"retry_after_seconds"`
			SourceStatus    int     `json:"source_status"`
			SourceRequestID string  `json:"source_request_id"`
		} `json:"error"`
		Detail  any    `json:"detail"`
		Message string `json:"message"`
	}
	var retryable *bool
	if json.Unmarshal(body, &eb) == nil {
		if s, ok := sentinels[eb.Error.Type]; ok {
			e.Err = s
		}
		e.Message, e.Code, e.Param, e.RequestID = eb.Error.Message, eb.Error.Code, eb.Error.Param, eb.Error.RequestID
		if eb.Error.SourceRequestID != "" {
			e.RequestID = eb.Error.SourceRequestID
		}
		if eb.Error.SourceStatus != 0 {
			e.StatusCode = eb.Error.SourceStatus
		}
		retryable = eb.Error.Retryable
		e.RetryAfter = time.Duration(eb.Error.RetryAfter * float64(time.Second))
		if e.Message == "" {
			if s, ok := eb.Detail.(string); ok {
				e.Message = s
			} else {
				e.Message = eb.Message
			}
		}
	}
	if e.RetryAfter == 0 {
		if d, ok := c.http.RetryAfter(resp); ok {
			e.RetryAfter = d
		}
	}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	e.Message = c.redact(e.Message)
	e.Retryable = errors.Is(e.Err, tributary.ErrRateLimited) || errors.Is(e.Err, tributary.ErrServer)
	if retryable != nil {
		e.Retryable = *retryable || errors.Is(e.Err, tributary.ErrRateLimited)
	}
	return e
}
